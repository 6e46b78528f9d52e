"""Plateau's settings: one frozen :class:`Config`, validated on construction.

Every threshold lives here with its unit, range and reason. Values are chosen for kinds of
behaviour (how many identical failing calls make a loop, how much evidence a sequential test
needs), never for a particular labelled case.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from plateau.errors import InvalidArgument
from plateau.policy import ToolPolicy, parse_tool_policy

__all__ = ["Config", "PRESETS"]


@dataclass(frozen=True)
class Config:
    """Settings of the engine, the breaker and the service limits.

    Parameters
    ----------
    warmup_steps
        Length of the warm-up, in steps (int >= 3). The calibrated semantic test learns the
        run's normal movement from the movements of steps ``1 .. warmup_steps - 1`` and never
        fires before step index ``warmup_steps``. Structural evidence (exact repeats, repeated
        errors, near-identical steps) needs no warm-up. Default 6: five movement samples, the
        fewest for which a median/MAD estimate survives one outlier (breakdown point 50 %).
    window
        Steps of history the novelty and repeat signals look back over (int >= 2). Default 8
        covers tool cycles of period up to 6 (DESIGN §3) with room for one interruption.
    baseline_size
        Most recent informative movements kept in the calibrated baseline (int >=
        ``warmup_steps - 1``). Only steps judged informative update it, so a loop cannot teach
        the baseline that looping is normal.
    scale_floor
        Lower bound of the baseline's robust scale, relative to its centre (float in (0, 1]).
        Keeps the test scale-free (it multiplies with the movements) and stops a very regular
        warm-up (MAD near 0) from turning every small dip into a huge z-score. Default 0.25.
    cusum_k
        CUSUM allowance (reference value) in robust-z units (float >= 0): per-step slack
        before evidence accumulates. 0.5 is Page's (1954) textbook choice for detecting a
        one-standard-deviation shift.
    cusum_steer, cusum_trip
        CUSUM decision intervals h in robust-z units (0 < steer < trip). Evidence at
        ``cusum_steer`` steers; at ``cusum_trip`` it trips (only after a steer). Defaults 4
        and 8: h = 4-5 gives an in-control average run length of several hundred steps for
        k = 0.5 (Montgomery, *Introduction to Statistical Quality Control*, §9.1).
    near_duplicate_eps
        Absolute rule: a step whose cosine distance to an earlier step in the window is below
        this (float in [0, 1)) is a near-identical restatement, structural evidence outside the
        calibrated test. Default 0.02: the model gives 0.97+ to a reworded restatement of the
        same sentence, 0.7-0.8 to a genuine paraphrase (DESIGN §6).
    repeat_steer, repeat_trip
        Occurrences of the same canonical tool signature (tool, args, result) without progress
        that steer / trip (ints, 2 <= steer < trip). Defaults 3 and 4: the third identical
        failing call is a retry loop on any run (the OpenHands stuck detector trips at 3
        identical action+error pairs, 4 identical action+observation pairs).
    poll_steer, poll_trip
        Consecutive identical calls that steer / trip when the result is a waiting state (a
        poller's "no new output", "still running") or when the user asked for repetition
        without a bound (ints, 2 <= steer < trip). Waiting on something external is
        legitimate for a while, so these are larger than ``repeat_*``. Defaults 8 and 16.
    denial_steer, denial_trip
        Occurrences of a call the user denied (its result reads as a denial,
        :meth:`plateau.signals.intent.IntentReader.result_kind`) that steer / trip (ints, 2 <=
        steer < trip). Defaults 2 and 3: the user has already said no, so asking again is
        steered at once and the third ask trips (Cline's repeated-denied-command loop).
    requested_steer_slack, requested_trip_slack, requested_trip_factor
        A user who asked for ``N`` repetitions ("run it 8 times") excuses ``N`` identical
        calls in a row: the streak steers past ``N + requested_steer_slack`` and trips at
        ``max(requested_trip_factor * N, N + requested_trip_slack)`` (ints >= 1, factor >= 1).
        Defaults 2, 4 and 2: a count is read loosely (the first call may not count, a retry
        may be needed), and ten times the asked count is never excused.
    same_outcome_steer, same_outcome_trip
        Varied calls in the window that come back with the same error that steer / trip
        (``tool.same_outcome``; ints, 2 <= steer < trip). Defaults 4 and 6, one and two more
        than ``repeat_steer`` / ``repeat_trip``: different calls failing alike are weaker
        evidence than the same call failing again (the same empty answer only ever steers).
    phatic_steer, phatic_trip
        Consecutive steps without a tool call that only exchange courtesies (thanks, you're
        welcome, goodbye; :meth:`plateau.signals.intent.IntentReader.is_phatic`) that steer /
        trip (ints, 2 <= steer < trip). A closing exchange is two messages (thanks, you're
        welcome); a third courtesy in a row means the exchange has become a loop, the
        "gratitude loop" of two chat agents (AutoGen issue #254, FAQ in PR #390). Defaults 3
        and 5: steer at the first extra courtesy, trip one round trip later.
    talk_steer, talk_trip
        Consecutive steps without a tool call and without new facts from the user, in a run
        that has used tools (:mod:`plateau.signals.talk`), that steer / trip (ints, 2 <= steer
        < trip). A clarifying exchange takes one or two turns (ask, answer); a third turn in
        which nothing new arrives is talk instead of action (dithering, claims of acting with
        no call, asking again for what a tool could look up). Defaults 3 and 6: steer at the
        third, then leave the agent three more turns to act on the steer.
    thrash_trip_share
        ``tool.thrash`` reaches trip level only when at least this share of the last ``window``
        calls came back empty or failed as before (float in (0, 1]); from half the window
        (``THRASH_SHARE``) it steers. Set from the false-alarm budget on real finished runs
        (``scripts/calibrate.py``): finished runs reached trip-level thrash evidence with 4 and
        5 such calls of 8 (searches that miss before one finds); 0.75 (6 of 8) is one call
        more than any reached. Default 0.75.
    steer_cap
        Most consecutive steers that carry a message (int >= 1). Past it the verdict stays
        steer but carries no new message: repeated nudges become part of the loop. Reaching the
        cap never trips; only evidence does.
    probe
        After a trip, let the next step through as a half-open probe: a step that brings
        something new closes the breaker, anything else re-opens it. Default off: a harness
        that ignores verdicts sees ``trip`` on every later step.
    embed_text_chars, embed_result_chars
        Characters of the step text, and of the tool call + result, given to the embedding
        model (ints >= 64). MiniLM reads at most 256 word pieces (about 1,000 characters of
        English), so longer text is cut; results keep their head and tail.
    max_run_id_chars
        Longest run id accepted (int >= 1), default 256.
    max_field_chars
        Longest text, result, args or user field accepted, in characters (int >= 1024).
        Default 1,000,000: real tool outputs of tens of KB pass; a larger field is
        ``INVALID_ARGUMENT`` naming the field.
    max_steps_per_run
        Most steps one run may hold (int >= 1). Every step's verdict is kept for idempotent
        re-sends, so this bounds a run's memory and storage; step ``max_steps_per_run`` is
        ``RESOURCE_EXHAUSTED`` (start a new run id). Default 20,000, far beyond real agent runs
        (tens to hundreds of steps).
    max_runs_per_tenant
        Most runs one tenant (one auth token; everyone when auth is off) may hold at once
        (int >= 1). Ended runs never hold a place: at the limit, the tenant's longest-ended run
        is deleted to make room for a new one; with every run open, a new run is
        ``RESOURCE_EXHAUSTED`` until runs are ended or deleted. Default 10,000. Kept as a
        count per tenant (updated with each creation and deletion, atomically with the
        creation on a shared Redis store, so it holds exactly across replicas).
    max_run_state_bytes
        Largest learned state one run may hold, in bytes as its store encodes it (int >= 64
        KiB): the SQLite and Redis stores count the encoded state document and its containers
        (:class:`~plateau.store.codec.StateLog`), the memory store its committed pickle. A step
        that would take a run past it is ``RESOURCE_EXHAUSTED`` naming this limit, checked
        before anything is written (the run stays as it was). Default 32 MiB: a run of hundreds
        of steps with results of tens of KB holds a few MB; issue 22 measured 70 steps of
        0.9 MB arguments at 123 MB, each later ``Check`` then costing ~100 MB.
    max_message_bytes
        Largest gRPC message the server accepts, in bytes (int >= 64 KiB). A larger request
        is refused by gRPC with ``RESOURCE_EXHAUSTED``. Default 16 MiB (a step of several
        full-size fields fits).
    max_concurrent_streams
        Most ``ObserveStream``/``GuardStream`` calls open at once on the server (int >= 1);
        one more is ``RESOURCE_EXHAUSTED``. With auth, each of ``n`` tenants is guaranteed
        ``max_concurrent_streams // n`` of them whatever the others hold, and may borrow slots
        no tenant has reserved (so one tenant holding idle streams cannot lock others out).
        Default 256.
    stream_idle_seconds
        A stream that sends nothing, or reads nothing while the server waits to write to it,
        for this long is closed with ``DEADLINE_EXCEEDED`` (float > 0, seconds), so a silent
        or stalled client cannot hold a stream slot. Default 300.
    max_chunk_chars
        Longest ``GuardStream`` chunk accepted, in characters (int >= 1024); a longer one is
        ``INVALID_ARGUMENT`` naming ``chunk``. Guarding costs about 1 s of CPU per million
        characters (in a worker thread, never on the event loop), so this bounds the work one
        message can cause. Default 1,000,000 (a whole long response fits; streamed chunks are
        tokens).
    max_concurrent_rpcs
        Most calls (steps, checks and run calls) the server works on at once (int >= 1),
        which together hold at most ``4 * max_message_bytes`` of requests (one call always
        may); four times as many wait for their turn (within their deadline), and a call
        beyond those is ``RESOURCE_EXHAUSTED`` at once. A request is expanded in memory
        (decoded, parsed) only when its turn comes, so this bounds the memory concurrent large
        requests take. With auth, each of ``n`` tenants is guaranteed ``1/n`` of these slots
        and of ``max_concurrent_streams`` (:mod:`plateau.admission`). Default 32 (the worker
        threads).
    request_read_seconds
        Longest time a call's request body may take to arrive once the server asks for it, in
        seconds (float > 0); a body still incomplete then closes the call
        (``DEADLINE_EXCEEDED``), so a stalled partial request holds neither memory nor a receive
        slot for longer (issue 22, item 8). Default 30 (16 MiB at 4 Mbit/s).
    health_probe_seconds
        Interval of the server's store health probe, in seconds (float > 0): health is
        ``NOT_SERVING``, with the probe's reason logged, from the first failed probe until one
        succeeds. Default 1: a store that stops answering is seen within this interval plus
        the probe's own timeout (``RedisStore.probe_timeout``, 1 s), 2 s, a second under issue
        22's bound of 3 s from a paused Redis to ``NOT_SERVING`` (at 2 the worst case was the
        bound itself, and a loaded machine crossed it: 3.01 s).
    switch_interval_seconds
        The interpreter's thread switch interval in a ``plateau serve`` process
        (:func:`sys.setswitchinterval`), in seconds (0 < value <= 0.005). Default 0.001
        (Python's is 0.005). A call waiting on I/O or native code (its request, its store write,
        its embedding) must take the interpreter lock back from a thread busy in Python, which
        gives it up only when its interval ends: a small call behind one heavy call (megabytes of
        arguments) pays up to one interval per hand-over, dozens per step (the "convoy effect";
        D. Beazley, "Understanding the Python GIL", PyCon 2010; CPython issue bpo-7946). At 1 ms
        another tenant's step during a 4.9 MB ``Check`` took 1.8-2.1x its idle median against
        3.1x at 5 ms (``scripts/attack.py`` ``check_big_args_blocks_health``, issue 22, item 2);
        the cost is more frequent switches between busy threads.
    order_wait_seconds
        Longest time a step whose predecessor is still being judged (sent concurrently, on
        another connection) waits for it, in seconds (float >= 0), further bounded by the
        call's deadline. A step whose predecessor is not in flight is a gap at once
        (``FAILED_PRECONDITION``). Default 30.
    idle_run_ttl_seconds, ended_run_ttl_seconds
        Retention (floats > 0, seconds; ``math.inf`` keeps runs forever): a run with no
        activity for ``idle_run_ttl_seconds``, or ended for ``ended_run_ttl_seconds``, is
        deleted by the next expiry sweep and is then ``NOT_FOUND``. Defaults 7 days and
        1 day.
    tool_policy
        Per-tool policy, tool name → :class:`~plateau.policy.ToolPolicy` (a mapping; text
        such as ``"debugger_next=6:8,status=ignore"`` is accepted): tools that legitimately
        repeat with their own bounds, and tools never judged (:mod:`plateau.policy`). Identical
        calls are counted within ``window`` steps, so a tool's ``repeat_trip`` is at most
        ``window``. Empty by default.

    Raises
    ------
    InvalidArgument
        Naming the parameter, when a value is out of range.
    """

    warmup_steps: int = 6
    window: int = 8
    baseline_size: int = 32
    scale_floor: float = 0.25
    cusum_k: float = 0.5
    cusum_steer: float = 4.0
    cusum_trip: float = 8.0
    near_duplicate_eps: float = 0.02
    repeat_steer: int = 3
    repeat_trip: int = 4
    poll_steer: int = 8
    poll_trip: int = 16
    denial_steer: int = 2
    denial_trip: int = 3
    requested_steer_slack: int = 2
    requested_trip_slack: int = 4
    requested_trip_factor: int = 2
    same_outcome_steer: int = 4
    same_outcome_trip: int = 6
    phatic_steer: int = 3
    phatic_trip: int = 5
    talk_steer: int = 3
    talk_trip: int = 6
    thrash_trip_share: float = 0.75
    steer_cap: int = 3
    probe: bool = False
    embed_text_chars: int = 1200
    embed_result_chars: int = 1200
    max_run_id_chars: int = 256
    max_field_chars: int = 1_000_000
    max_steps_per_run: int = 20_000
    max_runs_per_tenant: int = 10_000
    max_run_state_bytes: int = 32 * 1024 * 1024
    max_message_bytes: int = 16 * 1024 * 1024
    max_concurrent_streams: int = 256
    stream_idle_seconds: float = 300.0
    max_chunk_chars: int = 1_000_000
    max_concurrent_rpcs: int = 32
    request_read_seconds: float = 30.0
    health_probe_seconds: float = 1.0
    switch_interval_seconds: float = 0.001
    order_wait_seconds: float = 30.0
    idle_run_ttl_seconds: float = 7 * 24 * 3600.0
    ended_run_ttl_seconds: float = 24 * 3600.0
    tool_policy: Mapping[str, ToolPolicy] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.tool_policy, (str, Mapping)):
            raise InvalidArgument("config.tool_policy", f"must be a mapping of tool name to ToolPolicy, got {self.tool_policy!r}")
        object.__setattr__(self, "tool_policy", parse_tool_policy(self.tool_policy))
        def need(name: str, ok: bool, what: str) -> None:
            if not ok:
                raise InvalidArgument(f"config.{name}", f"{what}, got {getattr(self, name)!r}")

        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "int" and (isinstance(value, bool) or not isinstance(value, int)):
                raise InvalidArgument(f"config.{f.name}", f"must be an integer, got {value!r}")
            if f.type == "float" and (isinstance(value, bool) or not isinstance(value, (int, float))):
                raise InvalidArgument(f"config.{f.name}", f"must be a number, got {value!r}")
        need("warmup_steps", self.warmup_steps >= 3, "must be >= 3")
        need("window", self.window >= 2, "must be >= 2")
        need("baseline_size", self.baseline_size >= self.warmup_steps - 1, "must be >= warmup_steps - 1")
        need("scale_floor", 0 < self.scale_floor <= 1, "must be in (0, 1]")
        need("cusum_k", self.cusum_k >= 0, "must be >= 0")
        need("cusum_steer", self.cusum_steer > 0, "must be > 0")
        need("cusum_trip", self.cusum_trip > self.cusum_steer, "must be > cusum_steer")
        need("near_duplicate_eps", 0 <= self.near_duplicate_eps < 1, "must be in [0, 1)")
        need("repeat_steer", self.repeat_steer >= 2, "must be >= 2")
        need("repeat_trip", self.repeat_trip > self.repeat_steer, "must be > repeat_steer")
        need("poll_steer", self.poll_steer >= 2, "must be >= 2")
        need("poll_trip", self.poll_trip > self.poll_steer, "must be > poll_steer")
        need("denial_steer", self.denial_steer >= 2, "must be >= 2")
        need("denial_trip", self.denial_trip > self.denial_steer, "must be > denial_steer")
        need("requested_steer_slack", self.requested_steer_slack >= 1, "must be >= 1")
        need("requested_trip_slack", self.requested_trip_slack > self.requested_steer_slack, "must be > requested_steer_slack")
        need("requested_trip_factor", self.requested_trip_factor >= 1, "must be >= 1")
        need("same_outcome_steer", self.same_outcome_steer >= 2, "must be >= 2")
        need("same_outcome_trip", self.same_outcome_trip > self.same_outcome_steer, "must be > same_outcome_steer")
        need("phatic_steer", self.phatic_steer >= 2, "must be >= 2")
        need("phatic_trip", self.phatic_trip > self.phatic_steer, "must be > phatic_steer")
        need("talk_steer", self.talk_steer >= 2, "must be >= 2")
        need("talk_trip", self.talk_trip > self.talk_steer, "must be > talk_steer")
        need("thrash_trip_share", 0 < self.thrash_trip_share <= 1, "must be in (0, 1]")
        need("steer_cap", self.steer_cap >= 1, "must be >= 1")
        need("embed_text_chars", self.embed_text_chars >= 64, "must be >= 64")
        need("embed_result_chars", self.embed_result_chars >= 64, "must be >= 64")
        need("max_run_id_chars", self.max_run_id_chars >= 1, "must be >= 1")
        need("max_field_chars", self.max_field_chars >= 1024, "must be >= 1024")
        need("max_steps_per_run", self.max_steps_per_run >= 1, "must be >= 1")
        need("max_runs_per_tenant", self.max_runs_per_tenant >= 1, "must be >= 1")
        need("max_run_state_bytes", self.max_run_state_bytes >= 64 * 1024, "must be >= 65536")
        need("max_message_bytes", self.max_message_bytes >= 64 * 1024, "must be >= 65536")
        need("max_concurrent_streams", self.max_concurrent_streams >= 1, "must be >= 1")
        need("stream_idle_seconds", self.stream_idle_seconds > 0, "must be > 0")
        need("max_chunk_chars", self.max_chunk_chars >= 1024, "must be >= 1024")
        need("max_concurrent_rpcs", self.max_concurrent_rpcs >= 1, "must be >= 1")
        need("request_read_seconds", 0 < self.request_read_seconds < float("inf"), "must be finite and > 0")
        need("health_probe_seconds", 0 < self.health_probe_seconds < float("inf"), "must be finite and > 0")
        need("switch_interval_seconds", 0 < self.switch_interval_seconds <= 0.005, "must be > 0 and <= 0.005")
        need("order_wait_seconds", self.order_wait_seconds >= 0 and self.order_wait_seconds != float("inf"), "must be finite and >= 0")
        need("idle_run_ttl_seconds", self.idle_run_ttl_seconds > 0, "must be > 0")
        need("ended_run_ttl_seconds", self.ended_run_ttl_seconds > 0, "must be > 0")
        for tool, policy in self.tool_policy.items():
            if policy.repeat_trip is not None and policy.repeat_trip > self.window:
                raise InvalidArgument(
                    f"config.tool_policy.{tool}",
                    f"repeat_trip {policy.repeat_trip} exceeds window {self.window}: repeats are counted within the window; raise window",
                )

    def with_(self, **changes: Any) -> Config:
        """A copy with ``changes`` applied (validated). Unknown names raise ``InvalidArgument``."""
        known = {f.name for f in fields(self)}
        for name in changes:
            if name not in known:
                raise InvalidArgument(f"config.{name}", "unknown setting")
        return replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        """All settings as a plain dict."""
        return asdict(replace(self, tool_policy={})) | {"tool_policy": {k: asdict(v) for k, v in self.tool_policy.items()}}

    @classmethod
    def preset(cls, name: str) -> Config:
        """The named preset (see :data:`PRESETS`); ``InvalidArgument`` for an unknown name."""
        try:
            return cls(**PRESETS[name])
        except KeyError:
            raise InvalidArgument("config.preset", f"unknown preset {name!r}; known: {', '.join(sorted(PRESETS))}") from None


#: Presets by workload, each trading sensitivity for tolerance differently:
#:
#: - ``agent`` (default): tool-using agents; identical failing calls steer at 3, trip at 4.
#: - ``batch``: jobs that legitimately repeat a call whose result is the same "ok" (one call
#:   per item); tolerates more identical calls and polls, catching true retry loops 2-3
#:   steps later.
#: - ``chat``: conversations without tools; a shorter warm-up (4 steps) so a pleasantry or
#:   restatement loop is judged sooner, at the cost of a noisier baseline.
#: - ``reasoning``: long thinking steps that circle slowly; the calibrated test needs more
#:   evidence (CUSUM 6 / 12) so slow legitimate derivations are not steered, at the cost of
#:   catching a semantic plateau a few steps later.
PRESETS: dict[str, dict[str, Any]] = {
    "agent": {},
    "batch": {"repeat_steer": 4, "repeat_trip": 6, "poll_steer": 12, "poll_trip": 24},
    "chat": {"warmup_steps": 4},
    "reasoning": {"cusum_steer": 6.0, "cusum_trip": 12.0},
}
