"""The engine: ``Engine.observe(run_id, step) -> Verdict``, the whole flow top to bottom.

1. Validate the run id and the step (``InvalidArgument`` naming the field; nothing changes).
2. Check the step's place in its run (:mod:`plateau.ordering`, whose :class:`StepOrder` the
   engine owns): the next index is applied; an already-seen index with the same content
   returns the stored verdict (idempotent re-send); a later index whose predecessor is still
   being judged (sent concurrently) waits for it, up to ``config.order_wait_seconds``;
   anything else is a ``StepConflict``.
3. Embed the step's text and its tool call + result (one model call, outside the run's lock,
   so concurrent runs share batches).
4. Under the run's lock, the run's :class:`~plateau.analysis.RunAnalysis` judges the step as
   its detectors read it (:func:`plateau.envelope.harness_view`: the result without its
   harness envelope): facts once (:mod:`plateau.analysis.facts`), the registered detectors
   (:mod:`plateau.analysis.registry`), fusion (:mod:`plateau.fuse`), the breaker
   (:mod:`plateau.breaker`) → :class:`~plateau.types.Verdict`. The engine holds no analysis.
5. Still under the lock, the store persists the step (learned state, fingerprint, verdict) in
   one atomic change before the verdict is returned (:mod:`plateau.store`). A store shared by
   several processes (Redis) makes that change a compare-and-set: when another process moved
   the run on meanwhile, the engine re-reads it and starts again from step 2 (usually finding
   the verdict the other process stored), and the ordering wait of step 2 also covers steps
   other processes announced.

Each accepted step's verdict and time are the run's *history* (:meth:`Engine.run_history`,
:meth:`Engine.list_runs`), persisted by the store in the same change as the step, bounded and
kept as the run is (see :mod:`plateau.store.base`).

Runs are namespaced per *tenant* (``tenant=""`` unless the server's auth says otherwise): a
run of another tenant is indistinguishable from a run that does not exist.

Every input is validated before any state changes, and the analysis path only ever sees
validated values, so a rejected request never corrupts or loses a run's state; a failed store
write drops the cached copy so the run continues from its last durable state. This module
imports neither grpc nor torch (the model is imported lazily by :mod:`plateau.embed`).
"""

from __future__ import annotations

import base64
import binascii
import copy
import dataclasses
import json
import pickle
import threading
import time
import unicodedata
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from plateau.analysis import RunAnalysis
from plateau.config import Config
from plateau.embed import CachedEmbedder, Embedder
from plateau.envelope import harness_view
from plateau.errors import InvalidArgument, LimitExceeded, RunNotFound, StepConflict, StoreUnavailable
from plateau.ordering import StepOrder
from plateau.policy import ToolPolicy
from plateau.record import RunRecord
from plateau.signals.intent import IntentReader
from plateau.store.base import RunKey, StaleRecord, Store, run_summary
from plateau.store.memory import MemoryStore
from plateau.types import HistoryStep, RunHistory, RunInfo, RunSummary, Step, Verdict, check_text

__all__ = ["CALL_OUTCOMES_KEPT", "MAX_PAGE_SIZE", "Engine", "RunRecord", "validate_run_id"]

#: Most runs (``list_runs``) or steps (``run_history``) in one page: a page of 1,000 verdicts
#: with their signals is well under 1 MB, far below the smallest gRPC message limit (4 MB).
MAX_PAGE_SIZE = 1000
#: Page sizes when the caller gives 0.
_RUNS_PAGE = 100
_HISTORY_PAGE = MAX_PAGE_SIZE


def _page_size(value: object, default: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument("page_size", f"must be an integer, got {type(value).__name__}")
    if not 0 <= value <= MAX_PAGE_SIZE:
        raise InvalidArgument("page_size", f"must be between 0 and {MAX_PAGE_SIZE} (0 for {default}), got {value}")
    return value or default


def _runs_token(created: float, run_id: str) -> str:
    """The page token after the run (``created``, ``run_id``): URL-safe base64 of JSON."""
    return base64.urlsafe_b64encode(json.dumps([created, run_id], ensure_ascii=False).encode()).decode().rstrip("=")


def _runs_cursor(token: object) -> tuple[float, str] | None:
    if not isinstance(token, str):
        raise InvalidArgument("page_token", f"must be a string, got {type(token).__name__}")
    if not token:
        return None
    try:
        created, run_id = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        if not isinstance(run_id, str) or isinstance(created, bool) or not isinstance(created, (int, float)):
            raise ValueError("not a cursor")
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise InvalidArgument("page_token", "is not a token of a previous list_runs answer") from None
    return float(created), run_id


def _history_start(token: object) -> int:
    if not isinstance(token, str):
        raise InvalidArgument("page_token", f"must be a string, got {type(token).__name__}")
    if not token:
        return 0
    if not token.isascii() or not token.isdigit() or len(token) > 12:
        raise InvalidArgument("page_token", "is not a token of a previous run_history answer")
    return int(token)

#: Attempts at a change that another process keeps racing (compare-and-set refused) before
#: the call is ``StoreUnavailable``.
_CAS_ATTEMPTS = 8
#: Locks that run creations of different tenants are spread over (a tenant always uses the same).
_CREATE_STRIPES = 64


def validate_run_id(run_id: object, max_chars: int) -> str:
    """Return ``run_id`` if it is a valid run id, else raise ``InvalidArgument("run_id", …)``.

    A run id is a non-empty string of at most ``max_chars`` characters without control,
    format or separator characters (Unicode categories Cc, Cf, Cs, Zl, Zp, and Zs other than
    the ASCII space): no line breaks (U+0085, U+2028), no bidirectional overrides (U+202E), no
    lone surrogates, nothing that reads differently in a log than it is.
    """
    if not isinstance(run_id, str):
        raise InvalidArgument("run_id", f"must be a string, got {type(run_id).__name__}")
    if not run_id or not run_id.strip():
        raise InvalidArgument("run_id", "must not be empty")
    if len(run_id) > max_chars:
        raise InvalidArgument("run_id", f"is {len(run_id)} characters long; the limit is {max_chars}")
    for i, c in enumerate(run_id):
        if c != " " and (c.isascii() and not c.isprintable() or not c.isascii() and unicodedata.category(c) in _BAD_ID_CATEGORIES):
            raise InvalidArgument("run_id", f"must not contain control, format or separator characters (U+{ord(c):04X} at {i})")
    return run_id


_BAD_ID_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp", "Zs"})


#: Distinct calls whose latest outcome a run remembers for :meth:`Engine.check`.
CALL_OUTCOMES_KEPT = 64


def _call_key(step: Step) -> str | None:
    """The identity of a step's call (tool + canonical args, volatile values masked)."""
    if step.tool is None:
        return None
    from plateau.signals.progress import step_normalized_args

    return f"{step.tool}\x00{step_normalized_args(step)}"


def _copy_analysis(analysis: RunAnalysis) -> RunAnalysis:
    """A deep copy of a run's learned state, for a dry run."""
    try:
        copied: RunAnalysis = pickle.loads(pickle.dumps(analysis, protocol=5))
    except (pickle.PicklingError, TypeError, AttributeError):  # state a durable store could not keep either
        copied = copy.deepcopy(analysis)
    return copied


def _declare(analysis: RunAnalysis, policy: Mapping[str, ToolPolicy]) -> None:
    """Add a run's declared tool policy to its learned state (a later rule for a tool wins)."""
    current = getattr(analysis, "tool_policy", None)
    if current is None:  # a run stored before this field existed
        current = analysis.tool_policy = {}
    current.update(policy)  # in place: the durable store's change log sees only what changed


def _remember_outcome(analysis: RunAnalysis, step: Step) -> None:
    key = _call_key(step)
    if key is None or step.result is None:
        return
    outcomes = getattr(analysis, "call_outcomes", None)
    if outcomes is None:  # a run stored before this field existed
        outcomes = analysis.call_outcomes = {}
    # updated in place (a known call keeps its position) and evicted oldest-first, so the order
    # is what the durable store's change log (plateau.store.codec.StateLog) rebuilds
    outcomes[key] = (step.result, step.status.value)
    while len(outcomes) > CALL_OUTCOMES_KEPT:
        del outcomes[next(iter(outcomes))]


def _head_tail(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = (limit * 2) // 3
    return text[:head] + " … " + text[-(limit - head) :]


class Engine:
    """Judges steps of many runs.

    Parameters
    ----------
    config
        :class:`~plateau.config.Config`; the default when None.
    embedder
        Any :class:`~plateau.embed.Embedder`; wrapped in a :class:`~plateau.embed.CachedEmbedder`
        unless it already is one. ``None`` means the default sentence-transformers model
        (loaded lazily on the first step).
    store
        Where run records live (:class:`~plateau.store.base.Store`); a
        :class:`~plateau.store.memory.MemoryStore` when None. ``plateau serve`` passes a
        :class:`~plateau.store.sqlite.SqliteStore`.
    clock
        Wall-clock time in Unix seconds (``time.time`` by default), for run timestamps and
        retention; tests pass a fake one.

    Notes
    -----
    Thread-safe: steps of one run are applied one at a time and in index order (per-run
    lock); steps of different runs run in parallel and share the embedder's batches.
    """

    def __init__(
        self,
        config: Config | None = None,
        embedder: Embedder | None = None,
        store: Store | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config or Config()
        if embedder is None:
            from plateau.embed import BatchingEmbedder, model_embedder

            embedder = BatchingEmbedder(model_embedder())
        self.embedder: Embedder = embedder if isinstance(embedder, CachedEmbedder) else CachedEmbedder(embedder)
        self.store: Store = store if store is not None else MemoryStore()
        self.store.bind(self.config)
        self.clock = clock
        self.intent = IntentReader(self.embedder)
        #: The ordering of each run's steps (:mod:`plateau.ordering`).
        self.order = StepOrder(self.store, self.config.order_wait_seconds)
        # a run's creation counts and inserts under its tenant's lock (striped: bounded memory),
        # so the tenant limit holds exactly and one tenant at its limit never holds up another's
        # new runs (issue 22, item 1)
        self._create_locks = [threading.Lock() for _ in range(_CREATE_STRIPES)]
        #: Called as ``listener(tenant, verdict)`` after each new step is stored (not for
        #: re-sends), in the calling thread; for metrics. Exceptions propagate: keep them trivial.
        self.listeners: list[Callable[[str, Verdict], None]] = []

    # ----------------------------------------------------------------- validation
    def _validate(self, run_id: str, step: Step, context: str | None) -> None:
        validate_run_id(run_id, self.config.max_run_id_chars)
        if not isinstance(step, Step):
            raise InvalidArgument("step", f"must be a Step, got {type(step).__name__}")
        limit = self.config.max_field_chars
        for name in ("text", "args", "result", "user", "agent", "tool"):
            value = getattr(step, name)
            if value is not None and len(value) > limit:
                raise InvalidArgument(f"step.{name}", f"is {len(value)} characters long; the limit is {limit}")
        files = sum(len(path) + 1 for path in step.progress.files_changed)
        if files > limit:
            raise InvalidArgument("step.progress.files_changed", f"holds {files} characters; the limit is {limit}")
        if context is not None:
            if not isinstance(context, str):
                raise InvalidArgument("context", "must be a string")
            if len(context) > limit:
                raise InvalidArgument("context", f"is {len(context)} characters long; the limit is {limit}")
            check_text("context", context)

    def _check_place(
        self,
        record: RunRecord | None,
        run_id: str,
        step: Step,
        fingerprint: str,
        context: str | None,
        *,
        ahead_ok: bool = False,
        key: RunKey | None = None,
    ) -> Verdict | None:
        """Return the stored verdict for an idempotent re-send, None for the next step, or raise.

        The step's place in its run (replay, gap, ended run) is :meth:`StepOrder.place`'s
        (:mod:`plateau.ordering`); then the run's limits: ``LimitExceeded`` at
        ``config.max_steps_per_run``, ``StepConflict`` for a context that differs from the run's.
        """
        stored = self.order.place(record, run_id, step.index, fingerprint, ahead_ok=ahead_ok, key=key)
        if stored is not None:
            return stored
        if step.index >= self.config.max_steps_per_run:
            raise LimitExceeded(
                f"step.index: run {run_id!r} has reached the limit of {self.config.max_steps_per_run} steps per run; start a new run id"
            )
        if context and record is not None and record.context and context != record.context:
            raise StepConflict(f"context: differs from the context run {run_id!r} was started with")
        return None

    # ----------------------------------------------------------------- embedding
    def embed_inputs(self, step: Step) -> tuple[str | None, str | None]:
        """The two texts embedded for ``step``: its text, and its tool call + result.

        Either is None when the step has no such part. Texts are cut to the configured
        lengths (results keep head and tail) because the model reads at most 256 word pieces.
        The step is read as the detectors read it (:func:`plateau.envelope.harness_view`).
        """
        return self._inputs(harness_view(step))

    def _inputs(self, step: Step) -> tuple[str | None, str | None]:
        """:meth:`embed_inputs` of a step already read through its harness envelope."""
        text = step.text.strip()
        text_in = _head_tail(text, self.config.embed_text_chars) if text else None
        obs_in = None
        if step.tool is not None or step.result is not None:
            if step.result is not None and step.result.strip():
                body = _head_tail(step.result.strip(), self.config.embed_result_chars)
            else:
                body = _head_tail(step.args, self.config.embed_result_chars // 2) or "(no result)"
            obs_in = f"{step.tool or 'result'}: {body}"
        return text_in, obs_in

    def prefetch(self, steps: Sequence[Step], batch_size: int = 32) -> int:
        """Embed the texts of ``steps`` ahead of judging them, ``batch_size`` at a time, into the
        engine's embedding cache; returns how many distinct texts were looked up.

        For a recorded run (``plateau replay``, ``Client.local().observe_many``): the model is
        several times faster on a batch than on one text at a time on a CPU, and each step
        then finds its vectors in the cache. Verdicts do not change: similarities are rounded
        to 4 decimals, far above the last-bit noise of batch composition. Raises
        ``ValueError`` for ``batch_size`` < 1.
        """
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        texts = list(dict.fromkeys(t for step in steps for t in self.embed_inputs(step) if t is not None))
        for start in range(0, len(texts), batch_size):
            self.embedder.encode(texts[start : start + batch_size])
        return len(texts)

    def _embed(self, step: Step) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The vectors of ``step`` as analysed (already read through its harness envelope)."""
        text_in, obs_in = self._inputs(step)
        texts = [t for t in (text_in, obs_in) if t is not None]
        if not texts:
            return None, None
        # the cache's own read-only arrays: the run's memory shares them rather than a copy
        vecs = self.embedder.vectors(texts) if isinstance(self.embedder, CachedEmbedder) else list(self.embedder.encode(texts))
        it = iter(vecs)
        return (next(it) if text_in is not None else None, next(it) if obs_in is not None else None)

    # ----------------------------------------------------------------- public API
    def observe(
        self,
        run_id: str,
        step: Step,
        context: str | None = None,
        *,
        tenant: str = "",
        timeout: float | None = None,
        tool_policy: Mapping[str, ToolPolicy] | None = None,
    ) -> Verdict:
        """Judge ``step`` of run ``run_id`` and return its :class:`~plateau.types.Verdict`.

        Parameters
        ----------
        run_id
            Client-chosen run id (non-empty, at most ``config.max_run_id_chars`` characters).
        step
            The step; its ``index`` must be the run's next index (0 for a new run), or an
            already-observed index with identical content (returns the stored verdict, counts
            nothing), or a later index whose predecessors are being judged concurrently (waits
            for them, then is applied in order).
        context
            What the user asked for; kept from the first step (a later different value is a
            conflict).
        tenant
            The namespace of ``run_id`` (``""`` without auth).
        timeout
            Longest wait for in-flight predecessors, in seconds (>= 0); at most
            ``config.order_wait_seconds``, which is the default.
        tool_policy
            Per-tool policy the run declares (:mod:`plateau.policy`), on top of
            ``config.tool_policy``: kept by the run from the step that carries it on (a later
            declaration for the same tool replaces the earlier one). Not part of the step's
            identity: a re-send returns the stored verdict whatever it declares.

        Raises
        ------
        InvalidArgument
            A malformed field (named in the message).
        StepConflict
            A gap (no predecessor in flight, or still missing after the wait), a conflicting
            re-send, a different context, or an ended run.
        RunNotFound
            A step after the first of a run the store lost (:meth:`Store.lost`: a Redis that
            restarted empty), instead of a gap.
        LimitExceeded
            The run is at ``config.max_steps_per_run`` steps, or a new run would exceed
            ``config.max_runs_per_tenant`` open runs (an ended run gives way instead).
        ModelUnavailable
            The embedding model cannot be loaded.
        StoreUnavailable
            The store could not persist the step (it was not applied; retrying is safe).
        """
        self._validate(run_id, step, context)
        policy = self._validate_policy(tool_policy)
        fingerprint = step.fingerprint()
        key: RunKey = (tenant, run_id)
        wait = self.order.budget(timeout)
        with self.order.turn(key, step.index, wait) as turn:
            with turn.lock:
                record, ahead_ok = turn.first_look()
                stored = self._check_place(record, run_id, step, fingerprint, context, ahead_ok=ahead_ok, key=key)
                if record is None and step.index == 0:
                    self._check_tenant_room(tenant)
            if stored is not None:
                return stored
            view = harness_view(step)  # what the detectors read; ``step`` is what is stored
            text_vec, obs_vec = self._embed(view)
            deadline = time.monotonic() + wait
            for _ in range(_CAS_ATTEMPTS):
                with turn.lock:
                    record = turn.wait_for_predecessors(deadline)
                    stored = self._check_place(record, run_id, step, fingerprint, context, key=key)
                    if stored is not None:
                        return stored
                    try:
                        return self._accept(key, record, view, fingerprint, context, text_vec, obs_vec, policy)
                    except StaleRecord:  # another process changed the run: read it again
                        continue
            raise StoreUnavailable(f"store: run {run_id!r} kept changing in other processes; step {step.index} was not applied")

    def check(
        self,
        run_id: str,
        step: Step,
        context: str | None = None,
        *,
        tenant: str = "",
        tool_policy: Mapping[str, ToolPolicy] | None = None,
    ) -> Verdict:
        """What :meth:`observe` would answer if ``step`` were the run's next step, changing nothing.

        A dry run: the step is applied, by the same code as :meth:`observe`, to a deep copy of
        the run's learned state (a pickle round trip, the form the durable store keeps it in,
        about 6x faster than ``copy.deepcopy`` of the record; ``scripts/bench_check.py``), and
        the copy is thrown away. Nothing is stored, no listener
        is called and no run is created; the run's next index stays the same.

        Ask it *before* running a tool call, with ``result`` left out: when the run has seen the
        same call (tool and arguments, volatile values masked) among its last
        :data:`CALL_OUTCOMES_KEPT` distinct calls, the call is judged with the result it got
        last time (a call that failed three times is about to fail a fourth), and the verdict's
        signals hold ``check.predicted_result = 1``. A call never seen is judged without a result.

        Parameters
        ----------
        run_id, context, tenant, tool_policy
            As for :meth:`observe`; an unknown run is judged as a new run (nothing is created).
        step
            The step as it would be sent; its ``index`` is ignored (the verdict's
            ``step_index`` is the run's next index).

        Raises
        ------
        InvalidArgument
            A malformed field.
        StepConflict
            The run has ended, or ``context`` differs from the run's.
        LimitExceeded
            The run is full (``config.max_steps_per_run``).
        ModelUnavailable
            The embedding model cannot be loaded.
        """
        self._validate(run_id, step, context)
        policy = self._validate_policy(tool_policy)
        key: RunKey = (tenant, run_id)
        with self.order.locked(key):
            record = self.store.get(key)
            seen = 0 if record is None else len(record.fingerprints)
            step = step.replace(index=seen)
            self._check_place(record, run_id, step, step.fingerprint(), context)
            now = self.clock()
            if record is None:
                record = RunRecord(run_id=run_id, context=context or None, analysis=RunAnalysis(self.config), tenant=tenant, created=now)
            else:  # judging reads only the learned state, the run id and the context
                analysis = _copy_analysis(record.analysis)
                record = RunRecord(run_id=run_id, context=record.context, analysis=analysis, tenant=tenant, created=now)
        predicted = False
        call = _call_key(step)
        outcomes = getattr(record.analysis, "call_outcomes", {})
        if step.result is None and call is not None and call in outcomes:
            result, status = outcomes[call]
            step = step.replace(result=result, status=status)
            predicted = True
        if context and not record.context:
            record.context = context
        if policy:
            _declare(record.analysis, policy)
        view = harness_view(step)
        text_vec, obs_vec = self._embed(view)
        # the step's facts say it is predicted: the messages count the calls that ran
        verdict = self._judge(record, view, text_vec, obs_vec, predicted=predicted)
        if predicted:
            verdict = dataclasses.replace(verdict, signals={**verdict.signals, "check.predicted_result": 1.0})
        return verdict

    def _validate_policy(self, tool_policy: Mapping[str, ToolPolicy] | None) -> dict[str, ToolPolicy] | None:
        """A run's declared tool policy, validated against this engine's window (InvalidArgument)."""
        if not tool_policy:
            return None
        from plateau.policy import parse_tool_policy

        policy = parse_tool_policy(tool_policy)
        for tool, rule in policy.items():
            if not tool or len(tool) > self.config.max_field_chars:
                raise InvalidArgument("tool_policy", "tool names must be non-empty and within max_field_chars")
            if rule.repeat_trip is not None and rule.repeat_trip > self.config.window:
                limit = self.config.window
                raise InvalidArgument(f"tool_policy.{tool}", f"repeat_trip {rule.repeat_trip} exceeds the server's window {limit}")
        return policy

    def _check_tenant_room(self, tenant: str, *, evict: bool = False) -> None:
        """Raise ``LimitExceeded`` unless ``tenant`` may start one more run.

        Ended runs never hold a tenant's place: at the limit, the tenant's longest-ended run
        gives way to the new one (deleted when ``evict``, which the caller does under the
        creation lock), so only open runs count toward ``config.max_runs_per_tenant`` while
        the runs stored stay bounded by it.
        """
        limit = self.config.max_runs_per_tenant
        if self.store.count(tenant) < limit:
            return
        ended = self.store.oldest_ended(tenant)
        if ended is not None and (not evict or self._evict(ended)):
            return
        raise LimitExceeded(f"run_id: this tenant holds {limit} open runs, the limit; end or delete runs, or raise max_runs_per_tenant")

    def _evict(self, key: RunKey) -> bool:
        """Delete the ended run ``key`` to make room; False when it is busy or no longer ended."""
        with self.order.locked(key) as gate:
            record = self.store.get(key)
            if record is None:
                return True
            if not record.ended or gate.inflight:
                return False
            self.store.delete(key)
            return True

    def _accept(
        self,
        key: RunKey,
        record: RunRecord | None,
        step: Step,
        fingerprint: str,
        context: str | None,
        text_vec: np.ndarray | None,
        obs_vec: np.ndarray | None,
        policy: dict[str, ToolPolicy] | None = None,
    ) -> Verdict:
        """Apply the next step and persist it (called with the run's lock held). ``step`` is the
        step as analysed (:func:`~plateau.envelope.harness_view`); ``fingerprint`` is the sent
        step's, so a re-send is recognised whatever its envelope."""
        now = self.clock()
        if record is None:
            record = RunRecord(
                run_id=key[1], context=context or None, analysis=RunAnalysis(self.config), tenant=key[0], created=now, updated=now
            )
            if policy:
                _declare(record.analysis, policy)
            with self._create_locks[hash(key[0]) % _CREATE_STRIPES]:  # count and insert atomically, per tenant
                self._check_tenant_room(key[0], evict=True)
                verdict = self._apply_and_store(key, record, step, fingerprint, text_vec, obs_vec, now)
            return verdict
        if context and not record.context:
            record.context = context
        if policy:
            _declare(record.analysis, policy)
        return self._apply_and_store(key, record, step, fingerprint, text_vec, obs_vec, now)

    def _apply_and_store(
        self,
        key: RunKey,
        record: RunRecord,
        step: Step,
        fingerprint: str,
        text_vec: np.ndarray | None,
        obs_vec: np.ndarray | None,
        now: float,
    ) -> Verdict:
        try:
            verdict = self._judge(record, step, text_vec, obs_vec)
            _remember_outcome(record.analysis, step)
            if verdict.message is not None:  # never commit a step whose reply cannot be sent
                check_text("step", verdict.message)
            record.fingerprints.append(fingerprint)
            record.verdicts.append(verdict)
            record.times.append(now)
            record.updated = now
            self.store.append(key, record)
        except BaseException:
            # the record may be half-changed: every store restores its last committed state
            self.store.discard(key)
            raise
        for listener in self.listeners:
            listener(key[0], verdict)
        return verdict

    def _judge(
        self, record: RunRecord, step: Step, text_vec: np.ndarray | None, obs_vec: np.ndarray | None, *, predicted: bool = False
    ) -> Verdict:
        """The verdict of ``step``, the one place per-tool policy (:mod:`plateau.policy`) applies:
        a tool never judged gets :func:`~plateau.policy.unjudged_verdict` and teaches the run
        nothing; a tool with its own bounds is judged with them (:func:`~plateau.policy.config_for`).
        ``predicted``: a pre-call check's step (:attr:`plateau.analysis.facts.StepFacts.predicted`)."""
        from plateau.policy import config_for, unjudged_verdict

        config = config_for(self.config, step.tool, getattr(record.analysis, "tool_policy", None))
        if config is None:
            return unjudged_verdict(record.run_id, step.index, record.analysis.breaker.state)
        return self._apply(record, step, text_vec, obs_vec, config, predicted=predicted)

    def _apply(
        self,
        record: RunRecord,
        step: Step,
        text_vec: np.ndarray | None,
        obs_vec: np.ndarray | None,
        config: Config | None = None,
        *,
        predicted: bool = False,
    ) -> Verdict:
        config = config or self.config
        return record.analysis.judge(
            record.run_id, step, text_vec, obs_vec, intent=self.intent, context=record.context, config=config, predicted=predicted
        )

    def _info(self, record: RunRecord) -> RunInfo:
        baseline = record.analysis.semantic.baseline
        return RunInfo(
            run_id=record.run_id,
            state=record.analysis.breaker.state,
            steps=len(record.verdicts),
            steers=record.analysis.breaker.steers,
            ended=record.ended,
            context=record.context,
            last_verdict=record.verdicts[-1] if record.verdicts else None,
            baseline_center=None if baseline is None else round(baseline[0], 6),
            baseline_scale=None if baseline is None else round(baseline[1], 6),
        )

    def _record(self, key: RunKey) -> RunRecord:
        record: RunRecord | None = self.store.get(key)
        if record is None:
            raise RunNotFound(f"run_id: no run {key[1]!r}")
        return record

    def get_run(self, run_id: str, *, tenant: str = "") -> RunInfo:
        """The state of run ``run_id``. Raises ``RunNotFound``, ``InvalidArgument``."""
        validate_run_id(run_id, self.config.max_run_id_chars)
        with self.order.locked((tenant, run_id)):
            return self._info(self._record((tenant, run_id)))

    def list_runs(self, *, tenant: str = "", page_size: int = 0, page_token: str = "") -> tuple[list[RunSummary], str]:
        """A page of ``tenant``'s runs, newest first (by ``created``, then run id), and the token
        of the next page (``""`` on the last page).

        The order is by creation time, which a run never changes, so paging through a tenant's
        runs while they take steps neither repeats nor skips a run (a run created meanwhile is
        on the first page). A tenant holds at most ``config.max_runs_per_tenant`` runs.

        Parameters
        ----------
        page_size
            Most runs in the page, 0–:data:`MAX_PAGE_SIZE`; 0 for 100.
        page_token
            The token returned with the previous page; ``""`` for the first.

        Raises
        ------
        InvalidArgument
            ``page_size`` out of range, or a ``page_token`` that no answer returned.
        StoreUnavailable
            The store cannot be read.
        """
        size = _page_size(page_size, _RUNS_PAGE)
        after = _runs_cursor(page_token)
        runs = sorted(self.store.summaries(tenant), key=lambda r: (-r.created, r.run_id))
        if after is not None:
            runs = [r for r in runs if (-r.created, r.run_id) > (-after[0], after[1])]
        page = runs[:size]
        return page, (_runs_token(page[-1].created, page[-1].run_id) if len(runs) > size else "")

    def run_history(self, run_id: str, *, tenant: str = "", page_size: int = 0, page_token: str = "") -> tuple[RunHistory, str]:
        """A page of run ``run_id``'s accepted steps (each verdict and the time it was
        accepted), in index order, and the token of the next page (``""`` when the page reaches
        the run's last step).

        Parameters
        ----------
        page_size
            Most steps in the page, 0–:data:`MAX_PAGE_SIZE`; 0 for 1,000.
        page_token
            The token returned with the previous page; ``""`` to start at step 0.

        Raises
        ------
        InvalidArgument
            A malformed ``run_id``, ``page_size`` out of range, or a ``page_token`` that no
            answer returned.
        RunNotFound
            No such run for this tenant.
        StoreUnavailable
            The store cannot be read.
        """
        validate_run_id(run_id, self.config.max_run_id_chars)
        size = _page_size(page_size, _HISTORY_PAGE)
        start = _history_start(page_token)
        key = (tenant, run_id)
        with self.order.locked(key):
            record = self._record(key)
            n = len(record.verdicts)
            times = list(getattr(record, "times", []))
            times += [None] * (n - len(times))
            summary = run_summary(
                run_id, context=record.context, ended=record.ended, created=record.created, updated=record.updated,
                ended_at=record.ended_at, steps=n, last=record.verdicts[-1] if n else None,
            )
            end = min(n, start + size)
            steps = tuple(HistoryStep(record.verdicts[i], times[i]) for i in range(start, end))
        return RunHistory(summary, steps), (str(end) if end < n else "")

    def reset_run(self, run_id: str, *, tenant: str = "") -> RunInfo:
        """Forget the run's steps and calibration (context kept); the next index is 0.

        Raises ``RunNotFound``, ``InvalidArgument``, ``StoreUnavailable``, and ``StepConflict``
        for an ended run (an ended run stays ended).
        """
        validate_run_id(run_id, self.config.max_run_id_chars)
        key = (tenant, run_id)
        with self.order.locked(key):
            for _ in range(_CAS_ATTEMPTS):
                old = self._record(key)
                if old.ended:
                    raise StepConflict(f"run_id: run {run_id!r} has ended; a reset would re-open it, start a new run id")
                now = self.clock()
                record = RunRecord(
                    run_id=run_id, context=old.context, analysis=RunAnalysis(self.config), tenant=tenant, created=old.created, updated=now
                )
                try:
                    self.store.replace(key, record)
                except StaleRecord:
                    continue
                return self._info(record)
            raise StoreUnavailable(f"store: run {run_id!r} kept changing in other processes; it was not reset")

    def end_run(self, run_id: str, *, tenant: str = "") -> RunInfo:
        """Mark the run ended: later new steps are a ``StepConflict``; its state stays readable
        until it expires (``config.ended_run_ttl_seconds``). Ending an ended run changes nothing.

        Raises ``RunNotFound``, ``InvalidArgument``, ``StoreUnavailable``.
        """
        validate_run_id(run_id, self.config.max_run_id_chars)
        key = (tenant, run_id)
        with self.order.locked(key):
            for _ in range(_CAS_ATTEMPTS):
                record = self._record(key)
                if not record.ended:
                    now = self.clock()
                    record.ended, record.ended_at, record.updated = True, now, now
                    try:
                        self.store.update(key, record)
                    except StaleRecord:
                        self.store.discard(key)
                        continue
                    except BaseException:
                        self.store.discard(key)
                        raise
                return self._info(record)
            raise StoreUnavailable(f"store: run {run_id!r} kept changing in other processes; it was not ended")

    def delete_run(self, run_id: str, *, tenant: str = "") -> RunInfo:
        """Delete the run (open or ended) and return its last state; the run id is free again.

        Raises ``RunNotFound``, ``InvalidArgument``, ``StoreUnavailable``.
        """
        validate_run_id(run_id, self.config.max_run_id_chars)
        key = (tenant, run_id)
        with self.order.locked(key):
            info = self._info(self._record(key))
            self.store.delete(key)
            return info

    def expire(self, now: float | None = None) -> int:
        """Delete runs idle longer than ``config.idle_run_ttl_seconds`` or ended longer than
        ``config.ended_run_ttl_seconds``; returns how many. ``now`` defaults to the clock."""
        now = self.clock() if now is None else now
        idle_before = now - self.config.idle_run_ttl_seconds
        ended_before = now - self.config.ended_run_ttl_seconds
        gone = 0
        for key in self.store.expired(idle_before, ended_before):
            with self.order.locked(key) as gate:
                record = self.store.get(key)
                if record is None or gate.inflight:  # a step on its way counts as activity
                    continue
                stale = record.updated < idle_before or (record.ended and record.ended_at is not None and record.ended_at < ended_before)
                if stale:
                    self.store.delete(key)
                    gone += 1
        return gone

    def close(self) -> None:
        """Close the store (a durable store checkpoints and releases its file)."""
        self.store.close()
