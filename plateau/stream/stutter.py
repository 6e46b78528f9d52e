"""``stream.stutter``: words doubled in place and tokens repeated inside a word.

A stuttering stream is not periodic as a whole -- it moves on -- but nearly every word is said
twice or more: ``"The The The The cat cat cat cat"`` (a client that duplicates every delta),
``"thethethe"``, ``"HelloHelloHelloHello worldworldworldworld"``. A block *stutters* when at
least a third of its tokens repeat the token just before them (letters only: ``| yes | yes |``
table cells are not doubled, the bar separates; ``0 0 0`` is a matrix, not a stutter), or when
its longest token is a shorter token repeated (the primitive-root test: ``w`` occurs in
``(w + w)[1:-1]``). The detector fires when at least ``stutter_fraction`` of the blocks that
hold the last ``stutter_window`` tokens stutter (and at least three do). While no block of the
window stutters the window is kept empty (nothing to remember), so a calm stream costs one
comparison per block here.

Work per block: one ``map(str.__eq__)`` over the tokens and one ``max(key=len)`` (C), and a
Python pass only over the doubled tokens.
"""

from __future__ import annotations

from collections import Counter, deque

from plateau.stream.block import Block
from plateau.stream.config import StreamGuardConfig
from plateau.stream.result import Fire

__all__ = ["StutterDetector"]

_PUNCT = ".,;:!?\"'()[]*"
_MIN_BLOCKS = 3


class StutterDetector:
    """Share of stuttering blocks among the blocks of the last ``stutter_window`` tokens.

    Parameters
    ----------
    config
        The guard's hyper-parameters (``stutter_window``, ``stutter_fraction``, ``min_chars``).

    Examples
    --------
    >>> from plateau.stream import StreamGuard
    >>> words = ("we will read the config file first and then fix the broken parser so that every quoted comma "
    ...          "inside a field is kept while the header row stays as the user wrote it").split()
    >>> text = "Sure, here is the plan. " + "".join(w * 4 + " " for w in words)
    >>> guard = StreamGuard()
    >>> res = [guard.feed(text[i : i + 7]) for i in range(0, len(text), 7)]
    >>> res[-1].reason, res[-1].unit
    ('stream.stutter', 'parserparserparserparser')
    """

    def __init__(self, config: StreamGuardConfig) -> None:
        self.config = config
        self._reset()

    def _reset(self) -> None:
        self._last = ""
        self._win: deque[tuple[int, bool, int, str]] = deque()  # (tokens, stutters, block start, example)
        self._tokens = 0
        self._hits = 0

    def reset(self) -> None:
        """Forget the stream."""
        self._reset()

    def update(self, b: Block) -> Fire | None:
        """Judge the block; fire when the recent blocks stutter."""
        cfg = self.config
        toks = b.tokens
        if not toks:
            return None
        example = ""
        dups = sum(map(str.__eq__, toks[1:], toks)) + (toks[0] == self._last)
        self._last = toks[-1]
        if 3 * dups >= len(toks):
            doubled = [t for t, p in zip(toks[1:], toks, strict=False) if t == p and t.isalpha()]
            if doubled and 3 * len(doubled) >= len(toks) - 1:
                example = doubled[-1]
        if not example:
            w = max(toks, key=len).strip(_PUNCT)
            if len(w) >= 6 and w in (w + w)[1:-1] and w.isalpha():
                example = w
        win = self._win
        stutters = bool(example)
        if not stutters and not self._hits:  # nothing to remember: the window starts at the next stutter
            if win:
                win.clear()
                self._tokens = 0
            return None
        win.append((len(toks), stutters, b.end - len(b.piece), example))
        self._tokens += len(toks)
        self._hits += stutters
        while self._tokens - win[0][0] >= cfg.stutter_window:
            n, h, _, _ = win.popleft()
            self._tokens -= n
            self._hits -= h
        if (
            not stutters
            or self._tokens < cfg.stutter_window
            or self._hits < _MIN_BLOCKS
            or self._hits < cfg.stutter_fraction * len(win)
            or b.end < cfg.min_chars
        ):
            return None
        counts = Counter(ex for _, h, _, ex in win if h)
        start = next(st for _, h, st, _ in win if h)
        return Fire(
            at=b.end - 1,
            reason="stream.stutter",
            unit=counts.most_common(1)[0][0],
            period=None,
            loop_start=start,
            cut_offset=start,
            copies=self._hits,
        )
