"""A Pydantic AI agent guarded by Plateau's capability, offline.

``PlateauCapability`` (:mod:`plateau.integrations.pydantic_ai`) observes each model response and
tool result, checks each tool call before it runs, turns a steer into a retry message the model
reads (``ModelRetry``), and stops the run with ``RunTripped`` on a trip.

The model is Pydantic AI's own ``FunctionModel`` playing one of three scripted agents
(``scenarios.py``): ``loop`` runs the same failing test again and again (steered, then
stopped), ``healthy`` fixes a bug and ``poller`` polls a rollout that advances (both left
alone). Nothing leaves the machine; give the agent a model name instead to guard a real one.

Run it from a clone (``pip install -e ".[server,pydantic-ai]"``)::

    python examples/integrations/pydantic_ai_agent.py
    python examples/integrations/pydantic_ai_agent.py --remote 127.0.0.1:50051
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scenarios import Scenario, scenario, tool_functions  # noqa: E402

from plateau import AsyncClient  # noqa: E402
from plateau.integrations import STEER_PREFIX, RunTripped  # noqa: E402
from plateau.integrations.pydantic_ai import PlateauCapability  # noqa: E402


def scripted_model(run: Scenario, seen: list[list[ModelMessage]]) -> FunctionModel:
    """Pydantic AI's ``FunctionModel`` answering each request with the scenario's next turn."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        text, name, args, _ = run.next_turn()
        parts: list[Any] = [TextPart(text)]
        if name is not None:
            parts.append(ToolCallPart(name, args, tool_call_id=f"call_{len(seen)}"))
        return ModelResponse(parts=parts)

    return FunctionModel(respond, model_name="scripted")


async def run_agent(client: AsyncClient, name: str = "loop") -> dict[str, Any]:
    """Run scenario ``name`` with Plateau's capability; returns what happened."""
    run = scenario(name)
    seen: list[list[ModelMessage]] = []
    plateau = PlateauCapability(client)
    agent = Agent(scripted_model(run, seen), tools=tool_functions(run), capabilities=[plateau], instructions=run.task)
    outcome: dict[str, Any] = {"scenario": name, "tripped": None, "output": None}
    try:
        outcome["output"] = (await agent.run(run.task)).output
    except RunTripped as trip:
        outcome["tripped"] = {"step": trip.verdict.step_index, "reasons": list(trip.verdict.reasons), "message": trip.verdict.message}
    ((run_id, verdicts),) = plateau.verdicts.items()
    outcome.update(
        run_id=run_id,
        model_calls=len(seen),
        tools_run=run.tool_calls,
        actions=[v.action.value for v in verdicts],
        steers=plateau.steers_injected[run_id],
        steer_seen_by_model=any(STEER_PREFIX in repr(m) for shown in seen for m in shown),
    )
    return outcome


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--remote", metavar="HOST:PORT", help="a running plateau serve (default: Plateau in process)")
    args = parser.parse_args()
    client = AsyncClient.remote(args.remote) if args.remote else AsyncClient.local()
    async with client:
        for name in ("loop", "healthy", "poller"):
            print(json.dumps(await run_agent(client, name), indent=2, default=str))


if __name__ == "__main__":
    asyncio.run(main())
