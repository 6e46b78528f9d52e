"""LangGraph's prebuilt ``create_react_agent`` guarded by Plateau in one line, offline.

``PlateauGuard(client).react_agent(model, tools)`` (:mod:`plateau.integrations.langgraph`) is
``create_react_agent`` with Plateau's tool-node wrapper (each call observed with its result),
``pre_model_hook`` (a steer handed to the model as its own message) and ``post_model_hook``
(each new call checked before it runs; on a trip every call gets a ``ToolMessage`` saying it
was refused and the run ends with a message saying why).

The model is LangChain's own ``GenericFakeChatModel`` playing one of three scripted agents
(``scenarios.py``): ``loop`` runs the same failing test again and again (steered, then
stopped), ``healthy`` fixes a bug and ``poller`` polls a rollout that advances (both left
alone). Nothing leaves the machine.

Run it from a clone (``pip install -e ".[server,langgraph]"``)::

    python examples/integrations/langgraph_react_agent.py
    python examples/integrations/langgraph_react_agent.py --remote 127.0.0.1:50051
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scenarios import Scenario, scenario, tool_functions  # noqa: E402

from plateau import Client  # noqa: E402
from plateau.integrations import STEER_PREFIX  # noqa: E402
from plateau.integrations.langgraph import PlateauGuard  # noqa: E402


class ScriptedChatModel(GenericFakeChatModel):
    """``GenericFakeChatModel`` that accepts tools (it answers from its script) and records what it is shown."""

    inputs: list[list[BaseMessage]] = []

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.inputs.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def turns(run: Scenario) -> Iterator[AIMessage]:
    """The scenario's turns as the model's messages."""
    n = 0
    while True:
        text, name, args, _ = run.next_turn()
        n += 1
        calls = [{"name": name, "args": args, "id": f"call_{n}", "type": "tool_call"}] if name else []
        yield AIMessage(content=text, tool_calls=calls)


def run_agent(client: Client, name: str = "loop", *, thread_id: str | None = None) -> dict[str, Any]:
    """Run scenario ``name`` as a guarded ``create_react_agent``; returns what happened."""
    run = scenario(name)
    model = ScriptedChatModel(messages=turns(run), inputs=[])
    guard = PlateauGuard(client)
    agent = guard.react_agent(model, [tool(f) for f in tool_functions(run)], prompt=run.task)
    config: dict[str, Any] = {"recursion_limit": 80}
    if thread_id is not None:
        config["configurable"] = {"thread_id": thread_id}
    final = agent.invoke({"messages": [HumanMessage(run.task)]}, config)
    messages = final["messages"]
    ((run_id, verdicts),) = guard.verdicts.items()
    calls = {c["id"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls}
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    last = messages[-1]
    return {
        "scenario": name,
        "run_id": run_id,
        "model_calls": len(model.inputs),
        "tools_run": run.tool_calls,
        "actions": [v.action.value for v in verdicts],
        "steers": guard.steers_injected[run_id],
        "steer_seen_by_model": any(STEER_PREFIX in str(m.content) for shown in model.inputs for m in shown if isinstance(m, HumanMessage)),
        "ended_by_plateau": last.name == "plateau",
        "last_message": last.content,
        "unanswered_calls": sorted(calls - answered),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--remote", metavar="HOST:PORT", help="a running plateau serve (default: Plateau in process)")
    args = parser.parse_args()
    client = Client.remote(args.remote) if args.remote else Client.local()
    with client:
        for name in ("loop", "healthy", "poller"):
            print(json.dumps(run_agent(client, name), indent=2, default=str))


if __name__ == "__main__":
    main()
