"""Fusion: semantic and structural signals of one step → one stall score with reason codes.

Each kind of evidence maps to a score on one scale: below 0.5 the step is fine, 0.5 is
steer-level, 1.0 is trip-level. The step's score is the largest of them. The policy is
asymmetric (DESIGN §3): structural recurrence (an identical tool signature, the same error, a
near-identical step) reaches trip level on its own count and needs no warm-up; calibrated
semantic stall reaches trip level only by accumulating CUSUM evidence, and the breaker lets it
trip only after a steer.

The calibrated evidence comes from two tests on the run's own baseline: semantic movement
(novelty of the step's embeddings, :mod:`plateau.signals.semantic`) and information gain (new
content terms, :mod:`plateau.signals.information`). Either alone may steer (``semantic.stall``
for the first; the second never acts alone, because new vocabulary thins out naturally over a
long run). Trip-level calibrated evidence needs both: their geometric mean
``sqrt(S_semantic * S_information)`` of the two CUSUM statistics reaches the trip interval
only when meaning and content have both stopped moving (``progress.none``).

Two more kinds of stall have no recurring surface. *Thrash* (``tool.thrash``): the calls
differ every step, at least half of the last ``window`` calls came back empty or failed with
nothing new (an error the run has already seen), and the observed-gain test over the calls
that did answer (what their results say that the run had not seen,
:mod:`plateau.signals.information`) accumulates evidence against the run's baseline. A batch
job's calls succeed, so it never meets the first condition; an exploration whose searches
miss but whose reads bring new facts never meets the second, nor does a fix loop whose errors
change. It escalates like calibrated evidence (steer first). ``tool.same_outcome`` (varied
calls, the same outcome) trips on the same error, but the same empty answer may only steer.
Neither counts a call that *iterates*: one whose only change from the previous call of its
tool is a token an earlier result named (the next host of an inventory, the next file of a
listing), whose empty answer is that item's answer (an audit where most hosts are clean), not
a guess that found nothing.

A *courtesy loop* (``text.phatic``): consecutive steps without a call that only exchange
courtesies (:meth:`plateau.signals.intent.IntentReader.is_phatic`) steer at ``phatic_steer``
and trip at ``phatic_trip`` in a row.

Textual evidence is split the same way: near-verbatim recurrence of the step's text
(``text.ngram``: a long run of shared word n-grams) is structural and counts like a repeat;
lexical sentence similarity (``text.lexical``: the same content words in most sentences) is
not semantic similarity and is capped at steer level, so on its own it can never trip. Both
apply to steps without a tool call: with a call, the call's own evidence decides (it knows
pollers, requested repetition and denials), however the narration repeats.

Reason codes: ``tool.repeat``, ``tool.cycle``, ``tool.error_repeat``, ``tool.same_outcome``,
``tool.thrash``, ``progress.oscillation``, ``semantic.near_duplicate``,
``semantic.cycle``, ``semantic.stall``, ``progress.none``, ``text.ngram``, ``text.lexical``,
``text.phatic``, ``progress.marker``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from plateau.config import Config
from plateau.signals.information import InformationSignals
from plateau.signals.intent import Repetition
from plateau.signals.progress import ProgressSignals
from plateau.signals.semantic import SemanticSignals
from plateau.signals.textual import TextualSignals
from plateau.types import Step

__all__ = ["LEXICAL_SHARE", "LEXICAL_SIMILARITY", "THRASH_SHARE", "STEER_LEVEL", "TRIP_LEVEL", "Evidence", "count_score", "fuse"]

#: Score at which a step is steer-level evidence.
STEER_LEVEL = 0.5
#: Score at which a step is trip-level evidence.
TRIP_LEVEL = 1.0
#: Thrash: at least this share of the last ``window`` calls came back empty or failed with
#: nothing new. Half: with fewer failures, the successful calls are the run; the other
#: condition (the calls that answer say nothing new, judged against the run's own baseline)
#: separates a hunt for something that does not exist from an exploration whose searches miss
#: but whose reads bring new facts.
THRASH_SHARE = 0.5
#: Lexical restatement: at least this share of the step's sentences ...
LEXICAL_SHARE = 0.75
#: ... each with at least this stop-word-filtered Jaccard to an earlier sentence. With
#: ``LEXICAL_SHARE`` it asks for a step made almost wholly of reworded earlier sentences;
#: a step that adds one new sentence in four is not flagged.
LEXICAL_SIMILARITY = 0.6


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


def _call_thresholds(
    prog: ProgressSignals, result_kind: str | None, repetition: Repetition | None, config: Config
) -> tuple[int, int, int, str]:
    """The count and steer/trip thresholds that apply to this step's identical-call evidence.

    Returns ``(count, steer_at, trip_at, why)``. A waiting result (a poller) or a request for
    repetition counts the consecutive streak against the larger poll thresholds (bounded by
    the requested count when the request names one: a request to repeat N times steers past
    N + 2 and trips at max(2N, N + 4)); a call the user denied steers at its 2nd and trips at
    its 3rd occurrence; anything else uses ``repeat_steer``/``repeat_trip`` over the window.
    """
    if result_kind == "denial":
        return max(prog.repeat_count, prog.error_count), 2, 3, "the user denied it"
    if repetition is not None and repetition.requested:
        if repetition.bound is not None:
            n = repetition.bound
            return prog.streak, n + 2, max(2 * n, n + 4), f"more often than the {n} times asked for"
        return prog.streak, config.poll_steer, config.poll_trip, "with no change although repetition was asked for"
    if result_kind == "waiting":
        return prog.streak, config.poll_steer, config.poll_trip, "while waiting, with no new output"
    return prog.repeat_count, config.repeat_steer, config.repeat_trip, ""


def fuse(
    step: Step,
    sem: SemanticSignals,
    prog: ProgressSignals,
    text: TextualSignals,
    near_dup_count: int,
    verbatim_count: int,
    config: Config,
    *,
    result_kind: str | None = None,
    repetition: Repetition | None = None,
    info: InformationSignals | None = None,
    phatic_count: int = 0,
) -> Evidence:
    """Combine one step's signals into :class:`Evidence`.

    ``near_dup_count`` and ``verbatim_count`` are the lengths of the current streaks of
    near-duplicate steps and of near-verbatim texts (this step included; 0 when this step is
    not one). ``result_kind`` is the intent reader's class of the tool result (``"waiting"``,
    ``"denial"`` or None), ``repetition`` what the user asked for, and ``info`` the
    information-gain test of the step. ``phatic_count`` is the length of the current streak of
    steps without a tool call that only exchange courtesies (0 when this step is not one).
    """
    parts: dict[str, tuple[float, bool, str]] = {}
    count, steer_at, trip_at, why = _call_thresholds(prog, result_kind, repetition, config)
    if count >= 2:
        call = f"{step.tool}({_short(step.args, 100)})"
        cycle = f" (the calls cycle with period {prog.cycle_period})" if prog.cycle_period else ""
        parts["tool.cycle" if prog.cycle_period else "tool.repeat"] = (
            count_score(count, steer_at, trip_at),
            True,
            f"the call {call} returned the same result {count} times{' ' + why if why else ''}{cycle}",
        )
    if prog.error_count >= 2 and result_kind != "denial":
        err_steer, err_trip = (
            (steer_at, trip_at) if repetition is not None and repetition.requested else (config.repeat_steer, config.repeat_trip)
        )
        parts["tool.error_repeat"] = (
            count_score(prog.error_count, err_steer, err_trip),
            True,
            f"{step.tool} failed {prog.error_count} times with the same error: {_short(prog.error_text or '')!r}",
        )
    iterating = info is not None and info.iterating
    if prog.same_outcome_count >= 2 and prog.repeat_count < prog.same_outcome_count and not iterating:
        same = count_score(prog.same_outcome_count, config.repeat_steer + 1, config.repeat_trip + 2)
        parts["tool.same_outcome"] = (
            # the same error is a failure repeating; the same empty answer is ambiguous (an
            # audit where most items are clean answers "nothing" too): it may only steer, and
            # a hunt that finds nothing is left to the calibrated thrash test
            same if prog.error else min(STEER_LEVEL, same),
            True,
            f"{prog.same_outcome_count} different calls in a row came back with the same " + ("error" if prog.error else "empty result"),
        )
    if prog.oscillation >= 1:
        parts["progress.oscillation"] = (
            count_score(prog.oscillation + 1, config.repeat_steer, config.repeat_trip),
            True,
            f"the tests keep returning to a state already seen ({prog.state[0]} passed, {prog.state[1]} failed): "
            "the edits are undoing each other"
            if prog.state
            else "progress keeps returning to a state already seen",
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
    if verbatim_count >= 1:
        lag = (step.index - text.matched_step) if text.matched_step is not None else 1
        parts["text.ngram"] = (
            count_score(verbatim_count + 1, config.repeat_steer, config.repeat_trip),
            True,
            f"this step's text repeats step {step.index - lag} nearly verbatim ({text.longest_run} words in a row)",
        )
    lexical = text.repeated_sentences >= LEXICAL_SHARE and text.sentence_similarity >= LEXICAL_SIMILARITY
    if lexical and step.tool is None:
        parts["text.lexical"] = (
            STEER_LEVEL,
            False,
            "this step rewords sentences you already wrote",
        )
    if phatic_count >= 2 and step.tool is None:
        parts["text.phatic"] = (
            count_score(phatic_count, config.phatic_steer, config.phatic_trip),
            False,
            f"the last {phatic_count} messages only exchange courtesies (thanks, goodbyes): the task is done "
            "or stalled, and nothing new is being said",
        )
    if not sem.calibrating and sem.cusum > 0:
        parts["semantic.stall"] = (
            min(STEER_LEVEL, _cusum_score(sem.cusum, config.cusum_steer, config.cusum_trip)),
            False,
            "the last steps add little that is new compared with this run's normal movement",
        )
        both = math.sqrt(sem.cusum * info.cusum) if info is not None and not info.calibrating else 0.0
        if both > 0:
            parts["progress.none"] = (
                _cusum_score(both, config.cusum_steer, config.cusum_trip),
                False,
                "the last steps restate what is already known: their meaning barely moves and they add no new facts",
            )
    if (
        info is not None
        and not info.observed_calibrating
        and info.observed_cusum > 0
        and step.tool is not None
        and not iterating
        and info.calls_failing >= THRASH_SHARE * config.window
    ):
        parts["tool.thrash"] = (
            _cusum_score(info.observed_cusum, config.cusum_steer, config.cusum_trip),
            False,
            f"{info.calls_failing} of the last {config.window} calls came back empty or failed as before, and the ones "
            "that answered told nothing new",
        )
    reasons = sorted(code for code, (score, _, _) in parts.items() if score >= STEER_LEVEL)
    if prog.progress:
        reasons.append("progress.marker")
    components = {code: round(score, 4) for code, (score, _, _) in parts.items()}
    if not parts:
        return Evidence(0.0, tuple(reasons), False, None, components)
    _, (top, structural, what) = max(parts.items(), key=lambda kv: (kv[1][0], kv[1][1]))
    return Evidence(round(top, 4), tuple(reasons), structural, what, components)
