"""Identical and failing calls: the same call with the same result, cycles of calls, the same
error again, the same outcome from varied calls.

Thresholds: ``repeat_steer``/``repeat_trip`` (identical calls and errors), ``poll_steer``/
``poll_trip`` (waiting, transient failures, results that moved only in masked values),
``denial_steer``/``denial_trip`` (calls the user denied), ``requested_*`` (repetition the
request asked for), ``same_outcome_steer``/``same_outcome_trip`` (:class:`~plateau.config.Config`
gives each its default and derivation).
"""

from __future__ import annotations

from plateau.analysis.detector import COUNT_BUDGET, Detector, Finding, Rule
from plateau.analysis.facts import StepFacts
from plateau.analysis.scale import STEER_LEVEL, count_score, short, times
from plateau.config import Config

__all__ = ["ErrorRepeat", "SameOutcome", "ToolRepeat", "call_thresholds"]


def call_thresholds(facts: StepFacts, config: Config) -> tuple[int, int, int, str]:
    """The count and steer/trip thresholds that apply to this step's identical-call evidence.

    Returns ``(count, steer_at, trip_at, why)``; ``count`` includes this step's call (a check's
    predicted one too: the message counts ``count - facts.predicted``). A waiting result (a
    poller), a result that moved only in what masking removes, or a request for repetition
    counts the consecutive streak against the poll thresholds (bounded by the requested count
    when the request names one); a call the user denied uses ``denial_steer`` /
    ``denial_trip``; anything else ``repeat_steer`` / ``repeat_trip`` over the window.
    """
    prog, repetition, result_kind = facts.progress, facts.repetition, facts.result_kind
    if result_kind == "denial":
        return max(prog.repeat_count, prog.error_count), config.denial_steer, config.denial_trip, "(the user denied it)"
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
    if facts.rejected:
        # the harness ran nothing (a message with no action or several): retrying the format
        # touches nothing in the world, so it is bounded like waiting, not like a failing call
        return prog.repeat_count, config.poll_steer, config.poll_trip, "while the harness refused the message's format"
    if prog.masked_only:
        # waiting is legitimate while it is bounded: what changed (a clock, a counter) says
        # something moves, not what; the poll bounds apply to the streak
        return prog.streak, config.poll_steer, config.poll_trip, "while only timestamps or counters changed"
    return prog.repeat_count, config.repeat_steer, config.repeat_trip, ""


_POLL = ("poll_steer", "poll_trip", "denial_steer", "denial_trip", "requested_steer_slack", "requested_trip_factor", "requested_trip_slack")


class ToolRepeat(Detector):
    """The same call (tool, canonical arguments) returned the same result again, or the calls
    cycle through the same few signatures (period 2..6)."""

    name = "tool_repeat"
    budget = COUNT_BUDGET
    rules = {
        "tool.repeat": Rule("trip", False, "the same call returned the same result again (no mutation in between)"),
        "tool.cycle": Rule("trip", False, "the calls cycle through the same few signatures"),
    }
    thresholds = ("repeat_steer", "repeat_trip", *_POLL)

    def update(self, facts: StepFacts, config: Config) -> Finding | None:
        count, steer_at, trip_at, why = call_thresholds(facts, config)
        if count < 2:
            return None
        prog, step = facts.progress, facts.step
        call = f"{step.tool}({short(step.args, 100)})"
        cycle = f" (the calls cycle with period {prog.cycle_period})" if prog.cycle_period else ""
        ran = count - facts.predicted  # the calls that ran: a check's own call has not
        return Finding(
            "tool.cycle" if prog.cycle_period else "tool.repeat",
            count_score(count, steer_at, trip_at),
            f"the call {call} returned the same result {times(ran)}{' ' + why if why else ''}{cycle}",
        )


class ErrorRepeat(Detector):
    """The same error (tool + :func:`~plateau.signals.progress.error_identity`) within ``2 * window`` steps, across edits that
    change nothing that matters."""

    name = "error_repeat"
    budget = COUNT_BUDGET
    rules = {"tool.error_repeat": Rule("trip", False, "the same error came back, across edits that changed nothing that matters")}
    thresholds = ("repeat_steer", "repeat_trip", *_POLL)

    def update(self, facts: StepFacts, config: Config) -> Finding | None:
        prog = facts.progress
        if prog.error_count < 2 or facts.result_kind == "denial":
            return None
        if facts.repetition is not None and facts.repetition.requested:
            _, err_steer, err_trip, _ = call_thresholds(facts, config)
        elif prog.transient or facts.rejected:  # an overloaded service or a refused format: waiting
            err_steer, err_trip = config.poll_steer, config.poll_trip
        else:
            err_steer, err_trip = config.repeat_steer, config.repeat_trip
        ran = prog.error_count - facts.predicted  # the calls that ran: a check's own call has not
        return Finding(
            "tool.error_repeat",
            count_score(prog.error_count, err_steer, err_trip),
            f"{facts.step.tool} failed {times(ran)} with the same error: {short(prog.error_text or '')!r}",
        )


class SameOutcome(Detector):
    """Varied calls, the same outcome: the same error trips; the same empty answer only steers
    (an audit where most items are clean answers "nothing" too)."""

    name = "same_outcome"
    budget = COUNT_BUDGET
    rules = {"tool.same_outcome": Rule("trip", False, "varied calls, the same error (the same empty answer only steers)")}
    thresholds = ("same_outcome_steer", "same_outcome_trip", "poll_steer", "poll_trip")

    def update(self, facts: StepFacts, config: Config) -> Finding | None:
        prog = facts.progress
        if prog.same_outcome_count < 2 or prog.repeat_count >= prog.same_outcome_count or facts.information.iterating:
            return None
        # the same answer that reads as waiting ("queued", "pending") from a status call and
        # its variants is waiting, bounded like any poller
        waiting = facts.result_kind == "waiting" or prog.transient or facts.rejected
        steer_same, trip_same = (config.poll_steer, config.poll_trip) if waiting else (config.same_outcome_steer, config.same_outcome_trip)
        same = count_score(prog.same_outcome_count, steer_same, trip_same)
        answered = bool((facts.step.result or "").strip())
        ran = prog.same_outcome_count - facts.predicted  # the calls that ran: a check's own call has not
        return Finding(
            "tool.same_outcome",
            # a hunt that finds nothing is left to the calibrated thrash test
            same if prog.error or answered else min(STEER_LEVEL, same),
            (f"{ran} different calls" if ran != 1 else "1 call")
            + " came back with the same "
            + ("error" if prog.error else "answer" if answered else "empty result"),
        )
