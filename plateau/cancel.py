"""Cancellation points: work whose caller has gone away stops at its next stage boundary.

A call of the service runs its work (parsing, judging) in a worker thread, inside
:func:`cancellable` with the call's *stop* event, which the server sets when the caller goes
away (deadline, cancellation). Work cannot be interrupted from outside a thread, so the work
itself asks at its stage boundaries, :func:`checkpoint`: between parsing a step's arguments and
validating and re-writing them (:func:`plateau.types.canonical_args`), and between the fact
stages of judging (:func:`plateau.analysis.facts.compute_facts`). A checkpoint whose caller has
gone raises :class:`Dropped`; judging is all-or-nothing (the engine restores the run's last
committed state on any exception), so a dropped step leaves no trace. Outside a call (the
library, ``Client.local``) a checkpoint does nothing.

Why (issue 22, item 3): 100 calls of 1.5 MB with a 0.2 s deadline started about twenty parses
and judgements that ran for seconds after every caller had gone, each to its end.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

__all__ = ["Dropped", "cancellable", "checkpoint"]


class Dropped(Exception):
    """Raised inside a worker thread when the call it works for has gone away."""


_local = threading.local()


@contextlib.contextmanager
def cancellable(stop: threading.Event) -> Iterator[None]:
    """Run the block as the work of a call whose caller is gone once ``stop`` is set."""
    previous = getattr(_local, "stop", None)
    _local.stop = stop
    try:
        yield
    finally:
        _local.stop = previous


def checkpoint() -> None:
    """Raise :class:`Dropped` when this thread works for a call whose caller has gone away
    (inside :func:`cancellable` with its stop event set); otherwise return at once."""
    stop: threading.Event | None = getattr(_local, "stop", None)
    if stop is not None and stop.is_set():
        raise Dropped("the caller went away")
