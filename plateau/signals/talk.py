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

It also counts ``claims``: steps without a call whose text says an action is done (a
first-person perfect or a passive of a verb of writing: "I have saved the file", "the order
has been updated"; :data:`CLAIM`) since the last call that changed something (a mutation or an interface
action). One claim after the work is a report; a third with no write behind any of them is
the agent asserting what it never did, however much the user says in between.

And it counts ``unchanged``: steps whose text says that what the step found changes nothing
(no change, still the same, no difference, as before, a conclusion that stands;
:data:`UNCHANGED`) since the last call that changed something or the last user message that
brought new facts, waits and statements about the next item of a series excluded (an
audit that reports each item of a series unchanged gives that item's finding); and whether a
call was refused since the last successful write (``blocked``). An agent whose fix was
refused (an ownership or permission error, an HTTP 403) and that keeps re-checking with varied calls, whose answers
carry incidental new words, is seen by neither the repeat counters nor the information tests,
while its own narration reports step after step that it learned nothing (the paraphrase
plateau: a conclusion restated in new words). Without a refusal, the same statements are as
often an audit or a watch that found nothing, and are not counted as evidence.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

from plateau import lexicon

__all__ = ["CLAIM", "UNCHANGED", "TalkSignals", "TalkTracker", "claims_action", "says_unchanged"]

#: A sentence that says a write is done: a first-person perfect or a passive/stative of a
#: completed write verb ("I have sent", "has been created", "is now enabled";
#: lists ``claim-auxiliaries``, ``claim-adverbs``, ``claim-verbs`` of :mod:`plateau.lexicon`).
#: English only; other languages are left to the talk streak.
_AUX, _ADVERB, _VERB = (lexicon.alternation(name) for name in ("claim-auxiliaries", "claim-adverbs", "claim-verbs"))
CLAIM = re.compile(rf"{_AUX}\s+(?:{_ADVERB}\s+)?(?:re-?)?{_VERB}\b", re.IGNORECASE)


#: A sentence that says a check changed nothing: it asserts that the new observation matches
#: what was known (no change, nothing new, the same finding as before, a conclusion that
#: stands, a restatement), which a generic "is the same" (about code or data) does not.
#: Lists ``unchanged-en``, ``-es``, ``-fr``, ``-de`` (between word boundaries),
#: ``unchanged-zh`` (anywhere) and ``same-openers`` (at a sentence start) of
#: :mod:`plateau.lexicon`; other languages are left to the other layers.
_PHRASES = lexicon.alternation("unchanged-en", "unchanged-es", "unchanged-fr", "unchanged-de")
_OPENERS = lexicon.alternation("same-openers")
UNCHANGED = re.compile(rf"\b{_PHRASES}\b|(?:^|[.!?;:]\s+){_OPENERS}|" + lexicon.alternation("unchanged-zh"), re.IGNORECASE)


def says_unchanged(text: str) -> bool:
    """Whether ``text`` says that what was just found changes nothing (:data:`UNCHANGED`)."""
    return UNCHANGED.search(text) is not None


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
    unchanged
        Of the last ``horizon`` steps since the last call that changed something or the last
        user message with new facts, how many said that what they found changes nothing
        (:func:`says_unchanged`; waits excluded), this one included (int >= 0). Reported on
        every step while such statements are within reach, so the stall stays judged between
        them.
    blocked
        A call was refused since the last write that succeeded: a write that failed, or any
        call whose error says the caller may not do it (an ownership or permission error, ``403``;
        :func:`plateau.signals.progress.is_refused`). Statements of no change
        while blocked are a plateau; without a refusal they may be an audit or a watch that
        found nothing, and the fusion does not count them (:func:`plateau.fuse.fuse`).
    """

    talk_streak: int = 0
    claims: int = 0
    unchanged: int = 0
    blocked: bool = False


class TalkTracker:
    """Per-run talk streak, claims and statements of no change (see the module docstring).

    Parameters
    ----------
    horizon
        Steps over which statements of no change are counted (int >= 1; default 16, twice
        the default window: a stall restates its conclusion most steps, not once in a while).
    """

    def __init__(self, horizon: int = 16) -> None:
        if horizon < 1:
            raise ValueError(f"horizon must be >= 1, got {horizon}")
        self._used_tools = False
        self._streak = 0
        self._claims = 0
        self._unchanged: deque[bool] = deque(maxlen=horizon)
        self._blocked = False

    def update(
        self,
        *,
        called: bool,
        user_brought_facts: bool,
        text: str = "",
        acted: bool = False,
        waiting: bool = False,
        new_item: bool = False,
        refused: bool = False,
    ) -> TalkSignals:
        """Judge one step: ``called`` whether it made a tool call, ``user_brought_facts``
        whether the user message before it added new facts to the run, ``text`` its
        narration, ``acted`` whether its call changed something (a mutation, an
        interface action), ``waiting`` whether it waits (a poll, a status under way) and
        ``new_item`` whether its call asks about the next item of a series and its narration
        names that item (an audit item by item: "item 7: unchanged" is that item's finding,
        not a restated conclusion); ``refused`` whether its call was refused (:func:`plateau.signals.progress.is_refused`)."""
        claim = 0
        if acted:
            self._blocked = False
        elif refused:
            self._blocked = True
        if acted or user_brought_facts:
            self._unchanged.clear()
        else:
            self._unchanged.append(not waiting and not new_item and says_unchanged(text))
        unchanged = sum(self._unchanged)
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
        return TalkSignals(talk_streak=self._streak, claims=claim, unchanged=unchanged, blocked=self._blocked)
