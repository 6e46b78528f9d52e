"""Structural signals from tool calls, their results and progress markers.

A step's *canonical tool signature* is (tool, arguments, result) after normalisation: keys
sorted, volatile values (timestamps, UUIDs, hex ids, PIDs, durations, temp paths, request
ids) replaced by placeholders, long results hashed. Per step this module reports:

- ``repeat_count``: occurrences of this exact signature in the window since the last
  progress (1 = first time). The same call returning the same result again is a retry or
  a busy-wait; with a changed result (a poller whose output moves) it is a new signature.
- ``error_count``: occurrences of the same error (tool + error skeleton: the error line with
  digits and volatile values masked) since the last progress or the tool's last success.
- ``result_novel``: whether the normalised result is new to the run.
- ``progress``: whether the step carries a progress marker that improves on the run so far
  (more tests passed, fewer failed, files changed, the metric moved).

Structural evidence needs no warm-up: the same failing call three times is evidence on any
run (the OpenHands stuck detector, ``openhands/controller/stuck.py``, uses 3 identical
action+error pairs and 4 identical action+observation pairs).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import deque
from dataclasses import dataclass
from typing import Any

from plateau.types import Step, ToolStatus

__all__ = [
    "ProgressSignals",
    "ProgressTracker",
    "canonical_args",
    "error_skeleton",
    "is_error",
    "normalize_volatile",
    "tool_signature",
]

_VOLATILE_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"), "<uuid>"),
    (
        re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b"),
        "<ts>",
    ),
    (re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"), "<time>"),
    (re.compile(r"\b1[5-9]\d{8}(?:\.\d+|\d{3})?\b"), "<epoch>"),
    (re.compile(r"(?:/tmp|/var/tmp|/private/var/folders|/var/folders)/[^\s'\"`),;]+"), "<tmp>"),
    (re.compile(r"\b(?:0x)?(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,}\b"), "<hex>"),
    (re.compile(r"\b(pid|PID|process|thread)([ =:#]+)\d+\b"), r"\1\2<n>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds|min|mins|minutes)\b"), "<dur>"),
)

#: Argument keys whose values identify a request rather than what it asks for.
VOLATILE_KEYS = frozenset(
    {
        "timestamp",
        "ts",
        "nonce",
        "request_id",
        "requestid",
        "trace_id",
        "span_id",
        "idempotency_key",
        "call_id",
        "tool_call_id",
    }
)

#: Results longer than this (characters, after normalisation) are reduced to a digest.
RESULT_HASH_CHARS = 2048

_ERROR_HEAD = re.compile(
    r"^\s*(?:error|fatal|exception|traceback \(most recent call last\)|failed|failure|panic)\b", re.IGNORECASE
)
_ERROR_ANY = re.compile(
    r"(?:\b\w*(?:Error|Exception)\b:|\bE\d{3}\b|command not found|No such file or directory|"
    r"Permission denied|exit (?:code|status) [1-9]|\bFAILED\b|\bERRORS?:)"
)
_ERROR_LINE = re.compile(r"error|exception|failed|fatal|denied|not found|invalid|unable", re.IGNORECASE)


def normalize_volatile(text: str) -> str:
    """Replace volatile values (UUIDs, timestamps, epochs, temp paths, hex ids, PIDs, durations)
    by placeholders and collapse runs of whitespace."""
    for pattern, repl in _VOLATILE_PATTERNS:
        text = pattern.sub(repl, text)
    return " ".join(text.split())


def _strip_volatile(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_volatile(v) for k, v in value.items() if k.lower() not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [_strip_volatile(v) for v in value]
    if isinstance(value, str):
        return normalize_volatile(value)
    return value


def canonical_args(args_json: str) -> str:
    """Canonical form of a JSON object of arguments: volatile keys dropped, volatile values
    masked, keys sorted, compact. ``""`` for no arguments."""
    if not args_json:
        return ""
    return json.dumps(_strip_volatile(json.loads(args_json)), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def _normalized_result(result: str | None) -> str | None:
    if result is None:
        return None
    norm = normalize_volatile(result)
    return norm if len(norm) <= RESULT_HASH_CHARS else "#" + _digest(norm)


def tool_signature(step: Step) -> str | None:
    """Digest of the canonical (tool, args, result) of ``step``; ``None`` without a tool."""
    if step.tool is None:
        return None
    return _digest(json.dumps([step.tool, canonical_args(step.args), _normalized_result(step.result)]))


#: A retried call is a close variant of the failed one: the same edit over a corrected range
#: shares ~0.98 of its character 4-grams, while two sibling paths in one directory
#: (``billing/utils/rounding.py``, ``billing/utils/__init__.py``) share about half, and reading
#: a different file is not the failed read succeeding.
RECOVERY_SIMILARITY = 2 / 3


def _args_similarity(a: str, b: str) -> float:
    """Jaccard similarity of the character 4-gram sets of two argument texts, in [0, 1]."""

    def grams(s: str) -> set[str]:
        return {s[i : i + 4] for i in range(max(1, len(s) - 3))}

    ga, gb = grams(a), grams(b)
    return len(ga & gb) / len(ga | gb) if ga | gb else 1.0


def is_error(step: Step) -> bool:
    """Whether the tool call failed: the explicit status, else inferred from the result text."""
    if step.status is ToolStatus.ERROR:
        return True
    if step.status is ToolStatus.OK or not step.result:
        return False
    head = step.result[:2000]
    return bool(_ERROR_HEAD.search(head) or _ERROR_ANY.search(head))


def error_skeleton(result: str) -> str:
    """The error's identity: its most telling line with volatile values and digits masked.

    The first and the last line mentioning an error (a test runner's first FAIL line names
    what failed, a traceback's last line the exception), else the first non-empty line; at
    most 200 characters each.
    """
    lines = [ln.strip() for ln in result[:8000].splitlines() if ln.strip()]
    if not lines:
        return ""
    telling = [ln for ln in lines if _ERROR_LINE.search(ln)]
    if not telling:
        picked = [lines[0]]
    elif telling[0] == telling[-1]:
        picked = [telling[0]]
    else:  # the first names what failed (a test runner's FAIL line), the last why (a traceback's exception)
        picked = [telling[0], telling[-1]]
    return " … ".join(re.sub(r"\d+", "#", normalize_volatile(ln))[:200] for ln in picked)


@dataclass(frozen=True)
class ProgressSignals:
    """Structural signals of one step.

    Attributes
    ----------
    signature
        Canonical tool signature digest (None without a tool).
    repeat_count
        Occurrences of the signature in the window since the last progress, this one
        included (0 without a tool).
    repeat_lag
        Steps back to the previous occurrence (None when first).
    error
        Whether the call failed.
    error_count
        Occurrences of the same error (tool + skeleton) since the last progress or the tool's
        last success, this one included (0 when no error).
    error_text
        The error skeleton (None when no error).
    result_novel
        True when the normalised result was never seen in this run (None without a result).
    progress
        True when a progress marker improves on the run so far (a new best test count or a
        new metric value); files changed alone do not count (an edit can undo the last one).
    streak
        Consecutive steps, ending with this one, with the same signature (0 without a tool).
    cycle_period
        Period p in 2..6 when the last 2p signatures repeat with period p (A-B-A-B ...).
    same_outcome_count
        Occurrences in the window of this step's failing or empty result under any call
        (varied actions, same outcome), this one included; 0 for an informative result.
    oscillation
        Times the run has returned to a test state (passed, failed) it had already reported
        since the last progress, this step included (tests 62/2 ↔ 61/3 is not progress).
    state
        The (tests_passed, tests_failed) state this step reports, or None.
    recovered
        True when this call succeeded where a close variant of it had just been failing (the
        same tool, arguments with a character 4-gram Jaccard of at least ``RECOVERY_SIMILARITY`` to the last
        failed call of that tool): an inferred progress marker, the retried edit finally
        applied. A different command of a generic tool (``bash``) succeeding is not recovery.
    """

    signature: str | None = None
    repeat_count: int = 0
    repeat_lag: int | None = None
    error: bool = False
    error_count: int = 0
    error_text: str | None = None
    result_novel: bool | None = None
    progress: bool = False
    streak: int = 0
    cycle_period: int | None = None
    same_outcome_count: int = 0
    oscillation: int = 0
    state: tuple[int | None, int | None] | None = None
    recovered: bool = False


class ProgressTracker:
    """Per-run structural state.

    Parameters
    ----------
    window
        Steps of history searched for repeats (int >= 2).
    """

    def __init__(self, window: int = 8) -> None:
        if window < 2:
            raise ValueError(f"window must be >= 2, got {window}")
        self.window = window
        self._signatures: deque[str | None] = deque(maxlen=window)
        self._outcomes: deque[str | None] = deque(maxlen=window)
        self._recent: deque[str | None] = deque(maxlen=12)
        self._streak = 0
        self._errors: dict[tuple[str, str], int] = {}
        self._results: set[str] = set()
        self._best_passed: int | None = None
        self._best_failed: int | None = None
        self._metrics: set[float] = set()
        self._states: set[tuple[int | None, int | None]] = set()
        self._oscillation = 0
        self._last_state: tuple[int | None, int | None] | None = None
        self._failed_args: dict[str, str] = {}

    def _is_progress(self, step: Step) -> bool:
        """A new best test count or a metric value never seen in the run."""
        p = step.progress
        improved = False
        if p.tests_passed is not None:
            if self._best_passed is not None and p.tests_passed > self._best_passed:
                improved = True
            if self._best_passed is None or p.tests_passed > self._best_passed:
                self._best_passed = p.tests_passed
        if p.tests_failed is not None:
            if self._best_failed is not None and p.tests_failed < self._best_failed:
                improved = True
            if self._best_failed is None or p.tests_failed < self._best_failed:
                self._best_failed = p.tests_failed
        if p.metric is not None:
            if self._metrics and p.metric not in self._metrics:
                improved = True
            self._metrics.add(p.metric)
        return improved

    def _cycle_period(self) -> int | None:
        seq = list(self._recent)
        for p in range(2, 7):
            if len(seq) < 2 * p:
                break
            tail = seq[-2 * p :]
            if None in tail or len(set(tail[:p])) < 2:
                continue
            if tail[:p] == tail[p:]:
                return p
        return None

    def update(self, step: Step) -> ProgressSignals:
        """Judge ``step`` against the run so far, then record it."""
        progress = self._is_progress(step)
        if progress:
            self._signatures.clear()
            self._outcomes.clear()
            self._recent.clear()
            self._errors.clear()
            self._states.clear()
            self._oscillation = 0
        state = None
        p = step.progress
        if p.tests_passed is not None or p.tests_failed is not None:
            state = (p.tests_passed, p.tests_failed)
            # a return to an earlier failing state after a different one (A-B-A), not a state
            # that merely holds (A-A) nor an all-green state (nothing left to fix)
            if state in self._states and state != self._last_state and p.tests_failed:
                self._oscillation += 1
            self._states.add(state)
            self._last_state = state

        sig = tool_signature(step)
        repeat_count = 0
        repeat_lag = None
        if sig is not None:
            hits = [lag for lag, s in enumerate(reversed(self._signatures), start=1) if s == sig]
            repeat_count = 1 + len(hits)
            repeat_lag = hits[0] if hits else None
            self._streak = self._streak + 1 if self._recent and self._recent[-1] == sig else 1
        else:
            self._streak = 0
        self._signatures.append(sig)
        self._recent.append(sig)

        error = step.tool is not None and is_error(step)
        error_count = 0
        error_text = None
        if error and step.result is not None:
            error_text = error_skeleton(step.result)
            key = (step.tool or "", error_text)
            error_count = self._errors.get(key, 0) + 1
            self._errors[key] = error_count
        recovered = False
        if not error and step.tool is not None and step.result is not None:
            # a success of this tool ends its failure streaks
            for key in [k for k in self._errors if k[0] == step.tool]:
                del self._errors[key]
            failed = self._failed_args.pop(step.tool, None)
            recovered = failed is not None and _args_similarity(failed, step.args) >= RECOVERY_SIMILARITY
        elif error and step.tool is not None:
            self._failed_args[step.tool] = step.args

        novel = None
        norm = _normalized_result(step.result)
        outcome = None
        if norm is not None:
            digest = _digest(norm)
            novel = digest not in self._results
            self._results.add(digest)
            if error or not norm.strip():
                outcome = _digest((error_text or "") if error else "")
        same_outcome = 0
        if outcome is not None:
            same_outcome = 1 + sum(1 for o in self._outcomes if o == outcome)
        self._outcomes.append(outcome)
        return ProgressSignals(
            signature=sig,
            repeat_count=repeat_count,
            repeat_lag=repeat_lag,
            error=error,
            error_count=error_count,
            error_text=error_text,
            result_novel=novel,
            progress=progress,
            streak=self._streak if sig is not None else 0,
            cycle_period=self._cycle_period() if sig is not None else None,
            same_outcome_count=same_outcome,
            oscillation=self._oscillation if state is not None else 0,
            state=state,
            recovered=recovered,
        )
