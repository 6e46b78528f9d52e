"""Fusion: semantic and structural signals of one step → one stall score with reason codes.

Each kind of evidence maps to a score on one scale: below 0.5 the step is fine, 0.5 is
steer-level, 1.0 is trip-level. The step's score is the largest of them. The policy is
asymmetric (DESIGN §3): structural recurrence (an identical tool signature, the same error, a
near-identical step) reaches trip level on its own count and needs no warm-up; calibrated
semantic stall reaches trip level only by accumulating CUSUM evidence, and the breaker lets it
trip only after a steer.

Reason codes: ``tool.repeat``, ``tool.error_repeat``, ``semantic.near_duplicate``,
``semantic.cycle``, ``semantic.stall``, ``progress.marker``.
"""

from __future__ import annotations

from dataclasses import dataclass

from plateau.config import Config
from plateau.signals.progress import ProgressSignals
from plateau.signals.semantic import SemanticSignals
from plateau.types import Step

__all__ = ["STEER_LEVEL", "TRIP_LEVEL", "Evidence", "count_score", "fuse"]

#: Score at which a step is steer-level evidence.
STEER_LEVEL = 0.5
#: Score at which a step is trip-level evidence.
TRIP_LEVEL = 1.0


def count_score(count: int, steer_at: int, trip_at: int) -> float:
    """Map an occurrence count to the score scale: 0 for one occurrence, ``STEER_LEVEL`` at
    ``steer_at``, ``TRIP_LEVEL`` at ``trip_at``, linear in between (and above, capped at 2)."""
    if count <= 1:
        return 0.0
    if count < steer_at:
        return STEER_LEVEL * (count - 1) / (steer_at - 1)
    return min(2.0, STEER_LEVEL + (TRIP_LEVEL - STEER_LEVEL) * (count - steer_at) / (trip_at - steer_at))


def _cusum_score(statistic: float, steer: float, trip: float) -> float:
    if statistic < steer:
        return STEER_LEVEL * statistic / steer
    return min(2.0, STEER_LEVEL + (TRIP_LEVEL - STEER_LEVEL) * (statistic - steer) / (trip - steer))


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Evidence:
    """The fused evidence of one step.

    Attributes
    ----------
    score
        Stall score (float in [0, 2]): the largest component.
    reasons
        Reason codes of every component at or above steer level, plus ``progress.marker``.
    structural
        True when the largest component is structural (may trip without a prior steer).
    what
        Human-readable description of what repeats (for the steer/trip message), or None.
    components
        Score of each component, by reason code.
    """

    score: float
    reasons: tuple[str, ...]
    structural: bool
    what: str | None
    components: dict[str, float]


def fuse(step: Step, sem: SemanticSignals, prog: ProgressSignals, near_dup_count: int, config: Config) -> Evidence:
    """Combine one step's signals into :class:`Evidence`.

    ``near_dup_count`` is the number of near-duplicate steps in the current streak (this one
    included; 0 when this step is not a near-duplicate).
    """
    parts: dict[str, tuple[float, bool, str]] = {}
    if prog.repeat_count >= 2:
        call = f"{step.tool}({_short(step.args, 100)})"
        parts["tool.repeat"] = (
            count_score(prog.repeat_count, config.repeat_steer, config.repeat_trip),
            True,
            f"the call {call} returned the same result {prog.repeat_count} times",
        )
    if prog.error_count >= 2:
        parts["tool.error_repeat"] = (
            count_score(prog.error_count, config.repeat_steer, config.repeat_trip),
            True,
            f"{step.tool} failed {prog.error_count} times with the same error: {_short(prog.error_text or '')!r}",
        )
    if near_dup_count >= 1:
        code = "semantic.cycle" if sem.cycle_period else "semantic.near_duplicate"
        lag = sem.nearest_lag or 1
        parts[code] = (
            count_score(near_dup_count + 1, config.repeat_steer, config.repeat_trip),
            True,
            f"this step restates step {step.index - lag} almost word for word"
            + (f" (a cycle of period {sem.cycle_period})" if sem.cycle_period else ""),
        )
    if not sem.calibrating and sem.cusum > 0:
        parts["semantic.stall"] = (
            _cusum_score(sem.cusum, config.cusum_steer, config.cusum_trip),
            False,
            "the last steps add little that is new compared with this run's normal movement",
        )
    reasons = sorted(code for code, (score, _, _) in parts.items() if score >= STEER_LEVEL)
    if prog.progress:
        reasons.append("progress.marker")
    components = {code: round(score, 4) for code, (score, _, _) in parts.items()}
    if not parts:
        return Evidence(0.0, tuple(reasons), False, None, components)
    top_code, (top, structural, what) = max(parts.items(), key=lambda kv: (kv[1][0], kv[1][1]))
    return Evidence(round(top, 4), tuple(reasons), structural, what, components)
