"""The asyncio client: :class:`AsyncClient`, the API of :class:`~plateau.client.Client` awaited.

>>> async with AsyncClient.remote("127.0.0.1:50051") as client:        # doctest: +SKIP
...     verdict = await client.observe("run-1", Step(index=0, text="Reading the config."))

The same methods, argument and return types (:mod:`plateau.types`) and exceptions
(:mod:`plateau.errors`) as the blocking client, in two modes:

- :meth:`AsyncClient.remote` talks to a server over ``grpc.aio`` (needs only ``grpcio``,
  ``grpcio-status`` and ``protobuf``). The channel is opened on the first call, in the running
  event loop.
- :meth:`AsyncClient.local` runs an in-process :class:`~plateau.engine.Engine` in worker
  threads (``asyncio.to_thread``), so the event loop never blocks on the embedding model.

``on_unavailable`` (:mod:`plateau.failure`) and :meth:`AsyncClient.session`
(:class:`~plateau.session.AsyncRunSession`) work as on the blocking client.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Mapping
from typing import Any

from plateau.client import ChannelSettings, ClientBase, Paging, as_step, list_runs_pages, run_history_pages
from plateau.errors import PlateauError
from plateau.types import RunHistory, RunInfo, RunSummary, Step, Verdict

__all__ = ["AsyncClient"]

StepLike = Step | Mapping[str, Any]


async def _aiter_steps(steps: Iterable[StepLike] | AsyncIterable[StepLike]) -> AsyncIterator[Step]:
    i = 0
    if isinstance(steps, AsyncIterable):
        async for s in steps:
            yield as_step(s, i)
            i += 1
    else:
        for s in steps:
            yield as_step(s, i)
            i += 1


async def drive_async(protocol: Paging, call: Any) -> Any:
    """:func:`plateau.client.drive` with ``await``: step ``protocol`` through the coroutine
    function ``call`` (one call a yielded request); its result."""
    try:
        request = next(protocol)
        while True:
            request = protocol.send(await call(*request))
    except StopIteration as stop:
        return stop.value


class AsyncClient(ClientBase):
    """A Plateau client for asyncio. Build it with :meth:`local` or :meth:`remote`."""

    _backend: _AsyncLocal | _AsyncRemote

    async def observe(
        self, run_id: str, step: StepLike, context: str | None = None, *, tool_policy: Mapping[str, Any] | None = None
    ) -> Verdict:
        """Judge one step (see :meth:`plateau.client.Client.observe`)."""
        step = as_step(step)
        try:
            return await self._backend.observe(run_id, step, context, tool_policy)
        except PlateauError as exc:
            return self._unjudged(run_id, step.index, exc)

    async def check(
        self, run_id: str, step: StepLike, context: str | None = None, *, tool_policy: Mapping[str, Any] | None = None
    ) -> Verdict:
        """What the breaker would answer for ``step`` now, committing nothing (see
        :meth:`plateau.client.Client.check`)."""
        step = as_step(step, 0)
        try:
            return await self._backend.check(run_id, step, context, tool_policy)
        except PlateauError as exc:
            return self._unjudged(run_id, step.index, exc)

    def observe_many(
        self, run_id: str, steps: Iterable[StepLike] | AsyncIterable[StepLike], context: str | None = None
    ) -> AsyncIterator[Verdict]:
        """Judge steps in order (one stream for the remote client); an async iterator of
        verdicts. ``steps`` may be an iterable or an async iterable; mappings without an
        ``index`` are numbered from 0 in order."""
        return self._backend.observe_many(run_id, _aiter_steps(steps), context)

    async def get_run(self, run_id: str) -> RunInfo:
        """The run's state; ``RunNotFound`` for an unknown run."""
        return await self._backend.get_run(run_id)

    async def list_runs(self, *, limit: int | None = None) -> list[RunSummary]:
        """This client's runs, newest first; at most ``limit`` (see
        :meth:`plateau.client.Client.list_runs`)."""
        return list(await drive_async(list_runs_pages(limit), self._backend.list_runs))

    async def run_history(self, run_id: str) -> RunHistory:
        """Every step the run accepted with its verdict and time (see
        :meth:`plateau.client.Client.run_history`); ``RunNotFound`` for an unknown run."""
        history: RunHistory = await drive_async(run_history_pages(run_id), self._backend.run_history)
        return history

    async def reset_run(self, run_id: str) -> RunInfo:
        """Forget the run's steps and calibration; ``RunNotFound`` for an unknown run."""
        return await self._backend.reset_run(run_id)

    async def end_run(self, run_id: str) -> RunInfo:
        """Mark the run ended; ``RunNotFound`` for an unknown run."""
        return await self._backend.end_run(run_id)

    async def delete_run(self, run_id: str) -> RunInfo:
        """Delete the run now and return its last state; ``RunNotFound`` for an unknown run."""
        return await self._backend.delete_run(run_id)

    def guard_stream(
        self, chunks: Iterable[str | tuple[str, ...]] | AsyncIterable[str | tuple[str, ...]], context: str | None = None
    ) -> AsyncIterator[Any]:
        """Guard one streamed response: an async iterator of
        :class:`~plateau.stream.GuardResult`, one per chunk (a ``content`` chunk, a
        ``(channel, chunk)`` pair or a ``(channel, chunk, end)`` triple, ``end`` marking the
        channel's last chunk: see :meth:`plateau.client.Client.guard_stream`). ``context`` is the request the response answers (see
        :meth:`plateau.client.Client.guard_stream`). Stop reading the model once a result has
        ``fired``."""

        from plateau.channels import guard_item

        async def pairs() -> AsyncIterator[tuple[str, str, bool]]:
            if isinstance(chunks, AsyncIterable):
                async for c in chunks:
                    yield guard_item(c)
            else:
                for c in chunks:
                    yield guard_item(c)

        return self._backend.guard_stream(pairs(), context or "")

    def guard_session(self, context: str | None = None) -> Any:
        """A guard for one streamed response, fed chunk by chunk as they arrive: an object
        with ``await feed(channel, chunk, end=False) -> GuardResult`` and ``await close()`` (remote: one
        ``GuardStream`` call kept open between chunks); ``context`` as for :meth:`guard_stream`."""
        return self._backend.guard_session(context or "")

    def session(
        self, run_id: str | None = None, context: str | None = None, *, next_index: int = 0, tool_policy: Mapping[str, Any] | None = None
    ) -> Any:
        """An :class:`~plateau.session.AsyncRunSession` for one run (see
        :meth:`plateau.client.Client.session`)."""
        from plateau.session import AsyncRunSession

        return AsyncRunSession(self, run_id, context, next_index=next_index, tool_policy=tool_policy)

    async def close(self) -> None:
        """Close the channel (remote) or nothing (local)."""
        await self._backend.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class _AsyncLocal:
    def __init__(self, engine: Any, tenant: str) -> None:
        self.engine = engine
        self.tenant = tenant

    async def observe(self, run_id: str, step: Step, context: str | None, tool_policy: Mapping[str, Any] | None = None) -> Verdict:
        verdict: Verdict = await asyncio.to_thread(self.engine.observe, run_id, step, context, tenant=self.tenant, tool_policy=tool_policy)
        return verdict

    async def check(self, run_id: str, step: Step, context: str | None, tool_policy: Mapping[str, Any] | None = None) -> Verdict:
        verdict: Verdict = await asyncio.to_thread(self.engine.check, run_id, step, context, tenant=self.tenant, tool_policy=tool_policy)
        return verdict

    async def observe_many(self, run_id: str, steps: AsyncIterator[Step], context: str | None) -> AsyncIterator[Verdict]:
        async for step in steps:
            yield await self.observe(run_id, step, context)

    async def get_run(self, run_id: str) -> RunInfo:
        info: RunInfo = await asyncio.to_thread(self.engine.get_run, run_id, tenant=self.tenant)
        return info

    async def list_runs(self, page_size: int, token: str) -> tuple[list[RunSummary], str]:
        page: tuple[list[RunSummary], str] = await asyncio.to_thread(
            self.engine.list_runs, tenant=self.tenant, page_size=page_size, page_token=token
        )
        return page

    async def run_history(self, run_id: str, page_size: int, token: str) -> tuple[RunHistory, str]:
        page: tuple[RunHistory, str] = await asyncio.to_thread(
            self.engine.run_history, run_id, tenant=self.tenant, page_size=page_size, page_token=token
        )
        return page

    async def reset_run(self, run_id: str) -> RunInfo:
        info: RunInfo = await asyncio.to_thread(self.engine.reset_run, run_id, tenant=self.tenant)
        return info

    async def end_run(self, run_id: str) -> RunInfo:
        info: RunInfo = await asyncio.to_thread(self.engine.end_run, run_id, tenant=self.tenant)
        return info

    async def delete_run(self, run_id: str) -> RunInfo:
        info: RunInfo = await asyncio.to_thread(self.engine.delete_run, run_id, tenant=self.tenant)
        return info

    async def guard_stream(self, pairs: AsyncIterator[tuple[str, str, bool]], context: str = "") -> AsyncIterator[Any]:
        from plateau.channels import ChannelGuards

        guards = ChannelGuards(context=context, embedder=getattr(self.engine, "embedder", None))
        async for channel, chunk, end in pairs:
            yield guards.feed(channel, chunk, end=end)

    def guard_session(self, context: str = "") -> Any:
        from plateau.channels import ChannelGuards

        guards = ChannelGuards(context=context, embedder=getattr(self.engine, "embedder", None))

        class _Session:
            async def feed(self, channel: str, chunk: str, end: bool = False) -> Any:
                return guards.feed(channel, chunk, end=end)

            async def close(self) -> None:
                pass

        return _Session()

    async def close(self) -> None:
        pass


class _AsyncRemote:
    def __init__(self, settings: ChannelSettings, timeout: float | None) -> None:
        self._settings = settings
        self._target = self._settings.label
        self._timeout = timeout
        self._metadata = self._settings.metadata
        self._channel: Any = None
        self._stub: Any = None

    def _connect(self) -> Any:
        """The stub, opening the channel in the running loop on first use."""
        if self._stub is None:
            import grpc

            from plateau.v1 import plateau_pb2_grpc

            self._channel = self._settings.open(grpc.aio)
            self._stub = plateau_pb2_grpc.PlateauStub(self._channel)  # type: ignore[no-untyped-call]
        return self._stub

    def _error(self, exc: Any) -> PlateauError:
        from plateau.rpc_errors import error_from_rpc

        return error_from_rpc(exc, self._target)

    async def _unary(self, method: str, request: Any) -> Any:
        import grpc

        stub = self._connect()
        try:
            return await getattr(stub, method)(request, timeout=self._timeout, metadata=self._metadata)
        except grpc.RpcError as exc:
            raise self._error(exc) from None

    async def observe(self, run_id: str, step: Step, context: str | None, tool_policy: Mapping[str, Any] | None = None) -> Verdict:
        from plateau import convert
        from plateau.v1 import plateau_pb2 as pb

        policy = convert.tool_policy_to_pb(tool_policy)
        request = pb.ObserveRequest(run_id=run_id, step=convert.step_to_pb(step), context=context or "", tool_policy=policy)
        return convert.verdict_from_pb(await self._unary("Observe", request))

    async def check(self, run_id: str, step: Step, context: str | None, tool_policy: Mapping[str, Any] | None = None) -> Verdict:
        from plateau import convert
        from plateau.v1 import plateau_pb2 as pb

        policy = convert.tool_policy_to_pb(tool_policy)
        request = pb.CheckRequest(run_id=run_id, step=convert.step_to_pb(step), context=context or "", tool_policy=policy)
        return convert.verdict_from_pb(await self._unary("Check", request))

    async def observe_many(self, run_id: str, steps: AsyncIterator[Step], context: str | None) -> AsyncIterator[Verdict]:
        import grpc

        from plateau import convert
        from plateau.v1 import plateau_pb2 as pb

        async def requests() -> AsyncIterator[Any]:
            async for s in steps:
                yield pb.ObserveRequest(run_id=run_id, step=convert.step_to_pb(s), context=context or "")

        call = self._connect().ObserveStream(requests(), metadata=self._metadata)
        try:
            async for msg in call:
                yield convert.verdict_from_pb(msg)
        except grpc.RpcError as exc:
            raise self._error(exc) from None
        finally:
            call.cancel()

    async def _run_call(self, method: str, request: Any) -> RunInfo:
        from plateau import convert

        return convert.run_info_from_pb(await self._unary(method, request))

    async def get_run(self, run_id: str) -> RunInfo:
        from plateau.v1 import plateau_pb2 as pb

        return await self._run_call("GetRun", pb.GetRunRequest(run_id=run_id))

    async def reset_run(self, run_id: str) -> RunInfo:
        from plateau.v1 import plateau_pb2 as pb

        return await self._run_call("ResetRun", pb.ResetRunRequest(run_id=run_id))

    async def list_runs(self, page_size: int, token: str) -> tuple[list[RunSummary], str]:
        from plateau import convert
        from plateau.v1 import plateau_pb2 as pb

        msg = await self._unary("ListRuns", pb.ListRunsRequest(page_size=page_size, page_token=token))
        return [convert.run_summary_from_pb(r) for r in msg.runs], msg.next_page_token

    async def run_history(self, run_id: str, page_size: int, token: str) -> tuple[RunHistory, str]:
        from plateau import convert
        from plateau.v1 import plateau_pb2 as pb

        request = pb.GetRunHistoryRequest(run_id=run_id, page_size=page_size, page_token=token)
        return convert.run_history_from_pb(await self._unary("GetRunHistory", request))

    async def end_run(self, run_id: str) -> RunInfo:
        from plateau.v1 import plateau_pb2 as pb

        return await self._run_call("EndRun", pb.EndRunRequest(run_id=run_id))

    async def delete_run(self, run_id: str) -> RunInfo:
        from plateau.v1 import plateau_pb2 as pb

        return await self._run_call("DeleteRun", pb.DeleteRunRequest(run_id=run_id))

    async def guard_stream(self, pairs: AsyncIterator[tuple[str, str, bool]], context: str = "") -> AsyncIterator[Any]:
        import grpc

        from plateau import convert
        from plateau.v1 import plateau_pb2 as pb

        call = self._connect().GuardStream(metadata=self._metadata)
        try:
            async for channel, chunk, end in pairs:
                await call.write(pb.GuardRequest(channel=channel, chunk=chunk, context=context, end=end))
                context = ""  # the request travels with the first chunk only
                msg = await call.read()
                if msg is grpc.aio.EOF:
                    break
                yield convert.guard_result_from_pb(msg)[1]
            await call.done_writing()
        except grpc.RpcError as exc:
            raise self._error(exc) from None
        finally:
            call.cancel()

    def guard_session(self, context: str = "") -> Any:
        return _AsyncRemoteGuardSession(self, context)

    async def close(self) -> None:
        if self._channel is not None:
            await self._channel.close()
            self._channel = None
            self._stub = None


class _AsyncRemoteGuardSession:
    """One open ``GuardStream`` call: each ``feed`` writes a chunk and reads its verdict."""

    def __init__(self, remote: _AsyncRemote, context: str = "") -> None:
        self._remote = remote
        self._context = context
        self._call: Any = None

    async def feed(self, channel: str, chunk: str, end: bool = False) -> Any:
        import grpc

        from plateau import convert
        from plateau.v1 import plateau_pb2 as pb

        if self._call is None:
            self._call = self._remote._connect().GuardStream(metadata=self._remote._metadata)
        try:
            await self._call.write(pb.GuardRequest(channel=channel, chunk=chunk, context=self._context, end=end))
            self._context = ""
            msg = await self._call.read()
        except grpc.RpcError as exc:
            raise self._remote._error(exc) from None
        if msg is grpc.aio.EOF:  # the server ended the call: its status says why
            code = await self._call.code()
            raise self._remote._error(_Ended(code, await self._call.details(), await self._call.trailing_metadata()))
        return convert.guard_result_from_pb(msg)[1]

    async def close(self) -> None:
        if self._call is not None:
            self._call.cancel()
            self._call = None


class _Ended:
    """A finished call's status, shaped like an ``RpcError`` for :func:`~plateau.rpc_errors.error_from_rpc`."""

    def __init__(self, code: Any, details: str | None, trailing: Any) -> None:
        self._code, self._details, self._trailing = code, details, trailing

    def code(self) -> Any:
        return self._code

    def details(self) -> str | None:
        return self._details

    def trailing_metadata(self) -> Any:
        return self._trailing


AsyncClient._kinds = (_AsyncLocal, _AsyncRemote)  # defined after AsyncClient
