"""Gross prices with VAT, rounded half up to the cent."""
from decimal import Decimal, ROUND_HALF_UP

RATES = {"DE": Decimal("0.19"), "FR": Decimal("0.20"), "NL": Decimal("0.21"),
         "ES": Decimal("0.21"), "IT": Decimal("0.22"), "LU": Decimal("0.17")}


def gross(net, country):
    value = Decimal(net) * (1 + RATES[country])
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
