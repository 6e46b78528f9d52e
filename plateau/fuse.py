"""Fusion: one step's evidence → one stall score with reason codes, under a declared policy.

Each detector reports a *finding*: a reason code, a score on one scale (below 0.5 the step is
fine, 0.5 is steer level, 1.0 trip level) and what it saw in plain words. :data:`POLICY` says,
in one table, what each kind of finding may do:

- **Structural recurrence trips on its own count** (``"trip"``, no warm-up): the same call
  with the same result (``tool.repeat``; a check re-run after a successful mutation is
  verification, not a repeat, unless it fails again), cycles (``tool.cycle``), the same error
  within ``2 * window`` steps across edits that change nothing that matters
  (``tool.error_repeat``), the same error from varied calls (``tool.same_outcome``), test
  states that return (``progress.oscillation``), near-identical or verbatim restatements
  without a call (``semantic.near_duplicate``, ``semantic.cycle``, ``text.ngram``).
- **Waiting is bounded, not judged as a loop**: a result that reads as waiting (a pending
  status, a check that sleeps first), a poll whose result moved only in what masking removes,
  and a failure the service calls transient (429, 503, "overloaded") count against the poll
  limits (``poll_steer``, ``poll_trip``) instead of the repeat limits.
- **Accumulated evidence trips only after a steer** (``"trip_after_steer"``): courtesy loops
  (``text.phatic``), talk instead of action (``text.talk``: a tool-using agent that keeps
  talking while the user brings nothing new; ``text.claim``: it keeps saying something is
  done with no write behind it; ``text.unchanged``: a call was refused and it keeps saying
  its re-checks since change nothing),
  thrash (``tool.thrash``), and the calibrated
  stall (``progress.none``: the semantic and the information-gain CUSUMs both at steer level
  or more, their geometric mean scored).
- **Some evidence only ever steers** (``"steer"``): the semantic CUSUM alone
  (``semantic.stall``) and lexical restatement (``text.lexical``: shared words are not shared
  meaning).

The calibrated evidence (``progress.none``, ``semantic.stall``) also needs **recurrence
against the run's memory** (:func:`recurs`): at least ``RECURRENT_SHARE`` of the last
``window`` steps found what an earlier step had already found
(:class:`~plateau.signals.memory.MemorySignals`), unless no recent step consulted the
environment at all (pure reasoning or chat, judged by its narration alone). Small movement
while the environment keeps answering something new is work, not a stall (issue 11: runs
that move from exploring to executing were tripped on this evidence alone). The calibrated
tests themselves re-calibrate on steps that bring new facts
(:mod:`plateau.detect.calibrated`), so such steps never add evidence.

The step's score is the largest capped finding; the breaker (:mod:`plateau.breaker`) turns it
into continue, steer or trip, tripping at once only on structural evidence.

Reason codes: ``tool.repeat``, ``tool.cycle``, ``tool.error_repeat``, ``tool.same_outcome``,
``tool.thrash``, ``progress.oscillation``, ``progress.none``, ``semantic.near_duplicate``,
``semantic.cycle``, ``semantic.stall``, ``text.ngram``, ``text.lexical``, ``text.phatic``,
``text.talk``, ``text.claim``, ``text.unchanged``, and ``progress.marker`` (a progress marker, not evidence of a stall).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from plateau.config import Config
from plateau.signals.information import InformationSignals
from plateau.signals.intent import Repetition
from plateau.signals.memory import MemorySignals
from plateau.signals.progress import ProgressSignals
from plateau.signals.semantic import SemanticSignals
from plateau.signals.talk import TalkSignals
from plateau.signals.textual import TextualSignals
from plateau.types import Step

__all__ = [
    "LEXICAL_SHARE",
    "LEXICAL_SIMILARITY",
    "POLICY",
    "RECURRENT_SHARE",
    "STEER_LEVEL",
    "THRASH_SHARE",
    "TRIP_LEVEL",
    "Evidence",
    "Rule",
    "count_score",
    "fuse",
    "recurs",
]

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
#: Calibrated evidence (``progress.none``) reaches trip level only when at least this share of
#: the last ``window`` steps found what an earlier step had already found (a tool result
#: near-identical to an earlier one; :class:`~plateau.signals.memory.MemorySignals`), or when
#: no recent step consulted the environment at all (pure talk, judged by its narration alone).
#: Half: a stall is most of the recent steps repeating an answer, not a few re-checks among
#: new findings and actions.
RECURRENT_SHARE = 0.5
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

    Returns ``(count, steer_at, trip_at, why)``. A waiting result (a poller), a result that
    moved only in what masking removes, or a request for repetition counts the consecutive
    streak against the poll thresholds (bounded by the requested count when the request names
    one: ``requested_*`` in :class:`~plateau.config.Config`); a call the user denied uses
    ``denial_steer`` / ``denial_trip``; anything else ``repeat_steer`` / ``repeat_trip`` over
    the window.
    """
    if result_kind == "denial":
        return max(prog.repeat_count, prog.error_count), config.denial_steer, config.denial_trip, "the user denied it"
    if repetition is not None and repetition.requested:
        if repetition.bound is not None:
            n = repetition.bound
            steer_at = n + config.requested_steer_slack
            trip_at = max(config.requested_trip_factor * n, n + config.requested_trip_slack)
            return prog.streak, steer_at, trip_at, f"more often than the {n} times asked for"
        return prog.streak, config.poll_steer, config.poll_trip, "with no change although repetition was asked for"
    if result_kind == "waiting":
        return prog.streak, config.poll_steer, config.poll_trip, "while waiting, with no new output"
    if prog.transient:
        return prog.repeat_count, config.poll_steer, config.poll_trip, "while the service said it was overloaded or unavailable"
    if prog.masked_only:
        # waiting is legitimate while it is bounded: what changed (a clock, a counter) says
        # something moves, not what; the poll bounds apply to the streak
        return prog.streak, config.poll_steer, config.poll_trip, "while only timestamps or counters changed"
    return prog.repeat_count, config.repeat_steer, config.repeat_trip, ""


@dataclass(frozen=True)
class Rule:
    """What one kind of evidence may do (the declared policy; see :data:`POLICY`).

    Attributes
    ----------
    acts
        ``"trip"``: structural recurrence, trips on its own count without a prior steer;
        ``"trip_after_steer"``: accumulated evidence, trips only once the run was steered in
        this stall; ``"steer"``: never more than steer level.
    needs_recurrence
        Trip level also needs recurrence against the run's memory: at least
        ``RECURRENT_SHARE`` of the last ``window`` steps found what an earlier step had
        already found (unless no recent step consulted the environment at all). Below that
        the evidence is worth nothing, not even a steer: small movement while the environment
        keeps answering something new is work.
    meaning
        What the evidence says, in plain words (the README's table).
    """

    acts: str
    needs_recurrence: bool
    meaning: str


#: The policy, in one place: which evidence may steer, which may trip, and what a trip needs.
POLICY: dict[str, Rule] = {
    "tool.repeat": Rule("trip", False, "the same call returned the same result again (no mutation in between)"),
    "tool.cycle": Rule("trip", False, "the calls cycle through the same few signatures"),
    "tool.error_repeat": Rule("trip", False, "the same error came back, across edits that changed nothing that matters"),
    "tool.same_outcome": Rule("trip", False, "varied calls, the same error (the same empty answer only steers)"),
    "progress.oscillation": Rule("trip", False, "test states return to ones already seen: edits undo each other"),
    "semantic.near_duplicate": Rule("trip", False, "a step without a call restates an earlier one almost word for word"),
    "semantic.cycle": Rule("trip", False, "near-identical steps cycle"),
    "text.ngram": Rule("trip", False, "a step's text repeats an earlier one nearly verbatim"),
    "text.phatic": Rule("trip_after_steer", False, "only courtesies are exchanged"),
    "text.talk": Rule("trip_after_steer", False, "a tool-using agent only talks, and the user brings nothing new"),
    "text.claim": Rule("trip_after_steer", False, "the agent keeps saying it did what no call since did (saved, updated)"),
    "text.unchanged": Rule(
        "trip_after_steer",
        False,
        "a call was refused, and the agent keeps saying its re-checks since change nothing",
    ),
    "tool.thrash": Rule("trip_after_steer", False, "calls keep coming back empty or failing as before; the rest tell nothing new"),
    "progress.none": Rule(
        "trip_after_steer", True, "meaning and content both stopped moving against the run's baseline, and answers recur"
    ),
    "semantic.stall": Rule("steer", True, "the narration moves less than this run's normal"),
    "text.lexical": Rule("steer", False, "a step rewords sentences already written (shared words are not shared meaning)"),
}


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
    memory: MemorySignals | None = None,
    talk: TalkSignals | None = None,
) -> Evidence:
    """Combine one step's signals into :class:`Evidence` under :data:`POLICY`.

    ``near_dup_count`` and ``verbatim_count`` are the lengths of the current streaks of
    near-duplicate steps and of near-verbatim texts (this step included; 0 when this step is
    not one). ``result_kind`` is the intent reader's class of the tool result (``"waiting"``,
    ``"denial"`` or None), ``repetition`` what the user asked for, and ``info`` the
    information-gain test of the step. ``phatic_count`` is the length of the current streak of
    steps without a tool call that only exchange courtesies (0 when this step is not one).
    ``memory`` is the step's recurrence against the run's memory and ``talk`` its talk streak.
    """
    found: dict[str, tuple[float, str]] = {}
    count, steer_at, trip_at, why = _call_thresholds(prog, result_kind, repetition, config)
    if count >= 2:
        call = f"{step.tool}({_short(step.args, 100)})"
        cycle = f" (the calls cycle with period {prog.cycle_period})" if prog.cycle_period else ""
        found["tool.cycle" if prog.cycle_period else "tool.repeat"] = (
            count_score(count, steer_at, trip_at),
            f"the call {call} returned the same result {count} times{' ' + why if why else ''}{cycle}",
        )
    if prog.error_count >= 2 and result_kind != "denial":
        if repetition is not None and repetition.requested:
            err_steer, err_trip = steer_at, trip_at
        elif prog.transient:  # an overloaded or rate-limited service: retrying it is waiting
            err_steer, err_trip = config.poll_steer, config.poll_trip
        else:
            err_steer, err_trip = config.repeat_steer, config.repeat_trip
        found["tool.error_repeat"] = (
            count_score(prog.error_count, err_steer, err_trip),
            f"{step.tool} failed {prog.error_count} times with the same error: {_short(prog.error_text or '')!r}",
        )
    iterating = info is not None and info.iterating
    if prog.same_outcome_count >= 2 and prog.repeat_count < prog.same_outcome_count and not iterating:
        # the same answer that reads as waiting ("queued", "pending") from a status call and
        # its variants is waiting, bounded like any poller
        waiting = result_kind == "waiting" or prog.transient
        steer_same, trip_same = (config.poll_steer, config.poll_trip) if waiting else (config.same_outcome_steer, config.same_outcome_trip)
        same = count_score(prog.same_outcome_count, steer_same, trip_same)
        found["tool.same_outcome"] = (
            # the same error is a failure repeating; the same empty answer is ambiguous (an
            # audit where most items are clean answers "nothing" too): it may only steer, and
            # a hunt that finds nothing is left to the calibrated thrash test
            same if prog.error or (step.result or "").strip() else min(STEER_LEVEL, same),
            f"{prog.same_outcome_count} different calls came back with the same "
            + ("error" if prog.error else "answer" if (step.result or "").strip() else "empty result"),
        )
    if prog.oscillation >= 1:
        found["progress.oscillation"] = (
            count_score(prog.oscillation + 1, config.repeat_steer, config.repeat_trip),
            f"the tests keep returning to a state already seen ({prog.state[0]} passed, {prog.state[1]} failed): "
            "the edits are undoing each other"
            if prog.state
            else "progress keeps returning to a state already seen",
        )
    if near_dup_count >= 1:
        lag = sem.nearest_lag or 1
        found["semantic.cycle" if sem.cycle_period else "semantic.near_duplicate"] = (
            count_score(near_dup_count + 1, config.repeat_steer, config.repeat_trip),
            f"this step restates step {step.index - lag} almost word for word"
            + (f" (a cycle of period {sem.cycle_period})" if sem.cycle_period else ""),
        )
    if verbatim_count >= 1:
        lag = (step.index - text.matched_step) if text.matched_step is not None else 1
        found["text.ngram"] = (
            count_score(verbatim_count + 1, config.repeat_steer, config.repeat_trip),
            f"this step's text repeats step {step.index - lag} nearly verbatim ({text.longest_run} words in a row)",
        )
    if step.tool is None and text.repeated_sentences >= LEXICAL_SHARE and text.sentence_similarity >= LEXICAL_SIMILARITY:
        found["text.lexical"] = (STEER_LEVEL, "this step rewords sentences you already wrote")
    if phatic_count >= 2 and step.tool is None:
        found["text.phatic"] = (
            count_score(phatic_count, config.phatic_steer, config.phatic_trip),
            f"the last {phatic_count} messages only exchange courtesies (thanks, goodbyes): the task is done "
            "or stalled, and nothing new is being said",
        )
    if talk is not None and talk.talk_streak >= 2 and step.tool is None and phatic_count < 2:
        found["text.talk"] = (
            count_score(talk.talk_streak, config.talk_steer, config.talk_trip),
            f"the last {talk.talk_streak} steps only talk: no tool call, and nothing new from the user; "
            "act (call the tool that does or looks it up) or say what blocks you",
        )
    if talk is not None and talk.claims >= 2 and step.tool is None:
        found["text.claim"] = (
            count_score(talk.claims, config.talk_steer, config.talk_trip),
            f"the last {talk.claims} messages say something was done (saved, updated, sent), and no call since did it; "
            "make the call, or say what blocks you",
        )
    if talk is not None and talk.blocked and talk.unchanged >= 2:
        # the action the conclusion calls for was refused, and the re-checks since say nothing
        # changed: a plateau (steers at ``talk_steer``, trips at ``talk_trip``). Without a
        # refusal, an audit or a watch that keeps finding nothing reads the same: no evidence
        found["text.unchanged"] = (
            count_score(talk.unchanged, config.talk_steer, config.talk_trip),
            f"{talk.unchanged} steps since anything was done say that what they found changes nothing; "
            "act on what you know, or say what blocks you and stop",
        )
    if not sem.calibrating and sem.cusum > 0:
        found["semantic.stall"] = (
            _cusum_score(sem.cusum, config.cusum_steer, config.cusum_trip),
            "the last steps add little that is new compared with this run's normal movement",
        )
        # both calibrated tests must hold steer-level evidence on their own; their joint
        # strength is the geometric mean (one huge statistic cannot stand in for the other)
        if info is not None and not info.calibrating and min(sem.cusum, info.cusum) >= config.cusum_steer:
            found["progress.none"] = (
                _cusum_score(math.sqrt(sem.cusum * info.cusum), config.cusum_steer, config.cusum_trip),
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
        found["tool.thrash"] = (
            _cusum_score(info.observed_cusum, config.cusum_steer, config.cusum_trip),
            f"{info.calls_failing} of the last {config.window} calls came back empty or failed as before, and the ones "
            "that answered told nothing new",
        )
    return _apply_policy(found, prog, memory, config)


def recurs(memory: MemorySignals | None, config: Config) -> bool:
    """Whether the run shows recurrence against its memory: at least ``RECURRENT_SHARE`` of the
    last ``window`` steps found what an earlier step had found, or no recent step called a
    tool at all (pure talk, judged by its narration alone)."""
    if memory is None:
        return True
    if memory.results == 0:
        # no recent call answered anything: pure talk is judged by its narration; actions and
        # waits without answers are judged by their own structure, not by recurrence
        return memory.calls == 0
    return memory.recurrent >= RECURRENT_SHARE * config.window


def _apply_policy(found: dict[str, tuple[float, str]], prog: ProgressSignals, memory: MemorySignals | None, config: Config) -> Evidence:
    """Cap each finding as :data:`POLICY` says and pick the strongest."""
    recurring = recurs(memory, config)
    parts: dict[str, tuple[float, bool, str]] = {}
    for code, (score, what) in found.items():
        rule = POLICY[code]
        if rule.needs_recurrence and not recurring:
            continue  # the environment keeps answering something new: small movement is work
        if rule.acts == "steer":
            score = min(score, STEER_LEVEL)
        parts[code] = (score, rule.acts == "trip", what)
    reasons = sorted(code for code, (score, _, _) in parts.items() if score >= STEER_LEVEL)
    if prog.progress:
        reasons.append("progress.marker")
    components = {code: round(score, 4) for code, (score, _, _) in parts.items()}
    if not parts:
        return Evidence(0.0, tuple(reasons), False, None, components)
    # structural evidence at trip level trips at once, even beside a larger finding that may
    # trip only after a steer
    _, (top, structural, what) = max(parts.items(), key=lambda kv: (kv[1][1] and kv[1][0] >= TRIP_LEVEL, kv[1][0], kv[1][1]))
    return Evidence(round(top, 4), tuple(reasons), structural, what, components)
