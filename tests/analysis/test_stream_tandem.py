"""``stream.tandem``: a short unit repeated with slips (an approximate tandem repeat).

Each test states from the rule where the fire must land: the run must cover the whole
``span_floor``-column window (its first and last copy compared intact), and a fire lands within
``copy_unit`` characters of the first such window, or on the block end that first holds it.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plateau.stream import StreamGuard, StreamGuardConfig
from plateau.stream.tandem import tandem_period
from tests.support.streams import chunk_of, first_fire, seeded

CFG = StreamGuardConfig()
PREAMBLE = "Thanks for the question, here is what I found about the parser. "


def slipped(unit: str, copies: int, slips: dict[int, str]) -> str:
    """``copies`` copies of ``unit``; copy ``i`` replaced by ``slips[i]`` where given."""
    return "".join(slips.get(i, unit) for i in range(copies))


def test_a_syllable_with_vowel_slips_fires_once_its_run_fills_the_window() -> None:
    run = slipped("mela", 40, {9: "mala", 17: "mel", 26: "mila"})
    text = PREAMBLE + run
    start = len(PREAMBLE)
    for seed in range(6):
        chunks = seeded(text, seed, 1, 12)
        res = first_fire(chunks)
        assert res.fired and res.reason == "stream.tandem", res
        # the window of 96 columns is all run from start + 95 on; the fire lands by a block end or
        # an armed check copy_unit characters apart
        assert chunk_of(chunks, start + CFG.span_floor - 1) <= res.fired_at_chunk <= chunk_of(
            chunks, start + CFG.span_floor - 1 + CFG.copy_unit
        )
        assert res.period == 4 and res.loop_start is not None and res.loop_start >= start
        assert res.cut_offset == res.loop_start + 4


def test_a_glyph_pair_broken_by_line_breaks_fires() -> None:
    text = PREAMBLE + "\n".join(["/C" * 30] * 3)
    res = first_fire(seeded(text, 3, 1, 12))
    assert res.fired and res.reason in {"stream.tandem", "stream.period"}
    assert res.chars <= len(PREAMBLE) + CFG.span_floor + CFG.block


@pytest.mark.parametrize(
    "text",
    [
        " ".join(f"Option {c}" for c in "ABCDEFGHIJKLMNOPQRST"),  # a slot that changes in every copy
        " ".join(f"Match n={i}" for i in range(60, 80)),  # a counter
        "| 09:00-18:00 " * 9 + "|",  # figures in table cells: data, no word
        "-=" * 40 + "x" + "-=" * 20,  # layout with a stray letter
    ],
)
def test_enumerations_figures_and_layout_are_no_slipped_run(text: str) -> None:
    res = first_fire(seeded(PREAMBLE + text, 1, 1, 12))
    assert not (res.fired and res.reason == "stream.tandem"), res


def test_two_runs_of_different_units_back_to_back_are_no_slipped_run() -> None:
    """A run that gives way to a run of another unit (a typing drill's ``frf juj`` lines, then
    its ``ded kik`` lines) differs from it at one copy's length of positions, as one dropped
    character would make it; the window's first and last copies are no one unit, so it is two
    runs, each shorter than its span: quiet. The same window with one dropped character fires."""
    drill = "frf juj frf juj frf juj\n" * 3 + "ded kik ded kik ded kik\n" * 3  # each run under its span
    text = PREAMBLE + drill + "Then take a short break before the next row.\n"
    for seed in range(4):
        assert not first_fire(seeded(text, 40 + seed, 1, 12)).fired
    dropped = PREAMBLE + slipped("frf juj ", 16, {6: "frf uj "})
    res = first_fire(seeded(dropped, 44, 1, 12))
    assert res.fired and res.reason in {"stream.tandem", "stream.period"}, res


def test_a_slipped_run_inside_quoted_output_or_pasted_output_is_left_to_the_exact_rules() -> None:
    run = slipped("EEEE", 30, {7: "E.EE", 19: "EE.E"})
    fenced = "Here is the runner's output:\n```\n" + run + "\n```\n"
    assert not first_fire(seeded(fenced, 2, 1, 12)).fired
    asked = StreamGuard(context="Run the test suite and paste the output.")
    assert not any(asked.feed(c).fired for c in seeded(run + "\n", 2, 1, 12))


def test_a_requested_chant_is_excused() -> None:
    text = slipped("lala ", 40, {}) + "\n"
    guard = StreamGuard(context="Write 'lala' forty times for the vocal warm-up.")
    assert not any(guard.feed(c).fired for c in seeded(text, 4, 1, 12))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(1, 24), min_size=1, max_size=400), st.integers(0, 39))
def test_the_fire_does_not_depend_on_the_chunking(sizes: list[int], slip: int) -> None:
    text = PREAMBLE + slipped("tako", 40, {slip: "taka", (slip + 13) % 40: "tak"})
    chunks, i = [], 0
    for n in sizes:
        if i >= len(text):
            break
        chunks.append(text[i : i + n])
        i += n
    if i < len(text):
        chunks.append(text[i:])
    res = first_fire(chunks)
    ref = first_fire(list(text))  # one character per chunk: the chunk index is the character's offset
    assert (res.fired, res.reason, res.loop_start, res.unit) == (ref.fired, ref.reason, ref.loop_start, ref.unit)
    if ref.fired:
        assert ref.fired_at_chunk is not None
        assert res.fired_at_chunk == chunk_of(chunks, ref.fired_at_chunk)


_WORDS = (
    "the a parser reads every quoted field and keeps its header row while we fix tests after lunch "
    "because our nightly build broke on two platforms when someone renamed config loader module "
    "into something shorter than before so imports failed silently until monday morning review"
).split()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), min_size=20, max_size=60, unique=True), st.integers(0, 50))
def test_text_without_repetition_never_fires(words: list[str], seed: int) -> None:
    text = " ".join(words) + ". "
    res = first_fire(seeded(text, seed, 1, 12))
    assert not res.fired, res


def test_tandem_period_reads_slips_not_counters() -> None:
    w = "zora" * 10 + "zara" + "zora" * 13
    assert tandem_period(w, 16, 8) == (4, 2)
    assert tandem_period("".join(f"a{i % 10}" for i in range(48)), 16, 8) == (0, -1)
    assert tandem_period("abcdefghijklmnopqrstuvwxyz" * 3, 16, 8) == (0, -1)
