"""One analysed block of a stream: the tail it extends and the words it completes.

The guard cuts the stream into blocks aligned on multiples of ``config.block`` characters from
its start (whatever the chunking) and hands each detector a :class:`Block`. Building one costs
a few C-level passes (one slice, one ``lower``, one ``split``, one ``zip``) and is shared by the detectors.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["Block", "Partial", "Splitter", "Tail"]

_MAX_WORD = 48  # characters of a pending word kept


class Tail:
    """The last characters of the stream, bounded, joined only when a detector asks.

    Every block is appended to a list; :meth:`text` joins the list onto the kept text (and trims
    it back to ``keep`` characters once it exceeds ``keep + slack``) only when called -- on the
    rare path where a detector verifies a candidate -- or when the list holds ``slack``
    characters. :attr:`near`, the last ``NEAR`` to ``2 * NEAR`` characters, is kept up to date
    on every block (one concatenation; trimmed back to ``NEAR`` when it doubles).

    Parameters
    ----------
    keep
        Characters kept after a trim (int >= 1).
    slack
        The tail is trimmed back to ``keep`` once it exceeds ``keep + slack`` (int >= 0), so
        that trimming costs O(1) amortised per character.
    """

    NEAR: ClassVar[int] = 512

    __slots__ = ("_parts", "_plen", "_start", "_text", "end", "keep", "near", "slack")

    def __init__(self, keep: int, slack: int) -> None:
        self.keep = keep
        self.slack = slack
        self._text = ""
        self._start = 0
        self._parts: list[str] = []
        self._plen = 0
        self.near = ""
        self.end = 0

    def push(self, piece: str) -> None:
        """Append ``piece`` (the next block)."""
        self.end += len(piece)
        near = self.near + piece
        self.near = near[len(near) - self.NEAR :] if len(near) > 2 * self.NEAR else near
        self._parts.append(piece)
        self._plen += len(piece)
        if self._plen >= self.slack:
            self.text()

    def text(self) -> tuple[str, int]:
        """The kept text and the absolute offset of its first character."""
        if self._parts:
            s = self._text + "".join(self._parts)
            self._parts = []
            self._plen = 0
            if len(s) > self.keep + self.slack:
                cut = len(s) - self.keep
                s = s[cut:]
                self._start += cut
            self._text = s
        return self._text, self._start

    @property
    def size(self) -> int:
        """Characters held (kept text, pending parts and :attr:`near`)."""
        return len(self._text) + self._plen + len(self.near)


class Block:
    """The text of one block and what the detectors share about it.

    Attributes
    ----------
    piece : str
        The block's text.
    near : str
        The last :attr:`Tail.NEAR` (or up to twice as many) characters of the stream up to the end of this block (this
        block included); ``near0`` is the absolute offset of ``near[0]`` and ``nlo`` the index
        in ``near`` where the block begins.
    end : int
        Absolute offset just past the block.
    s, s0, lo
        The whole kept tail up to the end of this block, its absolute start, and where the
        block begins in it (joined on first access: for verification, not the common path).
    tokens : list of str
        The whitespace-separated tokens completed by this block, lower-cased (a token cut by
        the block's end is completed by the next block and counted there; punctuation stays
        attached).
    first : int
        Index, in the stream's token sequence, of ``tokens[0]``.
    grams : list of tuple of str
        The token n-grams (``n = config.novelty_ngram``) ending in this block; ``grams[i]``
        starts at token index ``gram_first + i``.
    gram_first : int
        Token index where ``grams[0]`` starts.
    seen : int
        n-grams of the block seen before in the novelty lookback (set by the novelty detector).
    armed : list of Armed or None
        Fires the detectors predicted for offsets past this block (:meth:`arm`); None when none.
    final : bool
        The stream has ended with this block (:meth:`Splitter.close`): its last token is complete.
    """

    __slots__ = ("_s", "_tail", "armed", "end", "final", "first", "gram_first", "grams", "near", "near0", "nlo", "piece", "seen", "tokens")

    def __init__(self, tail: Tail, piece: str, tokens: list[str], first: int, grams: list[tuple[str, ...]], gram_first: int) -> None:
        self._tail = tail
        self._s: tuple[str, int] | None = None
        self.piece = piece
        self.near = near = tail.near
        self.end = end = tail.end
        self.near0 = end - len(near)
        self.nlo = len(near) - len(piece)
        self.tokens = tokens
        self.first = first
        self.grams = grams
        self.gram_first = gram_first
        self.seen = 0
        self.armed: list[Any] | None = None
        self.final = False

    def arm(self, armed: Any) -> None:
        """Predict a fire due past this block (an :class:`~plateau.stream.result.Armed`)."""
        if self.armed is None:
            self.armed = [armed]
        else:
            self.armed.append(armed)

    def _joined(self) -> tuple[str, int]:
        if self._s is None:
            self._s = self._tail.text()
        return self._s

    @property
    def s(self) -> str:
        """The kept tail up to the end of this block."""
        return self._joined()[0]

    @property
    def s0(self) -> int:
        """Absolute offset of ``s[0]``."""
        return self._joined()[1]

    @property
    def lo(self) -> int:
        """Index in ``s`` where this block begins."""
        return len(self._joined()[0]) - len(self.piece)


class Partial:
    """The text past the last block up to the last chunk, shaped as much like a :class:`Block` as
    an armed detector's ``confirm`` reads: ``s`` (the kept tail and the pending text), its
    absolute start ``s0`` and ``end``, and ``near`` / ``near0`` / ``nlo`` as in :class:`Block`
    (``nlo``: where the text not yet read, from absolute offset ``seen``, begins in ``near``)."""

    __slots__ = ("end", "near", "near0", "nlo", "s", "s0")

    def __init__(self, s: str, s0: int, seen: int) -> None:
        self.s = s
        self.s0 = s0
        self.end = s0 + len(s)
        k = max(0, len(s) - 2 * Tail.NEAR)
        self.near = s[k:]
        self.near0 = s0 + k
        self.nlo = min(len(self.near), max(0, seen - self.near0))


class Splitter:
    """Turns consecutive block texts into :class:`Block` objects, carrying a token cut at a block's end."""

    __slots__ = ("_count", "_final", "_n", "_pend", "_prev")

    def __init__(self, n: int = 4) -> None:
        self._pend = ""
        self._final = False
        self._count = 0
        self._n = n
        self._prev: list[str] = []

    @property
    def pending(self) -> bool:
        """Whether a token cut by the last block's end is held back (completed by the next block)."""
        return bool(self._pend)

    def close(self) -> None:
        """The stream has ended: the next block is the last, and its last token is complete."""
        self._final = True

    def block(self, tail: Tail, piece: str) -> Block:
        """The :class:`Block` for ``piece``, just pushed onto ``tail``."""
        text = self._pend + piece.lower()
        tokens = text.split()
        if tokens and not text[-1].isspace() and not self._final:
            self._pend = tokens.pop()[:_MAX_WORD]
        else:
            self._pend = ""
        first = self._count
        self._count = first + len(tokens)
        n = self._n
        words = self._prev + tokens
        if n == 1:
            grams: list[tuple[str, ...]] = [(w,) for w in words]
        elif n == 4:
            grams = list(zip(words, words[1:], words[2:], words[3:]))  # noqa: B905 (the shortest slice ends it; strict=False costs a keyword call)
        elif len(words) >= n:
            grams = list(zip(*[words[i:] for i in range(n)], strict=False))
        else:
            grams = []
        gram_first = first - len(self._prev)
        self._prev = words[len(words) - n + 1 :] if n > 1 else []
        b = Block(tail, piece, tokens, first, grams, gram_first)
        b.final = self._final
        return b
