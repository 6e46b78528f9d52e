"""The detector contract: what a detector reads, declares and returns.

A detector reads one step's :class:`~plateau.analysis.facts.StepFacts` (computed once per
step; detectors never classify text again) and returns at most one :class:`Finding`: a reason
code, a score on the fusion scale (below ``STEER_LEVEL`` = 0.5 the step is fine, 0.5 is steer
level, ``TRIP_LEVEL`` = 1.0 trip level, capped at 2) and what it saw in plain words.

Each detector declares, as class attributes:

- ``name``: its registered name (stable: its state is stored under it, never under a module
  path, so moving the class keeps stored runs readable);
- ``rules``: for each reason code it may return, the :class:`Rule` fusion applies to it (may it
  trip on its own, only after a steer, or only steer; does trip level need recurrence);
- ``thresholds``: the :class:`~plateau.config.Config` fields it reads (defaults, units and
  derivations live there) and ``constants``: the module constants it reads, each with its
  derivation beside it in the detector's file;
- ``budget`` (a detector that can trip): its false-alarm budget on runs that finished or
  succeeded, and the margin its largest score on them must keep below trip level.
  ``scripts/calibrate.py`` replays a corpus of such real runs and reports, per detector, what
  it spent and the margin it kept.

A step may be *predicted* (:attr:`~plateau.analysis.facts.StepFacts.predicted`): a pre-call
check judges a call that has not run, with the result it got last time. Findings are the same
as for the step observed (the verdict is what observing it would answer); only the words
differ: a message that counts calls counts the calls that ran (``count - facts.predicted``
when the count includes this step's call), so a check after three failed calls says "failed
3 times" (issue 24).

A detector with state keeps it in plain attributes, which the run's stored state holds under
the detector's registered name (:data:`plateau.store.codec.STATE_NAMES`); most are stateless
and shared by every run. Detectors do not depend on each other: every one reads
the same facts, so their order matters only to break ties between equal scores
(:data:`plateau.analysis.registry.DETECTORS` is that order).

A new detector is one new file under ``plateau/analysis/detectors/`` and one line in the
registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from plateau.analysis.facts import StepFacts
    from plateau.config import Config

__all__ = ["Budget", "Detector", "Finding", "Rule"]


@dataclass(frozen=True)
class Rule:
    """What one kind of evidence may do (fusion's policy for one reason code).

    Attributes
    ----------
    acts
        ``"trip"``: structural recurrence, trips on its own count without a prior steer;
        ``"trip_after_steer"``: accumulated evidence, trips only once the run was steered in
        this stall; ``"steer"``: never more than steer level.
    needs_recurrence
        Trip level also needs recurrence against the run's memory
        (:func:`plateau.fuse.recurs`). Below that the evidence is worth nothing, not even a
        steer: small movement while the environment keeps answering something new is work.
    meaning
        What the evidence says, in plain words (the README's table).
    """

    acts: str
    needs_recurrence: bool
    meaning: str

    def __post_init__(self) -> None:
        if self.acts not in ("trip", "trip_after_steer", "steer"):
            raise ValueError(f"Rule.acts must be trip, trip_after_steer or steer; got {self.acts!r}")


@dataclass(frozen=True)
class Budget:
    """A detector's false-alarm budget, measured on real runs that finished or succeeded.

    Attributes
    ----------
    runs_per_1000
        Runs that finished or succeeded that may trip on this detector alone, per 1,000 runs
        (float >= 0). 0: none may; a trip kills work that would have succeeded.
    margin
        Score the detector's largest value on those runs must keep below trip level (1.0),
        in fusion-scale units (float in [0, 1)). For a count detector one occurrence is the
        step from steer to trip, so 0 (strictly below trip) is its natural margin; a
        calibrated statistic (a CUSUM) keeps a share of its decision interval.
    why
        Where the numbers come from.
    """

    runs_per_1000: float
    margin: float
    why: str


#: The budget of a count detector: no finished run trips on it, and its count stays below the
#: trip count on every step of them (its trip is one more occurrence than anything seen there).
COUNT_BUDGET = Budget(
    0.0, 0.0, "a trip kills work that would have succeeded: none on finished runs; counts are integers, so below trip is the margin"
)
#: The budget of a calibrated (CUSUM) detector: no finished run trips on it, and the largest
#: statistic on them stays below three quarters of the way from steer to trip level (score
#: 0.875), so a run must accumulate a quarter of the steer-to-trip interval more evidence than
#: any finished run did. A quarter: Page's ARL grows roughly exponentially in h, so a 25 %
#: margin on h multiplies the expected run length to a false alarm several times.
CUSUM_BUDGET = Budget(0.0, 0.125, "none on finished runs; a quarter of the steer-to-trip interval kept free (Page 1954: ARL ~ exp(h))")


@dataclass(frozen=True)
class Finding:
    """One detector's evidence on one step.

    Attributes
    ----------
    code
        Reason code (one of the detector's ``rules``).
    score
        Float in [0, 2] on the fusion scale (0.5 steer level, 1.0 trip level).
    what
        What it saw, in plain words (goes into the steer or trip message).
    """

    code: str
    score: float
    what: str


class Detector:
    """Base of every detector (see the module docstring for the contract)."""

    name: ClassVar[str] = ""
    rules: ClassVar[dict[str, Rule]] = {}
    thresholds: ClassVar[tuple[str, ...]] = ()
    constants: ClassVar[dict[str, float]] = {}
    budget: ClassVar[Budget | None] = None
    #: For a calibrated detector: the verdict signals whose geometric mean is its statistic
    #: (robust-z units), so ``scripts/calibrate.py`` can report it raw; empty for counts.
    statistic_signals: ClassVar[tuple[str, ...]] = ()

    def update(self, facts: StepFacts, config: Config) -> Finding | None:
        """The finding of one step, or None. Called on every step, in order."""
        raise NotImplementedError
