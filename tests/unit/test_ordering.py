"""Per-step ordering in one place (plateau.ordering, issue 25): the rules on a run's record, the
in-process turns the engine takes, and the server's asynchronous arrivals."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.errors import StepConflict
from plateau.ordering import Arrivals, StepOrder
from plateau.store.memory import MemoryStore
from plateau.types import Step


def _step(i: int, text: str = "") -> Step:
    return Step(index=i, text=text or f"step {i}: reading module {i * 7919 % 1000} and noting what it exports")


def test_place_answers_a_replay_from_the_record_and_refuses_gaps_and_other_content() -> None:
    """Rules 3 and 4 on a real run's record: replay → the stored verdict; next → None; gap,
    other content and an ended run → StepConflict; a gap passes only when its predecessor is in flight."""
    engine = Engine(embedder=HashingEmbedder())
    verdicts = [engine.observe("r", _step(i)) for i in range(3)]
    record = engine.store.get(("", "r"))
    order = engine.order
    assert [order.place(record, "r", i, _step(i).fingerprint()) for i in range(3)] == verdicts
    assert order.place(record, "r", 3, _step(3).fingerprint()) is None
    with pytest.raises(StepConflict, match="different content"):
        order.place(record, "r", 1, _step(1, "other words").fingerprint())
    with pytest.raises(StepConflict, match="expects step 3 next, got 5"):
        order.place(record, "r", 5, _step(5).fingerprint())
    assert order.place(record, "r", 5, _step(5).fingerprint(), ahead_ok=True) is None
    assert order.place(None, "new", 0, _step(0).fingerprint()) is None
    with pytest.raises(StepConflict, match="gap"):
        order.place(None, "new", 1, _step(1).fingerprint(), key=("", "new"))
    engine.end_run("r")
    with pytest.raises(StepConflict, match="has ended"):
        order.place(engine.store.get(("", "r")), "r", 3, _step(3).fingerprint())


def test_a_turn_is_counted_while_it_lasts_and_wakes_the_step_waiting_for_it() -> None:
    """Step 1 waits for step 0 in flight in the same process, and goes on when step 0's record lands."""
    store = MemoryStore()
    order = StepOrder(store, order_wait_seconds=5.0)
    engine = Engine(embedder=HashingEmbedder(), store=store)
    key = ("", "w")
    got: list[int] = []
    with order.turn(key, 0, 5.0) as first:
        with first.lock:
            record, ahead_ok = first.first_look()
        assert record is None and not ahead_ok
        with order.locked(key) as gate:
            assert gate.inflight == {0: 1}

        def second() -> None:
            with order.turn(key, 1, 5.0) as turn, turn.lock:
                record, ahead_ok = turn.first_look()
                assert ahead_ok  # step 0 is in flight: not a gap
                record = turn.wait_for_predecessors(time.monotonic() + 5.0)
                got.append(0 if record is None else len(record.fingerprints))

        waiter = threading.Thread(target=second)
        waiter.start()
        time.sleep(0.2)
        assert got == []  # still waiting for step 0
        engine.observe("w", _step(0))  # step 0 lands in the shared store
    waiter.join(10)
    assert got == [1]
    with order.locked(key) as gate:
        assert gate.inflight == {} and gate.users == 1  # only this call holds the gate now


def test_the_budget_is_the_callers_timeout_capped_at_the_order_wait() -> None:
    order = StepOrder(MemoryStore(), order_wait_seconds=30.0)
    assert (order.budget(None), order.budget(5.0), order.budget(90.0), order.budget(-1.0)) == (30.0, 5.0, 30.0, 0.0)


def test_arrivals_hold_a_step_until_its_lower_indices_leave_the_server() -> None:
    """On the event loop: step 2, arriving while steps 0 and 1 are on the server, waits until
    both have left; the count follows the calls."""

    async def scenario() -> dict[int, int]:
        arrivals = Arrivals()
        on_server_at_start: dict[int, int] = {}
        release = asyncio.Event()

        async def call(index: int) -> None:
            async with arrivals.arrive("k", index) as arrival:
                await arrival.after_predecessors(5.0)
                on_server_at_start[index] = arrivals.count("k")
                if index < 2:
                    await release.wait()

        tasks = [asyncio.ensure_future(call(i)) for i in (0, 1, 2)]
        await asyncio.sleep(0.05)
        assert arrivals.count("k") == 3 and 2 not in on_server_at_start
        release.set()
        await asyncio.gather(*tasks)
        assert arrivals.count("k") == 0
        return on_server_at_start

    assert asyncio.run(scenario())[2] == 1  # step 2 went on alone: 0 and 1 had left
