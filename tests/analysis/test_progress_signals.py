"""The structural signals: canonical tool signatures, repeats and repeated errors."""

from __future__ import annotations

from plateau.signals.progress import ProgressTracker, error_skeleton, is_error, normalize_volatile, normalized_args, tool_signature
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
