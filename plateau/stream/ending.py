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

The request excuses the fire as it excuses any other (``print OK 20 times``).

Budget, measured with ``scripts/stream_false_alarms.py``'s corpus (the 17,796 messages of the
real agent runs in ``../shared/data/real-runs``: model responses, tool outputs, user messages):
no message fires this rule, at these settings or at 16 columns and a tenth of the message --
real responses do not end in a loop of a short unit.

The fire is attributed to the last chunk fed; ``loop_start`` is where the first copy begins in
the raw text and ``cut_offset`` keeps that one copy.
"""

from __future__ import annotations

import re

from plateau.stream.config import StreamGuardConfig
from plateau.stream.result import Fire
from plateau.stream.text import content_length, count_words, is_token_run

__all__ = ["REASON", "ending_fire"]

REASON = "stream.ending"
_SPACE = re.compile(r"\s+")


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
        The guard's configuration: ``copy_unit``, ``unit_copies``, ``end_span_floor`` and
        ``end_fraction`` are read.

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
