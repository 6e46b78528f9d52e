"""The calibrated tests: the run's movement against the baseline it learned on itself
(CUSUM, Page 1954; :mod:`plateau.stats.calibrated`). Never in warm-up.

``semantic.stall`` (the semantic CUSUM alone) only steers; ``progress.none`` (the semantic and
the information-gain CUSUMs both at steer level, their geometric mean scored) trips after a
steer. Both need recurrence against the run's memory. Thresholds: ``cusum_steer`` and
``cusum_trip``, the CUSUM decision intervals h (:class:`~plateau.config.Config`).
"""

from __future__ import annotations

import math

from plateau.analysis.detector import CUSUM_BUDGET, Detector, Finding, Rule
from plateau.analysis.facts import StepFacts
from plateau.analysis.scale import cusum_score
from plateau.config import Config

__all__ = ["NoProgress", "SemanticStall"]


class SemanticStall(Detector):
    """The narration moves less than this run's normal (steers only)."""

    name = "semantic_stall"
    rules = {"semantic.stall": Rule("steer", True, "the narration moves less than this run's normal")}
    thresholds = ("cusum_k", "cusum_steer", "cusum_trip")

    def update(self, facts: StepFacts, config: Config) -> Finding | None:
        sem = facts.semantic
        if sem.calibrating or sem.cusum <= 0:
            return None
        return Finding(
            "semantic.stall",
            cusum_score(sem.cusum, config.cusum_steer, config.cusum_trip),
            "the last steps add little that is new compared with this run's normal movement",
        )


class NoProgress(Detector):
    """Meaning and content both stopped moving against the run's baseline."""

    name = "no_progress"
    budget = CUSUM_BUDGET
    rules = {
        "progress.none": Rule(
            "trip_after_steer", True, "meaning and content both stopped moving against the run's baseline, and answers recur"
        )
    }
    thresholds = ("cusum_k", "cusum_steer", "cusum_trip")
    statistic_signals = ("cusum", "info_cusum")

    def update(self, facts: StepFacts, config: Config) -> Finding | None:
        sem, info = facts.semantic, facts.information
        if sem.calibrating or sem.cusum <= 0 or info.calibrating or min(sem.cusum, info.cusum) < config.cusum_steer:
            return None
        # both calibrated tests must hold steer-level evidence on their own; their joint
        # strength is the geometric mean (one huge statistic cannot stand in for the other)
        return Finding(
            "progress.none",
            cusum_score(math.sqrt(sem.cusum * info.cusum), config.cusum_steer, config.cusum_trip),
            "the last steps restate what is already known: their meaning barely moves and they add no new facts",
        )
