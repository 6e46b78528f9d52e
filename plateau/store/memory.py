"""In-memory run store: a dict of run records (lost on restart).

The library's default (``Engine()``) and the server's with ``plateau serve --store memory``.
Records are kept as live objects, so :meth:`MemoryStore.append` and friends only (re)insert
them; nothing here can fail. See :mod:`plateau.store.base` for the contract.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

from plateau.store.base import RunKey, SingleProcessStore

__all__ = ["MemoryStore"]


class MemoryStore(SingleProcessStore):
    """Run records by ``(tenant, run_id)``, in process memory."""

    def __init__(self) -> None:
        self._records: dict[RunKey, Any] = {}
        self._counts: Counter[str] = Counter()
        self._guard = threading.Lock()

    def get(self, key: RunKey) -> Any | None:
        """The record of ``key``, or None."""
        return self._records.get(key)

    def _put(self, key: RunKey, record: Any) -> None:
        with self._guard:
            if key not in self._records:
                self._counts[key[0]] += 1
            self._records[key] = record

    def append(self, key: RunKey, record: Any) -> None:
        """Keep ``record`` (it gained one step)."""
        self._put(key, record)

    def replace(self, key: RunKey, record: Any) -> None:
        """Keep ``record`` in place of the old one."""
        self._put(key, record)

    def update(self, key: RunKey, record: Any) -> None:
        """Keep ``record`` (metadata changed)."""
        self._put(key, record)

    def delete(self, key: RunKey) -> None:
        """Forget ``key`` (no error when absent)."""
        with self._guard:
            if self._records.pop(key, None) is not None:
                self._counts[key[0]] -= 1
                if self._counts[key[0]] <= 0:
                    del self._counts[key[0]]

    def discard(self, key: RunKey) -> None:
        """Nothing to do: memory is the only copy."""

    def count(self, tenant: str) -> int:
        """Number of runs ``tenant`` holds."""
        return self._counts.get(tenant, 0)

    def expired(self, idle_before: float, ended_before: float) -> list[RunKey]:
        """Keys of runs idle since before ``idle_before`` or ended before ``ended_before``."""
        out = []
        for key, rec in list(self._records.items()):
            if rec.ended and rec.ended_at is not None and not math.isinf(ended_before) and rec.ended_at < ended_before:
                out.append(key)
            elif not math.isinf(idle_before) and rec.updated < idle_before:
                out.append(key)
        return out

    def keys(self) -> Iterator[RunKey]:
        """Every key held (a snapshot)."""
        return iter(list(self._records))

    def close(self) -> None:
        """Nothing to release."""

    def __len__(self) -> int:
        return len(self._records)
