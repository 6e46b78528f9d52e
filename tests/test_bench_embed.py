"""``scripts/bench_embed.py``: how it reads real runs and draws its sample (the measurement itself is a script, not a test)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from .conftest import ROOT

SCRIPT = ROOT / "scripts" / "bench_embed.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    """The script imported as a module."""
    spec = importlib.util.spec_from_file_location("bench_embed", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_embed"] = module
    spec.loader.exec_module(module)
    return module


CHAT = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "Cancel my reservation."},
    {"role": "assistant", "content": "Let me look it up.",
     "tool_calls": [{"function": {"name": "get_reservation", "arguments": "{\"id\": \"ABC123\"}"}}]},
    {"role": "tool", "content": "{\"status\": \"confirmed\"}"},
    {"role": "assistant", "content": "Listing files.\n```bash\nls -la\n```"},
    {"role": "user", "content": "total 0"},
    {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
]


def test_chat_runs_become_steps_with_their_tool_calls_and_results(bench: ModuleType) -> None:
    """Each assistant message is a step: tool-call name and JSON arguments, a fenced command as bash, the next message as result."""
    steps = list(bench.chat_steps(CHAT))
    assert steps == [
        {"text": "Let me look it up.", "tool": "get_reservation", "args": {"id": "ABC123"}, "result": "{\"status\": \"confirmed\"}"},
        {"text": "Listing files.\n```bash\nls -la\n```", "tool": "bash", "args": {}, "result": "total 0"},
        {"text": "Done."},
    ]


def test_real_steps_reads_every_source_and_the_sample_is_seeded(bench: ModuleType, tmp_path: Path) -> None:
    """Benchmark cases, SWE-agent-style folders and chat runs are read where they lie; the draw is spread over sources and seeded."""
    steps_dir = tmp_path / "benchmark" / "steps"
    steps_dir.mkdir(parents=True)
    case = {"id": "c1", "level": "steps", "input": [{"text": f"step {i} reads file {i}", "tool": "read", "args": {"p": i},
                                                     "result": f"line {i}"} for i in range(30)],
            "expected": {"final": "continue"}}
    (steps_dir / "c1.json").write_text(json.dumps(case))
    real = tmp_path / "data" / "real-runs"
    real.mkdir(parents=True)
    (real / "run.traj.json").write_text(json.dumps({"messages": CHAT}))
    (real / "tau.json").write_text(json.dumps([{"task_id": 1, "traj": CHAT}]))
    sources = bench.real_steps(tmp_path)
    assert sorted(sources) == ["benchmark", "real-runs"]
    assert len(sources["benchmark"]) == 30 and len(sources["real-runs"]) == 6
    drawn = bench.sample(sources, 20, seed=3)
    assert len(drawn) == 20 and drawn == bench.sample(sources, 20, seed=3)
    flat = [t for texts in drawn for t in texts]
    assert sum("Done." == t for t in flat) + sum("reservation" in t for t in flat) >= 1  # the small source gives what it has
    assert sum(t.startswith("step ") for t in flat) == 14
