"""A Pydantic AI capability: Plateau on an agent's model responses and tool calls.

:class:`PlateauCapability` is a capability (``pydantic_ai.capabilities.AbstractCapability``, the
interface the ``pydantic-ai-harness`` capabilities are built on)::

    agent = Agent(model, tools=[...], capabilities=[PlateauCapability(AsyncClient.remote("127.0.0.1:50051"))])
    try:
        result = await agent.run(task)
    except RunTripped as trip:
        print("stopped:", trip.verdict.message)

- ``after_model_request``: remembers the model's text of the turn (the narration of its tool
  calls); a response without a tool call is a step of its own;
- ``before_tool_execute``: asks Plateau what it would say about the call before it runs
  (:meth:`~plateau.aio.AsyncClient.check`); on a trip the tool is not run
  (``SkipToolExecution``): the call gets ``[Plateau] stopped this run: …`` as its result, and
  the run stops before the next model request;
- ``after_tool_execute``: observes the step (tool, arguments, result). A steer becomes a
  ``ModelRetry`` whose message is the steer (``[Plateau] …``) followed by the tool's result, so
  the model reads both; it counts against the tool's retry budget (``Agent(retries=…)``), and
  once that is spent the steer leads the returned result instead of failing the run. A trip
  lets the result through and stops the run before the next model request;
- ``before_model_request``: after a trip, raises :class:`~plateau.integrations.RunTripped` out of
  ``agent.run`` (every tool call of the history has its result; nothing more is sent to the model).

Each agent run is its own Plateau run (``for_run`` gives each run a fresh session);
``verdicts`` and ``steers_injected`` hold them per run id. The client may be an
:class:`~plateau.aio.AsyncClient` or a :class:`~plateau.client.Client` (called in a worker
thread). Install with ``pip install "plateau-breaker[pydantic-ai]"``.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from plateau.integrations import RunTripped, extra_missing, steer_text, trip_text

try:
    from pydantic_ai import ModelRetry
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.exceptions import SkipToolExecution
    from pydantic_ai.messages import TextPart, ToolCallPart
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
    raise extra_missing(exc, "plateau.integrations.pydantic_ai", "Pydantic AI", "pydantic-ai") from exc

from plateau.session import new_run_id
from plateau.types import Action, Verdict

__all__ = ["PlateauCapability"]


async def _ask(method: Any, step: Mapping[str, Any]) -> Verdict:
    """``method(step)`` of an async session, or of a sync one in a worker thread."""
    if inspect.iscoroutinefunction(method):
        verdict: Verdict = await method(dict(step))
    else:
        verdict = await asyncio.to_thread(method, dict(step))
    return verdict


def _text(response: Any) -> str:
    return "\n".join(p.content for p in response.parts if isinstance(p, TextPart) and p.content).strip()


@dataclass
class PlateauCapability(AbstractCapability[Any]):
    """Observe, steer and stop a Pydantic AI agent with Plateau.

    Parameters
    ----------
    client
        An :class:`~plateau.aio.AsyncClient` or :class:`~plateau.client.Client` (local or remote).
    context
        What the user asked (sent with the steps); the run's prompt when None.
    check_before
        Check each tool call before it runs and refuse it on a trip.
    raise_on_trip
        Stop the run on a trip (default). False records verdicts only (steers still retry).
    tool_policy
        Per-tool rules each run declares (:mod:`plateau.policy`).

    Attributes
    ----------
    verdicts
        Per run id, every verdict in order (a check that tripped included).
    steers_injected
        Per run id, the steer messages handed to the model.
    """

    client: Any
    context: str | None = None
    check_before: bool = True
    raise_on_trip: bool = True
    tool_policy: Mapping[str, Any] | None = None
    verdicts: dict[str, list[Verdict]] = field(default_factory=dict)
    steers_injected: dict[str, list[str]] = field(default_factory=dict)
    session: Any = field(default=None, repr=False)
    tripped: Verdict | None = field(default=None, repr=False)
    _text: str = field(default="", repr=False)
    _lock: asyncio.Lock | None = field(default=None, repr=False)

    async def for_run(self, ctx: Any) -> PlateauCapability:
        """A per-run instance: its own Plateau session (run id ``pydantic-ai-…``), sharing
        ``verdicts`` and ``steers_injected`` with this one."""
        context = self.context if self.context is not None else (ctx.prompt if isinstance(ctx.prompt, str) else None)
        session = self.client.session(new_run_id("pydantic-ai"), context, tool_policy=self.tool_policy)
        self.verdicts[session.run_id] = []
        self.steers_injected[session.run_id] = []
        return replace(self, session=session, tripped=None, _text="", _lock=asyncio.Lock())

    def _record(self, verdict: Verdict) -> None:
        self.verdicts[self.session.run_id].append(verdict)
        if verdict.action is Action.TRIP and self.raise_on_trip:
            self.tripped = self.tripped or verdict

    async def before_model_request(self, ctx: Any, request_context: Any) -> Any:
        if self.tripped is not None:
            raise RunTripped(self.tripped)
        return request_context

    async def after_model_request(self, ctx: Any, *, request_context: Any, response: Any) -> Any:
        text = _text(response)
        if any(isinstance(p, ToolCallPart) for p in response.parts):
            self._text = text
        elif text:
            assert self._lock is not None
            async with self._lock:
                self._record(await _ask(self.session.observe, {"text": text}))
        return response

    def _step(self, call: Any, args: Any) -> dict[str, Any]:
        args = args if isinstance(args, Mapping) else call.args_as_dict()
        return {"text": self._text, "tool": call.tool_name, "args": dict(args)}

    async def before_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any) -> Any:
        if self.tripped is not None:  # a call of the same turn tripped: refuse the rest
            raise SkipToolExecution(trip_text(self.tripped))
        if self.check_before and self.raise_on_trip:
            verdict = await _ask(self.session.check, self._step(call, args))
            if verdict.action is Action.TRIP:
                self._record(verdict)
                raise SkipToolExecution(trip_text(verdict))
        return args

    async def after_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, result: Any) -> Any:
        step = {**self._step(call, args), "result": str(result)}
        assert self._lock is not None
        async with self._lock:  # parallel calls finish concurrently; steps are numbered one at a time
            self._text = ""  # the narration goes with the first call of the turn
            verdict = await _ask(self.session.observe, step)
            self._record(verdict)
        if verdict.action is Action.STEER and verdict.message:
            message = steer_text(verdict.message)
            self.steers_injected[self.session.run_id].append(message)
            if getattr(ctx, "retry", 0) < getattr(ctx, "max_retries", 1):
                raise ModelRetry(f"{message}\n\nThe call's result:\n{result}")
            # the tool's retry budget is spent (a retry now would fail the run): the steer leads the result instead
            return f"{message}\n\nThe call's result:\n{result}"
        return result
