"""Guard streamed model output as it arrives: plain text chunks and OpenAI-style chunks.

Both adapters pass the stream through unchanged until the stream guard fires, then stop:

- with ``on_fire="raise"`` (default) they raise :class:`~plateau.errors.DegenerateOutput`,
  which carries the channel, the guard's result and the text kept so far, cut to one copy of
  the repeated unit with a visible marker (the looped bytes are never handed back);
- with ``on_fire="stop"`` they end quietly and the wrapper's ``fired``, ``result`` and
  ``truncated_text`` say what happened.

>>> from plateau.client import Client                                  # doctest: +SKIP
>>> guarded = guard_openai_chunks(client, openai_stream)                # doctest: +SKIP
>>> for chunk in guarded:                                               # doctest: +SKIP
...     forward(chunk)

The guard runs in process (``Client.local``) or on a server (``Client.remote``: one
``GuardStream`` call per response).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Generic, TypeVar

from plateau.errors import DegenerateOutput, InvalidArgument

__all__ = ["GuardedStream", "guard_openai_chunks", "guard_text_chunks", "openai_channels"]

T = TypeVar("T")


def _get(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def openai_channels(chunk: Any) -> list[tuple[str, str]]:
    """The ``(channel, text)`` pieces of one OpenAI-style chat-completion chunk.

    Reads ``choices[0].delta.content`` (``content``), ``reasoning_content`` or ``reasoning``
    (``reasoning``) and every ``tool_calls[i].function.arguments`` (``tool_args``); works on
    dicts and on SDK objects alike. Empty pieces are left out.
    """
    choices = _get(chunk, "choices") or []
    if not choices:
        return []
    delta = _get(choices[0], "delta") or {}
    out: list[tuple[str, str]] = []
    content = _get(delta, "content")
    if isinstance(content, str) and content:
        out.append(("content", content))
    reasoning = _get(delta, "reasoning_content") or _get(delta, "reasoning")
    if isinstance(reasoning, str) and reasoning:
        out.append(("reasoning", reasoning))
    for call in _get(delta, "tool_calls") or []:
        args = _get(_get(call, "function"), "arguments")
        if isinstance(args, str) and args:
            out.append(("tool_args", args))
    return out


class GuardedStream(Generic[T]):
    """An iterator over ``source`` that stops when the stream guard fires.

    Parameters
    ----------
    client
        A :class:`~plateau.client.Client` (local or remote).
    source
        The upstream chunks.
    pieces
        Maps one upstream chunk to its ``(channel, text)`` pieces.
    on_fire
        ``"raise"`` (raise :class:`DegenerateOutput`) or ``"stop"`` (end the iteration).
    context
        The request the response answers (the user's last message), or None.

    When ``source`` is exhausted, each channel's last chunk is followed by the end of its stream
    (``end``: :meth:`plateau.stream.StreamGuard.finish`): a response that ended as a loop of a
    short unit fires then (``stream.ending``), after every chunk was yielded -- ``"raise"``
    raises, ``"stop"`` only sets :attr:`fired`.

    Attributes
    ----------
    fired
        True once the guard fired.
    channel, result
        The channel that fired and the guard's :class:`~plateau.stream.GuardResult`.
    texts
        Text received so far per channel (up to and including the firing chunk).
    steer_message
        The last steer message the guard gave (the response keeps restating itself), or None:
        for the harness to inject into the next turn; the stream itself goes on.
    """

    def __init__(self, client: Any, source: Iterable[T], pieces: Any, on_fire: str = "raise", context: str | None = None) -> None:
        if on_fire not in ("raise", "stop"):
            raise InvalidArgument("on_fire", f"must be 'raise' or 'stop', got {on_fire!r}")
        self._client = client
        self._source = source
        self._pieces = pieces
        self.on_fire = on_fire
        self.fired = False
        self.channel: str | None = None
        self.result: Any = None
        self.texts: dict[str, list[str]] = {}
        self.steer_message: str | None = None
        self.context = context
        self._iter: Iterator[T] | None = None

    def truncated_text(self, channel: str | None = None) -> str:
        """The channel's text cut to one copy of the repeated unit plus a marker (whole text
        when the guard has not fired on it)."""
        from plateau.stream import truncate

        name = channel or self.channel or "content"
        text = "".join(self.texts.get(name, ()))
        if self.fired and name == self.channel and self.result is not None:
            return truncate(text, self.result)
        return text

    def __iter__(self) -> Iterator[T]:
        if self._iter is None:
            self._iter = self._run()
        return self._iter

    def _run(self) -> Iterator[T]:
        session = self._client.guard_session(self.context) if self.context else self._client.guard_session()
        try:
            for chunk in self._source:
                for channel, text in self._pieces(chunk):
                    self.texts.setdefault(channel, []).append(text)
                    result = session.feed(channel, text)
                    if getattr(result, "steer", False) and result.message:
                        self.steer_message = result.message
                    if result.fired:
                        self.fired, self.channel, self.result = True, channel, result
                        if self.on_fire == "raise":
                            raise DegenerateOutput(channel, result, self.truncated_text(channel))
                        return
                yield chunk
            # the response is complete: each channel's final verdict (the ending rule)
            for channel in self.texts:
                result = session.feed(channel, "", end=True)
                if result.fired:
                    self.fired, self.channel, self.result = True, channel, result
                    if self.on_fire == "raise":
                        raise DegenerateOutput(channel, result, self.truncated_text(channel))
                    return
        finally:
            session.close()


def guard_text_chunks(
    client: Any, chunks: Iterable[str], channel: str = "content", on_fire: str = "raise", context: str | None = None
) -> GuardedStream[str]:
    """Guard an iterator of text chunks of one channel (``context``: the request it answers)."""
    return GuardedStream(client, chunks, lambda c: [(channel, c)] if c else [], on_fire, context)


def guard_openai_chunks(client: Any, chunks: Iterable[Any], on_fire: str = "raise", context: str | None = None) -> GuardedStream[Any]:
    """Guard an iterator of OpenAI-style chat-completion chunks (dicts or SDK objects; ``context``: the request)."""
    return GuardedStream(client, chunks, openai_channels, on_fire, context)
