"""The micro-batching embedder on the test double: exact rows per caller, merged bursts, the adaptive window."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from plateau.embed import BatchingEmbedder, HashingEmbedder


class Recording:
    """A HashingEmbedder that records each call's texts and can hold a call until released."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder(64)
        self.name = self.inner.name
        self.calls: list[list[str]] = []
        self.entered = threading.Event()
        self.release = threading.Event()
        self.release.set()
        self.fail_on: int | None = None  # the index of a call that raises

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        self.entered.set()
        assert self.release.wait(30), "the test never released the model call"
        if len(self.calls) - 1 == self.fail_on:
            raise RuntimeError("model exploded")
        return self.inner.encode(texts)


def _wait_until(condition: Callable[[], bool], what: str, limit_s: float = 30.0) -> None:
    """Poll ``condition`` until it holds (a generous limit guards against a hang, not a timing check)."""
    end = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < end, f"gave up waiting for {what}"
        time.sleep(0.001)


@pytest.mark.parametrize("linger_ms", [0.0, 250.0])
def test_concurrent_callers_get_exactly_their_unbatched_rows(linger_ms: float) -> None:
    """Each of 48 concurrent callers (1-3 texts each) gets bit-for-bit the rows an unbatched encode gives, adaptive window off or on."""
    ref = HashingEmbedder(64)
    batcher = BatchingEmbedder(HashingEmbedder(64), max_batch=16, max_wait_ms=5.0, max_linger_ms=linger_ms, linger_fraction=1.0)
    requests = [[f"caller {i} text {j}: shard {i * 7 + j} of the index" for j in range(1 + i % 3)] for i in range(48)]
    start = threading.Barrier(16)

    def call(texts: list[str]) -> np.ndarray:
        if requests.index(texts) < 16:
            start.wait(10)
        return batcher.encode(texts)

    try:
        with ThreadPoolExecutor(16) as pool:
            outs = list(pool.map(call, requests))
    finally:
        batcher.close()
    for texts, out in zip(requests, outs, strict=True):
        assert out.shape == (len(texts), 64) and out.dtype == np.float32
        assert np.array_equal(out, ref.encode(texts))
    assert sum(batcher.batch_sizes) == sum(map(len, requests))
    assert sum(batcher.batch_requests) == len(requests)
    assert max(batcher.batch_sizes) <= 16 + 2  # a batch closes once it holds max_batch texts


def test_a_burst_is_merged_into_fewer_batches_than_requests() -> None:
    """Requests that queue up while the model is busy all go into the next model call."""
    inner = Recording()
    batcher = BatchingEmbedder(inner, max_batch=64)
    inner.release.clear()
    try:
        with ThreadPoolExecutor(16) as pool:
            first = pool.submit(batcher.encode, ["the first request"])
            assert inner.entered.wait(30)
            rest = [pool.submit(batcher.encode, [f"request {i}", f"its tool call {i}"]) for i in range(15)]
            _wait_until(lambda: batcher.pending == 15, "15 queued requests")
            inner.release.set()
            outs = [first.result(30)] + [f.result(30) for f in rest]
    finally:
        batcher.close()
    assert len(inner.calls) == 2 < 16
    assert inner.calls[0] == ["the first request"] and len(inner.calls[1]) == 30
    assert batcher.batch_requests == [1, 15]
    assert [o.shape[0] for o in outs] == [1] + [2] * 15


def _first_wave(batcher: BatchingEmbedder, inner: Recording, pool: ThreadPoolExecutor) -> None:
    """A lone warm-up call held inside the model while 4 requests queue; then all are answered
    (batches of 1 and 4 requests)."""
    pool.submit(batcher.encode, ["warm-up"])
    assert inner.entered.wait(30)
    wave = [pool.submit(batcher.encode, [f"wave one {i}"]) for i in range(4)]
    _wait_until(lambda: batcher.pending == 4, "4 queued requests")
    inner.release.set()
    for f in wave:
        f.result(30)


def test_a_wave_as_large_as_the_last_batch_is_kept_whole() -> None:
    """After a batch of 4 requests, 4 requests arriving one by one (well apart) share one model call."""
    inner = Recording()
    # max_wait_ms=0: without the adaptive window each of the spaced requests would be its own batch;
    # a long linger (the test double's model time is microseconds) keeps the outcome independent of
    # how slow the machine is.
    batcher = BatchingEmbedder(inner, max_batch=64, max_wait_ms=0.0, max_linger_ms=60_000.0, linger_fraction=1e9)
    inner.release.clear()
    try:
        with ThreadPoolExecutor(8) as pool:
            _first_wave(batcher, inner, pool)
            second_wave = []
            for i in range(4):
                second_wave.append(pool.submit(batcher.encode, [f"wave two {i}"]))
                time.sleep(0.05)  # spacing far above max_wait_ms: only the expected wave keeps the batch open
            for f in second_wave:
                f.result(60)
    finally:
        batcher.close()
    assert batcher.batch_requests == [1, 4, 4]
    assert inner.calls[-1] == [f"wave two {i}" for i in range(4)]


def test_a_fixed_window_when_the_adaptive_one_is_off() -> None:
    """With max_linger_ms=0 and max_wait_ms=0 spaced requests are not held for an expected wave."""
    inner = Recording()
    batcher = BatchingEmbedder(inner, max_batch=64, max_wait_ms=0.0, max_linger_ms=0.0)
    inner.release.clear()
    try:
        with ThreadPoolExecutor(8) as pool:
            _first_wave(batcher, inner, pool)
            for i in range(2):
                batcher.encode([f"alone {i}"])  # sequential: each call returns before the next starts
    finally:
        batcher.close()
    assert batcher.batch_requests == [1, 4, 1, 1]


def test_a_single_request_is_answered() -> None:
    """One caller on an idle embedder gets its rows (and an empty request needs no batch)."""
    ref = HashingEmbedder(64)
    batcher = BatchingEmbedder(HashingEmbedder(64))
    try:
        out = batcher.encode(["just one step"])
        again = batcher.encode(["just one step", "and its tool call"])
        empty = batcher.encode([])
    finally:
        batcher.close()
    assert np.array_equal(out, ref.encode(["just one step"]))
    assert np.array_equal(again, ref.encode(["just one step", "and its tool call"]))
    assert empty.shape == (0, 64)
    assert batcher.batch_requests == [1, 1]


def test_a_model_error_reaches_every_caller_of_the_batch_and_the_next_batch_works() -> None:
    """When a model call fails, each caller merged into it gets the error; later calls still work."""
    inner = Recording()
    inner.fail_on = 1  # the second model call: the three queued requests
    batcher = BatchingEmbedder(inner, max_batch=64)
    inner.release.clear()
    try:
        with ThreadPoolExecutor(4) as pool:
            first = pool.submit(batcher.encode, ["first"])
            assert inner.entered.wait(30)
            queued = [pool.submit(batcher.encode, [f"queued {i}"]) for i in range(3)]
            _wait_until(lambda: batcher.pending == 3, "3 queued requests")
            inner.release.set()
            assert first.result(30).shape == (1, 64)
            for f in queued:
                with pytest.raises(RuntimeError, match="model exploded"):
                    f.result(30)
        assert batcher.encode(["after the error"]).shape == (1, 64)
    finally:
        batcher.close()
    assert len(inner.calls) == 3 and len(inner.calls[1]) == 3
    assert batcher.batch_requests == [1, 1]  # failed batches are not counted


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"max_batch": 0}, "max_batch"),
        ({"max_wait_ms": -1.0}, "max_wait_ms"),
        ({"max_linger_ms": -0.5}, "max_linger_ms"),
        ({"linger_fraction": -0.1}, "linger_fraction"),
    ],
)
def test_bad_parameters_are_rejected_by_name(kwargs: dict[str, float], name: str) -> None:
    """A negative window or an empty batch limit is a ValueError naming the parameter."""
    with pytest.raises(ValueError, match=name):
        BatchingEmbedder(HashingEmbedder(), **kwargs)  # type: ignore[arg-type]


def test_the_positional_constructor_is_unchanged() -> None:
    """``BatchingEmbedder(inner, max_batch, max_wait_ms)`` still works; the adaptive window is off unless asked for."""
    batcher = BatchingEmbedder(HashingEmbedder(), 32, 1.0)
    assert (batcher.max_batch, batcher.max_wait_ms) == (32, 1.0)
    assert (batcher.max_linger_ms, batcher.linger_fraction) == (0.0, 0.1)
