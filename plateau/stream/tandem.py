r"""``stream.tandem``: a short unit repeated with slips -- an approximate tandem repeat.

A model that degenerates into a syllable, a glyph pair or a short token rarely keeps every copy
intact: a vowel slips (``zorazorazarazora``), a copy loses a character (``1sCj1sCj1Cj1Cj``),
a line break falls between two copies (``/C/C/C\n/C/C/C``). The exact detectors
(:mod:`~plateau.stream.period`, :mod:`~plateau.stream.fold`) see no period across the slip;
a reader sees one unit, again and again.

The detector reads the stream's last ``span_floor`` (96) columns with every run of whitespace
folded to one space and terminal control sequences removed (a wide character -- Han, kana,
hangul -- fills two columns) -- the span at which a run of a short unit with a word fires as
exact copies (:meth:`~plateau.stream.config.StreamGuardConfig.span_required`) -- and finds the
period *p*, a unit of fewer than ``copy_unit`` (16) columns, at which the window best matches
itself shifted by *p*: the *mismatches* are the positions ``j`` with ``w[j] != w[j - p]`` (the
Hamming distance of the window and its shift, the k-mismatch tandem repeat of Landau, Schmidt
and Sokol [1]_, the test Benson's Tandem Repeats Finder [2]_ uses). A substituted character
costs two mismatches, an inserted or dropped one at most *p* (the copies fall back into phase
one period later). It fires when, at one period,

- the mismatches are at most ``span_floor // tandem_slip_rate`` (default 12: at most one
  character in eight out of place). The budget: on the 7,452 real model responses of
  ``scripts/stream_false_alarms.py`` no window with a word comes below 25 mismatches at any
  period under 16 (the nearest are dividers with a label); 12 is half of it;
- at least half of the copies equal the copy before them: a slip is the exception, while a slot
  that changes in every copy (``Option A Option B Option C``) is an enumeration;
- the window's first and last copies are one unit, read as a cycle: a slip leaves the unit as
  it was, where a run that gives way to a run of another unit (a typing drill's ``frf juj``
  lines, then its ``ded kik`` lines) differs from it only at a copy's length of positions --
  the signature of one dropped character -- and is two runs, each judged by its own span;
- the first and the last copy compared hold no mismatch: the run covers the whole window (text
  before or after a run is no slip, and an exact run is judged by its own span). An inserted or
  dropped character costs up to a period of mismatches, and a line break between two copies
  one or two: a run whose copies keep gaining and losing characters (``zorazazorazorzara``), or
  whose lines break every few copies, can exceed the budget and is left to the other rules;
- no mismatch pairs two digits: a counter that moves between copies is an enumeration
  (``n=61 n=62``), the progress layer's reading of recurrence with progress;
- and the unit has a word: a letter (any script) in the unit and letters in a quarter of the
  window; a grid of one letter (every token one letter, ``o - o - o``, over several lines) is
  layout, as :mod:`~plateau.stream.fold` reads it. Numbers (times, figures, table cells of them) and layout (dividers, borders, leaders
  with a stray letter) are left to the exact rules for units without a word
  (:mod:`~plateau.stream.period`).

Quoted program output and code -- text inside an open code fence, or an answer the request asks
to paste (:attr:`~plateau.stream.context.RequestContext.pastes_output`) -- are left to the exact
detectors and their quoted budgets: a test runner's progress line is a run of one letter with
slips. A request that asks for the repetition excuses it as for every detector.

An exact run fires here too, at the same span as :mod:`~plateau.stream.period` (or later: the
window counts folded characters), so on exact copies the earlier fire is that detector's.

Timing: at every block end whose folded text ends as a run's last copy does (:func:`_recurs`)
the window ending there is judged; while the last half window holds few enough 3-grams for a run,
a check is armed (:class:`~plateau.stream.result.Armed`) every ``copy_unit`` characters until
the run breaks or fires, so a fire lands within ``copy_unit`` characters of the first window
that passes, whatever the chunking. The fire reports the run from its first exact copy before
the window (the unit read in the phase the run began in).

Work per block, the common path: one ``split`` and ``join`` of the last 32 characters and one
``find`` over 18; past it, one ``re.sub`` over ``2 * span_floor`` characters and one ``set`` of
the last half window's 3-grams; the periods are compared only when those 3-grams are few enough
for a run within the budget -- a window of period *p* with *m* mismatches has at most ``p + 3m``
distinct 3-grams (every 3-gram that touches no mismatch is one of the first *p*), prose about
45 of its 46.

References
----------
.. [1] G. M. Landau, J. P. Schmidt and D. Sokol, "An algorithm for approximate tandem repeats",
   J. Comput. Biol. 8(1), 2001.
.. [2] G. Benson, "Tandem repeats finder: a program to analyze DNA sequences", Nucleic Acids
   Res. 27(2), 1999.
"""

from __future__ import annotations

import re

from plateau.stream.block import Block
from plateau.stream.config import StreamGuardConfig
from plateau.stream.result import Armed, Fire
from plateau.stream.text import HEX_DIGITS, boundary_shift, strip_controls, wide_count

__all__ = ["TandemDetector", "tandem_period"]

_WS = re.compile(r"\s+")
_GRAM = 3  # the gate's n-gram length: a mismatch touches at most this many


def _fold(raw: str) -> str:
    """``raw`` with terminal control sequences removed (they are not content) and every run of
    whitespace one space."""
    return _WS.sub(" ", strip_controls(raw))


def _window(raw: str, columns: int) -> str:
    """The shortest tail of ``raw`` that covers ``columns`` columns once folded (:func:`_fold`), a
    wide character (Han, kana, hangul, emoji) two columns (:func:`~plateau.stream.text.wide_count`)."""
    f = _fold(raw)
    w = f[len(f) - columns :]
    if w.isascii():
        return w
    k = columns - wide_count(w)
    while k < len(f) and k + wide_count(f[len(f) - k :]) < columns:
        k += 1
    return f[len(f) - k :]


def tandem_period(w: str, max_columns: int, rate: int) -> tuple[int, int]:
    """The period, shorter than ``max_columns`` columns, at which ``w`` matches itself with slips.

    A period *p* is a match when the mismatches ``w[j] != w[j - p]`` are at most ``len(w) //
    rate``, leave at least half of the copies equal to the copy before them (a slot that changes
    in every copy is an enumeration, not a slip), none falls in the first or the last copy
    compared (the run covers the whole window: text before or after it is no slip), and none
    pairs two digits (a counter that moves).

    Parameters
    ----------
    w
        The window (folded: :func:`_window`).
    max_columns
        Periods whose unit (the last *p* characters) covers fewer columns are tried (int >= 2).
    rate
        One mismatch allowed per ``rate`` characters (int >= 1).

    Returns
    -------
    tuple of int
        ``(p, m)``: the smallest period with the fewest mismatches, or ``(0, -1)`` when none.
    """
    n = len(w)
    budget = n // rate
    best_p, best_m = 0, budget + 1
    for p in range(1, n // 3 + 1):
        if p + wide_count(w[n - p :]) >= max_columns:
            break
        m = 0
        dirty = -1
        copies = 0
        ok = True
        for j in range(p, n):
            a = w[j]
            b = w[j - p]
            if a != b:
                if j < 2 * p or j >= n - p or (a.isdigit() and b.isdigit()):
                    ok = False
                    break
                m += 1
                if m >= best_m:
                    ok = False
                    break
                c = j // p
                if c != dirty:
                    dirty = c
                    copies += 1
        if ok and 2 * copies <= n // p - 1:
            best_p, best_m = p, m
            if m == 0:
                break
    return (best_p, best_m) if best_p else (0, -1)


class TandemDetector:
    """A unit shorter than ``copy_unit`` repeated over ``span_floor`` characters with slips.

    Parameters
    ----------
    config
        The guard's hyper-parameters (``span_floor``, ``copy_unit``, ``tandem_slip_rate``,
        ``min_chars``).

    Attributes
    ----------
    quoted : bool
        The whole answer is program output the request asks to paste: never fires.

    Examples
    --------
    >>> from plateau.stream import StreamGuard
    >>> text = "Sure! " + "zora" * 12 + "zara" + "zora" * 6 + "zaz" + "zora" * 12
    >>> guard = StreamGuard()
    >>> res = [guard.feed(text[i : i + 5]) for i in range(0, len(text), 5)]
    >>> next(r for r in res if r.fired).reason
    'stream.tandem'
    """

    def __init__(self, config: StreamGuardConfig) -> None:
        self.config = config
        self.quoted = False
        self._window = config.span_floor
        self._budget = config.span_floor // config.tandem_slip_rate
        # A window within the budget has at most (copy_unit - 1) + 3 * budget distinct 3-grams.
        self._gate = config.copy_unit - 1 + _GRAM * self._budget
        self._half_gate = config.copy_unit - 1 + _GRAM * (self._budget // 2)
        self._fences = 0

    def reset(self) -> None:
        """Forget the stream."""
        self._fences = 0

    def update(self, b: Block) -> Fire | None:
        """Judge the window ending with the block; arm a check while the run may be forming."""
        near = b.near
        c = near.count("```", max(0, b.nlo - 2))
        if c:
            self._fences += c
        if self.quoted or self._fences % 2 or b.end < self.config.min_chars:
            return None
        fire, arm = self._judge(near, b.near0, b.end)
        if arm:
            b.arm(Armed(at=b.end - 1 + self.config.copy_unit, source=self, key=("tandem",), data=()))
        return fire

    def confirm(self, armed: Armed, s: str, s0: int) -> Fire | Armed | None:
        """Judge the window ending at ``armed.at``; re-armed ``copy_unit`` further while the run goes on."""
        j = armed.at - s0 + 1
        if j > len(s) or j <= 0 or self.quoted or self._fences % 2:
            return None
        i = max(0, j - 2 * self._window)
        fire, arm = self._judge(s[i:j], s0 + i, armed.at + 1, armed=True)
        if fire is not None:
            return fire
        if arm:
            return Armed(at=armed.at + self.config.copy_unit, source=self, key=armed.key, data=())
        return None

    def _judge(self, raw: str, raw0: int, end: int, armed: bool = False) -> tuple[Fire | None, bool]:
        """The fire on the window of ``raw`` (absolute start ``raw0``) ending at ``end``, or whether
        to arm a check: while the last half window's 3-grams are few enough for a run (an armed
        check, ``armed``, skips the common path's test, so that a slip at the window's end does
        not break the chain)."""
        if not armed and not _recurs(raw):
            return None, False
        n = self._window
        cfg = self.config
        w = _window(raw[len(raw) - 2 * n :] if len(raw) > 2 * n else raw, n)
        half = w[len(w) - len(w) // 2 :]
        if len({half[i : i + _GRAM] for i in range(len(half) - _GRAM + 1)}) > self._half_gate:
            return None, False  # not even the last half window repeats
        rate = cfg.tandem_slip_rate
        if len(w) + wide_count(w) >= n and len({w[i : i + _GRAM] for i in range(len(w) - _GRAM + 1)}) <= self._gate:
            p, m = tandem_period(w, cfg.copy_unit, rate)
            if (
                p
                and _one_unit(w, p)
                and _wordy(w, w[len(w) - p :])
                and not (_one_letter_cells(w) and "\n" in raw[len(raw) - _raw_span(raw, len(w)) :])
            ):
                # The run's first copy: extended back from the window while its copies are exact,
                # so that the unit is read in the phase the run began in (``加油``, not ``油加``).
                # The copy reported is rotated to start at a word, as the exact detectors report theirs.
                f = _fold(raw)
                i = len(f) - len(w)
                while i > 0 and f[i - 1] == f[i - 1 + p]:
                    i -= 1
                i += boundary_shift(f, i, p, len(f) - 1)
                start = raw0 + len(raw) - _raw_span(raw, len(f) - i)
                return (
                    Fire(
                        at=end - 1,
                        reason="stream.tandem",
                        unit=f[i : i + p],
                        period=p,
                        loop_start=start,
                        cut_offset=start + p,
                        copies=(len(f) - i) // p,
                    ),
                    False,
                )
        return None, True


def _recurs(raw: str) -> bool:
    """Whether the folded end of ``raw`` recurs within a period of fewer than 16 characters.

    Every window that may fire shows it (its last copy equals the one before it): the last
    character the one before it, the last two the two before them, or the last three at a
    distance of 3 to 15. The common path: one split, one join and one find.
    """
    tail = raw[len(raw) - 32 :]
    if "\x1b" in raw[len(raw) - 48 :]:
        tail = strip_controls(raw[len(raw) - 96 :])
    f = " ".join(tail.split())
    if tail[-1:].isspace():
        f += " "
    k = len(f)
    return k >= 4 and (
        f[k - 1] == f[k - 2] or (f[k - 1] == f[k - 3] and f[k - 2] == f[k - 4]) or f.find(f[k - 3 :], max(0, k - 18), k - 3) >= 0
    )


def _one_unit(w: str, p: int) -> bool:
    """Whether the window's first and last copies (``p`` characters each) are one unit, read as
    a cycle: a slip changes a character and leaves the unit as it was (``zorazorazarazora``),
    where two runs of different units back to back (``frf juj frf juj ded kik ded kik``)
    differ at a copy's length of positions only where one gives way to the other -- the
    signature of one dropped or inserted character -- and are two runs, each judged by its own
    span."""
    first, last = w[:p], w[len(w) - p :]
    return last in first + first


def _wordy(w: str, unit: str) -> bool:
    """A unit with a word: a letter (any script) in ``unit``, and letters in a quarter of ``w``.
    Numbers -- times, counts, table cells of figures, and a unit of hexadecimal digits in a window
    that holds numbers (a dump's bytes) -- are data, left to the exact rules for units without a
    word, as layout is."""
    if not any(ch.isalpha() for ch in unit):
        return False
    if all(ch in HEX_DIGITS for ch in unit if ch.isalnum()) and any(ch.isdigit() for ch in w):
        return False  # hexadecimal digits among numbers: a dump's bytes (``ff ff`` after ``000000f0``)
    return 4 * sum(1 for ch in w if ch.isalpha()) >= len(w)


def _one_letter_cells(w: str) -> bool:
    """Whether every whitespace-separated token of ``w`` that holds a letter holds exactly one (``o``,
    ``-o``): over several lines, a grid of one letter -- layout, as :mod:`~plateau.stream.fold`
    reads it -- not a chant."""
    return all(sum(1 for ch in t if ch.isalpha()) <= 1 for t in w.split())


def _raw_span(raw: str, n: int) -> int:
    """Raw characters at the end of ``raw`` that fold to its last ``n`` folded characters."""
    count = 0
    i = len(raw)
    while i > 0 and count < n:
        i -= 1
        if raw[i].isspace():
            while i > 0 and raw[i - 1].isspace():
                i -= 1
        count += 1
    return len(raw) - i
