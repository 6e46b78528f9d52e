def is_leap(year):
    """Return True if year is a leap year in the Gregorian calendar.

    >>> is_leap(1900)
    False
    >>> is_leap(1996)
    True
    >>> is_leap(1999)
    False
    >>> is_leap(2000)
    True
    >>> is_leap(2001)
    False
    >>> is_leap(2004)
    True
    >>> is_leap(2020)
    True
    >>> is_leap(2023)
    False
    >>> is_leap(2024)
    True
    >>> is_leap(2100)
    False
    >>> is_leap(2400)
    True
    >>> is_leap(2500)
    False
    """
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
