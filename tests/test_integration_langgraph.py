"""plateau.integrations.langgraph: a LangGraph agent on LangChain's fake chat model, steered, then ended by Plateau."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("langgraph")

from langchain_core.messages import HumanMessage  # noqa: E402

from plateau import Client  # noqa: E402
from plateau.engine import Engine  # noqa: E402
from plateau.integrations import STEER_PREFIX, RunTripped  # noqa: E402
from plateau.integrations.langgraph import PlateauNode  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


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
