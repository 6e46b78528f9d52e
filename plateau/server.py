"""The gRPC service ``plateau.v1.Plateau`` on ``grpc.aio``, with health checking and reflection.

The engine is synchronous and CPU-bound (the embedding model); each request runs it in a
thread pool so that concurrent runs share the embedder's micro-batches while the event loop
keeps serving. Domain errors map to status codes through :data:`STATUS_CODES` (one table,
documented in :mod:`plateau.errors`); a request that cannot even be parsed (for instance a
string field holding invalid UTF-8) is ``INVALID_ARGUMENT``, never ``INTERNAL``.

Reliability and security (all optional, see :func:`start_server`):

- **Order across connections.** Steps of one run that arrive concurrently (several
  connections, retries) are applied in index order: a step whose predecessor is in flight on
  the server waits for it (asynchronously, holding no worker thread) within its deadline and
  ``config.order_wait_seconds``; a step whose predecessor is not in flight is a gap
  (``FAILED_PRECONDITION``). Duplicates return the stored verdict and count once.
- **Auth.** With a :class:`~plateau.auth.TokenTable`, every Plateau call needs a bearer token
  (``UNAUTHENTICATED`` otherwise) and runs are namespaced by the token's tenant.
- **TLS / mutual TLS** with :class:`~plateau.auth.ServerTls`.
- **Limits** from :class:`~plateau.config.Config`: message size, concurrent streams, stream
  idle time, steps per run, runs per tenant; an expired deadline is ``DEADLINE_EXCEEDED``.
- **Retention**: a background sweep deletes idle and ended runs (``Engine.expire``).
- **Metrics** (:class:`~plateau.metrics.Metrics`) and a log record per call (``plateau.server``
  logger: DEBUG for successes, INFO for refused calls, with ``rpc``/``tenant``/``run_id``/
  ``step``/``code``/``ms`` fields for the JSON formatter of :mod:`plateau.logs`).
"""

from __future__ import annotations

import asyncio
import logging
import math
import signal
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from plateau import convert
from plateau.auth import ServerTls, TokenTable
from plateau.engine import Engine
from plateau.errors import InvalidArgument, LimitExceeded, PlateauError
from plateau.metrics import Metrics
from plateau.v1 import plateau_pb2 as pb

__all__ = ["STATUS_CODES", "PlateauService", "RunningServer", "serve", "start_server"]

log = logging.getLogger("plateau.server")

SERVICE_NAME = "plateau.v1.Plateau"

#: Domain error code (``PlateauError.code``) → gRPC status code.
STATUS_CODES: dict[str, grpc.StatusCode] = {
    "INVALID_ARGUMENT": grpc.StatusCode.INVALID_ARGUMENT,
    "NOT_FOUND": grpc.StatusCode.NOT_FOUND,
    "FAILED_PRECONDITION": grpc.StatusCode.FAILED_PRECONDITION,
    "RESOURCE_EXHAUSTED": grpc.StatusCode.RESOURCE_EXHAUSTED,
    "UNAVAILABLE": grpc.StatusCode.UNAVAILABLE,
    "UNAUTHENTICATED": grpc.StatusCode.UNAUTHENTICATED,
}

T = TypeVar("T")


@dataclass(frozen=True)
class _Malformed:
    """Stands in for a request whose bytes did not parse."""

    error: str


def _lenient(parse: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    def deserialize(data: bytes) -> Any:
        try:
            return parse(data)
        except (DecodeError, UnicodeDecodeError, ValueError) as exc:
            return _Malformed(str(exc) or type(exc).__name__)

    return deserialize


class _Flights:
    """Indices of one run's steps currently on the server (for in-order application)."""

    __slots__ = ("cond", "indices")

    def __init__(self) -> None:
        self.cond = asyncio.Condition()
        self.indices: Counter[int] = Counter()

    def lower_in_flight(self, index: int) -> bool:
        return any(i < index for i in self.indices)


class _Aborted(Exception):
    """A call refused by the service itself (not a domain error): code and message."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class PlateauService:
    """Implements ``plateau.v1.Plateau`` over an :class:`~plateau.engine.Engine`.

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
    """

    def __init__(self, engine: Engine, workers: int = 32, *, auth: TokenTable | None = None, metrics: Metrics | None = None) -> None:
        self.engine = engine
        self.config = engine.config
        self.auth = auth
        self.metrics = metrics
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="plateau-rpc")
        self._flights: dict[tuple[str, str], _Flights] = {}
        self._streams = 0

    async def _run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, lambda: fn(*args, **kwargs))

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

    def _record(self, method: str, code: grpc.StatusCode, started: float, fields: dict[str, Any]) -> None:
        elapsed = time.perf_counter() - started
        if self.metrics is not None:
            self.metrics.requests.labels(method, code.name).inc()
            self.metrics.latency.labels(method).observe(elapsed)
        level = logging.DEBUG if code is grpc.StatusCode.OK else logging.INFO
        if log.isEnabledFor(level):
            log.log(level, "%s %s", method, code.name, extra={"rpc": method, "code": code.name, "ms": round(elapsed * 1000, 3), **fields})

    async def _call(self, method: str, context: grpc.aio.ServicerContext, work: Callable[[dict[str, Any]], Any]) -> Any:
        """Run ``work`` (a coroutine function), mapping every failure to a status code."""
        started = time.perf_counter()
        fields: dict[str, Any] = {}
        code = grpc.StatusCode.OK
        message = ""
        try:
            return await work(fields)
        except PlateauError as exc:
            code, message = STATUS_CODES.get(exc.code, grpc.StatusCode.UNKNOWN), exc.message
        except _Aborted as exc:
            code, message = exc.code, exc.message
        except asyncio.CancelledError:
            code = grpc.StatusCode.CANCELLED
            raise
        except Exception as exc:  # a bug of ours, never the client's input
            log.exception("%s failed", method)
            code, message = grpc.StatusCode.INTERNAL, f"internal error ({type(exc).__name__}); please report it"
        finally:
            self._record(method, code, started, fields)
        await context.abort(code, message)
        raise AssertionError("unreachable: abort raises")

    @staticmethod
    def _check(request: Any) -> None:
        if isinstance(request, _Malformed):
            raise InvalidArgument("request", f"cannot be parsed ({request.error}); string fields must be valid UTF-8")

    # ------------------------------------------------------------------ observe
    async def _ordered(self, key: tuple[str, str], index: int, budget: float) -> None:
        """Wait (at most ``budget`` seconds) until no lower index of the run is in flight here."""
        flights = self._flights[key]
        if not flights.lower_in_flight(index) or budget <= 0:
            return
        try:
            async with flights.cond:
                await asyncio.wait_for(flights.cond.wait_for(lambda: not flights.lower_in_flight(index)), timeout=budget)
        except TimeoutError:
            pass  # the engine decides: still a gap, or the predecessor just landed

    async def _observe_one(self, request: Any, tenant: str, deadline_left: float, fields: dict[str, Any]) -> pb.Verdict:
        self._check(request)
        fields.update(tenant=tenant, run_id=request.run_id[:256])
        if not request.HasField("step"):
            raise InvalidArgument("step", "is required")
        step = convert.step_from_pb(request.step)
        fields["step"] = step.index
        key = (tenant, request.run_id)
        flights = self._flights.get(key)
        if flights is None:
            flights = self._flights[key] = _Flights()
        flights.indices[step.index] += 1
        started = time.monotonic()
        budget = min(deadline_left, self.config.order_wait_seconds)
        try:
            await self._ordered(key, step.index, budget)
            left = max(0.0, budget - (time.monotonic() - started))
            verdict = await self._run(self.engine.observe, request.run_id, step, request.context or None, tenant=tenant, timeout=left)
        finally:
            flights.indices[step.index] -= 1
            if flights.indices[step.index] <= 0:
                del flights.indices[step.index]
            async with flights.cond:
                flights.cond.notify_all()
            if not flights.indices and self._flights.get(key) is flights:
                del self._flights[key]
        return convert.verdict_to_pb(verdict)

    async def Observe(self, request: Any, context: grpc.aio.ServicerContext) -> pb.Verdict:
        async def work(fields: dict[str, Any]) -> pb.Verdict:
            tenant = self._tenant(context)
            return await self._observe_one(request, tenant, self._deadline_left(context), fields)

        return await self._call("Observe", context, work)  # type: ignore[no-any-return]

    async def _stream_slot(self) -> None:
        if self._streams >= self.config.max_concurrent_streams:
            raise LimitExceeded(f"streams: {self.config.max_concurrent_streams} streams are open, the server's limit; retry later")
        self._streams += 1
        if self.metrics is not None:
            self.metrics.open_streams.set(self._streams)

    def _stream_done(self) -> None:
        self._streams -= 1
        if self.metrics is not None:
            self.metrics.open_streams.set(self._streams)

    async def _next(self, requests: AsyncIterator[Any]) -> Any:
        """The stream's next request, or a sentinel at its end; idle too long is DEADLINE_EXCEEDED."""
        try:
            return await asyncio.wait_for(anext(requests), timeout=self.config.stream_idle_seconds)
        except StopAsyncIteration:
            return _END
        except TimeoutError:
            raise _Aborted(
                grpc.StatusCode.DEADLINE_EXCEEDED, f"stream: nothing received for {self.config.stream_idle_seconds:g} s; closed"
            ) from None

    async def ObserveStream(self, requests: AsyncIterator[Any], context: grpc.aio.ServicerContext) -> AsyncIterator[pb.Verdict]:
        queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=1)

        async def work(fields: dict[str, Any]) -> None:
            tenant = self._tenant(context)
            await self._stream_slot()
            try:
                it = aiter(requests)
                count = 0
                while True:
                    request = await self._next(it)
                    if request is _END:
                        break
                    verdict = await self._observe_one(request, tenant, self._deadline_left(context), fields)
                    count += 1
                    fields["steps"] = count
                    await queue.put(verdict)
            finally:
                self._stream_done()

        async def producer() -> None:
            try:
                await self._call("ObserveStream", context, work)
            finally:
                await queue.put(_END)

        task = asyncio.ensure_future(producer())
        try:
            while True:
                item = await queue.get()
                if item is _END:
                    break
                yield item
            await task  # re-raises the abort, if any
        finally:
            if not task.done():
                task.cancel()

    # ------------------------------------------------------------------ run calls
    async def _run_call(self, name: str, request: Any, context: grpc.aio.ServicerContext, fn: Callable[..., Any]) -> pb.RunInfo:
        async def work(fields: dict[str, Any]) -> pb.RunInfo:
            tenant = self._tenant(context)
            self._check(request)
            self._deadline_left(context)
            fields.update(tenant=tenant, run_id=request.run_id[:256])
            info = await self._run(fn, request.run_id, tenant=tenant)
            return convert.run_info_to_pb(info)

        return await self._call(name, context, work)  # type: ignore[no-any-return]

    async def GetRun(self, request: Any, context: grpc.aio.ServicerContext) -> pb.RunInfo:
        return await self._run_call("GetRun", request, context, self.engine.get_run)

    async def ResetRun(self, request: Any, context: grpc.aio.ServicerContext) -> pb.RunInfo:
        return await self._run_call("ResetRun", request, context, self.engine.reset_run)

    async def EndRun(self, request: Any, context: grpc.aio.ServicerContext) -> pb.RunInfo:
        return await self._run_call("EndRun", request, context, self.engine.end_run)

    async def GuardStream(self, requests: AsyncIterator[Any], context: grpc.aio.ServicerContext) -> AsyncIterator[pb.GuardVerdict]:
        from plateau.guard import ChannelGuards

        queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=1)

        async def work(fields: dict[str, Any]) -> None:
            fields["tenant"] = self._tenant(context)
            await self._stream_slot()
            try:
                guards = ChannelGuards()
                it = aiter(requests)
                while True:
                    request = await self._next(it)
                    if request is _END:
                        break
                    self._check(request)
                    verdict = guards.feed(request.channel, request.chunk, request.context)
                    await queue.put(convert.guard_result_to_pb(request.channel, verdict))
            finally:
                self._stream_done()

        async def producer() -> None:
            try:
                await self._call("GuardStream", context, work)
            finally:
                await queue.put(_END)

        task = asyncio.ensure_future(producer())
        try:
            while True:
                item = await queue.get()
                if item is _END:
                    break
                yield item
            await task
        finally:
            if not task.done():
                task.cancel()

    def handlers(self) -> grpc.GenericRpcHandler:
        """The method handlers, with request parsing that never fails as ``INTERNAL``."""
        unary = grpc.unary_unary_rpc_method_handler
        stream = grpc.stream_stream_rpc_method_handler
        table = {
            "Observe": unary(self.Observe, _lenient(pb.ObserveRequest.FromString), pb.Verdict.SerializeToString),
            "ObserveStream": stream(self.ObserveStream, _lenient(pb.ObserveRequest.FromString), pb.Verdict.SerializeToString),
            "GetRun": unary(self.GetRun, _lenient(pb.GetRunRequest.FromString), pb.RunInfo.SerializeToString),
            "ResetRun": unary(self.ResetRun, _lenient(pb.ResetRunRequest.FromString), pb.RunInfo.SerializeToString),
            "EndRun": unary(self.EndRun, _lenient(pb.EndRunRequest.FromString), pb.RunInfo.SerializeToString),
            "GuardStream": stream(self.GuardStream, _lenient(pb.GuardRequest.FromString), pb.GuardVerdict.SerializeToString),
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


_END = object()


@dataclass
class RunningServer:
    """A started server: the grpc.aio server, its bound port and its health servicer."""

    server: grpc.aio.Server
    port: int
    health: Any
    service: PlateauService
    sweeper: asyncio.Task[None] | None = None

    async def stop(self, grace: float = 5.0) -> None:
        """Mark NOT_SERVING, finish in-flight calls within ``grace`` seconds, stop.

        The engine (and its store) stays open: whoever built it closes it.
        """
        if self.sweeper is not None:
            self.sweeper.cancel()
        await self.health.enter_graceful_shutdown()
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

    Raises ``RuntimeError`` when the address cannot be bound.
    """
    config = engine.config
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", config.max_message_bytes),
            ("grpc.max_send_message_length", config.max_message_bytes),
            # connections with no call for 15 minutes are closed (clients reconnect transparently)
            ("grpc.max_connection_idle_ms", 15 * 60 * 1000),
        ]
    )
    if metrics is not None:
        metrics.instrument(engine)
    service = PlateauService(engine, workers=workers, auth=auth, metrics=metrics)
    server.add_generic_rpc_handlers((service.handlers(),))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME), server
    )
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if tls is None:
        bound = server.add_insecure_port(address)
    else:
        credentials = grpc.ssl_server_credentials(
            [(tls.private_key, tls.cert_chain)], root_certificates=tls.client_ca, require_client_auth=tls.client_ca is not None
        )
        bound = server.add_secure_port(address, credentials)
    if bound == 0:
        raise RuntimeError(f"cannot bind {address}")
    await server.start()
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    sweeper = asyncio.ensure_future(_sweeper(service, _sweep_interval(config)))
    return RunningServer(server=server, port=bound, health=health_servicer, service=service, sweeper=sweeper)


async def serve(
    engine: Engine,
    host: str,
    port: int,
    *,
    ready: Callable[[int], None] | None = None,
    grace: float = 5.0,
    tls: ServerTls | None = None,
    auth: TokenTable | None = None,
    metrics: Metrics | None = None,
) -> None:
    """Serve until SIGTERM or SIGINT, then shut down gracefully (health NOT_SERVING first)."""
    running = await start_server(engine, host, port, tls=tls, auth=auth, metrics=metrics)
    if ready is not None:
        ready(running.port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("shutting down (grace %.1f s)", grace)
    await running.stop(grace)
