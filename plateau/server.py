"""The gRPC service ``plateau.v1.Plateau`` on ``grpc.aio``, with health checking and reflection.

The engine is synchronous and CPU-bound (the embedding model); each request runs it in a
thread pool so that concurrent runs share the embedder's micro-batches while the event loop
keeps serving. Domain errors map to status codes through :data:`STATUS_CODES` (one table,
documented in :mod:`plateau.errors`); a request that cannot even be parsed (for instance a
string field holding invalid UTF-8) is ``INVALID_ARGUMENT``, never ``INTERNAL``.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from plateau import convert
from plateau.engine import Engine
from plateau.errors import InvalidArgument, PlateauError
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


class PlateauService:
    """Implements ``plateau.v1.Plateau`` over an :class:`~plateau.engine.Engine`.

    Parameters
    ----------
    engine
        The engine that judges steps.
    workers
        Threads running engine calls (int >= 1); concurrent requests beyond it queue.
    """

    def __init__(self, engine: Engine, workers: int = 32) -> None:
        self.engine = engine
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="plateau-rpc")

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    @staticmethod
    async def _abort(context: grpc.aio.ServicerContext, exc: PlateauError) -> None:
        code = STATUS_CODES.get(exc.code, grpc.StatusCode.UNKNOWN)
        await context.abort(code, exc.message)

    @staticmethod
    def _check(request: Any) -> None:
        if isinstance(request, _Malformed):
            raise InvalidArgument("request", f"cannot be parsed ({request.error}); string fields must be valid UTF-8")

    async def _observe_one(self, request: Any) -> pb.Verdict:
        self._check(request)
        if not request.HasField("step"):
            raise InvalidArgument("step", "is required")
        step = convert.step_from_pb(request.step)
        verdict = await self._run(self.engine.observe, request.run_id, step, request.context or None)
        return convert.verdict_to_pb(verdict)

    async def Observe(self, request: Any, context: grpc.aio.ServicerContext) -> pb.Verdict:
        try:
            return await self._observe_one(request)
        except PlateauError as exc:
            await self._abort(context, exc)
            raise  # unreachable: abort raises

    async def ObserveStream(self, requests: AsyncIterator[Any], context: grpc.aio.ServicerContext) -> AsyncIterator[pb.Verdict]:
        try:
            async for request in requests:
                yield await self._observe_one(request)
        except PlateauError as exc:
            await self._abort(context, exc)

    async def _run_call(self, request: Any, context: grpc.aio.ServicerContext, fn: Callable[[str], Any]) -> pb.RunInfo:
        try:
            self._check(request)
            info = await self._run(fn, request.run_id)
            return convert.run_info_to_pb(info)
        except PlateauError as exc:
            await self._abort(context, exc)
            raise

    async def GetRun(self, request: Any, context: grpc.aio.ServicerContext) -> pb.RunInfo:
        return await self._run_call(request, context, self.engine.get_run)

    async def ResetRun(self, request: Any, context: grpc.aio.ServicerContext) -> pb.RunInfo:
        return await self._run_call(request, context, self.engine.reset_run)

    async def EndRun(self, request: Any, context: grpc.aio.ServicerContext) -> pb.RunInfo:
        return await self._run_call(request, context, self.engine.end_run)

    async def GuardStream(self, requests: AsyncIterator[Any], context: grpc.aio.ServicerContext) -> AsyncIterator[pb.GuardVerdict]:
        from plateau.guard import ChannelGuards

        guards = ChannelGuards()
        try:
            async for request in requests:
                self._check(request)
                yield convert.guard_result_to_pb(request.channel, guards.feed(request.channel, request.chunk))
        except PlateauError as exc:
            await self._abort(context, exc)

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

    def close(self) -> None:
        """Stop the worker threads."""
        self._pool.shutdown(wait=False, cancel_futures=True)


@dataclass
class RunningServer:
    """A started server: the grpc.aio server, its bound port and its health servicer."""

    server: grpc.aio.Server
    port: int
    health: Any
    service: PlateauService

    async def stop(self, grace: float = 5.0) -> None:
        """Mark NOT_SERVING, finish in-flight calls within ``grace`` seconds, stop."""
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace)
        self.service.close()


async def start_server(engine: Engine, host: str = "127.0.0.1", port: int = 0, workers: int = 32) -> RunningServer:
    """Start the service on ``host:port`` (port 0 picks a free one) and return it.

    Raises ``RuntimeError`` when the address cannot be bound.
    """
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", 16 * 1024 * 1024),
            ("grpc.max_send_message_length", 16 * 1024 * 1024),
        ]
    )
    service = PlateauService(engine, workers=workers)
    server.add_generic_rpc_handlers((service.handlers(),))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME), server
    )
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    bound = server.add_insecure_port(address)
    if bound == 0:
        raise RuntimeError(f"cannot bind {address}")
    await server.start()
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    return RunningServer(server=server, port=bound, health=health_servicer, service=service)


async def serve(engine: Engine, host: str, port: int, *, ready: Callable[[int], None] | None = None, grace: float = 5.0) -> None:
    """Serve until SIGTERM or SIGINT, then shut down gracefully (health NOT_SERVING first)."""
    running = await start_server(engine, host, port)
    if ready is not None:
        ready(running.port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("shutting down (grace %.1f s)", grace)
    await running.stop(grace)
