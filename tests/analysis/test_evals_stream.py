"""The stream cases of ``evals/stream/`` (built from real text by ``evals/stream/build.py``).

Each case is scored as ``plateau eval`` scores it: with the real model behind the semantic layer
(run synchronously), every ``fire`` case must be caught inside its window and no ``no-fire``
case may fire. Without an embedder only the cases that need the meaning of sentences may be
missed (two loops of paraphrases, and a re-check loop whose quoted passage fires only with the
semantic layer's corroboration) -- and nothing else changes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.evalrun import plateau_stream_fire
from bench.evaluate import score_stream_case
from tests.support.paths import REPO

CASES = sorted((REPO / "evals" / "stream").glob("*.json"))
SEMANTIC_ONLY = {"E21-real-text-loop-with-substitutions", "E31-ill-do-it-chant", "E40-recheck-loop"}


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_the_set_has_both_sides_of_every_kind() -> None:
    """At least 30 cases, with fire and no-fire cases."""
    cases = [_load(p) for p in CASES]
    verdicts = [c["expected"]["verdict"] for c in cases]
    assert len(cases) >= 30 and verdicts.count("fire") >= 15 and verdicts.count("no-fire") >= 15


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_case_is_caught_in_its_window_or_left_alone(path: Path, real_cached: object) -> None:
    """With the semantic layer on, the verdict is right and inside the window."""
    case = _load(path)
    score = score_stream_case(case, plateau_stream_fire(case, embedder=real_cached))
    if case["expected"]["verdict"] == "fire":
        assert score.caught, score
    else:
        assert not score.false_fire, score


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_without_an_embedder_only_meaning_cases_are_missed(path: Path) -> None:
    """The textual detectors alone: the same verdicts, except the semantic-only loops (missed, never early)."""
    case = _load(path)
    score = score_stream_case(case, plateau_stream_fire(case))
    if case["id"] in SEMANTIC_ONLY:
        assert score.missed, score
    elif case["expected"]["verdict"] == "fire":
        assert score.caught, score
    else:
        assert not score.false_fire, score
