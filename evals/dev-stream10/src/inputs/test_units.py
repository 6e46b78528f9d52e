import pytest

@pytest.mark.parametrize("value,expected", [(n, n * n) for n in range(1, 16)])
def test_square(value, expected):
    assert value ** 2 == expected

@pytest.mark.parametrize("word", ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"])
def test_upper_roundtrip(word):
    assert word.upper().lower() == word
