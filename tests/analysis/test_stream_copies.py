"""The firing rule stated in copies of the unit, per kind of degenerate output, on seeded streams.

For every kind the test computes from the rule the character at which the evidence is complete,
and from it the chunk that must fire: the chunk that completes the 64-character block holding
that character (the guard analyses blocks aligned on the stream's start). The chunk before it
must not have fired. Legitimate repetition of every kind named by the rule stays quiet, and two
properties hold for any text: the chunking never changes the verdict, and text that never
repeats itself never fires.
"""

from __future__ import annotations

import json
import random
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plateau.stream import GuardResult, StreamGuard, StreamGuardConfig
from plateau.stream.block import Splitter, Tail
from plateau.stream.context import RequestContext
from plateau.stream.fold import fold
from plateau.stream.recheck import RecheckDetector
from plateau.stream.text import anchor_periods, wide_count
from tests.support.streams import block_chunk, chunk_of, fourth_copy_line, seeded

CFG = StreamGuardConfig()
B = CFG.block

ANSWER = (
    "The parser reads the header first, then every row; a quoted comma stays inside its field. "
    "The fix keeps the header row as the user wrote it.\n"
)


def feed(chunks: list[str], channel: str = "content", **kw: object) -> list[GuardResult]:
    guard = StreamGuard(channel, **kw)  # type: ignore[arg-type]
    return [guard.feed(c) for c in chunks]


def first_fire(results: list[GuardResult]) -> int | None:
    return next((i for i, r in enumerate(results) if r.fired), None)


def assert_fires_at(chunks: list[str], offset: int, channel: str = "content", **kw: object) -> GuardResult:
    """The guard fires exactly on the chunk that brings the character at ``offset`` (the one that
    completes the span), not on the one before it."""
    results = feed(chunks, channel, **kw)
    want = chunk_of(chunks, offset)
    got = first_fire(results)
    assert got == want, (got, want, results[got] if got is not None else None)
    assert want == 0 or not results[want - 1].fired
    return results[want]


def assert_fires_at_block(chunks: list[str], offset: int, channel: str = "content", **kw: object) -> GuardResult:
    """The guard fires exactly on the chunk that completes the 64-character block holding ``offset``
    (the detectors that are not armed: self-dialogue, re-check)."""
    results = feed(chunks, channel, **kw)
    want = block_chunk(chunks, offset)
    got = first_fire(results)
    assert got == want, (got, want, results[got] if got is not None else None)
    assert not results[want - 1].fired
    return results[want]


def content_reach(text: str, begin: int, span: int = CFG.span_floor) -> int:
    """The offset at which ``text[begin:]``, a run of whitespace counted as at most four
    characters, covers ``span``."""
    n = 0
    run = 0
    for i in range(begin, len(text)):
        run = run + 1 if text[i].isspace() else 0
        if run <= 4:
            n += 1
        if n >= span:
            return i
    raise AssertionError("the text is shorter than the span")


# ----------------------------------------------------------------------------- short units


def test_anchor_periods_lists_the_anchors_earlier_occurrences_nearest_first() -> None:
    # the anchor "XYZ" (index 15) recurs 6 and 12 characters back: periods 6, then 12
    assert anchor_periods("abcXYZabcXYZabcXYZ", 15, 0, 17, 4) == [6, 12]
    assert anchor_periods("abcXYZabcXYZabcXYZ", 15, 0, 17, 1) == [6]
    assert anchor_periods("abcXYZabcXYZabcXYZ", 15, 4, 17, 4) == [6]  # the search stops at index 4
    assert anchor_periods(b"xx ab ab ab", 9, 0, 10, 4) == [3, 6]  # bytes (the folded text) alike
    assert anchor_periods("no recurrence here", 15, 0, 17, 4) == []


def test_a_sentence_of_20_to_40_characters_fires_by_its_fourth_copy() -> None:
    """A 22-40 character sentence repeated after an answer fires when its 4th copy is complete: on
    its last character that is not whitespace (the space or line break after it separates it
    from the next copy)."""
    for seed, unit in enumerate(["I'm gonna have to go. ", "Let me check the config file again. ", "Thanks for waiting!\n"]):
        assert 20 <= len(unit) <= 40 and CFG.copies_required(len(unit), 4) == 4
        text = ANSWER + unit * 30
        chunks = seeded(text, 100 + seed)
        res = assert_fires_at(chunks, len(ANSWER) + 3 * len(unit) + len(unit.rstrip()) - 1)
        assert res.reason == "stream.period" and res.unit is not None and res.loop_start == len(ANSWER)
        # Three copies, then the answer goes on: quiet.
        quiet = ANSWER + unit * 3 + ANSWER.replace("parser", "lexer")
        assert first_fire(feed(seeded(quiet, 200 + seed))) is None


def test_every_unit_of_16_to_34_characters_fires_on_the_chunk_completing_its_fourth_copy() -> None:
    """Units of 16-34 characters (the 16-26 ones are found by the half-block probe) in seeded
    chunks of 1-12 characters: the fire is on the chunk holding the 4th copy's last character
    that is not whitespace,
    never on the chunk before, wherever the loop starts relative to the blocks."""
    rng = random.Random(7)
    for trial in range(60):
        p = 16 + trial % 19
        unit = ""
        while len(unit) < p - 1:
            unit += rng.choice(_WORDS) + " "
        unit = unit[: p - 2] + ". "
        head = " ".join(rng.sample(_WORDS, rng.randint(5, 60))) + ". "
        text = head + unit * 10
        begin = len(head)
        while begin > 0 and text[begin - 1] == text[begin - 1 + p]:  # the run may reach back over a shared suffix
            begin -= 1
        # the copy read from the loop's first character is complete at its last character that
        # is not whitespace ("... word. " at its full stop)
        due = begin + 3 * p + len(text[begin : begin + p].rstrip()) - 1
        assert due == fourth_copy_line(text, begin, p)
        res = assert_fires_at(seeded(text, 300 + trial, 1, 12), due)
        assert res.reason == "stream.period" and res.period == p


def test_a_line_written_once_before_its_run_counts_as_its_first_copy() -> None:
    """A line, one other line, then the first line again and again (``A B A A A``): a reader
    counts the copies from the first appearance, so the chunk that ends the 5th line (the 4th
    copy) fires, never the one before; with two lines between, longer together than one copy,
    or only three copies in all, the run alone counts and stays quiet at three."""
    lines = [
        ("Checking the build cache for stale entries now.\n", "Found one stale entry.\n"),
        ("<item>keyboard</item><box>0 0 120 40</box>\n", "<item>chair</item><box>5 9 60 80</box>\n"),
        ("Let me look at the failing assertion again.\n", "Hmm.\n"),
    ]
    for seed, (a, b) in enumerate(lines):
        text = ANSWER + a + b + a * 8
        res = assert_fires_at(seeded(text, 400 + seed), len(ANSWER) + 4 * len(a) + len(b) - 1)
        # the period's run and the line's chain both count the first copy; the lines report it
        assert res.reason in ("stream.period", "stream.line_dominance")
        three = ANSWER + a + b + a * 2 + ANSWER.replace("parser", "lexer")
        assert first_fire(feed(seeded(three, 410 + seed))) is None
        gap = "Between them sit two lines,\nlonger together than one copy of the line.\n"
        assert len(gap) > len(a)
        far = ANSWER + a + gap + a * 3 + ANSWER.replace("parser", "lexer")
        assert first_fire(feed(seeded(far, 420 + seed))) is None


def test_a_copy_that_differs_by_its_padding_alone_counts_before_the_run() -> None:
    """An object written four times, its second copy without its opening brace: the verbatim run
    begins inside the unit (after the brace) and holds three copies by the end of the 4th object,
    but the text right before it folds to one copy (padding and spacing folded, issue 23's rule),
    so the guard fires within the 4th object; three objects stay quiet."""
    obj = '{"person": ["Ada Lovelace", "Charles Babbage"], "organization": ["Analytical Society"], "location": ["London"]} '
    for seed, sep in enumerate([" ", "\n"]):
        copy = obj.rstrip() + sep
        text = copy + copy[1:] + copy * 4
        fourth = len(copy) + len(copy) - 1 + len(copy)  # where the 4th object begins
        for chunk_seed in (530 + seed, 540 + seed):
            chunks = seeded(text, chunk_seed)
            got = first_fire(feed(chunks))
            assert got is not None and chunk_of(chunks, fourth) <= got <= chunk_of(chunks, fourth + len(copy)), (seed, got)
        three = copy + copy[1:] + copy + "That is all the entities in the sentence, none of them repeated."
        assert first_fire(feed(seeded(three, 550 + seed))) is None


def test_lines_that_differ_from_a_run_by_a_word_count_as_its_first_copies() -> None:
    """A loop that settles on one line often reaches it through near copies (a word added,
    dropped or swapped), which a reader counts as the line's first copies: two such lines, then
    the line twice, fire on the chunk that brings the 4th copy's full stop. One near copy and two
    copies stay quiet, and so does a line on the same subject that is no near copy; lines of code
    are no prose and never count."""
    a = "I will check the cache settings one more time before the release.\n"
    near = (
        "So I will check the cache settings one more time before release.\n",
        "I will check the cache settings one last time before the release.\n",
    )
    text = ANSWER + near[0] + near[1] + a * 6
    for seed in range(600, 605):
        res = assert_fires_at(seeded(text, seed), len(ANSWER) + len(near[0]) + len(near[1]) + 2 * len(a) - 2)
        assert res.reason == "stream.period"
    end = ANSWER.replace("parser", "lexer")
    assert first_fire(feed(seeded(ANSWER + near[1] + a * 2 + end, 610))) is None
    other = "The release notes list the cache settings that changed in this version.\n"
    assert first_fire(feed(seeded(ANSWER + other + near[1] + a * 2 + end, 611))) is None
    code = "    cache.check(settings=one_more, time=before, release=True)  # the release\n"
    line = "    cache.check(settings=one_more, time=before, release=False)  # the release\n"
    assert first_fire(feed(seeded(ANSWER + code + code.replace("True", "None") + line * 2 + end, 612))) is None


def test_a_line_that_comes_back_every_other_line_fires_on_its_fourth_copy() -> None:
    """A fixed line between lines that themselves come back (``A B A C A B A``): the chunk that
    brings the newline ending its 4th copy fires (``stream.line_dominance``), never the one
    before, blank lines between them or not; with three lines taking turns between its copies
    (``A B A C A D A B A``), the 5th copy -- the first after a line between came back."""
    fixed = "I will commit the change to the branch now.\n"
    others = ["Running the formatter over the files first.\n", "Checking that the tests still pass.\n", "Looking at the diff once more.\n"]
    for seed, (sep, turns, nth) in enumerate([("", 2, 3), ("\n", 2, 3), ("", 3, 4), ("\n", 3, 4)]):
        text = ANSWER + "".join(fixed + sep + others[i % turns] + sep for i in range(10))
        copy = [i for i in range(len(text)) if text.startswith(fixed, i)][nth]
        res = assert_fires_at(seeded(text, 430 + seed), copy + len(fixed) - 1)
        assert res.reason == "stream.line_dominance" and res.unit == fixed.strip() and res.loop_start == len(ANSWER)


def test_lines_that_come_back_between_others_legitimately_stay_quiet() -> None:
    """Quiet: three copies; a line that comes back only every third line; a line between lines
    that are each new (an enumeration: a status line once per item); the same statement as the
    body of each branch of an ``if`` / ``elif`` chain, indented (with or without a code fence);
    any such line inside an open code fence."""
    fixed = "I will commit the change to the branch now.\n"
    varied = [" ".join(random.Random(i).sample(_WORDS, 7)).capitalize() + ".\n" for i in range(10)]
    three = ANSWER + "".join(fixed + v for v in varied[:3]) + ANSWER.replace("parser", "lexer")
    third = ANSWER + "".join(fixed + v + w for v, w in zip(varied, varied[::-1], strict=True))
    chain = "".join(f"    elif name == 'field_{i}':\n        sys.stdout.write('    ' + line)\n" for i in range(14))
    items = ANSWER + "".join(fixed + v for v in varied)
    fenced = "```\n" + "".join(fixed + v for v in [varied[0], varied[1], varied[0], varied[1]]) + fixed + "```\n"
    for seed, text in enumerate([three, third, items, ANSWER + chain, ANSWER + "```python\n" + chain + "```\n", ANSWER + fenced]):
        assert first_fire(feed(seeded(text, 440 + seed))) is None, text[-80:]


def test_an_ordered_list_whose_items_cycle_under_new_numbers_fires_on_its_fourth_round() -> None:
    """``1. A``, ``2. B``, ``3. C``, ``4. A``, ...: the items come back in order under new
    numbers. The chunk that brings the newline ending the first item of the 4th round fires,
    never the one before, in English and in Chinese, with ``.`` or ``)`` after the number."""
    cycles = [
        (["Read the failing test", "Patch the parser", "Run the suite again"], ". "),
        (["苹果很好吃", "香蕉是黄色的"], ") "),
    ]
    for seed, (items, mark) in enumerate(cycles):
        q = len(items)
        text = ANSWER + "".join(f"{i + 1}{mark}{items[i % q]}\n" for i in range(6 * q))
        starts = [i + 1 for i in range(len(ANSWER) - 1, len(text) - 1) if text[i] == "\n"]
        fourth = starts[3 * q]  # the first item of the 4th round
        res = assert_fires_at(seeded(text, 450 + seed), text.index("\n", fourth))
        assert res.reason == "stream.line_dominance" and res.loop_start == len(ANSWER)


def test_ordered_lists_that_do_not_cycle_stay_quiet() -> None:
    """Quiet: distinct items; three rounds of a cycle; items too short to be a unit
    (``1. a``); a numbered cycle inside a code fence (a program's numbered output); a plan
    whose items recur by design, when the request asks for a schedule, a rota, an alternation."""
    steps = ["Read the failing test", "Patch the parser", "Run the suite again"]
    distinct = "".join(f"{i + 1}. {w} step of the plan\n" for i, w in enumerate(_WORDS[:20]))
    three = "".join(f"{i + 1}. {steps[i % 3]}\n" for i in range(9)) + "That is the whole plan, and it worked.\n"
    short = "".join(f"{i + 1}. {'ab'[i % 2]}\n" for i in range(20))
    fenced = "```\n" + "".join(f"{i + 1}. {steps[i % 3]}\n" for i in range(12)) + "```\n"
    for seed, text in enumerate([distinct, three, short, fenced]):
        assert first_fire(feed(seeded(ANSWER + text, 460 + seed))) is None, text[:60]
    # A plan whose items recur by design, when the request asks for one (a schedule, a rota).
    plan = "".join(f"{i + 1}. {['Upper body session at the gym', 'Rest day with a light walk'][i % 2]}\n" for i in range(14))
    assert first_fire(feed(seeded(ANSWER + plan, 465))) is not None
    asks = ["Give me a 14-day schedule alternating gym and rest.", "Make a two-week rota.", "制定一个两周的训练交替计划。"]
    for seed, ask in enumerate(asks):
        assert RequestContext.parse(ask).recurring, ask
        assert first_fire(feed(seeded(ANSWER + plan, 466 + seed), context=ask)) is None, ask


def test_a_log_with_one_block_per_day_is_a_plan() -> None:
    """A printable log with one block per day, when the request asks for it ("one block per
    day", "a two-week log"): the same lines under each day's header are the plan, not a few
    lines filling the window; unasked, the same blocks fire."""
    doses = "- [ ] 07:00  Levothyroxine 50 mcg before breakfast  ______\n- [ ] 21:00  Atorvastatin 20 mg at night  ______\n"
    days = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] * 2
    log = "".join(f"## Day {k} ({d})\n{doses}Blood sugar before breakfast: ______ mmol/L\n\n" for k, d in enumerate(days, 1))
    asks = ["Make me a printable two-week log for my medications, one block per day.", "Give me a weekly tracker for my doses."]
    for seed, ask in enumerate(asks):
        assert RequestContext.parse(ask).recurring, ask
        assert first_fire(feed(seeded(ANSWER + log, 470 + seed), context=ask)) is None, ask
    assert first_fire(feed(seeded(ANSWER + log, 472))) is not None


def test_a_list_cycle_fires_on_its_fourth_round() -> None:
    """A numbered plan written out again and again (a list cycle, 3 lines): the chunk that completes
    the first line of the 4th round fires; three rounds and a different ending stay quiet."""
    plan = "1. Read the failing test.\n2. Patch the parser.\n3. Run the suite again.\n"
    text = ANSWER + plan * 8
    start = len(ANSWER) - 1  # the answer's final newline starts the run
    res = assert_fires_at(seeded(text, 160), fourth_copy_line(text, start, len(plan)))
    assert res.reason == "stream.period" and res.unit == plan
    quiet = ANSWER + plan * 3 + "All green now; the parser keeps quoted commas.\n"
    assert first_fire(feed(seeded(quiet, 161))) is None


def test_a_short_line_fires_once_it_covers_the_span_floor() -> None:
    """A line shorter than 16 characters ('Done.') repeated fires when the copies cover 96 characters."""
    unit = "Done.\n"
    text = ANSWER + unit * 60
    chunks = seeded(text, 3)
    # The periodic span starts 2 characters early: the answer ends with '.\n', as the unit does.
    begin = len(ANSWER) - 2
    assert text[begin - 1] != text[begin - 1 + len(unit)] and text[begin : len(ANSWER)] == unit[-2:]
    res = assert_fires_at(chunks, begin + CFG.span_floor - 1)
    assert res.reason == "stream.period" and res.period == len(unit)
    assert 32 <= CFG.span_floor <= 96


# ----------------------------------------------------------------------------- padded chants


def _padded_chant(rng: random.Random, phrase: str, copies: int) -> list[str]:
    opens = ["", "(", "[", '"', "**", "{"]
    closes = ["", ")", "]", '"', "**", "}", ",", ".", "!", ";"]
    spaces = [" ", "  ", "\n", " \n ", "\t", "   "]
    return [rng.choice(opens) + phrase + rng.choice(closes) + rng.choice(spaces) for _ in range(copies)]


def test_a_padded_chant_fires_once_its_copies_cover_96_characters() -> None:
    """A two- or three-token phrase with wandering whitespace and brackets (copies equal once folded)
    fires on the chunk whose character makes the copies, from the first one's opening bracket,
    cover span_floor (96) characters -- a run of whitespace counted as at most four (indentation is not content)."""
    for seed, phrase in enumerate(["ok got it", "yes sir", "I see"]):
        rng = random.Random(10 + seed)
        copies = _padded_chant(rng, phrase, 60)
        head = "Sure thing, I will do that now.\n"
        text = head + "".join(copies)
        unit = fold(phrase) + " "
        assert len(unit) < CFG.copy_unit
        res = assert_fires_at(seeded(text, 20 + seed), content_reach(text, len(head)))
        assert res.reason == "stream.period" and res.unit is not None
        toks, want = fold(res.unit).split(), phrase.split()
        assert any(toks == want[i:] + want[:i] for i in range(len(want))), res.unit  # one copy, in some phase
        # Two chunkings, the same verdict and the same chunk for the same character.
        one = feed(list(text))
        assert first_fire(one) == content_reach(text, len(head))


def test_a_chant_whose_padding_mixes_brackets_and_spaces_between_copies_fires_from_its_first_copy() -> None:
    """Padding between two copies may mix closing and opening brackets with spaces in any order
    (``(go on) ( (go on)``, ``yes!] [yes``): the copies stay adjacent, so the span is counted
    from the first copy and fires where it covers span_floor characters, as with simple padding."""
    for seed, phrase in enumerate(["go on", "yes sir"]):
        rng = random.Random(30 + seed)
        seps = [" ", ") ( ", "] [", " ( ", ") ", "\n", "!] ["]
        text = "Sure thing, I will do that now.\n" + "".join("(" + phrase + rng.choice(seps) for _ in range(60))
        begin = text.index("(")
        res = assert_fires_at(seeded(text, 40 + seed), content_reach(text, begin))
        assert res.reason == "stream.period" and res.loop_start == begin


def test_a_chant_with_emoji_between_its_copies_fires_as_a_padded_chant() -> None:
    """Emoji between a phrase's copies (``so good 🎉 so good ✨``, a heart with its variation
    selector, a family joined by zero-width joiners) are decoration the fold reads as spaces:
    the chant fires where its copies cover span_floor characters; the emoji alone, or emoji
    between distinct lines, never fire."""
    rng = random.Random(50)
    seps = [" \U0001f60a ", " \U0001f389 ", " \u2728 ", " \u2764\ufe0f ", " \U0001f468\u200d\U0001f469\u200d\U0001f467 "]
    head = "Sure thing, I will do that now.\n"
    text = head + "".join("so good" + rng.choice(seps) for _ in range(60))
    # the span in columns, whitespace runs as one, an emoji filling two (the width rule of span_floor)
    n, reach = 0, None
    for i in range(len(head), len(text)):
        if not text[i - 4 : i + 1].isspace():  # a whitespace run counts four at most
            n += 1 + wide_count(text[i])
        if n >= CFG.span_floor:
            reach = i
            break
    assert reach is not None
    res = assert_fires_at(seeded(text, 60), reach)
    assert res.reason == "stream.period" and res.loop_start == len(head)
    lines = "".join(f"\u2705 {w} is ready for the release\n" for w in ("parser", "cache", "router", "index", "queue", "client"))
    assert first_fire(feed(seeded(head + lines, 60))) is None


def test_indentation_is_not_content() -> None:
    """Lines whose content is short but whose indentation is long ('None,' as the 8 arguments of
    a call), and an indented tree whose lines repeat once folded, stay quiet: units are measured
    with a run of whitespace as at most four characters, and only short units are judged folded."""
    call = "    params = State(\n" + "            None,\n" * 8 + "    )\n"
    assert CFG.span_required(18, 1, content=6) == 16 * 18  # 16 copies of a 6-character content
    tree = "".join(f"{'  ' * (2 * i)}#   NULL:\n{'  ' * (2 * i + 1)}#   BitmapNode(size=2 count=1 bitmap=0b1):\n" for i in range(6))
    for text in (ANSWER + call * 3, ANSWER + tree):
        assert first_fire(feed(seeded(text, 9), "tool_args")) is None


# ----------------------------------------------------------------------------- runs of one token


def test_runs_of_one_token_fire_at_96_characters() -> None:
    """'0000', '!!!!', one emoji repeated (nobody asked for them) fire once the run covers 96 columns.

    A wide emoji (East Asian Width W, two columns) fires at 48 characters, or on the block end
    that first sees its run (its anchor, ``kgram`` characters, recurring one character back)
    when that comes later; the heart with its variation selector is two narrow characters and
    fires at 96.
    """
    start = len(ANSWER)
    seen = ((start + CFG.kgram) // B + 1) * B - 1  # the end of the first block holding kgram + 1 characters of run
    for seed, (token, span) in enumerate([("0", 96), ("!", 96), ("\U0001f642", 48), ("\u2764\ufe0f", 96)]):
        text = ANSWER + token * (400 // len(token))
        res = assert_fires_at(seeded(text, 30 + seed), max(start + span - 1, seen))
        assert res.unit == token and res.loop_start == len(ANSWER)
        assert res.reason == ("stream.run" if len(token) == 1 else "stream.period")


def test_runs_of_one_token_with_a_separator_fire_at_96_characters() -> None:
    """'0, 0, 0, ...', 'b b b ...', 'czapki, czapki, ...' -- one token and a separator of spaces and
    at most one comma -- fire on the chunk that completes 96 characters of run, not on the one
    before (the structural rule of rows of data needed 256)."""
    for seed, unit in enumerate(["0, ", "b ", "00 ", "x; "]):
        text = ANSWER + unit * (400 // len(unit))
        res = assert_fires_at(seeded(text, 150 + seed), len(ANSWER) + CFG.digit_run_floor - 1)
        assert res.reason == "stream.period" and res.loop_start == len(ANSWER)


def test_a_run_of_line_breaks_fires_at_96_characters() -> None:
    """Blank lines with nothing on them, or with spaces, after an answer: a run of one token,
    fired on the chunk that brings its 96th character, never the one before; 64 line breaks and
    then more text stay quiet (layout holds a few)."""
    for seed, unit in enumerate(["\n", "  \n", "\r\n"]):
        text = ANSWER.rstrip("\n") + unit * 120
        begin = len(ANSWER.rstrip("\n"))
        res = assert_fires_at(seeded(text, 470 + seed), begin + 96 - 1)
        assert res.reason in ("stream.run", "stream.period")
    quiet = ANSWER + "\n" * 64 + ANSWER.replace("parser", "lexer")
    assert first_fire(feed(seeded(quiet, 480))) is None


def test_short_token_rows_and_columns_stay_quiet() -> None:
    """A zero-initialised array of 30 elements (90 characters), a column of zeros one per line, a
    row of two alternating tokens shorter than the structural floor: no fire."""
    text = (
        ANSWER
        + "weights = [" + "0, " * 29 + "0]\n"
        + "0\n" * 60
        + "0 1 " * 50 + "\n"
        + "Nothing else changed.\n"
    )  # fmt: skip
    assert first_fire(feed(seeded(text, 160))) is None


def test_literals_and_dividers_stay_quiet() -> None:
    """A 64-digit zero hash, a 0x-prefixed zero address, a 120-character divider and box rules: no fire."""
    text = (
        ANSWER
        + "The genesis parent hash is 0x" + "0" * 64 + " and the zero address 0x" + "0" * 40 + ".\n"
        + "-" * 120 + "\n" + "=" * 100 + "\n" + "\u2500" * 110 + "\n" + "| --- " * 16 + "|\n"
        + "Nothing else changed.\n"
    )  # fmt: skip
    assert first_fire(feed(seeded(text, 40))) is None


def test_a_line_under_a_changing_timestamp_fires_on_its_fourth_copy() -> None:
    """Subtitle lines '[00:01.000 --> 00:03.000] text' whose copies differ only by the numbered
    field in front: fire on the chunk that brings the newline ending the 4th copy, not before."""
    text = ANSWER + "".join(
        f"[00:{2 * i:02d}.000 --> 00:{2 * i + 2:02d}.000] Thanks for watching and see you next time\n" for i in range(10)
    )
    nls = [i for i, ch in enumerate(text) if ch == "\n" and i > len(ANSWER)]
    for seed in range(3):
        res = assert_fires_at(seeded(text, 170 + seed), nls[3])
        assert res.reason == "stream.line_dominance" and res.loop_start == len(ANSWER)


@pytest.mark.parametrize("stamp", ["{a}.0s-{b}.0s: ", "[{a}s] ", "{a}m{b:02d}s | "])
def test_a_line_under_a_time_field_with_units_fires_on_its_fourth_copy(stamp: str) -> None:
    """A time field whose numbers carry their unit letters (``3.0s-4.0s:``, ``[12s]``,
    ``1m05s |``: a video or speech transcript's stamps) is a time field as ``00:03`` is: the
    same text under it fires on the chunk that brings the newline ending the 4th copy; the
    same stamps over text that changes, or three copies, stay quiet."""
    body = "I don't know what is going on here right now."
    text = ANSWER + "".join(stamp.format(a=i, b=i + 1) + body + "\n\n" for i in range(10))
    nls = [i for i, ch in enumerate(text) if ch == "\n" and i > len(ANSWER) and text[i - 1] != "\n"]
    for seed in range(3):
        res = assert_fires_at(seeded(text, 190 + seed), nls[3])
        assert res.reason == "stream.line_dominance" and res.loop_start == len(ANSWER)
    items = enumerate("ABCDEFGHIJ")
    varied = ANSWER + "".join(stamp.format(a=i, b=i + 1) + f"Item {w} is ready for review by the team.\n" for i, w in items)
    three = ANSWER + "".join(stamp.format(a=i, b=i + 1) + body + "\n" for i in range(3)) + "That was all.\n"
    for quiet in (varied, three):
        assert first_fire(feed(seeded(quiet, 190))) is None


def test_numbered_lines_that_report_stay_quiet() -> None:
    """Numbers inside the text (a linter's path:line:col, test ids, an epoch's loss), three copies
    under a timestamp, and a log of one message quoted in a code fence (fewer than 12 copies): quiet."""
    lint = "".join(f"src/app.py:{10 * i}:5: E501 line too long (99 > 88 characters)\n" for i in range(8))
    ids = "".join(f"tests/test_api.py::test_get[{i}] PASSED\n" for i in range(8))
    epochs = "".join(f"epoch {i}/40 - loss: 0.{90 - i} - accuracy: 0.{50 + i}\n" for i in range(8))
    three = "".join(f"00:0{i}:00 Waiting for the database to accept connections\n" for i in range(3)) + "Connected.\n"
    fenced = "```\n" + "".join(f"12:00:{i:02d} Waiting for the database to accept connections\n" for i in range(10)) + "```\n"
    for text in (lint, ids, epochs, three, fenced):
        assert first_fire(feed(seeded(ANSWER + text, 180))) is None, text[:40]


def _srt(texts: list[str]) -> str:
    """Subtitle blocks: an index line, a time range line, the text and a blank line."""
    return "".join(f"{i + 1}\n00:01:{3 * i:02d},250 --> 00:01:{3 * i + 2:02d},900\n{t}\n\n" for i, t in enumerate(texts))


def test_a_multi_line_record_under_a_counter_and_times_fires_on_its_fourth_copy() -> None:
    """Subtitle blocks whose copies differ only by their index and time range (a 3-line record,
    its copies equal once the numeric lines are folded): fire on the chunk that brings the
    newline ending the 4th copy's text line, not on the chunk before it."""
    body = _srt(["we should go back to the river"] * 9)
    text = ANSWER + body
    ends = [len(ANSWER) + m for m in range(len(body)) if body.startswith("river\n", m)]
    for seed in range(3):
        res = assert_fires_at(seeded(text, 190 + seed), ends[3] + len("river"))
        assert res.reason == "stream.line_dominance" and res.loop_start == len(ANSWER)
        assert res.unit.endswith("we should go back to the river\n") and res.unit.startswith("4\n")


def test_multi_line_records_that_change_stay_quiet() -> None:
    """Subtitles whose text changes, three copies of one, and a record of times only (no worded
    line): quiet. Numbered records without a time are no subtitles, but one sentence under each
    number of a count is a counted loop (``stream.counted``), cut by its fourth copy."""
    lines = ["we should go back", "the river is high today", "not before the rain stops", "then we wait here"]
    varied = _srt(lines * 3)
    three = _srt(["we should go back to the river"] * 3 + ["and then home"])
    times = "".join(f"{i}\n00:00:{i:02d} --> 00:00:{i + 1:02d}\n" for i in range(1, 12))
    for text in (varied, three, times):
        assert first_fire(feed(seeded(ANSWER + text, 200))) is None, text[:40]
    no_time = "".join(f"{i}\nthe build step finished without errors\n" for i in range(1, 10))
    results = feed(seeded(ANSWER + no_time, 200))
    at = first_fire(results)
    assert at is not None and results[at].reason == "stream.counted"
    assert results[at].chars <= len(ANSWER) + no_time.index("5\n") + len("5\nthe build step fin")


# ----------------------------------------------------------------------------- template cycles

_QUESTIONS = [
    "What is the capital of France?",
    "And how many people live there?",
    "What is it famous for?",
    "Which river runs through it?",
    "Is it far from London?",
]
_ANSWERS = [
    "The capital of France is Paris.",
    "About two million in the city.",
    "The Eiffel Tower and its museums.",
    "The Seine runs through Paris.",
    "About 340 km from London.",
]


def _chatml_cycles(n: int) -> tuple[str, list[int]]:
    """A reply, then ``n`` user/assistant pairs the model writes itself; the offsets of the end
    of each pair's closing ``<|im_end|>``."""
    text = "Paris is the capital of France."
    closes = []
    for q, a in zip(_QUESTIONS[:n], _ANSWERS[:n], strict=True):
        text += f"<|im_end|>\n<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n{a}"
    for _ in range(n - 1):
        closes.append(text.index("<|im_end|>\n<|im_start|>user", closes[-1] + 1 if closes else 0))
    return text + "<|im_end|>\n", closes


def test_template_self_dialogue_fires_when_the_turn_after_the_third_pair_repeats_none() -> None:
    """Different questions and answers each cycle: the turns show no longer cycle, so the cycle is
    the roles' (one pair). Whether the dialogue cycles over several pairs shows only in the turn
    after the third pair: it fires once that turn (the 4th pair's user turn) is complete -- on the
    chunk that completes the next marker, ``<|im_start|>assistant`` and the character after it --
    never in the first three pairs, and never on the chunk before."""
    text, _ = _chatml_cycles(5)
    marks = [i for i in range(len(text)) if text.startswith("<|im_start|>assistant", i)]
    fourth_user_done = marks[3] + len("<|im_start|>assistant")
    for seed in range(3):
        chunks = seeded(text, 50 + seed)
        res = assert_fires_at(chunks, fourth_user_done)
        assert res.reason == "stream.self_dialogue" and res.loop_start == text.index("<|im_start|>")  # the first marker


def test_one_or_two_template_pairs_never_fire() -> None:
    """A first cycle -- or a second -- however long its turns: quiet."""
    for n in (1, 2):
        text, _ = _chatml_cycles(n)
        long = " ".join(f"Paris has {20 - i} arrondissements{'' if i else ' and a river'}, {_ANSWERS[i].lower()}" for i in range(4))
        text = text.replace(_ANSWERS[n - 1], _ANSWERS[n - 1] + " " + ANSWER + long)
        assert first_fire(feed(seeded(text, 60 + n))) is None


def test_pairs_without_end_tokens_fire_when_the_turn_after_the_third_pair_is_written() -> None:
    """[INST] templates never close a turn: a turn is complete when the next marker arrives. With
    different turns each pair, fire on the chunk that completes the 4th [/INST] (the 4th pair's
    user turn is then complete and repeats none of the earlier turns: the cycle is one pair, and
    three are written), never on the one before."""
    text = "Sure." + "".join(f" [INST] {q} [/INST] {a}" for q, a in zip(_QUESTIONS, _ANSWERS, strict=True))
    fourth = [i for i in range(len(text)) if text.startswith("[/INST]", i)][3]
    assert_fires_at(seeded(text, 70), fourth + len("[/INST]") - 1)


def _labelled(first: str, second: str, pairs: int, lead: str = "Paris is the capital of France.\n") -> tuple[str, list[int]]:
    """``lead``, then ``pairs`` turn pairs under line-initial labels; where each label's turn text begins."""
    text, starts = lead, []
    for q, a in zip(_QUESTIONS[:pairs], _ANSWERS[:pairs], strict=True):
        for label, body in ((first, q), (second, a)):
            text += f"{label}: "
            starts.append(len(text))
            text += body + "\n"
    return text, starts


def test_speaker_labels_fire_in_the_third_pair() -> None:
    """'Human:' / 'AI Assistant:' (chat roles) and 'Alice:' / 'Bob:' (a turn asks a question)
    alternating: fire on the chunk that brings the newline ending the 6th label's turn (the third
    pair is then written), and a dialogue of two pairs never fires."""
    for seed, (first, second) in enumerate([("Human", "AI Assistant"), ("Alice", "Bob"), ("User", "Assistant")]):
        text, starts = _labelled(first, second, 5)
        res = assert_fires_at(seeded(text, 110 + seed), text.index("\n", starts[5]))  # the 6th turn's line ends
        assert res.reason == "stream.self_dialogue" and res.loop_start == text.index(first + ":")
        two, _ = _labelled(first, second, 2)
        assert first_fire(feed(seeded(two + ANSWER * 2, 120 + seed))) is None


def test_numbered_speakers_are_speakers() -> None:
    """'User 4:' / 'User 5:' (forum users, numbered chat roles) and 'Person 1:' / 'Person 2:' (a
    turn asks a question) alternating: each number is a speaker, read by the name it numbers
    ('User' is a chat role); fire as for named speakers, in the third pair, never in two. Numbered
    steps ('Step 1:', 'Step 2:', ...) never alternate between two speakers and stay quiet."""
    for seed, (first, second) in enumerate([("User 4", "User 5"), ("Person 1", "Person 2"), ("Speaker1", "Speaker2")]):
        text, starts = _labelled(first, second, 5)
        res = assert_fires_at(seeded(text, 130 + seed), text.index("\n", starts[5]))
        assert res.reason == "stream.self_dialogue" and res.loop_start == text.index(first + ":")
        two, _ = _labelled(first, second, 2)
        assert first_fire(feed(seeded(two + ANSWER * 2, 140 + seed))) is None
    steps = ANSWER + "".join(f"\nStep {i}: {q}" for i, q in enumerate(_QUESTIONS[:6], 1)) + "\n"
    assert first_fire(feed(seeded(steps, 150))) is None


def _inline(first: str, second: str, pairs: int, lead: str = "Sure, happy to help.") -> tuple[str, list[int]]:
    """``lead``, then ``pairs`` turn pairs whose labels run inside one line; where each turn begins."""
    text, starts = lead, []
    for q, a in zip(_QUESTIONS[:pairs], _ANSWERS[:pairs], strict=True):
        for label, body in ((first, q), (second, a)):
            text += f" {label}: "
            starts.append(len(text))
            text += body.rstrip(".")
    return text, starts


def test_inline_chat_role_labels_fire_on_the_third_pairs_last_label() -> None:
    """A chat template's role names as labels inside one line ('... Human: ... AI Assistant:
    ...', no newline and no full stop between the turns): a turn ends only at the next label, so
    the third pair is evident once its last label is written -- fire on the chunk that brings
    that turn's first character, never on the one before; two pairs never fire."""
    for seed, (first, second) in enumerate([("Human", "AI Assistant"), ("USER", "ASSISTANT"), ("User", "Bot")]):
        text, starts = _inline(first, second, 5)
        res = assert_fires_at(seeded(text, 150 + seed), starts[5])
        assert res.reason == "stream.self_dialogue" and res.loop_start == text.index(first + ":")
        two, _ = _inline(first, second, 2)
        assert first_fire(feed(seeded(two, 160 + seed))) is None


def test_short_labelled_turns_fire_on_the_chunk_that_completes_the_third_pair() -> None:
    """Turns of a few words bring several labels in one 64-character block: the check is armed
    from the stretch's second label, so the fire still lands on the chunk that brings the newline
    ending the 6th turn (line labels) or the 6th turn's first character (inline), whatever the
    chunking."""
    short = ["Hi?", "Hello.", "Name?", "Ada.", "Age?", "Ten.", "Home?", "Oslo."]
    line = "Done.\n" + "".join(f"{'User' if i % 2 == 0 else 'Bot'}: {t}\n" for i, t in enumerate(short))
    inline = "Done." + "".join(f" {'User' if i % 2 == 0 else 'Bot'}: {t}" for i, t in enumerate(short))
    for seed in range(5):
        sixth = [i for i in range(len(line)) if line.startswith("Bot: ", i)][2] + len("Bot: ")
        assert_fires_at(seeded(line, 180 + seed), line.index("\n", sixth))
        sixth = [i for i in range(len(inline)) if inline.startswith(" Bot: ", i)][2] + len(" Bot: ")
        assert_fires_at(seeded(inline, 190 + seed), sixth)


def test_inline_labels_that_are_no_chat_roles_or_are_presented_stay_quiet() -> None:
    """Inside a line only a chat template's role names are labels: an inline FAQ ('Q: ... A:
    ...'), a transcript's 'Customer:' / 'Agent:' and record fields ('Note: ... Result: ...')
    stay prose; an inline exchange the response presents ('for example:') is quoted; and role
    names in lower case inside a sentence are words."""
    faq, _ = _inline("Q", "A", 5)
    shop, _ = _inline("Customer", "Agent", 5)
    fields = "Ran the checks." + "".join(f" Note: run {i} done Result: {i} passed" for i in range(8))
    shown, _ = _inline("User", "Assistant", 5, lead="A chat in this template reads, for example:")
    lower, _ = _inline("user", "assistant", 5)
    for text in (faq, shop, fields, shown, lower):
        assert first_fire(feed(seeded(text, 170))) is None, text[:60]


def test_labelled_exchanges_that_are_not_a_self_dialogue_stay_quiet() -> None:
    """A FAQ the response presents, test output alternating 'FAIL:' / 'AssertionError:' (a record
    format: no role names, no question) and 'Value:' / 'Dtype:' rows: quiet."""
    faq, _ = _labelled("User", "Assistant", 5, lead="Here is a short FAQ.\n\n")
    tests = "".join(f"FAIL: test_case_{i} (tests.test_api.ApiTest)\nAssertionError: {i} != {i + 1}\n" for i in range(8))
    rows = "".join(f"Value: {i}.0 km\nDtype: float{16 * (i % 3 + 1)}\n" for i in range(8))
    for text in (faq, "Ran the suite:\n" + tests, "The values print as\n" + rows):
        for channel in ("content", "tool_args"):
            assert first_fire(feed(seeded(text, 130), channel)) is None, text[:40]


def test_an_exchange_the_request_asks_for_is_the_answer() -> None:
    """A request for a dialogue, a chat, a script, a FAQ or an example exchange (in English,
    Spanish or Chinese): the roles taking turns is the answer -- labelled turns that differ stay
    quiet, on their own lines or inline; the same turns coming back again and again still fire."""
    asks = [
        "Write a short dialogue between a customer and a support agent about a late order.",
        "Show me an example chat between a user and an assistant.",
        "Escribe un diálogo entre un usuario y un asistente.",
        "写一段用户和助手之间的对话。",
        "Write a FAQ for the app.",
    ]
    labels = [("Customer", "Agent"), ("User", "Assistant"), ("User", "Assistant"), ("User", "Assistant"), ("Q", "A")]
    for seed, (ask, (first, second)) in enumerate(zip(asks, labels, strict=True)):
        assert RequestContext.parse(ask).exchange, ask
        text, _ = _labelled(first, second, 5, lead="")
        assert first_fire(feed(seeded(text, 490 + seed), context=ask)) is None, ask
        inline, _ = _inline("User", "Assistant", 5)
        assert first_fire(feed(seeded(inline, 500 + seed), context=ask)) is None, ask
        same = "".join(f"{first}: {_QUESTIONS[0]}\n{second}: {_ANSWERS[0]}\n" for _ in range(8))
        res = first_fire(feed(seeded(same, 510 + seed), context=ask))
        assert res is not None and res > 0, ask
    assert not RequestContext.parse("Summarise the meeting notes.").exchange


def test_a_call_and_response_the_request_asks_for_is_an_exchange() -> None:
    """A call-and-response (a leader's calls, the group's fixed answer) is an exchange the
    request asks for: the leader's questions and the group's answer taking turns stay quiet,
    where the same labelled turns without that request fire as a self-dialogue."""
    calls = ["Helmet on and strap done up?", "Spray deck sealed all round?", "Paddle leash clipped on?",
             "Whistle on your vest?", "Buddy checked and ready?", "Radio switched on and tested?"]
    text = "Run this before every launch.\n\n" + "".join(f"Guide: {c}\nGroup: Check and ready!\n" for c in calls)
    ask = "Write a call-and-response safety briefing for our kayak guides."
    assert RequestContext.parse(ask).exchange
    assert first_fire(feed(seeded(text, 530), context=ask)) is None
    assert first_fire(feed(seeded(text, 530), context="Write a safety briefing for our kayak guides.")) is not None


def test_labels_that_name_a_documents_parts_are_no_speakers() -> None:
    """'Input:' / 'Output:' worked examples and 'English:' / 'French:' phrase pairs alternate and
    their first parts ask questions, but the labels name parts of a document: quiet."""
    pairs = "".join(f"Input: {q}\nOutput: {a}\n" for q, a in zip(_QUESTIONS, _ANSWERS, strict=True))
    phrases = "".join(
        f"English: {e}\nFrench: {f}\n"
        for e, f in [
            ("Where is the station?", "Où est la gare ?"),
            ("How much is it?", "C'est combien ?"),
            ("Can you help me?", "Pouvez-vous m'aider ?"),
            ("What time is it?", "Quelle heure est-il ?"),
            ("Do you speak English?", "Parlez-vous anglais ?"),
        ]
    )
    for seed, text in enumerate([pairs, phrases]):
        assert first_fire(feed(seeded(ANSWER + text, 520 + seed))) is None, text[:30]


def test_instruction_templates_and_bare_role_lines_fire_after_the_third_pair() -> None:
    """'### Instruction:' / '### Response:' and lines holding only 'user' / 'assistant', different
    turns each pair: fire on the chunk that completes the 4th pair's response marker (its
    instruction turn complete and new: the cycle is one pair, three written)."""
    alpaca = "Here it is.\n" + "".join(
        f"### Instruction:\n{q}\n\n### Response:\n{a}\n\n" for q, a in zip(_QUESTIONS, _ANSWERS, strict=True)
    )
    fourth = [i for i in range(len(alpaca)) if alpaca.startswith("### Response:", i)][3]
    res = assert_fires_at(seeded(alpaca, 140), fourth + len("### Response:") - 1)
    assert res.reason == "stream.self_dialogue" and res.loop_start == alpaca.index("### Instruction:") - 1
    bare = "Here it is.\n" + "".join(f"user\n{q}\nassistant\n{a}\n" for q, a in zip(_QUESTIONS, _ANSWERS, strict=True))
    fourth = [i for i in range(len(bare)) if bare.startswith("\nassistant\n", i)][3]
    res = assert_fires_at(seeded(bare, 141), fourth + len("\nassistant"))  # the role line ends with its newline
    assert res.reason == "stream.self_dialogue"


# ----------------------------------------------------------------------------- re-check loops

FUNC = "def total(items):\n    s = 0\n    for x in items:\n        if x > 0:\n            s += x\n    return s\n"


def _recheck_loop(seed: int, cycles: int = 12, moving_on: bool = False) -> tuple[str, list[int]]:
    """A function written once, then re-checked: quoted again and judged in templated words.

    ``moving_on``: each quote is followed by a different finding (the commentary moves on).
    Returns the text and the offsets where each re-check begins."""
    rng = random.Random(seed)
    text = "The user wants the sum of the positive numbers in a list. Here is my implementation:\n```python\n" + FUNC + "```\n"
    starts = []
    findings = [
        "The variable name s could be clearer, so I will call it subtotal in the docstring.",
        "Booleans are integers in Python, so True would be counted as one; the user said numbers only.",
        "A generator expression would be shorter, but the loop is easier to read for a beginner.",
        "Floating point inputs work as well because the comparison with zero is exact.",
        "The type hint should say Iterable of float, since any iterable is accepted here.",
        "Very large lists are fine: the loop keeps one running value and no copy of the data.",
    ] * 3
    for i in range(cycles):
        starts.append(len(text))
        text += rng.choice(
            [
                "Wait, let me check the function again:",
                "Hmm, let me re-check the function:",
                "Actually, let me look at the function once more:",
            ]
        )
        text += "\n```python\n" + FUNC + "```\n"
        if moving_on:
            text += findings[i] + "\n\n"
        else:
            text += rng.choice(["This looks correct.", "That seems right.", "It looks correct to me."]) + " "
            text += (
                rng.choice(
                    [
                        "The loop skips the negative numbers.",
                        "Negative values are skipped by the if.",
                        "The if ignores the negative numbers.",
                    ]
                )
                + " "
            )
            text += (
                rng.choice(
                    ["But what about an empty list?", "What if the list is empty, though?", "And an empty list returns 0, which is fine."]
                )
                + "\n\n"
            )
    return text, starts


def test_templated_recheck_loop_fires_young_with_semantic_corroboration(real_cached: object) -> None:
    """The same function quoted and re-judged in templated words fires as stream.recheck between
    the 3rd and the 5th re-check -- and only with the semantic layer: without it, not as a re-check."""
    for seed in range(1, 5):
        text, starts = _recheck_loop(seed)
        chunks = seeded(text, 80 + seed)
        results = feed(chunks, "reasoning", embedder=real_cached, semantic_background=False)
        at = first_fire(results)
        assert at is not None and results[at].reason == "stream.recheck", (seed, at and results[at])
        fired_chars = results[at].chars
        assert starts[2] < fired_chars <= starts[5], (seed, fired_chars, starts)  # inside re-checks 3-5
        alone = feed(chunks, "reasoning")
        assert all(r.reason != "stream.recheck" for r in alone)
    # Regression value for one seed (the chunk depends on the embeddings, not only on the rule):
    # the block ending at 1343, in the 5th re-check (a variant wording seen for the first time is
    # an enumeration's next item, not near, so corroboration comes once the variants recycle; a
    # passage is three lines inside the code block, never a fence line and the code after it).
    text, starts = _recheck_loop(1)
    results = feed(seeded(text, 81), "reasoning", embedder=real_cached, semantic_background=False)
    assert first_fire(results) == block_chunk(seeded(text, 81), 1343) and starts[4] < 1343 < starts[5]  # in the 5th re-check


def test_a_recurring_plan_is_no_recheck(real_cached: object) -> None:
    """The same re-check text, answering a request for a plan whose items recur by design (a
    checklist with the same lines under every day): its passages come back as the plan's blocks
    do, and ``stream.recheck`` stays quiet; unasked, it fires."""
    text, _ = _recheck_loop(1)
    chunks = seeded(text, 81)
    ask = "Make me a day-by-day checklist with the same items under each day."
    assert first_fire(feed(chunks, "reasoning", embedder=real_cached, semantic_background=False)) is not None
    results = feed(chunks, "reasoning", embedder=real_cached, semantic_background=False, context=ask)
    assert all(r.reason != "stream.recheck" for r in results)


def test_program_output_the_request_asks_to_see_is_no_recheck(real_cached: object) -> None:
    """A compiler or a test runner quotes a source line under each warning and says the same of
    it: in output the request asks to be shown (``RequestContext.pastes_output``, list
    ``output-requests``: "show me every warning"), passages that come back are what was asked,
    and ``stream.recheck`` stays quiet; so it does when the request counts its parts ("notes for
    our five donors"), parts written from one frame. Unasked, the same text fires."""
    text, _ = _recheck_loop(1)
    chunks = seeded(text, 81)
    for ask in (
        "Compile it with all lint checks on and show me every warning.",
        "Run the tests and paste the output.",
        "Write thank-you notes for our five donors in our usual wording.",  # parts the request counts
    ):
        results = feed(chunks, "reasoning", embedder=real_cached, semantic_background=False, context=ask)
        assert all(r.reason != "stream.recheck" for r in results), ask
    assert first_fire(feed(chunks, "reasoning", embedder=real_cached, semantic_background=False)) is not None


def test_a_counting_song_with_its_refrain_is_no_semantic_loop(real_cached: object) -> None:
    """Verses that differ from the one before only by words the song has not used yet (the
    count, the rhyme) are an enumeration's items, not restatements: with the real model the song
    stays quiet. The same verse sung again and again, the refrain after it, fires."""
    items = [("one", "drum"), ("two", "shoe"), ("three", "tree"), ("four", "door"), ("five", "hive"),
             ("six", "sticks"), ("seven", "heaven"), ("eight", "gate"), ("nine", "vine"), ("ten", "hen")]
    refrain = "Round and round the meadow goes,\nOver the hill where the river flows.\n\n"
    song = "".join(f"The little cart went rolling {a},\nIt carried a bell and a painted {b}.\n" + refrain for a, b in items)
    same = ("The little cart went rolling one,\nIt carried a bell and a painted drum.\n" + refrain) * len(items)
    for seed in (1, 2):
        assert first_fire(feed(seeded(song, seed), embedder=real_cached, semantic_background=False)) is None
        assert first_fire(feed(seeded(same, seed), embedder=real_cached, semantic_background=False)) is not None


def test_a_song_asked_with_a_chorus_keeps_its_chorus(real_cached: object) -> None:
    """A request for a song with a chorus asks for the chorus after every verse
    (``repetition-requests``): quiet. The same song with no request fires (the chorus quoted
    again and again reads as a passage re-checked), and so does one asked for no chorus."""
    chorus = (
        "Oh carry me home on the morning tide,\nWhere the gulls and the old boats ride,\n"
        "And the lantern burns by the harbour side,\nOh carry me home on the morning tide.\n"
    )
    verses = [
        "The nets were full and the sky was grey,\nWe sailed out early at break of day,\n",
        "My father sang as he hauled the line,\nHis hands were rough but his voice was fine,\n",
        "The storm came down on the second night,\nWe held the wheel till the morning light,\n",
        "Now I am old and the boats are few,\nBut I still can hear what the sea once knew,\n",
    ]
    song = "**Carry Me Home**\n\n" + "".join(f"{v}\n{chorus}\n" for v in verses)
    for ask in ("Write me a song about the sea with a catchy chorus.", "Write a shanty, four verses and a chorus."):
        assert RequestContext.parse(ask).requested
        for seed in (1, 2):
            results = feed(seeded(song, seed), context=ask, embedder=real_cached, semantic_background=False)
            assert first_fire(results) is None, (ask, seed)
    for ask in (None, "Write me a song about the sea."):
        at = first_fire(feed(seeded(song, 1), context=ask, embedder=real_cached, semantic_background=False))
        assert at is not None


def test_a_function_quoted_in_each_new_version_is_revised_not_rechecked(real_cached: object) -> None:
    """The function's opening lines quoted with every version the model writes -- the rest of
    the block changes each time -- are a revision (progress): no re-check fires, however alike
    the commentary (on the content channel: on the reasoning channel alike opening lines are a
    templated re-check of their own). The same loop quoting one version again fires (above)."""
    rng = random.Random(5)
    bodies = [
        "        if x > 0:\n            s += x\n",
        "        if x > 0 and not isinstance(x, bool):\n            s += x\n",
        "        if isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0:\n            s += x\n",
        "        if x is None:\n            continue\n        if x > 0:\n            s += x\n",
        "        try:\n            if x > 0:\n                s += x\n        except TypeError:\n            pass\n",
        "        if x > 0 and x == x:\n            s += x\n",
    ] * 2
    text = "The user wants the sum of the positive numbers in a list.\n\n"
    for body in bodies:
        text += rng.choice(
            ["Wait, let me change the function again:", "Hmm, let me rewrite the function:", "Actually, let me adjust the function:"]
        )
        text += "\n```python\ndef total(items):\n    s = 0\n    for x in items:\n" + body + "    return s\n```\n"
        text += rng.choice(["This looks correct now.", "That seems right now.", "It looks correct to me now."]) + "\n\n"
    for seed in (1, 2):
        results = feed(seeded(text, 90 + seed), embedder=real_cached, semantic_background=False)
        assert all(r.reason != "stream.recheck" for r in results), (seed, next((r for r in results if r.fired), None))


def test_a_passage_referred_to_between_long_stretches_of_work_is_no_recheck(real_cached: object) -> None:
    """The function quoted twice in a row, then again after a stretch of other work many times
    longer, then once more: its occurrences do not come back at one period (the longest stretch
    more than twice the shortest), so it is referred to, not re-checked, whatever the commentary."""
    quote = "Let me look at the function again:\n```python\n" + FUNC + "```\nThis looks correct. It skips the negative numbers.\n\n"
    work = "".join(
        f"Next, the {w} module: it reads the {w} settings, validates them against the schema and stores the result in the cache.\n"
        for w in ["parser", "loader", "writer", "router", "logger", "mailer", "scheduler", "exporter", "importer", "indexer"]
    )
    text = "Here is the sum of the positive numbers.\n\n" + quote + quote + work + quote + quote
    regular = "Here is the sum of the positive numbers.\n\n" + quote * 4
    for seed in (1, 2):
        results = feed(seeded(text, 120 + seed), embedder=real_cached, semantic_background=False)
        assert all(r.reason != "stream.recheck" for r in results), (seed, next((r for r in results if r.fired), None))
    for body, candidate in ((text, False), (regular, True)):  # the detector's candidate, block by block
        detector, tail, splitter = RecheckDetector(StreamGuardConfig()), Tail(keep=8192, slack=4096), Splitter()
        for i in range(0, len(body), 64):
            tail.push(body[i : i + 64])
            detector.update(splitter.block(tail, body[i : i + 64]))
        assert (detector.candidate is not None) is candidate


def test_recheck_with_commentary_that_moves_on_stays_quiet(real_cached: object) -> None:
    """The function quoted again before each new finding: the semantic layer does not corroborate."""
    text, _ = _recheck_loop(3, cycles=6, moving_on=True)
    results = feed(seeded(text, 90), "reasoning", embedder=real_cached, semantic_background=False)
    assert first_fire(results) is None


def _two_states(cycles: int) -> tuple[str, list[int]]:
    """A reasoning loop alternating between two re-checks that open alike (one word changed).

    Returns the text and the offset where each re-check (state) begins."""
    a = (
        "Hmm, I believe we should just run the migration now.\n"
        "The ticket says ship it, so the team wants the change out today.\n"
        "Let me write down the plan and then run it.\n"
    )
    b = "Hmm, I suppose we should just run the migration now.\nLet me write the plan down first.\n"
    text, starts = "", []
    for _ in range(cycles):
        for state in (a, b):
            starts.append(len(text))
            text += state
    return text, starts


def test_a_two_state_recheck_loop_fires_by_its_fifth_recheck(real_cached: object) -> None:
    """Re-checks alternating between two states, each opening with the same templated line: every
    state is a re-check, so the loop is a candidate at the 4th opening line and fires, with the
    semantic layer's corroboration, between the start of the 3rd re-check and the end of the
    5th -- on the same character whatever the chunking; never before the 4th opening line ends,
    and never without the semantic layer."""
    text, starts = _two_states(5)
    fired = set()
    for seed in range(3):
        chunks = seeded(text, 210 + seed)
        results = feed(chunks, "reasoning", embedder=real_cached, semantic_background=False)
        at = first_fire(results)
        assert at is not None and results[at].reason == "stream.recheck", (seed, at and results[at])
        begin = results[at].chars - len(chunks[at])
        end = (begin // B + 1) * B  # the block end this chunk brings: the fire is judged there
        assert end <= results[at].chars
        fired.add(end)
        assert text.index("\n", starts[3]) < results[at].chars <= starts[5], (seed, results[at].chars, starts)
        assert all(r.reason != "stream.recheck" for r in feed(chunks, "reasoning"))
    assert len(fired) == 1  # the same block whatever the chunking


def test_an_item_by_item_check_with_templated_lines_stays_quiet(real_cached: object) -> None:
    """Reasoning that checks one row after another in the same words -- a new row each time --
    enumerates: its templated lines never make a re-check."""
    rows = [(3, 14), (4, 9), (5, 22), (6, 17), (7, 30), (8, 11), (9, 25), (10, 8)]
    text = (
        "I will verify every row of the table before answering.\n"
        + "".join(f"Now let me check row {r} of the table: its total is {t} and it matches the sum.\n" for r, t in rows)
        + "Every row matches, so the table is consistent.\n"
    )
    results = feed(seeded(text, 220), "reasoning", embedder=real_cached, semantic_background=False)
    assert first_fire(results) is None


# ----------------------------------------------------------------------------- legitimate repetition


def _legit_streams(rng: random.Random) -> dict[str, tuple[str, str | None]]:
    names = ["id", "name", "email", "phone", "city", "country", "owner", "status", "tags", "notes", "score", "rank", "region", "team"]
    table = "| field | required | indexed | unique |\n|---|---|---|---|\n" + "".join(
        f"| {n} | yes | {rng.choice(['yes', 'no'])} | no |\n" for n in names
    )
    enum = "class Color(enum.IntEnum):\n" + "".join(f"    {n.upper()} = {i}\n" for i, n in enumerate(names))
    generated = "".join(f'    def get_{n}(self) -> str:\n        return self._data["{n}"]\n\n' for n in names)
    pytest_log = "".join(
        f"tests/test_api.py::test_{n}_roundtrip PASSED{' ' * (30 - len(n))}[{(i + 1) * 100 // len(names):3d}%]\n"
        for i, n in enumerate(names)
    )
    lint = "".join(f"src/models.py:{10 + 7 * i}:5: E501 Line too long ({90 + i} > 88)\n" for i in range(14))
    jmap = json.dumps({n: {"enabled": True, "retries": 3, "timeout": 30} for n in names}, indent=2)
    requested = ("All work and no play makes Jack a dull boy.\n" * 20, "Write 'All work and no play makes Jack a dull boy.' 20 times.")
    return {
        "table": (table, None),
        "enum": (enum, None),
        "generated code": (generated, None),
        "pytest": (pytest_log, None),
        "linter": (lint, None),
        "json map": (jmap, None),
        "requested": requested,
    }


def test_legitimate_repetition_stays_quiet() -> None:
    """Tables, enums, generated code, test-runner and linter output, a JSON map with repeated keys,
    and repetition the request asked for: no fire on any channel."""
    for name, (text, context) in _legit_streams(random.Random(5)).items():
        for channel in ("content", "tool_args"):
            results = feed(seeded(text, 7), channel, context=context)
            assert first_fire(results) is None, (name, channel, next(r for r in results if r.fired))


# ----------------------------------------------------------------------------- properties


_WORDS = ["".join(random.Random(i).choices(string.ascii_lowercase, k=random.Random(i + 7).randint(3, 9))) for i in range(4000)]


@st.composite
def _any_text(draw: st.DrawFn) -> str:
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    parts = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["prose", "loop", "chant", "run", "dialogue"]))
        if kind == "prose":
            parts.append(" ".join(rng.sample(_WORDS, rng.randint(5, 60))) + ". ")
        elif kind == "loop":
            parts.append((" ".join(rng.sample(_WORDS, rng.randint(1, 8))) + rng.choice([". ", "\n", " "])) * rng.randint(2, 30))
        elif kind == "chant":
            parts.append("".join(_padded_chant(rng, " ".join(rng.sample(_WORDS, 2)), rng.randint(2, 40))))
        elif kind == "run":
            parts.append(rng.choice(["0", "!", "-", "ab", "\U0001f642"]) * rng.randint(1, 200))
        else:
            parts.append(
                "".join(
                    f"<|im_start|>{r}\n{' '.join(rng.sample(_WORDS, 4))}<|im_end|>\n" for r in ["user", "assistant"] * rng.randint(1, 4)
                )
            )
    return "".join(parts)[:3000]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_any_text(), seed=st.integers(0, 10_000))
def test_chunking_never_changes_the_verdict(text: str, seed: int) -> None:
    """Any text, any two chunkings: the same verdict, reason, unit and offsets, and the fire on the
    chunk holding the same character (the fire offset differs only within one chunk)."""
    ref = feed(list(text))  # one character per chunk: the fire chunk is the character's offset
    other = feed(seeded(text, seed, 1, 97))
    a, b = first_fire(ref), first_fire(other)
    assert (a is None) == (b is None)
    if a is not None and b is not None:
        fields = ("reason", "unit", "period", "loop_start", "cut_offset")
        assert [getattr(ref[a], f) for f in fields] == [getattr(other[b], f) for f in fields]
        # One character per chunk: the fire's chunk is the offset of the character that brought
        # it; any other chunking fires on the chunk holding that character.
        chunks = seeded(text, seed, 1, 97)
        assert b == chunk_of(chunks, a), (a, b)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(10, 600), chunk_seed=st.integers(0, 1000))
def test_text_without_repetition_never_fires(seed: int, n: int, chunk_seed: int) -> None:
    """Distinct words (no word twice), any punctuation and spacing between them: never a fire."""
    rng = random.Random(seed)
    words = rng.sample(_WORDS, n)
    text = "".join(w + rng.choice([" ", " ", ", ", ". ", "\n", "; ", " (", ") ", ": "]) for w in words)
    for channel in ("content", "reasoning", "tool_args"):
        assert first_fire(feed(seeded(text, chunk_seed, 1, 60), channel)) is None


def test_a_drift_fire_cuts_after_the_loops_first_copy() -> None:
    """The text kept before a drift fire's cut holds the looping paragraph once: the loop began
    at its first copy, even when the copies compared start later."""
    from plateau.stream import StreamGuard

    loop = (
        "But wait, I should check the bounds again. start is naive local midnight and end is start plus one day, "
        "so on the fall-back night the filter covers 24 of the 25 local hours. "
    )
    text = "The bounds are built like this. " + loop * 8
    guard = StreamGuard()
    for i in range(0, len(text), 7):
        result = guard.feed(text[i : i + 7])
        if result.fired:
            break
    assert result.fired and result.cut_offset is not None
    assert text[: result.cut_offset].count("fall-back night") == 1
    assert text[: result.cut_offset].startswith("The bounds are built like this. ")


def test_a_letter_filled_once_per_name_is_no_semantic_loop(real_cached: object) -> None:
    """The same note for each name of a list: its sentences recur verbatim, near in meaning and
    in wording, but the drift detector reads the copies as an enumeration (a name of its own in
    every copy), and that textual evidence keeps the semantic layer to a steer. The same note to
    the same name every time fires."""
    names = ("Alma", "Bruno", "Cyrus", "Delia", "Eamon", "Fiona", "Gustav", "Helga", "Idris", "Juno", "Kasia", "Lorenzo")
    note = (
        "Dear {},\nThank you for helping at the harvest supper on Friday. The tables were ready in no time.\n"
        "We hope you can join us next autumn.\nWith gratitude,\nThe Parish Kitchen\n\n"
    )
    filled = "".join(note.format(n) for n in names)
    same = note.format("Alma") * len(names)
    for seed in (1, 2):
        assert first_fire(feed(seeded(filled, seed), embedder=real_cached, semantic_background=False)) is None
        assert first_fire(feed(seeded(same, seed), embedder=real_cached, semantic_background=False)) is not None


def test_a_sentence_chanted_on_a_line_fires_at_the_fourth_copy_before_the_line_break() -> None:
    """``Thanks for watching!`` four times on a line, the line ended by a line break, between
    subtitle cues: the fourth copy is complete at its ``!`` -- the line break after it, where a
    space stood after the other copies, is no part of the copy."""
    cue = "1\n00:00:00,000 --> 00:01:13,380\n"
    line = "Thanks for watching! " * 3 + "Thanks for watching!\n"
    text = cue + line + "\n2\n00:01:14,820 --> 00:01:15,780\nThanks for watching!\n\n3\n00:01:16,220 --> 00:01:23,820\nBye.\n"
    due = len(cue) + len(line) - 2  # the fourth "!"
    for seed in (1, 2, 3):
        chunks = seeded(text, seed)
        results = feed(chunks)
        assert first_fire(results) == chunk_of(chunks, due), seed
        assert results[first_fire(results)].reason == "stream.period"  # type: ignore[index]


def test_a_paragraph_between_blank_lines_is_recognised_by_its_first_sentence() -> None:
    """A paragraph written on one line and followed by a blank line is a copy of one line: its
    fourth copy is recognised by its first sentence, as a paragraph without the blank line is,
    not at the line break after its last sentence."""
    para = (
        "The issue might be that the request is not sent when the switch is toggled. "
        "Let me make sure the handler is called correctly.\n\n"
    )
    head = "Looking at the toggle handler now.\n\n"
    text = head + para * 6
    first_sentence = para.index(". ") + 1  # through the full stop
    due = len(head) + 3 * len(para) + first_sentence - 1
    assert fourth_copy_line(text, len(head), len(para)) == due
    for seed in (1, 2, 3):
        chunks = seeded(text, seed)
        assert first_fire(feed(chunks)) == chunk_of(chunks, due)
