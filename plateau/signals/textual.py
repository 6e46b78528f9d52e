"""Step-level textual repetition signals.

An agent run is a sequence of steps; this module measures, for each new step's text,
how much of it recurs in the texts of the last few steps.  Two families of evidence
are kept apart because the breaker treats them differently:

* **Near-verbatim recurrence** (structural evidence, may count toward a trip).  The
  text is normalised and tokenised, its word n-grams (*shingles*) are hashed with a
  Rabin–Karp polynomial rolling hash [1]_, and the resulting sets are compared with
  the *resemblance* (Jaccard coefficient) and *containment* of Broder [2]_.  The
  longest run of consecutive shared n-grams gives the length of the longest passage
  copied from one earlier step.  Texts with very few words also get character
  n-grams, a finer-grained fallback for short texts and for text without spaces.
  Chinese and Japanese have no spaces, so each of their characters is a token and
  their word n-grams are character n-grams.
* **Lexical sentence similarity** (shared vocabulary, may only *steer*).  Sentences
  are split offline (pysbd [3]_ for Latin-script text, a small rule of our own for
  Chinese/Japanese), reduced to sets of lower-cased content words (the Snowball
  English stop-word list [4]_ removed), and compared with the Jaccard coefficient.
  Shared vocabulary is not shared meaning: a paraphrase scores high here without
  being a verbatim repeat.

The per-run :class:`TextualTracker` keeps, for each of the last ``window`` steps, only
its n-gram hash sets and its sentences' word sets (never the raw text), so an update
costs O(len(text) + window · set size) and the state is small and picklable.

Cost, measured on the 2-core development machine while other jobs ran: the n-gram
part takes ~0.2 ms for a 300-character step and ~3.5 ms for a 20 KB one (hashing is
vectorised with numpy).  Sentence splitting dominates: pysbd costs ~0.15 ms per line
plus 3–5 µs per character, with occasional 10–20 ms spikes, so it is skipped where its
answer is certain, cached per line, and bounded (:attr:`TextualConfig.sentence_max_chars`).
Over the 615 steps of the project's benchmark trajectories a whole update takes 0.24 ms
at the median and ~2 ms at the 90th percentile.  A tracker serves one run and is not
thread-safe; different trackers may be used from different threads.

Normalisation (applied before hashing and before sentence comparison)
--------------------------------------------------------------------
1. Unicode NFKC (full-width forms become ASCII, ligatures split), then lower-casing.
2. Volatile tokens that would hide a verbatim repeat are replaced by placeholders:
   UUIDs (``_uuid_``), hexadecimal identifiers of at least 7 hex digits mixing letters
   and digits or written ``0x…`` (commit hashes, addresses: ``_hex_``), clock times
   ``hh:mm:ss[.fff]`` (``_time_``) and measured durations written as decimal seconds or
   milliseconds, e.g. ``3.21s``, ``450 ms`` (``_dur_``).
3. Other numbers are kept verbatim: in agent narration they usually carry the progress
   (``40 passed`` vs ``39 passed``), and a step whose counts moved is not a repeat.
4. Tokens are ``\\w+`` runs (Unicode-aware), except that each Chinese/Japanese
   character is a token of its own; whitespace and punctuation only separate tokens,
   so any whitespace run is collapsed and punctuation is ignored.

Errors
------
:class:`TextualConfig` raises :class:`ValueError` naming the bad parameter;
:meth:`TextualTracker.update` raises :class:`TypeError` for a non-``str`` text;
:func:`rolling_hashes` raises :class:`ValueError` for ``n < 1``; :func:`split_sentences`
raises :class:`ValueError` for a language pysbd does not know.

References
----------
.. [1] Karp, R. M. and Rabin, M. O. (1987). Efficient randomized pattern-matching
   algorithms. *IBM Journal of Research and Development*, 31(2), 249–260.
.. [2] Broder, A. Z. (1997). On the resemblance and containment of documents.
   *Proceedings of Compression and Complexity of SEQUENCES 1997*, 21–29.
.. [3] Sadvilkar, N. and Neumann, M. (2020). PySBD: Pragmatic Sentence Boundary
   Disambiguation. *Proceedings of NLP-OSS 2020*. https://github.com/nipunsadvilkar/pySBD
.. [4] Porter, M. and Boulton, R. Snowball English stop-word list (BSD-3-Clause).
   https://snowballstem.org/algorithms/english/stop.txt
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
import threading
import unicodedata
from collections import deque
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import numpy.typing as npt
import pysbd
from pysbd.lang.english import English as _PysbdEnglish
from pysbd.languages import LANGUAGE_CODES

from plateau import lexicon

__all__ = [
    "CHAR_FALLBACK_MAX_CHARS",
    "HASH_BASE",
    "HASH_MODULUS",
    "STOP_WORDS",
    "TextualConfig",
    "TextualSignals",
    "TextualTracker",
    "is_cjk",
    "jaccard",
    "normalize",
    "rolling_hashes",
    "split_sentences",
    "tokenize",
]

# ---------------------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------------------

#: Modulus of the polynomial rolling hash: the Mersenne prime 2**61 - 1.  Even with
#: 3 * 10**4 distinct n-grams in a window (eight 20 KB steps), the chance that any two
#: collide is ~10**-10.
HASH_MODULUS: int = (1 << 61) - 1

#: Base of the polynomial rolling hash: a fixed constant (the largest prime below 2**32)
#: so that hashes are identical across processes and can be persisted.  Keeping it below
#: 2**32 lets the tracker evaluate the same polynomial with 64-bit numpy arithmetic.
HASH_BASE: int = 4_294_967_291

#: Longest string (characters) shingled by the character n-gram fallback.  The fallback
#: only applies to texts with few tokens; this bound keeps a single huge token (a base64
#: blob, minified code) cheap.
CHAR_FALLBACK_MAX_CHARS: int = 1024

#: Snowball English stop-word list [4]_ (all non-commented entries of ``stop.txt``),
#: plus the apostrophe-free fragments of its compound forms, because :func:`tokenize`
#: splits at apostrophes (``don't`` → ``don``, ``t``; the same convention as NLTK's
#: English list); list ``stop-words-en`` of :mod:`plateau.lexicon`.  Used only by the
#: lexical sentence similarity.
STOP_WORDS: frozenset[str] = frozenset(lexicon.load("stop-words-en"))

# Chinese/Japanese scripts: CJK ideographs (URO, extension A, compatibility, extensions
# B–F in the supplementary plane), iteration marks, hiragana and katakana.  Hangul is
# deliberately absent: Korean separates words with spaces.
_CJK_CLASS = (
    "\u3005-\u3007"  # 々 〆 〇
    "\u3040-\u309f"  # hiragana
    "\u30a0-\u30ff"  # katakana
    "\u31f0-\u31ff"  # katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff66-\uff9f"  # half-width katakana
    "\U00020000-\U0002ebef"  # CJK extensions B–F
)
_CJK_RE = re.compile(f"[{_CJK_CLASS}]")
_TOKEN_RE = re.compile(f"[{_CJK_CLASS}]|[^\\W{_CJK_CLASS}]+")
_NON_CJK_WORD_RE = re.compile(f"[^\\W{_CJK_CLASS}]+")
# One CJK sentence: everything up to a run of terminators (。！？!?； or the full-width
# full stop ．) and any closing quotes/brackets right after them.
_CJK_SENTENCE_RE = re.compile("[^。．！？!?；]+(?:[。．！？!?；]+[」』）〕】》〉”’\"')\\]]*)?|[。．！？!?；]+")

# Volatile tokens.  Every one contains a digit, so candidates are found by scanning for
# digit-initial runs (fast in ``re``), extended left over word characters (a hex id may
# start with letters), then classified by a full match.
_DIGIT_RUN_RE = re.compile(r"\d[\w.:-]*")
_SPACED_UNIT_RE = re.compile(r" (?:ms|s|sec|secs|seconds)\b")
_VOLATILE_TOKEN_RE = re.compile(
    r"(?P<uuid>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
    r"|(?P<time>(?:\d{4}-\d{2}-\d{2}t)?\d{1,2}:\d{2}:\d{2}(?:\.\d+)?z?)"
    r"|(?P<dur>\d+\.\d+ ?(?:ms|s|sec|secs|seconds)|\d+ ?ms)"
    r"|(?P<hex>0x[0-9a-f]+|(?=[0-9a-f]*[a-f])[0-9a-f]{7,})"
)
_PLACEHOLDERS = {"uuid": " _uuid_ ", "time": " _time_ ", "dur": " _dur_ ", "hex": " _hex_ "}
# ASCII fast path of the tokenizer: for ASCII text, ``\w`` is exactly [A-Za-z0-9_].
_ASCII_NON_WORD = bytes(c if (chr(c).isalnum() or chr(c) == "_") else 0x20 for c in range(256))


# ---------------------------------------------------------------------------------------
# Building blocks
# ---------------------------------------------------------------------------------------


def _replace_volatile(text: str) -> str:
    """Replace UUIDs, hex ids, clock times and durations in lower-cased ``text``."""
    out: list[str] = []
    pos = 0
    for m in _DIGIT_RUN_RE.finditer(text):
        start = m.start()
        while start > pos and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        candidate = text[start : m.end()].rstrip(".:-")
        end = start + len(candidate)
        unit = _SPACED_UNIT_RE.match(text, end)
        if unit is not None:
            candidate += unit.group()
        kind = _VOLATILE_TOKEN_RE.fullmatch(candidate)
        if kind is None and unit is not None:
            candidate = candidate[: -len(unit.group())]
            kind = _VOLATILE_TOKEN_RE.fullmatch(candidate)
        if kind is not None:
            out.append(text[pos:start])
            out.append(_PLACEHOLDERS[kind.lastgroup or "hex"])
            pos = start + len(candidate)
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


def normalize(text: str) -> str:
    """Normalise a text before tokenising and hashing it.

    Applies Unicode NFKC, lower-cases, and replaces volatile tokens (UUIDs, hex
    identifiers, clock times, measured durations) by placeholders; other numbers are
    kept (see the module docstring for the rule and its reasons).

    Parameters
    ----------
    text : str
        Any text.

    Returns
    -------
    str
        The normalised text (whitespace is left to :func:`tokenize`).

    Examples
    --------
    >>> normalize("Commit 3f9a2c1e done in 3.21s at 12:04:55, 62 passed")
    'commit  _hex_  done in  _dur_  at  _time_ , 62 passed'
    """
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    text = text.lower()
    return _replace_volatile(text)


def tokenize(text: str) -> list[str]:
    """Split a text into normalised word tokens.

    The text is first passed through :func:`normalize` (NFKC, lower-case, volatile
    placeholders).  Tokens are then Unicode ``\\w+`` runs, except that every
    Chinese/Japanese character (ideograph, kana) is a token of its own, since these
    scripts do not separate words with spaces.  Punctuation and whitespace only
    separate tokens.

    Parameters
    ----------
    text : str
        Any text.

    Returns
    -------
    list of str
        Tokens in text order; empty for empty, whitespace-only or punctuation-only text.

    Examples
    --------
    >>> tokenize("Ran  62 tests: 3 FAILED!")
    ['ran', '62', 'tests', '3', 'failed']
    >>> tokenize("测试失败 in parser.py")
    ['测', '试', '失', '败', 'in', 'parser', 'py']
    """
    text = normalize(text)
    if text.isascii():  # same result as the regex, several times faster
        return text.encode("ascii").translate(_ASCII_NON_WORD).decode("ascii").split()
    return _TOKEN_RE.findall(text)


def is_cjk(text: str) -> bool:
    """Tell whether a text is mainly Chinese/Japanese.

    The rule: the text contains at least one CJK character (ideograph or kana, by
    Unicode block) and at least as many CJK characters as other word tokens (so a
    Chinese sentence that mentions ``pytest`` or a file name is still CJK, while an
    English sentence quoting one Chinese word is not).

    Parameters
    ----------
    text : str
        Any text, usually one line.

    Returns
    -------
    bool
    """
    if text.isascii():
        return False
    n_cjk = len(_CJK_RE.findall(text))
    return n_cjk > 0 and n_cjk >= len(_NON_CJK_WORD_RE.findall(text))


@functools.lru_cache(maxsize=65_536)
def _token_symbol(token: str) -> int:
    """Stable symbol of a token for the polynomial hash, in [1, P)."""
    digest = hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest()
    # never 0: a zero symbol would make "x" and "0 x" the same polynomial
    return int.from_bytes(digest, "little") % (HASH_MODULUS - 1) + 1


def _symbols(tokens: Sequence[str]) -> list[int]:
    table = {t: _token_symbol(t) for t in set(tokens)}
    return list(map(table.__getitem__, tokens))


def _roll(symbols: Sequence[int], n: int) -> list[int]:
    """Rabin–Karp rolling hash of every length-``n`` window of ``symbols`` (ints in [1, P))."""
    p = HASH_MODULUS
    b = HASH_BASE
    if n > len(symbols):
        return []
    h = 0
    for x in symbols[:n]:
        h = (h * b + x) % p
    out = [h]
    top = pow(b, n - 1, p)  # weight of the symbol leaving the window
    for i in range(n, len(symbols)):
        h = ((h - symbols[i - n] * top) * b + symbols[i]) % p
        out.append(h)
    return out


_U64 = npt.NDArray[np.uint64]
_P64 = np.uint64(HASH_MODULUS)
_B64 = np.uint64(HASH_BASE)
_MASK32 = np.uint64(0xFFFF_FFFF)
_MASK29 = np.uint64((1 << 29) - 1)
_S29, _S32, _S61 = np.uint64(29), np.uint64(32), np.uint64(61)
#: Below this many symbols the pure-Python rolling loop beats numpy's per-call overhead.
_VECTOR_MIN = 64


def _mul_base_add(acc: _U64, x: _U64) -> _U64:
    """``(acc * HASH_BASE + x) mod P`` elementwise, exactly, in uint64 (acc, x < P)."""
    # acc = hi * 2**32 + lo, so acc * B = (hi * B) * 2**32 + lo * B, with
    # hi * B < 2**61 and lo * B < 2**64.  Since 2**61 = 1 (mod P), multiplying
    # y = yh * 2**29 + yl by 2**32 gives yh + yl * 2**32 (mod P).
    y = (acc >> _S32) * _B64
    r1 = ((y & _MASK29) << _S32) + (y >> _S29)  # < 2**61 + 2**32
    z = (acc & _MASK32) * _B64
    r2 = (z & _P64) + (z >> _S61)  # < 2**61 + 8
    s = r1 + r2 + x  # < 2**63
    s = (s & _P64) + (s >> _S61)  # < P + 4
    return np.where(s >= _P64, s - _P64, s)


def _fingerprints(tokens: Sequence[str], n: int) -> _U64:
    """:func:`rolling_hashes` of ``tokens`` as a uint64 array, vectorised when long.

    Long sequences evaluate the same polynomial by Horner's rule across all windows at
    once, with exact 64-bit modular arithmetic (O(n · len) in numpy, ~10x faster than
    the Python rolling loop here); short ones use the rolling loop.  Both give identical
    values (tested).
    """
    m = len(tokens) - n + 1
    if m <= 0:
        return np.zeros(0, dtype=np.uint64)
    if len(tokens) < _VECTOR_MIN:
        return np.array(_roll(_symbols(tokens), n), dtype=np.uint64)
    table = {t: _token_symbol(t) for t in set(tokens)}
    sym = np.fromiter(map(table.__getitem__, tokens), dtype=np.uint64, count=len(tokens))
    acc = sym[:m].copy()
    for j in range(1, n):
        acc = _mul_base_add(acc, sym[j : j + m])
    return acc


def rolling_hashes(tokens: Sequence[str] | str, n: int) -> list[int]:
    """Hash every n-gram of a token sequence with a Rabin–Karp rolling hash.

    Each n-gram ``(t_0, …, t_{n-1})`` is hashed as the polynomial
    ``sum(x(t_j) * B**(n-1-j)) mod P`` with the Mersenne prime ``P = 2**61 - 1``
    (:data:`HASH_MODULUS`) and the fixed base ``B`` (:data:`HASH_BASE`).  The next
    n-gram's hash is obtained from the previous one in O(1) by removing the leading
    symbol and appending the new one [1]_, so the total cost is O(len(tokens)).
    Symbols are stable across processes (Python's randomised ``hash()`` is never used):
    a token ``t`` maps to ``x(t) = blake2b_64(utf-8(t)) mod (P-1) + 1``; for a ``str``
    input the n-grams are over characters and ``x(c) = ord(c) + 1``.

    Parameters
    ----------
    tokens : sequence of str, or str
        The tokens (e.g. from :func:`tokenize`), or a string for character n-grams.
    n : int
        n-gram length, in tokens (or characters), ``n >= 1``.

    Returns
    -------
    list of int
        ``max(0, len(tokens) - n + 1)`` hashes in ``[0, 2**61 - 1)``, one per n-gram in
        order; equal n-grams have equal hashes.

    Raises
    ------
    ValueError
        If ``n < 1``.

    References
    ----------
    .. [1] Karp, R. M. and Rabin, M. O. (1987). Efficient randomized pattern-matching
       algorithms. *IBM Journal of Research and Development*, 31(2), 249–260.

    Examples
    --------
    >>> h = rolling_hashes(["a", "b", "a", "b"], 2)
    >>> len(h), h[0] == h[2], h[0] == h[1]
    (3, True, False)
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be an int >= 1, got {n!r}")
    if isinstance(tokens, str):
        return _roll([ord(c) + 1 for c in tokens], n)
    return _roll(_symbols(tokens), n)


def jaccard(a: AbstractSet[int], b: AbstractSet[int]) -> float:
    """Jaccard coefficient (Broder's *resemblance*) of two sets.

    Parameters
    ----------
    a, b : set of int
        e.g. n-gram hash sets from :func:`rolling_hashes`.

    Returns
    -------
    float
        ``|a ∩ b| / |a ∪ b|`` in [0, 1]; 0.0 when both sets are empty.

    References
    ----------
    .. [1] Broder, A. Z. (1997). On the resemblance and containment of documents.
       *Proceedings of Compression and Complexity of SEQUENCES 1997*, 21–29.

    Examples
    --------
    >>> jaccard({1, 2, 3}, {2, 3, 4})
    0.5
    """
    if not a and not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


_SEGMENTERS = threading.local()  # pysbd.Segmenter keeps per-call state: one per thread

# pysbd hands ``re`` its patterns as strings, many of them built from the abbreviations it
# meets: ~940 distinct patterns over the benchmark's steps, more than ``re``'s cache keeps
# (512), so they were compiled again and again (1,308 compiles in 638 new steps, a third of
# the engine's own time per step; scripts/profile_step.py). A larger bound keeps them all.
_RE_CACHE_SIZE = 4_096
if getattr(re, "_MAXCACHE", _RE_CACHE_SIZE) < _RE_CACHE_SIZE:
    setattr(re, "_MAXCACHE", _RE_CACHE_SIZE)  # noqa: B010  (a private bound of the standard library)


def _segmenter(language: str) -> Any:
    cache: dict[str, Any] | None = getattr(_SEGMENTERS, "cache", None)
    if cache is None:
        cache = {}
        _SEGMENTERS.cache = cache
    seg = cache.get(language)
    if seg is None:
        seg = pysbd.Segmenter(language=language, clean=False)
        cache[language] = seg
    return seg


# Fast path for English lines whose sentence boundaries are unambiguous (see
# _unambiguous_sentences).  pysbd's own abbreviation list decides what is ambiguous.
_EN_ABBREVIATIONS = frozenset(a for a in _PysbdEnglish.Abbreviation.ABBREVIATIONS if "." not in a)
_EN_EXCLAMATION_WORDS = frozenset({"yahoo", "yum"})  # pysbd keeps "Yahoo!" / "Yum!" whole
_ROMAN_RE = re.compile(r"[ivxlcdm]+")  # pysbd may read "ii." as a list item
# Anything pysbd treats specially: quotes, brackets, em-dash pairs ("--"), runs of
# whitespace, apostrophes that are not inside a word, and any terminator that is not
# followed by spaces and a capital letter, or by the end of the line.
_AMBIGUOUS_LINE_RE = re.compile(r"""["()\[\]{}<>;]|--|\s{3,}|\t|(?<![A-Za-z])'|'(?![A-Za-z])|[.!?](?! +[A-Z]| *$)""")
_TERMINATOR_RE = re.compile(r"(?:(?<= )|^)([A-Za-z]{2,})[.!?]|[.!?]")
_AFTER_TERMINATOR_RE = re.compile(r"(?<=[.!?]) +")


def _unambiguous_sentences(line: str) -> list[str] | None:
    """Split an English line without pysbd when its boundaries are unambiguous, else None.

    Unambiguous: ASCII only; no quotes, brackets, ``--``, ``;`` or odd whitespace; every
    ``.``, ``!`` or ``?`` ends the line or is followed by spaces and a capital letter, and
    follows a whole word of two or more letters that is neither in pysbd's abbreviation
    list nor a roman numeral.  pysbd splits such lines exactly there (property-tested
    against pysbd), so skipping it changes nothing but the cost.
    """
    if not line.isascii() or _AMBIGUOUS_LINE_RE.search(line):
        return None
    for m in _TERMINATOR_RE.finditer(line):
        word = m.group(1)
        if word is None:
            return None
        word = word.lower()
        if word in _EN_ABBREVIATIONS or word in _EN_EXCLAMATION_WORDS or _ROMAN_RE.fullmatch(word):
            return None
    return _AFTER_TERMINATOR_RE.split(line)


@functools.lru_cache(maxsize=4_096)
def _split_line(line: str, language: str) -> tuple[str, ...]:
    """Sentences of one non-empty line (cached: a looping agent repeats its lines)."""
    pieces: list[str] | None
    if is_cjk(line):
        pieces = _CJK_SENTENCE_RE.findall(line)
    else:
        pieces = _unambiguous_sentences(line) if language == "en" else None
        if pieces is None:
            pieces = _segmenter(language).segment(line)
    return tuple(s for s in (p.strip() for p in pieces) if s)


def split_sentences(text: str, language: str = "en") -> list[str]:
    """Split a text into sentences, offline.

    The text is cut at line breaks first (pysbd itself always ends a sentence at a
    newline, and working line by line keeps its cost linear).  Each line that is mainly
    Chinese/Japanese (:func:`is_cjk`) is split by our own rule: a sentence ends after a
    run of ``。 ． ！ ？ ! ? ；`` and any closing quotes or brackets that follow it
    (pysbd's CJK support is limited).  Every other line is segmented by pysbd [1]_
    (``pysbd.Segmenter(language=language, clean=False)``), which handles abbreviations,
    decimals, initials, lists, quotes and ellipses; English lines whose split pysbd would
    make anyway are split without it (see Notes).  NLTK's punkt is not used (it needs a
    download).

    Parameters
    ----------
    text : str
        Any text.
    language : str, default "en"
        ISO 639-1 code of the pysbd rules used for non-CJK lines (one of
        ``pysbd.languages.LANGUAGE_CODES``).

    Returns
    -------
    list of str
        Sentences stripped of surrounding whitespace, in order; no empty strings.

    Raises
    ------
    ValueError
        If ``language`` is not supported by pysbd.

    Notes
    -----
    pysbd is slow and uneven: about 0.15 ms per call plus 3–5 µs per character on this
    kind of machine, with spikes of 10–20 ms on short lines (it compiles regular
    expressions built from the words it meets).  Three things keep the cost down, none
    of which changes the result:

    * an English line whose boundaries are unambiguous (ASCII; no quotes, brackets,
      ``--`` or ``;``; every ``.``/``!``/``?`` ends the line or is followed by a capital
      letter, after a whole word of two or more letters that is neither in pysbd's
      abbreviation list nor a roman numeral) is split at those terminators directly,
      which is exactly what pysbd returns for it (property-tested against pysbd); about
      60% of the lines of the project's benchmark trajectories qualify;
    * lines already seen are served from a small LRU cache (a looping agent repeats
      them);
    * :class:`TextualTracker` bounds the characters it segments
      (:attr:`TextualConfig.sentence_max_chars`).

    References
    ----------
    .. [1] Sadvilkar, N. and Neumann, M. (2020). PySBD: Pragmatic Sentence Boundary
       Disambiguation. *Proceedings of NLP-OSS 2020*.

    Examples
    --------
    >>> split_sentences("Dr. Smith went to Washington. He arrived at 3 p.m. on Monday.")
    ['Dr. Smith went to Washington.', 'He arrived at 3 p.m. on Monday.']
    >>> split_sentences("测试失败了。为什么？")
    ['测试失败了。', '为什么？']
    """
    if language not in LANGUAGE_CODES:
        raise ValueError(f"language must be one of {sorted(LANGUAGE_CODES)} (pysbd), got {language!r}")
    out: list[str] = []
    for line in text.splitlines():
        if line and not line.isspace():
            out.extend(_split_line(line, language))
    return out


# ---------------------------------------------------------------------------------------
# Configuration and signals
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TextualConfig:
    """Hyper-parameters of :class:`TextualTracker`.

    Parameters
    ----------
    window : int, default 8
        Number of earlier steps each new step is compared with, ``>= 1``.  Eight covers
        the cycle periods 2–6 the progress signals look for, with margin.
    word_n : int, default 4
        Word n-gram (shingle) length, in tokens, ``>= 1``.  Broder [2]_ used 10-word
        shingles for whole web pages; agent steps are 20–300 words, so shorter
        shingles keep enough of them per text while 4-word phrases shared by chance
        between unrelated narration stay rare.  One edited word removes at most
        ``word_n`` shingles.  For Chinese/Japanese a token is one character, so these
        are 4-character shingles.
    char_n : int, default 5
        Character n-gram length, ``>= 1``, for the fallback used when both compared
        texts have fewer than ``min_words`` tokens (short texts, text without spaces).
        The fallback shingles the normalised tokens joined by single spaces (at most
        :data:`CHAR_FALLBACK_MAX_CHARS` characters).
    min_words : int, default 8
        Texts with fewer tokens than this also get character n-grams, ``>= 1``.
    max_chars : int, default 20000
        Characters of each step's text (from its start) used for the n-gram signals,
        ``>= 1``.  Long tool outputs are not this module's input; the n-gram part of a
        step text of this size takes ~2–4 ms.
    sentence_max_chars : int, default 600
        Characters of each step's text split into sentences, ``>= 1``: the whole text
        when it is no longer than this, else its first ``sentence_max_chars // 2`` and
        its last remaining characters (where an agent states what it saw and what it
        will do next).  pysbd costs ~0.15 ms per line plus 3–5 µs per character on this
        kind of machine (lines it would split trivially skip it, see
        :func:`split_sentences`), by far the largest cost of an update, so this is the
        knob that trades the sentence signals' coverage for speed.  600 covers a typical
        step's narration (a few sentences) in full and keeps the sentence part to a few
        milliseconds at worst.
    verbatim_run : int, default 20
        A shared run of at least this many consecutive words makes a step *verbatim*,
        ``>= word_n``.  Twenty words is longer than an average English sentence
        (~15–20 words), so one reused boilerplate sentence does not count but a copied
        passage does.
    verbatim_containment : float, default 0.7
        A containment (share of this step's n-grams found in one earlier step) at least
        this high also makes a step *verbatim*, in (0, 1].  With 4-gram shingles one
        edited word costs at most 4 shingles, so 0.7 tolerates roughly one edit in every
        13 words, while paraphrases and unrelated texts score below 0.2.
    verbatim_min_words : int, default 10
        The containment rule applies only to steps with at least this many tokens,
        ``>= 1``; shorter texts ("Let me check.") recur too naturally to be evidence.
    sentence_threshold : float, default 0.6
        A sentence counts as repeated when the Jaccard similarity of its content-word
        set with some earlier sentence's is at least this, in (0, 1].  A reworded
        sentence with the same content words ("the test fails because the parser drops
        the last token" / "because the parser drops the final token, the test fails")
        scores ~0.7; two sentences that share a topic but state different facts
        ("the parser drops the last token" / "I fixed the parser so it keeps the last
        token") score ~0.5.
    min_sentence_terms : int, default 3
        Sentences with fewer content words (CJK: character bigrams) than this are
        ignored by the sentence signals, ``>= 1``: "Done." or "Let me check." would
        match any other short sentence.
    language : str, default "en"
        pysbd language code for non-CJK sentence splitting.

    Raises
    ------
    ValueError
        Naming the parameter, when a value is out of range or of the wrong type.

    References
    ----------
    .. [2] Broder, A. Z. (1997). On the resemblance and containment of documents.
    """

    window: int = 8
    word_n: int = 4
    char_n: int = 5
    min_words: int = 8
    max_chars: int = 20_000
    sentence_max_chars: int = 600
    verbatim_run: int = 20
    verbatim_containment: float = 0.7
    verbatim_min_words: int = 10
    sentence_threshold: float = 0.6
    min_sentence_terms: int = 3
    language: str = "en"

    def __post_init__(self) -> None:
        for name in (
            "window",
            "word_n",
            "char_n",
            "min_words",
            "max_chars",
            "sentence_max_chars",
            "verbatim_run",
            "verbatim_min_words",
            "min_sentence_terms",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an int >= 1, got {value!r}")
        for name in ("verbatim_containment", "sentence_threshold"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or not 0.0 < value <= 1.0:
                raise ValueError(f"{name} must be a number in (0, 1], got {value!r}")
        if self.verbatim_run < self.word_n:
            raise ValueError(f"verbatim_run must be >= word_n ({self.word_n}), got {self.verbatim_run!r}")
        if not isinstance(self.language, str) or self.language not in LANGUAGE_CODES:
            raise ValueError(f"language must be one of {sorted(LANGUAGE_CODES)} (pysbd), got {self.language!r}")


@dataclass(frozen=True)
class TextualSignals:
    """Textual recurrence of one step relative to the earlier steps in the window.

    Attributes
    ----------
    ngram_jaccard : float
        Max over the window of the Jaccard coefficient (Broder's resemblance) of this
        text's n-gram hash set and an earlier text's, in [0, 1].  Word n-grams; character
        n-grams when both texts have fewer than ``min_words`` tokens.
    containment : float
        Max over the window of ``|A ∩ B| / |A|``, the share of this step's n-grams
        already present in one earlier step, in [0, 1].
    longest_run : int
        Longest run of consecutive word n-grams of this text that are all present in
        one earlier step's set, in words (``run + word_n - 1``), ``>= 0``.  Runs are
        measured against the earlier step's n-gram *set*, so overlapping n-grams taken
        from different places of it may join; with ``word_n >= 3`` this is rare.
    verbatim : bool
        Near-verbatim recurrence: ``longest_run >= verbatim_run``, or
        ``containment >= verbatim_containment`` for a step with at least
        ``verbatim_min_words`` tokens.  Structural evidence.
    sentence_similarity : float
        Max Jaccard coefficient between the content-word set of one of this step's
        sentences and that of a sentence of an earlier step in the window, in [0, 1].
        Lexical only: shared vocabulary is not shared meaning.
    repeated_sentences : float
        Share of this step's sentences (those with at least ``min_sentence_terms``
        content words) whose best match reaches ``sentence_threshold``, in [0, 1].
    matched_step : int or None
        Index (0-based, counted since the run started or was reset) of the earlier step
        with the highest ``ngram_jaccard``; the most recent one on ties; ``None`` when
        no earlier step shares an n-gram.
    """

    ngram_jaccard: float = 0.0
    containment: float = 0.0
    longest_run: int = 0
    verbatim: bool = False
    sentence_similarity: float = 0.0
    repeated_sentences: float = 0.0
    matched_step: int | None = None

    def as_dict(self) -> dict[str, float]:
        """Flat numeric view for machine-readable verdicts.

        Returns
        -------
        dict of str to float
            Every field as a float (``verbatim`` as 0.0/1.0); ``matched_step`` is
            omitted when it is ``None``.
        """
        out: dict[str, float] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue
            out[f.name] = float(value)
        return out


# ---------------------------------------------------------------------------------------
# Tracker
# ---------------------------------------------------------------------------------------

_EMPTY: _U64 = np.zeros(0, dtype=np.uint64)
_NO_INDEX: npt.NDArray[np.intp] = np.zeros(0, dtype=np.intp)
_EMPTY_MASK: npt.NDArray[np.bool_] = np.zeros(0, dtype=bool)


@dataclass(frozen=True)
class _Entry:
    """What is kept of one earlier step: hash sets and sentence word sets, no text."""

    step: int
    words: _U64  # sorted unique word n-gram hashes
    chars: _U64 | None  # sorted unique char n-gram hashes (short texts only)
    sentences: tuple[frozenset[str], ...]  # content-word sets of eligible sentences


def _unique_inverse(seq: _U64) -> tuple[_U64, npt.NDArray[np.intp]]:
    """Sorted unique values of ``seq`` and, per position, the index of its value."""
    order = np.argsort(seq)
    ordered = seq[order]
    first = np.empty(seq.size, dtype=bool)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    inverse = np.empty(seq.size, dtype=np.intp)
    inverse[order] = np.cumsum(first) - 1
    return ordered[first], inverse


def _in_sorted(values: _U64, sorted_set: _U64) -> npt.NDArray[np.bool_]:
    """Membership of each of ``values`` in the sorted unique, non-empty ``sorted_set``."""
    idx = np.searchsorted(sorted_set, values)
    np.minimum(idx, sorted_set.size - 1, out=idx)
    return np.asarray(sorted_set[idx] == values)


def _longest_true_run(mask: npt.NDArray[np.bool_]) -> int:
    padded = np.concatenate(([0], mask.view(np.int8), [0]))
    diff = np.diff(padded)
    starts = np.flatnonzero(diff == 1)
    if starts.size == 0:
        return 0
    ends = np.flatnonzero(diff == -1)
    return int((ends - starts).max())


def _sentence_terms(sentence: str) -> frozenset[str]:
    """Content words of a sentence: non-stop-word tokens; CJK runs as character bigrams."""
    terms: set[str] = set()
    run: list[str] = []  # current run of consecutive CJK tokens

    def flush() -> None:
        if len(run) == 1:
            terms.add(run[0])
        else:
            terms.update(run[i] + run[i + 1] for i in range(len(run) - 1))
        run.clear()

    for tok in tokenize(sentence):
        if len(tok) == 1 and _CJK_RE.match(tok):
            run.append(tok)
            continue
        if run:
            flush()
        if tok not in STOP_WORDS:
            terms.add(tok)
    if run:
        flush()
    return frozenset(terms)


def _sentence_source(text: str, cap: int) -> list[str]:
    """The parts of ``text`` that are split into sentences: all of it, or head and tail."""
    if len(text) <= cap:
        return [text]
    head = cap // 2
    return [text[:head], text[len(text) - (cap - head) :]]


class TextualTracker:
    """Per-run tracker of step-level textual recurrence.

    Feed it one text per step with :meth:`update`; it compares the text with the
    texts of the last ``config.window`` steps and returns :class:`TextualSignals`, then
    remembers the text's n-gram hash sets and sentence word sets (never the raw text).

    Cost per update: O(len(text) + window · set size), with the text bounded by
    ``config.max_chars`` (n-grams) and ``config.sentence_max_chars`` (sentences).

    The tracker is deterministic (same texts in the same order give the same signals,
    in any process) and picklable at any point, so a durable store can persist it.

    Parameters
    ----------
    config : TextualConfig, optional
        Hyper-parameters; ``TextualConfig()`` when omitted.

    Attributes
    ----------
    config : TextualConfig
        The hyper-parameters, as given.
    n_steps : int
        Steps observed since creation or the last :meth:`reset`.

    Raises
    ------
    TypeError
        If ``config`` is not a :class:`TextualConfig`.

    References
    ----------
    .. [1] Karp, R. M. and Rabin, M. O. (1987). Efficient randomized pattern-matching
       algorithms. *IBM Journal of Research and Development*, 31(2), 249–260.
    .. [2] Broder, A. Z. (1997). On the resemblance and containment of documents.
       *Proceedings of Compression and Complexity of SEQUENCES 1997*, 21–29.

    Examples
    --------
    >>> tracker = TextualTracker()
    >>> para = ("The parser drops the last token when the input ends without a newline, "
    ...         "so the test for trailing comments fails; I will add the newline check "
    ...         "to the tokenizer and run the suite again.")
    >>> _ = tracker.update(para)
    >>> _ = tracker.update("Running the test suite now.")
    >>> s = tracker.update(para.replace("again", "once more"))
    >>> s.verbatim, s.matched_step, s.longest_run, round(s.ngram_jaccard, 2)
    (True, 0, 33, 0.91)
    """

    def __init__(self, config: TextualConfig | None = None) -> None:
        if config is None:
            config = TextualConfig()
        if not isinstance(config, TextualConfig):
            raise TypeError(f"config must be a TextualConfig, got {type(config).__name__}")
        self.config = config
        self._reset()

    def _reset(self) -> None:
        self._history: deque[_Entry] = deque(maxlen=self.config.window)
        self._n_steps = 0

    def reset(self) -> None:
        """Forget every step seen so far (the configuration is kept)."""
        self._reset()

    @property
    def n_steps(self) -> int:
        """Number of steps observed since creation or the last :meth:`reset`."""
        return self._n_steps

    def update(self, text: str) -> TextualSignals:
        """Observe the next step's text.

        Parameters
        ----------
        text : str
            The agent's text for this step (empty and whitespace-only are fine and
            give all-zero signals).

        Returns
        -------
        TextualSignals
            This step's recurrence relative to the last ``window`` steps (before this
            one is added).

        Raises
        ------
        TypeError
            If ``text`` is not a ``str``.
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        cfg = self.config
        # word n-grams, with the positions kept for the shared-run length
        tokens = tokenize(text[: cfg.max_chars])
        n_eff = min(cfg.word_n, len(tokens))  # a text shorter than n is one shingle
        if n_eff:
            words, inverse = _unique_inverse(_fingerprints(tokens, n_eff))
        else:
            words, inverse = _EMPTY, _NO_INDEX
        # character n-grams for short texts
        chars: _U64 | None = None
        if 0 < len(tokens) < cfg.min_words:
            joined = " ".join(tokens)[:CHAR_FALLBACK_MAX_CHARS]
            chars = np.unique(np.array(rolling_hashes(joined, min(cfg.char_n, len(joined))), dtype=np.uint64))
        # sentences
        sentences = tuple(
            terms
            for part in _sentence_source(text, cfg.sentence_max_chars)
            for terms in map(_sentence_terms, split_sentences(part, cfg.language))
            if len(terms) >= cfg.min_sentence_terms
        )
        entry = _Entry(step=self._n_steps, words=words, chars=chars, sentences=sentences)
        signals = self._compare(entry, inverse, n_eff, len(tokens))
        self._history.append(entry)
        self._n_steps += 1
        return signals

    # -- internals ----------------------------------------------------------------------

    def _compare(self, entry: _Entry, inverse: npt.NDArray[np.intp], n_eff: int, n_tokens: int) -> TextualSignals:
        cfg = self.config
        best_j = 0.0
        best_c = 0.0
        best_run = 0
        matched: int | None = None
        for past in self._history:  # oldest first, so ">=" keeps the most recent on ties
            shared = _EMPTY_MASK
            if entry.words.size and past.words.size:
                shared = _in_sorted(entry.words, past.words)
            if entry.chars is not None and past.chars is not None:
                a, b = entry.chars, past.chars
                inter = int(np.count_nonzero(_in_sorted(a, b)))
            else:
                a, b = entry.words, past.words
                inter = int(np.count_nonzero(shared))
            if inter:
                j = inter / (a.size + b.size - inter)
                best_c = max(best_c, inter / a.size)
                if j >= best_j:
                    best_j, matched = j, past.step
            if shared.any():
                best_run = max(best_run, _longest_true_run(shared[inverse]) + n_eff - 1)
        verbatim = best_run >= cfg.verbatim_run or (n_tokens >= cfg.verbatim_min_words and best_c >= cfg.verbatim_containment)
        sim, repeated = self._sentence_signals(entry.sentences)
        return TextualSignals(
            ngram_jaccard=best_j,
            containment=best_c,
            longest_run=best_run,
            verbatim=verbatim,
            sentence_similarity=sim,
            repeated_sentences=repeated,
            matched_step=matched,
        )

    def _sentence_signals(self, sentences: tuple[frozenset[str], ...]) -> tuple[float, float]:
        if not sentences:
            return 0.0, 0.0
        earlier = [t for past in self._history for t in past.sentences]
        if not earlier:
            return 0.0, 0.0
        threshold = self.config.sentence_threshold
        best_all = 0.0
        n_repeated = 0
        for s in sentences:
            best = 0.0
            for t in earlier:
                inter = len(s & t)
                if inter:
                    best = max(best, inter / (len(s) + len(t) - inter))
            best_all = max(best_all, best)
            if best >= threshold:
                n_repeated += 1
        return best_all, n_repeated / len(sentences)

    def __repr__(self) -> str:
        return f"TextualTracker(config={self.config!r}, n_steps={self._n_steps})"
