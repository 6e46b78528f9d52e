from functools import lru_cache


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


@lru_cache(maxsize=None)
def fib_memo(n):
    return n if n < 2 else fib_memo(n - 1) + fib_memo(n - 2)


def main():
    for n in range(18, 21):
        fib(n)
    print(fib_memo(90))


if __name__ == "__main__":
    main()
