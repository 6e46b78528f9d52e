"""Re-implementations of published loop-detection rules, for comparison with Plateau.

Each rule lives in its own module, named after the rule, with a docstring that cites the
source it was read from, what was verified against that source, and where this port departs
from it (and why). They are *baselines*: they answer only ``"continue"`` or ``"trip"`` and are
run through :mod:`bench.evaluate` exactly like Plateau itself.

Step-level rules (one agent run, one step at a time; see ``docs/format.md``):

==================  ==========================================================================
``seed-baseline``   consecutive embedding delta below ``mean - k*std`` of the warm-up deltas
``exact-args``      the third consecutive call with the same tool and canonical arguments
``stuck-detector``  OpenHands ``StuckDetector`` (repeats, errors, monologue, A-B-A-B)
``jaccard``         ``agent-loop-detector``: consecutive word-Jaccard >= 0.85, three in a row
==================  ==========================================================================

Stream-level rules (one streamed response, one chunk at a time):

==================  ==========================================================================
``chunk-hash``      gemini-cli content-loop detector (50-char chunks, 10 recurrences)
``line-window``     hermes-agent ``StreamOutputRepetitionGuard`` (line window + periodic tail)
==================  ==========================================================================

Every detector is stateful and sticky: once it has tripped (fired) it keeps answering
``"trip"`` (``True``) until :meth:`reset`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from bench.baselines.chunk_hash import ChunkHash
from bench.baselines.exact_args import ExactArgs
from bench.baselines.jaccard import JaccardRepeat
from bench.baselines.line_window import LineWindow
from bench.baselines.seed_baseline import SeedBaseline
from bench.baselines.stuck_detector import StuckDetector

__all__ = [
    "STEP_BASELINES",
    "STREAM_BASELINES",
    "ChunkHash",
    "ExactArgs",
    "JaccardRepeat",
    "LineWindow",
    "SeedBaseline",
    "StepDetector",
    "StreamDetector",
    "StuckDetector",
]


@runtime_checkable
class StepDetector(Protocol):
    """A detector fed one agent step at a time.

    ``name`` is the registry name (e.g. ``"exact-args"``).
    """

    name: str

    def observe(self, step: Mapping[str, Any]) -> str:
        """Judge one step.

        Parameters
        ----------
        step
            One step dict as in ``docs/format.md`` (``text``, ``tool``, ``args``, ``result``,
            ``status``, ``progress``, ``user``, ``agent``); only ``text`` is required and every
            other key may be missing or ``None``.

        Returns
        -------
        str
            ``"continue"``, ``"steer"`` or ``"trip"`` (baselines answer only ``"continue"`` or
            ``"trip"``).
        """
        ...

    def reset(self) -> None:
        """Forget everything: the next step starts a new run."""
        ...


@runtime_checkable
class StreamDetector(Protocol):
    """A detector fed one streamed text chunk at a time.

    ``name`` is the registry name (e.g. ``"chunk-hash"``).
    """

    name: str

    def feed(self, chunk: str) -> bool:
        """Add one chunk; ``True`` once the detector has fired (sticky until :meth:`reset`)."""
        ...

    def reset(self) -> None:
        """Forget everything: the next chunk starts a new stream."""
        ...


#: Step-level baselines by name. ``seed-baseline`` needs ``embed=`` (a callable mapping a list
#: of texts to an ``(n, dim)`` float32 array of L2-normalised rows); the others take no
#: required argument.
STEP_BASELINES: dict[str, Callable[..., StepDetector]] = {
    ExactArgs.name: ExactArgs,
    JaccardRepeat.name: JaccardRepeat,
    SeedBaseline.name: SeedBaseline,
    StuckDetector.name: StuckDetector,
}

#: Stream-level baselines by name; each factory takes no argument.
STREAM_BASELINES: dict[str, Callable[[], StreamDetector]] = {
    ChunkHash.name: ChunkHash,
    LineWindow.name: LineWindow,
}
