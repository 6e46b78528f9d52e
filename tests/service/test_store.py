"""The durable SQLite store: exact restart recovery, re-sends after a restart, retention, failures."""

from __future__ import annotations

import math
import os
import sqlite3
from pathlib import Path

import pytest

from plateau.cli import ServerThread
from plateau.client import Client
from plateau.config import Config
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.errors import InvalidArgument, RunNotFound, StepConflict, StoreUnavailable
from plateau.store import MemoryStore, open_store
from plateau.store.sqlite import ANALYSIS_FORMAT, SqliteStore
from plateau.types import Action, Step
from tests.support.runs import looping_run as _run


def _engine(path: Path, clock: object = None) -> Engine:
    kwargs = {"clock": clock} if clock is not None else {}
    return Engine(embedder=HashingEmbedder(), store=SqliteStore(path), **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("cut", [1, 4, 7, 9])
def test_a_run_continues_after_a_restart_exactly_as_without_one(tmp_path: Path, cut: int) -> None:
    """Verdicts after closing and reopening the store equal those of an engine that never stopped."""
    steps = _run(14, seed=cut)
    reference = Engine(embedder=HashingEmbedder())
    expected = [reference.observe("r", s, context="fix the bug") for s in steps]
    first = _engine(tmp_path / "runs.sqlite")
    got = [first.observe("r", s, context="fix the bug") for s in steps[:cut]]
    first.close()
    second = _engine(tmp_path / "runs.sqlite")
    got += [second.observe("r", s) for s in steps[cut:]]
    assert got == expected
    assert second.get_run("r") == reference.get_run("r")
    second.close()


def test_state_survives_without_a_clean_close(tmp_path: Path) -> None:
    """A store abandoned without close (as after kill -9) still holds every accepted step."""
    path = tmp_path / "runs.sqlite"
    steps = _run(10)
    first = _engine(path)
    verdicts = [first.observe("r", s) for s in steps[:6]]
    first.store._release_lockfile()  # type: ignore[attr-defined]  # the dead process's lock is gone with it
    second = _engine(path)  # the first connection is still open and never checkpointed
    assert second.get_run("r").steps == 6
    assert second.observe("r", steps[5]) == verdicts[5]


def test_a_resend_after_a_restart_gets_the_stored_verdict_and_counts_once(tmp_path: Path) -> None:
    """Re-sending an already-judged step to a restarted server returns its verdict and does not advance the run."""
    path = tmp_path / "runs.sqlite"
    steps = _run(6)
    first = _engine(path)
    verdicts = [first.observe("r", s) for s in steps]
    first.close()
    second = _engine(path)
    assert [second.observe("r", s) for s in steps] == verdicts
    assert second.get_run("r").steps == 6
    with pytest.raises(StepConflict, match="different content"):
        second.observe("r", Step(index=2, text="not what was sent"))


def test_reset_end_and_tenants_persist(tmp_path: Path) -> None:
    """Reset, end and per-tenant namespaces are the same after a restart."""
    path = tmp_path / "runs.sqlite"
    first = _engine(path)
    for s in _run(4):
        first.observe("a", s)
        first.observe("a", s, tenant="t2")
    first.reset_run("a")
    first.observe("a", _run(1)[0])
    first.end_run("a", tenant="t2")
    first.close()
    second = _engine(path)
    assert second.get_run("a").steps == 1
    assert second.get_run("a", tenant="t2").ended and second.get_run("a", tenant="t2").steps == 4
    with pytest.raises(StepConflict, match="ended"):
        second.observe("a", Step(index=4, text="more"), tenant="t2")
    assert second.store.count("") == 1 and second.store.count("t2") == 1


def test_server_stop_and_start_on_the_durable_store(tmp_path: Path) -> None:
    """An in-process server stopped and started again on the same file continues its runs over gRPC."""
    path = tmp_path / "runs.sqlite"
    steps = _run(12)
    reference = Engine(embedder=HashingEmbedder())
    expected = [reference.observe("wire", s) for s in steps]
    engine = _engine(path)
    with ServerThread(engine) as server, Client.remote(server.target) as client:
        got = [client.observe("wire", s) for s in steps[:7]]
    engine.close()
    engine = _engine(path)
    with ServerThread(engine) as server, Client.remote(server.target) as client:
        assert client.observe("wire", steps[6]) == got[6]
        got += [client.observe("wire", s) for s in steps[7:]]
        assert client.get_run("wire").steps == 12
    engine.close()
    assert got == expected
    assert Action.TRIP in {v.action for v in got}


def test_retention_expires_idle_and_ended_runs(tmp_path: Path) -> None:
    """Idle runs expire after idle_run_ttl, ended runs after ended_run_ttl; active ones stay, also on disk."""
    now = [1_000_000.0]
    config = Config(idle_run_ttl_seconds=100.0, ended_run_ttl_seconds=10.0)
    path = tmp_path / "runs.sqlite"
    engine = Engine(config, HashingEmbedder(), SqliteStore(path), clock=lambda: now[0])
    for rid in ("idle", "ended", "active"):
        engine.observe(rid, Step(index=0, text=f"first step of {rid}"))
    engine.end_run("ended")
    now[0] += 50
    engine.observe("active", Step(index=1, text="still working"))
    assert engine.expire() == 1  # ended for 50 s > 10 s
    now[0] += 60  # idle for 110 s > 100 s; active for 60 s
    assert engine.expire() == 1
    engine.close()
    again = Engine(config, HashingEmbedder(), SqliteStore(path), clock=lambda: now[0])
    assert [k[1] for k in again.store.keys()] == ["active"]
    with pytest.raises(RunNotFound):
        again.get_run("idle")
    again.close()


def test_infinite_retention_keeps_everything() -> None:
    """With infinite TTLs nothing ever expires (memory store)."""
    engine = Engine(Config(idle_run_ttl_seconds=math.inf, ended_run_ttl_seconds=math.inf), HashingEmbedder(), MemoryStore())
    engine.observe("r", Step(index=0, text="x"))
    engine.end_run("r")
    assert engine.expire(now=1e18) == 0


def test_a_failed_write_is_unavailable_and_leaves_the_run_as_it_was(tmp_path: Path) -> None:
    """When the store cannot write, the step is refused (StoreUnavailable) and a retry gives the uninterrupted verdict."""
    steps = _run(8)
    reference = Engine(embedder=HashingEmbedder())
    expected = [reference.observe("r", s) for s in steps]
    engine = _engine(tmp_path / "runs.sqlite")
    for s in steps[:5]:
        engine.observe("r", s)
    store = engine.store
    assert isinstance(store, SqliteStore)
    real_row = store._run_row

    def broken(*args: object) -> object:
        raise sqlite3.OperationalError("database or disk is full")

    store._run_row = broken  # type: ignore[method-assign]
    with pytest.raises(StoreUnavailable, match="^store:"):
        engine.observe("r", steps[5])
    store._run_row = real_row  # type: ignore[method-assign]
    assert engine.get_run("r").steps == 5 and store.errors == 1
    assert [engine.observe("r", s) for s in steps[5:]] == expected[5:]


def test_one_process_per_file_and_refused_formats(tmp_path: Path) -> None:
    """A second store on the same file, a world-writable file and an unknown analysis format are refused clearly."""
    path = tmp_path / "runs.sqlite"
    engine = _engine(path)
    engine.observe("r", Step(index=0, text="x"))
    with pytest.raises(StoreUnavailable, match="in use"):
        SqliteStore(path)
    engine.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE runs SET analysis_format = 999")
    store = SqliteStore(path)
    with pytest.raises(StoreUnavailable, match="format 999"):
        store.get(("", "r"))
    store.close()
    os.chmod(path, 0o666)
    with pytest.raises(StoreUnavailable, match="writable by other users"):
        SqliteStore(path)


def test_open_store_specs(tmp_path: Path) -> None:
    """--store accepts memory, sqlite:PATH; anything else is InvalidArgument naming store."""
    assert isinstance(open_store("memory"), MemoryStore)
    store = open_store(f"sqlite:{tmp_path / 'x' / 'runs.sqlite'}")
    assert isinstance(store, SqliteStore) and (tmp_path / "x" / "runs.sqlite").exists()
    store.close()
    assert (os.stat(tmp_path / "x" / "runs.sqlite").st_mode & 0o777) == 0o600
    from plateau.store import default_sqlite_path

    assert default_sqlite_path(50051).name == "runs-50051.sqlite"  # one file per port: servers never share one
    for bad in ("redis", "sqlite:", "memory:x"):
        with pytest.raises(InvalidArgument) as info:
            open_store(bad)
        assert info.value.field == "store"


def test_serve_refuses_bad_store_and_tls_options(capsys: pytest.CaptureFixture[str]) -> None:
    """plateau serve exits 2 with a clear message for an unknown store or half a TLS key pair."""
    from plateau.cli import main

    assert main(["serve", "--store", "redis", "--embedder", "hashing"]) == 2
    assert "unknown store 'redis'" in capsys.readouterr().err
    assert main(["serve", "--store", "memory", "--embedder", "hashing", "--tls-cert", "x.pem"]) == 2
    assert "--tls-cert and --tls-key go together" in capsys.readouterr().err


def test_a_step_writes_its_changes_not_the_whole_state(tmp_path: Path) -> None:
    """With large, ever-new tool results the run row stays small and the state's changes go to the append-only log."""
    from plateau.store import codec

    engine = _engine(tmp_path / "runs.sqlite")
    for i in range(30):
        result = " ".join(f"row{i}_{j} field{(i * 31 + j) % 997}" for j in range(300))
        engine.observe("r", Step(index=i, text=f"Listing table {i}.", tool="sql", args={"q": str(i)}, result=result))
    store = engine.store
    assert isinstance(store, SqliteStore)
    whole = len(codec.dumps(store.get(("", "r")).analysis))
    with sqlite3.connect(tmp_path / "runs.sqlite") as db:
        (base,) = db.execute("SELECT length(analysis) FROM runs").fetchone()
        entries = [n for (n,) in db.execute("SELECT length(entry) FROM statelog ORDER BY seq")]
    assert whole > 100_000 and base < whole / 10
    assert len(entries) >= 2 and min(entries) < whole / 10  # each step appended its changes
    engine.close()
    reopened = _engine(tmp_path / "runs.sqlite")
    assert len(codec.dumps(reopened.store.get(("", "r")).analysis)) == whole
    reopened.close()


def test_a_version_1_file_is_upgraded_and_its_pickled_runs_are_refused(tmp_path: Path) -> None:
    """A schema-1 file gains the state log; a run saved as pickle (format 3) is refused by name, never unpickled."""
    path = tmp_path / "runs.sqlite"
    engine = _engine(path)
    engine.observe("r", Step(index=0, text="x"))
    engine.close()
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE statelog")
        db.execute("UPDATE runs SET analysis = ?, analysis_format = 3", (b"\x80\x05 not to be loaded",))
        db.execute("PRAGMA user_version = 1")
    store = SqliteStore(path)
    with pytest.raises(StoreUnavailable, match=f"format 3; this Plateau reads format {ANALYSIS_FORMAT}"):
        store.get(("", "r"))
    fresh = Engine(embedder=HashingEmbedder(), store=store)
    assert fresh.observe("s", Step(index=0, text="y")).step_index == 0
    fresh.close()
