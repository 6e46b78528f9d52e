"""plateau.integrations.langgraph: a LangGraph agent on LangChain's fake chat model, steered, then ended by Plateau."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from tests.support.paths import REPO

pytest.importorskip("langgraph")

from langchain_core.messages import HumanMessage  # noqa: E402

from plateau import Client  # noqa: E402
from plateau.engine import Engine  # noqa: E402
from plateau.integrations import STEER_PREFIX, RunTripped  # noqa: E402
from plateau.integrations.langgraph import PlateauNode  # noqa: E402

ROOT = REPO


def _example() -> ModuleType:
    path = ROOT / "examples" / "integrations" / "langgraph_agent.py"
    spec = importlib.util.spec_from_file_location("example_langgraph_agent", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_langgraph_agent_is_steered_then_ended_before_a_fourth_failing_call(real_engine: Engine) -> None:
    """The graph's model sees Plateau's steer as a message; the 4th identical call is refused at the route, ending the graph."""
    client = Client.local(engine=real_engine)
    outcome = _example().run_agent(client)
    assert outcome["run_id"].startswith("langgraph-fix-rounding-")  # a fresh thread, so a fresh run, each time
    assert outcome["actions"] == ["continue", "continue", "steer", "trip"]
    assert outcome["steers"] and outcome["steer_seen_by_model"] and outcome["ended_by_plateau"]
    assert all(steer.startswith(STEER_PREFIX) for steer in outcome["steers"])
    assert client.get_run(outcome["run_id"]).steps == 3  # the refused call never ran
    again = _example().run_agent(client)  # a second run against the same engine starts afresh
    assert again["run_id"] != outcome["run_id"] and again["actions"] == outcome["actions"]


def test_langgraph_node_raises_run_tripped_over_grpc_without_check(hashing_server: str) -> None:
    """With check_before off and on_trip='raise', the node itself trips after the tools ran, over a real socket."""
    example = _example()
    with Client.remote(hashing_server) as client:
        node = PlateauNode(client, check_before=False)
        app = example.build_graph(node, [])
        with pytest.raises(RunTripped) as info:
            app.invoke({"messages": [HumanMessage("fix it")]}, {"configurable": {"thread_id": "raise-1"}, "recursion_limit": 60})
        assert info.value.verdict.run_id == "langgraph-raise-1"
        assert client.get_run("langgraph-raise-1").steps == info.value.verdict.step_index + 1


def test_each_thread_is_its_own_run(hashing_server: str) -> None:
    """Two thread ids give two Plateau runs; a node rejects a state without messages."""
    example = _example()
    with Client.remote(hashing_server) as client:
        node = PlateauNode(client, on_trip="end")
        app = example.build_graph(node, [])
        for thread in ("t-a", "t-b"):
            app.invoke({"messages": [HumanMessage("fix it")]}, {"configurable": {"thread_id": thread}, "recursion_limit": 60})
        assert set(node.verdicts) == {"langgraph-t-a", "langgraph-t-b"}
        with pytest.raises(ValueError, match="messages"):
            node({"nothing": 1}, {})


def test_route_trip_leaves_a_message_and_no_unanswered_call(real_engine: Engine) -> None:
    """on_trip='end' from the check in route: the refused call gets a ToolMessage, the last message says why."""
    outcome = _example().run_agent(Client.local(engine=real_engine))
    assert outcome["ended_by_plateau"] and outcome["last_message"].startswith(f"{STEER_PREFIX}stopped this run: ")
    assert outcome["unanswered_calls"] == []


# ---------------------------------------------------------------- create_react_agent + PlateauGuard
EXAMPLES = ROOT / "examples" / "integrations"


@pytest.fixture(scope="module")
def react() -> Iterator[ModuleType]:
    sys.path.insert(0, str(EXAMPLES))
    try:
        import langgraph_react_agent

        yield langgraph_react_agent
    finally:
        sys.path.remove(str(EXAMPLES))


@pytest.fixture(scope="module")
def client(real_cached: Any) -> Client:
    """One in-process client on the real model for the react-agent tests (fresh run ids each)."""
    return Client.local(engine=Engine(embedder=real_cached))


def test_react_agent_loop_is_steered_then_ended_with_a_message(react: ModuleType, client: Client) -> None:
    outcome = react.run_agent(client, "loop", thread_id="react-loop")
    assert outcome["run_id"] == "langgraph-react-loop"
    assert outcome["actions"] == ["continue", "continue", "steer", "trip"]
    assert outcome["steers"] and outcome["steer_seen_by_model"]
    assert outcome["ended_by_plateau"] and outcome["last_message"].startswith(f"{STEER_PREFIX}stopped this run: ")
    assert outcome["unanswered_calls"] == [] and outcome["tools_run"] == 3 and client.get_run(outcome["run_id"]).steps == 3
    assert outcome["model_calls"] == 4  # the check in post_model_hook refuses the 4th call: no model call after it


@pytest.mark.parametrize("name", ["healthy", "poller"])
def test_react_agent_healthy_and_poller_are_never_steered(react: ModuleType, client: Client, name: str) -> None:
    outcome = react.run_agent(client, name)
    assert outcome["actions"] == ["continue"] * 9
    assert outcome["steers"] == [] and not outcome["ended_by_plateau"] and outcome["unanswered_calls"] == []


def test_react_agent_trip_after_the_tools_replaces_the_next_turn(react: ModuleType, hashing_server: str) -> None:
    """check_before off, over a real socket: the observation trips after the tools ran; the model's
    next turn is replaced by the trip message, so its calls never run and none is left unanswered."""
    from langchain_core.messages import AIMessage, ToolMessage
    from langchain_core.tools import tool

    from plateau.integrations.langgraph import PlateauGuard

    with Client.remote(hashing_server) as remote:
        run = react.scenario("loop")
        model = react.chat_model(run)
        guard = PlateauGuard(remote, check_before=False)
        agent = guard.react_agent(model, [tool(f) for f in react.tool_functions(run)])
        messages = agent.invoke({"messages": [HumanMessage("fix it")]}, {"recursion_limit": 80})["messages"]
        ((run_id, verdicts),) = guard.verdicts.items()
        assert verdicts[-1].action.value == "trip" and run.tool_calls == len(verdicts) == remote.get_run(run_id).steps
        assert isinstance(messages[-1], AIMessage) and messages[-1].name == "plateau"
        calls = {c["id"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls}
        assert calls == {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
        with pytest.raises(ValueError, match="pre_model_hook"):
            guard.react_agent(model, [], pre_model_hook=lambda s: {})
