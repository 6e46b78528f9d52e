"""Labelled cases in the case format (docs/format.md) that every rule must score the same way."""

from __future__ import annotations

from typing import Any

__all__ = ["STUCK_PER_STEP", "productive_case", "stuck_case"]

#: The verdicts allowed at each step of :func:`stuck_case` (``|`` separates the allowed ones).
STUCK_PER_STEP = ["continue", "continue", "continue|steer|trip", "steer|trip", "steer|trip", "trip"]


def stuck_case(cid: str = "stuck-retry") -> dict[str, Any]:
    """The same failing call six times in a row: every rule that counts repeats must trip."""
    step = {"text": "Running the migration again.", "tool": "shell", "args": {"cmd": "make migrate"},
            "result": "ERROR: relation \"orders\" does not exist", "status": "error"}
    return {"id": cid, "level": "steps", "kind": "retry", "input": [dict(step) for _ in STUCK_PER_STEP],
            "expected": {"final": "trip", "per_step": list(STUCK_PER_STEP)}}


def productive_case(cid: str = "productive-batch") -> dict[str, Any]:
    """Eight distinct steps over distinct files with distinct results: nothing may trip."""
    topics = ["parser", "scheduler", "billing", "geocoder", "exporter", "mailer", "indexer", "auditor"]
    steps = [
        {"text": f"Reading the {t} module to see how it handles retries and errors ({i}).", "tool": "read_file",
         "args": {"path": f"src/{t}.py"}, "result": f"def {t}_main():\n    return {i * 17 + 3}\n# {t} owns {i} queues"}
        for i, t in enumerate(topics)
    ]
    return {"id": cid, "level": "steps", "kind": "batch", "input": steps,
            "expected": {"final": "continue", "per_step": ["continue"] * len(steps)}}
