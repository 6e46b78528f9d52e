"""A run's stored state: :class:`RunRecord`, what the engine keeps about one run and the stores
persist.

The engine (:mod:`plateau.engine`) changes records and the stores (:mod:`plateau.store`) read
and write them; both import this module, neither imports the other's implementation. The
learned state inside a record (``analysis``) is encoded by :mod:`plateau.store.codec`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from plateau.analysis import RunAnalysis
    from plateau.types import Verdict

__all__ = ["RunRecord"]


@dataclass
class RunRecord:
    """Everything the engine keeps about one run.

    ``fingerprints[i]``, ``verdicts[i]`` and ``times[i]`` (Unix seconds when it was accepted;
    None for a step stored without a time) belong to step ``i``: with the verdicts they are the
    run's history (:meth:`plateau.engine.Engine.run_history`), persisted with each step.
    ``analysis`` is the learned state (:class:`~plateau.analysis.RunAnalysis`); ``created``,
    ``updated`` (last accepted step or change) and ``ended_at`` are Unix seconds, used by
    retention.
    """

    run_id: str
    context: str | None
    analysis: RunAnalysis
    fingerprints: list[str] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    ended: bool = False
    tenant: str = ""
    created: float = 0.0
    updated: float = 0.0
    ended_at: float | None = None
    times: list[float | None] = field(default_factory=list)
