"""plateau.integrations.openai_agents: ``Runner.run(hooks=…)`` and ``Runner.run_streamed`` on the
SDK's own ``agents.testing.ScriptedModel``: a looping agent is steered then stopped, a healthy
agent and a poller never are."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from tests.support.paths import REPO

pytest.importorskip("agents")

from agents import Agent, Runner, function_tool, set_tracing_disabled  # noqa: E402
from agents.exceptions import MaxTurnsExceeded, UserError  # noqa: E402

from plateau import AsyncClient  # noqa: E402
from plateau.engine import Engine  # noqa: E402
from plateau.integrations import STEER_PREFIX, RunTripped  # noqa: E402
from plateau.integrations.openai_agents import TOOL_GUARDRAIL, PlateauRunHooks  # noqa: E402

EXAMPLES = REPO / "examples" / "integrations"


@pytest.fixture(scope="module")
def example() -> Iterator[ModuleType]:
    sys.path.insert(0, str(EXAMPLES))
    try:
        import openai_agents_hooks

        yield openai_agents_hooks
    finally:
        sys.path.remove(str(EXAMPLES))


@pytest.fixture(scope="module")
def client(real_cached: Any) -> AsyncClient:
    """One in-process client on the real model for the whole module (each test uses fresh run ids)."""
    return AsyncClient.local(engine=Engine(embedder=real_cached))


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
def test_looping_agent_is_steered_then_tripped_before_a_fourth_call(example: ModuleType, client: AsyncClient, streamed: bool) -> None:
    """Three identical failing calls: the 3rd is steered (the steer is in the model's next input),
    the guardrail refuses the 4th, and the run ends with RunTripped before the next model call."""

    async def main() -> tuple[dict[str, Any], int]:
        outcome = await example.run_agent(client, "loop", streamed=streamed)
        return outcome, (await client.get_run(outcome["run_id"])).steps

    outcome, stored = asyncio.run(main())
    assert outcome["actions"] == ["continue", "continue", "steer", "trip"]
    assert outcome["tripped"] is not None and "tool.repeat" in outcome["tripped"]["reasons"]
    assert outcome["steers"] and all(s.startswith(STEER_PREFIX) for s in outcome["steers"]) and outcome["steer_seen_by_model"]
    assert outcome["refused"] == ["call_4"]  # the guardrail rejected the 4th call ...
    assert outcome["tools_run"] == 3 and stored == 3  # ... so it never ran and Plateau recorded three steps
    assert outcome["model_calls"] == 4  # no model call after the trip


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run_streamed"])
@pytest.mark.parametrize("name", ["healthy", "poller"])
def test_healthy_agent_and_poller_are_never_steered(example: ModuleType, client: AsyncClient, name: str, streamed: bool) -> None:
    outcome = asyncio.run(example.run_agent(client, name, streamed=streamed))
    assert outcome["tripped"] is None and outcome["final_output"]
    assert outcome["actions"] == ["continue"] * 9  # eight tool steps and the final answer
    assert outcome["steers"] == [] and not outcome["steer_seen_by_model"] and outcome["refused"] == []


def test_trip_comes_out_of_runner_run_as_run_tripped_not_user_error(example: ModuleType, client: AsyncClient) -> None:
    """The SDK wraps a hook's exception in UserError; the trip is its own AgentsException and is not."""
    set_tracing_disabled(True)
    model = example.scripted_model("loop", 8)
    tools = [function_tool(f) for f in example.tool_functions(model.scenario)]
    agent = Agent(name="loop", instructions="fix it", model=model, tools=tools)
    hooks = PlateauRunHooks(client, context="fix it")

    async def main() -> BaseException:
        try:
            await Runner.run(agent, "fix it", hooks=hooks, max_turns=8)
        except Exception as exc:  # noqa: BLE001 - the type is the assertion
            return exc
        raise AssertionError("the run was not stopped")

    exc = asyncio.run(main())
    assert isinstance(exc, RunTripped) and not isinstance(exc, UserError)
    assert exc.verdict == hooks.tripped and exc.verdict.action.value == "trip"
    # the guardrail stays on the tools but does nothing in a run without Plateau's hooks
    assert all(TOOL_GUARDRAIL in (t.tool_input_guardrails or []) for t in tools)
    unguarded = Agent(name="loop", instructions="fix it", model=example.scripted_model("loop", 3), tools=tools)
    with pytest.raises(MaxTurnsExceeded):
        asyncio.run(Runner.run(unguarded, "fix it", max_turns=3))


def test_observe_only_over_grpc(example: ModuleType, hashing_server: str) -> None:
    """With raise_on_trip=False nothing is refused and the run goes on to max_turns, every verdict recorded, over a real socket."""
    set_tracing_disabled(True)

    async def main() -> tuple[list[str], PlateauRunHooks]:
        async with AsyncClient.remote(hashing_server) as remote:
            hooks = PlateauRunHooks(remote, raise_on_trip=False)
            model = example.scripted_model("loop", 6)
            agent = Agent(
                name="fixer", instructions="fix it", model=model, tools=[function_tool(f) for f in example.tool_functions(model.scenario)]
            )
            with pytest.raises(MaxTurnsExceeded):
                await Runner.run(agent, "fix it", hooks=hooks, max_turns=6)
            return [v.action.value for v in hooks.verdicts], hooks

    actions, hooks = asyncio.run(main())
    assert len(actions) == 6 and actions[-1] == "trip" and "steer" in actions
    assert hooks.refused == [] and hooks.tripped is None


def test_trip_from_an_observation_stops_before_the_next_model_call(example: ModuleType, hashing_server: str) -> None:
    """check_before off, over a real socket: every call runs, the observation that trips ends the run before the model is asked again."""
    set_tracing_disabled(True)

    async def main() -> tuple[PlateauRunHooks, Any, int]:
        async with AsyncClient.remote(hashing_server) as remote:
            hooks = PlateauRunHooks(remote, check_before=False)
            model = example.scripted_model("loop", 12)
            agent = Agent(
                name="fixer", instructions="fix it", model=model, tools=[function_tool(f) for f in example.tool_functions(model.scenario)]
            )
            with pytest.raises(RunTripped):
                await Runner.run(agent, "fix it", hooks=hooks, max_turns=12)
            return hooks, model, (await remote.get_run(hooks.session.run_id)).steps

    hooks, model, stored = asyncio.run(main())
    assert hooks.tripped is not None and hooks.verdicts[-1] == hooks.tripped and hooks.refused == []
    assert model.scenario.tool_calls == len(hooks.verdicts) == stored == len(model.calls)


def test_parallel_calls_are_observed_one_step_each(example: ModuleType, hashing_server: str) -> None:
    """Two calls per turn: each is its own step, numbered in order (observed one at a time), and the trip ends the run."""
    from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call

    set_tracing_disabled(True)
    run = example.scenario("loop")
    counter = iter(range(100))

    def respond(call: Any) -> list[Any]:
        text, tool, args, _ = run.next_turn()
        run.next_turn()  # the second call's answer is queued too
        n = next(counter)
        return [assistant_message(text), function_call(tool, args, call_id=f"a{n}"), function_call(tool, args, call_id=f"b{n}")]

    model = ScriptedModel([ModelStep.respond(respond) for _ in range(8)])
    agent = Agent(name="fixer", instructions="fix it", model=model, tools=[function_tool(f) for f in example.tool_functions(run)])

    async def main() -> tuple[PlateauRunHooks, int]:
        async with AsyncClient.remote(hashing_server) as remote:
            hooks = PlateauRunHooks(remote)
            with pytest.raises(RunTripped):
                await Runner.run(agent, "fix it", hooks=hooks, max_turns=8)
            return hooks, (await remote.get_run(hooks.session.run_id)).steps

    hooks, stored = asyncio.run(main())
    # both calls of a turn are checked before either is observed, so the trip here comes from observing the 4th
    assert [v.step_index for v in hooks.verdicts] == list(range(stored)) and hooks.verdicts[-1] == hooks.tripped
    assert run.tool_calls == stored == 4 and len(model.calls) == 2  # two turns of two calls; no third model call
