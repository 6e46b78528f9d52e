r"""``chunk-hash``: gemini-cli's streaming content-loop detector.

Source
------
google-gemini/gemini-cli ``packages/core/src/services/loopDetectionService.ts``, read at commit
``022f913dc748df9dbc4d88c6555fe475606cb379``: ``checkContentLoop``, ``truncateAndUpdate``,
``analyzeContentChunksForLoop``, ``isLoopDetectedForChunk``, ``isActualContentMatch`` and
``resetContentTracking``. Constants: ``CONTENT_CHUNK_SIZE = 50``,
``CONTENT_LOOP_THRESHOLD = 10``, ``MAX_HISTORY_LENGTH = 5000``.

What the port reproduces (verified line by line)
------------------------------------------------
Per incoming content event (here: per chunk, which is what the benchmark's chunks are):

1. **Element reset.** If the chunk contains a code fence (three backticks), a table row
   (``(^|\n)\s*(\|.*\||[|+-]{3,})``), a list item (``(^|\n)\s*[*-+]\s`` or
   ``(^|\n)\s*\d+\.\s``), a heading (``(^|\n)#+\s``), a blockquote (``(^|\n)>\s``), or
   is a divider (the whole chunk matches ``^[+-_=*\u2500-\u257F]+$``), all content tracking
   is reset (history, chunk positions, window start). The regexes are transcribed as written,
   quirks included: in ``[*-+]`` the ``*-+`` is a character *range* (``*`` and ``+`` only, so
   ``- item`` is **not** a list item), and in the divider class ``+-_`` is the range
   U+002B..U+005F, which also covers digits, upper-case letters and ``,./:;<=>?@[\]^`` -- a
   chunk such as ``"NY"`` or ``"2024"`` counts as a divider. Both behave the same way in
   JavaScript and Python regular expressions. (Ignored: JavaScript's ``.`` also stops at ``\r``,
   U+2028 and U+2029 where Python's stops only at ``\n``, and Python's ``\d`` also matches
   non-ASCII digits.)
2. **Code blocks.** An odd number of fences toggles "in code block"; a chunk that starts or
   ends inside a code block, or is a divider, is not analysed (and not added to history).
3. Otherwise the chunk is appended to the history, which is truncated to its last 5000
   characters (stored positions shift and those before the cut are dropped).
4. **Sliding window.** Every 50-character window of the history is visited once, one
   character at a time. The first occurrence of a window's text records its position; a later
   occurrence that matches the first one is appended. When a window text has at least 10
   positions, the last 10 are examined: it is a loop when their average spacing
   ``(last - first) / 9`` is at most ``5 * 50 = 250`` characters **and** the 9 substrings
   between consecutive positions (the periods) take at most ``floor(10 / 2) = 5`` distinct
   values (a list of distinct items with a shared prefix has many distinct periods).
5. The first loop is sticky (``loopDetected``).

Differences
-----------
* Window texts are dictionary keys themselves instead of SHA-256 digests plus an
  ``isActualContentMatch`` check; this gives the same decisions (barring a digest collision).
* Left out: the tool-call reset (a tool call in the middle of a response resets content
  tracking; a stream here carries no tool calls), the tool-call and LLM loop checks, and
  telemetry.
"""

from __future__ import annotations

import re

__all__ = ["ChunkHash"]

_TABLE = re.compile(r"(^|\n)\s*(\|.*\||[|+-]{3,})")
_LIST_BULLET = re.compile(r"(^|\n)\s*[*-+]\s")
_LIST_NUMBER = re.compile(r"(^|\n)\s*\d+\.\s")
_HEADING = re.compile(r"(^|\n)#+\s")
_BLOCKQUOTE = re.compile(r"(^|\n)>\s")
_DIVIDER = re.compile(r"[+-_=*\u2500-\u257F]+")


class ChunkHash:
    """gemini-cli's content-loop detector over streamed chunks.

    Parameters
    ----------
    chunk_size
        Length of the sliding window in characters (int >= 1; default 50).
    threshold
        Occurrences of one window text that may signal a loop (int >= 2; default 10).
    max_history
        Characters of history kept (int >= ``chunk_size``; default 5000).
    distance_factor
        Maximum average spacing of the last ``threshold`` occurrences, in multiples of
        ``chunk_size`` (int >= 1; default 5, i.e. 250 characters).

    Raises
    ------
    ValueError
        On a bad parameter (named in the message).

    Examples
    --------
    >>> det = ChunkHash()
    >>> chunks = ["Let me check the file. "] + ["ny"] * 60
    >>> next(i for i, c in enumerate(chunks) if det.feed(c))
    34

    References
    ----------
    .. [1] google-gemini/gemini-cli, ``packages/core/src/services/loopDetectionService.ts``,
       ``checkContentLoop`` / ``isLoopDetectedForChunk``.
    """

    name = "chunk-hash"

    def __init__(
        self,
        chunk_size: int = 50,
        threshold: int = 10,
        max_history: int = 5000,
        distance_factor: int = 5,
    ) -> None:
        for pname, value, low in (
            ("chunk_size", chunk_size, 1),
            ("threshold", threshold, 2),
            ("distance_factor", distance_factor, 1),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{pname} must be an integer >= {low}, got {value!r}")
        if isinstance(max_history, bool) or not isinstance(max_history, int) or max_history < chunk_size:
            raise ValueError(f"max_history must be an integer >= chunk_size ({chunk_size}), got {max_history!r}")
        self.chunk_size = chunk_size
        self.threshold = threshold
        self.max_history = max_history
        self.distance_factor = distance_factor
        self._reset()

    def _reset(self) -> None:
        self._fired = False
        self._in_code_block = False
        self._reset_content()

    def _reset_content(self) -> None:
        self._history = ""
        self._stats: dict[str, list[int]] = {}
        self._index = 0

    def reset(self) -> None:
        """Forget the stream (history, positions, code-block state and the fire)."""
        self._reset()

    def feed(self, chunk: str) -> bool:
        """Add one chunk; ``True`` once a content loop has been detected (sticky)."""
        if self._fired:
            return True
        if not chunk:
            # gemini-cli would still run the (empty) analysis; nothing can change.
            return False
        fences = chunk.count("```")
        is_divider = _DIVIDER.fullmatch(chunk) is not None
        if (
            fences
            or _TABLE.search(chunk)
            or _LIST_BULLET.search(chunk)
            or _LIST_NUMBER.search(chunk)
            or _HEADING.search(chunk)
            or _BLOCKQUOTE.search(chunk)
            or is_divider
        ):
            self._reset_content()
        was_in_code_block = self._in_code_block
        if fences % 2 == 1:
            self._in_code_block = not self._in_code_block
        if was_in_code_block or self._in_code_block or is_divider:
            return False
        self._history += chunk
        self._truncate()
        if self._analyse():
            self._fired = True
        return self._fired

    def _truncate(self) -> None:
        excess = len(self._history) - self.max_history
        if excess <= 0:
            return
        self._history = self._history[excess:]
        self._index = max(0, self._index - excess)
        stats: dict[str, list[int]] = {}
        for key, positions in self._stats.items():
            kept = [p - excess for p in positions if p - excess >= 0]
            if kept:
                stats[key] = kept
        self._stats = stats

    def _analyse(self) -> bool:
        size = self.chunk_size
        while self._index + size <= len(self._history):
            window = self._history[self._index : self._index + size]
            if self._is_loop(window):
                return True
            self._index += 1
        return False

    def _is_loop(self, window: str) -> bool:
        positions = self._stats.get(window)
        if positions is None:
            self._stats[window] = [self._index]
            return False
        positions.append(self._index)
        n = self.threshold
        if len(positions) < n:
            return False
        recent = positions[-n:]
        if (recent[-1] - recent[0]) / (n - 1) > self.chunk_size * self.distance_factor:
            return False
        periods = {self._history[recent[i] : recent[i + 1]] for i in range(n - 1)}
        return len(periods) <= n // 2
