"""Structural signals from tool calls, their results and progress markers.

A step's *canonical tool signature* is (tool, arguments, result) after normalisation: keys
sorted, volatile values (timestamps, UUIDs, hex ids, PIDs, durations, temp paths, request
ids) replaced by placeholders, long results hashed. Per step this module reports:

- ``repeat_count``: occurrences of this exact signature in the window since the last
  progress (1 = first time). The same call returning the same result again is a retry or
  a busy-wait; with a changed result (a poller whose output moves) it is a new signature.
- ``error_count``: occurrences of the same error (tool + error identity: the error line with
  digits and volatile values masked, and the findings a checker's report lists at positions,
  :func:`error_identity`) in the last ``2 * window`` steps, since the last progress or the last
  success of a close variant of the failing call. Other calls succeeding in between (an edit
  between two runs of a failing check) end nothing.
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

from plateau import lexicon
from plateau.types import Step, ToolStatus

__all__ = [
    "ProgressSignals",
    "is_mutation",
    "is_refused",
    "ProgressTracker",
    "normalized_args",
    "step_normalized_args",
    "error_identity",
    "error_skeleton",
    "failure_count",
    "is_action",
    "is_error",
    "is_transient",
    "is_wait",
    "is_waiting",
    "normalize_asked",
    "normalize_result",
    "normalize_volatile",
    "report_findings",
    "strip_placeholders",
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


#: An opaque token in a result: a run of base64/base64url characters holding an unbroken
#: stretch of at least 16 letters and digits that mixes upper case, lower case and digits (an
#: SQS receipt handle, a session or pagination token, a JWT segment, a signature). Random
#: strings say nothing about the task and change on every call; words, paths and identifiers
#: break into short segments (``ACME-20Wh-cell-rev2``) or do not mix all three.
_OPAQUE_CANDIDATE = re.compile(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_=-]{16,}(?![A-Za-z0-9+/_=-])")
_OPAQUE_RUN = re.compile(r"[A-Za-z0-9]{16,}")
_OPAQUE_MIN_EACH = 2  # digits, upper-case and lower-case letters each (at least)
#: A number of 16 digits or more in a result is an id (a FIFO sequence number, a snowflake id),
#: not a quantity: no count or measure an agent reads carries 16 significant digits.
_LONG_NUMBER = re.compile(r"\b\d{16,}\b")


def _opaque(match: re.Match[str]) -> str:
    token = match.group()
    for run in _OPAQUE_RUN.findall(token):
        digits = sum(c.isdigit() for c in run)
        upper = sum(c.isupper() for c in run)
        if min(digits, upper, len(run) - digits - upper) >= _OPAQUE_MIN_EACH:
            return "<opaque>"
    return token


#: The placeholders the masks leave (``<uuid>``, ``<ts>``, ``<opaque>`` …), taken from the masks
#: themselves.
_PLACEHOLDER = re.compile(
    "|".join(sorted({re.escape(p) for _, repl in _VOLATILE_PATTERNS for p in re.findall(r"<\w+>", repl)} | {"<opaque>", "<n>"}))
)


def strip_placeholders(text: str) -> str:
    """``text`` without the masks' placeholders: what masking removed is never a term of what a
    call returned (``<uuid>`` would read as the word "uuid" on every call)."""
    return _PLACEHOLDER.sub(" ", text)


def normalize_result(text: str) -> str:
    """:func:`normalize_volatile` for what a call returned: opaque tokens (receipt handles,
    session tokens, signatures) and numbers of 16 digits or more (sequence numbers) are masked
    too. Not for arguments: there an opaque value (a
    pagination cursor) names the item asked for."""
    return normalize_volatile(_LONG_NUMBER.sub("<n>", _OPAQUE_CANDIDATE.sub(_opaque, text)))


#: A calendar date on its own (``2024-03-02``, no time of day): in a call's arguments, the
#: name of a day or a partition, an item a batch works through, unlike a clock reading
#: (``2024-03-02T14:05Z``).
PLAIN_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b(?![T ]\d{2}:\d{2})")


def normalize_asked(text: str) -> str:
    """:func:`normalize_volatile` for what a call asks (its arguments): clock readings are
    masked, a plain calendar date is kept (as ``day20240302``): the day of a backfill is an
    item, while a metric re-read over a shifted window asks the same question again."""
    return normalize_volatile(PLAIN_DATE.sub(r"day\1\2\3", text))


def _strip_volatile(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_volatile(v) for k, v in value.items() if k.lower() not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [_strip_volatile(v) for v in value]
    if isinstance(value, str):
        return normalize_asked(value)
    return value


def normalized_args(args_json: str) -> str:
    """The arguments as compared across steps: ``args_json`` (the canonical JSON text of
    :func:`plateau.types.canonical_args`, which validated it) with volatile keys dropped,
    volatile values masked (:func:`normalize_asked`: clock readings, not calendar dates), keys
    sorted, compact. ``""`` for no arguments."""
    if not args_json:
        return ""
    return _normalized_value(json.loads(args_json))


def _normalized_value(value: Any) -> str:
    return json.dumps(_strip_volatile(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def step_normalized_args(step: Step) -> str:
    """:func:`normalized_args` of ``step``'s arguments, computed once per step
    (:meth:`~plateau.types.Step.args_derived`)."""
    return step.args_derived("normalized_args", lambda args: _normalized_value(step.args_value) if args else "")


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def _normalized_result(result: str | None) -> str | None:
    if result is None:
        return None
    norm = normalize_result(result)
    return norm if len(norm) <= RESULT_HASH_CHARS else "#" + _digest(norm)


def tool_signature(step: Step) -> str | None:
    """Digest of the canonical (tool, args, result) of ``step``; ``None`` without a tool."""
    if step.tool is None:
        return None
    return _digest(json.dumps([step.tool, step_normalized_args(step), _normalized_result(step.result)]))


#: Most distinct errors (and distinct calls) remembered per run (a bound on memory; 24 bytes each).
MAX_ERRORS = 10_000

#: A retried call is a *close variant* of the failed one: the same call with a local
#: correction, taken as "at most about a fifth of the call changed" (a stated principle, not a
#: value measured on cases). For an argument text of ``n`` characters that differs in one
#: interior stretch of ``m`` characters, the character 4-gram Jaccard is
#: ``(n - m - 6) / (n + m)`` (the stretch breaks ``m + 3`` grams on each side), about
#: ``(n - m) / (n + m)`` for long texts, so 2/3 means ``m <= (n - 18) / 5``: a corrected line
#: range, a fixed quote or flag, a bumped timeout in a typical JSON argument text. On very short
#: argument texts (under about 25 characters) the gram width dominates and even a
#: one-character change falls below it, so a success there is not read as recovery. Recovery
#: only restarts evidence; ``scripts/calibrate.py`` measures the detectors it feeds
#: (``error_repeat``) against their false-alarm budget on finished runs.
RECOVERY_SIMILARITY = 2 / 3


def _args_similarity(a: str, b: str) -> float:
    """Jaccard similarity of the character 4-gram sets of two argument texts, in [0, 1]."""

    def grams(s: str) -> set[str]:
        return {s[i : i + 4] for i in range(max(1, len(s) - 3))}

    ga, gb = grams(a), grams(b)
    return len(ga & gb) / len(ga | gb) if ga | gb else 1.0


#: Tool names that change the world they act on (a file, a record, a setting): an edit, a
#: write, a patch. Matched as whole words of the tool name (``edit_file``, ``str_replace``,
#: ``update_reservation``, ``git_commit``).
#: Wording: list ``mutating-tool-words`` of :mod:`plateau.lexicon`.
_MUTATING_TOOL = lexicon.pattern("mutating-tool-words", prefix=r"(?:^|[_\-.\s])", suffix=r"(?:$|[_\-.\s])", flags=re.IGNORECASE)
#: Tool names that act on what an interface shows (a browser page, a form, a chat): a click,
#: a key press, typing, scrolling, a message sent. Their result is what the interface shows
#: next (an observation), so they are not mutations; but the same action acknowledged the
#: same way is a repeat only when nothing new was learned since (``click Next`` between pages).
#: Wording: list ``interface-action-words`` of :mod:`plateau.lexicon`.
_ACTION_TOOL = lexicon.pattern("interface-action-words", prefix=r"(?:^|[_\-.\s])", suffix=r"(?:$|[_\-.\s])", flags=re.IGNORECASE)
#: Shell commands that change files or installed state: in-place editors, file-system changes,
#: package installs, version-control writes, patch application, cluster and cloud writes, and
#: SQL writes, also quoted inside a client call (``psql -c "CREATE INDEX …"``).
#: Wording: list ``mutating-shell`` of :mod:`plateau.lexicon`.
_MUTATING_SHELL = lexicon.pattern("mutating-shell", prefix=r"(?:^|[;&|(]\s*|\s|[\"'])", suffix=r"\b")
#: Output redirection into a file (``> out.txt``, ``>> log``, ``cat > t.py << EOF``), read
#: outside quoted strings and not in an SQL statement, where ``>`` compares
#: (``python -c "print(a > b)"``, ``WHERE created_at > now()``).
_REDIRECT = re.compile(r"[^>&2]>>?\s*[\w./~\"']")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
_SQL_READ = re.compile(r"\s*(?:select|with|explain|show|describe|values)\b", re.IGNORECASE)


def _redirects(command: str) -> bool:
    """Whether a command line writes a file by redirection (:data:`_REDIRECT`)."""
    return _SQL_READ.match(command) is None and _REDIRECT.search(_QUOTED.sub("''", command)) is not None


#: Results that report a change made: PostgreSQL command tags (``INSERT 0 5``, ``UPDATE 12``,
#: ``DELETE 0``, ``COPY 500``), MySQL's "Query OK, 3 rows affected", kubectl's
#: ``node/x drained``, ``deployment.apps/api configured``.
#: Wording: list ``mutation-results`` of :mod:`plateau.lexicon`.
_MUTATION_RESULT = lexicon.pattern("mutation-results", flags=re.MULTILINE | re.IGNORECASE)
#: An HTTP write from the shell: ``curl -X POST|PUT|PATCH|DELETE`` or HTTPie's ``http PUT``
#: (a search or query endpoint posted to is a read).
#: Wording: lists ``http-writes``, ``read-endpoints`` of :mod:`plateau.lexicon`.
_HTTP_WRITE = re.compile(lexicon.alternation("http-writes") + r"(?![^|;&\n]*" + lexicon.alternation("read-endpoints") + ")")
#: A script whose name says it writes: ``./scripts/migrate_db.sh``, ``deploy.py``,
#: ``backfill-day.sh`` (a verb of writing at the start of the file name).
#: Wording: list ``write-script-words`` of :mod:`plateau.lexicon`.
_MUTATING_SCRIPT = lexicon.pattern(
    "write-script-words", prefix=r"(?:^|[\s/;&|])", suffix=r"[\w-]*\.(?:sh|py|rb|js|ts|pl)\b", flags=re.IGNORECASE
)


def is_mutation(step: Step) -> bool:
    """Whether ``step`` changed the world its later checks look at: files reported changed, a
    tool whose name says it writes (``edit_file``, ``apply_patch``, ``update_order``), a
    shell command that writes (redirection into a file, ``sed -i``, ``mv``, ``pip install``,
    ``git checkout``, ``kubectl drain``, ``helm upgrade``, SQL ``INSERT``/``UPDATE`` …), a
    script named for a write (``migrate_db.sh``, ``deploy.py``), an HTTP write (``curl -X
    POST``, not to a search endpoint), or a result that reports a
    change (``INSERT 0 5``, ``5 rows affected``, ``node/x drained``, ``restored 12 tables``).
    A failed call changed nothing.

    This is what makes a re-run check *verification* rather than a repeat: the same passing
    result after an edit confirms the edit (issue 11, "verification between edits").
    """
    if step.progress.files_changed:
        return True
    if step.tool is None or is_error(step):
        return False
    return _asks_to_write(step) or _MUTATION_RESULT.search((step.result or "")[:4000]) is not None


def _asks_to_write(step: Step) -> bool:
    """Whether the call itself (its tool name or its arguments) asks to write."""
    if step.tool is None:
        return False
    if _MUTATING_TOOL.search(step.tool):
        return True
    return any(
        _MUTATING_SHELL.search(text) or _redirects(text) or _MUTATING_SCRIPT.search(text) or _HTTP_WRITE.search(text)
        for text in step_strings(step)
    )


#: A failure that says the caller may not do this: an authorization refusal, whatever the call.
#: Wording: list ``refusals`` of :mod:`plateau.lexicon`.
_DENIED = lexicon.pattern("refusals", flags=re.IGNORECASE)


def is_refused(step: Step) -> bool:
    """Whether ``step``'s call failed as a refusal: a write that failed (:func:`is_mutation`'s
    readers of the call), or any call whose error says the caller may not do it
    (``must be owner of table``, ``403 Forbidden``, ``UnauthorizedOperation``, ``read-only``).
    The action a conclusion calls for, refused: re-checking cannot change that."""
    if step.tool is None or not is_error(step):
        return False
    return _asks_to_write(step) or _DENIED.search((step.result or "")[:4000]) is not None


#: A tool whose name says it only waits (``sleep``, ``wait``, ``time.sleep``).
#: Wording: list ``wait-tool-words`` of :mod:`plateau.lexicon`.
_WAIT_TOOL = lexicon.pattern("wait-tool-words", prefix=r"(?:^|[_\-.\s])", suffix="$", flags=re.IGNORECASE)
_SLEEP = r"\s*sleep\s+\d+(?:\.\d+)?[smhd]?\s*"
#: A shell command that only waits: ``sleep 30``, ``sleep 1m`` alone.
_WAIT_SHELL = re.compile(_SLEEP + r";?\s*")


#: A result that reports something not finished yet: a status, state or phase field whose
#: value says it is still under way (``"Status": "InProgress"``, ``state: RUNNING``,
#: ``phase=Pending``, ``conclusion: null`` is not one). What GitHub Actions, Kubernetes,
#: SageMaker, Batch and most job APIs answer while a job runs.
#: Wording: list ``pending-states`` of :mod:`plateau.lexicon`.
_PENDING = lexicon.alternation("pending-states")
_PENDING_STATUS = re.compile(r"\b(?:status|state|phase|stage)\b[\"']?\s*[:=]\s*[\"']?" + _PENDING + r"\b", re.IGNORECASE)
#: A line that is only a status still under way, bare or after a short label
#: (``in_progress``, ``build: queued``, ``- state: Pending``).
_PENDING_LINE = re.compile(
    r"^[\s\-*]*(?:[\w.\- ]{1,40}[:=]\s*)?[\"']?" + _PENDING + r"[\"']?[.,]?\s*$", re.IGNORECASE | re.MULTILINE
)
#: A shell check that waits first: ``sleep 300 && aws ... describe-job``, ``sleep 30; curl``.
_DELAYED_CHECK = re.compile(_SLEEP + r"(?:&&|;)")


def is_waiting(step: Step) -> bool:
    """Whether ``step`` waits on something: a check that sleeps first (``sleep 300 && ...``),
    or a successful result that reports a status still under way (:data:`_PENDING_STATUS`,
    :data:`_PENDING_LINE`).
    Waiting is legitimate while it is bounded: its repeats are counted against the poll
    limits, not the repeat limits (issue 11, "waiting")."""
    if step.tool is None or is_error(step):
        return False
    if any(_DELAYED_CHECK.match(text) for text in step_strings(step)):
        return True
    head = (step.result or "")[:4000]
    return _PENDING_STATUS.search(head) is not None or _PENDING_LINE.search(head) is not None


def is_wait(step: Step) -> bool:
    """Whether ``step`` is a call that only waits: a tool named for waiting (``sleep``,
    ``wait``), or one whose only text argument is a shell ``sleep N``. It asks nothing and
    changes nothing, so it is transparent to repeats and polling: a poller that sleeps between
    its checks is the same poller as one that checks back to back (issue 11, "waiting"), and
    its checks are bounded by the poll limits."""
    if step.tool is None or is_error(step):
        return False
    if _WAIT_TOOL.search(step.tool):
        return True  # whatever it printed ("slept 5 s")
    if (step.result or "").strip():
        return False
    texts = step_strings(step)
    return len(texts) == 1 and _WAIT_SHELL.fullmatch(texts[0]) is not None


def is_action(step: Step) -> bool:
    """Whether ``step`` acts on what an interface shows (:data:`_ACTION_TOOL`: a click, typing,
    a key press, a navigation, a message sent): its result is what the interface shows next,
    and the same action acknowledged the same way is a repeat only when nothing new was
    learned since."""
    return step.tool is not None and _ACTION_TOOL.search(step.tool) is not None


def step_strings(step: Step) -> list[str]:
    """:func:`_strings` of ``step``'s arguments, computed once per step (read-only)."""
    return step.args_derived("strings", lambda args: _values(step.args_value) if args else [])


def _strings(args_json: str) -> list[str]:
    """The string values of a JSON object of arguments (a command line, a script), or the text."""
    if not args_json:
        return []
    try:
        value = json.loads(args_json)
    except ValueError:
        return [args_json]
    return _values(value)


def _values(value: Any) -> list[str]:
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


#: The longest argument values (at most this many, each at most ``ECHO_CHARS`` characters)
#: whose echo is taken out of an answer: a query, a URL, a path (a bound on the work per step).
ECHO_VALUES = 16
ECHO_CHARS = 1000


def _without_echo(result: str, args_json: str) -> str:
    """``result`` (normalised) without the text values of the call's arguments that it echoes
    (a search header naming the query, a page naming the URL asked for); values shorter than
    3 characters stay."""
    values = sorted((v for v in _strings(args_json) if 3 <= len(v) <= ECHO_CHARS), key=len, reverse=True)
    for value in values[:ECHO_VALUES]:
        value = normalize_volatile(value)
        if len(value) >= 3:
            result = result.replace(value, "")
    return result


def is_error(step: Step) -> bool:
    """Whether the tool call failed: the explicit status, else inferred from the result text."""
    if step.status is ToolStatus.ERROR:
        return True
    if step.status is ToolStatus.OK or not step.result:
        return False
    head = step.result[:2000]
    return bool(_ERROR_HEAD.search(head) or _ERROR_ANY.search(head))


#: A failure the service itself calls passing, by its own account: waiting will help (HTTP
#: 429 Too Many Requests, RFC 6585 §4; 502, 503 with Retry-After, 504, RFC 9110 §15.6; 529
#: "overloaded", as LLM APIs answer). A 500 is left out: it is as often a standing bug.
#: Wording: list ``transient-failures`` of :mod:`plateau.lexicon`.
_TRANSIENT = lexicon.pattern("transient-failures", flags=re.IGNORECASE)
#: A failure count in a checker's summary: "3 failed", "Found 12 errors", "14 problems".
_FAILURE_COUNT = re.compile(r"\b(\d+)\s+(?:failed|failures?|errors?|problems?)\b", re.IGNORECASE)


def is_transient(result: str) -> bool:
    """Whether a failure's text says it is transient (:data:`_TRANSIENT`): an overloaded or
    rate-limited service, a gateway that could not reach it. Retrying it is waiting, bounded
    by the poll limits, not a retry loop (issue 11, "recovery": a few tries that then work)."""
    return _TRANSIENT.search(result[:4000]) is not None


def failure_count(result: str) -> int | None:
    """The failure count of a checker's summary (pytest, mypy, tsc, eslint), or None: the
    first "N failed / errors / problems" of the last 20 lines, where summaries sit."""
    tail = "\n".join(result[-8000:].splitlines()[-20:])
    match = _FAILURE_COUNT.search(tail)
    return int(match.group(1)) if match else None


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


#: A line of a report located at a position in a file: ``path:line[:col]`` (gcc, clang, rustc's
#: ``-->``, go vet, pylint, flake8, mypy, ruff, eslint's unix format, a pytest failure's
#: location, a docutils warning), ``path(line,col)`` (tsc, MSBuild) or ``(line N)`` (Sphinx
#: linkcheck).
_LOCATED = re.compile(r"[\w.\-/\\]+\.\w+:\d+\b|[\w.\-/\\]+\.\w+\(\d+,\s*\d+\)|\(line\s+\d+\)")
#: A frame of a stack: pytest's ``path:12: in func``, an ``at f (path:3:7)`` line (JavaScript,
#: Java, C#, Rust backtraces), a Go goroutine frame (``path.go:42 +0x1d``); like Python's
#: ``File "x.py", line 3`` (which :data:`_LOCATED` does not match), a frame is a place one
#: failure passed through, not a finding: the stack is one failure, which the skeleton names,
#: and a file renamed or a call moved changes its frames, not the failure.
_FRAME = re.compile(r":\d+: in \S+\s*$|^\s*at\s|:\d+ \+0x[0-9a-f]+\s*$")


def report_findings(result: str) -> tuple[str, ...]:
    """The findings a failing call's report lists: its lines located at a position
    (:data:`_LOCATED`) that are not frames of a stack (:data:`_FRAME`), masked as the skeleton
    is (volatile values, digits: an edit elsewhere in the file moves every position after it),
    at most 200 characters each, sorted, repeats kept (two modules with the same finding are
    two findings). ``()`` when no line is located.

    Read from the first 8,000 characters, as the skeleton is.
    """
    found = [
        re.sub(r"\d+", "#", normalize_volatile(ln.strip()))[:200]
        for ln in result[:8000].splitlines()
        if _LOCATED.search(ln) and not _FRAME.search(ln)
    ]
    return tuple(sorted(found))


def error_identity(result: str, skeleton: str | None = None) -> str:
    """What makes two failures *the same error*: the skeleton (:func:`error_skeleton`) and, when
    the report lists findings at positions (:func:`report_findings`), all of them.

    Principle: a checker's report (a linter, a type checker, a link checker, a test run listing
    failures) exits non-zero because it has findings; the report *is* the list. Its skeleton is
    one line of it, often one that does not change while the list does (the ``*************
    Module x`` header pylint prints when no line reads as an error, a finding unrelated to the
    edits, the reproduction's own expected failures). Re-running the checker after an edit and
    getting a different list (a finding gone, one added, one more module) is the edit's
    effect, not the same failure again; the same list again (positions masked, so an edit that
    only moved the lines changes nothing) is. Output without located lines (a traceback, a
    "command not found", an HTTP error) keeps the skeleton as its identity. ``""`` for an empty
    result. ``skeleton``: the result's :func:`error_skeleton` when the caller already has it
    (computed here when None).
    """
    if skeleton is None:
        skeleton = error_skeleton(result)
    findings = report_findings(result)
    return skeleton if not findings else skeleton + " \x00 " + _digest("\n".join(findings))


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
        Occurrences of the same error (tool + :func:`error_identity`) in the last ``2 * window`` steps, since
        the last progress or the last success of a close variant of the failing call
        (:data:`RECOVERY_SIMILARITY`), this one included (0 when no error, or an empty one).
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
        Occurrences in the window of this step's outcome under any call (varied actions, the
        same outcome), this one included: the same error, the same empty answer, or the same
        non-empty answer with no mutation in between (0 for a mutation's acknowledgement).
    oscillation
        Times the run has returned to a test state (passed, failed) it had already reported
        since the last progress, this step included (tests 40/2 ↔ 39/3 is not progress).
    state
        The (tests_passed, tests_failed) state this step reports, or None.
    recovered
        True when this call succeeded where a close variant of it had just been failing (the
        same tool, arguments with a character 4-gram Jaccard of at least ``RECOVERY_SIMILARITY`` to the last
        failed call of that tool): an inferred progress marker, the retried edit finally
        applied. A different command of a generic tool (``bash``) succeeding is not recovery.
    fewer_failures
        The same error as before, with a failure count in its summary (:func:`failure_count`)
        below any it had before: the edits in between fixed something; its streak restarted.
    transient
        The error says it is transient (:func:`is_transient`): retrying it is waiting, bounded
        by the poll limits.
    error_novel
        True when the call failed with an error (tool + skeleton) this run had never seen: a
        new error is a new fact (the next missing dependency, a fix that moved the failure),
        whoever else repeats.
    mutations
        Successful mutations (:func:`is_mutation`) before this step in the run (int >= 0):
        two observations with the same count saw the same world.
    result_digest
        Digest of the normalised result (volatile values masked), or None without a result.
    call_seen
        The same call (tool and canonical arguments, volatile values masked) was made earlier
        in the run: a re-query (whatever it returns).
    masked_only
        The call repeats the previous one (``streak >= 2``) and its raw result differs from
        the previous one's only in what masking removes (a timestamp, an elapsed-time
        counter, an id): a poller waiting on something that moves, bounded like one.
    wait
        The call only waits (:func:`is_wait`): it left no trace in the tracker.
    action
        The call acts on an interface (:func:`is_action`: a click, typing, a navigation) and
        is not a mutation.
    polling
        The call is the previous step's call again (tool and canonical arguments), with no
        mutation in between, whatever it returned: a poller asking the same question right
        away (a job's status, a rollout's replica count). Its answer is waited for, not
        recalled; an unchanged answer is still counted by ``streak`` against the poll bounds.
    mutated
        The step changed the world (:func:`is_mutation`): its result acknowledges an action
        rather than answering a question.
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
    fewer_failures: bool = False
    transient: bool = False
    error_novel: bool = False
    mutations: int = 0
    result_digest: str | None = None
    call_seen: bool = False
    masked_only: bool = False
    polling: bool = False
    wait: bool = False
    action: bool = False
    mutated: bool = False


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
        # (signature, mutation epoch, failed, facts learned by the end of that step)
        self._signatures: deque[tuple[str | None, int, bool, int]] = deque(maxlen=window)
        self._facts = 0  # steps that brought new facts so far (:meth:`learned`)
        self._stamp = False  # the last step appended a signature that :meth:`learned` stamps
        self._epoch = 0  # successful mutations so far: a check re-run after one is verification
        self._mutators: deque[str | None] = deque(maxlen=window)  # signatures of the last mutations
        # (outcome, facts learned by the end of that step): a failure's or an answer's identity
        self._outcomes: deque[tuple[str | None, int]] = deque(maxlen=window)
        self._recent: deque[str | None] = deque(maxlen=12)
        self._streak = 0
        self._last_raw: str | None = None
        self._errors: dict[tuple[str, str], deque[int]] = {}  # error -> steps it occurred at
        self._step = 0
        self._error_args: dict[tuple[str, str], str] = {}  # the last failing call's arguments per error
        self._results: set[str] = set()
        self._best_passed: int | None = None
        self._best_failed: int | None = None
        self._metrics: set[float] = set()
        self._states: set[tuple[int | None, int | None]] = set()
        self._oscillation = 0
        self._last_state: tuple[int | None, int | None] | None = None
        self._failed_args: dict[str, str] = {}
        self._seen_errors: set[str] = set()
        self._seen_calls: set[str] = set()
        self._failure_counts: dict[tuple[str, str], int] = {}  # the fewest failures seen per error
        self._last_call: str | None = None  # the previous step's call, and the epoch it was made in
        self._last_call_epoch = 0
        # action signature -> [occurrences with nothing learned in between, facts by the end of
        # the last one]: a write cycle longer than the window still counts
        self._action_runs: dict[str, list[int]] = {}
        self._action_stamp: str | None = None

    def learned(self, new_facts: bool) -> None:
        """Record whether the step just judged brought new facts
        (:attr:`plateau.signals.information.InformationSignals.new_facts`): a success repeats an
        earlier one only when no step since that one brought any."""
        if new_facts:
            self._facts += 1
        if self._action_stamp is not None:
            self._action_runs[self._action_stamp][1] = self._facts
            self._action_stamp = None
        if self._stamp:
            sig, epoch, failed, _ = self._signatures[-1]
            self._signatures[-1] = (sig, epoch, failed, self._facts)
            self._outcomes[-1] = (self._outcomes[-1][0], self._facts)
            self._stamp = False

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

    def _unchanged_since(self, epoch: int, sig: str | None) -> bool:
        """No mutation since ``epoch`` but (repeats of) the call ``sig`` itself: a call that
        is its own mutation (the same edit applied again) does not make itself verification."""
        since = self._epoch - epoch
        if since == 0:
            return True
        recent = list(self._mutators)[-since:] if since <= len(self._mutators) else None
        return recent is not None and all(m == sig for m in recent)

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
        """Judge ``step`` against the run so far, then record it. A call that only waits
        (:func:`is_wait`) is judged as waiting and leaves no trace: the next check continues
        the poll it interrupted."""
        self._step += 1
        if is_wait(step):
            return ProgressSignals(polling=True, wait=True)
        mutated = is_mutation(step)
        action = mutated or is_action(step)
        progress = self._is_progress(step)
        if progress:
            self._signatures.clear()
            self._outcomes.clear()
            self._recent.clear()
            self._errors.clear()
            self._error_args.clear()
            self._action_runs.clear()
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
        error = step.tool is not None and is_error(step)
        repeat_count = 0
        repeat_lag = None
        if sig is not None:
            # the same call with the same result again; across a successful mutation only a
            # failure counts (the same passing check after an edit confirms the edit, the same
            # error after an edit says the edit changed nothing that matters)
            # ... and a repeated action (a mutation, a click, a submit) counts only when nothing
            # new was learned since: the same acknowledgement of "next page" between pages of
            # new records is paging, not a loop. A repeated observation is recurrence whatever
            # came between (re-reading what is already known)
            hits = [
                lag
                for lag, (s, epoch, failed, facts) in enumerate(reversed(self._signatures), start=1)
                if s == sig
                and (
                    (failed and error)
                    # an action again with nothing learned since, whatever else was written in
                    # between (send, delete, send, delete: a write cycle; A -> B -> A edits)
                    or (action and facts == self._facts)
                    or (not action and self._unchanged_since(epoch, sig))
                )
            ]
            repeat_count = 1 + len(hits)
            repeat_lag = hits[0] if hits else None
            if action and not error and (sig in self._action_runs or len(self._action_runs) < MAX_ERRORS):
                # the same action with nothing learned since its last occurrence, however far
                # back (a cycle of four writes holds only two earlier rounds in the window)
                run = self._action_runs.get(sig)
                rounds = run[0] + 1 if run is not None and run[1] == self._facts else 1
                self._action_runs[sig] = [rounds, self._facts]
                self._action_stamp = sig
                repeat_count = max(repeat_count, rounds)
            self._streak = self._streak + 1 if self._recent and self._recent[-1] == sig else 1
            raw = None if step.result is None else _digest(step.result)
            # the same signature, yet the raw result moved: only what masking removes (a
            # timestamp, an elapsed-time counter, an id) changed; a poller waiting
            masked_only = self._streak >= 2 and raw != self._last_raw
            self._last_raw = raw
        else:
            self._streak = 0
            masked_only = False
        self._signatures.append((sig, self._epoch, error, self._facts))
        self._stamp = True
        epoch_before = self._epoch
        call_seen = False
        polling = False
        if step.tool is not None:
            call = _digest(json.dumps([step.tool, step_normalized_args(step)]))
            call_seen = call in self._seen_calls
            polling = call == self._last_call and self._last_call_epoch == self._epoch
            self._last_call, self._last_call_epoch = call, self._epoch
            if len(self._seen_calls) < MAX_ERRORS:
                self._seen_calls.add(call)
        else:
            self._last_call = None
        self._recent.append(sig)
        if mutated:
            self._epoch += 1
            self._mutators.append(sig)

        error_count = 0
        error_text = None
        identity = None
        error_novel = False
        fewer_failures = False
        transient = False
        if error and step.result is not None and step.result.strip():
            # an empty failure (``grep`` finding nothing: exit 1, no output) is an empty answer,
            # counted by ``same_outcome``, not an error with an identity that can repeat
            error_text = error_skeleton(step.result)
            # the same skeleton with a different list of findings is another report (:func:`error_identity`)
            identity = error_identity(step.result, error_text)
            key = (step.tool or "", identity)
            seen = _digest("\x00".join(key))
            error_novel = seen not in self._seen_errors
            if len(self._seen_errors) < MAX_ERRORS:
                self._seen_errors.add(seen)
            # a retry loop is a burst: occurrences further back than ``2 * window`` steps (the
            # same environment error met again in another phase of a long run) do not count
            seen_at = self._errors.setdefault(key, deque(maxlen=2 * self.window))
            # the same error with fewer failures than ever before ("12 errors" -> "9 errors"): the
            # edits in between fixed something, so the streak starts over (the digits of the
            # error's identity are masked, so only the count can tell). A new best, as for test
            # counts: failures that go 3, 2, 3, 2 are edits undoing each other, not progress
            count = failure_count(step.result)
            best = self._failure_counts.get(key)
            if count is not None and best is not None and count < best:
                seen_at.clear()
                fewer_failures = True
            if count is not None and (best is None or count < best) and (best is not None or len(self._failure_counts) < MAX_ERRORS):
                self._failure_counts[key] = count
            transient = is_transient(step.result)
            seen_at.append(self._step)
            error_count = sum(1 for at in seen_at if self._step - at < 2 * self.window)
            self._error_args[key] = step.args
        recovered = False
        if not error and step.tool is not None and step.result is not None:
            # a success ends the failure streaks of the calls it is a close variant of (the
            # failing call, retried with a correction, now works); another command of the same
            # tool succeeding (an edit between two runs of a failing check, a search between
            # two attempts) ends nothing: the same error after it is the same failure
            for key in [
                k for k, args in self._error_args.items() if k[0] == step.tool and _args_similarity(args, step.args) >= RECOVERY_SIMILARITY
            ]:
                self._errors.pop(key, None)
                del self._error_args[key]
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
            if len(self._results) < MAX_ERRORS:
                self._results.add(digest)
            # a failure, or an empty answer; an empty result the harness reported as a success
            # is an acknowledgement (a write, a move), not an answer that found nothing
            if error or (not norm.strip() and step.status is not ToolStatus.OK):
                outcome = _digest((identity or "") if error else "")
            elif norm.strip() and not mutated:
                # the same answer to varied questions, in the same world (no mutation since):
                # rephrased searches returning the same hits, pages that do not advance. The
                # question's echo ("Results for 'ESG report'") is not part of the answer
                outcome = f"{epoch_before}:{_digest(_without_echo(norm, step.args))}"
        same_outcome = 0
        if outcome is not None and fewer_failures:  # fewer failures than ever: not the same outcome
            self._outcomes = deque(((None, f) if o == outcome else (o, f) for o, f in self._outcomes), maxlen=self.window)
        if outcome is not None:
            # a failure counts whatever came between; the same answer only when nothing new was
            # learned since (the same "next page" acknowledgement between pages of new records)
            answer = not (error or not norm)
            same_outcome = 1 + sum(1 for o, f in self._outcomes if o == outcome and (not answer or f == self._facts))
        self._outcomes.append((outcome, self._facts))
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
            fewer_failures=fewer_failures,
            transient=transient,
            error_novel=error_novel,
            mutations=epoch_before,
            result_digest=None if norm is None else _digest(norm),
            call_seen=call_seen,
            masked_only=masked_only,
            polling=polling,
            action=action and not mutated,
            mutated=mutated,
        )
