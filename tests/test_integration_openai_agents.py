"""plateau.integrations.openai_agents: an Agents SDK run with a custom model, steered then stopped before a 4th failing call."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("agents")

from plateau import AsyncClient  # noqa: E402
from plateau.engine import Engine  # noqa: E402
from plateau.integrations import STEER_PREFIX  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _example() -> ModuleType:
    path = ROOT / "examples" / "integrations" / "openai_agents_hooks.py"
    spec = importlib.util.spec_from_file_location("example_openai_agents_hooks", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_agents_sdk_run_is_steered_then_stopped_before_the_call_runs(real_engine: Engine) -> None:
    """Three identical failing calls: the 3rd is steered (the steer reaches the model's next input), the 4th is refused by check."""
    example = _example()

    async def main() -> tuple[dict, int]:  # type: ignore[type-arg]
        client = AsyncClient.local(engine=real_engine)
        outcome = await example.run_agent(client)
        return outcome, (await client.get_run(outcome["run_id"])).steps

    outcome, stored = asyncio.run(main())
    assert outcome["tripped"] is not None and "tool.repeat" in outcome["tripped"]["reasons"]
    assert outcome["actions"] == ["continue", "continue", "steer", "trip"]
    assert outcome["steers"] and outcome["steer_seen_by_model"]
    assert all(steer.startswith(STEER_PREFIX) for steer in outcome["steers"])
    assert stored == 3  # the 4th call was refused before it ran: Plateau recorded three steps


def test_agents_sdk_hooks_over_grpc_in_observe_only_mode(hashing_server: str) -> None:
    """With raise_on_trip=False the run goes on to max_turns and every verdict is recorded, over a real socket."""
    example = _example()
    from agents import Agent, set_tracing_disabled
    from agents.exceptions import MaxTurnsExceeded

    from plateau.integrations.openai_agents import PlateauRunHooks

    async def main() -> list[str]:
        set_tracing_disabled(True)
        async with AsyncClient.remote(hashing_server) as client:
            hooks = PlateauRunHooks(client, raise_on_trip=False)
            agent = Agent(name="fixer", instructions="fix it", model=example.ScriptedModel(), tools=[example.run_tests])
            with pytest.raises(MaxTurnsExceeded):
                await hooks.run(agent, "fix it", max_turns=6)
            return [v.action.value for v in hooks.verdicts]

    actions = asyncio.run(main())
    assert len(actions) == 6 and actions[-1] == "trip" and "steer" in actions
