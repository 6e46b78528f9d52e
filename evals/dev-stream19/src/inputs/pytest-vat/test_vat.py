from decimal import Decimal

import pytest

from vat import gross

CASES = [
    ("10.00", "DE", "11.90"), ("10.00", "FR", "12.00"), ("10.00", "NL", "12.10"),
    ("10.00", "ES", "12.10"), ("10.00", "IT", "12.20"), ("10.00", "LU", "11.70"),
    ("0.99", "DE", "1.18"), ("0.99", "FR", "1.19"), ("0.99", "NL", "1.20"),
    ("0.99", "ES", "1.20"), ("0.99", "IT", "1.21"), ("0.99", "LU", "1.16"),
    ("249.50", "DE", "296.91"), ("249.50", "FR", "299.40"), ("249.50", "NL", "301.90"),
    ("249.50", "ES", "301.90"), ("249.50", "IT", "304.39"), ("249.50", "LU", "291.92"),
    ("0.00", "DE", "0.00"), ("0.00", "IT", "0.00"),
]


@pytest.mark.parametrize("net,country,expected", CASES)
def test_gross(net, country, expected):
    assert gross(net, country) == Decimal(expected)


def test_unknown_country():
    with pytest.raises(KeyError):
        gross("1.00", "XX")
