"""plateau.integrations.langchain: ``create_agent`` with PlateauMiddleware on LangChain's fake chat
model: a looping agent is steered then stopped with a message and no unanswered call; a healthy
agent and a poller never are."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from tests.support.paths import REPO

pytest.importorskip("langchain.agents")

from langchain.agents import create_agent  # noqa: E402
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402

from plateau import Client  # noqa: E402
from plateau.engine import Engine  # noqa: E402
from plateau.integrations import STEER_PREFIX, RunTripped  # noqa: E402
from plateau.integrations.langchain import PlateauMiddleware  # noqa: E402

EXAMPLES = REPO / "examples" / "integrations"


@pytest.fixture(scope="module")
def example() -> Iterator[ModuleType]:
    sys.path.insert(0, str(EXAMPLES))
    try:
        import langchain_agent

        yield langchain_agent
    finally:
        sys.path.remove(str(EXAMPLES))


@pytest.fixture(scope="module")
def client(real_cached: Any) -> Client:
    """One in-process client on the real model for the whole module (each test uses fresh run ids)."""
    return Client.local(engine=Engine(embedder=real_cached))


def _agent(example: ModuleType, name: str, middleware: PlateauMiddleware) -> tuple[Any, Any, Any]:
    run = example.scenario(name)
    model = example.chat_model(run)
    return create_agent(model, [tool(f) for f in example.tool_functions(run)], middleware=[middleware]), model, run


def test_looping_agent_is_steered_then_ended_with_a_message(example: ModuleType, client: Client) -> None:
    outcome = example.run_agent(client, "loop")
    assert outcome["actions"] == ["continue", "continue", "steer", "trip"]
    assert outcome["steers"] and all(s.startswith(STEER_PREFIX) for s in outcome["steers"]) and outcome["steer_seen_by_model"]
    assert outcome["ended_by_plateau"] and outcome["last_message"].startswith(f"{STEER_PREFIX}stopped this run: ")
    assert outcome["unanswered_calls"] == []  # the refused 4th call has its ToolMessage
    assert outcome["tools_run"] == 3 and client.get_run(outcome["run_id"]).steps == 3
    assert outcome["model_calls"] == 4  # the model is not called after the trip


@pytest.mark.parametrize("name", ["healthy", "poller"])
def test_healthy_agent_and_poller_are_never_steered(example: ModuleType, client: Client, name: str) -> None:
    outcome = example.run_agent(client, name)
    assert outcome["actions"] == ["continue"] * 9  # eight tool steps and the final answer
    assert outcome["steers"] == [] and not outcome["steer_seen_by_model"] and not outcome["ended_by_plateau"]
    assert outcome["tools_run"] == 8 and outcome["unanswered_calls"] == []


def test_refused_call_gets_a_tool_message_saying_why(example: ModuleType, client: Client) -> None:
    middleware = PlateauMiddleware(client)
    agent, _, _ = _agent(example, "loop", middleware)
    messages = agent.invoke({"messages": [HumanMessage("fix it")]}, {"recursion_limit": 80})["messages"]
    refusals = [m for m in messages if isinstance(m, ToolMessage) and "plateau" in m.additional_kwargs]
    assert len(refusals) == 1 and refusals[0].status == "error" and refusals[0].tool_call_id == "call_4"
    assert refusals[0].content == messages[-1].content  # the same reason on the refusal and the last message
    assert messages[-1].additional_kwargs["plateau"]["action"] == "trip"


def test_on_trip_raise_and_thread_ids(example: ModuleType, client: Client) -> None:
    """With on_trip='raise' the trip comes out of invoke as RunTripped; a thread id names the run."""
    middleware = PlateauMiddleware(client, on_trip="raise")
    agent, _, _ = _agent(example, "loop", middleware)
    with pytest.raises(RunTripped) as info:
        agent.invoke({"messages": [HumanMessage("fix it")]}, {"recursion_limit": 80, "configurable": {"thread_id": "lc-raise"}})
    assert info.value.verdict.run_id == "langchain-lc-raise" and set(middleware.verdicts) == {"langchain-lc-raise"}
    assert client.get_run("langchain-lc-raise").steps == 3


def test_ainvoke_over_grpc_without_check(example: ModuleType, hashing_server: str) -> None:
    """The async hooks over a real socket; with check_before off the 4th call runs and its observation trips the run."""
    with Client.remote(hashing_server) as remote:
        middleware = PlateauMiddleware(remote, check_before=False)
        agent, model, run = _agent(example, "loop", middleware)
        final = asyncio.run(agent.ainvoke({"messages": [HumanMessage("fix it")]}, {"recursion_limit": 80}))
        ((run_id, verdicts),) = middleware.verdicts.items()
        assert [v.action.value for v in verdicts][-1] == "trip" and "steer" in [v.action.value for v in verdicts]
        assert run.tool_calls == len(verdicts) and remote.get_run(run_id).steps == len(verdicts)  # every call ran and was observed
        last = final["messages"][-1]
        assert isinstance(last, AIMessage) and last.name == "plateau" and len(model.inputs) == len(verdicts)


def test_conversations_remembered_are_bounded(example: ModuleType, hashing_server: str) -> None:
    """max_runs=2: a third conversation forgets the least recently active one; bad values are ValueError naming the field."""
    with Client.remote(hashing_server) as remote:
        middleware = PlateauMiddleware(remote, max_runs=2)
        for n in range(3):
            agent, _, _ = _agent(example, "healthy", middleware)
            agent.invoke({"messages": [HumanMessage("fix it")]}, {"recursion_limit": 80, "configurable": {"thread_id": f"bounded-{n}"}})
        assert list(middleware.verdicts) == ["langchain-bounded-1", "langchain-bounded-2"]
        assert remote.get_run("langchain-bounded-0").steps == 9  # forgotten here, kept by Plateau
    for bad in (0, -1, True, "2"):
        with pytest.raises(ValueError, match="max_runs"):
            PlateauMiddleware(remote, max_runs=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="on_trip"):
        PlateauMiddleware(remote, on_trip="stop")  # type: ignore[arg-type]
    from plateau import AsyncClient

    with pytest.raises(ValueError, match="client"):
        PlateauMiddleware(AsyncClient.remote(hashing_server))
