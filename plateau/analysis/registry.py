"""The registry: every step detector, one line each.

The order is the tie-break when two findings score the same (the first listed gives the
message); detectors do not otherwise depend on each other. Adding a detector is one file under
``plateau/analysis/detectors/`` and one line here.
"""

from __future__ import annotations

from plateau.analysis.detector import Detector, Rule
from plateau.analysis.detectors.calibrated import NoProgress, SemanticStall
from plateau.analysis.detectors.calls import ErrorRepeat, SameOutcome, ToolRepeat
from plateau.analysis.detectors.oscillation import Oscillation
from plateau.analysis.detectors.restatement import Lexical, NearDuplicate, Phatic, Verbatim
from plateau.analysis.detectors.talk import Claim, Talk, Unchanged
from plateau.analysis.detectors.thrash import Thrash

__all__ = ["DETECTORS", "POLICY"]

DETECTORS: tuple[type[Detector], ...] = (
    ToolRepeat,
    ErrorRepeat,
    SameOutcome,
    Oscillation,
    NearDuplicate,
    Verbatim,
    Lexical,
    Phatic,
    Talk,
    Claim,
    Unchanged,
    SemanticStall,
    NoProgress,
    Thrash,
)


def _policy() -> dict[str, Rule]:
    from dataclasses import fields

    from plateau.config import Config

    config_fields = {f.name for f in fields(Config)}
    policy: dict[str, Rule] = {}
    names: set[str] = set()
    for detector in DETECTORS:
        if not detector.name or detector.name in names:
            raise RuntimeError(f"{detector.__qualname__}: a detector needs a unique name")
        names.add(detector.name)
        unknown = set(detector.thresholds) - config_fields
        if unknown:
            raise RuntimeError(f"{detector.__qualname__}: thresholds {sorted(unknown)} are not Config fields")
        for code, rule in detector.rules.items():
            if code in policy:
                raise RuntimeError(f"{detector.__qualname__}: reason code {code!r} is declared twice")
            policy[code] = rule
    return policy


#: The policy, assembled from the detectors' declarations: which evidence may steer, which may
#: trip, and what a trip needs (reason code → :class:`~plateau.analysis.detector.Rule`).
POLICY: dict[str, Rule] = _policy()

