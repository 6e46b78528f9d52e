"""``docs/format.md``, the case format in the repository: its example is a valid case that the
readers, the engine and the scorer take as written; every citation points at it; a misspelt step
field in a case file fails at load time naming the file, the step and the field."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from plateau import Client
from plateau.replay import load_runs, replay_run
from plateau.types import STEP_FIELDS
from tests.support.paths import REPO as ROOT

DOC = (ROOT / "docs" / "format.md").read_text(encoding="utf-8")


def _json_blocks() -> list[str]:
    return re.findall(r"```json\n(.*?)```", DOC, re.S)


def test_the_documented_step_fields_are_the_readers(tmp_path: Path) -> None:
    """The step table lists exactly the fields Step.from_dict accepts; the single-step example is one valid step."""
    table = re.findall(r"^\| `([a-z_]+)` \| [^|]*\| [^|]*\|$", DOC.split("## `\"level\": \"steps\"`")[1].split("### Labels")[0], re.M)
    assert tuple(table) == STEP_FIELDS
    from plateau.types import Step

    step = Step.from_dict(json.loads(_json_blocks()[0]), 0)
    assert step.tool == "bash" and step.status.value == "error" and step.progress.tests_failed == 1


def test_the_documented_example_replays_and_scores_as_labelled(tmp_path: Path, hashing_engine) -> None:  # type: ignore[no-untyped-def]
    """The complete example, saved as a file, loads as one run with its labels and replays to a trip."""
    from bench.evaluate import load_cases, score_steps_case

    case = json.loads(_json_blocks()[1])
    (tmp_path / "case.json").write_text(json.dumps(case), encoding="utf-8")
    (run,) = load_runs([tmp_path])
    assert run.id == "my-flaky-fix" and run.expected == case["expected"] and len(run.steps) == 5
    actions = [v.action.value for _, _, v in replay_run(Client.local(engine=hashing_engine), run)]
    assert actions[-1] == "trip"
    (loaded,) = load_cases([tmp_path])  # plateau eval's reader takes it too
    score = score_steps_case(loaded, actions)
    assert score.stuck and score.detected and not score.false_trip


def test_a_misspelt_step_field_in_a_case_file_fails_at_load_naming_file_step_and_field(tmp_path: Path) -> None:
    """``"reslt"`` in step 1 of a case file: ValueError naming the file, ``step 1``, ``step.reslt`` and docs/format.md."""
    case = {"id": "typo", "input": [{"text": "a"}, {"text": "b", "tool": "bash", "reslt": "ok"}]}
    path = tmp_path / "typo.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    with pytest.raises(ValueError) as exc:
        load_runs([tmp_path])
    assert str(exc.value).startswith(f"{path}: step 1: step.reslt: unknown field") and "did you mean 'result'?" in str(exc.value)
    assert "docs/format.md" in str(exc.value)


def test_the_format_is_cited_from_the_repository_not_from_shared() -> None:
    """The README, the docs and every message in the package and the lab (bench/) cite docs/format.md;
    none cites shared/benchmark/FORMAT.md."""
    files = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "plateau").rglob("*.py"), *(ROOT / "bench").rglob("*.py")]
    texts = {p: p.read_text(encoding="utf-8") for p in files}
    assert [str(p) for p, t in texts.items() if "benchmark/FORMAT.md" in t] == []
    assert "docs/format.md" in texts[ROOT / "README.md"]
    with pytest.raises(ValueError, match=r"not a case \('input' list, docs/format\.md\)"):
        load_runs([_not_a_case()])


def _not_a_case() -> Path:
    import tempfile

    path = Path(tempfile.mkdtemp()) / "x.json"
    path.write_text("[1, 2]", encoding="utf-8")
    return path
