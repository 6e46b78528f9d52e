"""``stream.stutter``: words doubled in place and tokens repeated inside a word.

A stuttering stream is not periodic as a whole -- it moves on -- but nearly every word is said
twice or more: ``"The The The The cat cat cat cat"`` (a client that duplicates every delta),
``"thethethe"``, ``"HelloHelloHelloHello worldworldworldworld"``. A block *stutters* when at
least a third of its tokens repeat the token just before them (tokens with a letter: ``| yes |
yes |`` table cells are not doubled, the bar separates; ``0 0 0`` is a matrix, not a stutter; nor
is a hexadecimal number with a letter, ``aa55 aa55``, a hex dump's repeated byte groups), or when
its longest token is a shorter token repeated (the primitive-root test: ``w``
occurs in ``(w + w)[1:-1]``; the root holds a letter, and at most half the block's tokens are
numbers: in a row of data -- a hex dump's offset and byte groups -- a periodic token is the
data's pattern). The detector fires when
``stutter_blocks`` consecutive blocks stutter (256 characters by default): prose doubles a word
in well under 1 % of its words ("that that", "had had"), a laugh ("ha ha ha ha") fills one
block, not four.

Work per judged block: one ``set`` of the tokens (and, when a third of them could repeat, one
``map(operator.eq)`` over their pairs) and one ``max(key=len)`` (C), and a Python pass only over
the doubled tokens. While no run is alive, only every ``stutter_blocks``-th block (counting the
blocks that hold a token) is judged as it arrives: any ``stutter_blocks`` consecutive blocks hold
one such block, so a run long enough to fire holds one; when it stutters, the blocks deferred
since the last judged one (fewer than ``stutter_blocks``) are judged then, the latest first, and
the run is what judging every block would have made it.
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
#: A number, decimal or hexadecimal, holding a digit ("00000040:", "4142", "0x1f,"): a block most
#: of whose tokens are numbers is a row of data, and a periodic token in it (a hex dump's ASCII
#: column of a repeated byte pattern) is the data's pattern, not a glued word.
_NUMERAL = re.compile(r"(?:0x)?[0-9a-f]*\d[0-9a-f]*[:.,]?")
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
        self._index = 0  # blocks holding a token so far
        #: Blocks not yet judged since the last judged one, while no run is alive: (tokens, whether
        #: the first repeats the last token before them, block start); fewer than stutter_blocks.
        self._deferred: list[tuple[list[str], bool, int]] = []

    def reset(self) -> None:
        """Forget the stream."""
        self._reset()

    def update(self, b: Block) -> Fire | None:
        """Judge the block; fire when the recent blocks stutter.

        While no run is alive, a block is judged only when its index among the blocks holding a
        token is a multiple of ``stutter_blocks``; the others are deferred. A fire needs
        ``stutter_blocks`` consecutive stuttering blocks, and any that many consecutive blocks
        hold exactly one such block: while it has not stuttered, no run that may fire is alive,
        and when it stutters the deferred blocks before it are judged (the latest first, up to
        the first that does not stutter), which rebuilds the run judging every block makes.
        """
        toks = b.tokens
        if not toks:
            return None
        first = toks[0] == self._last
        self._last = toks[-1]
        index = self._index
        self._index = index + 1
        run = self._run
        if not run and index % self.config.stutter_blocks:
            self._deferred.append((toks, first, b.end - len(b.piece)))
            return None
        example = _example(toks, first)
        if not example:
            run.clear()
            self._deferred.clear()
            return None
        if self._deferred:  # no run was alive: the deferred blocks just before this one may begin it
            lead = []
            for dtoks, dfirst, dstart in reversed(self._deferred):
                ex = _example(dtoks, dfirst)
                if not ex:
                    break
                lead.append((dstart, ex))
            lead.reverse()
            run.extend(lead)
            self._deferred.clear()
        cfg = self.config
        run.append((b.end - len(b.piece), example))
        if len(run) < cfg.stutter_blocks or b.end < cfg.min_chars:
            return None
        counts = Counter([ex for _, ex in run])
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


def _example(toks: list[str], first: bool) -> str:
    """The block's stutter example (a doubled token, or its longest token when a shorter one
    repeated), or "" when the block does not stutter; ``first``: whether ``toks[0]`` repeats the
    last token before the block."""
    example = ""
    # Tokens equal to the one before them are at most the tokens that are not distinct: when
    # even those fall short of a third, no pass over the pairs is needed (one C-level set).
    if 3 * (len(toks) - len(set(toks)) + first) >= len(toks) and 3 * (sum(map(eq, toks[1:], toks)) + first) >= len(toks):
        doubled = [t for t, p in zip(toks[1:], toks, strict=False) if t == p and _LETTER.search(t) and not _NUMERAL.fullmatch(t)]
        if doubled and 3 * len(doubled) >= len(toks) - 1:
            example = doubled[-1]
    if not example:
        w = max(toks, key=len)
        if len(w) >= 6 and w in (w + w)[1:-1] and _LETTER.search(w) and 2 * sum(map(bool, map(_NUMERAL.fullmatch, toks))) <= len(toks):
            example = w
    return example
