"""Stream guards for one model response with several channels.

:class:`ChannelGuards` keeps one :class:`~plateau.stream.StreamGuard` per channel
(``content``, ``reasoning``, ``tool_args``), created on first use, and validates the channel
name (``InvalidArgument`` naming ``channel``).
"""

from __future__ import annotations

from plateau.errors import InvalidArgument
from plateau.stream import GuardResult, StreamGuard, StreamGuardConfig

__all__ = ["CHANNELS", "ChannelGuards"]

#: Channels a streamed response may carry.
CHANNELS = ("content", "reasoning", "tool_args")


class ChannelGuards:
    """One stream guard per channel of a single streamed response.

    Parameters
    ----------
    config
        Passed to every :class:`~plateau.stream.StreamGuard`; the default when None.
    """

    def __init__(self, config: StreamGuardConfig | None = None) -> None:
        self.config = config
        self._guards: dict[str, StreamGuard] = {}

    def feed(self, channel: str, chunk: str) -> GuardResult:
        """Feed ``chunk`` to ``channel``'s guard (``""`` means ``content``) and return its result."""
        channel = channel or "content"
        if channel not in CHANNELS:
            raise InvalidArgument("channel", f"must be one of {', '.join(CHANNELS)}; got {channel!r}")
        if not isinstance(chunk, str):
            raise InvalidArgument("chunk", "must be a string")
        guard = self._guards.get(channel)
        if guard is None:
            guard = self._guards[channel] = StreamGuard(channel, self.config)
        return guard.feed(chunk)
