"""An OpenAI Agents SDK agent guarded by Plateau's run hooks, offline.

``PlateauRunHooks`` (:mod:`plateau.integrations.openai_agents`) sees every model turn and tool
call of ``Runner.run``: it checks each call before it runs, injects a steer into the next model
call, and stops the run (``RunTripped``) when Plateau trips.

The model is a custom ``agents.Model`` (the SDK's own extension point) scripted to call
``run_tests`` again and again although the tests fail the same way every time; nothing leaves
the machine. Replace ``model=ScriptedModel()`` by a model name (and set ``OPENAI_API_KEY``) to
guard a real model.

Run it from a clone (``pip install -e ".[server,openai-agents]"``)::

    python examples/integrations/openai_agents_hooks.py
    python examples/integrations/openai_agents_hooks.py --remote 127.0.0.1:50051
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from agents import Agent, Model, ModelResponse, Usage, function_tool, set_tracing_disabled
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from plateau import AsyncClient
from plateau.integrations import STEER_PREFIX, RunTripped
from plateau.integrations.openai_agents import PlateauRunHooks


@function_tool
def run_tests(path: str) -> str:
    """Run the test suite under a path."""
    return f"FAILED {path}/test_invoice.py::test_rounding - AssertionError: assert 10.004 == 10.0\n1 failed, 41 passed in 0.42s"


class ScriptedModel(Model):
    """A model that narrates and calls ``run_tests("tests")`` on every turn; records its inputs."""

    def __init__(self) -> None:
        self.inputs: list[Any] = []

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
        self.inputs.append(input)
        turn = len(self.inputs)
        text = ResponseOutputText(
            text=f"The rounding test still fails; running it again (attempt {turn}).", type="output_text", annotations=[]
        )
        message = ResponseOutputMessage(id=f"msg_{turn}", content=[text], role="assistant", status="completed", type="message")
        call = ResponseFunctionToolCall(
            id=f"fc_{turn}",
            call_id=f"call_{turn}",
            name="run_tests",
            arguments=json.dumps({"path": "tests"}),
            type="function_call",
            status="completed",
        )
        return ModelResponse(output=[message, call], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("this example does not stream")


async def run_agent(client: AsyncClient, max_turns: int = 12) -> dict[str, Any]:
    """Run the guarded agent; returns what happened (turns, steers injected, the trip)."""
    set_tracing_disabled(True)  # no trace export: nothing leaves the machine
    model = ScriptedModel()
    agent = Agent(name="fixer", instructions="Make the invoice rounding test pass.", model=model, tools=[run_tests])
    hooks = PlateauRunHooks(client, context="Make the invoice rounding test pass.")
    outcome: dict[str, Any] = {"run_id": hooks.session.run_id, "tripped": None}
    try:
        await hooks.run(agent, "Make the invoice rounding test pass.", max_turns=max_turns)
    except RunTripped as trip:
        outcome["tripped"] = {"step": trip.verdict.step_index, "reasons": list(trip.verdict.reasons), "message": trip.verdict.message}
    seen = any(STEER_PREFIX in json.dumps(i, default=str) for i in model.inputs)
    outcome.update(
        turns=len(model.inputs), steers=hooks.steers_injected, steer_seen_by_model=seen, actions=[v.action.value for v in hooks.verdicts]
    )
    return outcome


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--remote", metavar="HOST:PORT", help="a running plateau serve (default: Plateau in process)")
    args = parser.parse_args()
    client = AsyncClient.remote(args.remote) if args.remote else AsyncClient.local()
    async with client:
        print(json.dumps(await run_agent(client), indent=2))


if __name__ == "__main__":
    asyncio.run(main())
