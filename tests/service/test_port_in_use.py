"""A second server on a port already in use fails at start with a clear error (issue: two
servers on one port would split a run's steps between them)."""

from __future__ import annotations

import asyncio

import pytest

from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.server import start_server


def test_a_second_server_on_a_port_in_use_refuses_to_start() -> None:
    async def scenario() -> str:
        first = await start_server(Engine(embedder=HashingEmbedder()), "127.0.0.1", 0)
        try:
            with pytest.raises(RuntimeError) as info:
                await start_server(Engine(embedder=HashingEmbedder()), "127.0.0.1", first.port)
            return str(info.value)
        finally:
            first.sweeper.cancel()
            await first.server.stop(None)

    message = asyncio.run(scenario())
    assert "cannot bind 127.0.0.1:" in message and "already listens" in message
