"""Shared fixtures (engines with the test embedder or the real model, a live gRPC server) and the
``shared`` marker: a test that needs ``../shared`` is skipped when it is absent and the run's
summary says how many were, and which (never silently)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.support.paths import SHARED_SKIP, shared_path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a test marked ``shared(*parts)`` when ``../shared/<parts>`` is absent (before its fixtures load a model)."""
    for mark in item.iter_markers("shared"):
        shared_path(*mark.args)


def skipped_for_shared(reports: list[pytest.TestReport]) -> list[str]:
    """The node ids of the skipped ``reports`` whose reason opens with :data:`SHARED_SKIP`, in order, once each."""
    found: dict[str, None] = {}
    for report in reports:
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        if reason.removeprefix("Skipped: ").startswith(SHARED_SKIP):
            found[report.nodeid] = None
    return list(found)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    """One line naming the tests skipped for lack of ``../shared``; nothing when none were."""
    missed = skipped_for_shared(terminalreporter.stats.get("skipped", []))
    if missed:
        need = "test needs" if len(missed) == 1 else "tests need"
        terminalreporter.write_line(f"{len(missed)} {need} ../shared (the benchmark and real runs) and were skipped: {', '.join(missed)}",
                                    yellow=True, bold=True)


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
