"""``line-window``: hermes-agent's streaming repetition guard.

Source
------
NousResearch/hermes-agent pull request #78551 ("fix(agent): stop degenerate output
repetition during streaming", by enzo-adami, open when read). The brief names the file
``agent/repetition_guard.py``; the guard the PR describes, ``StreamOutputRepetitionGuard``,
lives in ``agent/stream_output_repetition_guard.py`` (the indexed copy read is at
NousResearch/hermes-agent commit ``c28e949be724f05c2c10703c76480a59554ef34a``; its unit
tests were read too). ``agent/repetition_guard.py`` on ``main`` holds different,
completed-response checks (``is_repetition_dominated``, ``RunawayStreamWatch`` from 16,000
characters, ``ReasoningLoopGuard``) that are not ported here.

Verified against that module (defaults and logic):

* defaults ``min_total_chars=1200``, ``min_line_chars=40``, ``repeat_threshold=8``,
  ``line_window = 6 * repeat_threshold = 48`` lines, ``max_distinct_lines=6``,
  ``periodic_max_chars=80``, ``periodic_min_repeats=5``, ``periodic_check_every_chars=256``;
* ``feed`` counts the whole delta into the character total first, then splits the pending text
  with ``str.splitlines(keepends=True)``; complete lines are recorded, an unterminated tail
  stays pending;
* a line is normalised (whitespace runs -> one space, stripped) and ignored when shorter than
  40 characters, or when it is `````, ``---``, ``***`` or made only of ``- | :`` and spaces;
* recorded lines live in a sliding window of the last 48; after 1,200 characters the guard
  fires when the most common line occurs at least 8 times **and** the window holds at most 6
  distinct lines;
* the periodic-tail check runs only while an unterminated line is pending and at least 256
  characters arrived since the previous check; after 1,200 characters it fires when, for some
  period ``p`` in 2..80, the last ``5 p`` characters of the text are the last ``p`` repeated
  5 times and that unit is not blank (the tail buffer keeps ``80 * 5 = 400`` characters).

Differences
-----------
* ``feed`` returns ``True`` (sticky) instead of raising ``StreamOutputRepetitionError``; the
  repeated unit is kept in :attr:`LineWindow.repeated_unit`.
* ``flush()`` (end of stream: records the pending line) is not called by the evaluator, which
  only asks after which chunk the guard fires; :meth:`flush` is provided for completeness.
* The PR's constructor clamps out-of-range parameters silently; this port raises
  ``ValueError`` instead.
"""

from __future__ import annotations

import re
from collections import Counter, deque

__all__ = ["LineWindow"]

_SPACES = re.compile(r"\s+")


def _normalize_line(line: str, min_chars: int) -> str:
    normalized = _SPACES.sub(" ", line.strip())
    if len(normalized) < min_chars:
        return ""
    if normalized in {"```", "---", "***"}:
        return ""
    if set(normalized) <= {"-", "|", ":", " "}:
        return ""
    return normalized


class LineWindow:
    r"""hermes-agent's ``StreamOutputRepetitionGuard``: line-window dominance + periodic tail.

    Parameters
    ----------
    min_total_chars
        Characters that must have streamed before either check may fire (int >= 0; 1200).
    min_line_chars
        Shorter normalised lines are ignored (int >= 1; 40).
    repeat_threshold
        Occurrences of one line in the window that may fire (int >= 2; 8).
    line_window
        Recorded lines kept in the window (int >= ``repeat_threshold``; default
        ``6 * repeat_threshold``).
    max_distinct_lines
        The window may hold at most this many distinct lines for a fire (int >= 1; 6).
    periodic_max_chars
        Longest period tried by the periodic-tail check (int >= 2; 80).
    periodic_min_repeats
        Exact repetitions of the unit at the end of the text that fire (int >= 3; 5).
    periodic_check_every_chars
        Characters between periodic-tail checks (int >= 64; 256).

    Raises
    ------
    ValueError
        On a bad parameter (named in the message).

    Examples
    --------
    >>> det = LineWindow()
    >>> line = "- **Texture**: `TEXTURE_LOCAL.md` (creative trace, emergence).\n"
    >>> chunks = ["A healthy preamble that explains the plan in some detail.\n"] * 1 + [line] * 30
    >>> next(i for i, c in enumerate(chunks) if det.feed(c))
    19

    References
    ----------
    .. [1] NousResearch/hermes-agent pull request #78551,
       ``agent/stream_output_repetition_guard.py``, ``StreamOutputRepetitionGuard``.
    """

    name = "line-window"

    def __init__(
        self,
        *,
        min_total_chars: int = 1200,
        min_line_chars: int = 40,
        repeat_threshold: int = 8,
        line_window: int | None = None,
        max_distinct_lines: int = 6,
        periodic_max_chars: int = 80,
        periodic_min_repeats: int = 5,
        periodic_check_every_chars: int = 256,
    ) -> None:
        if line_window is None:
            line_window = repeat_threshold * 6 if isinstance(repeat_threshold, int) else 0
        for pname, value, low in (
            ("min_total_chars", min_total_chars, 0),
            ("min_line_chars", min_line_chars, 1),
            ("repeat_threshold", repeat_threshold, 2),
            ("max_distinct_lines", max_distinct_lines, 1),
            ("periodic_max_chars", periodic_max_chars, 2),
            ("periodic_min_repeats", periodic_min_repeats, 3),
            ("periodic_check_every_chars", periodic_check_every_chars, 64),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{pname} must be an integer >= {low}, got {value!r}")
        if isinstance(line_window, bool) or not isinstance(line_window, int) or line_window < repeat_threshold:
            raise ValueError(
                f"line_window must be an integer >= repeat_threshold ({repeat_threshold}), got {line_window!r}"
            )
        self.min_total_chars = min_total_chars
        self.min_line_chars = min_line_chars
        self.repeat_threshold = repeat_threshold
        self.line_window = line_window
        self.max_distinct_lines = max_distinct_lines
        self.periodic_max_chars = periodic_max_chars
        self.periodic_min_repeats = periodic_min_repeats
        self.periodic_check_every_chars = periodic_check_every_chars
        self._reset()

    def _reset(self) -> None:
        self._lines: deque[str] = deque()
        self._line_counts: Counter[str] = Counter()
        self._pending = ""
        self._total_chars = 0
        self._since_periodic_check = 0
        self._tail: deque[str] = deque(maxlen=self.periodic_max_chars * self.periodic_min_repeats)
        self._fired = False
        self._unit: str | None = None

    def reset(self) -> None:
        """Forget the stream (lines, tail, counters and the fire)."""
        self._reset()

    @property
    def repeated_unit(self) -> str | None:
        """The repeated line, or ``"periodic tail: <unit>"``, once fired; else ``None``."""
        return self._unit

    def feed(self, chunk: str) -> bool:
        """Add one chunk; ``True`` once the guard has fired (sticky)."""
        if self._fired:
            return True
        if not chunk:
            return False
        self._total_chars += len(chunk)
        self._since_periodic_check += len(chunk)
        self._tail.extend(chunk)
        self._pending += chunk
        parts = self._pending.splitlines(keepends=True)
        if parts and not parts[-1].endswith(("\n", "\r")):
            self._pending = parts.pop()
        else:
            self._pending = ""
        for part in parts:
            if self._record_line(part):
                return True
        if self._pending and self._since_periodic_check >= self.periodic_check_every_chars:
            self._since_periodic_check = 0
            if self._check_periodic_tail():
                return True
        return False

    def flush(self) -> bool:
        """End of stream: record the pending line; ``True`` once fired."""
        if self._fired:
            return True
        pending, self._pending = self._pending, ""
        if pending:
            self._record_line(pending)
        return self._fired

    def _fire(self, unit: str) -> bool:
        self._fired = True
        self._unit = unit
        return True

    def _record_line(self, line: str) -> bool:
        normalized = _normalize_line(line, self.min_line_chars)
        if not normalized:
            return False
        self._lines.append(normalized)
        self._line_counts[normalized] += 1
        if len(self._lines) > self.line_window:
            evicted = self._lines.popleft()
            if self._line_counts[evicted] == 1:
                del self._line_counts[evicted]
            else:
                self._line_counts[evicted] -= 1
        if self._total_chars < self.min_total_chars:
            return False
        repeated, count = self._line_counts.most_common(1)[0]
        if count >= self.repeat_threshold and len(self._line_counts) <= self.max_distinct_lines:
            return self._fire(repeated)
        return False

    def _check_periodic_tail(self) -> bool:
        if self._total_chars < self.min_total_chars:
            return False
        tail = "".join(self._tail)
        for period in range(2, self.periodic_max_chars + 1):
            sample = period * self.periodic_min_repeats
            if len(tail) < sample:
                break
            unit = tail[-period:]
            if unit.strip() and tail[-sample:] == unit * self.periodic_min_repeats:
                return self._fire(f"periodic tail: {unit!r}")
        return False
