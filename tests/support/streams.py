"""Seeded chunkings of a text and the chunk where a character (or its 64-character block) arrives:
how the stream guard's tests state the firing chunk from the rule."""

from __future__ import annotations

import random

from plateau.stream import GuardResult, StreamGuard, StreamGuardConfig

__all__ = ["block_chunk", "chunk_of", "first_fire", "fourth_copy_line", "seeded"]

B = StreamGuardConfig().block


def seeded(text: str, seed: int, low: int = 1, high: int = 9) -> list[str]:
    """``text`` in seeded chunks of ``low``..``high`` characters."""
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(text):
        n = rng.randint(low, high)
        out.append(text[i : i + n])
        i += n
    return out


def chunk_of(chunks: list[str], offset: int) -> int:
    """The index of the chunk that holds the character at ``offset``; AssertionError past the end."""
    end = 0
    for i, c in enumerate(chunks):
        end += len(c)
        if offset < end:
            return i
    raise AssertionError(f"offset {offset} beyond the stream")


def block_chunk(chunks: list[str], offset: int) -> int:
    """The chunk that completes the block holding the character at ``offset``."""
    return chunk_of(chunks, (offset // B + 1) * B - 1)


def first_fire(chunks: list[str], channel: str = "content", **kw: object) -> GuardResult:
    """Feed ``chunks`` to a new guard until it fires; the result of the last chunk fed."""
    guard = StreamGuard(channel, **kw)  # type: ignore[arg-type]
    result = GuardResult(fired=False, chars=0)
    for c in chunks:
        result = guard.feed(c)
        if result.fired:
            break
    return result


def fourth_copy_line(text: str, start: int, p: int) -> int:
    """The offset where a loop of period ``p`` whose first copy starts at ``start`` is due: the line
    break ending the first line of its ``unit_copies``-th copy (for a copy of one line, or of one
    line and blank lines, the sentence end -- ``.``, ``!``, ``?`` before a space; ``。``, ``！``, ``？`` -- ending its first
    sentence, with more of the copy after it), read from the loop's first character and at least
    ``copy_unit`` characters into the copy; the copy's last character that is not whitespace
    when there is none."""
    cfg = StreamGuardConfig()
    copy = text[start : start + p]
    # a line break followed by more text; a copy whose other lines are blank is a copy of one line
    ends = [j for j in range(cfg.copy_unit - 1, p - 1) if copy[j] == "\n" and copy[j:].strip()]
    if not ends:  # a copy of one line: its first sentence, with more of its line after it
        brk = copy.find("\n", cfg.copy_unit - 1, p - 1)  # the copy's line ends there (blank lines after it)
        line = copy[:brk] if brk >= 0 else copy
        ends = [
            j
            for j in range(cfg.copy_unit - 1, min(p - 1, len(line)))
            if (copy[j] in "\u3002\uff01\uff1f" or (copy[j] in ".!?" and copy[j + 1] in " \t")) and line[j + 1 :].strip()
        ]
    # no second line or sentence: the copy's last character that is not whitespace
    return start + (cfg.unit_copies - 1) * p + (ends[0] if ends else len(copy.rstrip()) - 1 if copy.strip() else p - 1)
