"""Idempotency and ordering under concurrency: duplicates count once, steps apply in index order."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from plateau.cli import ServerThread
from plateau.client import Client
from plateau.config import Config
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.errors import StepConflict
from plateau.store.sqlite import SqliteStore
from plateau.types import Step
from tests.support.embedders import GatedEmbedder


def _steps(n: int) -> list[Step]:
    return [Step(index=i, text=f"step {i}: reading file {i * 13 % 29} and noting its imports", tool="read",
                 args={"p": i}, result=f"import m{i}") for i in range(n)]


def test_the_same_step_from_many_threads_is_counted_once(tmp_path: Path) -> None:
    """Sixteen threads sending the same step at once all get one identical verdict; the run holds one step."""
    engine = Engine(embedder=HashingEmbedder(), store=SqliteStore(tmp_path / "r.sqlite"))
    step = _steps(1)[0]
    barrier = threading.Barrier(16)

    def send() -> object:
        barrier.wait()
        return engine.observe("r", step)

    with ThreadPoolExecutor(16) as pool:
        verdicts = list(pool.map(lambda _: send(), range(16)))
    assert all(v == verdicts[0] for v in verdicts)
    assert engine.get_run("r").steps == 1
    engine.close()


def test_steps_sent_out_of_order_while_the_first_is_in_flight_apply_in_order() -> None:
    """Steps 1..5 started in reverse order while step 0 is in flight wait for it and apply in index order."""
    gated = GatedEmbedder()
    engine = Engine(embedder=gated)
    steps = _steps(6)
    reference = Engine(embedder=HashingEmbedder())
    expected = [reference.observe("ref", s) for s in steps]
    with ThreadPoolExecutor(6) as pool:
        futures = {0: pool.submit(engine.observe, "ref", steps[0])}
        assert gated.entered.acquire(timeout=10)  # step 0 is being judged
        for i in reversed(range(1, 6)):
            futures[i] = pool.submit(engine.observe, "ref", steps[i])
            assert gated.entered.acquire(timeout=10)  # step i saw a predecessor in flight and went on to embed
        gated.open.set()
        got = [futures[i].result(timeout=30) for i in range(6)]
    assert got == expected
    assert engine.get_run("ref").steps == 6


def test_a_real_gap_is_refused_at_once() -> None:
    """A step whose predecessor is not in flight is FAILED_PRECONDITION without waiting for order_wait_seconds."""
    engine = Engine(Config(order_wait_seconds=30.0), HashingEmbedder())
    engine.observe("r", _steps(1)[0])
    with pytest.raises(StepConflict, match="gap"):
        engine.observe("r", _steps(4)[3])
    assert engine.get_run("r").steps == 1


def test_a_missing_predecessor_that_never_lands_ends_in_a_gap() -> None:
    """If the in-flight predecessor fails, the waiting step is refused as a gap and nothing is applied."""
    gated = GatedEmbedder()
    engine = Engine(embedder=gated)
    bad = Step(index=0, text="will fail", tool="t", args={"a": 1}, result="r")
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(engine.observe, "r", bad, "ctx")
        assert gated.entered.acquire(timeout=10)
        second = pool.submit(engine.observe, "r", _steps(2)[1], "ctx")
        assert gated.entered.acquire(timeout=10)
        engine.store.append = _fail  # type: ignore[method-assign]  # step 0 cannot be stored
        gated.open.set()
        with pytest.raises(RuntimeError):
            first.result(timeout=30)
        with pytest.raises(StepConflict, match="gap"):
            second.result(timeout=30)


def _fail(*args: object) -> None:
    raise RuntimeError("disk gone")


def test_over_grpc_duplicates_on_many_connections_count_once(hashing_server: str) -> None:
    """The same step sent at once on eight connections gets one verdict, and the run advances by one."""
    clients = [Client.remote(hashing_server) for _ in range(8)]
    try:
        step = _steps(1)[0]
        barrier = threading.Barrier(8)

        def send(c: Client) -> object:
            barrier.wait()
            return c.observe("dup-wire", step)

        with ThreadPoolExecutor(8) as pool:
            verdicts = list(pool.map(send, clients))
        assert all(v == verdicts[0] for v in verdicts)
        assert clients[0].get_run("dup-wire").steps == 1
    finally:
        for c in clients:
            c.close()


def test_over_grpc_steps_on_several_connections_apply_in_order() -> None:
    """Steps 3, 2, 1 arriving on three connections while step 0 is in flight are applied in index order."""
    gated = GatedEmbedder()
    engine = Engine(embedder=gated)
    steps = _steps(4)
    reference = Engine(embedder=HashingEmbedder())
    expected = [reference.observe("order", s) for s in steps]
    with ServerThread(engine) as server:
        clients = [Client.remote(server.target) for _ in range(4)]
        service = server.running.service
        try:
            with ThreadPoolExecutor(4) as pool:
                futures = {0: pool.submit(clients[0].observe, "order", steps[0])}
                assert gated.entered.acquire(timeout=10)
                for i in (3, 2, 1):
                    futures[i] = pool.submit(clients[i].observe, "order", steps[i])
                deadline = time.monotonic() + 20
                while service.arrivals.count(("", "order")) < 4:
                    assert time.monotonic() < deadline, "the steps never reached the server"
                    time.sleep(0.01)
                gated.open.set()
                got = [futures[i].result(timeout=30) for i in range(4)]
        finally:
            for c in clients:
                c.close()
    assert got == expected
