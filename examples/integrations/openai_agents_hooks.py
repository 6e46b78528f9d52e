"""An OpenAI Agents SDK agent guarded by Plateau's run hooks, offline.

``PlateauRunHooks`` (:mod:`plateau.integrations.openai_agents`) goes where the SDK's run hooks
go, ``Runner.run(agent, task, hooks=hooks)`` or ``Runner.run_streamed(...)``: a tool input
guardrail checks each call before it runs, a steer reaches the model's next call as its own
message, and a trip stops the run with ``RunTripped``.

The model is the SDK's own ``agents.testing.ScriptedModel`` playing one of three scripted
agents (``scenarios.py``): ``loop`` runs the same failing test again and again (steered, then
stopped), ``healthy`` fixes a bug and ``poller`` polls a rollout that advances (both left
alone). Nothing leaves the machine. Give the agent a model name (and ``OPENAI_API_KEY``) instead
of the scripted model to guard a real one.

Run it from a clone (``pip install -e ".[server,openai-agents]"``)::

    python examples/integrations/openai_agents_hooks.py
    python examples/integrations/openai_agents_hooks.py --streamed --remote 127.0.0.1:50051
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message, function_call

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scenarios import scenario, tool_functions  # noqa: E402

from plateau import AsyncClient  # noqa: E402
from plateau.integrations import STEER_PREFIX, RunTripped  # noqa: E402
from plateau.integrations.openai_agents import PlateauRunHooks  # noqa: E402


def scripted_model(name: str, max_turns: int) -> ScriptedModel:
    """The SDK's scripted model playing scenario ``name``: each call answers the next turn."""
    run = scenario(name)
    turn_number = iter(range(1, max_turns + 1))

    def respond(call: ModelCall) -> list[Any]:
        text, tool, args, _ = run.next_turn()
        n = next(turn_number)
        output = [assistant_message(text, item_id=f"msg_{n}")]
        if tool is not None:
            output.append(function_call(tool, args, call_id=f"call_{n}"))
        return output

    model = ScriptedModel([ModelStep.respond(respond) for _ in range(max_turns)])
    model.scenario = run  # type: ignore[attr-defined]
    return model


async def run_agent(client: AsyncClient, name: str = "loop", *, streamed: bool = False, max_turns: int = 12) -> dict[str, Any]:
    """Run scenario ``name`` under Plateau's hooks; returns what happened."""
    set_tracing_disabled(True)  # no trace export: nothing leaves the machine
    model = scripted_model(name, max_turns)
    run = model.scenario  # type: ignore[attr-defined]
    agent = Agent(name=name, instructions=run.task, model=model, tools=[function_tool(f) for f in tool_functions(run)])
    hooks = PlateauRunHooks(client, context=run.task)
    outcome: dict[str, Any] = {"scenario": name, "run_id": hooks.session.run_id, "tripped": None, "final_output": None}
    try:
        if streamed:
            result = Runner.run_streamed(agent, run.task, hooks=hooks, max_turns=max_turns)
            async for _ in result.stream_events():
                pass
        else:
            result = await Runner.run(agent, run.task, hooks=hooks, max_turns=max_turns)
        outcome["final_output"] = result.final_output
    except RunTripped as trip:
        outcome["tripped"] = {"step": trip.verdict.step_index, "reasons": list(trip.verdict.reasons), "message": trip.verdict.message}
    inputs = [call.input for call in model.calls]
    outcome.update(
        model_calls=len(inputs),
        tools_run=run.tool_calls,
        actions=[v.action.value for v in hooks.verdicts],
        steers=hooks.steers_injected,
        steer_seen_by_model=any(STEER_PREFIX in json.dumps(i, default=str) for i in inputs),
        refused=hooks.refused,
    )
    return outcome


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--remote", metavar="HOST:PORT", help="a running plateau serve (default: Plateau in process)")
    parser.add_argument("--streamed", action="store_true", help="Runner.run_streamed instead of Runner.run")
    args = parser.parse_args()
    client = AsyncClient.remote(args.remote) if args.remote else AsyncClient.local()
    async with client:
        for name in ("loop", "healthy", "poller"):
            print(json.dumps(await run_agent(client, name, streamed=args.streamed), indent=2, default=str))


if __name__ == "__main__":
    asyncio.run(main())
