"""In-memory run store: a dict of run records guarded by per-run locks.

A *run record* (:class:`plateau.engine.RunRecord`) holds everything the engine knows about a
run. The store hands out one :class:`threading.Lock` per run id so that steps of one run are
applied one at a time while different runs proceed in parallel.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["MemoryStore"]


class MemoryStore:
    """Run records by run id, in process memory (lost on restart)."""

    def __init__(self) -> None:
        self._records: dict[str, Any] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def lock(self, run_id: str) -> threading.Lock:
        """The lock serialising changes to ``run_id`` (created on first use)."""
        with self._guard:
            lock = self._locks.get(run_id)
            if lock is None:
                lock = self._locks[run_id] = threading.Lock()
            return lock

    def get(self, run_id: str) -> Any | None:
        """The record of ``run_id``, or None."""
        return self._records.get(run_id)

    def put(self, run_id: str, record: Any) -> None:
        """Store (or replace) the record of ``run_id``. Call with the run's lock held."""
        self._records[run_id] = record

    def delete(self, run_id: str) -> None:
        """Forget ``run_id`` (no error when absent)."""
        self._records.pop(run_id, None)

    def __len__(self) -> int:
        return len(self._records)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._records))
