r"""``stream.counted``: copies of one unit that differ by a counter alone.

A model that loops often numbers its copies: ``Attempt 3: the request timed out. Attempt 4:
the request timed out.``, ``1. Jane Doe, Sr. 2. Jane Doe, Sr.``, ``the third item: none, the
fourth item: none``. The copies are not equal -- the counter advances -- so the exact detectors
never see a period, and a short copy puts its counter in every word n-gram, so the drift
detector sees no recurrence either. A counter is no content: the copies are copies of one unit.

The detector reads *counters* -- a number standing as a token of its own (``3``, ``3.``,
``(3)``, ``#3``, ``3rd``; not a part of a name, a version, a time, a decimal or a range:
``v1``, ``1.2``, ``12:30``, ``3-4``) and an ordinal word (list ``ordinal-words`` of
:mod:`plateau.lexicon`: ``third``, ``troisième``, ``dritte``) -- and the *gaps* between
consecutive counters, compared after folding whitespace and case. Copies of a counted unit are
gaps equal to the gap ``m`` counters back (``m`` = 1, or 2 for a copy holding two counters:
``Step 3 of 10: ...``): one counter advances in every copy and the others stay put (a counter
that repeats its value is text a verbatim period covers, and :mod:`~plateau.stream.period`
judges it; two numbers that both change from copy to copy are a record's fields, ``Line 37
became 38``, not a counter). The unit -- the
``m`` gaps and their counters -- must hold two different words that are not counters (a
counted label or value, ``Chapter 3, Chapter 4``, ``Day 1, Day 2``, ``200: false, 201: false``,
is an enumeration), 80 % of its tokens other than
counters plain words (a log line or a table row carries fields: ``| 3 | pending |`` is not
prose), and it fires by the rule of an exact repetition (issue 23): a unit of ``copy_unit``
(16) characters or more by its fourth copy -- once the fourth copy is recognised, its first
``copy_unit`` characters after the counter (or all of it) equal to the copies before --, a
shorter one once its copies cover ``span_floor`` (96) characters
(:meth:`~plateau.stream.config.StreamGuardConfig.copies_required`).

Program output is counted as it prints: copies inside an open code fence, in a response the
request asks to paste output into (:attr:`quoted`), or in a plan whose days the request asks to
count (:attr:`recurring`: a schedule, a routine) need ``max_copies`` (12), as a quoted line
does.

Budget: on the 13,593 real messages of ``scripts/stream_false_alarms.py`` (model responses, tool
outputs and user messages of three harnesses) the rule fires on none; at one copy fewer it would
fire on 2 (a numbered source listing, a tagged sequence dump).

Between blocks, a count that steps by one (``3`` then ``4``, ``third`` then ``fourth``) or has
just begun (``1.``, ``first``) arms its fire (:class:`~plateau.stream.result.Armed`) at the
earliest offset its copies could complete, so that it lands on the chunk that completes the
evidence; :meth:`CountedDetector.confirm` reads the text that arrived with a copy of the state.

Cost: the stream is read only near recurrence -- a block whose word 4-grams mostly recur, whose
tokens repeat among themselves, or that holds a first counter -- and while a count is alive;
what was skipped is read when something recurs. Per read block, one regular-expression scan for
numbers (when it holds a digit) and one set test of its tokens for ordinal words; the gaps are
compared only where a counter stands.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterator
from functools import lru_cache
from itertools import islice

from plateau import lexicon
from plateau.stream.block import Block
from plateau.stream.config import StreamGuardConfig
from plateau.stream.result import Armed, Fire
from plateau.stream.text import in_open_fence

__all__ = ["CountedDetector"]

#: A number standing as a token of its own: not glued to a letter, a digit or a separator that
#: makes it part of a name, a version, a decimal, a time or a range (``v1``, ``1.2``, ``12:30``,
#: ``3-4``, ``1,000``); an English ordinal suffix and the mark of a list item belong to it
#: (``3rd``, ``3.``, ``3)``, ``3:``).
_NUMBER = re.compile(r"(?<![\w.,:/\-])\d{1,9}(?:st|nd|rd|th)?[.):]?(?![\w])(?![.,:/\-]\d)")
_DIGIT = re.compile(r"\d")
#: Ordinal words and the numbers they count (list ``ordinal-words``: ``third 3``).
_ORDINALS = {word: int(value) for word, value in [entry.split() for entry in lexicon.load("ordinal-words")]}
#: The ordinal words as the block's tokens hold them (lower-case, punctuation attached), each to
#: its word.
_AFFIXES = [("", x) for x in ("", ",", ".", ":", ";", ")", "!", "?")] + [(x, "") for x in ("(", '"', "'")]
_ORDINAL_TOKENS = {p + w + q: w for w in _ORDINALS for p, q in _AFFIXES}
_ORDINAL_KEYS = frozenset(_ORDINAL_TOKENS)
_ORDINAL = re.compile(r"(?<!\w)" + lexicon.alternation("ordinal-words") + r"(?!\w)", re.IGNORECASE)
#: The first counter of a count as a token (``1``, ``1.``, ``(1)``, ``first``, ``premier``): a
#: count may begin here.
_START_TOKENS = frozenset(
    p + w + q
    for w in ["0", "1", "1st"] + [w for w, v in _ORDINALS.items() if v == 1]
    for p in ("", "(", "#")
    for q in ("", ".", ")", ":", ",", ";")
)
_PLAIN = re.compile(r"[^\W\d_]+[.,;:!?'\")]*$")
_WORD = re.compile(r"[^\W\d_]{2,}")
_BOUNDARY = re.compile(r"(?:[.!?]\s+|\n)")
_MIN_PLAIN = 0.8  # share of a unit's tokens other than counters that are plain words (as stream.drift asks)
_MAX_GAP = 512  # characters between two counters kept: a longer gap ends the counting
_MAX_PEND = 48  # characters of an unfinished token held back to the next block
_PERIODS = (1, 2)  # counters per copy
_KEEP = 32  # counters remembered (more than max_copies copies of two counters)
#: The stream is read only near recurrence or a count's start: a block whose word 4-grams mostly
#: recur (three fifths, as :mod:`~plateau.stream.drift` asks), whose tokens repeat among
#: themselves (at most seven distinct in ten) or that holds a first counter (``1.``, ``first``),
#: and while a count is alive. A counted loop's copies share their words, so its blocks recur;
#: what was skipped is read when something recurs, as far back as the copies that recur may begin
#: (two of the longest gap a count keeps for n-grams, four blocks for tokens repeated within a
#: block, the block itself for a first counter).
#: Characters after the first counter of a count (``1``, ``1.``, ``first``, ``premier``) within
#: which the next is watched for between blocks (a copy of ``copy_unit`` characters, its counter
#: and a separator); any other count needs two counters that step by one to be followed there.
_WATCH = 24


def _ordinals(body: str, words: set[str]) -> list[tuple[int, int]]:
    """Where the ordinal ``words`` (lower-case) stand in ``body`` as whole words: ``(start, end)``."""
    low = body.lower()
    if len(low) != len(body):  # a character whose lower case is longer: read by the pattern
        return [(m.start(), m.end()) for m in _ORDINAL.finditer(body)]
    found = []
    for w in words:
        i = low.find(w)
        while i >= 0:
            j = i + len(w)
            if (i == 0 or not low[i - 1].isalnum()) and (j == len(low) or not low[j].isalnum()):
                found.append((i, j))
            i = low.find(w, j)
    return found


def _value(counter: str) -> int | None:
    """The number a counter (folded) counts: ``3``, ``3.``, ``3rd``, ``third`` -> 3."""
    core = counter.rstrip(".):")
    if core[-2:] in ("st", "nd", "rd", "th") and core[:-2].isdigit():
        core = core[:-2]
    if core.isdigit():
        return int(core)
    return _ORDINALS.get(core)


def _steps(before: str, after: str) -> bool:
    """Whether the counter ``after`` counts one more than ``before`` (``3`` then ``4.``,
    ``third`` then ``fourth``)."""
    a, b = _value(before), _value(after)
    return a is not None and b is not None and b == a + 1


@lru_cache(maxsize=256)
def _words(unit: str) -> int:
    """The words of a unit (folded gaps) when it may be a counted copy, else 0: two different
    words, and 80 % of its tokens plain words (prose, not a record's fields)."""
    words = _WORD.findall(unit)
    if len(set(words)) < 2:
        return 0
    tokens = unit.split()
    if sum(1 for t in tokens if _PLAIN.match(t)) < _MIN_PLAIN * len(tokens):
        return 0
    return len(words)


def _fold(gap: str) -> str:
    """A gap compared: whitespace collapsed, case ignored."""
    return " ".join(gap.split()).lower()


def _head(gap: str, limit: int) -> str:
    """What recognises a copy after its counter: the rest of the copy -- the gap up to its last
    line or sentence end, where the next copy begins (all of it when it holds none) --, folded,
    its first ``limit`` characters at most."""
    end = len(gap)
    for bound in _BOUNDARY.finditer(gap):
        end = bound.end()
    return _fold(gap[:end])[:limit]


class CountedDetector:
    """Copies that differ by a counter alone.

    Parameters
    ----------
    config
        The guard's hyper-parameters (``copy_unit``, ``span_floor``, ``min_copies``,
        ``max_copies``, ``min_chars``).

    Attributes
    ----------
    quoted : bool
        The request asks for a program's output pasted: counted copies need ``max_copies``.
    recurring : bool
        The request asks for a plan whose items recur by design: counted copies need
        ``max_copies``.

    Examples
    --------
    >>> from plateau.stream import StreamGuard
    >>> text = "Let me retry. " + " ".join(f"Attempt {i}: the upload failed again." for i in range(1, 9))
    >>> guard = StreamGuard()
    >>> [r.reason for r in map(guard.feed, text) if r.fired][0]
    'stream.counted'
    """

    def __init__(self, config: StreamGuardConfig) -> None:
        self.config = config
        self.quoted = False
        self.recurring = False
        self._reset()

    def _reset(self) -> None:
        self._count_afresh()
        self._read_to = 0  # absolute offset up to which the stream was read (its last token pending)

    def _count_afresh(self) -> None:
        self._pend = ""  # the block's last token, unfinished
        self._since = ""  # the text since the last counter (up to _MAX_GAP + 1 characters)
        #: The last counters: (absolute offset, value folded, raw gap before it, folded gap).
        self._events: deque[tuple[int, str, str, str]] = deque(maxlen=_KEEP)
        self._runs = dict.fromkeys(_PERIODS, 0)  # events whose gap equals the gap m counters back
        self._live = False  # a run of two copies or more (some run reaches m)
        self._step = False  # the last counter steps by one from the one m back

    def reset(self) -> None:
        """Forget the stream."""
        self._reset()

    @property
    def size(self) -> int:
        """Characters held (the pending token, the text since the last counter, the gaps kept)."""
        return len(self._pend) + len(self._since) + sum(len(e[2]) for e in self._events)

    def update(self, b: Block) -> Fire | None:
        """Read the block's counters (when something recurs near it); fire when the copies they
        count are enough, or arm the fire at the earliest offset the copies could complete
        before the next block (:meth:`confirm` reads the text that arrives until then), so that
        it lands on the chunk that completes the evidence, not at the end of its block.
        """
        tokens = b.tokens
        # what recurs here, and how far back its copies may begin (read again when skipped)
        if 5 * b.seen >= 3 * len(b.grams) > 0:  # word n-grams: copies of up to _MAX_GAP characters
            back = 2 * _MAX_GAP
        elif len(tokens) >= 4 and 10 * len(set(tokens)) <= 7 * len(tokens):  # tokens: short copies in this block and the last
            back = 4 * self.config.block
        elif not _START_TOKENS.isdisjoint(tokens):  # a count begins in this block (its first token may begin before it)
            back = len(b.piece) + _MAX_PEND
        else:
            back = 0
        if not (back or self._live or self._step):
            return None  # nothing recurs near here: the text is read when something does
        begin = b.end - len(b.piece)
        if self._read_to == begin:
            fire = self._read(b.piece, tokens, b.end, lambda: (b.s, b.s0), b.final)
        else:  # read what was skipped first, as far back as the copies may begin
            s, s0 = b.s, b.s0
            start = max(s0, self._read_to, b.end - max(back, len(b.piece)))
            if start > self._read_to:  # more was skipped than is read again: count afresh
                self._count_afresh()
                ws = [s.find(c, start - s0, begin - s0) for c in " \n\t"]
                start = s0 + min((x for x in ws if x >= 0), default=begin - s0)
            text = s[start - s0 : b.end - s0]
            fire = self._read(text, None, b.end, lambda: (s, s0), b.final)
        self._read_to = b.end
        if fire is None:
            due = self._next(b.end, b.end + self.config.block)
            if due is not None:
                b.arm(Armed(at=due, source=self, key=("counted",), data=(b.end,)))
        return fire

    def confirm(self, armed: Armed, s: str, s0: int) -> Fire | Armed | None:
        """The fire when the text after the last block (``s`` up to the last chunk, absolute
        start ``s0``; read from ``armed.data[0]``) completes the counted copies; re-armed for the
        next character while a count is alive; None once it is not. The detector's own state is
        not changed (a copy reads the text)."""
        read_to = armed.data[0]
        i = read_to - s0
        if i < 0 or i > len(s):
            return None
        twin = self._twin()
        piece = s[i:]
        fire = twin._read(piece, None, s0 + len(s), lambda: (s, s0))
        if fire is not None:
            return fire
        due = twin._next(s0 + len(s), read_to + self.config.block)
        return None if due is None else Armed(at=due, source=self, key=armed.key, data=armed.data)

    def _next(self, now: int, horizon: int) -> int | None:
        """The offset, from ``now`` and before ``horizon`` (the next block's end), at which to
        read again: where a count may complete its evidence (:meth:`_due`), or ``now`` while a
        count just begun (its first counter, ``_WATCH`` characters back at most) may be one of
        short copies; None when neither."""
        if not self._events:
            return None
        due = self._due(horizon)
        if due is None and len(self._since) + len(self._pend) < _WATCH and _value(self._events[-1][1]) in (0, 1):
            due = now
        return max(due, now) if due is not None and due < horizon else None

    def _twin(self) -> CountedDetector:
        twin = CountedDetector(self.config)
        twin.quoted, twin.recurring = self.quoted, self.recurring
        twin._read_to = self._read_to
        twin._pend, twin._since = self._pend, self._since
        twin._events = self._events.copy()
        twin._runs = dict(self._runs)
        twin._live, twin._step = self._live, self._step
        return twin

    def _read(
        self, piece: str, tokens: list[str] | None, end: int, tail: Callable[[], tuple[str, int]], final: bool = False
    ) -> Fire | None:
        """Read ``piece`` (ending at absolute offset ``end``; ``tokens`` its lower-case tokens, or
        None to split them here; ``tail()`` the kept text up to ``end`` and its absolute start;
        ``final``: the stream ended with it, its last token is complete)."""
        text = self._pend + piece
        cut = len(text)
        if text and not text[-1].isspace() and not final:
            k = max(text.rfind(" "), text.rfind("\n"), text.rfind("\t")) + 1
            if len(text) - k <= _MAX_PEND:
                cut = k
        body = text[:cut]
        self._pend = text[cut:]
        if tokens is None:
            tokens = body.lower().split()
        base = end - len(text)
        found = [(m.start(), m.end()) for m in _NUMBER.finditer(body)] if _DIGIT.search(body) else []
        present = _ORDINAL_TOKENS.keys() & set(tokens) if not _ORDINAL_KEYS.isdisjoint(tokens) else ()
        if present:
            found += _ordinals(body, {_ORDINAL_TOKENS[t] for t in present})
            found.sort()
        if not found:
            since = self._since + body
            self._since = since if len(since) <= _MAX_GAP else since[-_MAX_GAP - 1 :]
            return self._judge(end, tail) if self._live else None
        pos = 0
        for a, z in found:
            if self._live:
                # The text after the last counter is judged as it arrives, up to this counter, as
                # a piece read a character at a time is: the fire does not depend on the chunking.
                fire = self._judge_until(body, base, pos, a, tail)
                if fire is not None:
                    return fire
            self._count(base + a, body[a:z].lower(), self._since + body[pos:a])
            self._since = ""
            pos = z
        since = body[pos:]
        self._since = since if len(since) <= _MAX_GAP else since[-_MAX_GAP - 1 :]
        return self._judge(end, tail) if self._live else None

    def _judge_until(self, body: str, base: int, pos: int, limit: int, tail: Callable[[], tuple[str, int]]) -> Fire | None:
        """The fire at the earliest offset of ``body[pos:limit]`` -- the text after the last
        counter (held in ``_since`` when that counter came in an earlier piece, ``pos`` 0),
        from where that counter's token ends -- judged as :meth:`_judge` judges the text after
        the last counter; ``base`` is ``body[0]``'s absolute offset."""
        if not any(copies >= need - 1 for _, copies, _, need in self._chains(self.config.min_copies - 1)):
            return None  # no chain a copy's text could complete: nothing to judge position by position
        lo = pos
        if pos:  # a counter of this piece: registered once its token ends (the whitespace after it)
            ws = [body.find(c, pos, limit) for c in " \n\t"]
            lo = min((w for w in ws if w >= 0), default=limit)
        for p in range(lo + 1, limit + 1):
            fire = self._judge(base + p, tail, _fold(self._since + body[pos:p]))
            if fire is not None:
                return fire
        return None

    def _count(self, at: int, value: str, gap: str) -> None:
        """Register the counter ``value`` at offset ``at``, after ``gap``."""
        events = self._events
        if len(gap) > _MAX_GAP:  # no counting across such a gap
            events.clear()
            self._runs = dict.fromkeys(_PERIODS, 0)
            self._live = self._step = False
            events.append((at, value, "", ""))
            return
        folded = _fold(gap)
        events.append((at, value, gap, folded))
        n = len(events)
        runs = self._runs
        for m in _PERIODS:
            if n > m + 1 and folded == events[-1 - m][3]:
                runs[m] += 1
            else:
                runs[m] = 0
        self._live = any(runs[m] >= m for m in _PERIODS)
        self._step = any(n > m and _steps(events[-1 - m][1], value) for m in _PERIODS)

    def _chains(self, least: int, horizon: int | None = None) -> Iterator[tuple[int, int, list[tuple[int, str, str, str]], int]]:
        """The counted chains ending at the last counter whose unit may fire: ``(m, copies,
        counters, need)`` -- ``copies`` complete copies (``least`` at least) of ``m`` counters and
        the gaps after them, their counters (``(offset, value, gap, folded gap)``) and the next
        copy's first, and the copies the unit needs. With ``horizon``, only the chains that may
        complete before that offset."""
        cfg = self.config
        events = self._events
        n = len(events)
        for m in _PERIODS:
            if n < m + 1:  # the gaps of a copy lie between counters
                continue
            copies = min(self._runs[m] // m + 1, (n - 1) // m)  # complete copies
            if copies < least:
                continue
            at, value = events[-1][0], events[-1][1]
            if copies == 1 and not _steps(events[-1 - m][1], value):
                continue  # one copy says little: a count is followed only while it steps by one
            if horizon is not None:
                future = max(0, cfg.min_copies - 1 - copies)
                if at + future * (at - events[-1 - m][0] - len(value) + 1) >= horizon:
                    continue  # too long a copy to complete that soon
            last = list(islice(events, n - copies * m - 1, n))
            values = [e[1] for e in last]
            moved = {j % m for j in range(m, len(values)) if values[j] != values[j - m]}
            if len(moved) != 1 or any(values[j] == values[j - m] for j in range(m + min(moved), len(values), m)):
                continue  # one counter advances in every copy, the others stay put (several that change are data)
            unit = " ".join(e[3] for e in last[1 : m + 1])
            words = _words(unit)
            if not words:
                continue
            need = cfg.copies_required(len(unit) + sum(len(v) for v in values[:m]) + m, words)
            if self.quoted or self.recurring:
                need = max(need, cfg.max_copies)
            yield m, copies, last, need

    def _judge(self, end: int, tail: Callable[[], tuple[str, int]], seen: str | None = None) -> Fire | None:
        """Fire when the counted copies ending at the last counter (and the text after it --
        ``seen``, folded, or the text held since it) suffice."""
        cfg = self.config
        if end < cfg.min_chars:
            return None
        for m, copies, last, need in self._chains(cfg.min_copies - 1):
            if copies < need - 1:
                continue
            if copies < need:  # the next copy, recognised once its text after the counter is
                head = _head(last[1][2], cfg.copy_unit)
                if seen is None:
                    seen = _fold(self._since + self._pend)
                if len(seen) < len(head) or not seen.startswith(head):
                    continue
            s, s0 = tail()
            if need < cfg.max_copies and in_open_fence(s, last[0][0] - s0):
                continue  # inside a code fence: program output or code counts its lines as it prints
            return self._fire(end, s0, s, self._anchor(last, m), m, copies)
        return None

    def _anchor(self, last: list[tuple[int, str, str, str]], m: int) -> list[tuple[int, str, str, str]]:
        """The counters from which a chain's copies are reported: a copy opens at its advancing
        counter (``Step 3`` rather than the ``442`` that stays put in ``Step 3: ... 442.``), from
        the earliest one that steps into the chain, so that the report does not depend on which
        counter the reading last stopped at (the chunking). ``last`` is the chain (its first
        ``m + 1`` counters are returned, rotated to the advancing counter)."""
        values = [e[1] for e in last]
        p = next((j for j in range(m) if values[j] != values[j + m]), 0)
        if not p:
            return last
        events = self._events
        k = len(events) - len(last) + p - m  # the advancing counter before the chain's first
        if k >= 0 and _steps(events[k][1], events[k + m][1]):
            return list(islice(events, k, k + m + 1))
        return last[p : p + m + 1]

    def _due(self, horizon: int) -> int | None:
        """The earliest offset before ``horizon`` at which a chain may complete its evidence, if
        its copies go on as they began (None when none may)."""
        if not (self._live or self._step):
            return None
        due = None
        for m, copies, last, need in self._chains(1, horizon):
            at, value = last[-1][0], last[-1][1]
            future = need - 1 - copies  # copies whose counters are still to come
            period = at - last[-1 - m][0]
            # the earliest: a counter to come may be shorter than the last (one character)
            at += future * (period - len(value) + 1) + (len(value) if future <= 0 else 1)
            at += len(_head(last[1][2], self.config.copy_unit)) - 1
            if at < horizon:
                due = at if due is None else min(due, at)
        return due

    @staticmethod
    def _fire(end: int, s0: int, s: str, last: list[tuple[int, str, str, str]], m: int, copies: int) -> Fire:
        """The fire, its copies read from the line or sentence start that opens each copy (the
        part of the gap after its last line or sentence end, before the counter)."""
        gap = last[m][2]
        lead = 0
        for bound in _BOUNDARY.finditer(gap):
            lead = len(gap) - bound.end()
        start = max(s0, last[0][0] - lead)
        period = last[m][0] - last[0][0]
        return Fire(
            at=end - 1,
            reason="stream.counted",
            unit=s[start - s0 : start - s0 + period],
            period=None,
            loop_start=start,
            cut_offset=start + period,
            copies=copies + 1,
        )
