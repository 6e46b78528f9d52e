"""LangChain v1 middleware: Plateau in ``langchain.agents.create_agent``.

:class:`PlateauMiddleware` is an ``AgentMiddleware``::

    from langchain.agents import create_agent
    agent = create_agent(model, tools, middleware=[PlateauMiddleware(Client.remote("127.0.0.1:50051"))])

- ``wrap_tool_call``: checks each call before it runs (:meth:`~plateau.client.Client.check`);
  on a trip the tool does not run and the call gets a ``ToolMessage`` saying why (so no tool
  call is left without a result); else runs it and observes it with its result;
- ``after_model``: observes the model's final answer (a turn without tool calls) as a step;
- ``before_model``: hands a pending steer to the model as a ``HumanMessage`` named ``plateau``
  (text starting with :data:`~plateau.integrations.STEER_PREFIX`); after a trip it jumps to the
  end with an ``AIMessage`` named ``plateau`` saying why
  (:func:`~plateau.integrations.langgraph.trip_message`; the verdict in
  ``additional_kwargs["plateau"]``), or raises :class:`~plateau.integrations.RunTripped` with
  ``on_trip="raise"``; the model is not called again either way.

One Plateau run per conversation: ``"langchain-" + thread_id`` with a ``thread_id``, else a
fresh run id per conversation. The sync client serves ``invoke`` and ``ainvoke`` alike (async
hooks call it in a worker thread). Install with ``pip install "plateau-breaker[langchain]"``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from plateau.integrations import extra_missing

try:
    from langchain.agents.middleware import AgentMiddleware, AgentState, hook_config
    from typing_extensions import Unpack
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
    raise extra_missing(exc, "plateau.integrations.langchain", "LangChain v1", "langchain") from exc

from plateau.integrations.langgraph import GuardOptions, PlateauGuard
from plateau.types import Verdict

__all__ = ["PlateauMiddleware"]


class _Guard(PlateauGuard):
    name_prefix = "langchain"


class PlateauMiddleware(AgentMiddleware[AgentState[Any], Any, Any]):
    """An ``AgentMiddleware`` that sends an agent's tool calls and answers to Plateau.

    Parameters
    ----------
    client
        A :class:`~plateau.client.Client` (local or remote).
    **options
        The keyword options of :class:`~plateau.integrations.langgraph.PlateauGuard`
        (:class:`~plateau.integrations.langgraph.GuardOptions`), with the same defaults:
    context
        What the user asked; the first human message when None.
    check_before
        Check each tool call before it runs and refuse it on a trip.
    on_trip
        ``"end"`` (default: the run ends with a message saying why) or ``"raise"``
        (:class:`~plateau.integrations.RunTripped` out of ``invoke``).
    tool_policy
        Per-tool rules each run declares (:mod:`plateau.policy`).
    max_runs
        How many conversations are remembered (see :class:`~plateau.integrations.langgraph.PlateauGuard`).

    Attributes
    ----------
    verdicts, steers_injected
        Per run id: every verdict, and the steer messages handed to the model.
    """

    def __init__(self, client: Any, **options: Unpack[GuardOptions]) -> None:
        super().__init__()
        self.guard = _Guard(client, **options)
        self.tools = []

    @property
    def verdicts(self) -> dict[str, list[Verdict]]:
        return self.guard.verdicts

    @property
    def steers_injected(self) -> dict[str, list[str]]:
        return self.guard.steers_injected

    def _before(self, state: Any) -> dict[str, Any] | None:
        added, tripped = self.guard.before_model(state["messages"])
        if tripped is not None:
            return {"messages": added, "jump_to": "end"}
        return {"messages": added} if added else None

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: AgentState[Any], runtime: Any) -> dict[str, Any] | None:
        return self._before(state)

    @hook_config(can_jump_to=["end"])
    async def abefore_model(self, state: AgentState[Any], runtime: Any) -> dict[str, Any] | None:
        return await asyncio.to_thread(self._before, state)

    def _after(self, state: Any) -> dict[str, Any] | None:
        messages = state["messages"]
        last = messages[-1] if messages else None
        if getattr(last, "tool_calls", None):
            return None  # the calls are checked one by one in wrap_tool_call
        self.guard.after_model(messages)
        return None

    def after_model(self, state: AgentState[Any], runtime: Any) -> dict[str, Any] | None:
        return self._after(state)

    async def aafter_model(self, state: AgentState[Any], runtime: Any) -> dict[str, Any] | None:
        return await asyncio.to_thread(self._after, state)

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return self.guard.tool_call(request, handler)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return await self.guard.atool_call(request, handler)
