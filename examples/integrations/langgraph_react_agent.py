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
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage
from langchain_core.tools import tool

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scenarios import chat_model, langchain_outcome, scenario, tool_functions  # noqa: E402

from plateau import Client  # noqa: E402
from plateau.integrations.langgraph import PlateauGuard  # noqa: E402


def run_agent(client: Client, name: str = "loop", *, thread_id: str | None = None) -> dict[str, Any]:
    """Run scenario ``name`` as a guarded ``create_react_agent``; returns what happened."""
    run = scenario(name)
    model = chat_model(run)
    guard = PlateauGuard(client)
    agent = guard.react_agent(model, [tool(f) for f in tool_functions(run)], prompt=run.task)
    config: dict[str, Any] = {"recursion_limit": 80}
    if thread_id is not None:
        config["configurable"] = {"thread_id": thread_id}
    final = agent.invoke({"messages": [HumanMessage(run.task)]}, config)
    return langchain_outcome(run, model, guard, final["messages"])


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
