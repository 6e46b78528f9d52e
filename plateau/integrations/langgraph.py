"""A LangGraph node that guards an agent loop with Plateau: observe, steer, stop.

The usual tool-calling graph is ``agent → tools → agent …``. Plateau goes in two places:

- :meth:`PlateauNode.route`, the conditional edge after the agent node: ``END`` when the model
  made no tool call, else (with ``check_before``) it asks Plateau about each pending call
  before it runs (:meth:`~plateau.client.Client.check`) and stops the run on a trip, else
  ``"tools"``;
- the node itself (``graph.add_node("plateau", node)``) after the tools node: it observes the
  steps the last turn completed (the message list is converted with LangChain's
  ``convert_to_openai_messages`` and :class:`~plateau.integrations.openai.ChatRun`), and
  returns a steer as its own ``HumanMessage`` (named ``plateau``) for the agent's next call;
  :meth:`PlateauNode.after` routes back to the agent, or to ``END`` after a trip.

::

    node = PlateauNode(Client.remote("127.0.0.1:50051"))
    graph = StateGraph(MessagesState)
    graph.add_node("agent", call_model)
    graph.add_node("tools", ToolNode(tools))
    graph.add_node("plateau", node)
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", node.route, ["tools", END])
    graph.add_edge("tools", "plateau")
    graph.add_conditional_edges("plateau", node.after, ["agent", END])

On a trip the node raises :class:`~plateau.integrations.RunTripped` out of ``invoke``
(``on_trip="raise"``, the default), or with ``on_trip="end"`` appends an ``AIMessage`` named
``plateau`` whose ``additional_kwargs["plateau"]`` holds the verdict and ends the graph. Each
graph thread (``config["configurable"]["thread_id"]``) is its own Plateau run. Install with
``pip install "plateau-breaker[langgraph]"``.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, Literal

try:
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, convert_to_openai_messages
    from langchain_core.runnables import RunnableConfig
    from langgraph.graph import END
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
    raise ModuleNotFoundError(
        f'plateau.integrations.langgraph needs LangGraph ({exc.name} is missing): pip install "plateau-breaker[langgraph]"',
        name=exc.name,
    ) from exc

from plateau.integrations import STEER_PREFIX, RunTripped, steer_text
from plateau.integrations.openai import ChatRun
from plateau.types import Action, Verdict

__all__ = ["PlateauNode"]


def _messages(state: Any) -> list[BaseMessage]:
    messages = state.get("messages") if isinstance(state, dict) else getattr(state, "messages", None)
    if not isinstance(messages, list):
        raise ValueError("state: a PlateauNode needs a 'messages' list in the graph state (MessagesState)")
    return messages


def _is_trip(message: BaseMessage) -> bool:
    info = message.additional_kwargs.get("plateau") if isinstance(message, AIMessage) else None
    return isinstance(info, dict) and info.get("action") == "trip"


class PlateauNode:
    """A LangGraph node (and two routing functions) that send an agent's steps to Plateau.

    Parameters
    ----------
    client
        A :class:`~plateau.client.Client` (local or remote).
    run_id
        The Plateau run id of a graph invoked without a ``thread_id``; a fresh one when None.
        With a ``thread_id``, the run id is ``"langgraph-" + thread_id``.
    context
        What the user asked; the first human message when None.
    check_before
        In :meth:`route`, check each tool call before it runs.
    on_trip
        ``"raise"`` (:class:`~plateau.integrations.RunTripped` out of ``invoke``) or ``"end"``
        (a ``plateau`` message with the verdict, then ``END``).
    tool_policy
        Per-tool rules each run declares (:mod:`plateau.policy`).

    Attributes
    ----------
    verdicts
        Every verdict (checks that tripped included), per run id.
    """

    def __init__(
        self,
        client: Any,
        *,
        run_id: str | None = None,
        context: str | None = None,
        check_before: bool = True,
        on_trip: Literal["raise", "end"] = "raise",
        tool_policy: Mapping[str, Any] | None = None,
    ) -> None:
        if on_trip not in ("raise", "end"):
            raise ValueError(f"on_trip: must be 'raise' or 'end', got {on_trip!r}")
        self.client = client
        self.run_id = run_id
        self.context = context
        self.check_before = check_before
        self.on_trip = on_trip
        self.tool_policy = tool_policy
        self.verdicts: dict[str, list[Verdict]] = {}
        self._runs: dict[str, ChatRun] = {}
        self._lock = threading.Lock()

    def _run(self, config: RunnableConfig | None) -> ChatRun:
        thread = ((config or {}).get("configurable") or {}).get("thread_id")
        with self._lock:
            key = f"langgraph-{thread}" if thread is not None else (self.run_id or "")
            run = self._runs.get(key)
            if run is None:
                run = ChatRun(self.client, key or None, self.context, raise_on_trip=False, tool_policy=self.tool_policy)
                self._runs[key] = run
                self.verdicts[run.run_id] = []
            return run

    def _tripped(self, run: ChatRun, verdict: Verdict) -> dict[str, Any]:
        if self.on_trip == "raise":
            raise RunTripped(verdict)
        text = f"{STEER_PREFIX}stopped this run: {verdict.message or ', '.join(verdict.reasons)}"
        return {"messages": [AIMessage(content=text, name="plateau", additional_kwargs={"plateau": verdict.as_dict()})]}

    def __call__(self, state: Any, config: RunnableConfig) -> dict[str, Any]:
        """Observe the steps completed since the last call; a steer message, a trip, or nothing."""
        run = self._run(config)
        verdict = run.update(convert_to_openai_messages(_messages(state)))
        if verdict is None:
            return {}
        self.verdicts[run.run_id].append(verdict)
        if verdict.action is Action.TRIP:
            return self._tripped(run, verdict)
        if verdict.action is Action.STEER and verdict.message:
            return {"messages": [HumanMessage(content=steer_text(verdict.message), name="plateau")]}
        return {}

    def route(self, state: Any, config: RunnableConfig) -> str:
        """After the agent node: ``"tools"`` for tool calls Plateau lets through, else ``END``.

        Raises :class:`~plateau.integrations.RunTripped` when a checked call would trip and
        ``on_trip`` is ``"raise"``.
        """
        messages = _messages(state)
        last = messages[-1] if messages else None
        calls = getattr(last, "tool_calls", None) or []
        if not calls:
            return END
        if self.check_before:
            run = self._run(config)
            text = last.content if isinstance(last, AIMessage) and isinstance(last.content, str) else ""
            for n, call in enumerate(calls):
                verdict = run.check_call(str(call.get("name") or "tool"), call.get("args") or {}, text if n == 0 else "")
                if verdict.action is Action.TRIP:
                    self.verdicts[run.run_id].append(verdict)
                    if self.on_trip == "raise":
                        raise RunTripped(verdict)
                    return END
        return "tools"

    def after(self, state: Any) -> str:
        """After this node: ``END`` once the run tripped (``on_trip="end"``), else ``"agent"``."""
        messages = _messages(state)
        return END if messages and _is_trip(messages[-1]) else "agent"
