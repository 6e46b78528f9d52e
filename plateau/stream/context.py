"""The request's context: repetition the user asked for, and its bound.

A user who asks for uniform output ("print DONE 40 times", "repeat the word 'hello' 5 times",
"write the line over and over") gets it -- a count alone ("write 500 lines of code") asks for
volume, not repetition, and excuses nothing unless the request names the unit: :class:`RequestContext` reads the request (the user's
last message) and excuses a fire whose repeated unit the request names -- or any repetition,
when the request asks to repeat without naming what -- as long as the copies stay within the
bound read from the request, with some slack (``ceil(bound * context_slack) + 2``). Without a
number the request excuses ``context_cap_chars`` characters of repetition. A bound never
excuses ten times itself: past the allowance the fire goes through.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from plateau import lexicon
from plateau.stream.config import StreamGuardConfig
from plateau.stream.result import Fire

__all__ = ["RequestContext"]

#: Number words (list ``number-words``), phrases asking for repetition (``repetition-requests``)
#: and verbs asking for output (``output-verbs``) of :mod:`plateau.lexicon`.
_WORDS = {word: int(value) for word, value in (line.split() for line in lexicon.load("number-words"))}
_COUNT = re.compile(
    r"\b(\d{1,7}|a hundred|a thousand|" + "|".join(_WORDS) + r")\s*"
    r"(?:x\b|×|times\b|copies\b|lines\b|rows\b|repetitions\b|repeats\b)",
    re.IGNORECASE,
)
_TIMES_WORD = re.compile(r"\b(twice|thrice)\b", re.IGNORECASE)
_REPEAT = lexicon.pattern("repetition-requests", prefix=r"\b(", suffix=")", flags=re.IGNORECASE)
_QUOTED = re.compile(r"\"([^\"\n]{1,200})\"|'([^'\n]{1,200})'|`([^`\n]{1,200})`|“([^”\n]{1,200})”")
_VERB_UNIT = re.compile(
    r"\b" + lexicon.alternation("output-verbs") + r"\s+(?:the\s+(?:word|line|phrase|sentence|text)\s+)?"
    r"([\w!?.,:;\- ]{1,60}?)\s+"
    r"(?=\d|once|twice|thrice|two|three|four|five|ten|twenty|fifty|a hundred|a thousand|hundred|over|again|forever|until)",
    re.IGNORECASE,
)
_NORM = re.compile(r"[^\w]+")


def _norm(text: str) -> str:
    return _NORM.sub(" ", text.lower()).strip()


@dataclass(frozen=True)
class RequestContext:
    """What a request asks to repeat, and how many times.

    Attributes
    ----------
    text : str
        The request as given.
    requested : bool
        Whether the request asks for repeated output at all.
    bound : int or None
        The largest count read from the request ("50 times", "twice"), or None.
    units : tuple of str
        What the request names to repeat (quoted text, or the words between the verb and the
        count), normalised (lower case, words joined by one space); empty when it names nothing.

    Examples
    --------
    >>> ctx = RequestContext.parse("Please print DONE 40 times, one per line.")
    >>> ctx.requested, ctx.bound, ctx.units
    (True, 40, ('done',))
    >>> RequestContext.parse("Summarise this file.").requested
    False
    """

    text: str
    requested: bool
    bound: int | None
    units: tuple[str, ...]

    @classmethod
    def parse(cls, text: str | None) -> RequestContext:
        """Read ``text`` (the user's last message; None or empty: nothing requested).

        Raises
        ------
        TypeError
            When ``text`` is neither a ``str`` nor None.
        """
        if text is None:
            text = ""
        if not isinstance(text, str):
            raise TypeError(f"context must be a str or None, got {type(text).__name__}")
        text = text[-4000:]
        counts: list[int] = []
        for m in _COUNT.finditer(text):
            word = m.group(1).lower()
            word = word.removeprefix("a ")
            counts.append(int(word) if word.isdigit() else _WORDS.get(word, 0))
        counts += [_WORDS[m.group(1).lower()] for m in _TIMES_WORD.finditer(text)]
        asks = bool(_REPEAT.search(text))
        units: list[str] = []
        if asks or counts:
            for m in _QUOTED.finditer(text):
                unit = _norm(next(g for g in m.groups() if g is not None))
                if unit:
                    units.append(unit)
            for m in _VERB_UNIT.finditer(text):
                unit = _norm(m.group(1))
                if unit and unit not in units:
                    units.append(unit)
        # A count alone ("write 500 lines of code") asks for volume, not repetition: it excuses
        # repetition only of what the request names ("print 'hello' on 20 lines").
        requested = asks or bool(counts and units)
        bound = max(counts) if counts and requested else None
        return cls(text=text, requested=requested, bound=bound, units=tuple(units) if requested else ())

    def excuses(self, fire: Fire, chars: int, config: StreamGuardConfig) -> bool:
        """Whether this request excuses ``fire`` after ``chars`` characters of the stream.

        The fire is excused when the request asked for repetition, the repeated unit is what it
        named (or it named nothing) and holds no word the request did not name, and the copies -- ``fire.copies``, or when unknown the
        characters of the stream over the unit's length -- stay within ``ceil(bound *
        config.context_slack) + 2`` (a bound) or ``config.context_cap_chars`` characters
        (no bound).
        """
        if not self.requested:
            return False
        unit = _norm(fire.unit)
        padded = f" {unit} "
        if self.units:
            if not any(f" {u} " in padded or (unit and padded in f" {u} ") for u in self.units):
                return False
            # The named units, and nothing else: a unit that also holds words the request did
            # not name (the answer's preamble, a leaked role header) is the answer restarted,
            # not the repetition asked for.
            rest = padded
            for u in sorted(self.units, key=len, reverse=True):
                rest = rest.replace(f" {u} ", " ").replace(f" {u} ", " ")
            if rest.strip() and not any(padded in f" {u} " for u in self.units):
                return False
        if self.bound is None:
            return chars <= config.context_cap_chars
        allowed = math.ceil(self.bound * config.context_slack) + 2
        copies = fire.copies if fire.copies > 0 else chars // max(1, len(fire.unit))
        return copies <= allowed
