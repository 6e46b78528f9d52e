"""Fuzzing every RPC with arbitrary, often malformed, wire bytes against a live server.

Requests are built at the protobuf wire level (so string fields can hold invalid UTF-8, enums
unknown values, doubles NaN/inf, indices any int64), or are random or truncated bytes; tool
arguments include lone surrogates written as JSON escapes, nesting thousands deep and integers
of thousands of digits, and guard streams carry chunks of up to 2 MB (some over the server's
``max_chunk_chars``). For each, the server must answer with a status a client error deserves
(never ``INTERNAL`` or ``UNKNOWN``), keep serving, and leave a run untouched whenever it refuses
a call: the run's next verdict equals that of a twin run that never saw the refused request.
"""

from __future__ import annotations

import itertools
import math
import struct
from collections.abc import Iterator

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plateau.cli import ServerThread
from plateau.config import Config
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.v1 import plateau_pb2 as pb

CLIENT_ERRORS = {
    grpc.StatusCode.OK,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
}
RUNS = ("fz-0", "fz-1", "fz-2")
_STREAM_RUNS = itertools.count()
FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


# ----------------------------------------------------------------------- wire encoding
def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _len_field(no: int, data: bytes) -> bytes:
    return _varint(no << 3 | 2) + _varint(len(data)) + data


def _int_field(no: int, value: int) -> bytes:
    return _varint(no << 3) + _varint(value)


def _double_field(no: int, value: float) -> bytes:
    return _varint(no << 3 | 1) + struct.pack("<d", value)


# ----------------------------------------------------------------------- strategies
def _texts(max_size: int = 60) -> st.SearchStrategy[bytes]:
    """UTF-8 text, invalid UTF-8, empty, or (rarely) large."""
    return st.one_of(
        st.text(max_size=max_size).map(lambda s: s.encode("utf-8")),
        st.binary(max_size=max_size),
        st.just(b""),
        st.just(b"\xff\xfe invalid"),
        st.just(b"\xed\xa0\x80"),  # an encoded surrogate
        st.integers(min_value=1000, max_value=300_000).map(lambda n: b"z" * n),
    )


def _surrogate_escape(code: int) -> bytes:
    return b"\\u%04x" % code


#: Tool arguments that are valid JSON yet hostile: lone surrogates as escapes (in values and
#: keys), nesting from just under to far over the limit, integers from just under to far over it.
hostile_args = st.one_of(
    st.tuples(st.integers(0xD800, 0xDFFF), st.text(max_size=10)).map(
        lambda t: b'{"a": "' + t[1].encode("utf-8").replace(b"\\", b"").replace(b'"', b"") + _surrogate_escape(t[0]) + b'"}'
    ),
    st.integers(0xD800, 0xDFFF).map(lambda c: b'{"' + _surrogate_escape(c) + b'": 1}'),
    st.just(b'{"ok": "\\ud83d\\ude00"}'),  # a surrogate pair: valid
    st.tuples(st.integers(1, 100) | st.sampled_from([63, 64, 65, 900, 1000, 2000, 3000]), st.sampled_from([b"[", b'{"k":'])).map(
        lambda t: b'{"a": ' + t[1] * t[0] + (b"]" * t[0] if t[1] == b"[" else b"1" + b"}" * t[0]) + b"}"
    ),
    st.tuples(st.integers(1, 30) | st.sampled_from([999, 1000, 1001, 4300, 4301, 5000, 6000]), st.booleans()).map(
        lambda t: b'{"n": ' + (b"-" if t[1] else b"") + b"7" * t[0] + b"}"
    ),
    st.integers(300, 400).map(lambda e: b'{"f": 1e' + str(e).encode() + b"}"),  # overflows to inf
)


indices = st.one_of(st.integers(min_value=0, max_value=6), st.integers(min_value=-(2**63), max_value=2**63 - 1))
metrics = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([math.nan, math.inf, -math.inf, 0.0]))


@st.composite
def progress_bytes(draw: st.DrawFn) -> bytes:
    out = b""
    if draw(st.booleans()):
        out += _int_field(1, draw(st.integers(min_value=-(2**63), max_value=2**63 - 1)))
    if draw(st.booleans()):
        out += _int_field(2, draw(st.integers(min_value=-5, max_value=10)))
    for path in draw(st.lists(_texts(20), max_size=3)):
        out += _len_field(3, path)
    if draw(st.booleans()):
        out += _double_field(4, draw(metrics))
    return out


@st.composite
def step_bytes(draw: st.DrawFn, index: int | None = None) -> bytes:
    out = _int_field(1, draw(indices) if index is None else index)
    out += _len_field(2, draw(_texts()))
    if draw(st.booleans()):
        out += _len_field(3, draw(st.sampled_from([b"bash", b"read", b""]) | _texts(20)))
    if draw(st.booleans()):
        plain = st.sampled_from([b'{"a": 1}', b"{}", b"[1]", b"nope", b'{"a": NaN}', b'{"a": "\xff"}', b""])
        args = draw(plain | st.binary(max_size=30) | hostile_args)
        out += _len_field(4, args)
    if draw(st.booleans()):
        out += _len_field(5, draw(_texts()))
    if draw(st.booleans()):
        out += _int_field(6, draw(st.integers(min_value=-3, max_value=2**31)))
    if draw(st.booleans()):
        out += _len_field(7, draw(progress_bytes()))
    for no in (8, 9):
        if draw(st.booleans()):
            out += _len_field(no, draw(_texts(20)))
    return out


run_ids = st.one_of(st.sampled_from(RUNS).map(str.encode), _texts(30), st.just(b"fz\x00ctl"), st.just(b"r" * 300))


@st.composite
def observe_bytes(draw: st.DrawFn, index: int | None = None) -> bytes:
    out = _len_field(1, draw(run_ids))
    if draw(st.integers(0, 9)):
        out += _len_field(2, draw(step_bytes(index)))
    if draw(st.booleans()):
        out += _len_field(3, draw(_texts(30)))
    return out


def _mangled(s: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
    """The message, truncated, with a byte flipped, or replaced by random bytes."""
    return st.one_of(
        s,
        st.tuples(s, st.integers(min_value=0, max_value=200)).map(lambda t: t[0][: t[1]]),
        st.tuples(s, st.integers(min_value=0), st.integers(min_value=0, max_value=255)).map(
            lambda t: t[0][: t[1] % max(1, len(t[0]))] + bytes([t[2]]) + t[0][t[1] % max(1, len(t[0])) + 1 :] if t[0] else t[0]
        ),
        st.binary(max_size=80),
    )


# ----------------------------------------------------------------------- harness
MAX_CHUNK_CHARS = 500_000


@pytest.fixture(scope="module")
def fuzz_channel() -> Iterator[grpc.Channel]:
    """A live server (test embedder) and a channel to it; each run in RUNS starts with three steps."""
    engine = Engine(Config(max_chunk_chars=MAX_CHUNK_CHARS), embedder=HashingEmbedder())
    with ServerThread(engine) as server, grpc.insecure_channel(server.target) as channel:
        observe = channel.unary_unary("/plateau.v1.Plateau/Observe")
        for rid in RUNS:
            for i in range(3):
                observe(pb.ObserveRequest(run_id=rid, step=pb.Step(index=i, text=f"{rid} step {i}")).SerializeToString())
        yield channel


def _raw(channel: grpc.Channel, method: str) -> grpc.UnaryUnaryMultiCallable:
    return channel.unary_unary(f"/plateau.v1.Plateau/{method}")


def _state(channel: grpc.Channel) -> dict[str, bytes]:
    get = _raw(channel, "GetRun")
    return {rid: get(pb.GetRunRequest(run_id=rid).SerializeToString(), timeout=10) for rid in RUNS}


def _call(fn: grpc.UnaryUnaryMultiCallable, data: bytes) -> grpc.StatusCode:
    try:
        fn(data, timeout=20)
    except grpc.RpcError as exc:
        return exc.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


def _alive(channel: grpc.Channel) -> None:
    assert _call(_raw(channel, "GetRun"), pb.GetRunRequest(run_id=RUNS[0]).SerializeToString()) is grpc.StatusCode.OK


# ----------------------------------------------------------------------- properties
@FUZZ
@given(_mangled(observe_bytes()))
def test_observe_answers_a_client_status_and_refusals_change_nothing(fuzz_channel: grpc.Channel, data: bytes) -> None:
    """Observe answers OK or a client-error status; a refused call leaves every run as it was, an accepted one adds one step."""
    before = _state(fuzz_channel)
    code = _call(_raw(fuzz_channel, "Observe"), data)
    assert code in CLIENT_ERRORS
    after = _state(fuzz_channel)
    if code is grpc.StatusCode.OK:
        changed = [rid for rid in RUNS if before[rid] != after[rid]]
        assert len(changed) <= 1
        for rid in changed:
            assert pb.RunInfo.FromString(after[rid]).steps == pb.RunInfo.FromString(before[rid]).steps + 1
    else:
        assert after == before


@FUZZ
@given(st.sampled_from(["GetRun", "ResetRun", "EndRun"]), _mangled(st.builds(lambda r: _len_field(1, r), run_ids)))
def test_run_calls_answer_a_client_status(fuzz_channel: grpc.Channel, method: str, data: bytes) -> None:
    """GetRun, ResetRun and EndRun on arbitrary bytes answer OK, INVALID_ARGUMENT or NOT_FOUND, never INTERNAL."""
    if method != "GetRun":
        data = data.replace(b"fz-", b"fy-")  # keep the observed runs for the other properties
    before = _state(fuzz_channel)
    code = _call(_raw(fuzz_channel, method), data)
    assert code in {grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND}
    assert _state(fuzz_channel) == before


large_chunks = st.one_of(
    st.integers(MAX_CHUNK_CHARS - 10, MAX_CHUNK_CHARS + 10).map(lambda n: b"ab" * (n // 2) + b"c" * (n % 2)),
    st.integers(100_000, 2_000_000).map(lambda n: (b"the quick brown fox %d " % n) * (n // 24)),
)


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(["content", "reasoning", "tool_args", "", "weird"]), _texts(80) | large_chunks), max_size=8))
def test_guard_stream_answers_a_client_status(fuzz_channel: grpc.Channel, chunks: list[tuple[str, bytes]]) -> None:
    """GuardStream over arbitrary channels and chunks (invalid UTF-8, up to 2 MB, over max_chunk_chars) never fails as INTERNAL."""
    call = fuzz_channel.stream_stream("/plateau.v1.Plateau/GuardStream")
    requests = [_len_field(1, ch.encode()) + _len_field(2, chunk) for ch, chunk in chunks]
    try:
        list(call(iter(requests), timeout=20))
    except grpc.RpcError as exc:
        assert exc.code() in CLIENT_ERRORS
    _alive(fuzz_channel)


@FUZZ
@given(st.data())
def test_observe_stream_with_out_of_order_and_repeated_indices(fuzz_channel: grpc.Channel, data: st.DataObject) -> None:
    """A stream of steps with shuffled and repeated indices is answered in order until its first refusal, counting each new step once."""
    rid = f"fz-stream-{next(_STREAM_RUNS)}"  # a fresh run per example
    idx = data.draw(st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=10))
    texts = [f"stream step {i}: reading part {i}".encode() for i in range(7)]
    requests = [_len_field(1, rid.encode()) + _len_field(2, _int_field(1, i) + _len_field(2, texts[i])) for i in idx]
    call = fuzz_channel.stream_stream("/plateau.v1.Plateau/ObserveStream")
    answered = 0
    code = grpc.StatusCode.OK
    try:
        for _ in call(iter(requests), timeout=20):
            answered += 1
    except grpc.RpcError as exc:
        code = exc.code()
    assert code in {grpc.StatusCode.OK, grpc.StatusCode.FAILED_PRECONDITION}
    # the server's run is exactly the prefix 0..k-1 that the accepted requests built
    nxt = 0
    for i in idx[:answered]:
        assert i <= nxt
        nxt = max(nxt, i + 1)
    if answered < len(idx):
        assert idx[answered] > nxt  # refused exactly at the first gap
    try:
        steps = pb.RunInfo.FromString(_raw(fuzz_channel, "GetRun")(pb.GetRunRequest(run_id=rid).SerializeToString())).steps
    except grpc.RpcError as exc:
        assert exc.code() is grpc.StatusCode.NOT_FOUND and nxt == 0
        steps = 0
    assert steps == nxt


_TWINS = itertools.count()


def _seed_step(i: int) -> bytes:
    """Step i of a retry loop (the same failing call): the trackers hold state a refused step could disturb."""
    call = _len_field(3, b"bash") + _len_field(4, b'{"cmd":"make"}') + _len_field(5, b"error: missing header") + _int_field(6, 2)
    return _int_field(1, i) + _len_field(2, b"attempt %d: building again" % i) + call


@FUZZ
@given(st.integers(min_value=0, max_value=3), step_bytes(index=2) | st.builds(lambda a: _int_field(1, 2) + _len_field(4, a), hostile_args))
def test_after_a_refused_step_the_run_answers_like_an_untouched_one(fuzz_channel: grpc.Channel, repeats: int, step: bytes) -> None:
    """A refused step (sent up to four times) changes nothing: the run's next verdicts equal those of a twin that never saw it."""
    n = next(_TWINS)
    hit, twin = f"hit-{n}".encode(), f"twin-{n}".encode()
    observe = _raw(fuzz_channel, "Observe")
    for rid in (hit, twin):
        for i in range(2):
            observe(_len_field(1, rid) + _len_field(2, _seed_step(i)), timeout=20)
    codes = {_call(observe, _len_field(1, hit) + _len_field(2, step)) for _ in range(repeats + 1)}
    assert codes <= CLIENT_ERRORS
    if grpc.StatusCode.OK in codes:
        return  # accepted: the run moved on legitimately
    for i in range(2, 5):
        got = [pb.Verdict.FromString(observe(_len_field(1, rid) + _len_field(2, _seed_step(i)), timeout=20)) for rid in (hit, twin)]
        got[0].run_id = got[1].run_id
        assert got[0] == got[1]


@FUZZ
@given(hostile_args)
def test_a_loop_over_hostile_args_answers_a_client_status_at_every_step(fuzz_channel: grpc.Channel, args: bytes) -> None:
    """The same call with hostile args repeated (so that steer messages quote them) is answered OK or refused, never INTERNAL;
    a refused step leaves the run at the steps before it."""
    rid = f"loop-{next(_TWINS)}".encode()
    observe = _raw(fuzz_channel, "Observe")
    for i in range(5):
        call = _len_field(3, b"bash") + _len_field(4, args) + _len_field(5, b"error: no")
        step = _int_field(1, i) + _len_field(2, b"trying again") + call
        code = _call(observe, _len_field(1, rid) + _len_field(2, step))
        assert code in CLIENT_ERRORS
        if code is not grpc.StatusCode.OK:
            assert code is grpc.StatusCode.INVALID_ARGUMENT
            assert _call(_raw(fuzz_channel, "GetRun"), _len_field(1, rid)) is (grpc.StatusCode.OK if i else grpc.StatusCode.NOT_FOUND)
            break


def test_the_server_survives_the_fuzzing(fuzz_channel: grpc.Channel) -> None:
    """After every property above, the server still answers and its seeded runs hold their steps."""
    _alive(fuzz_channel)
    for info in _state(fuzz_channel).values():
        assert pb.RunInfo.FromString(info).steps >= 3
