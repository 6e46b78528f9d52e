"""Inferred progress: a retried call that finally succeeds."""

from __future__ import annotations

from plateau.signals.progress import ProgressTracker
from plateau.types import Step


def _edit(i: int, rng: str, ok: bool) -> Step:
    return Step(index=i, tool="edit", args={"range": rng, "text": "required = ['Rows', 'Columns', 'BitsAllocated']"},
                result="[File: handler.py (373 lines)] edit applied" if ok else "Your edit has errors.\nERRORS:\n- E999 SyntaxError")


def test_a_close_variant_of_a_failing_call_succeeding_is_recovery() -> None:
    """Failing edits of one range followed by the same edit over a corrected range count as recovered."""
    tracker = ProgressTracker()
    out = [tracker.update(_edit(i, "287:295", ok=False)) for i in range(3)]
    fixed = tracker.update(_edit(3, "287:296", ok=True))
    assert not any(o.recovered for o in out) and fixed.recovered


def test_another_command_of_a_generic_tool_is_not_recovery() -> None:
    """A different bash command succeeding after a failing one does not count as recovered."""
    tracker = ProgressTracker()
    tracker.update(Step(index=0, tool="bash", args={"command": "psql -c 'CREATE INDEX idx ON payments(order_id)'"},
                        result="ERROR:  must be owner of table payments"))
    ok = tracker.update(Step(index=1, tool="bash", args={"command": "kubectl get pods -n checkout"}, result="NAME READY"))
    assert not ok.recovered
