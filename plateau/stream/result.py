"""What the stream guard answers: :class:`GuardResult`, and :func:`truncate` to act on it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["CHANNELS", "DEFAULT_MARKER", "Armed", "Fire", "GuardResult", "truncate"]

#: Channels a stream guard may watch.
CHANNELS: tuple[str, ...] = ("content", "reasoning", "tool_args")

#: Marker :func:`truncate` puts where the loop was cut.
DEFAULT_MARKER = "\n[... repetition cut by Plateau ...]\n"


@dataclass(frozen=True)
class GuardResult:
    """The guard's answer after a chunk.

    Attributes
    ----------
    fired
        True from the chunk on which the guard fired (sticky).
    chars
        Characters seen so far, this chunk included (int >= 0).
    reason
        Why it fired: ``"stream.period"`` (exact periodic repetition), ``"stream.run"`` (one
        character repeated: a digit, a letter, ``!``, an emoji), ``"stream.drift"`` (near-identical copies whose words,
        counters or spacing drift), ``"stream.counted"`` (copies that differ by one advancing counter),
        ``"stream.anaphora"`` (sentences that keep opening with the same phrase),
        ``"stream.stutter"`` (words doubled or tokens repeated in
        place), ``"stream.tandem"`` (a short unit repeated with slips), ``"stream.line_dominance"``, ``"stream.low_novelty"``,
        ``"stream.self_dialogue"`` (the response writes chat-template turns for both sides),
        ``"stream.recheck"`` (a passage quoted again and again while the commentary restates
        itself) or ``"stream.semantic_loop"`` (sentences recur in meaning, corroborated by recycled
        wording); None while quiet.
    unit
        One copy of the repeated unit: the primitive period (``stream.period``), the dominant
        line (``stream.line_dominance``), or the first cycle of the loop when still in the tail,
        else its most recycled word n-gram (``stream.low_novelty``); None while quiet.
    period
        Length of ``unit`` in characters for ``stream.period``; None otherwise.
    loop_start
        Character offset, in the whole stream, where the loop's first copy begins; None while
        quiet.
    cut_offset
        Character offset at which to cut so that exactly one copy is kept: ``loop_start +
        period`` for ``stream.period``, the start of the dominant line's second occurrence,
        or of the most recycled n-gram's second occurrence; None while quiet.
    fired_at_chunk
        0-based index of the chunk on which the guard first fired; None while quiet.
    steer
        True while the guard advises a nudge but has no textual evidence to stop the stream:
        the semantic layer found completed sentences landing near earlier ones of the same
        response. False once fired (a fire supersedes it).
    message
        For a steer, a short corrective message naming what recurs (it travels in its own
        field, never mixed into the stream); None otherwise.

    Examples
    --------
    >>> GuardResult(fired=False, chars=12).action
    'continue'
    """

    fired: bool
    chars: int
    reason: str | None = None
    unit: str | None = None
    period: int | None = None
    loop_start: int | None = None
    cut_offset: int | None = None
    fired_at_chunk: int | None = None
    steer: bool = False
    message: str | None = None

    @property
    def action(self) -> str:
        """``"fire"``, ``"steer"`` or ``"continue"``."""
        return "fire" if self.fired else ("steer" if self.steer else "continue")


@dataclass(frozen=True)
class Fire:
    """A detector's fire: the absolute offset of the character that completed the evidence and the verdict."""

    at: int
    reason: str
    unit: str
    period: int | None
    loop_start: int
    cut_offset: int
    copies: int = 0


@dataclass(frozen=True)
class Armed:
    """A fire predicted at a block end: due at the absolute offset ``at`` if the repetition holds until then.

    A detector that finds a repetition whose evidence will be complete before the next block is
    analysed *arms* it instead of waiting for that block: the guard keeps it and, on the chunk
    that brings the character at ``at``, asks ``source.confirm(self, s, s0)`` whether the text
    up to ``at`` still repeats (one slice comparison or one fold of the span). The fire then
    lands on the chunk that completes the span, whatever the chunking.

    Attributes
    ----------
    at
        Absolute offset of the character that completes the evidence (int >= 0).
    source
        The detector that armed it (has ``confirm(armed, s, s0) -> Fire | None``).
    key
        Identifies the repetition (a detector name, its period and start): re-arming the same
        key replaces the earlier prediction.
    data
        What ``confirm`` needs (detector-specific).
    """

    at: int
    source: Any
    key: tuple[Any, ...]
    data: tuple[Any, ...]


def truncate(text: str, result: GuardResult, marker: str = DEFAULT_MARKER) -> str:
    """Cut a looping stream so that exactly one copy of the repeated unit is kept.

    Parameters
    ----------
    text
        The stream's text (at least up to ``result.cut_offset``; usually everything received).
    result
        The guard's result. When it has not fired (or has no ``cut_offset``), ``text`` is
        returned unchanged.
    marker
        Appended at the cut, visibly (default ``"\\n[... repetition cut by Plateau ...]\\n"``).

    Returns
    -------
    str
        ``text[:result.cut_offset] + marker``: the prefix, one copy of the unit, the marker.
        The looped characters after the cut are never returned.

    Raises
    ------
    TypeError
        When ``text`` or ``marker`` is not a ``str`` or ``result`` not a :class:`GuardResult`.
    ValueError
        When ``result.cut_offset`` lies beyond ``text``.
    """
    if not isinstance(text, str) or not isinstance(marker, str):
        raise TypeError("text and marker must be str")
    if not isinstance(result, GuardResult):
        raise TypeError(f"result must be a GuardResult, got {type(result).__name__}")
    if not result.fired or result.cut_offset is None:
        return text
    if result.cut_offset > len(text):
        raise ValueError(f"result.cut_offset ({result.cut_offset}) lies beyond the text ({len(text)} characters)")
    return text[: result.cut_offset] + marker
