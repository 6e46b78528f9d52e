"""Semantic movement of a run: cosine delta, novelty against a window, cycles, calibrated stall.

Each step carries up to two unit vectors (``(dim,)`` float32): its *text* (what the agent
said) and its *observation* (the tool call and its result). For two steps, the cosine
distance on a channel is ``1 - cos``; the step distance is the mean over the channels both
steps have. Per step:

- ``delta``: distance to the previous step (DESIGN §3: ``1 - cos(e_t, e_{t-1})``);
- ``novelty``: ``1 - max cos`` over the last ``window`` steps, i.e. the distance to the
  nearest of them; catches A-B-A-B cycles that consecutive deltas miss;
- ``cycle_period``: the lag of that nearest step when it is near-identical;
- the calibrated stall test (:class:`~plateau.stats.calibrated.CalibratedStallTest`) on
  novelty, and the absolute near-duplicate rule (novelty below ``near_duplicate_eps``), which
  is structural evidence outside the calibrated test.

Every similarity is rounded to 4 decimals before it is used, so the last-bit noise that batch
composition puts into the model's output cannot change a decision.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from plateau.config import Config
from plateau.stats.calibrated import CalibratedStallTest

__all__ = ["SemanticSignals", "SemanticTracker", "calibrated_test", "step_distance"]

_DECIMALS = 4


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return round(float(np.dot(a, b)), _DECIMALS)


def step_distance(
    a: tuple[np.ndarray | None, np.ndarray | None], b: tuple[np.ndarray | None, np.ndarray | None]
) -> float | None:
    """Cosine distance between two steps: mean of ``1 - cos`` over their shared channels.

    ``a`` and ``b`` are ``(text_vector, observation_vector)`` pairs of unit ``(dim,)`` arrays
    (either may be ``None``). Returns a float in [0, 2], or ``None`` when no channel is shared.
    """
    dists = [1.0 - _cos(x, y) for x, y in zip(a, b, strict=False) if x is not None and y is not None]
    if not dists:
        return None
    return round(sum(dists) / len(dists), _DECIMALS)


@dataclass(frozen=True)
class SemanticSignals:
    """Semantic signals of one step (cosine distances in [0, 2]; None when undefined).

    Attributes
    ----------
    delta
        Step distance to the previous step.
    novelty
        Step distance to the nearest of the last ``window`` steps (the movement).
    delta_text, novelty_result
        The text-channel delta and the observation-channel novelty alone.
    nearest_lag
        How many steps back the nearest step lies (1 = previous).
    near_duplicate
        Novelty below ``near_duplicate_eps``: a near-identical restatement.
    cycle_period
        ``nearest_lag`` when near-duplicate and the lag is >= 2, else None.
    calibrating
        True while the calibrated test is still learning the baseline.
    z
        Robust z-score of the novelty against the run's baseline (None while calibrating).
    cusum
        CUSUM statistic (baseline-scale units, >= 0).
    level
        Calibrated stall evidence: 0 none, 1 steer-level, 2 trip-level.
    baseline_center, baseline_scale
        The learned baseline (None while calibrating).
    """

    delta: float | None = None
    novelty: float | None = None
    delta_text: float | None = None
    novelty_result: float | None = None
    nearest_lag: int | None = None
    near_duplicate: bool = False
    cycle_period: int | None = None
    calibrating: bool = True
    z: float | None = None
    cusum: float = 0.0
    level: int = 0
    baseline_center: float | None = None
    baseline_scale: float | None = None


def calibrated_test(config: Config) -> CalibratedStallTest:
    """The run's calibrated stall test as configured: warm-up of ``warmup_steps - 1`` movement
    samples (step 0 has none), ``baseline_size``, ``scale_floor``, ``cusum_k``,
    ``cusum_steer`` and ``cusum_trip``."""
    return CalibratedStallTest(
        warmup=config.warmup_steps - 1,
        size=config.baseline_size,
        scale_floor=config.scale_floor,
        k=config.cusum_k,
        h_steer=config.cusum_steer,
        h_trip=config.cusum_trip,
    )


class SemanticTracker:
    """Per-run semantic state: a window of step vectors and the calibrated stall test.

    Parameters
    ----------
    config
        Uses ``window``, ``warmup_steps``, ``baseline_size``, ``scale_floor``, ``cusum_k``,
        ``cusum_steer``, ``cusum_trip`` and ``near_duplicate_eps``.
    """

    def __init__(self, config: Config) -> None:
        self.config = config
        self._history: deque[tuple[np.ndarray | None, np.ndarray | None]] = deque(maxlen=config.window)
        self._test = calibrated_test(config)
        self._new_facts = False
        self._judged = True

    def reset_evidence(self) -> None:
        """Forget accumulated stall evidence (called on a progress marker)."""
        self._test.reset_evidence()

    @property
    def baseline(self) -> tuple[float, float] | None:
        """``(center, scale)`` of the calibrated baseline, or None while calibrating."""
        b = self._test.baseline
        return (b.center, b.scale) if b.ready else None

    def update(
        self,
        text_vec: np.ndarray | None,
        obs_vec: np.ndarray | None,
        *,
        structural: bool = False,
        new_facts: bool = False,
        judged: bool = True,
    ) -> SemanticSignals:
        """Judge one step's vectors against the window, then add them.

        ``structural`` marks a step already known to repeat (an identical tool signature); it
        is judged but never learned as normal movement. ``new_facts`` marks a step that brought
        facts new to the run: evidence against a stall, learned as normal movement
        (:meth:`~plateau.stats.calibrated.CalibratedStallTest.update`). ``judged=False``
        (an acknowledged action: a write the environment confirmed without output) keeps the
        step in the window but gives the calibrated test no sample: an acknowledgement is
        neither evidence of a stall nor of new facts.
        """
        self._new_facts = new_facts and not structural
        self._judged = judged
        cur = (text_vec, obs_vec)
        if text_vec is None and obs_vec is None:
            return self._signals(None, None, None, None, None, structural=True)
        dists: list[tuple[int, float]] = []
        for lag, prev in enumerate(reversed(self._history), start=1):
            d = step_distance(cur, prev)
            if d is not None:
                dists.append((lag, d))
        delta = next((d for lag, d in dists if lag == 1), None)
        delta_text = None
        novelty_result = None
        if self._history:
            prev_text = self._history[-1][0]
            if text_vec is not None and prev_text is not None:
                delta_text = round(1.0 - _cos(text_vec, prev_text), _DECIMALS)
        if obs_vec is not None:
            obs_d = [1.0 - _cos(obs_vec, p[1]) for p in self._history if p[1] is not None]
            novelty_result = round(min(obs_d), _DECIMALS) if obs_d else None
        self._history.append(cur)
        if not dists:
            return self._signals(delta, None, delta_text, novelty_result, None, structural=structural)
        lag, novelty = min(dists, key=lambda t: (t[1], t[0]))
        return self._signals(delta, novelty, delta_text, novelty_result, lag, structural=structural)

    def _signals(
        self,
        delta: float | None,
        novelty: float | None,
        delta_text: float | None,
        novelty_result: float | None,
        lag: int | None,
        *,
        structural: bool,
    ) -> SemanticSignals:
        near_dup = novelty is not None and novelty < self.config.near_duplicate_eps
        if novelty is None or not (self._judged or near_dup):
            b = self.baseline
            return SemanticSignals(
                delta=delta,
                delta_text=delta_text,
                novelty_result=novelty_result,
                calibrating=b is None,
                cusum=round(self._test.statistic, _DECIMALS),
                baseline_center=None if b is None else b[0],
                baseline_scale=None if b is None else b[1],
            )
        result = self._test.update(novelty, informative=not (structural or near_dup), new_facts=self._new_facts and not near_dup)
        b = self.baseline
        return SemanticSignals(
            delta=delta,
            novelty=novelty,
            delta_text=delta_text,
            novelty_result=novelty_result,
            nearest_lag=lag,
            near_duplicate=near_dup,
            cycle_period=lag if near_dup and lag is not None and lag >= 2 else None,
            calibrating=result.calibrating,
            z=None if result.z is None else round(result.z, _DECIMALS),
            cusum=round(result.statistic, _DECIMALS),
            level=result.level,
            baseline_center=None if b is None else round(b[0], _DECIMALS),
            baseline_scale=None if b is None else round(b[1], _DECIMALS),
        )
