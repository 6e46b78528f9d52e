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
    """A FORMAT.md step dict becomes a Step; unknown keys are ignored."""
    step = Step.from_dict(
        {"text": "t", "tool": "bash", "args": {"command": "ls"}, "result": "x", "status": "error",
         "progress": {"tests_passed": 3, "files_changed": ["a.py"]}, "extra": 1},
        index=4,
    )
    assert step.index == 4 and step.status is ToolStatus.ERROR
    assert step.progress == Progress(tests_passed=3, files_changed=("a.py",))


def test_fingerprint_ignores_index_but_not_content() -> None:
    """The fingerprint identifies content: the same step at another index matches, an edit does not."""
    assert Step(index=0, text="a").fingerprint() == Step(index=5, text="a").fingerprint()
    assert Step(index=0, text="a").fingerprint() != Step(index=0, text="b").fingerprint()
