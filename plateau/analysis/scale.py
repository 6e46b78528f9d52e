"""The fusion scale every detector scores on: below :data:`STEER_LEVEL` a step is fine, at it
the step is steer-level evidence, at :data:`TRIP_LEVEL` trip-level; scores are capped at 2."""

from __future__ import annotations

__all__ = ["STEER_LEVEL", "TRIP_LEVEL", "count_score", "cusum_score", "short", "times"]

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


def cusum_score(statistic: float, steer: float, trip: float) -> float:
    """Map a CUSUM statistic to the score scale: ``STEER_LEVEL`` at ``steer``, ``TRIP_LEVEL`` at
    ``trip``, linear (capped at 2)."""
    if statistic < steer:
        return STEER_LEVEL * statistic / steer
    return min(2.0, STEER_LEVEL + (TRIP_LEVEL - STEER_LEVEL) * (statistic - steer) / (trip - steer))


def short(text: str, limit: int = 160) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def times(count: int) -> str:
    """``count`` (int >= 0) as a number of times in a message: ``"once"``, ``"2 times"``."""
    return "once" if count == 1 else f"{count} times"
