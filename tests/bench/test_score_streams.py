"""``scripts/score_streams.py``: which sets it scores, that it refuses a blind set, and its diff."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.paths import REPO as ROOT
from tests.support.scripts import load_script

SCRIPT = ROOT / "scripts" / "score_streams.py"


@pytest.fixture(scope="module")
def script() -> ModuleType:
    """The script imported as a module."""
    return load_script("score_streams")


def _set(folder: Path, title: str) -> Path:
    """A copy of two cases of ``evals/stream`` (one fire, one no-fire) under a README titled ``title``."""
    folder.mkdir()
    for name in ("E01-zeros-after-answer.json", "E26-requested-ok-50-legit.json"):
        shutil.copy(ROOT / "evals" / "stream" / name, folder / name)
    (folder / "README.md").write_text(f"# {title}\n\nCases.\n", encoding="utf-8")
    return folder


def test_a_blind_title_is_blind_and_a_development_title_is_not(script: ModuleType, tmp_path: Path) -> None:
    assert script.is_blind(_set(tmp_path / "a", "blind-stream99 — stream cases (blind until its one score)"))
    assert not script.is_blind(_set(tmp_path / "b", "dev-stream99 — stream cases (a development set now: scored once while blind)"))
    assert not script.is_blind(tmp_path)  # no README
    for _, path in script.default_sets():
        assert not script.is_blind(path), path  # every set scored by default is a development set


def test_a_blind_set_is_refused_without_score_blind(script: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blind = _set(tmp_path / "blind", "blind-stream99 (blind until its one score)")
    assert script.main(["--set", f"b={blind}"]) == 2
    assert "refusing to score a blind set" in capsys.readouterr().err


def test_scores_a_set_saves_it_and_diffs_against_a_saved_run(
    script: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _set(tmp_path / "dev", "dev-stream99 (a development set now)")
    saved = tmp_path / "before.json"
    assert script.main(["--set", f"d={folder}", "--save", str(saved)]) == 0
    scores = json.loads(saved.read_text(encoding="utf-8"))
    totals = scores["d"]["totals"]
    assert (totals["fire_streams"], totals["no_fire_streams"]) == (1, 1)
    assert scores["d"]["cases"]["E26-requested-ok-50-legit"] == ["quiet", None]
    outcome, chunk = scores["d"]["cases"]["E01-zeros-after-answer"]
    assert outcome == "caught" and isinstance(chunk, int)
    assert "1/1" in capsys.readouterr().out
    moved = dict(scores)
    moved["d"] = {**scores["d"], "cases": {**scores["d"]["cases"], "E01-zeros-after-answer": ["late", chunk + 5]}}
    assert script.diff(scores, moved) == [f"d/E01-zeros-after-answer: ['caught', {chunk}] -> ['late', {chunk + 5}]"]
    assert script.diff(scores, scores) == []
    assert script.main(["--set", f"d={folder}", "--diff", str(saved)]) == 0
    assert "0 case(s) moved" in capsys.readouterr().out


def test_without_the_embedding_model_it_exits_3_before_scoring(
    script: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Scores taken without the semantic layer differ, so a missing model is an error, not a quiet score."""

    def missing(model_path: object = None, **_: object) -> object:
        raise ModuleNotFoundError("No module named 'numpy'", name="numpy")

    monkeypatch.setattr(script, "default_embedder", missing)
    folder = _set(tmp_path / "dev", "dev-stream99 (a development set now)")
    saved = tmp_path / "scores.json"
    assert script.main(["--set", f"d={folder}", "--save", str(saved)]) == 3
    assert "embedding model cannot load" in capsys.readouterr().err and not saved.exists()
