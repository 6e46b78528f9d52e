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
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scenarios import chat_model, langchain_outcome, scenario, tool_functions  # noqa: E402

from plateau import Client  # noqa: E402
from plateau.integrations.langchain import PlateauMiddleware  # noqa: E402


def run_agent(client: Client, name: str = "loop") -> dict[str, Any]:
    """Run scenario ``name`` under Plateau's middleware; returns what happened."""
    run = scenario(name)
    model = chat_model(run)
    middleware = PlateauMiddleware(client)
    agent = create_agent(model, [tool(f) for f in tool_functions(run)], middleware=[middleware], system_prompt=run.task)
    final = agent.invoke({"messages": [HumanMessage(run.task)]}, {"recursion_limit": 80})
    return langchain_outcome(run, model, middleware, final["messages"])


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
