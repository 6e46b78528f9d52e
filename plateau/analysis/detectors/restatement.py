"""Restatement in steps without a call: near-identical meaning (embedding), nearly verbatim
text (n-grams), reworded sentences (lexical Jaccard, steers only), courtesies only.

Thresholds: ``repeat_steer``/``repeat_trip`` for the streaks of near-identical and verbatim
steps, ``phatic_steer``/``phatic_trip`` for courtesies (:class:`~plateau.config.Config`);
:data:`LEXICAL_SHARE` and :data:`LEXICAL_SIMILARITY` below.
"""

from __future__ import annotations

from plateau.analysis.detector import COUNT_BUDGET, Detector, Finding, Rule
from plateau.analysis.facts import StepFacts
from plateau.analysis.scale import STEER_LEVEL, count_score
from plateau.config import Config

__all__ = ["LEXICAL_SHARE", "LEXICAL_SIMILARITY", "Lexical", "NearDuplicate", "Phatic", "Verbatim"]

#: Lexical restatement: at least this share of the step's sentences ...
LEXICAL_SHARE = 0.75
#: ... each with at least this stop-word-filtered Jaccard to an earlier sentence. With
#: ``LEXICAL_SHARE`` it asks for a step made almost wholly of reworded earlier sentences; a
#: step that adds one new sentence in four is not flagged. It only ever steers (shared words
#: are not shared meaning), so its false alarms cost a nudge, never a run.
LEXICAL_SIMILARITY = 0.6


class NearDuplicate(Detector):
    """A step without a call restates an earlier one almost word for word (cosine distance
    below ``near_duplicate_eps``), or such steps cycle."""

    name = "near_duplicate"
    budget = COUNT_BUDGET
    rules = {
        "semantic.near_duplicate": Rule("trip", False, "a step without a call restates an earlier one almost word for word"),
        "semantic.cycle": Rule("trip", False, "near-identical steps cycle"),
    }
    thresholds = ("near_duplicate_eps", "repeat_steer", "repeat_trip")

    def update(self, facts: StepFacts, config: Config) -> Finding | None:
        n, sem = facts.near_duplicate_streak, facts.semantic
        if n < 1:
            return None
        lag = sem.nearest_lag or 1
        return Finding(
            "semantic.cycle" if sem.cycle_period else "semantic.near_duplicate",
            count_score(n + 1, config.repeat_steer, config.repeat_trip),
            f"this step restates step {facts.step.index - lag} almost word for word"
            + (f" (a cycle of period {sem.cycle_period})" if sem.cycle_period else ""),
        )


class Verbatim(Detector):
    """A step without a call repeats an earlier one nearly verbatim (word n-grams)."""

    name = "verbatim"
    budget = COUNT_BUDGET
    rules = {"text.ngram": Rule("trip", False, "a step's text repeats an earlier one nearly verbatim")}
    thresholds = ("repeat_steer", "repeat_trip")

    def update(self, facts: StepFacts, config: Config) -> Finding | None:
        n, text, index = facts.verbatim_streak, facts.textual, facts.step.index
        if n < 1:
            return None
        lag = (index - text.matched_step) if text.matched_step is not None else 1
        return Finding(
            "text.ngram",
            count_score(n + 1, config.repeat_steer, config.repeat_trip),
            f"this step's text repeats step {index - lag} nearly verbatim ({text.longest_run} words in a row)",
        )


class Lexical(Detector):
    """A step without a call made almost wholly of reworded earlier sentences (steers only)."""

    name = "lexical"
    rules = {"text.lexical": Rule("steer", False, "a step rewords sentences already written (shared words are not shared meaning)")}
    constants = {"LEXICAL_SHARE": LEXICAL_SHARE, "LEXICAL_SIMILARITY": LEXICAL_SIMILARITY}

    def update(self, facts: StepFacts, config: Config) -> Finding | None:
        text = facts.textual
        if facts.called or text.repeated_sentences < LEXICAL_SHARE or text.sentence_similarity < LEXICAL_SIMILARITY:
            return None
        return Finding("text.lexical", STEER_LEVEL, "this step rewords sentences you already wrote")


class Phatic(Detector):
    """Only courtesies are exchanged (thanks, goodbyes), step after step."""

    name = "phatic"
    budget = COUNT_BUDGET
    rules = {"text.phatic": Rule("trip_after_steer", False, "only courtesies are exchanged")}
    thresholds = ("phatic_steer", "phatic_trip")

    def update(self, facts: StepFacts, config: Config) -> Finding | None:
        n = facts.phatic_streak
        if n < 2 or facts.called:
            return None
        return Finding(
            "text.phatic",
            count_score(n, config.phatic_steer, config.phatic_trip),
            f"the last {n} messages only exchange courtesies (thanks, goodbyes): the task is done "
            "or stalled, and nothing new is being said",
        )
