"""``seed-baseline``: the naive self-calibrating embedding-delta rule Plateau started from.

The rule
--------
Embed each step's ``text``; the delta at step ``t >= 1`` is the cosine distance to the
previous step, ``delta_t = 1 - cos(e_t, e_{t-1})``. The first ``warmup = 5`` deltas
(steps 1-5) are the run's "normal movement"; they fix a floor ``mean - k * std`` (``k = 2``)
once and for all. From step 6 on, a delta strictly below ``max(floor, 0)`` trips. Nothing
trips during warm-up.

Deltas are computed in float64; values below ``1e-9`` -- rounding noise: ``1 - cos`` of two
identical unit vectors comes out a few ulp away from 0, on either side -- count as exactly 0.
Together with the strict ``<`` this makes a floor ``<= 0`` unreachable, which reproduces the
rule's documented weak spot instead of hiding it: a high-variance warm-up
(``std > mean / k``) yields a floor ``<= 0`` and the run can **never** trip; a run that loops
from its first step (warm-up deltas all 0) can never trip either; and a single warm-up outlier
inflates ``std`` the same way. ``std`` is the sample standard deviation (``ddof = 1``), as in
the Welford estimator of Plateau-obs's calibrator.

Source, and what could be verified
----------------------------------
The project brief attributes this rule to the "Plateau essay" ``SelfCalibratingBaseline`` and
to the README of AkulRanjan/Plateau-obs, with the figures recall 0.63 / false-trip 0.54.

* Verified: README.md of AkulRanjan/Plateau-obs at commit
  ``8e8c478426d3809483dbefe4cb11bcbf8d7749e4`` reports ``plateau`` at **recall 0.63,
  false-trip 0.54** (mean time to detect 12.4 turns) on 148 TRAIL traces (``tool+llm`` spans,
  ``primary`` mapping, 60 positives / 13 negatives), and states the weak spot in its own words
  ("``mu - k*sigma`` cannot find a low-similarity region that does not exist").
* Not verified: none of the four README versions read (commits ``200a9ed``, ``cf75675``,
  ``52b916a``, ``8e8c478``) names a ``SelfCalibratingBaseline`` or an essay, and Plateau-obs's
  own detector is a different design (from its README and ``plateau/calibrator.py``; its
  ``plateau/detector.py`` was not read): a fixed novelty floor (0.25, ``max_cosine`` against
  the last ``window_size`` turns) plus an action-similarity *ceiling* ``mu + k*sigma``
  (``K_SIGMA = 1.0``) learned only from informative turns (Welford for 6 turns, then EWMA,
  clamped to [0.60, 0.92]). The 0.63 / 0.54 figures belong to *that* detector, not to this
  rule. (A ``SelfCalibratingBaseline`` class found elsewhere, in an unrelated "agentdiag"
  project, z-scores information-theoretic metrics after a 100-event calibration window.)

So this module implements the spec line above verbatim; its constants (warm-up 5, ``k = 2``,
floor clamped at 0, strict ``<``, frozen after warm-up) come from the brief, not from a source
that could be read.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

__all__ = ["SeedBaseline"]

#: Deltas below this are floating-point noise and count as 0.
_NOISE = 1e-9


class SeedBaseline:
    """Trip when a step's embedding delta falls below ``max(mean - k*std, 0)`` of the warm-up.

    Parameters
    ----------
    embed
        Callable mapping a list of texts to an ``(n, dim)`` float array whose rows are
        L2-normalised (e.g. a sentence-transformers ``encode`` with
        ``normalize_embeddings=True``). Rows are re-normalised here, so a slightly off norm does
        not matter; a zero row is treated as orthogonal to everything (delta 1).
    k
        Width of the floor in standard deviations (float >= 0; default 2.0).
    warmup
        Number of deltas that calibrate the floor (int >= 2; default 5, i.e. steps 1-5; the
        first step that may trip is ``warmup + 1``).
    ddof
        Delta degrees of freedom of the warm-up standard deviation (0 or 1; default 1).

    Raises
    ------
    ValueError
        On a bad parameter (named in the message), or from :meth:`observe` when ``embed``
        returns something that is not one finite row.

    Examples
    --------
    >>> import numpy as np
    >>> angles = {"s%d" % i: a for i, a in enumerate([0, 60, 130, 210, 275, 350, 352])}
    >>> def embed(texts):
    ...     return np.array([[np.cos(np.radians(angles[t])), np.sin(np.radians(angles[t]))]
    ...                      for t in texts], dtype=np.float32)
    >>> det = SeedBaseline(embed)
    >>> [det.observe({"text": "s%d" % i}) for i in range(7)]
    ['continue', 'continue', 'continue', 'continue', 'continue', 'continue', 'trip']

    References
    ----------
    .. [1] AkulRanjan/Plateau-obs, ``README.md`` (commit ``8e8c478``), TRAIL comparison:
       recall 0.63, false-trip 0.54.
    """

    name = "seed-baseline"

    def __init__(
        self,
        embed: Callable[[list[str]], np.ndarray],
        *,
        k: float = 2.0,
        warmup: int = 5,
        ddof: int = 1,
    ) -> None:
        if not callable(embed):
            raise ValueError(f"embed must be callable, got {type(embed).__name__}")
        if isinstance(k, bool) or not isinstance(k, (int, float)) or not math.isfinite(k) or k < 0:
            raise ValueError(f"k must be a finite float >= 0, got {k!r}")
        if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 2:
            raise ValueError(f"warmup must be an integer >= 2, got {warmup!r}")
        if ddof not in (0, 1) or isinstance(ddof, bool):
            raise ValueError(f"ddof must be 0 or 1, got {ddof!r}")
        self.embed = embed
        self.k = float(k)
        self.warmup = warmup
        self.ddof = ddof
        self._reset()

    def _reset(self) -> None:
        self._prev: np.ndarray | None = None
        self._warm: list[float] = []
        self._floor: float | None = None
        self._tripped = False
        self._last_delta: float | None = None

    def reset(self) -> None:
        """Forget the previous embedding, the warm-up deltas, the floor and the trip."""
        self._reset()

    @property
    def floor(self) -> float | None:
        """The raw floor ``mean - k*std`` of the warm-up deltas (``None`` during warm-up).

        It may be negative; the trip test uses ``max(floor, 0)``.
        """
        return self._floor

    @property
    def last_delta(self) -> float | None:
        """The latest delta in [0, 2] (``None`` before the second step)."""
        return self._last_delta

    def _embed_one(self, text: str) -> np.ndarray:
        out = np.asarray(self.embed([text]), dtype=np.float64)
        if out.ndim != 2 or out.shape[0] != 1 or out.shape[1] < 1:
            raise ValueError(f"embed must return an array of shape (1, dim), got shape {out.shape}")
        row = out[0]
        if not np.all(np.isfinite(row)):
            raise ValueError("embed returned a non-finite value")
        norm = float(np.linalg.norm(row))
        unit: np.ndarray = row / norm if norm > 0.0 else row
        return unit

    def observe(self, step: Mapping[str, Any]) -> str:
        """Judge one step (``"continue"`` or ``"trip"``); see the class docstring."""
        if self._tripped:
            return "trip"
        e = self._embed_one(str(step.get("text") or ""))
        prev, self._prev = self._prev, e
        if prev is None:
            return "continue"
        if prev.shape != e.shape:
            raise ValueError(f"embedding dimension changed from {prev.shape[0]} to {e.shape[0]}")
        delta = min(2.0, 1.0 - float(np.dot(prev, e)))
        if delta < _NOISE:
            delta = 0.0
        self._last_delta = delta
        if self._floor is None:
            self._warm.append(delta)
            if len(self._warm) == self.warmup:
                warm = np.asarray(self._warm, dtype=np.float64)
                self._floor = float(warm.mean() - self.k * warm.std(ddof=self.ddof))
            return "continue"
        if delta < max(self._floor, 0.0):
            self._tripped = True
            return "trip"
        return "continue"
