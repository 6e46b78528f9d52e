import pytest

CASES = [
    ("mm", 1000, "m", 1.0), ("cm", 250, "m", 2.5), ("km", 3, "m", 3000.0),
    ("m", 1, "mm", 1000.0), ("in", 12, "ft", 1.0), ("ft", 3, "yd", 1.0),
    ("yd", 1760, "mi", 1.0), ("mi", 1, "km", 1.609344), ("g", 1000, "kg", 1.0),
    ("kg", 1, "g", 1000.0), ("lb", 1, "kg", 0.45359237), ("oz", 16, "lb", 1.0),
    ("ml", 1000, "l", 1.0), ("l", 2, "ml", 2000.0), ("s", 120, "min", 2.0),
    ("min", 90, "h", 1.5), ("h", 48, "d", 2.0), ("d", 14, "wk", 2.0),
]

FACTORS = {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0, "in": 0.0254, "ft": 0.3048,
           "yd": 0.9144, "mi": 1609.344, "g": 0.001, "kg": 1.0, "lb": 0.45359237,
           "oz": 0.028349523125, "ml": 0.001, "l": 1.0, "s": 1.0, "min": 60.0,
           "h": 3600.0, "d": 86400.0, "wk": 604800.0}


def convert(value, src, dst):
    return value * FACTORS[src] / FACTORS[dst]


@pytest.mark.parametrize("src,value,dst,expected", CASES)
def test_convert(src, value, dst, expected):
    assert convert(value, src, dst) == pytest.approx(expected)


@pytest.mark.parametrize("unit", sorted(FACTORS))
def test_roundtrip(unit):
    assert convert(convert(7.25, unit, "m" if unit in ("mm", "cm", "km", "in", "ft", "yd", "mi") else unit), "m" if unit in ("mm", "cm", "km", "in", "ft", "yd", "mi") else unit, unit) == pytest.approx(7.25)
