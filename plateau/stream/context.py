"""The request's context: repetition the user asked for, and its bound.

A user who asks for uniform output ("print DONE 40 times", "repeat the word 'hello' 5 times",
"write the line over and over") gets it -- a count alone ("write 500 lines of code") asks for
volume, not repetition, and excuses nothing unless the request names the unit: :class:`RequestContext` reads the request (the user's
last message) and excuses a fire whose repeated unit the request names -- or any repetition,
when the request asks to repeat without naming what -- as long as the copies stay within the
bound read from the request (a numeral or a number word of several languages before the
language's word for "times": "four times", "15 fois", "zwanzigmal", "diez veces", "три раза",
"二十遍"; such a count of times asks for repetition by itself), with some slack (``ceil(bound * context_slack) + 2``). Without a
number the request excuses ``context_cap_chars`` characters of repetition. A bound never
excuses ten times itself: past the allowance the fire goes through. A unit named by its
kind or by reference ("repeat the chorus twice", "write it four times") names no wording; a
piece named by its title (its first line: "write 'Row, Row, Row Your Boat' four times") is
excused whole; numbers in a copy are not words (a numbered copy of the named line is the line).
A request that quotes a unit without asking for repetition in words read here is answered by its
own text when the answer opens with copies of that unit (:meth:`RequestContext.opens_with_copies`):
those copies are excused as a request without a number is, whatever the language or wording of the
request; an answer that opens with words of its own and falls into a loop is not.
A request that asks for a program's output pasted (:attr:`RequestContext.pastes_output`) makes
the answer quoted program output, judged with the budget of a line inside a code fence.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from plateau import lexicon
from plateau.stream.config import StreamGuardConfig
from plateau.stream.result import Fire
from plateau.stream.text import WIDE_LETTERS, WORD_END, WORD_START

__all__ = ["RequestContext"]

#: Number words of several languages (list ``number-words``), the counters that make a count a
#: number of times (``count-times``: "times", "fois", "mal", "veces", "раз", "遍", "回" ...), the
#: numerals of Chinese and Japanese counts (``count-numerals``), phrases asking for repetition
#: (``repetition-requests``), verbs asking for output (``output-verbs``) and the words that name a
#: piece by its kind or by reference (``repetition-pieces``) of :mod:`plateau.lexicon`.
_WORDS = {word.lower(): int(value) for word, value in (line.split() for line in lexicon.load("number-words"))}
_NUMERALS = {char: int(value) for char, value in (line.split() for line in lexicon.load("count-numerals"))}
_TIMES = lexicon.alternation("count-times")
# A number: digits or a number word, after a non-word character or after a letter of a script
# written without spaces ("「ありがとう」を40回": the digits follow the particle).
_NUMBER = r"(?<![^\W" + WIDE_LETTERS + r"])(\d{1,7}|a hundred|a thousand|" + "|".join(sorted(_WORDS, key=len, reverse=True)) + r")"
_COUNT = re.compile(
    _NUMBER + r"\s*-?\s*"
    r"(" + _TIMES + r"|copies\b|lines\b|rows\b|repetitions\b|repeats\b)",
    re.IGNORECASE,
)
#: A count of times followed by a comparative or a period of time is a ratio or a frequency
#: ("twice as much", "three times larger", "twice a day"; list ``count-comparatives``), not a
#: request for repetition: taken out of the request before its counts are read.
_RATIO = re.compile(
    r"(?:" + _NUMBER + r"\s*-?\s*(?:" + _TIMES + r")|\b(?:twice|thrice|once))\s+" + lexicon.alternation("count-comparatives"),
    re.IGNORECASE,
)
#: A run of copies asked for by its count ("a row of 40 stars", "une ligne de 30 tirets"): the
#: count is a number of copies, as "40 times" is (list ``count-runs``).
_RUN_OF = re.compile(
    r"\b(?:a|an|one|une?|una|uma|eine?)\s+(?:" + lexicon.alternation("count-runs") + r")\s+(?:of|de|di|von|mit)\s+" + _NUMBER,
    re.IGNORECASE,
)
#: A part that comes back once per other part (``per-part-repetition``: "after every verse",
#: "between the stanzas"): the copies follow the parts, which no count in the request bounds.
_PER_PART = lexicon.pattern("per-part-repetition", prefix=r"\b(?:", suffix=r")\b", flags=re.IGNORECASE)
#: The parts or voices a piece is performed in ("a four-part round", "in three voices"): each
#: part sings what the request counts, so a count of times holds per part.
_PARTS = re.compile(_NUMBER + r"[ -]?(?:parts?|voices?)\b|\bin\s+" + _NUMBER + r"\s+(?:parts|voices|groups)\b", re.IGNORECASE)
#: A count of things ("8 rounds", "four verses"): the count and the noun after it.
_ITEMS = re.compile(_NUMBER + r"\s+([^\W\d_]{3,})", re.IGNORECASE)
#: The label of a numbered copy: the word right before its counter, at the start of the unit or
#: of one of its lines ("Round 3.", "Step #3"; a copy read in another phase holds it on a line).
_LABEL = re.compile(r"(?:^|\n)[^\w\n]*([^\W\d_]{3,})[ \t]*[#(]?\d")
_PLURALS = ("", "s", "es", "n", "en")
#: A number (digits or a number word) and the one to three words after it, among them the noun
#: it counts ("Nine green bottles", "99 bottles") -- how a counting song labels its verses.
_COUNTED_NOUN = re.compile(_NUMBER + r"((?:[ \t]+[^\W\d_]+){1,3})", re.IGNORECASE)
_NUMBERED = frozenset({"stream.counted", "stream.drift"})  # the detectors whose copies may differ by their number
_CJK_COUNT = re.compile("([" + "".join(_NUMERALS) + r"]{1,8})\s*(?:" + _TIMES + ")")
_TIMES_ONLY = re.compile(_TIMES + "$", re.IGNORECASE)
_TIMES_WORD = re.compile(r"\b(twice|thrice)\b", re.IGNORECASE)
# Each entry between word boundaries; an entry in a script written without spaces (Han, kana,
# hangul) starts anywhere.
_REPEAT = lexicon.pattern(
    "repetition-requests", prefix=WORD_START + "(", suffix=")", flags=re.IGNORECASE
)
#: Words by which a request forbids repetition ("do not repeat words", list
#: ``repetition-prohibitions``): taken out of the request before it is read for a request for
#: repetition, as ratios are.
_NO_REPEAT = lexicon.pattern("repetition-prohibitions", prefix=WORD_START + "(?:", suffix=")", flags=re.IGNORECASE)
_PASTE = lexicon.pattern("output-requests", prefix=r"\b(", suffix=")", flags=re.IGNORECASE)
#: Words by which a request asks for an exchange written out (a dialogue, a chat, a script, a
#: FAQ): the words by which a response presents one (list ``presented-exchange``, its entries
#: that are not a colon); an entry of a script written without spaces matches anywhere.
#: Words by which a request asks for a plan whose items recur by design (list ``recurring-plans``).
_RECURRING = lexicon.pattern("recurring-plans", prefix=WORD_START + "(?:", suffix=")", flags=re.IGNORECASE)
_EXCHANGE = lexicon.pattern("presented-exchange", prefix=WORD_START + "(?:", suffix=")" + WORD_END, flags=re.IGNORECASE)
_PIECES = frozenset(w.lower() for w in lexicon.load("repetition-pieces"))
#: Words by which a request asks for a song, a poem, a prayer, a speech (list ``verse-forms``).
_VERSE = lexicon.pattern("verse-forms", prefix=WORD_START + "(?:", suffix=")", flags=re.IGNORECASE)
# A straight single quote opens a quotation only where no letter precedes it and closes it only
# where no letter of an alphabet follows: between two letters it is an apostrophe ("can't",
# "l'heure", "O'Brien"), which a quotation may also hold ("'don't stop'"). Scripts without the
# apostrophe (Han, kana, hangul) attach their particles to the closing quote: "'고마워'를",
# "'ありがとう'と".
_ALPHA = r"(?![" + WIDE_LETTERS + r"])\w"
_QUOTED = re.compile(
    r"\"([^\"\n]{1,200})\"|(?<!\w)'((?:[^'\n]|(?<=\w)'(?=\w)){1,200}?)'(?!" + _ALPHA + r")|`([^`\n]{1,200})`"
    r"|“([^”\n]{1,200})”|«\s*([^»\n]{1,200}?)\s*»"
    r"|„([^“”\n]{1,200})[“”]|「([^」\n]{1,200})」|『([^』\n]{1,200})』"
)
#: The rest of a line after a colon (ASCII or fullwidth), up to 120 characters and not itself
#: holding a colon; a colon between numbers or before a slash ("10:30", "http://") introduces nothing.
_AFTER_COLON = re.compile(r"(?<!\d)[:\uff1a](?![\d/])[ \t]*([^\n:\uff1a]{1,120})[ \t]*$", re.MULTILINE)
#: A verb asking for output and its object, the unit, when a count of times or a word of
#: repetition follows the object ("write it four times", "say hello 20 more times", "print it
#: again"): a count of things after the object ("write a song, four verses") counts the answer's
#: parts, and the object is the whole answer, not a unit to repeat.
_VERB_UNIT = re.compile(
    r"\b" + lexicon.alternation("output-verbs") + r"\s+(?:the\s+(?:word|line|phrase|sentence|text)\s+)?"
    r"([\w!?.,:;\- ]{1,60}?)\s+"
    r"(?=(?:\d+|two|three|four|five|ten|twenty|fifty|a hundred|a thousand|hundred)\s*-?\s*(?:more\s+)?"
    r"(?:" + _TIMES + r"|copies\b|lines\b|rows\b|repetitions\b|repeats\b)"
    r"|once|twice|thrice|over|again|forever|until)",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")
_MAX_ROTATIONS = 64  # word starts of a repeated unit tried as its start
_GLUED = re.compile("[" + WIDE_LETTERS + "]+")  # a unit whose copies may be written without spaces between them


def _count_value(number: str) -> int:
    """The value of a count matched by ``_NUMBER``: digits, or a number word (``"a hundred"`` as
    ``"hundred"``); 0 for a word no list holds."""
    word = number.lower().removeprefix("a ")
    return int(word) if word.isdigit() else _WORDS.get(word, 0)


def _cjk_number(text: str) -> int:
    """The value of a Chinese/Japanese numeral (``"二十"`` 20, ``"三"`` 3, ``"十五"`` 15, ``"20"``
    handled elsewhere): digits add, a multiplier (10 and above) multiplies the digit before it (1
    when none)."""
    total, digit = 0, 0
    for ch in text:
        v = _NUMERALS[ch]
        if v >= 10:
            total += (digit or 1) * v
            digit = 0
        else:
            digit = digit * 10 + v if digit else v
    return total + digit


_NORM = re.compile(r"[^\w]+")
#: Where a quoted template puts a number: a capital ``N`` or ``X`` standing alone, or ``{n}``,
#: ``<n>``, ``[#]`` ("write 'Table N: Welcome!' for each table"). Numbers are not words of a
#: unit (:meth:`RequestContext._names`), so the placeholder is not one either.
_PLACEHOLDER = re.compile(r"(?<![^\W\d_])[NX](?![^\W\d_])|[{<\[][ \t]*[nNxX#i][ \t]*[}>\]]")


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
    pastes_output : bool
        Whether the request asks for a program's output pasted or shown as it is ("run the
        tests and paste the output"; list ``output-requests``): the answer is then quoted
        program output, and the detectors give its lines the budget of a line inside a code
        fence (``max_copies``, :meth:`StreamGuardConfig.span_required`).
    exchange : bool
        Whether the request asks for an exchange written out -- a dialogue, a conversation, a
        chat, a script or a scene, an interview, a FAQ, an example (list
        ``presented-exchange``): the speakers' turns are then the answer, and the self-dialogue
        detector fires only on turns that come back.
    items : tuple of (str, int)
        The things the request counts, each with its count ("8 rounds", "four verses", "10
        steps": ``("rounds", 8)``, lower-case as written): copies numbered under that label
        (``Round 1.``, ``Round 2.``) are the items asked for (:meth:`excuses`).
    recurring : bool
        Whether the request asks for a plan whose items recur by design -- a schedule, a rota,
        a rotation, an alternation, a routine (list ``recurring-plans``): an ordered list whose
        items come back in order is then the plan, and does not fire as a list cycle.
    verse : bool
        Whether the request asks for a song, a poem, a chant, a prayer, a litany, a speech, a
        pledge (list ``verse-forms``): lines or sentences that open alike are the piece's
        device (anaphora), and ``stream.anaphora`` does not fire.
    named : tuple of str
        The units the request quotes (in quotation marks, or the rest of a line after a
        colon), normalised like ``units``, whether or not it asks for
        repetition in words this module reads: an answer that is nothing but copies of one of
        them answers the request with its own text (:meth:`excuses`, ``opening``).

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
    pastes_output: bool = False
    named: tuple[str, ...] = ()
    exchange: bool = False
    recurring: bool = False
    items: tuple[tuple[str, int], ...] = ()
    verse: bool = False

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
        # the request without its ratios and frequencies, and without what it rules out
        asked = _NO_REPEAT.sub(" ", _RATIO.sub(" ", text))
        counts: list[int] = []
        times = False  # a count of times ("four times", "15 fois") asks for repetition by itself
        for m in _COUNT.finditer(asked):
            counts.append(_count_value(m.group(1)))
            times = times or bool(_TIMES_ONLY.match(m.group(2)))
        for m in _RUN_OF.finditer(asked):
            counts.append(_count_value(m.group(1)))
            times = True
        for m in _CJK_COUNT.finditer(asked):
            counts.append(_cjk_number(m.group(1)))
            times = True
        twice = [_WORDS[m.group(1).lower()] for m in _TIMES_WORD.finditer(asked)]
        counts += twice
        asks = times or bool(twice) or bool(_REPEAT.search(asked))
        spans = (next(g for g in m.groups() if g is not None) for m in _QUOTED.finditer(text))
        quoted = [u for u in (_norm(_PLACEHOLDER.sub(" ", q)) for q in spans) if u]
        # A colon introduces what follows it ("Say it with me: I am calm."): the rest of its line
        # is named as quotation marks would name it -- but it may be an instruction ("do this 20
        # times: write a haiku"), so it never narrows what a request for repetition excuses.
        after = [u for u in (_norm(_PLACEHOLDER.sub(" ", m.group(1))) for m in _AFTER_COLON.finditer(text)) if u and u not in quoted]
        units: list[str] = []
        if asks or counts:
            units += quoted
            for m in _VERB_UNIT.finditer(text):
                unit = _norm(m.group(1))
                # "repeat the chorus twice", "write it four times": a unit named by its kind or
                # by reference names no wording; the request then excuses any repeated unit.
                if unit and unit not in units and not set(unit.split()) <= _PIECES:
                    units.append(unit)
                    # named by its kind before its wording ("repeat the mantra om shanti 108
                    # times"): the wording alone is named too
                    words = unit.split()
                    k = 0
                    while k < len(words) - 1 and words[k] in _PIECES:
                        k += 1
                    if k and " ".join(words[k:]) not in units:
                        units.append(" ".join(words[k:]))
        # A count alone ("write 500 lines of code") asks for volume, not repetition: it excuses
        # repetition only of what the request names ("print 'hello' on 20 lines").
        requested = asks or bool(counts and units)
        # A part asked to come back after every other part (a chorus after each verse): its
        # copies are as many as the parts, and a count elsewhere ("three times to close")
        # bounds that place only, so the request excuses as one without a number.
        bound = max(counts) if counts and requested and not _PER_PART.search(asked) else None
        if bound is not None:  # "a four-part round, every part sings the verse twice": 4 x 2
            parts = [_count_value(next(g for g in m.groups() if g is not None)) for m in _PARTS.finditer(asked)]
            bound *= max([p for p in parts if p > 1], default=1)
        return cls(
            text=text,
            requested=requested,
            bound=bound,
            units=tuple(units) if requested else (),
            pastes_output=bool(_PASTE.search(text)),
            named=tuple(dict.fromkeys(quoted + after)),
            exchange=bool(_EXCHANGE.search(text)),
            recurring=bool(_RECURRING.search(text)),
            items=tuple(dict.fromkeys((m.group(2).lower(), _count_value(m.group(1))) for m in _ITEMS.finditer(asked))),
            verse=bool(_VERSE.search(text)),
        )

    def _counts_items(self, unit: str, copies: int, config: StreamGuardConfig) -> bool:
        """Whether numbered copies (``stream.counted``, or ``stream.drift``, which reads digits as
        ``0``) are the items the request counts: the copy's label -- the word before its counter
        at the start of the copy or of one of its lines, ``Round`` in ``Round 3.`` -- is a thing
        the request counts (``8 rounds``: the label, or the label with a plural ending, ``s``,
        ``es``, ``n``, ``en``), and the copies stay within ``ceil(count * context_slack) + 2``.
        A breathing script of "8 rounds" written out round by round is the answer; the same
        round forty times is not. In a song, a rhyme or a poem the request asks for
        (:attr:`verse`), a number and the noun it counts within three words ("Nine green
        bottles hanging", "99 bottles") label the copy too: a counting song counts its
        verses by the thing it counts."""
        if not self.items:
            return False
        labels = [m.group(1).lower()] if (m := _LABEL.search(unit)) is not None else []
        if self.verse:
            # A counting song or rhyme the request asks for ("ten green bottles, down to none")
            # counts its verses by the thing it counts: a number, then the counted noun
            # ("Nine green bottles hanging"), is the verse's label.
            labels += [w.lower() for c in _COUNTED_NOUN.finditer(unit) for w in c.group(2).split()]
        bound = {noun: math.ceil(n * config.context_slack) + 2 for noun, n in self.items}
        return any(copies <= bound.get(label + ending, -1) for label in labels for ending in _PLURALS)

    def _titled(self, unit: str) -> bool:
        """Whether the repeated ``unit`` is a piece the request names by its title: its first
        line (whitespace and punctuation folded) is a named unit ("write 'Row, Row, Row Your
        Boat' four times" answered with the verse that opens with that line). A song, a poem or a
        round is named by its first line; the answer restarted opens with a preamble instead."""
        for line in unit.splitlines():
            first = _norm(line)
            if first:
                return first in self.units
        return False

    def _names(self, unit: str, units: tuple[str, ...]) -> bool:
        """Whether the repeated ``unit`` (as the detector reported it), read from the start of
        any of its words, is one of the named ``units`` (normalised) and nothing else.

        A repetition found inside a run of copies has no start of its own: the period detector
        may report "thanks, Many " for copies of "Many thanks, ", or "anks, th" for copies of
        "thanks, ". Each rotation of the unit that starts a word (a word character after a
        non-word one, read as a cycle) is therefore tried, normalised. A unit that also holds
        words the request did not name (the answer's preamble, a leaked role header) is the
        answer restarted, not the repetition asked for. Numbers are not words: a numbered copy
        ("3. the line") is the line the request named. A unit of letters of a script written
        without spaces (Han, kana, hangul: :data:`~plateau.stream.text.WIDE_LETTERS`) is taken out
        wherever it stands, since its copies are glued ("加油加油加油", ten to a line).
        """
        starts = [k for k, ch in enumerate(unit) if ch.isalnum() and not unit[k - 1].isalnum()] or [0]
        # the named units as whole words, the longest first; a unit of a script written without
        # spaces (Han, kana, hangul) anywhere: its copies are glued ("加油加油加油")
        glued = [u for u in units if _GLUED.fullmatch(u)]
        whole = re.compile(
            r"(?<!\S)(?:" + "|".join(re.escape(u) for u in sorted(units, key=len, reverse=True)) + r")(?!\S)"
            + "".join("|" + re.escape(u) for u in sorted(glued, key=len, reverse=True))
        )
        for k in starts[:_MAX_ROTATIONS]:
            padded = " " + _norm(unit[k:] + unit[:k]) + " "
            if padded.strip() and any(padded in f" {u} " for u in units):
                return True  # the unit is (a piece of) a named unit
            if whole.search(padded) and not _DIGITS.sub(" ", whole.sub(" ", padded)).strip():
                return True  # every copy taken out, however many
        # Numbers inside the unit are not words either: a counter between an item's label and
        # its text ("Day 3: drink water" for a named "Day N: drink water") is compared without them.
        bare = _DIGITS.sub(" ", unit)
        if bare != unit and bare.strip():
            plain = tuple(u for u in (" ".join(_DIGITS.sub(" ", u).split()) for u in units) if u)
            return bool(plain) and self._names(bare, plain)
        return False

    def opens_with_copies(self, opening: str) -> bool:
        """Whether the answer's ``opening`` (its first characters, as streamed so far) is copies of
        a quoted unit (``named``): one of its first two non-empty lines, folded like the units
        and without numbers, holds nothing but copies of one named unit from its first word (the
        line's last word may be cut short where the stream stops). The other line may be a
        lead-in ("Sure, here you go:")."""
        if not self.named:
            return False
        lines = [w for w in (_DIGITS.sub(" ", _norm(line)).split() for line in opening.splitlines()) if w][:2]
        for words in lines:
            for unit in self.named:
                want = unit.split()
                n = len(want)
                if len(words) >= n and all(
                    w == want[i % n] or (i == len(words) - 1 and want[i % n].startswith(w)) for i, w in enumerate(words)
                ):
                    return True
        return False

    def excuses(self, fire: Fire, chars: int, config: StreamGuardConfig, opening: str | None = None, line: str | None = None) -> bool:
        """Whether this request excuses ``fire`` after ``chars`` characters of the stream.

        The fire is excused when the request asked for repetition, the repeated unit is what it
        named (or it named nothing; a unit it quotes -- ``named`` -- counts as named, so that
        "say it after me, 20 times: <line>" names the line, not "after me") and holds no
        word the request did not name, and the copies
        -- ``fire.copies``, or when unknown the characters of the stream over the unit's length
        -- stay within ``ceil(bound * config.context_slack) + 2`` (a bound) or
        ``config.context_cap_chars`` characters (no bound).

        A request that quotes a unit without asking for repetition in words read here (in a
        language or a wording no list holds: "escribe 'gracias' hasta llenar la página", "give
        me a page of it") is answered by its own text when the answer opens with copies of the
        unit (``opening``, the stream's first characters: :meth:`opens_with_copies`): the unit
        is then excused for ``config.context_cap_chars`` characters, as a request without a
        number is. A degenerate answer opens with its own text and falls into its loop later: a
        loop on the quoted words that follows the answer's own words on its first lines
        ("'Lorem ipsum' is placeholder text. lorem ipsum lorem ipsum ...") is not excused.

        Sentences that open with a phrase the request quotes ("write six sentences that start
        with 'I feel like I am'": ``stream.anaphora``) answer it for ``context_cap_chars``
        characters.

        Copies numbered under a label the request counts ("5 sets": ``Set 1: ...``, ``Set 2:
        ...``) are its items within their bound (:meth:`_counts_items`): read from the unit of
        ``stream.counted`` and ``stream.drift``, and from ``line`` -- the first line of the
        copies as the stream holds it, label included -- for a numbered line's copies, which
        ``stream.line_dominance`` reports without their label.
        """
        if (fire.reason in _NUMBERED or line is not None) and self._counts_items(line or fire.unit, fire.copies, config):
            return True
        if fire.reason == "stream.anaphora" and self.named and self._names(fire.unit, self.named):
            return chars <= config.context_cap_chars  # sentences that open with the words the request quotes
        if not self.requested:
            if opening is None or not self._names(fire.unit, self.named) or not self.opens_with_copies(opening):
                return False
            return chars <= config.context_cap_chars
        if self.units and not self._titled(fire.unit) and not self._names(fire.unit, self.units + self.named):
            return False
        if self.bound is None:
            return chars <= config.context_cap_chars
        allowed = math.ceil(self.bound * config.context_slack) + 2
        copies = fire.copies if fire.copies > 0 else chars // max(1, len(fire.unit))
        return copies <= allowed
