"""Shared fixtures: engines with the test embedder or the real model, a live gRPC server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
EXAMPLES = ROOT / "examples"


def shared_path(*parts: str) -> Path:
    """A path under ``../shared``; skips the test (with the reason) when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared holds the team's benchmark and data; a user's clone has none)")
    return path


@pytest.fixture()
def hashing_engine():  # type: ignore[no-untyped-def]
    """A fresh engine on the deterministic test embedder."""
    from plateau.embed import HashingEmbedder
    from plateau.engine import Engine

    return Engine(embedder=HashingEmbedder())


@pytest.fixture(scope="session")
def real_model():  # type: ignore[no-untyped-def]
    """The real all-MiniLM-L6-v2 model, loaded once per test session."""
    from plateau.embed import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder().load()


@pytest.fixture(scope="session")
def real_cached(real_model):  # type: ignore[no-untyped-def]
    """The real model behind one session-wide embedding cache (each text is embedded once)."""
    from plateau.embed import CachedEmbedder

    return CachedEmbedder(real_model, max_items=100_000)


@pytest.fixture()
def real_engine(real_cached):  # type: ignore[no-untyped-def]
    """A fresh engine (fresh runs) on the real model and the session's embedding cache."""
    from plateau.engine import Engine

    return Engine(embedder=real_cached)


@pytest.fixture(scope="session")
def hashing_server() -> Iterator[str]:
    """A live Plateau gRPC server on 127.0.0.1 (free port) over the test embedder; yields host:port."""
    from plateau.cli import ServerThread
    from plateau.embed import HashingEmbedder
    from plateau.engine import Engine

    with ServerThread(Engine(embedder=HashingEmbedder()), "127.0.0.1", 0) as server:
        yield server.target
