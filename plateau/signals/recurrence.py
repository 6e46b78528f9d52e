"""Recurrence against the run's memory: does this step find what an earlier step already found?

Small movement against the warm-up is not a stall: an agent that moves from exploring to
executing a plan moves less and still learns something every step. A stall is *recurrence*:
the environment answers what it already answered, the user says what they already said, the
agent restates what it already said. This module keeps the run's memory (the last
``memory`` steps' observation and text vectors, unit ``(dim,)`` float32 arrays) and judges each
step against all of it, not only the last few steps:

- ``result_recurrence``: the largest cosine between the step's observation (its tool call and
  result) and an earlier one, in [-1, 1] (None without an observation or memory);
- ``text_recurrence``: the same for the step's text;
- ``new_facts``: the step brought facts new to the run. A tool result with at least
  ``NEW_FACT_TERMS`` observed terms (:func:`plateau.signals.information.observed_terms`: content
  the run, the call's arguments and the narration never had) and no near-identical earlier
  observation (cosine below ``RECURRENT_RESULT``); an error the run had never seen; a user
  message with at least ``NEW_FACT_TERMS`` content terms new to the run; or a progress marker. The narration alone
  never counts: a stuck agent keeps wording new guesses.

``new_facts`` drives the calibrated tests (:mod:`plateau.stats.calibrated`): a step with new
facts is evidence against a stall and re-calibrates the baseline (issue 11: regime change,
and "a run whose every step brings facts new to the run never trips").

Every similarity is rounded to 4 decimals, as in :mod:`plateau.signals.semantic`, so batch
composition cannot change a decision.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

__all__ = ["RECURRENT_RESULT", "REQUERY_RESULT", "MemorySignals", "RunMemory", "is_recurrent"]

#: Cosine at or above which an observation is the same as an earlier one. all-MiniLM-L6-v2
#: gives 0.95+ to two outputs of one command that differ in a counter or a timestamp and
#: 0.7-0.9 to two reads of different parts of one file (DESIGN §6 for the model's scale).
RECURRENT_RESULT = 0.95
_DECIMALS = 4


#: Cosine at or above which the answer to a call made before with the same arguments (a
#: re-query) is the same answer: a metric or a status read again returns the same table with
#: other numbers, which all-MiniLM-L6-v2 places at 0.9-0.99, while a re-run whose output
#: changed in substance (a new error, another record) falls below 0.9.
REQUERY_RESULT = 0.9


def is_recurrent(result_recurrence: float | None, *, requery: bool = False) -> bool:
    """Whether an observation with this ``result_recurrence`` repeats an earlier one:
    at least ``RECURRENT_RESULT``, or ``REQUERY_RESULT`` for a re-query."""
    if result_recurrence is None:
        return False
    return result_recurrence >= (REQUERY_RESULT if requery else RECURRENT_RESULT)


@dataclass(frozen=True)
class MemorySignals:
    """Recurrence of one step against the run's memory.

    Attributes
    ----------
    result_recurrence
        Largest cosine of the step's observation to an earlier one in memory, in [-1, 1];
        None without an observation or memory.
    text_recurrence
        Largest cosine of the step's text to an earlier one in memory; None likewise.
    new_facts
        The step brought facts new to the run
        (:attr:`plateau.signals.information.InformationSignals.new_facts`).
    results
        Steps with a non-empty tool result among the last ``window`` (int >= 0).
    recurrent
        Of those, how many were recurrent: an observation near-identical (cosine at least
        ``RECURRENT_RESULT``) to an earlier one in memory (int >= 0).
    calls
        Steps with a tool call among the last ``window`` (int >= 0), answered or not (an
        action, a wait).
    """

    result_recurrence: float | None = None
    text_recurrence: float | None = None
    new_facts: bool = False
    results: int = 0
    recurrent: int = 0
    calls: int = 0

    @property
    def recurrent_share(self) -> float | None:
        """``recurrent / results`` in [0, 1], or None when no recent step had a result."""
        return self.recurrent / self.results if self.results else None


def _max_cos(vec: np.ndarray | None, memory: list[np.ndarray]) -> float | None:
    if vec is None or not memory:
        return None
    return round(float(np.max(np.stack(memory) @ vec)), _DECIMALS)


class RunMemory:
    """Per-run memory of observation and text vectors.

    Parameters
    ----------
    memory
        Steps remembered (int >= 1). Default 64: longer than any cycle or re-check an agent
        makes, and a bounded cost (one ``(64, dim)`` product per channel per step).
    window
        Recent steps over which ``results`` and ``recurrent`` are counted (int >= 1; the
        engine passes ``Config.window``).

    Raises
    ------
    ValueError
        When ``memory`` < 1.
    """

    def __init__(self, memory: int = 64, window: int = 8) -> None:
        if memory < 1:
            raise ValueError(f"memory must be >= 1, got {memory}")
        if window < 1:
            raise ValueError(f"window must be >= 1, got {window}")
        self.memory = memory
        self.window = window
        self._obs: deque[tuple[np.ndarray, int, str | None]] = deque(maxlen=memory)
        self._text: deque[np.ndarray] = deque(maxlen=memory)
        self._recent: deque[bool | None] = deque(maxlen=window)
        self._called: deque[bool] = deque(maxlen=window)

    def recall(
        self,
        text_vec: np.ndarray | None,
        obs_vec: np.ndarray | None,
        *,
        mutations: int = 0,
        digest: str | None = None,
    ) -> tuple[float | None, float | None]:
        """``(result_recurrence, text_recurrence)`` of a step against the memory (nothing stored).

        An earlier observation made before a later mutation of the world (``mutations`` counts
        them, :attr:`plateau.signals.progress.ProgressSignals.mutations`) is compared only when
        the result is the same text (``digest`` of the normalised result): a re-read that shows
        the change an edit made is not recurrence; the same answer after it is.
        """
        same_world = [v for v, epoch, d in self._obs if epoch == mutations or (digest is not None and d == digest)]
        return _max_cos(obs_vec, same_world), _max_cos(text_vec, list(self._text))

    def update(
        self,
        text_vec: np.ndarray | None,
        obs_vec: np.ndarray | None,
        *,
        has_result: bool,
        new_facts: bool = False,
        mutations: int = 0,
        digest: str | None = None,
        requery: bool = False,
        fresh: bool = False,
        called: bool | None = None,
    ) -> MemorySignals:
        """Judge one step against the memory, then remember it.

        ``has_result`` says whether the step has a non-empty tool result that answers a
        question (only those count toward ``results`` and ``recurrent``; the engine passes
        False for a mutation, whose result acknowledges an action); ``new_facts`` is passed through from
        :class:`~plateau.signals.information.InformationSignals`; ``mutations`` and ``digest``
        as in :meth:`recall`. ``requery`` marks a call made before with the same arguments
        (:attr:`plateau.signals.progress.ProgressSignals.call_seen`): its answer recurs from
        ``REQUERY_RESULT`` on (a metric read again reads alike with new numbers). ``fresh``
        marks an answer that cannot recur whatever its cosine: a new question's answer (the
        next day, region or listed item; :attr:`plateau.signals.information.InformationSignals.next_item`) or a wait (a poll
        whose result moved only in what masking removes), which the poll bounds govern
        (:func:`plateau.fuse._call_thresholds`); it still counts among ``results``. ``called``
        says whether the step called a tool at all (default: ``has_result``).
        """
        rr, tr = self.recall(text_vec, obs_vec, mutations=mutations, digest=digest)
        if obs_vec is not None:
            self._obs.append((obs_vec, mutations, digest))
        if text_vec is not None:
            self._text.append(text_vec)
        recurred = not fresh and is_recurrent(rr, requery=requery)
        self._recent.append(None if not has_result else recurred)
        self._called.append(has_result if called is None else called)
        flags = [f for f in self._recent if f is not None]
        return MemorySignals(
            result_recurrence=rr,
            text_recurrence=tr,
            new_facts=new_facts,
            results=len(flags),
            recurrent=sum(flags),
            calls=sum(self._called),
        )
