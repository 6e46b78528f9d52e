"""The run-store interface shared by the in-memory and the durable store.

A store maps a :data:`RunKey` — ``(tenant, run_id)`` — to a run record
(:class:`plateau.record.RunRecord`). Runs are namespaced per tenant: the same run id under two
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
:meth:`Store.inflight`), so that a step can wait for its predecessor across processes (the
rules and the waiting are :mod:`plateau.ordering`'s; the store provides these primitives
only). A single-process store (:class:`SingleProcessStore`) holds no such state.

Every method is synchronous and blocking: the server calls them (like the engine's own calls)
from its worker threads (``PlateauService._run``), never on the event loop. That includes
:meth:`Store.probe`, which health checks call to ask whether the store can serve at all, and
:meth:`Store.lost`, which the engine asks when a step names a run the store does not hold.

Limits kept by the store (issue 22): a run's learned state, encoded, may not exceed
``Config.max_run_state_bytes`` (:class:`~plateau.errors.LimitExceeded` before anything is
written); runs per tenant are counted by counters kept with each creation and deletion, never
by scanning runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol, runtime_checkable

from plateau.errors import LimitExceeded

__all__ = ["DEFAULT_MAX_RUN_STATE_BYTES", "RunKey", "SingleProcessStore", "StaleRecord", "Store", "run_summary", "state_too_large"]

#: ``Config.max_run_state_bytes``'s default, used by a store never bound to a config.
DEFAULT_MAX_RUN_STATE_BYTES = 32 * 1024 * 1024

#: ``(tenant, run_id)``; the tenant is ``""`` when auth is off.
RunKey = tuple[str, str]


class StaleRecord(Exception):
    """A change was refused because another process changed the run since it was read."""


def state_too_large(run_id: str, size: int, limit: int) -> LimitExceeded:
    """The error for a change that would take run ``run_id``'s learned state to ``size`` bytes,
    over ``limit`` (``Config.max_run_state_bytes``); raised before anything is written."""
    return LimitExceeded(
        f"step: run {run_id!r} would hold {size:,} bytes of learned state, over the limit max_run_state_bytes={limit:,}; "
        "the step was not applied (start a new run id, or raise max_run_state_bytes)"
    )


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

    def probe(self) -> tuple[bool, str]:
        """Whether the store can serve now, and why not: ``(True, "")`` or ``(False, cause)``.

        Synchronous and cheap (a stat, a read or a small write of the store's own; for Redis a
        ``PING`` bounded by a short timeout); never raises. ``cause`` is fit for an operator's
        log and a health reply: it names the fault (``the database file was deleted``, ``the
        database file is corrupt``, ``Redis is out of memory``) and never a password.
        """
        ...

    def lost(self, key: RunKey) -> str | None:
        """Why ``key`` may be missing because the store lost it (a Redis that restarted empty, a
        deleted database file), or None when the store has no such reason (the run never
        existed, expired or was deleted). The engine answers ``NOT_FOUND`` with this text
        instead of reporting a gap in the step indices."""
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

    #: ``Config.max_run_state_bytes`` (adopted by :meth:`bind`).
    max_state_bytes: int = DEFAULT_MAX_RUN_STATE_BYTES

    def bind(self, config: Any) -> None:
        """Adopt ``config.max_run_state_bytes``; retention is the engine's sweep (:meth:`Store.expired`)."""
        self.max_state_bytes = int(getattr(config, "max_run_state_bytes", DEFAULT_MAX_RUN_STATE_BYTES))

    def enter(self, key: RunKey, index: int, seconds: float) -> Any:
        """Nothing to announce: the engine knows its own steps in flight."""
        return None

    def leave(self, key: RunKey, token: Any) -> None:
        """Nothing to withdraw."""

    def inflight(self, key: RunKey) -> frozenset[int]:
        """No other process uses this store."""
        return frozenset()

    def lost(self, key: RunKey) -> str | None:
        """A single-process store loses no run without failing itself (see :meth:`Store.lost`)."""
        return None
