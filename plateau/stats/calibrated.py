"""The calibrated stall test: a robust baseline learned from warm-up, then a CUSUM on it.

Movement values (cosine distances, in [0, 2]) are standardised against the run's own
baseline (:class:`~plateau.stats.robust_baseline.RobustBaseline`) and fed to a lower
one-sided :class:`~plateau.stats.cusum.CUSUM`. A sustained run of below-normal movement
accumulates evidence; a single low step does not. Because the baseline's scale multiplies
with the data, multiplying every movement by a positive constant leaves every decision
unchanged (the test is scale-free). The test never fires before ``warmup`` samples.

Only informative samples update the baseline: a sample that already looks stalled (below
``center - k * scale``) or that the caller flags as not informative (a structural repeat) is
judged but not learned, so a looping agent cannot teach the baseline that looping is normal.

A sample the caller marks as bringing **new facts** (what the environment returned, or the
user said, is new to the run) is evidence *against* a stall whatever its movement: it enters
the CUSUM as ``max(z, k)``, so it removes ``2k`` of evidence at least and never adds any, and
it is learned even when it moves less than the baseline expects. This is how a change of
regime (an agent that explored widely and now executes a formulaic plan, each step still
finding something new) re-calibrates the baseline instead of accumulating evidence against
a warm-up that no longer describes the run (issue 11, "a change of regime is not a stall").
A run whose every step brings new facts therefore never accumulates calibrated evidence.
"""

from __future__ import annotations

from dataclasses import dataclass

from plateau.stats.cusum import CUSUM
from plateau.stats.robust_baseline import RobustBaseline

__all__ = ["CalibratedStallTest", "StallTestResult"]


@dataclass(frozen=True)
class StallTestResult:
    """One step of the calibrated test.

    Attributes
    ----------
    calibrating
        True while the baseline is not ready (no decision is made).
    z
        Robust z-score of the movement (None while calibrating); negative = less movement
        than this run's normal.
    statistic
        CUSUM statistic after this step, in baseline-scale units (>= 0).
    level
        0 = no stall, 1 = steer-level evidence (``statistic >= h_steer``),
        2 = trip-level evidence (``statistic >= h_trip``).
    """

    calibrating: bool
    z: float | None
    statistic: float
    level: int


class CalibratedStallTest:
    """Robust baseline + CUSUM with two decision intervals.

    Parameters
    ----------
    warmup
        Informative samples learned before any decision (int >= 1).
    size
        Samples kept in the baseline (int >= warmup).
    scale_floor
        Scale floor relative to the centre (float in (0, 1]).
    k
        CUSUM allowance in scale units (float >= 0).
    h_steer, h_trip
        Decision intervals in scale units (0 < h_steer < h_trip).

    Raises
    ------
    ValueError
        Naming the parameter when out of range.

    Examples
    --------
    >>> test = CalibratedStallTest(warmup=5, size=32, scale_floor=0.25, k=0.5, h_steer=4, h_trip=8)
    >>> moves = [0.50, 0.42, 0.61, 0.47, 0.55] + [0.05] * 6
    >>> [test.update(m).level for m in moves]
    [0, 0, 0, 0, 0, 0, 1, 2, 2, 2, 2]
    """

    def __init__(
        self,
        warmup: int = 5,
        size: int = 32,
        scale_floor: float = 0.25,
        k: float = 0.5,
        h_steer: float = 4.0,
        h_trip: float = 8.0,
    ) -> None:
        if not 0 < h_steer < h_trip:
            raise ValueError(f"h_steer and h_trip must satisfy 0 < h_steer < h_trip, got {h_steer}, {h_trip}")
        self.warmup = warmup
        self.size = size
        self.scale_floor = scale_floor
        self.k = k
        self.h_steer = h_steer
        self.h_trip = h_trip
        self._baseline = RobustBaseline(warmup=warmup, size=size, scale_floor=scale_floor)
        self._cusum = CUSUM(k=k, h=h_steer)

    def reset_evidence(self) -> None:
        """Forget accumulated stall evidence (on progress), keeping the baseline."""
        self._cusum.reset()

    @property
    def statistic(self) -> float:
        """The CUSUM statistic (scale units, >= 0)."""
        return self._cusum.statistic

    @property
    def baseline(self) -> RobustBaseline:
        """The learned baseline (read-only use)."""
        return self._baseline

    def update(self, x: float, *, informative: bool = True, new_facts: bool = False) -> StallTestResult:
        """Judge one movement value ``x`` (float >= 0), then learn it if informative.

        ``new_facts`` marks a sample whose step brought facts new to the run: it counts as
        ``max(z, k)`` (never adds evidence, removes at least ``2k``) and is always learned.
        """
        if not self._baseline.ready:
            if informative or new_facts:
                self._baseline.update(x)
            return StallTestResult(calibrating=True, z=None, statistic=0.0, level=0)
        z = self._baseline.standardize(x)
        s = self._cusum.update(max(z, self.k) if new_facts else z)
        if new_facts or (informative and z >= -self.k):
            self._baseline.update(x)
        level = 2 if s >= self.h_trip else 1 if s >= self.h_steer else 0
        return StallTestResult(calibrating=False, z=z, statistic=s, level=level)
