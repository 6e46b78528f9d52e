"""Check before the call: what the breaker would say about a tool call, committing nothing."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import re
from pathlib import Path

import pytest

from plateau import AsyncClient, Client
from plateau.cli import ServerThread
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.errors import RunNotFound, StepConflict
from plateau.store.sqlite import SqliteStore
from plateau.types import Action, Step

FAILING = "Error: patch failed at hunk 1: expected 'return total' at line 42 of billing/invoice.py"


def _failing_run() -> list[Step]:
    """A run that reads a file, then applies the same failing patch three times."""
    steps = [
        Step(index=0, text="Reading the invoice module.", tool="read_file", args={"path": "billing/invoice.py"}, result="def total(): ...")
    ]
    for i in range(1, 4):
        steps.append(
            Step(
                index=i,
                text=f"Attempt {i}: applying the rounding fix again.",
                tool="apply_patch",
                args={"path": "billing/invoice.py", "patch": "-return total\n+return round(total, 2)"},
                result=FAILING,
                status="error",
            )
        )
    return steps


def _strip(verdict):  # type: ignore[no-untyped-def]
    signals = {k: v for k, v in verdict.signals.items() if k != "check.predicted_result"}
    return dataclasses.replace(verdict, signals=signals)


def test_check_predicts_the_repeat_of_a_failing_call_and_changes_nothing(real_engine: Engine) -> None:
    """After three identical failed patches, checking a fourth (no result yet) answers what observing it answers; the run is untouched."""
    client = Client.local(engine=real_engine)
    for step in _failing_run():
        client.observe("fix", step, context="Fix the rounding bug in billing")
    before = client.get_run("fix")
    call = Step(
        index=99,
        text="Trying the patch once more.",
        tool="apply_patch",
        args={"path": "billing/invoice.py", "patch": "-return total\n+return round(total, 2)"},
    )
    checked = client.check("fix", call)
    assert checked.step_index == 4 and checked.signals["check.predicted_result"] == 1.0
    assert checked.action is Action.TRIP and "tool.repeat" in checked.reasons
    assert client.check("fix", call) == checked  # asking twice changes nothing either
    assert client.get_run("fix") == before
    observed = client.observe("fix", dataclasses.replace(call, index=4, result=FAILING, status="error"))
    # the same verdict, except that the check's message counts the three calls that ran, the observed one the four
    assert checked.message is not None and observed.message is not None
    assert "returned the same result 3 times" in checked.message and "returned the same result 4 times" in observed.message
    assert checked.message.replace("3 times", "4 times") == observed.message
    assert dataclasses.replace(_strip(checked), message=observed.message) == observed


def test_the_check_s_message_counts_the_calls_that_ran(hashing_engine: Engine) -> None:
    """Each check before the next identical failing call names exactly as many repeats as calls were observed."""
    client = Client.local(engine=hashing_engine)
    call = {"text": "Running the tests.", "tool": "bash", "args": {"cmd": "pytest -x"}}
    counted = []
    for ran in range(6):
        checked = client.check("count", call)
        if checked.message is not None and checked.signals.get("check.predicted_result") == 1.0:
            counts = re.findall(r"returned the same result (once|\d+ times)|failed (once|\d+ times) with", checked.message)
            assert counts, checked.message
            counted.append((ran, {c for pair in counts for c in pair if c}))
        verdict = client.observe("count", {"index": ran, **call, "result": "FAILED test_a - AssertionError", "status": "error"})
        if verdict.action is Action.TRIP:
            break
    assert counted and all(found == {"once" if ran == 1 else f"{ran} times"} for ran, found in counted), counted
    assert any(ran >= 3 for ran, _ in counted)  # up to the trip


def test_check_of_a_new_call_is_judged_without_a_result(real_engine: Engine) -> None:
    """A call the run never made gets no predicted result, and checking an unknown run creates no run."""
    client = Client.local(engine=real_engine)
    for step in _failing_run():
        client.observe("fix2", step)
    fresh = client.check("fix2", Step(index=0, tool="run_tests", args={"path": "tests/test_invoice.py"}))
    assert "check.predicted_result" not in fresh.signals and fresh.action is Action.CONTINUE
    first = client.check("nobody-yet", Step(index=0, text="Starting.", tool="ls", args={}))
    assert first.step_index == 0 and first.action is Action.CONTINUE
    with pytest.raises(RunNotFound):
        client.get_run("nobody-yet")


def _digest(path: Path) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in sorted(path.parent.glob(path.name + "*")))).hexdigest()


def test_check_over_grpc_commits_nothing_to_a_durable_store(tmp_path: Path) -> None:
    """Through a server on SQLite, Check (blocking and asyncio clients) leaves the database bytes and the run as they were."""
    db = tmp_path / "runs.sqlite"
    engine = Engine(embedder=HashingEmbedder(), store=SqliteStore(db))
    try:
        with ServerThread(engine) as server, Client.remote(server.target) as client:
            for step in _failing_run():
                client.observe("wire", step)
            before_info, before_bytes = client.get_run("wire"), _digest(db)
            call = Step(index=0, tool="apply_patch", args={"path": "billing/invoice.py", "patch": "-return total\n+return round(total, 2)"})
            sync_verdict = client.check("wire", call)

            async def async_check():  # type: ignore[no-untyped-def]
                async with AsyncClient.remote(server.target) as aclient:
                    return await aclient.check("wire", call)

            async_verdict = asyncio.run(async_check())
            assert sync_verdict == async_verdict and sync_verdict.action is Action.TRIP
            assert client.get_run("wire") == before_info and _digest(db) == before_bytes
            client.end_run("wire")
            with pytest.raises(StepConflict, match="ended"):
                client.check("wire", call)
    finally:
        engine.close()
