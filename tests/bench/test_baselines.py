"""Tests for the re-implemented loop-detection baselines in bench.baselines."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from bench.baselines import (
    STEP_BASELINES,
    STREAM_BASELINES,
    ChunkHash,
    ExactArgs,
    JaccardRepeat,
    LineWindow,
    SeedBaseline,
    StepDetector,
    StreamDetector,
    StuckDetector,
)
from bench.baselines.jaccard import jaccard_similarity
from bench.baselines.stuck_detector import step_is_error
from bench.evaluate import (
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
from tests.support.paths import SHARED

BENCHMARK = SHARED / "benchmark"


# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------


def hashing_embed(texts: list[str]) -> np.ndarray:
    """A deterministic stand-in embedder: word and character-trigram counts hashed into 64 dims."""
    out = np.zeros((len(texts), 64), dtype=np.float32)
    for row, text in enumerate(texts):
        low = text.lower()
        grams = low.split() + [low[i : i + 3] for i in range(max(0, len(low) - 2))]
        for gram in grams:
            out[row, zlib.crc32(gram.encode("utf-8")) % 64] += 1.0
        norm = float(np.linalg.norm(out[row]))
        out[row] = out[row] / norm if norm else out[row]
        if not norm:
            out[row, 0] = 1.0
    return out


def angle_embed(angles: dict[str, float]) -> Any:
    """An embedder placing each named text on the unit circle at the given angle in degrees."""

    def embed(texts: list[str]) -> np.ndarray:
        return np.array(
            [[np.cos(np.radians(angles[t])), np.sin(np.radians(angles[t]))] for t in texts], dtype=np.float32
        )

    return embed


def verdicts(detector: Any, steps: Sequence[dict[str, Any]]) -> list[str]:
    detector.reset()
    return [detector.observe(step) for step in steps]


def first_trip(detector: Any, steps: Sequence[dict[str, Any]]) -> int | None:
    out = verdicts(detector, steps)
    return out.index("trip") if "trip" in out else None


def first_fire(detector: Any, chunks: Sequence[str]) -> int | None:
    detector.reset()
    for i, chunk in enumerate(chunks):
        if detector.feed(chunk):
            return i
    return None


def call(
    text: str, tool: str = "replace", args: dict[str, Any] | None = None, result: str | None = "ok", **extra: Any
) -> dict[str, Any]:
    step: dict[str, Any] = {
        "text": text,
        "tool": tool,
        "args": {"path": "a.py"} if args is None else args,
        "result": result,
    }
    step.update(extra)
    return step


# ---------------------------------------------------------------------------------------
# registries and protocols
# ---------------------------------------------------------------------------------------


def test_registries_name_their_detectors_and_satisfy_the_protocols() -> None:
    """Each registry key is the detector's name and every detector satisfies its protocol."""
    assert set(STEP_BASELINES) == {"seed-baseline", "exact-args", "stuck-detector", "jaccard"}
    assert set(STREAM_BASELINES) == {"chunk-hash", "line-window"}
    for name, factory in STEP_BASELINES.items():
        det = factory(embed=hashing_embed) if name == "seed-baseline" else factory()
        assert det.name == name and isinstance(det, StepDetector)
    for name, stream_factory in STREAM_BASELINES.items():
        sdet = stream_factory()
        assert sdet.name == name and isinstance(sdet, StreamDetector)


@pytest.mark.parametrize(
    ("factory", "kwargs", "param"),
    [
        (ExactArgs, {"threshold": 1}, "threshold"),
        (JaccardRepeat, {"threshold": 1.5}, "threshold"),
        (JaccardRepeat, {"pairs": 0}, "pairs"),
        (StuckDetector, {"alternating_pattern": 5}, "alternating_pattern"),
        (StuckDetector, {"monologue": 0}, "monologue"),
        (ChunkHash, {"chunk_size": 0}, "chunk_size"),
        (ChunkHash, {"max_history": 10}, "max_history"),
        (LineWindow, {"repeat_threshold": 1}, "repeat_threshold"),
        (LineWindow, {"line_window": 3}, "line_window"),
    ],
)
def test_bad_parameters_raise_value_error_naming_them(factory: Any, kwargs: dict[str, Any], param: str) -> None:
    """A bad hyper-parameter raises ValueError naming it."""
    with pytest.raises(ValueError, match=param):
        factory(**kwargs)


# ---------------------------------------------------------------------------------------
# seed-baseline
# ---------------------------------------------------------------------------------------


def test_seed_baseline_trips_on_first_delta_below_the_warmup_floor() -> None:
    """After five warm-up deltas (mean - 2 std ~ 0.40) a near-zero delta trips at step 6."""
    angles = [0, 60, 130, 210, 275, 350, 352, 357]
    det = SeedBaseline(angle_embed({f"s{i}": a for i, a in enumerate(angles)}))
    out = verdicts(det, [{"text": f"s{i}"} for i in range(len(angles))])
    assert out == ["continue"] * 6 + ["trip", "trip"]
    assert det.floor == pytest.approx(0.4023, abs=1e-3)


def test_seed_baseline_does_not_trip_on_steady_movement() -> None:
    """Steps that keep moving as much as in warm-up never trip."""
    angles = [i * 65 for i in range(12)]
    det = SeedBaseline(angle_embed({f"s{i}": a for i, a in enumerate(angles)}))
    assert first_trip(det, [{"text": f"s{i}"} for i in range(12)]) is None


def test_seed_baseline_high_variance_warmup_floor_can_never_trip() -> None:
    """A high-variance warm-up gives a floor <= 0, so even identical later steps never trip."""
    angles = [0, 10, 180, 190, 10, 20] + [20] * 6
    det = SeedBaseline(angle_embed({f"s{i}": a for i, a in enumerate(angles)}))
    assert first_trip(det, [{"text": f"s{i}"} for i in range(len(angles))]) is None
    assert det.floor is not None and det.floor < 0


def test_seed_baseline_never_trips_during_warmup_even_on_a_loop() -> None:
    """A run that repeats itself from step 0 never trips: warm-up learns a zero floor."""
    det = SeedBaseline(hashing_embed)
    steps = [{"text": "I will run the tests again."}] * 10
    assert verdicts(det, steps) == ["continue"] * 10
    assert det.floor == 0.0


def test_seed_baseline_rejects_a_bad_embedding() -> None:
    """An embedder returning the wrong shape is reported as a ValueError."""
    det = SeedBaseline(lambda texts: np.zeros((2, 3), dtype=np.float32))
    with pytest.raises(ValueError, match="shape"):
        det.observe({"text": "x"})
    with pytest.raises(ValueError, match="k"):
        SeedBaseline(hashing_embed, k=-1.0)


# ---------------------------------------------------------------------------------------
# exact-args
# ---------------------------------------------------------------------------------------


def test_exact_args_trips_on_third_identical_call_with_keys_in_any_order() -> None:
    """The third consecutive identical call trips, whatever the key order and the text."""
    steps = [
        call("read it", tool="read_file", args={"path": "a.py"}),
        call("edit", args={"old": "x", "new": "y"}),
        call("edit again", args={"new": "y", "old": "x"}),
        {"text": "thinking, no tool"},
        call("and again", args={"old": "x", "new": "y"}),
        call("once more", args={"old": "x", "new": "y"}),
    ]
    assert verdicts(ExactArgs(), steps) == ["continue", "continue", "continue", "continue", "trip", "trip"]


def test_exact_args_does_not_trip_when_a_different_call_intervenes() -> None:
    """A different call between repeats resets the streak."""
    a = call("edit", args={"old": "x"})
    b = call("read", tool="read_file", args={"path": "a.py"})
    assert first_trip(ExactArgs(), [a, a, b, a, a, b, a, a]) is None


# ---------------------------------------------------------------------------------------
# stuck-detector (OpenHands)
# ---------------------------------------------------------------------------------------


def test_stuck_detector_four_identical_action_observation_pairs() -> None:
    """Four identical action/observation pairs trip at the fourth step."""
    step = call("Checking the status.", tool="bash", args={"cmd": "git status"}, result="clean")
    assert first_trip(StuckDetector(), [step] * 6) == 3


def test_stuck_detector_three_identical_actions_with_errors() -> None:
    """Three identical actions whose results are errors trip at the third, errors may differ."""
    steps = [call("Retry.", result=f"Error: attempt {i} failed") for i in range(4)]
    det = StuckDetector()
    assert first_trip(det, steps) == 2
    assert det.reason == "repeating_action_error"


def test_stuck_detector_monologue_of_identical_messages() -> None:
    """Three identical agent messages with no observation between them trip at the third."""
    steps = [{"text": "Thanks, happy to help!", "agent": "assistant"}] * 4
    det = StuckDetector()
    assert first_trip(det, steps) == 2
    assert det.reason == "monologue"


def test_stuck_detector_alternating_pattern() -> None:
    """An A-B-A-B-A-B pattern of actions and observations trips at the sixth step."""
    a = call("Read the file.", tool="read_file", args={"path": "a.py"}, result="x = 1")
    b = call("Apply the diff.", tool="apply_diff", args={"diff": "-x\n+y"}, result="applied")
    det = StuckDetector()
    assert first_trip(det, [a, b, a, b, a, b, a]) == 5
    assert det.reason == "alternating_pattern"


def test_stuck_detector_paraphrased_thought_defeats_exact_equality() -> None:
    """The same call behind a reworded thought is not identical, as in OpenHands."""
    steps = [call(f"Attempt {i}: retrying the edit.", result="Error: no match") for i in range(8)]
    assert first_trip(StuckDetector(), steps) is None


def test_stuck_detector_user_message_starts_a_new_window() -> None:
    """Only history after the last user message counts."""
    err = call("Retry.", result="Error: no match")
    steps = [err, err, dict(err, user="Please try once more."), err]
    assert verdicts(StuckDetector(), steps) == ["continue", "continue", "continue", "continue"]


def test_step_is_error_prefers_status_then_reads_the_result() -> None:
    """The error flag follows status when given, else common error shapes in the result."""
    assert step_is_error({"status": "error", "result": "fine"})
    assert not step_is_error({"status": "ok", "result": "Error: boom"})
    assert step_is_error({"result": "Traceback (most recent call last):\n  ..."})
    assert step_is_error({"result": "fatal: not a git repository"})
    assert not step_is_error({"result": "2 of 9 hits\n14:07 ERROR payment lookup"})
    assert not step_is_error({"result": None})


# ---------------------------------------------------------------------------------------
# jaccard (agent-loop-detector)
# ---------------------------------------------------------------------------------------


def test_jaccard_trips_after_three_similar_consecutive_pairs() -> None:
    """Three consecutive pairs with word Jaccard >= 0.85 trip at the fourth similar text."""
    texts = [
        "Reading the config file.",
        "Let me retry the edit now.",
        "Now let me retry the edit.",
        "Let me now retry the edit.",
        "Retry the edit now, let me.",
        "Something else entirely.",
    ]
    assert verdicts(JaccardRepeat(), [{"text": t} for t in texts]) == ["continue"] * 4 + ["trip", "trip"]


def test_jaccard_upstream_default_is_two_pairs() -> None:
    """pairs=2 reproduces agent-loop-detector's max_consecutive=3 (three similar outputs)."""
    steps = [{"text": "same words here"}] * 3
    assert first_trip(JaccardRepeat(pairs=2), steps) == 2
    assert first_trip(JaccardRepeat(), steps) is None


def test_jaccard_does_not_trip_when_similarity_breaks() -> None:
    """A dissimilar text resets the run of similar pairs."""
    same = {"text": "polling the job status again"}
    other = {"text": "the job finished; reading the report"}
    assert first_trip(JaccardRepeat(), [same, same, same, other, same, same, same]) is None
    assert jaccard_similarity("", "") == 1.0 and jaccard_similarity("a", "") == 0.0


# ---------------------------------------------------------------------------------------
# chunk-hash (gemini-cli)
# ---------------------------------------------------------------------------------------


def test_chunk_hash_fires_on_a_short_period_loop() -> None:
    """A 2-character unit repeated after a short preamble fires when 10 windows recur (chunk 34)."""
    assert first_fire(ChunkHash(), ["Let me check the file. "] + ["ny"] * 60) == 34


def test_chunk_hash_spares_items_with_a_shared_prefix() -> None:
    """Lines sharing a long prefix but differing in content have distinct periods: no fire."""
    chunks = [f"The quick brown fox jumps over the lazy dog, then rests at spot {i}.\n" for i in range(40)]
    assert first_fire(ChunkHash(), chunks) is None


def test_chunk_hash_ignores_code_blocks() -> None:
    """Repeated text inside a fenced code block is not analysed."""
    chunks = ["Here is the file:\n```python\n"] + ["print('hello world, hello world')\n"] * 40 + ["```\n"]
    assert first_fire(ChunkHash(), chunks) is None


def test_chunk_hash_divider_regex_quirk_is_kept() -> None:
    """Upper-case-only chunks match gemini-cli's divider class and are skipped, lower-case ones are not."""
    assert first_fire(ChunkHash(), ["NY"] * 200) is None
    assert first_fire(ChunkHash(), ["ny"] * 200) == 33


# ---------------------------------------------------------------------------------------
# line-window (hermes-agent)
# ---------------------------------------------------------------------------------------

LOOP_LINE = "- **Texture**: `TEXTURE_LOCAL.md` (creative trace, emergence).\n"


def test_line_window_fires_on_a_dominant_repeated_line_after_1200_chars() -> None:
    """One long line repeated fires once 1,200 characters have streamed (chunk 19)."""
    det = LineWindow()
    chunks = ["A healthy preamble that explains the plan in some detail.\n"] + [LOOP_LINE] * 30
    assert first_fire(det, chunks) == 19
    assert det.repeated_unit == LOOP_LINE.strip()


def test_line_window_spares_a_status_line_interleaved_with_unique_content() -> None:
    """A recurring status line between distinct report lines keeps too many distinct lines to fire."""
    chunks: list[str] = []
    for i in range(60):
        chunks.append(f"Unique report section {i} with enough detail to count as a line.\n")
        chunks.append("No changes detected for this source since the previous scan.\n")
    assert first_fire(LineWindow(), chunks) is None


def test_line_window_periodic_tail_without_newlines() -> None:
    """Text without newlines fires on the periodic-tail check at the first check past 1,200 chars."""
    text = "I will check the same thing again. " * 40
    chunks = [text[i : i + 50] for i in range(0, len(text), 50)]
    det = LineWindow()
    assert first_fire(det, chunks) == 23
    assert det.repeated_unit is not None and det.repeated_unit.startswith("periodic tail")


def test_line_window_never_fires_below_min_total_chars() -> None:
    """A short degenerate stream (320 chars) stays below the 1,200-character gate."""
    assert first_fire(LineWindow(), ["ny"] * 160) is None


# ---------------------------------------------------------------------------------------
# the shared benchmark
# ---------------------------------------------------------------------------------------


@pytest.mark.shared("benchmark")
def test_every_baseline_runs_over_the_shared_benchmark() -> None:
    """Every baseline runs over every case in shared/benchmark and is scored without error."""
    if not BENCHMARK.is_dir():
        pytest.skip(f"shared benchmark folder not found at {BENCHMARK}")
    cases = load_cases([BENCHMARK])
    steps_cases = [c for c in cases if c["level"] == "steps"]
    stream_cases = [c for c in cases if c["level"] == "stream"]
    assert steps_cases or stream_cases
    for name, factory in STEP_BASELINES.items():
        det = factory(embed=hashing_embed) if name == "seed-baseline" else factory()
        scores = [score_steps_case(c, run_steps_detector(det, c)) for c in steps_cases]
        totals = summarize_steps(scores)
        assert totals.runs == len(steps_cases) == totals.stuck + totals.productive
        assert totals.detected + totals.missed <= totals.stuck
        assert "TOTAL" in format_steps_table(scores, totals)
    for stream_factory in STREAM_BASELINES.values():
        sdet = stream_factory()
        sscores = [score_stream_case(c, run_stream_detector(sdet, c)) for c in stream_cases]
        stotals = summarize_stream(sscores)
        assert stotals.caught + stotals.premature + stotals.late + stotals.missed == stotals.fire_streams
        assert "TOTAL" in format_stream_table(sscores, stotals)
