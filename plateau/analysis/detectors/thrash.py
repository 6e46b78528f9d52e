"""Thrash: calls keep coming back empty or failing as before, and the ones that answer tell
nothing new against the run's own baseline (the observed-terms CUSUM).

Thresholds: ``cusum_steer``/``cusum_trip`` and ``thrash_trip_share`` (the share of failing
calls in the window a trip needs, set from the false-alarm budget on finished runs;
:class:`~plateau.config.Config`) and :data:`THRASH_SHARE` below (from which it steers).
"""

from __future__ import annotations

from plateau.analysis.detector import CUSUM_BUDGET, Detector, Finding, Rule
from plateau.analysis.facts import StepFacts
from plateau.analysis.scale import STEER_LEVEL, cusum_score
from plateau.config import Config

__all__ = ["THRASH_SHARE", "Thrash"]

#: At least this share of the last ``window`` calls came back empty or failed with nothing
#: new. Half: with fewer failures, the successful calls are the run; the other condition (the
#: calls that answer say nothing new, judged against the run's own baseline) separates a hunt
#: for something that does not exist from an exploration whose searches miss but whose reads
#: bring new facts.
THRASH_SHARE = 0.5


class Thrash(Detector):
    """Calls keep coming back empty or failing as before; the rest tell nothing new."""

    name = "thrash"
    budget = CUSUM_BUDGET
    rules = {"tool.thrash": Rule("trip_after_steer", False, "calls keep coming back empty or failing as before; the rest tell nothing new")}
    thresholds = ("window", "cusum_steer", "cusum_trip", "thrash_trip_share")
    constants = {"THRASH_SHARE": THRASH_SHARE}
    statistic_signals = ("observed_cusum",)

    def update(self, facts: StepFacts, config: Config) -> Finding | None:
        info = facts.information
        if (
            info.observed_calibrating
            or info.observed_cusum <= 0
            or not facts.called
            or info.iterating
            or info.calls_failing < THRASH_SHARE * config.window
        ):
            return None
        score = cusum_score(info.observed_cusum, config.cusum_steer, config.cusum_trip)
        if info.calls_failing < config.thrash_trip_share * config.window:
            score = min(score, STEER_LEVEL)  # half the window failing steers; trip needs more
        # the calls that ran: a check's own call (predicted) is in the window but has not run
        failing = info.calls_failing - (facts.predicted and info.call_failing)
        return Finding(
            "tool.thrash",
            score,
            f"{failing} of the last {config.window - facts.predicted} calls came back empty or failed as before, and the ones "
            "that answered told nothing new",
        )
