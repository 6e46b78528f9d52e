"""A LangGraph node that guards an agent loop with Plateau: observe, steer, stop.

The usual tool-calling graph is ``agent → tools → agent …``. Plateau goes in two places:

- :meth:`PlateauNode.route`, the conditional edge after the agent node: ``END`` when the model
  made no tool call, else (with ``check_before``) it asks Plateau about each pending call
  before it runs (:meth:`~plateau.client.Client.check`); on a trip it routes to the Plateau
  node, which answers each call with a ``ToolMessage`` saying it was refused and ends the run;
  else ``"tools"``;
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
    graph.add_conditional_edges("agent", node.route, ["tools", "plateau", END])
    graph.add_edge("tools", "plateau")
    graph.add_conditional_edges("plateau", node.after, ["agent", END])

On a trip the node raises :class:`~plateau.integrations.RunTripped` out of ``invoke``
(``on_trip="raise"``, the default), or with ``on_trip="end"`` appends an ``AIMessage`` named
``plateau`` saying why (:func:`trip_message`; ``additional_kwargs["plateau"]`` holds the verdict)
and ends the graph; a call refused before it ran gets its ``ToolMessage`` first, so no call is
left without a result. Each
graph thread (``config["configurable"]["thread_id"]``) is its own Plateau run.

:class:`PlateauGuard` guards LangGraph's prebuilt ``create_react_agent`` in one line::

    agent = PlateauGuard(Client.remote("127.0.0.1:50051")).react_agent(model, tools)

It builds the agent with a ``ToolNode`` whose tool-call wrapper observes each call with its
result, a ``pre_model_hook`` that hands a steer to the model as a ``HumanMessage`` named
``plateau``, and a ``post_model_hook`` that checks the model's new tool calls before they run.
On a trip every pending call gets a ``ToolMessage`` saying it was refused and the run ends with an
``AIMessage`` named ``plateau`` saying why (``additional_kwargs["plateau"]`` holds the verdict),
so no tool call is left without a result; ``on_trip="raise"`` raises
:class:`~plateau.integrations.RunTripped` instead. LangChain's ``create_agent`` takes the same
guard as middleware (:mod:`plateau.integrations.langchain`). Install with
``pip install "plateau-breaker[langgraph]"``.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from plateau.integrations import RunTripped, extra_missing, steer_text, trip_text

try:
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage, convert_to_openai_messages
    from langchain_core.runnables import RunnableConfig
    from langgraph.config import get_config
    from langgraph.graph import END
    from langgraph.types import Command
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
    raise extra_missing(exc, "plateau.integrations.langgraph", "LangGraph", "langgraph") from exc

from plateau.integrations.openai import ChatRun
from plateau.session import new_run_id
from plateau.types import Action, Verdict

__all__ = ["GuardOptions", "PlateauGuard", "PlateauNode", "trip_message"]


def _messages(state: Any) -> list[BaseMessage]:
    messages = state.get("messages") if isinstance(state, dict) else getattr(state, "messages", None)
    if not isinstance(messages, list):
        raise ValueError("state: a PlateauNode needs a 'messages' list in the graph state (MessagesState)")
    return messages


def trip_message(verdict: Verdict) -> AIMessage:
    """The message a trip leaves in the conversation: an ``AIMessage`` named ``plateau`` with
    :func:`~plateau.integrations.trip_text` as content and the verdict (``Verdict.as_dict()``) in
    ``additional_kwargs["plateau"]``."""
    return AIMessage(content=trip_text(verdict), name="plateau", additional_kwargs={"plateau": verdict.as_dict()})


def _is_trip(message: BaseMessage) -> bool:
    info = message.additional_kwargs.get("plateau") if isinstance(message, AIMessage) else None
    return isinstance(info, dict) and info.get("action") == "trip"


class _Guarding:
    """What :class:`PlateauNode` and :class:`PlateauGuard` are both configured with."""

    client: Any
    context: str | None
    check_before: bool
    on_trip: Literal["raise", "end"]
    tool_policy: Mapping[str, Any] | None
    verdicts: dict[str, list[Verdict]]

    def _configure(
        self, client: Any, context: str | None, check_before: bool, on_trip: Literal["raise", "end"], tool_policy: Mapping[str, Any] | None
    ) -> None:
        """Keep the settings and start with no verdicts; ``ValueError`` naming ``on_trip``
        unless it is ``"raise"`` or ``"end"``."""
        if on_trip not in ("raise", "end"):
            raise ValueError(f"on_trip: must be 'raise' or 'end', got {on_trip!r}")
        self.client, self.context, self.check_before = client, context, check_before
        self.on_trip, self.tool_policy = on_trip, tool_policy
        self.verdicts = {}
        self._lock = threading.Lock()


class PlateauNode(_Guarding):
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
        self._configure(client, context, check_before, on_trip, tool_policy)
        self.run_id = run_id
        self._runs: dict[str, ChatRun] = {}
        self._refused: dict[str, Verdict] = {}

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
        return {"messages": [trip_message(verdict)]}

    def __call__(self, state: Any, config: RunnableConfig) -> dict[str, Any]:
        """Observe the steps completed since the last call; a steer message, a trip, or nothing."""
        run = self._run(config)
        refused = self._refused.pop(run.run_id, None)
        if refused is not None:  # route refused the model's calls: answer each, then end
            messages = _messages(state)
            answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
            calls = [c for c in getattr(messages[-1], "tool_calls", None) or [] if c.get("id") not in answered]
            return {"messages": [*(PlateauGuard._refusal(c, refused) for c in calls), trip_message(refused)]}
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
        """After the agent node: ``"tools"`` for tool calls Plateau lets through, ``END`` after
        a turn without calls, ``"plateau"`` (this node, which refuses the calls and ends the run)
        when a checked call would trip.

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
                    self._refused[run.run_id] = verdict
                    return "plateau"
        return "tools"

    def after(self, state: Any) -> str:
        """After this node: ``END`` once the run tripped (``on_trip="end"``), else ``"agent"``."""
        messages = _messages(state)
        return END if messages and _is_trip(messages[-1]) else "agent"


# ------------------------------------------------------------------------------------------
# A guard on the tool calls and model turns of a prebuilt agent (create_react_agent here,
# create_agent through plateau.integrations.langchain): one Plateau run per conversation.


def _text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content.strip()
    parts = [c.get("text", "") if isinstance(c, dict) else str(c) for c in content]
    return "\n".join(p for p in parts if isinstance(p, str) and p).strip()


def _tool_output(result: Any) -> str:
    """The text of a tool's result (a ``ToolMessage``, or the one a ``Command`` carries)."""
    if isinstance(result, Command):
        update = result.update if isinstance(result.update, dict) else {}
        messages = [m for m in update.get("messages", []) if isinstance(m, ToolMessage)]
        return "\n".join(_text(m) for m in messages)
    if isinstance(result, ToolMessage):
        return _text(result)
    return str(result)


@dataclass
class _Run:
    session: Any
    steer: str | None = None
    tripped: Verdict | None = None
    verdicts: list[Verdict] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class GuardOptions(TypedDict, total=False):
    """The keyword options of :class:`PlateauGuard`, which the LangChain middleware
    (:class:`~plateau.integrations.langchain.PlateauMiddleware`) passes on as they are."""

    context: str | None
    check_before: bool
    on_trip: Literal["raise", "end"]
    tool_policy: Mapping[str, Any] | None
    max_runs: int


class PlateauGuard(_Guarding):
    """Plateau on a prebuilt agent's tool calls and model turns: check, observe, steer, stop.

    One Plateau run per conversation: ``"langgraph-" + thread_id`` when the graph runs with a
    ``thread_id``, else a fresh run id per conversation (the id LangGraph gave its first
    message). Steps are observed from the tool-call wrapper (a tool call with its result, the
    model's text with the first call of its turn) and from the model's final answer.

    Parameters
    ----------
    client
        A :class:`~plateau.client.Client` (local or remote). Async graphs (``ainvoke``) call it
        in a worker thread.
    context
        What the user asked; the first human message when None.
    check_before
        Check each tool call before it runs and refuse it on a trip.
    on_trip
        ``"end"`` (a refused call gets a ``ToolMessage`` saying why, the run ends with
        :func:`trip_message`) or ``"raise"`` (:class:`~plateau.integrations.RunTripped` out
        of ``invoke`` before the next model call).
    tool_policy
        Per-tool rules each run declares (:mod:`plateau.policy`).
    max_runs
        How many conversations are remembered (int >= 1; the least recently active is
        forgotten first, with its ``verdicts``: a long-lived guard's memory stays bounded).

    Attributes
    ----------
    verdicts
        Every verdict (checks that tripped included), per run id.
    steers_injected
        The steer messages handed to the model, per run id.
    """

    name_prefix = "langgraph"

    def __init__(
        self,
        client: Any,
        *,
        context: str | None = None,
        check_before: bool = True,
        on_trip: Literal["raise", "end"] = "end",
        tool_policy: Mapping[str, Any] | None = None,
        max_runs: int = 1024,
    ) -> None:
        self._configure(client, context, check_before, on_trip, tool_policy)
        if isinstance(max_runs, bool) or not isinstance(max_runs, int) or max_runs < 1:
            raise ValueError(f"max_runs: must be an integer >= 1, got {max_runs!r}")
        if asyncio.iscoroutinefunction(getattr(client, "observe", None)):
            raise ValueError("client: needs a plateau.Client (the async graph calls it in a worker thread), got an AsyncClient")
        self.max_runs = max_runs
        self.steers_injected: dict[str, list[str]] = {}
        self._runs: OrderedDict[str, _Run] = OrderedDict()

    # ---------------------------------------------------------------- runs
    def _run(self, messages: Sequence[BaseMessage]) -> _Run:
        try:
            thread = (get_config().get("configurable") or {}).get("thread_id")
        except RuntimeError:  # outside a graph
            thread = None
        first = messages[0] if messages else None
        key = f"thread:{thread}" if thread is not None else f"message:{getattr(first, 'id', None)}"
        with self._lock:
            run = self._runs.get(key)
            if run is not None:
                self._runs.move_to_end(key)
            else:
                while len(self._runs) >= self.max_runs:
                    _, old = self._runs.popitem(last=False)
                    self.verdicts.pop(old.session.run_id, None)
                    self.steers_injected.pop(old.session.run_id, None)
                run_id = f"{self.name_prefix}-{thread}" if thread is not None else new_run_id(self.name_prefix)
                asked = self.context
                if asked is None:
                    asked = next((_text(m) for m in messages if isinstance(m, HumanMessage) and m.name != "plateau"), None)
                run = _Run(self.client.session(run_id, asked, tool_policy=self.tool_policy))
                self._runs[key] = run
                self.verdicts[run_id] = run.verdicts
                self.steers_injected[run_id] = []
            return run

    @staticmethod
    def _messages(state: Any) -> list[BaseMessage]:
        return _messages(state)

    def _record(self, run: _Run, verdict: Verdict) -> None:
        run.verdicts.append(verdict)
        if verdict.action is Action.TRIP:
            run.tripped = run.tripped or verdict
        elif verdict.action is Action.STEER and verdict.message:
            run.steer = verdict.message

    @staticmethod
    def _call_step(messages: Sequence[BaseMessage], call: Mapping[str, Any]) -> dict[str, Any]:
        """The step of one tool call; the model's text goes with the first call of its turn."""
        text = ""
        for message in reversed(messages):
            calls = getattr(message, "tool_calls", None) or []
            ids = [c.get("id") for c in calls]
            if isinstance(message, AIMessage) and call.get("id") in ids:
                text = _text(message) if ids.index(call.get("id")) == 0 else ""
                break
        return {"text": text, "tool": str(call.get("name") or "tool"), "args": call.get("args") or {}}

    @staticmethod
    def _refusal(call: Mapping[str, Any], verdict: Verdict) -> ToolMessage:
        return ToolMessage(
            content=trip_text(verdict),
            tool_call_id=str(call.get("id")),
            name=str(call.get("name") or "tool"),
            status="error",
            additional_kwargs={"plateau": verdict.as_dict()},
        )

    # ---------------------------------------------------------------- tool calls
    def _before_call(
        self, messages: Sequence[BaseMessage], call: Mapping[str, Any], check: bool
    ) -> tuple[_Run, dict[str, Any], ToolMessage | None]:
        run = self._run(messages)
        step = self._call_step(messages, call)
        if run.tripped is not None:  # a call of the same turn tripped: refuse the rest
            return run, step, self._refusal(call, run.tripped)
        if check and self.check_before:
            verdict: Verdict = run.session.check(step)
            if verdict.action is Action.TRIP:
                with run.lock:
                    self._record(run, verdict)
                return run, step, self._refusal(call, verdict)
        return run, step, None

    def _after_call(self, run: _Run, step: dict[str, Any], result: Any) -> None:
        with run.lock:  # parallel calls finish concurrently; steps are numbered one at a time
            self._record(run, run.session.observe({**step, "result": _tool_output(result)}))

    def tool_call(self, request: Any, handler: Callable[[Any], Any], *, check: bool = True) -> Any:
        """A ``wrap_tool_call``: refuse a call Plateau would trip on (a ``ToolMessage`` saying
        why, the tool not run), else run it and observe it with its result."""
        run, step, refusal = self._before_call(self._messages(request.state), request.tool_call, check)
        if refusal is not None:
            return refusal
        result = handler(request)
        self._after_call(run, step, result)
        return result

    async def atool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]], *, check: bool = True) -> Any:
        """:meth:`tool_call` for async graphs (the client is called in a worker thread)."""
        run, step, refusal = await asyncio.to_thread(self._before_call, self._messages(request.state), request.tool_call, check)
        if refusal is not None:
            return refusal
        result = await handler(request)
        await asyncio.to_thread(self._after_call, run, step, result)
        return result

    # ---------------------------------------------------------------- model turns
    def before_model(self, messages: Sequence[BaseMessage]) -> tuple[list[BaseMessage], Verdict | None]:
        """Before a model call: ``([trip_message], verdict)`` after a trip (raises
        :class:`~plateau.integrations.RunTripped` with ``on_trip="raise"``), ``([steer], None)``
        when a steer is pending, else ``([], None)``."""
        run = self._run(messages)
        if run.tripped is not None:
            if self.on_trip == "raise":
                raise RunTripped(run.tripped)
            return [trip_message(run.tripped)], run.tripped
        if run.steer is not None:
            text = steer_text(run.steer)
            run.steer = None
            self.steers_injected[run.session.run_id].append(text)
            return [HumanMessage(content=text, name="plateau")], None
        return [], None

    def after_model(self, messages: Sequence[BaseMessage]) -> list[BaseMessage]:
        """After a model call: observe a final answer (a turn without tool calls) as a step;
        with ``check_before``, check each new tool call and, on a trip, answer every call of
        the turn with a refusal and end with :func:`trip_message` (the messages returned)."""
        last = messages[-1] if messages else None
        if not isinstance(last, AIMessage) or last.name == "plateau":
            return []
        run = self._run(messages)
        if not last.tool_calls:
            text = _text(last)
            if text:
                with run.lock:
                    self._record(run, run.session.observe({"text": text}))
            return []
        if not self.check_before:
            return []
        for call in last.tool_calls:
            verdict: Verdict = run.session.check(self._call_step(messages, call))
            if verdict.action is Action.TRIP:
                with run.lock:
                    self._record(run, verdict)
                if self.on_trip == "raise":
                    raise RunTripped(verdict)
                return [*(self._refusal(c, verdict) for c in last.tool_calls), trip_message(verdict)]
        return []

    # ---------------------------------------------------------------- create_react_agent
    def pre_model_hook(self, state: Any) -> dict[str, Any]:
        """``create_react_agent(pre_model_hook=…)``: a pending steer as a ``HumanMessage``
        named ``plateau`` (after a trip the model is still called once, and
        :meth:`post_model_hook` puts :func:`trip_message` in place of its answer)."""
        added, tripped = self.before_model(self._messages(state))
        return {"messages": added} if tripped is None and added else {}

    def post_model_hook(self, state: Any) -> dict[str, Any]:
        """``create_react_agent(post_model_hook=…)``: observe a final answer; check the new tool
        calls and on a trip answer them with refusals and end with :func:`trip_message`."""
        from langchain_core.messages import RemoveMessage

        messages = self._messages(state)
        run = self._run(messages)
        last = messages[-1] if messages else None
        if run.tripped is not None and isinstance(last, AIMessage) and last.name != "plateau":
            # tripped by the last tool results: the model's new turn is dropped, the trip ends the run
            if self.on_trip == "raise":
                raise RunTripped(run.tripped)
            return {"messages": [RemoveMessage(id=str(last.id)), trip_message(run.tripped)]}
        added = self.after_model(messages)
        return {"messages": added} if added else {}

    def tool_node(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        """A ``ToolNode`` over ``tools`` whose wrapper observes each call with its result (the
        check before the call is made by :meth:`post_model_hook`)."""
        from langgraph.prebuilt import ToolNode

        return ToolNode(
            tools,
            wrap_tool_call=lambda request, handler: self.tool_call(request, handler, check=False),
            awrap_tool_call=lambda request, handler: self.atool_call(request, handler, check=False),
            **kwargs,
        )

    def react_agent(self, model: Any, tools: Sequence[Any], **kwargs: Any) -> Any:
        """``langgraph.prebuilt.create_react_agent(model, tools, **kwargs)`` guarded by Plateau:
        :meth:`tool_node`, :meth:`pre_model_hook` and :meth:`post_model_hook` (``kwargs`` must
        not set the hooks)."""
        import warnings

        from langgraph.prebuilt import create_react_agent

        for hook in ("pre_model_hook", "post_model_hook"):
            if hook in kwargs:
                raise ValueError(f"{hook}: PlateauGuard.react_agent sets it; compose your hook with guard.{hook} instead")
        with warnings.catch_warnings():  # create_react_agent is deprecated in favour of langchain's create_agent
            warnings.simplefilter("ignore", DeprecationWarning)
            return create_react_agent(
                model, self.tool_node(tools), pre_model_hook=self.pre_model_hook, post_model_hook=self.post_model_hook, **kwargs
            )
