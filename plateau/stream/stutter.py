"""``stream.stutter``: words doubled in place and tokens repeated inside a word.

A stuttering stream is not periodic as a whole -- it moves on -- but nearly every word is said
twice or more: ``"The The The The cat cat cat cat"`` (a client that duplicates every delta),
``"thethethe"``, ``"HelloHelloHelloHello worldworldworldworld"``. A block *stutters* when at
least a third of its tokens repeat the token just before them (tokens with a letter: ``| yes |
yes |`` table cells are not doubled, the bar separates; ``0 0 0`` is a matrix, not a stutter), or when
its longest token is a shorter token repeated (the primitive-root test: ``w``
occurs in ``(w + w)[1:-1]``; the root holds a letter). The detector fires when
``stutter_blocks`` consecutive blocks stutter (256 characters by default): prose doubles a word
in well under 1 % of its words ("that that", "had had"), a laugh ("ha ha ha ha") fills one
block, not four.

Work per block: one ``set`` of the tokens (and, when a third of them could repeat, one
``map(operator.eq)`` over their pairs) and one ``max(key=len)`` (C), and a Python pass only over
the doubled tokens.
"""

from __future__ import annotations

import re
from collections import Counter
from operator import eq

from plateau.stream.block import Block
from plateau.stream.config import StreamGuardConfig
from plateau.stream.result import Fire

__all__ = ["StutterDetector"]

_LETTER = re.compile(r"[^\W\d_]")
_MIN_BLOCKS = 3


class StutterDetector:
    """Consecutive stuttering blocks.

    Parameters
    ----------
    config
        The guard's hyper-parameters (``stutter_blocks``, ``min_chars``).

    Examples
    --------
    >>> from plateau.stream import StreamGuard
    >>> words = ("we will read the config file first and then fix the broken parser so that every quoted comma "
    ...          "inside a field is kept while the header row stays as the user wrote it").split()
    >>> text = "Sure, here is the plan. " + "".join(w * 4 + " " for w in words)
    >>> guard = StreamGuard()
    >>> res = [guard.feed(text[i : i + 7]) for i in range(0, len(text), 7)]
    >>> res[-1].reason, res[-1].unit
    ('stream.stutter', 'willwillwillwill')
    """

    def __init__(self, config: StreamGuardConfig) -> None:
        self.config = config
        self._reset()

    def _reset(self) -> None:
        self._last = ""
        self._run: list[tuple[int, str]] = []  # (block start, example) of the consecutive stuttering blocks

    def reset(self) -> None:
        """Forget the stream."""
        self._reset()

    def update(self, b: Block) -> Fire | None:
        """Judge the block; fire when the recent blocks stutter."""
        toks = b.tokens
        if not toks:
            return None
        example = ""
        first = toks[0] == self._last
        self._last = toks[-1]
        # Tokens equal to the one before them are at most the tokens that are not distinct: when
        # even those fall short of a third, no pass over the pairs is needed (one C-level set).
        if 3 * (len(toks) - len(set(toks)) + first) >= len(toks) and 3 * (sum(map(eq, toks[1:], toks)) + first) >= len(toks):
            doubled = [t for t, p in zip(toks[1:], toks, strict=False) if t == p and _LETTER.search(t)]
            if doubled and 3 * len(doubled) >= len(toks) - 1:
                example = doubled[-1]
        if not example:
            w = max(toks, key=len)
            if len(w) >= 6 and w in (w + w)[1:-1] and _LETTER.search(w):
                example = w
        if not example:
            self._run.clear()
            return None
        cfg = self.config
        run = self._run
        run.append((b.end - len(b.piece), example))
        if len(run) < cfg.stutter_blocks or b.end < cfg.min_chars:
            return None
        counts = Counter(ex for _, ex in run)
        start = run[0][0]
        return Fire(
            at=b.end - 1,
            reason="stream.stutter",
            unit=counts.most_common(1)[0][0],
            period=None,
            loop_start=start,
            cut_offset=start,
            copies=len(run),
        )
