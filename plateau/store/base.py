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

A run's *history* is its steps: each accepted step's verdict and the time it was accepted
(``RunRecord.verdicts`` and ``RunRecord.times``), written by the same :meth:`Store.append` as
the step itself, so the history never disagrees with the acknowledged steps. It is bounded as
the run is (``config.max_steps_per_run`` steps; ``max_runs_per_tenant`` runs per tenant) and
kept as long as the run (until it expires, is deleted, or is reset). :meth:`Store.summaries`
lists a tenant's runs without decoding their learned state.

Each change is all or nothing. When a change fails the store raises
:class:`~plateau.errors.StoreUnavailable` and forgets any cached copy; when the engine fails
while changing a record (before the store is called) it calls :meth:`Store.discard`, after
which :meth:`Store.get` returns the last committed state again, on every store (the memory
store keeps a committed copy for this).

A store *shared* by several server processes (Redis) also makes each change a compare-and-set
on the version of the record it read: when another process changed the run in between, the
change raises :class:`StaleRecord`, nothing is written, and the engine re-reads the run and
tries again (or returns the verdict the other process stored). Such a store also tells the
engine which steps of a run other processes are judging (:meth:`Store.enter`,
:meth:`Store.inflight`), so that a step can wait for its predecessor across processes. A
single-process store (:class:`SingleProcessStore`) holds no such state.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol, runtime_checkable

__all__ = ["RunKey", "SingleProcessStore", "StaleRecord", "Store", "run_summary"]

#: ``(tenant, run_id)``; the tenant is ``""`` when auth is off.
RunKey = tuple[str, str]


class StaleRecord(Exception):
    """A change was refused because another process changed the run since it was read."""


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

    def summaries(self, tenant: str) -> list[Any]:
        """A :class:`~plateau.types.RunSummary` of each run ``tenant`` holds, as last committed
        (in no particular order; at most ``config.max_runs_per_tenant``)."""
        ...

    def close(self) -> None:
        """Release files and connections (idempotent)."""
        ...

    def bind(self, config: Any) -> None:
        """Adopt the engine's :class:`~plateau.config.Config` (retention a store enforces itself)."""
        ...

    def enter(self, key: RunKey, index: int, seconds: float) -> Any:
        """Announce that step ``index`` of ``key`` is being judged, for at most ``seconds``;
        returns a token for :meth:`leave`."""
        ...

    def leave(self, key: RunKey, token: Any) -> None:
        """Withdraw an announcement made by :meth:`enter` (no error when it expired)."""
        ...

    def inflight(self, key: RunKey) -> frozenset[int]:
        """Indices of ``key`` that *other processes* announced and still judge."""
        ...


def run_summary(
    run_id: str,
    *,
    context: str | None,
    ended: bool,
    created: float,
    updated: float,
    ended_at: float | None,
    steps: int,
    last: Any | None,
) -> Any:
    """The :class:`~plateau.types.RunSummary` of a run whose last step's verdict is ``last``
    (None before the first step: the state is ``calibrating``, as a new run's)."""
    from plateau.types import BreakerState, RunSummary

    return RunSummary(
        run_id=run_id,
        state=last.state if last is not None else BreakerState.CALIBRATING,
        steps=steps,
        ended=bool(ended),
        context=context or None,
        created=float(created),
        updated=float(updated),
        ended_at=None if ended_at is None else float(ended_at),
        last_action=None if last is None else last.action,
        last_score=None if last is None else float(last.score),
    )


class SingleProcessStore:
    """The cross-process part of :class:`Store` for a store used by one process only."""

    def bind(self, config: Any) -> None:
        """Nothing to adopt: the engine's sweep enforces retention (:meth:`Store.expired`)."""

    def enter(self, key: RunKey, index: int, seconds: float) -> Any:
        """Nothing to announce: the engine knows its own steps in flight."""
        return None

    def leave(self, key: RunKey, token: Any) -> None:
        """Nothing to withdraw."""

    def inflight(self, key: RunKey) -> frozenset[int]:
        """No other process uses this store."""
        return frozenset()
