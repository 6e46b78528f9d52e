"""Reading intent with the embedding model: requested repetition, waiting and denied results,
courtesies.

A keyword list breaks on the first rewording, so these judgements compare an embedding with a
few *prototype* sentences of each class (nearest-prototype classification with a cosine
threshold). The prototypes are written for kinds of text, not copied from any labelled case.

- :meth:`IntentReader.requested_repetition`: did the user ask for repetition ("poll until it
  finishes", "run it 8 times")? If so, how many times (a bound read from the numbers in the
  request: "every 10 minutes for an hour, 60 minutes" allows 6; "8 times" allows 8)?
- :meth:`IntentReader.result_kind`: is a tool result a *waiting* state (a poller's "no new
  output", "still running") or a *denial* by the user (the user refused the call)?
- :meth:`IntentReader.is_phatic`: is a message only a courtesy (thanks, you're welcome,
  goodbye) with no task content? Two agents that keep thanking each other after the work is
  done are stuck in a "gratitude loop" (AutoGen issue #254 and FAQ, PR #390).

Measured on all-MiniLM-L6-v2 (the observation text ``tool: result`` against the prototypes,
which were written for kinds of text and are not copied from any labelled case): requests
for repetition score 0.50-0.68 against the repetition prototypes and other task descriptions
0.0-0.36. Waiting results written for the check in wordings no prototype uses score 0.53-0.61
against the waiting prototypes, and of the 2,944 other tool results of the step benchmark, the
SWE-agent trajectories and the real runs of ``shared/data`` none that is not a waiting state
scores above 0.43. Denials written for the check score 0.69-0.81 against the denial prototypes
and other results at most 0.45 (``tests/analysis/test_intent.py`` holds the wordings; some of them
resemble results in the step benchmark, so these numbers are measured on text the prototypes
were checked against, not on unseen text). Courtesies written for this check (18 of them)
score 0.40-0.80 against the phatic prototypes (14 of 18 at 0.5 or more); messages that thank
*and* carry a request or a fact score at most 0.44. Of the 631 other step texts of the step
benchmark and the SWE-agent trajectories (closing-loop cases left out), two score above 0.5,
and both are courtesies at the end of a design chat; the rest score at most 0.44
(``scripts/calibrate_intent.py`` reproduces these numbers).
Thresholds sit in those gaps.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from plateau import lexicon
from plateau.embed import Embedder

__all__ = [
    "DENIAL_THRESHOLD",
    "PHATIC_THRESHOLD",
    "REPETITION_THRESHOLD",
    "WAITING_THRESHOLD",
    "IntentReader",
    "Repetition",
    "repetition_bound",
]

#: Prototype sentences of each class (lists ``repetition-prototypes``, ``waiting-prototypes``,
#: ``denial-prototypes``, ``phatic-prototypes`` of :mod:`plateau.lexicon`).
REPETITION_PROTOTYPES = lexicon.load("repetition-prototypes")
WAITING_PROTOTYPES = lexicon.load("waiting-prototypes")
DENIAL_PROTOTYPES = lexicon.load("denial-prototypes")
PHATIC_PROTOTYPES = lexicon.load("phatic-prototypes")

#: Cosine to the nearest repetition prototype above which a request asks for repetition.
REPETITION_THRESHOLD = 0.45
#: Cosine to the nearest waiting prototype above which a result is a poller's waiting state.
WAITING_THRESHOLD = 0.5
#: Cosine to the nearest denial prototype above which a result is a denial by the user.
DENIAL_THRESHOLD = 0.6

#: Cosine to the nearest phatic prototype at or above which a message is only a courtesy.
PHATIC_THRESHOLD = 0.5

_NUMBER = re.compile(r"(?<![\w.])(\d{1,4})(?![\w.])")


def repetition_bound(text: str) -> int | None:
    """How many repetitions a request allows, from its numbers; None when it names none.

    One number is the count ("run it 8 times" → 8). With several, a larger one that is a
    multiple of a smaller one is read as a span over an interval ("every 10 minutes for 60
    minutes" → 60 / 10 = 6); otherwise the largest number counts. Numbers above 1,000 are
    ignored (they are ids or years, not counts).
    """
    nums = sorted({int(n) for n in _NUMBER.findall(text) if 0 < int(n) <= 1000})
    if not nums:
        return None
    if len(nums) >= 2:
        small, large = nums[0], nums[-1]
        if large % small == 0 and large // small >= 2:
            return large // small
    return nums[-1]


@dataclass(frozen=True)
class Repetition:
    """Whether a request asks for repetition (``requested``), its bound (None when unbounded),
    and the cosine to the nearest repetition prototype (``similarity``, in [-1, 1])."""

    requested: bool
    bound: int | None
    similarity: float


class IntentReader:
    """Nearest-prototype intent classifier over an :class:`~plateau.embed.Embedder`.

    Prototype vectors are embedded once, on first use.
    """

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._protos: dict[str, np.ndarray] | None = None

    def _prototypes(self) -> dict[str, np.ndarray]:
        if self._protos is None:
            self._protos = {
                "repetition": self.embedder.encode(list(REPETITION_PROTOTYPES)),
                "waiting": self.embedder.encode(list(WAITING_PROTOTYPES)),
                "denial": self.embedder.encode(list(DENIAL_PROTOTYPES)),
                "phatic": self.embedder.encode(list(PHATIC_PROTOTYPES)),
            }
        return self._protos

    def _sim(self, kind: str, vec: np.ndarray) -> float:
        return round(float(np.max(self._prototypes()[kind] @ vec)), 4)

    def requested_repetition(self, request: str | None) -> Repetition:
        """Read a user request (a run's context or a user message)."""
        if not request or not request.strip():
            return Repetition(False, None, 0.0)
        sim = self._sim("repetition", self.embedder.encode([request[:2000]])[0])
        requested = sim >= REPETITION_THRESHOLD
        return Repetition(requested, repetition_bound(request) if requested else None, sim)

    def result_kind(self, obs_vec: np.ndarray | None) -> str | None:
        """``"denial"``, ``"waiting"`` or None for a step's observation vector (``(dim,)`` float32)."""
        if obs_vec is None:
            return None
        if self._sim("denial", obs_vec) >= DENIAL_THRESHOLD:
            return "denial"
        if self._sim("waiting", obs_vec) >= WAITING_THRESHOLD:
            return "waiting"
        return None

    def is_phatic(self, text_vec: np.ndarray | None) -> bool:
        """Whether a message (its text vector, ``(dim,)`` float32, unit norm) is only a
        courtesy: cosine to the nearest phatic prototype >= :data:`PHATIC_THRESHOLD`."""
        if text_vec is None:
            return False
        return self._sim("phatic", text_vec) >= PHATIC_THRESHOLD
