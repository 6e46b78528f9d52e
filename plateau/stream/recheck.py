"""``stream.recheck``: the same passage quoted again and again, each time judged anew.

A reasoning model that has written a function (or read an error, or a rule) may go back to it
"once more": it quotes the passage, judges it ("that is right"), raises the same doubt,
and quotes it again. The commentary between the quotes is templated -- the same sentences in
shuffled wording -- so no period and no dominant line appear, and code inside the loop keeps
the novelty detector's prose test from judging it. What does recur verbatim is the passage.

The detector reads the complete lines of the channel. Every three consecutive non-blank lines
holding 24 characters or more (a passage, not a brace or a blank pattern) are a key; a dict
remembers where each key began (its last ``recheck_quotes`` occurrences). When a key reaches
``recheck_quotes`` occurrences (default 4: the original and three re-checks) it becomes a
*candidate*. It never fires alone: :class:`~plateau.stream.StreamGuard` fires on a candidate
only when its semantic layer corroborates it -- more than ``recheck_near`` (half) of the
sentences written since the passage's third occurrence (the second re-check on) land near an
earlier sentence of the same response (the commentary restates itself). Without an embedder the
candidate is left to the other detectors. A passage quoted again while the commentary moves on
(a failing test quoted after each different fix) is not corroborated. Nor is a template
filled once per item -- a song's refrain after each verse, a letter's body after each
greeting -- a re-check: when the lines between the occurrences fill one template with a new item
each time (:meth:`RecheckDetector._enumerates`), the passage is no candidate; nor is a table's
header (a passage holding a markdown table's delimiter row), which a document of many tables of
one shape repeats before each. Nor is a passage being revised: quoted inside code blocks that
differ from one occurrence to the next (:meth:`RecheckDetector._revised`), as a model rewriting
a function quotes its opening lines with each new version; nor a passage whose occurrences do
not come back at one period (:func:`_cyclic`: the longest stretch between two at most twice the
shortest), which is referred to while other work goes on.

Work per block: nothing unless the block ends a line; then one ``split`` and a dict lookup per
line. Memory: at most 4096 keys of three lines of at most 256 characters.

On the reasoning channel a re-check may also be a *templated line*: lines of 24 characters or
more whose word sets are alike (Jaccard at least ``drift_similarity``) count as one line, so a
loop whose re-checks alternate between two states that open alike ("Actually, I realize I
should ..." / "Actually, I think I should ...") counts every re-check; ``recheck_quotes`` of
them that say at most half as many variants again (not an enumeration) make a candidate, which
fires only with the same corroboration.
"""

from __future__ import annotations

import re
from collections import deque

from plateau.stream.block import Block
from plateau.stream.config import StreamGuardConfig
from plateau.stream.result import Fire

__all__ = ["RecheckDetector"]

_MAX_LINE = 256  # characters of a line kept as part of a key
_MIN_PASSAGE = 24  # characters (stripped) three lines must hold to be a passage
_MAX_KEYS = 4096
_MAX_ALIKE = 64  # templated lines remembered (the most recent)
_MIN_WORDS = 5  # distinct words a templated line must hold
_WORDS = re.compile(r"\w+")
_TOKENS = re.compile(r"\w+|[^\w\s]")
#: Non-blank lines kept to read the gaps between a passage's occurrences: a re-check loop comes
#: back to its passage within them (three cycles of a quoted function and its commentary); a
#: passage quoted again after more lines of other work than that is referred to, not re-checked.
_HISTORY = 256
_DIGITS = re.compile(r"\d+")
#: A markdown table's delimiter row (``|---|:---:|``, ``--- | ---``): the line under a header.
_TABLE_RULE = re.compile(r"\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?")


def _common_tail(gaps: list[list[str]]) -> list[str]:
    """The last lines every gap ends with: the lines that stand just before every occurrence."""
    tail: list[str] = []
    for lines in zip(*[reversed(g) for g in gaps], strict=False):
        if any(line != lines[0] for line in lines):
            break
        tail.append(lines[0])
    return tail[::-1]


def _cyclic(occ: list[int]) -> bool:
    """Whether a passage's occurrences (absolute offsets ``occ``) come back at one period, as a
    loop's do: the longest stretch between two of them at most twice the shortest (a cycle is the
    passage and its commentary, whose wording varies but not its length many times over). A
    passage quoted twice in a row and again after a long stretch of other work is referred to
    while the work goes on: on the 7,901 real model responses of ``scripts/stream_false_alarms.py
    --semantic`` the two passages left firing came back after stretches 3.3 and 14 times the
    shortest."""
    gaps = [b - a for a, b in zip(occ, occ[1:], strict=False)]
    return bool(gaps) and max(gaps) <= 2 * max(1, min(gaps))


def _scaffold(lines: tuple[str, ...]) -> bool:
    """Whether a passage holds a markdown table's delimiter row: the header of a table, which a
    document of many tables of one shape (a reference's parameter table per endpoint, a
    comparison per section) opens each of them with -- its scaffold, not a passage quoted to be
    judged again."""
    return any(_TABLE_RULE.fullmatch(line) for line in lines)


class RecheckDetector:
    """Passages of three lines quoted ``recheck_quotes`` times: candidates for ``stream.recheck``.

    Parameters
    ----------
    config
        The guard's hyper-parameters (``recheck_quotes``, ``min_chars``).

    Attributes
    ----------
    candidate : Fire or None
        The passage that reached ``recheck_quotes`` occurrences most recently (its unit the
        passage, ``loop_start`` its first occurrence, ``cut_offset`` its second), None before.
    third : int
        Absolute offset of that passage's third occurrence (the second re-check); -1 before.
    """

    def __init__(self, config: StreamGuardConfig, *, templated: bool = False) -> None:
        self.config = config
        #: Whether templated lines count too (the reasoning channel: :meth:`_templated`).
        self.templated = templated
        self._reset()

    def _reset(self) -> None:
        self._pend = ""
        self._pend_start = 0
        self._lines: list[tuple[str, int]] = []  # the last two non-blank lines and their offsets
        self._history: deque[tuple[str, int]] = deque(maxlen=_HISTORY)  # the last non-blank lines, for the gaps
        self._keys: dict[tuple[str, ...], list[int]] = {}
        self.candidate: Fire | None = None
        self.third = -1
        #: templated lines: (word set, the first line, its last ``recheck_quotes`` (offset, line)), oldest first
        self._alike: list[tuple[frozenset[str], str, list[tuple[int, str]]]] = []

    def reset(self) -> None:
        """Forget the stream."""
        self._reset()

    @property
    def size(self) -> int:
        """Passages remembered."""
        return len(self._keys)

    def update(self, b: Block) -> Fire | None:
        """Read the block's complete lines; update :attr:`candidate`. Never fires by itself."""
        piece = b.piece
        if "\n" not in piece:
            if not self._pend:
                self._pend_start = b.end - len(piece)
            if len(self._pend) < _MAX_LINE:
                self._pend += piece[: _MAX_LINE - len(self._pend)]
            return None
        base = b.end - len(piece)
        parts = piece.split("\n")
        rest = parts.pop()
        start = base
        quotes = self.config.recheck_quotes
        keys = self._keys
        for i, part in enumerate(parts):
            if i == 0 and self._pend:
                line, at = self._pend + part[:_MAX_LINE], self._pend_start
            else:
                line, at = part[:_MAX_LINE], start
            start += len(part) + 1
            key = line.strip()
            if not key:
                continue
            if self.templated and len(key) >= _MIN_PASSAGE:
                self._templated(key, at, base + len(piece) - 1)
            self._history.append((key, at))
            prev = self._lines
            prev.append((key, at))
            if len(prev) < 3:
                continue
            if len(prev) > 3:
                del prev[0]
            if len(prev[0][0]) + len(prev[1][0]) + len(key) < _MIN_PASSAGE:
                continue
            if prev[0][0][:3] == "```" or prev[1][0][:3] == "```" or key[:3] == "```":  # a passage lies inside one block, or outside any
                continue
            triple = (prev[0][0], prev[1][0], key)
            occ = keys.get(triple)
            if occ is None:
                if len(keys) >= _MAX_KEYS:
                    keys.clear()
                keys[triple] = [prev[0][1]]
                continue
            occ.append(prev[0][1])
            if len(occ) > quotes:
                del occ[0]
            if len(occ) < quotes or _scaffold(triple):
                continue
            gaps = self._gaps(occ[-quotes:])
            if gaps is not None and _cyclic(occ[-quotes:]) and not self._enumerates(gaps) and not self._revised(occ[-quotes:]):
                # Verbatim gaps make the passage and its gap one copy of a loop: that cycle is the
                # unit (a request that names the loop by a line in the gap -- a song's title
                # line -- names it), read from its first line: the same cycle found again from a
                # later line keeps its candidate.
                same = gaps is not None and all(g == gaps[0] for g in gaps)
                if gaps is not None and same:
                    unit = "\n".join(triple + tuple(gaps[0]))
                else:
                    # the lines that stand before every occurrence (a verse's title line before
                    # the rest of it) belong to the passage as the text names it
                    unit = "\n".join((*(_common_tail(gaps) if gaps else ()), *triple))
                cur = self.candidate
                if same and cur is not None and len(cur.unit) == len(unit) and unit in cur.unit + "\n" + cur.unit:
                    continue
                self.third = occ[-quotes + 2]
                self.candidate = Fire(
                    at=base + len(piece) - 1,
                    reason="stream.recheck",
                    unit=unit,
                    period=None,
                    loop_start=occ[-quotes],
                    cut_offset=occ[-quotes + 1],
                    copies=len(occ),
                )
        self._pend = rest[:_MAX_LINE]
        self._pend_start = start
        return None

    def _gaps(self, occ: list[int]) -> list[list[str]] | None:
        """The non-blank lines after each occurrence's three lines and before the next (the
        occurrences at the absolute offsets ``occ``); None when they are not all among the last
        ``_HISTORY`` lines or a gap is empty."""
        hist = self._history
        if not hist or hist[0][1] >= occ[0]:
            return None
        gaps: list[list[str]] = []
        for lo, hi in zip(occ, occ[1:], strict=False):
            lines = [key for key, at in hist if lo < at < hi][2:]  # past the occurrence's 2nd and 3rd lines
            if not lines:
                return None
            gaps.append(lines)
        return gaps

    def _revised(self, occ: list[int]) -> bool:
        """Whether a passage quoted inside code blocks (its occurrences at the absolute offsets
        ``occ``) is code at work, not a passage re-checked: the blocks that hold its occurrences
        -- the non-blank lines from the fence that opens each to the fence that closes it --
        differ, or one block holds two of them.

        A model rewriting a function quotes its opening lines, or a branch it keeps, in each new
        version (a revision is progress); code that writes several files or cases repeats its
        own structure inside one block. A model re-checking a passage quotes the same block
        again, each time after its commentary. Measured on the 7,901 real model responses of
        ``scripts/stream_false_alarms.py --semantic``: the passages that fired there were lines
        kept in versions of a function written anew, and the fields of migrations written one
        after the other in one script. The blocks that are closed are compared (the last
        occurrence's may still be open). False when an occurrence is not inside a block opened
        among the last ``_HISTORY`` lines (the rule does not apply)."""
        hist = list(self._history)
        fences = [k for k, (line, _) in enumerate(hist) if line.startswith("```")]
        opened: list[int] = []
        blocks = []
        for at in occ:
            before = [k for k in fences if hist[k][1] < at]
            after = [k for k in fences if hist[k][1] > at]
            if not before:
                return False
            opened.append(before[-1])
            if after:  # a block still open (the last occurrence's, being written) is not compared
                blocks.append(tuple(line for line, _ in hist[before[-1] + 1 : after[0]]))
        return len(set(opened)) < len(opened) or any(block != blocks[0] for block in blocks)

    @staticmethod
    def _enumerates(gaps: list[list[str]] | None) -> bool:
        """Whether the ``gaps`` between a passage's occurrences (:meth:`_gaps`) fill one template
        with a new item each time: a verse before each refrain, a letter's greeting naming its
        own addressee before its body.

        The gaps must hold the same number of lines and of tokens (words and punctuation
        marks), differ at no more positions than twice their lines, and hold a different token in
        each gap at one position at least: one template, each copy naming its own item (the
        item's other fields -- a title, a unit's floor -- may repeat: ``Ms.`` / ``Mr.``). The
        commentary of a re-check loop restates itself in shuffled wording (its tokens do not
        align) or verbatim (no position differs); a loop on a counter is the drift detector's.
        False for None.
        """
        if not gaps:
            return False
        n = len(gaps[0])
        if any(len(g) != n for g in gaps):
            return False
        tokens = [_TOKENS.findall("\n".join(g)) for g in gaps]
        if any(len(t) != len(tokens[0]) for t in tokens):
            return False
        slots = [i for i in range(len(tokens[0])) if len({t[i] for t in tokens}) > 1]
        if not slots or len(slots) > 2 * n:
            return False
        return any(len({t[i] for t in tokens}) == len(tokens) for i in slots)

    def _templated(self, key: str, at: int, end: int) -> None:
        """Count a line of ``_MIN_PASSAGE`` characters or more among the lines alike it.

        Lines whose word sets (lower case, digit runs read as ``0``) have a Jaccard similarity of
        at least ``drift_similarity`` with an earlier line's are the same templated line: the
        opening of a re-check said again with a word changed ("Actually, I realize I should
        ..." / "Actually, I think I should ..."), so a loop whose re-checks alternate between
        two states counts every re-check. ``recheck_quotes`` of them make a candidate, as a
        passage quoted that often does, when they say at most half as many variants again (a
        loop says the same few; an enumeration -- "row 3 matches", "row 4 matches" -- a new
        one each time, and never counts); lines of fewer than ``_MIN_WORDS`` words are not
        judged. The reasoning channel only: on the content channel log lines and requested
        lines are alike too.
        """
        words = frozenset(_WORDS.findall(_DIGITS.sub("0", key.lower())))
        if len(words) < _MIN_WORDS:
            return
        sim = self.config.drift_similarity
        alike = self._alike
        for entry in reversed(alike):
            ws, line, occ = entry
            if len(ws & words) >= sim * len(ws | words):
                occ.append((at, key))
                quotes = self.config.recheck_quotes
                if len(occ) > quotes:
                    del occ[0]
                if len(occ) >= quotes and 2 * len({text for _, text in occ}) <= quotes:
                    self.third = occ[-quotes + 2][0]
                    self.candidate = Fire(
                        at=end,
                        reason="stream.recheck",
                        unit=line,
                        period=None,
                        loop_start=occ[-quotes][0],
                        cut_offset=occ[-quotes + 1][0],
                        copies=len(occ),
                    )
                return
        alike.append((words, key, [(at, key)]))
        if len(alike) > _MAX_ALIKE:
            del alike[0]
