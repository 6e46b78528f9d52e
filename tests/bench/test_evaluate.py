"""Tests for bench.evaluate: case loading, per-case scores, totals and tables."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from bench.evaluate import (
    StepsScore,
    allowed_verdicts,
    effective_verdicts,
    format_steps_table,
    format_stream_table,
    load_cases,
    run_steps_detector,
    run_stream_detector,
    score_steps_case,
    score_stream_case,
    summarize_steps,
    summarize_stream,
)
from tests.support.paths import REPO

# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------


def steps_case(per_step: list[str], final: str, onset: int | None = None, cid: str = "run") -> dict[str, Any]:
    expected: dict[str, Any] = {"per_step": per_step, "final": final}
    if onset is not None:
        expected["onset"] = onset
    return {
        "id": cid,
        "level": "steps",
        "kind": "test",
        "input": [{"text": f"step {i}"} for i in range(len(per_step))],
        "expected": expected,
    }


STUCK = ["continue", "continue", "steer|trip", "trip", "trip"]
CHUNKS = ["ab", "cd", "ef", "gh", "ij"]


def stream_case(verdict: str, window: list[int] | None = None, cid: str = "stream") -> dict[str, Any]:
    expected: dict[str, Any] = {"verdict": verdict}
    if window is not None:
        expected["fire_between_chunks"] = window
    return {"id": cid, "level": "stream", "input": list(CHUNKS), "expected": expected}


def write_case(path: Path, case: Mapping[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(case), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------
# steps level
# ---------------------------------------------------------------------------------------


def test_trip_inside_allowed_window_is_detected_with_steps_from_onset() -> None:
    """A first trip on a step that allows it is a detection, counted from the onset."""
    score = score_steps_case(steps_case(STUCK, "trip", onset=1), ["continue", "continue", "trip", "trip", "trip"])
    assert score.stuck and score.detected
    assert not score.early_trip and not score.false_trip and not score.missed
    assert score.first_trip == 2
    assert score.steps_to_detect == 1
    assert score.agreement == 1.0


def test_steps_to_detect_without_onset_counts_from_first_allowed_trip() -> None:
    """Without an onset, steps to detect count from the first step whose per_step allows trip."""
    score = score_steps_case(steps_case(STUCK, "trip"), ["continue", "continue", "continue", "trip", "trip"])
    assert score.detected
    assert score.steps_to_detect == 1  # first trip at 3, first allowed trip at 2


def test_early_trip_on_stuck_run_is_a_false_trip_not_a_detection() -> None:
    """A stuck run tripped before per_step allows it is an early (false) trip, not a detection."""
    score = score_steps_case(steps_case(STUCK, "trip", onset=1), ["continue", "trip", "trip", "trip", "trip"])
    assert score.early_trip
    assert not score.detected and not score.missed
    assert score.steps_to_detect is None
    assert score.agreed == 4  # only step 1 disagrees
    totals = summarize_steps([score])
    assert totals.early_trips == 1
    assert totals.false_trip_runs == 1
    assert totals.false_trips == 0  # that count is for productive runs
    assert totals.detected == 0 and totals.recall == 0.0


def test_productive_run_tripped_is_a_false_trip() -> None:
    """A productive run that trips anywhere is a false (and early) trip."""
    per_step = ["continue", "continue|steer", "continue"]
    score = score_steps_case(steps_case(per_step, "continue"), ["continue", "trip", "continue"])
    assert not score.stuck
    assert score.false_trip and score.early_trip
    assert not score.detected and not score.missed
    totals = summarize_steps([score])
    assert (totals.false_trips, totals.false_trip_runs, totals.false_trip_rate) == (1, 1, 1.0)


def test_stuck_run_never_tripped_is_missed() -> None:
    """A stuck run that never trips is missed."""
    score = score_steps_case(steps_case(STUCK, "trip"), ["continue", "steer", "steer", "steer", "steer"])
    assert score.missed and not score.detected and score.first_trip is None
    assert score.agreed == 2  # step 0 (continue) and step 2 (steer) are acceptable
    assert summarize_steps([score]).missed == 1


def test_every_step_after_a_trip_is_scored_as_trip() -> None:
    """After the first trip every later step is trip, whatever the detector returned."""
    actions = ["continue", "continue", "trip", "continue", "steer"]
    assert effective_verdicts(actions) == ("continue", "continue", "trip", "trip", "trip")
    score = score_steps_case(steps_case(STUCK, "trip"), actions)
    assert score.verdicts == ("continue", "continue", "trip", "trip", "trip")
    assert score.agreement == 1.0
    assert score.steers == 0  # the later "steer" is read as trip


def test_agreement_is_pooled_over_steps_not_averaged_over_runs() -> None:
    """Totals agreement pools the steps of all runs rather than averaging per-run shares."""
    short = score_steps_case(steps_case(["continue", "continue"], "continue", cid="a"), ["trip", "trip"])
    long = score_steps_case(steps_case(["continue"] * 4, "continue", cid="b"), ["continue"] * 4)
    assert short.agreement == 0.0 and long.agreement == 1.0
    totals = summarize_steps([short, long])
    assert totals.steps == 6
    assert totals.agreement == pytest.approx(4 / 6)


def test_steer_rate_counts_productive_runs_only() -> None:
    """The steer rate pools the steps of productive runs and ignores stuck runs' steers."""
    prod = score_steps_case(
        steps_case(["continue", "continue|steer", "continue", "continue"], "continue", cid="p"),
        ["continue", "steer", "continue", "continue"],
    )
    stuck = score_steps_case(steps_case(STUCK, "trip", cid="s"), ["steer", "steer", "steer", "trip", "trip"])
    assert prod.steer_rate == 0.25 and prod.agreement == 1.0
    totals = summarize_steps([prod, stuck])
    assert totals.productive_steps == 4
    assert totals.steer_rate_productive == 0.25


def test_totals_median_and_mean_steps_to_detect() -> None:
    """Median and mean steps to detect are taken over detected runs only."""
    per_step = ["continue", "trip", "trip", "trip", "trip", "trip"]
    scores = [
        score_steps_case(steps_case(per_step, "trip", onset=1, cid=f"r{t}"), ["continue"] * t + ["trip"] * (6 - t))
        for t in (1, 2, 5)
    ]
    scores.append(score_steps_case(steps_case(per_step, "trip", cid="never"), ["continue"] * 6))
    totals = summarize_steps(scores)
    assert (totals.stuck, totals.detected, totals.missed) == (4, 3, 1)
    assert totals.median_steps_to_detect == 1.0
    assert totals.mean_steps_to_detect == pytest.approx((0 + 1 + 4) / 3)
    assert totals.recall == 0.75


def test_score_steps_rejects_bad_actions_and_lengths() -> None:
    """Mismatched lengths, unknown actions and malformed labels raise ValueError naming the case."""
    case = steps_case(STUCK, "trip", cid="bad-run")
    with pytest.raises(ValueError, match=r"bad-run.*4 actions for 5 steps"):
        score_steps_case(case, ["continue"] * 4)
    with pytest.raises(ValueError, match="unknown action 'stop'"):
        score_steps_case(case, ["continue", "stop", "trip", "trip", "trip"])
    broken = steps_case(["continue", "halt"], "trip", cid="broken")
    with pytest.raises(ValueError, match="broken"):
        score_steps_case(broken, ["continue", "continue"])
    with pytest.raises(ValueError, match="onset"):
        score_steps_case(steps_case(STUCK, "trip", onset=9), ["continue"] * 5)


def test_allowed_verdicts_parses_alternatives() -> None:
    """A per_step entry with | lists alternatives; unknown words are rejected."""
    assert allowed_verdicts("continue|steer") == {"continue", "steer"}
    with pytest.raises(ValueError):
        allowed_verdicts("continue|maybe")


# ---------------------------------------------------------------------------------------
# stream level
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fired", "outcome", "chars"),
    [
        (0, "premature", None),
        (1, "caught", 2),
        (3, "caught", 6),
        (4, "late", 8),
        (None, "missed", None),
    ],
)
def test_stream_outcomes_against_the_window(fired: int | None, outcome: str, chars: int | None) -> None:
    """A fire before, inside, after the window, or none, is premature, caught, late or missed."""
    score = score_stream_case(stream_case("fire", [1, 3]), fired)
    assert score.outcome == outcome
    assert [score.caught, score.premature, score.late, score.missed] == [
        outcome == name for name in ("caught", "premature", "late", "missed")
    ]
    assert not score.false_fire
    assert score.chars_to_detect == chars


def test_fire_on_no_fire_stream_is_a_false_fire() -> None:
    """Any fire on a no-fire stream is a false fire; silence is fine."""
    fired = score_stream_case(stream_case("no-fire"), 2)
    quiet = score_stream_case(stream_case("no-fire"), None)
    assert fired.false_fire and fired.outcome == "false-fire" and fired.chars_to_detect is None
    assert not quiet.false_fire and quiet.outcome == "quiet"


def test_stream_totals_count_premature_as_false_fire() -> None:
    """Stream totals count each outcome, premature fires among false-fire streams."""
    scores = [
        score_stream_case(stream_case("fire", [1, 3], cid="a"), 0),
        score_stream_case(stream_case("fire", [1, 3], cid="b"), 1),
        score_stream_case(stream_case("fire", [1, 3], cid="c"), 3),
        score_stream_case(stream_case("fire", [1, 3], cid="d"), 4),
        score_stream_case(stream_case("fire", [1, 3], cid="e"), None),
        score_stream_case(stream_case("no-fire", cid="f"), 2),
        score_stream_case(stream_case("no-fire", cid="g"), None),
    ]
    t = summarize_stream(scores)
    assert (t.streams, t.fire_streams, t.no_fire_streams) == (7, 5, 2)
    assert (t.caught, t.premature, t.late, t.missed) == (2, 1, 1, 1)
    assert (t.false_fires, t.false_fire_streams) == (1, 2)
    assert t.catch_rate == 0.4 and t.false_fire_rate == 0.5
    assert t.median_chars_to_detect == 4.0 and t.mean_chars_to_detect == 4.0


def test_score_stream_rejects_bad_input() -> None:
    """An out-of-range fire index or a malformed window raises ValueError naming the case."""
    with pytest.raises(ValueError, match=r"stream.*fired_at_chunk"):
        score_stream_case(stream_case("fire", [1, 3]), 5)
    with pytest.raises(ValueError, match="fire_between_chunks"):
        score_stream_case(stream_case("fire", [3, 9]), None)
    with pytest.raises(ValueError, match="verdict"):
        score_stream_case(stream_case("maybe"), None)


# ---------------------------------------------------------------------------------------
# runners, dicts and tables
# ---------------------------------------------------------------------------------------


class _TripAt:
    name = "trip-at"

    def __init__(self, index: int) -> None:
        self.index = index
        self.seen = 0

    def reset(self) -> None:
        self.seen = 0

    def observe(self, step: Mapping[str, Any]) -> str:
        self.seen += 1
        return "trip" if self.seen - 1 == self.index else "continue"


class _FireOn:
    name = "fire-on"

    def __init__(self, text: str) -> None:
        self.text = text
        self.fed = ""

    def reset(self) -> None:
        self.fed = ""

    def feed(self, chunk: str) -> bool:
        self.fed += chunk
        return self.text in self.fed


def test_run_steps_detector_observes_every_step_and_scores_sticky() -> None:
    """The steps runner resets the detector and observes every step, also after a trip."""
    det = _TripAt(2)
    det.seen = 99
    actions = run_steps_detector(det, steps_case(STUCK, "trip"))
    assert actions == ["continue", "continue", "trip", "continue", "continue"]
    assert det.seen == 5
    assert score_steps_case(steps_case(STUCK, "trip"), actions).detected


def test_run_stream_detector_returns_first_firing_chunk() -> None:
    """The stream runner returns the index of the first chunk after which the detector fired."""
    assert run_stream_detector(_FireOn("fg"), stream_case("fire", [1, 3])) == 3
    assert run_stream_detector(_FireOn("zz"), stream_case("fire", [1, 3])) is None


def test_as_dict_is_json_ready() -> None:
    """Scores and totals convert to JSON-serialisable dicts."""
    steps = score_steps_case(steps_case(STUCK, "trip"), ["continue", "continue", "trip", "trip", "trip"])
    stream = score_stream_case(stream_case("fire", [1, 3]), 2)
    payload = {
        "steps": steps.as_dict(),
        "steps_totals": summarize_steps([steps]).as_dict(),
        "stream": stream.as_dict(),
        "stream_totals": summarize_stream([stream]).as_dict(),
    }
    decoded = json.loads(json.dumps(payload))
    assert decoded["steps"]["verdicts"][2] == "trip"
    assert decoded["stream"]["window"] == [1, 3]
    assert decoded["stream"]["outcome"] == "caught"
    assert set(decoded["steps"]) == set(StepsScore.__dataclass_fields__)


def test_tables_have_aligned_rows_and_a_totals_row() -> None:
    """The plain-text tables list each case and end with a totals row, columns aligned."""
    scores = [
        score_steps_case(steps_case(STUCK, "trip", cid="stuck-one"), ["continue", "continue", "trip", "trip", "trip"]),
        score_steps_case(steps_case(["continue"] * 3, "continue", cid="prod-two"), ["continue"] * 3),
    ]
    text = format_steps_table(scores, title="demo")
    lines = text.splitlines()
    assert lines[0] == "demo"
    assert lines[-1].startswith("TOTAL (2 runs)")
    assert "1/1" in lines[-1] and "0/1" in lines[-1]
    assert len({len(line) for line in lines[1:]}) == 1  # header, rules, rows, totals: one width
    end = lines[1].index("steps") + len("steps")  # right-aligned: values end under the header
    assert [line[:end].split()[-1] for line in lines[3:5]] == ["5", "3"]
    stream = format_stream_table([score_stream_case(stream_case("fire", [1, 3], cid="s1"), 1)])
    assert "s1" in stream and stream.splitlines()[-1].startswith("TOTAL (1 streams)")


# ---------------------------------------------------------------------------------------
# loading
# ---------------------------------------------------------------------------------------


def test_load_cases_from_folder_is_recursive_and_sorted(tmp_path: Path) -> None:
    """A folder is searched recursively for *.json files, in sorted path order."""
    write_case(tmp_path / "steps" / "b.json", steps_case(STUCK, "trip", cid="b"))
    write_case(tmp_path / "steps" / "a.json", steps_case(STUCK, "trip", cid="a"))
    write_case(tmp_path / "stream" / "c.json", stream_case("no-fire", cid="c"))
    (tmp_path / "FORMAT.md").write_text("# not a case\n", encoding="utf-8")
    cases = load_cases([tmp_path])
    assert [c["id"] for c in cases] == ["a", "b", "c"]


def test_load_cases_from_file(tmp_path: Path) -> None:
    """A single file loads as one case, with unknown keys kept."""
    case = steps_case(STUCK, "trip", cid="one")
    case["date"] = "2025-01-01"
    path = write_case(tmp_path / "one.json", case)
    loaded = load_cases([str(path)])
    assert loaded == [case]
    assert load_cases([path, tmp_path]) == [case]  # a file reached twice loads once


def test_load_cases_malformed_file_names_it(tmp_path: Path) -> None:
    """A case missing a required key, or invalid JSON, raises ValueError naming the file."""
    bad = steps_case(STUCK, "trip", cid="bad")
    del bad["expected"]
    path = write_case(tmp_path / "bad-case.json", bad)
    with pytest.raises(ValueError, match=r"bad-case\.json.*expected"):
        load_cases([tmp_path])
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad-case\.json"):
        load_cases([path])


def test_a_folders_input_data_is_skipped_but_a_named_file_must_be_a_case(tmp_path: Path) -> None:
    """In a folder, JSON that is not an object with a ``level`` (a list, a record a case was
    built from) is a set's input data and is skipped; the same file named on its own is an
    error naming it, and an object that declares a ``level`` but is malformed is still one."""
    write_case(tmp_path / "stream" / "c.json", stream_case("no-fire", cid="c"))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "months.json").write_text('["January", "February"]', encoding="utf-8")
    (tmp_path / "src" / "record.json").write_text('{"name": "x", "rows": 3}', encoding="utf-8")
    assert [c["id"] for c in load_cases([tmp_path])] == ["c"]
    with pytest.raises(ValueError, match=r"months\.json: a case must be a JSON object, got list"):
        load_cases([tmp_path / "src" / "months.json"])
    with pytest.raises(ValueError, match=r"record\.json: malformed case"):
        load_cases([tmp_path / "src" / "record.json"])
    (tmp_path / "src" / "record.json").write_text('{"level": "stream", "id": "r"}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"record\.json: malformed case, missing input, expected"):
        load_cases([tmp_path])


def test_load_cases_rejects_duplicate_ids_and_missing_paths(tmp_path: Path) -> None:
    """Two files with the same id, or a path that does not exist, are errors."""
    write_case(tmp_path / "x.json", steps_case(STUCK, "trip", cid="same"))
    write_case(tmp_path / "y.json", steps_case(STUCK, "trip", cid="same"))
    with pytest.raises(ValueError, match=r"y\.json.*duplicate case id 'same'"):
        load_cases([tmp_path])
    with pytest.raises(FileNotFoundError):
        load_cases([tmp_path / "nowhere"])


def test_importing_evaluate_and_baselines_loads_neither_torch_nor_grpc() -> None:
    """The scorer and the baselines import without torch or grpc."""
    code = (
        "import sys, bench.evaluate, bench.baselines; "
        "bad = [m for m in ('torch', 'grpc', 'sentence_transformers') if m in sys.modules]; "
        "assert not bad, bad"
    )
    root = REPO
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)
