"""Test states that return: the edits undo each other (``repeat_steer``/``repeat_trip``)."""

from __future__ import annotations

from plateau.analysis.detector import COUNT_BUDGET, Detector, Finding, Rule
from plateau.analysis.facts import StepFacts
from plateau.analysis.scale import count_score
from plateau.config import Config

__all__ = ["Oscillation"]


class Oscillation(Detector):
    """The run returned to a test state (passed, failed) it had already reported since the
    last progress."""

    name = "oscillation"
    budget = COUNT_BUDGET
    rules = {"progress.oscillation": Rule("trip", False, "test states return to ones already seen: edits undo each other")}
    thresholds = ("repeat_steer", "repeat_trip")

    def update(self, facts: StepFacts, config: Config) -> Finding | None:
        prog = facts.progress
        if prog.oscillation < 1:
            return None
        return Finding(
            "progress.oscillation",
            count_score(prog.oscillation + 1, config.repeat_steer, config.repeat_trip),
            f"the tests keep returning to a state already seen ({prog.state[0]} passed, {prog.state[1]} failed): "
            "the edits are undoing each other"
            if prog.state
            else "progress keeps returning to a state already seen",
        )
