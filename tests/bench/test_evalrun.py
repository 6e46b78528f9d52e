"""Running Plateau and the baselines over labelled cases: ``bench.evalrun`` and ``plateau eval``."""

from __future__ import annotations

import collections
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench import evalrun
from bench.evaluate import load_cases
from plateau.cli import main
from plateau.embed import HashingEmbedder
from tests.support.cases import STUCK_PER_STEP, productive_case, stuck_case
from tests.support.paths import REPO, shared_path


def loop_stream(cid: str = "stream-loop") -> dict[str, Any]:
    """A degenerate stream: one sentence repeated 60 times, in 37-character chunks."""
    text = "Let me check the build output again. " * 60
    chunks = [text[i : i + 37] for i in range(0, len(text), 37)]
    return {"id": cid, "level": "stream", "stream_channel": "content", "input": chunks,
            "expected": {"verdict": "fire", "fire_between_chunks": [3, len(chunks) - 1]}}


def prose_stream(cid: str = "stream-prose") -> dict[str, Any]:
    """A healthy stream: distinct sentences."""
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
    text = " ".join(f"Sentence {i} talks about {words[i % 10]} and {words[(i * 3) % 10]} at index {i * 7}." for i in range(40))
    chunks = [text[i : i + 29] for i in range(0, len(text), 29)]
    return {"id": cid, "level": "stream", "stream_channel": "content", "input": chunks, "expected": {"verdict": "no-fire"}}


def all_cases() -> list[dict[str, Any]]:
    return [stuck_case(), productive_case(), loop_stream(), prose_stream()]


def write_cases(folder: Path, cases: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for case in cases:
        (folder / f"{case['id']}.json").write_text(json.dumps(case), encoding="utf-8")
    return folder


class CountingEmbedder:
    """A HashingEmbedder that counts the texts it embeds (to prove which embedder was used)."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder()
        self.name = "counting"
        self.texts = 0
        self.seen: collections.Counter[str] = collections.Counter()

    def encode(self, texts: Any) -> np.ndarray:
        self.texts += len(texts)
        self.seen.update(texts)
        return self.inner.encode(texts)


@pytest.fixture()
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the CLI's default embedder (eval's and plot's) the hashing test double (no model load)."""
    import plateau.trace

    for module in (evalrun, plateau.trace):
        monkeypatch.setattr(module, "default_embedder", lambda model_path=None, backend=None: HashingEmbedder())


# ------------------------------------------------------------------------------ evalrun


def test_detector_levels_and_unknown_names() -> None:
    """Plateau covers both levels, each baseline one; an unknown name is a ValueError naming --detector."""
    assert evalrun.detector_levels("plateau") == ("steps", "stream")
    assert evalrun.detector_levels("exact-args") == ("steps",)
    assert evalrun.detector_levels("chunk-hash") == ("stream",)
    assert set(evalrun.DETECTORS) == {"plateau", "seed-baseline", "exact-args", "stuck-detector", "jaccard", "chunk-hash", "line-window"}
    with pytest.raises(ValueError, match="--detector"):
        evalrun.detector_levels("nope")


def test_exact_args_scores_hand_checked_numbers() -> None:
    """exact-args trips at the 3rd identical call (step 2, allowed) and leaves the productive run alone."""
    run = evalrun.evaluate(all_cases(), "exact-args")
    stuck, prod = run.steps
    assert (stuck.first_trip, stuck.detected, stuck.steps_to_detect) == (2, True, 0)
    assert (prod.first_trip, prod.false_trip) == (None, False)
    assert run.stream == () and run.stream_totals is None
    totals = run.steps_totals
    assert totals is not None and (totals.recall, totals.false_trip_rate, totals.agreement) == (1.0, 0.0, 1.0)


def test_plateau_on_the_hashing_embedder_detects_the_retry_and_spares_the_batch() -> None:
    """Plateau trips the repeated failing call within the allowed steps and never the productive run."""
    run = evalrun.evaluate(all_cases(), "plateau", embedder=HashingEmbedder())
    stuck, prod = run.steps
    assert stuck.detected and not stuck.early_trip
    assert not prod.false_trip and "trip" not in prod.verdicts
    assert [s.case_id for s in run.stream] == ["stream-loop", "stream-prose"]


def test_plateau_stream_fire_uses_the_case_channel() -> None:
    """The guard fires on a sentence repeated 60 times and stays quiet on distinct prose."""
    fired = evalrun.plateau_stream_fire(loop_stream())
    assert fired is not None and fired < len(loop_stream()["input"])
    assert evalrun.plateau_stream_fire(prose_stream()) is None
    reasoning = dict(loop_stream(), stream_channel="reasoning")
    assert evalrun.plateau_stream_fire(reasoning) == fired


def test_compare_runs_every_detector_on_the_same_cases_with_one_embedder() -> None:
    """compare keeps detector and case order, and Plateau and seed-baseline share the given embedder."""
    emb = CountingEmbedder()
    runs = evalrun.compare(all_cases(), embedder=emb)
    assert [r.detector for r in runs] == list(evalrun.DETECTORS)
    for r in runs:
        if "steps" in r.levels:
            assert [s.case_id for s in r.steps] == ["stuck-retry", "productive-batch"]
        if "stream" in r.levels:
            assert [s.case_id for s in r.stream] == ["stream-loop", "stream-prose"]
    # one shared cache: each distinct text reached the embedder once (seed-baseline's texts
    # are the step texts Plateau already embedded)
    distinct = {s["text"] for c in all_cases()[:2] for s in c["input"]}
    assert distinct <= set(emb.seen)
    assert max(emb.seen.values()) == 1, "a text reached the embedder twice: the cache is not shared"
    before = emb.texts
    evalrun.compare(all_cases()[:1], ["seed-baseline"], embedder=emb)
    assert emb.texts > before  # a fresh compare gets a fresh cache around a bare embedder


def test_baselines_without_embeddings_never_build_the_default_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rules that need no embedder never call the default embedder factory (the model stays unloaded)."""
    def boom(model_path: str | None = None) -> Any:
        raise AssertionError("the model was requested")

    monkeypatch.setattr(evalrun, "default_embedder", boom)
    runs = evalrun.compare(all_cases(), ["exact-args", "stuck-detector", "jaccard", "chunk-hash", "line-window"])
    assert len(runs) == 5


def test_on_case_is_called_once_per_scored_case() -> None:
    """The progress callback sees every (detector, case) pair; work_units predicts how many."""
    seen: list[tuple[str, str]] = []
    detectors = ["plateau", "exact-args", "chunk-hash"]
    evalrun.compare(all_cases(), detectors, embedder=HashingEmbedder(), on_case=lambda d, c: seen.append((d, c)))
    assert len(seen) == evalrun.work_units(all_cases(), detectors) == 4 + 2 + 2
    assert ("exact-args", "stuck-retry") in seen and ("chunk-hash", "stream-prose") in seen


def test_tables_put_detectors_side_by_side_and_json_round_trips() -> None:
    """format_comparison lists every detector per level with per-case cells; as_dict is JSON-ready."""
    runs = evalrun.compare(all_cases(), embedder=HashingEmbedder())
    text = evalrun.format_comparison(runs)
    for name in evalrun.DETECTORS:
        assert name in text
    assert "STEPS per case" in text and "STREAM per case" in text
    assert "det@2 (+0)" in text  # exact-args on the retry
    blob = json.loads(json.dumps([r.as_dict() for r in runs]))
    assert blob[0]["steps"]["totals"]["runs"] == 2 and blob[0]["stream"]["totals"]["streams"] == 2
    assert blob[2]["stream"] is None  # exact-args judges no streams
    single = evalrun.format_run(runs[0])
    assert "STEPS: plateau" in single and "STREAM: plateau" in single


def test_trace_keeps_every_verdict_and_scores_only_labelled_cases(hashing_engine) -> None:  # type: ignore[no-untyped-def]
    """trace_steps_case returns one verdict per step; an unlabelled run has no score."""
    trace = evalrun.trace_steps_case(hashing_engine, stuck_case())
    assert len(trace.verdicts) == len(STUCK_PER_STEP) and trace.score is not None
    assert trace.actions[-1] == "trip"
    unlabelled = {"id": "raw", "input": stuck_case()["input"]}
    assert evalrun.trace_steps_case(hashing_engine, unlabelled).score is None
    with pytest.raises(ValueError, match="input"):
        evalrun.trace_steps_case(hashing_engine, {"id": "empty", "input": []})


# ------------------------------------------------------------------------------ CLI


def test_cli_eval_single_detector_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``plateau eval PATH --detector exact-args --json`` prints one JSON object with per-case scores."""
    folder = write_cases(tmp_path / "cases", all_cases())
    assert main(["eval", str(folder), "--detector", "exact-args", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["detector"] == "exact-args" and out["cases"] == 4
    assert out["steps"]["totals"]["detected"] == 1 and out["stream"] is None
    assert [c["case_id"] for c in out["steps"]["cases"]] == ["productive-batch", "stuck-retry"]


def test_cli_eval_compare_table(tmp_path: Path, capsys: pytest.CaptureFixture[str], no_model: None) -> None:
    """``plateau eval --compare`` prints one side-by-side table per level, every detector in it."""
    folder = write_cases(tmp_path / "cases", all_cases())
    assert main(["eval", str(folder), "--compare"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("case") and "exact-args" in line)
    for name in evalrun.STEP_DETECTORS:
        assert name in header
    assert "line-window" in out and "chunk-hash" in out
    assert main(["eval", str(folder), "--compare", "--json"]) == 0
    blob = json.loads(capsys.readouterr().out)
    assert [d["detector"] for d in blob["detectors"]] == list(evalrun.DETECTORS) and blob["cases"] == 4


def test_cli_eval_level_filter_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], no_model: None) -> None:
    """--level keeps one level; a stream rule on steps-only cases and an empty folder exit 1."""
    folder = write_cases(tmp_path / "cases", all_cases())
    assert main(["eval", str(folder), "--level", "stream", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cases"] == 2 and out["steps"] is None
    assert main(["eval", str(folder), "--level", "steps", "--detector", "chunk-hash"]) == 1
    assert "chunk-hash judges stream cases" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["eval", str(tmp_path / "empty")]) == 1
    with pytest.raises(SystemExit):
        main(["eval", str(folder), "--detector", "nope"])


def test_python_m_bench_eval_runs_the_evaluator(tmp_path: Path) -> None:
    """``python -m bench eval PATH --detector exact-args --json`` (from the repository's root) scores the cases."""
    import subprocess
    import sys

    folder = write_cases(tmp_path / "cases", all_cases())
    root = REPO
    done = subprocess.run([sys.executable, "-m", "bench", "eval", str(folder), "--detector", "exact-args", "--json"], cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["detector"] == "exact-args" and out["cases"] == 4 and out["steps"]["totals"]["detected"] == 1
    bad = subprocess.run([sys.executable, "-m", "bench", "eval", str(folder), "--detector", "nope"], cwd=root, capture_output=True,
                         text=True, timeout=300)
    assert bad.returncode == 2 and "nope" in bad.stderr


def test_plateau_eval_finds_bench_beside_the_imported_package(tmp_path: Path) -> None:
    """A console script of an editable install has neither the checkout's root nor the working
    folder on its path: ``plateau eval`` still finds ``bench/`` beside the ``plateau`` it imported."""
    import os
    import subprocess
    import sys

    root = REPO
    shim = tmp_path / "path"
    shim.mkdir()
    (shim / "plateau").symlink_to(root / "plateau")  # plateau importable, bench not on the path
    folder = write_cases(tmp_path / "cases", all_cases())
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(shim)}
    done = subprocess.run([sys.executable, "-m", "plateau.cli", "eval", str(folder), "--detector", "exact-args", "--json"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["steps"]["totals"]["detected"] == 1


def test_without_bench_plateau_eval_says_where_the_evaluator_lives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, no_model: None
) -> None:
    """Where ``bench`` is not importable (the installed wheel), ``plateau eval`` prints one line naming
    ``bench/`` and ``python -m bench eval``, exit 2; ``plateau plot`` still draws, without a score."""
    import sys

    for name in [m for m in sys.modules if m.startswith("bench.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "bench", None)  # find_spec("bench") is None, importing it fails
    assert main(["eval", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bench/" in err[0] and "python -m bench eval" in err[0]
    from plateau.cli_plot import labels_scorer

    assert labels_scorer() is None
    folder = write_cases(tmp_path / "cases", [stuck_case()])
    assert main(["plot", str(folder / "stuck-retry.json"), "-o", str(tmp_path / "run.png")]) == 0
    line = capsys.readouterr().out
    assert "labelled trip (not scored: the evaluator lives in the repository's bench/)" in line and "detected" not in line


def test_find_case_by_prefix_and_its_errors(tmp_path: Path) -> None:
    """find_case picks a run by id or unique prefix; ambiguity, no match and stream files are errors."""
    from plateau.cli_plot import find_case

    folder = write_cases(tmp_path / "cases", [stuck_case("L-X01-retry"), productive_case("L-X02-batch"), loop_stream()])
    case = find_case(folder, "L-X01")
    assert case["id"] == "L-X01-retry" and case["kind"] == "retry" and case["expected"]["final"] == "trip"
    with pytest.raises(ValueError, match="--case ID"):
        find_case(folder)
    with pytest.raises(ValueError, match="no run"):
        find_case(folder, "Z")
    with pytest.raises(ValueError, match="no steps-level run"):
        find_case(folder / "stream-loop.json")


def test_cli_plot_writes_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str], no_model: None) -> None:
    """``plateau plot CASE -o run.png`` writes a PNG and prints the outcome."""
    folder = write_cases(tmp_path / "cases", [stuck_case()])
    out = tmp_path / "run.png"
    assert main(["plot", str(folder / "stuck-retry.json"), "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 20_000
    line = capsys.readouterr().out
    assert "stuck-retry" in line and "labelled stuck" in line  # scored against its labels: bench/ is importable here
    assert main(["plot", str(folder / "stuck-retry.json"), "-o", str(tmp_path / "missing" / "x.png")]) == 2


# ------------------------------------------------------------------------------ the team benchmark


@pytest.mark.shared("benchmark")
def test_every_detector_runs_on_the_whole_benchmark() -> None:
    """On ../shared/benchmark (hashing embedder: plumbing only), every detector scores every case of its levels."""
    cases = load_cases([shared_path("benchmark")])
    runs = evalrun.compare(cases, embedder=HashingEmbedder())
    n_steps = sum(1 for c in cases if c["level"] == "steps")
    n_stream = len(cases) - n_steps
    for r in runs:
        assert len(r.steps) == (n_steps if "steps" in r.levels else 0)
        assert len(r.stream) == (n_stream if "stream" in r.levels else 0)
    assert "T01" in evalrun.format_comparison(runs)


@pytest.mark.model
@pytest.mark.shared("benchmark", "steps")
def test_compare_on_the_real_model(real_cached) -> None:  # type: ignore[no-untyped-def]
    """With the real model, Plateau detects a real retry loop, spares a productive control, and the
    seed-baseline runs on the same embeddings."""
    folder = shared_path("benchmark", "steps")
    cases = load_cases([folder / "T01-gemini-cli-replace-nonunique-repeat.json", folder / "T11-monotonic-paging-control.json"])
    runs = {r.detector: r for r in evalrun.compare(cases, evalrun.STEP_DETECTORS, embedder=real_cached)}
    t01, t11 = runs["plateau"].steps
    assert t01.detected and not t11.false_trip
    assert len(runs["seed-baseline"].steps) == 2
