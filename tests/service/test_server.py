"""The gRPC service on a real socket: verdicts, streams, run calls, health, reflection, errors."""

from __future__ import annotations

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from plateau.client import Client
from plateau.errors import InvalidArgument, RunNotFound, StepConflict
from plateau.types import Action, Step
from plateau.v1 import plateau_pb2 as pb
from plateau.v1 import plateau_pb2_grpc


@pytest.fixture()
def stub(hashing_server: str):  # type: ignore[no-untyped-def]
    """A raw stub on the live test server."""
    with grpc.insecure_channel(hashing_server) as channel:
        yield plateau_pb2_grpc.PlateauStub(channel)


def _code(call, *args) -> grpc.StatusCode:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.RpcError) as info:
        call(*args)
    return info.value.code()


def test_observe_and_run_calls_over_the_wire(hashing_server: str) -> None:
    """Observe, GetRun, ResetRun and EndRun work over a real socket through the client."""
    with Client.remote(hashing_server) as client:
        v = client.observe("wire-1", Step(index=0, text="hello"), context="say hello")
        assert v.action is Action.CONTINUE and v.run_id == "wire-1" and v.step_index == 0
        info = client.get_run("wire-1")
        assert info.steps == 1 and info.context == "say hello" and info.last_verdict == v
        assert client.reset_run("wire-1").steps == 0
        assert client.end_run("wire-1").ended


def test_observe_stream_keeps_order(hashing_server: str) -> None:
    """ObserveStream answers one verdict per step, in order."""
    with Client.remote(hashing_server) as client:
        verdicts = list(client.observe_many("wire-2", [Step(index=i, text=f"step number {i} of a long story") for i in range(10)]))
    assert [v.step_index for v in verdicts] == list(range(10))


def test_domain_errors_map_to_status_codes(hashing_server: str) -> None:
    """The client sees the same exceptions as in process: InvalidArgument, RunNotFound, StepConflict."""
    with Client.remote(hashing_server) as client:
        with pytest.raises(InvalidArgument) as info:
            client.observe("", Step(index=0))
        assert info.value.field == "run_id"
        with pytest.raises(RunNotFound):
            client.get_run("no-such-run")
        client.observe("wire-3", Step(index=0, text="a"))
        with pytest.raises(StepConflict):
            client.observe("wire-3", Step(index=5, text="b"))


BAD_REQUESTS = [
    (pb.ObserveRequest(run_id="", step=pb.Step(index=0)), "run_id"),
    (pb.ObserveRequest(run_id="b1", step=pb.Step(index=-1)), "step.index"),
    (pb.ObserveRequest(run_id="b1", step=pb.Step(index=0, args_json=b"[1]")), "step.args"),
    (pb.ObserveRequest(run_id="b1", step=pb.Step(index=0, args_json=b'{"a": "\xff"}')), "step.args"),
    (pb.ObserveRequest(run_id="b1", step=pb.Step(index=0, status=7)), "step.status"),
    (pb.ObserveRequest(run_id="b1"), "step"),
]


@pytest.mark.parametrize(("request_msg", "field"), BAD_REQUESTS)
def test_bad_requests_are_invalid_argument_naming_the_field(stub, request_msg, field: str) -> None:  # type: ignore[no-untyped-def]
    """Each malformed request is INVALID_ARGUMENT whose message starts with the field name."""
    with pytest.raises(grpc.RpcError) as info:
        stub.Observe(request_msg)
    assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert info.value.details().startswith(field)


def test_invalid_utf8_in_a_string_field_is_invalid_argument(hashing_server: str) -> None:
    """Raw bytes that are not UTF-8 in a string field are INVALID_ARGUMENT, never INTERNAL."""
    step = pb.Step(index=0)
    raw = b"\x12\x04" + b"ab\xff\xfe"  # field 2 (text) with invalid UTF-8
    request = (
        pb.ObserveRequest(run_id="utf").SerializeToString()
        + b"\x12"
        + bytes([len(step.SerializeToString() + raw)])
        + step.SerializeToString()
        + raw
    )
    with grpc.insecure_channel(hashing_server) as channel:
        call = channel.unary_unary("/plateau.v1.Plateau/Observe", request_serializer=None, response_deserializer=None)
        with pytest.raises(grpc.RpcError) as info:
            call(request)
    assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT


def test_rejected_request_leaves_the_run_unchanged(hashing_server: str, stub) -> None:  # type: ignore[no-untyped-def]
    """A refused step does not advance or alter the run."""
    with Client.remote(hashing_server) as client:
        client.observe("keep", Step(index=0, text="first"))
        before = client.get_run("keep")
        assert (
            _code(stub.Observe, pb.ObserveRequest(run_id="keep", step=pb.Step(index=1, args_json=b"nope")))
            is grpc.StatusCode.INVALID_ARGUMENT
        )
        assert client.get_run("keep") == before


def test_health_and_reflection(hashing_server: str) -> None:
    """The standard health service says SERVING and reflection lists plateau.v1.Plateau."""
    with grpc.insecure_channel(hashing_server) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        assert health.Check(health_pb2.HealthCheckRequest(service="plateau.v1.Plateau")).status == health_pb2.HealthCheckResponse.SERVING
        refl = reflection_pb2_grpc.ServerReflectionStub(channel)
        responses = refl.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
        names = {s.name for r in responses for s in r.list_services_response.service}
    assert "plateau.v1.Plateau" in names and "grpc.health.v1.Health" in names
