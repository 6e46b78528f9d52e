"""Roman numerals for chapter headings."""

_TABLE = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
          (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]


def to_roman(n):
    """Convert a positive integer to a Roman numeral.

    >>> to_roman(1)
    'I'
    >>> to_roman(4)
    'IV'
    >>> to_roman(9)
    'IX'
    >>> to_roman(14)
    'XIV'
    >>> to_roman(40)
    'XL'
    >>> to_roman(90)
    'XC'
    >>> to_roman(400)
    'CD'
    >>> to_roman(1994)
    'MCMXCIV'
    >>> to_roman(2027)
    'MMXXVII'
    """
    out = []
    for value, letters in _TABLE:
        while n >= value:
            out.append(letters)
            n -= value
    return "".join(out)


def from_roman(s):
    """Convert a Roman numeral back to an integer.

    >>> from_roman('I')
    1
    >>> from_roman('IV')
    4
    >>> from_roman('XIV')
    14
    >>> from_roman('MCMXCIV')
    1994
    >>> from_roman('MMXXVII')
    2027
    """
    total, i = 0, 0
    for value, letters in _TABLE:
        while s.startswith(letters, i):
            total += value
            i += len(letters)
    return total
