"""Run history: ListRuns and GetRunHistory on every store, through a real server, with auth."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from plateau.aio import AsyncClient
from plateau.auth import TokenTable
from plateau.cli import ServerThread
from plateau.client import Client
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.errors import InvalidArgument, RunNotFound, StoreUnavailable
from plateau.store.memory import MemoryStore
from plateau.store.sqlite import SqliteStore
from plateau.types import Action, BreakerState, RunHistory, Step
from plateau.v1 import plateau_pb2 as pb
from plateau.v1 import plateau_pb2_grpc
from tests.support.redis_proc import RedisProcess, redis_server_binary

TOKEN_A = "tok-a-0123456789abcdef"
TOKEN_B = "tok-b-0123456789abcdef"


class _Clock:
    """A clock that moves one second per reading (so every step gets its own time)."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def _looping(n: int) -> list[Step]:
    """A run that repeats one failing call: steered, then tripped."""
    return [Step(index=i, text="Let me run the tests again.", tool="run_tests", args='{"path": "tests/"}', result="1 failed")
            for i in range(n)]


def _healthy(n: int) -> list[Step]:
    return [Step(index=i, text=f"Reading file number {i} of the project, section {i * 7}.", tool="read",
                 args=json.dumps({"path": f"src/m{i}.py"}), result=f"def f{i}(): return {i}") for i in range(n)]


def _check_history(history: RunHistory, verdicts: list, run_id: str) -> None:
    assert history.run.run_id == run_id and history.run.steps == len(verdicts) == len(history.steps)
    assert list(history.verdicts) == verdicts
    assert [s.verdict.step_index for s in history.steps] == list(range(len(verdicts)))
    times = [s.time for s in history.steps]
    assert all(t is not None for t in times) and times == sorted(times) and len(set(times)) == len(times)
    assert history.run.last_action == verdicts[-1].action and history.run.state == verdicts[-1].state


# --------------------------------------------------------------------------- stores
@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_every_step_is_in_the_history_with_its_verdict_and_time(tmp_path: Path, kind: str) -> None:
    """Each accepted step's verdict (action, reasons, score, signals, message) and time; runs listed newest first."""
    store = MemoryStore() if kind == "memory" else SqliteStore(tmp_path / "runs.sqlite")
    engine = Engine(embedder=HashingEmbedder(), store=store, clock=_Clock())  # type: ignore[arg-type]
    loop = [engine.observe("loop", s) for s in _looping(14)]
    ok = [engine.observe("ok", s) for s in _healthy(5)]
    assert {v.action for v in loop} >= {Action.STEER, Action.TRIP}
    history, token = engine.run_history("loop")
    assert token == ""
    _check_history(history, loop, "loop")
    assert any(s.verdict.reasons and s.verdict.message for s in history.steps)
    runs, token = engine.list_runs()
    assert token == "" and [r.run_id for r in runs] == ["ok", "loop"]  # newest first
    assert runs[0].steps == 5 and runs[0].last_action == ok[-1].action and runs[1].last_action == Action.TRIP
    assert runs[1].state == BreakerState.OPEN and not runs[1].ended
    # pages: by run, and by step
    first, token = engine.list_runs(page_size=1)
    second, last = engine.list_runs(page_size=1, page_token=token)
    assert [r.run_id for r in first + second] == ["ok", "loop"] and last == ""
    pages, token = [], ""
    while True:
        page, token = engine.run_history("loop", page_size=4, page_token=token)
        pages.append(page)
        if not token:
            break
    assert [len(p.steps) for p in pages] == [4, 4, 4, 2]
    assert [s for p in pages for s in p.steps] == list(history.steps)
    # end and reset change the history as they change the run
    engine.end_run("ok")
    summary = next(r for r in engine.list_runs()[0] if r.run_id == "ok")
    assert summary.ended and summary.ended_at is not None
    engine.close()


def test_sqlite_history_survives_a_restart_and_a_failed_step_leaves_no_trace(tmp_path: Path) -> None:
    """The history is durable, and a step whose write fails is in neither the run nor its history."""
    path = tmp_path / "runs.sqlite"
    engine = Engine(embedder=HashingEmbedder(), store=SqliteStore(path), clock=_Clock())
    steps = _looping(10)
    verdicts = [engine.observe("r", s) for s in steps[:6]]
    db = sqlite3.connect(path)
    db.execute("CREATE TRIGGER fail_step BEFORE INSERT ON steps WHEN NEW.idx = 6 BEGIN SELECT RAISE(ABORT, 'disk trouble'); END")
    db.commit()
    with pytest.raises(StoreUnavailable):
        engine.observe("r", steps[6])
    history, _ = engine.run_history("r")
    assert history.run.steps == 6 and list(history.verdicts) == verdicts
    db.execute("DROP TRIGGER fail_step")
    db.commit()
    db.close()
    verdicts += [engine.observe("r", s) for s in steps[6:]]
    engine.close()
    reopened = Engine(embedder=HashingEmbedder(), store=SqliteStore(path))
    _check_history(reopened.run_history("r")[0], verdicts, "r")
    assert [r.run_id for r in reopened.list_runs()[0]] == ["r"]
    reopened.close()


def test_a_sqlite_file_without_step_times_gains_the_column(tmp_path: Path) -> None:
    """A file written before step times were kept opens; its old steps have no time, new ones do."""
    path = tmp_path / "runs.sqlite"
    engine = Engine(embedder=HashingEmbedder(), store=SqliteStore(path))
    for s in _healthy(3):
        engine.observe("r", s)
    engine.close()
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE steps DROP COLUMN at")
    db.commit()
    db.close()
    engine = Engine(embedder=HashingEmbedder(), store=SqliteStore(path))
    engine.observe("r", _healthy(4)[3])
    history, _ = engine.run_history("r")
    assert [s.time is None for s in history.steps] == [True, True, True, False]
    engine.close()


@pytest.mark.skipif(redis_server_binary() is None or importlib.util.find_spec("redis") is None, reason="redis-server or redis-py missing")
def test_redis_history_is_shared_by_replicas_and_reads_layout_1() -> None:
    """A second replica reads the same history and list; a run written in layout 1 reads with no times."""
    import redis

    from plateau.store.redis_store import RedisStore

    with RedisProcess() as server:
        a = Engine(embedder=HashingEmbedder(), store=RedisStore(server.url), clock=_Clock())
        verdicts = [a.observe("r", s) for s in _looping(9)]
        a.observe("other", _healthy(1)[0], tenant="beta")
        b = Engine(embedder=HashingEmbedder(), store=RedisStore(server.url))
        _check_history(b.run_history("r")[0], verdicts, "r")
        assert [r.run_id for r in b.list_runs()[0]] == ["r"]
        assert [r.run_id for r in b.list_runs(tenant="beta")[0]] == ["other"]
        # rewrite the run as layout 1 wrote it: [fingerprint, verdict] entries, fmt 1
        r = redis.Redis.from_url(server.url)
        h = RedisStore._h(("", "r"))
        key, meta = f"plateau:{{{h}}}:steps", f"plateau:{{{h}}}:meta"
        entries = [json.loads(e)[:2] for e in r.lrange(key, 0, -1)]
        r.delete(key)
        r.rpush(key, *[json.dumps(e) for e in entries])
        r.hset(meta, "fmt", 1)
        r.close()
        c = Engine(embedder=HashingEmbedder(), store=RedisStore(server.url))
        history, _ = c.run_history("r")
        assert list(history.verdicts) == verdicts and all(s.time is None for s in history.steps)
        for engine in (a, b, c):
            engine.close()


# --------------------------------------------------------------------------- server
@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Engine, str]]:
    """A live server with tenants alpha and beta, on loopback."""
    engine = Engine(embedder=HashingEmbedder())
    with ServerThread(engine, auth=TokenTable([("alpha", TOKEN_A), ("beta", TOKEN_B)])) as server:
        yield engine, server.target


def test_remote_and_local_clients_agree_and_tenants_see_only_their_runs(served: tuple[Engine, str]) -> None:
    """list_runs and run_history over gRPC equal the in-process ones; another tenant sees nothing and gets NOT_FOUND."""
    engine, target = served
    with Client.remote(target, token=TOKEN_A) as alpha, Client.remote(target, token=TOKEN_B) as beta:
        verdicts = list(alpha.observe_many("alpha-loop", _looping(12)))
        list(alpha.observe_many("alpha-ok", _healthy(3)))
        local = Client.local(engine=engine, tenant="alpha")
        remote_runs = alpha.list_runs()
        assert [r.run_id for r in remote_runs] == ["alpha-ok", "alpha-loop"]
        assert remote_runs == local.list_runs()
        history = alpha.run_history("alpha-loop")
        assert history == local.run_history("alpha-loop")
        assert list(history.verdicts) == verdicts and all(s.time is not None for s in history.steps)
        assert alpha.list_runs(limit=1) == remote_runs[:1]
        assert beta.list_runs() == []
        with pytest.raises(RunNotFound):
            beta.run_history("alpha-loop")

        async def via_async() -> tuple[list, RunHistory]:
            async with AsyncClient.remote(target, token=TOKEN_A) as client:
                return await client.list_runs(), await client.run_history("alpha-loop")

        runs, async_history = asyncio.run(via_async())
        assert runs == remote_runs and async_history == history

        async def via_async_local() -> tuple[list, RunHistory]:
            async with AsyncClient.local(engine=engine, tenant="alpha") as client:
                return await client.list_runs(), await client.run_history("alpha-loop")

        assert asyncio.run(via_async_local()) == (remote_runs, history)


def test_bad_requests_name_their_field_and_unknown_runs_are_not_found(served: tuple[Engine, str]) -> None:
    """page_size, page_token and run_id are INVALID_ARGUMENT naming the field; an unknown run NOT_FOUND; no token UNAUTHENTICATED."""
    engine, target = served
    with Client.remote(target, token=TOKEN_A) as client:
        client.observe("paged", _healthy(1)[0])
    metadata = (("authorization", f"Bearer {TOKEN_A}"),)
    with grpc.insecure_channel(target) as channel:
        stub = plateau_pb2_grpc.PlateauStub(channel)  # type: ignore[no-untyped-call]
        bad = [
            (stub.ListRuns, pb.ListRunsRequest(page_size=1001), "page_size"),
            (stub.ListRuns, pb.ListRunsRequest(page_size=-1), "page_size"),
            (stub.ListRuns, pb.ListRunsRequest(page_token="not-a-token"), "page_token"),
            (stub.GetRunHistory, pb.GetRunHistoryRequest(run_id=""), "run_id"),
            (stub.GetRunHistory, pb.GetRunHistoryRequest(run_id="paged", page_size=5000), "page_size"),
            (stub.GetRunHistory, pb.GetRunHistoryRequest(run_id="paged", page_token="-3"), "page_token"),
        ]
        for method, request, field in bad:
            with pytest.raises(grpc.RpcError) as info:
                method(request, metadata=metadata, timeout=10)
            assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, request
            assert info.value.details().startswith(field), info.value.details()
        with pytest.raises(grpc.RpcError) as info:
            stub.GetRunHistory(pb.GetRunHistoryRequest(run_id="no-such-run"), metadata=metadata, timeout=10)
        assert info.value.code() == grpc.StatusCode.NOT_FOUND
        for method, request in ((stub.ListRuns, pb.ListRunsRequest()), (stub.GetRunHistory, pb.GetRunHistoryRequest(run_id="paged"))):
            with pytest.raises(grpc.RpcError) as info:
                method(request, timeout=10)
            assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
        # bytes that do not parse (a string field holding invalid UTF-8): INVALID_ARGUMENT, never INTERNAL
        for method, raw in (("ListRuns", b"\x12\x01\xff"), ("GetRunHistory", b"\x0a\x01\xff")):
            call = channel.unary_unary(f"/plateau.v1.Plateau/{method}", lambda b: b, lambda b: b)
            with pytest.raises(grpc.RpcError) as info:
                call(raw, metadata=metadata, timeout=10)
            assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT and info.value.details().startswith("request")
        page = stub.GetRunHistory(pb.GetRunHistoryRequest(run_id="paged", page_size=1), metadata=metadata, timeout=10)
        assert len(page.steps) == 1 and page.next_page_token == "" and page.steps[0].HasField("time")
    with Client.remote(target, token=TOKEN_A) as client:
        with pytest.raises(InvalidArgument) as err:
            client.list_runs(limit=0)
        assert err.value.field == "limit"
