"""A LangChain v1 agent (``create_agent``) guarded by Plateau's middleware, offline.

``PlateauMiddleware`` (:mod:`plateau.integrations.langchain`) checks each tool call before it
runs, observes it with its result, hands a steer to the model as its own message, and ends the
run with a message saying why when Plateau trips (a refused call still gets its ``ToolMessage``).

The model is LangChain's own ``GenericFakeChatModel`` playing one of three scripted agents
(``scenarios.py``): ``loop`` runs the same failing test again and again (steered, then
stopped), ``healthy`` fixes a bug and ``poller`` polls a rollout that advances (both left
alone). Nothing leaves the machine; put any chat model with ``bind_tools`` in its place to
guard a real agent.

Run it from a clone (``pip install -e ".[server,langchain]"``)::

    python examples/integrations/langchain_agent.py
    python examples/integrations/langchain_agent.py --remote 127.0.0.1:50051
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scenarios import Scenario, scenario, tool_functions  # noqa: E402

from plateau import Client  # noqa: E402
from plateau.integrations import STEER_PREFIX  # noqa: E402
from plateau.integrations.langchain import PlateauMiddleware  # noqa: E402


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


def run_agent(client: Client, name: str = "loop") -> dict[str, Any]:
    """Run scenario ``name`` under Plateau's middleware; returns what happened."""
    run = scenario(name)
    model = ScriptedChatModel(messages=turns(run), inputs=[])
    middleware = PlateauMiddleware(client)
    agent = create_agent(model, [tool(f) for f in tool_functions(run)], middleware=[middleware], system_prompt=run.task)
    final = agent.invoke({"messages": [HumanMessage(run.task)]}, {"recursion_limit": 80})
    messages = final["messages"]
    ((run_id, verdicts),) = middleware.verdicts.items()
    calls = {c["id"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls}
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    last = messages[-1]
    return {
        "scenario": name,
        "run_id": run_id,
        "model_calls": len(model.inputs),
        "tools_run": run.tool_calls,
        "actions": [v.action.value for v in verdicts],
        "steers": middleware.steers_injected[run_id],
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
