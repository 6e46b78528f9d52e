"""The stream guard: incremental detectors of degenerate output in one streamed channel.

A :class:`StreamGuard` watches one channel of one streamed LLM response (``content``,
``reasoning`` or ``tool_args``). It is fed the chunks exactly as they arrive -- server-sent
deltas split words, lines and units anywhere -- and answers after every chunk with a
:class:`GuardResult`: has the stream degenerated into a loop, and if so, what repeats, where the
loop began and where to cut so that one copy of the repeated unit is kept (:func:`truncate`);
or, short of that, should the model be steered (``steer`` and ``message``).

One detector per module, composed by :mod:`plateau.stream.guard`:

=============================  ===============================================================
``stream.period`` / ``.run``    :mod:`~plateau.stream.period` -- exact repetition, any period,
                                fired on the chunk that completes its span;
                                :mod:`~plateau.stream.fold` -- copies equal once whitespace and
                                padding are folded
``stream.self_dialogue``        :mod:`~plateau.stream.dialogue` -- chat-template turns for both sides
``stream.stutter``              :mod:`~plateau.stream.stutter` -- doubled words, ``thethethe``
``stream.line_dominance``       :mod:`~plateau.stream.lines` -- a few lines fill the window
``stream.drift``                :mod:`~plateau.stream.drift` -- copies whose words or counters drift
``stream.counted``              :mod:`~plateau.stream.counted` -- copies that differ by one advancing
                                counter (``Attempt 3:``, ``the fourth``)
``stream.anaphora``             :mod:`~plateau.stream.anaphora` -- sentences that keep opening
                                with the same phrase while the rest changes (a template)
``stream.low_novelty``          :mod:`~plateau.stream.novelty` -- recycled word n-grams
``stream.recheck``              :mod:`~plateau.stream.recheck` -- a passage quoted again and again
                                (fires only with the semantic layer's corroboration)
``stream.semantic_loop``        :mod:`~plateau.stream.semantic_loop` -- recurrence of meaning (steers;
                                fires only with the wording's corroboration)
=============================  ===============================================================

:mod:`~plateau.stream.context` reads the request: requested uniform output does not fire
within the bound it states.

Cost and memory
---------------
The chunk path appends the chunk to a pending block and returns a result; every
``config.block`` characters (64) one block is analysed with C-level passes (slices,
``str.rfind``, ``findall``, ``Counter.update``), never a Python loop per character; half-way
through each block one ``rfind`` over 26 characters probes for short units, and a fire armed
for a later offset costs one slice comparison on the chunk that brings it. Memory is
bounded whatever the stream's length: the tail holds about ``2 * max_period + 4096``
characters, the normalised word text of the drift detector ``(drift_copies + 1) * max_period``,
the line window ``line_window`` lines, the n-gram multiset ``novelty_lookback`` n-grams (plus
one block), the folded text 512 bytes, the counted detector 32 gaps of at most 512 characters,
the dialogue detector 64 turns, the semantic layer 64 sentences and 4 batches. After
a fire the buffers are released and :meth:`StreamGuard.feed` only counts characters.
``scripts/bench_stream.py`` measures the cost per chunk against hermes-agent's line-window
guard (``bench.baselines.LineWindow``, in the repository) in the same run.

Compiled
--------
An install from the repository or the sdist compiles the per-block path (the block splitter, the
detectors and :mod:`~plateau.stream.text`; the guard itself stays Python) to C with mypyc
(``setup.py``); the sources are the same, and so are the verdicts, to the chunk. :data:`COMPILED`
says whether the compiled modules run. Without a C compiler, or with ``PLATEAU_PURE_PYTHON=1`` at install
time (the platform-independent wheel of ``make dist``), the same modules run as Python, about
1.5 times slower per chunk (``scripts/bench_stream.py``).
"""

from __future__ import annotations

from importlib.machinery import EXTENSION_SUFFIXES

from plateau.stream import period as _period
from plateau.stream.config import StreamGuardConfig
from plateau.stream.context import RequestContext
from plateau.stream.guard import StreamGuard
from plateau.stream.result import CHANNELS, DEFAULT_MARKER, GuardResult, truncate

#: True when the per-chunk path runs compiled (mypyc, ``setup.py``), False when it runs as Python.
COMPILED: bool = (_period.__file__ or "").endswith(tuple(EXTENSION_SUFFIXES))

__all__ = ["CHANNELS", "COMPILED", "DEFAULT_MARKER", "GuardResult", "RequestContext", "StreamGuard", "StreamGuardConfig", "truncate"]
