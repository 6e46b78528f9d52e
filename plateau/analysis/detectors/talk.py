"""Talk instead of action, read from the agent's narration (:class:`~plateau.signals.talk.TalkTracker`):
talking with nothing new from the user, claiming a write no call made, saying after a refused
call that the re-checks change nothing. Each steers at ``talk_steer`` and trips, after a steer,
at ``talk_trip`` (:class:`~plateau.config.Config`).
"""

from __future__ import annotations

from plateau.analysis.detector import COUNT_BUDGET, Detector, Finding, Rule
from plateau.analysis.facts import StepFacts
from plateau.analysis.scale import count_score
from plateau.config import Config

__all__ = ["Claim", "Talk", "Unchanged"]


class Talk(Detector):
    """A tool-using agent keeps talking while the user brings nothing new."""

    name = "talk"
    budget = COUNT_BUDGET
    rules = {"text.talk": Rule("trip_after_steer", False, "a tool-using agent only talks, and the user brings nothing new")}
    thresholds = ("talk_steer", "talk_trip")

    def update(self, facts: StepFacts, config: Config) -> Finding | None:
        n = facts.talk.talk_streak
        if n < 2 or facts.called or facts.phatic_streak >= 2:
            return None
        return Finding(
            "text.talk",
            count_score(n, config.talk_steer, config.talk_trip),
            f"the last {n} steps only talk: no tool call, and nothing new from the user; "
            "act (call the tool that does or looks it up) or say what blocks you",
        )


class Claim(Detector):
    """The agent keeps saying something was done (saved, updated, sent) with no write behind it."""

    name = "claim"
    budget = COUNT_BUDGET
    rules = {"text.claim": Rule("trip_after_steer", False, "the agent keeps saying it did what no call since did (saved, updated)")}
    thresholds = ("talk_steer", "talk_trip")

    def update(self, facts: StepFacts, config: Config) -> Finding | None:
        n = facts.talk.claims
        if n < 2 or facts.called:
            return None
        return Finding(
            "text.claim",
            count_score(n, config.talk_steer, config.talk_trip),
            f"the last {n} messages say something was done (saved, updated, sent), and no call since did it; "
            "make the call, or say what blocks you",
        )


class Unchanged(Detector):
    """A call was refused, and the agent keeps saying its re-checks since change nothing.

    Without a refusal, an audit or a watch that keeps finding nothing reads the same: no
    evidence then.
    """

    name = "unchanged"
    budget = COUNT_BUDGET
    rules = {
        "text.unchanged": Rule(
            "trip_after_steer", False, "a call was refused, and the agent keeps saying its re-checks since change nothing"
        )
    }
    thresholds = ("talk_steer", "talk_trip")

    def update(self, facts: StepFacts, config: Config) -> Finding | None:
        talk = facts.talk
        if not talk.blocked or talk.unchanged < 2:
            return None
        return Finding(
            "text.unchanged",
            count_score(talk.unchanged, config.talk_steer, config.talk_trip),
            f"{talk.unchanged} steps since anything was done say that what they found changes nothing; "
            "act on what you know, or say what blocks you and stop",
        )
