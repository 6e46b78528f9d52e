"""Run hooks for the OpenAI Agents SDK (``openai-agents``): observe, steer, stop.

:class:`PlateauRunHooks` watches an ``agents`` run through the SDK's own lifecycle hooks:

- ``on_llm_end``: remembers the model's text of the turn (the narration of its tool calls);
  a turn without a tool call is a step of its own;
- ``on_tool_start``: with ``check_before`` (default), asks Plateau what it would say about
  this call before it runs (:meth:`~plateau.aio.AsyncClient.check`) and stops the run when
  that is a trip: a call that failed the same way three times is not run a fourth time;
- ``on_tool_end``: observes the step (tool name, arguments, result) and acts on the verdict:
  a steer is queued and injected into the next model call as its own input message, through
  the run config's ``call_model_input_filter``; a trip raises
  :class:`~plateau.integrations.RunTripped` out of ``Runner.run``.

Use it with an :class:`~plateau.aio.AsyncClient` (local or remote)::

    hooks = PlateauRunHooks(AsyncClient.remote("127.0.0.1:50051"), context=task)
    try:
        result = await hooks.run(agent, task)      # Runner.run with these hooks and run config
    except RunTripped as trip:
        print("stopped:", trip.verdict.message)

The SDK wraps an exception raised inside a tool's hooks in its own ``UserError``;
:meth:`PlateauRunHooks.run` unwraps it, and ``hooks.tripped`` holds the trip verdict however
the run was started.

Parallel tool calls are observed one at a time, in the order they finish. Install with
``pip install "plateau-breaker[openai-agents]"``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

try:
    from agents import RunConfig, RunHooks
    from agents.run_config import CallModelData, ModelInputData
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
    raise ModuleNotFoundError(
        f"plateau.integrations.openai_agents needs the OpenAI Agents SDK ({exc.name} is missing): "
        'pip install "plateau-breaker[openai-agents]"',
        name=exc.name,
    ) from exc

from plateau.integrations import RunTripped, steer_text
from plateau.types import Action, Verdict

__all__ = ["PlateauRunHooks"]


def _response_text(response: Any) -> str:
    """The text of a model response's message items."""
    parts: list[str] = []
    for item in getattr(response, "output", None) or []:
        if getattr(item, "type", None) == "message":
            for content in getattr(item, "content", None) or []:
                text = getattr(content, "text", None)
                if isinstance(text, str):
                    parts.append(text)
    return "\n".join(parts).strip()


def _has_calls(response: Any) -> bool:
    return any(getattr(item, "type", None) == "function_call" for item in getattr(response, "output", None) or [])


def _args(raw: object) -> object:
    if isinstance(raw, str):
        try:
            return json.loads(raw) if raw.strip() else {}
        except ValueError:
            return {"_raw": raw}
    return raw or {}


class PlateauRunHooks(RunHooks[Any]):
    """``RunHooks`` that send each tool call and each turn of an Agents SDK run to Plateau.

    Parameters
    ----------
    client
        An :class:`~plateau.aio.AsyncClient` (local or remote).
    run_id
        The Plateau run id; a fresh one when None.
    context
        What the user asked (sent with the steps).
    check_before
        Check each call before it runs and stop the run when the answer is a trip.
    raise_on_trip
        Raise :class:`~plateau.integrations.RunTripped` on a trip (default). False records the
        verdict and lets the run go on (observe-only mode).
    tool_policy
        Per-tool rules the run declares (:mod:`plateau.policy`).

    Attributes
    ----------
    session
        The :class:`~plateau.session.AsyncRunSession` (run id, next index, last verdict).
    verdicts
        Every verdict of the run, in order.
    steers_injected
        The steer messages handed to the model so far.
    """

    def __init__(
        self,
        client: Any,
        run_id: str | None = None,
        context: str | None = None,
        *,
        check_before: bool = True,
        raise_on_trip: bool = True,
        tool_policy: Mapping[str, Any] | None = None,
    ) -> None:
        self.session = client.session(run_id, context, tool_policy=tool_policy)
        self.check_before = check_before
        self.raise_on_trip = raise_on_trip
        self.verdicts: list[Verdict] = []
        self.steers_injected: list[str] = []
        self.tripped: Verdict | None = None
        self._text = ""
        self._steer: str | None = None
        self._lock = asyncio.Lock()

    # ---------------------------------------------------------------- acting on verdicts
    def _act(self, verdict: Verdict) -> None:
        self.verdicts.append(verdict)
        if verdict.action is Action.TRIP and self.raise_on_trip:
            self.tripped = verdict
            raise RunTripped(verdict)
        if verdict.action is Action.STEER and verdict.message:
            self._steer = verdict.message

    async def _observe(self, step: dict[str, Any]) -> Verdict:
        async with self._lock:  # parallel calls finish concurrently; steps are numbered one at a time
            verdict: Verdict = await self.session.observe(step)
        self._act(verdict)
        return verdict

    def input_filter(self, data: CallModelData[Any]) -> ModelInputData:
        """``RunConfig.call_model_input_filter``: appends a pending steer to the model's input
        as its own user message (once)."""
        model_data = data.model_data
        if self._steer is None:
            return model_data
        message = steer_text(self._steer)
        self._steer = None
        self.steers_injected.append(message)
        return ModelInputData(input=[*model_data.input, {"role": "user", "content": message}], instructions=model_data.instructions)

    def run_config(self, **kwargs: Any) -> RunConfig:
        """A ``RunConfig`` (``kwargs`` passed through) whose input filter injects steers."""
        return RunConfig(call_model_input_filter=self.input_filter, **kwargs)

    async def run(self, agent: Any, input: Any, *, run_config: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        """``Runner.run(agent, input, hooks=self, run_config=self.run_config(**run_config), **kwargs)``,
        raising :class:`~plateau.integrations.RunTripped` itself (not the SDK's wrapper) on a trip."""
        from agents import Runner

        try:
            return await Runner.run(agent, input, hooks=self, run_config=self.run_config(**(run_config or {})), **kwargs)
        except Exception as exc:
            cause: BaseException | None = exc
            while cause is not None and not isinstance(cause, RunTripped):
                cause = cause.__cause__ or cause.__context__
            if cause is not None:
                raise cause from None
            raise

    # ---------------------------------------------------------------- SDK hooks
    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
        text = _response_text(response)
        if _has_calls(response):
            self._text = text
        elif text:
            await self._observe({"text": text})

    async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
        if not self.check_before:
            return
        name = getattr(context, "tool_name", None) or getattr(tool, "name", "tool")
        step = {"text": self._text, "tool": name, "args": _args(getattr(context, "tool_arguments", None))}
        verdict: Verdict = await self.session.check(step)
        if verdict.action is Action.TRIP and self.raise_on_trip:
            self.verdicts.append(verdict)
            self.tripped = verdict
            raise RunTripped(verdict)

    async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: object) -> None:
        name = getattr(context, "tool_name", None) or getattr(tool, "name", "tool")
        text, self._text = self._text, ""
        await self._observe({"text": text, "tool": name, "args": _args(getattr(context, "tool_arguments", None)), "result": str(result)})
