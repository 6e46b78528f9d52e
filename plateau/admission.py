"""Admission: the one path every call of the service takes, with each tenant's share.

Every Plateau call, ``Check`` and the run calls included, goes through :class:`Admission`, in
this order (issue 22, items 2, 3, 6 and 8):

1. **Authenticate from metadata** (the server does this before asking for the request body).
2. **Receive the body** in a *receive slot*: at most :attr:`Admission.receive` calls read their
   request at once (``byte_budget / max_message_bytes``, 2 by default: a body being received is
   held twice, gRPC's buffer and its Python bytes, so bodies being received hold at most
   ``2 * byte_budget`` bytes), each tenant with its share; calls beyond it
   wait (holding no body: gRPC reads a stream's message only when asked) and a body that does not
   arrive within ``config.request_read_seconds`` closes the call (``DEADLINE_EXCEEDED``).
3. **Hold the request's bytes** (:meth:`Admission.hold`): every request being worked on or waiting
   counts its size, at most ``2 * byte_budget`` in all and ``max(max_message_bytes,
   2 * byte_budget / tenants)`` for one tenant; beyond that the call is ``RESOURCE_EXHAUSTED`` at
   once, before its body is parsed.
4. **Work in a slot** (:meth:`Admission.run`): at most ``config.max_concurrent_rpcs`` calls are
   worked on at once, holding at most ``byte_budget`` request bytes (``2 * max_message_bytes``,
   :data:`WORK_MESSAGES`; one call always may);
   parsing and engine work both run in a worker thread inside the slot. Up to four times as
   many calls wait their turn (four times its share for one tenant), in a fair order: a freed
   slot goes to the waiting tenant that holds the fewest slots. A call whose caller goes away
   (deadline, cancellation) is dropped if its work has not started, and otherwise keeps its
   slot until the work really ends: work is never both released and running.

Shares (:class:`Shares`) are counters, never a scan: with ``n`` known tenants (the token table;
one tenant, ``""``, without auth) each tenant is guaranteed ``capacity // n`` units of a
resource, whatever the others do, and may borrow units nobody has reserved. The same rule
bounds open streams (``config.max_concurrent_streams``).
"""

from __future__ import annotations

import asyncio
import itertools
import math
import threading
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Collection
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from plateau.cancel import Dropped, cancellable
from plateau.config import Config
from plateau.errors import LimitExceeded

__all__ = ["PARSED_COPIES", "WORK_MESSAGES", "Admission", "Dropped", "Expired", "Shares"]

T = TypeVar("T")

#: The request bytes worked on at once, in ``max_message_bytes``: two of the largest requests.
#: The principle (issue 22, item 8): all the memory requests may take at once is a fixed multiple
#: of ``max_message_bytes`` stated beforehand (:attr:`Admission.request_memory_bound`: 18 x, 288 MiB
#: at the default 16 MiB; what each factor pays for is stated there), and as few of the largest requests as still lets a large call run
#: beside another tenant's; many small calls still run at once (``max_concurrent_rpcs`` bounds
#: their number, this their bytes). It was 4 (with 12 held and 8 received): 40 x
#: ``max_message_bytes`` with the parsed copies, which is what 40 calls of 6 MB measured (+322 MiB
#: at ``max_message_bytes`` 8 MiB, ``scripts/attack.py`` ``request_memory_unbounded``).
WORK_MESSAGES = 2
#: Copies of a request worked on that parsing and judging make beyond the one counted as held, in
#: the request's size, at their peak: turning it into a step (``convert.step_from_pb``, the
#: protobuf message aliasing the held bytes) reads the args once (1), decodes them (1), parses
#: them (1) and writes their canonical text (1); judging the step makes fewer (its fingerprint
#: and the call's canonical form: ~2). Measured with tracemalloc on a 6 MB request whose args
#: hold one long string: a peak of 5 x its size with the held bytes, 28.6 MiB.
PARSED_COPIES = 5


class Expired(Exception):
    """The call's deadline (or the body's read time) passed while it waited; ``DEADLINE_EXCEEDED``."""


def _seen(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


class Shares:
    """A counted resource shared by tenants, each guaranteed a share.

    Parameters
    ----------
    capacity
        Units in all (int >= 1): slots, streams.
    tenants
        The known tenants; each is guaranteed ``capacity // len(tenants)`` units (0 when there are
        more tenants than units: then they only borrow). Unknown tenants have no guarantee.

    The invariant ``total + reserved <= capacity`` holds, where ``reserved`` is the sum over
    known tenants of the part of their share they do not use: a tenant within its share always
    fits; beyond it, it borrows only units nobody has reserved, and never holds more than
    :attr:`cap`. O(1) per call.
    """

    def __init__(self, capacity: int, tenants: Collection[str]) -> None:
        self.capacity = capacity
        self.known = frozenset(tenants) or frozenset({""})
        self.share = capacity // len(self.known)
        #: Most units one tenant may hold when there are several: its share, or half of all
        #: (rounded up) when that is more, so that no one tenant ever holds every unit.
        self.cap = capacity if len(self.known) == 1 else max(self.share, (capacity + 1) // 2)
        self.total = 0
        self.reserved = self.share * len(self.known)
        self.used: Counter[str] = Counter()

    def _within(self, tenant: str, units: int) -> int:
        if tenant not in self.known:
            return 0
        return min(units, max(0, self.share - self.used[tenant]))

    def fits(self, tenant: str, units: int = 1) -> bool:
        """True when ``tenant`` may take ``units`` more now."""
        if self.used[tenant] + units > self.cap:
            return False
        return self.total + units + self.reserved - self._within(tenant, units) <= self.capacity

    def take(self, tenant: str, units: int = 1) -> None:
        """Take ``units`` for ``tenant`` (call :meth:`fits` first)."""
        self.reserved -= self._within(tenant, units)
        self.used[tenant] += units
        self.total += units

    def give(self, tenant: str, units: int = 1) -> None:
        """Give back ``units`` taken by ``tenant``."""
        before = self.used[tenant]
        after = before - units
        if tenant in self.known:
            self.reserved += max(0, self.share - after) - max(0, self.share - before)
        if after > 0:
            self.used[tenant] = after
        else:
            del self.used[tenant]
        self.total -= units


@dataclass(eq=False)
class _Waiter:
    tenant: str
    size: int
    seq: int
    future: asyncio.Future[None] = field(repr=False)


class _Gate:
    """Slots with tenants' shares, an optional bound on the bytes they hold, and a fair queue."""

    def __init__(self, what: str, capacity: int, tenants: Collection[str], *, queue: int, byte_budget: int | None = None,
                 reason: str = "", refused: Counter[tuple[str, str]] | None = None) -> None:
        self.what = what
        self.reason = reason or what
        self.refused: Counter[tuple[str, str]] = refused if refused is not None else Counter()
        self.slots = Shares(capacity, tenants)
        self.byte_budget = byte_budget
        self.active_bytes = 0
        self.queue = queue
        self.tenant_queue = 4 * max(1, self.slots.share) if len(self.slots.known) > 1 else queue
        self.waiting = 0
        self.waiting_bytes = 0
        self.waiting_by: Counter[str] = Counter()
        self._queues: dict[str, deque[_Waiter]] = {}
        self._seq = itertools.count()

    @property
    def active(self) -> int:
        return self.slots.total

    def _fits(self, tenant: str, size: int) -> bool:
        if not self.slots.fits(tenant):
            return False
        return self.byte_budget is None or self.active_bytes == 0 or self.active_bytes + size <= self.byte_budget

    def _take(self, tenant: str, size: int) -> None:
        self.slots.take(tenant)
        self.active_bytes += size

    def release(self, tenant: str, size: int) -> None:
        self.slots.give(tenant)
        self.active_bytes -= size
        self._dispatch()

    def _dispatch(self) -> None:
        """Grant freed slots: first to the waiting tenant holding the fewest, within a tenant to
        its earliest waiter that fits (a small call is not held up by a large one that does not)."""
        while self._queues:
            order = sorted(self._queues, key=lambda t: (self.slots.used[t], self._queues[t][0].seq))
            granted = next((w for t in order for w in self._queues[t] if self._fits(w.tenant, w.size)), None)
            if granted is None:
                return
            self._unqueue(granted)
            self._take(granted.tenant, granted.size)
            granted.future.set_result(None)

    def _unqueue(self, w: _Waiter) -> None:
        q = self._queues[w.tenant]
        q.remove(w) if q[0] is not w else q.popleft()
        if not q:
            del self._queues[w.tenant]
        self.waiting -= 1
        self.waiting_bytes -= w.size
        self.waiting_by[w.tenant] -= 1
        if self.waiting_by[w.tenant] <= 0:
            del self.waiting_by[w.tenant]

    def must_refuse(self, tenant: str, size: int) -> bool:
        """True when a call of ``size`` bytes can neither start now nor wait."""
        if self._fits(tenant, size):
            return False
        if self.waiting >= self.queue or self.waiting_by[tenant] >= self.tenant_queue:
            return True
        return self.byte_budget is not None and self.waiting > 0 and self.waiting_bytes + size > self.byte_budget

    def full(self, tenant: str) -> LimitExceeded:
        """The refusal of a call of ``tenant`` that can neither start nor wait, counted in
        :attr:`refused` by (reason, tenant): ``<reason>_share`` when the tenant's own queue is
        full, ``<reason>`` when the server's is."""
        if self.waiting_by[tenant] >= self.tenant_queue and self.waiting < self.queue:
            self.refused[(f"{self.reason}_share", tenant)] += 1
            return LimitExceeded(
                f"{self.what}: this tenant has {self.slots.used[tenant]} calls worked on and {self.waiting_by[tenant]} waiting, "
                f"its share of the server; retry"
            )
        self.refused[(self.reason, tenant)] += 1
        return LimitExceeded(f"{self.what}: {self.active} calls are worked on and {self.waiting} wait, the server's limit; retry")

    async def acquire(self, tenant: str, size: int, timeout: float) -> None:
        """Take a slot, waiting at most ``timeout`` seconds (``Expired``); ``LimitExceeded`` when the queue is full.
        A call whose deadline has already passed (``timeout <= 0``: a handler started late on a
        busy server) is ``Expired`` at once, even when a slot is free: its caller is gone."""
        if timeout <= 0:
            raise Expired(f"{self.what}: the call's deadline had passed before its turn")
        if self._fits(tenant, size):
            self._take(tenant, size)
            return
        if self.must_refuse(tenant, size):
            raise self.full(tenant)
        waiter = _Waiter(tenant, size, next(self._seq), asyncio.get_running_loop().create_future())
        self._queues.setdefault(tenant, deque()).append(waiter)
        self.waiting += 1
        self.waiting_bytes += size
        self.waiting_by[tenant] += 1
        try:
            await asyncio.wait_for(asyncio.shield(waiter.future), None if math.isinf(timeout) else max(0.0, timeout))
        except (TimeoutError, asyncio.CancelledError) as exc:
            if waiter.future.done():  # granted just as the wait ended: give the slot back
                self.release(tenant, size)
            else:
                waiter.future.cancel()
                self._unqueue(waiter)
                self._dispatch()
            if isinstance(exc, TimeoutError):
                raise Expired(f"{self.what}: the call's deadline expired while it waited for its turn") from None
            raise


class Admission:
    """Every call's way in: receive slots, request bytes, work slots and streams, with tenants' shares.

    Parameters
    ----------
    config
        The service limits (:class:`~plateau.config.Config`): ``max_concurrent_rpcs``,
        ``max_message_bytes``, ``max_concurrent_streams``, ``request_read_seconds``.
    tenants
        The known tenants (each guaranteed its share); empty for an open server (one tenant ``""``).

    All methods run on the event loop; counters only (O(tenants waiting) per freed slot).
    """

    def __init__(self, config: Config, tenants: Collection[str] = ()) -> None:
        self.config = config
        known = frozenset(tenants) or frozenset({""})
        n = len(known)
        m = config.max_message_bytes
        #: Request bytes worked on at once (one call always may): two of the largest requests.
        self.byte_budget = WORK_MESSAGES * m
        #: Request bytes held by the calls past their receive (worked on, waiting for a slot, or for
        #: their predecessor step), in all and per tenant: those worked on and as many again waiting.
        self.held_budget = 2 * self.byte_budget
        self.tenant_held_budget = self.held_budget if n == 1 else max(m, self.held_budget // n)
        self.held = 0
        self.held_by: Counter[str] = Counter()
        slots = config.max_concurrent_rpcs
        #: Calls refused (``RESOURCE_EXHAUSTED``) by (reason, tenant), counters for the metrics
        #: (``plateau_refused_total``): ``work_slots`` / ``receive_slots`` (the server's queue of
        #: calls waiting for a work or receive slot is full), ``request_bytes`` (the server's
        #: held request bytes), ``streams`` (the server's open streams), each with ``_share`` when
        #: it is the tenant's own share that is used up.
        self.refused: Counter[tuple[str, str]] = Counter()
        self.work = _Gate("calls", slots, known, queue=4 * slots, byte_budget=self.byte_budget, reason="work_slots",
                          refused=self.refused)
        self.receive = _Gate("requests", max(1, self.byte_budget // m), known, queue=4 * slots, reason="receive_slots",
                             refused=self.refused)
        #: Raw request bytes the server holds at once, at most: bodies being received (twice each
        #: while gRPC hands a message over: its buffer and the Python bytes, so 2 x
        #: ``max_message_bytes`` per receive slot) and requests held (:attr:`held_budget`, one copy
        #: each: the raw bytes until parsed, then the converted step, the bytes dropped); 8 x
        #: ``max_message_bytes`` by default (128 MiB at 16 MiB).
        self.request_bytes_bound = 2 * self.receive.slots.capacity * m + self.held_budget
        #: Memory all requests may take at once: :attr:`request_bytes_bound` plus the copies that
        #: parsing and judging make of the requests worked on (:data:`PARSED_COPIES` x
        #: :attr:`byte_budget`). By default, in ``max_message_bytes``: 4 being received (2 slots x
        #: 2 copies) + 4 held + 10 for the copies of the 2 worked on = 18 x (288 MiB at 16 MiB,
        #: 144 MiB at 8 MiB). Receive slots were 4 (counted once each): bodies being received are
        #: twice in memory, which the count left out (40 calls of 6 MB peaked at +161-186 MiB
        #: against 144).
        self.request_memory_bound = self.request_bytes_bound + PARSED_COPIES * self.byte_budget
        self.streams = Shares(config.max_concurrent_streams, known)

    # ------------------------------------------------------------------ receive
    async def read(self, tenant: str, read: Callable[[], Awaitable[T]], deadline_left: float) -> T:
        """Receive a request body with ``read`` inside a receive slot.

        Raises ``LimitExceeded`` when no slot is free and the queue is full, ``Expired`` when the
        deadline passes while waiting or the body takes longer than ``config.request_read_seconds``.
        """
        await self.receive.acquire(tenant, 0, deadline_left)
        try:
            limit = min(deadline_left, self.config.request_read_seconds)
            try:
                return await asyncio.wait_for(read(), timeout=limit)
            except TimeoutError:
                raise Expired(
                    f"request: its body did not arrive within {limit:g} s; closed (send whole requests)"
                ) from None
        finally:
            self.receive.release(tenant, 0)

    # ------------------------------------------------------------------ bytes
    def hold(self, tenant: str, size: int) -> None:
        """Count ``size`` request bytes as held by ``tenant`` until :meth:`unhold`.

        Raises ``LimitExceeded`` (the call is refused before its body is parsed) when the server's
        or the tenant's budget would be exceeded; a tenant holding nothing may always hold one request.
        """
        if self.tenant_held_budget < self.held_budget and self.held_by[tenant] and self.held_by[tenant] + size > self.tenant_held_budget:
            self.refused[("request_bytes_share", tenant)] += 1
            raise LimitExceeded(
                f"requests: this tenant's requests hold {self.held_by[tenant]} bytes, its share "
                f"({self.tenant_held_budget} bytes) of the server's; retry"
            )
        if self.held and self.held + size > self.held_budget:
            self.refused[("request_bytes", tenant)] += 1
            raise LimitExceeded(f"requests: {self.held} bytes of requests are held, the server's limit; retry")
        self.held += size
        self.held_by[tenant] += size

    def unhold(self, tenant: str, size: int) -> None:
        """Give back bytes counted by :meth:`hold`."""
        self.held -= size
        self.held_by[tenant] -= size
        if self.held_by[tenant] <= 0:
            del self.held_by[tenant]

    # ------------------------------------------------------------------ work
    async def run(
        self, tenant: str, size: int, deadline_left: float, executor: Executor, fn: Callable[[threading.Event], T]
    ) -> T:
        """Run ``fn(stop)`` in ``executor`` inside a work slot; ``size`` is the request's bytes.

        ``stop`` is set when the caller goes away; ``fn`` checks it between its stages (and raises
        :class:`Dropped`), and so do the checkpoints inside it (:func:`plateau.cancel.checkpoint`,
        at the stage boundaries of parsing and judging). Work that has not started when the
        caller goes away never starts; work that has stops at its next checkpoint and keeps the
        slot until it really ends.

        Raises ``LimitExceeded`` (no room to wait), ``Expired`` (deadline passed while waiting),
        and whatever ``fn`` raises.
        """
        await self.work.acquire(tenant, size, deadline_left)
        loop = asyncio.get_running_loop()
        stop = threading.Event()

        def guarded() -> T:
            if stop.is_set():
                raise Dropped("the caller went away before the work started")
            with cancellable(stop):  # the work's own checkpoints stop it at a stage boundary
                return fn(stop)

        try:
            job = executor.submit(guarded)
        except BaseException:
            self.work.release(tenant, size)
            raise
        deferred = False
        inner = asyncio.wrap_future(job)
        inner.add_done_callback(_seen)  # the outcome of work whose caller went away is never asked for
        try:
            return await asyncio.shield(inner)
        except asyncio.CancelledError:
            stop.set()
            if not job.cancel():  # running: the slot is released when the work really ends
                job.add_done_callback(lambda _: loop.call_soon_threadsafe(self.work.release, tenant, size))
                deferred = True
            raise
        finally:
            if not deferred:
                self.work.release(tenant, size)

    # ------------------------------------------------------------------ streams
    def open_stream(self, tenant: str) -> None:
        """Count an open stream of ``tenant``; ``LimitExceeded`` beyond the server's limit or its share."""
        if not self.streams.fits(tenant):
            if self.streams.total >= self.streams.capacity:
                self.refused[("streams", tenant)] += 1
                raise LimitExceeded(f"streams: {self.streams.capacity} streams are open, the server's limit; retry later")
            self.refused[("streams_share", tenant)] += 1
            raise LimitExceeded(
                f"streams: this tenant holds {self.streams.used[tenant]} open streams, its share "
                f"({self.streams.share} of {self.streams.capacity}) with the rest kept for other tenants; retry later"
            )
        self.streams.take(tenant)

    def close_stream(self, tenant: str) -> None:
        """Count a stream of ``tenant`` as closed."""
        self.streams.give(tenant)
