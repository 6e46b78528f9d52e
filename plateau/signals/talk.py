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
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TalkSignals", "TalkTracker"]


@dataclass(frozen=True)
class TalkSignals:
    """Talk evidence of one step.

    Attributes
    ----------
    talk_streak
        Consecutive steps without a call and without new facts from the user, this one
        included, in a run that has used tools (int >= 0; 0 for a step with a call).
    """

    talk_streak: int = 0


class TalkTracker:
    """Per-run talk streak (see the module docstring)."""

    def __init__(self) -> None:
        self._used_tools = False
        self._streak = 0

    def update(self, *, called: bool, user_brought_facts: bool) -> TalkSignals:
        """Judge one step: ``called`` whether it made a tool call, ``user_brought_facts``
        whether the user message before it added new facts to the run."""
        if called:
            self._used_tools = True
            self._streak = 0
        elif user_brought_facts or not self._used_tools:
            self._streak = 0
        else:
            self._streak += 1
        return TalkSignals(talk_streak=self._streak)
