"""Validation of the values that cross Plateau's boundaries."""

from __future__ import annotations

import math

import pytest

from plateau.errors import InvalidArgument
from plateau.types import Progress, Step, ToolStatus

BAD_STEPS = [
    ({"index": -1}, "step.index"),
    ({"index": 1.5}, "step.index"),
    ({"index": 0, "text": 3}, "step.text"),
    ({"index": 0, "args": "[1, 2]"}, "step.args"),
    ({"index": 0, "args": "{not json"}, "step.args"),
    ({"index": 0, "args": b"{\"a\": \"\xff\"}"}, "step.args"),
    ({"index": 0, "args": {"x": math.nan}}, "step.args"),
    ({"index": 0, "status": "maybe"}, "step.status"),
    ({"index": 0, "progress": {"tests_passed": -1}}, "step.progress.tests_passed"),
    ({"index": 0, "progress": {"metric": math.inf}}, "step.progress.metric"),
    ({"index": 0, "result": 7}, "step.result"),
]


@pytest.mark.parametrize(("fields", "name"), BAD_STEPS)
def test_bad_step_field_is_named(fields: dict, name: str) -> None:
    """Every malformed step field raises InvalidArgument (a ValueError) naming that field."""
    with pytest.raises(InvalidArgument) as info:
        Step(**fields)
    assert isinstance(info.value, ValueError)
    assert info.value.field == name
    assert str(info.value).startswith(name)


def test_args_are_canonical_json() -> None:
    """Args given as a mapping, JSON text or UTF-8 bytes become the same canonical text."""
    a = Step(index=0, args={"b": 1, "a": "é"})
    b = Step(index=0, args='{"a": "é", "b": 1}')
    c = Step(index=0, args='{"a":"é","b":1}'.encode())
    assert a.args == b.args == c.args == '{"a":"é","b":1}'
    assert a.fingerprint() == b.fingerprint()


def test_from_dict_reads_the_case_format() -> None:
    """A docs/format.md step dict becomes a Step; ``index`` and ``_private`` keys are skipped."""
    step = Step.from_dict(
        {"text": "t", "tool": "bash", "args": {"command": "ls"}, "result": "x", "status": "error",
         "progress": {"tests_passed": 3, "files_changed": ["a.py"], "pages_done": 2}, "index": 9, "_said": "x"},
        index=4,
    )
    assert step.index == 4 and step.status is ToolStatus.ERROR
    assert step.progress == Progress(tests_passed=3, files_changed=("a.py",))  # progress keys of its own are allowed


@pytest.mark.parametrize(("key", "hint"), [("reslt", "did you mean 'result'?"), ("extra", ""), ("Text", "did you mean 'text'?")])
def test_an_unknown_step_field_is_an_error_naming_it(key: str, hint: str) -> None:
    """A misspelt or unknown step key raises InvalidArgument naming ``step.KEY`` (and the field it resembles), never dropped."""
    with pytest.raises(InvalidArgument) as exc:
        Step.from_dict({"text": "t", key: "x"}, index=0)
    assert exc.value.field == f"step.{key}" and str(exc.value).startswith(f"step.{key}: unknown field")
    assert hint in str(exc.value)


def test_clients_and_sessions_refuse_an_unknown_step_field(hashing_engine, hashing_server: str) -> None:  # type: ignore[no-untyped-def]
    """``observe``/``check`` with a mapping holding ``reslt``, in process, remote and through a session: InvalidArgument
    naming ``step.reslt``, and the run is left without the step."""
    from plateau import Client

    for client in (Client.local(engine=hashing_engine), Client.remote(hashing_server)):
        with client:
            typo = {"index": 0, "text": "Reading.", "reslt": "ok"}
            for call, args in ((client.observe, ("typo", typo)), (client.check, ("typo", typo))):
                with pytest.raises(InvalidArgument, match=r"^step\.reslt: unknown field .*did you mean 'result'\?"):
                    call(*args)
            with pytest.raises(InvalidArgument, match=r"^step\.reslt: unknown field"):
                client.session("typo-s").observe(text="Reading.", reslt="ok")
            assert client.observe("typo", {"index": 0, "text": "Reading.", "result": "ok"}).step_index == 0


def test_fingerprint_ignores_index_but_not_content() -> None:
    """The fingerprint identifies content: the same step at another index matches, an edit does not."""
    assert Step(index=0, text="a").fingerprint() == Step(index=5, text="a").fingerprint()
    assert Step(index=0, text="a").fingerprint() != Step(index=0, text="b").fingerprint()
