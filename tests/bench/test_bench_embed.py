"""``scripts/bench_embed.py``: where it reads real steps and how it draws its sample (the measurement itself is a script, not a test)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.paths import REPO as ROOT
from tests.support.scripts import load_script

SCRIPT = ROOT / "scripts" / "bench_embed.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    """The script imported as a module."""
    return load_script("bench_embed")


CHAT = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "Cancel my reservation."},
    {"role": "assistant", "content": "Let me look it up.",
     "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_reservation", "arguments": "{\"id\": \"ABC123\"}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "{\"status\": \"confirmed\"}"},
    {"role": "assistant", "content": "The reservation is confirmed; cancelling it now."},
    {"role": "user", "content": "Thanks."},
]


def test_real_steps_reads_every_source_and_the_sample_is_seeded(bench: ModuleType, tmp_path: Path) -> None:
    """Benchmark cases and chat runs (mini-swe-agent, tau-bench) are read where they lie; the draw is spread over sources and seeded."""
    steps_dir = tmp_path / "benchmark" / "steps"
    steps_dir.mkdir(parents=True)
    case = {"id": "c1", "level": "steps", "input": [{"text": f"step {i} reads file {i}", "tool": "read", "args": {"p": i},
                                                     "result": f"line {i}"} for i in range(30)],
            "expected": {"final": "continue"}}
    (steps_dir / "c1.json").write_text(json.dumps(case))
    real = tmp_path / "data" / "real-runs"
    real.mkdir(parents=True)
    (real / "run.traj.json").write_text(json.dumps({"messages": CHAT}))
    (real / "tau.json").write_text(json.dumps([{"task_id": 1, "reward": 1.0, "traj": CHAT}]))
    sources = bench.real_steps(tmp_path)
    assert sorted(sources) == ["benchmark", "real-runs"]
    assert len(sources["benchmark"]) == 30
    n_real = len(sources["real-runs"])
    assert 2 <= n_real <= 8 and any("reservation" in (s.get("text") or "") for s in sources["real-runs"])
    drawn = bench.sample(sources, 20, seed=3)
    assert len(drawn) == 20 and drawn == bench.sample(sources, 20, seed=3)
    from_bench = sum(1 for texts in drawn if texts[0].startswith("step "))
    assert from_bench == 20 - n_real  # the small source gives all it has, the rest comes from the other
