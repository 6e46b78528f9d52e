"""Step facts: what one step is, computed once, before any detector reads it.

:func:`compute_facts` runs the run's trackers (:mod:`plateau.signals`) over one step (already
read through its harness envelope, :func:`plateau.envelope.harness_view`) and returns a
frozen :class:`StepFacts`. The trackers feed each other (a progress marker starts the
calibrated tests' evidence over; the memory's verdict on new facts teaches the progress
tracker): those edges are declared in :data:`STAGES` (each stage names the stages it needs)
and the order is derived from them (:func:`graphlib.TopologicalSorter`), not implied by line
order.
"""

from __future__ import annotations

import graphlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from plateau.cancel import checkpoint
from plateau.envelope import is_format_rejection
from plateau.signals.information import NEW_FACT_TERMS, InformationSignals
from plateau.signals.intent import IntentReader, Repetition
from plateau.signals.progress import ProgressSignals, is_refused, is_waiting
from plateau.signals.recurrence import MemorySignals, is_recurrent
from plateau.signals.semantic import SemanticSignals
from plateau.signals.talk import TalkSignals
from plateau.signals.textual import TextualSignals
from plateau.types import Step, ToolStatus

if TYPE_CHECKING:
    from plateau.analysis import RunAnalysis

__all__ = ["SHORT_ANSWER_WORDS", "STAGES", "StepFacts", "compute_facts"]

#: An answer of fewer than this many words cannot tell one finding from another: ``False``,
#: ``0`` or ``OK`` answering a call never made before is that question's answer, and its
#: equality with an earlier short answer is a coincidence of vocabulary, not a finding found
#: again. Such an answer never recurs against the run's memory (the same call asked again
#: still does). Four: a value or two with a unit or a label is the most such an answer holds.
SHORT_ANSWER_WORDS = 4


@dataclass(frozen=True)
class StepFacts:
    """Everything Plateau knows about one step, computed once (detectors only read it).

    Attributes
    ----------
    step
        The step as analysed: its result without the harness envelope, a text-format action
        read as a call (:func:`plateau.envelope.harness_view`).
    text_vec, obs_vec
        Unit-norm float32 embeddings, shape ``(dim,)``, of the step's text and of its call +
        result (None when the step has no such part).
    result_kind
        ``"waiting"``, ``"denial"`` or None: what the result reads as.
    repetition
        What the run's request asks to be repeated (:class:`~plateau.signals.intent.Repetition`).
    waiting
        The step waits: a poller, a transient failure, a result that reads as waiting, a harness
        that ran nothing (``rejected``).
    acknowledged
        A call whose answer is empty and fine (an action's acknowledgement, a wait).
    refused
        The call failed with an authorization refusal (:func:`~plateau.signals.progress.is_refused`).
    rejected
        The harness ran nothing: it refused the message's format (no action, or more than one;
        :func:`plateau.envelope.is_format_rejection`).
    phatic
        A step without a call that only exchanges courtesies.
    near_duplicate_streak, verbatim_streak, phatic_streak
        Lengths (int >= 0) of the current streaks of steps without a call that restate an
        earlier step almost word for word (embedding), repeat one nearly verbatim (n-grams),
        or only exchange courtesies; 0 when this step is not one.
    progress, information, memory, talk, semantic, textual
        The trackers' signals of this step.
    predicted
        The step is a pre-call check's prediction (:meth:`plateau.engine.Engine.check`): its
        call has not run, and its result is the one the same call got last time. The trackers
        count it like a step that ran (the verdict is what observing it would answer), so every
        count above that includes this step's call counts one call that has not run: a message
        to the model counts the calls that ran, ``count - predicted`` (a check after three
        failed calls says "failed 3 times", issue 24). Counts of the step's text (talk, claims,
        statements of no change) need no correction: its text was written.
    """

    step: Step
    text_vec: np.ndarray | None
    obs_vec: np.ndarray | None
    result_kind: str | None
    repetition: Repetition | None
    waiting: bool
    acknowledged: bool
    refused: bool
    rejected: bool
    phatic: bool
    near_duplicate_streak: int
    verbatim_streak: int
    phatic_streak: int
    progress: ProgressSignals
    information: InformationSignals
    memory: MemorySignals
    talk: TalkSignals
    semantic: SemanticSignals
    textual: TextualSignals
    predicted: bool

    @classmethod
    def of(cls, step: Step, **fields: Any) -> StepFacts:
        """Facts built by hand (tests, tools): ``step`` plus any field; the rest are the
        signals of a step that showed nothing (no vectors, no streaks, empty tracker signals)."""
        defaults: dict[str, Any] = {
            "text_vec": None, "obs_vec": None, "result_kind": None, "repetition": None, "waiting": False,
            "acknowledged": False, "refused": False, "rejected": False, "phatic": False, "near_duplicate_streak": 0, "verbatim_streak": 0,
            "phatic_streak": 0, "progress": ProgressSignals(), "information": InformationSignals(), "memory": MemorySignals(),
            "talk": TalkSignals(), "semantic": SemanticSignals(), "textual": TextualSignals(), "predicted": False,
        }
        unknown = set(fields) - set(defaults)
        if unknown:
            raise ValueError(f"StepFacts.of: unknown fields {sorted(unknown)}")
        return cls(step=step, **{**defaults, **fields})

    @property
    def called(self) -> bool:
        """The step called a tool."""
        return self.step.tool is not None

    def signals(self) -> dict[str, float]:
        """The step's signal values, flat, for the verdict (names are stable API)."""
        prog, sem, text, info, mem, talk = self.progress, self.semantic, self.textual, self.information, self.memory, self.talk
        signals: dict[str, float] = {
            "repeat_count": float(prog.repeat_count),
            "error_count": float(prog.error_count),
            "cusum": sem.cusum,
            "near_duplicate": float(sem.near_duplicate),
            "calibrating": float(sem.calibrating),
        }
        for name in ("delta", "novelty", "delta_text", "novelty_result", "z", "baseline_center", "baseline_scale"):
            value = getattr(sem, name)
            if value is not None:
                signals[name] = round(float(value), 6)
        for name in ("ngram_jaccard", "longest_run", "sentence_similarity", "repeated_sentences"):
            signals[f"text.{name}"] = round(float(getattr(text, name)), 6)
        if prog.result_novel is not None:
            signals["result_novel"] = float(prog.result_novel)
        signals["streak"] = float(prog.streak)
        if self.phatic_streak:
            signals["phatic_streak"] = float(self.phatic_streak)
        signals["new_terms"] = float(info.new_terms)
        signals["info_cusum"] = info.cusum
        signals["observed_terms"] = float(info.observed_terms)
        signals["observed_cusum"] = info.observed_cusum
        signals["calls_failing"] = float(info.calls_failing)
        if info.iterating:
            signals["iterating"] = 1.0
        if info.z is not None:
            signals["info_z"] = info.z
        signals["new_facts"] = float(mem.new_facts)
        if mem.result_recurrence is not None:
            signals["result_recurrence"] = mem.result_recurrence
        if mem.text_recurrence is not None:
            signals["text_recurrence"] = mem.text_recurrence
        signals["recurrent_in_window"] = float(mem.recurrent)
        if talk.talk_streak:
            signals["talk_streak"] = float(talk.talk_streak)
        if talk.claims:
            signals["claims"] = float(talk.claims)
        if talk.unchanged:
            signals["unchanged"] = float(talk.unchanged)
        signals["oscillation"] = float(prog.oscillation)
        signals["same_outcome_count"] = float(prog.same_outcome_count)
        if prog.cycle_period:
            signals["cycle_period"] = float(prog.cycle_period)
        if self.result_kind:
            signals[f"result.{self.result_kind}"] = 1.0
        if self.repetition is not None and self.repetition.requested:
            signals["requested_repetition"] = float(self.repetition.bound or 0)
        return signals


class _Work:
    """The facts of one step while the stages compute them."""

    def __init__(self, a: RunAnalysis, step: Step, text_vec: np.ndarray | None, obs_vec: np.ndarray | None,
                 intent: IntentReader, context: str | None) -> None:
        self.a, self.step, self.text_vec, self.obs_vec, self.intent, self.context = a, step, text_vec, obs_vec, intent, context
        self.values: dict[str, Any] = {}


def _repetition(w: _Work) -> None:
    a = w.a
    if a.repetition is None:
        a.repetition = w.intent.requested_repetition(w.context)
    if w.step.user:
        asked = w.intent.requested_repetition(w.step.user)
        if asked.requested:
            a.repetition = asked
    w.values["repetition"] = a.repetition


def _result_kind(w: _Work) -> None:
    kind = w.intent.result_kind(w.obs_vec)
    if kind is None and is_waiting(w.step):
        kind = "waiting"  # a check that sleeps first, or a status still under way
    w.values["result_kind"] = kind


def _progress(w: _Work) -> None:
    step = w.step
    prog = w.a.progress.update(step)
    w.values["progress"] = prog
    w.values["acknowledged"] = step.tool is not None and not (step.result or "").strip() and (step.status is ToolStatus.OK or prog.wait)
    w.values["refused"] = prog.error and is_refused(step)
    w.values["rejected"] = is_format_rejection(step.result)
    # a harness that ran nothing (a refused format) is bounded like waiting: no finding, no
    # evidence for the calibrated tests, the poll limits on its retries
    w.values["waiting"] = (
        prog.polling or prog.transient or w.values["rejected"] or (step.tool is not None and w.values["result_kind"] == "waiting")
    )


def _restart_evidence(w: _Work) -> None:
    prog = w.values["progress"]
    if prog.progress or prog.recovered or prog.fewer_failures or w.step.progress.files_changed:
        # a new best (tests, metric), a change to files or a call that finally succeeded where
        # the same tool kept failing: the narration's stall evidence starts over; whether the
        # changes achieve anything is judged structurally (repeats, errors, test states returning)
        w.a.semantic.reset_evidence()
        w.a.information.reset_evidence()
        w.a.near_dup_streak = 0


def _information(w: _Work) -> None:
    a, step, prog = w.a, w.step, w.values["progress"]
    recurrence, _ = a.memory.recall(w.text_vec, w.obs_vec, mutations=prog.mutations, digest=prog.result_digest)
    w.values["information"] = a.information.update(
        step.text,
        step.result,
        args=step.args if step.tool else None,
        tool=step.tool,
        failed=prog.error,
        informative=prog.repeat_count < 2,
        user=step.user,
        # a turn the harness refused for its format ran nothing: like an acknowledgement, it is
        # neither a call that failed nor one that answered, so it stays out of the calls the
        # thrash test counts (a harness that ran nothing gives the calibrated tests no evidence)
        acknowledged=w.values["acknowledged"] or w.values["rejected"],
        result_recurrent=is_recurrent(recurrence, requery=prog.call_seen),
        marker=prog.progress or prog.recovered or prog.fewer_failures or prog.error_novel,
        mutation=prog.mutated,
        novel=prog.result_novel is not False,
        call_seen=prog.call_seen,
        args_value=step.args_value if step.tool and prog.mutated else None,
    )


def _memory(w: _Work) -> None:
    a, step, prog, info = w.a, w.step, w.values["progress"], w.values["information"]
    w.values["memory"] = mem = a.memory.update(
        w.text_vec,
        w.obs_vec,
        has_result=bool((step.result or "").strip()) and not prog.mutated and not prog.wait,
        called=step.tool is not None,
        new_facts=info.new_facts,
        mutations=prog.mutations,
        digest=prog.result_digest,
        requery=prog.call_seen,
        # an action's acknowledgement recurs only when the action itself repeats (nothing new
        # learned since): "Clicked Next" between pages of new records is not a finding
        fresh=info.next_item
        or info.verifies
        or w.values["waiting"]
        or (prog.action and prog.repeat_count < 2)
        or (not prog.call_seen and len((step.result or "").split(None, SHORT_ANSWER_WORDS)) < SHORT_ANSWER_WORDS),
    )
    a.progress.learned(mem.new_facts)


def _talk(w: _Work) -> None:
    step, prog, info = w.step, w.values["progress"], w.values["information"]
    w.values["talk"] = w.a.talk.update(
        called=step.tool is not None,
        user_brought_facts=info.user_terms >= NEW_FACT_TERMS,
        text=step.text,
        acted=prog.mutated or prog.action,
        waiting=w.values["waiting"],
        new_item=info.names_item,
        refused=w.values["refused"],
    )


def _semantic(w: _Work) -> None:
    prog, mem = w.values["progress"], w.values["memory"]
    w.values["semantic"] = w.a.semantic.update(
        w.text_vec,
        w.obs_vec,
        structural=prog.repeat_count >= 2,
        new_facts=mem.new_facts,
        judged=(mem.new_facts or not w.values["acknowledged"]) and not w.values["waiting"],
    )


def _textual(w: _Work) -> None:
    w.values["textual"] = w.a.textual.update(w.step.text)


def _streaks(w: _Work) -> None:
    # Restatement evidence (near-identical step, verbatim text) is for steps without a tool
    # call. With a call, the call's own evidence decides: it knows pollers, requested
    # repetition and denials, and a fresh call (a poller whose result moved, the next item of a
    # batch) is work however the narration repeats.
    a = w.a
    restating = w.step.tool is None
    a.near_dup_streak = a.near_dup_streak + 1 if w.values["semantic"].near_duplicate and restating else 0
    a.verbatim_streak = a.verbatim_streak + 1 if w.values["textual"].verbatim and restating else 0
    phatic = restating and w.intent.is_phatic(w.text_vec)
    a.phatic_streak = a.phatic_streak + 1 if phatic else 0
    w.values.update(
        phatic=phatic, near_duplicate_streak=a.near_dup_streak, verbatim_streak=a.verbatim_streak, phatic_streak=a.phatic_streak
    )


#: The fact stages: name → (function, the stages whose results or side effects it needs).
STAGES: dict[str, tuple[Callable[[_Work], None], tuple[str, ...]]] = {
    "repetition": (_repetition, ()),
    "result_kind": (_result_kind, ()),
    "progress": (_progress, ("result_kind",)),
    # a progress marker restarts the calibrated tests' evidence before they see this step
    "restart_evidence": (_restart_evidence, ("progress",)),
    "information": (_information, ("progress", "restart_evidence")),
    # the memory's verdict on new facts teaches the progress tracker (progress.learned)
    "memory": (_memory, ("information",)),
    "talk": (_talk, ("information",)),
    "semantic": (_semantic, ("memory", "restart_evidence")),
    "textual": (_textual, ()),
    "streaks": (_streaks, ("semantic", "textual", "restart_evidence")),
}

# the declared order, resolved once; ties keep the table's order
_sorter = graphlib.TopologicalSorter({name: needs for name, (_, needs) in STAGES.items()})
_ORDER: tuple[str, ...] = tuple(_sorter.static_order())


def compute_facts(
    a: RunAnalysis,
    step: Step,
    text_vec: np.ndarray | None,
    obs_vec: np.ndarray | None,
    intent: IntentReader,
    context: str | None,
    *,
    predicted: bool = False,
) -> StepFacts:
    """Run every fact stage over ``step`` (in the declared order) and return its facts.

    Moves the run's trackers on by one step; called once per step, under the run's lock.
    ``predicted``: the step is a pre-call check's prediction, its call not run
    (:attr:`StepFacts.predicted`); the stages judge it like any step.
    """
    w = _Work(a, step, text_vec, obs_vec, intent, context)
    for name in _ORDER:
        checkpoint()  # a caller gone away stops its judging here (the engine restores the run)
        STAGES[name][0](w)
    return StepFacts(step=step, text_vec=text_vec, obs_vec=obs_vec, predicted=predicted, **w.values)
