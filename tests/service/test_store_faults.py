"""Store faults of issue 22: a deleted or replaced SQLite file, hard links, corrupt pages, a run
state's byte limit, and the memory store's counters and memory (real files, real servers)."""

from __future__ import annotations

import ctypes.util
import gc
import os
import sqlite3
import tracemalloc
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from plateau.cli import ServerThread
from plateau.client import Client
from plateau.config import Config
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.errors import LimitExceeded, StoreUnavailable
from plateau.record import RunRecord
from plateau.store.memory import MemoryStore
from plateau.store.sqlite import SqliteStore
from plateau.types import Step
from tests.support.paths import REPO
from tests.support.runs import big_step as _big
from tests.support.runs import looping_run as _run
from tests.support.runs import run_record as _record


def _engine(store: object, config: Config | None = None) -> Engine:
    return Engine(config, HashingEmbedder(), store=store)  # type: ignore[arg-type]


def _wait_health(stub: health_pb2_grpc.HealthStub, status: int) -> None:
    for _ in range(300):
        if stub.Check(health_pb2.HealthCheckRequest(service="plateau.v1.Plateau"), timeout=10).status == status:
            return
        threading_sleep(0.05)
    raise AssertionError(f"health never became {status}")


def threading_sleep(seconds: float) -> None:
    import threading

    threading.Event().wait(seconds)


# ---------------------------------------------------------------- item 5: the file deleted under a live server
def test_a_deleted_store_file_refuses_every_step_and_health_says_why(tmp_path: Path) -> None:
    """After its file is deleted, a live server acknowledges no more steps (UNAVAILABLE naming the deletion, never
    'retrying is safe'), health turns NOT_SERVING, and what was acknowledged before is what a restart on a restored copy holds."""
    path = tmp_path / "runs.sqlite"
    store = SqliteStore(path)
    engine = _engine(store)
    steps = _run(8)
    with ServerThread(engine) as server, Client.remote(server.target) as client, grpc.insecure_channel(server.target) as ch:
        health = health_pb2_grpc.HealthStub(ch)
        acked = [client.observe("r", s) for s in steps[:4]]
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        backup = path.read_bytes()
        os.remove(path)
        for s in (steps[4], steps[5], steps[3]):  # the next step, the one after, a re-send
            with pytest.raises(StoreUnavailable, match="was deleted") as info:
                client.observe("r", s)
            assert "retrying is safe" not in str(info.value) and "retrying will not help" in str(info.value)
        with pytest.raises(StoreUnavailable, match="was deleted"):
            client.observe("other", Step(index=0, text="a new run"))
        _wait_health(health, health_pb2.HealthCheckResponse.NOT_SERVING)
        assert store.probe() == (False, f"the database file {path} was deleted while the server used it")
    engine.close()
    path.write_bytes(backup)
    os.chmod(path, 0o600)
    again = _engine(SqliteStore(path))
    assert again.get_run("r").steps == 4  # nothing acknowledged was lost, nothing unacknowledged was kept
    assert again.observe("r", steps[3]) == acked[3]
    again.close()


def test_a_step_committed_to_a_file_deleted_meanwhile_is_not_acknowledged(tmp_path: Path) -> None:
    """A file deleted between the store's check and its commit: the commit landed in a file that is gone, so the
    step is refused (StoreUnavailable), not acknowledged."""
    path = tmp_path / "runs.sqlite"
    store = SqliteStore(path)
    engine = _engine(store)
    engine.observe("r", Step(index=0, text="first"))
    real_row = store._run_row

    def delete_then_row(*args: object) -> object:
        os.remove(path)
        return real_row(*args)  # type: ignore[arg-type]

    store._run_row = delete_then_row  # type: ignore[method-assign]
    with pytest.raises(StoreUnavailable, match="was deleted.*was not kept"):
        engine.observe("r", Step(index=1, text="second"))
    store._run_row = real_row  # type: ignore[method-assign]
    ok, cause = store.probe()
    assert not ok and "deleted" in cause
    engine.close()


def test_a_store_file_replaced_under_the_server_is_refused(tmp_path: Path) -> None:
    """A file moved away and another put at its path: the store notices the other inode and stops."""
    path = tmp_path / "runs.sqlite"
    engine = _engine(SqliteStore(path))
    engine.observe("r", Step(index=0, text="first"))
    os.rename(path, tmp_path / "moved.sqlite")
    SqliteStore(tmp_path / "fresh.sqlite").close()
    os.rename(tmp_path / "fresh.sqlite", path)
    with pytest.raises(StoreUnavailable, match="replaced by another file"):
        engine.observe("r", Step(index=1, text="second"))
    assert not engine.store.probe()[0]  # type: ignore[attr-defined]
    engine.close()


# ---------------------------------------------------------------- item 9: one server per file, whatever its name
def test_a_hard_link_or_a_deleted_lock_file_cannot_open_a_second_server(tmp_path: Path) -> None:
    """The lock is on the database file itself: a hard link is the same file, and there is no lock file to delete."""
    path = tmp_path / "runs.sqlite"
    store = SqliteStore(path)
    store.append(("", "r"), _record("r"))
    os.link(path, tmp_path / "hard.sqlite")
    for lock in tmp_path.glob("*.lock"):
        lock.unlink()
    for other in (tmp_path / "hard.sqlite", path):
        with pytest.raises(StoreUnavailable, match="in use by another Plateau process"):
            SqliteStore(other)
    store.close()
    second = SqliteStore(tmp_path / "hard.sqlite")  # free once the first has closed
    assert second.get(("", "r")) is not None
    second.close()


# ---------------------------------------------------------------- item 10: a corrupt file
def _filled(path: Path, runs: int = 40) -> None:
    engine = _engine(SqliteStore(path))
    for k in range(runs):
        for s in _run(6, seed=k):
            engine.observe(f"run-{k}", s)
    engine.close()


def _zero_pages(path: Path, first: int, count: int) -> None:
    page = 4096
    with open(path, "r+b") as f:
        f.seek(first * page)
        f.write(b"\0" * page * count)


def test_a_store_file_with_zeroed_pages_refuses_to_start_saying_it_is_corrupt(tmp_path: Path) -> None:
    """Zeroed pages in the middle of the file: opening fails with StoreUnavailable saying the file is corrupt."""
    path = tmp_path / "runs.sqlite"
    _filled(path)
    assert path.stat().st_size > 20 * 4096
    _zero_pages(path, 5, 4)
    with pytest.raises(StoreUnavailable, match="is corrupt") as info:
        SqliteStore(path)
    assert "retrying is safe" not in str(info.value) and "restore the file" in str(info.value)
    SqliteStore(path.with_name("other.sqlite")).close()  # the failed open released its lock and descriptor
    with pytest.raises(StoreUnavailable, match="is corrupt"):
        SqliteStore(path)  # and still refuses: nothing was repaired or overwritten


def test_corruption_found_while_serving_stops_the_store_and_is_never_called_retryable(tmp_path: Path) -> None:
    """Pages zeroed under a live store: the first call that meets them fails saying the file is corrupt and that
    retrying will not help; every later call is refused the same way and the probe reports it."""
    path = tmp_path / "runs.sqlite"
    _filled(path)
    store = SqliteStore(path, cache_runs=1)
    engine = _engine(store)
    store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = path.stat().st_size // 4096
    _zero_pages(path, 2, pages - 2)
    errors = []
    for k in range(40):
        try:
            engine.get_run(f"run-{k}")
        except StoreUnavailable as exc:
            errors.append(str(exc))
    assert errors and all("corrupt" in e and "retrying is safe" not in e for e in errors)
    with pytest.raises(StoreUnavailable, match="corrupt.*retrying will not help"):
        engine.observe("new", Step(index=0, text="x"))
    ok, cause = store.probe()
    assert not ok and "corrupt" in cause
    engine.close()


# ---------------------------------------------------------------- item 11: a byte limit on a run's state
@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_run_state_over_its_byte_limit_is_refused_before_anything_is_written(tmp_path: Path, kind: str) -> None:
    """Steps with large arguments grow the run's state; the step that would pass max_run_state_bytes is
    RESOURCE_EXHAUSTED naming the limit, and the run is exactly as before it (steps, verdicts, later re-sends)."""
    config = Config(max_run_state_bytes=256 * 1024)
    store = MemoryStore() if kind == "memory" else SqliteStore(tmp_path / "runs.sqlite")
    engine = _engine(store, config)
    accepted = []
    with ServerThread(engine) as server, Client.remote(server.target) as client:
        with pytest.raises(LimitExceeded, match="max_run_state_bytes=262,144") as info:
            for i in range(200):
                accepted.append(client.observe("r", _big(i, 20_000)))
        assert "not applied" in str(info.value)
        n = len(accepted)
        assert 2 <= n < 200 and client.get_run("r").steps == n
        assert client.observe("r", _big(n - 1, 20_000)) == accepted[-1]  # a re-send still gets its verdict
        with pytest.raises(LimitExceeded):
            client.observe("r", _big(n, 20_000))
    assert engine.get_run("r").steps == n
    engine.close()
    if kind == "sqlite":
        with sqlite3.connect(tmp_path / "runs.sqlite") as db:
            assert db.execute("SELECT count(*) FROM steps").fetchone()[0] == n
            assert db.execute("SELECT steps FROM runs").fetchone()[0] == n


# ---------------------------------------------------------------- item 12: the memory store's counters and memory
class _Counted(RunRecord):
    reads = 0

    def __getattribute__(self, name: str) -> object:
        if name == "ended":
            _Counted.reads += 1
        return super().__getattribute__(name)


def test_finding_the_run_that_gives_way_reads_no_other_run() -> None:
    """At a tenant's limit the memory store finds its longest-ended run from a per-tenant index: it reads no run
    record, however many runs the store holds, and deleting runs keeps the index exact."""
    store = MemoryStore()
    for k in range(2000):
        store.append(("big", f"r{k}"), _Counted(run_id=f"r{k}", context=None, analysis=None, tenant="big", created=0, updated=0))
    for k, at in enumerate([5.0, 3.0, 9.0]):
        store.update(("small", f"s{k}"), _Counted(run_id=f"s{k}", context=None, analysis=None, tenant="small", created=0,
                                                  updated=0, ended=True, ended_at=at))
    for k in range(500):
        store.append(("small", f"open{k}"), _Counted(run_id=f"open{k}", context=None, analysis=None, tenant="small", created=0,
                                                     updated=0))
    _Counted.reads = 0
    assert store.oldest_ended("small") == ("small", "s1")
    assert store.oldest_ended("big") is None
    assert _Counted.reads == 0
    store.delete(("small", "s1"))
    assert store.oldest_ended("small") == ("small", "s0")
    assert store.count("small") == 502 and store.count("big") == 2000
    for k in range(3):
        store.delete(("small", f"s{k}"))
    assert store.oldest_ended("small") is None and store._ended == {} and store._heaps == {}


def _fill_runs(engine: Engine, runs: int) -> None:
    for r in range(runs):
        for s in _run(20, seed=r):  # runs differ in their first half (as real runs do), not in their loop
            engine.observe(f"run-{r}", s)


#: What a run of 20 steps (of :func:`_fill_runs`) may hold in a memory store, in bytes. Derived: its
#: ~30 distinct step vectors (384 float32 and a 112-byte header each: 16.5 KiB; the other vectors are the
#: same texts as other runs', shared through the embedder's cache), its 20 verdicts as history (~0.9 KiB
#: each with ~30 signals: 18 KiB), its learned state compressed (~5 KiB), its fingerprints and times
#: (~2.5 KiB), its share of the HOT_RUNS live records (16 x ~90 KiB over 120 runs: 12 KiB): ~54 KiB.
#: Before issue 22 #12 it was ~150 KiB: the learned state as live objects, every vector in it a second
#: time in the committed pickle (vectors do not compress) and a third time in the cache.
RUN_BYTES_BOUND = 56 * 1024


def test_the_memory_store_holds_a_bounded_state_per_run_and_deleting_runs_frees_all_they_held() -> None:
    """Counted with tracemalloc (every allocation of the process, not the store's alone): 120 runs of 20 steps
    hold at most RUN_BYTES_BOUND each; only HOT_RUNS records are kept live; deleting the runs frees every byte
    they held but the embedder's cache (bounded: its 512 most recent vectors)."""
    from plateau.store.memory import HOT_RUNS

    store = MemoryStore()
    engine = _engine(store)
    _fill_runs(engine, 1)
    engine.delete_run("run-0")
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.take_snapshot()
    runs = 120
    _fill_runs(engine, runs)
    gc.collect()
    grown = tracemalloc.take_snapshot()
    total = sum(st.size_diff for st in grown.compare_to(base, "filename"))
    live = len(getattr(store, "_hot", getattr(store, "_records", {})))
    for r in range(runs):
        engine.delete_run(f"run-{r}")
    gc.collect()
    left = sum(st.size_diff for st in tracemalloc.take_snapshot().compare_to(base, "filename"))
    tracemalloc.stop()
    assert total / runs <= RUN_BYTES_BOUND, f"a run holds {total / runs:.0f} bytes"
    assert live <= HOT_RUNS
    # what stays is the embedder's cache, bounded (max_items vectors of 1,536 bytes, ~1.8 KiB with header, key, link)
    cache = len(engine.embedder._cache) * 1850  # type: ignore[attr-defined]
    assert left < 0.05 * total + cache, f"{left} of {total} bytes still held after deleting every run"
    assert len(store) == 0 and store.count("") == 0


def test_a_cold_run_is_rebuilt_equal_and_shares_its_vectors_with_the_cache() -> None:
    """A run no longer kept live is rebuilt from its committed copy: its next verdicts equal those of a run that
    stayed live, and its step vectors are the cache's arrays (shared, read-only), not copies."""
    import numpy as np

    cold, warm = MemoryStore(hot_runs=0), MemoryStore()
    steps = _run(16, seed=3)
    e_cold, e_warm = _engine(cold), _engine(warm)
    assert [e_cold.observe("r", s) for s in steps] == [e_warm.observe("r", s) for s in steps]
    assert cold._hot == {}
    rebuilt = cold.get(("", "r"))
    assert rebuilt is not cold.get(("", "r"))  # rebuilt at each read
    cached = list(e_cold.embedder._cache.values())  # type: ignore[attr-defined]
    vectors = [v for v in rebuilt.analysis.memory._text]
    assert vectors and all(not v.flags.writeable for v in vectors)
    assert all(any(np.shares_memory(v, c) for c in cached) for v in vectors[-8:])


_RSS_SCRIPT = """
import gc, json
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.store.memory import MemoryStore
from tests.support.runs import looping_run as _run

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20

store = MemoryStore(trim_bytes=1024 * 1024)
engine = Engine(embedder=HashingEmbedder(), store=store)
steps = _run(20)
for s in steps:
    engine.observe("warm", s)
engine.delete_run("warm"); gc.collect()
rss0 = rss()
for r in range(600):
    for s in steps:
        engine.observe(f"run-{r}", s)
gc.collect(); rss1 = rss()
for r in range(600):
    engine.delete_run(f"run-{r}")
gc.collect()
print(json.dumps({"rss0": rss0, "rss1": rss1, "rss2": rss(), "trims": store.trims, "runs": len(store)}))
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/statm") or not ctypes.util.find_library("c"), reason="Linux RSS, glibc")
def test_deleting_runs_gives_memory_back_to_the_operating_system() -> None:
    """In a fresh process, RSS grown by 600 runs of 20 steps falls back by more than half once they are deleted
    (the allocator's free memory is returned, not kept for reuse); before, three quarters of it stayed.

    About 2 MiB stay whatever the number of runs (caches filled by the first runs); with 300 runs
    that was 48-50 % of the growth, at the bound on a clean machine, with 600 about 40 %."""
    import json
    import subprocess
    import sys

    root = REPO
    out = subprocess.run([sys.executable, "-c", _RSS_SCRIPT], capture_output=True, text=True, cwd=root, timeout=600,
                         env={**os.environ, "PYTHONPATH": str(root)}, check=True)
    m = json.loads(out.stdout.strip().splitlines()[-1])
    assert m["runs"] == 0 and m["trims"] >= 1
    assert m["rss1"] - m["rss0"] > 8, m  # 600 runs of ~20 KiB (their vectors shared: one text set), and the caches
    assert m["rss2"] - m["rss0"] < 0.5 * (m["rss1"] - m["rss0"]), m


def test_probes_of_sound_stores_say_so(tmp_path: Path) -> None:
    """probe() is (True, "") for a sound memory or SQLite store, and (False, cause) for a closed one."""
    assert MemoryStore().probe() == (True, "")
    store = SqliteStore(tmp_path / "runs.sqlite")
    assert store.probe() == (True, "")
    store.close()
    assert store.probe() == (False, "the store is closed")


# ---------------------------------------------------------------- item 1: one tenant's creations never hold up another's
class _SlowTenantStore(MemoryStore):
    """A memory store whose second lookup of tenant "a"'s ended runs (the one under the creation lock; the first is
    the engine's check before embedding) waits until released: a slow store for one tenant."""

    def __init__(self) -> None:
        super().__init__()
        import threading

        self.entered = threading.Event()
        self.release = threading.Event()
        self.calls = 0

    def oldest_ended(self, tenant: str):  # type: ignore[no-untyped-def]
        if tenant == "a":
            self.calls += 1
            if self.calls == 2:
                self.entered.set()
                self.release.wait(30)
        return super().oldest_ended(tenant)


def test_a_tenant_at_its_limit_does_not_hold_up_another_tenants_new_runs() -> None:
    """While tenant a's new run waits inside the store's limit check, tenant b starts new runs (the creation lock is
    per tenant, not one for the whole process)."""
    import threading

    import plateau.engine

    stripes = getattr(plateau.engine, "_CREATE_STRIPES", 1)  # a tenant whose creation lock is not a's
    other = next(t for t in (f"b{k}" for k in range(1000)) if hash(t) % stripes != hash("a") % stripes or stripes == 1)
    store = _SlowTenantStore()
    engine = _engine(store, Config(max_runs_per_tenant=1))
    engine.observe("first", Step(index=0, text="x"), tenant="a")
    engine.end_run("first", tenant="a")
    done: list[str] = []
    a = threading.Thread(target=lambda: done.append(engine.observe("second", Step(index=0, text="x"), tenant="a").run_id))
    a.start()
    assert store.entered.wait(30)
    b = threading.Thread(target=lambda: done.append(engine.observe("b-run", Step(index=0, text="x"), tenant=other).run_id))
    b.start()
    b.join(30)
    assert done == ["b-run"] and a.is_alive()  # b did not wait for a
    store.release.set()
    a.join(30)
    assert done == ["b-run", "second"] and store.count("a") == 1 and store.count(other) == 1


def test_a_small_memory_store_emptied_gives_memory_back_with_the_default_threshold() -> None:
    """Issue 22 #12: a store whose runs hold far less than trim_bytes (64 MiB) returns free memory once deleting runs
    has freed as much state as it still holds: deleting 150 runs of 20 steps one by one trims (it never did: the
    threshold was never reached), and at most once per halving of the state (a few times, not per deletion)."""
    store = MemoryStore()
    engine = _engine(store)
    steps = _run(20)
    for r in range(150):
        for s in steps:
            engine.observe(f"run-{r}", s)
    assert store.trims == 0
    for r in range(150):
        engine.delete_run(f"run-{r}")
    assert len(store) == 0 and 1 <= store.trims <= 9  # log2(150) + 1 halvings at most
