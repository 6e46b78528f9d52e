r"""Copies compared after folding: a unit repeated with varying whitespace and padding.

A chant rarely repeats byte for byte: the spaces between copies wander, a bracket or a quote
is opened here and not there, a comma becomes a full stop (``"[yes, sir] (yes, sir)  yes,
sir."``). The raw period detector (:mod:`~plateau.stream.period`) sees no period; a reader
sees the same two words again and again.

This detector keeps a *folded* copy of the stream's recent text: the ASCII brackets, quotes,
sentence punctuation and ``*`` deleted (other operators kept) (``"(yes,"`` -> ``"yes"``; ``os.path`` -> ``ospath``), every
run of whitespace one space, a hyphen a space (``"a- a-a-a a"`` is four copies of ``a``).
CJK and fullwidth punctuation (``，。、「」（）`` ...) reads as a space:
in text written without spaces between words it is what separates them (``"人民法院，人民法院
人民法院"`` folds to three copies of ``人民法院``), and the span is counted in columns, a wide
character filling two (:func:`~plateau.stream.text.content_length`). Case is kept: a capital marks a sentence start, and a refrain
whose lines begin ``And ...`` / ``and ...`` is two lines, not two copies. At the end of every
block it looks for the folded text's shortest period ending there, as the raw detector does
for short periods (the last 8 folded characters are an anchor -- a short unit shows after
two copies --, its nearest earlier occurrences less than ``copy_unit`` folded characters back
propose periods, galloping slice comparisons measure the run; one folded copy is no
repetition) and applies the rule for short units: a unit shorter than ``copy_unit`` folded
characters fires once its raw copies -- from the first copy's opening bracket, found in the
raw tail by a pattern of the unit's tokens with any padding between them -- cover
``span_floor`` (96) characters, a run of whitespace counted as at most four (one
indentation step: a longer run is indentation or alignment, not content; padding is content:
the reader sees it), and hold ``min_copies`` folded copies. A span not yet
complete is armed at the offset where it can first be (:class:`~plateau.stream.result.Armed`)
and confirmed on the chunk that brings it by folding the raw span once (re-armed further on
when runs of whitespace left it short). Only
short units with a word are judged here (a token of two letters or more), and a single letter
chanted on one line (a column or grid of one letter is layout): numbers and
layout -- table cells, rows of zeros, dividers -- are left to the raw detector's structural
rule; longer units to the raw detector (exact copies) and the drift detector (copies whose
spacing, case or words drift), because folding whitespace also folds indentation, and an
indented tree or a call whose arguments are all ``None`` repeats its folded lines
legitimately.

The fire names one raw copy of the unit: the first of the chain of adjacent raw copies.

Work per block, all in C: one ``encode``, one ``bytes.translate`` that deletes the padding,
one ``split`` and one ``join``, up to four ``rfind`` over 31 bytes and, for a candidate, slice
comparisons; memory: at most 512 folded bytes.
"""

from __future__ import annotations

import re

from plateau.stream.block import Block
from plateau.stream.config import StreamGuardConfig
from plateau.stream.result import Armed, Fire
from plateau.stream.text import anchor_periods, cap_whitespace, count_words, match_back, wide_count

__all__ = ["PADDING", "FoldDetector", "fold"]

#: ASCII characters deleted by the fold: brackets, quotes, sentence punctuation and the
#: markdown emphasis ``*``. Operators (``<``, ``>``, ``=``, ``+``, ``/``, ``|``, ``&``; ``-`` reads as a space)
#: stay: deleted, they would make ``a < b`` and ``a > b`` the same line.
PADDING = "()[]{}\"'`.,;:!?*"
_PAD = PADDING.encode()
_HYPHEN = bytes.maketrans(b"-", b" ")  # a hyphen between the copies of a chant separates them as a space does
_TRIES = 4
_ANCHOR = 8  # folded bytes of the anchor: found once the folded run covers the unit and 8 bytes
_NEAR = 256  # folded bytes kept (256 to 512): more than span_floor plus a unit and the anchor
_MAX_PEND = 48  # bytes of an unfinished token kept
#: Fullwidth and CJK punctuation (commas, stops, colons, brackets, quotes): in text written
#: without spaces between words it is what separates them, so the fold reads it as a space.
WIDE_PADDING = (
    "\uff0c\u3002\u3001\uff1b\uff1a\uff01\uff1f"  # ，。、；：！？
    "\u300c\u300d\u300e\u300f\uff08\uff09\u3010\u3011\u300a\u300b\u3008\u3009"  # 「」『』（）【】《》〈〉
    "\u201c\u201d\u2018\u2019"  # curly quotes
)
#: Emoji and pictographs (Miscellaneous Symbols, Dingbats, U+1F300-U+1FAFF), with the variation
#: selector and the zero-width joiner that build their sequences: decoration between a chant's
#: copies ("so good 🎉 so good ✨"), which the fold reads as a space as it does CJK punctuation.
_EMOJI_SPANS = ((0x2600, 0x27BF), (0x1F300, 0x1FAFF), (0xFE0F, 0xFE0F), (0x200D, 0x200D))
EMOJI = "".join(f"{chr(lo)}-{chr(hi)}" if hi > lo else chr(lo) for lo, hi in _EMOJI_SPANS)
_WIDE = str.maketrans(
    dict.fromkeys(WIDE_PADDING, " ") | dict.fromkeys([chr(c) for lo, hi in _EMOJI_SPANS for c in range(lo, hi + 1)], " ")
)
_PADC = "[" + re.escape(PADDING) + "]*"
_SEP = "[-\\s" + WIDE_PADDING + EMOJI + "]"  # a separator between tokens: whitespace, a hyphen, CJK punctuation, an emoji
#: What may follow a copy before the next one begins: padding and separators in any order
#: (``(go on) ( (go on)``, ``yes!] [yes``), all of which the fold drops.
_TRAIL = "[" + re.escape(PADDING) + "\\-\\s" + WIDE_PADDING + EMOJI + "]*"
#: Between two tokens of one copy: their padding, a separator, then padding and separators.
_BETWEEN = _PADC + _SEP + _TRAIL


def _content(raw: str) -> int:
    """Columns of ``raw`` with every run of whitespace counted as at most
    :data:`~plateau.stream.text.WHITESPACE_RUN` (4) (a wide character counts two)."""
    return len(cap_whitespace(raw)) + wide_count(raw)


def _bytes(text: str) -> bytes:
    """``text`` encoded, CJK punctuation and emoji read as spaces, ASCII padding deleted (not yet split)."""
    if not text.isascii():
        text = text.translate(_WIDE)
    return text.encode().translate(_HYPHEN, _PAD)


def _letter_token(unit: str) -> bool:
    """Whether a folded unit is one letter (``"a "``): a chant of it is judged on one line only."""
    toks = unit.split()
    return len(toks) == 1 and len(toks[0]) == 1 and toks[0].isalpha()


def fold(text: str) -> str:
    """``text`` folded: padding deleted, whitespace runs one space (no leading or trailing space)."""
    return b" ".join(_bytes(text).split()).decode("utf-8", "ignore")


class FoldDetector:
    """Periodic repetition of the folded text.

    Parameters
    ----------
    config
        The guard's hyper-parameters (``kgram``, ``copy_unit``, ``unit_copies``, ``span_floor``,
        copies budget, ``min_chars``).

    Examples
    --------
    >>> from plateau.stream import StreamGuard
    >>> chant = "".join(["(on my way) ", "[on my way,]  ", "on my way!\\n", "on my way; "] * 12)
    >>> guard = StreamGuard()
    >>> res = [guard.feed(c) for c in ["Sure thing. "] + list(chant)]
    >>> res[-1].reason, res[-1].fired_at_chunk  # the 96th character of the chant: 96 of content
    ('stream.period', 96)
    """

    def __init__(self, config: StreamGuardConfig) -> None:
        self.config = config
        self._reset()

    def _reset(self) -> None:
        self._near = b""  # the last _NEAR to 2 * _NEAR folded bytes
        self._pend = b""

    def reset(self) -> None:
        """Forget the stream."""
        self._reset()

    @property
    def size(self) -> int:
        """Folded bytes held."""
        return len(self._near) + len(self._pend)

    def update(self, b: Block) -> Fire | None:
        """Append the block's folded text; fire on a folded repetition ending here."""
        piece = b.piece
        data = self._pend + (piece if piece.isascii() else piece.translate(_WIDE)).encode().translate(_HYPHEN, _PAD)
        parts = data.split()
        if parts and not data[-1:].isspace():
            self._pend = parts.pop()[:_MAX_PEND]
        else:
            self._pend = b""
        if not parts:
            return None
        parts.append(b"")
        s = self._near + b" ".join(parts)
        if len(s) > 2 * _NEAR:
            s = s[len(s) - _NEAR :]
        self._near = s
        cfg = self.config
        k = _ANCHOR
        j = len(s) - k
        if j <= 0:
            return None
        # each earlier occurrence of the anchor proposes a longer period (the common case: none)
        for p in anchor_periods(s, j, max(0, j - cfg.copy_unit + 1), j + k - 1, _TRIES):
            fire = self._check(b, s, p)
            if fire is not None:
                return fire
        return None

    def _check(self, b: Block, s: bytes, p: int) -> Fire | None:
        cfg = self.config
        x = len(s) - 1
        run = match_back(s, x, p, 0, x + 1)
        unit = s[x - p + 1 :]
        d = (unit + unit).find(unit, 1)
        if d < p and p % d == 0:
            run = match_back(s, x, d, run + p - d, x + 1)
        else:
            d = p
        if d >= cfg.copy_unit or run < d:  # longer folded units: the raw, drift and novelty detectors; one copy is no repetition
            return None
        # The unit in the phase where the folded run begins, rotated to start at a token.
        first = x - run - d + 1
        unit = s[first : first + d]
        sp = unit.find(b" ")
        if 0 <= sp < d - 1:
            unit = unit[sp + 1 :] + unit[: sp + 1]
        text = unit.decode("utf-8", "ignore")
        letter = _letter_token(text)  # one letter said again and again: "a- a-a-a a a"
        if not (count_words(text) or letter) or not text.strip():
            return None
        # The raw copies: the rule is stated on the raw span they cover (a reader's 96 characters).
        chain = self._chain(b.s, text, (run + d) // d + 1)
        if len(chain) < 2 or chain[-1][1] < len(b.s) - 8 * len(text) - 16:  # not the run that ends here
            return None
        s_raw, s0 = b.s, b.s0
        begin = s0 + chain[0][0]
        # The span is counted as the raw text with every run of whitespace at most four
        # characters (indentation is not content; spacing as it stands and padding are): it
        # must reach span_floor.
        raw = s_raw[chain[0][0] :]
        if letter and "\n" in raw:  # a column of one letter is layout (a diagram, a grid)
            return None
        short = cfg.span_floor - _content(raw)
        if short > 0:
            # A character adds at most one column of ASCII text, two of wide text: the earliest
            # offset the span may reach (confirmed there, re-armed further on when still short).
            reach = max(b.end + (short if raw.isascii() else -(-short // 2)) - 1, cfg.min_chars - 1)
            if reach < b.end + cfg.block:
                b.arm(Armed(at=reach, source=self, key=("fold", d, begin), data=(d, begin, text)))
            return None
        if len(chain) < cfg.min_copies:
            return None
        return self._fire(s_raw, s0, b.end - 1, text, begin)

    @staticmethod
    def _chain(s: str, unit: str, copies: int) -> list[tuple[int, int]]:
        """The last run of adjacent raw copies of the folded ``unit`` in ``s`` (start, end indices)."""
        toks = unit.split()
        pattern = re.compile(r"(?<!\w)" + _PADC + _BETWEEN.join(_PADC.join(map(re.escape, t)) for t in toks) + _TRAIL)
        lo = max(0, len(s) - 8 * len(unit) * (copies + 1) - 256)
        chain: list[tuple[int, int]] = []
        for m in pattern.finditer(s, lo):
            if chain and m.start() == chain[-1][1]:
                chain.append((m.start(), m.end()))
            else:
                chain = [(m.start(), m.end())]
        return chain

    def confirm(self, armed: Armed, s: str, s0: int) -> Fire | Armed | None:
        """The armed fire if the raw text from the first copy to ``armed.at`` still folds to copies of
        the unit and covers ``span_floor`` characters of content; re-armed further on when the
        copies hold but whitespace runs left the span short; None when the copies broke."""
        d, begin, text = armed.data
        i, j = begin - s0, armed.at - s0 + 1
        if i < 0 or j > len(s):
            return None
        raw = s[i:j]
        if "\n" in raw and _letter_token(text):
            return None
        f = b" ".join(_bytes(raw).split())
        if len(f) < 2 * d or f[d:] != f[:-d]:
            return None
        short = self.config.span_floor - _content(raw)
        if short > 0:
            step = short if raw.isascii() else -(-short // 2)
            return Armed(at=armed.at + step, source=self, key=armed.key, data=armed.data)
        if len(f) < self.config.min_copies * d - 1:
            return None
        return self._fire(s, s0, j - 1, text, begin)

    @staticmethod
    def _fire(s: str, s0: int, x: int, unit: str, begin: int) -> Fire:
        """One raw copy of the unit: the first of the chain, rotated to a line start when the next copy runs on."""
        toks = unit.split()
        pattern = re.compile(_PADC + _BETWEEN.join(_PADC.join(map(re.escape, t)) for t in toks) + _PADC + _SEP + "*")
        first = begin - s0
        m = pattern.match(s, first)
        cut = m.end() if m is not None and m.end() > first else first + len(unit)
        copies = max(1, (x + 1 - first) // max(1, cut - first))
        # Rotate the copy to start at a line start, when the next copy runs on far enough.
        nl = s.find("\n", first, cut - 1)
        if nl >= 0 and cut + (nl + 1 - first) <= x + 1:
            shift = nl + 1 - first
            first += shift
            cut += shift
        return Fire(
            at=s0 + x,
            reason="stream.period",
            unit=s[first:cut],
            period=cut - first,
            loop_start=s0 + first,
            cut_offset=s0 + cut,
            copies=copies,
        )
