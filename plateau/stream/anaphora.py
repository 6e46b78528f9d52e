"""``stream.anaphora``: sentences that keep opening with the same phrase while the rest changes.

A model that falls into a template restarts sentence after sentence with the same clause ("I
feel like I am ...", "The completed pattern is ...") and fills the rest with new words: no
period, no verbatim copy, yet a reader sees the unit come back. Issue 23's reading rule counts
copies of a unit of ``copy_unit`` (16) characters or more wherever they stand, so the phrase
that opens the sentences is such a unit, and the sentence that opens with its fourth copy
fires, on the chunk that completes the phrase there.

A sentence starts the stream, or follows a newline (and its indentation), or a ``.``, ``!`` or
``?`` (with closing quotes or brackets) and spaces, and begins with a letter: a bullet (``-``)
or a line of digits opens none. Its *opening* is its shortest prefix of ``copy_unit``
characters or more that ends at a word's end, lower-cased with whitespace folded; a sentence
that ends sooner, or is indented as code (four spaces, a tab), has none, and an opening that
holds a colon is a labelled field (``Error message: ...``), a record's, not a sentence's. Two
sentences that share an opening of 16 characters or more that ends at a word share this one.
Among the last ``anaphora_sentences`` (8) sentences, ``unit_copies`` (4) with one opening fire
when they read as a template written in prose:

- each opens with a capital (code and listings open in lower case: ``from typing import``);
- each stands on a line without code characters (``()=_/\\[]{}<>`$@#%^&*+|~``) or a dotted
  name (``a.b``, ``1.0``), outside an open code fence, and not after a list item's number
  (``3. ``): items of a list are an enumeration;
- the first three differ in their words, numbers aside: a template's filler varies. A refrain,
  a line asked for again and again, or copies that differ by a counter alone are judged by the
  detectors of repeated lines and counted copies;
- the answer is not output the request asks to paste, a plan whose items recur, parts the
  request counts ("ten example sentences"), or a song, a poem, a prayer or a speech, whose
  lines open alike by their form (``verse-forms``).

A request that quotes the opening ("start each sentence with 'I feel like I am'") excuses it
(:meth:`~plateau.stream.context.RequestContext.excuses`).

Cost: the window is read only for a block that recycles a word n-gram (one the novelty detector
counted before: ``Block.seen``) -- a template's sentences recycle theirs -- or while an opening
has three copies in it: one regular-expression pass over the last sentences (about 800
characters, 2,400 at most), their openings remembered by offset. While an opening has three
copies, the detector arms (:class:`~plateau.stream.result.Armed`) and reads the chunks that
follow, so the fire lands on the chunk that completes the fourth whatever the chunking.

The window, ``anaphora_sentences``, is measured on the real model responses of
``scripts/stream_false_alarms.py``: see :class:`~plateau.stream.StreamGuardConfig`.
"""

from __future__ import annotations

import re

from plateau.stream.block import Block
from plateau.stream.config import StreamGuardConfig
from plateau.stream.result import Armed, Fire
from plateau.stream.text import in_open_fence

__all__ = ["AnaphoraDetector"]

#: A sentence start: after a sentence end and spaces, or after a newline (and its indentation),
#: before a letter. Group 1 is the indentation after a newline.
_START = re.compile(r"[.!?\n](?:(?<=\n)([ \t]*)|(?<=[.!?])[\"'\u201d\u2019)\]]*[ \t]+)(?=[^\W\d_])")  # one class first: re's fast scan
#: Characters of code, paths, markup and program output; a dotted name or a version.
_CODE = re.compile(r"[()=_/\\\[\]{}<>`$@#%^&*+|~]|\w\.\w")
#: A list item's number in front of a sentence start (``1. ``, ``2) ``): the item opens no sentence.
_NUMBERED = re.compile(r"(?:^|\s)\d{1,3}[.)][ \t]+$")
_WORDS = re.compile(r"[^\W\d_]+")  # words without their numbers: copies that differ by a counter alone are stream.counted's
_SHORT_SENTENCE = 100  # characters of a sentence read first when looking back for the window
_SENTENCE = 300  # characters of a sentence read for the prose test


class AnaphoraDetector:
    """Sentences opening with the same phrase of ``copy_unit`` characters or more.

    Parameters
    ----------
    config
        The guard's hyper-parameters (``copy_unit``, ``unit_copies``, ``anaphora_sentences``,
        ``min_chars``).

    Attributes
    ----------
    asked : bool
        The request asks for what the detector would flag -- program output pasted, a plan
        whose items recur, parts it counts (``RequestContext.items``), or a verse or oratory
        form (``RequestContext.verse``): no fire.
    """

    def __init__(self, config: StreamGuardConfig) -> None:
        self.config = config
        self.asked = False
        self._region = config.anaphora_sentences * _SENTENCE
        self._watch = False  # an opening has unit_copies - 1 copies in the window
        self._keys: dict[int, tuple[str | None, int]] = {}  # sentence start -> (opening, its end), absolute

    def reset(self) -> None:
        """Forget the stream."""
        self._watch = False
        self._keys = {}

    def update(self, b: Block) -> Fire | None:
        """Judge the window of the last sentences when the block recycles a word n-gram (the
        novelty detector counted it: ``b.seen``) or an opening is on watch; arm while one is."""
        if not (b.seen or self._watch) or self.asked:
            return None
        fire = self._judge(b.s, b.s0)
        if fire is None and self._watch:
            b.arm(Armed(at=b.end, source=self, key=("anaphora",), data=()))
        return fire

    def confirm(self, armed: Armed, s: str, s0: int) -> Fire | Armed | None:
        """Judge the window again with the chunks since the last block (``s``, absolute start
        ``s0``): the fire on the chunk that completes the fourth opening, else re-armed for the
        next character while an opening is on watch."""
        fire = self._judge(s, s0)
        if fire is not None:
            return fire
        return Armed(at=s0 + len(s), source=self, key=armed.key, data=()) if self._watch else None

    def _judge(self, s: str, s0: int) -> Fire | None:
        """The last ``anaphora_sentences`` sentences of ``s`` (absolute start ``s0``) with their
        openings; the fire when ``unit_copies`` share one."""
        cfg = self.config
        want = cfg.anaphora_sentences
        lo = max(0, len(s) - want * _SHORT_SENTENCE)  # most windows: sentences of about 100 characters
        starts = [(m.end(), m.group(1)) for m in _START.finditer(s, lo)]
        if len(starts) < want and lo > 0:
            lo = max(0, len(s) - self._region)
            starts = [(m.end(), m.group(1)) for m in _START.finditer(s, lo)]
        if s0 == 0 and lo == 0 and s[:1].isalpha():
            starts.insert(0, (0, None))
        starts = starts[-cfg.anaphora_sentences :]
        need = cfg.unit_copies
        keys = self._keys
        if len(keys) > 4 * cfg.anaphora_sentences:
            for at in sorted(keys)[: len(keys) - cfg.anaphora_sentences]:
                del keys[at]
        hot: tuple[str, ...] = ()
        window: list[tuple[str, int, int]] = []
        counts: dict[str, int] = {}
        for i, indent in starts:
            if indent is not None and (len(indent) >= 4 or "\t" in indent):
                continue  # indented as code
            at = s0 + i
            known = keys.get(at)
            if known is None:
                key, stop = _opening(s, i, cfg.copy_unit, hot)
                if stop is not None:  # complete: an opening never changes once written
                    keys[at] = (key, s0 + stop)
            else:
                key, stop = known[0], known[1] - s0
            if key is None or stop is None or ":" in key:  # short, unfinished, or a labelled field (``Error: ...``)
                continue
            n = counts.get(key, 0) + 1
            counts[key] = n
            window.append((key, i, stop))
            if n == need - 1:
                hot += (key,)
            elif n >= need:
                self._watch = False
                return self._fire(key, window, s, s0)
        self._watch = bool(hot)
        return None

    def _fire(self, key: str, window: list[tuple[str, int, int]], s: str, s0: int) -> Fire | None:
        copies = [(i, stop) for k, i, stop in window if k == key]
        sentences = set()
        for n, (i, _) in enumerate(copies):
            if in_open_fence(s, i):
                return None
            # the sentence's line, up to _SENTENCE characters either side: prose holds no code
            lo = max(s.rfind("\n", max(0, i - _SENTENCE), i) + 1, i - _SENTENCE)
            hi = s.find("\n", i, i + _SENTENCE)
            line = s[lo : hi if hi >= 0 else i + _SENTENCE]
            if _CODE.search(line) or _NUMBERED.search(s, max(0, i - 8), i):
                return None
            if s[i].islower():  # prose opens a sentence with a capital (code, a listing: lower case)
                return None
            if n < len(copies) - 1:  # a complete sentence (ended by the next, or by its line): its words
                m = _START.search(s, i + 1, i + _SENTENCE)
                j = s.find("\n", i, m.start() if m else i + _SENTENCE)
                sentences.add(" ".join(_WORDS.findall(s[i : j if j >= 0 else (m.start() if m else i + _SENTENCE)].lower())))
        # A template's filler varies: copies of one whole sentence or line (a refrain, a line
        # asked for again and again) are the other detectors' to judge.
        if len(sentences) < len(copies) - 1:
            return None
        first, stop = copies[0]
        at = s0 + copies[-1][1] - 1
        if at + 1 < self.config.min_chars:
            return None
        return Fire(
            at=at,
            reason="stream.anaphora",
            unit=s[first:stop] + " ",  # the phrase and the space that ends it: a unit read from a word start
            period=None,
            loop_start=s0 + first,
            cut_offset=s0 + copies[1][0],
            copies=len(copies),
        )


_WORD_END = re.compile(r"[\w\u2019'-](?=[^\w\u2019'-])")


def _opening(text: str, i: int, unit: int, hot: tuple[str, ...] = ()) -> tuple[str | None, int | None]:
    """The opening of the sentence starting at ``text[i]``: ``(opening, end index)``, ``(None,
    end index)`` for a sentence that ends before ``unit`` characters, ``(None, None)`` while
    the text does not yet reach the end of the opening's last word. A sentence that starts with
    one of the ``hot`` openings (written with single spaces) has it as soon as it is written."""
    for k in hot:
        raw = text[i : i + len(k)]
        if len(raw) == len(k) and raw.lower() == k:
            return k, i + len(k)
    j = i + unit
    head = text[i:j]
    cut = min((k for k in (head.find("\n"), head.find(". "), head.find("! "), head.find("? ")) if k >= 0), default=-1)
    if cut >= 0:
        return None, i + cut
    if len(head) < unit:
        return None, None
    m = _WORD_END.search(text, j - 1)
    if m is None:
        return None, None
    stop = m.end()
    if stop >= len(text):
        return None, None
    raw = text[i:stop]
    if "\n" in raw:
        return None, i + raw.find("\n")
    return " ".join(raw.lower().split()), stop
