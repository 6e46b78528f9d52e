"""``stream.low_novelty``: near-periodic loops whose small parts vary (templated reasoning).

Tokens (whitespace-separated, lower-cased) form n-grams. An n-gram is *recycled* when it occurred at
least ``novelty_min_repeats`` times among the previous n-grams: the current and the previous
*generation* of ``novelty_lookback / 2`` n-grams each (a sliding lookback of between half and
all of ``novelty_lookback`` n-grams that costs nothing to slide: when the current generation
is full it becomes the previous one). The
detector fires when the fresh share of the recent n-grams is at most ``novelty_max_fresh`` and
the recent text reads as prose: at least ``novelty_min_prose`` of its n-grams come from blocks
of prose (letters, spaces, sentence
punctuation; at most four characters of code or digits in a block). This is the distinct-n-gram
novelty measure used against templated reasoning loops (PrimeIntellect-ai/prime-agent PR #1099:
"KMP smallest-period on the tail plus distinct-trigram novelty"; the DeepSeek report cited in
the benchmark measured word 8-grams 2-4 % unique in a loop). Requiring two earlier occurrences,
not one, lets a single duplicated block through (code shown before and after an edit, a quoted
paragraph): a loop recycles its phrases again and again.

"Recent" is an exponentially weighted window: each n-gram's weight decays by ``1 - 1 /
novelty_window`` per later n-gram (a window of about ``novelty_window`` n-grams that slides at
the cost of three multiplications per block); no verdict before ``novelty_window`` n-grams.

Every step runs in bulk, per block: the n-grams are ``zip`` of the token list (shared with the
drift detector), their earlier counts one ``map(dict.get)`` over a dict holding both generations'
counts (rebuilt as a copy of the current generation when it becomes the previous one), the count
updates the C helper of ``Counter.update`` -- no Python loop per token.
"""

from __future__ import annotations

import re
from collections import deque
from functools import lru_cache
from itertools import repeat
from typing import Any

try:  # the C helper behind Counter.update (CPython); the pure-Python fallback does the same
    from collections import _count_elements  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover

    def _count_elements(mapping: dict[Any, int], iterable: Any) -> None:
        get = mapping.get
        for elem in iterable:
            mapping[elem] = get(elem, 0) + 1


from plateau.stream.block import Block
from plateau.stream.config import StreamGuardConfig
from plateau.stream.result import Fire

__all__ = ["NoveltyDetector"]

#: Characters that make a block code or data rather than prose (digits included).
_NON_PROSE = b"0123456789=<>{}[]/\\|#@$%^&+~`_"
_MAX_NON_PROSE = 4  # per block of 64 characters; scaled by the block size


class NoveltyDetector:
    """Fresh fraction of word n-grams over a sliding window.

    Parameters
    ----------
    config
        The guard's hyper-parameters (``novelty_*``, ``min_chars``, ``block``).

    Attributes
    ----------
    fresh_fraction : float or None
        Fresh share of the n-grams in the current window; None until the window is full.
    """

    def __init__(self, config: StreamGuardConfig) -> None:
        self.config = config
        self._max_non_prose = max(1, _MAX_NON_PROSE * config.block // 64)
        self._generation = max(1, config.novelty_lookback // 2)
        self._decay = 1.0 - 1.0 / config.novelty_window
        self._powers = _powers(self._decay, 4 * config.block)
        self._recent_blocks = max(2, 6 * config.novelty_window // config.block)
        self._rep = config.novelty_min_repeats
        self._max_fresh = config.novelty_max_fresh
        self._min_prose = config.novelty_min_prose
        self._reset()

    def _reset(self) -> None:
        self._cur: dict[tuple[str, ...], int] = {}  # counts of the current generation
        self._old: dict[tuple[str, ...], int] = {}  # counts of the previous generation
        self._both: dict[tuple[str, ...], int] = {}  # counts of the two generations (one lookup per n-gram)
        self._cur_total = 0
        self._recent: deque[list[tuple[str, ...]]] = deque(maxlen=self._recent_blocks)  # n-grams of the last blocks
        self._seen_grams = 0
        self._sums = [0.0, 0.0, 0.0]  # weighted n-grams, fresh n-grams, prose n-grams
        self.fresh_fraction: float | None = None

    def reset(self) -> None:
        """Forget the stream."""
        self._reset()

    @property
    def size(self) -> int:
        """n-grams counted in the two generations (at most ``novelty_lookback`` plus one block)."""
        return self._cur_total + self._generation

    @property
    def kinds(self) -> int:
        """Distinct n-grams in the two generations."""
        return len(self._cur) + len(self._old)

    def update(self, b: Block) -> Fire | None:
        """Add the block's n-grams; fire when the window's novelty is low and it reads as prose."""
        cfg = self.config
        grams = b.grams
        if not grams:
            return None
        both = self._both
        prev = list(map(both.get, grams, repeat(0)))
        unseen = prev.count(0)
        b.seen = len(prev) - unseen
        # n-grams seen fewer than novelty_min_repeats times (counts are >= 0)
        fresh = unseen + prev.count(1) if self._rep == 2 else sum(map(prev.count, range(self._rep)))
        _count_elements(self._cur, grams)
        _count_elements(both, grams)
        self._cur_total += len(grams)
        if self._cur_total >= self._generation:
            # The previous generation is dropped: the two generations' counts are the current one's.
            self._old = self._cur
            self._both = dict(self._cur)
            self._cur = {}
            self._cur_total = 0
        piece = b.piece
        n = len(grams)
        raw = piece.encode()
        prose = n if len(raw) - len(raw.translate(None, _NON_PROSE)) <= self._max_non_prose else 0
        # Exponentially weighted sums over about the last novelty_window n-grams.
        decay = self._powers[n] if n < len(self._powers) else self._decay**n
        sums = self._sums
        sums[0] = sums[0] * decay + n
        sums[1] = sums[1] * decay + fresh
        sums[2] = sums[2] * decay + prose
        self._recent.append(grams)
        self._seen_grams += n
        if self._seen_grams < cfg.novelty_window:
            return None
        self.fresh_fraction = sums[1] / sums[0]
        if sums[1] <= self._max_fresh * sums[0] and sums[2] >= self._min_prose * sums[0] and b.end >= cfg.min_chars:
            return self._fire(b)
        return None

    def top_gram(self) -> tuple[str, ...]:
        """The most frequent n-gram of the current window (the last blocks of the lookback)."""
        recent: dict[tuple[str, ...], int] = {}
        for grams in self._recent:
            _count_elements(recent, grams)
        return max(recent.items(), key=lambda kv: kv[1])[0]

    def _fire(self, b: Block) -> Fire:
        """The most recycled n-gram of the window dates the loop."""
        top = self.top_gram()
        s = b.s
        pattern = re.compile(r"(?<!\w)" + r"\W+".join(re.escape(w) for w in top) + r"(?!\w)", re.IGNORECASE)
        offs = [m.start() for m in pattern.finditer(s)]
        if not offs:
            at = b.end - 1
            return Fire(at=at, reason="stream.low_novelty", unit=" ".join(top), period=None, loop_start=at, cut_offset=at)
        first = sentence_start(s, offs[0])
        cut = sentence_start(s, offs[1]) if len(offs) > 1 else offs[0] + 1
        if cut <= first:
            first, cut = offs[0], (offs[1] if len(offs) > 1 else offs[0] + 1)
        unit = s[first:cut] if cut - first <= self.config.max_period else " ".join(top)
        return Fire(
            at=b.end - 1,
            reason="stream.low_novelty",
            unit=unit,
            period=None,
            loop_start=b.s0 + first,
            cut_offset=b.s0 + cut,
            copies=len(offs),
        )


@lru_cache(maxsize=16)
def _powers(decay: float, n: int) -> tuple[float, ...]:
    """``decay ** i`` for ``i`` in ``0..n-1`` (shared by the guards of one configuration)."""
    return tuple(decay**i for i in range(n))


def sentence_start(text: str, i: int) -> int:
    """Index of the start of the sentence or line holding index ``i`` of ``text`` (within 300 chars).

    The character after a newline, or after whitespace that follows ``.``, ``!`` or ``?``; 0 at
    the start of ``text``; ``i`` itself when no boundary lies within 300 characters.
    """
    lo = max(0, i - 300)
    j = i
    while j > lo:
        ch = text[j - 1]
        if ch == "\n" or (ch.isspace() and j >= 2 and text[j - 2] in ".!?"):
            return j
        j -= 1
    return 0 if j == 0 else i
