"""Client.local and Client.remote give identical verdicts, run states and errors."""

from __future__ import annotations

import pytest

from plateau.cli import ServerThread
from plateau.client import Client
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.errors import PlateauError
from plateau.replay import load_runs
from tests.support.paths import EXAMPLES, SHARED


def _runs():  # type: ignore[no-untyped-def]
    paths = [EXAMPLES]
    if (SHARED / "benchmark" / "steps").is_dir():
        paths.append(SHARED / "benchmark" / "steps")
    return load_runs(paths)


def _replay(client: Client) -> list:  # type: ignore[type-arg]
    out = []
    for run in _runs():
        from plateau.types import Step

        steps = [Step.from_dict(s, i) for i, s in enumerate(run.steps)]
        out.append(list(client.observe_many(run.id, steps, run.context)))
        out.append(client.get_run(run.id))
    first = _runs()[0].id
    errors = (
        lambda c: c.get_run("missing"),  # NOT_FOUND
        lambda c: c.observe("", {"index": 0, "text": "x"}),  # INVALID_ARGUMENT: run_id
        lambda c: c.observe(first, {"index": 999, "text": "x"}),  # FAILED_PRECONDITION: a gap
        lambda c: c.observe(first, {"index": 0, "text": "not what step 0 said"}),  # conflicting re-send
    )
    for call in errors:
        try:
            call(client)
        except PlateauError as exc:
            out.append((type(exc), str(exc)))
    return out


def test_local_and_remote_replays_are_identical() -> None:
    """Every labelled case replayed through both clients yields equal verdicts, states and errors."""
    local = _replay(Client.local(embedder=HashingEmbedder()))
    with ServerThread(Engine(embedder=HashingEmbedder())) as server, Client.remote(server.target) as client:
        remote = _replay(client)
    assert len(local) > 4
    raised = [entry for entry in local if isinstance(entry, tuple)]
    assert len(raised) == 4, "every error request must raise, on both clients"
    assert local == remote


@pytest.mark.model
def test_local_and_remote_agree_with_the_real_model(real_cached) -> None:  # type: ignore[no-untyped-def]
    """The same congruence holds with the real embedding model (vectors shared through one cache)."""
    local = _replay(Client.local(embedder=real_cached))
    with ServerThread(Engine(embedder=real_cached)) as server, Client.remote(server.target) as client:
        remote = _replay(client)
    assert local == remote


def test_local_stream_guard_embeds_with_the_engines_embedder_as_the_server_does() -> None:
    """The in-process stream guard's semantic layer uses the engine's embedder, as the server's
    ``GuardStream`` does (``plateau guard`` checks the verdicts this gives on the real model)."""
    with Client.local(embedder=HashingEmbedder()) as client:
        backend = client._backend
        assert backend.stream_embedder is backend.engine.embedder is not None
        assert backend.semantic_background
