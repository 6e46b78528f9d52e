import pytest

def c_to_f(c):
    return c * 9 / 5 + 32

@pytest.mark.parametrize("c,f", [(-40, -40), (0, 32), (10, 50), (20, 68), (25, 77), (30, 86), (37, 98.6), (100, 212)])
def test_c_to_f(c, f):
    assert c_to_f(c) == pytest.approx(f)

@pytest.mark.parametrize("word", ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"])
def test_word_is_lower(word):
    assert word == word.lower()

@pytest.mark.parametrize("n", range(1, 21))
def test_square_nonnegative(n):
    assert n * n >= 0

def test_known_failure():
    assert c_to_f(0) == 33
