"""``scripts/bench_service.py``: its step generator, its report, and a real tiny run (no timing assertions)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import ModuleType

import pytest

from tests.support.paths import REPO as ROOT
from tests.support.scripts import load_script

SCRIPT = ROOT / "scripts" / "bench_service.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    """The script imported as a module."""
    return load_script("bench_service")


def test_generated_steps_are_unique_realistic_and_seeded(bench: ModuleType) -> None:
    """No embedded text repeats over 600 steps; every step has text, tool, args and a multi-line result; same seed, same steps."""
    gen = bench.StepGenerator(seed=7)
    steps = gen.steps(600)
    texts = [t for per in bench.embedded_texts(steps) for t in per]
    assert len(texts) == 1200 and len(set(texts)) == 1200
    for s in steps[:50]:
        assert s["text"].count(".") >= 2 and s["tool"] and isinstance(s["args"], dict)
        assert s["result"].count("\n") >= 7
    assert 300 < sum(len(t) for t in texts) / len(texts) < 1300
    assert bench.StepGenerator(seed=7).steps(5) == steps[:5]
    assert bench.StepGenerator(seed=8).steps(1) != steps[:1]


def test_percentile_and_split(bench: ModuleType) -> None:
    """The percentile interpolates linearly; steps split into N runs of near-equal length, in order."""
    assert bench._pct([1.0, 2.0, 3.0, 4.0, 5.0], 50) == 3.0
    assert bench._pct([0.0, 10.0], 99) == pytest.approx(9.9)
    runs = bench._split(list(range(10)), 3)
    assert runs == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert bench._split(list(range(2)), 4) == [[0], [1]]


def test_format_report_prints_every_number(bench: ModuleType) -> None:
    """The plain-text report shows each configuration, the cached run, memory per run and the ratio."""
    report = {
        "machine": {"cpus": 2, "loadavg_start": [1.0, 1.0, 1.0], "loadavg_end": [2.0, 2.0, 2.0]},
        "model": "all-MiniLM-L6-v2",
        "server": {"pid": 1, "target": "127.0.0.1:1"},
        "configs": [{"clients": 32, "steps": 256, "wall_s": 10.0, "steps_per_s": 25.6, "p50_ms": 900.0, "p99_ms": 1500.0,
                     "raw_step_steps_per_s": 15.0, "raw_batched_steps_per_s": 30.0, "ratio_vs_raw_step": 1.707, "ratio": 0.853,
                     "texts_per_step": 2.0, "chars_per_step": 1100.0}],
        "cached": {"clients": 32, "steps": 256, "steps_per_s": 400.0, "p50_ms": 50.0, "p99_ms": 90.0},
        "memory": {"idle_runs": 10000, "rss_before_mb": 600.0, "rss_after_mb": 700.0, "per_run_kb": 10.24, "create_steps_per_s": 500.0},
        "ratio": 0.853,
        "ratio_clients": 32,
    }
    text = bench.format_report(report)
    for needle in ("25.60", "900.0", "1500.0", "15.00", "30.00", "0.853", "400.00 steps/s", "10.24 KB per run", "10,000 idle runs"):
        assert needle in text


def test_bad_arguments_are_rejected(bench: ModuleType) -> None:
    """--clients takes a comma-separated list of positive integers."""
    with pytest.raises(SystemExit):
        bench.build_parser().parse_args(["--clients", "0,8"])
    with pytest.raises(SystemExit):
        bench.build_parser().parse_args(["--clients", "a"])
    assert bench.build_parser().parse_args(["--clients", "1,4"]).clients == [1, 4]


@pytest.mark.model
def test_quick_run_prints_its_numbers() -> None:
    """``bench_service.py --quick --json`` starts a real server, drives N = 1, 2 agents, and reports every figure."""
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--json"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert [c["clients"] for c in report["configs"]] == [1, 2]
    for c in report["configs"]:
        assert c["steps"] == 6 and c["texts_per_step"] == 2.0
        for key in ("steps_per_s", "p50_ms", "p99_ms", "raw_step_steps_per_s", "raw_batched_steps_per_s", "ratio"):
            assert c[key] > 0, key
    assert report["ratio"] == report["configs"][-1]["ratio"] and report["ratio_clients"] == 2
    assert report["cached"]["steps"] == 6 and report["cached"]["steps_per_s"] > 0
    assert report["memory"]["idle_runs"] == 50 and "per_run_kb" in report["memory"]
    assert "serving" not in proc.stdout  # stdout is the JSON object alone
