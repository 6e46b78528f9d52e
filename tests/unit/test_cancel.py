"""Cancellation points (issue 22, item 3): work whose caller has gone away stops at its next stage boundary."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from plateau.cancel import Dropped, cancellable, checkpoint
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.errors import RunNotFound
from plateau.types import Step, canonical_args


class _LeavingEmbedder(HashingEmbedder):
    """Embeds; while ``leave`` is set, the caller goes away (``stop`` is set) as its step is embedded."""

    def __init__(self, stop: threading.Event) -> None:
        super().__init__()
        self.stop, self.leave = stop, False

    def encode(self, texts):  # type: ignore[no-untyped-def]
        if self.leave:
            self.stop.set()
        return super().encode(texts)


def _step(i: int) -> Step:
    return Step(index=i, text=f"editing part {i}", tool="edit", args={"path": f"p{i}.py"}, result=f"ok {i}")


def test_a_checkpoint_outside_a_call_does_nothing_and_inside_a_gone_call_raises() -> None:
    checkpoint()
    stop = threading.Event()
    with cancellable(stop):
        checkpoint()
        stop.set()
        with pytest.raises(Dropped):
            checkpoint()
    checkpoint()  # the block is over: this thread works for no call


def test_judging_stops_at_its_next_stage_when_the_caller_goes_away_and_leaves_no_trace() -> None:
    """The caller goes away while its step is embedded: the step's judging stops at the first fact stage, the run keeps
    exactly its committed steps (a new run is not created), and the next step is judged as if nothing happened."""
    stop = threading.Event()
    embedder = _LeavingEmbedder(stop)
    engine = Engine(embedder=embedder)
    reference = Engine(embedder=HashingEmbedder())
    steps = [_step(i) for i in range(4)]
    with cancellable(stop):
        first = [engine.observe("r", s) for s in steps[:3]]
        embedder.leave = True
        with pytest.raises(Dropped):
            engine.observe("r", steps[3])
    assert engine.get_run("r").steps == 3
    stop.clear()
    embedder.leave = False
    with cancellable(stop):
        got = engine.observe("r", steps[3])
    expected = [reference.observe("r", _step(i)) for i in range(4)]
    assert first + [got] == expected
    embedder.leave = True
    with cancellable(stop), pytest.raises(Dropped):
        engine.observe("new", Step(index=0, text="a text never embedded before"))
    with pytest.raises(RunNotFound):
        engine.get_run("new")


def test_canonicalising_large_args_stops_between_its_stages() -> None:
    stop = threading.Event()
    stop.set()
    with cancellable(stop), pytest.raises(Dropped):
        canonical_args({"k": list(np.arange(10).tolist())})
    assert canonical_args({"b": 1, "a": 2}) == '{"a":2,"b":1}'
