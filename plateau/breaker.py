"""The per-run circuit breaker: evidence → continue / steer / trip.

States (pybreaker's naming, plus warm-up): ``calibrating`` → ``closed`` → ``steering`` →
``open``, with an optional ``half_open`` probe after a trip.

- Below steer level the breaker is ``closed`` (``calibrating`` during warm-up) and answers
  continue; the step is remembered as the last productive one.
- At steer level it steers. At most ``steer_cap`` steers in a row carry a message: past the
  cap the verdict stays steer (the run is still judged stalled) but without a new message to
  inject, because repeated nudges become part of the loop. Reaching the cap never trips.
- At trip level it trips (``open``) when the evidence is structural, or when it has already
  steered in this stall; semantic-only evidence is steered first.
- ``open`` answers trip on every later step unless ``probe`` is set: then the state becomes
  ``half_open`` and the next step is judged; below steer level it closes the breaker,
  otherwise it re-opens it.
"""

from __future__ import annotations

from dataclasses import dataclass

from plateau.config import Config
from plateau.fuse import STEER_LEVEL, TRIP_LEVEL, Evidence
from plateau.types import Action, BreakerState

__all__ = ["Breaker", "Decision"]


@dataclass(frozen=True)
class Decision:
    """The breaker's answer for one step: action, state after it, message, extra reasons."""

    action: Action
    state: BreakerState
    message: str | None
    reasons: tuple[str, ...] = ()


class Breaker:
    """Per-run state machine.

    Parameters
    ----------
    config
        Uses ``steer_cap`` and ``probe``.

    Attributes
    ----------
    state
        Current :class:`BreakerState`.
    steers
        Steers issued in total.
    consecutive_steers
        Steers issued in the current stall.
    last_productive
        Index of the last step judged below steer level, or None.
    """

    def __init__(self, config: Config) -> None:
        self.config = config
        self.state = BreakerState.CALIBRATING
        self.steers = 0
        self.consecutive_steers = 0
        self.last_productive: int | None = None

    def _since(self) -> str:
        if self.last_productive is None:
            return "No step of this run has made progress yet."
        return f"The last productive step was step {self.last_productive}."

    def decide(self, index: int, evidence: Evidence, *, calibrating: bool) -> Decision:
        """Turn one step's evidence into a :class:`Decision` and move the state."""
        probing = self.state is BreakerState.HALF_OPEN
        if self.state is BreakerState.OPEN:
            return Decision(Action.TRIP, BreakerState.OPEN, None, ("breaker.open",))
        if probing:
            if evidence.score < STEER_LEVEL:
                self.state = BreakerState.CLOSED
                self.consecutive_steers = 0
                self.last_productive = index
                return Decision(Action.CONTINUE, self.state, None, ("breaker.probe_passed",))
            return self._trip(evidence, ("breaker.probe_failed",))
        if evidence.score >= TRIP_LEVEL and (evidence.structural or self.consecutive_steers > 0):
            return self._trip(evidence, ())
        if evidence.score >= STEER_LEVEL:
            self.state = BreakerState.STEERING
            if self.consecutive_steers >= self.config.steer_cap:
                return Decision(Action.STEER, self.state, None, ("breaker.steer_capped",))
            self.consecutive_steers += 1
            self.steers += 1
            message = (
                f"You seem to be going in circles: {evidence.what}. {self._since()} "
                "Stop repeating this: try a different approach, different arguments or another tool, "
                "or state what blocks you."
            )
            return Decision(Action.STEER, self.state, message)
        self.state = BreakerState.CALIBRATING if calibrating else BreakerState.CLOSED
        self.consecutive_steers = 0
        self.last_productive = index
        return Decision(Action.CONTINUE, self.state, None)

    def _trip(self, evidence: Evidence, extra: tuple[str, ...]) -> Decision:
        self.state = BreakerState.HALF_OPEN if self.config.probe else BreakerState.OPEN
        message = f"Plateau stopped this run: {evidence.what}. {self._since()}"
        return Decision(Action.TRIP, BreakerState.OPEN, message, extra)
