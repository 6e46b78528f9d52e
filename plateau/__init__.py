"""Plateau: a circuit breaker for LLM agents."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["StreamGuard", "__version__"]


def __getattr__(name: str) -> object:
    # lazy: importing plateau must stay cheap (no numpy for the remote client)
    if name == "StreamGuard":
        from plateau.stream import StreamGuard

        return StreamGuard
    raise AttributeError(f"module 'plateau' has no attribute {name!r}")
