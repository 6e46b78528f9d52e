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
(a failing test quoted after each different fix) is not corroborated.

Work per block: nothing unless the block ends a line; then one ``split`` and a dict lookup per
line. Memory: at most 4096 keys of three lines of at most 256 characters.
"""

from __future__ import annotations

from plateau.stream.block import Block
from plateau.stream.config import StreamGuardConfig
from plateau.stream.result import Fire

__all__ = ["RecheckDetector"]

_MAX_LINE = 256  # characters of a line kept as part of a key
_MIN_PASSAGE = 24  # characters (stripped) three lines must hold to be a passage
_MAX_KEYS = 4096


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

    def __init__(self, config: StreamGuardConfig) -> None:
        self.config = config
        self._reset()

    def _reset(self) -> None:
        self._pend = ""
        self._pend_start = 0
        self._lines: list[tuple[str, int]] = []  # the last two non-blank lines and their offsets
        self._keys: dict[tuple[str, ...], list[int]] = {}
        self.candidate: Fire | None = None
        self.third = -1

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
            prev = self._lines
            prev.append((key, at))
            if len(prev) < 3:
                continue
            if len(prev) > 3:
                del prev[0]
            if len(prev[0][0]) + len(prev[1][0]) + len(key) < _MIN_PASSAGE:
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
            if len(occ) >= quotes:
                self.third = occ[-quotes + 2]
                self.candidate = Fire(
                    at=base + len(piece) - 1,
                    reason="stream.recheck",
                    unit="\n".join(triple),
                    period=None,
                    loop_start=occ[-quotes],
                    cut_offset=occ[-quotes + 1],
                    copies=len(occ),
                )
        self._pend = rest[:_MAX_LINE]
        self._pend_start = start
        return None
