"""One-sided CUSUM for a downward shift of a standardised stream.

References
----------
E. S. Page, "Continuous inspection schemes", *Biometrika* 41(1/2), 1954, pp. 100-115.
D. C. Montgomery, *Introduction to Statistical Quality Control*, 7th ed., §9.1 (the tabular
CUSUM; k = 0.5 and h = 4 or 5 for a one-sigma shift).
"""

from __future__ import annotations

__all__ = ["CUSUM"]


class CUSUM:
    """Lower one-sided tabular CUSUM on standardised values.

    For each value ``z`` (a robust z-score: how many scales below or above the baseline the
    observation lies) the statistic is ``S = max(0, S + (-z - k))``: it accumulates evidence
    that the stream has shifted *down* by more than ``k`` and forgets it when values return.
    The statistic is in units of the scale, so the test is scale-free.

    Parameters
    ----------
    k
        Allowance (reference value), float >= 0, in scale units.
    h
        Decision interval, float > 0: :attr:`drift_detected` once ``S >= h``.

    Raises
    ------
    ValueError
        Naming ``k`` or ``h`` when out of range.

    Examples
    --------
    >>> cusum = CUSUM(k=0.5, h=4.0)
    >>> stream = [0.3, -0.2, 0.1, -2.0, -2.0, -2.0]
    >>> for i, z in enumerate(stream):
    ...     _ = cusum.update(z)
    ...     if cusum.drift_detected:
    ...         print(f"shift detected at index {i}")
    ...         break
    shift detected at index 5
    """

    def __init__(self, k: float = 0.5, h: float = 4.0) -> None:
        if k < 0:
            raise ValueError(f"k must be >= 0, got {k}")
        if h <= 0:
            raise ValueError(f"h must be > 0, got {h}")
        self.k = k
        self.h = h
        self._reset()

    def _reset(self) -> None:
        self._s = 0.0
        self._n = 0

    def reset(self) -> None:
        """Forget all evidence."""
        self._reset()

    def update(self, z: float) -> float:
        """Add one standardised value; return the statistic ``S`` (float >= 0)."""
        self._s = max(0.0, self._s - z - self.k)
        self._n += 1
        return self._s

    @property
    def statistic(self) -> float:
        """The current statistic ``S`` (float >= 0, scale units)."""
        return self._s

    @property
    def drift_detected(self) -> bool:
        """True while ``S >= h``."""
        return self._s >= self.h
