"""The command line on the real model: replay, the demo over gRPC, and the real trajectories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from plateau.cli import main
from tests.support.paths import EXAMPLES, shared_path
from tests.support.paths import REPO as ROOT

pytestmark = pytest.mark.model


def _jsonl(capsys: pytest.CaptureFixture[str], argv: list[str]) -> list[dict]:  # type: ignore[type-arg]
    assert main(argv) == 0
    out = capsys.readouterr().out
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows, "no JSON lines printed"
    return rows


def _by_case(rows: list[dict]) -> dict[str, list[str]]:  # type: ignore[type-arg]
    cases: dict[str, list[str]] = {}
    for row in rows:
        cases.setdefault(row["case"], []).append(row["action"])
    return cases


def test_replay_jsonl_prints_only_json_lines_with_the_required_keys(real_model, capsys) -> None:  # type: ignore[no-untyped-def]
    """``plateau replay examples --jsonl`` prints one flat JSON object per step and nothing else."""
    rows = _jsonl(capsys, ["replay", str(EXAMPLES), "--jsonl"])
    for row in rows:
        assert {"case", "step", "action", "state", "score", "reasons"} <= row.keys()
        assert isinstance(row["reasons"], list)
    cases = _by_case(rows)
    assert cases["example-stuck-failing-patch"][-1] == "trip"
    assert cases["example-stuck-read-edit-cycle"][-1] == "trip"
    assert "trip" not in cases["example-productive-bugfix"]
    assert "trip" not in cases["example-productive-rollout-poller"]


def test_guard_in_process_has_the_semantic_layer_as_a_server_does(capsys) -> None:  # type: ignore[no-untyped-def]
    """``plateau guard`` without ``--remote`` loads the embedding model as ``plateau serve`` does:
    a templated re-check loop (the textual layer finds the quoted passage, the semantic layer
    the restated commentary) fires ``stream.recheck``, within the case's window, as ``plateau
    eval`` scores it; a guard without the model would read it to the end."""
    case = ROOT / "evals" / "stream" / "E40-recheck-loop.json"
    window = json.loads(case.read_text(encoding="utf-8"))["expected"]["fire_between_chunks"]
    rows = _jsonl(capsys, ["guard", str(case), "--jsonl"])
    fired = [r for r in rows if r["fired"]]
    assert fired and fired[0]["reason"] == "stream.recheck", rows[-1]
    assert window[0] <= fired[0]["chunk"] <= window[1]


def test_guard_with_a_model_path_that_is_no_model_fails_before_any_stream(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """``plateau guard --model PATH`` loads the model before the first stream, as ``plateau replay``
    does: a path that is not a model folder exits 3 naming it, and no stream is judged without
    its semantic layer."""
    case = ROOT / "evals" / "stream" / "E40-recheck-loop.json"
    missing = tmp_path / "no-such-model"
    assert main(["guard", "--model", str(missing), str(case), "--jsonl"]) == 3
    out, err = capsys.readouterr()
    assert out == "" and f"--model {missing}: not a folder" in err


def test_eval_with_a_model_path_that_is_no_model_fails_before_any_case(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """``plateau eval --model PATH`` on stream cases alone: a path that is not a model folder exits
    3 naming it, as ``guard`` and ``replay`` do, instead of scoring the streams without the
    semantic layer."""
    missing = tmp_path / "no-such-model"
    assert main(["eval", "--level", "stream", "--model", str(missing), str(ROOT / "evals" / "stream")]) == 3
    out, err = capsys.readouterr()
    assert f"--model {missing}: not a folder" in err


def test_guard_ends_with_a_summary_of_the_labels(capsys) -> None:  # type: ignore[no-untyped-def]
    """Without ``--jsonl``, ``plateau guard`` ends with one line: the streams, how many fired, and
    against their labels how many fires landed in their window and how many legitimate streams
    fired -- counted here from the cases' own labels and the same run's ``--jsonl`` fires."""
    folder = ROOT / "evals" / "stream"
    rows = _jsonl(capsys, ["guard", str(folder), "--jsonl"])
    first: dict[str, int] = {}
    for r in rows:
        if r["fired"]:
            first.setdefault(r["case"], r["chunk"])
    cases = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
    fire = [c for c in cases if c["expected"]["verdict"] == "fire"]
    windows = {c["id"]: c["expected"]["fire_between_chunks"] for c in fire}
    caught = sum(i in first and windows[i][0] <= first[i] <= windows[i][1] for i in windows)
    quiet_fired = sum(c["id"] in first for c in cases if c["expected"]["verdict"] == "no-fire")
    assert main(["guard", str(folder)]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith(f"plateau guard: {len(cases)} streams, {len(first)} fired; labelled fire: {caught}/{len(fire)} in window")
    assert last.endswith(f"labelled no-fire: {quiet_fired}/{len(cases) - len(fire)} fired")


@pytest.mark.shared("data", "trajectories")
def test_real_trajectories_are_not_tripped(real_model, capsys) -> None:  # type: ignore[no-untyped-def]
    """On the real SWE-agent runs: marshmallow gets continue on every step; pydicom is never tripped."""
    folder = shared_path("data", "trajectories")
    cases = _by_case(_jsonl(capsys, ["replay", str(folder), "--jsonl"]))
    marshmallow = next(v for k, v in cases.items() if "marshmallow" in k)
    pydicom = next(v for k, v in cases.items() if "pydicom" in k)
    assert set(marshmallow) == {"continue"}
    assert "trip" not in pydicom


def test_demo_runs_a_server_and_replays_over_grpc(tmp_path: Path) -> None:
    """The README's run command starts a server, replays the examples over gRPC, stops, exits 0."""
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    proc = subprocess.run(
        [sys.executable, "-m", "plateau.cli", "demo", str(EXAMPLES)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "server listening on 127.0.0.1:" in proc.stderr and "server stopped" in proc.stderr
    assert "== example-stuck-failing-patch" in proc.stdout and "trip" in proc.stdout


def test_a_missing_module_names_the_extra_the_command_needs() -> None:
    """The engine's modules name ``engine`` for the commands that run it in process, and ``server`` for
    the commands that start a server (which also need the service's modules)."""
    from plateau.cli import missing_extra

    numpy = ModuleNotFoundError("No module named 'numpy'", name="numpy")
    assert missing_extra(numpy, "guard") == missing_extra(numpy, "replay") == missing_extra(numpy) == "engine"
    assert missing_extra(numpy, "serve") == missing_extra(numpy, "demo") == "server"
    assert missing_extra(ModuleNotFoundError("x", name="prometheus_client"), "guard") == "server"
    assert missing_extra(ModuleNotFoundError("x", name="matplotlib"), "plot") == "plot"
    assert missing_extra(ModuleNotFoundError("x", name="yaml"), "guard") is None
