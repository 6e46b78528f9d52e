"""Information gain of a run: how many content terms each step adds that the run never had.

A stuck run keeps talking and keeps calling tools, but stops bringing anything new: no new
file names, numbers, error messages, facts. Per step, this module counts the *new content
terms* (lower-cased word tokens, stop words and one-character tokens removed, from the step's
text and the head of its tool result) that no earlier step of the run contained, and feeds
``log(1 + new_terms)`` to a calibrated stall test (median/MAD baseline learned on the run's
own warm-up, lower CUSUM; :class:`~plateau.detect.calibrated.CalibratedStallTest`).

New vocabulary naturally thins out over a long productive run (Heaps' law: the vocabulary of
a text grows sub-linearly with its length), so this evidence is never used alone: the fusion
trips a semantic stall only when this test *and* the semantic movement test both accumulate
evidence (:func:`plateau.fuse.fuse`). It is a lexical measure of information gain, not of
lexical similarity.

References
----------
H. S. Heaps, *Information Retrieval: Computational and Theoretical Aspects*, Academic Press,
1978 (vocabulary growth).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from plateau.config import Config
from plateau.signals.semantic import calibrated_test
from plateau.signals.textual import STOP_WORDS, tokenize

__all__ = ["InformationSignals", "InformationTracker", "content_terms"]

#: Characters of a tool result read for terms (its head; long logs repeat themselves).
RESULT_CHARS = 3000
#: Most distinct terms remembered per run (a bound on memory; ~50 bytes each).
MAX_TERMS = 200_000


def content_terms(text: str) -> set[str]:
    """Lower-cased word tokens of ``text`` without stop words and one-character tokens."""
    return {t for t in tokenize(text) if len(t) > 1 and t not in STOP_WORDS}


@dataclass(frozen=True)
class InformationSignals:
    """Information-gain signals of one step.

    Attributes
    ----------
    new_terms
        Content terms this step adds to the run (int >= 0).
    calibrating
        True while the test is learning the run's baseline.
    z
        Robust z-score of ``log(1 + new_terms)`` (None while calibrating).
    cusum
        CUSUM statistic of the information-gain test (baseline-scale units, >= 0).
    """

    new_terms: int = 0
    calibrating: bool = True
    z: float | None = None
    cusum: float = 0.0


class InformationTracker:
    """Per-run vocabulary and the calibrated information-gain test.

    Parameters
    ----------
    config
        Uses ``warmup_steps``, ``baseline_size``, ``scale_floor``, ``cusum_k``,
        ``cusum_steer`` and ``cusum_trip`` (the same settings as the semantic test).
    """

    def __init__(self, config: Config) -> None:
        self.config = config
        self._terms: set[str] = set()
        self._steps = 0
        self._test = calibrated_test(config)

    def reset_evidence(self) -> None:
        """Forget accumulated evidence (on progress), keeping the vocabulary and baseline."""
        self._test.reset_evidence()

    def update(self, text: str, result: str | None, *, informative: bool = True) -> InformationSignals:
        """Count the step's new terms and judge them; ``informative=False`` for a structural
        repeat (judged but not learned)."""
        terms = content_terms(text + " " + (result or "")[:RESULT_CHARS])
        new = terms - self._terms
        if len(self._terms) < MAX_TERMS:
            self._terms |= new
        self._steps += 1
        if self._steps == 1:  # everything is new on the first step: not a sample of normal gain
            return InformationSignals(new_terms=len(new))
        r = self._test.update(math.log1p(len(new)), informative=informative)
        return InformationSignals(
            new_terms=len(new),
            calibrating=r.calibrating,
            z=None if r.z is None else round(r.z, 4),
            cusum=round(r.statistic, 4),
        )
