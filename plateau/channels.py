"""Stream guards for one model response with several channels.

:class:`ChannelGuards` keeps one :class:`~plateau.stream.StreamGuard` per channel
(``content``, ``reasoning``, ``tool_args``), created on first use, and validates the channel
name (``InvalidArgument`` naming ``channel``). The request the response answers (its
*context*) is shared by every channel; it may be given up front or with the first chunk that
carries it (as ``GuardStream`` does).
"""

from __future__ import annotations

from typing import Any

from plateau.errors import InvalidArgument
from plateau.stream import GuardResult, RequestContext, StreamGuard, StreamGuardConfig

__all__ = ["CHANNELS", "ChannelGuards", "guard_item"]

#: Channels a streamed response may carry.
CHANNELS = ("content", "reasoning", "tool_args")


def guard_item(item: Any) -> tuple[str, str, bool]:
    """``(channel, chunk, end)`` of one item of a guarded stream: a ``content`` chunk, a
    ``(channel, chunk)`` pair or a ``(channel, chunk, end)`` triple (``end``: the channel's last
    chunk, :meth:`ChannelGuards.feed`)."""
    if isinstance(item, tuple):
        if len(item) == 3:
            return item[0], item[1], bool(item[2])
        if len(item) == 2:
            return item[0], item[1], False
        raise InvalidArgument(
            "chunk", f"a stream item is a chunk, a (channel, chunk) pair or a (channel, chunk, end) triple; got a tuple of {len(item)}"
        )
    return "content", item, False


class ChannelGuards:
    """One stream guard per channel of a single streamed response.

    Parameters
    ----------
    config
        Passed to every :class:`~plateau.stream.StreamGuard`; the default when None.
    context
        The request (the user's last message), or None.
    embedder
        An :class:`~plateau.embed.Embedder` for the semantic layer of the ``content`` and
        ``reasoning`` guards, or None (off).
    semantic_background
        Embed on a background thread (default) or synchronously (deterministic).
    """

    def __init__(
        self,
        config: StreamGuardConfig | None = None,
        *,
        context: str | None = None,
        embedder: Any = None,
        semantic_background: bool = True,
    ) -> None:
        self.config = config
        self.embedder = embedder
        self.semantic_background = semantic_background
        self.context = RequestContext.parse(context)
        self._guards: dict[str, StreamGuard] = {}

    def feed(self, channel: str, chunk: str, context: str = "", end: bool = False) -> GuardResult:
        """Feed ``chunk`` to ``channel``'s guard (``""`` means ``content``) and return its result.

        A non-empty ``context`` that arrives before any context was set becomes the request of
        every channel (later ones are ignored). ``end`` says that ``chunk`` is the channel's
        last: the result is the guard's final one (:meth:`~plateau.stream.StreamGuard.finish`),
        and a later chunk on that channel is refused (``InvalidArgument`` naming ``channel``).
        """
        channel = channel or "content"
        if channel not in CHANNELS:
            raise InvalidArgument("channel", f"must be one of {', '.join(CHANNELS)}; got {channel!r}")
        if not isinstance(chunk, str):
            raise InvalidArgument("chunk", "must be a string")
        if context:
            if not isinstance(context, str):
                raise InvalidArgument("context", "must be a string")
            if not self.context.text:
                self.context = RequestContext.parse(context)
                for other in self._guards.values():
                    other.set_context(self.context)
        guard = self._guards.get(channel)
        if guard is None:
            guard = self._guards[channel] = StreamGuard(
                channel, self.config, context=self.context, embedder=self.embedder, semantic_background=self.semantic_background
            )
        elif guard.finished:
            raise InvalidArgument("channel", f"{channel!r} has ended (a chunk with end set was sent); start a new call for a new response")
        result = guard.feed(chunk)
        return guard.finish() if end else result
