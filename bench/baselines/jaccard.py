r"""``jaccard``: consecutive outputs with word-set Jaccard >= 0.85, several times in a row.

Source
------
PyPI package ``agent-loop-detector`` 0.1.0 (MIT; the wheel was downloaded with pip and read:
``agent_loop_detector/detector.py`` ``LoopDetector.check`` and
``agent_loop_detector/similarity.py`` ``tokenize`` / ``jaccard_similarity``). Verified:

* ``tokenize(text) = re.findall(r"\b\w+\b", text.lower())``; Jaccard is computed over the
  *sets* of tokens; two empty texts have similarity 1.0, one empty text 0.0;
* each output is compared with the most recent previous output only (the ``window_size = 10``
  outputs it keeps feed statistics, not the decision);
* published defaults ``similarity_threshold=0.85``, ``max_consecutive=3``,
  ``algorithm='jaccard'``; similarity ``>=`` threshold counts as similar.

Difference (by design, per the project's spec for this baseline)
----------------------------------------------------------------
Upstream counts *outputs*: ``consecutive_similar`` starts at 1 for the first output and the
loop fires when it reaches ``max_consecutive = 3``, i.e. after **two** similar consecutive
*pairs* (three similar outputs). This port fires after ``pairs = 3`` similar consecutive pairs
(four outputs), as the spec for this baseline says; ``JaccardRepeat(pairs=2)`` reproduces
upstream's default exactly. Upstream resets its counter to 0 after a fire and keeps
monitoring; this port is sticky (the breaker stays open).

The "output" is the step's ``text`` (the agent's own words), as upstream's ``check(output)``
reads the model output only; tool, arguments and results are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["JaccardRepeat", "jaccard_similarity", "tokenize"]

_TOKEN = re.compile(r"\b\w+\b")


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens, as ``agent_loop_detector.similarity.tokenize``.

    Examples
    --------
    >>> tokenize("Retry the edit, again!")
    ['retry', 'the', 'edit', 'again']
    """
    return _TOKEN.findall(text.lower())


def jaccard_similarity(a: str, b: str) -> float:
    """Jaccard similarity of the two texts' token sets, in [0, 1].

    Two texts without tokens are identical (1.0); one without tokens shares nothing (0.0).

    Examples
    --------
    >>> jaccard_similarity("retry the edit", "the edit retry")
    1.0
    >>> jaccard_similarity("a b", "b c")
    0.3333333333333333
    """
    sa, sb = set(tokenize(a)), set(tokenize(b))
    if not sa and not sb:
        return 1.0
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


class JaccardRepeat:
    """Trip after ``pairs`` consecutive step-text pairs with Jaccard >= ``threshold``.

    Parameters
    ----------
    threshold
        Similarity at or above which two consecutive texts count as the same (float in
        (0, 1]; default 0.85, upstream's published default).
    pairs
        Number of similar consecutive pairs in a row that trips (int >= 1; default 3, so the
        earliest trip is at step index 3; ``pairs=2`` is upstream's ``max_consecutive=3``).

    Raises
    ------
    ValueError
        If ``threshold`` is outside (0, 1] or ``pairs`` is not an integer >= 1.

    Examples
    --------
    >>> det = JaccardRepeat()
    >>> texts = ["read the config", "retry the edit now", "now retry the edit",
    ...          "the edit retry now", "retry now the edit"]
    >>> [det.observe({"text": t}) for t in texts]
    ['continue', 'continue', 'continue', 'continue', 'trip']

    References
    ----------
    .. [1] ``agent-loop-detector`` 0.1.0 (PyPI), ``agent_loop_detector/detector.py``,
       ``LoopDetector.check``; ``agent_loop_detector/similarity.py``.
    """

    name = "jaccard"

    def __init__(self, threshold: float = 0.85, pairs: int = 3) -> None:
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be a float in (0, 1], got {threshold!r}")
        if isinstance(pairs, bool) or not isinstance(pairs, int) or pairs < 1:
            raise ValueError(f"pairs must be an integer >= 1, got {pairs!r}")
        self.threshold = float(threshold)
        self.pairs = pairs
        self._reset()

    def _reset(self) -> None:
        self._prev: str | None = None
        self._run = 0
        self._tripped = False

    def reset(self) -> None:
        """Forget the previous text, the run of similar pairs and the trip."""
        self._reset()

    def observe(self, step: Mapping[str, Any]) -> str:
        """Judge one step (``"continue"`` or ``"trip"``); see the class docstring."""
        if self._tripped:
            return "trip"
        text = str(step.get("text") or "")
        if self._prev is not None:
            if jaccard_similarity(text, self._prev) >= self.threshold:
                self._run += 1
            else:
                self._run = 0
        self._prev = text
        if self._run >= self.pairs:
            self._tripped = True
            return "trip"
        return "continue"
