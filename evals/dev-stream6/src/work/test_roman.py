import pytest

def to_roman(n):
    vals = [(1000,"M"),(900,"CM"),(500,"D"),(400,"CD"),(100,"C"),(90,"XC"),(50,"L"),(40,"XL"),(10,"X"),(9,"IX"),(5,"V"),(4,"IV"),(1,"I")]
    out = ""
    for v, s in vals:
        while n >= v:
            out += s; n -= v
    return out

CASES = [(1,"I"),(2,"II"),(3,"III"),(4,"IV"),(5,"V"),(6,"VI"),(7,"VII"),(8,"VIII"),(9,"IX"),(10,"X"),
         (14,"XIV"),(19,"XIX"),(40,"XL"),(44,"XLIV"),(90,"XC"),(99,"XCIX"),(400,"CD"),(444,"CDXLIV"),
         (900,"CM"),(1994,"MCMXCIV"),(2024,"MMXXIV"),(3999,"MMMCMXCIX")]

@pytest.mark.parametrize("n,expected", CASES)
def test_to_roman(n, expected):
    assert to_roman(n) == expected
