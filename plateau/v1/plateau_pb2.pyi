from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Action(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACTION_UNSPECIFIED: _ClassVar[Action]
    ACTION_CONTINUE: _ClassVar[Action]
    ACTION_STEER: _ClassVar[Action]
    ACTION_TRIP: _ClassVar[Action]

class BreakerState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BREAKER_STATE_UNSPECIFIED: _ClassVar[BreakerState]
    BREAKER_STATE_CALIBRATING: _ClassVar[BreakerState]
    BREAKER_STATE_CLOSED: _ClassVar[BreakerState]
    BREAKER_STATE_STEERING: _ClassVar[BreakerState]
    BREAKER_STATE_OPEN: _ClassVar[BreakerState]
    BREAKER_STATE_HALF_OPEN: _ClassVar[BreakerState]

class ToolStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOOL_STATUS_UNSPECIFIED: _ClassVar[ToolStatus]
    TOOL_STATUS_OK: _ClassVar[ToolStatus]
    TOOL_STATUS_ERROR: _ClassVar[ToolStatus]
ACTION_UNSPECIFIED: Action
ACTION_CONTINUE: Action
ACTION_STEER: Action
ACTION_TRIP: Action
BREAKER_STATE_UNSPECIFIED: BreakerState
BREAKER_STATE_CALIBRATING: BreakerState
BREAKER_STATE_CLOSED: BreakerState
BREAKER_STATE_STEERING: BreakerState
BREAKER_STATE_OPEN: BreakerState
BREAKER_STATE_HALF_OPEN: BreakerState
TOOL_STATUS_UNSPECIFIED: ToolStatus
TOOL_STATUS_OK: ToolStatus
TOOL_STATUS_ERROR: ToolStatus

class Progress(_message.Message):
    __slots__ = ("tests_passed", "tests_failed", "files_changed", "metric")
    TESTS_PASSED_FIELD_NUMBER: _ClassVar[int]
    TESTS_FAILED_FIELD_NUMBER: _ClassVar[int]
    FILES_CHANGED_FIELD_NUMBER: _ClassVar[int]
    METRIC_FIELD_NUMBER: _ClassVar[int]
    tests_passed: int
    tests_failed: int
    files_changed: _containers.RepeatedScalarFieldContainer[str]
    metric: float
    def __init__(self, tests_passed: _Optional[int] = ..., tests_failed: _Optional[int] = ..., files_changed: _Optional[_Iterable[str]] = ..., metric: _Optional[float] = ...) -> None: ...

class Step(_message.Message):
    __slots__ = ("index", "text", "tool", "args_json", "result", "status", "progress", "user", "agent")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    ARGS_JSON_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    USER_FIELD_NUMBER: _ClassVar[int]
    AGENT_FIELD_NUMBER: _ClassVar[int]
    index: int
    text: str
    tool: str
    args_json: bytes
    result: str
    status: ToolStatus
    progress: Progress
    user: str
    agent: str
    def __init__(self, index: _Optional[int] = ..., text: _Optional[str] = ..., tool: _Optional[str] = ..., args_json: _Optional[bytes] = ..., result: _Optional[str] = ..., status: _Optional[_Union[ToolStatus, str]] = ..., progress: _Optional[_Union[Progress, _Mapping]] = ..., user: _Optional[str] = ..., agent: _Optional[str] = ...) -> None: ...

class ToolPolicy(_message.Message):
    __slots__ = ("repeat_steer", "repeat_trip", "ignore")
    REPEAT_STEER_FIELD_NUMBER: _ClassVar[int]
    REPEAT_TRIP_FIELD_NUMBER: _ClassVar[int]
    IGNORE_FIELD_NUMBER: _ClassVar[int]
    repeat_steer: int
    repeat_trip: int
    ignore: bool
    def __init__(self, repeat_steer: _Optional[int] = ..., repeat_trip: _Optional[int] = ..., ignore: _Optional[bool] = ...) -> None: ...

class ObserveRequest(_message.Message):
    __slots__ = ("run_id", "step", "context", "tool_policy")
    class ToolPolicyEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: ToolPolicy
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ToolPolicy, _Mapping]] = ...) -> None: ...
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    TOOL_POLICY_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    step: Step
    context: str
    tool_policy: _containers.MessageMap[str, ToolPolicy]
    def __init__(self, run_id: _Optional[str] = ..., step: _Optional[_Union[Step, _Mapping]] = ..., context: _Optional[str] = ..., tool_policy: _Optional[_Mapping[str, ToolPolicy]] = ...) -> None: ...

class CheckRequest(_message.Message):
    __slots__ = ("run_id", "step", "context", "tool_policy")
    class ToolPolicyEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: ToolPolicy
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ToolPolicy, _Mapping]] = ...) -> None: ...
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    TOOL_POLICY_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    step: Step
    context: str
    tool_policy: _containers.MessageMap[str, ToolPolicy]
    def __init__(self, run_id: _Optional[str] = ..., step: _Optional[_Union[Step, _Mapping]] = ..., context: _Optional[str] = ..., tool_policy: _Optional[_Mapping[str, ToolPolicy]] = ...) -> None: ...

class Verdict(_message.Message):
    __slots__ = ("run_id", "step_index", "action", "state", "score", "reasons", "signals", "message")
    class SignalsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_INDEX_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    REASONS_FIELD_NUMBER: _ClassVar[int]
    SIGNALS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    step_index: int
    action: Action
    state: BreakerState
    score: float
    reasons: _containers.RepeatedScalarFieldContainer[str]
    signals: _containers.ScalarMap[str, float]
    message: str
    def __init__(self, run_id: _Optional[str] = ..., step_index: _Optional[int] = ..., action: _Optional[_Union[Action, str]] = ..., state: _Optional[_Union[BreakerState, str]] = ..., score: _Optional[float] = ..., reasons: _Optional[_Iterable[str]] = ..., signals: _Optional[_Mapping[str, float]] = ..., message: _Optional[str] = ...) -> None: ...

class GetRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class ResetRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class EndRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class DeleteRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class RunInfo(_message.Message):
    __slots__ = ("run_id", "state", "steps", "steers", "ended", "context", "last_verdict", "baseline_center", "baseline_scale")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    STEERS_FIELD_NUMBER: _ClassVar[int]
    ENDED_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    LAST_VERDICT_FIELD_NUMBER: _ClassVar[int]
    BASELINE_CENTER_FIELD_NUMBER: _ClassVar[int]
    BASELINE_SCALE_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    state: BreakerState
    steps: int
    steers: int
    ended: bool
    context: str
    last_verdict: Verdict
    baseline_center: float
    baseline_scale: float
    def __init__(self, run_id: _Optional[str] = ..., state: _Optional[_Union[BreakerState, str]] = ..., steps: _Optional[int] = ..., steers: _Optional[int] = ..., ended: _Optional[bool] = ..., context: _Optional[str] = ..., last_verdict: _Optional[_Union[Verdict, _Mapping]] = ..., baseline_center: _Optional[float] = ..., baseline_scale: _Optional[float] = ...) -> None: ...

class ListRunsRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class RunSummary(_message.Message):
    __slots__ = ("run_id", "state", "steps", "ended", "context", "created", "updated", "ended_at", "last_action", "last_score")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    ENDED_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    UPDATED_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_ACTION_FIELD_NUMBER: _ClassVar[int]
    LAST_SCORE_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    state: BreakerState
    steps: int
    ended: bool
    context: str
    created: float
    updated: float
    ended_at: float
    last_action: Action
    last_score: float
    def __init__(self, run_id: _Optional[str] = ..., state: _Optional[_Union[BreakerState, str]] = ..., steps: _Optional[int] = ..., ended: _Optional[bool] = ..., context: _Optional[str] = ..., created: _Optional[float] = ..., updated: _Optional[float] = ..., ended_at: _Optional[float] = ..., last_action: _Optional[_Union[Action, str]] = ..., last_score: _Optional[float] = ...) -> None: ...

class ListRunsResponse(_message.Message):
    __slots__ = ("runs", "next_page_token")
    RUNS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    runs: _containers.RepeatedCompositeFieldContainer[RunSummary]
    next_page_token: str
    def __init__(self, runs: _Optional[_Iterable[_Union[RunSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetRunHistoryRequest(_message.Message):
    __slots__ = ("run_id", "page_size", "page_token")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    page_size: int
    page_token: str
    def __init__(self, run_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class HistoryStep(_message.Message):
    __slots__ = ("verdict", "time")
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    verdict: Verdict
    time: float
    def __init__(self, verdict: _Optional[_Union[Verdict, _Mapping]] = ..., time: _Optional[float] = ...) -> None: ...

class RunHistory(_message.Message):
    __slots__ = ("run", "steps", "next_page_token")
    RUN_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    run: RunSummary
    steps: _containers.RepeatedCompositeFieldContainer[HistoryStep]
    next_page_token: str
    def __init__(self, run: _Optional[_Union[RunSummary, _Mapping]] = ..., steps: _Optional[_Iterable[_Union[HistoryStep, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GuardRequest(_message.Message):
    __slots__ = ("channel", "chunk", "context", "end")
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    channel: str
    chunk: str
    context: str
    end: bool
    def __init__(self, channel: _Optional[str] = ..., chunk: _Optional[str] = ..., context: _Optional[str] = ..., end: _Optional[bool] = ...) -> None: ...

class GuardVerdict(_message.Message):
    __slots__ = ("channel", "fired", "chars", "reason", "unit", "period", "loop_start", "cut_offset", "fired_at_chunk", "steer", "message")
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    FIRED_FIELD_NUMBER: _ClassVar[int]
    CHARS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    LOOP_START_FIELD_NUMBER: _ClassVar[int]
    CUT_OFFSET_FIELD_NUMBER: _ClassVar[int]
    FIRED_AT_CHUNK_FIELD_NUMBER: _ClassVar[int]
    STEER_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    channel: str
    fired: bool
    chars: int
    reason: str
    unit: str
    period: int
    loop_start: int
    cut_offset: int
    fired_at_chunk: int
    steer: bool
    message: str
    def __init__(self, channel: _Optional[str] = ..., fired: _Optional[bool] = ..., chars: _Optional[int] = ..., reason: _Optional[str] = ..., unit: _Optional[str] = ..., period: _Optional[int] = ..., loop_start: _Optional[int] = ..., cut_offset: _Optional[int] = ..., fired_at_chunk: _Optional[int] = ..., steer: _Optional[bool] = ..., message: _Optional[str] = ...) -> None: ...
