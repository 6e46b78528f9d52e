import pytest

from temps import c_to_f


@pytest.mark.parametrize(
    "celsius, fahrenheit",
    [
        (-40, -40),
        (-10, 14),
        (0, 32),
        (10, 50),
        (20, 68),
        (25, 77),
        (30, 86),
        (37, 98.6),
        (40, 104),
        (100, 212),
    ],
)
def test_c_to_f(celsius, fahrenheit):
    assert c_to_f(celsius) == pytest.approx(fahrenheit)
