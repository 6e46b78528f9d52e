r"""``stream.period`` and ``stream.run``: exact periodic repetition, period 1 character to ``max_period``.

At the end of every block the detector proposes candidate periods in two ways, both without a
Python loop per character:

- *short periods* (up to 320 characters): the last ``kgram`` characters of the block are an
  anchor, and ``str.rfind`` finds its nearest earlier occurrences (up to four);
- *long periods* (up to ``max_period``): the 24 characters after every sentence or line
  boundary in the block are keys of a dict from key to its last offset (the fingerprint idea of
  Karp and Rabin [1]_, sampled at content-defined positions, so that every copy of a unit
  samples the same places); a key seen before at distance *p* proposes *p*. A block with four
  tokens or more whose word n-grams are all new (the novelty detector counted them) registers
  no key: it cannot be a later copy of a wordy unit. A loop's second copy is registered, and
  its third -- the first that may fire -- finds it.

For each candidate *p* the detector then measures the *match run* -- the number of
consecutive positions ending at the anchor with ``t[j] == t[j - p]`` (the quantity behind the
"runs" of Main and Lorentz [2]_ and Kolpakov and Kucherov [3]_) -- by galloping slice
comparisons. A repetition covers ``run + p`` characters, ``(run + p) / p`` copies of the unit;
it fires once that reaches :meth:`StreamGuardConfig.span_required` for the unit's primitive
root -- a rule stated in copies of the unit, for every unit length (counted with a run of
whitespace as at most four characters: indentation is not content): a unit of ``copy_unit``
(16) characters or more with a word fires by its fourth copy, counting from the first (issue
23's reading rule; a copy written once before the run, one interruption of at most a copy's
length back -- ``A B A A A`` --, is the first, and copies before the run that differ by padding
and spacing alone count, as do up to two lines of prose right before a run of one line that
differ from it by a word or two, as ``stream.drift`` compares copies: :meth:`PeriodDetector._earlier`; a line inside an open code fence that
names no language -- quoted output -- needs 12, :meth:`PeriodDetector._code_fence`) -- a unit of
several lines or sentences once the first line or sentence of its fourth copy is complete, by
which a reader recognises the copy (a stream cut by its token limit inside that copy is caught); a shorter
unit with a word (a syllable, a word, a one-word line) once it covers
``span_floor`` (96) characters, ``glued_span_floor`` (64) when its copies abut with nothing
between them (``HeyHeyHey``, ``<unk><unk>``) or are a chat template's or a tokenizer's special
token with only whitespace between them (``</s>``, ``<|im_end|>``, ``<end_of_turn>``, one per
line: :func:`~plateau.stream.text.is_special_token_run`; the copy reported starts at its
opening bracket) -- counted from the first copy of an earlier run it goes on
from when its unit drifts (a unit held in the new one, or holding it: ``_name_name/test_name``),
and from copies before it that differ by case alone (``Oh, oh, oh``);
a run of one token with nothing between its copies (a digit,
a letter, ``!``, an emoji), or with a separator of spaces and at most one comma or semicolon
on one line (``0, 0, 0``, ``b b b``), once it covers ``digit_run_floor`` (96) characters, as
``stream.run`` when the token is one character and nothing separates its copies; layout without a word (dividers, table rules
and borders, box sides, padding, rows of ``00 `` or ``0, ``) needs 256 characters and 12
copies; a run of leaders (``.``, ``·``, ``…``) inside quoted program output -- a test runner's
dot per test -- ``progress_run_floor`` (1,700) characters. :mod:`~plateau.stream.fold` applies
the same rule to copies compared after folding whitespace and padding.

A loop of period *p* is found by the first block (or, for ``copy_unit`` <= p <=
:attr:`PeriodDetector.probe_period`, half-block probe) that ends inside it once ``p + kgram``
characters repeat: any anchor inside a periodic span recurs *p* characters earlier. When the
span it needs is not yet complete the fire is *armed* (:class:`~plateau.stream.result.Armed`,
due at the offset where the span completes) and confirmed by one slice comparison on the chunk
that brings that character, so it never waits for a block boundary. A unit longer than 320
characters with no sentence or line boundary in it (a rare shape: one 400-character line
without a full stop) is left to the drift and novelty detectors.

The reported unit is the primitive root, rotated to start at a line, else a word, boundary.

References
----------
.. [1] R. M. Karp and M. O. Rabin, "Efficient randomized pattern-matching algorithms",
   IBM J. Res. Dev. 31(2), 1987.
.. [2] M. G. Main and R. J. Lorentz, "An O(n log n) algorithm for finding all repetitions in a
   string", J. Algorithms 5(3), 1984.
.. [3] R. Kolpakov and G. Kucherov, "Finding maximal repetitions in a word in linear time",
   FOCS 1999.
"""

from __future__ import annotations

import re

from plateau.stream.block import Block
from plateau.stream.config import StreamGuardConfig
from plateau.stream.fold import fold
from plateau.stream.result import Armed, Fire
from plateau.stream.text import (
    anchor_periods,
    boundary_shift,
    content_length,
    count_words,
    is_glued,
    is_leader_run,
    is_prose,
    is_special_token_run,
    is_token_run,
    match_back,
    primitive_period,
    visible,
    word_count,
)

__all__ = ["PeriodDetector"]

_TRIES = 4  # earlier occurrences of an anchor tried
_SHORT = 320  # (< Tail.NEAR - kgram) periods up to this many characters are found by searching back for the block's end
_KEY = 24  # characters after a boundary that identify it
_MAX_ANCHORS = 4096
_NO_CARRY: dict[int, int] = {}  # the carry of a block without candidates (never written: runs are carried in a fresh dict)
_CALM_TOKENS = 4  # a block with this many tokens, none in a recurring n-gram, skips the long-period keys
#: Info strings of a code fence that hold program output rather than code: plain text, a
#: console or a shell session (a command and what it printed), a log.
_OUTPUT_TAGS = frozenset(
    "text txt plain plaintext console output out log logs terminal shell-session sh bash zsh shell "
    "powershell ps cmd bat stdout stderr pytest".split()
)
_BOUNDARY = re.compile(r"[.!?:;\n][ \t\n]*")
#: Where the first sentence of a copy written on one line ends: a sentence's end mark before a
#: space, or a CJK one, with more of the copy after it (:meth:`PeriodDetector._first_line`).
_SENTENCE_END = re.compile(r"(?:[.!?](?=[ \t])|[\u3002\uff01\uff1f])(?=\s*\S)")


class _Probe:
    """The text up to the middle of a block, shaped as much like a :class:`Block` as ``_check`` needs."""

    __slots__ = ("armed", "end", "lo", "s", "s0")

    def __init__(self, s: str, s0: int) -> None:
        self.s = s
        self.s0 = s0
        self.end = s0 + len(s)
        self.lo = len(s)
        self.armed: list[Armed] = []

    def arm(self, armed: Armed) -> None:
        self.armed.append(armed)


_WORD_SET = re.compile(r"[^\W\d_]{2,}")
_NEAR_LINES = 2  # near copies counted before a run: with its own two, the unit_copies (4) of a loop


def _near_lines(s: str, st: int, v: str, limit: tuple[int, float]) -> int:
    """How many of the lines right before a run of the one-line unit ``v`` (its first copy at
    index ``st`` of ``s``) are near copies of it, at most ``_NEAR_LINES``.

    A near copy is what ``stream.drift`` reads as a copy (``limit``: its ``drift_min_words``
    and ``drift_similarity``): a line of prose (:func:`~plateau.stream.text.is_prose`) of as
    many words as a drifting copy needs, whose word set has a Jaccard similarity of at least
    ``drift_similarity`` with the unit's -- the same sentence with a word added, dropped or
    swapped. A loop that settles on one line often reaches it that way (``So I will check the
    cache once more.``, ``I will check the cache one last time.``, then ``I will check the cache
    once more.`` again and again); a reader counts those lines as its first copies. Lines of
    code, paths and logs are no prose and never count.
    """
    if not v.endswith("\n") or v.count("\n") != 1:
        return 0
    least, alike = limit
    line = v[:-1]
    if word_count(line) < least or not is_prose(line.split()):
        return 0
    want = frozenset(w.lower() for w in _WORD_SET.findall(line))
    n, at = 0, st
    while n < _NEAR_LINES and at > 0:
        lo = s.rfind("\n", 0, at - 1) + 1
        prev = s[lo : at - 1]
        have = frozenset(w.lower() for w in _WORD_SET.findall(prev))
        if word_count(prev) < least or not is_prose(prev.split()) or len(want & have) < alike * len(want | have):
            break
        n, at = n + 1, lo
    return n


class PeriodDetector:
    """Exact periodic repetition at the end of each block.

    Parameters
    ----------
    config
        The guard's hyper-parameters (``kgram``, ``max_period``, ``span_floor``,
        ``structural_span_floor``, copies budget, ``digit_run_floor``, ``min_chars``).

    Examples
    --------
    >>> from plateau.stream import StreamGuard
    >>> guard = StreamGuard()
    >>> res = [guard.feed(c) for c in ["Thinking. "] + ["ny"] * 200]
    >>> res[-1].reason, res[-1].unit, res[-1].fired_at_chunk
    ('stream.period', 'ny', 32)
    """

    def __init__(self, config: StreamGuardConfig) -> None:
        self.config = config
        #: Longest period looked for half-way through a block (:meth:`probe`): the units whose
        #: ``unit_copies``-th copy may complete before the block that first sees them ends
        #: (``p + kgram + block - 1 > unit_copies * p - 1``); 26 by default.
        self.probe_period = (config.kgram + config.block) // max(1, config.unit_copies - 1)
        self._k = config.kgram
        self._short = min(_SHORT, config.max_period)
        #: The whole answer is quoted program output (the request asks for it pasted): every line
        #: is judged as a line inside an open fence.
        self.quoted = False
        self._reset()

    def _reset(self) -> None:
        self._carry: dict[int, int] = {}  # period -> absolute start of a run alive at the last block end
        self._anchors: dict[str, int] = {}  # text after a sentence or line boundary -> its last absolute offset
        self._fences = 0  # code-fence markers (```) seen: an odd count is an open fence
        self._fence_at = -1  # absolute offset of the last fence marker

    def reset(self) -> None:
        """Forget the stream."""
        self._reset()

    @property
    def size(self) -> int:
        """Boundary anchors remembered."""
        return len(self._anchors)

    def update(self, b: Block) -> Fire | None:
        """Look for a repetition ending at this block's end."""
        s = b.near
        n = len(s)
        k = self._k
        if "`" in b.piece:  # markers starting from 2 characters before the block (cut by its start)
            c = s.count("```", max(0, b.nlo - 2))
            if c:
                self._fences += c
                self._fence_at = b.near0 + s.rfind("```")
        periods: list[int] = []
        # Short periods: the anchor's nearest earlier occurrences within _SHORT characters.
        j = n - k
        if j > 0:
            periods = anchor_periods(s, j, max(0, j - self._short), j + k - 1, _TRIES)
        # Long periods: text after sentence and line boundaries seen before. A block whose word
        # n-grams are all new (the novelty detector counted them) cannot be a later copy of a
        # wordy unit: its boundaries are not registered (a loop registers its second copy and
        # is found on its third, when the span first allows a fire).
        if b.seen == 0 and len(b.tokens) >= _CALM_TOKENS:
            if not periods:
                self._carry = _NO_CARRY
                return None
            carry: dict[int, int] = {}
            self._carry = carry
            return self._verify(b, periods, set(), carry)
        cfg = self.config
        carry = {}
        tried: set[int] = set()
        anchors = self._anchors
        lo = max(0, b.nlo - _KEY)
        s0 = b.near0
        for m in _BOUNDARY.finditer(s, lo, n - _KEY):
            at = m.end()
            key = s[at : at + _KEY]
            prev = anchors.get(key)
            anchors[key] = s0 + at
            if prev is not None:
                p = s0 + at - prev
                if _SHORT < p <= cfg.max_period:
                    periods.append(p)
        if len(anchors) > _MAX_ANCHORS:
            oldest = b.end - cfg.max_period
            self._anchors = {key: at for key, at in anchors.items() if at >= oldest}
        fire = self._verify(b, periods, tried, carry)
        self._carry = carry
        return fire

    def _verify(self, b: Block, periods: list[int], tried: set[int], carry: dict[int, int]) -> Fire | None:
        """Check the candidate periods on the whole tail; the earliest fire."""
        if not periods:
            return None
        fire: Fire | None = None
        full = len(b.s) - 1
        for p in periods:
            if p in tried:
                continue
            tried.add(p)
            f = self._check(b, full, p, carry)
            if f is not None and (fire is None or f.at < fire.at):
                fire = f
        return fire

    def _check(self, b: Block | _Probe, x: int, p: int, carry: dict[int, int] | None) -> Fire | None:
        """The fire of period ``p`` for the run ending at index ``x`` of ``b.s``, if it is due.

        A run whose fire is not yet due is armed on ``b`` (an
        :class:`~plateau.stream.result.Armed` confirmed on the chunk that brings its last
        character): a long period is proposed only by blocks holding a boundary, so the block
        that would see it complete may never come.
        """
        cfg = self.config
        s = b.s
        run = match_back(s, x, p, 0, x + 1)
        # The least span any unit of period p needs (span_required): span_floor-sized for a unit
        # shorter than copy_unit, two copies otherwise (a run of two whose copies before it --
        # verbatim, folded or near, _earlier -- make the fourth); a run that cannot reach it
        # before the next block is analysed is left to that block.
        # (halved for short units: wide characters count two columns).
        least = min(cfg.glued_span_floor, cfg.digit_run_floor) // 2 if p < cfg.copy_unit else 2 * p
        if run + p + cfg.block < least:
            return None
        unit = s[x - p + 1 : x + 1]
        d = primitive_period(unit)
        if d != p:
            run = match_back(s, x, d, run + p - d, x + 1)
            p = d
            unit = unit[-d:]
        begin = b.s0 + x - run - p + 1  # absolute start of the first copy
        if carry is not None:
            prev = self._carry.get(p)
            if prev is not None and begin + p < b.s0 + b.lo:  # the run holds the previous block's last character
                begin = min(begin, prev)
            carry[p] = begin
        if p < cfg.copy_unit:
            i = self._drifted(s, begin - b.s0, unit)
            # copies right before the run that differ by case alone are copies ("Oh, oh, oh"):
            # the run goes on back, one character at a time, while the case-folded text repeats
            while i > 0 and s[i - 1].lower() == s[i - 1 + p].lower():
                i -= 1
            begin = i + b.s0
        shown = visible(unit)  # a terminal's colour codes are not text
        words = count_words(shown)
        # A run of line breaks (blank lines) is a run of one token too: layout never stacks
        # more than a few (see StreamGuardConfig.digit_run_floor).
        in_quote = self.quoted or (self._fences % 2 == 1 and not self._code_fence(s, b.s0))
        special = is_special_token_run(unit)
        token = words == 0 and (
            special
            or is_token_run(shown)
            or self._glued(s, begin - b.s0 - 1, unit)
            or ("\n" in unit and unit.isspace())
            or (not in_quote and is_leader_run(shown) and self._after_text(s, begin - b.s0))  # a leader never fills more than a line
        )
        quoted = in_quote and unit.count("\n") == 1 and "```" not in unit
        glued = p < cfg.copy_unit and (special or (words > 0 and is_glued(unit)))
        need = cfg.span_required(p, words, token=token, content=content_length(shown), quoted_line=quoted, glued=glued)
        if in_quote and words == 0 and is_leader_run(shown):  # a test runner's progress, one dot per test
            need = max(need, -(-cfg.progress_run_floor * p // max(1, len(shown))))  # counted in dots shown
        if need == cfg.unit_copies * p:
            need = min(need - self._marker(s, begin - b.s0, p, begin == 0), self._first_line(unit, (begin - b.s0 - (x - p + 1)) % p, p))
        start = begin
        if words and p >= cfg.copy_unit and not quoted:
            st, earlier = self._earlier(s, begin - b.s0, p, (cfg.drift_min_words, cfg.drift_similarity))
            if earlier:  # copies of the unit came before the run: they count, the run holds two at least
                start, need = b.s0 + st, max(need - earlier * p, 2 * p)
        reason = "stream.run" if p == 1 and (token or unit.isalnum()) else "stream.period"
        reach = max(start + need - 1, cfg.min_chars - 1)
        if reach > b.s0 + x:
            b.arm(Armed(at=reach, source=self, key=("period", p, begin), data=(p, begin, b.s0 + x + 1, reason)))
            return None
        return self._fire(s, b.s0, x, p, run, begin, reach, reason)

    @staticmethod
    def _earlier(s: str, i: int, p: int, limit: tuple[int, float]) -> tuple[int, int]:
        """Where the run starting at index ``i`` of ``s`` (period ``p``) has its first whole copy,
        and how many copies of its unit came before the run: ``(start, 1)`` when the unit was
        written once before it with at most one copy's length of other text between, ``(start,
        2)`` when that text is itself a copy once bracket and punctuation padding and whitespace
        are folded (the copies are then adjacent, as issue 23's rule compares them); ``(start,
        1)`` too when no verbatim copy precedes the run but the text right before it folds to
        one (a JSON object written again without its opening brace: the run begins inside the
        unit, after the brace); ``(start, n)`` when neither holds and the ``n`` lines right
        before a run of one line are near copies of it (:func:`_near_lines`, ``limit`` its
        ``(drift_min_words, drift_similarity)``); ``(i, 0)`` otherwise.

        A reader counts a unit's copies from its first appearance (issue 23's reading rule): a
        line written, another line, then the first line again and again (``A B A A A``) is four
        copies of ``A`` by the fifth line, though the unbroken run holds three. The copy is
        compared from the run's first line start (from ``i`` itself for a unit without a line
        break), where an interrupting line cannot have shifted the run's phase; the text
        between the two copies is 1 to ``p`` characters (a gap of a whole copy or more is two
        repetitions, not one). The run's copies are then counted from that line start: the
        part of the run before it is the interruption's tail, which may match the unit's.
        """
        k = s.find("\n", i, i + p - 1)
        st = k + 1 if k >= 0 else i
        v = s[st : st + p]
        if len(v) < p or st < p - p // 4:
            return i, 0
        q = s.rfind(v, max(0, st - 2 * p), st - 1) if st > p else -1
        if q >= 0:
            return st, 2 if fold(s[q + p : st]) == fold(v) else 1
        # No verbatim copy: the copy right before the run may differ by its padding or spacing
        # alone (an opening brace left out), the run then beginning inside the unit. That copy
        # starts the text or follows whitespace, within a quarter of a copy of one period back,
        # and holds text written before the run (the brace): the run's own text, and the
        # whitespace before it, are counted as the run's (from ``i``).
        fv, lo = fold(v), max(0, st - p - p // 4)
        if fv and lo < i and fold(s[lo:st]).endswith(fv):  # one fold decides the common case
            for x in range(lo, min(i, st - p + p // 4 + 1)):
                if (x == 0 or s[x - 1].isspace()) and not s[x:i].isspace() and fold(s[x:st]) == fv:
                    return st, 1
        # Nor a folded one: lines of prose that differ from the run's line by a word or two.
        near = _near_lines(s, st, v, limit)
        return (st, near) if near else (i, 0)

    def _first_line(self, unit: str, phase: int, p: int) -> int:
        """The span at which a unit of several lines or sentences has its last copy's first line
        or sentence: ``unit_copies - 1`` copies, then the first line or sentence of the next one.

        A reader reads a block of lines line by line, and a paragraph written on one line
        sentence by sentence: once three copies have been read, the fourth is recognised by its
        first line or sentence -- everything after it is text the reader has seen three times at
        this distance. Streams cut by a token limit inside the fourth copy of a long cycle (a
        list of several lines, a paragraph) end before the copy does. The first line counts
        from the loop's first character (``phase``: where it falls in ``unit``) to the first
        line break at least ``copy_unit`` characters in; a copy with no such line break, or with
        only blank lines after it (one line, with or without its line break and the blank line
        that ends a paragraph), is read by its first sentence, to the first
        sentence end (``.``, ``!``, ``?`` before a space; ``。``, ``！``, ``？``) at least
        ``copy_unit`` characters in with more of the copy after it -- so that the tail of a
        line or sentence cut by the loop's phase is not taken for one. A unit with no second
        line or sentence needs ``unit_copies * p`` less the whitespace that ends its copy: the
        fourth copy is complete at its last character that is not whitespace, and the space or
        line break after it separates it from what follows (a short sentence
        four times on a line, then a line break).
        """
        cfg = self.config
        copy = unit[phase:] + unit[:phase]
        j = copy.find("\n", cfg.copy_unit - 1, p - 1)
        if j >= 0 and not copy[j:].isspace():
            return (cfg.unit_copies - 1) * p + j + 1
        m = _SENTENCE_END.search(copy, cfg.copy_unit - 1, j if j >= 0 else len(copy))
        if m is not None:
            return (cfg.unit_copies - 1) * p + m.end()
        # one sentence: the copy is complete at its last character that is not whitespace (the
        # space or line break after it is what separates it from the next copy)
        return cfg.unit_copies * p - (len(copy) - len(copy.rstrip()) if copy.strip() else 0)

    @staticmethod
    def _marker(s: str, i: int, p: int, start: bool) -> int:
        """The characters of a loop's last copy that belong to the marker before the next copy.

        ``i`` is the index in ``s`` of the loop's first copy (``start``: the stream's first
        character). A loop whose copies are joined by a marker that opens the next copy's line
        (a transcribed ``(waiting) ...``, a prompt) writes each copy's body, then a line break,
        then the marker: read from the loop's start -- a line start, where its first copy
        begins a line -- the unit ends with text after its last line break. A reader counts a copy once its body is
        written -- the marker after it is what the next copy brings -- so the copy's fourth
        occurrence is complete at the end of its body, before that line break (the labelling
        rule of issue 23: a loop that ends with the stream at its fourth body has four
        copies). Returns the length of the line break and the marker after it (0 when the unit
        ends with its line break, or only whitespace follows it).
        """
        if not (0 <= i < len(s) and (s[i - 1] == "\n" if i > 0 else start)):
            return 0
        unit = s[i : i + p]
        if len(unit) < p or unit[0] == "\n":
            return 0
        nl = unit.rfind("\n")
        if nl < 0 or not unit[nl + 1 :].strip():
            return 0
        body = len(unit[:nl].rstrip())
        return p - body if body > 0 else 0

    def _drifted(self, s: str, i: int, unit: str) -> int:
        """Where a run of a short ``unit`` starting at index ``i`` of ``s`` really begins, when it
        goes on, without a break, from a run of another short unit that it holds or that holds
        it (``_name_name_name/test_name/test_name/test/test``: the unit drifts, the repetition
        goes on); ``i`` itself otherwise. Each earlier run needs ``min_copies`` copies; two
        steps back at most. Units that share nothing (``0000ffff``) are two runs.
        """
        cfg = self.config
        for _ in range(2):
            x = i - 1
            best, earlier = i, unit
            for q in range(1, cfg.copy_unit):
                if x - q < 0 or s[x] != s[x - q]:
                    continue
                run = match_back(s, x, q, 0, x + 1)
                if run + q < cfg.min_copies * q:
                    continue
                prior = s[x - q + 1 : x + 1]
                if prior == unit or not (prior in unit + unit or unit in prior + prior):
                    continue
                if x - run - q + 1 < best:
                    best, earlier = x - run - q + 1, prior
            if best == i:
                break
            i, unit = best, earlier
        return i

    def _code_fence(self, s: str, s0: int) -> bool:
        """Whether the open code fence (its marker at ``self._fence_at``; ``s`` starts at absolute
        offset ``s0``) names a programming language: ```` ```yaml ````, ```` ```python ````.

        A fence tagged with a language holds code the model writes, and its lines are judged as
        the model's own text (a line of code written a fourth time in a row is a loop); a fence
        with no tag, or tagged as output, a log or a shell session (``_OUTPUT_TAGS``), holds
        quoted program output, whose lines repeat as a program prints them (``max_copies``).
        Generated code does not write one line of a word or more four times in a row: of 1,431
        site-packages modules streamed inside a ```` ```python ```` fence, none fires more after
        this reading than before. False when the fence's first line is not in ``s``.
        """
        i = self._fence_at - s0
        if i < 0:
            return False
        nl = s.find("\n", i)
        if nl < 0:
            return False
        tag = s[i + 3 : nl].strip().lower()
        return bool(tag) and tag.split()[0] not in _OUTPUT_TAGS

    @staticmethod
    def _after_text(s: str, i: int) -> bool:
        """Whether text other than whitespace stands before index ``i`` of ``s`` on its line.

        A leader leads from a line's text to what ends it (a table of contents' title to its
        page number), so a run of leaders after text never fills more than the line. A line of
        nothing but dots is drawn, as a rule is, or printed, as a test runner prints a dot per
        test (over a thousand in the real tool outputs of ``scripts/stream_false_alarms.py``,
        and the whole first line of an answer that shows a run's output): layout.
        """
        return bool(s[s.rfind("\n", 0, i) + 1 : i].strip())

    @staticmethod
    def _glued(s: str, i: int, unit: str) -> bool:
        """Whether a run of one layout character (not whitespace) starts right after a letter or digit (``s[i]``).

        Layout draws: a rule, a divider, a border or a heading mark stands on its own line or
        after a space or another mark (``## Title``, ``| --- |``, ``=====``). The same
        character glued to the end of a word (``One#####``) draws nothing: it is a run of one
        token, judged as ``0000`` or ``!!!!`` are.
        """
        return 0 <= i < len(s) and len(unit) == 1 and not unit.isspace() and s[i].isalnum()

    def probe(self, s: str, s0: int) -> tuple[Fire | None, list[Armed]]:
        """Look half-way through a block for a unit of ``copy_unit`` to ``probe_period`` characters.

        A block's end proposes a period once its anchor recurs, ``p + kgram`` characters into the
        run; a unit of 16-26 characters may complete its fourth copy before the next block ends.
        The guard calls this with the text up to the middle of every block (``s``, absolute
        start ``s0``): the anchor's nearest earlier occurrence within ``probe_period`` characters
        proposes the period, and a run found is armed (or fires, if already complete).

        Returns
        -------
        tuple
            The fire (or None) and the armed fires.
        """
        cfg = self.config
        k = cfg.kgram
        j = len(s) - k
        lo = j - self.probe_period
        if lo < 0:
            return None, []
        pos = s.rfind(s[j:], lo, j - cfg.copy_unit + k)
        if pos < 0:
            return None, []
        x, p = len(s) - 1, j - pos
        if match_back(s, x, p, 0, x + 1) >= x - p + 1:  # the run reaches before the text: an older run, the blocks' own
            return None, []
        b = _Probe(s, s0)
        fire = self._check(b, x, p, None)
        return fire, b.armed

    def confirm(self, armed: Armed, s: str, s0: int) -> Fire | None:
        """The armed fire if ``s`` (absolute start ``s0``) still repeats at its period up to ``armed.at``."""
        p, begin, checked, reason = armed.data
        i, j = checked - s0, armed.at - s0 + 1
        if i - p < 0 or j > len(s) or s[i:j] != s[i - p : j - p]:
            return None
        return self._fire(s, s0, j - 1, p, armed.at - begin - p + 1, begin, armed.at, reason)

    @staticmethod
    def _fire(s: str, s0: int, x: int, d: int, run: int, begin: int, reach: int, reason: str) -> Fire:
        first = x - run - d + 1  # index in s where the first copy starts (may be < 0: before the tail)
        rep = first if first >= 0 else first + d * (-first // d + 1)  # same phase, inside s
        copy = s[rep : rep + d]
        if is_special_token_run(copy):  # a special token's copy starts at its opening bracket
            shift = min(k for k in (copy.find("<"), copy.find("["), d) if k >= 0) % d
        else:
            shift = boundary_shift(s, rep, d, x)
        loop_start = begin + shift
        return Fire(
            at=reach,
            reason=reason,
            unit=s[rep + shift : rep + shift + d],
            period=d,
            loop_start=loop_start,
            cut_offset=loop_start + d,
            copies=(s0 + x + 1 - begin) // d,
        )
