"""Plateau's verdict on every step of one run: what ``plateau plot`` draws.

:func:`trace_steps_case` observes a case's steps through an :class:`~plateau.engine.Engine`
(passed in: this module does not import the engine) and keeps one verdict per step as a
:class:`CaseTrace`. Scoring the verdicts against a case's labels is the evaluator's job: it
lives in the repository's ``bench/`` (not in the wheel) and is passed in as ``scorer``.

Examples
--------
>>> from plateau.embed import HashingEmbedder
>>> from plateau.engine import Engine
>>> step = {"text": "x", "tool": "t", "args": {"a": 1}, "result": "boom"}
>>> trace = trace_steps_case(Engine(embedder=HashingEmbedder()), {"id": "r", "input": [step] * 8})
>>> len(trace.verdicts), trace.actions[0], trace.score is None
(8, 'continue', True)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["CaseTrace", "default_embedder", "trace_steps_case"]

_run_ids = itertools.count()


def default_embedder(model_path: str | None = None, *, backend: str | None = None) -> Any:
    """The real embedding model behind one embedding cache (loaded lazily).

    Parameters
    ----------
    model_path
        A local sentence-transformers folder; ``None`` for all-MiniLM-L6-v2.
    backend
        ``"onnx"`` or ``"torch"`` (:func:`plateau.embed.model_embedder`); ``None`` for the default.

    Raises
    ------
    ValueError
        An unknown ``backend``.

    Returns
    -------
    plateau.embed.CachedEmbedder
        Caching up to 100,000 vectors (about 150 MB at 384 dimensions), enough for every
        distinct text of a benchmark.
    """
    from plateau.embed import CachedEmbedder, model_embedder

    return CachedEmbedder(model_embedder(backend, model_path), max_items=100_000)


@dataclass(frozen=True)
class CaseTrace:
    """Plateau's verdict on every step of one steps-level run.

    Attributes
    ----------
    case_id
        The case's ``id``.
    case
        The case as loaded (``input``, ``expected``, ``context``, ...).
    verdicts
        One :class:`~plateau.types.Verdict` per step, in order (raw: after a trip the engine
        keeps answering ``trip`` unless probing is enabled).
    score
        The case's score against its labels when a scorer was given and the case is labelled
        (the repository's evaluator, ``bench.evaluate.StepsScore``), else ``None``.
    """

    case_id: str
    case: Mapping[str, Any]
    verdicts: tuple[Any, ...]
    score: Any | None

    @property
    def actions(self) -> list[str]:
        """The raw action after each step (``"continue"``, ``"steer"`` or ``"trip"``)."""
        return [v.action.value for v in self.verdicts]


def _is_labelled_steps(case: Mapping[str, Any]) -> bool:
    expected = case.get("expected")
    return isinstance(expected, Mapping) and "per_step" in expected and "final" in expected


def trace_steps_case(
    engine: Any, case: Mapping[str, Any], scorer: Callable[[Mapping[str, Any], list[str]], Any] | None = None
) -> CaseTrace:
    """Observe every step of a steps-level case through ``engine`` and keep the verdicts.

    Parameters
    ----------
    engine
        A :class:`~plateau.engine.Engine`; the run gets a fresh id, so one engine can judge
        any number of cases (they share its embedding cache).
    case
        A ``level: "steps"`` case (or any mapping with an ``input`` list of step objects);
        scored when it carries ``expected.per_step`` and ``expected.final`` and ``scorer`` is given.
    scorer
        ``scorer(case, actions)`` -> a score (``bench.evaluate.score_steps_case`` from a
        repository checkout); ``None`` (the default) leaves ``score`` unset.

    Returns
    -------
    CaseTrace

    Raises
    ------
    ValueError
        If the case holds no step list, or its labels are malformed (from ``scorer``).
    plateau.errors.InvalidArgument
        For a malformed step field (named in the message).
    """
    from plateau.types import Step

    cid = str(case.get("id") or "?")
    steps = case.get("input")
    if not isinstance(steps, (list, tuple)) or not steps:
        raise ValueError(f"case {cid}: 'input' must be a non-empty list of steps")
    run_id = f"eval-{next(_run_ids)}"
    context = case.get("context") if isinstance(case.get("context"), str) else None
    verdicts = tuple(engine.observe(run_id, Step.from_dict(s, i), context) for i, s in enumerate(steps))
    score = scorer(case, [v.action.value for v in verdicts]) if scorer is not None and _is_labelled_steps(case) else None
    return CaseTrace(case_id=cid, case=case, verdicts=verdicts, score=score)
