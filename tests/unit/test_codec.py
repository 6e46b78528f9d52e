"""The learned state's non-pickle codec: exact round trips of real engine state, refusals, bounded deltas."""

from __future__ import annotations

import collections
import json

import numpy as np
import pytest

from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.replay import load_runs
from plateau.stats.cusum import CUSUM
from plateau.store import codec
from plateau.types import Action, Step
from tests.support.paths import EXAMPLES


def _varied_run(n: int) -> list[Step]:
    """Steps with large, ever-different tool results (the term sets grow every step), then a loop."""
    out = []
    for i in range(n):
        if i < n - 6:
            result = " ".join(f"row{i}_{j} field{(i * 31 + j) % 997} value{j * i}" for j in range(300))
            out.append(Step(index=i, text=f"Listing table {i} to find the orphaned rows.", tool="sql", args={"q": f"select {i}"},
                            result=result))
        else:
            out.append(Step(index=i, text="Retrying the migration.", tool="migrate", args={"v": "1"}, result="Error: lock held"))
    return out


def _example_steps() -> list[list[Step]]:
    return [[Step.from_dict(s, i) for i, s in enumerate(run.steps)] for run in load_runs([EXAMPLES])]


@pytest.mark.parametrize("cut", [3, 12, 24])
def test_a_real_engine_state_round_trips_and_the_next_verdicts_are_unchanged(cut: int) -> None:
    """After many steps, the state decoded from its document gives the same next verdicts as an untouched engine."""
    steps = _varied_run(30)
    untouched, restored = Engine(embedder=HashingEmbedder()), Engine(embedder=HashingEmbedder())
    for s in steps[:cut]:
        assert untouched.observe("r", s) == restored.observe("r", s)
    record = restored.store.get(("", "r"))
    document = codec.dumps(record.analysis)
    assert json.loads(document)["version"] == codec.VERSION
    record.analysis = codec.loads(document)
    assert codec.dumps(record.analysis) == document  # a fixed point: nothing is lost or reinterpreted
    assert [restored.observe("r", s) for s in steps[cut:]] == [untouched.observe("r", s) for s in steps[cut:]]


def test_the_state_log_restores_every_example_after_every_step() -> None:
    """Base + log (replayed from the start) equals the live state after each step of each example run."""
    for steps in _example_steps():
        engine, log = Engine(embedder=HashingEmbedder()), codec.StateLog(min_chars=256)
        entries: list[str] = []
        for s in steps:
            engine.observe("r", s)
            analysis = engine.store.get(("", "r")).analysis
            base, entry, full = log.snapshot(analysis)
            log.commit()
            if full:
                entries.clear()
            if entry:
                entries.append(entry)
            rebuilt = codec.StateLog().restore(base, entries)
            assert codec.dumps(rebuilt) == codec.dumps(analysis)


def test_a_step_writes_its_changes_not_the_history() -> None:
    """With large, varied results the per-step write stays far below the state's size; compaction keeps reads bounded."""
    engine, log = Engine(embedder=HashingEmbedder()), codec.StateLog()
    writes, fulls, logged = [], 0, 0
    for s in _varied_run(60):
        engine.observe("r", s)
        analysis = engine.store.get(("", "r")).analysis
        base, entry, full = log.snapshot(analysis)
        log.commit()
        fulls += full
        logged = len(entry) if full else logged + len(entry)
        if not full:
            writes.append(len(base) + len(entry))
    whole = len(codec.dumps(analysis))
    assert whole > 200_000
    assert max(writes) < whole / 5  # a step writes its changes
    assert 1 <= fulls < 15  # compactions are occasional
    assert logged < 3 * whole  # and the log never grows past a few times the state


def test_values_of_every_supported_kind_round_trip() -> None:
    """Builtins, containers, numpy values, enums, non-finite floats and shared plateau objects come back equal."""
    shared = CUSUM(k=0.5, h=4.0)
    value = {
        "ints": [0, -1, 2**70], "floats": [0.1, 1.0, float("inf"), -float("inf")], "text": "é\u2028\x00",
        "tuple": (1, "a", None), "set": {1, 2}, "frozen": frozenset({"x"}), ("tuple", "key"): True,
        "deque": collections.deque([1, 2, 3], maxlen=5), "counter": collections.Counter("abca"),
        "ordered": collections.OrderedDict(b=1, a=2), "bytes": b"\x00\xff", "dd": collections.defaultdict(list, {"k": [1]}),
        "array": np.arange(6, dtype=np.uint64).reshape(2, 3), "f32": np.float32(0.25), "action": Action.TRIP,
        "a": shared, "b": shared,
    }
    back = codec.loads(codec.dumps(value))
    assert back["a"] is back["b"] and back["a"]._s == shared._s and back["a"].k == 0.5
    assert np.array_equal(back["array"], value["array"]) and back["array"].dtype == np.uint64
    assert type(back["f32"]) is np.float32 and back["action"] is Action.TRIP
    assert back["deque"].maxlen == 5 and type(back["counter"]) is collections.Counter
    assert type(back["ordered"]) is collections.OrderedDict and list(back["ordered"]) == ["b", "a"]
    assert back["dd"] == {"k": [1]} and back["dd"].default_factory is list
    for k in ("ints", "floats", "text", "tuple", "set", "frozen", ("tuple", "key"), "bytes"):
        assert back[k] == value[k] and type(back[k]) is type(value[k])


def test_a_new_tracker_round_trips_without_codec_changes() -> None:
    """A plateau object added to the state later (here a second CUSUM) is written and read like the others."""
    engine = Engine(embedder=HashingEmbedder())
    for s in _varied_run(8):
        engine.observe("r", s)
    analysis = engine.store.get(("", "r")).analysis
    analysis.extra_detector = CUSUM(k=0.25, h=2.0)
    analysis.extra_detector.update(-3.0)
    back = codec.loads(codec.dumps(analysis))
    assert back.extra_detector._s == analysis.extra_detector._s and back.extra_detector.h == 2.0


def test_a_state_naming_the_statistics_by_their_old_module_still_decodes() -> None:
    """``plateau.detect`` became ``plateau.stats`` (issue 25): a document naming a CUSUM by its
    stable name or by either module path decodes into the class that lives in ``plateau.stats``."""
    cusum = CUSUM(k=0.25, h=2.0)
    for x in (-3.0, -1.0, 0.5):
        cusum.update(x)
    document = json.loads(codec.dumps({"c": cusum}))
    text = json.dumps(document)
    assert '"@test.cusum"' in text and "plateau.detect" not in text
    for name in ("@test.cusum", "plateau.detect.cusum:CUSUM", "plateau.stats.cusum:CUSUM"):
        back = codec.loads(text.replace('"@test.cusum"', json.dumps(name)))["c"]
        assert type(back) is CUSUM and back._s == cusum._s and (back.k, back.h) == (0.25, 2.0)
    with pytest.raises(codec.CodecError, match="plateau.detect.nothing"):
        codec.loads(text.replace('"@test.cusum"', '"plateau.detect.nothing:CUSUM"'))


def test_foreign_classes_and_other_versions_are_refused() -> None:
    """Decoding never builds a class outside plateau; encoding refuses locks and functions; versions are checked."""
    import threading

    for node in ({"$o": "os:_wrap_close", "i": 0, "a": {}}, {"$o": "subprocess:Popen", "i": 0, "a": {}}, {"$e": "os:x", "v": 1},
                 {"$o": "plateau.engine:os", "i": 0, "a": {}}, {"$nd": "", "dt": "|O", "sh": [0]}, {"$zz": 1}):
        with pytest.raises(codec.CodecError):
            codec.decode(node)
    for value in (threading.Lock(), print, object()):
        with pytest.raises(codec.CodecError, match=r"^\$"):
            codec.encode({"x": value})
    document = json.loads(codec.dumps([1]))
    document["version"] = codec.VERSION + 1
    with pytest.raises(codec.CodecError, match=f"version {codec.VERSION + 1}"):
        codec.loads(json.dumps(document))
    with pytest.raises(codec.CodecError):
        codec.loads(b"\x80\x05pickle")


def test_objects_inside_logged_containers_keep_their_own_identity() -> None:
    """Objects held in a large container (written item by item) never stand in for objects of the base document."""
    engine = Engine(embedder=HashingEmbedder())
    for s in _varied_run(6):
        engine.observe("r", s)
    analysis = engine.store.get(("", "r")).analysis
    analysis.detectors = collections.deque([CUSUM(k=0.5, h=float(i + 1)) for i in range(200)])  # logged: > EXTERNAL_MIN_CHARS
    analysis.alias = analysis.semantic  # references back into the base, after the logged container
    analysis.itself = analysis  # (a cycle to the root, object 0 of the base)
    log = codec.StateLog()
    base, entry, _ = log.snapshot(analysis)
    back = codec.StateLog().restore(base, [entry])
    assert back.alias is back.semantic and back.itself is back and [d.h for d in back.detectors] == [float(i + 1) for i in range(200)]
