"""Check before the call: what the breaker would say about a tool call, committing nothing."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import random
import re
from pathlib import Path

import pytest

from plateau import AsyncClient, Client
from plateau.cli import ServerThread
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.errors import InvalidArgument, RunNotFound, StepConflict
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


# The messages of a check count the calls that ran (StepFacts.predicted), per detector whose
# message counts this step's call: a check after k such calls says k, the observe of the k-th says
# k, and the observe of the call the check asked about says k + 1 with the same verdict.

MISSING = "ModuleNotFoundError: No module named 'django_extensions'"
NO_FILE = "Error: config/settings.yaml: no such file or directory"
OPENERS = ["read_file", "cat", "open_file", "view_file", "load_yaml", "show_file"]


def _identical(k: int) -> tuple[list[Step], Step]:
    """``k`` identical failing test runs; the next call is the same."""
    call = Step(index=0, text="Running the tests.", tool="bash", args={"cmd": "pytest -x"})
    return [dataclasses.replace(call, index=i, result="FAILED test_a - AssertionError", status="error") for i in range(k)], call


def _same_error(k: int) -> tuple[list[Step], Step]:
    """``k`` migrations with different settings failing with the same error; the next call is the last one again."""
    steps = [
        Step(index=i, text=f"Running the migration with settings {i}.", tool="bash",
             args={"command": f"python manage.py migrate --settings=conf.s{i}"}, result=MISSING, status="error")
        for i in range(k)
    ]
    return steps, Step(index=0, text="Running the migration once more.", tool="bash", args=steps[-1].args)


def _same_outcome(k: int) -> tuple[list[Step], Step]:
    """``k`` different tools opening the same missing file (the same error); the next call is the last one again."""
    steps = [
        Step(index=i, text=f"Opening the settings with {tool}.", tool=tool, args={"path": "config/settings.yaml"}, result=NO_FILE,
             status="error")
        for i, tool in enumerate(OPENERS[:k])
    ]
    return steps, Step(index=0, text="Opening the settings again.", tool=OPENERS[k - 1], args={"path": "config/settings.yaml"})


def _check_then_observe(engine: Engine, steps: list[Step], call: Step, result: str) -> tuple[list, object, object]:  # type: ignore[type-arg]
    """Observe ``steps``, check ``call`` (no result), then observe it with ``result``: the observed
    verdicts, the check's and the call's. The check answers what observing the call answers
    (action, reasons, score, signals); only its words may differ."""
    client = Client.local(engine=engine)
    observed = [client.observe("r", s) for s in steps]
    checked = client.check("r", call)
    after = client.observe("r", dataclasses.replace(call, index=len(steps), result=result, status="error"))
    assert checked.signals["check.predicted_result"] == 1.0
    assert dataclasses.replace(_strip(checked), message=after.message) == after
    return observed, checked, after


@pytest.mark.parametrize(
    ("scenario", "result", "ks", "code", "count"),
    [
        (_identical, "FAILED test_a - AssertionError", (2, 3), "tool.repeat", r"returned the same result (\d+) times"),
        (_same_error, MISSING, (2, 3), "tool.error_repeat", r"bash failed (\d+) times with the same error"),
        (_same_outcome, NO_FILE, (3, 4, 5), "tool.same_outcome", r"(\d+) different calls came back with the same error"),
    ],
    ids=["tool_repeat", "error_repeat", "same_outcome"],
)
def test_each_count_in_a_check_s_message_is_of_the_calls_that_ran(  # type: ignore[no-untyped-def]
    real_engine, scenario, result, ks, code, count
) -> None:
    """After k calls with the evidence, the check of one more says k (as the observe of the k-th
    did, when it had a message), and observing that call says k + 1: the same verdict, the
    words counting what ran."""
    said = []
    for k in ks:
        steps, call = scenario(k)
        observed, checked, after = _check_then_observe(Engine(embedder=real_engine.embedder), steps, call, result)
        assert code in checked.reasons and checked.action in (Action.STEER, Action.TRIP), (k, checked)
        assert checked.message is not None and after.message is not None
        ran = [int(n) for n in re.findall(count, checked.message)]
        assert ran == [k], (k, checked.message)
        assert [int(n) for n in re.findall(count, after.message)] == [k + 1], (k, after.message)
        assert checked.message.replace(f"{k} ", f"{k + 1} ", 1) == after.message
        if observed[-1].message is not None and code in observed[-1].reasons:
            said.append(k)
            assert [int(n) for n in re.findall(count, observed[-1].message)] == [k], (k, observed[-1].message)
    assert said  # the observe after k said k at least once


def test_a_check_counts_the_failing_calls_that_ran_in_the_window_of_calls_that_ran(real_engine: Engine) -> None:
    """Thrash: a hunt for a helper that does not exist (varied calls that fail or find nothing),
    then empty greps. The check of the last grep again trips; its message counts the failing
    calls among the last ``window - 1`` calls that ran (5 of 7), where observing that call says
    6 of the last 8: the check's own call is counted once it has run."""
    from tests.support.hunts import absent_steps as _absent_steps
    from tests.support.hunts import working_steps as _working_steps

    rng = random.Random(7)
    steps = _working_steps(rng, 8) + _absent_steps(8)
    steps += [Step(index=20 + j, text=f"Trying another place {j}.", tool="grep", args={"pattern": f"zz{j}"}, result="") for j in range(3)]
    call = Step(index=0, text="Searching there again.", tool="grep", args={"pattern": "zz2"})
    client = Client.local(engine=real_engine)
    for step in steps:
        client.observe("hunt", step)
    checked = client.check("hunt", call)
    after = client.observe("hunt", dataclasses.replace(call, index=len(steps), result=""))
    assert dataclasses.replace(_strip(checked), message=after.message) == after
    assert checked.action is Action.TRIP and "tool.thrash" in checked.reasons and checked.signals["calls_failing"] == 6
    assert checked.message is not None and after.message is not None
    assert re.findall(r"(\d+) of the last (\d+) calls came back empty", checked.message) == [("5", "7")], checked.message
    assert re.findall(r"(\d+) of the last (\d+) calls came back empty", after.message) == [("6", "8")], after.message


def test_statements_of_no_change_in_a_check_are_counted_its_text_was_written(real_engine: Engine) -> None:
    """``text.unchanged`` counts what the steps say, not calls: the text of a checked step was
    written, so the check counts it as observing the step does (a fix refused, then re-checks
    that each say nothing changed; the check repeats an earlier probe, not the previous one)."""
    from tests.support.hunts import NAMES, RESTATED, explore

    rng = random.Random(31)
    steps = explore(rng, 5)
    index = {"sql": "CREATE INDEX CONCURRENTLY idx_orders ON payments (order_id)"}
    steps.append(Step(index=5, text="Recreating the index.", tool="psql", args=index, result="ERROR:  must be owner of table payments",
                      status="error"))
    for k, text in enumerate(RESTATED[:3]):
        steps.append(Step(index=len(steps), text=text, tool=f"probe_{k}", args={"q": f"check {k}"},
                          result=" ".join(rng.sample(NAMES, 5)) + f" value {rng.randrange(1000)}", status="ok"))
    client = Client.local(engine=real_engine)
    observed = [client.observe("plateau", s) for s in steps]
    assert observed[-1].message is not None and "3 steps since anything was done" in observed[-1].message
    call = Step(index=0, text=RESTATED[3], tool="probe_0", args={"q": "check 0"})
    checked = client.check("plateau", call)
    assert checked.signals["check.predicted_result"] == 1.0 and checked.reasons == ("text.unchanged",)
    after = client.observe("plateau", dataclasses.replace(call, index=len(steps), result=steps[6].result, status="ok"))
    assert _strip(checked) == after
    assert checked.message is not None and "4 steps since anything was done" in checked.message


def _count_args_parses(monkeypatch: pytest.MonkeyPatch, size: int) -> list[int]:
    """Record the length of every ``json.loads`` input at least ``size`` characters long."""
    import json

    real = json.loads
    seen: list[int] = []

    def counting(s, *a, **kw):  # type: ignore[no-untyped-def]
        if isinstance(s, (str, bytes)) and len(s) >= size:
            seen.append(len(s))
        return real(s, *a, **kw)

    monkeypatch.setattr(json, "loads", counting)
    return seen


def test_a_check_parses_its_args_once_per_reader_kind_not_once_per_detector(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 22, item 2: megabytes of args cost one parse per form (canonical, normalised,
    strings), computed once per step and shared by every detector and by the step's copies
    (``Step.replace``); it was seven parses of the same text for one ``Check``."""
    args = {f"k{i:07d}": i % 10 for i in range(20_000)}
    engine = Engine(embedder=HashingEmbedder())
    for s in _failing_run()[:2]:
        engine.observe("r", s)
    step = Step(index=2, text="Writing the table.", tool="write", args=args)
    big = len(step.args) // 2
    seen = _count_args_parses(monkeypatch, big)
    engine.check("r", step)
    assert len(seen) <= 2, seen  # the normalised form, the strings; never the canonical text again


def test_step_replace_validates_only_what_changes_and_keeps_args_facts() -> None:
    """``Step.replace`` re-validates changed fields only; derived args facts survive a copy with
    the same args and are dropped with new args; bad input is refused naming the field."""
    step = Step(index=0, text="t", tool="write", args={"b": 1, "a": 2})
    assert step.args_derived("n", lambda a: a + "!") == '{"a":2,"b":1}!'
    copy = step.replace(index=3, result="ok")
    assert (copy.index, copy.result, copy.args) == (3, "ok", step.args)
    assert copy.args_derived("n", lambda a: "recomputed") == '{"a":2,"b":1}!'
    other = step.replace(args={"c": 1})
    assert other.args == '{"c":1}' and other.args_derived("n", lambda a: a) == '{"c":1}'
    assert copy == dataclasses.replace(step, index=3, result="ok")
    with pytest.raises(InvalidArgument, match="step.index"):
        step.replace(index=-1)
    with pytest.raises(InvalidArgument, match="step.args"):
        step.replace(args="[1]")
    with pytest.raises(TypeError, match="no field 'reslt'"):
        step.replace(reslt="x")
    import pickle

    assert "_args_derived" not in pickle.loads(pickle.dumps(step)).__dict__
