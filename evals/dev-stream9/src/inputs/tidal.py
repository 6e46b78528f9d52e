"""Small helpers for a tide table, made for blind-stream9 (doctest input)."""


def to_feet(metres):
    """Convert metres to feet, rounded to two places.

    >>> to_feet(0)
    0.0
    >>> to_feet(1)
    3.28
    >>> to_feet(2.5)
    8.2
    >>> to_feet(-0.4)
    -1.31
    """
    return round(metres * 3.28084, 2)


def label(height):
    """Name a tide height.

    >>> label(4.1)
    'high'
    >>> label(2.0)
    'mid'
    >>> label(0.3)
    'low'
    >>> label(-0.2)
    'low'
    """
    if height >= 3.5:
        return 'high'
    if height >= 1.0:
        return 'mid'
    return 'low'


def clock(minutes):
    """Format minutes after midnight as HH:MM.

    >>> clock(0)
    '00:00'
    >>> clock(75)
    '01:15'
    >>> clock(754)
    '12:34'
    >>> clock(1439)
    '23:59'
    """
    return '%02d:%02d' % divmod(minutes, 60)
