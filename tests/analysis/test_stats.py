"""The sequential detectors: CUSUM, the robust baseline and the calibrated stall test."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plateau.stats.calibrated import CalibratedStallTest
from plateau.stats.cusum import CUSUM
from plateau.stats.robust_baseline import RobustBaseline


def _first_detection(cusum: CUSUM, stream: list[float]) -> int | None:
    for i, z in enumerate(stream):
        cusum.update(z)
        if cusum.drift_detected:
            return i
    return None


def test_cusum_detects_a_seeded_downward_shift_at_the_exact_index() -> None:
    """On seeded N(0,1) noise then a shift to -2 at index 50, CUSUM(k=0.5, h=5) detects at 53."""
    rng = np.random.default_rng(1)
    stream = list(rng.normal(0, 1, 50)) + list(rng.normal(-2, 1, 50))
    assert _first_detection(CUSUM(k=0.5, h=5.0), stream) == 53


def test_cusum_stays_quiet_on_in_control_noise() -> None:
    """200 steps of seeded N(0,1) noise never reach h = 8."""
    rng = np.random.default_rng(11)
    assert _first_detection(CUSUM(k=0.5, h=8.0), list(rng.normal(0, 1, 200))) is None


def test_cusum_rejects_bad_parameters() -> None:
    """A negative allowance or a non-positive interval is a ValueError naming it."""
    with pytest.raises(ValueError, match="k"):
        CUSUM(k=-1)
    with pytest.raises(ValueError, match="h"):
        CUSUM(h=0)


def test_baseline_survives_one_outlier() -> None:
    """One wild warm-up sample moves the median/MAD baseline by little, unlike mean/std."""
    clean, dirty = RobustBaseline(5), RobustBaseline(5)
    for x in [0.40, 0.45, 0.50, 0.42, 0.48]:
        clean.update(x)
    for x in [0.40, 0.45, 0.50, 0.42, 1.90]:
        dirty.update(x)
    assert abs(clean.center - dirty.center) < 0.04
    assert dirty.scale < 0.2
    # the naive mean - 2 std floor of these samples is below 0 (it could never fire); the
    # robust baseline still calls a near-zero movement a deep drop
    assert dirty.standardize(0.05) < -3


def test_calibrated_test_catches_a_stall_after_a_high_variance_warm_up() -> None:
    """A very spread-out warm-up slows the test down but a sustained stall still reaches trip level."""
    test = CalibratedStallTest(warmup=5, size=32, scale_floor=0.25, k=0.5, h_steer=4, h_trip=8)
    levels = [test.update(x).level for x in [0.1, 0.9, 0.2, 0.8, 1.6] + [0.05] * 30]
    assert levels[:5] == [0] * 5
    assert max(levels) == 2


movement = st.floats(min_value=0.0, max_value=1.5, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(st.lists(movement, min_size=1, max_size=60), st.integers(min_value=1, max_value=10))
def test_calibrated_test_never_fires_during_warm_up(moves: list[float], warmup: int) -> None:
    """Whatever the movements, no decision is made before ``warmup`` samples were seen."""
    test = CalibratedStallTest(warmup=warmup, size=max(warmup, 16))
    for i, x in enumerate(moves):
        result = test.update(x)
        if i < warmup:
            assert result.calibrating and result.level == 0


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(min_value=0.01, max_value=1.0, allow_nan=False), min_size=6, max_size=60),
    st.sampled_from([0.001, 0.1, 0.37, 2.0, 50.0]),
)
def test_calibrated_test_is_scale_free(moves: list[float], c: float) -> None:
    """Multiplying every movement by a positive constant leaves every decision unchanged."""
    a, b = CalibratedStallTest(warmup=5), CalibratedStallTest(warmup=5)
    levels_a = [a.update(x).level for x in moves]
    levels_b = [b.update(x * c).level for x in moves]
    assert levels_a == levels_b


def test_looping_does_not_teach_the_baseline() -> None:
    """Stalled samples after warm-up are judged but not learned: the centre stays put."""
    test = CalibratedStallTest(warmup=5)
    for x in [0.5, 0.45, 0.55, 0.5, 0.48]:
        test.update(x)
    center = test.baseline.center
    for _ in range(30):
        test.update(0.02)
    assert test.baseline.center == pytest.approx(center)
