"""Fusion: semantic and structural signals of one step → one stall score with reason codes.

Each kind of evidence maps to a score on one scale: below 0.5 the step is fine, 0.5 is
steer-level, 1.0 is trip-level. The step's score is the largest of them. The policy is
asymmetric (DESIGN §3): structural recurrence (an identical tool signature, the same error, a
near-identical step) reaches trip level on its own count and needs no warm-up; calibrated
semantic stall reaches trip level only by accumulating CUSUM evidence, and the breaker lets it
trip only after a steer.

Textual evidence is split the same way: near-verbatim recurrence of the step's text
(``text.ngram``: a long run of shared word n-grams) is structural and counts like a repeat;
lexical sentence similarity (``text.lexical``: the same content words in most sentences) is
not semantic similarity and is capped at steer level, so on its own it can never trip.

Reason codes: ``tool.repeat``, ``tool.error_repeat``, ``semantic.near_duplicate``,
``semantic.cycle``, ``semantic.stall``, ``text.ngram``, ``text.lexical``, ``progress.marker``.
"""

from __future__ import annotations

from dataclasses import dataclass

from plateau.config import Config
from plateau.signals.progress import ProgressSignals
from plateau.signals.semantic import SemanticSignals
from plateau.signals.textual import TextualSignals
from plateau.types import Step

__all__ = ["LEXICAL_SHARE", "LEXICAL_SIMILARITY", "STEER_LEVEL", "TRIP_LEVEL", "Evidence", "count_score", "fresh_action", "fuse"]

#: Score at which a step is steer-level evidence.
STEER_LEVEL = 0.5
#: Score at which a step is trip-level evidence.
TRIP_LEVEL = 1.0
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


def fresh_action(step: Step, prog: ProgressSignals) -> bool:
    """Whether the step's tool call brings something new: a call (tool, args, result) not seen
    in the window, or a result new to the run. Restated narration around a fresh action
    (templated text over a batch of items, a poller whose output moves) is work, not a stall,
    so restatement evidence (near-duplicate, verbatim, lexical) does not count for it."""
    return step.tool is not None and (prog.repeat_count <= 1 or prog.result_novel is True)


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


def fuse(
    step: Step,
    sem: SemanticSignals,
    prog: ProgressSignals,
    text: TextualSignals,
    near_dup_count: int,
    verbatim_count: int,
    config: Config,
) -> Evidence:
    """Combine one step's signals into :class:`Evidence`.

    ``near_dup_count`` and ``verbatim_count`` are the lengths of the current streaks of
    near-duplicate steps and of near-verbatim texts (this step included; 0 when this step is
    not one).
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
    if verbatim_count >= 1:
        lag = (step.index - text.matched_step) if text.matched_step is not None else 1
        parts["text.ngram"] = (
            count_score(verbatim_count + 1, config.repeat_steer, config.repeat_trip),
            True,
            f"this step's text repeats step {step.index - lag} nearly verbatim ({text.longest_run} words in a row)",
        )
    lexical = text.repeated_sentences >= LEXICAL_SHARE and text.sentence_similarity >= LEXICAL_SIMILARITY
    if lexical and not fresh_action(step, prog):
        parts["text.lexical"] = (
            STEER_LEVEL,
            False,
            "this step rewords sentences you already wrote",
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
