"""AsyncClient (local and over grpc.aio) and RunSession: the blocking client's API, types and errors."""

from __future__ import annotations

import asyncio

import pytest

from plateau import AsyncClient, Client
from plateau.cli import ServerThread
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.errors import InvalidArgument, RunNotFound, StepConflict
from plateau.types import Action, Step

STEPS = [
    {"text": "Reading the config.", "tool": "read_file", "args": {"path": "app.yaml"}, "result": "port: 8080"},
    {
        "text": "Running the tests.",
        "tool": "pytest",
        "args": {"path": "tests"},
        "result": "FAILED test_port - AssertionError",
        "status": "error",
    },
    {
        "text": "Running the tests again.",
        "tool": "pytest",
        "args": {"path": "tests"},
        "result": "FAILED test_port - AssertionError",
        "status": "error",
    },
    {"text": "Once more.", "tool": "pytest", "args": {"path": "tests"}, "result": "FAILED test_port - AssertionError", "status": "error"},
    {"text": "And again.", "tool": "pytest", "args": {"path": "tests"}, "result": "FAILED test_port - AssertionError", "status": "error"},
]


async def _exercise(client: AsyncClient, run: str) -> dict:  # type: ignore[type-arg]
    """Every method once, returning what a congruence check compares."""
    out: dict = {}  # type: ignore[type-arg]
    out["observe"] = [await client.observe(run, Step.from_dict(s, i), context="fix the port test") for i, s in enumerate(STEPS[:2])]
    out["check"] = await client.check(run, {"tool": "pytest", "args": {"path": "tests"}})
    out["many"] = [v async for v in client.observe_many(run + "-many", STEPS)]
    out["info"] = await client.get_run(run)
    out["reset"] = await client.reset_run(run)
    out["end"] = await client.end_run(run)
    out["deleted"] = await client.delete_run(run)
    with pytest.raises(RunNotFound):
        await client.get_run(run)
    with pytest.raises(RunNotFound):
        await client.get_run(run + "-nobody")
    with pytest.raises(InvalidArgument, match="step.args"):
        await client.observe(run, {"index": 0, "args": "[1]"})
    with pytest.raises(StepConflict):
        await client.observe(run, Step(index=5, text="late"))
    out["guard"] = [r.fired async for r in client.guard_stream(["ha " * 10] * 40, context="say something")]
    session = client.session(context="fix the port test")
    out["session"] = [(await session.observe(s)).step_index for s in STEPS]
    out["session_last"] = session.last.action if session.last else None
    out["session_check"] = (await session.check(tool="pytest", args={"path": "tests"})).step_index
    return out


def test_async_local_and_remote_agree_with_the_blocking_client() -> None:
    """The same calls through AsyncClient.local, AsyncClient.remote and Client.remote give equal results."""
    engine = Engine(embedder=HashingEmbedder())
    with ServerThread(Engine(embedder=HashingEmbedder())) as server:

        async def both() -> tuple[dict, dict]:  # type: ignore[type-arg]
            local = AsyncClient.local(engine=engine)
            async with AsyncClient.remote(server.target) as remote:
                return await _exercise(local, "a"), await _exercise(remote, "a")

        local_out, remote_out = asyncio.run(both())
        with Client.remote(server.target) as blocking:
            blocking_many = list(blocking.observe_many("b-many", STEPS))
    assert local_out == remote_out
    assert [v.action for v in blocking_many] == [v.action for v in local_out["many"]]
    assert local_out["session"] == [0, 1, 2, 3, 4] and local_out["session_check"] == 5
    assert local_out["check"].step_index == 2 and local_out["guard"][-1] is True
    assert local_out["many"][-1].action is Action.TRIP


def test_run_session_numbers_steps_and_owns_the_run_id(hashing_engine: Engine) -> None:
    """A session gives fresh ids, numbers steps from next_index, and rejects a step plus keyword fields."""
    client = Client.local(engine=hashing_engine)
    one, two = client.session(), client.session()
    assert one.run_id != two.run_id and one.run_id.startswith("run-")
    assert [one.observe(text=f"step {i}").step_index for i in range(3)] == [0, 1, 2]
    assert one.info().steps == 3
    resumed = client.session(one.run_id, next_index=one.info().steps)
    assert resumed.observe(Step(index=42, text="continuing")).step_index == 3
    with pytest.raises(InvalidArgument, match="step"):
        one.observe({"text": "a"}, tool="b")
    with pytest.raises(InvalidArgument, match="next_index"):
        client.session(next_index=-1)
    assert one.end().ended


def test_async_client_has_every_public_method_of_the_client() -> None:
    """Every public method of Client exists on AsyncClient (a coroutine or async iterator there)."""
    public = {n for n in dir(Client) if not n.startswith("_") and callable(getattr(Client, n))}
    assert public - {"close"} <= {n for n in dir(AsyncClient) if not n.startswith("_")}


def test_async_guard_session_local_and_remote_agree(hashing_server: str) -> None:
    """An async guard session fires on the same chunk in process and over grpc.aio."""
    chunks = ["The answer is 4. "] + ["and again and again " * 3] * 60

    async def fired_at(client: AsyncClient) -> int | None:
        guard = client.guard_session()
        try:
            for i, chunk in enumerate(chunks):
                if (await guard.feed("content", chunk)).fired:
                    return i
            return None
        finally:
            await guard.close()

    async def main() -> tuple[int | None, int | None]:
        async with AsyncClient.remote(hashing_server) as remote:
            return await fired_at(AsyncClient.local(engine=Engine(embedder=HashingEmbedder()))), await fired_at(remote)

    local, remote = asyncio.run(main())
    assert local is not None and local == remote


def test_async_remote_takes_several_targets_like_the_blocking_client(hashing_server: str) -> None:
    """AsyncClient.remote([dead, live]) reaches the live server (the same service config as Client.remote)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"127.0.0.1:{s.getsockname()[1]}"

    async def main() -> list[int]:
        async with AsyncClient.remote([dead, hashing_server], timeout=20) as client:
            return [(await client.observe("multi-async", Step(index=i, text=f"step {i}"))).step_index for i in range(4)]

    assert asyncio.run(main()) == [0, 1, 2, 3]


def test_the_end_of_a_stream_fires_the_ending_rule_in_process_and_over_grpc(hashing_server: str) -> None:
    """A response that ends as a short loop fires on its last chunk, sent with ``end``, through
    every client: blocking and async, in process and over gRPC; a chunk after the end is
    INVALID_ARGUMENT naming ``channel`` and leaves the verdict as it was."""
    text = "a " + "2 " * 26 + "2"  # 55 characters: under every mid-stream floor
    chunks = [text[i : i + 7] for i in range(0, len(text), 7)]
    last = len(chunks) - 1

    def blocking(client: Client) -> list[tuple[bool, str | None]]:
        session = client.guard_session()
        try:
            out = [(r.fired, r.reason) for r in (session.feed("content", c, end=i == last) for i, c in enumerate(chunks))]
            with pytest.raises(InvalidArgument) as err:
                session.feed("content", "more")
            assert err.value.field == "channel"
            return out
        finally:
            session.close()

    async def aio(client: AsyncClient) -> list[tuple[bool, str | None]]:
        out = [(r.fired, r.reason) async for r in client.guard_stream([("content", c, i == last) for i, c in enumerate(chunks)])]
        session = client.guard_session()
        try:
            for i, c in enumerate(chunks):
                r = await session.feed("content", c, end=i == last)
            assert (r.fired, r.reason) == out[-1]
        finally:
            await session.close()
        return out

    async def both() -> tuple[list[tuple[bool, str | None]], list[tuple[bool, str | None]]]:
        async with AsyncClient.remote(hashing_server) as remote:
            return await aio(AsyncClient.local(engine=Engine(embedder=HashingEmbedder()))), await aio(remote)

    want = [(False, None)] * last + [(True, "stream.ending")]
    with Client.remote(hashing_server) as remote:
        assert blocking(remote) == want
        assert [(r.fired, r.reason) for r in remote.guard_stream([("content", c, i == last) for i, c in enumerate(chunks)])] == want
    assert blocking(Client.local(engine=Engine(embedder=HashingEmbedder()))) == want
    local, over_grpc = asyncio.run(both())
    assert local == over_grpc == want
