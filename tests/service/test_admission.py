"""One admission path for every call, tenants' shares, work that outlives its caller, and store
health (issue 22, items 2, 3, 4, 6, 7, 8): a real server on loopback, counts and codes only."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from plateau.auth import TokenTable
from plateau.cli import ServerThread
from plateau.client import Client
from plateau.config import Config
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.errors import LimitExceeded, RunNotFound, StoreUnavailable
from plateau.server import start_server
from plateau.store.sqlite import SqliteStore
from plateau.types import Step
from plateau.v1 import plateau_pb2 as pb
from tests.support.embedders import GatedEmbedder
from tests.support.waiting import wait_health as _wait_health
from tests.support.waiting import wait_until as _wait_until

TOKEN_A = "tok-alpha-0123456789abcdef"
TOKEN_B = "tok-beta-0123456789abcdef"
OBSERVE = "/plateau.v1.Plateau/Observe"


def _tenants() -> TokenTable:
    return TokenTable([("alpha", TOKEN_A), ("beta", TOKEN_B)])


def _auth(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


def _request(run: str, index: int = 0, **step: Any) -> pb.ObserveRequest:
    return pb.ObserveRequest(run_id=run, step=pb.Step(index=index, text=step.pop("text", f"step {index} of {run}"), **step))


def _entered(gated: GatedEmbedder) -> int:
    """Embedder calls so far (drains the semaphore)."""
    n = 0
    while gated.entered.acquire(blocking=False):
        n += 1
    return n


# ----------------------------------------------------------------------------- shares
def test_shares_guarantee_each_known_tenant_its_part_and_lend_only_unreserved_units() -> None:
    """Four units between two tenants: each always gets two, whatever the other holds; with one tenant, all four."""
    from plateau.admission import Shares

    s = Shares(4, ["a", "b"])
    for _ in range(2):
        assert s.fits("a")
        s.take("a")
    assert not s.fits("a")  # b's two are reserved for b
    assert s.fits("b") and s.fits("b", 2) and not s.fits("b", 3)
    s.take("b", 2)
    s.give("a")
    assert s.fits("a") and not s.fits("b")
    s.give("a")
    s.give("b", 2)
    assert (s.total, s.reserved, dict(s.used)) == (0, 4, {})
    solo = Shares(4, [])
    solo.take("", 4)
    assert not solo.fits("")


# ----------------------------------------------------------------------------- item 2: Check is admitted like Observe
def test_check_waits_for_a_work_slot_and_is_refused_when_the_queue_is_full() -> None:
    """With one work slot busy, a Check waits its turn like an Observe (it does not reach the engine), and with the queue
    full it is RESOURCE_EXHAUSTED; once the slot frees, every waiting call, the Check included, is answered."""
    gated = GatedEmbedder()
    engine = Engine(Config(max_concurrent_rpcs=1), gated)
    with ServerThread(engine) as server, Client.remote(server.target) as client, ThreadPoolExecutor(6) as pool:
        work = server.running.service.admission.work
        first = pool.submit(client.observe, "r0", Step(index=0, text="first"))
        assert gated.entered.acquire(timeout=30)
        check = pool.submit(client.check, "r0", Step(index=1, text="what if"))
        _wait_until(lambda: work.waiting == 1)
        assert _entered(gated) == 0  # the Check waits: it has not reached the engine
        waiting = [pool.submit(client.observe, f"r{i}", Step(index=0, text=f"call {i}")) for i in range(1, 4)]
        _wait_until(lambda: work.waiting == 4)
        with pytest.raises(LimitExceeded, match="calls"):
            client.check("r0", Step(index=1, text="one too many"))
        gated.open.set()
        assert first.result(timeout=30).step_index == 0
        assert check.result(timeout=30).step_index == 1
        assert [f.result(timeout=30).step_index for f in waiting] == [0, 0, 0]
        assert client.get_run("r0").steps == 1  # the Check changed nothing


# ----------------------------------------------------------------------------- item 3: work outlives its caller
def test_a_call_cancelled_at_its_deadline_keeps_its_slot_until_its_work_ends_and_queued_work_is_dropped() -> None:
    """A step whose deadline passes while the engine works on it keeps its work slot until the work really ends (the next
    call waits instead of running beside it), and its work stops at its next checkpoint without applying the step; a call
    whose deadline passes while it waits never runs."""
    gated = GatedEmbedder()
    engine = Engine(Config(max_concurrent_rpcs=1), gated)
    with ServerThread(engine) as server, grpc.insecure_channel(server.target) as channel, ThreadPoolExecutor(2) as pool:
        work = server.running.service.admission.work
        observe = channel.unary_unary(OBSERVE, pb.ObserveRequest.SerializeToString, pb.Verdict.FromString)
        with pytest.raises(grpc.RpcError) as info:
            early = pool.submit(observe, _request("late"), timeout=5.0)  # long enough to reach the engine on a loaded machine
            assert gated.entered.acquire(timeout=30)
            early.result(timeout=30)
        assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
        assert work.active == 1  # its work still runs in the engine: the slot stays taken
        dropped = pool.submit(observe, _request("dropped"), timeout=1.0)
        with pytest.raises(grpc.RpcError) as info:
            dropped.result(timeout=30)
        assert info.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
        # the server's deadline is the client's plus the time the request took to arrive: wait
        # until the server has dropped the call too, before a slot can come free
        _wait_until(lambda: work.waiting == 0)
        after = pool.submit(observe, _request("after"), timeout=30)
        _wait_until(lambda: work.waiting == 1)
        assert _entered(gated) == 0  # nothing ran beside the cancelled work
        gated.open.set()
        assert after.result(timeout=30).run_id == "after"
        _wait_until(lambda: work.active == 0)
    with pytest.raises(RunNotFound):  # the cancelled step's work stopped at its next checkpoint, leaving no trace
        engine.get_run("late")
    with pytest.raises(RunNotFound):  # the call dropped while it waited never reached the engine
        engine.get_run("dropped")


# ----------------------------------------------------------------------------- item 6: tenants' shares
def _open_stream(channel: grpc.Channel, token: str) -> tuple[Any, threading.Event]:
    """An ObserveStream held open after one answered step; returns (responses, release)."""
    release = threading.Event()
    first = _request(f"held-{id(release)}")

    def requests() -> Iterator[pb.ObserveRequest]:
        yield first
        release.wait(60)

    call = channel.stream_stream("/plateau.v1.Plateau/ObserveStream", pb.ObserveRequest.SerializeToString, pb.Verdict.FromString)
    responses = call(requests(), metadata=_auth(token), timeout=60)
    return responses, release


def test_one_tenant_holding_streams_cannot_lock_another_out() -> None:
    """Four stream slots between two tenants: alpha gets its two and no more, beta still opens its two."""
    engine = Engine(Config(max_concurrent_streams=4), HashingEmbedder())
    with ServerThread(engine, auth=_tenants()) as server, grpc.insecure_channel(server.target) as channel:
        held = []
        codes = []
        for _ in range(4):
            responses, release = _open_stream(channel, TOKEN_A)
            held.append((responses, release))  # a call object dropped is cancelled: keep it
            try:
                next(responses)
                codes.append(grpc.StatusCode.OK)
            except grpc.RpcError as exc:
                codes.append(exc.code())
                assert "share" in (exc.details() or "")
        assert codes == [grpc.StatusCode.OK] * 2 + [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2
        for _ in range(2):
            responses, release = _open_stream(channel, TOKEN_B)
            held.append((responses, release))
            assert next(responses).step_index == 0
        assert server.running.service.admission.streams.total == 4
        for _, release in held:
            release.set()


def test_one_tenant_filling_the_work_slots_cannot_hold_up_another() -> None:
    """Two work slots between two tenants: alpha's second call waits for alpha's own slot while beta's call starts at once."""
    gated = GatedEmbedder()
    engine = Engine(Config(max_concurrent_rpcs=2), gated)
    with (ServerThread(engine, auth=_tenants()) as server, Client.remote(server.target, token=TOKEN_A) as alpha,
          Client.remote(server.target, token=TOKEN_B) as beta, ThreadPoolExecutor(4) as pool):
        work = server.running.service.admission.work
        calls = [pool.submit(alpha.observe, "a0", Step(index=0, text="alpha first"))]
        assert gated.entered.acquire(timeout=30)
        calls.append(pool.submit(alpha.observe, "a1", Step(index=0, text="alpha second")))
        _wait_until(lambda: work.waiting == 1)
        calls.append(pool.submit(beta.observe, "b0", Step(index=0, text="beta first")))
        assert gated.entered.acquire(timeout=30)  # beta reached the engine while alpha's second call waits
        assert work.waiting == 1 and dict(work.slots.used) == {"alpha": 1, "beta": 1}
        gated.open.set()
        assert sorted(f.result(timeout=30).run_id for f in calls) == ["a0", "a1", "b0"]


def test_one_tenant_filling_the_request_bytes_cannot_lock_another_out() -> None:
    """Large requests of one tenant are refused once they hold its share of the request bytes, so another tenant's large
    request is still accepted (it waits its turn and is answered)."""
    gated = GatedEmbedder()
    engine = Engine(Config(max_message_bytes=64 * 1024), gated)
    big = "x " * 30_000  # 60 KB
    with (ServerThread(engine, auth=_tenants()) as server, Client.remote(server.target, token=TOKEN_A) as alpha,
          Client.remote(server.target, token=TOKEN_B) as beta, ThreadPoolExecutor(12) as pool):
        admission = server.running.service.admission
        calls = []
        refused = 0
        for i in range(10):
            future = pool.submit(alpha.observe, f"a{i}", Step(index=0, text=f"alpha {i}", tool="read", result=big))
            _wait_until(lambda f=future, i=i: f.done() or admission.held_by["alpha"] >= (i + 1) * 60_000)
            if future.done():
                with pytest.raises(LimitExceeded, match="this tenant"):
                    future.result()
                refused += 1
            else:
                calls.append(future)
        assert refused >= 1 and admission.held_by["alpha"] <= admission.tenant_held_budget
        answer = pool.submit(beta.observe, "b0", Step(index=0, text="beta", tool="read", result=big))
        _wait_until(lambda: admission.held_by["beta"] > 0)
        gated.open.set()
        assert answer.result(timeout=30).run_id == "b0"
        assert len([f.result(timeout=30) for f in calls]) == 10 - refused


# ----------------------------------------------------------------------------- item 7: args size before parsing
def test_args_over_the_limit_are_refused_before_they_are_parsed() -> None:
    """Args of more than max_field_chars bytes are INVALID_ARGUMENT naming step.args even when their canonical form would be
    tiny (2 MB of whitespace around one key): the size is checked on the bytes, before any JSON parse."""
    engine = Engine(embedder=HashingEmbedder())
    padded = b'{"a": ' + b" " * 2_000_000 + b"1}"
    with ServerThread(engine) as server, grpc.insecure_channel(server.target) as channel:
        for method in ("Observe", "Check"):
            call = channel.unary_unary(f"/plateau.v1.Plateau/{method}", lambda m: m.SerializeToString(), pb.Verdict.FromString)
            message = (pb.ObserveRequest if method == "Observe" else pb.CheckRequest)(
                run_id="r", step=pb.Step(index=0, text="x", tool="t", args_json=padded))
            with pytest.raises(grpc.RpcError) as info:
                call(message, timeout=30)
            assert info.value.code() is grpc.StatusCode.INVALID_ARGUMENT
            assert "step.args" in (info.value.details() or "") and "before parsing" in (info.value.details() or "")


# ----------------------------------------------------------------------------- item 8: bodies read after auth, in time
def _stalled(channel: grpc.Channel, metadata: list[tuple[str, str]] | None, timeout: float) -> tuple[grpc.StatusCode, str]:
    """A call to Observe that sends its headers and never its message."""
    never = threading.Event()

    def nothing() -> Iterator[bytes]:
        never.wait(timeout + 5)
        return
        yield b""  # an iterator that yields nothing until released

    call = channel.stream_unary(OBSERVE, lambda b: b, lambda b: b)
    try:
        call(nothing(), metadata=metadata, timeout=timeout)
    except grpc.RpcError as exc:
        return exc.code(), exc.details() or ""
    finally:
        never.set()
    return grpc.StatusCode.OK, ""


def test_a_request_without_a_token_is_refused_before_its_body_arrives() -> None:
    """A call without a valid token is UNAUTHENTICATED from its metadata alone: a request whose body never comes is
    closed at once instead of holding the server until its deadline."""
    engine = Engine(embedder=HashingEmbedder())
    with ServerThread(engine, auth=_tenants()) as server, grpc.insecure_channel(server.target) as channel:
        for metadata in (None, _auth("tok-nobody-0123456789abcdef")):
            code, _ = _stalled(channel, metadata, timeout=20)
            assert code is grpc.StatusCode.UNAUTHENTICATED


def test_a_stalled_request_body_is_closed_after_request_read_seconds() -> None:
    """A valid caller whose body does not arrive within request_read_seconds gets DEADLINE_EXCEEDED saying so, its receive
    slot is given back, and the tenant's next call is answered."""
    engine = Engine(Config(request_read_seconds=0.5), HashingEmbedder())
    with (ServerThread(engine, auth=_tenants()) as server, grpc.insecure_channel(server.target) as channel,
          Client.remote(server.target, token=TOKEN_A) as alpha):
        code, details = _stalled(channel, _auth(TOKEN_A), timeout=20)
        assert code is grpc.StatusCode.DEADLINE_EXCEEDED and "did not arrive" in details
        assert server.running.service.admission.receive.active == 0
        assert alpha.observe("r", Step(index=0, text="whole")).step_index == 0


# ----------------------------------------------------------------------------- item 4: health follows the store
def test_health_follows_the_store_without_any_call_and_logs_why(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A store that cannot write turns health NOT_SERVING by the periodic probe alone (no call fails first), the reason is
    logged, a step then says the store is out of service (never "retrying is safe"), and health returns once it can write."""
    store = SqliteStore(tmp_path / "runs.sqlite")
    engine = Engine(Config(health_probe_seconds=0.1), HashingEmbedder(), store=store)
    with (caplog.at_level(logging.ERROR, logger="plateau.server"), ServerThread(engine) as server,
          Client.remote(server.target) as client, grpc.insecure_channel(server.target) as channel):
        health = health_pb2_grpc.HealthStub(channel)
        assert client.observe("r", Step(index=0, text="first")).step_index == 0
        with store._lock:
            store._db.execute("PRAGMA query_only=1")
        _wait_health(health, health_pb2.HealthCheckResponse.NOT_SERVING)
        assert any("read-only" in r.getMessage() and "NOT_SERVING" in r.getMessage() for r in caplog.records)
        with pytest.raises(StoreUnavailable) as info:
            client.observe("r", Step(index=1, text="second"))
        assert "retrying is safe" not in info.value.message and "out of service" in info.value.message
        with store._lock:
            store._db.execute("PRAGMA query_only=0")
        _wait_health(health, health_pb2.HealthCheckResponse.SERVING)
        assert client.observe("r", Step(index=1, text="second")).step_index == 1
    engine.close()


def test_a_store_that_bounds_its_own_probe_keeps_its_reason_at_the_default_interval(tmp_path: Path) -> None:
    """A store with a ``probe_timeout`` of its own (Redis) fails its probe with its own reason: the server's backstop
    wait is a second longer, never the same length (at the default 1 s interval both were 1 s, and the server's
    "did not answer a probe" could replace "Redis did not answer in time")."""
    import time as _time

    from plateau.server import _StoreHealth

    class SlowToFail(SqliteStore):
        probe_timeout = 1.0
        failing = False

        def probe(self) -> tuple[bool, str]:
            if not self.failing:
                return super().probe()
            _time.sleep(self.probe_timeout + 0.2)  # its own timeout, with a client's slack
            return False, "the store's own reason"

    store = SlowToFail(tmp_path / "runs.sqlite")
    engine = Engine(embedder=HashingEmbedder(), store=store)
    assert engine.config.health_probe_seconds == 1.0

    async def scenario() -> tuple[bool, str]:
        running = await start_server(engine, "127.0.0.1", 0)
        try:
            watch: _StoreHealth = running.store_health
            store.failing = True
            return await watch.probe()
        finally:
            store.failing = False
            await running.stop(0)

    ok, cause = asyncio.run(scenario())
    engine.close()
    assert (ok, cause) == (False, "the store's own reason")


def test_a_transient_store_error_says_retrying_is_safe_only_while_the_store_answers(tmp_path: Path) -> None:
    """The wording follows a fresh probe: a failed write of a store that answers its probe says "retrying is safe"."""
    from plateau.server import _StoreHealth

    store = SqliteStore(tmp_path / "runs.sqlite")
    engine = Engine(embedder=HashingEmbedder(), store=store)

    async def scenario() -> tuple[str, str]:
        running = await start_server(engine, "127.0.0.1", 0)
        try:
            watch: _StoreHealth = running.store_health
            error = StoreUnavailable("store: write failed: database is locked; the change was not applied, retrying is safe")
            fine = await watch.message(error)
            with store._lock:
                store._db.execute("PRAGMA query_only=1")
            broken = await watch.message(error)
            with store._lock:
                store._db.execute("PRAGMA query_only=0")
            return fine, broken
        finally:
            await running.stop(0)

    fine, broken = asyncio.run(scenario())
    engine.close()
    assert fine.count("retrying is safe") == 1
    assert "retrying is safe" not in broken and "read-only" in broken


def test_a_server_whose_store_fails_its_probe_refuses_to_start(tmp_path: Path) -> None:
    """start_server (and so ``plateau serve``) refuses to serve a store that fails its probe, naming the reason."""
    store = SqliteStore(tmp_path / "runs.sqlite")
    store._db.execute("PRAGMA query_only=1")
    engine = Engine(embedder=HashingEmbedder(), store=store)
    with pytest.raises(StoreUnavailable, match="read-only.*refusing to serve"):
        asyncio.run(start_server(engine, "127.0.0.1", 0))
    engine.close()


def test_health_turns_not_serving_while_redis_is_paused_and_serving_once_it_answers() -> None:
    """A real Redis stopped with SIGSTOP turns health NOT_SERVING by the periodic probe (no call needed), with the reason
    logged; SIGCONT brings it back to SERVING, and the run continues."""
    import importlib.util
    import os
    import signal

    from tests.support.redis_proc import RedisProcess, redis_server_binary

    if redis_server_binary() is None or importlib.util.find_spec("redis") is None:
        pytest.skip("redis-server or redis-py is not installed")
    from plateau.store.redis_store import RedisStore

    with RedisProcess() as redis_server:
        store = RedisStore(redis_server.url, timeout=0.5)
        engine = Engine(Config(health_probe_seconds=0.2), HashingEmbedder(), store=store)
        with (ServerThread(engine) as server, Client.remote(server.target) as client,
              grpc.insecure_channel(server.target) as channel):
            health = health_pb2_grpc.HealthStub(channel)
            assert client.observe("r", Step(index=0, text="first")).step_index == 0
            _wait_health(health, health_pb2.HealthCheckResponse.SERVING)
            os.kill(redis_server.proc.pid, signal.SIGSTOP)
            try:
                _wait_health(health, health_pb2.HealthCheckResponse.NOT_SERVING)
            finally:
                os.kill(redis_server.proc.pid, signal.SIGCONT)
            _wait_health(health, health_pb2.HealthCheckResponse.SERVING)
            assert client.observe("r", Step(index=1, text="second")).step_index == 1
        engine.close()


def test_the_request_bytes_a_server_admits_are_bounded_by_a_stated_multiple_of_the_largest_request() -> None:
    """Issue 22 #8: with default limits, the raw request bytes admitted at once (being received plus held) are at most
    8 x max_message_bytes and all request memory, parsed copies included, at most 18 x; one tenant holding requests of
    max_message_bytes is refused its fifth (held budget 4 x), before any is parsed."""
    from plateau.admission import Admission

    config = Config()
    m = config.max_message_bytes
    admission = Admission(config)
    assert admission.byte_budget == 2 * m and admission.held_budget == 4 * m and admission.receive.slots.capacity == 2
    assert admission.request_bytes_bound == 8 * m and admission.request_memory_bound == 18 * m
    held = 0
    with pytest.raises(LimitExceeded, match="held, the server's limit"):
        for _ in range(12):
            admission.hold("", m)
            held += 1
    assert held == 4 and admission.held == 4 * m


# ----------------------------------------------------------------------------- refusals in the metrics
def _refused(metrics: Any) -> dict[tuple[str, str], float]:
    """``plateau_refused_total`` by (reason, tenant), parsed from the Prometheus text."""
    from prometheus_client.parser import text_string_to_metric_families

    out: dict[tuple[str, str], float] = {}
    for family in text_string_to_metric_families(metrics.render()):
        for sample in family.samples:
            if sample.name == "plateau_refused_total":
                out[(sample.labels["reason"], sample.labels["tenant"])] = sample.value
    return out


def test_refusals_are_exported_by_reason_and_tenant(tmp_path: Path) -> None:
    """Calls refused by admission (streams over the tenant's share, request bytes over its share) and by the store's
    breaker (health NOT_SERVING) are counted in plateau_refused_total with their reason and tenant, one per refusal."""
    pytest.importorskip("prometheus_client")
    from plateau.metrics import Metrics

    store = SqliteStore(tmp_path / "runs.sqlite")
    engine = Engine(Config(max_concurrent_streams=4, health_probe_seconds=0.1), HashingEmbedder(), store=store)
    metrics = Metrics()
    with (ServerThread(engine, auth=_tenants(), metrics=metrics) as server, grpc.insecure_channel(server.target) as channel,
          Client.remote(server.target, token=TOKEN_B) as beta):
        assert _refused(metrics) == {}
        held, codes = [], []
        for _ in range(5):
            responses, release = _open_stream(channel, TOKEN_A)
            held.append((responses, release))
            try:
                next(responses)
                codes.append(grpc.StatusCode.OK)
            except grpc.RpcError as exc:
                codes.append(exc.code())
        assert codes == [grpc.StatusCode.OK] * 2 + [grpc.StatusCode.RESOURCE_EXHAUSTED] * 3
        for _, release in held:
            release.set()
        admission = server.running.service.admission
        admission.hold("beta", admission.tenant_held_budget)  # beta's share of request bytes is used up
        try:
            with pytest.raises(LimitExceeded, match="share"):
                beta.observe("b", Step(index=0, text="one step"))
        finally:
            admission.unhold("beta", admission.tenant_held_budget)
        with store._lock:
            store._db.execute("PRAGMA query_only=1")
        health = health_pb2_grpc.HealthStub(channel)
        _wait_health(health, health_pb2.HealthCheckResponse.NOT_SERVING)
        observe = channel.unary_unary(OBSERVE, request_serializer=pb.ObserveRequest.SerializeToString)
        for i in range(2):  # raw calls: one attempt each (the client retries UNAVAILABLE)
            with pytest.raises(grpc.RpcError) as info:
                observe(_request("b", text=f"step {i}"), metadata=_auth(TOKEN_B), timeout=10)
            assert info.value.code() == grpc.StatusCode.UNAVAILABLE
        with store._lock:
            store._db.execute("PRAGMA query_only=0")
        assert _refused(metrics) == {("streams_share", "alpha"): 3, ("request_bytes_share", "beta"): 1,
                                     ("store_out_of_service", "beta"): 2}
    engine.close()


def test_a_step_waiting_for_its_predecessor_keeps_its_converted_step_but_not_its_request_bytes() -> None:
    """Issue 22 #8: once a request is parsed and converted its raw bytes are dropped: while step 1 (3 MB of args)
    waits for step 0, which is being judged, no block of the request's size allocated by the server's receive is
    alive (counted with tracemalloc; before, the body stayed referenced until the call ended, by the handler and by
    gRPC's request iterator: one such block)."""
    import json
    import time
    import tracemalloc

    gated = GatedEmbedder()
    engine = Engine(Config(max_message_bytes=8 << 20, max_field_chars=7_000_000), gated)
    big = json.dumps({"blob": "x" * 3_000_000}).encode()
    request = _request("r", 1, tool="write_file", args_json=big)
    size = request.ByteSize()
    options = [("grpc.max_send_message_length", 16 << 20)]
    with ServerThread(engine) as server, grpc.insecure_channel(server.target, options=options) as channel, ThreadPoolExecutor(2) as pool:
        observe = channel.unary_unary(OBSERVE, request_serializer=pb.ObserveRequest.SerializeToString,
                                      response_deserializer=pb.Verdict.FromString)
        first = pool.submit(observe, _request("r", 0), timeout=60)
        assert gated.entered.acquire(timeout=30)  # step 0 is being embedded
        tracemalloc.start(16)
        try:
            second = pool.submit(observe, request, timeout=60)
            service = server.running.service
            for _ in range(600):
                if service.arrivals.count(("", "r")) >= 2:
                    break
                time.sleep(0.05)
            assert service.arrivals.count(("", "r")) == 2  # step 0 is judged, step 1 waits for it
            time.sleep(0.2)
            snapshot = tracemalloc.take_snapshot()
        finally:
            tracemalloc.stop()
        # the body is allocated by gRPC's receive (C code) with the server's read as the innermost Python frame
        received = [t for t in snapshot.traces if t.size >= size and t.traceback[-1].filename.endswith("plateau/server.py")]
        converted = [t for t in snapshot.traces if t.size >= len(big) and t.traceback[-1].filename.endswith("json/encoder.py")]
        gated.open.set()
        assert first.result(timeout=60).step_index == 0 and second.result(timeout=60).step_index == 1
    assert received == [], [str(t.traceback) for t in received]
    assert len(converted) >= 1  # the converted step (its canonical args) is what the waiting call keeps
    engine.close()


def test_a_call_whose_deadline_passed_before_its_turn_never_runs_even_with_a_free_slot() -> None:
    """A handler that starts after its call's deadline (a busy server) is ``Expired`` at once: its work never runs."""
    from concurrent.futures import ThreadPoolExecutor as Pool

    from plateau.admission import Admission, Expired

    ran: list[int] = []
    admission = Admission(Config())
    with Pool(1) as pool:
        with pytest.raises(Expired):
            asyncio.run(admission.run("", 0, -0.01, pool, lambda stop: ran.append(1)))
        assert asyncio.run(admission.run("", 0, 5.0, pool, lambda stop: ran.append(2) or 2)) == 2
    assert ran == [2] and admission.work.active == 0
