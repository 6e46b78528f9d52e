"""Talk instead of action: a tool-using agent that keeps talking while nothing new arrives.

An agent with tools that stops calling them and keeps writing is either done, waiting for
the user, or stuck: dithering between two plans in text, claiming it "saved" or "updated"
something no call ever did, or asking the user again for what it could look up while the
user defers. What separates the last kinds from a conversation is that nothing new arrives:
the user's replies add no facts to the run, and no call consults the environment.

Per step this module counts ``talk_streak``: consecutive steps, this one included, without a
tool call and without a user message that brings new facts (at least
:data:`plateau.signals.information.NEW_FACT_TERMS` content terms new to the run), in a run that
has made at least one tool call. A call, or a user who says something new, ends the streak. A
run that never called a tool (pure reasoning, a chat between agents) has no streak: its
narration is judged by the semantic and textual layers alone.

It also counts ``claims``: steps without a call whose text says an action is done ("I've
saved the model", "the reservation has been updated", "it's deployed now";
:data:`CLAIM`) since the last call that changed something (a mutation or an interface
action). One claim after the work is a report; a third with no write behind any of them is
the agent asserting what it never did, however much the user says in between.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["CLAIM", "TalkSignals", "TalkTracker", "claims_action"]

#: A sentence that says a write is done: a first-person perfect or a passive/stative of a
#: completed write verb ("I've saved", "has been updated", "is now deployed", "it's saved").
#: English only; other languages are left to the talk streak.
CLAIM = re.compile(
    r"(?:\bi(?:'ve| have)|\b(?:has|have) been|(?:\bis|\bare|'s)(?:\s+(?:now|all|already|successfully))?(?:\s+been)?)\s+"
    r"(?:(?:now|just|already|also|successfully)\s+)?(?:re-?)?"
    r"(?:saved|updated|sent|created|deleted|applied|logged|committed|deployed|written|registered|fixed|changed|booked|"
    r"cancell?ed|refunded|exported|uploaded|added|removed|modified|stored|submitted|published|merged|pushed|scheduled|"
    r"processed|completed|done|issued|placed|moved|renamed|installed|configured|restarted|enabled|disabled|activated|"
    r"transferred|run|ran|executed)\b",
    re.IGNORECASE,
)


def claims_action(text: str) -> bool:
    """Whether ``text`` says an action is done (:data:`CLAIM`)."""
    return CLAIM.search(text) is not None


@dataclass(frozen=True)
class TalkSignals:
    """Talk evidence of one step.

    Attributes
    ----------
    talk_streak
        Consecutive steps without a call and without new facts from the user, this one
        included, in a run that has used tools (int >= 0; 0 for a step with a call).
    claims
        Steps without a call that claimed a done action (:func:`claims_action`) since the
        last call that changed something, this one included (int >= 0; 0 for a step that is
        not such a claim).
    """

    talk_streak: int = 0
    claims: int = 0


class TalkTracker:
    """Per-run talk streak (see the module docstring)."""

    def __init__(self) -> None:
        self._used_tools = False
        self._streak = 0
        self._claims = 0

    def update(self, *, called: bool, user_brought_facts: bool, text: str = "", acted: bool = False) -> TalkSignals:
        """Judge one step: ``called`` whether it made a tool call, ``user_brought_facts``
        whether the user message before it added new facts to the run, ``text`` its
        narration and ``acted`` whether its call changed something (a mutation, an
        interface action)."""
        claim = 0
        if acted:
            self._claims = 0
        elif not called and self._used_tools and claims_action(text):
            self._claims += 1
            claim = self._claims
        if called:
            self._used_tools = True
            self._streak = 0
        elif user_brought_facts or not self._used_tools:
            self._streak = 0
        else:
            self._streak += 1
        return TalkSignals(talk_streak=self._streak, claims=claim)
