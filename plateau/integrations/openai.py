"""OpenAI and Anthropic chat messages → Plateau steps, one run at a time.

Conversion reuses :func:`plateau.chat.steps_from_messages` (OpenAI chat format: assistant
``tool_calls``, parallel calls as consecutive steps, ``tool`` results matched by
``tool_call_id``). Anthropic Messages-API lists (``tool_use`` blocks in assistant content,
``tool_result`` blocks in user content, ``is_error`` for a failed call) are first rewritten
into that format by :func:`anthropic_to_openai`; :func:`steps_from_chat` accepts either.

A live agent's message list grows turn by turn. :class:`ChatRun` (and :class:`AsyncChatRun`
for :class:`~plateau.aio.AsyncClient`) owns a :class:`~plateau.session.RunSession` and, each
time it is handed the list, sends the steps that became complete since the last call (a tool
call is complete once its result message arrived, or a later assistant message shows that
none will), so every step is observed exactly once and in order::

    run = ChatRun(client, context=task)
    while True:
        reply = llm.chat.completions.create(model=..., messages=messages, tools=tools)
        messages.append(reply.choices[0].message)
        for call in reply.choices[0].message.tool_calls or []:
            if run.check_call(call.function.name, call.function.arguments).action.value == "trip":
                ...                                       # refuse the call before it runs
            messages.append({"role": "tool", "tool_call_id": call.id, "content": execute(call)})
        verdict = run.update(messages)                    # RunTripped on trip
        if verdict is not None and verdict.action.value == "steer":
            messages.append(steer_message(verdict))

SDK objects (the ``openai`` package's pydantic messages) are accepted wherever a dict is:
they are read through ``model_dump``. This module needs nothing beyond Plateau's client.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from plateau.chat import context_of, steps_from_messages
from plateau.integrations import RunTripped, steer_text
from plateau.types import Action, Verdict

__all__ = [
    "AsyncChatRun",
    "ChatRun",
    "anthropic_to_openai",
    "as_dicts",
    "is_anthropic",
    "steer_message",
    "steps_from_chat",
]


def as_dicts(messages: Iterable[Any]) -> list[dict[str, Any]]:
    """``messages`` as plain dicts (SDK objects through ``model_dump(exclude_none=True)``)."""
    out: list[dict[str, Any]] = []
    for m in messages:
        if isinstance(m, Mapping):
            out.append(dict(m))
        elif hasattr(m, "model_dump"):
            out.append(m.model_dump(exclude_none=True))
        else:
            raise ValueError(f"a chat message must be a mapping or an SDK message object, got {type(m).__name__}")
    return out


def _blocks(content: object) -> list[Mapping[str, Any]]:
    return [b for b in content if isinstance(b, Mapping)] if isinstance(content, list) else []


def is_anthropic(messages: Sequence[Mapping[str, Any]]) -> bool:
    """True when some message holds an Anthropic ``tool_use`` or ``tool_result`` block."""
    return any(b.get("type") in ("tool_use", "tool_result") for m in messages for b in _blocks(m.get("content")))


def _block_text(content: object) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(b.get("text")) for b in _blocks(content) if b.get("type") == "text" and b.get("text") is not None)


def anthropic_to_openai(messages: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Rewrite Anthropic Messages-API messages into OpenAI chat messages.

    An assistant message's ``text`` blocks become its content and its ``tool_use`` blocks its
    ``tool_calls`` (``input`` as JSON arguments); each ``tool_result`` block of a user message
    becomes a ``tool`` message answering its ``tool_use_id`` (``is_error: true`` marks the call
    failed), and the user message's text blocks stay a user message. A top-level ``system``
    string is not part of the list and is ignored.

    Raises
    ------
    ValueError
        A message without a string ``role``.
    """
    out: list[dict[str, Any]] = []
    for position, message in enumerate(messages):
        role = message.get("role") if isinstance(message, Mapping) else None
        if not isinstance(role, str):
            raise ValueError(f"messages[{position}]: a chat message needs a string 'role'")
        content = message.get("content")
        blocks = _blocks(content)
        if role == "assistant":
            calls = [
                {
                    "id": str(b.get("id") or ""),
                    "type": "function",
                    "function": {"name": str(b.get("name") or "tool"), "arguments": json.dumps(b.get("input") or {})},
                }
                for b in blocks
                if b.get("type") == "tool_use"
            ]
            entry: dict[str, Any] = {"role": "assistant", "content": _block_text(content)}
            if calls:
                entry["tool_calls"] = calls
            out.append(entry)
        elif role == "user":
            for b in blocks:
                if b.get("type") == "tool_result":
                    tool: dict[str, Any] = {
                        "role": "tool",
                        "tool_call_id": str(b.get("tool_use_id") or ""),
                        "content": _block_text(b.get("content")),
                    }
                    if b.get("is_error") is True:
                        tool["extra"] = {"returncode": 1}  # how plateau.chat reads a failed call
                    out.append(tool)
            text = _block_text(content) if not blocks else "\n".join(str(b.get("text")) for b in blocks if b.get("type") == "text")
            if text.strip():
                out.append({"role": "user", "content": text})
        else:
            out.append({"role": role, "content": _block_text(content)})
    return out


def steps_from_chat(messages: Iterable[Any]) -> list[dict[str, Any]]:
    """The steps of an OpenAI or Anthropic message list (FORMAT.md step dicts), in order.

    OpenAI format goes straight to :func:`plateau.chat.steps_from_messages`; Anthropic format
    (detected by its ``tool_use``/``tool_result`` blocks) is rewritten first.
    """
    dicts = as_dicts(messages)
    return steps_from_messages(anthropic_to_openai(dicts) if is_anthropic(dicts) else dicts)


def steer_message(verdict: Verdict, role: str = "user") -> dict[str, str]:
    """The message to append before the agent's next model call after a steer (or trip)
    verdict: Plateau's corrective text in its own message, never mixed into agent text, starting
    with :data:`~plateau.integrations.STEER_PREFIX` (:func:`~plateau.integrations.steer_text`)."""
    return {"role": role, "content": steer_text(verdict.message)}


def _pending_call(messages: list[dict[str, Any]]) -> set[str]:
    """Ids of tool calls of the last assistant message that have no result yet."""
    openai = anthropic_to_openai(messages) if is_anthropic(messages) else messages
    last = max((i for i, m in enumerate(openai) if m.get("role") == "assistant"), default=None)
    if last is None:
        return set()
    calls = {c.get("id") for c in openai[last].get("tool_calls") or [] if isinstance(c, Mapping)}
    answered = {m.get("tool_call_id") for m in openai[last + 1 :] if m.get("role") in ("tool", "function")}
    return {c for c in calls - answered if isinstance(c, str)}


class _Converter:
    """Which steps of a growing message list are complete and not yet sent."""

    def __init__(self) -> None:
        self.sent = 0

    def new_steps(self, messages: Iterable[Any]) -> tuple[list[dict[str, Any]], str | None]:
        dicts = as_dicts(messages)
        steps = steps_from_chat(dicts)
        waiting = len(_pending_call(dicts))
        ready = steps[self.sent : len(steps) - waiting] if waiting else steps[self.sent :]
        return ready, context_of(anthropic_to_openai(dicts) if is_anthropic(dicts) else dicts)


def _call_step(name: str, arguments: object, text: str) -> dict[str, Any]:
    args = arguments
    if isinstance(arguments, str):
        try:
            args = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            args = {"_raw": arguments}
    return {"text": text, "tool": name, "args": args}


class _ChatRunState:
    """What both chat runs share, without I/O: the session, the steps not yet sent and what a
    verdict does (count it sent, keep the most severe, raise on a trip). :class:`ChatRun` and
    :class:`AsyncChatRun` only make the calls (plain or awaited)."""

    def __init__(
        self,
        client: Any,
        run_id: str | None = None,
        context: str | None = None,
        *,
        raise_on_trip: bool = True,
        tool_policy: Mapping[str, Any] | None = None,
    ) -> None:
        self.session = client.session(run_id, context, tool_policy=tool_policy)
        self.raise_on_trip = raise_on_trip
        self._converter = _Converter()

    @property
    def run_id(self) -> str:
        """The run's id."""
        return str(self.session.run_id)

    def _ready(self, messages: Iterable[Any]) -> list[dict[str, Any]]:
        """The steps completed since the last call (the session takes its context from them once)."""
        ready, context = self._converter.new_steps(messages)
        if self.session.context is None:
            self.session.context = context
        return list(ready)

    def _take(self, verdict: Verdict, worst: Verdict | None) -> Verdict:
        """Count the step sent; the more severe of ``verdict`` and ``worst`` (later wins a tie);
        :class:`~plateau.integrations.RunTripped` on a trip when ``raise_on_trip``."""
        self._converter.sent += 1
        if verdict.action is Action.TRIP and self.raise_on_trip:
            raise RunTripped(verdict)
        return verdict if worst is None or _severity(verdict) >= _severity(worst) else worst


class ChatRun(_ChatRunState):
    """Feeds one chat run's growing message list to a :class:`~plateau.client.Client`.

    Parameters
    ----------
    client
        A :class:`~plateau.client.Client` (local or remote).
    run_id
        The run id; a fresh one when None.
    context
        What the user asked; the first user message of the list when None.
    raise_on_trip
        Raise :class:`~plateau.integrations.RunTripped` from :meth:`update` on a trip
        (default); False returns the trip verdict instead.
    tool_policy
        Per-tool rules the run declares (:mod:`plateau.policy`), e.g.
        ``{"job_status": "ignore"}``.

    Attributes
    ----------
    session
        The :class:`~plateau.session.RunSession` (run id, next index, last verdict).
    """

    def update(self, messages: Iterable[Any]) -> Verdict | None:
        """Observe the steps completed since the last call; the most severe new verdict (trip
        over steer over continue, later over earlier), or None when no step completed."""
        worst: Verdict | None = None
        for step in self._ready(messages):
            worst = self._take(self.session.observe(step), worst)
        return worst

    def check_call(self, name: str, arguments: object = None, text: str = "") -> Verdict:
        """What the breaker would answer if the model's call ``name(arguments)`` ran now
        (nothing recorded): refuse the call when it says ``trip``."""
        verdict: Verdict = self.session.check(_call_step(name, arguments, text))
        return verdict


class AsyncChatRun(_ChatRunState):
    """:class:`ChatRun` for an :class:`~plateau.aio.AsyncClient`: the same parameters and
    methods, awaited."""

    async def update(self, messages: Iterable[Any]) -> Verdict | None:
        """Observe the steps completed since the last call (see :meth:`ChatRun.update`)."""
        worst: Verdict | None = None
        for step in self._ready(messages):
            worst = self._take(await self.session.observe(step), worst)
        return worst

    async def check_call(self, name: str, arguments: object = None, text: str = "") -> Verdict:
        """What the breaker would answer for the call now (see :meth:`ChatRun.check_call`)."""
        verdict: Verdict = await self.session.check(_call_step(name, arguments, text))
        return verdict



def _severity(verdict: Verdict) -> int:
    return {Action.CONTINUE: 0, Action.STEER: 1, Action.TRIP: 2}[verdict.action]
