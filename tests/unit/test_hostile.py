"""Hostile input and faults in process: refused before any state changes, and all-or-nothing steps."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from plateau.config import Config
from plateau.embed import HashingEmbedder
from plateau.engine import Engine, validate_run_id
from plateau.errors import InvalidArgument, LimitExceeded, RunNotFound, StepConflict, StoreUnavailable
from plateau.store.memory import MemoryStore
from plateau.store.sqlite import SqliteStore
from plateau.types import MAX_ARGS_DEPTH, MAX_INT_DIGITS, Progress, Step, Verdict

SURROGATE = "\ud800"
DEEP_ARGS = '{"a": ' + "[" * 2000 + "]" * 2000 + "}"
DEEP_MAPPING: dict[str, Any] = {"a": []}
_inner = DEEP_MAPPING["a"]
for _ in range(2000):
    _inner.append([])
    _inner = _inner[0]
HUGE_INT_ARGS = '{"n": ' + "9" * 5000 + "}"


def _loop(i: int) -> Step:
    """A step of a retry loop: the same failing call, new narration (the progress tracker counts repeats)."""
    return Step(
        index=i, text=f"attempt {i}: trying the build again", tool="bash", args={"cmd": "make"},
        result="error: missing header", status="error",
    )


def _same(a: Verdict, b: Verdict) -> bool:
    return dataclasses.replace(a, run_id="") == dataclasses.replace(b, run_id="")


def _hostile_steps(i: int) -> list[tuple[str, Step | dict[str, Any]]]:
    """(field, step or step kwargs) pairs that must all be refused as INVALID_ARGUMENT naming the field."""
    base: dict[str, Any] = {"index": i, "text": "ok", "tool": "bash"}
    return [
        ("step.text", {**base, "text": "a" + SURROGATE}),
        ("step.tool", {**base, "tool": "b" + SURROGATE}),
        ("step.result", {**base, "result": SURROGATE + "x"}),
        ("step.user", {**base, "user": "hi " + SURROGATE}),
        ("step.agent", {**base, "agent": SURROGATE}),
        ("step.args", {**base, "args": '{"a": "\\ud800"}'}),  # a lone surrogate as a JSON escape
        ("step.args", {**base, "args": {"a": SURROGATE}}),
        ("step.args", {**base, "args": {SURROGATE: 1}}),
        ("step.progress.files_changed", {**base, "progress": {"files_changed": ["a" + SURROGATE]}}),
        ("step.args", {**base, "args": DEEP_ARGS}),
        ("step.args", {**base, "args": DEEP_MAPPING}),
        ("step.args", {**base, "args": '{"a": ' + "[" * (MAX_ARGS_DEPTH + 1) + "]" * (MAX_ARGS_DEPTH + 1) + "}"}),
        ("step.args", {**base, "args": HUGE_INT_ARGS}),
        ("step.args", {**base, "args": HUGE_INT_ARGS.encode()}),
        ("step.args", {**base, "args": {"n": 10**5000}}),
        ("step.args", {**base, "args": '{"n": -' + "1" * (MAX_INT_DIGITS + 1) + "}"}),
    ]


@pytest.mark.parametrize("case", range(len(_hostile_steps(0))))
def test_hostile_fields_are_invalid_argument_naming_the_field(case: int) -> None:
    """Lone surrogates in any field, 2,000-deep JSON and 5,000-digit integers are InvalidArgument naming the field."""
    field, kwargs = _hostile_steps(0)[case]
    with pytest.raises(InvalidArgument) as info:
        Step(**kwargs)  # type: ignore[arg-type]
    assert info.value.field == field


def test_args_within_the_bounds_are_accepted() -> None:
    """Nesting up to MAX_ARGS_DEPTH, integers up to MAX_INT_DIGITS digits and surrogate pairs are ordinary args."""
    deep = '{"a": ' + "[" * (MAX_ARGS_DEPTH - 1) + "]" * (MAX_ARGS_DEPTH - 1) + "}"
    assert json.loads(Step(index=0, args=deep).args)
    assert Step(index=0, args='{"n": ' + "7" * MAX_INT_DIGITS + "}").args_dict["n"] > 0
    assert Step(index=0, args='{"e": "\\ud83d\\ude00"}').args_dict == {"e": "\U0001f600"}


@pytest.mark.parametrize("store_kind", ["memory", "sqlite"])
def test_hostile_steps_four_times_each_leave_the_run_as_an_untouched_one(store_kind: str, tmp_path: Path) -> None:
    """Each hostile step sent four times to one run is refused and the run's next verdicts equal an untouched run's."""
    store = MemoryStore() if store_kind == "memory" else SqliteStore(tmp_path / "runs.sqlite")
    engine = Engine(embedder=HashingEmbedder(), store=store)
    for i in range(2):
        engine.observe("hit", _loop(i))
        engine.observe("twin", _loop(i))
    for field, kwargs in _hostile_steps(2):
        for _ in range(4):
            with pytest.raises(InvalidArgument) as info:
                engine.observe("hit", Step(**kwargs))  # type: ignore[arg-type]
            assert info.value.field == field
    for i in range(2, 5):
        assert _same(engine.observe("hit", _loop(i)), engine.observe("twin", _loop(i)))
    engine.close()


def test_context_with_a_lone_surrogate_is_refused() -> None:
    """A context holding a lone surrogate is InvalidArgument naming context; no run is created."""
    engine = Engine(embedder=HashingEmbedder())
    with pytest.raises(InvalidArgument) as info:
        engine.observe("r", _loop(0), context="fix " + SURROGATE)
    assert info.value.field == "context"
    with pytest.raises(RunNotFound):
        engine.get_run("r")


class _FailOnce(MemoryStore):
    """A memory store whose next append fails (after the engine has changed the record)."""

    fail = False

    def append(self, key: Any, record: Any) -> None:
        if self.fail:
            self.fail = False
            raise StoreUnavailable("store: injected failure")
        super().append(key, record)


def test_a_failed_step_on_the_memory_store_changes_nothing() -> None:
    """A step that fails after the trackers moved leaves the run exactly as before: later verdicts equal an untouched run's."""
    store = _FailOnce()
    engine = Engine(embedder=HashingEmbedder(), store=store)
    for i in range(2):
        engine.observe("hit", _loop(i))
        engine.observe("twin", _loop(i))
    store.fail = True
    with pytest.raises(StoreUnavailable):
        engine.observe("hit", _loop(2))
    assert engine.get_run("hit").steps == 2
    for i in range(2, 6):
        assert _same(engine.observe("hit", _loop(i)), engine.observe("twin", _loop(i)))


def test_a_failure_inside_apply_is_undone(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception raised while a step is being applied (after the progress tracker changed) is undone on the memory store."""
    import plateau.fuse as engine_module  # fusion runs after every tracker has moved on

    engine = Engine(embedder=HashingEmbedder())
    for i in range(2):
        engine.observe("hit", _loop(i))
        engine.observe("twin", _loop(i))
    real_fuse = engine_module.fuse

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("injected failure in fusion")

    monkeypatch.setattr(engine_module, "fuse", broken)
    for _ in range(3):
        with pytest.raises(RuntimeError):
            engine.observe("hit", _loop(2))
    monkeypatch.setattr(engine_module, "fuse", real_fuse)
    for i in range(2, 6):
        assert _same(engine.observe("hit", _loop(i)), engine.observe("twin", _loop(i)))


def test_a_failed_first_step_leaves_no_run() -> None:
    """A run whose first step fails does not exist afterwards and does not count toward the tenant's runs."""
    store = _FailOnce()
    store.fail = True
    engine = Engine(embedder=HashingEmbedder(), store=store)
    with pytest.raises(StoreUnavailable):
        engine.observe("r", _loop(0))
    with pytest.raises(RunNotFound):
        engine.get_run("r")
    assert store.count("") == 0


@pytest.mark.parametrize("store_kind", ["memory", "sqlite"])
def test_ended_runs_give_way_to_new_runs(store_kind: str, tmp_path: Path) -> None:
    """At the tenant's limit the longest-ended run is deleted for a new one; with no ended run the limit holds."""
    now = [100.0]
    store = MemoryStore() if store_kind == "memory" else SqliteStore(tmp_path / "runs.sqlite")
    engine = Engine(Config(max_runs_per_tenant=2), HashingEmbedder(), store=store, clock=lambda: now[0])
    engine.observe("a", _loop(0))
    engine.observe("b", _loop(0))
    with pytest.raises(LimitExceeded, match="open runs"):
        engine.observe("c", _loop(0))
    engine.end_run("b")
    now[0] += 1
    engine.end_run("a")
    engine.observe("c", _loop(0))  # b ended first: it gives way
    with pytest.raises(RunNotFound):
        engine.get_run("b")
    assert engine.get_run("a").ended
    engine.observe("d", _loop(0))  # then a
    with pytest.raises(RunNotFound):
        engine.get_run("a")
    with pytest.raises(LimitExceeded):
        engine.observe("e", _loop(0))
    assert store.count("") == 2
    engine.close()


def test_delete_run_frees_the_run_id() -> None:
    """delete_run returns the run's last state, the run is NOT_FOUND after, and its id starts a new run."""
    engine = Engine(Config(max_runs_per_tenant=1), HashingEmbedder())
    engine.observe("r", _loop(0))
    info = engine.delete_run("r")
    assert info.steps == 1 and info.run_id == "r"
    with pytest.raises(RunNotFound):
        engine.get_run("r")
    with pytest.raises(RunNotFound):
        engine.delete_run("r")
    assert engine.observe("r", _loop(0)).step_index == 0


def test_reset_does_not_reopen_an_ended_run() -> None:
    """ResetRun on an ended run is a StepConflict and the run stays ended with its steps."""
    engine = Engine(embedder=HashingEmbedder())
    engine.observe("r", _loop(0))
    engine.end_run("r")
    with pytest.raises(StepConflict, match="ended"):
        engine.reset_run("r")
    info = engine.get_run("r")
    assert info.ended and info.steps == 1


def test_a_far_index_on_an_empty_run_is_a_gap() -> None:
    """Index 20,000 (the per-run limit) on an empty or short run is a gap, not the step limit."""
    engine = Engine(embedder=HashingEmbedder())
    with pytest.raises(StepConflict, match="gap"):
        engine.observe("r", _loop(20_000))
    engine.observe("r", _loop(0))
    with pytest.raises(StepConflict, match="gap"):
        engine.observe("r", _loop(25_000))


BAD_IDS = ["a\u0085b", "a\u2028b", "a\u2029b", "evil\u202etxt", "a\u200bb", "a\u00a0b", "a\x1bb", "a\ud800b", "\ufeffa"]


@pytest.mark.parametrize("bad", BAD_IDS)
def test_run_ids_refuse_unicode_controls_formats_and_separators(bad: str) -> None:
    """Run ids with Unicode line separators, bidi overrides, zero-width or non-ASCII spaces, or surrogates are refused."""
    with pytest.raises(InvalidArgument) as info:
        validate_run_id(bad, 256)
    assert info.value.field == "run_id"


def test_run_ids_keep_ordinary_text() -> None:
    """Run ids with ASCII spaces, punctuation and letters of any script stay valid."""
    for good in ("my run 1", "run/2026-12-01#3", "прогон-7", "実行", "éa"):
        assert validate_run_id(good, 256) == good


def test_files_changed_is_bounded_by_max_field_chars() -> None:
    """progress.files_changed holding more characters than max_field_chars is InvalidArgument naming it."""
    engine = Engine(Config(max_field_chars=2048), HashingEmbedder())
    paths = tuple(f"src/module_{i:04d}.py" for i in range(200))
    with pytest.raises(InvalidArgument) as info:
        engine.observe("r", Step(index=0, text="edit", progress=Progress(files_changed=paths)))
    assert info.value.field == "step.progress.files_changed"
    assert engine.observe("r", Step(index=0, text="edit", progress=Progress(files_changed=paths[:20]))).step_index == 0
