"""Harness envelopes: a tool result as the harness wrapped it → what the tool printed.

Agent harnesses wrap a command's output before the model sees it, and every harness wraps it
its own way. Judged as text, the wrapper is noise that every result shares: two ``grep`` calls
that found nothing in different files both return
``<returncode>1</returncode><output></output>`` under mini-swe-agent, so an empty failure is not
empty text and two unrelated failures look like "the same error". Plateau reads every result
through :func:`unwrap` once, before any detector sees it (:func:`harness_view`), so an empty
failure is empty and two errors are the same only when their content is.

Envelopes read (each as its harness writes it; a result in none of them is returned as it is):

- **mini-swe-agent** (1.x text format): ``<returncode>N</returncode>`` then ``<output>…</output>``,
  or ``<warning>…</warning><output_head>…</output_head><elided_chars>…</elided_chars>
  <output_tail>…</output_tail>`` for long output; the code gives the status.
- **OpenHands** command observations: trailing ``[The command completed with exit code N.]`` /
  ``[Command finished with exit code N]`` and context lines (``[Current working directory: …]``,
  ``[Python interpreter: …]``, ``[Jupyter current working directory: …]``).
- **SWE-agent**: trailing ``(Open file: …)``, ``(Current directory: …)`` and ``bash-$`` prompt
  lines, and ``Your command ran successfully and did not produce any output.`` for nothing.
- **ReAct** text harnesses: a leading ``Observation:`` (or ``Observation N:``) label.
- **Exit-code lines**: a first or last line ``exit code: N`` / ``exit status N`` /
  ``return code: N`` / ``Process exited with code N``.
- **Format rejections**: a harness's reply that it ran nothing because the message held no
  action or more than one (``plateau/lexicon/harness-format-errors.txt``); an error, and the
  turn is read as the action it attempted (:func:`harness_view`).
- **Tool error objects**: a JSON object whose ``error`` is set (``{"error": "…"}``,
  ``{"error": {"code": 429, "message": "…"}}``) is an error, its text kept whole (a code or a
  retry hint beside the message is part of the error); MCP's ``CallToolResult`` with
  ``isError: true`` is an error whose text is its content's text.

Text-format actions (mini-swe-agent 1.x and harnesses like it): the action is the one fenced
``bash`` block in the assistant's text, with no tool call; :func:`text_action` reads it (the
same rule as mini-swe-agent's own ``action_regex``: exactly one such block is an action, none
or several is a format error).

This module imports nothing beyond the standard library (and :mod:`plateau.types`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from plateau.types import Step, ToolStatus

__all__ = ["TEXT_ACTION_TOOL", "Unwrapped", "harness_view", "is_format_rejection", "is_harness_reply", "text_action", "unwrap"]

#: The tool name a text-format action is read as (the harness runs it in a shell).
TEXT_ACTION_TOOL = "bash"

_RETURNCODE = re.compile(r"\A\s*<returncode>\s*(-?\d+)\s*</returncode>\s*")
_MINI_TAGS = re.compile(r"</?(?:output|output_head|output_tail)>\n?")
_MINI_WARNING = re.compile(r"<warning>.*?</warning>\s*", re.DOTALL)
_MINI_ELIDED = re.compile(r"<elided_chars>.*?</elided_chars>\s*", re.DOTALL)
_OPENHANDS_EXIT = re.compile(r"^\[(?:The command completed with exit code|Command finished with exit code)\s+(-?\d+)\.?\]$")
_OPENHANDS_CONTEXT = re.compile(
    r"^\[(?:Current working directory|Python interpreter|Jupyter current working directory|Jupyter Python interpreter)\s*:.*\]$"
    r"|^\[Command finished execution with no output\]$|^\[Below is the output of the previous command\.\]$",
    re.IGNORECASE,
)
_SWE_AGENT_CONTEXT = re.compile(r"^\((?:Open file|Current directory):.*\)$|^bash-\$\s*$")
_SWE_AGENT_NOTHING = "Your command ran successfully and did not produce any output."
#: Lines a harness appends after the output (context, exit code): a handful at most.
_TAIL_LINES = 8
_OBSERVATION = re.compile(r"\A\s*Observation(?:\s+\d+)?\s*:[ \t]*\n?", re.IGNORECASE)
_EXIT_LINE = re.compile(
    r"^\s*(?:exit(?:ed)?\s+(?:code|status)|return\s*code|returncode|process\s+exited\s+with\s+(?:code|status))\s*[:=]?\s*(-?\d+)\.?\s*$",
    re.IGNORECASE,
)
# mini-swe-agent's action rule: one fenced bash block (``action_regex``); sh/shell read the same
_TEXT_ACTION = re.compile(r"```(?:bash|sh|shell)[ \t]*\n(.*?)\n```", re.DOTALL)
_ANY_BLOCK = re.compile(r"```[\w+-]*[ \t]*\n(.*?)\n```", re.DOTALL)
_FORMAT_ERROR: re.Pattern[str] | None = None


def is_format_rejection(result: str | None) -> bool:
    """True when ``result`` is a harness's reply that it ran nothing because the message held
    no action or more than one (the templates of ``harness-format-errors``)."""
    global _FORMAT_ERROR
    if not result:
        return False
    if _FORMAT_ERROR is None:
        from plateau.lexicon import pattern

        _FORMAT_ERROR = pattern("harness-format-errors", prefix=r"\A\s*(?:", suffix=")", flags=re.IGNORECASE)
    return _FORMAT_ERROR.match(result[:2000]) is not None


@dataclass(frozen=True)
class Unwrapped:
    """A result with its harness envelope removed.

    Attributes
    ----------
    text
        What the tool printed (str; ``""`` for no output).
    exit_code
        The exit code the envelope reports (int), or None.
    error
        True when the envelope says the call failed (a non-zero exit code, an error object),
        False when it says it succeeded (exit code 0), None when it says nothing.
    envelope
        The envelope recognised (``"mini-swe-agent"``, ``"openhands"``, ``"swe-agent"``,
        ``"observation"``, ``"exit-line"``, ``"error-object"``, ``"format-error"``), or None.
    """

    text: str
    exit_code: int | None = None
    error: bool | None = None
    envelope: str | None = None


def _from_code(text: str, code: int | None, envelope: str) -> Unwrapped:
    return Unwrapped(text, code, None if code is None else code != 0, envelope)


def _error_object(text: str) -> Unwrapped | None:
    stripped = text.strip()
    if not (stripped.startswith("{") and stripped.endswith("}")) or len(stripped) > 100_000:
        return None
    try:
        data = json.loads(stripped)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if data.get("isError") is True and isinstance(data.get("content"), list):  # MCP CallToolResult
        parts = [str(p["text"]) for p in data["content"] if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return Unwrapped("\n".join(parts), None, True, "error-object")
    if not data.get("error"):
        return None
    # the whole object is the error's content (its code, a retry hint): only the status is read
    return Unwrapped(text, None, True, "error-object")


def _trailing(lines: list[str], context: re.Pattern[str], exit_line: re.Pattern[str] | None) -> tuple[list[str], int | None, bool]:
    """Drop trailing context lines (and one exit-code line); return (lines, code, found)."""
    code: int | None = None
    found = False
    while lines:
        last = lines[-1].strip()
        if not last:
            lines.pop()
            continue
        if context.match(last):
            lines.pop()
            found = True
            continue
        m = exit_line.match(last) if exit_line is not None and code is None else None
        if m:
            code = int(m.group(1))
            lines.pop()
            found = True
            continue
        break
    return lines, code, found


def unwrap(result: str) -> Unwrapped:
    """Remove the harness envelope from one tool result.

    Parameters
    ----------
    result
        The result text as the harness returned it (str).

    Returns
    -------
    Unwrapped
        The printed text, the exit code and failure the envelope reports, and which envelope
        it was. A result in no known envelope comes back unchanged with ``envelope`` None.
    """
    if is_format_rejection(result):
        return Unwrapped(result.strip(), None, True, "format-error")
    m = _RETURNCODE.match(result)
    if m:
        body = result[m.end() :]
        body = _MINI_ELIDED.sub("", _MINI_WARNING.sub("", body))
        body = _MINI_TAGS.sub("", body)
        return _from_code(body.strip("\n"), int(m.group(1)), "mini-swe-agent")
    if '"error"' in result[:200] or '"isError"' in result[:200]:  # parse only what may be one
        obj = _error_object(result)
        if obj is not None:
            return obj
    # the context and exit lines stand at the end: only the last lines are split off and read
    # (the first item is everything before them)
    lines = result.rsplit("\n", _TAIL_LINES)
    kept, code, found = _trailing(list(lines), _OPENHANDS_CONTEXT, _OPENHANDS_EXIT)
    if found:
        return _from_code("\n".join(kept).strip("\n"), code, "openhands")
    kept, _, found = _trailing(list(lines), _SWE_AGENT_CONTEXT, None)
    if found or result.strip() == _SWE_AGENT_NOTHING:
        body = "\n".join(kept).strip("\n")
        return Unwrapped("" if body.strip() == _SWE_AGENT_NOTHING else body, None, None, "swe-agent")
    m = _OBSERVATION.match(result)
    if m:
        inner = unwrap(result[m.end() :])
        return Unwrapped(inner.text, inner.exit_code, inner.error, inner.envelope or "observation")
    first, _, rest = result.partition("\n")
    m = _EXIT_LINE.match(first)
    if m:
        return _from_code(rest.strip("\n"), int(m.group(1)), "exit-line")
    before, _, last = result.rpartition("\n")
    m = _EXIT_LINE.match(last) if before else None
    if m:
        return _from_code(before.strip("\n"), int(m.group(1)), "exit-line")
    return Unwrapped(result)


def is_harness_reply(text: str) -> bool:
    """True when ``text`` is a harness's reply to a text-format action (it opens with a
    mini-swe-agent ``<returncode>`` header)."""
    return _RETURNCODE.match(text) is not None


def text_action(text: str) -> tuple[str, str] | None:
    """The action of a text-format step: ``(narration, command)`` when ``text`` holds exactly
    one fenced ``bash``/``sh``/``shell`` block, else None (no action, or a format error).

    The narration is the text without the block (the agent's reasoning), stripped.
    """
    blocks = list(_TEXT_ACTION.finditer(text))
    if len(blocks) != 1:
        return None
    block = blocks[0]
    narration = (text[: block.start()] + text[block.end() :]).strip()
    return narration, block.group(1).strip()


def harness_view(step: Step) -> Step:
    """``step`` as Plateau's detectors read it: the result without its envelope, the status
    the envelope reports (a status the caller set wins), and a text-format action (a step
    with a result, no tool, and one fenced shell block in its text) read as a call of
    :data:`TEXT_ACTION_TOOL` with ``{"command": …}``; a turn the harness refused for its format
    (:func:`is_format_rejection`) is read as the failed call of what it attempted (its fenced
    blocks joined, or nothing).

    The step itself (its fingerprint, what is stored and replayed) is unchanged; only the
    analysis reads the view. Returns ``step`` itself when nothing applies.
    """
    changes: dict[str, object] = {}
    if step.tool is None and step.result is not None:
        action = text_action(step.text)
        if action is not None:
            changes.update(text=action[0], tool=TEXT_ACTION_TOOL, args={"command": action[1]})
        elif is_format_rejection(step.result):
            # a turn the harness refused for its format: the action it attempted (every block
            # it wrote, or none) failed, rather than a turn of talk
            blocks = [m.group(1).strip() for m in _ANY_BLOCK.finditer(step.text)]
            narration = _ANY_BLOCK.sub("", step.text).strip()
            changes.update(text=narration, tool=TEXT_ACTION_TOOL, args={"command": "\n".join(blocks)})
    if step.result is not None:
        unwrapped = unwrap(step.result)
        if unwrapped.envelope is not None:
            changes["result"] = unwrapped.text
            if step.status is ToolStatus.UNKNOWN and unwrapped.error is not None:
                changes["status"] = ToolStatus.ERROR if unwrapped.error else ToolStatus.OK
    if not changes:
        return step
    return step.replace(**changes)
