"""``stream.line_dominance``: a few lines dominating the recent lines.

Over a sliding window of the last ``line_window`` *non-trivial* lines (at least
``line_min_words`` words of two letters or more in their first 96 characters; blank lines, dividers, box sides, rows of
numbers and other punctuation-only lines never count), it fires when the window holds at most
``line_max_distinct`` distinct lines (after stripping outer whitespace). The same rule as
hermes-agent's streaming guard (NousResearch/hermes-agent PR #78551, window 48, at most 6
distinct) and mastra's exact-duplicate-line ratio (mastra-ai/mastra PR #22072), with the
thresholds of :class:`~plateau.stream.StreamGuardConfig`. Not inside an open code fence or in
quoted output (a request to paste a program's output), nor in a plan the request asks to recur
(a schedule, a log with one block per day: ``recurring``): a program prints the same few lines
again and again (a test runner's line per worker), and a plan writes the same lines for each
of its days; there a line's copies are judged by the rules below, with their budgets.

Lines that differ only by a time field in front -- digits and punctuation up to the line's
first letter holding two numbers or more (a clock time, a subtitle's time range), folded as
``stream.drift`` folds digits; one number is a line number or an index, which a ``grep -n``
of one signature repeats legitimately -- and
repeat the text after it verbatim are copies of one unit: four in a row (``unit_copies``; 12
inside an open code fence, the budget of a quoted line) fire as ``stream.line_dominance`` on
the chunk that brings the newline ending the 4th copy (an armed check reads the lines of later
chunks while such a run is alive). The text must hold ``line_min_words`` words and
``copy_unit`` characters. Numbers inside the text do not fold: a linter's ``path:line:col``,
a test id or an epoch's loss are what the lines report. ``scripts/stream_false_alarms.py``
measures the rule on the real runs (see the CHANGELOG).

A line that comes back every other line, between lines that themselves come back
(``A B A C A B A``), is counted from its first appearance as a reader counts it: a line of
``copy_unit`` characters of content with a word fires on the newline that ends its
``unit_copies``-th copy, outside code fences and quoted output and when not indented (a
statement written as the body of each branch of a chain repeats legitimately); a line between
lines that are each new is an enumeration and stays quiet. See :meth:`LineDetector._recurs`.

An ordered list whose items come back in order under new numbers (``1. A``, ``2. B``, ``3. A``,
...) is a cycle of 2 to 8 lines written again: with the item numbers folded, it fires on the
newline that ends the first item of its ``unit_copies``-th round, outside code fences and quoted
output; see :meth:`LineDetector._cycle`.

The same rule holds for a *record* of 2 to 8 lines (a subtitle block: its index, its time
range, its text): lines that are only a numeric field -- a counter (``12``) or a time
(``0:02:13.580 --> 0:02:16.580``) -- are compared with their digit runs read as ``0``, every
other line verbatim, blank lines transparent; a record holding a time line (two numbers or
more), a changed counter or time, a worded line (or, in a record that numbers itself with a
changed one-number counter line, a number line repeated verbatim: a subtitle whose text is a
number) and ``copy_unit`` characters fires by its
``unit_copies``-th copy (12 inside an open code fence), on the newline that ends that copy.
A field line holding letters (``Epoch 3/10``, ``path:12:5``) never folds. On the 12,871
messages of ``scripts/stream_false_alarms.py`` the record rule adds no fire.

Work per block: one ``str.find`` per line, one regular-expression count of words per line and a
:class:`collections.Counter` update; memory: ``line_window`` lines of at most 512 characters.
"""

from __future__ import annotations

import re
from collections import Counter, deque

from plateau.stream.block import Block
from plateau.stream.config import StreamGuardConfig
from plateau.stream.dialogue import holds_marker
from plateau.stream.result import Armed, Fire
from plateau.stream.text import content_length, word_count, words_at_least

__all__ = ["LineDetector"]

_MAX_LINE = 512  # characters of a line kept as its key
_WORDS_IN = 96  # words are counted in the first characters of a line only
_DIGITS = re.compile(r"\d+")
_FIELD = re.compile(r"[\d\W_]*")  # a line's leading field: digits and punctuation, up to its first letter
#: A numbered line's leading field: digits and punctuation, and a time unit glued to a number
#: (``0.0s-3.0s:``, ``[1m20s]``, ``250ms``), up to the first letter of its text.
_TIME_FIELD = re.compile(r"(?:[\d\W_]|(?<=\d)(?:ms|min|s|m|h)(?![^\W\d_]))*")
_TIME_UNIT = re.compile(r"\d(?:ms|min|s|m|h)(?![^\W\d_])")  # a number that is a time: 12s, 250ms
#: An item's label and its number before the item's text (``Step 3: ``, ``Attempt #4 - ``,
#: ``Iteration 12) ``): a capitalised word, a number, a colon, a dot, a bracket or a dash.
_LABEL_NUMBER = re.compile(r"[A-Z][A-Za-z]{1,15}\.?[ \t]*#?\d{1,4}[ \t]*[:.)\-\u2013][ \t]+(?=\S)")
_NO_RUN = ("", 0, 0, "")  # no numbered run
_MARKER = re.compile(r"\d{1,4}[.)]\s+")  # an ordered list's item number ("7. ", "12) ")


#: A line's chain of copies one or two lines apart (see :meth:`LineDetector._recurs`).
_Chain = tuple[str, int, int, int, frozenset[str], bool]
_NO_GAPS: frozenset[str] = frozenset()
_MAX_GAPS = 32  # lines kept of those that stood between a line's copies (more, all new: an enumeration)
_MAX_RECORD = 8  # lines of a multi-line record looked for (a subtitle block is 3, with its blank line 4)
_NO_TIME = 2 * _MAX_RECORD  # lines without a time line after which no record run is counted


class _Records:
    """The last lines, folded, and the runs of lines that repeat at a period of 2 to ``_MAX_RECORD`` lines.

    A line that is only a numeric field -- digits and punctuation, a counter (``12``) or a time
    (``0:02:13.580 --> 0:02:16.580``) -- is folded with its digit runs read as ``0``; any other
    line stays as it is. ``runs[q]`` counts the consecutive lines, ending at the last, equal to
    the line ``q`` before them: a record of ``q`` lines holds ``runs[q] // q + 1`` copies. Runs
    are counted only while a time line is among the last ``2 * _MAX_RECORD`` lines: every copy
    of a record that may fire holds one, so a run that may fire begins after the first.
    """

    __slots__ = ("lines", "runs", "seconds", "since", "starts")

    def __init__(self) -> None:
        #: (folded line, raw line, start offset, is a numeric field, holds a time)
        self.lines: deque[tuple[str, str, int, bool, bool]] = deque(maxlen=2 * _MAX_RECORD + 1)
        self.runs = [0] * (_MAX_RECORD + 1)
        self.starts = [0] * (_MAX_RECORD + 1)  # start of the run's first copy, per period
        self.seconds = [0] * (_MAX_RECORD + 1)  # start of its second copy (where a cut keeps one)
        self.since = _NO_TIME  # lines since the last time line

    def copy(self) -> _Records:
        other = _Records.__new__(_Records)
        other.lines = self.lines.copy()
        other.runs = self.runs.copy()
        other.starts = self.starts.copy()
        other.seconds = self.seconds.copy()
        other.since = self.since
        return other

    @property
    def alive(self) -> bool:
        """Whether lines repeat at some period among lines holding a time (a record's next copy may complete a fire)."""
        return self.since < _NO_TIME and any(self.runs)

    def push(self, key: str, at: int) -> int:
        """Add a non-blank line; the shortest period whose run now holds two copies or more of a
        record with a time line (two numbers or more in a field line), a counter or time that
        changed, and a worded line -- else 0."""
        lines = self.lines
        # A numeric field begins or ends with a digit (a counter, a time range): the common
        # line -- prose, code -- is stored as it is without a regular expression.
        if not (key[0].isdigit() or key[-1].isdigit()) or _FIELD.match(key).end() != len(key):  # type: ignore[union-attr]
            lines.append((key, key, at, False, False))
            if self.since >= _NO_TIME:
                return 0
            self.since += 1
            if self.since == _NO_TIME:
                self.runs = [0] * (_MAX_RECORD + 1)
                return 0
        else:
            time = len(_DIGITS.findall(key)) >= 2
            lines.append((_DIGITS.sub("0", key), key, at, True, time))
            if time:
                self.since = 0
            elif self.since >= _NO_TIME:
                return 0
            else:
                self.since += 1
                if self.since == _NO_TIME:
                    self.runs = [0] * (_MAX_RECORD + 1)
                    return 0
        n = len(lines)
        last = lines[-1][0]
        best = 0
        runs = self.runs
        for q in range(2, min(n - 1, _MAX_RECORD) + 1):
            if last != lines[-1 - q][0]:
                runs[q] = 0
                continue
            if runs[q] == 0:
                self.starts[q] = lines[-1 - q][2]
                self.seconds[q] = at
            runs[q] += 1
            if best or runs[q] < q:
                continue
            unit = range(n - q, n)
            changed = any(lines[i][3] and lines[i][1] != lines[i - q][1] for i in unit)
            worded = any(not lines[i][3] and word_count(lines[i][1][:_WORDS_IN]) > 0 for i in unit)
            if not worded:
                # A record that numbers itself (a one-number counter line that changed) and
                # repeats a number line verbatim under it (a subtitle whose text is "90"): that
                # line is the record's text, written again, as a worded line would be.
                counted = any(lines[i][3] and not lines[i][4] and lines[i][1] != lines[i - q][1] for i in unit)
                worded = counted and any(lines[i][3] and not lines[i][4] and lines[i][1] == lines[i - q][1] for i in unit)
            if changed and worded and any(lines[i][4] for i in unit):
                best = q
        return best

    def unit(self, q: int) -> str:
        """The raw text of the last copy of a ``q``-line record (its lines joined by newlines)."""
        lines = self.lines
        return "\n".join(lines[i][1] for i in range(len(lines) - q, len(lines))) + "\n"


class LineDetector:
    r"""Line dominance over the last ``line_window`` non-trivial lines.

    Parameters
    ----------
    config
        The guard's hyper-parameters (``line_window``, ``line_min_words``,
        ``line_max_distinct``, ``min_chars``).

    Examples
    --------
    Three lines in random order after twenty distinct ones (the drift detector is turned off and
    the copies rule held to twelve copies here: they notice the recycled wording, or a line
    repeated four times in a row, first):

    >>> import random
    >>> from plateau.stream import StreamGuard, StreamGuardConfig
    >>> rng = random.Random(0)
    >>> lines = [f"line {i} of the report says something new about item {i * 7}\n" for i in range(20)]
    >>> loop = ["- **Texture**: see the texture notes.\n", "- **Tone**: keep it calm.\n", "- **Pace**: slow down first.\n"]
    >>> guard = StreamGuard(config=StreamGuardConfig(drift_copies=64, unit_copies=12))
    >>> res = [guard.feed(c) for c in lines + [rng.choice(loop) for _ in range(60)]]
    >>> res[-1].reason, res[-1].fired_at_chunk
    ('stream.line_dominance', 47)
    """

    def __init__(self, config: StreamGuardConfig, *, track_totals: bool = False) -> None:
        self.config = config
        #: Whether to count every line since the start (for a request that bounds repetition).
        self.track_totals = track_totals
        #: The whole answer is quoted program output (the request asks for it pasted): every line
        #: is judged as a line inside an open fence.
        self.quoted = False
        #: The request asks for a plan whose items recur by design (a schedule, a rota: see
        #: :attr:`~plateau.stream.context.RequestContext.recurring`): its list cycles are the plan.
        self.recurring = False
        self._enough_words = words_at_least(config.line_min_words).match
        self._reset()

    def _reset(self) -> None:
        self._pend = ""  # pending line, first _MAX_LINE characters
        self._pend_start = 0
        self._lines: deque[tuple[str, int]] = deque()  # (stripped line, start offset)
        self.counts: Counter[str] = Counter()
        #: Occurrences of each line key since the start (bounded: cleared past 4096 keys) when tracked.
        self.totals: Counter[str] = Counter()
        # The run of consecutive lines equal once their numbers are folded: (folded key, copies,
        # start of the first, first line); blank lines are transparent, any other line breaks it.
        self._run: tuple[str, int, int, str] = ("", 0, 0, "")
        self._fences = 0  # code-fence markers seen: an odd count is an open fence
        self._read = 0  # absolute offset up to which complete lines were counted
        self._records = _Records()  # multi-line records whose copies differ by counters and times
        #: The last two non-blank lines, each with its chain of copies one or two lines apart:
        #: (line, copies, start of the chain's first copy, start of its second, the lines that
        #: stood between two copies, whether one of those came back).
        self._recur: deque[_Chain] = deque(maxlen=2)
        #: Items of the current ordered list: (text after the number, start, the number and its mark).
        self._items: list[tuple[str, int, str]] = []

    def reset(self) -> None:
        """Forget the stream."""
        self._reset()

    @property
    def size(self) -> int:
        """Lines in the window."""
        return len(self._lines)

    @property
    def chars(self) -> int:
        """Characters held by the window and the pending line."""
        return sum(len(line) for line, _ in self._lines) + len(self._pend)

    def _numbered(self, key: str, at: int, nl: int, run: tuple[str, int, int, str]) -> tuple[tuple[str, int, int, str], Fire | None]:
        """Count ``key`` (a stripped line starting at ``at``, ended by the newline at ``nl``) in the
        run of lines that differ only by their numbers; the fire when the run reaches its copies.

        A line that opens with a time field -- digits and punctuation up to its first letter,
        a time unit glued to a number included (``0.0s-3.0s:``), holding two numbers or more or
        a number with its time unit: a clock time, a time range, ``[12s]`` -- followed by text of ``line_min_words`` words and ``copy_unit``
        characters fires by its ``unit_copies``-th copy (4), as any unit of that length does,
        copies compared with every run of digits in the field read as ``0`` (as ``stream.drift``
        reads them) and the text after it verbatim: a subtitle line under changing timestamps.
        Numbers inside the text (a linter's ``path:line:col``, a test id, a CSS class, an epoch's
        loss) do not fold, nor does a field of one number (``220:`` in ``grep -n`` output, an
        index): there they are what the lines report, where a time says when a line was written. Inside an open
        code fence (quoted program output, a log) it needs ``max_copies`` (12), the budget of
        :meth:`StreamGuardConfig.span_required` for a quoted line. One field of one number does
        fold, outside a code fence and outside quoted output: an ordered list's item number
        (``7. ``, ``12) ``), or an item's label and its number (``Step 3:``, ``Attempt #4 -``),
        unless the request asks for a plan whose items recur by design (``recurring``: a
        schedule, a routine, a daily checklist -- the same item under each day's number).
        A list enumerates distinct items; the same item under each number is the same line
        written again, as a loop that numbers its copies writes it. (On the 17,796 messages of
        ``scripts/stream_false_alarms.py`` no labelled number stands before the same text even
        three lines in a row.)
        """
        if not key:
            return run, None
        if "```" in key:
            self._fences += key.count("```")
            return _NO_RUN, None
        if key[0].isalpha():  # no leading field (a letter is neither \d, \W nor _), unless a labelled number
            label = _LABEL_NUMBER.match(key)
            if label is None or self.quoted or self.recurring or self._fences % 2 == 1:
                return _NO_RUN, None
            n = label.end()
        else:
            field = _TIME_FIELD.match(key)
            n = field.end() if field is not None else 0
            if n == 0 or n == len(key):
                return _NO_RUN, None
            if len(_DIGITS.findall(key, 0, n)) < 2 and _TIME_UNIT.search(key, 0, n) is None and (
                self.quoted or self.recurring or self._fences % 2 == 1 or _MARKER.fullmatch(key, 0, n) is None
            ):
                return _NO_RUN, None
        folded = _DIGITS.sub("0", key[:n]) + key[n:]
        if folded == run[0]:
            run = (folded, run[1] + 1, run[2], run[3])
        else:
            run = (folded, 1, at, key)
        cfg = self.config
        need = cfg.max_copies if self.quoted or self._fences % 2 == 1 else cfg.unit_copies
        if run[1] < need or nl + 1 < cfg.min_chars:
            return run, None
        text = key[n:]
        if word_count(text[:_WORDS_IN]) < cfg.line_min_words or content_length(text) < cfg.copy_unit:
            return run, None
        return run, Fire(
            at=nl,
            reason="stream.line_dominance",
            unit=text,  # the line without its numbering: what repeats (and what a request may name)
            period=None,
            loop_start=run[2],
            cut_offset=run[2] + len(run[3]) + 1,
            copies=run[1],
        )

    def _record(self, rec: _Records, key: str, at: int, nl: int) -> Fire | None:
        """Count ``key`` (a stripped line from ``at`` to the newline at ``nl``) in ``rec``; the fire
        when a record of 2 to ``_MAX_RECORD`` lines, whose copies differ only by their counter and
        time lines, completes its ``unit_copies``-th copy (``max_copies`` in an open code fence)."""
        if not key or "```" in key:
            return None
        q = rec.push(key, at)
        if q == 0:
            return None
        cfg = self.config
        copies = rec.runs[q] // q + 1
        need = cfg.max_copies if self.quoted or self._fences % 2 == 1 else cfg.unit_copies
        if copies < need or nl + 1 < cfg.min_chars:
            return None
        unit = rec.unit(q)
        if content_length(unit) < cfg.copy_unit:
            return None
        start = rec.starts[q]
        return Fire(
            at=nl,
            reason="stream.line_dominance",
            unit=unit,
            period=None,
            loop_start=start,
            cut_offset=rec.seconds[q],
            copies=copies,
        )

    def _recurs(self, recur: deque[_Chain], key: str, at: int, nl: int, indented: bool) -> Fire | None:
        """Count ``key`` (a non-blank stripped line from ``at`` to the newline at ``nl``;
        ``indented``: the raw line begins with a space or a tab) in the chain of its copies that
        are one or two lines apart; the fire when the chain reaches its copies.

        A reader counts a line's copies from its first appearance, whatever stands between
        them (issue 23's reading rule): a fixed line that comes back every other line between
        lines that themselves come back (``A B A C A B A``: the loop's other lines cycle) is
        four copies by its fourth, though no span of the text need be periodic. Blank lines are
        transparent; any other line counts as one between. A line of ``copy_unit`` characters
        of content with a word fires on the newline that ends its ``unit_copies``-th copy (4)
        once a line between two of its copies has already stood between two earlier ones.

        Quiet: copies all in a row (a periodic run, :mod:`~plateau.stream.period`'s); a line
        between lines that are each new -- an enumeration, the same summary or status line once
        per item (``Testing core`` / ``test result: ok``, a counter before each copy); a line
        holding a chat template's role marker (the self-dialogue counts those per cycle, never
        in the first two); any line inside an open code fence or quoted output; and an indented
        line -- a statement of a block of code or an item of a nested list repeats between lines
        that vary as the body of each branch or entry (an ``if`` / ``elif`` chain writing the
        same call). Measured on the 6,950 real model responses of
        ``scripts/stream_false_alarms.py``: no line fires.
        """
        copies, first, second, between, back = 1, at, -1, _NO_GAPS, False
        for steps, (k, c, f0, f1, seen, came) in enumerate(reversed(recur)):
            if k == key:
                copies, first, second = c + 1, f0, (f1 if c >= 2 else at)
                between, back = seen, came
                if steps == 1 and not back:  # one line stood between: has it stood between two copies before?
                    gap = recur[-1][0]
                    back = gap in seen
                    if not back and len(seen) < _MAX_GAPS:
                        between = seen | {gap}
                break
        recur.append((key, copies, first, second, between, back))  # (a deque of the last two)
        cfg = self.config
        if copies < cfg.unit_copies or not back or indented or nl + 1 < cfg.min_chars:
            return None
        if self.quoted or self._fences % 2 == 1 or "```" in key or holds_marker(key):
            return None
        if content_length(key) < cfg.copy_unit or not word_count(key[:_WORDS_IN]):
            return None
        return Fire(
            at=nl,
            reason="stream.line_dominance",
            unit=key,
            period=None,
            loop_start=first,
            cut_offset=second,
            copies=copies,
        )

    def _cycle(self, items: list[tuple[str, int, str]], key: str, at: int, nl: int) -> Fire | None:
        """Count ``key`` (a stripped line from ``at`` to the newline at ``nl`` that does not open
        with a letter) in the ordered list ``items``; the fire when the list's items cycle.

        An ordered list enumerates distinct items; one whose items come back in the same order
        under new numbers (``1. A``, ``2. B``, ``3. C``, ``4. A``, ...) is a cycle of ``q``
        lines (2 to ``_MAX_RECORD``) written again, as the period detector reads a block of
        lines written again once the numbers are folded (the item number folds as in
        :meth:`_numbered`; the same item under each number, ``q = 1``, is that rule's). It
        fires, as a unit of several lines does (:meth:`PeriodDetector._first_line`), when the
        first item of the cycle's ``unit_copies``-th copy (4) is complete -- a reader
        recognises the copy by it --, on the newline that ends it; the cycle's items together
        hold ``copy_unit`` characters of content and a word. A line that is not an item (not
        numbered, not blank) ends the list; never inside an open code fence or quoted output
        (a program's numbered output), nor when the request asks for a plan whose items recur
        by design (a schedule, a rota, an alternation: ``recurring``). A cycle under the same
        numbers again is an exact copy, left to :mod:`~plateau.stream.period`, which fires on
        it no later.
        """
        m = _MARKER.match(key)
        if m is None or self.quoted or self.recurring or self._fences % 2 == 1 or "```" in key:
            if items:
                items.clear()
            return None
        items.append((key[m.end() :], at, key[: m.end()]))
        if len(items) > 4 * _MAX_RECORD:
            del items[0]
        n = len(items)
        cfg = self.config
        for q in range(1, min(_MAX_RECORD, n // 3) + 1):
            run = 0
            while run < n - q and items[n - 1 - run][0] == items[n - 1 - run - q][0]:
                run += 1
            if run < (cfg.unit_copies - 2) * q + 1:
                continue
            if q == 1 or items[n - 1][2] == items[n - 1 - q][2]:
                return None  # the same item under each number: _numbered's; the same numbers: an exact copy, the period's
            unit = "\n".join(t for t, _, _ in items[n - q :])
            if content_length(unit) < cfg.copy_unit or not word_count(unit) or nl + 1 < cfg.min_chars:
                return None
            first = n - run - q
            return Fire(
                at=nl,
                reason="stream.line_dominance",
                unit=unit,
                period=None,
                loop_start=items[first][1],
                cut_offset=items[first + q][1],
                copies=(run + q) // q,
            )
        return None

    def confirm(self, armed: Armed, s: str, s0: int) -> Fire | Armed:
        """Count the complete lines that arrived since the last block (``s``, absolute start
        ``s0``, up to the last chunk) without changing the window: the fire on the newline that
        completes a numbered line's copies, else re-armed for the next character."""
        i = max(0, self._read - s0)
        run, fences = self._run, self._fences
        records = self._records.copy()
        recur = self._recur.copy()
        items = self._items.copy()
        while True:
            nl = s.find("\n", i)
            if nl < 0:
                break
            key = s[i:nl].strip()
            run, fire = self._numbered(key, s0 + i, s0 + nl, run)
            fire = fire or self._record(records, key, s0 + i, s0 + nl)
            if key[:1].isalpha() and "```" not in key:
                items = []
            elif key:
                fire = fire or self._cycle(items, key, s0 + i, s0 + nl)
            if key:
                fire = fire or self._recurs(recur, key, s0 + i, s0 + nl, s[i : i + 1] in " \t")
            if fire is not None:
                self._fences = fences
                return fire
            i = nl + 1
        self._fences = fences
        return Armed(at=s0 + len(s), source=self, key=armed.key, data=())

    def update(self, b: Block) -> Fire | None:
        """Feed the complete lines of the block to the window."""
        cfg = self.config
        chunk = b.near
        base = b.near0
        start = b.nlo
        limit = len(chunk)
        if "\n" not in b.piece:  # no line ends here: extend the pending line
            if not self._pend:
                self._pend_start = base + start
            if len(self._pend) < _MAX_LINE:
                self._pend = (self._pend + b.piece)[:_MAX_LINE]
            return None
        fire: Fire | None = None
        while True:
            nl = chunk.find("\n", start, limit)
            if nl < 0:
                break
            if self._pend:
                line = (self._pend + chunk[start:nl])[:_MAX_LINE]
                line_start = self._pend_start
                self._pend = ""
            else:
                line = chunk[start : nl if nl - start < _MAX_LINE else start + _MAX_LINE]
                line_start = base + start
            start = nl + 1
            if fire is not None:
                continue
            key = line.strip()
            if not key:  # a blank line: transparent to the numbered run and the records, never counted
                self._read = base + nl + 1
                continue
            if key[:1].isalpha() and "```" not in key:  # no leading field: no numbered run (see _numbered)
                if _LABEL_NUMBER.match(key) is None:
                    self._run, f = _NO_RUN, None
                else:  # an item's label and number ("Step 3: ")
                    self._run, f = self._numbered(key, line_start, base + nl, self._run)
                if self._items:
                    self._items = []  # a line that is no list item ends the list
                rec = self._records
                if f is None:
                    if rec.since >= _NO_TIME and not key[-1].isdigit():  # a worded line, no time line near: only kept (_Records.push)
                        rec.lines.append((key, key, line_start, False, False))
                    else:
                        f = self._record(rec, key, line_start, base + nl)
            else:
                self._run, f = self._numbered(key, line_start, base + nl, self._run)
                if key and f is None:
                    f = self._record(self._records, key, line_start, base + nl)
                if f is None and (self._items or key[:1].isdigit()):  # an item number opens with a digit
                    f = self._cycle(self._items, key, line_start, base + nl)
            self._read = base + nl + 1
            rc = self._recur
            if rc and (rc[-1][0] == key or rc[0][0] == key):
                f = f or self._recurs(rc, key, line_start, base + nl, line[:1] in " \t")
            else:  # _recurs's common case inline: a line neither of the last two
                rc.append((key, 1, line_start, -1, _NO_GAPS, False))
            if f is not None:
                fire = f
                continue
            if key.count(" ") + 1 < cfg.line_min_words or self._enough_words(key, 0, _WORDS_IN) is None:
                continue
            lines = self._lines
            count = self.counts
            lines.append((key, line_start))
            count[key] = count.get(key, 0) + 1  # dict.get: no Counter.__missing__ call for a new line
            totals = self.totals
            if self.track_totals:
                if len(totals) > 4096:
                    totals.clear()
                totals[key] += 1
            if len(lines) > cfg.line_window:
                old, _ = lines.popleft()
                count[old] -= 1
                if count[old] == 0:
                    count.pop(old)  # dict.pop: Counter.__delitem__ is a Python method
            if (
                len(lines) == cfg.line_window
                and len(count) <= cfg.line_max_distinct
                and base + nl + 1 >= cfg.min_chars
                and not (self.quoted or self.recurring or self._fences % 2 == 1)  # quoted output, code, a plan: the rules above
            ):
                top, _ = count.most_common(1)[0]
                starts = [off for line_key, off in lines if line_key == top]
                fire = Fire(
                    at=base + nl,
                    reason="stream.line_dominance",
                    unit=top,
                    period=None,
                    loop_start=starts[0],
                    cut_offset=starts[1] if len(starts) > 1 else base + nl + 1,
                    copies=totals[top] if self.track_totals else count[top],
                )
        # A numbered run or a record alive: its next copies may complete before the next block.
        rc = self._recur
        chain = bool(rc) and (rc[0][1] >= 2 or rc[-1][1] >= 2) and not (self.quoted or self._fences % 2 == 1)
        if fire is None and (self._run[1] >= 1 or self._records.alive or len(self._items) >= 4 or chain):
            b.arm(Armed(at=b.end, source=self, key=("lines",), data=()))
        if start < limit:
            if not self._pend:
                self._pend_start = base + start
            if len(self._pend) < _MAX_LINE:
                self._pend = (self._pend + chunk[start:limit])[:_MAX_LINE]
        return fire
