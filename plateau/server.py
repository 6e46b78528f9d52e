"""The gRPC service ``plateau.v1.Plateau`` on ``grpc.aio``, with health checking and reflection.

The engine is synchronous and CPU-bound (the embedding model); each request runs it in a
thread pool so that concurrent runs share the embedder's micro-batches while the event loop
keeps serving. Nothing that grows with a request's size runs on the event loop: parsing a
step (its JSON arguments) and judging it run in the engine's pool, guarding a stream chunk in a
small pool of its own (``guard_workers`` threads), so one large request never delays health
checks or another tenant's calls by more than a thread switch.

Every call, ``Check`` and the run calls included, takes one admission path
(:mod:`plateau.admission`): the unary methods are served by streaming handlers (the bytes on
the wire are the same), so that the caller is authenticated from its metadata before its body
is read, the body is read in a receive slot within ``config.request_read_seconds``, its bytes
are counted (per tenant and in all) before it is parsed, and parsing and engine work run in a
work slot (at most ``config.max_concurrent_rpcs``, holding at most ``4 * max_message_bytes``
of requests; four times as many wait their turn, a call beyond those is
``RESOURCE_EXHAUSTED``). Each tenant of the token table is guaranteed its share of every
slot. A call whose caller goes away keeps its work slot until its work really ends.

What gRPC allows before the body: grpc.aio offers no hook between the headers and the body of
a unary call, hence the streaming handlers; ``grpc.max_receive_message_length`` bounds one
message; the HTTP/2 transport still buffers up to a stream's flow-control window of a body
the server has not asked for yet (64 KiB at first, more once BDP probing widens it), and
keepalive pings close connections of peers that no longer answer. gRPC has no per-tenant or
per-connection byte quota of its own.

Domain errors map to status codes through :data:`STATUS_CODES` (one table, documented in
:mod:`plateau.errors`); a request that cannot even be parsed (for instance a string field
holding invalid UTF-8) is ``INVALID_ARGUMENT``, never ``INTERNAL``.

Reliability and security (all optional, see :func:`start_server`):

- **Order across connections.** Steps of one run that arrive concurrently (several
  connections, retries) are applied in index order: a step whose predecessor is in flight on
  the server waits for it (asynchronously, holding no worker thread) within its deadline and
  ``config.order_wait_seconds``; a step whose predecessor is not in flight is a gap
  (``FAILED_PRECONDITION``). Duplicates return the stored verdict and count once. The rules
  and where each is kept: :mod:`plateau.ordering`.
- **Auth.** With a :class:`~plateau.auth.TokenTable`, every Plateau call needs a bearer token
  (``UNAUTHENTICATED`` otherwise) and runs are namespaced by the token's tenant.
- **TLS / mutual TLS** with :class:`~plateau.auth.ServerTls`.
- **Limits** from :class:`~plateau.config.Config`: message size, chunk size, concurrent
  streams and calls, stream idle time (reading *and* writing: a client that stops reading its
  answers loses its stream like one that stops sending), steps per run, runs per tenant; an
  expired deadline is ``DEADLINE_EXCEEDED``.
- **Store health**: a periodic probe of the run store (``store.probe()``, every
  ``config.health_probe_seconds`` and after each store error) turns health ``NOT_SERVING``,
  with the reason logged, until a probe succeeds again; a server whose store fails its probe
  at start refuses to serve.
- **Retention**: a background sweep deletes idle and ended runs (``Engine.expire``).
- **Metrics** (:class:`~plateau.metrics.Metrics`) and a log record per call (``plateau.server``
  logger: DEBUG for successes, INFO for refused calls, with ``rpc``/``tenant``/``run_id``/
  ``step``/``code``/``ms`` fields for the JSON formatter of :mod:`plateau.logs`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import math
import re
import signal
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2
from grpc_status import rpc_status

from plateau import convert
from plateau.admission import Admission, Dropped, Expired
from plateau.auth import ServerTls, TokenTable
from plateau.engine import Engine
from plateau.errors import ERROR_DOMAIN, InvalidArgument, PlateauError, StoreUnavailable
from plateau.integrations import otel_server_interceptors
from plateau.metrics import Metrics
from plateau.ordering import Arrivals
from plateau.v1 import plateau_pb2 as pb

__all__ = ["STATUS_CODES", "PlateauService", "RunningServer", "StoreOutOfService", "rich_status", "serve", "start_server"]

log = logging.getLogger("plateau.server")

SERVICE_NAME = "plateau.v1.Plateau"
#: The reflection service of gRPC's stable API; its messages are those of ``v1alpha``, field
#: for field, so the ``v1alpha`` servicer answers both.
REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"

#: Domain error code (``PlateauError.code``) → gRPC status code.
STATUS_CODES: dict[str, grpc.StatusCode] = {
    "INVALID_ARGUMENT": grpc.StatusCode.INVALID_ARGUMENT,
    "NOT_FOUND": grpc.StatusCode.NOT_FOUND,
    "FAILED_PRECONDITION": grpc.StatusCode.FAILED_PRECONDITION,
    "RESOURCE_EXHAUSTED": grpc.StatusCode.RESOURCE_EXHAUSTED,
    "UNAVAILABLE": grpc.StatusCode.UNAVAILABLE,
    "UNAUTHENTICATED": grpc.StatusCode.UNAUTHENTICATED,
    "DEADLINE_EXCEEDED": grpc.StatusCode.DEADLINE_EXCEEDED,
}

T = TypeVar("T")


@dataclass(frozen=True)
class _Malformed:
    """Stands in for a request whose bytes did not parse."""

    error: str


@dataclass(frozen=True)
class _Parsed:
    """An ``ObserveRequest`` converted: what its call keeps while it waits and is judged (the
    protobuf message, a second copy of every field, is not kept)."""

    run_id: str
    step: Any  # plateau.types.Step
    context: str | None
    policy: Any  # dict[str, ToolPolicy] | None

    @classmethod
    def of(cls, request: Any, max_args_bytes: int) -> _Parsed:
        """Convert ``request``; ``InvalidArgument`` naming the field."""
        if not request.HasField("step"):
            raise InvalidArgument("step", "is required")
        step = convert.step_from_pb(request.step, max_args_bytes=max_args_bytes)
        policy = convert.tool_policy_from_pb(request.tool_policy) if request.tool_policy else None
        return cls(request.run_id, step, request.context or None, policy)


def _lenient(parse: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    def deserialize(data: bytes) -> Any:
        try:
            return parse(data)
        except (DecodeError, UnicodeDecodeError, ValueError) as exc:
            return _Malformed(str(exc) or type(exc).__name__)

    return deserialize


_PARSE_OBSERVE = _lenient(pb.ObserveRequest.FromString)
_PARSE_CHECK = _lenient(pb.CheckRequest.FromString)
_PARSE_GET = _lenient(pb.GetRunRequest.FromString)
_PARSE_RESET = _lenient(pb.ResetRunRequest.FromString)
_PARSE_END = _lenient(pb.EndRunRequest.FromString)
_PARSE_DELETE = _lenient(pb.DeleteRunRequest.FromString)
_PARSE_GUARD = _lenient(pb.GuardRequest.FromString)
_PARSE_LIST = _lenient(pb.ListRunsRequest.FromString)
_PARSE_HISTORY = _lenient(pb.GetRunHistoryRequest.FromString)


def _left(deadline: float) -> float:
    """Seconds left until ``deadline`` (``time.monotonic`` clock; ``inf`` stays ``inf``)."""
    return deadline if math.isinf(deadline) else deadline - time.monotonic()


def rich_status(code: grpc.StatusCode, message: str, reason: str, field: str | None = None) -> grpc.Status:
    """The status sent for an error: code, message, and rich details (``google.rpc.Status``).

    The details hold an ``ErrorInfo`` (``domain`` :data:`plateau.errors.ERROR_DOMAIN`,
    ``reason`` the error's :attr:`~plateau.errors.PlateauError.reason`) and, when ``field`` is
    given, a ``BadRequest`` naming the field, so that clients rebuild the error without
    parsing the message.
    """
    details = []
    info = any_pb2.Any()
    info.Pack(error_details_pb2.ErrorInfo(reason=reason, domain=ERROR_DOMAIN))
    details.append(info)
    if field:
        bad = any_pb2.Any()
        violation = error_details_pb2.BadRequest.FieldViolation(field=field, description=message)
        bad.Pack(error_details_pb2.BadRequest(field_violations=[violation]))
        details.append(bad)
    return rpc_status.to_status(status_pb2.Status(code=code.value[0], message=message, details=details))


def _seen(task: asyncio.Future[Any]) -> None:
    """Mark a finished read's exception as retrieved (it is read again where it matters)."""
    if not task.cancelled():
        task.exception()


class _Aborted(Exception):
    """A call refused by the service itself (not a domain error): code and message."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class PlateauService:
    """Implements ``plateau.v1.Plateau`` over an :class:`~plateau.engine.Engine`.

    Every call goes through one :class:`~plateau.admission.Admission` (authenticate from
    metadata, receive the body in a receive slot, hold its bytes, parse and work in a work slot),
    with each tenant's share of streams, receive and work slots and request bytes.

    Parameters
    ----------
    engine
        The engine that judges steps; its ``config`` supplies the service limits.
    workers
        Threads running engine calls (int >= 1); concurrent requests beyond it queue.
    auth
        Known bearer tokens; None leaves the service open (every caller is tenant ``""``).
    metrics
        Where to count requests, latencies and verdicts; None for no metrics.
    guard_workers
        Threads guarding ``GuardStream`` chunks (int >= 1), apart from the engine's so that
        guard streams never hold up steps; chunks beyond it queue.
    on_store_error
        Called (on the event loop) with each ``StoreUnavailable`` a call ends with;
        :func:`start_server` probes the store with it and turns health ``NOT_SERVING`` while
        the store cannot write.
    """

    def __init__(
        self,
        engine: Engine,
        workers: int = 32,
        *,
        auth: TokenTable | None = None,
        metrics: Metrics | None = None,
        guard_workers: int = 2,
        on_store_error: Callable[[StoreUnavailable], None] | None = None,
    ) -> None:
        self.engine = engine
        self.config = engine.config
        self.auth = auth
        self.metrics = metrics
        self.on_store_error = on_store_error
        #: The store's health watch (set by :func:`start_server`): it words a store error's message.
        self.store_health: _StoreHealth | None = None
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="plateau-rpc")
        self._guard_pool = ThreadPoolExecutor(max_workers=guard_workers, thread_name_prefix="plateau-guard")
        #: The steps of each run on this server, waited for in index order before they take a
        #: worker thread (:mod:`plateau.ordering`; the engine keeps the order in the pool).
        self.arrivals = Arrivals()
        self.admission = Admission(self.config, auth.tenants if auth is not None else ())
        self._closing: asyncio.Event | None = None

    @property
    def byte_budget(self) -> int:
        """Request bytes worked on at once (a call always starts when nothing else runs)."""
        return self.admission.byte_budget

    async def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, lambda: fn(*args, **kwargs))

    async def _admitted(self, tenant: str, size: int, deadline: float, fn: Callable[[threading.Event], T]) -> T:
        """Run ``fn(stop)`` in the pool in a work slot of ``tenant`` (see :meth:`Admission.run`).

        The store's breaker (:class:`_StoreHealth`) comes first: while the store is out of
        service (health ``NOT_SERVING``) the call is refused at once with :class:`StoreOutOfService`
        and never waits on the store; a call already waiting when the breaker opens is answered
        the same way at once (its work, if started, keeps its slot until it really ends).
        """
        health = self.store_health
        if health is None:
            return await self.admission.run(tenant, size, _left(deadline), self._pool, fn)
        health.refuse_if_open(tenant)
        call = asyncio.ensure_future(self.admission.run(tenant, size, _left(deadline), self._pool, fn))
        health.calls.add(call)
        try:
            return await call
        except asyncio.CancelledError:
            if call in health.tripped:  # cancelled by the breaker opening, not by the caller
                raise StoreOutOfService(health.cause, in_flight=True) from None
            raise
        finally:
            health.calls.discard(call)
            health.tripped.discard(call)
            if not call.done():
                call.cancel()

    async def _body(self, tenant: str, context: grpc.aio.ServicerContext, deadline: float) -> bytes:
        """The request's bytes, received in a receive slot (the body is read only now, after auth).

        Read with ``context.read()``, not by iterating the handler's request iterator: gRPC's
        iterator is an async generator that keeps the last message it yielded until asked for
        the next, so the body would stay in memory for the whole call (issue 22, item 8)."""

        async def first() -> bytes:
            data = await context.read()
            if data is grpc.aio.EOF:
                raise InvalidArgument("request", "is missing (the call ended before its message)")
            return data  # type: ignore[no-any-return]

        return await self.admission.read(tenant, first, _left(deadline))

    # ------------------------------------------------------------------ call plumbing
    def _tenant(self, context: grpc.aio.ServicerContext) -> str:
        if self.auth is None:
            return ""
        return self.auth.authenticate(context.invocation_metadata())

    @staticmethod
    def _deadline_left(context: grpc.aio.ServicerContext) -> float:
        left = context.time_remaining()
        if left is None:
            return math.inf
        if left <= 0:
            raise _Aborted(grpc.StatusCode.DEADLINE_EXCEEDED, "the call's deadline expired before it was handled")
        return float(left)

    @classmethod
    def _deadline(cls, context: grpc.aio.ServicerContext) -> float:
        """The call's deadline on the ``time.monotonic`` clock (``inf`` without one)."""
        return time.monotonic() + cls._deadline_left(context)

    def _record(self, method: str, code: grpc.StatusCode, started: float, fields: dict[str, Any]) -> None:
        elapsed = time.perf_counter() - started
        if self.metrics is not None:
            self.metrics.requests.labels(method, code.name).inc()
            self.metrics.latency.labels(method).observe(elapsed)
        # a client closing its stream (CANCELLED) is normal, like OK: DEBUG, not INFO
        level = logging.DEBUG if code in (grpc.StatusCode.OK, grpc.StatusCode.CANCELLED) else logging.INFO
        if log.isEnabledFor(level):
            log.log(level, "%s %s", method, code.name, extra={"rpc": method, "code": code.name, "ms": round(elapsed * 1000, 3), **fields})

    async def _call(self, method: str, context: grpc.aio.ServicerContext, work: Callable[[dict[str, Any]], Any]) -> Any:
        """Run ``work`` (a coroutine function), mapping every failure to a status code."""
        started = time.perf_counter()
        fields: dict[str, Any] = {}
        code = grpc.StatusCode.OK
        message = ""
        reason, field = "INTERNAL", None
        try:
            return await work(fields)
        except PlateauError as exc:
            code, message = STATUS_CODES.get(exc.code, grpc.StatusCode.UNKNOWN), exc.message
            reason, field = exc.reason, getattr(exc, "field", None)
            if isinstance(exc, StoreOutOfService):
                pass  # worded already; the breaker's own probe decides when it closes
            elif isinstance(exc, StoreUnavailable):
                if self.store_health is not None:
                    message = await self.store_health.message(exc)
                if self.on_store_error is not None:
                    self.on_store_error(exc)
        except _Aborted as exc:
            code, message, reason = exc.code, exc.message, exc.code.name
        except Expired as exc:
            code, message, reason = grpc.StatusCode.DEADLINE_EXCEEDED, str(exc), "DEADLINE_EXCEEDED"
        except asyncio.CancelledError:
            code = grpc.StatusCode.CANCELLED
            raise
        except Exception as exc:  # a bug of ours, never the client's input
            log.exception("%s failed", method)
            code, message = grpc.StatusCode.INTERNAL, f"internal error ({type(exc).__name__}); please report it"
        finally:
            self._record(method, code, started, fields)
        status = rich_status(code, message, reason, field)
        await context.abort(status.code, status.details, status.trailing_metadata)
        raise AssertionError("unreachable: abort raises")

    @staticmethod
    def _check(request: Any) -> None:
        if isinstance(request, _Malformed):
            raise InvalidArgument("request", f"cannot be parsed ({request.error}); string fields must be valid UTF-8")

    # ------------------------------------------------------------------ observe
    async def _observe_one(self, box: list[bytes], tenant: str, deadline: float, fields: dict[str, Any]) -> pb.Verdict:
        """One ``ObserveRequest`` (its bytes, the one item of ``box``, taken out so that nothing
        else keeps them): hold them, parse and convert in a work slot, wait for the step's
        predecessor (holding no slot), judge in a work slot.

        What a call keeps while it waits or is judged is the converted step alone: the raw
        bytes and the protobuf message are dropped once converted (issue 22, item 8)."""
        size = len(box[0])
        self.admission.hold(tenant, size)
        try:
            def parse(stop: threading.Event) -> _Parsed:
                request = _PARSE_OBSERVE(box.pop())  # the raw bytes go with this frame
                self._check(request)
                return _Parsed.of(request, self.config.max_field_chars)

            parsed = await self._admitted(tenant, size, deadline, parse)
            fields.update(tenant=tenant, run_id=parsed.run_id[:256], step=parsed.step.index)
            return await self._observe_parsed(parsed, tenant, size, deadline)
        finally:
            box.clear()
            self.admission.unhold(tenant, size)

    async def _observe_parsed(self, request: _Parsed, tenant: str, size: int, deadline: float) -> pb.Verdict:
        key = (tenant, request.run_id)
        budget = min(_left(deadline), self.config.order_wait_seconds)
        order_deadline = time.monotonic() + budget

        def observe(stop: threading.Event) -> pb.Verdict:
            if stop.is_set():
                raise Dropped("the caller went away")
            left = max(0.0, order_deadline - time.monotonic())
            verdict = self.engine.observe(request.run_id, request.step, request.context, tenant=tenant, timeout=left,
                                          tool_policy=request.policy)
            return convert.verdict_to_pb(verdict)

        async with self.arrivals.arrive(key, request.step.index) as arrival:
            await arrival.after_predecessors(budget)
            return await self._admitted(tenant, size, deadline, observe)

    async def Observe(self, requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> pb.Verdict:
        # Registered as a streaming handler (the wire is the same for a unary call): the caller is
        # authenticated from its metadata before its body is read, the body is read in a receive
        # slot, and parsing runs in a work slot in the pool.
        async def work(fields: dict[str, Any]) -> pb.Verdict:
            tenant = self._tenant(context)
            fields["tenant"] = tenant
            deadline = self._deadline(context)
            # the body goes straight into the box _observe_one empties: no frame here keeps it
            return await self._observe_one([await self._body(tenant, context, deadline)], tenant, deadline, fields)

        return await self._call("Observe", context, work)  # type: ignore[no-any-return]

    async def _unary(self, name: str, requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext,
                     parse: Callable[[bytes], Any], answer: Callable[[Any, str, dict[str, Any], threading.Event], Any]) -> Any:
        """Every unary call's one admission path (issue 22): the caller authenticated from its
        metadata, the body read in a receive slot of its tenant and its bytes held, then
        ``answer(request, tenant, fields, stop)`` run on the parsed request in a work slot of
        the tenant, off the event loop; a caller gone before its work starts is never worked on."""
        async def work(fields: dict[str, Any]) -> Any:
            tenant = self._tenant(context)
            fields["tenant"] = tenant
            deadline = self._deadline(context)
            box = [await self._body(tenant, context, deadline)]
            size = len(box[0])

            def call(stop: threading.Event) -> Any:
                request = parse(box.pop())  # parsed, the raw bytes are no longer kept
                self._check(request)
                if stop.is_set():
                    raise Dropped("the caller went away")
                return answer(request, tenant, fields, stop)

            self.admission.hold(tenant, size)
            try:
                return await self._admitted(tenant, size, deadline, call)
            finally:
                box.clear()
                self.admission.unhold(tenant, size)

        return await self._call(name, context, work)

    async def Check(self, requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> pb.Verdict:
        def check(request: Any, tenant: str, fields: dict[str, Any], stop: threading.Event) -> pb.Verdict:
            fields["run_id"] = request.run_id[:256]
            if not request.HasField("step"):
                raise InvalidArgument("step", "is required")
            step = convert.step_from_pb(request.step, max_args_bytes=self.config.max_field_chars)
            policy = convert.tool_policy_from_pb(request.tool_policy) if request.tool_policy else None
            if stop.is_set():
                raise Dropped("the caller went away")
            verdict = self.engine.check(request.run_id, step, request.context or None, tenant=tenant, tool_policy=policy)
            fields["step"] = verdict.step_index
            return convert.verdict_to_pb(verdict)

        return await self._unary("Check", requests, context, _PARSE_CHECK, check)  # type: ignore[no-any-return]

    async def _stream_slot(self, tenant: str) -> None:
        self.admission.open_stream(tenant)
        if self.metrics is not None:
            self.metrics.open_streams.set(self.admission.streams.total)

    def _stream_done(self, tenant: str) -> None:
        self.admission.close_stream(tenant)
        if self.metrics is not None:
            self.metrics.open_streams.set(self.admission.streams.total)

    async def _next(self, context: grpc.aio.ServicerContext) -> Any:
        """The stream's next request, or a sentinel at its end; idle too long is DEADLINE_EXCEEDED,
        and a server shutting down ends the stream as UNAVAILABLE (rather than cancelling it).
        Read with ``context.read()`` (see :meth:`_body`: gRPC's request iterator would keep each
        message until the next arrives)."""
        if self._closing is None:
            self._closing = asyncio.Event()
        receive = asyncio.ensure_future(context.read())
        # a stream cancelled while this read finishes (the client went away) never asks for the
        # read's outcome: mark it seen, so asyncio does not log "exception was never retrieved"
        receive.add_done_callback(_seen)
        closing = asyncio.ensure_future(self._closing.wait())
        try:
            done, _ = await asyncio.wait((receive, closing), timeout=self.config.stream_idle_seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            closing.cancel()
            if not receive.done():
                receive.cancel()
        if receive in done:
            data = receive.result()
            return _END if data is grpc.aio.EOF else data
        if closing in done:
            raise _Aborted(grpc.StatusCode.UNAVAILABLE, "server: shutting down; reconnect and resend the next request")
        raise _Aborted(grpc.StatusCode.DEADLINE_EXCEEDED, f"stream: nothing received for {self.config.stream_idle_seconds:g} s; closed")

    def shut_down_streams(self) -> None:
        """End every open stream at its next read with ``UNAVAILABLE`` (a step being judged finishes first)."""
        if self._closing is None:
            self._closing = asyncio.Event()
        self._closing.set()

    async def _write(self, context: grpc.aio.ServicerContext, message: Any) -> None:
        """Send one answer on a stream; a client that reads nothing for the idle time is DEADLINE_EXCEEDED.

        (A client that stops reading makes the write wait on flow control; without this bound
        it would hold its stream slot forever.)
        """
        try:
            await asyncio.wait_for(context.write(message), timeout=self.config.stream_idle_seconds)
        except TimeoutError:
            raise _Aborted(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"stream: the client read no answer for {self.config.stream_idle_seconds:g} s; closed",
            ) from None
        except Exception:
            # A client that stops reading once it has its answer (a guard that fired) cancels the
            # call while an answer is being written: the write fails because the call is over,
            # which is CANCELLED, not a fault of ours.
            # (grpc cancels the handler's task: the wait for the write was cancelled, and the
            # write itself then fails with the batch it could not send.)
            task = asyncio.current_task()
            if context.cancelled() or context.done() or (task is not None and task.cancelling()):
                raise asyncio.CancelledError from None
            raise

    async def ObserveStream(self, requests: AsyncIterator[Any], context: grpc.aio.ServicerContext) -> None:
        async def work(fields: dict[str, Any]) -> None:
            tenant = self._tenant(context)
            fields["tenant"] = tenant
            await self._stream_slot(tenant)
            try:
                count = 0
                while True:
                    box = [await self._next(context)]
                    if box[0] is _END:
                        break
                    verdict = await self._observe_one(box, tenant, self._deadline(context), fields)
                    count += 1
                    fields["steps"] = count
                    await self._write(context, verdict)
            finally:
                self._stream_done(tenant)

        await self._call("ObserveStream", context, work)

    # ------------------------------------------------------------------ run calls
    async def _run_call(self, name: str, requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext, parse: Callable[[bytes], Any],
                        fn: Callable[..., Any]) -> pb.RunInfo:
        def call(request: Any, tenant: str, fields: dict[str, Any], stop: threading.Event) -> pb.RunInfo:
            fields["run_id"] = request.run_id[:256]
            return convert.run_info_to_pb(fn(request.run_id, tenant=tenant))

        return await self._unary(name, requests, context, parse, call)  # type: ignore[no-any-return]

    async def GetRun(self, requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> pb.RunInfo:
        return await self._run_call("GetRun", requests, context, _PARSE_GET, self.engine.get_run)

    async def ResetRun(self, requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> pb.RunInfo:
        return await self._run_call("ResetRun", requests, context, _PARSE_RESET, self.engine.reset_run)

    async def EndRun(self, requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> pb.RunInfo:
        return await self._run_call("EndRun", requests, context, _PARSE_END, self.engine.end_run)

    async def DeleteRun(self, requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> pb.RunInfo:
        return await self._run_call("DeleteRun", requests, context, _PARSE_DELETE, self.engine.delete_run)

    async def ListRuns(self, requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> pb.ListRunsResponse:
        def list_runs(request: Any, tenant: str, fields: dict[str, Any], stop: threading.Event) -> pb.ListRunsResponse:
            runs, token = self.engine.list_runs(tenant=tenant, page_size=request.page_size, page_token=request.page_token)
            fields["runs"] = len(runs)
            return pb.ListRunsResponse(runs=[convert.run_summary_to_pb(r) for r in runs], next_page_token=token)

        return await self._unary("ListRuns", requests, context, _PARSE_LIST, list_runs)  # type: ignore[no-any-return]

    async def GetRunHistory(self, requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> pb.RunHistory:
        def history(request: Any, tenant: str, fields: dict[str, Any], stop: threading.Event) -> pb.RunHistory:
            fields["run_id"] = request.run_id[:256]
            run_history, token = self.engine.run_history(
                request.run_id, tenant=tenant, page_size=request.page_size, page_token=request.page_token
            )
            fields["steps"] = len(run_history.steps)
            return convert.run_history_to_pb(run_history, token)

        return await self._unary("GetRunHistory", requests, context, _PARSE_HISTORY, history)  # type: ignore[no-any-return]

    async def GuardStream(self, requests: AsyncIterator[Any], context: grpc.aio.ServicerContext) -> None:
        from plateau.channels import ChannelGuards

        limit = self.config.max_chunk_chars
        loop = asyncio.get_running_loop()

        def guard(guards: Any, data: bytes) -> tuple[str, Any]:
            request = _PARSE_GUARD(data)
            self._check(request)
            chunk = request.chunk
            if len(chunk) > limit:
                raise InvalidArgument("chunk", f"is {len(chunk)} characters long; the limit is {limit}; send smaller chunks")
            return request.channel, guards.feed(request.channel, chunk, request.context, end=request.end)

        async def work(fields: dict[str, Any]) -> None:
            tenant = self._tenant(context)
            fields["tenant"] = tenant
            await self._stream_slot(tenant)
            try:
                guards = ChannelGuards(embedder=self.engine.embedder)  # the semantic layer steers on sentences
                while True:
                    data = await self._next(context)
                    if data is _END:
                        break
                    size = len(data)
                    self.admission.hold(tenant, size)
                    try:
                        # parsing and guarding are CPU work proportional to the chunk: never on the event loop
                        channel, result = await loop.run_in_executor(self._guard_pool, guard, guards, data)
                    finally:
                        self.admission.unhold(tenant, size)
                    await self._write(context, convert.guard_result_to_pb(channel, result))
            finally:
                self._stream_done(tenant)

        await self._call("GuardStream", context, work)

    def handlers(self) -> grpc.GenericRpcHandler:
        """The method handlers, with request parsing that never fails as ``INTERNAL``."""
        # Unary methods are served by streaming handlers (the wire is the same): the caller is
        # authenticated from its metadata before the body is read, and the body is read in a
        # receive slot with a time limit. Requests arrive as bytes and are parsed in the pool.
        unary = grpc.stream_unary_rpc_method_handler
        stream = grpc.stream_stream_rpc_method_handler
        table = {
            "Observe": unary(self.Observe, None, pb.Verdict.SerializeToString),
            "ObserveStream": stream(self.ObserveStream, None, pb.Verdict.SerializeToString),
            "GetRun": unary(self.GetRun, None, pb.RunInfo.SerializeToString),
            "ResetRun": unary(self.ResetRun, None, pb.RunInfo.SerializeToString),
            "EndRun": unary(self.EndRun, None, pb.RunInfo.SerializeToString),
            "DeleteRun": unary(self.DeleteRun, None, pb.RunInfo.SerializeToString),
            "GuardStream": stream(self.GuardStream, None, pb.GuardVerdict.SerializeToString),
            "Check": unary(self.Check, None, pb.Verdict.SerializeToString),
            "ListRuns": unary(self.ListRuns, None, pb.ListRunsResponse.SerializeToString),
            "GetRunHistory": unary(self.GetRunHistory, None, pb.RunHistory.SerializeToString),
        }
        return grpc.method_handlers_generic_handler(SERVICE_NAME, table)

    async def sweep(self) -> int:
        """Run one retention sweep in a worker thread; returns the runs deleted."""
        gone = await self._run(self.engine.expire)
        if gone:
            log.info("retention: %d runs expired", gone, extra={"expired": gone})
            if self.metrics is not None:
                self.metrics.expired.inc(gone)
        return gone

    def close(self) -> None:
        """Stop the worker threads."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._guard_pool.shutdown(wait=False, cancel_futures=True)


_END = object()


def _probe_result(result: Any) -> tuple[bool, str]:
    """A store probe's answer as ``(ok, reason)``: ``(ok, reason)`` tuples as they are; ``None``
    (the SQLite store's older form) is ok and a string is the reason it failed."""
    if result is None:
        return True, ""
    if isinstance(result, tuple):
        ok, reason = result
        return bool(ok), str(reason or "")
    if isinstance(result, str):
        return False, result
    return bool(result), ""


def _read_probe(store: Any) -> tuple[bool, str]:
    """The probe of a store without ``probe()``: a read of a run id no caller can use (NUL is
    refused in run ids), so the store must answer; ``StoreUnavailable`` is a failed probe."""
    try:
        store.get(("", "\0health-probe"))
    except StoreUnavailable as exc:
        return False, exc.message.removeprefix("store: ")
    return True, ""


_RETRY_CLAUSE = re.compile(r"[;,]?\s*(?:the change was not applied,\s*)?retrying is safe\.?", re.IGNORECASE)


class StoreOutOfService(StoreUnavailable):
    """The store's breaker is open (health ``NOT_SERVING``): the call was answered at once,
    without waiting on the store (issue 22, item 4). ``UNAVAILABLE``.

    ``in_flight`` is True for a call that was already waiting when the breaker opened: its work
    may still be applied once the store answers, so the message says that re-sending the same
    step is what to do (steps are idempotent), never that it was not applied.
    """

    def __init__(self, cause: str, *, in_flight: bool = False) -> None:
        what = "the store went out of service while this call waited on it" if in_flight else "the store is out of service"
        after = (
            "the call may yet be applied; re-send the same step once health is SERVING (steps are idempotent)"
            if in_flight
            else "nothing was applied; retrying will not help until health is SERVING again"
        )
        super().__init__(f"store: {what} ({cause or 'its probe failed'}): health is NOT_SERVING; {after}")
        self.in_flight = in_flight


class _StoreHealth:
    """Health follows the run store, and a breaker on the store with it: a periodic probe sets
    ``NOT_SERVING`` (the reason logged) while the store fails, ``SERVING`` once it answers again.

    The probe is the store's ``probe()`` (``(ok, reason)``; a store without one is probed by one
    read, :func:`_read_probe`), run in a thread of its own every ``config.health_probe_seconds`` and at once after
    a call ends with ``StoreUnavailable``; a probe that does not answer within
    ``max(1, interval, probe_timeout + 1)`` seconds fails with that reason (a store with a
    ``probe_timeout`` of its own, Redis, fails its probe first, with its own reason).

    The breaker: *closed* while probes succeed; *open* from the first failed probe: every call
    is refused at once (:class:`StoreOutOfService`, ``UNAVAILABLE``) and the calls waiting on the
    store are answered the same way at once, so that no caller waits out the store's own
    timeouts (a client with ``on_unavailable="open"`` fails open promptly); *half-open* is the
    next periodic probe (one at a time, from the probe's own thread, never a caller's call): its
    success closes the breaker.
    """

    def __init__(self, service: PlateauService, health: Any, interval: float = 2.0) -> None:
        self.service = service
        self.health = health
        self.interval = interval
        self.serving = True
        self.ok = True
        self.cause = ""
        self.task: asyncio.Task[None] | None = None
        self._wake: asyncio.Event | None = None
        self._pending: asyncio.Future[tuple[bool, str]] | None = None
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="plateau-probe")
        #: Calls waiting on the store (their admission tasks), answered at once when the breaker opens.
        self.calls: set[asyncio.Future[Any]] = set()
        #: Those of :attr:`calls` cancelled by the breaker opening.
        self.tripped: set[asyncio.Future[Any]] = set()
        #: Calls refused by the open breaker (a counter for tests and metrics), and by tenant.
        self.refused = 0
        self.refused_by: Counter[str] = Counter()

    def refuse_if_open(self, tenant: str = "") -> None:
        """Raise :class:`StoreOutOfService` when the breaker is open (health ``NOT_SERVING``)."""
        if not self.serving:
            self.refused += 1
            self.refused_by[tenant] += 1
            raise StoreOutOfService(self.cause)

    async def probe(self) -> tuple[bool, str]:
        """Probe the store now (one probe at a time: a caller during a probe shares its answer)."""
        if self._pending is None or self._pending.done():
            self._pending = asyncio.ensure_future(self._probe())
        return await asyncio.shield(self._pending)

    async def _probe(self) -> tuple[bool, str]:
        store = self.service.engine.store
        probe = getattr(store, "probe", None)
        if probe is None:  # a store without a probe of its own: one read of a run that never exists
            probe = functools.partial(_read_probe, store)
        # the store's probe bounds itself (Redis: ``probe_timeout``) and says why it failed; the
        # wait here is a backstop a second longer, so that the store's own reason is the one kept
        limit = max(1.0, self.interval, float(getattr(store, "probe_timeout", 0.0)) + 1.0)
        loop = asyncio.get_running_loop()
        try:
            result = await asyncio.wait_for(loop.run_in_executor(self._pool, probe), timeout=limit)
        except TimeoutError:
            result = (False, f"the store did not answer a probe within {limit:g} s")
        except Exception as exc:  # a probe that raises is a failed probe, with its reason
            result = (False, f"{type(exc).__name__}: {exc}")
        self.ok, self.cause = _probe_result(result)
        await self._set(self.ok)
        return self.ok, self.cause

    def failed(self, exc: StoreUnavailable) -> None:
        """A call ended with ``exc``: probe at once."""
        if self._wake is not None:
            self._wake.set()

    async def message(self, exc: StoreUnavailable) -> str:
        """``exc``'s message for the caller: "retrying is safe" only when it is (the step was not
        applied and a fresh probe finds the store answering), else the store's reason."""
        text = _RETRY_CLAUSE.sub("", exc.message).rstrip(" ;,.")
        ok, cause = await self.probe()
        if ok:
            return f"{text}; the step was not applied, retrying is safe"
        return f"{text}; the store is out of service ({cause}): health is NOT_SERVING, retry once it is SERVING"

    async def _set(self, serving: bool) -> None:
        if serving == self.serving:
            return
        self.serving = serving
        if serving:
            log.warning("store: answering again; health SERVING")
        else:
            log.error("store: %s; health NOT_SERVING until a probe succeeds", self.cause, extra={"reason": self.cause})
            for call in list(self.calls):  # the breaker opens: nobody keeps waiting on the store
                if not call.done():
                    self.tripped.add(call)
                    call.cancel()
        status = health_pb2.HealthCheckResponse.SERVING if serving else health_pb2.HealthCheckResponse.NOT_SERVING
        for name in ("", SERVICE_NAME):
            await self.health.set(name, status)

    def start(self) -> None:
        """Start the periodic probe."""
        self._wake = asyncio.Event()
        self.task = asyncio.ensure_future(self._watch())

    async def _watch(self) -> None:
        assert self._wake is not None
        while True:
            try:
                await self.probe()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the watch must never stop
                log.warning("store: health probe failed: %s", exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self.interval)
            self._wake.clear()

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()
        self._pool.shutdown(wait=False, cancel_futures=True)


@dataclass
class RunningServer:
    """A started server: the grpc.aio server, its bound port and its health servicer."""

    server: grpc.aio.Server
    port: int
    health: Any
    service: PlateauService
    sweeper: asyncio.Task[None] | None = None
    store_health: _StoreHealth | None = None

    async def stop(self, grace: float = 5.0, drain: float = 0.0) -> None:
        """Mark NOT_SERVING, keep serving for ``drain`` seconds (so that load balancers watching
        health send new calls elsewhere), finish in-flight calls within ``grace`` seconds, stop.

        The engine (and its store) stays open: whoever built it closes it.
        """
        await self.health.enter_graceful_shutdown()
        if drain > 0:
            await asyncio.sleep(drain)
        for task in (self.sweeper, self.store_health.task if self.store_health else None):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self.store_health is not None:
            self.store_health.cancel()
        self.service.shut_down_streams()
        await self.server.stop(grace)
        self.service.close()


def _sweep_interval(config: Any) -> float:
    ttl = min(config.idle_run_ttl_seconds, config.ended_run_ttl_seconds)
    return 60.0 if math.isinf(ttl) else max(0.05, min(60.0, ttl / 10.0))


async def _sweeper(service: PlateauService, interval: float) -> None:
    while True:
        try:
            await service.sweep()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a failing sweep must not stop the server; counted as store errors
            log.warning("retention sweep failed: %s", exc)
        await asyncio.sleep(interval)


async def start_server(
    engine: Engine,
    host: str = "127.0.0.1",
    port: int = 0,
    workers: int = 32,
    *,
    tls: ServerTls | None = None,
    auth: TokenTable | None = None,
    metrics: Metrics | None = None,
) -> RunningServer:
    """Start the service on ``host:port`` (port 0 picks a free one) and return it.

    Parameters
    ----------
    engine
        The engine (its ``config`` gives the service limits).
    host, port
        Where to listen.
    workers
        Worker threads for engine calls (int >= 1).
    tls
        Serve TLS (mutual TLS when ``tls.client_ca`` is set); plaintext when None.
    auth
        Require bearer tokens and namespace runs per tenant; open when None.
    metrics
        Count requests, latencies, verdicts and engine statistics into it.

    Raises ``RuntimeError`` when the address cannot be bound, also when another process
    already listens on the port (the port is never shared: ``SO_REUSEPORT`` is off).
    """
    config = engine.config
    server = grpc.aio.server(
        interceptors=otel_server_interceptors(),  # call spans with PLATEAU_OTEL=1 and the otel extra; none otherwise
        options=[
            ("grpc.max_receive_message_length", config.max_message_bytes),
            ("grpc.max_send_message_length", config.max_message_bytes),
            # connections with no call for 15 minutes are closed (clients reconnect transparently)
            ("grpc.max_connection_idle_ms", 15 * 60 * 1000),
            # a peer that no longer answers HTTP/2 pings (gone without closing its socket) loses its
            # connection, and with it every partial request it held
            ("grpc.keepalive_time_ms", 60 * 1000),
            ("grpc.keepalive_timeout_ms", 20 * 1000),
            # a port another process listens on is an error, never shared: with SO_REUSEPORT two
            # servers would split the connections, and a run's steps between them
            ("grpc.so_reuseport", 0),
            # the HTTP/2 flow-control window stays at its initial 64 KiB per stream: with BDP
            # probing gRPC grows it to megabytes and buffers every caller's request body before
            # the call is admitted (40 calls of 6 MB took +325 MiB), outside every byte budget
            ("grpc.http2.bdp_probe", 0),
        ]
    )
    if metrics is not None:
        metrics.instrument(engine)
    service = PlateauService(engine, workers=workers, auth=auth, metrics=metrics)
    if metrics is not None:
        metrics.watch(service)
    server.add_generic_rpc_handlers((service.handlers(),))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    store_health = _StoreHealth(service, health_servicer, config.health_probe_seconds)
    ok, cause = await store_health.probe()
    if not ok:  # a store that fails its probe at start (lost, corrupt, unreachable) is never served
        store_health.cancel()
        service.close()
        raise StoreUnavailable(f"store: {cause}; refusing to serve")
    service.on_store_error = store_health.failed
    service.store_health = store_health
    names = (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME)
    reflection.enable_server_reflection(names, server)
    # grpc.reflection.v1 (what grpcurl and current tools ask first): the same servicer, the same messages
    reflector = reflection.aio.ReflectionServicer(names)
    v1 = grpc.stream_stream_rpc_method_handler(
        reflector.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(REFLECTION_V1, {"ServerReflectionInfo": v1}),))
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        if tls is None:
            bound = server.add_insecure_port(address)
        else:
            credentials = grpc.ssl_server_credentials(
                [(tls.private_key, tls.cert_chain)], root_certificates=tls.client_ca, require_client_auth=tls.client_ca is not None
            )
            bound = server.add_secure_port(address, credentials)
    except RuntimeError:
        bound = 0
    if bound == 0:
        raise RuntimeError(f"cannot bind {address}: the address is not available here, or another process already listens on it")
    await server.start()
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    sweeper = asyncio.ensure_future(_sweeper(service, _sweep_interval(config)))
    store_health.start()
    return RunningServer(server=server, port=bound, health=health_servicer, service=service, sweeper=sweeper, store_health=store_health)


async def serve(
    engine: Engine,
    host: str,
    port: int,
    *,
    ready: Callable[[int], None] | None = None,
    grace: float = 5.0,
    drain: float = 2.0,
    tls: ServerTls | None = None,
    auth: TokenTable | None = None,
    metrics: Metrics | None = None,
) -> None:
    """Serve until SIGTERM or SIGINT, then shut down gracefully.

    Health turns ``NOT_SERVING`` at once; calls are still served for ``drain`` seconds (a
    second signal ends the drain early), then in-flight calls get ``grace`` seconds to finish.
    """
    running = await start_server(engine, host, port, tls=tls, auth=auth, metrics=metrics)
    if ready is not None:
        ready(running.port)
    signals = asyncio.Queue[int]()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, signals.put_nowait, sig)
    await signals.get()
    log.info("shutting down: health NOT_SERVING, draining %.1f s, then grace %.1f s", drain, grace)
    await running.health.enter_graceful_shutdown()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(signals.get(), timeout=drain)
    await running.stop(grace)
