"""``stream.line_dominance``: a few lines dominating the recent lines.

Over a sliding window of the last ``line_window`` *non-trivial* lines (at least
``line_min_words`` words of two letters or more in their first 96 characters; blank lines, dividers, box sides, rows of
numbers and other punctuation-only lines never count), it fires when the window holds at most
``line_max_distinct`` distinct lines (after stripping outer whitespace). The same rule as
hermes-agent's streaming guard (NousResearch/hermes-agent PR #78551, window 48, at most 6
distinct) and mastra's exact-duplicate-line ratio (mastra-ai/mastra PR #22072), with the
thresholds of :class:`~plateau.stream.StreamGuardConfig`.

Work per block: one ``str.find`` per line, one regular-expression count of words per line and a
:class:`collections.Counter` update; memory: ``line_window`` lines of at most 512 characters.
"""

from __future__ import annotations

from collections import Counter, deque

from plateau.stream.block import Block
from plateau.stream.config import StreamGuardConfig
from plateau.stream.result import Fire
from plateau.stream.text import word_count

__all__ = ["LineDetector"]

_MAX_LINE = 512  # characters of a line kept as its key
_WORDS_IN = 96  # words are counted in the first characters of a line only


class LineDetector:
    r"""Line dominance over the last ``line_window`` non-trivial lines.

    Parameters
    ----------
    config
        The guard's hyper-parameters (``line_window``, ``line_min_words``,
        ``line_max_distinct``, ``min_chars``).

    Examples
    --------
    Three lines in random order after twenty distinct ones (the drift detector is turned off and
    the copies rule held to twelve copies here: they notice the recycled wording, or a line
    repeated four times in a row, first):

    >>> import random
    >>> from plateau.stream import StreamGuard, StreamGuardConfig
    >>> rng = random.Random(0)
    >>> lines = [f"line {i} of the report says something new about item {i * 7}\n" for i in range(20)]
    >>> loop = ["- **Texture**: see the texture notes.\n", "- **Tone**: keep it calm.\n", "- **Pace**: slow down first.\n"]
    >>> guard = StreamGuard(config=StreamGuardConfig(drift_copies=64, unit_copies=12))
    >>> res = [guard.feed(c) for c in lines + [rng.choice(loop) for _ in range(60)]]
    >>> res[-1].reason, res[-1].fired_at_chunk
    ('stream.line_dominance', 47)
    """

    def __init__(self, config: StreamGuardConfig, *, track_totals: bool = False) -> None:
        self.config = config
        #: Whether to count every line since the start (for a request that bounds repetition).
        self.track_totals = track_totals
        self._reset()

    def _reset(self) -> None:
        self._pend = ""  # pending line, first _MAX_LINE characters
        self._pend_start = 0
        self._lines: deque[tuple[str, int]] = deque()  # (stripped line, start offset)
        self.counts: Counter[str] = Counter()
        #: Occurrences of each line key since the start (bounded: cleared past 4096 keys) when tracked.
        self.totals: Counter[str] = Counter()

    def reset(self) -> None:
        """Forget the stream."""
        self._reset()

    @property
    def size(self) -> int:
        """Lines in the window."""
        return len(self._lines)

    @property
    def chars(self) -> int:
        """Characters held by the window and the pending line."""
        return sum(len(line) for line, _ in self._lines) + len(self._pend)

    def update(self, b: Block) -> Fire | None:
        """Feed the complete lines of the block to the window."""
        cfg = self.config
        chunk = b.near
        base = b.near0
        start = b.nlo
        limit = len(chunk)
        if "\n" not in b.piece:  # no line ends here: extend the pending line
            if not self._pend:
                self._pend_start = base + start
            if len(self._pend) < _MAX_LINE:
                self._pend = (self._pend + b.piece)[:_MAX_LINE]
            return None
        fire: Fire | None = None
        while True:
            nl = chunk.find("\n", start, limit)
            if nl < 0:
                break
            if self._pend:
                line = (self._pend + chunk[start:nl])[:_MAX_LINE]
                line_start = self._pend_start
                self._pend = ""
            else:
                line = chunk[start : min(nl, start + _MAX_LINE)]
                line_start = base + start
            start = nl + 1
            if fire is not None:
                continue
            key = line.strip()
            if key.count(" ") + 1 < cfg.line_min_words or word_count(key[:_WORDS_IN]) < cfg.line_min_words:
                continue
            lines = self._lines
            count = self.counts
            lines.append((key, line_start))
            count[key] += 1
            totals = self.totals
            if self.track_totals:
                if len(totals) > 4096:
                    totals.clear()
                totals[key] += 1
            if len(lines) > cfg.line_window:
                old, _ = lines.popleft()
                count[old] -= 1
                if count[old] == 0:
                    del count[old]
            if len(lines) == cfg.line_window and len(count) <= cfg.line_max_distinct and base + nl + 1 >= cfg.min_chars:
                top, _ = count.most_common(1)[0]
                starts = [off for line_key, off in lines if line_key == top]
                fire = Fire(
                    at=base + nl,
                    reason="stream.line_dominance",
                    unit=top,
                    period=None,
                    loop_start=starts[0],
                    cut_offset=starts[1] if len(starts) > 1 else base + nl + 1,
                    copies=totals[top] if self.track_totals else count[top],
                )
        if start < limit:
            if not self._pend:
                self._pend_start = base + start
            if len(self._pend) < _MAX_LINE:
                self._pend = (self._pend + chunk[start:limit])[:_MAX_LINE]
        return fire
