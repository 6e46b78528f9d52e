"""Text helpers shared by the stream detectors: periods, runs, words and boundaries.

Every helper works on plain ``str`` and does its scanning with C-speed primitives (slice
comparison, ``str.find``, compiled regular expressions); none loops over characters in Python
except where noted (:func:`primitive_period` on a unit, at fire time only).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any
from unicodedata import east_asian_width

__all__ = [
    "WORD",
    "anchor_periods",
    "boundary_shift",
    "cap_whitespace",
    "content_length",
    "count_words",
    "is_glued",
    "is_leader_run",
    "is_token_run",
    "is_word",
    "match_back",
    "primitive_period",
    "visible",
    "WIDE_LETTERS",
    "wide_count",
    "word_count",
    "words_at_least",
]

#: A word token (``\w+``).
WORD = re.compile(r"\w+")
#: Letters of the scripts whose one character is a syllable or a morpheme, as wide as two Latin
#: letters (UAX #11 Wide): Han (CJK unified ideographs, extension A, compatibility), kana and
#: hangul (syllables and jamo).
WIDE_LETTERS = "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
#: Where a wording-list entry may begin and end: at a word boundary, or anywhere next to a letter
#: of a script written without spaces between words (``"写一段对话"`` holds ``"对话"``).
WORD_START = r"(?:\b|(?=[" + WIDE_LETTERS + r"]))"
WORD_END = r"(?:\b|(?<=[" + WIDE_LETTERS + r"]))"
#: A word: a token holding at least two letters, or one letter of a wide script ("그", "後"):
#: numbers and single Latin letters ("x", "a") are not words.
_WORD_BODY = r"\b[\d_]*(?:[" + WIDE_LETTERS + r"]|[^\W\d_][\d_]*[^\W\d_])\w*"
_LETTER_WORD = re.compile(_WORD_BODY)
#: Characters that draw layout: rules, dividers, borders, leaders, padding (box drawing and
#: block elements U+2500-U+259F, dashes U+2010-U+2015, the ellipsis, the middle dot). Not the
#: backslash: it escapes (a path, a string), it draws nothing a line of it would not.
_LAYOUT = re.compile(r"[-=_*#~.|+/:<>^`'\"\u00b7\u2010-\u2015\u2022\u2026\u2500-\u259f]+")


def match_back(s: str | bytes, x: int, p: int, run: int, limit: int) -> int:
    """Extend a run at period ``p`` ending at index ``x`` backwards from ``run``, up to ``limit``.

    The run is the number of consecutive indices ``j <= x`` with ``s[j] == s[j - p]``; it
    cannot reach before the start of ``s`` (``x - p + 1`` at most). Galloping slice compares.

    Parameters
    ----------
    s
        The text (``str``, or ``bytes`` for the folded text of :mod:`~plateau.stream.fold`).
    x
        Index of the last character of the run (``p <= x < len(s)``).
    p
        The period (>= 1).
    run
        A run length already known to hold (0 when unknown).
    limit
        Longest run worth knowing.

    Returns
    -------
    int
        The run length, at most ``min(limit, x - p + 1)``.
    """
    limit = min(limit, x - p + 1)
    step = 16
    while run < limit:
        r = min(limit, run + step)
        lo = x - r + 1
        hi = x - run + 1
        if s[lo:hi] == s[lo - p : hi - p]:
            run = r
            step *= 2
        else:
            while s[x - run] == s[x - run - p]:
                run += 1
            return run
    return run


def anchor_periods(s: str | bytes, j: int, stop: int, end: int, tries: int) -> list[int]:
    """Candidate periods of a repetition ending at the end of ``s``: the distances from the
    anchor ``s[j:]`` (its last characters) back to its nearest earlier occurrences.

    The first occurrence is searched in ``s[stop:end]``, each next one before the last found
    (``str.rfind``, nearest first), so an anchor that recurs at period ``p`` inside a periodic
    span proposes ``p`` first. The common case -- no earlier occurrence -- costs one ``rfind``.
    The idea is the fingerprint of Karp and Rabin (the anchor as the key), found by the
    library's search instead of a rolling hash.

    Parameters
    ----------
    s
        The text (``str``, or ``bytes`` for the folded text of :mod:`~plateau.stream.fold`).
    j
        Index where the anchor begins (``0 < j < len(s)``); the anchor is ``s[j:]``.
    stop, end
        Bounds of the first search (``s[stop:end]``); later searches keep ``stop``.
    tries
        Most occurrences returned (>= 1).

    Returns
    -------
    list[int]
        The periods ``j - pos`` (each >= 1), nearest occurrence first (increasing); empty when
        the anchor does not recur.
    """
    text: Any = s  # str or bytes alike (a compiled union has no common rfind)
    anchor = text[j:]
    k = len(anchor)
    periods: list[int] = []
    pos = text.rfind(anchor, stop, end)
    while pos >= 0 and len(periods) < tries:
        periods.append(j - pos)
        pos = text.rfind(anchor, stop, pos + k - 1)
    return periods


def primitive_period(unit: str) -> int:
    """Shortest period ``d`` dividing ``len(unit)`` such that ``unit`` is ``unit[:d]`` repeated."""
    n = len(unit)
    if n <= 1:
        return n
    # The classic test: the first index where ``unit`` occurs in ``unit + unit`` after 0.
    d = (unit + unit).find(unit, 1)
    return d if n % d == 0 else n


#: A plain word among whitespace-separated tokens: letters, then closing punctuation
#: (``word.``, ``it's"`` reads ``it`` then ``'s"``: no). What prose is made of.
PLAIN_TOKEN = re.compile(r"[^\W\d_]+[.,;:!?'\")]*$")
#: Share of a text's whitespace-separated tokens that must be plain words for it to read as
#: prose -- a sentence -- rather than a log line, a report line, a path or code
#: (``Lib/token.py:81:5: Q000 ...``, ``def evalf_mul(v, prec):``).
PROSE_SHARE = 0.8


def is_prose(tokens: list[str]) -> bool:
    """Whether ``PROSE_SHARE`` (80 %) of ``tokens`` (whitespace-separated, non-empty) are plain
    words (:data:`PLAIN_TOKEN`); ``False`` for no tokens."""
    return bool(tokens) and sum(1 for w in tokens if PLAIN_TOKEN.match(w)) >= PROSE_SHARE * len(tokens)


def word_count(text: str) -> int:
    """Words in ``text``: tokens (``\\w+``) holding at least two letters, or one letter of a wide
    script (Han, kana, hangul: a syllable or a morpheme, two columns wide like the letters
    :func:`content_length` counts twice); numbers and single Latin letters do not count."""
    return len(_LETTER_WORD.findall(text))


@lru_cache(maxsize=16)
def words_at_least(n: int) -> re.Pattern[str]:
    """A pattern whose ``match(text, 0, end)`` succeeds iff ``word_count(text[:end]) >= n`` (``n >= 1``).

    Each atomic group takes the next word :func:`word_count` counts (the leftmost token holding
    two letters, to its end) and never gives it back, so the match stops at the ``n``-th word
    and fails in one pass when there are fewer.
    """
    return re.compile(r"(?:(?>.*?" + _WORD_BODY + r")){" + str(n) + "}", re.DOTALL)


def count_words(unit: str) -> int:
    """Words (see :func:`word_count`) in a periodic unit.

    Counted on the rotation of the unit that starts at a non-word character, so that a word cut
    by the unit's phase counts once.
    """
    m = re.search(r"\W", unit)
    if m is None:
        return word_count(unit)
    j = m.start()
    return word_count(unit[j:] + unit[:j])


def wide_count(text: str) -> int:
    """Characters of ``text`` that take two columns: East Asian Wide or Fullwidth (Unicode UAX #11).

    Han, kana, hangul, fullwidth forms and most emoji. 0 for ASCII text (no per-character loop).
    """
    if text.isascii():
        return 0
    return sum(1 for ch in text if ch > "\u10ff" and east_asian_width(ch) in "WF")


#: Columns a run of whitespace counts at most: one indentation step (a line break and a blank
#: line, a few spaces between words or copies read as they stand; longer runs are indentation
#: or alignment, not content).
WHITESPACE_RUN = 4
_WS_RUN = re.compile(rf"\s{{{WHITESPACE_RUN + 1},}}")


def cap_whitespace(text: str) -> str:
    """``text`` with every run of whitespace longer than :data:`WHITESPACE_RUN` cut to that many
    spaces (what :func:`content_length` and the fold's span count)."""
    return _WS_RUN.sub(" " * WHITESPACE_RUN, text)


def content_length(unit: str) -> int:
    """Columns of a periodic ``unit`` with a run of whitespace counted as at most
    :data:`WHITESPACE_RUN` (4) characters.

    A reader reads a space, a line break or a blank line as it stands; a longer run of
    whitespace is indentation or alignment, not content: ``"            None,\\n"`` is 9 (its
    13-character run counts 4), ``"  court\\n\\n"`` 9, ``"the "`` 4. (Counting every run as one
    character made the copies of a short unit between blank lines, or spaced by two to four
    spaces, cover more than the reader's 96 characters before they fired.) A wide character
    (:func:`wide_count`: Han, kana, hangul, fullwidth forms, emoji) counts two: the reader's
    bounds of the firing rule are stated in characters of a line of text (half a line to a
    line), and a wide character fills two of its columns -- ``"是的,"`` is 5, ``"加"`` 2. The
    unit is read as a cycle (a run of whitespace that wraps from its end to its start is one
    run), so every rotation of a unit has the same content length.
    """
    m = re.search(r"\S", unit)
    if m is None:
        return 1 if unit else 0
    j = m.start()
    r = unit[j:] + unit[:j]
    return len(cap_whitespace(r)) + wide_count(unit)


def is_token_run(unit: str) -> bool:
    """Whether a wordless periodic unit is one token repeated, on one line.

    True for a unit without whitespace that is not only layout characters (rules, dividers,
    borders, leaders): ``0``, ``!``, an emoji, ``0x``; and for one such token with a separator
    of spaces, tabs and at most one ``,`` or ``;`` between its copies: ``0, ``, ``b ``, ``00 ``
    (read as a cycle, whatever its phase), the separator itself included (``, , , ``). False
    for ``-``, ``=``, box drawing, for units of two tokens or more (``0 1 ``, table cells such as
    ``| 0 ``) and for a separator holding a line break (a column of data, one value per line).
    """
    if not unit:
        return False
    if not any(ch.isspace() for ch in unit):
        return _LAYOUT.fullmatch(unit) is None
    if "\n" in unit or "\r" in unit:
        return False
    m = re.search(r"\s", unit)
    assert m is not None
    r = unit[m.start() :] + unit[: m.start()]  # the cycle, starting with its separator
    toks = r.split()
    if len(toks) != 1:
        return False
    core = toks[0].rstrip(",;") or toks[0]  # a separator alone is the token (", , , ,")
    return len(toks[0]) - len(core) <= 1 and _LAYOUT.fullmatch(core) is None


#: One special token of a chat template or a tokenizer, as a model that leaks its template writes
#: it: ChatML and its kin (``<|im_end|>``, ``<|eot_id|>``, ``<|endoftext|>``, ``<|fim_suffix|>``),
#: SentencePiece and BERT-style markers (``<s>``, ``</s>``, ``<unk>``, ``<pad>``, ``<mask>``,
#: ``[CLS]``, ``[SEP]``, ``[PAD]``, ``[UNK]``, ``[MASK]``) and Gemma's turn markers
#: (``<start_of_turn>``, ``<end_of_turn>``, ``<eos>``, ``<bos>``).
_SPECIAL_TOKEN = (
    r"(?:<\|[A-Za-z_][\w.-]{0,30}\|>|</?s>|<(?:unk|pad|mask|eos|bos|start_of_turn|end_of_turn)>"
    r"|\[(?:CLS|SEP|PAD|UNK|MASK)\])"
)
_SPECIAL_RUN = re.compile(rf"(?:{_SPECIAL_TOKEN}\s*)+")


def is_special_token_run(unit: str) -> bool:
    """Whether a periodic ``unit`` is special tokens of a chat template or a tokenizer, with only
    whitespace between them (``</s>\n``, ``<end_of_turn>\n``, ``<|im_end|>``): markup a model
    writes when it leaks its template, which no text repeats -- a run of it is judged as a glued
    word's is (:attr:`StreamGuardConfig.glued_span_floor`). Read as a cycle, whatever its phase."""
    core = unit.strip()
    if not core or "<" not in core and "[" not in core:
        return False
    j = unit.find("<") if "<" in unit else unit.find("[")
    r = unit[j:] + unit[:j]
    return _SPECIAL_RUN.fullmatch(r) is not None


#: What separates the copies of a unit that holds it: whitespace aside, a list's separators
#: (``,``, ``;``, ``|``), a path's (``/``, ``\\``) and the fullwidth and CJK comma, semicolon
#: and stops (``，``, ``；``, ``、``, ``。``).
_SEPARATORS = frozenset(",;|/\\\uff0c\uff1b\u3001\u3002")
#: Hexadecimal digits: a token of them alone is a number (a byte pattern), not a word.
HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_LETTER_RUN = re.compile(r"[^\W\d_]+")


def is_glued(unit: str) -> bool:
    """Whether the copies of a periodic ``unit`` abut with nothing between them: ``Of``,
    ``<unk>``, ``好的`` (``HeyHeyHey``, ``<unk><unk>``, ``好的好的``).

    True for a unit without whitespace and without a list or path separator (``,``, ``;``,
    ``|``, ``/``, ``\\``, the fullwidth and CJK comma, semicolon and stops) that holds a run of letters with two
    different letters (a word or a piece of one), unless it is hexadecimal digits alone
    (``deadbeef``, ``ab``: a hex literal of a repeated byte pattern is data). A word glued to
    itself is not how any language writes, and the budget of legitimate glued runs is far
    below that of spaced ones (:attr:`StreamGuardConfig.glued_span_floor`). A single
    character repeated (``啊``, ``!``) and status letters between dots (``ss...x``, a test
    runner's progress) are runs of one token, not glued words. The unit is read as a cycle
    (``!ny`` is ``ny!``). False for the empty unit.
    """
    if not unit or set(unit) <= HEX_DIGITS or any(ch.isspace() or ch in _SEPARATORS for ch in unit):
        return False
    return any(len(set(run)) >= 2 for run in _LETTER_RUN.findall(unit + unit))  # read as a cycle, whatever its phase


#: An ECMA-48 control sequence (CSI): ESC ``[``, parameter bytes, intermediate bytes, a final
#: byte -- the colours and cursor moves a terminal program writes around its text.
_CSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def strip_controls(text: str) -> str:
    """``text`` without its terminal control sequences (CSI: colours, cursor moves), which are
    not content; unchanged (no regex run) when it holds no ESC."""
    return _CSI.sub("", text) if "\x1b" in text else text


def visible(unit: str) -> str:
    """The text a terminal shows of a periodic ``unit``: its control sequences removed.

    ``unit`` is one period of a repetition and may start inside a sequence (``32m.\x1b[0m\x1b[``
    is a coloured ``.`` read from the middle of its escape), so it is read as a cycle, rotated
    to start at its first ESC, before the sequences are removed; a unit without ESC is returned
    unchanged. A test runner that colours its output prints ``\x1b[32m.\x1b[0m`` per test: its
    run is a run of dots, judged as a plain one is.
    """
    i = unit.find("\x1b")
    if i < 0:
        return unit
    return _CSI.sub("", unit[i:] + unit[:i])


#: Leaders: the characters a line fills with between its text and a number (a table of
#: contents' dots, middle dots, ellipses) -- layout that never fills more than a line.
_LEADERS = frozenset(".\u00b7\u2026")


def is_leader_run(unit: str) -> bool:
    """Whether a wordless periodic unit is leader characters (``.``, ``·``, ``…``) alone, with or
    without spaces between them, on one line: ``.``, ``. ``, ``…``.

    A leader fills part of a line (a table of contents' dots run from a title to its page
    number), so it is never longer than a line; a rule or a divider (``-``, ``=``, box drawing)
    is drawn across a whole line and may be longer. Measured on the model responses of
    ``scripts/stream_false_alarms.py``: no run of ``.``, ``·`` or ``…`` reaches 16 characters,
    while dividers of ``-``, ``=`` and ``_`` reach 80. Outside quoted output a leader run after
    text on its line is therefore judged as a run of one token
    (:attr:`StreamGuardConfig.digit_run_floor`); quoted program output, and a line of nothing
    but leaders, keep it as layout (a test runner prints a dot per test on a line of its own:
    runs of over a thousand in the real tool outputs, and the first line of an answer that
    shows a run's output).
    """
    core = unit.replace(" ", "")
    return bool(core) and "\n" not in unit and all(ch in _LEADERS for ch in core)


def is_word(ch: str) -> bool:
    """Whether ``ch`` is a word character (alphanumeric or ``_``)."""
    return ch.isalnum() or ch == "_"


def boundary_shift(s: str, begin: int, d: int, end: int) -> int:
    """How far (0..d-1) to rotate the copy ``s[begin:begin + d]`` so that it starts at a boundary.

    The rotated copy stays inside the periodic span ``s[begin:end + 1]``. Prefers the start of
    a line, then the start of a word; 0 when the unit has neither.
    """
    limit = max(1, min(d, end - begin - d + 2))

    def before(j: int) -> str:
        return s[begin + j - 1] if begin + j > 0 else "\n"

    for j in range(limit):
        if before(j) == "\n" and not s[begin + j].isspace():
            return j
    for j in range(limit):
        if before(j) == "\n":
            return j
    for j in range(limit):
        if not is_word(before(j)) and is_word(s[begin + j]):
            return j
    return 0


def in_open_fence(s: str, end: int) -> bool:
    """Whether index ``end`` of ``s`` lies inside a code fence opened before it: an odd number of
    ```` ``` ```` in ``s[:end]`` (program output or code, whose lines repeat as they print)."""
    return s.count("```", 0, max(0, end)) % 2 == 1
