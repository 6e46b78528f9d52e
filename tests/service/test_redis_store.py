"""Several replicas on one real redis-server: steps apply once and in order, re-sends, restarts, outages, congruence."""

from __future__ import annotations

import importlib.util
import os
import signal
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from plateau.cli import ServerThread
from plateau.client import Client
from plateau.config import Config
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.errors import StepConflict, StoreUnavailable
from plateau.replay import load_runs
from plateau.store.base import StaleRecord
from plateau.store.redis_store import RedisStore
from plateau.store.sqlite import SqliteStore
from plateau.types import Step, Verdict
from tests.support.paths import EXAMPLES
from tests.support.redis_proc import RedisProcess, redis_server_binary
from tests.support.runs import applied_verdicts as _counting
from tests.support.runs import looping_run as _run

pytestmark = [
    pytest.mark.skipif(redis_server_binary() is None, reason="redis-server is not installed (.ci/run installs it)"),
    pytest.mark.skipif(importlib.util.find_spec("redis") is None, reason="redis-py is not installed (pip install '.[server]')"),
]


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisProcess]:
    """One redis-server on a free loopback port (temporary folder, no persistence) for this module."""
    with RedisProcess() as server:
        yield server


@pytest.fixture()
def url(redis_server: RedisProcess) -> str:
    """The server's URL, emptied before each test."""
    import redis

    with redis.Redis.from_url(redis_server.url) as r:
        r.flushdb()
    return redis_server.url


def _replica(url: str, embedder: object = None, config: Config | None = None) -> Engine:
    return Engine(config, embedder or HashingEmbedder(), store=RedisStore(url))  # type: ignore[arg-type]


def test_concurrent_steps_of_one_run_through_two_replicas_apply_once_in_order(url: str) -> None:
    """Two senders race every step of one run through both replicas (in opposite order): each step applies once, in order."""
    steps = _run(24, seed=5)
    reference = Engine(embedder=HashingEmbedder())
    expected = [reference.observe("r", s) for s in steps]
    a, b = _replica(url), _replica(url)
    applied_a, applied_b = _counting(a), _counting(b)
    got: dict[tuple[int, int], Verdict] = {}
    barrier = threading.Barrier(2)

    def sender(who: int) -> None:
        barrier.wait()
        for s in steps:
            replica = (a, b)[(s.index + who) % 2]
            got[(who, s.index)] = replica.observe("r", s)

    threads = [threading.Thread(target=sender, args=(who,)) for who in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(got[(who, i)] == expected[i] for i in range(len(steps)) for who in (0, 1))
    assert sorted(v.step_index for v in applied_a + applied_b) == list(range(len(steps)))  # once each
    assert applied_a and applied_b  # both replicas did work
    assert a.get_run("r") == b.get_run("r") == reference.get_run("r")


def test_a_step_waits_for_its_predecessor_in_flight_on_the_other_replica(url: str) -> None:
    """Step i sent to B while step i-1 is still being embedded on A waits for it through Redis, then applies in order."""
    steps = _run(6)
    reference = Engine(embedder=HashingEmbedder())
    expected = [reference.observe("r", s) for s in steps]
    release = threading.Event()

    class Held(HashingEmbedder):
        def encode(self, texts: Sequence[str]) -> np.ndarray:
            release.wait(30)
            return super().encode(texts)

    a, b = _replica(url, Held()), _replica(url)
    for s in steps[:3]:
        b.observe("r", s)
    out: dict[int, Verdict] = {}
    first = threading.Thread(target=lambda: out.__setitem__(3, a.observe("r", steps[3])))
    first.start()
    while 3 not in b.store.inflight(("", "r")):  # A has announced step 3
        threading.Event().wait(0.01)
    second = threading.Thread(target=lambda: out.__setitem__(4, b.observe("r", steps[4])))
    second.start()
    second.join(0.3)
    assert second.is_alive() and 4 not in out  # waiting for step 3, not refused as a gap
    release.set()
    first.join()
    second.join()
    assert out == {3: expected[3], 4: expected[4]}
    assert b.observe("r", steps[5]) == expected[5]


def test_a_resend_through_the_other_replica_gets_the_same_verdict_and_counts_once(url: str) -> None:
    """A step applied on A and sent again to B returns A's verdict; B applies nothing; a changed re-send conflicts."""
    steps = _run(8)
    a, b = _replica(url), _replica(url)
    applied_b = _counting(b)
    first = [a.observe("r", s) for s in steps]
    assert [b.observe("r", s) for s in steps] == first
    assert applied_b == [] and b.get_run("r").steps == 8
    with pytest.raises(StepConflict, match="different content"):
        b.observe("r", Step(index=3, text="something else"))


def test_a_replica_restart_loses_nothing(url: str) -> None:
    """Replicas stopped at any point and replaced by new ones continue every run exactly as one engine would."""
    steps = _run(16, seed=2)
    reference = Engine(embedder=HashingEmbedder())
    expected = [reference.observe("r", s, context="ship it") for s in steps]
    got = []
    replica = _replica(url)
    for i, s in enumerate(steps):
        if i in (3, 9, 10):
            replica.close()
            replica = _replica(url)  # a new process: nothing cached
        got.append(replica.observe("r", s, context="ship it" if i == 0 else None))
    assert got == expected
    assert replica.get_run("r") == reference.get_run("r")
    replica.end_run("r")
    assert _replica(url).get_run("r").ended


def test_a_change_raced_by_another_replica_is_refused_not_applied(url: str) -> None:
    """The compare-and-set: a record read before another replica's change cannot be written over it."""
    a, b = _replica(url), _replica(url)
    a.observe("r", Step(index=0, text="start"))
    record = a.store.get(("", "r"))
    b.observe("r", Step(index=1, text="next"))
    record.ended = True
    with pytest.raises(StaleRecord):
        a.store.update(("", "r"), record)
    assert not b.get_run("r").ended and a.get_run("r").steps == 2  # a re-read sees B's step


def test_reset_and_end_through_different_replicas(url: str) -> None:
    """Reset on one replica, steps on the other from index 0, end on the first: all replicas agree."""
    a, b = _replica(url), _replica(url)
    for s in _run(5):
        a.observe("r", s)
    assert b.reset_run("r").steps == 0
    reference = Engine(embedder=HashingEmbedder())
    for s in _run(4):
        assert a.observe("r", s) == reference.observe("r", s)
    assert b.end_run("r").ended and a.get_run("r").ended
    with pytest.raises(StepConflict, match="ended"):
        a.observe("r", Step(index=4, text="more"))


def test_retention_is_redis_expiry(url: str) -> None:
    """Each run's keys expire after the idle TTL, and after the ended TTL once ended; the tenant count follows."""
    import redis

    config = Config(idle_run_ttl_seconds=600, ended_run_ttl_seconds=60)
    a = _replica(url, config=config)
    a.observe("r", Step(index=0, text="x"), tenant="t1")
    r = redis.Redis.from_url(url)
    keys = [k for k in r.scan_iter("plateau:{*}:*") if not k.endswith(b":busy")]
    assert len(keys) == 3 and all(300_000 < r.pttl(k) <= 600_000 for k in keys)
    assert a.store.count("t1") == 1 and a.store.count("t2") == 0
    a.end_run("r", tenant="t1")
    assert all(0 < r.pttl(k) <= 60_000 for k in keys)
    a.store.delete(("t1", "r"))
    assert a.store.count("t1") == 0 and not list(r.scan_iter("plateau:{*}:meta"))


def test_state_in_redis_is_versioned_json_never_pickle(url: str) -> None:
    """What a replica writes is tagged JSON naming its format and version; a replica never unpickles anything."""
    import json

    import redis

    a = _replica(url)
    for s in _run(10):
        a.observe("r", s)
    r = redis.Redis.from_url(url)
    (meta,) = list(r.scan_iter("plateau:{*}:meta"))
    base = json.loads(r.hget(meta, "base"))
    assert base["format"] == "plateau.state" and base["version"] == 1
    for entry in r.lrange(meta.replace(b":meta", b":x"), 0, -1):
        assert isinstance(json.loads(entry)["ops"], list)
    r.hset(meta, "afmt", 999)  # a run saved by a Plateau whose trackers differ
    with pytest.raises(StoreUnavailable, match="analysis format 999; this Plateau reads format"):
        _replica(url).get_run("r")


def test_redis_unreachable_is_unavailable_with_a_message_never_a_wrong_verdict(tmp_path: Path) -> None:
    """A Redis that stops answering gives UNAVAILABLE naming the store; once it answers, the run continues exactly."""
    steps = _run(10)
    reference = Engine(embedder=HashingEmbedder())
    expected = [reference.observe("r", s) for s in steps]
    with RedisProcess() as server:
        store = RedisStore(server.url, timeout=0.5)
        engine = Engine(embedder=HashingEmbedder(), store=store)
        with ServerThread(engine, "127.0.0.1", 0) as srv, Client.remote(srv.target) as client:
            got = [client.observe("r", s) for s in steps[:4]]
            os.kill(server.proc.pid, signal.SIGSTOP)  # unreachable: connections hang
            try:
                for s in (steps[4], steps[3]):  # the next step, and a re-send
                    with pytest.raises(StoreUnavailable, match="^store: .*Redis did not answer in time") as info:
                        client.observe("r", s)
                    assert "127.0.0.1" not in str(info.value) and str(server.port) not in str(info.value)
            finally:
                os.kill(server.proc.pid, signal.SIGCONT)
            got += [client.observe("r", s) for s in steps[4:]]
            assert got == expected
            server.stop()  # gone: connection refused
            with pytest.raises(StoreUnavailable, match="^store: "):
                client.observe("r", Step(index=10, text="more"))
        assert store.errors >= 3
        engine.close()


def _congruence(url: str, tmp_path: Path, embedder: object) -> None:
    runs = [(run.id, run.context, [Step.from_dict(s, i) for i, s in enumerate(run.steps)]) for run in load_runs([EXAMPLES])]
    runs.append(("long", None, _run(40, seed=9)))

    def replay(engines: list[Engine]) -> list[object]:
        out: list[object] = []
        for run_id, context, steps in runs:
            out += [engines[i % len(engines)].observe(run_id, s, context) for i, s in enumerate(steps)]
            out.append(engines[0].get_run(run_id))
        return out

    memory = replay([Engine(embedder=embedder)])  # type: ignore[arg-type]
    sqlite_engine = Engine(embedder=embedder, store=SqliteStore(tmp_path / "runs.sqlite"))  # type: ignore[arg-type]
    sqlite = replay([sqlite_engine])
    sqlite_engine.close()
    redis = replay([_replica(url, embedder), _replica(url, embedder)])
    assert len(memory) > 50
    assert memory == sqlite == redis


def test_memory_sqlite_and_redis_stores_give_identical_verdicts(url: str, tmp_path: Path) -> None:
    """The example runs and a long run replayed on each store (Redis alternating two replicas) give the same verdicts."""
    _congruence(url, tmp_path, HashingEmbedder())


@pytest.mark.model
def test_the_stores_agree_with_the_real_model(url: str, tmp_path: Path, real_cached) -> None:  # type: ignore[no-untyped-def]
    """The same congruence with the real embedding model (vectors shared through one cache)."""
    _congruence(url, tmp_path, real_cached)


def test_serve_with_an_unreachable_redis_exits_with_a_message(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """plateau serve --store redis://… exits 2 naming the Redis it could not reach (without its password)."""
    from plateau.cli import main

    monkeypatch.setenv("PLATEAU_STORE", "redis://:secret@127.0.0.1:1/0")
    assert main(["serve", "--port", "0", "--embedder", "hashing"]) == 2
    err = capsys.readouterr().err
    assert "store: cannot reach Redis at redis://127.0.0.1:1/0" in err and "secret" not in err


def test_a_client_of_two_replicas_spreads_calls_and_continues_when_one_stops(url: str) -> None:
    """Client.remote([a, b]) uses both replicas (round_robin); after one stops, every run continues on the other."""
    runs = {f"run-{k}": _run(12, seed=k) for k in range(6)}
    reference = Engine(embedder=HashingEmbedder())
    expected = {run_id: [reference.observe(run_id, s) for s in steps] for run_id, steps in runs.items()}
    a, b = _replica(url), _replica(url)
    applied_a, applied_b = _counting(a), _counting(b)
    servers = [ServerThread(a).start(), ServerThread(b).start()]
    try:
        with Client.remote([server.target for server in servers], timeout=30) as client:
            got = {run_id: [client.observe(run_id, s) for s in steps[:6]] for run_id, steps in runs.items()}
            assert applied_a and applied_b  # both replicas took steps
            servers.pop(0).stop()
            for run_id, steps in runs.items():
                got[run_id] += [client.observe(run_id, s) for s in steps[6:]]
        assert got == expected
        assert len(applied_a) + len(applied_b) == 6 * 12  # every step once
    finally:
        for server in servers:
            server.stop()


def test_the_client_service_config_asks_for_round_robin_and_retries_on_unavailable() -> None:
    """The channel's service config: round_robin, and a retry policy on UNAVAILABLE for every Plateau method."""
    import json

    from plateau.client import channel_target, service_config

    config = json.loads(service_config())
    assert config["loadBalancingConfig"] == [{"round_robin": {}}]
    (method,) = config["methodConfig"]
    assert method["name"] == [{"service": "plateau.v1.Plateau"}]
    assert method["retryPolicy"]["retryableStatusCodes"] == ["UNAVAILABLE"] and method["retryPolicy"]["maxAttempts"] == 5
    assert channel_target(["127.0.0.1:1", "127.0.0.1:2"]) == ("ipv4:127.0.0.1:1,127.0.0.1:2", None)
    assert channel_target(["[::1]:7", "[::1]:8"]) == ("ipv6:[::1]:7,[::1]:8", None)
    assert channel_target(["plateau.internal:50051"]) == ("plateau.internal:50051", None)
    assert channel_target(["localhost:9", "127.0.0.1:8"])[1] == "localhost:9"
    with pytest.raises(ValueError, match="attempts"):
        service_config(9)
