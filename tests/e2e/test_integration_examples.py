"""Each example in examples/integrations/ runs as written: ``python FILE`` in a fresh process
(Plateau in process on the real model, each SDK's own fake model), and says what happened."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import REPO

ROOT = REPO
EXAMPLES = ROOT / "examples" / "integrations"

#: example file → the module it needs (skipped when that SDK is not installed)
SCENARIO_EXAMPLES = {
    "openai_agents_hooks.py": "agents",
    "langchain_agent.py": "langchain.agents",
    "langgraph_react_agent.py": "langgraph.prebuilt",
    "pydantic_ai_agent.py": "pydantic_ai",
}
SINGLE_RUN_EXAMPLES = {"openai_chat.py": "openai", "langgraph_agent.py": "langgraph"}


def _run(name: str, tmp_path: Path, *args: str) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the checkout, as `pip install -e .` would
    done = subprocess.run([sys.executable, str(EXAMPLES / name), *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    outcomes, text, decoder = [], done.stdout.strip(), json.JSONDecoder()
    while text:
        outcome, end = decoder.raw_decode(text)
        outcomes.append(outcome)
        text = text[end:].strip()
    return outcomes


def test_every_example_is_covered() -> None:
    assert {p.name for p in EXAMPLES.glob("*.py")} == {*SCENARIO_EXAMPLES, *SINGLE_RUN_EXAMPLES, "scenarios.py"}


@pytest.mark.parametrize("name", sorted(SCENARIO_EXAMPLES))
def test_scenario_example_runs_as_written(name: str, tmp_path: Path) -> None:
    """The looping agent is steered then stopped; the healthy agent and the poller are left alone."""
    pytest.importorskip(SCENARIO_EXAMPLES[name])
    loop, healthy, poller = _run(name, tmp_path)
    assert (loop["scenario"], healthy["scenario"], poller["scenario"]) == ("loop", "healthy", "poller")
    assert loop["actions"] == ["continue", "continue", "steer", "trip"] and loop["steer_seen_by_model"]
    assert loop["tools_run"] == 3
    for outcome in (healthy, poller):
        assert outcome["actions"] == ["continue"] * 9 and outcome["steers"] == []


@pytest.mark.parametrize("name", sorted(SINGLE_RUN_EXAMPLES))
def test_single_run_example_runs_as_written(name: str, tmp_path: Path) -> None:
    pytest.importorskip(SINGLE_RUN_EXAMPLES[name])
    (outcome,) = _run(name, tmp_path)
    assert outcome["steers"] and outcome["steer_seen_by_model"]
    assert outcome.get("tripped") or outcome.get("ended_by_plateau")
