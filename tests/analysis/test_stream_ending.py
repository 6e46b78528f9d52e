"""The end of a stream: :meth:`StreamGuard.finish` and the ending rule (``stream.ending``).

A response that ends inside the reader's bound for a short unit (32 to 96 columns of the run) is
degenerate when the run is most of it; while the stream goes on, the floors wait for 96 columns.
Each test states from the rule where the fire must land: never on a chunk before the last, and on
the last chunk only once the stream is finished.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plateau.channels import ChannelGuards, guard_item
from plateau.errors import InvalidArgument
from plateau.stream import GuardResult, RequestContext, StreamGuard, StreamGuardConfig
from plateau.stream.ending import ending_fire
from tests.support.streams import seeded

CFG = StreamGuardConfig()


def run(chunks: list[str], context: str | None = None, **kw: object) -> tuple[list[GuardResult], GuardResult]:
    """Every chunk's result, then the result of :meth:`finish`."""
    guard = StreamGuard("content", context=context, **kw)  # type: ignore[arg-type]
    results = [guard.feed(c) for c in chunks]
    return results, guard.finish()


def fires_only_at_the_end(text: str, seed: int = 0, context: str | None = None) -> GuardResult:
    chunks = seeded(text, seed, 1, 12)
    results, final = run(chunks, context)
    assert not any(r.fired for r in results), next(r for r in results if r.fired)
    assert final.fired
    assert final.fired_at_chunk == len(chunks) - 1
    assert final.chars == len(text)
    return final


# ------------------------------------------------------------------ kinds that fire at the end


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("a " + "2 " * 26 + "2", "2 "),  # one digit token after a one-word start: 55 characters
        ("dai " * 15 + "dai", "dai "),  # one word, the whole response: 63 characters
        ("The art of dancing without a finger party. " + "Thank you. " * 5, "Thank you. "),  # a short sentence, 57 of 97
        ("!" * 60, "!"),  # one character, under the 96-column run floor
        ("啊 " + "来了" * 20, "来了"),  # a two-character word glued, 80 columns
        ("Vielen Dank.\n\n" * 5, "Vielen Dank.\n"),  # blank lines between copies read as one break
        # copies interrupted once by a line that is not a copy: still the loop
        ("Vielen Dank. Vielen Dank.\nVielen Dank.\nUntertitel im Auftrag des ZDF\nVielen Dank.\nVielen Dank.", "Vielen Dank.\n"),
    ],
)
def test_a_response_that_ends_as_a_short_loop_fires_on_finish(text: str, unit: str) -> None:
    for seed in range(5):
        final = fires_only_at_the_end(text, seed)
        assert final.reason == "stream.ending"
        assert final.unit == unit
        assert final.cut_offset is not None and final.loop_start is not None
        assert final.loop_start < final.cut_offset <= len(text)


def test_the_rule_is_stated_in_the_config_fields() -> None:
    """32 columns and 4 copies fire; one column less, or three copies, do not; half the response.
    Trailing whitespace is not part of the response."""
    assert ending_fire("go homes " * 4, CFG) is not None  # 35 columns, 4 copies
    assert ending_fire("go home " * 4, CFG) is None  # 31 columns
    assert ending_fire("stopping now " * 3, CFG) is None  # 38 columns, 3 copies
    # the run must be at least half the response
    lead = "We looked at the logs and the retry never ran because the queue was full. "  # 75 characters
    assert ending_fire(lead + "go on " * 13, CFG) is not None  # 78 of 153
    assert ending_fire(lead + "go on " * 10, CFG) is None  # 60 of 135
    wide = StreamGuardConfig(end_span_floor=40, end_fraction=0.9)
    assert ending_fire("go homes " * 4, wide) is None
    assert ending_fire("go homes " * 5, wide) is not None


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        # three copies of a sentence of 16 characters or more, and nothing else: the fourth never comes
        ("The build is green again. The build is green again. The build is green again.", "The build is green again. "),
        (" Need to implement it.\n\n Need to implement it.\n\n Need to implement it.\n", "Need to implement it.\n"),
        # the last copy cut before its full stop (a token limit) is whole
        ("音声が入ってきましたね、ありがとう。" * 2 + "音声が入ってきましたね、ありがとう", "音声が入ってきましたね、ありがとう。"),
        # after a line of answer, as long as the copies are half of it
        ("Sure.\nThe meaning of life is to be alive.\nThe meaning of life is to be alive.\nThe meaning of life is to be alive.\n",
         "The meaning of life is to be alive.\n"),
    ],
)
def test_a_response_that_ends_inside_the_third_copy_of_a_long_unit_fires_on_finish(text: str, unit: str) -> None:
    """A unit of ``copy_unit`` characters or more fires mid-stream by its fourth copy; a response that
    ends with three copies of it covering half its columns fires when it ends, on the last chunk."""
    for seed in range(5):
        final = fires_only_at_the_end(text, seed)
        assert final.reason == "stream.ending" and final.unit == unit
        assert final.loop_start is not None and final.cut_offset is not None
        assert text[final.loop_start : final.cut_offset].strip() == unit.strip()


def test_the_long_unit_rule_is_stated_in_the_config_fields() -> None:
    """``unit_copies - 1`` copies at the end, ``end_fraction`` of the response; two copies never."""
    three = "The build is green again. " * 3
    fire = ending_fire(three, CFG)
    assert fire is not None and fire.copies == 3
    assert ending_fire("The build is green again. " * 2, CFG) is None
    assert ending_fire(three, StreamGuardConfig(unit_copies=5)) is None
    lead = "x" * 40 + " and some words before it. "  # 67 columns before 78 of copies: 0.54
    assert ending_fire(lead + three, CFG) is not None
    assert ending_fire(lead + three, StreamGuardConfig(end_fraction=0.6)) is None
    # a request for the lines excuses them
    text = "Keep calm and carry on.\n" * 3
    assert fires_only_at_the_end(text).reason == "stream.ending"
    _, final = run(seeded(text, 2), context="Write 'Keep calm and carry on.' three times, one per line.")
    assert not final.fired


def test_ab_runs_are_judged_like_any_word() -> None:
    assert ending_fire("ab " * 11, CFG) is not None


def test_earlier_copies_count_as_whole_tokens_and_the_cut_keeps_the_first() -> None:
    text = "Vielen Dank. Vielen Dank.\nCredits: the ZDF, 2020\nVielen Dank.\nVielen Dank."
    fire = ending_fire(text, CFG)
    assert fire is not None and fire.copies == 4 and fire.loop_start == 0
    assert text[: fire.cut_offset].strip() == "Vielen Dank."
    # "2" inside 2020 or 12 is no copy of the token "2": three copies are not enough
    assert ending_fire("In 2020 and 2021 we had 12 or 22 days: 2 2 2", CFG) is None


# ------------------------------------------------------------------ legitimate endings stay quiet


@pytest.mark.parametrize(
    "text",
    [
        # a song whose verses are most of it, ending on its refrain's syllables
        "Down by the river where the willows grow,\nwe sang the old songs soft and slow,\n"
        "and when the lanterns lost their glow,\nwe hummed along: la la la la la la la la\n",
        # layout: a divider and a table's empty cells end the answer
        "Results\n" + "-" * 60 + "\n",
        "| a | b |\n" + "| 0 " * 12 + "|\n",
        # a laugh that is short
        "That's the joke. Ha ha ha ha!",
        # two copies of a long unit and the start of a third that differs
        "The build is green again. The build is green again. The build is red",
        # three copies of a long unit that are not half of the answer
        "We reran the suite after the fix to the retry queue and every job passed on the first try, "
        "so the flaky test is gone for now.\nThe build is green again.\nThe build is green again.\n"
        "The build is green again.",
    ],
)
def test_legitimate_endings_do_not_fire(text: str) -> None:
    for seed in range(3):
        results, final = run(seeded(text, seed, 1, 12))
        assert not final.fired, final


def test_a_request_for_the_run_excuses_it() -> None:
    text = "🎉" * 40 + "\n"
    assert fires_only_at_the_end(text).reason == "stream.ending"
    results, final = run(seeded(text, 1), context="Give me a row of 40 🎉 emojis for the top of a banner.")
    assert not final.fired
    results, final = run(seeded("ok " * 20, 1), context="Say ok 20 times.")
    assert not final.fired


def test_a_row_of_n_reads_as_a_count() -> None:
    ctx = RequestContext.parse("Print a line of 80 dashes under the title.")
    assert ctx.requested and ctx.bound == 80
    assert not RequestContext.parse("Write a line of code that sorts the list.").requested


# ------------------------------------------------------------------ the final block


def test_finish_judges_the_characters_after_the_last_block() -> None:
    """Every word doubled (``stream.stutter``: four stuttering blocks) fires mid-stream at the end of
    the fourth block (character 255). Cut at 230 characters, the fourth block is never completed:
    no chunk fires, and finish analyses the 38 characters after the third block and fires on
    the last chunk. Cut at 200, the 8 characters left do not make a stuttering block."""
    rng = random.Random(1)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 7))) for _ in range(200)]
    text = " ".join(w + " " + w for w in words)
    for seed in range(4):
        chunks = seeded(text[:230], seed, 1, 12)
        results, final = run(chunks)
        assert not any(r.fired for r in results)
        assert final.fired and final.reason == "stream.stutter" and final.fired_at_chunk == len(chunks) - 1
        results, final = run(seeded(text[:200], seed, 1, 12))
        assert not final.fired
    results, _ = run(seeded(text[:300], 0, 1, 12))
    assert any(r.fired for r in results)


def test_finish_is_idempotent_and_ends_the_stream() -> None:
    guard = StreamGuard()
    guard.feed("dai " * 16)
    first = guard.finish()
    assert first.fired and guard.finished
    assert guard.finish() == first
    with pytest.raises(ValueError, match="ended"):
        guard.feed("more")
    guard.reset()
    assert not guard.finished
    assert not guard.feed("hello").fired


def test_finish_on_an_empty_stream_is_quiet() -> None:
    guard = StreamGuard()
    assert not guard.finish().fired


def test_channel_guards_end_a_channel_and_refuse_more() -> None:
    guards = ChannelGuards()
    assert not guards.feed("content", "dai " * 8).fired
    final = guards.feed("content", "dai " * 7 + "dai", end=True)
    assert final.fired and final.reason == "stream.ending"
    with pytest.raises(InvalidArgument) as err:
        guards.feed("content", "x")
    assert err.value.field == "channel"
    # another channel goes on
    assert not guards.feed("reasoning", "Let me think about it.").fired


def test_stream_items_are_chunks_pairs_or_triples() -> None:
    assert guard_item("x") == ("content", "x", False)
    assert guard_item(("reasoning", "x")) == ("reasoning", "x", False)
    assert guard_item(("content", "x", True)) == ("content", "x", True)
    with pytest.raises(InvalidArgument):
        guard_item(("content",))


# ------------------------------------------------------------------ properties


_WORDS = ["".join(random.Random(i).choices("abcdefghijklmnopqrstuvwxyz", k=random.Random(i + 3).randint(3, 9))) for i in range(3000)]


@st.composite
def _ending_text(draw: st.DrawFn) -> str:
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    lead = " ".join(rng.sample(_WORDS, rng.randint(0, 30)))
    unit = rng.choice([" ".join(rng.sample(_WORDS, rng.randint(1, 2))) + rng.choice([" ", ". ", "\n", ", "]), "!", "0 ", "\u6765\u4e86"])
    return (lead + " " if lead else "") + unit * rng.randint(1, 40)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_ending_text(), seed=st.integers(0, 10_000))
def test_chunking_never_changes_the_final_verdict(text: str, seed: int) -> None:
    """One character per chunk or any other chunking: the same final verdict, reason, unit and offsets."""
    _, a = run(list(text))
    _, b = run(seeded(text, seed, 1, 97))
    fields = ("fired", "reason", "unit", "period", "loop_start", "cut_offset", "chars")
    assert [getattr(a, f) for f in fields] == [getattr(b, f) for f in fields]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300), chunk_seed=st.integers(0, 1000))
def test_text_without_repetition_never_fires_at_the_end(seed: int, n: int, chunk_seed: int) -> None:
    rng = random.Random(seed)
    text = "".join(w + rng.choice([" ", ", ", ". ", "\n"]) for w in rng.sample(_WORDS, n))
    for channel in ("content", "reasoning", "tool_args"):
        guard = StreamGuard(channel)
        for c in seeded(text, chunk_seed, 1, 60):
            assert not guard.feed(c).fired
        assert not guard.finish().fired
