import sys

# TODO: read the config path from the command line
CONFIG = "settings.toml"


def main():
    # TODO: handle SIGTERM
    # TODO: set up logging before anything else
    print("starting")
    return 0


if __name__ == "__main__":
    sys.exit(main())  # TODO: return the exit code of the worker
