"""``python -m bench eval PATH...``: the evaluator from a repository checkout (run from its root)."""

import sys

from bench.cli import build_parser
from plateau.cli import main

if __name__ == "__main__":
    sys.exit(main(parser=build_parser()))
