r"""``stream.ending``: a response that ended as a loop of a short unit.

While a response streams, a unit shorter than ``copy_unit`` (a word, a syllable, a short
sentence, a run of ``!``) fires only once its copies cover ``span_floor`` (96) columns, or
``digit_run_floor`` for a run of one token: a legitimate run of a short unit -- a chorus's
``la la la``, a chant, a row of emoji -- holds up to 64 columns and then the text goes on. The
reader's bound for such a run (issue 23: "within a bounded number of characters for shorter
units and single-token runs"; the labelling rule of the stream sets reads it as 32 to 96
characters of the run) starts at 32. A response that *ends* inside that bound -- a captioner or
a translator whose output is ``yes yes yes ...`` up to its token limit, a transcript of
one short sentence five times -- is never caught by the mid-stream floors: the stream ends first.

When the stream has ended (:meth:`~plateau.stream.StreamGuard.finish`), nothing can follow the
run, so the reason for the floors is gone for a loop that *is* the response. This rule reads the
whole response once, with every run of whitespace read as one space (one line break when it
holds one), and finds the longest run of a unit shorter than ``copy_unit`` that reaches the
response's end (the match run behind ``stream.period``, measured backwards from the last
character, for each period 1 .. ``copy_unit - 1``). Copies of that unit earlier in the response
count too -- a short sentence interrupted once by a line that is not a copy is still one
loop -- each found where a copy of the run stands (a token as a whole token: ``2`` is no copy
inside ``2020``). It fires when

- the run at the end holds two copies or more (the response ends in the loop),
- the copies number ``unit_copies`` (4) or more (the firing rule's copy count for a unit of 16
  characters; a short unit needs at least as many),
- they cover ``end_span_floor`` (32) columns or more, counted as
  :func:`~plateau.stream.text.content_length` counts them (a wide character fills two): the
  lower end of the reader's bound,
- they cover at least ``end_fraction`` (half) of the response's columns: the loop is most of
  what the response says. A song that ends on ``la la la la`` is mostly its verses; a caption
  that is ``a 7 7 7 7 ...`` is its loop,
- and the unit holds a word (:func:`~plateau.stream.text.count_words`) or is one token
  (:func:`~plateau.stream.text.is_token_run`: ``!``, ``0``, an emoji): layout -- a divider, a
  table rule -- never fires here, as it needs 256 characters mid-stream.

A unit of ``copy_unit`` characters or more fires mid-stream by its fourth copy
(``unit_copies``). A response that *ends* inside its third copy -- three copies of one sentence
and nothing else, a speech recogniser's or a base model's output cut by its token limit --
never shows the fourth: the stream ends first. Its second rule reads the end of the response for
such a unit (the last ``kgram`` characters as an anchor, its nearest earlier occurrences as
periods, the match run measured backwards as above; up to four tried) and fires when

- the run at the end holds ``unit_copies - 1`` (3) copies -- the fourth is the one the end of
  the stream forbids -- the last one whole once it lacks only whitespace or its closing
  punctuation (a response cut before its full stop),
- they cover at least ``end_fraction`` (half) of the response's columns, and the unit holds a
  word.

The request excuses the fire as it excuses any other (``print OK 20 times``).

Budget, measured with ``scripts/stream_false_alarms.py``'s corpus (the 17,796 messages of the
real agent runs in ``../shared/data/real-runs``: model responses, tool outputs, user messages):
no message fires the short-unit rule, at these settings or at 16 columns and a tenth of the message --
real responses do not end in a loop of a short unit.
The long-unit rule adds no fire there either: the 13,593 messages of its current corpus (7,452
model responses) fire 114 times in all, as before the rule, none of them ``stream.ending``;
streamed as quoted output they fire as before too (``--quote fence``: 13, ``--quote ask``: 3).

The fire is attributed to the last chunk fed; ``loop_start`` is where the first copy begins in
the raw text and ``cut_offset`` keeps that one copy.
"""

from __future__ import annotations

import re
from unicodedata import category

from plateau.stream.config import StreamGuardConfig
from plateau.stream.result import Fire
from plateau.stream.text import anchor_periods, content_length, count_words, is_token_run, match_back

__all__ = ["REASON", "ending_fire"]

REASON = "stream.ending"
_SPACE = re.compile(r"\s+")
_TRIES = 4  # earlier occurrences of the anchor tried as periods (the nearest first), as stream.period and stream.fold try


def _collapse(text: str) -> tuple[str, list[int]]:
    """``text`` with each run of whitespace one space (one line break when it holds one), and the
    raw offset of every character kept."""
    out: list[str] = []
    where: list[int] = []
    pos = 0
    for m in _SPACE.finditer(text):
        a, b = m.span()
        out.append(text[pos:a])
        where.extend(range(pos, a))
        run = text[a:b]
        out.append("\n" if "\n" in run or "\r" in run else " ")
        where.append(a)
        pos = b
    out.append(text[pos:])
    where.extend(range(pos, len(text)))
    return "".join(out), where


def _copies(core: str) -> re.Pattern[str]:
    """Where ``core`` (a unit without its surrounding whitespace) stands as a copy: not inside a
    longer ASCII word or number (``2`` is no copy inside ``2020``)."""
    head = r"(?<![A-Za-z0-9])" if core[0].isascii() and core[0].isalnum() else ""
    tail = r"(?![A-Za-z0-9])" if core[-1].isascii() and core[-1].isalnum() else ""
    return re.compile(head + re.escape(core) + tail)


def _rotate(unit: str) -> str:
    """The unit rotated to start a line, else a word after whitespace, else as it is."""
    for after in ("\n", " "):
        for i in range(len(unit)):  # read as a cycle: unit[-1] comes before unit[0]
            if unit[i - 1] == after and not unit[i].isspace():
                return unit[i:] + unit[:i]
    return unit


def ending_fire(text: str, config: StreamGuardConfig) -> Fire | None:
    """The ``stream.ending`` fire on a complete response, or None.

    Parameters
    ----------
    text
        The whole response, from its first character (str; any length: the caller passes it
        only when the guard still holds all of it).
    config
        The guard's configuration: ``copy_unit``, ``unit_copies``, ``end_span_floor``,
        ``end_fraction`` and ``kgram`` are read.

    Returns
    -------
    Fire or None
        ``at`` is the last character's offset; ``period`` the unit's length with whitespace
        runs read as one character; ``copies`` the copies counted (the run's and earlier ones).

    Examples
    --------
    >>> from plateau.stream import StreamGuardConfig
    >>> ending_fire("a 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7 7", StreamGuardConfig()).unit
    '7 '
    >>> ending_fire("Here is the summary you asked for: ha ha ha", StreamGuardConfig()) is None
    True
    """
    stripped = text.rstrip()
    s, where = _collapse(stripped)
    return _short_fire(text, stripped, s, where, config) or _long_fire(text, stripped, s, where, config)


def _short_fire(text: str, stripped: str, s: str, where: list[int], config: StreamGuardConfig) -> Fire | None:
    """The rule for a unit shorter than ``copy_unit`` (the module's docstring)."""
    n = len(s)
    best_p, best_span = 0, 0
    for p in range(1, min(config.copy_unit, n + 1)):
        j = n - 1
        while j >= p and s[j] == s[j - p]:
            j -= 1
        span = n - 1 - j + p
        if span > best_span:
            best_p, best_span = p, span
    p, span = best_p, best_span
    if p == 0:
        return None
    begin = n - span
    unit = s[begin : begin + p]
    # the last copy is whole when all it lacks is the whitespace the response was stripped of
    copies = span // p + (1 if span % p and unit[span % p :].isspace() else 0)
    if copies < 2 or (count_words(unit) == 0 and not is_token_run(unit)):
        return None
    # copies of the unit before the run, each where the run's copies stand (a token's copies as
    # whole tokens): the loop interrupted by a line that is not a copy is still the loop
    core = unit.strip()
    earlier = list(_copies(core).finditer(s, 0, begin)) if core else []
    total = copies + len(earlier)
    if total < config.unit_copies:
        return None
    start = where[earlier[0].start()] if earlier else where[begin]
    columns = content_length(stripped[where[begin] :]) + len(earlier) * content_length(unit)
    if columns < config.end_span_floor or columns < config.end_fraction * content_length(stripped):
        return None
    return Fire(
        at=len(text) - 1,
        reason=REASON,
        unit=_rotate(unit),
        period=p,
        loop_start=start,
        cut_offset=where[earlier[0].end()] if earlier else where[begin + p] if begin + p < n else len(stripped),
        copies=total,
    )


def _long_fire(text: str, stripped: str, s: str, where: list[int], config: StreamGuardConfig) -> Fire | None:
    """The rule for a unit of ``copy_unit`` characters or more (the module's docstring): the response
    ends with ``unit_copies - 1`` copies of it or more, back to back, covering ``end_fraction`` of
    its columns."""
    n = len(s)
    k = config.kgram
    need = config.unit_copies - 1
    if n <= (need - 1) * config.copy_unit or n <= k:
        return None
    best_p, best_span = 0, 0
    for p in anchor_periods(s, n - k, 0, n - config.copy_unit, _TRIES):
        if p * (need - 1) >= n:  # not even two copies and the start of a third
            break
        span = match_back(s, n - 1, p, 0, n) + p
        if span > best_span:
            best_p, best_span = p, span
    p, span = best_p, best_span
    if p == 0:
        return None
    # the copies start where the unit starts a line or a word (the run may reach back into the
    # text before the loop when that text ends like the unit)
    begin = n - span
    unit = _rotate(s[begin : begin + p])
    begin += (s[begin : begin + 2 * p]).find(unit) if p <= span - p else 0
    span = n - begin
    # the last copy is whole when all it lacks is whitespace or its closing punctuation (a response
    # cut at its token limit before the sentence's full stop)
    copies = span // p + (1 if span % p and _closing(unit[span % p :]) else 0)
    if copies < need or count_words(unit) == 0:
        return None
    columns = content_length(stripped[where[begin] :])
    if columns < config.end_fraction * content_length(stripped):
        return None
    return Fire(
        at=len(text) - 1,
        reason=REASON,
        unit=unit,
        period=p,
        loop_start=where[begin],
        cut_offset=where[begin + p] if begin + p < n else len(stripped),
        copies=copies,
    )


def _closing(rest: str) -> bool:
    """Whether ``rest`` is only whitespace and punctuation (Unicode categories Z*, P*)."""
    return all(ch.isspace() or category(ch)[0] in "PZ" for ch in rest)
