"""A self-calibrating baseline: median and MAD of a run's own informative movements.

The naive rule ``x < mean - k*std`` learned from a warm-up breaks two ways: a high-variance
warm-up gives a floor <= 0 that can never fire, and a single outlier drags both mean and std.
The median and the median absolute deviation (MAD) have a 50 % breakdown point: one outlier in
five warm-up samples moves neither much.

References
----------
F. R. Hampel, "The influence curve and its role in robust estimation", *JASA* 69, 1974
(the MAD and its consistency constant 1.4826 for normal data).
P. J. Rousseeuw and C. Croux, "Alternatives to the median absolute deviation", *JASA* 88, 1993.
"""

from __future__ import annotations

from collections import deque

import numpy as np

__all__ = ["RobustBaseline"]

#: Consistency constant that makes the MAD estimate the standard deviation of normal data.
MAD_TO_SIGMA = 1.4826


class RobustBaseline:
    """Median/MAD baseline over the most recent ``size`` accepted samples.

    The baseline is *ready* once ``warmup`` samples were added. :meth:`standardize` turns a
    value into a robust z-score ``(x - center) / scale``. The scale is floored at
    ``scale_floor * center`` so that it multiplies with the data (the z-scores, and any test
    on them, are unchanged when every sample is multiplied by a positive constant).

    Parameters
    ----------
    warmup
        Samples needed before the baseline is ready (int >= 1).
    size
        Most recent samples kept (int >= warmup).
    scale_floor
        Lower bound of the scale relative to the centre (float in (0, 1]).

    Raises
    ------
    ValueError
        Naming the parameter when out of range.

    Examples
    --------
    >>> b = RobustBaseline(warmup=5, size=16, scale_floor=0.25)
    >>> for x in [0.40, 0.45, 0.50, 0.42, 3.0]:   # one outlier
    ...     b.update(x)
    >>> round(b.center, 2), round(b.scale, 3)
    (0.45, 0.113)
    >>> round(b.standardize(0.05), 2)
    -3.56
    """

    def __init__(self, warmup: int = 5, size: int = 32, scale_floor: float = 0.25) -> None:
        if warmup < 1:
            raise ValueError(f"warmup must be >= 1, got {warmup}")
        if size < warmup:
            raise ValueError(f"size must be >= warmup, got {size}")
        if not 0 < scale_floor <= 1:
            raise ValueError(f"scale_floor must be in (0, 1], got {scale_floor}")
        self.warmup = warmup
        self.size = size
        self.scale_floor = scale_floor
        self._reset()

    def _reset(self) -> None:
        self._samples: deque[float] = deque(maxlen=self.size)
        self._center = 0.0
        self._scale = 0.0

    def reset(self) -> None:
        """Forget all samples."""
        self._reset()

    def update(self, x: float) -> None:
        """Add one sample (a finite float) and refresh centre and scale."""
        self._samples.append(float(x))
        data = np.fromiter(self._samples, dtype=np.float64)
        self._center = float(np.median(data))
        mad = float(np.median(np.abs(data - self._center))) * MAD_TO_SIGMA
        self._scale = max(mad, self.scale_floor * abs(self._center))

    @property
    def ready(self) -> bool:
        """True once ``warmup`` samples were added."""
        return len(self._samples) >= self.warmup

    @property
    def n(self) -> int:
        """Samples currently kept."""
        return len(self._samples)

    @property
    def center(self) -> float:
        """Median of the kept samples."""
        return self._center

    @property
    def scale(self) -> float:
        """Robust scale: ``max(1.4826 * MAD, scale_floor * |center|)`` (>= 0)."""
        return self._scale

    def standardize(self, x: float) -> float:
        """Robust z-score of ``x``; 0.0 when the scale is 0 (a degenerate, all-equal baseline)."""
        if self._scale <= 0.0:
            return 0.0
        return (x - self._center) / self._scale
