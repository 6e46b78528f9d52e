"""Each service limit: a sane default, a configured value, and a clear error when exceeded."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest

from plateau.cli import ServerThread
from plateau.client import Client
from plateau.config import Config
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.errors import InvalidArgument, LimitExceeded, PlateauError
from plateau.types import Step
from tests.support.embedders import GatedEmbedder


def _step(i: int) -> Step:
    return Step(index=i, text=f"step {i} of the work, reading file {i}")


def test_defaults_are_sane() -> None:
    """The defaults bound memory and abuse without refusing real agent runs."""
    c = Config()
    assert c.max_steps_per_run >= 10_000 and c.max_runs_per_tenant >= 1_000
    assert c.max_message_bytes >= 4 * c.max_field_chars and c.max_concurrent_streams >= 64
    assert 0 < c.order_wait_seconds <= 60 and c.stream_idle_seconds >= 60
    with pytest.raises(InvalidArgument) as info:
        Config(max_concurrent_streams=0)
    assert info.value.field == "config.max_concurrent_streams"


def test_steps_per_run() -> None:
    """Past max_steps_per_run a new step is RESOURCE_EXHAUSTED naming step.index; re-sends still answer."""
    engine = Engine(Config(max_steps_per_run=3), HashingEmbedder())
    verdicts = [engine.observe("r", _step(i)) for i in range(3)]
    with ServerThread(engine) as server, Client.remote(server.target) as client:
        with pytest.raises(LimitExceeded, match="^step.index: .*limit of 3 steps"):
            client.observe("r", _step(3))
        assert client.observe("r", _step(2)) == verdicts[2]
    assert engine.get_run("r").steps == 3


def test_runs_per_tenant() -> None:
    """A tenant's run beyond max_runs_per_tenant is RESOURCE_EXHAUSTED; other tenants and existing runs are unaffected."""
    now = [0.0]
    engine = Engine(Config(max_runs_per_tenant=2, ended_run_ttl_seconds=10.0), HashingEmbedder(), clock=lambda: now[0])
    engine.observe("a", _step(0), tenant="t")
    engine.observe("b", _step(0), tenant="t")
    with pytest.raises(LimitExceeded, match="2 open runs"):
        engine.observe("c", _step(0), tenant="t")
    engine.observe("c", _step(0), tenant="other")
    engine.observe("a", _step(1), tenant="t")
    engine.end_run("a", tenant="t")
    now[0] += 11
    assert engine.expire() == 1
    engine.observe("c", _step(0), tenant="t")


def test_runs_per_tenant_is_exact_under_concurrency() -> None:
    """Thirty-two new runs started at once against a limit of 5 create exactly 5."""
    engine = Engine(Config(max_runs_per_tenant=5), HashingEmbedder())

    def start(n: int) -> bool:
        try:
            engine.observe(f"run-{n}", _step(0))
            return True
        except LimitExceeded:
            return False

    with ThreadPoolExecutor(8) as pool:
        assert sum(pool.map(start, range(32))) == 5
    assert engine.store.count("") == 5


def test_message_size_and_field_size() -> None:
    """A request over max_message_bytes is RESOURCE_EXHAUSTED; a field over max_field_chars is INVALID_ARGUMENT naming it."""
    engine = Engine(Config(max_message_bytes=64 * 1024, max_field_chars=2048), HashingEmbedder())
    with ServerThread(engine) as server, Client.remote(server.target) as client:
        with pytest.raises(LimitExceeded):
            client.observe("big", Step(index=0, text="x" * 100_000))
        with pytest.raises(InvalidArgument) as info:
            client.observe("big", Step(index=0, text="ok", tool="cat", result="y" * 3000))
        assert info.value.field == "step.result"
        assert client.observe("big", Step(index=0, text="small")).step_index == 0


def test_concurrent_streams_and_idle_streams() -> None:
    """One stream over max_concurrent_streams is RESOURCE_EXHAUSTED; a stream silent past stream_idle_seconds is closed."""
    engine = Engine(Config(max_concurrent_streams=1, stream_idle_seconds=0.3), HashingEmbedder())
    with ServerThread(engine) as server, Client.remote(server.target) as client:
        first = client.guard_session()
        assert not first.feed("content", "hello ").fired
        second = client.guard_session()
        with pytest.raises(LimitExceeded, match="streams"):
            second.feed("content", "hello")
        second.close()
        code = None
        for _ in range(40):  # stay silent past stream_idle_seconds (however slow the machine), then try
            time.sleep(0.5)
            try:
                first.feed("content", "world")
            except PlateauError as exc:
                code = exc.code
                break
        assert code == "DEADLINE_EXCEEDED"
        first.close()
        third = client.guard_session()  # the slot is free again
        assert not third.feed("content", "again").fired
        third.close()


def test_a_waiting_step_honours_the_callers_deadline() -> None:
    """A step waiting for an in-flight predecessor answers DEADLINE_EXCEEDED at the caller's deadline; order and counts hold."""
    gated = GatedEmbedder()
    engine = Engine(embedder=gated)
    with ServerThread(engine) as server, Client.remote(server.target) as slow, Client.remote(server.target, timeout=0.5) as hasty:
        with ThreadPoolExecutor(1) as pool:
            first = pool.submit(slow.observe, "d", _step(0))
            assert gated.entered.acquire(timeout=10)
            with pytest.raises(PlateauError) as info:
                hasty.observe("d", _step(1))
            assert info.value.code == "DEADLINE_EXCEEDED"
            gated.open.set()
            first.result(timeout=30)
        # the server may still have applied step 1 (after step 0) once its wait ended: a re-send gets that verdict
        assert slow.get_run("d").steps in (1, 2)
        assert slow.observe("d", _step(1)).step_index == 1
        assert slow.get_run("d").steps == 2


def test_an_expired_deadline_is_not_handled() -> None:
    """A call whose deadline has already passed is refused as DEADLINE_EXCEEDED before any work; no deadline means no limit."""
    import math

    from plateau.server import PlateauService, _Aborted

    class Context:
        def __init__(self, left: float | None) -> None:
            self.left = left

        def time_remaining(self) -> float | None:
            return self.left

    with pytest.raises(_Aborted) as info:
        PlateauService._deadline_left(Context(-0.01))  # type: ignore[arg-type]
    assert info.value.code is grpc.StatusCode.DEADLINE_EXCEEDED
    assert PlateauService._deadline_left(Context(None)) == math.inf  # type: ignore[arg-type]
    assert PlateauService._deadline_left(Context(2.5)) == 2.5  # type: ignore[arg-type]
