"""Replaying recorded runs through a client: labelled cases and SWE-agent trajectories.

:func:`load_runs` reads files or folders of

- labelled cases (``*.json``, ``shared/benchmark/FORMAT.md``), of either level, and
- SWE-agent trajectories (``*.traj``): each ``trajectory[]`` entry is a step whose text is
  its ``thought`` (or its ``response`` without the fenced command when ``thought`` is empty),
  whose tool is the first word of ``action``, whose args are ``{"command": action}`` and
  whose result is its ``observation``.

:func:`replay_run` observes every step, as a harness that ignores the verdicts would: after a
trip the breaker stays open and later steps report ``trip`` (unless probing is configured).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plateau.types import Step, Verdict

__all__ = ["Run", "load_runs", "load_traj", "replay_run", "verdict_row"]

_FENCE = re.compile(r"```.*?```", re.DOTALL)


@dataclass(frozen=True)
class Run:
    """A recorded run: its id, steps (FORMAT.md step dicts), context and labels (or None)."""

    id: str
    steps: tuple[dict[str, Any], ...]
    context: str | None = None
    expected: dict[str, Any] | None = None
    source: str = ""


def load_traj(path: Path) -> Run:
    """Read a SWE-agent ``.traj`` file as a :class:`Run` (id = file stem).

    Raises ``ValueError`` naming the file when it is not a trajectory.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        entries = data["trajectory"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a SWE-agent trajectory ({exc})") from None
    steps = []
    for entry in entries:
        action = (entry.get("action") or "").strip()
        thought = (entry.get("thought") or "").strip()
        if not thought:
            thought = _FENCE.sub("", entry.get("response") or "").strip()
        steps.append(
            {
                "text": thought,
                "tool": action.split()[0] if action else None,
                "args": {"command": action} if action else None,
                "result": entry.get("observation"),
            }
        )
    context = None
    for msg in data.get("history") or []:
        if isinstance(msg, dict) and msg.get("role") == "user" and isinstance(msg.get("content"), str):
            context = msg["content"][:4000]
            break
    return Run(id=path.stem, steps=tuple(steps), context=context, expected=None, source=str(path))


def _load_case(path: Path) -> Run | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a JSON case file ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("input"), list):
        raise ValueError(f"{path}: a case needs an 'input' list (shared/benchmark/FORMAT.md)")
    if data.get("level", "steps") != "steps":
        return None
    return Run(
        id=str(data.get("id") or path.stem),
        steps=tuple(data["input"]),
        context=data.get("context"),
        expected=data.get("expected"),
        source=str(path),
    )


def load_runs(paths: Iterable[str | Path]) -> list[Run]:
    """Runs from files or folders (searched recursively for ``*.json`` and ``*.traj``, sorted).

    Stream-level cases are skipped. Raises ``FileNotFoundError`` for a missing path and
    ``ValueError`` naming a malformed file.
    """
    runs: list[Run] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.suffix in {".json", ".traj"} and p.is_file())
        elif path.is_file():
            files = [path]
        else:
            raise FileNotFoundError(f"{path}: no such file or folder")
        for file in files:
            run = load_traj(file) if file.suffix == ".traj" else _load_case(file)
            if run is not None:
                runs.append(run)
    return runs


def replay_run(client: Any, run: Run, run_id: str | None = None) -> Iterator[tuple[int, Step, Verdict]]:
    """Observe every step of ``run`` through ``client`` (in order, one stream).

    Yields ``(index, step, verdict)``. ``run_id`` defaults to the run's id plus a random
    suffix, so replays never collide with earlier ones on a long-lived server.
    """
    rid = run_id or f"{run.id}-{uuid.uuid4().hex[:8]}"
    steps = [Step.from_dict(s, i) for i, s in enumerate(run.steps)]
    for step, verdict in zip(steps, client.observe_many(rid, steps, run.context), strict=False):
        yield step.index, step, verdict


def verdict_row(case: str, verdict: Verdict) -> dict[str, Any]:
    """One flat JSON-ready object for ``--jsonl``: case, step, action, state, score, reasons,
    message and every signal value."""
    row: dict[str, Any] = {
        "case": case,
        "step": verdict.step_index,
        "action": verdict.action.value,
        "state": verdict.state.value,
        "score": verdict.score,
        "reasons": list(verdict.reasons),
    }
    row.update(verdict.signals)
    row["message"] = verdict.message
    return row
