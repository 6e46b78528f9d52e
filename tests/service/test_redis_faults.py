"""Redis store faults of issue 22 on real redis-servers: tenant limits as counters, exact across replicas (items 1,
15), a Redis that lost its data (14), no address or password leaked (16), the probe, and the state byte limit (11)."""

from __future__ import annotations

import importlib.util
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from plateau.cli import ServerThread
from plateau.client import Client
from plateau.config import Config
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.errors import InvalidArgument, LimitExceeded, RunNotFound, StepConflict, StoreUnavailable
from plateau.store import open_store
from plateau.store.redis_store import RedisStore
from plateau.types import Step
from tests.support.redis_proc import RedisProcess, redis_server_binary
from tests.support.runs import big_step as _big
from tests.support.runs import looping_run as _run
from tests.support.runs import run_record as _record

pytestmark = [
    pytest.mark.skipif(redis_server_binary() is None, reason="redis-server is not installed (.ci/run installs it)"),
    pytest.mark.skipif(importlib.util.find_spec("redis") is None, reason="redis-py is not installed (pip install '.[server]')"),
]


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisProcess]:
    with RedisProcess() as server:
        yield server


@pytest.fixture()
def url(redis_server: RedisProcess) -> str:
    import redis

    with redis.Redis.from_url(redis_server.url) as r:
        r.flushdb()
        r.config_set("maxmemory", 0)
    return redis_server.url


def _replica(url: str, config: Config | None = None) -> Engine:
    return Engine(config, HashingEmbedder(), store=RedisStore(url))  # type: ignore[arg-type]


def _runs_held(url: str) -> int:
    import redis

    with redis.Redis.from_url(url) as r:
        return sum(1 for _ in r.scan_iter("plateau:{*}:meta"))


# ---------------------------------------------------------------- items 1 and 15: the tenant limit
def test_the_tenant_limit_is_checked_by_the_commit_itself(url: str) -> None:
    """A replica that did not count (or counted before another replica created runs) cannot commit a run past the
    tenant's limit: the commit script refuses it; with an ended run the longest-ended one gives way in the same script."""
    config = Config(max_runs_per_tenant=3)
    a, b = _replica(url, config), _replica(url, config)
    for k in range(3):
        a.observe(f"r{k}", Step(index=0, text="x"), tenant="t")
    a.observe("other", Step(index=0, text="x"), tenant="u")  # another tenant's runs do not count
    with pytest.raises(LimitExceeded, match="holds 3 open runs"):
        b.store.update(("t", "late"), _record("late", "t"))  # straight to the store, as after a stale count
    assert b.store.count("t") == 3 and _runs_held(url) == 4
    a.end_run("r1", tenant="t")
    b.store.update(("t", "late"), _record("late", "t"))  # r1 gave way inside the commit
    assert b.store.get(("t", "r1")) is None and b.store.count("t") == 3
    assert {k[1] for k in b.store.keys() if k[0] == "t"} == {"r0", "r2", "late"}


def test_racing_replicas_never_exceed_the_tenant_limit(url: str) -> None:
    """Eight threads on two replicas (two processes' stores) race to create 40 runs of one tenant with a limit of 10:
    exactly 10 exist, and every other attempt is RESOURCE_EXHAUSTED."""
    config = Config(max_runs_per_tenant=10)
    replicas = [_replica(url, config), _replica(url, config)]
    made, refused = [], []
    barrier = threading.Barrier(8)

    def create(who: int) -> None:
        barrier.wait()
        for k in range(5):
            try:
                replicas[(who + k) % 2].observe(f"run-{who}-{k}", Step(index=0, text="x"), tenant="t")
                made.append(who)
            except LimitExceeded:
                refused.append(who)

    threads = [threading.Thread(target=create, args=(who,)) for who in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 10 and len(refused) == 30
    assert replicas[0].store.count("t") == 10 and _runs_held(url) == 10


def _commands(r: object) -> dict[str, int]:
    stats = r.info("commandstats")  # type: ignore[attr-defined]
    return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}


def test_the_run_that_gives_way_is_found_without_reading_every_run(url: str) -> None:
    """A tenant at its limit of 300 runs starting one more: the ended run that gives way is found by reading one
    index, not the metadata of its 300 runs (Redis's own command counts: no HMGET, a handful of HGETs)."""
    import redis

    config = Config(max_runs_per_tenant=300)
    a = _replica(url, config)
    for k in range(300):
        a.observe(f"r{k}", Step(index=0, text="x"), tenant="t")
    a.end_run("r7", tenant="t")
    r = redis.Redis.from_url(url)
    r.config_resetstat()
    a.observe("new", Step(index=0, text="x"), tenant="t")
    calls = _commands(r)
    assert calls.get("hmget", 0) == 0 and calls.get("hget", 0) + calls.get("hgetall", 0) < 20, calls
    assert a.store.count("t") == 300 and a.store.get(("t", "r7")) is None
    with pytest.raises(LimitExceeded):
        a.observe("one-more", Step(index=0, text="x"), tenant="t")
    assert a.store.oldest_ended("t") is None


# ---------------------------------------------------------------- item 14: Redis restarted empty
def _until_answered(call):  # type: ignore[no-untyped-def]
    for _ in range(5):  # the first call after a restart may meet the dead connection
        try:
            return call()
        except StoreUnavailable:
            continue
    return call()


def test_runs_lost_by_a_redis_restart_are_not_found_not_a_gap(tmp_path: Path) -> None:
    """Redis restarted without its data: the next step of a run in progress is NOT_FOUND saying Redis lost it (on
    the replica that held it, over gRPC, and on a replica started after the loss); a step 0 starts the run again;
    a gap in a run Redis holds is still a gap."""
    steps = _run(8)
    first = RedisProcess()
    port = first.port
    try:
        store = RedisStore(first.url, timeout=2)
        engine = Engine(embedder=HashingEmbedder(), store=store)
        with ServerThread(engine) as server, Client.remote(server.target) as client:
            for s in steps[:4]:
                client.observe("r", s)
            client.observe("q", steps[0])
            first.stop()
            with pytest.raises(StoreUnavailable) as down:
                client.observe("r", steps[4])
            assert "127.0.0.1" not in str(down.value) and str(port) not in str(down.value)  # item 16
            first = RedisProcess(port=port)  # the same address, no data
            with pytest.raises(RunNotFound, match="Redis lost its data .*and this run with it; start it again from step 0"):
                _until_answered(lambda: client.observe("r", steps[4]))
            later = Engine(embedder=HashingEmbedder(), store=RedisStore(first.url))  # started after the loss
            with pytest.raises(RunNotFound, match="may have been among it"):
                later.observe("q", steps[1])
            assert client.observe("r", steps[0]).step_index == 0  # the run starts again
            assert client.observe("r", steps[1]).step_index == 1
            with pytest.raises(StepConflict, match="a gap"):
                client.observe("r", steps[5])
        engine.close()
        later.close()
    finally:
        first.stop()


def test_a_new_redis_is_not_taken_for_a_lost_one(url: str) -> None:
    """On a Redis that never lost anything, a step after the first of an unknown run is still a gap."""
    a = _replica(url)
    with pytest.raises(StepConflict, match="a gap"):
        a.observe("never", Step(index=3, text="x"))
    assert a.store.lost(("", "never")) is None  # type: ignore[attr-defined]


# ---------------------------------------------------------------- item 16: the password and the address
def test_the_password_comes_from_the_environment_or_a_file_never_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Redis with requirepass: reached with $PLATEAU_REDIS_PASSWORD or --store-password-file, refused without; no
    message names the password or the address."""
    from plateau.cli import main

    with RedisProcess(args=("--requirepass", "s3cret-pw")) as server:
        monkeypatch.delenv("PLATEAU_REDIS_PASSWORD", raising=False)
        with pytest.raises(StoreUnavailable, match="Redis needs a password") as info:
            RedisStore(server.url)
        assert "s3cret" not in str(info.value)
        monkeypatch.setenv("PLATEAU_REDIS_PASSWORD", "s3cret-pw")
        store = RedisStore(server.url)
        assert store.probe() == (True, "")
        store.close()
        monkeypatch.delenv("PLATEAU_REDIS_PASSWORD")
        secret = tmp_path / "redis-password"
        secret.write_text("s3cret-pw\n")
        store = open_store(server.url, password_file=secret)  # type: ignore[assignment]
        engine = Engine(embedder=HashingEmbedder(), store=store)
        assert engine.observe("r", Step(index=0, text="x")).step_index == 0
        engine.close()
        secret.write_text("wrong\n")
        assert main(["serve", "--port", "0", "--embedder", "hashing", "--store", server.url, "--store-password-file", str(secret)]) == 2
        with pytest.raises(InvalidArgument, match="store_password_file"):
            open_store(f"sqlite:{tmp_path / 'x.sqlite'}", password_file=secret)


# ---------------------------------------------------------------- the probe health uses
def test_the_probe_names_a_paused_an_out_of_memory_and_a_read_only_redis(url: str, redis_server: RedisProcess) -> None:
    """probe() is (True, "") on a sound Redis and (False, cause) for one paused, out of memory or read-only."""
    import redis

    store = RedisStore(url, probe_timeout=0.3)
    assert store.probe() == (True, "")
    r = redis.Redis.from_url(url)
    r.config_set("maxmemory", 1)
    assert store.probe() == (False, "Redis is out of memory (maxmemory)")
    engine = Engine(embedder=HashingEmbedder(), store=store)
    with pytest.raises(StoreUnavailable, match="Redis is out of memory.*retrying is safe"):
        engine.observe("r", Step(index=0, text="x"))
    r.config_set("maxmemory", 0)
    assert store.probe() == (True, "")
    os.kill(redis_server.proc.pid, signal.SIGSTOP)
    try:
        assert store.probe() == (False, "Redis did not answer in time")
    finally:
        os.kill(redis_server.proc.pid, signal.SIGCONT)
    with RedisProcess() as other:
        store2 = RedisStore(other.url)
        redis.Redis.from_url(other.url).replicaof("127.0.0.1", redis_server.port)
        try:
            assert store2.probe() == (False, "Redis is a read-only replica")
        finally:
            redis.Redis.from_url(other.url).replicaof("NO", "ONE")
        store2.close()
    assert store.probe() == (True, "")
    store.close()


# ---------------------------------------------------------------- item 11 on Redis
def test_a_run_state_over_its_byte_limit_is_refused_on_redis(url: str) -> None:
    """The same byte limit on the shared store: the step that would pass it is refused naming the limit, nothing
    of it is written, and another replica sees the run as it was."""
    import redis

    config = Config(max_run_state_bytes=256 * 1024)
    a, b = _replica(url, config), _replica(url, config)
    accepted = []
    with pytest.raises(LimitExceeded, match="max_run_state_bytes=262,144"):
        for i in range(200):
            accepted.append((a, b)[i % 2].observe("r", _big(i, 20_000)))
    n = len(accepted)
    assert 2 <= n < 200 and b.get_run("r").steps == n and a.get_run("r").steps == n
    r = redis.Redis.from_url(url)
    (meta,) = list(r.scan_iter("plateau:{*}:meta"))
    assert r.llen(meta.replace(b":meta", b":steps")) == n


def test_a_password_in_store_on_the_command_line_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 22 #16: --store redis://:PW@… exits 2 with one line naming $PLATEAU_REDIS_PASSWORD and
    --store-password-file, never the password, before any store is opened; the same spec from
    $PLATEAU_STORE (not shown by ps) is accepted and reaches a Redis that needs the password."""
    from plateau.cli import build_parser, main

    monkeypatch.delenv("PLATEAU_REDIS_PASSWORD", raising=False)
    monkeypatch.delenv("PLATEAU_STORE", raising=False)
    with RedisProcess(args=("--requirepass", "s3cret-pw")) as server:
        spec = f"redis://:s3cret-pw@127.0.0.1:{server.port}/0"
        assert main(["serve", "--port", "0", "--embedder", "hashing", "--store", spec]) == 2
        err = capsys.readouterr().err
        lines = err.strip().splitlines()
        assert len(lines) == 1 and "PLATEAU_REDIS_PASSWORD" in lines[0] and "--store-password-file" in lines[0]
        assert "s3cret" not in err
        args = build_parser({"PLATEAU_STORE": spec}).parse_args(["serve", "--port", "0"])
        assert args.store == spec and not getattr(args, "store_on_command_line", False)
        from plateau.cli import refuse_store_secret

        refuse_store_secret(args)  # from the environment: accepted
        store = open_store(args.store)
        assert store.probe() == (True, "")
        store.close()


# ---------------------------------------------------------------- item 4: a breaker on the store
def test_while_redis_is_paused_calls_are_answered_at_once_and_a_fail_open_client_fails_open() -> None:
    """Issue 22 #4: Redis paused (SIGSTOP) under a live server whose Redis timeout is 60 s. The step
    already waiting on Redis when health turns NOT_SERVING is answered then (the breaker opens),
    not after Redis's timeout: the fail-open client gets its fallback verdict while Redis is still
    paused; later calls are refused at once with UNAVAILABLE saying the store is out of service
    (counted by the breaker); once Redis resumes, health is SERVING, the breaker closes and every
    step is applied exactly once."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    from plateau.errors import PlateauError
    from plateau.failure import UNAVAILABLE_REASON
    from tests.support.runs import applied_verdicts as _counting

    with RedisProcess() as redis_proc:
        store = RedisStore(redis_proc.url, timeout=60.0)
        engine = Engine(Config(health_probe_seconds=0.3), HashingEmbedder(), store=store)
        applied = _counting(engine)
        with ServerThread(engine) as server, grpc.insecure_channel(server.target) as channel:
            health = health_pb2_grpc.HealthStub(channel)

            def status() -> int:
                return health.Check(health_pb2.HealthCheckRequest(service="plateau.v1.Plateau"), timeout=10).status

            steps = _run(3, seed=4)
            with Client.remote(server.target, timeout=120, retry_attempts=2, on_unavailable="open") as client:
                client.observe("paused", steps[0])
                got: dict[str, object] = {}
                os.kill(redis_proc.proc.pid, signal.SIGSTOP)
                try:
                    t = threading.Thread(target=lambda: got.update(v=client.observe("paused", steps[1])), daemon=True)
                    t.start()
                    for _ in range(400):
                        if status() == health_pb2.HealthCheckResponse.NOT_SERVING:
                            break
                        threading.Event().wait(0.05)
                    assert status() == health_pb2.HealthCheckResponse.NOT_SERVING
                    t.join(timeout=20)  # a third of Redis's timeout: only the breaker answers it in time
                    answered_while_paused = not t.is_alive()
                    assert answered_while_paused
                    assert got["v"].reasons == (UNAVAILABLE_REASON,)  # type: ignore[attr-defined]
                    with Client.remote(server.target, timeout=120, retry_attempts=2) as strict:
                        with pytest.raises(PlateauError) as info:
                            strict.observe("paused", steps[1])
                    assert info.value.code == "UNAVAILABLE" and "out of service" in info.value.message
                    assert server.running.store_health.refused >= 2  # type: ignore[union-attr]
                finally:
                    os.kill(redis_proc.proc.pid, signal.SIGCONT)
                t.join(timeout=90)
                for _ in range(400):
                    if status() == health_pb2.HealthCheckResponse.SERVING:
                        break
                    threading.Event().wait(0.05)
                assert status() == health_pb2.HealthCheckResponse.SERVING
                assert client.observe("paused", steps[1]).step_index == 1
                assert client.observe("paused", steps[2]).step_index == 2
        assert sorted(v.step_index for v in applied) == [0, 1, 2]  # each step once, the paused one included
