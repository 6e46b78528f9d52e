"""Step analysis: facts once per step, detectors over the facts, fusion over the findings.

- :mod:`plateau.analysis.facts`: :class:`~plateau.analysis.facts.StepFacts`, computed once
  per step by the run's trackers in a declared order;
- :mod:`plateau.analysis.detector`: the detector contract (``update(facts, config) ->
  Finding | None``, declared rules and thresholds);
- :mod:`plateau.analysis.detectors`: the detectors, one family per file;
- :mod:`plateau.analysis.registry`: the list of detectors and the policy built from them;
- :mod:`plateau.fuse`: fusion, the policy table applied to one step's findings.

:class:`RunAnalysis` is a run's learned state; :meth:`RunAnalysis.judge` is the whole analysis
of one step. The engine keeps locks, order and storage, and no analysis.
"""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING

import numpy as np

from plateau.analysis.detector import Detector, Finding
from plateau.analysis.facts import StepFacts, compute_facts
from plateau.analysis.registry import DETECTORS
from plateau.config import Config
from plateau.signals.information import InformationTracker
from plateau.signals.intent import IntentReader, Repetition
from plateau.signals.progress import ProgressTracker
from plateau.signals.recurrence import RunMemory
from plateau.signals.semantic import SemanticTracker
from plateau.signals.talk import TalkTracker
from plateau.signals.textual import TextualTracker
from plateau.types import Step, Verdict

if TYPE_CHECKING:
    from plateau.policy import ToolPolicy

__all__ = ["Detector", "Finding", "RunAnalysis", "StepFacts"]

#: One shared instance of each detector that keeps no state (an instance without attributes):
#: runs store only the detectors whose state is theirs.
_STATELESS: dict[str, Detector] = {d.name: d() for d in DETECTORS if not vars(d())}


#: The integral values 0..64 signals take most (counts, flags), one float object each.
_INTEGRAL = {float(i): float(i) for i in range(65)}


def _compact(signals: dict[str, float]) -> dict[str, float]:
    """``signals`` with its names interned and its integral values shared: a run keeps every
    verdict (its history), ~30 signals each, and names built per step (``score.*``,
    ``text.*``) and counts as new floats were ~0.6 KiB of each (issue 22, item 12). Equal
    values, the same order: nothing a caller sees changes."""
    out: dict[str, float] = {}
    for name, value in signals.items():
        if type(value) is float and value in _INTEGRAL and math.copysign(1.0, value) > 0:
            value = _INTEGRAL[value]
        out[sys.intern(name)] = value
    return out


class RunAnalysis:
    """The learned per-run state behind verdicts (rebuilt from nothing on reset).

    Attributes
    ----------
    semantic, progress, textual, information, memory, talk
        The trackers that compute the step facts.
    detectors
        Registered name → instance of each detector that keeps state of its own (the
        stateless ones are shared by every run and never stored).
    breaker
        The run's :class:`~plateau.breaker.Breaker`.
    repetition
        What the run's request asks to be repeated (None until the first step).
    near_dup_streak, verbatim_streak, phatic_streak
        Current restatement streaks (ints >= 0), facts of the next step.
    call_outcomes
        The latest (result, status) of recent distinct calls, in the order first seen
        (:meth:`plateau.engine.Engine.check` predicts a repeated call's result from it).
    tool_policy
        Tool policy the run declared (:mod:`plateau.policy`), over ``Config.tool_policy``.
    """

    def __init__(self, config: Config) -> None:
        self.semantic = SemanticTracker(config)
        self.progress = ProgressTracker(window=config.window)
        self.textual = TextualTracker()
        self.information = InformationTracker(config)
        self.memory = RunMemory(window=config.window)
        self.talk = TalkTracker(horizon=2 * config.window)
        self.detectors: dict[str, Detector] = {d.name: d() for d in DETECTORS if d.name not in _STATELESS}
        from plateau.breaker import Breaker  # here, not above: plateau.breaker imports plateau.fuse, which imports this package

        self.breaker = Breaker(config)
        self.near_dup_streak = 0
        self.verbatim_streak = 0
        self.phatic_streak = 0
        self.repetition: Repetition | None = None
        self.call_outcomes: dict[str, tuple[str | None, str]] = {}
        self.tool_policy: dict[str, ToolPolicy] = {}

    def detect(self, facts: StepFacts, config: Config) -> dict[str, Finding]:
        """Every detector's finding on ``facts``, by reason code, in registry order."""
        detectors = getattr(self, "detectors", None)
        if detectors is None:  # state stored before detectors kept state of their own
            detectors = self.detectors = {}
        found: dict[str, Finding] = {}
        for cls in DETECTORS:
            detector = _STATELESS.get(cls.name) or detectors.get(cls.name)
            if detector is None:  # a detector with state added since the run was stored
                detector = detectors[cls.name] = cls()
            finding = detector.update(facts, config)
            if finding is not None:
                found[finding.code] = finding
        return found

    def judge(
        self,
        run_id: str,
        step: Step,
        text_vec: np.ndarray | None,
        obs_vec: np.ndarray | None,
        *,
        intent: IntentReader,
        context: str | None,
        config: Config,
        predicted: bool = False,
    ) -> Verdict:
        """The verdict of one step: facts, findings, fusion, the breaker. Moves the state on.

        ``predicted``: the step is a pre-call check's prediction, its call not run
        (:attr:`~plateau.analysis.facts.StepFacts.predicted`: the messages count the calls that ran).
        """
        from plateau.fuse import fuse

        facts = compute_facts(self, step, text_vec, obs_vec, intent, context, predicted=predicted)
        findings = self.detect(facts, config)
        evidence = fuse(findings, facts, config)
        decision = self.breaker.decide(step.index, evidence, calibrating=facts.semantic.calibrating)
        signals = facts.signals()
        for code, score in evidence.components.items():
            signals[f"score.{code}"] = score
        return Verdict(
            run_id=run_id,
            step_index=step.index,
            action=decision.action,
            state=decision.state,
            score=evidence.score,
            reasons=tuple(sorted(set(evidence.reasons) | set(decision.reasons))),
            signals=_compact(signals),
            message=decision.message,
        )

