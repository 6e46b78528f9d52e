"""Run hooks and a tool guardrail for the OpenAI Agents SDK (``openai-agents``): observe, steer, stop.

:class:`PlateauRunHooks` goes where the SDK's own run hooks go, on ``Runner.run`` and
``Runner.run_streamed``::

    hooks = PlateauRunHooks(AsyncClient.remote("127.0.0.1:50051"), context=task)
    try:
        result = await Runner.run(agent, task, hooks=hooks)
        # or: streamed = Runner.run_streamed(agent, task, hooks=hooks)
        #     async for event in streamed.stream_events(): ...
    except RunTripped as trip:
        print("stopped:", trip.verdict.message)

What it does with the SDK's hooks:

- ``on_agent_start``: attaches :data:`TOOL_GUARDRAIL`, a tool input guardrail, to the agent's
  function tools (once; it does nothing in a run without a :class:`PlateauRunHooks`). Before
  each call runs the guardrail asks Plateau what it would say
  (:meth:`~plateau.aio.AsyncClient.check`); on a trip it rejects the call with
  ``ToolGuardrailFunctionOutput.reject_content(message)``: the tool does not run, the model's
  call gets the message (``[Plateau] stopped this run: …``) as its result, and the run stops
  before the next model call. A call that failed the same way three times is not run a fourth.
- ``on_llm_end``: remembers the model's text of the turn (the narration of its tool calls); a
  turn without a tool call is a step of its own;
- ``on_tool_end``: observes the step (tool name, arguments, result). A steer is queued; a trip
  stops the run before the next model call (the call that tripped has its result, so the
  transcript has no call without an output);
- ``on_llm_start``: appends a queued steer to the model's input items as its own user message
  (the SDK hands the hook the very list it sends to the model), or raises
  :class:`RunTripped` after a trip. The exception is the SDK's own kind
  (:class:`AgentsRunTripped` is both :class:`~plateau.integrations.RunTripped` and
  ``agents.exceptions.AgentsException``), so ``Runner.run`` and ``stream_events`` raise it
  as it is, never wrapped in ``UserError``.

``hooks.tripped`` holds the trip verdict however the run was started. Parallel tool calls are
observed one at a time, in the order they finish. Install with
``pip install "plateau-breaker[openai-agents]"``.
"""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import Mapping
from typing import Any

from plateau.integrations import RunTripped, extra_missing, steer_text, trip_text

try:
    from agents import FunctionTool, RunConfig, RunHooks, ToolGuardrailFunctionOutput, ToolInputGuardrailData, tool_input_guardrail
    from agents.exceptions import AgentsException
    from agents.run_config import CallModelData, ModelInputData
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
    raise extra_missing(exc, "plateau.integrations.openai_agents", "the OpenAI Agents SDK", "openai-agents") from exc

from plateau.types import Action, Verdict

__all__ = ["TOOL_GUARDRAIL", "AgentsRunTripped", "PlateauRunHooks"]


class AgentsRunTripped(RunTripped, AgentsException):
    """:class:`~plateau.integrations.RunTripped` that is also the SDK's ``AgentsException``, so
    the SDK re-raises it unchanged (it wraps any other exception from a hook or tool in
    ``UserError``). Catch it as ``RunTripped``."""

    def __init__(self, verdict: Verdict) -> None:
        RunTripped.__init__(self, verdict)
        self.run_data = None


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


# A run's hooks, found from a tool's context: the SDK copies the run context's fields (its
# ``usage`` object among them) into each ToolContext, so the usage object names the run.
_RUNS: dict[int, tuple[weakref.ref[Any], weakref.ref[PlateauRunHooks]]] = {}


def _register(context: Any, hooks: PlateauRunHooks) -> None:
    usage = getattr(context, "usage", None)
    if usage is None:
        return
    for key in [k for k, (u, h) in _RUNS.items() if u() is None or h() is None]:
        del _RUNS[key]
    _RUNS[id(usage)] = (weakref.ref(usage), weakref.ref(hooks))


def _hooks_of(context: Any) -> PlateauRunHooks | None:
    usage = getattr(context, "usage", None)
    entry = _RUNS.get(id(usage)) if usage is not None else None
    if entry is None or entry[0]() is not usage:
        return None
    return entry[1]()


@tool_input_guardrail(name="plateau")
async def TOOL_GUARDRAIL(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
    """The pre-call check as a tool input guardrail: rejects a call Plateau would trip on, with
    the reason as the call's result; allows every call of a run without a PlateauRunHooks."""
    hooks = _hooks_of(data.context)
    if hooks is None:
        return ToolGuardrailFunctionOutput.allow()
    return await hooks.guard_call(data.context)


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
        Check each call before it runs (through :data:`TOOL_GUARDRAIL`) and refuse it when the
        answer is a trip.
    raise_on_trip
        Stop the run with :class:`AgentsRunTripped` on a trip (default). False records the
        verdicts and lets the run go on (observe-only mode: nothing refused, nothing injected
        but steers).
    tool_policy
        Per-tool rules the run declares (:mod:`plateau.policy`).

    Attributes
    ----------
    session
        The :class:`~plateau.session.AsyncRunSession` (run id, next index, last verdict).
    verdicts
        Every verdict of the run, in order (a check that tripped included).
    steers_injected
        The steer messages handed to the model so far.
    refused
        The tool call ids the guardrail refused.
    tripped
        The verdict that tripped the run, or None.
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
        self.refused: list[str] = []
        self.tripped: Verdict | None = None
        self._text = ""
        self._steer: str | None = None
        self._lock = asyncio.Lock()

    # ---------------------------------------------------------------- acting on verdicts
    def _act(self, verdict: Verdict) -> None:
        self.verdicts.append(verdict)
        if verdict.action is Action.TRIP and self.raise_on_trip:
            self.tripped = self.tripped or verdict
        elif verdict.action is Action.STEER and verdict.message:
            self._steer = verdict.message

    def _raise_if_tripped(self) -> None:
        if self.tripped is not None and self.raise_on_trip:
            raise AgentsRunTripped(self.tripped)

    async def _observe(self, step: dict[str, Any]) -> Verdict:
        async with self._lock:  # parallel calls finish concurrently; steps are numbered one at a time
            verdict: Verdict = await self.session.observe(step)
        self._act(verdict)
        return verdict

    def _take_steer(self) -> str | None:
        if self._steer is None:
            return None
        message = steer_text(self._steer)
        self._steer = None
        self.steers_injected.append(message)
        return message

    async def guard_call(self, tool_context: Any) -> ToolGuardrailFunctionOutput:
        """What :data:`TOOL_GUARDRAIL` answers for a call of this run: a rejection carrying
        :func:`~plateau.integrations.trip_text` when Plateau's check trips (and ``raise_on_trip``), else allow."""
        if not self.check_before or not self.raise_on_trip:
            return ToolGuardrailFunctionOutput.allow()
        if self.tripped is not None:  # a parallel call already tripped the run
            self.refused.append(str(getattr(tool_context, "tool_call_id", "")))
            return ToolGuardrailFunctionOutput.reject_content(trip_text(self.tripped))
        name = getattr(tool_context, "tool_name", None) or "tool"
        step = {"text": self._text, "tool": name, "args": _args(getattr(tool_context, "tool_arguments", None))}
        verdict: Verdict = await self.session.check(step)
        if verdict.action is not Action.TRIP:
            return ToolGuardrailFunctionOutput.allow(output_info=verdict.as_dict())
        self.verdicts.append(verdict)
        self.tripped = verdict
        self.refused.append(str(getattr(tool_context, "tool_call_id", "")))
        return ToolGuardrailFunctionOutput.reject_content(trip_text(verdict), output_info=verdict.as_dict())

    # ---------------------------------------------------------------- compatibility
    def input_filter(self, data: CallModelData[Any]) -> ModelInputData:
        """``RunConfig.call_model_input_filter`` that appends a pending steer (kept for runs
        that pass it; ``on_llm_start`` does the same without it)."""
        message = self._take_steer()
        model_data = data.model_data
        if message is None:
            return model_data
        return ModelInputData(input=[*model_data.input, {"role": "user", "content": message}], instructions=model_data.instructions)

    def run_config(self, **kwargs: Any) -> RunConfig:
        """A ``RunConfig`` with ``kwargs`` (kept for callers of earlier versions)."""
        return RunConfig(**kwargs)

    async def run(self, agent: Any, input: Any, *, run_config: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        """``Runner.run(agent, input, hooks=self, run_config=RunConfig(**run_config), **kwargs)``."""
        from agents import Runner

        return await Runner.run(agent, input, hooks=self, run_config=self.run_config(**(run_config or {})), **kwargs)

    # ---------------------------------------------------------------- SDK hooks
    async def on_agent_start(self, context: Any, agent: Any) -> None:
        _register(context, self)
        for tool in getattr(agent, "tools", None) or []:
            if isinstance(tool, FunctionTool):
                guardrails = tool.tool_input_guardrails
                if guardrails is None:
                    tool.tool_input_guardrails = [TOOL_GUARDRAIL]
                elif TOOL_GUARDRAIL not in guardrails:
                    guardrails.append(TOOL_GUARDRAIL)

    async def on_llm_start(self, context: Any, agent: Any, system_prompt: str | None, input_items: list[Any]) -> None:
        _register(context, self)
        self._raise_if_tripped()
        message = self._take_steer()
        if message is not None:
            input_items.append({"role": "user", "content": message})

    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
        text = _response_text(response)
        if _has_calls(response):
            self._text = text
        elif text:
            await self._observe({"text": text})
            self._raise_if_tripped()

    async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: object) -> None:
        name = getattr(context, "tool_name", None) or getattr(tool, "name", "tool")
        text, self._text = self._text, ""
        await self._observe({"text": text, "tool": name, "args": _args(getattr(context, "tool_arguments", None)), "result": str(result)})

    async def on_agent_end(self, context: Any, agent: Any, output: Any) -> None:
        self._raise_if_tripped()
