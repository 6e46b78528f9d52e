"""``stream.drift``: near-identical copies whose words, counters or spacing drift.

A model that loops rarely repeats itself byte for byte: a counter advances (``Step 12``,
``Step 13``), a space or a line break moves, a word is swapped or a token is doubled. The
detector compares copies after *normalising* the stream: its whitespace-separated tokens
(lower-cased, so spacing vanishes), compared with every run of digits read as ``0`` (so
counters vanish).
A dict maps the token n-grams of every block in which most n-grams recur to where they last
began (a loop's second copy is registered, its third finds the second). When three fifths of a block's n-grams recur (the novelty
detector counts them) and a third of them at one distance, that most common distance *q* (in tokens) is the candidate period, and the last
slices of *q* tokens are the copies. Copies equal as token lists -- only spacing or case drift, as in a ``"let me ("`` chant with
wandering spaces -- fire under the exact rule (the copies that cover ``span_required`` characters, as
``stream.period``, for a unit shorter than ``copy_unit``; for a longer one the copies must hold
48 words or 280 characters, between ``min_copies`` and ``max_copies`` copies, because
whitespace also carries structure: an indented tree repeats its folded lines). Otherwise it fires when the last ``max(drift_copies,
budget)`` copies -- as many as an exact repetition of the unit needs (issue 23: a loop is cut by
its fourth copy, copies compared after folding; the copies are only alike, which the three tests
below weigh) --

- each hold at least ``drift_min_words`` words (a sentence, not a table row or a log line)
  and are prose: 80 % of their tokens plain words (a linter report or a log line that differs
  only by its numbers is not: ``Lib/token.py:81:5: Q000 ...``),
- are alike: the word sets of consecutive copies have a Jaccard similarity of at least
  ``drift_similarity``,
- and do not enumerate: fewer than 5 % of their words appear in one copy only, and some copy
  holds no word of its own. A generated list ("Returns the `name` field.", "Returns the
  `email` field.") or a template filled once per item (a letter to each of a list of names)
  brings a new word in every copy; a loop swaps words back and forth, or not at all.

Copies that begin inside an open code fence -- a program's output or code, whose lines print
alike -- need ``max_copies`` (12) on either path, as a quoted line does: a test runner prints
its ``Cloning test database ...`` line once per worker.

The exact rule is judged at block ends; when the copies lack only the last few tokens of
their last copy, the fire is armed (:class:`~plateau.stream.result.Armed`) and lands on the
chunk that completes those tokens, so that copies ending just past a block end are not cut a
block late. The copies are reported from the periodic run's first token (where the loop's first
copy begins: a piece the request names by its first line is named by the copy reported), and
copies equal as text are left to :mod:`~plateau.stream.period`, which fires on them no later.
Copies that each open a line one indentation deeper or shallower than the last are a nested
structure (a tree, a recursive dump), not a loop, and never fire here.

The cost per block is one ``zip`` and one ``map(dict.get)`` over the block's n-grams and one
``dict.update``; the comparison of copies (Python sets) runs only when most n-grams recur.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import repeat

from plateau.stream.block import Block, Partial
from plateau.stream.config import StreamGuardConfig
from plateau.stream.result import Armed, Fire
from plateau.stream.text import in_open_fence, is_prose

__all__ = ["DriftDetector"]

_DIGITS = re.compile(r"\d+")
_SENTENCE = re.compile(r"(?:[.!?]\s+|\n+)(?=\S)")
_STARTED = re.compile(r"(?:[.!?]\s+|\n+)$")  # what ends just before a sentence or line start
_LETTERS2 = re.compile(r"[^\W\d_].*[^\W\d_]")
_MAX_ENUM_SHARE = 0.05  # words seen in one copy only, over all words of the copies


def _nested(s: str, starts: list[int]) -> bool:
    """Whether the copies at ``starts`` (indices in ``s``, at least three) each open a line, at
    indentations that strictly grow or strictly shrink."""
    if len(starts) < 3:
        return False
    cols = []
    for x in starts:
        ls = s.rfind("\n", 0, x) + 1
        if not s[ls:x].isspace() and ls != x:
            return False
        cols.append(x - ls)
    steps = {(a > b) - (a < b) for a, b in zip(cols, cols[1:], strict=False)}
    return steps in ({1}, {-1})


class DriftDetector:
    """Near-periodic copies on the normalised token stream.

    Parameters
    ----------
    config
        The guard's hyper-parameters (``max_period``, ``drift_*``, ``min_chars``).

    Examples
    --------
    >>> from plateau.stream import StreamGuard
    >>> steps = [f"I will open the {w} file again and check whether the port value is set correctly. " for w in ["config", "settings"] * 15]
    >>> guard = StreamGuard()
    >>> res = [guard.feed(c) for c in ["Let me look at the setup first. "] + steps]
    >>> res[-1].reason
    'stream.drift'
    """

    def __init__(self, config: StreamGuardConfig) -> None:
        self.config = config
        self._keep = (config.drift_copies + 1) * max(8, config.max_period // 4)
        #: The whole answer is quoted program output (the request asks for it pasted): its copies
        #: need ``max_copies``, the budget of a quoted line (see
        #: :meth:`StreamGuardConfig.span_required`).
        self.quoted = False
        #: The request asks for a plan whose items recur by design (a schedule, a routine, a
        #: daily checklist: :attr:`~plateau.stream.context.RequestContext.recurring`): copies
        #: that differ by their counters are its days, and need ``max_copies``.
        self.recurring = False
        self._reset()

    def _reset(self) -> None:
        self._last: dict[tuple[str, ...], int] = {}  # token n-gram -> index of its last start (current generation)
        self._older: dict[tuple[str, ...], int] = {}  # the previous generation
        self._toks: list[str] = []  # the last tokens
        #: Absolute offset of the end of the last block whose copies were judged an enumeration
        #: (a template filled once per item); -1 before. The guard's semantic layer does not fire
        #: on text the textual layer has read as an enumeration.
        self.enumeration_end = -1

    def reset(self) -> None:
        """Forget the stream."""
        self._reset()

    @property
    def size(self) -> int:
        """Tokens and n-grams remembered."""
        return len(self._toks) + len(self._last) + len(self._older)

    def update(self, b: Block) -> Fire | None:
        """Add the block's tokens; judge the copies when most of its n-grams recur."""
        toks = b.tokens
        if not toks:
            return None
        kept = self._toks
        kept += toks
        grams = b.grams
        if not grams:
            return None
        last = self._last
        idx0 = b.gram_first
        if 5 * b.seen < 3 * len(grams):  # fewer than 60 % recur: no loop here
            if len(kept) > self._keep + 1024:
                del kept[: len(kept) - self._keep]
            return None
        old = self._older
        prevs = [p if p is not None else q for p, q in zip(map(last.get, grams), map(old.get, grams, repeat(-1)), strict=True)]
        local: dict[tuple[str, ...], int] = {}
        for j, g in enumerate(grams):  # an n-gram met earlier in this block: the nearer occurrence wins
            k = local.get(g)
            if k is not None:
                prevs[j] = idx0 + k
            local[g] = j
        last.update(zip(grams, range(idx0, idx0 + len(grams)), strict=True))
        if len(last) > self._keep:
            self._older = last
            self._last = {}
        if len(kept) > self._keep + 1024:
            del kept[: len(kept) - self._keep]
        if 5 * prevs.count(-1) > 2 * len(prevs):
            return None
        dist: dict[int, int] = {}
        for i, pv in enumerate(prevs):
            if pv >= 0:
                q = idx0 + i - pv
                dist[q] = dist.get(q, 0) + 1
        q, agree = max(dist.items(), key=lambda kv: (kv[1], kv[0]))
        if 3 * agree < len(prevs):
            return None
        cfg = self.config
        end = len(kept)
        if q < 2 or q * cfg.min_copies > end:
            return None
        unit = kept[end - q :]
        chars = sum(map(len, unit)) + q
        words = sum(1 for w in unit if _LETTERS2.search(w))
        if words and chars >= cfg.copy_unit:
            # Copies equal only once whitespace and case are folded: whitespace also carries
            # structure (an indented tree repeats its folded lines), so a unit needs the
            # evidence budget -- 48 words or 280 characters -- and never fewer than the
            # unit_copies (4) of a verbatim repetition, up to max_copies.
            budget = min(-(-cfg.copies_word_budget // words), -(-cfg.copies_char_budget // chars))
            budget = min(cfg.max_copies, max(cfg.min_copies, budget))
            exact = max(cfg.unit_copies, budget)
        else:
            exact = budget = -(-cfg.span_required(chars, words) // chars)  # the copies the exact rule needs
        if self.quoted:
            exact = budget = max(exact, cfg.max_copies)
        # Copies equal as token lists (only spacing and case drift): the exact rule, the copies
        # read from the first token of the periodic run (where the loop's first copy begins).
        need = q * exact
        run = self._run(q, need)
        if run >= need and b.end >= cfg.min_chars:
            run = self._run(q, len(kept))
            lo = end - run
            fire = self._fire(b, [kept[lo : lo + q]] * (run // q))
            if fire is not None and exact < cfg.max_copies and in_open_fence(b.s, fire.loop_start - b.s0):
                # inside a code fence, as for copies that differ by words: a program's output,
                # whose lines print alike, needs max_copies, as a quoted line does
                return fire if run >= q * cfg.max_copies else None
            return fire
        if run < need:
            self._arm(b, q, exact, run)
        # Copies that differ by words: as many as an exact repetition needs, when alike and not an enumeration.
        need = max(cfg.drift_copies, budget, cfg.max_copies if self.recurring else 0)
        if q < 3 or q * need > end:
            return None
        copies = [kept[end - (i + 1) * q : end - i * q] for i in range(need)][::-1]
        fire = self._judge(b, copies)
        if fire is not None and need < cfg.max_copies and in_open_fence(b.s, fire.loop_start - b.s0):
            # inside a code fence: a program's output, or code, whose lines print alike
            need = cfg.max_copies
            if q * need > end:
                return None
            return self._judge(b, [kept[end - (i + 1) * q : end - i * q] for i in range(need)][::-1])
        return fire

    def _run(self, q: int, cap: int) -> int:
        """Tokens of the run of period ``q`` that ends with the last token (its first copy
        included; ``q`` when the last two copies differ), counted up to ``cap``."""
        kept = self._toks
        end = len(kept)
        lo = max(q, end - cap)
        i = end - 1
        while i >= lo and kept[i] == kept[i - q]:
            i -= 1
        return min(end - 1 - i + q, max(cap, q))

    def _arm(self, b: Block, q: int, exact: int, run: int) -> None:
        """Arm the exact rule's fire on the token that completes the last copy it needs.

        The copies are judged at block ends (every ``config.block`` characters), so a last copy
        that ends just after one would fire up to a block late. When the last ``run`` tokens
        repeat with period ``q`` for at least two copies and the ``exact`` copies lack fewer than
        ``q`` tokens, the fire is armed (:class:`~plateau.stream.result.Armed`) and
        :meth:`confirm` fires on the chunk whose text completes those tokens, if they are the
        ones the period predicts.
        """
        kept = self._toks
        end = len(kept)
        missing = q * exact - run
        if not 0 < missing < q or run < 2 * q:
            return
        expected = tuple(kept[end - q : end - q + missing])
        unit = tuple(kept[end - run : end - run + q])  # a copy, from the loop's first token
        near = b.near
        k = len(near)
        while k and not near[k - 1].isspace():  # the start of the token cut by the block's end
            k -= 1
        # the earliest the tokens can be complete: one space between them
        at = b.end - (len(near) - k) + sum(map(len, expected)) + missing - 2
        b.arm(Armed(at=max(at, b.end), source=self, key=("drift", q), data=(b.end, expected, unit, exact)))

    def confirm(self, armed: Armed, s: str, s0: int) -> Fire | Armed | None:
        """The armed fire when the text after the block's end (``s`` up to the last chunk,
        absolute start ``s0``) completes the predicted tokens; re-armed for the next character
        while it does not yet; None once a token differs."""
        start, expected, unit, exact = armed.data
        i = start - s0
        if i < 0 or i > len(s):
            return None
        while i > 0 and not s[i - 1].isspace():  # the token cut by the block's end
            i -= 1
        got = s[i:].lower().split()
        n = len(expected)
        k = min(len(got), n)
        if k and (got[: k - 1] != list(expected[: k - 1]) or not expected[k - 1].startswith(got[k - 1])):
            return None  # a token differs from the one the period predicts
        if k < n or got[n - 1] != expected[n - 1] or s0 + len(s) < self.config.min_chars:
            return Armed(at=s0 + len(s), source=self, key=armed.key, data=armed.data)
        x = i  # just past the last predicted token
        for _ in range(n):
            while s[x].isspace():
                x += 1
            while x < len(s) and not s[x].isspace():
                x += 1
        fire = self._fire(Partial(s[:x], s0, s0 + x), [list(unit)] * exact)
        if fire is None:
            return None
        # Copies equal as text are the raw period detector's: its rule fires on them no later
        # (it needs no more copies), with their period.
        p = fire.cut_offset - fire.loop_start
        seg = s[fire.loop_start - s0 : x]
        if 0 < p < len(seg) and seg[p:] == seg[:-p]:
            return None
        return fire

    def _judge(self, b: Block, copies: list[list[str]]) -> Fire | None:
        cfg = self.config
        copies = [_DIGITS.sub("0", " ".join(c)).split() for c in copies]
        sets = [set(c) for c in copies]
        for x, y in zip(sets, sets[1:], strict=False):
            if len(x & y) < cfg.drift_similarity * len(x | y):
                return None
        total = 0
        for c in copies:
            words = sum(1 for w in c if _LETTERS2.search(w))
            if words < cfg.drift_min_words or not is_prose(c):
                return None
            total += words
        seen = Counter([w for st in sets for w in st])
        singles = sum(1 for w, c in seen.items() if c == 1 and _LETTERS2.search(w))
        # An enumeration: many words of one copy only, or a word of its own in every copy (a
        # template filled once per item: a greeting naming a different person in every copy).
        if singles >= _MAX_ENUM_SHARE * total or all(
            any(seen[w] == 1 and _LETTERS2.search(w) for w in st) for st in sets
        ):
            self.enumeration_end = b.end
            return None
        if b.end < cfg.min_chars:
            return None
        return self._fire(b, copies)

    def _fire(self, b: Block | Partial, copies: list[list[str]]) -> Fire | None:
        """Locate the copies in the original text by their leading tokens; None when they nest.

        Copies that each open a line one indentation deeper (or shallower) than the last are a
        nested structure -- a tree, a recursive dump, a call stack --, not a loop: a loop comes
        back to the same place, and whitespace carries the structure here.
        """
        s = b.s
        head = copies[-1][:5]
        parts = [re.escape(w).replace("0", r"\d+") for w in head]
        pattern = re.compile(r"(?<!\S)" + r"\s+".join(parts) + r"(?!\S)", re.IGNORECASE)
        starts = [m.start() for m in pattern.finditer(s)]
        if _nested(s, starts[-len(copies) :]):
            return None
        if len(starts) >= 2:
            first = starts[-len(copies)] if len(starts) >= len(copies) else starts[0]
            later = [x for x in starts if x > first]
            cut = later[0] if later else len(s)
        else:
            first = starts[0] if starts else max(0, len(s) - 1)
            cut = len(s)
        # Rotate the copy to start at a sentence or line start, when it holds one and does not
        # start at one already.
        m = None if first == 0 or _STARTED.search(s, max(0, first - 8), first) else _SENTENCE.search(s, first, cut)
        if m is not None and cut + (m.end() - first) <= len(s):
            shift = m.end() - first
            back = m.end() - (cut - first)  # the same sentence start, one copy earlier
            if back >= 0 and s[back : back + 16].lower() == s[m.end() : m.end() + 16].lower():
                # the loop's copies already began there: the cut keeps that one copy
                first, cut = back, m.end()
            else:
                first += shift
                cut += shift
        return Fire(
            at=b.end - 1,
            reason="stream.drift",
            unit=s[first:cut],
            period=None,
            loop_start=b.s0 + first,
            cut_offset=b.s0 + cut,
            copies=len(copies),
        )
