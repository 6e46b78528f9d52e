"""Chat-message logs as runs: OpenAI-style message lists, tau-bench run lists, mini-swe-agent
trajectories (``plateau.chat`` and ``plateau.replay.load_runs``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plateau.chat import context_of, steps_from_messages
from plateau.replay import load_runs
from tests.support.paths import shared_path

MESSAGES = [
    {"role": "system", "content": "You are an airline agent."},
    {"role": "user", "content": "Cancel my trip to MCO, please."},
    {"role": "assistant", "content": "Which reservation?"},
    {"role": "user", "content": "I don't know the id; my user is ana_1."},
    {
        "role": "assistant",
        "content": "Looking up both.",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_user", "arguments": '{"user_id": "ana_1"}'}},
            {"id": "c2", "type": "function", "function": {"name": "get_flights", "arguments": '{"to": "MCO"}'}},
        ],
    },
    {"role": "tool", "tool_call_id": "c2", "content": "[HAT268]"},
    {"role": "tool", "tool_call_id": "c1", "content": '{"reservations": ["M20IZO"]}'},
    {"role": "assistant", "content": "Found M20IZO."},
]


def test_parallel_calls_become_consecutive_steps_with_their_own_results() -> None:
    """Each call of one assistant message is a step; results are matched by call id, not order;
    the message's text goes with its first call; a user message is attached to the next step."""
    steps = steps_from_messages(MESSAGES)
    assert [s["tool"] for s in steps] == [None, "get_user", "get_flights", None]
    assert steps[1]["args"] == {"user_id": "ana_1"} and steps[1]["result"] == '{"reservations": ["M20IZO"]}'
    assert steps[2]["result"] == "[HAT268]" and steps[2]["text"] == ""
    assert steps[1]["text"] == "Looking up both."
    assert steps[1]["user"] == "I don't know the id; my user is ana_1."
    assert "user" not in steps[0] and "user" not in steps[2]
    assert context_of(MESSAGES) == "Cancel my trip to MCO, please."


def _bash(call_id: str, command: str) -> dict:  # type: ignore[type-arg]
    return {"id": call_id, "function": {"name": "bash", "arguments": json.dumps({"command": command})}}


def test_mini_swe_agent_output_is_unwrapped_and_its_return_code_is_the_status() -> None:
    """``<returncode>N</returncode><output>…</output>`` becomes the printed output, ok or error."""
    msgs = [
        {"role": "user", "content": "Fix the bug."},
        {"role": "assistant", "content": "Run it.", "tool_calls": [_bash("a", "python r.py")]},
        {"role": "tool", "tool_call_id": "a", "content": "<returncode>1</returncode>\n<output>\nTraceback: boom\n</output>"},
        {"role": "assistant", "content": "Write it.", "tool_calls": [_bash("b", "cat > x")]},
        {"role": "tool", "tool_call_id": "b", "content": "<returncode>0</returncode>\n<output>\n</output>"},
    ]
    steps = steps_from_messages(msgs)
    assert (steps[0]["result"], steps[0]["status"]) == ("Traceback: boom", "error")
    assert (steps[1]["result"], steps[1]["status"]) == ("", "ok")


def test_malformed_messages_are_a_value_error_naming_the_position() -> None:
    """A message without a string role is rejected with its index."""
    with pytest.raises(ValueError, match=r"messages\[1\]"):
        steps_from_messages([{"role": "user", "content": "x"}, {"content": "no role"}])


def test_a_folder_mixes_cases_run_lists_and_trajectories_and_skips_other_json(tmp_path: Path) -> None:
    """A tau-bench-style list gives one run per entry (named after file and index, with its
    outcome); a mini-swe-agent trajectory one run; a ``preds.json`` beside them is skipped,
    but named explicitly it is an error."""
    (tmp_path / "runs.json").write_text(json.dumps([{"task_id": 3, "trial": 1, "reward": 1.0, "traj": MESSAGES},
                                                    {"task_id": 4, "trial": 0, "reward": 0.0, "traj": MESSAGES}]))
    (tmp_path / "a.traj.json").write_text(json.dumps({"trajectory_format": "mini-swe-agent-1.1", "messages": MESSAGES,
                                                      "info": {"exit_status": "Submitted"}}))
    (tmp_path / "preds.json").write_text(json.dumps({"a": {"model_patch": "diff"}}))
    runs = load_runs([tmp_path])
    assert [(r.id, r.outcome, len(r.steps)) for r in runs] == [
        ("a", "finished", 4), ("runs-0-task3-trial1", "succeeded", 4), ("runs-1-task4-trial0", "failed", 4)
    ]
    with pytest.raises(ValueError, match="preds.json"):
        load_runs([tmp_path / "preds.json"])


@pytest.mark.shared("data", "real-runs")
def test_the_real_runs_load_where_they_lie() -> None:
    """All 263 runs of ``../shared/data/real-runs`` load: 100 tau-bench runs, 23 mini-swe-agent runs,
    140 mini-swe-agent 1.15 runs in its text format (100 resolved), read as calls."""
    runs = load_runs([shared_path("data", "real-runs")])
    outcomes = [r.outcome for r in runs]
    assert len(runs) == 263
    assert [outcomes.count(o) for o in ("succeeded", "failed", "finished", "resolved", "unresolved")] == [53, 47, 23, 100, 40]
    text_format = [r for r in runs if r.outcome in ("resolved", "unresolved")]
    assert sum(s["tool"] == "bash" for r in text_format for s in r.steps) > 0.9 * sum(len(r.steps) for r in text_format)
    assert all(r.steps for r in runs)
