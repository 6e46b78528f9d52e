"""The run-store interface shared by the in-memory and the durable store.

A store maps a :data:`RunKey` — ``(tenant, run_id)`` — to a run record
(:class:`plateau.engine.RunRecord`). Runs are namespaced per tenant: the same run id under two
tenants names two unrelated runs. The engine serialises all changes to one key (its per-run
lock), so a store only has to be safe for concurrent calls on *different* keys.

Each change that the engine makes is one call, and a durable store makes each call atomic:

- :meth:`Store.append` — the record gained one step (its last fingerprint and verdict) and its
  learned state moved; also used for a run's first step, which creates it;
- :meth:`Store.replace` — the record was reset (its steps are dropped);
- :meth:`Store.update` — only metadata changed (ended, context, timestamps);
- :meth:`Store.delete` — the run is forgotten (expiry).

Each change is all or nothing. When a change fails the store raises
:class:`~plateau.errors.StoreUnavailable` and forgets any cached copy; when the engine fails
while changing a record (before the store is called) it calls :meth:`Store.discard`, after
which :meth:`Store.get` returns the last committed state again, on every store (the memory
store keeps a committed copy for this).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol, runtime_checkable

__all__ = ["RunKey", "Store"]

#: ``(tenant, run_id)``; the tenant is ``""`` when auth is off.
RunKey = tuple[str, str]


@runtime_checkable
class Store(Protocol):
    """Where run records live (see the module docstring for the contract)."""

    def get(self, key: RunKey) -> Any | None:
        """The record of ``key``, or None. Raises ``StoreUnavailable`` when it cannot be read."""
        ...

    def append(self, key: RunKey, record: Any) -> None:
        """Persist ``record`` after it gained one step (creates the run on its first step)."""
        ...

    def replace(self, key: RunKey, record: Any) -> None:
        """Persist ``record`` in full, dropping any steps stored before (reset)."""
        ...

    def update(self, key: RunKey, record: Any) -> None:
        """Persist ``record``'s metadata (ended, context, timestamps); its steps are unchanged."""
        ...

    def delete(self, key: RunKey) -> None:
        """Forget ``key`` (no error when absent)."""
        ...

    def discard(self, key: RunKey) -> None:
        """Undo uncommitted changes to ``key``: the next :meth:`get` returns its last committed
        state (None for a run never committed)."""
        ...

    def count(self, tenant: str) -> int:
        """Number of runs ``tenant`` holds."""
        ...

    def oldest_ended(self, tenant: str) -> RunKey | None:
        """The key of ``tenant``'s run that ended first, or None when none has ended."""
        ...

    def expired(self, idle_before: float, ended_before: float) -> list[RunKey]:
        """Keys of runs last active before ``idle_before`` or ended before ``ended_before``
        (Unix seconds; ``-inf`` disables a rule)."""
        ...

    def keys(self) -> Iterator[RunKey]:
        """Every key held (a snapshot)."""
        ...

    def close(self) -> None:
        """Release files and connections (idempotent)."""
        ...
