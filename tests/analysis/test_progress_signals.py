"""The structural signals: canonical tool signatures, repeats and repeated errors."""

from __future__ import annotations

import random

from plateau.signals.progress import (
    ProgressTracker,
    error_identity,
    error_skeleton,
    is_error,
    normalize_volatile,
    normalized_args,
    report_findings,
    tool_signature,
)
from plateau.types import Step


def test_volatile_values_are_masked() -> None:
    """Timestamps, UUIDs, hex ids, PIDs, durations and temp paths become placeholders."""
    text = (
        "2024-06-11T14:06:12.345Z req 3f2a9c1e-77b0-4c1d-9e2f-0123456789ab commit a3f9c2e81b "
        "pid=48211 took 1.25s wrote /tmp/pytest-of-root/pytest-7/out.json at 14:06:12"
    )
    assert normalize_volatile(text) == "<ts> req <uuid> commit <hex> pid=<n> took <dur> wrote <tmp> at <time>"


def test_plain_numbers_survive_normalisation() -> None:
    """Counts that carry progress ('3 of 6 replicas') are not masked."""
    assert normalize_volatile("3 of 6 updated replicas") == "3 of 6 updated replicas"


def test_normalized_args_sort_keys_and_drop_request_ids() -> None:
    """Key order and request ids do not change the canonical arguments."""
    a = normalized_args('{"b": 1, "a": "x", "request_id": "r-1"}')
    b = normalized_args('{"a": "x", "b": 1, "request_id": "r-2"}')
    assert a == b == '{"a":"x","b":1}'


def test_signature_ignores_volatile_result_parts() -> None:
    """The same call whose result differs only in a timestamp has one signature."""
    s1 = Step(index=0, tool="status", args={"id": 1}, result="ok at 2024-01-01T10:00:00Z")
    s2 = Step(index=1, tool="status", args={"id": 1}, result="ok at 2024-01-01T10:05:00Z")
    s3 = Step(index=2, tool="status", args={"id": 1}, result="done at 2024-01-01T10:05:00Z")
    assert tool_signature(s1) == tool_signature(s2) != tool_signature(s3)


def test_errors_are_inferred_from_results() -> None:
    """Tracebacks, 'Error:' prefixes and E999-style lints count as errors; plain output does not."""
    assert is_error(Step(index=0, tool="bash", result="Traceback (most recent call last):\n  ...\nValueError: x"))
    assert is_error(Step(index=0, tool="edit", result="Your edit has errors.\nERRORS:\n- E999 SyntaxError"))
    assert not is_error(Step(index=0, tool="bash", result="42 passed in 0.8s"))
    assert is_error(Step(index=0, tool="bash", result="fine", status="error"))


def test_error_skeleton_masks_line_numbers() -> None:
    """Two tracebacks that differ only in line numbers share a skeleton."""
    a = error_skeleton('File "a.py", line 12\nSyntaxError: invalid syntax')
    b = error_skeleton('File "a.py", line 40\nSyntaxError: invalid syntax')
    assert a == b == "SyntaxError: invalid syntax"


def _failing(i: int, text: str = "retry") -> Step:
    return Step(index=i, text=text, tool="replace", args={"old": "timeout: 30", "new": "timeout: 60"},
                result="Error: expected 1 occurrence but found 3.")


def test_repeat_and_error_counts_climb_then_reset_on_progress() -> None:
    """Identical failing calls count 1, 2, 3; a new best test count resets both counts."""
    tracker = ProgressTracker(window=8)
    tracker.update(Step(index=0, tool="bash", args={"c": "pytest"}, result="10 passed", progress={"tests_passed": 10}))
    counts = [(s.repeat_count, s.error_count) for s in (tracker.update(_failing(i)) for i in range(1, 4))]
    assert counts == [(1, 1), (2, 2), (3, 3)]
    progress = tracker.update(Step(index=4, tool="bash", args={"c": "pytest"}, result="12 passed",
                                   progress={"tests_passed": 12, "files_changed": ["a.py"]}))
    assert progress.progress
    after = tracker.update(_failing(5))
    assert (after.repeat_count, after.error_count) == (1, 1)


def test_success_of_a_close_variant_ends_its_error_streak() -> None:
    """The failing call, retried with a local correction, succeeding resets that error's count."""
    tracker = ProgressTracker(window=8)
    tracker.update(_failing(0))
    tracker.update(_failing(1))
    tracker.update(Step(index=2, tool="replace", args={"old": "timeout: 30", "new": "timeout: 60", "count": 3}, result="Edited 3 lines"))
    assert tracker.update(_failing(3)).error_count == 1


def test_success_of_another_call_of_the_tool_does_not_end_the_error_streak() -> None:
    """Another call of the same tool succeeding (an edit elsewhere) says nothing about the
    failing one: the same error after it is the same failure (issue 11)."""
    tracker = ProgressTracker(window=8)
    tracker.update(_failing(0))
    tracker.update(_failing(1))
    tracker.update(Step(index=2, tool="replace", args={"old": "a"}, result="Edited 1 file"))
    assert tracker.update(_failing(3)).error_count == 3


def test_a_poller_whose_output_changes_does_not_repeat() -> None:
    """The same command with a changing result never counts as a repeat."""
    tracker = ProgressTracker(window=8)
    sig = [tracker.update(Step(index=i, tool="bash", args={"c": "status"}, result=f"{i} of 6 ready")) for i in range(6)]
    assert all(s.repeat_count == 1 and s.result_novel for s in sig)


def test_oscillating_test_states_are_not_progress() -> None:
    """Tests 62/2 -> 61/3 -> 62/2 -> 61/3 counts returns to old states, and only a new best resets."""
    tracker = ProgressTracker(window=8)
    seq = [(58, 6), (62, 2), (61, 3), (62, 2), (61, 3), (62, 2), (64, 0)]
    out = [tracker.update(Step(index=i, tool="bash", args={"c": "test"}, result=f"{p} passed, {f} failed",
                               progress={"tests_passed": p, "tests_failed": f})) for i, (p, f) in enumerate(seq)]
    assert [o.progress for o in out] == [False, True, False, False, False, False, True]
    assert [o.oscillation for o in out] == [0, 0, 0, 1, 2, 3, 0]


def test_cycles_of_period_two_to_six_are_found() -> None:
    """A-B-C-A-B-C over signatures is a cycle of period 3 at its sixth step."""
    tracker = ProgressTracker(window=8)
    calls = ["a", "b", "c", "a", "b", "c"]
    out = [tracker.update(Step(index=i, tool=c, args={}, result="same")) for i, c in enumerate(calls)]
    assert [o.cycle_period for o in out] == [None, None, None, None, None, 3]


def test_varied_actions_with_the_same_failing_outcome_are_counted() -> None:
    """Different searches that all come back empty share one outcome count."""
    tracker = ProgressTracker(window=8)
    out = [tracker.update(Step(index=i, tool="grep", args={"q": f"name{i}"}, result="")) for i in range(4)]
    assert [o.same_outcome_count for o in out] == [1, 2, 3, 4]
    assert [o.repeat_count for o in out] == [1, 1, 1, 1]


def test_report_findings_are_the_located_lines_positions_masked() -> None:
    """A checker's findings are its lines located at a position (``path:line:col``,
    ``path(line,col)``, ``(line N)``); a traceback's frames and plain lines are not."""
    report = (
        "************* Module repro\n"
        "repro.py:1:0: C0114: Missing module docstring (missing-module-docstring)\n"
        "src/app.tsx(12,5): error TS2322: Type 'string' is not assignable to type 'number'.\n"
        "(line   11) broken    doesntexist - path not found\n"
        'Traceback (most recent call last):\n  File "a.py", line 3, in f\nValueError: x\n'
    )
    assert report_findings(report) == (
        "(line #) broken doesntexist - path not found",
        "repro.py:#:#: C#: Missing module docstring (missing-module-docstring)",
        "src/app.tsx(#,#): error TS#: Type 'string' is not assignable to type 'number'.",
    )
    assert report_findings('Traceback (most recent call last):\n  File "a.py", line 3, in f\nValueError: x') == ()
    frames = ("tests/test_since.py:6: in <module>\n    from exporter import parse\n"
              "    at parse (src/parse.js:3:7)\nmain.go:42 +0x1d\nE   ImportError: cannot import name 'parse'")
    assert report_findings(frames) == ()  # frames of a stack are where one failure passed, not findings


def test_the_same_header_over_a_changed_list_of_findings_is_another_error() -> None:
    """pylint's report has no line that reads as an error, so the skeleton is its header: the
    identity tells the lists apart, and a list whose positions only moved stays the same."""
    a = "************* Module repro\nrepro.py:1:0: C0114: Missing module docstring (missing-module-docstring)"
    b = a + "\nrepro.py:5:0: C0116: Missing function or method docstring (missing-function-docstring)"
    moved = a.replace("repro.py:1:0", "repro.py:3:4")
    assert error_skeleton(a) == error_skeleton(b)
    assert error_identity(a) != error_identity(b)
    assert error_identity(a) == error_identity(moved)
    assert error_identity("KeyError: 'tz'") == error_skeleton("KeyError: 'tz'") == "KeyError: 'tz'"


def test_a_report_whose_findings_change_between_runs_never_counts_up() -> None:
    """Seeded pylint-like reports after edits: the same header and one persistent finding, the
    rest of the list different each run. The same list again counts; a different one does not."""
    rng = random.Random(5)
    tracker = ProgressTracker(window=8)
    extra = ["W0611: Unused import re (unused-import)", "R0801: Similar lines in 2 files",
             "C0103: Constant name \"failed\" doesn't conform to UPPER_CASE naming style (invalid-name)",
             "W0703: Catching too general exception Exception (broad-except)"]
    counts = []
    for k in range(len(extra)):
        tracker.update(Step(index=2 * k, tool="bash", args={"command": f"sed -i 's/a/b{k}/' pylint/lint.py"}, result="", status="ok"))
        lines = ["************* Module reproduce_issue_2",
                 f"reproduce_issue_2.py:{rng.randint(1, 9)}:0: C0114: Missing module docstring (missing-module-docstring)"]
        lines += [f"reproduce_issue_2.py:{rng.randint(1, 40)}:{rng.randint(0, 9)}: {e}" for e in extra[: k + 1]]
        signals = tracker.update(Step(index=2 * k + 1, tool="bash", args={"command": "pylint reproduce_issue_2.py"},
                                      result="\n".join(lines), status="error"))
        counts.append((signals.error_count, signals.same_outcome_count))
    assert counts == [(1, 1)] * len(extra)


def test_the_same_traceback_after_edits_counts_to_four() -> None:
    """The same exception after each edit elsewhere, its frames' line numbers moving: 1, 2, 3, 4."""
    rng = random.Random(6)
    tracker = ProgressTracker(window=8)
    counts = []
    for k in range(4):
        tracker.update(Step(index=2 * k, tool="bash", args={"command": f"sed -i 's/x/y{k}/' app/other_{k}.py"}, result="", status="ok"))
        tb = (f'Traceback (most recent call last):\n  File "app/views.py", line {rng.randint(10, 99)}, in handler\n'
              f"tests/test_views.py:{rng.randint(10, 99)}: KeyError\nKeyError: 'tz'")
        check = Step(index=2 * k + 1, tool="bash", args={"command": "pytest -x"}, result=tb, status="error")
        counts.append(tracker.update(check).error_count)
    assert counts == [1, 2, 3, 4]
