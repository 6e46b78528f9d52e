import pytest


def isbn10_ok(code: str) -> bool:
    digits = code.replace("-", "")
    if len(digits) != 10:
        return False
    total = 0
    for i, ch in enumerate(digits):
        if ch == "X" and i == 9:
            value = 10
        elif ch.isdigit():
            value = int(ch)
        else:
            return False
        total += (10 - i) * value
    return total % 11 == 0


@pytest.mark.parametrize("code", [
    "0-306-40615-2",
    "0-19-853453-1",
    "0-14-044913-2",
    "0-7432-7356-7",
    "0-8044-2957-X",
    "0-201-63361-2",
    "0-13-110362-8",
    "0-262-51087-1",
    "0-521-43108-5",
])
def test_valid(code):
    assert isbn10_ok(code)


@pytest.mark.parametrize("code", [
    "0-306-40615-3",
    "0-19-853453-X",
    "0-14-04491-39",
    "1234567890",
    "ABCDEFGHIJ",
    "0-306-4061",
])
def test_invalid(code):
    assert not isbn10_ok(code)
