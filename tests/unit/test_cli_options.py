"""``plateau serve --torch-threads``, ``--backend`` and ``--tool-policy``: parsed, validated, applied before the model loads."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np
import pytest

import plateau.embed
from plateau import cli
from plateau.embed import HashingEmbedder, set_torch_threads


def test_torch_threads_is_parsed_and_defaults_to_torch_s_own() -> None:
    """``--torch-threads 3`` gives 3; without it the option is None (torch keeps its default)."""
    parser = cli.build_parser()
    assert parser.parse_args(["serve", "--torch-threads", "3"]).torch_threads == 3
    assert parser.parse_args(["serve"]).torch_threads is None


@pytest.mark.parametrize("value", ["0", "-2", "two", "1.5", ""])
def test_bad_torch_threads_is_a_usage_error_naming_the_option(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Anything but an integer >= 1 exits with status 2 and a message naming --torch-threads."""
    with pytest.raises(SystemExit) as exc:
        cli.build_parser().parse_args(["serve", "--torch-threads", value])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--torch-threads" in err and "an integer >= 1" in err


class _FakeModel:
    """Stands in for SentenceTransformerEmbedder and records when it is loaded."""

    events: list[tuple[str, object]] = []

    def __init__(self, model_path: object = None) -> None:
        self.name = "fake"
        self._inner = HashingEmbedder(16)

    def load(self) -> _FakeModel:
        self.events.append(("load", None))
        return self

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return self._inner.encode(texts)


def _serve_engine_events(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> list[tuple[str, object]]:
    events: list[tuple[str, object]] = []
    monkeypatch.setattr(_FakeModel, "events", events)
    monkeypatch.setattr(plateau.embed, "SentenceTransformerEmbedder", _FakeModel)
    monkeypatch.setattr(plateau.embed, "set_torch_threads", lambda n: events.append(("threads", n)))
    args: argparse.Namespace = cli.build_parser().parse_args(["serve", "--port", "0", "--store", "memory", "--backend", "torch", *argv])
    engine = cli._serve_engine(args)
    engine.close()
    return events


def test_serve_sets_torch_threads_before_the_model_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """With --torch-threads 2 the server calls set_torch_threads(2) first, then loads the model."""
    assert _serve_engine_events(monkeypatch, ["--torch-threads", "2"]) == [("threads", 2), ("load", None)]


def test_serve_leaves_torch_alone_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the option the server never touches torch's thread count."""
    assert _serve_engine_events(monkeypatch, []) == [("load", None)]


@pytest.mark.parametrize("value", [0, -1, True, 2.5])
def test_set_torch_threads_rejects_what_is_not_a_positive_integer(value: object) -> None:
    """set_torch_threads raises ValueError for 0, negatives, booleans and floats (before importing torch)."""
    with pytest.raises(ValueError, match="torch threads"):
        set_torch_threads(value)  # type: ignore[arg-type]


def test_set_torch_threads_sets_torch_s_thread_count() -> None:
    """set_torch_threads(1) makes torch.get_num_threads() answer 1 (restored afterwards)."""
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    try:
        set_torch_threads(1)
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_serve_gives_the_onnx_backend_its_thread_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """With --backend onnx, --torch-threads 2 becomes ONNX Runtime's intra-op thread count and torch is left alone."""
    import plateau.embed_onnx

    made: list[object] = []

    class FakeOnnx(_FakeModel):
        def __init__(self, model_path: object = None, *, threads: int | None = None) -> None:
            super().__init__(model_path)
            made.append(threads)

    monkeypatch.setattr(plateau.embed_onnx, "OnnxEmbedder", FakeOnnx)
    monkeypatch.setattr(plateau.embed, "set_torch_threads", lambda n: made.append(("torch", n)))
    args = cli.build_parser().parse_args(["serve", "--port", "0", "--store", "memory", "--backend", "onnx", "--torch-threads", "2"])
    cli._serve_engine(args).close()
    assert made == [2]


@pytest.mark.parametrize("command", [["serve"], ["replay", "examples"], ["eval", "examples"], ["demo"]])
def test_backend_is_validated_with_a_message_naming_the_option(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """``--backend tensorflow`` exits with status 2 and names --backend and the valid choices, on every command that embeds."""
    with pytest.raises(SystemExit) as exc:
        cli.build_parser().parse_args([*command, "--backend", "tensorflow"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--backend" in err and "must be one of onnx, torch; got 'tensorflow'" in err


def test_backend_defaults_to_none_and_accepts_both_names() -> None:
    """Without --backend the option is None (the default backend applies); onnx and torch parse as given."""
    parser = cli.build_parser()
    assert parser.parse_args(["replay", "examples"]).backend is None
    assert parser.parse_args(["replay", "examples", "--backend", "onnx"]).backend == "onnx"
    assert parser.parse_args(["eval", "examples", "--backend", "torch"]).backend == "torch"


@pytest.mark.parametrize("command", [["serve"], ["replay", "examples"], ["demo"]])
def test_a_tool_policy_steering_at_or_after_its_trip_is_a_usage_error(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """``--tool-policy debugger_next=8:6`` exits 2 naming the option, the tool, both bounds and the rule steer < trip."""
    with pytest.raises(SystemExit) as exc:
        cli.build_parser({}).parse_args([*command, "--tool-policy", "pager=ignore,debugger_next=8:6"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "argument --tool-policy: debugger_next: 8:6: steer bound 8 is greater than trip bound 6; steer must be less than trip" in err


def test_tool_policy_is_parsed_on_the_command_line_and_from_the_environment() -> None:
    """A valid --tool-policy (or PLATEAU_TOOL_POLICY for serve) arrives parsed, one ToolPolicy per tool."""
    from plateau.policy import ToolPolicy

    expected = {"debugger_next": ToolPolicy(6, 8), "job_status": ToolPolicy(judge=False)}
    spec = "debugger_next=6:8,job_status=ignore"
    assert cli.build_parser({}).parse_args(["replay", "examples", "--tool-policy", spec]).tool_policy == expected
    assert cli.build_parser({"PLATEAU_TOOL_POLICY": spec}).parse_args(["serve"]).tool_policy == expected
    assert cli.engine_config(cli.build_parser({}).parse_args(["serve", "--tool-policy", spec])).tool_policy == expected


def test_serve_shortens_the_interpreter_s_switch_interval_for_its_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """``plateau serve`` runs with ``config.switch_interval_seconds`` (1 ms by default, not Python's 5 ms), so a small
    call waiting on I/O takes the interpreter lock back from a heavy call sooner (issue 22, item 2);
    ``--switch-interval-seconds`` sets it, and a value out of range is a usage error naming the option."""
    import asyncio
    import sys

    seen: list[float] = []

    def fake_run(coro: object) -> None:
        seen.append(sys.getswitchinterval())
        coro.close()  # type: ignore[attr-defined]

    monkeypatch.setattr(asyncio, "run", fake_run)
    monkeypatch.setattr(sys, "setswitchinterval", lambda v: seen.append(-v))
    serve = ["serve", "--port", "0", "--store", "memory", "--embedder", "hashing"]
    for argv, want in (([], 0.001), (["--switch-interval-seconds", "0.002"], 0.002)):
        seen.clear()
        assert cli.cmd_serve(cli.build_parser().parse_args([*serve, *argv])) == 0
        assert seen[0] == -want  # set before the server's loop starts
    with pytest.raises(ValueError, match="switch_interval_seconds"):
        cli._serve_engine(cli.build_parser().parse_args([*serve, "--switch-interval-seconds", "0.1"]))
