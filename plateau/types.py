"""Values that cross Plateau's boundaries: steps in, verdicts out.

Every value here is a frozen dataclass (or an enum) so that it can be shared between threads,
cached, compared in tests, and converted to and from the wire (``plateau.convert``) without
loss. Construction validates fields and raises :class:`plateau.errors.InvalidArgument` (a
``ValueError``) naming the bad field; a rejected value never reaches a run's state.
"""

from __future__ import annotations

import enum
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from plateau.errors import InvalidArgument

__all__ = [
    "Action",
    "BreakerState",
    "Progress",
    "RunInfo",
    "Step",
    "ToolStatus",
    "Verdict",
    "canonical_args",
]


class Action(enum.StrEnum):
    """What the harness should do after a step."""

    CONTINUE = "continue"
    STEER = "steer"
    TRIP = "trip"


class BreakerState(enum.StrEnum):
    """Per-run circuit-breaker state (pybreaker-style naming).

    ``calibrating`` during warm-up, ``closed`` in normal operation, ``steering`` after a steer
    while stall evidence persists, ``open`` after a trip, ``half_open`` while a probe step is
    judged after a trip (only when probing is enabled).
    """

    CALIBRATING = "calibrating"
    CLOSED = "closed"
    STEERING = "steering"
    OPEN = "open"
    HALF_OPEN = "half_open"


class ToolStatus(enum.StrEnum):
    """Outcome of a tool call; ``unknown`` means "infer it from the result text"."""

    UNKNOWN = "unknown"
    OK = "ok"
    ERROR = "error"


def _opt_int(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(name, f"must be an integer, got {type(value).__name__}")
    if value < 0:
        raise InvalidArgument(name, f"must be >= 0, got {value}")
    return value


@dataclass(frozen=True)
class Progress:
    """Progress markers a harness knows about a step (every field optional).

    Parameters
    ----------
    tests_passed, tests_failed
        Test counts after this step, integers >= 0.
    files_changed
        Paths the step changed.
    metric
        A caller-defined finite number (higher or lower is better: only its change counts).

    Raises
    ------
    InvalidArgument
        For a negative count, a non-finite metric or a non-string path.
    """

    tests_passed: int | None = None
    tests_failed: int | None = None
    files_changed: tuple[str, ...] = ()
    metric: float | None = None

    def __post_init__(self) -> None:
        _opt_int("step.progress.tests_passed", self.tests_passed)
        _opt_int("step.progress.tests_failed", self.tests_failed)
        if not isinstance(self.files_changed, tuple):
            object.__setattr__(self, "files_changed", tuple(self.files_changed))
        for path in self.files_changed:
            if not isinstance(path, str):
                raise InvalidArgument("step.progress.files_changed", "must hold strings")
        if self.metric is not None:
            if isinstance(self.metric, bool) or not isinstance(self.metric, (int, float)):
                raise InvalidArgument("step.progress.metric", "must be a number")
            if not math.isfinite(self.metric):
                raise InvalidArgument("step.progress.metric", f"must be finite, got {self.metric}")
            object.__setattr__(self, "metric", float(self.metric))

    @property
    def empty(self) -> bool:
        """True when no marker is set."""
        return (
            self.tests_passed is None
            and self.tests_failed is None
            and not self.files_changed
            and self.metric is None
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Progress:
        """Build from a case-file ``progress`` object (unknown keys are ignored)."""
        if not data:
            return cls()
        if not isinstance(data, Mapping):
            raise InvalidArgument("step.progress", "must be an object")
        files = data.get("files_changed") or ()
        if isinstance(files, str):
            files = (files,)
        return cls(
            tests_passed=data.get("tests_passed"),
            tests_failed=data.get("tests_failed"),
            files_changed=tuple(files),
            metric=data.get("metric"),
        )


def canonical_args(args: Any) -> str:
    """Return ``args`` (a mapping, JSON text or UTF-8 bytes of a JSON object) as canonical JSON
    text (sorted keys, compact); ``""`` when absent. Raises ``InvalidArgument("step.args", …)``."""
    if args is None or args == "" or args == b"":
        return ""
    if isinstance(args, (bytes, bytearray)):
        try:
            args = bytes(args).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidArgument("step.args", f"is not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError as exc:
            raise InvalidArgument("step.args", f"is not valid JSON ({exc.msg} at char {exc.pos})") from None
    if not isinstance(args, Mapping):
        raise InvalidArgument("step.args", f"must be a JSON object, got {type(args).__name__}")
    try:
        return json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument("step.args", f"is not JSON-serialisable ({exc})") from None


@dataclass(frozen=True)
class Step:
    """One step of an agent run.

    Parameters
    ----------
    index
        0-based position in the run (int >= 0). With the run id it identifies the step.
    text
        What the agent said or thought this step (may be empty).
    tool
        Name of the tool called, or ``None``.
    args
        Tool arguments: a mapping, or JSON text / UTF-8 bytes of a JSON object. Stored as
        canonical JSON text (sorted keys, compact); ``""`` when absent.
    result
        What the tool returned, or ``None``.
    status
        :class:`ToolStatus` (or its string value); ``unknown`` infers it from ``result``.
    progress
        :class:`Progress` markers (a mapping is accepted).
    user
        A user message that arrived before this step, or ``None``.
    agent
        Speaker name in multi-agent runs, or ``None``.

    Raises
    ------
    InvalidArgument
        Naming the field: negative or non-integer index, non-string text, args that are not a
        JSON object or not valid UTF-8, an unknown status.
    """

    index: int
    text: str = ""
    tool: str | None = None
    args: str = ""
    result: str | None = None
    status: ToolStatus = ToolStatus.UNKNOWN
    progress: Progress = field(default_factory=Progress)
    user: str | None = None
    agent: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.index, bool) or not isinstance(self.index, int):
            raise InvalidArgument("step.index", f"must be an integer, got {type(self.index).__name__}")
        if self.index < 0:
            raise InvalidArgument("step.index", f"must be >= 0, got {self.index}")
        for name in ("text",):
            if not isinstance(getattr(self, name), str):
                raise InvalidArgument(f"step.{name}", "must be a string")
        for name in ("tool", "result", "user", "agent"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise InvalidArgument(f"step.{name}", "must be a string or null")
        if self.tool == "":
            object.__setattr__(self, "tool", None)
        object.__setattr__(self, "args", canonical_args(self.args))
        if not isinstance(self.status, ToolStatus):
            try:
                object.__setattr__(self, "status", ToolStatus(self.status or "unknown"))
            except ValueError:
                raise InvalidArgument(
                    "step.status", f"must be one of ok, error, unknown; got {self.status!r}"
                ) from None
        if not isinstance(self.progress, Progress):
            object.__setattr__(self, "progress", Progress.from_dict(self.progress))

    @property
    def args_dict(self) -> dict[str, Any]:
        """The arguments as a dict (empty when absent)."""
        return json.loads(self.args) if self.args else {}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], index: int) -> Step:
        """Build from one step object of a labelled case (``shared/benchmark/FORMAT.md``).

        Unknown keys are ignored. Raises :class:`InvalidArgument` for a malformed field.
        """
        if not isinstance(data, Mapping):
            raise InvalidArgument("step", "must be an object")
        return cls(
            index=index,
            text=data.get("text") or "",
            tool=data.get("tool") or None,
            args=data.get("args") or "",
            result=data.get("result"),
            status=data.get("status") or ToolStatus.UNKNOWN,
            progress=Progress.from_dict(data.get("progress")),
            user=data.get("user") or None,
            agent=data.get("agent") or None,
        )

    def fingerprint(self) -> str:
        """A stable digest of the step's content (index excluded), for idempotent re-sends."""
        import hashlib

        payload = json.dumps(
            [
                self.text,
                self.tool,
                self.args,
                self.result,
                self.status.value,
                [self.progress.tests_passed, self.progress.tests_failed, list(self.progress.files_changed), self.progress.metric],
                self.user,
                self.agent,
            ],
            ensure_ascii=False,
        )
        return hashlib.blake2b(payload.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


@dataclass(frozen=True)
class Verdict:
    """The breaker's answer for one step.

    Attributes
    ----------
    run_id, step_index
        Which step this answers.
    action
        :class:`Action`: continue, steer or trip.
    state
        :class:`BreakerState` after this step.
    score
        Stall score, a float >= 0: below the steer level (0.5) the run is progressing; 1.0 or
        more is trip-level evidence.
    reasons
        Machine-readable reason codes, sorted (e.g. ``"tool.repeat"``, ``"semantic.stall"``).
    signals
        Signal values behind the verdict, name → float (cosine delta, novelty, CUSUM
        statistic, repeat counts, ...), rounded to 6 decimals.
    message
        For steer and trip: a corrective message naming what repeats and the last productive
        step; ``None`` for continue. Never mixed into agent text.
    """

    run_id: str
    step_index: int
    action: Action
    state: BreakerState
    score: float
    reasons: tuple[str, ...] = ()
    signals: Mapping[str, float] = field(default_factory=dict)
    message: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """A flat JSON-ready view (enums as their string values)."""
        return {
            "run_id": self.run_id,
            "step": self.step_index,
            "action": self.action.value,
            "state": self.state.value,
            "score": self.score,
            "reasons": list(self.reasons),
            "signals": dict(self.signals),
            "message": self.message,
        }


@dataclass(frozen=True)
class RunInfo:
    """A run's state as reported by ``get_run``/``reset_run``/``end_run``.

    ``steps`` is the number of steps observed (the next expected index); ``baseline_center``
    and ``baseline_scale`` describe the calibrated movement baseline (cosine distance units,
    in [0, 2]) once warm-up is over, else ``None``.
    """

    run_id: str
    state: BreakerState
    steps: int
    steers: int
    ended: bool
    context: str | None = None
    last_verdict: Verdict | None = None
    baseline_center: float | None = None
    baseline_scale: float | None = None
