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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from plateau.cancel import checkpoint
from plateau.errors import InvalidArgument

_T = TypeVar("_T")

__all__ = [
    "Action",
    "BreakerState",
    "HistoryStep",
    "Progress",
    "RunHistory",
    "RunInfo",
    "RunSummary",
    "Step",
    "ToolStatus",
    "MAX_ARGS_DEPTH",
    "MAX_INT_DIGITS",
    "STEP_FIELDS",
    "Verdict",
    "canonical_args",
    "check_text",
]

#: Deepest nesting of arrays and objects accepted in ``step.args`` (the top-level object is
#: depth 1). Real tool arguments nest a few levels; a bound keeps every recursive consumer of
#: the arguments (serialisation, signature masking) far from the interpreter's recursion limit.
MAX_ARGS_DEPTH = 64
#: Most decimal digits of an integer in ``step.args``. Python refuses to convert integers of
#: more than 4,300 digits, and converting long ones costs time quadratic in their length.
MAX_INT_DIGITS = 1000
_MAX_INT_BITS = int(MAX_INT_DIGITS * 3.3219280948873626) + 1  # log2(10) bits per digit


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


def check_text(name: str, value: str) -> str:
    """Return ``value`` if it can be encoded as UTF-8, else raise ``InvalidArgument(name, …)``.

    Python strings may hold lone surrogates (``"\\ud800"``), which no UTF-8 encoder (protobuf,
    SQLite, JSON on the wire) accepts; such text is refused before it reaches any state, so a
    verdict that quotes it can always be sent. Cost: one pass over non-ASCII text.
    """
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(value[exc.start])
        raise InvalidArgument(
            name, f"holds a lone surrogate (U+{code:04X} at character {exc.start}); text must be valid Unicode"
        ) from None
    return value


def _check_json_value(value: Any) -> None:
    """Refuse nesting deeper than :data:`MAX_ARGS_DEPTH` and integers longer than
    :data:`MAX_INT_DIGITS` digits in a decoded JSON value (iteratively: no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            if isinstance(item, int) and not isinstance(item, bool) and item.bit_length() > _MAX_INT_BITS:
                raise InvalidArgument("step.args", f"holds an integer of more than {MAX_INT_DIGITS} digits")
            continue
        if depth > MAX_ARGS_DEPTH:
            raise InvalidArgument("step.args", f"nests deeper than {MAX_ARGS_DEPTH} levels")
        stack.extend((child, depth + 1) for child in children)


def _parse_int(text: str) -> int:
    if len(text) - text.startswith("-") > MAX_INT_DIGITS:
        raise InvalidArgument("step.args", f"holds an integer of {len(text.lstrip('-'))} digits; the limit is {MAX_INT_DIGITS}")
    return int(text)


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
            check_text("step.progress.files_changed", path)
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
    text (sorted keys, compact); ``""`` when absent.

    Raises ``InvalidArgument("step.args", …)`` for anything else, and for nesting deeper than
    :data:`MAX_ARGS_DEPTH`, an integer of more than :data:`MAX_INT_DIGITS` digits, or a lone
    surrogate (also one written as a JSON escape, ``"\\ud800"``): the result always encodes as
    UTF-8.
    """
    if args is None or args == "" or args == b"":
        return ""
    if isinstance(args, (bytes, bytearray)):
        try:
            args = bytes(args).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidArgument("step.args", f"is not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    if isinstance(args, str):
        try:
            args = json.loads(args, parse_int=_parse_int)
        except json.JSONDecodeError as exc:
            raise InvalidArgument("step.args", f"is not valid JSON ({exc.msg} at char {exc.pos})") from None
        except RecursionError:
            raise InvalidArgument("step.args", f"nests deeper than {MAX_ARGS_DEPTH} levels") from None
    if not isinstance(args, Mapping):
        raise InvalidArgument("step.args", f"must be a JSON object, got {type(args).__name__}")
    checkpoint()  # megabytes of args: a caller gone away stops the work between its stages
    _check_json_value(args)
    checkpoint()
    try:
        text = json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidArgument("step.args", f"is not JSON-serialisable ({exc})") from None
    return check_text("step.args", text)


def _parse_args(args: str) -> Any:
    return json.loads(args) if args else None


#: The dataclass fields of :class:`Step` (``index`` and :data:`STEP_FIELDS`).
_STEP_FIELD_NAMES = frozenset({"index", "text", "tool", "args", "result", "status", "progress", "user", "agent"})

#: The fields of a step, as a case file or a mapping passed to a client names them.
STEP_FIELDS = ("text", "tool", "args", "result", "status", "progress", "user", "agent")


@dataclass(frozen=True, init=False)
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
        Tool arguments: a mapping (the usual form), or JSON text / UTF-8 bytes of a JSON
        object, or None. The attribute holds them as canonical JSON text (sorted keys,
        compact; ``""`` when absent), the form fingerprints and the wire use;
        :attr:`args_dict` gives them back as a dict.
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
        Naming the field: negative or non-integer index, non-string text, text holding a lone
        surrogate, args that are not a JSON object or not valid UTF-8 (or nest deeper than
        :data:`MAX_ARGS_DEPTH`, or hold an integer longer than :data:`MAX_INT_DIGITS` digits),
        an unknown status.
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

    def __init__(
        self,
        index: int,
        text: str = "",
        tool: str | None = None,
        args: Mapping[str, Any] | str | bytes | None = "",
        result: str | None = None,
        status: ToolStatus | str = ToolStatus.UNKNOWN,
        progress: Progress | Mapping[str, Any] | None = None,
        user: str | None = None,
        agent: str | None = None,
    ) -> None:
        # written out (not generated) so that ``args`` and ``progress`` are typed as what they accept
        for name, value in (
            ("index", index),
            ("text", text),
            ("tool", tool),
            ("args", args),
            ("result", result),
            ("status", status),
            ("progress", progress if progress is not None else Progress()),
            ("user", user),
            ("agent", agent),
        ):
            object.__setattr__(self, name, value)
        self.__post_init__()

    def __post_init__(self) -> None:
        self._check(_STEP_FIELD_NAMES)

    def _check(self, names: Iterable[str]) -> None:
        """Validate (and normalise) the fields ``names``."""
        names = frozenset(names)
        if "index" in names:
            if isinstance(self.index, bool) or not isinstance(self.index, int):
                raise InvalidArgument("step.index", f"must be an integer, got {type(self.index).__name__}")
            if self.index < 0:
                raise InvalidArgument("step.index", f"must be >= 0, got {self.index}")
        if "text" in names:
            if not isinstance(self.text, str):
                raise InvalidArgument("step.text", "must be a string")
            check_text("step.text", self.text)
        for name in ("tool", "result", "user", "agent"):
            if name not in names:
                continue
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise InvalidArgument(f"step.{name}", "must be a string or null")
            if value is not None:
                check_text(f"step.{name}", value)
        if self.tool == "":
            object.__setattr__(self, "tool", None)
        if "args" in names:
            object.__setattr__(self, "args", canonical_args(self.args))
        if "status" in names and not isinstance(self.status, ToolStatus):
            try:
                object.__setattr__(self, "status", ToolStatus(self.status or "unknown"))
            except ValueError:
                raise InvalidArgument(
                    "step.status", f"must be one of ok, error, unknown; got {self.status!r}"
                ) from None
        if "progress" in names and not isinstance(self.progress, Progress):
            object.__setattr__(self, "progress", Progress.from_dict(self.progress))

    def replace(self, **changes: Any) -> Step:
        """A copy of this step with ``changes`` (field names to values), validated like the
        constructor's arguments; fields not changed are not validated again, so a copy whose
        ``args`` are unchanged costs no parse of them, and keeps what :meth:`args_derived` computed.

        Raises
        ------
        InvalidArgument
            A changed field is malformed (as the constructor says).
        TypeError
            A name that is not a field of a step.
        """
        unknown = set(changes) - _STEP_FIELD_NAMES
        if unknown:
            raise TypeError(f"Step has no field {sorted(unknown)[0]!r}")
        new = object.__new__(Step)
        new.__dict__.update(self.__dict__)
        if "args" in changes:
            new.__dict__.pop("_args_derived", None)
        for name, value in changes.items():
            object.__setattr__(new, name, value)
        new._check(changes)
        return new

    def args_derived(self, name: str, compute: Callable[[str], _T]) -> _T:
        """``compute(self.args)``, computed once for this step and its :meth:`replace` copies
        with the same args, and kept under ``name`` (one name, one function). The facts every
        detector reads from a call's arguments (their parsed value, their normalised form, their
        strings) are computed once per step rather than once per reader: megabytes of args cost
        one parse, never one per detector (issue 22, item 2). Not pickled; not part of equality."""
        memo: dict[str, Any] | None = self.__dict__.get("_args_derived")
        if memo is None:
            memo = {}
            object.__setattr__(self, "_args_derived", memo)
        if name not in memo:
            memo[name] = compute(self.args)
        return memo[name]  # type: ignore[no-any-return]

    @property
    def args_value(self) -> Any:
        """The arguments parsed (a dict; None when absent), parsed once per step
        (:meth:`args_derived`). Shared by every reader: never modify it."""
        return self.args_derived("value", _parse_args)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_args_derived", None)
        return state

    @property
    def args_dict(self) -> dict[str, Any]:
        """The arguments as a dict (empty when absent)."""
        return json.loads(self.args) if self.args else {}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], index: int) -> Step:
        """Build from one step object of a labelled case (``docs/format.md``) or a mapping passed
        to a client.

        The keys are the step's fields (``text``, ``tool``, ``args``, ``result``, ``status``,
        ``progress``, ``user``, ``agent``) and ``index`` (ignored here: ``index`` is the argument).
        A key starting with ``_`` is a reader's private annotation and is skipped.

        Raises
        ------
        InvalidArgument
            A malformed field, or an unknown key (``step.reslt: unknown field …; did you mean
            'result'?``): a misspelt field would otherwise be dropped without a word.
        """
        if not isinstance(data, Mapping):
            raise InvalidArgument("step", "must be an object")
        unknown = [k for k in data if not (isinstance(k, str) and (k in STEP_FIELDS or k == "index" or k.startswith("_")))]
        if unknown:
            import difflib

            key = str(unknown[0])
            close = difflib.get_close_matches(key, STEP_FIELDS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise InvalidArgument(f"step.{key}", f"unknown field (a step has {', '.join(STEP_FIELDS)}){hint}")
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


@dataclass(frozen=True)
class RunSummary:
    """One run in a list (``list_runs``): its state after its last step, without the steps.

    Attributes
    ----------
    run_id, context, ended
        As in :class:`RunInfo`.
    state
        :class:`BreakerState` after the last step (``calibrating`` before the first one).
    steps
        Number of steps observed.
    created, updated
        Unix seconds: when the run started, and its last accepted step or change.
    ended_at
        Unix seconds when the run was ended; ``None`` while it is open.
    last_action, last_score
        The last step's action and stall score; ``None`` before the first step.
    """

    run_id: str
    state: BreakerState
    steps: int
    ended: bool
    context: str | None = None
    created: float = 0.0
    updated: float = 0.0
    ended_at: float | None = None
    last_action: Action | None = None
    last_score: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready view (enums as their string values, times as Unix seconds)."""
        return {
            "run_id": self.run_id,
            "state": self.state.value,
            "steps": self.steps,
            "ended": self.ended,
            "context": self.context,
            "created": self.created,
            "updated": self.updated,
            "ended_at": self.ended_at,
            "last_action": None if self.last_action is None else self.last_action.value,
            "last_score": self.last_score,
        }


@dataclass(frozen=True)
class HistoryStep:
    """One accepted step of a run: the :class:`Verdict` it got and when (Unix seconds; ``None``
    for a step stored by a version of Plateau that kept no time)."""

    verdict: Verdict
    time: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """:meth:`Verdict.as_dict` without the run id, plus ``time``."""
        out = self.verdict.as_dict()
        del out["run_id"]
        return {"step": out.pop("step"), "time": self.time, **out}


@dataclass(frozen=True)
class RunHistory:
    """A run and every step it accepted, in index order (``run_history``)."""

    run: RunSummary
    steps: tuple[HistoryStep, ...] = ()

    @property
    def verdicts(self) -> tuple[Verdict, ...]:
        """The verdict of every step, in order."""
        return tuple(s.verdict for s in self.steps)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready view: ``{"run": RunSummary.as_dict(), "steps": [HistoryStep.as_dict(), ...]}``."""
        return {"run": self.run.as_dict(), "steps": [s.as_dict() for s in self.steps]}
