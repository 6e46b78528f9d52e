"""A LangGraph tool-calling agent guarded by Plateau's node, offline.

The graph is the usual ``agent → tools → agent`` loop with :class:`plateau.integrations.langgraph.PlateauNode`
in it: its ``route`` checks each tool call before it runs, the node observes every finished
turn and feeds a steer back to the model as a message, and a trip ends the run with a message
saying why (a call refused before it ran gets its ``ToolMessage`` first).

The model is LangChain's own ``GenericFakeChatModel``, scripted to call ``run_tests`` on every
turn although the tests fail the same way every time; nothing leaves the machine. Put any chat
model with ``bind_tools`` in its place to guard a real agent.

Run it from a clone (``pip install -e ".[server,langgraph]"``)::

    python examples/integrations/langgraph_agent.py
    python examples/integrations/langgraph_agent.py --remote 127.0.0.1:50051
"""

from __future__ import annotations

import argparse
import json
import uuid
from collections.abc import Iterator
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from plateau import Client
from plateau.integrations.langgraph import PlateauNode


@tool
def run_tests(path: str) -> str:
    """Run the test suite under a path."""
    return f"FAILED {path}/test_invoice.py::test_rounding - AssertionError: assert 10.004 == 10.0\n1 failed, 41 passed in 0.42s"


def scripted_turns() -> Iterator[AIMessage]:
    """The model's turns: narrate, then call run_tests("tests") again, forever."""
    turn = 0
    while True:
        turn += 1
        yield AIMessage(
            content=f"The rounding test still fails; running it again (attempt {turn}).",
            tool_calls=[{"name": "run_tests", "args": {"path": "tests"}, "id": f"call_{turn}", "type": "tool_call"}],
        )


def build_graph(node: PlateauNode, model_inputs: list[list[Any]]) -> Any:
    """The agent graph with Plateau in it; ``model_inputs`` collects what the model is shown."""
    model = GenericFakeChatModel(messages=scripted_turns())

    def agent(state: MessagesState) -> dict[str, Any]:
        model_inputs.append(list(state["messages"]))
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode([run_tests]))
    graph.add_node("plateau", node)
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", node.route, ["tools", "plateau", END])
    graph.add_edge("tools", "plateau")
    graph.add_conditional_edges("plateau", node.after, ["agent", END])
    return graph.compile()


def run_agent(client: Client) -> dict[str, Any]:
    """Run the guarded graph until Plateau ends it; returns what happened."""
    node = PlateauNode(client, on_trip="end")
    inputs: list[list[Any]] = []
    app = build_graph(node, inputs)
    final = app.invoke(
        {"messages": [HumanMessage("Make the invoice rounding test pass.")]},
        # a fresh thread each time: a server keeps runs, and a thread id is its run's id
        {"configurable": {"thread_id": f"fix-rounding-{uuid.uuid4().hex[:12]}"}, "recursion_limit": 60},
    )
    last = final["messages"][-1]
    ((run_id, verdicts),) = node.verdicts.items()
    steers = [m.content for m in final["messages"] if isinstance(m, HumanMessage) and m.name == "plateau"]
    return {
        "run_id": run_id,
        "turns": len(inputs),
        "actions": [v.action.value for v in verdicts],
        "ended_by_plateau": last.name == "plateau" and last.additional_kwargs["plateau"]["action"] == "trip",
        "steers": steers,
        "steer_seen_by_model": any(any(getattr(m, "name", None) == "plateau" for m in shown) for shown in inputs),
        "last_message": last.content,
        "unanswered_calls": sorted(
            {c["id"] for m in final["messages"] if isinstance(m, AIMessage) for c in m.tool_calls}
            - {m.tool_call_id for m in final["messages"] if isinstance(m, ToolMessage)}
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--remote", metavar="HOST:PORT", help="a running plateau serve (default: Plateau in process)")
    args = parser.parse_args()
    client = Client.remote(args.remote) if args.remote else Client.local()
    with client:
        print(json.dumps(run_agent(client), indent=2, default=str))


if __name__ == "__main__":
    main()
