"""Replaying recorded runs through a client: labelled cases and SWE-agent trajectories.

:func:`load_runs` reads files or folders of

- labelled cases (``*.json``, ``docs/format.md``), of either level, and
- SWE-agent trajectories (``*.traj``): each ``trajectory[]`` entry is a step whose text is
  its ``thought`` (or its ``response`` without the fenced command when ``thought`` is empty),
  whose tool is the first word of ``action``, whose args are ``{"command": action}`` and
  whose result is its ``observation``;
- mini-swe-agent trajectories (``*.traj.json``: a ``messages`` chat list), one run each;
- JSON lists of runs whose ``traj`` is an OpenAI-style chat message list (tau-bench's
  trajectory files), one run per entry, named after the file and the entry's index.

Chat message lists become steps by :func:`plateau.chat.steps_from_messages`. A run's
``outcome`` says what is known of how it ended: ``"succeeded"``/``"failed"`` (a reward of 1 or
0), ``"resolved"``/``"unresolved"`` (a mini-swe-agent run that an ``outcomes.json`` beside its
folder scores), ``"finished"`` (mini-swe-agent's ``Submitted``), or None. Inside a folder, JSON files of
none of these shapes (a ``preds.json`` beside trajectories) are skipped; named explicitly, they
are an error.

:func:`replay_run` observes every step, as a harness that ignores the verdicts would: after a
trip the breaker stays open and later steps report ``trip`` (unless probing is configured).

:func:`load_streams` reads recorded streamed responses (stream cases, ``level: "stream"``) for
``plateau demo`` and ``plateau guard``; :func:`estimate_tokens` and :func:`step_tokens` estimate
the tokens a guarded agent saves (``ceil(characters / 4)``, the usual rule of thumb for English
text with GPT-style tokenisers).
"""

from __future__ import annotations

import functools
import json
import math
import re
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plateau.chat import context_of, is_chat_runs, is_mini_swe_traj, run_name, steps_from_messages
from plateau.errors import InvalidArgument
from plateau.types import Step, Verdict

__all__ = [
    "CHARS_PER_TOKEN", "Run", "StreamCase", "estimate_tokens", "load_runs", "load_streams", "load_traj", "replay_run", "step_tokens",
    "verdict_row",
]

_FENCE = re.compile(r"```.*?```", re.DOTALL)


@dataclass(frozen=True)
class Run:
    """A recorded run: its id, steps (step dicts of ``docs/format.md``), context, labels (or None) and
    what is known of its outcome (``"succeeded"``, ``"failed"``, ``"finished"``, ``"resolved"``,
    ``"unresolved"`` or None)."""

    id: str
    steps: tuple[dict[str, Any], ...]
    context: str | None = None
    expected: dict[str, Any] | None = None
    source: str = ""
    outcome: str | None = None


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


def _reward_outcome(record: dict[str, Any]) -> str | None:
    reward = record.get("reward")
    if isinstance(reward, (int, float)) and not isinstance(reward, bool):
        return "succeeded" if reward >= 1 else "failed"
    return None


def _resolved(path: Path, instance_id: str) -> bool | None:
    """Whether a benchmark harness resolved the run ``instance_id``: an ``outcomes.json``
    (``{instance_id: bool}``) in the trajectory's folder or the one above it, else None."""
    for folder in (path.parent, path.parent.parent):
        outcomes = _outcomes(folder / "outcomes.json")
        if instance_id in outcomes:
            return outcomes[instance_id]
    return None


def _mini_outcome(resolved: bool | None, status: object) -> str | None:
    if resolved is not None:
        return "resolved" if resolved else "unresolved"
    return "finished" if status == "Submitted" else None


@functools.lru_cache(maxsize=64)
def _outcomes(path: Path) -> dict[str, bool]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, bool)} if isinstance(data, dict) else {}


def _load_json(path: Path, *, strict: bool) -> list[Run]:
    """The runs of one JSON file: a labelled case, a mini-swe-agent trajectory or a list of
    chat runs. An unknown shape raises ``ValueError`` when ``strict``, else gives no run."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a JSON file ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("input"), list):
        if data.get("level", "steps") != "steps":
            return []
        for i, step in enumerate(data["input"]):  # a malformed or misspelt step fails here, naming the file
            try:
                Step.from_dict(step, i)
            except InvalidArgument as exc:
                raise ValueError(f"{path}: step {i}: {exc} (the case format: docs/format.md)") from None
        return [
            Run(
                id=str(data.get("id") or path.stem),
                steps=tuple(data["input"]),
                context=data.get("context"),
                expected=data.get("expected"),
                source=str(path),
            )
        ]
    if is_mini_swe_traj(data):
        info = data.get("info") if isinstance(data.get("info"), dict) else {}
        status = info.get("exit_status") if isinstance(info, dict) else None
        name = path.name.removesuffix(".json").removesuffix(".traj")
        resolved = _resolved(path, str(data.get("instance_id") or name))
        try:
            steps = steps_from_messages(data["messages"])
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None
        return [
            Run(
                id=name,
                steps=tuple(steps),
                context=context_of(data["messages"]),
                source=str(path),
                outcome=_mini_outcome(resolved, status),
            )
        ]
    if is_chat_runs(data):
        runs = []
        for index, record in enumerate(data):
            messages = record.get("traj", record.get("messages"))
            try:
                steps = steps_from_messages(messages)
            except ValueError as exc:
                raise ValueError(f"{path}: run {index}: {exc}") from None
            runs.append(
                Run(
                    id=run_name(path, index, record),
                    steps=tuple(steps),
                    context=context_of(messages),
                    source=f"{path}#{index}",
                    outcome=_reward_outcome(record),
                )
            )
        return runs
    if strict:
        raise ValueError(
            f"{path}: not a case ('input' list, docs/format.md), a mini-swe-agent trajectory "
            "('messages' list) or a list of chat runs ('traj' lists)"
        )
    return []


def load_runs(paths: Iterable[str | Path]) -> list[Run]:
    """Runs from files or folders (searched recursively for ``*.json`` and ``*.traj``, sorted).

    Stream-level cases are skipped, and so are JSON files of no known shape inside a folder.
    Raises ``FileNotFoundError`` for a missing path and ``ValueError`` naming a malformed file
    (or a file named explicitly that holds no known shape).
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
            if file.suffix == ".traj":
                runs.append(load_traj(file))
            else:
                runs.extend(_load_json(file, strict=not path.is_dir()))
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


# ----------------------------------------------------------------------- streams
@dataclass(frozen=True)
class StreamCase:
    """A recorded streamed response: its chunks as they arrived, on one channel."""

    id: str
    chunks: tuple[str, ...]
    channel: str = "content"
    label: str | None = None
    source: str = ""


def load_streams(paths: Iterable[str | Path]) -> list[StreamCase]:
    """Stream cases (``level: "stream"``) from files or folders (``*.json``, recursively, sorted).

    Step-level cases and ``.traj`` files are skipped (see :func:`plateau.replay.load_runs`).
    Raises ``FileNotFoundError`` for a missing path and ``ValueError`` naming a malformed file.
    """
    cases: list[StreamCase] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files = sorted(p for p in path.rglob("*.json") if p.is_file())
        elif path.is_file():
            files = [path] if path.suffix == ".json" else []
        else:
            raise FileNotFoundError(f"{path}: no such file or folder")
        for file in files:
            try:
                data = json.loads(file.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise ValueError(f"{file}: not a JSON case file ({exc})") from None
            if not isinstance(data, dict) or data.get("level") != "stream":
                continue
            chunks = data.get("input")
            if not isinstance(chunks, list) or not all(isinstance(c, str) for c in chunks):
                raise ValueError(f"{file}: a stream case needs an 'input' list of strings")
            expected = data.get("expected") or {}
            cases.append(
                StreamCase(
                    id=str(data.get("id") or file.stem),
                    chunks=tuple(chunks),
                    channel=str(data.get("stream_channel") or "content"),
                    label=expected.get("verdict") if isinstance(expected, dict) else None,
                    source=str(file),
                )
            )
    return cases


# ----------------------------------------------------------------------- tokens
#: Characters per token of the estimate (:func:`estimate_tokens`).
CHARS_PER_TOKEN = 4


def estimate_tokens(text: str | None) -> int:
    """Estimated tokens of ``text``: ``ceil(len(text) / 4)`` (0 for empty or None).

    >>> estimate_tokens("Reading the config.")
    5
    """
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def step_tokens(step: Mapping[str, Any]) -> int:
    """Estimated tokens a step adds to the transcript: its text, tool, args, result and user message."""
    args = step.get("args")
    if args is not None and not isinstance(args, str):
        args = json.dumps(args, ensure_ascii=False)
    parts = (step.get("text"), step.get("tool"), args, step.get("result"), step.get("user"))
    return sum(estimate_tokens(p) for p in parts if isinstance(p, str))
