"""OpenAI-style chat message lists → Plateau steps (step dicts of docs/format.md).

Most agent logs are, or contain, an OpenAI chat message list: ``system``, ``user``,
``assistant`` (with ``tool_calls``) and ``tool`` messages. :func:`steps_from_messages` turns one
into the steps Plateau judges:

- every tool call of an assistant message is one step, whose ``tool`` is the function name,
  ``args`` the parsed JSON arguments (the raw string when they are not JSON) and ``result``
  the content of the ``tool`` message answering it (matched by ``tool_call_id``, else by
  position); the message's text goes with its first call, so parallel calls are consecutive
  steps and the narration is counted once;
- an assistant message without a call is one step with ``tool`` None (the agent talked);
- a ``user`` message after the first one is attached as ``user`` to the next step (what the
  user said before it), and the first one is the run's context (what was asked);
- a text-format action (mini-swe-agent 1.x: no ``tool_calls``, one fenced ``bash`` block in
  the assistant's text, :func:`plateau.envelope.text_action`) is a ``bash`` call with
  ``{"command": …}`` once the harness answers it (a ``user`` message opening with
  ``<returncode>``); in such a run every ``user`` message after an assistant turn is the
  harness's reply (the result, or a format error), never the user's;
- a result's harness envelope is removed (:func:`plateau.envelope.unwrap`: mini-swe-agent's
  ``<returncode>``/``<output>`` tags, OpenHands and SWE-agent context lines, error objects),
  and its ``status`` is ``"error"`` or ``"ok"`` where the log records a return code
  (mini-swe-agent's ``extra.returncode`` or the envelope's), left to inference otherwise;
- ``system`` messages and anything else (mini-swe-agent's ``exit``) carry no step.

The loaders :func:`load_chat_runs` (tau-bench: a JSON list of runs with a ``traj`` message
list) and :func:`load_mini_swe_traj` (a mini-swe-agent ``*.traj.json``) build on it. This
module imports nothing beyond the standard library and :mod:`plateau.envelope`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from plateau.envelope import TEXT_ACTION_TOOL, is_harness_reply, text_action, unwrap

__all__ = ["context_of", "is_chat_runs", "is_mini_swe_traj", "run_name", "steps_from_messages"]

#: The longest context kept from a run's first user message, in characters.
CONTEXT_CHARS = 4000


def _text(content: object) -> str:
    """The text of a message's ``content``: a string, or a list of parts (``{"type": "text"}``)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, Mapping):
                value = part.get("text")
                if isinstance(value, str):
                    parts.append(value)
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(parts)
    return str(content)


def _args(raw: object) -> object:
    if isinstance(raw, str):
        try:
            return json.loads(raw) if raw.strip() else {}
        except ValueError:
            return raw
    return raw if raw is not None else {}


def _unwrap(message: Mapping[str, Any], text: str) -> tuple[str, str | None]:
    """A harness reply's output and status (:func:`plateau.envelope.unwrap`); mini-swe-agent
    also keeps the raw output and the code in ``extra``, which win where present."""
    extra = message.get("extra")
    code: object = extra.get("returncode") if isinstance(extra, Mapping) else None
    unwrapped = unwrap(text)
    if unwrapped.envelope == "mini-swe-agent":
        raw = extra.get("raw_output") if isinstance(extra, Mapping) else None
        text = raw if isinstance(raw, str) else unwrapped.text
        if code is None:
            code = unwrapped.exit_code
    if isinstance(code, int) and not isinstance(code, bool):
        return text, "ok" if code == 0 else "error"
    return text, None


def context_of(messages: Iterable[Mapping[str, Any]]) -> str | None:
    """The run's context: its first user message, cut to ``CONTEXT_CHARS`` characters, or None."""
    for message in messages:
        if isinstance(message, Mapping) and message.get("role") == "user":
            text = _text(message.get("content")).strip()
            return text[:CONTEXT_CHARS] or None
    return None


def steps_from_messages(messages: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The steps of one chat message list, in order (step dicts of docs/format.md).

    Parameters
    ----------
    messages
        OpenAI chat messages (dicts with ``role`` and ``content``; ``tool_calls`` on assistant
        messages, ``tool_call_id`` on tool messages). Unknown keys are ignored.

    Returns
    -------
    list of dict
        One dict per tool call or per assistant message without a call, with ``text``,
        ``tool``, ``args``, ``result``, and ``status`` / ``user`` where known.

    Raises
    ------
    ValueError
        ``messages`` is not a list of objects with a string ``role``.
    """
    steps: list[dict[str, Any]] = []
    pending: dict[str, dict[str, Any]] = {}  # tool_call_id -> step awaiting its result
    unanswered: list[dict[str, Any]] = []  # calls without an id, answered in order
    user_before: list[str] = []
    seen_user = False
    text_format = False  # the harness answers text-format actions (mini-swe-agent 1.x)
    awaiting: dict[str, Any] | None = None  # the last assistant step, while the harness may answer it
    for position, message in enumerate(messages):
        if not isinstance(message, Mapping) or not isinstance(message.get("role"), str):
            raise ValueError(f"messages[{position}]: a chat message needs a string 'role'")
        role = message["role"]
        if role == "user":
            raw = _text(message.get("content"))
            text = raw.strip()
            if awaiting is not None and awaiting["tool"] == TEXT_ACTION_TOOL and (text_format or is_harness_reply(raw)):
                # the harness's reply to a text-format action is that action's result
                text_format = True
                awaiting["result"], status = _unwrap(message, raw)
                if status is not None:
                    awaiting["status"] = status
            elif awaiting is not None and text_format:
                # the harness's reply to a turn with no single action (a format error): the
                # turn's result, which the engine reads as the attempt's failure
                awaiting["result"] = raw
                awaiting["status"] = "error"
            else:
                if awaiting is not None:
                    _as_talk(awaiting)  # a fenced snippet a person answered is talk, not an action
                if seen_user and text:
                    user_before.append(text)
            seen_user = True
            awaiting = None
        elif role == "assistant":
            text = _text(message.get("content")).strip()
            calls = message.get("tool_calls") or []
            user = "\n\n".join(user_before) or None
            user_before = []
            if not calls:
                action = text_action(text)
                if action is not None:  # a text-format action: the one fenced bash block
                    awaiting = {"text": action[0], "tool": TEXT_ACTION_TOOL, "args": {"command": action[1]}, "result": None, "user": user,
                                "_said": text}
                else:
                    awaiting = {"text": text, "tool": None, "args": None, "result": None, "user": user}
                steps.append(awaiting)
                continue
            awaiting = None
            for n, call in enumerate(calls):
                function = call.get("function") if isinstance(call, Mapping) else None
                function = function if isinstance(function, Mapping) else {}
                step: dict[str, Any] = {
                    "text": text if n == 0 else "",
                    "tool": str(function.get("name") or "tool"),
                    "args": _args(function.get("arguments")),
                    "result": None,
                    "user": user if n == 0 else None,
                }
                steps.append(step)
                call_id = call.get("id") if isinstance(call, Mapping) else None
                if isinstance(call_id, str) and call_id:
                    pending[call_id] = step
                else:
                    unanswered.append(step)
        elif role in ("tool", "function"):
            text = _text(message.get("content"))
            call_id = message.get("tool_call_id")
            step_or_none = pending.pop(call_id, None) if isinstance(call_id, str) else None
            if step_or_none is None and unanswered:
                step_or_none = unanswered.pop(0)
            if step_or_none is None and pending:
                step_or_none = pending.pop(next(iter(pending)))
            if step_or_none is None:
                continue
            text, status = _unwrap(message, text)
            step_or_none["result"] = text
            if status is not None:
                step_or_none["status"] = status
    for step in steps:
        if "_said" in step and not text_format:
            _as_talk(step)  # no harness ever answered a text-format action in this run
        step.pop("_said", None)
        if step.get("user") is None:
            step.pop("user", None)
    return steps


def _as_talk(step: dict[str, Any]) -> None:
    """Undo reading an assistant turn as a text-format action."""
    if "_said" in step:
        step.update(text=step.pop("_said"), tool=None, args=None, result=None)
        step.pop("status", None)


def is_chat_runs(data: object) -> bool:
    """True when ``data`` is a list of runs each holding a chat message list under ``traj``
    (or ``messages``), as tau-bench's trajectory files are."""
    return (
        isinstance(data, list)
        and bool(data)
        and all(isinstance(r, Mapping) and isinstance(r.get("traj", r.get("messages")), list) for r in data)
    )


def is_mini_swe_traj(data: object) -> bool:
    """True when ``data`` is a mini-swe-agent trajectory (an object with a ``messages`` list
    and a ``trajectory_format`` or ``info``)."""
    return (
        isinstance(data, Mapping)
        and isinstance(data.get("messages"), list)
        and ("trajectory_format" in data or "info" in data)
        and "input" not in data
    )


def run_name(path: Path, index: int, record: Mapping[str, Any]) -> str:
    """A chat run's name: the file's stem, the run's position, and its task/trial where given."""
    parts = [path.name.removesuffix(".json"), str(index)]
    if "task_id" in record:
        parts.append(f"task{record['task_id']}")
    if "trial" in record:
        parts.append(f"trial{record['trial']}")
    return "-".join(parts)
