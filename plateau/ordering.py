"""Per-step ordering of a run: the rules, and the places that keep them.

The rules (what :meth:`plateau.engine.Engine.observe` promises):

1. **One step of a run at a time.** A run's steps are judged and stored under the run's lock
   (:meth:`StepOrder.locked`), so no two changes of one run interleave in this process; across
   processes sharing a store, each change is a compare-and-set on the version read
   (:class:`~plateau.store.base.StaleRecord`: the engine reads the run again).
2. **In index order.** Step ``n`` is applied only after steps ``0 … n-1``. A step whose
   predecessor is *in flight* waits for it, at most ``Config.order_wait_seconds``
   (:meth:`StepOrder.budget`): in flight in this process (:class:`StepOrder`, a condition
   per run), in another process sharing the store (announced with
   :meth:`~plateau.store.base.Store.enter`, read with :meth:`~plateau.store.base.Store.inflight`,
   polled every :data:`REMOTE_POLL_SECONDS`), or on this gRPC server before the step takes a
   worker thread (:class:`Arrivals`, asyncio: a waiting step holds no thread).
3. **Gaps refused.** A step whose predecessor is in flight nowhere, or still missing when the
   wait ends, is a :class:`~plateau.errors.StepConflict` (a gap); a step after the first of a
   run the store lost (:meth:`~plateau.store.base.Store.lost`) is
   :class:`~plateau.errors.RunNotFound` saying so (issue 22, item 14).
4. **A replayed index is answered from the record.** The same index with the same content
   (fingerprint) returns the stored verdict and counts nothing; other content is a
   ``StepConflict``; an ended run takes no new step.

:meth:`StepOrder.place` applies rules 3 and 4 to the run's record; :class:`StepOrder`, which
the engine owns, keeps rules 1 and 2 in the process; :class:`Arrivals`, which the gRPC
service owns (its conditions belong to the server's event loop), keeps rule 2 before a step
takes a worker thread. The store provides only the primitives for other processes: announce,
withdraw, read the announcements (:mod:`plateau.store.base`).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Any

from plateau.errors import RunNotFound, StepConflict

if TYPE_CHECKING:
    from plateau.record import RunRecord
    from plateau.store.base import RunKey, Store
    from plateau.types import Verdict

__all__ = ["ANNOUNCE_MARGIN_SECONDS", "REMOTE_POLL_SECONDS", "Arrival", "Arrivals", "Gate", "StepOrder", "Turn"]

#: Seconds between checks of a predecessor that another process is judging (shared stores).
REMOTE_POLL_SECONDS = 0.02
#: Seconds a step's announcement to the store outlives its ordering wait (embedding and the
#: store's change come after the wait); an announcement of a process that died expires then.
ANNOUNCE_MARGIN_SECONDS = 60.0


def _seen(record: RunRecord | None) -> int:
    return 0 if record is None else len(record.fingerprints)


class Gate:
    """One run's coordination in this process: its lock (a condition) and the indices of the
    steps being judged (index → how many calls carry it)."""

    __slots__ = ("cond", "inflight", "users")

    def __init__(self) -> None:
        self.cond = threading.Condition(threading.Lock())
        self.inflight: dict[int, int] = {}
        self.users = 0

    def predecessor_in_flight(self, seen: int, index: int) -> bool:
        """Whether a step between the record's end (``seen``) and ``index`` is being judged here."""
        return any(seen <= i < index for i in self.inflight)


class Turn:
    """Step ``index`` of run ``key`` while it is judged here (:meth:`StepOrder.turn`):
    announced in the run's gate and to the store. Its methods are called with :attr:`lock` held."""

    __slots__ = ("gate", "index", "key", "order")

    def __init__(self, order: StepOrder, key: RunKey, index: int, gate: Gate) -> None:
        self.order, self.key, self.index, self.gate = order, key, index, gate

    @property
    def lock(self) -> threading.Condition:
        """The run's lock (rule 1)."""
        return self.gate.cond

    def first_look(self) -> tuple[RunRecord | None, bool]:
        """The run's record, and whether the step may be ahead of it (a predecessor in flight
        here or in another process), for :meth:`StepOrder.place` before the step is embedded."""
        record = self.order.store.get(self.key)
        ahead_ok = self.gate.predecessor_in_flight(_seen(record), self.index)
        if not ahead_ok and self.index > _seen(record):
            record, ahead_ok = self.order.elsewhere(self.key, self.index)
        return record, ahead_ok

    def wait_for_predecessors(self, deadline: float) -> RunRecord | None:
        """Wait (until ``deadline``, ``time.monotonic`` clock) while a predecessor of the step
        is in flight here or in another process; returns the record read last (the step is its
        next one, a replay, or a gap for :meth:`StepOrder.place` to refuse)."""
        store, gate, index = self.order.store, self.gate, self.index
        while True:
            record = store.get(self.key)
            seen = _seen(record)
            remaining = deadline - time.monotonic()
            if index <= seen or remaining <= 0:
                return record
            if gate.predecessor_in_flight(seen, index):
                gate.cond.wait(remaining)
                continue
            record, elsewhere = self.order.elsewhere(self.key, index)
            if elsewhere:
                gate.cond.wait(min(remaining, REMOTE_POLL_SECONDS))
            elif record is None or len(record.fingerprints) == seen:
                return record


class StepOrder:
    """The ordering of each run's steps in one process (rules 1 to 4 of :mod:`plateau.ordering`).

    Parameters
    ----------
    store
        The run store (:class:`~plateau.store.base.Store`): records are read from it, and a
        shared store is told which steps this process judges.
    order_wait_seconds
        Longest wait of a step for its predecessors, in seconds (``Config.order_wait_seconds``).

    Gates are kept only while a call uses them, so memory stays bounded by the calls in progress.
    """

    def __init__(self, store: Store, order_wait_seconds: float) -> None:
        self.store = store
        self.order_wait_seconds = order_wait_seconds
        self._gates: dict[RunKey, Gate] = {}
        self._gates_lock = threading.Lock()

    def budget(self, timeout: float | None) -> float:
        """Seconds a step may wait for its predecessors: ``timeout`` (the caller's, >= 0) capped
        at ``order_wait_seconds``, which is the default."""
        return self.order_wait_seconds if timeout is None else max(0.0, min(timeout, self.order_wait_seconds))

    @contextmanager
    def gate(self, key: RunKey) -> Iterator[Gate]:
        """The run's gate, kept alive while anyone uses it (then dropped)."""
        with self._gates_lock:
            gate = self._gates.get(key)
            if gate is None:
                gate = self._gates[key] = Gate()
            gate.users += 1
        try:
            yield gate
        finally:
            with self._gates_lock:
                gate.users -= 1
                if gate.users == 0:
                    del self._gates[key]

    @contextmanager
    def locked(self, key: RunKey) -> Iterator[Gate]:
        """Hold the run's lock (rule 1); the gate tells whether steps are in flight."""
        with self.gate(key) as gate, gate.cond:
            yield gate

    @contextmanager
    def turn(self, key: RunKey, index: int, wait: float) -> Iterator[Turn]:
        """Announce step ``index`` of ``key`` as being judged, in the run's gate and to the store
        (for ``wait`` + :data:`ANNOUNCE_MARGIN_SECONDS`), until the block ends; then the steps
        waiting for it are woken."""
        with self.gate(key) as gate:
            with gate.cond:
                gate.inflight[index] = gate.inflight.get(index, 0) + 1
            token = None
            try:
                token = self.store.enter(key, index, wait + ANNOUNCE_MARGIN_SECONDS)
                yield Turn(self, key, index, gate)
            finally:
                self.store.leave(key, token)
                with gate.cond:
                    left = gate.inflight[index] - 1
                    if left:
                        gate.inflight[index] = left
                    else:
                        del gate.inflight[index]
                    gate.cond.notify_all()

    def elsewhere(self, key: RunKey, index: int) -> tuple[RunRecord | None, bool]:
        """The run's record, and whether another process sharing the store judges a step
        between the record's end and ``index``.

        The steps in flight are read *before* the record: a predecessor that lands between
        the two reads is then in the record, never missed by both (which would read as a gap).
        """
        busy = self.store.inflight(key)
        record = self.store.get(key)
        seen = _seen(record)
        return record, index > seen and any(seen <= i < index for i in busy)

    def place(
        self,
        record: RunRecord | None,
        run_id: str,
        index: int,
        fingerprint: str,
        *,
        ahead_ok: bool = False,
        key: RunKey | None = None,
    ) -> Verdict | None:
        """Rules 3 and 4 for step ``index`` of the run whose record is ``record``: the stored
        verdict of a replay, None when the step may be applied (the next index, or a later one
        with ``ahead_ok``: its predecessor is in flight), else raised.

        Raises
        ------
        StepConflict
            A replay with other content, a step of an ended run, or a gap.
        RunNotFound
            A gap in a run the store lost (asked only with ``key``; :meth:`Store.lost`).
        """
        seen = _seen(record)
        if record is not None and index < seen:
            if record.fingerprints[index] == fingerprint:
                return record.verdicts[index]
            raise StepConflict(f"step.index: step {index} of run {run_id!r} was already observed with different content")
        if record is not None and record.ended:
            raise StepConflict(f"run_id: run {run_id!r} has ended; start a new run id")
        if index > seen and not ahead_ok:
            lost = getattr(self.store, "lost", None) if record is None and key is not None else None
            why = lost(key) if lost is not None else None
            if why:
                raise RunNotFound(f"run_id: no run {run_id!r}: {why}; start it again from step 0")
            raise StepConflict(f"step.index: run {run_id!r} expects step {seen} next, got {index} (a gap)")
        return None


class _Flights:
    """Indices of one run's steps currently on the server."""

    __slots__ = ("cond", "indices")

    def __init__(self) -> None:
        self.cond = asyncio.Condition()
        self.indices: Counter[int] = Counter()

    def lower_in_flight(self, index: int) -> bool:
        return any(i < index for i in self.indices)


class Arrival:
    """Step ``index`` of a run while it is on the server (:meth:`Arrivals.arrive`)."""

    __slots__ = ("_flights", "index")

    def __init__(self, flights: _Flights, index: int) -> None:
        self._flights, self.index = flights, index

    async def after_predecessors(self, budget: float) -> None:
        """Wait (at most ``budget`` seconds, holding no thread) until no lower index of the run
        is on the server. At the end of the budget it returns all the same: the engine decides
        (still a gap, or the predecessor just landed)."""
        flights, index = self._flights, self.index
        if not flights.lower_in_flight(index) or budget <= 0:
            return
        try:
            async with flights.cond:
                await asyncio.wait_for(flights.cond.wait_for(lambda: not flights.lower_in_flight(index)), timeout=budget)
        except TimeoutError:
            pass


class Arrivals:
    """Rule 2 on a gRPC server before a step takes a worker thread: the steps of each run that
    are on the server, by index (asyncio; one per service, used on its event loop). Runs are
    kept only while a step of theirs is on the server."""

    def __init__(self) -> None:
        self._runs: dict[Any, _Flights] = {}

    def count(self, key: Any) -> int:
        """How many calls carrying a step of run ``key`` are on the server."""
        flights = self._runs.get(key)
        return 0 if flights is None else sum(flights.indices.values())

    @asynccontextmanager
    async def arrive(self, key: Any, index: int) -> AsyncIterator[Arrival]:
        """Count step ``index`` of run ``key`` as on the server until the block ends; then the
        steps waiting for it are woken."""
        flights = self._runs.get(key)
        if flights is None:
            flights = self._runs[key] = _Flights()
        flights.indices[index] += 1
        try:
            yield Arrival(flights, index)
        finally:
            flights.indices[index] -= 1
            if flights.indices[index] <= 0:
                del flights.indices[index]
            async with flights.cond:
                flights.cond.notify_all()
            if not flights.indices and self._runs.get(key) is flights:
                del self._runs[key]
