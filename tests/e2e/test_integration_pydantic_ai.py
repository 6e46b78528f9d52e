"""plateau.integrations.pydantic_ai: PlateauCapability on Pydantic AI's FunctionModel: a looping
agent is steered (ModelRetry) then stopped (RunTripped), a healthy agent and a poller never are."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from tests.support.paths import REPO

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.messages import RetryPromptPart, ToolReturnPart  # noqa: E402

from plateau import AsyncClient, Client  # noqa: E402
from plateau.engine import Engine  # noqa: E402
from plateau.integrations import STEER_PREFIX, RunTripped  # noqa: E402
from plateau.integrations.pydantic_ai import PlateauCapability  # noqa: E402

EXAMPLES = REPO / "examples" / "integrations"


@pytest.fixture(scope="module")
def example() -> Iterator[ModuleType]:
    sys.path.insert(0, str(EXAMPLES))
    try:
        import pydantic_ai_agent

        yield pydantic_ai_agent
    finally:
        sys.path.remove(str(EXAMPLES))


@pytest.fixture(scope="module")
def client(real_cached: Any) -> AsyncClient:
    """One in-process client on the real model for the whole module (each run has a fresh id)."""
    return AsyncClient.local(engine=Engine(embedder=real_cached))


def test_looping_agent_is_steered_by_a_retry_then_stopped(example: ModuleType, client: AsyncClient) -> None:
    async def main() -> tuple[dict[str, Any], int]:
        outcome = await example.run_agent(client, "loop")
        return outcome, (await client.get_run(outcome["run_id"])).steps

    outcome, stored = asyncio.run(main())
    assert outcome["actions"] == ["continue", "continue", "steer", "trip"]
    assert outcome["tripped"] is not None and "tool.repeat" in outcome["tripped"]["reasons"]
    assert outcome["steers"] and all(s.startswith(STEER_PREFIX) for s in outcome["steers"]) and outcome["steer_seen_by_model"]
    assert outcome["tools_run"] == 3 and stored == 3  # the 4th call was refused before it ran
    assert outcome["model_calls"] == 4  # no model request after the trip


@pytest.mark.parametrize("name", ["healthy", "poller"])
def test_healthy_agent_and_poller_are_never_steered(example: ModuleType, client: AsyncClient, name: str) -> None:
    outcome = asyncio.run(example.run_agent(client, name))
    assert outcome["tripped"] is None and outcome["output"]
    assert outcome["actions"] == ["continue"] * 9  # eight tool steps and the final answer
    assert outcome["steers"] == [] and not outcome["steer_seen_by_model"]


def test_steer_is_a_model_retry_carrying_the_result(example: ModuleType, client: AsyncClient) -> None:
    run = example.scenario("loop")
    seen: list[Any] = []
    plateau = PlateauCapability(client)
    agent = Agent(example.scripted_model(run, seen), tools=example.tool_functions(run), capabilities=[plateau])
    with pytest.raises(RunTripped):
        asyncio.run(agent.run("fix it"))
    parts = [p for request in seen[-1] for p in getattr(request, "parts", [])]
    retries = [p for p in parts if isinstance(p, (RetryPromptPart, ToolReturnPart)) and getattr(p, "outcome", "retried") == "retried"]
    assert len(retries) == 1 and retries[0].tool_call_id == "call_3"  # the steered call's result comes back as a retry ...
    assert str(retries[0].content).startswith(STEER_PREFIX) and "1 failed, 41 passed" in str(
        retries[0].content
    )  # ... steer first, result kept
    # the same capability on a second agent run: its own Plateau run
    again = example.scenario("loop")
    with pytest.raises(RunTripped):
        asyncio.run(Agent(example.scripted_model(again, []), tools=example.tool_functions(again), capabilities=[plateau]).run("x"))
    assert len(plateau.verdicts) == 2


def test_sync_client_over_grpc_without_check(example: ModuleType, hashing_server: str) -> None:
    """A sync client over a real socket; with check_before off every call runs, the observation trips, no model request follows."""
    with Client.remote(hashing_server) as remote:
        run = example.scenario("loop")
        seen: list[Any] = []
        plateau = PlateauCapability(remote, check_before=False)
        agent = Agent(example.scripted_model(run, seen), tools=example.tool_functions(run), capabilities=[plateau], retries=3)
        with pytest.raises(RunTripped) as info:
            agent.run_sync("fix it")
        ((run_id, verdicts),) = plateau.verdicts.items()
        assert verdicts[-1] == info.value.verdict and run.tool_calls == len(verdicts) == remote.get_run(run_id).steps
        assert len(seen) == len(verdicts)  # the model was not asked again after the trip
        returns = [p for request in seen[-1] for p in getattr(request, "parts", []) if isinstance(p, ToolReturnPart)]
        assert len(returns) == len(verdicts) - 1  # every call the model saw the answer to
        assert [str(p.content).startswith(STEER_PREFIX) for p in returns] == [v.action.value == "steer" for v in verdicts[:-1]]


def test_steer_with_no_retry_budget_leads_the_result(example: ModuleType, client: AsyncClient) -> None:
    """retries=0: a ModelRetry would fail the run, so the steer comes first in the call's result and the run goes on to the trip."""
    run = example.scenario("loop")
    seen: list[Any] = []
    plateau = PlateauCapability(client)
    agent = Agent(example.scripted_model(run, seen), tools=example.tool_functions(run), capabilities=[plateau], retries=0)
    with pytest.raises(RunTripped):
        asyncio.run(agent.run("fix it"))
    ((_, verdicts),) = plateau.verdicts.items()
    assert [v.action.value for v in verdicts] == ["continue", "continue", "steer", "trip"]
    returns = [p for request in seen[-1] for p in getattr(request, "parts", []) if isinstance(p, ToolReturnPart)]
    assert str(returns[-1].content).startswith(STEER_PREFIX) and returns[-1].outcome != "retried"
