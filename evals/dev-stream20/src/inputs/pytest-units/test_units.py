import pytest

FACTORS = {
    ("km", "m"): 1000,
    ("m", "cm"): 100,
    ("cm", "mm"): 10,
    ("kg", "g"): 1000,
    ("g", "mg"): 1000,
    ("h", "min"): 60,
    ("min", "s"): 60,
    ("l", "ml"): 1000,
}


def convert(value, src, dst):
    if (src, dst) in FACTORS:
        return value * FACTORS[(src, dst)]
    if (dst, src) in FACTORS:
        return value / FACTORS[(dst, src)]
    raise ValueError(f"no conversion from {src} to {dst}")


@pytest.mark.parametrize("src,dst,factor", [(s, d, f) for (s, d), f in FACTORS.items()])
def test_forward(src, dst, factor):
    assert convert(1, src, dst) == factor


@pytest.mark.parametrize("src,dst,factor", [(s, d, f) for (s, d), f in FACTORS.items()])
def test_backward(src, dst, factor):
    assert convert(factor, dst, src) == 1


@pytest.mark.parametrize("src,dst", [("km", "kg"), ("h", "ml"), ("mg", "s")])
def test_unknown_pair(src, dst):
    with pytest.raises(ValueError):
        convert(1, src, dst)
