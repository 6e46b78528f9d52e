"""Conversions between Plateau's values (:mod:`plateau.types`) and the ``plateau.v1`` messages.

Both directions are lossless for every value the engine produces, so a verdict read through
the remote client equals the in-process one. Reading a request validates it:
:class:`~plateau.errors.InvalidArgument` names the field (``step.status``, ``step.args``, …).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from plateau.errors import InvalidArgument
from plateau.types import (
    Action,
    BreakerState,
    HistoryStep,
    Progress,
    RunHistory,
    RunInfo,
    RunSummary,
    Step,
    ToolStatus,
    Verdict,
    canonical_args,
)
from plateau.v1 import plateau_pb2 as pb

__all__ = [
    "action_from_pb",
    "action_to_pb",
    "guard_result_from_pb",
    "guard_result_to_pb",
    "run_history_from_pb",
    "run_history_to_pb",
    "run_info_from_pb",
    "run_info_to_pb",
    "run_summary_from_pb",
    "run_summary_to_pb",
    "state_from_pb",
    "state_to_pb",
    "step_from_pb",
    "step_to_pb",
    "verdict_from_pb",
    "verdict_to_pb",
]

_ACTIONS = {Action.CONTINUE: pb.ACTION_CONTINUE, Action.STEER: pb.ACTION_STEER, Action.TRIP: pb.ACTION_TRIP}
_ACTIONS_BACK: dict[int, Action] = {int(v): k for k, v in _ACTIONS.items()}
_STATES = {
    BreakerState.CALIBRATING: pb.BREAKER_STATE_CALIBRATING,
    BreakerState.CLOSED: pb.BREAKER_STATE_CLOSED,
    BreakerState.STEERING: pb.BREAKER_STATE_STEERING,
    BreakerState.OPEN: pb.BREAKER_STATE_OPEN,
    BreakerState.HALF_OPEN: pb.BREAKER_STATE_HALF_OPEN,
}
_STATES_BACK: dict[int, BreakerState] = {int(v): k for k, v in _STATES.items()}
_STATUS = {ToolStatus.UNKNOWN: pb.TOOL_STATUS_UNSPECIFIED, ToolStatus.OK: pb.TOOL_STATUS_OK, ToolStatus.ERROR: pb.TOOL_STATUS_ERROR}
_STATUS_BACK: dict[int, ToolStatus] = {int(v): k for k, v in _STATUS.items()}
_E = TypeVar("_E")


def action_to_pb(action: Action) -> Any:
    """:class:`Action` → ``plateau.v1.Action`` value."""
    return _ACTIONS[action]


def _known(table: Mapping[int, _E], value: int, field: str) -> _E:
    try:
        return table[value]
    except KeyError:
        raise InvalidArgument(field, f"unknown value {value}") from None


def action_from_pb(value: int) -> Action:
    """``plateau.v1.Action`` value → :class:`Action`; ``InvalidArgument`` for an unknown value."""
    return _known(_ACTIONS_BACK, value, "action")


def state_to_pb(state: BreakerState) -> Any:
    """:class:`BreakerState` → ``plateau.v1.BreakerState`` value."""
    return _STATES[state]


def state_from_pb(value: int) -> BreakerState:
    """``plateau.v1.BreakerState`` value → :class:`BreakerState`; ``InvalidArgument`` for an unknown value."""
    return _known(_STATES_BACK, value, "state")


def step_to_pb(step: Step) -> pb.Step:
    """:class:`Step` → ``plateau.v1.Step``."""
    msg = pb.Step(
        index=step.index,
        text=step.text,
        tool=step.tool or "",
        args_json=step.args.encode("utf-8", "surrogatepass"),
        status=_STATUS[step.status],
        user=step.user or "",
        agent=step.agent or "",
    )
    if step.result is not None:
        msg.result = step.result
    p = step.progress
    if p.tests_passed is not None:
        msg.progress.tests_passed = p.tests_passed
    if p.tests_failed is not None:
        msg.progress.tests_failed = p.tests_failed
    msg.progress.files_changed.extend(p.files_changed)
    if p.metric is not None:
        msg.progress.metric = p.metric
    return msg


def step_from_pb(msg: pb.Step, *, max_args_bytes: int | None = None) -> Step:
    """``plateau.v1.Step`` → :class:`Step`, validating every field.

    Parameters
    ----------
    msg
        The step as received.
    max_args_bytes
        When given (the server passes ``config.max_field_chars``), args longer than this many
        bytes of JSON are refused *before* they are parsed: parsing costs CPU and memory in
        proportion to the text (a million keys, 12 MB, took 20 s), and canonical JSON is never
        longer than the bytes sent except for number spellings (``1e9``), so the bound is the
        field's character limit applied to the bytes (issue 22, item 7).

    Raises
    ------
    InvalidArgument
        ``step.status`` for an unknown enum value, ``step.args`` for args that are not a JSON
        object in UTF-8 or longer than ``max_args_bytes``, ``step.index`` for a negative index,
        ``step.progress.*`` for negative counts or a non-finite metric.
    """
    if msg.status not in _STATUS_BACK:
        raise InvalidArgument("step.status", f"unknown value {msg.status}")
    args_json = msg.args_json  # each read of a bytes field is a copy of it: read once
    if max_args_bytes is not None and len(args_json) > max_args_bytes:
        raise InvalidArgument(
            "step.args", f"is {len(args_json)} bytes of JSON; the limit is {max_args_bytes} (max_field_chars), checked before parsing"
        )
    p = msg.progress
    progress = Progress(
        tests_passed=p.tests_passed if p.HasField("tests_passed") else None,
        tests_failed=p.tests_failed if p.HasField("tests_failed") else None,
        files_changed=tuple(p.files_changed),
        metric=p.metric if p.HasField("metric") else None,
    )
    return Step(
        index=msg.index,
        text=msg.text,
        tool=msg.tool or None,
        args=canonical_args(bytes(args_json)),
        result=msg.result if msg.HasField("result") else None,
        status=_STATUS_BACK[msg.status],
        progress=progress,
        user=msg.user or None,
        agent=msg.agent or None,
    )


def verdict_to_pb(v: Verdict) -> pb.Verdict:
    """:class:`Verdict` → ``plateau.v1.Verdict``."""
    msg = pb.Verdict(
        run_id=v.run_id,
        step_index=v.step_index,
        action=_ACTIONS[v.action],
        state=_STATES[v.state],
        score=v.score,
        reasons=list(v.reasons),
        message=v.message or "",
    )
    msg.signals.update(dict(v.signals))
    return msg


def verdict_from_pb(msg: pb.Verdict) -> Verdict:
    """``plateau.v1.Verdict`` → :class:`Verdict`."""
    return Verdict(
        run_id=msg.run_id,
        step_index=msg.step_index,
        action=action_from_pb(msg.action),
        state=state_from_pb(msg.state),
        score=msg.score,
        reasons=tuple(msg.reasons),
        signals=dict(sorted(msg.signals.items())),
        message=msg.message or None,
    )


def run_info_to_pb(info: RunInfo) -> pb.RunInfo:
    """:class:`RunInfo` → ``plateau.v1.RunInfo``."""
    msg = pb.RunInfo(
        run_id=info.run_id,
        state=_STATES[info.state],
        steps=info.steps,
        steers=info.steers,
        ended=info.ended,
        context=info.context or "",
    )
    if info.last_verdict is not None:
        msg.last_verdict.CopyFrom(verdict_to_pb(info.last_verdict))
    if info.baseline_center is not None:
        msg.baseline_center = info.baseline_center
    if info.baseline_scale is not None:
        msg.baseline_scale = info.baseline_scale
    return msg


def run_info_from_pb(msg: pb.RunInfo) -> RunInfo:
    """``plateau.v1.RunInfo`` → :class:`RunInfo`."""
    return RunInfo(
        run_id=msg.run_id,
        state=state_from_pb(msg.state),
        steps=msg.steps,
        steers=msg.steers,
        ended=msg.ended,
        context=msg.context or None,
        last_verdict=verdict_from_pb(msg.last_verdict) if msg.HasField("last_verdict") else None,
        baseline_center=msg.baseline_center if msg.HasField("baseline_center") else None,
        baseline_scale=msg.baseline_scale if msg.HasField("baseline_scale") else None,
    )


def run_summary_to_pb(summary: RunSummary) -> pb.RunSummary:
    """:class:`RunSummary` → ``plateau.v1.RunSummary``."""
    msg = pb.RunSummary(
        run_id=summary.run_id,
        state=_STATES[summary.state],
        steps=summary.steps,
        ended=summary.ended,
        context=summary.context or "",
        created=summary.created,
        updated=summary.updated,
        last_action=_ACTIONS[summary.last_action] if summary.last_action is not None else pb.ACTION_UNSPECIFIED,
        last_score=summary.last_score or 0.0,
    )
    if summary.ended_at is not None:
        msg.ended_at = summary.ended_at
    return msg


def run_summary_from_pb(msg: pb.RunSummary) -> RunSummary:
    """``plateau.v1.RunSummary`` → :class:`RunSummary`."""
    last = None if msg.last_action == pb.ACTION_UNSPECIFIED else action_from_pb(msg.last_action)
    return RunSummary(
        run_id=msg.run_id,
        state=state_from_pb(msg.state),
        steps=msg.steps,
        ended=msg.ended,
        context=msg.context or None,
        created=msg.created,
        updated=msg.updated,
        ended_at=msg.ended_at if msg.HasField("ended_at") else None,
        last_action=last,
        last_score=msg.last_score if last is not None else None,
    )


def run_history_to_pb(history: RunHistory, next_page_token: str = "") -> pb.RunHistory:
    """:class:`RunHistory` (one page of it) → ``plateau.v1.RunHistory``."""
    msg = pb.RunHistory(run=run_summary_to_pb(history.run), next_page_token=next_page_token)
    for step in history.steps:
        item = msg.steps.add()
        item.verdict.CopyFrom(verdict_to_pb(step.verdict))
        if step.time is not None:
            item.time = step.time
    return msg


def run_history_from_pb(msg: pb.RunHistory) -> tuple[RunHistory, str]:
    """``plateau.v1.RunHistory`` → (:class:`RunHistory`, the next page's token)."""
    steps = tuple(HistoryStep(verdict_from_pb(s.verdict), s.time if s.HasField("time") else None) for s in msg.steps)
    return RunHistory(run_summary_from_pb(msg.run), steps), msg.next_page_token


def guard_result_to_pb(channel: str, result: Any) -> pb.GuardVerdict:
    """A :class:`~plateau.stream.GuardResult` of ``channel`` → ``plateau.v1.GuardVerdict``."""
    msg = pb.GuardVerdict(
        channel=channel or "content",
        fired=result.fired,
        chars=result.chars,
        reason=result.reason or "",
        unit=result.unit or "",
        steer=bool(getattr(result, "steer", False)),
        message=getattr(result, "message", None) or "",
    )
    for name in ("period", "loop_start", "cut_offset", "fired_at_chunk"):
        value = getattr(result, name)
        if value is not None:
            setattr(msg, name, value)
    return msg


def guard_result_from_pb(msg: pb.GuardVerdict) -> tuple[str, Any]:
    """``plateau.v1.GuardVerdict`` → ``(channel, GuardResult)``."""
    from plateau.stream import GuardResult

    def opt(name: str) -> int | None:
        return getattr(msg, name) if msg.HasField(name) else None

    return msg.channel, GuardResult(
        fired=msg.fired,
        chars=msg.chars,
        reason=msg.reason or None,
        unit=msg.unit or None,
        period=opt("period"),
        loop_start=opt("loop_start"),
        cut_offset=opt("cut_offset"),
        fired_at_chunk=opt("fired_at_chunk"),
        steer=msg.steer,
        message=msg.message or None,
    )


def tool_policy_to_pb(policy: Mapping[str, Any] | None) -> dict[str, pb.ToolPolicy]:
    """A tool policy (name → :class:`~plateau.policy.ToolPolicy`, or its text form) →
    ``map<string, plateau.v1.ToolPolicy>`` values. Raises ``InvalidArgument`` naming ``tool_policy``."""
    from plateau.policy import parse_tool_policy

    out: dict[str, pb.ToolPolicy] = {}
    for name, rule in parse_tool_policy(policy or {}).items():
        msg = pb.ToolPolicy(ignore=not rule.judge)
        if rule.repeat_steer is not None and rule.repeat_trip is not None:
            msg.repeat_steer, msg.repeat_trip = rule.repeat_steer, rule.repeat_trip
        out[name] = msg
    return out


def tool_policy_from_pb(entries: Mapping[str, Any]) -> dict[str, Any]:
    """``map<string, plateau.v1.ToolPolicy>`` → name → :class:`~plateau.policy.ToolPolicy`
    (validated; ``InvalidArgument`` naming ``tool_policy``)."""
    from plateau.policy import parse_tool_policy

    rules: dict[str, object] = {}
    for name, msg in entries.items():
        steer = msg.repeat_steer if msg.HasField("repeat_steer") else None
        trip = msg.repeat_trip if msg.HasField("repeat_trip") else None
        rules[name] = {"repeat_steer": steer, "repeat_trip": trip, "judge": not msg.ignore}
    return parse_tool_policy(rules)  # an error names the tool: tool_policy.NAME
