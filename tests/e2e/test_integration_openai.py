"""plateau.integrations.openai: OpenAI and Anthropic messages → steps, and a real openai-SDK agent loop it trips."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from types import ModuleType

import pytest

from plateau import AsyncClient, Client
from plateau.engine import Engine
from plateau.integrations import STEER_PREFIX, RunTripped
from plateau.integrations.openai import AsyncChatRun, ChatRun, anthropic_to_openai, steps_from_chat
from tests.support.paths import REPO

ROOT = REPO

OPENAI_PARALLEL = [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": "Which config files differ?"},
    {
        "role": "assistant",
        "content": "Reading both files.",
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.yaml"}'}},
            {"id": "b", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "b.yaml"}'}},
        ],
    },
    {"role": "tool", "tool_call_id": "b", "content": "port: 9090"},
    {"role": "tool", "tool_call_id": "a", "content": "port: 8080"},
    {"role": "assistant", "content": "They differ in the port."},
]

ANTHROPIC_PARALLEL = [
    {"role": "user", "content": "Which config files differ?"},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Reading both files."},
            {"type": "tool_use", "id": "a", "name": "read_file", "input": {"path": "a.yaml"}},
            {"type": "tool_use", "id": "b", "name": "read_file", "input": {"path": "b.yaml"}},
        ],
    },
    {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "b", "content": [{"type": "text", "text": "port: 9090"}]},
            {"type": "tool_result", "tool_use_id": "a", "content": "port: 8080"},
        ],
    },
    {"role": "assistant", "content": [{"type": "text", "text": "They differ in the port."}]},
]


def test_openai_and_anthropic_parallel_calls_give_the_same_steps() -> None:
    """Two parallel calls are two consecutive steps, results matched by id, narration once; both formats agree."""
    expected = [
        {"text": "Reading both files.", "tool": "read_file", "args": {"path": "a.yaml"}, "result": "port: 8080"},
        {"text": "", "tool": "read_file", "args": {"path": "b.yaml"}, "result": "port: 9090"},
        {"text": "They differ in the port.", "tool": None, "args": None, "result": None},
    ]
    assert steps_from_chat(OPENAI_PARALLEL) == expected
    assert steps_from_chat(ANTHROPIC_PARALLEL) == expected


def test_an_anthropic_error_result_marks_the_step_failed() -> None:
    """``is_error: true`` on a tool_result gives the step status error; user text beside results stays a user message."""
    messages = [
        {"role": "user", "content": "Deploy."},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "d", "name": "deploy", "input": {}}]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "d", "content": "permission denied", "is_error": True},
                {"type": "text", "text": "hurry"},
            ],
        },
        {"role": "assistant", "content": "Retrying."},
    ]
    steps = steps_from_chat(messages)
    assert steps[0]["status"] == "error" and steps[0]["result"] == "permission denied"
    assert steps[1]["user"] == "hurry"
    assert [m["role"] for m in anthropic_to_openai(messages)] == ["user", "assistant", "tool", "user", "assistant"]


def test_steer_message_carries_the_shared_prefix() -> None:
    """steer_message is a message of its own whose text is steer_text: STEER_PREFIX and the verdict's message (a default without one)."""
    from plateau.integrations import DEFAULT_STEER, steer_text
    from plateau.integrations.openai import steer_message
    from plateau.types import Action, BreakerState, Verdict

    verdict = Verdict("r", 3, Action.STEER, BreakerState.STEERING, 0.6, ("tool.repeat",), {}, "Try another approach.")
    assert steer_message(verdict) == {"role": "user", "content": STEER_PREFIX + "Try another approach."}
    assert steer_message(verdict, role="system")["content"] == steer_text(verdict.message)
    silent = Verdict("r", 4, Action.STEER, BreakerState.STEERING, 0.6, ("tool.repeat",), {}, None)
    assert steer_message(silent)["content"] == STEER_PREFIX + DEFAULT_STEER


def test_chat_run_sends_each_step_once_and_waits_for_results(hashing_engine: Engine) -> None:
    """A call without its result is held back; once answered it is sent, and nothing is sent twice."""
    client = Client.local(engine=hashing_engine)
    run = ChatRun(client)
    assert run.update(OPENAI_PARALLEL[:3]) is None  # both calls still pending
    assert run.session.next_index == 0
    run.update(OPENAI_PARALLEL[:4])  # b answered, a not: the list of steps is in order, so both wait
    run.update(OPENAI_PARALLEL[:5])
    assert run.session.next_index == 2
    run.update(OPENAI_PARALLEL)
    run.update(OPENAI_PARALLEL)
    info = client.get_run(run.run_id)
    assert info.steps == 3 and info.context == "Which config files differ?"


def _example(name: str) -> ModuleType:
    path = ROOT / "examples" / "integrations" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"example_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_an_openai_sdk_agent_loop_is_steered_then_tripped(real_engine: Engine) -> None:
    """The example's openai-SDK agent (a scripted model over httpx.MockTransport) is steered, then stopped before a 4th failing call."""
    pytest.importorskip("openai")
    client = Client.local(engine=real_engine)
    outcome = _example("openai_chat").run_agent(client)
    assert outcome["tripped"] is not None and "tool.repeat" in outcome["tripped"]["reasons"]
    assert outcome["steers"] and outcome["steer_seen_by_model"]
    assert all(steer.startswith(STEER_PREFIX) for steer in outcome["steers"])  # as every integration injects it
    assert outcome["refused"]  # a check before the call already said trip: the call never ran
    assert client.get_run(outcome["run_id"]).steps == outcome["tripped"]["step"] == 3
    assert outcome["turns"] == 4


def test_async_chat_run_over_grpc_trips(hashing_server: str) -> None:
    """AsyncChatRun on a remote AsyncClient raises RunTripped for the same failing call repeated."""

    async def main() -> RunTripped:
        async with AsyncClient.remote(hashing_server) as client:
            run = AsyncChatRun(client)
            messages: list[dict[str, object]] = [{"role": "user", "content": "make it pass"}]
            for turn in range(10):
                call = {"id": f"c{turn}", "type": "function", "function": {"name": "pytest", "arguments": json.dumps({"k": "rounding"})}}
                messages.append({"role": "assistant", "content": "again", "tool_calls": [call]})
                messages.append({"role": "tool", "tool_call_id": f"c{turn}", "content": "1 failed: AssertionError"})
                try:
                    await run.update(messages)
                except RunTripped as trip:
                    return trip
        raise AssertionError("never tripped")

    trip = asyncio.run(main())
    assert trip.verdict.action.value == "trip" and trip.verdict.step_index <= 5


@pytest.mark.parametrize(
    "script",
    [
        "openai_chat.py",
        "openai_agents_hooks.py",
        "langgraph_agent.py",
        "langchain_agent.py",
        "langgraph_react_agent.py",
        "pydantic_ai_agent.py",
    ],
)
def test_each_example_runs_as_a_script_against_a_server(script: str, hashing_server: str) -> None:
    """``python examples/integrations/SCRIPT --remote HOST:PORT`` exits 0 and reports the (first,
    looping) run stopped by Plateau; the healthy ones that follow are not."""
    import os
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1")
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "integrations" / script), "--remote", hashing_server],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    reports, text = [], out.stdout.strip()
    while text:
        report, end = json.JSONDecoder().raw_decode(text)
        reports.append(report)
        text = text[end:].strip()
    assert reports[0].get("tripped") or reports[0].get("ended_by_plateau")
    assert all(not (r.get("tripped") or r.get("ended_by_plateau")) for r in reports[1:])
