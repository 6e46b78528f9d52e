"""The new kinds of the stream guard: runs, stutter, drift, self-dialogue, context, semantic steer.

Every stream is generated from a fixed seed. Where the rule fixes the firing character (a run's
floor, four stuttering blocks, the marker that completes the third alike turn), the test computes
the firing chunk from it: the chunk that completes the 64-character block holding that character.
Where the rule depends on the detector's own bookkeeping (drift), the firing chunk is pinned as
a regression value and the test checks that another chunking gives the same verdict.
"""

from __future__ import annotations

import random

import pytest

from plateau.channels import ChannelGuards
from plateau.stream import GuardResult, RequestContext, StreamGuard, StreamGuardConfig
from plateau.stream.text import is_special_token_run
from tests.support.streams import block_chunk, chunk_of, first_fire, fourth_copy_line, seeded

CFG = StreamGuardConfig()
B = CFG.block


def fixed(text: str, size: int) -> list[str]:
    """``text`` in chunks of ``size`` characters."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def pad(text: str) -> str:
    """``text`` padded with spaces to a whole number of blocks."""
    return text + " " * (-len(text) % B)


ANSWER = (
    "The guard reads the stream as it arrives and keeps only a bounded tail of it. When the text "
    "starts to repeat itself, it reports what repeats and where to cut.\n"
)


# ----------------------------------------------------------------------------- exact firing chunks


def test_digit_run_fires_at_its_floor() -> None:
    """A stream of zeros after an answer fires on the chunk where the run reaches 96 characters."""
    text = ANSWER + "0" * 600
    chunks = seeded(text, 1)
    res = first_fire(chunks)
    assert res.fired and (res.reason, res.unit, res.period, res.loop_start) == ("stream.run", "0", 1, len(ANSWER))
    assert res.fired_at_chunk == chunk_of(chunks, len(ANSWER) + CFG.digit_run_floor - 1)


PROSE_ZH = "今天我们讨论一下这个问题的解决方案，首先需要"  # 22 characters, none repeated in a row


@pytest.mark.parametrize("seed", [2, 3])
def test_a_run_of_one_wide_character_fires_at_half_the_characters(seed: int) -> None:
    """A run of one Han character fires once it fills ``digit_run_floor`` columns (48 characters).

    A wide character fills two columns of a line; 47 copies never fire.
    """
    start = len(PROSE_ZH)
    chunks = seeded(PROSE_ZH + "哈" * 90, seed)
    res = first_fire(chunks)
    assert res.fired and (res.reason, res.unit, res.loop_start) == ("stream.run", "哈", start)
    assert res.fired_at_chunk == chunk_of(chunks, start + CFG.digit_run_floor // 2 - 1)
    assert not first_fire(seeded(PROSE_ZH + "哈" * (CFG.digit_run_floor // 2 - 1), seed)).fired


def test_a_short_wide_unit_fires_once_it_fills_span_floor_columns() -> None:
    """A chant of a two-character word and a fullwidth comma (6 columns) fires at 48 characters."""
    start = len(PROSE_ZH)
    chunks = seeded(PROSE_ZH + "是的，" * 40, 4)
    res = first_fire(chunks)
    assert res.fired and res.reason == "stream.period" and res.period == 3
    assert res.fired_at_chunk == chunk_of(chunks, start + CFG.span_floor // 2 - 1)
    assert not first_fire(seeded(PROSE_ZH + "是的，" * 15, 4)).fired  # 45 characters, 90 columns


def _columns(text: str) -> int:
    """Columns of ``text``: a whitespace run at most four, a wide character two."""
    import re
    import unicodedata

    flat = re.sub(r"\s{5,}", "    ", text)
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in flat)


@pytest.mark.parametrize("seed", [6, 7])
def test_a_cjk_chant_padded_with_fullwidth_commas_fires_at_96_columns(seed: int) -> None:
    """A four-character word said again and again, its copies separated by spaces or fullwidth
    commas at random (no exact period): CJK punctuation separates words as spaces do, so the
    copies fold alike; it fires on the chunk that brings the character at which the run fills
    ``span_floor`` columns, not on the one before."""
    rng = random.Random(seed)
    head = PROSE_ZH + "。"
    chant = "".join("法院审理" + rng.choice(["，", " ", "， ", "  "]) for _ in range(30))
    text = head + chant
    end = next(j for j in range(len(head), len(text)) if _columns(text[len(head) : j + 1]) >= CFG.span_floor)
    chunks = seeded(text, seed)
    res = first_fire(chunks)
    assert res.fired and res.reason == "stream.period" and res.loop_start == len(head)
    assert res.fired_at_chunk == chunk_of(chunks, end), (res, chunk_of(chunks, end))


@pytest.mark.parametrize("seed", [8, 9])
def test_one_letter_chanted_between_hyphens_and_spaces_fires_at_96_columns(seed: int) -> None:
    """``o- o-o-o o o``: one letter, its copies separated by hyphens and spaces at random (no
    exact period), folds to copies of the letter; it fires on the chunk that brings the
    character at which the chant fills ``span_floor`` columns (a whitespace run at most four), not
    on the one before. The same letter in a grid, one line per row, is layout and stays quiet."""
    rng = random.Random(seed)
    chant = "".join("o" + rng.choice(["-", " ", "- ", "  ", "-"]) for _ in range(60))
    text = ANSWER + chant
    end = next(j for j in range(len(ANSWER), len(text)) if _columns(text[len(ANSWER) : j + 1]) >= CFG.span_floor)
    chunks = seeded(text, seed)
    res = first_fire(chunks)
    assert res.fired and res.reason == "stream.period" and res.loop_start == len(ANSWER)
    assert res.fired_at_chunk == chunk_of(chunks, end), (res, chunk_of(chunks, end))
    grid = ANSWER + "".join("o - o - o - o\n" for _ in range(12))
    assert not first_fire(seeded(grid, seed)).fired


def test_a_run_whose_short_unit_drifts_counts_from_its_first_copy() -> None:
    """``_row_row…/col_row/col_row…``: a run of one short unit going on, without a break, as a
    run of a unit that holds it is one repetition; it fires once the span from the first
    ``_row`` covers ``span_floor`` characters (on the chunk that brings that character; the
    block ending at character 192 sees the second run and arms the fire), not 96 characters
    after the second run began. Runs of units that share nothing (``0000ffff``) stay apart."""
    head = ANSWER[:128]
    text = head + "_row" * 6 + "/col_row" * 14 + " and that is the list.\n"
    for seed in range(3):
        chunks = seeded(text, 70 + seed)
        res = first_fire(chunks)
        assert res.fired and res.reason == "stream.period" and res.loop_start == len(head)
        assert res.fired_at_chunk == chunk_of(chunks, len(head) + CFG.span_floor - 1), res
    short = head + "_row" * 6 + "/col_row" * 8 + " and that is the list.\n"  # 88 characters of run
    assert not first_fire(seeded(short, 73)).fired
    hexes = head + "0x" + "0" * 60 + "f" * 60 + " is the mask.\n"
    assert not first_fire(seeded(hexes, 74)).fired


def test_a_layout_character_glued_to_a_word_is_a_token_run() -> None:
    """``#`` run on from the end of a word fires at ``digit_run_floor``; on its own line it is layout."""
    head = ANSWER + "The first one"
    chunks = seeded(head + "#" * 150, 5)
    res = first_fire(chunks)
    assert res.fired and (res.reason, res.unit, res.period) == ("stream.run", "#", 1)
    assert res.fired_at_chunk == chunk_of(chunks, len(head) + CFG.digit_run_floor - 1)
    assert not first_fire(seeded(head + "#" * (CFG.digit_run_floor - 1), 5)).fired
    for layout in (ANSWER + "#" * 150 + "\nDone.\n", ANSWER + "## " + "#" * 150 + "\n", ANSWER + "Title\n" + "=" * 150 + "\n"):
        assert not first_fire(seeded(layout, 5)).fired


@pytest.mark.parametrize("token", ["</s>\n", "<|im_end|>", "<end_of_turn>\n", "[SEP] "])
def test_a_run_of_one_special_token_fires_as_a_glued_run(token: str) -> None:
    """A chat template's or a tokenizer's special token written again and again after the answer
    (``</s>``, ``<|im_end|>``, ``<end_of_turn>``, ``[SEP]``, whitespace between the copies) is
    markup no text repeats: it fires once the run covers ``glued_span_floor`` (64) characters from
    its first copy, as a glued word does, not at the 96 (or 256, layout) of other short units;
    63 characters stay quiet. The copy reported starts at the token's opening bracket. An HTML closing tag repeated is no special token."""
    head = ANSWER + "The answer is 3."
    n = -(-(CFG.glued_span_floor + B) // len(token)) + 1  # past the block that holds the 64th character
    text = head + token * n
    for seed in (1, 2):
        chunks = seeded(text, seed)
        res = first_fire(chunks)
        assert res.fired and res.loop_start == len(head) and res.unit is not None and res.unit.lstrip()[0] in "<[", res
        # on the chunk that brings the 64th character, or, when the run's period is first seen at
        # a block end after it, on the chunk that completes that block
        due = len(head) + CFG.glued_span_floor - 1
        assert chunk_of(chunks, due) <= res.fired_at_chunk <= block_chunk(chunks, due), res
    short = head + (token * n)[: CFG.glued_span_floor - 1]
    assert not first_fire(seeded(short, 3)).fired
    assert not first_fire(seeded(ANSWER + "</div>\n" * 12, 3)).fired


def test_special_token_units_are_read_as_a_cycle() -> None:
    for unit in ("</s>\n", "s>\n</", "<|eot_id|>", "|><|eot_id", "<start_of_turn>", "[CLS] "):
        assert is_special_token_run(unit), unit
    for unit in ("</div>\n", "<b>", "hello", "<|im_end|> ok", "[note] "):
        assert not is_special_token_run(unit), unit


@pytest.mark.parametrize("leader", [".", ". ", "\u2026", "\u00b7"])
def test_a_run_of_leaders_after_text_is_a_token_run_outside_quoted_output(leader: str) -> None:
    """Dots, spaced dots, ellipses or middle dots after text on their line fire where the run
    reaches ``digit_run_floor`` characters (a leader never fills more than a line); a line of
    nothing but leaders is layout (a test runner's progress line in an answer that shows a
    run's output) up to ``structural_span_floor``; the same run inside a code fence stays
    layout; leaders of a table of contents never fire."""
    n = CFG.digit_run_floor
    head = ANSWER + "And then the model wrote"
    for seed in (6, 7):
        chunks = seeded(head + leader * (3 * n // len(leader)), seed)
        res = first_fire(chunks)
        assert res.fired and res.unit == leader and res.loop_start == len(head)
        assert res.fired_at_chunk == chunk_of(chunks, len(head) + n - 1)
        assert not first_fire(seeded(head + leader * ((n - 1) // len(leader)), seed)).fired
    progress = "." * 120 + "\n" + "-" * 70 + "\nRan 120 tests in 0.004s\n\nOK\n"
    for seed in (6, 7):
        assert not first_fire(seeded(progress, seed)).fired
        assert not first_fire(seeded(ANSWER + progress, seed)).fired
        line = seeded(ANSWER + "." * 400, seed)
        res = first_fire(line)
        assert res.fired and res.fired_at_chunk == chunk_of(line, len(ANSWER) + CFG.structural_span_floor - 1)
    fenced = ANSWER + "```\n" + "." * (CFG.structural_span_floor - 1) + "\n```\n"
    assert not first_fire(seeded(fenced, 6)).fired
    toc = "Contents\n\n" + "".join(f"Chapter {i} {'.' * (60 - len(str(i)))} {7 * i}\n" for i in range(1, 30))
    assert not first_fire(seeded(toc, 6)).fired


@pytest.mark.parametrize("fence", ["```\n", "```text\n"])
def test_quoted_program_output_keeps_its_repeated_lines(fence: str) -> None:
    """Program output quoted in a fence that names no language or an output one prints what it
    prints: a line once per worker (the quoted-line budget, 12 copies, also for the copies
    compared as token lists), a few lines again and again (no line-dominance window), a dot
    per test (``progress_run_floor``). The same lines outside the fence fire."""
    workers = "Cloning test database for alias 'default'...\n" * 8
    block = "Creating test database for alias 'default'...\n" + workers + "System check identified no issues (0 silenced).\n"
    destroy = "Destroying test database for alias 'default'...\n" * 8
    rounds = "".join(block + f"Ran {40 + i} tests in 0.{i}s\n\nOK\n" + destroy for i in range(3))
    ask = "Run the tests and paste the output."
    for seed in (3, 4):
        assert not first_fire(seeded(ANSWER + fence + rounds + "```\n", seed)).fired
        assert first_fire(seeded(ANSWER + rounds, seed)).fired
        assert not first_fire(seeded("$ ./runtests.py\n" + rounds, seed), context=ask).fired
    dots = "tests/test_models.py " + "." * 1200 + "\n\nRan 1200 tests in 3.1s\n\nOK\n"
    for seed in (3, 4):
        assert not first_fire(seeded(ANSWER + fence + dots + "```\n", seed)).fired
        assert first_fire(seeded(ANSWER + dots, seed)).fired
    endless = ANSWER + fence + "tests/test_models.py " + "." * (2 * CFG.progress_run_floor)
    res = first_fire(seeded(endless, 3))
    assert res.fired and res.chars >= len(ANSWER + fence + "tests/test_models.py ") + CFG.progress_run_floor


@pytest.mark.parametrize("token", [", ", "; ", "\\", "\\\\ "])
def test_a_run_of_a_separator_or_a_backslash_is_a_run_of_one_token(token: str) -> None:
    """A comma or a semicolon repeated with spaces (the separator is the token), or a backslash
    repeated, fires where the run reaches ``digit_run_floor`` characters, as ``!!!!`` does: a
    backslash escapes, it draws no layout. An escaped path or a list of values stays quiet."""
    head = ANSWER + "The translation is:"
    n = CFG.digit_run_floor
    for seed in (8, 9):
        chunks = seeded(head + token * (3 * n // len(token)), seed)
        res = first_fire(chunks)
        assert res.fired and res.loop_start <= len(head) + 1
        assert res.fired_at_chunk == chunk_of(chunks, res.loop_start + n - 1), res
    quiet = ANSWER + "Use C:\\\\Users\\\\me\\\\data in the JSON string, and the values 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11.\n"
    assert not first_fire(seeded(quiet, 8)).fired


def test_quadrupled_tokens_fire_after_four_stuttering_blocks() -> None:
    """Every token quadrupled ('TheTheTheThe') fires when the fourth block in a row stutters."""
    head = pad(ANSWER)
    words = "we will read the config file first and then fix the broken parser so that every quoted comma stays".split()
    text = head + "".join(w * 4 + " " for w in words * 2)
    chunks = seeded(text, 2)
    res = first_fire(chunks)
    assert res.fired and res.reason == "stream.stutter" and res.loop_start == len(head)
    assert res.fired_at_chunk == chunk_of(chunks, len(head) + CFG.stutter_blocks * B - 1)


def test_doubled_words_fire_after_four_stuttering_blocks() -> None:
    """Every word doubled ('the the config config') fires when the fourth block in a row stutters."""
    head = pad(ANSWER)
    words = ANSWER.split()
    text = head + "".join(f"{w} {w} " for w in words)
    chunks = seeded(text, 3)
    res = first_fire(chunks)
    assert res.fired and res.reason == "stream.stutter" and res.loop_start == len(head)
    assert res.fired_at_chunk == chunk_of(chunks, len(head) + CFG.stutter_blocks * B - 1)


def test_chatml_self_dialogue_fires_when_the_third_alike_pair_closes() -> None:
    """The model writing user and assistant turns fires on the chunk that completes the end-of-turn
    token closing the third pair (the cycle's second repeat), not on the chunk before."""
    turn = "<|im_end|>\n<|im_start|>user\nCan you explain that again?<|im_end|>\n<|im_start|>assistant\nSure, as I said: {n}. "
    text = "Hello! The guard watches each step." + "".join(turn.format(n=n) for n in range(6))
    chunks = seeded(text, 4)
    res = first_fire(chunks)
    # ends[0] closes the reply; each pair then holds a user and an assistant end token.
    ends = [i for i in range(len(text)) if text.startswith("<|im_end|>", i)]
    complete = ends[6] + len("<|im_end|>") - 1
    assert res.fired and res.reason == "stream.self_dialogue"
    assert res.loop_start == text.index("<|im_end|>") + len("<|im_end|>\n") and res.cut_offset == res.loop_start
    assert res.fired_at_chunk == chunk_of(chunks, complete)


def test_a_role_reopened_with_a_counter_fires_on_the_third_marker() -> None:
    """'<|im_end|>' then '<|im_start|>assistant57', '...58', ...: a counter in the role marker is no
    new role; one role closed and reopened fires on the chunk that completes its third marker
    (the third cycle), never on the second."""
    line = "tell me something about you?"
    text = "".join(f"{line}<|im_end|>\n<|im_start|>assistant{57 + n}\n" for n in range(8))
    marks = [i for i in range(len(text)) if text.startswith("<|im_start|>assistant", i)]
    third = text.index("\n", marks[2])  # the role name ends with the newline after the counter
    for seed in range(3):
        chunks = seeded(text, 40 + seed)
        res = first_fire(chunks)
        assert res.fired and res.reason == "stream.self_dialogue"
        assert res.fired_at_chunk == chunk_of(chunks, third), (res, chunk_of(chunks, third))
    two = "".join(f"{line}<|im_end|>\n<|im_start|>assistant{57 + n}\n" for n in range(2)) + line + " Fine."
    assert not first_fire(seeded(two, 45)).fired


def test_one_role_reopened_is_counted_per_cycle_of_its_turns() -> None:
    """One role closed and reopened, its turns a reply and a follow-up in turn (a cycle of two
    turns, the reply one word longer each time): never during the first or second cycle; fires
    on the chunk that completes the marker after the third cycle's last turn (the sixth)."""
    end = "<|im_end|>\n<|im_start|>assistant\n"
    turns = []
    for n in range(6):
        turns += ["Sure, the parser reads the header " + "very " * n + "carefully first.", "Is there anything else to check?"]
    text = end.join(turns) + end
    marks = [i for i in range(len(text)) if text.startswith("<|im_start|>assistant", i)]
    sixth = marks[5] + len("<|im_start|>assistant")  # the character after the role name completes it
    for seed in range(3):
        chunks = seeded(text, 60 + seed)
        res = first_fire(chunks)
        assert res.fired and res.reason == "stream.self_dialogue"
        assert res.fired_at_chunk == chunk_of(chunks, sixth), (res, chunk_of(chunks, sixth))
    assert not first_fire(seeded(text[: marks[5]], 60)).fired


def test_chant_with_drifting_spaces_fires_as_token_copies() -> None:
    """'let me (' with wandering spaces and case (no exact period) fires as copies of one unit:
    equal token copies (``stream.drift``) or, when its case slips, a tandem repeat with slips
    (``stream.tandem``), whichever is complete first, and never before its copies fill
    ``span_floor`` columns."""
    rng = random.Random(5)
    head = "I need to compute the total of the three invoices. "
    copies = [(rng.choice(["let me (", "Let me (", "let me  ("]), rng.choice([" ", "  ", "\n"])) for _ in range(80)]
    text = head + "".join(c + sep for c, sep in copies)
    a = first_fire(seeded(text, 6), "reasoning")
    b = first_fire(fixed(text, 5), "reasoning")
    one = first_fire(list(text), "reasoning")  # one character per chunk: the chunk is the character
    assert a.fired and a.reason in {"stream.drift", "stream.tandem"} and a.unit is not None and a.unit.lower().startswith("let me")
    # A 9-character unit (three tokens and their spaces) is short: its equal token copies must
    # cover span_floor characters, ceil(96 / 9) = 11 copies; the 11th is complete when the
    # whitespace after its '(' arrives, and the drift detector reads it at that block's end.
    need = -(-CFG.span_floor // 9)
    done = len(head) + sum(len(c) + len(sep) for c, sep in copies[:need]) - len(copies[need - 1][1])
    assert one.fired_at_chunk is not None and len(head) + CFG.span_floor - 1 <= one.fired_at_chunk
    assert a.fired_at_chunk <= block_chunk(seeded(text, 6), done)
    assert (a.reason, a.loop_start, a.cut_offset) == (b.reason, b.loop_start, b.cut_offset) == (one.reason, one.loop_start, one.cut_offset)
    assert a.fired_at_chunk == chunk_of(seeded(text, 6), one.fired_at_chunk)
    assert b.fired_at_chunk == chunk_of(fixed(text, 5), one.fired_at_chunk)


@pytest.mark.parametrize("seed", [11, 12, 13, 14])
def test_a_long_unit_whose_copies_differ_in_spacing_fires_on_its_fourth_copy(seed: int) -> None:
    """A two-speaker exchange (about 140 characters, one sentence) set out on lines once, then
    run on with single spaces: the copies are equal once whitespace is folded, and the fire lands
    on the chunk that completes the fourth copy's last word, not on the next block end."""
    exchange = [
        "Ana: I checked the cache settings again and they look fine to me,",
        "Bo: Then the problem must be somewhere in the request handler itself.",
    ]
    first = "\n\n".join(exchange) + "\n\n"
    later = " ".join(exchange)
    text = first + " ".join([later] * 7)
    chunks = seeded(text, seed)
    fourth_end = len(first) + 3 * len(later) + 2  # three run-on copies and the spaces between them
    res = first_fire(chunks)
    # stream.period counts the copy set out on lines as the run's first (folded, _earlier) and
    # stream.drift compares the folded copies: both complete the fourth copy on the same chunk
    assert res.fired and res.reason in {"stream.drift", "stream.period"}, res
    assert res.fired_at_chunk == chunk_of(chunks, fourth_end - 1), (res.fired_at_chunk, chunk_of(chunks, fourth_end - 1))
    again = first_fire(fixed(text, 7))
    assert (again.reason, again.loop_start, again.cut_offset) == (res.reason, res.loop_start, res.cut_offset)
    assert not first_fire(seeded(text[: fourth_end - 1], seed)).fired  # the fourth copy one character short


VERSE = "Little lamp upon the sill,\nBurning low and burning still,\nKeep the night outside the door,\nLight the hall and then the floor.\n"


def test_a_piece_asked_for_by_its_title_is_excused_when_its_copies_differ_in_spacing() -> None:
    """A verse asked for four times by its first line, its copies set apart by one or two blank
    lines (equal only once whitespace is folded: the drift detector's exact rule): the copy is
    reported from the loop's first line, the title names it, and four copies stay quiet; the
    same answer without the request fires."""
    text = "Here it is, four times:\n\n" + VERSE + "\n" + VERSE + "\n\n" + VERSE + "\n" + VERSE + "\n\n" + VERSE
    four = text[: text.index(VERSE, len(text) - len(VERSE)) - 2]
    ctx = RequestContext.parse("Write out 'Little lamp upon the sill' four times.")
    for seed in (21, 22, 23):
        assert not first_fire(seeded(four, seed), context=ctx).fired
        res = first_fire(seeded(text, seed))
        assert res.fired and res.unit is not None and res.unit.startswith("Little lamp"), res


def test_nested_copies_are_structure_and_copies_at_one_depth_a_loop() -> None:
    """The same two lines one indentation deeper each time (a recursive dump) are a tree, however
    deep; the same lines at one depth, spaced differently, are a loop."""
    tree = "".join(f"{'  ' * (2 * i)}#   NULL:\n{'  ' * (2 * i + 1)}#   BitmapNode(size=2 count=1 bitmap=0b1):\n" for i in range(14))
    assert not first_fire(seeded(ANSWER + tree, 24)).fired
    flat = "".join(f"#   NULL:\n{' ' * (1 + i % 3)}#   BitmapNode(size=2 count=1 bitmap=0b1):\n" for i in range(14))
    res = first_fire(seeded(ANSWER + flat, 24))
    assert res.fired and res.reason == "stream.drift", res


def test_an_ordered_list_of_one_item_fires_on_its_fourth_number() -> None:
    """The same item under each number of an ordered list is the same line again: it fires by the
    fourth item, once 16 characters of it follow its number (``stream.counted``; the line rule
    would fire on its newline). Distinct items stay quiet, and so do numbered lines inside a code
    fence (quoted output) up to their fourth copy."""
    item = "The cache key must include the user id."
    head = "Here is what I found:\n\n"
    lines = [f"{i}. {item}\n" for i in range(1, 30)]
    text = head + "".join(lines)
    fourth = len(head) + sum(len(x) for x in lines[:3]) + len("4.")
    for seed in (41, 42):
        chunks = seeded(text, seed)
        res = first_fire(chunks)
        assert res.fired and res.reason == "stream.counted", res
        assert res.fired_at_chunk == chunk_of(chunks, fourth + CFG.copy_unit)
    distinct = head + "".join(
        f"{i}. {w} must be checked before the request is sent.\n"
        for i, w in enumerate(["The user id", "The tenant", "The locale", "The version", "The region", "The token", "The scope"], 1)
    )
    assert not first_fire(seeded(distinct, 43)).fired
    fenced = head + "```\n" + "".join(lines[:4]) + "```\nThat is the same line four times.\n"
    assert not first_fire(seeded(fenced, 44)).fired


def test_a_hex_dump_of_a_repeated_pattern_is_data_not_a_glued_word() -> None:
    """A hex dump whose ASCII column repeats one byte pattern: most tokens of each row are numbers,
    so the periodic column is the data's pattern and the dump stays quiet; the same glued token in
    prose stutters and fires."""
    rows = "".join(f"{16 * i:08x}: 5758 595a 5758 595a 5758 595a 5758 595a  WXYZWXYZWXYZWXYZ\n" for i in range(40))
    assert not first_fire(seeded("The file starts with a repeated pattern:\n" + rows, 45)).fired
    prose = "".join(f"Then the reader said WXYZWXYZWXYZWXYZ again and again, line {i}. " for i in range(40))
    res = first_fire(seeded(prose, 46))
    assert res.fired and res.reason == "stream.stutter", res


@pytest.mark.parametrize(("unit", "seed"), [("Of", 47), ("ny", 48), ("<unk>", 49), ("the", 50)])
def test_a_word_glued_to_itself_fires_at_the_glued_floor(unit: str, seed: int) -> None:
    """Copies that abut with nothing between them fire once they fill ``glued_span_floor`` (64)
    columns, at the stream's 64th character when the stream starts with them; the same word
    spaced waits for ``span_floor`` (96) -- but a tokenizer's special token (``<unk>``) spaced
    is still markup no text repeats, and fires at 64 too."""
    run = unit * (200 // len(unit))
    chunks = seeded(run, seed)
    res = first_fire(chunks)
    assert res.fired and res.reason == "stream.period" and res.loop_start == 0
    need = CFG.glued_span_floor  # characters of ASCII text
    assert res.fired_at_chunk == chunk_of(chunks, max(need, CFG.min_chars) - 1)
    after = seeded(ANSWER + run, seed)
    res = first_fire(after)
    assert res.fired and res.loop_start == len(ANSWER)
    assert res.fired_at_chunk == chunk_of(after, len(ANSWER) + need - 1)
    spaced = seeded(ANSWER + (unit + " ") * (200 // len(unit)), seed)
    res = first_fire(spaced)
    floor = CFG.glued_span_floor if is_special_token_run(unit + " ") else CFG.span_floor
    assert res.fired and res.fired_at_chunk == chunk_of(spaced, len(ANSWER) + floor - 1)


def test_a_glued_run_a_wide_word_counts_columns() -> None:
    """A two-character Han word glued to itself fills 64 columns at 32 characters."""
    start = len(ANSWER)
    chunks = seeded(ANSWER + "来了" * 60, 51)
    res = first_fire(chunks)
    assert res.fired and res.unit == "来了" and res.loop_start == start
    # due at the 32nd character; a run of a short unit first seen by a block's end fires there
    due = start + CFG.glued_span_floor // 2 - 1
    assert chunk_of(chunks, due) <= res.fired_at_chunk <= block_chunk(chunks, due)
    assert not first_fire(seeded(ANSWER + "来了" * 15 + "。" + ANSWER, 51)).fired  # 60 columns


@pytest.mark.parametrize(
    "text",
    [
        ANSWER + "card = \"CONTINUE  '" + "longcomment" * 5 + "' / end\"\n" + ANSWER,  # a test fixture, 55 characters
        ANSWER + "mask = 0x" + "deadbeef" * 8 + "\n" + ANSWER,  # a hex literal of a repeated pattern
        ANSWER + "Ha" * 12 + "! That is funny.\n" + ANSWER,  # a written laugh
        ANSWER + "drwxrwxrwx  2 root root 4096 data\n" * 3 + ANSWER,  # a file mode
    ],
)
def test_legitimate_glued_runs_stay_quiet(text: str) -> None:
    """Glued runs of legitimate text stay below the glued floor, or are hexadecimal data."""
    for seed in (52, 53):
        assert not first_fire(seeded(text, seed)).fired


def test_a_hex_dump_of_identical_byte_groups_is_data_not_a_stutter() -> None:
    """A hex dump whose rows repeat one byte group (``aa55 aa55 ...``): the doubled tokens are
    hexadecimal numbers, not doubled words, and the dump stays quiet; words doubled in prose
    still stutter."""
    rows = "".join(f"{16 * i:08x}: " + "aa55 " * 8 + " .U.U.U.U.U.U.U.U\n" for i in range(40))
    for seed in (54, 55):
        assert not first_fire(seeded("Here is the dump of frame.bin:\n" + rows, seed)).fired
    prose = "".join(f"{w} {w} " for w in (ANSWER + ANSWER.upper()).split())  # every word said twice, 'added' and 'cafe' too
    prose = "added added cafe cafe " + prose
    res = first_fire(seeded(prose, 56))
    assert res.fired and res.reason == "stream.stutter", res


def test_a_paragraph_on_one_line_fires_at_the_first_sentence_of_its_fourth_copy() -> None:
    """A paragraph of several sentences written on one line, repeated: a reader recognises the
    fourth copy by its first sentence, so a stream cut by its token limit inside that copy is
    caught there; a paragraph of one sentence waits for its whole fourth copy."""
    para = (
        "I am a language model built to help with questions and tasks of many kinds. "
        "I have no body and no identity of my own, but I can help with what you need. "
    )
    start = len(ANSWER)
    first_end = para.index(". ") + 1  # the first sentence ends with its full stop
    text = ANSWER + para * 3 + para[: first_end + 20]
    for seed in (57, 58):
        chunks = seeded(text, seed)
        res = first_fire(chunks)
        assert res.fired and res.reason == "stream.period" and res.loop_start == start
        assert res.fired_at_chunk == chunk_of(chunks, start + 3 * len(para) + first_end - 1)
        assert res.fired_at_chunk == chunk_of(chunks, fourth_copy_line(text, start, len(para)))
        assert not first_fire(seeded(ANSWER + para * 3 + para[: first_end - 1], seed)).fired
    one = "I am a language model built to help with questions and tasks of many kinds, and I will help you now; "
    chunks = seeded(ANSWER + one * 6, 59)
    res = first_fire(chunks)
    assert res.fired and res.fired_at_chunk == chunk_of(chunks, start + 4 * len(one) - 1)


@pytest.mark.parametrize("tag", ["yaml", "python", "js"])
def test_a_code_line_looping_in_a_language_fence_fires_on_its_fourth_copy(tag: str) -> None:
    """A line of code written again and again inside a fence that names a language is the
    model's own text looping: it fires once its fourth copy is complete. The same lines in a
    fence without a tag, or tagged as output or a shell session, are quoted program output,
    which repeats lines as a program prints them: six copies stay quiet."""
    line = "  domain: ${env:USER_SUB_DOMAIN, 'localhost'}\n"
    head = ANSWER + f"```{tag}\nprivate:\n"
    for seed in (60, 61):
        chunks = seeded(head + line * 10 + "```\n", seed)
        res = first_fire(chunks)
        assert res.fired and res.reason == "stream.period" and res.loop_start == len(head)
        assert res.fired_at_chunk == chunk_of(chunks, len(head) + 4 * len(line) - 2)  # the 4th copy's last character before its line break
    for other in ("", "text", "console", "bash"):
        quoted = ANSWER + f"```{other}\nprivate:\n" + line * 6 + "```\n"
        assert not first_fire(seeded(quoted, 62)).fired, other


def test_a_labelled_counter_fires_by_its_fourth_copy() -> None:
    """``Step 12: <text>``, ``Step 13: <text>``, ...: an item's label and number is numbering, as
    ``12. `` is; the same text under it fires on the chunk that brings 16 characters of its fourth
    copy after the number (``stream.counted``), the unit read from the line's start."""
    text_ = "I will open the config file again and check whether the port value is set correctly."
    lines = [f"Step {i}: {text_}\n" for i in range(12, 40)]
    head = "Let me fix the port problem.\n"
    text = head + "".join(lines)
    fourth = len(head) + sum(len(x) for x in lines[:3]) + len("Step 15:")
    for seed in (7, 8):
        chunks = seeded(text, seed, 2, 12)
        res = first_fire(chunks)
        assert (res.reason, res.unit, res.loop_start) == ("stream.counted", lines[0], len(head))
        assert res.fired_at_chunk == chunk_of(chunks, recognised(text, fourth, " " + text_))
    three = head + "".join(lines[:3]) + "Step 15: Now the port is set, so I restart the service.\n"
    assert not first_fire(seeded(three, 7, 2, 12)).fired


def test_a_counter_inside_a_sentence_fires_by_its_fourth_copy() -> None:
    """A sentence whose only change is a counter inside it fires by its fourth copy, as an exact repetition."""
    lines = [f"I will open the config file again (try {i}) and check whether the port value is set correctly.\n" for i in range(12, 40)]
    head = "Let me fix the port problem.\n"
    text = head + "".join(lines)
    chunks = seeded(text, 7, 2, 12)
    res = first_fire(chunks)
    fourth = len(head) + sum(len(x) for x in lines[:3]) + lines[3].index("15)") + len("15)")
    assert res.fired and res.reason == "stream.counted" and res.unit is not None and res.unit.startswith("I will open")
    assert res.fired_at_chunk == chunk_of(chunks, recognised(text, fourth, lines[3][lines[3].index("15)") + 3 :]))
    again = first_fire(fixed(text, 11))
    assert (again.reason, again.loop_start, again.cut_offset) == (res.reason, res.loop_start, res.cut_offset)


ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth"]
HEAD = "Let me go through the cache entries one by one.\n"


def counted(template: str, counters: list[str], head: str = HEAD, sep: str = "") -> tuple[str, list[int]]:
    """The copies of ``template`` (one ``{}`` for the counter) after ``head``, joined by ``sep``;
    the offsets just past each counter (and the list mark after a number: ``3.``)."""
    text, ends = head, []
    for k, c in enumerate(counters):
        if k:
            text += sep
        at = len(text) + template.index("{}") + len(c)
        text += template.format(c)
        ends.append(at + 1 if c.isdigit() and text[at : at + 1] in ".):" else at)
    return text, ends


def recognised(text: str, after: int, rest: str) -> int:
    """The offset of the character that completes the recognition of a copy whose counter ends at
    ``after``: the copy's text after the counter (``rest``: up to the copy's last line or sentence
    end), whitespace collapsed, up to its end or ``copy_unit`` characters of it."""
    cut = max(rest.rfind(". "), rest.rfind("\n"))
    want = " ".join((rest[: cut + 1] if cut >= 0 else rest).split())[: CFG.copy_unit]
    got, i = "", after
    while len(got) < len(want):
        ch = text[i]
        if not ch.isspace():
            got += ch
        elif got and not got.endswith(" "):
            got += " "
        i += 1
    return i - 1


@pytest.mark.parametrize(
    ("template", "counters", "sep"),
    [
        ("I opened the {} entry of the cache. It still holds the stale session token from yesterday.\n", ORDINALS, ""),
        ("Attempt {}: the request to the billing service timed out again, so I send it once more.", [str(i) for i in range(3, 15)], " "),
        ("{}. Jane Doe, Sr.", [str(i) for i in range(1, 13)], " "),
        ("the {} item: nothing to report", ORDINALS, ", "),
    ],
)
@pytest.mark.parametrize("seed", [21, 22])
def test_copies_that_differ_by_one_counter_fire_once_the_fourth_copy_is_recognised(
    template: str, counters: list[str], sep: str, seed: int
) -> None:
    """A counter is no content: copies equal but for one number or ordinal word that advances
    fire as an exact repetition does (issue 23: by the fourth copy of a unit of 16 characters or
    more), on the chunk that brings the fourth copy's text after its counter up to the copy's
    end or 16 characters of it, whichever comes first."""
    text, ends = counted(template, counters, sep=sep)
    chunks = seeded(text, seed, 1, 12)
    res = first_fire(chunks)
    assert res.fired and res.reason == "stream.counted", res
    assert res.fired_at_chunk == chunk_of(chunks, recognised(text, ends[3], text[ends[3] : ends[4] - len(counters[4])])), res
    assert res.unit is not None and res.loop_start is not None and res.loop_start <= ends[0]
    again = first_fire(fixed(text, 7))
    assert (again.reason, again.loop_start, again.cut_offset) == (res.reason, res.loop_start, res.cut_offset)


def test_three_counted_copies_never_fire_and_records_or_labels_are_no_counted_loop() -> None:
    """Three counted copies are no loop yet; rows whose numbers change in two fields (a record)
    are no counted copies, nor is a counter that stays put, nor a counted label or value."""
    template = "I opened the {} entry of the cache. It still holds the stale session token from yesterday.\n"
    text, _ = counted(template, ORDINALS[:3])
    assert not first_fire(seeded(text + "The fix is to clear the cache and log in again.\n", 23)).fired
    rows = "".join(f"Line {i} of the old file became line {i + 2} of the new one after the merge.\n" for i in range(10, 22))
    assert not first_fire(seeded("Here is where each line went.\n" + rows, 24)).fired
    text, ends = counted(template, ["second", "second", "third", "third", "fourth", "fourth", "fifth", "fifth"])
    res = first_fire(seeded(text, 25))
    assert not res.fired or res.reason != "stream.counted"
    labels = "The book has these parts: " + ", ".join(f"Chapter {i}" for i in range(1, 30)) + "."
    assert not first_fire(seeded(labels, 26)).fired
    table = "var retry = map[int]bool{\n" + "".join(f"\t{c}: false,\n" for c in (200, 201, 202, 204, 301, 304, 400, 401, 403, 404)) + "}\n"
    assert not first_fire(seeded(table, 26)).fired


def test_counted_copies_in_a_code_fence_or_a_plan_asked_for_need_max_copies() -> None:
    """A program's output (or code) in a fence counts its lines as it prints them, and a
    schedule asked for counts its days: counted copies there need ``max_copies``."""
    lines = "".join(f"Worker {i} finished its share of the import and wrote the results to disk.\n" for i in range(1, 15))
    fenced = "The script prints this:\n\n```\n" + lines
    res = first_fire(seeded(fenced, 28))
    assert not res.fired or res.chars >= fenced.index(f"Worker {CFG.max_copies} ")
    bare = "The script prints this:\n\n" + lines
    res = first_fire(seeded(bare, 28))
    assert res.fired and res.reason == "stream.counted" and res.chars < bare.index("Worker 5 ")
    days = "".join(f"Day {i}: walk for thirty minutes after lunch and stretch before bed.\n" for i in range(1, 15))
    ask = "Make me a two-week walking schedule, one line per day."
    res = first_fire(seeded(days, 26), context=ask)
    assert not res.fired or res.chars >= days.index(f"Day {CFG.max_copies}:")
    assert first_fire(seeded(days, 26)).fired


def test_a_request_that_counts_the_items_excuses_them_numbered_within_its_bound() -> None:
    """"6 rounds, each written out" asks for the rounds: copies numbered ``Round 1.``, ``Round
    2.`` ... are the items asked for, up to ``ceil(6 * context_slack) + 2`` of them; without the
    count, or far past it, they are a counted loop."""
    ask = "Write a stretching sequence for my back with 6 rounds, and write each round out in full."
    assert ("rounds", 6) in RequestContext.parse(ask).items
    block = "Round {}.\nReach up slowly and hold it for five breaths.\nBend forward and let your arms hang.\n\n"
    rounds = "Here is the sequence.\n\n" + "".join(block.format(i) for i in range(1, 7)) + "Well done, rest now.\n"
    assert not first_fire(seeded(rounds, 29), context=ask).fired
    assert first_fire(seeded(rounds, 29)).fired
    endless = "Here is the sequence.\n\n" + "".join(block.format(i) for i in range(1, 40))
    ask_plain = "Write stretches for my back, 6 rounds."
    res = first_fire(seeded(endless, 30), context=ask_plain)
    assert res.fired and res.chars > endless.index("Round 12.")


def test_numbered_lines_under_a_counted_label_are_the_items_asked_for() -> None:
    """"5 sets of 10 push-ups": lines ``Set 1: ...`` to ``Set 5: ...`` with the same text are the
    sets asked for (the numbered-line rule reports the text without its label; the label is
    read from the stream); forty of them, or five with no count asked, are a loop."""
    ask = "Make me a workout: 5 sets of 10 push-ups with rests."
    line = "Set {}: 10 push-ups, then rest for sixty seconds.\n"
    sets = "Push-up ladder:\n\n" + "".join(line.format(i) for i in range(1, 6)) + "\nStretch when you finish.\n"
    for seed in (31, 32):
        assert not first_fire(seeded(sets, seed), context=ask).fired
        assert first_fire(seeded(sets, seed)).fired
        endless = "Push-up ladder:\n\n" + "".join(line.format(i) for i in range(1, 41))
        res = first_fire(seeded(endless, seed), context=ask)
        assert res.fired and res.chars > endless.index("Set 12:")


def test_a_count_of_rounds_asks_for_the_round_again() -> None:
    """"six rounds" counts repetitions of one routine, as "six times" does (``count-times``):
    a round written six times is asked for; without the count it is a loop."""
    ask = "Guide me through box breathing, six rounds."
    assert RequestContext.parse(ask).bound == 6
    round_ = "Breathe in for four counts. Hold for four counts. Breathe out for four counts. Hold for four counts.\n"
    assert not first_fire(seeded(round_ * 6, 33), context=ask).fired
    assert first_fire(seeded(round_ * 6, 33), context="Guide me through box breathing.").fired


def test_a_count_with_a_number_that_stays_put_reports_its_copies_whatever_the_chunking() -> None:
    """Copies holding an advancing counter and a number that stays put (``Step 3: ... 442.``)
    are reported from the advancing counter's copy, the earliest that steps into the count,
    whichever counter the reading stopped at: one character per chunk or 19 give one unit."""
    # the text the chunking property test drew (one character per chunk fired from "442" before)
    text = (
        "The fresh tenant drops one commit quickly because the local stream retries every footer unless the duplicate "
        "account caches one module 815? The shared function splits one server silently unless the remote client logs "
        "a schema again then the final record renders every commit late server? T"
    ) + "".join(f"Step {i}: The invalid token updates one variable silently 442. The option\n" for i in range(5))
    reports = set()
    for size in (1, 7, 19, 40):
        guard = StreamGuard()
        res = None
        for i in range(0, len(text), size):
            res = guard.feed(text[i : i + size])
            if res.fired:
                break
        assert res is not None and res.fired and res.reason == "stream.counted"
        reports.add((res.unit, res.loop_start, res.cut_offset))
    assert len(reports) == 1 and next(iter(reports))[0].startswith("Step 0:"), reports


def test_finish_completes_the_last_token() -> None:
    """At the end of the stream its last token is complete: a fourth counted copy whose counter
    is the response's last word fires on ``finish``."""
    text = "Let me retry.\n" + "\n".join(f"The upload of the nightly report failed again, attempt {i}" for i in range(1, 5))
    guard = StreamGuard()
    for c in seeded(text, 27):
        assert not guard.feed(c).fired
    res = guard.finish()
    assert res.fired and res.reason == "stream.counted" and res.loop_start == len("Let me retry.\n"), res


def test_finish_completes_the_last_token_of_a_block_aligned_response() -> None:
    """A response whose length is a multiple of the block size ends on a complete block, whose
    last token was held back for a next block: ``finish`` completes it too."""
    body = "\n".join(f"The upload of the nightly report failed again, attempt {i}" for i in range(1, 5))
    block = StreamGuard().config.block
    head = "Let me retry" + "." * (-(len("Let me retry") + 1 + len(body)) % block) + "\n"
    text = head + body
    assert len(text) % block == 0
    guard = StreamGuard()
    for c in seeded(text, 27):
        assert not guard.feed(c).fired
    res = guard.finish()
    assert res.fired and res.reason == "stream.counted" and res.loop_start == len(head), res


def test_drifting_words_loop_fires_but_an_enumeration_does_not() -> None:
    """Copies that swap words back and forth fire; a list whose slot brings a new word each line does not."""
    rng = random.Random(8)
    loop = "".join(
        f"Wait, let me {rng.choice(['recount', 're-check', 'count again'])} the fields. The header has 27 names and the row "
        f"has 51 values, so the extra delimiter {rng.choice(['must come', 'comes'])} from the quoted comma. "
        for _ in range(20)
    )
    res = first_fire(seeded("The user wants the row appended. " + loop, 9), "reasoning")
    assert res.fired and res.reason in ("stream.drift", "stream.period")  # three equal draws in a row are a period
    fields = ["id", "name", "email", "phone", "address", "city", "country", "owner", "status", "tags", "notes", "score"]
    listing = "".join(f"- `{f}`: returns the value of the `{f}` field of this record.\n" for f in fields * 1)
    assert not first_fire(seeded("Fields:\n\n" + listing, 10)).fired


# ----------------------------------------------------------------------------- context


def test_request_parsing_reads_the_unit_and_the_bound() -> None:
    """The request's unit and bound are read from numbers, number words and quotes."""
    assert RequestContext.parse("Please print OK 50 times, one per line.").units == ("ok",)
    assert RequestContext.parse("Please print OK 50 times, one per line.").bound == 50
    ctx = RequestContext.parse("Repeat the word 'buffalo' over and over.")
    assert ctx.requested and ctx.bound is None and ctx.units == ("buffalo",)
    assert RequestContext.parse("Write it twice.").bound == 2
    assert not RequestContext.parse("Summarise this file in three bullet points.").requested
    assert not RequestContext.parse("Write 500 lines of code for the parser.").requested  # volume, not repetition
    # a count of the answer's parts after the object: the object is the whole answer, not a unit
    song = RequestContext.parse("Write me a song for the troop, four verses, and the chorus after every verse.")
    assert song.requested and song.units == () and song.items == (("verses", 4),)
    assert RequestContext.parse("Say thank you 20 more times.").units == ("thank you",)
    # a unit named by its kind before its wording names the wording alone too
    assert RequestContext.parse("Repeat the mantra om shanti 108 times.").units == ("the mantra om shanti", "om shanti")
    assert RequestContext.parse("Print 'hello' on 20 lines.").units == ("hello",)
    with pytest.raises(TypeError, match="context"):
        RequestContext.parse(42)  # type: ignore[arg-type]


def test_requested_repetition_within_its_bound_does_not_fire() -> None:
    """'Print OK 50 times' answered with 50 (or 60) OKs stays quiet; without the request it fires."""
    ask = "Print OK 50 times, one per line, nothing else."
    for copies in (50, 60):
        chunks = seeded("OK\n" * copies, 11)
        assert not first_fire(chunks, context=ask).fired
    assert first_fire(seeded("OK\n" * 50, 11)).fired


def test_a_bound_does_not_excuse_ten_times_itself() -> None:
    """'Print OK 50 times' answered with 500 OKs fires past twice the bound, well before 500."""
    ask = "Print OK 50 times, one per line, nothing else."
    chunks = seeded("OK\n" * 500, 12)
    res = first_fire(chunks, context=ask)
    allowed = 2 * 50 + 2
    assert res.fired and res.reason == "stream.period" and res.unit == "OK\n"
    assert allowed * 3 < res.chars <= allowed * 3 + 2 * B


def test_a_request_for_one_unit_does_not_excuse_another() -> None:
    """Asking for 'OK' 50 times does not excuse a stream of 'NO' lines."""
    ask = "Print OK 50 times, one per line, nothing else."
    chunks = seeded("NO\n" * 200, 13)
    assert first_fire(chunks, context=ask).fired_at_chunk == first_fire(chunks).fired_at_chunk


def test_a_request_does_not_excuse_the_whole_answer_restarted() -> None:
    """Asking for 'yes' then 'no' twice excuses those lines, not the answer restarted around them.

    The restarted answer (a preamble, the requested lines, a leaked role header) holds words the
    request did not name: it fires on the same chunk as without the request -- the first line of
    the fourth copy of its 37-character unit ends at character 3 * 37 + 16 -- and never before it.
    """
    ask = "Please print `yes` then `no` twice."
    unit = "Sure, the lines:\nyes\nno\nnoassistant\n\n"
    assert len(unit) == 37
    chunks = seeded(unit * 8, 23)
    res = first_fire(chunks, context=ask)
    assert res.fired and res.reason == "stream.period"
    assert res.fired_at_chunk == first_fire(chunks).fired_at_chunk == chunk_of(chunks, fourth_copy_line(unit * 8, 0, 37))
    assert fourth_copy_line(unit * 8, 0, 37) == 3 * 37 + 16
    assert not first_fire(seeded("yes\nno\nno\n" * 2, 23), context=ask).fired


def test_channel_guards_take_the_context_from_the_first_chunk_that_carries_it() -> None:
    """GuardStream's path: the context arrives with a chunk and applies to every channel."""
    guards = ChannelGuards()
    results = [guards.feed("content", c, "Print OK 50 times." if i == 0 else "") for i, c in enumerate(seeded("OK\n" * 50, 14))]
    assert not any(r.fired for r in results)
    assert guards.context.bound == 50


# ----------------------------------------------------------------------------- semantic layer

PARAPHRASES = [
    "I should check the configuration file again to see whether the port is set.",
    "Let me look at the config file once more to verify the port setting.",
    "Maybe I need to re-read the settings file and confirm the port value.",
    "I will inspect the configuration again to be sure the port is right.",
    "Let me double-check the config file for the port number.",
    "Perhaps the port in the configuration file is wrong, so I will check it again.",
    "I'd better verify the port value in the config file one more time.",
    "Let me open the settings once again and look at the port.",
    "So the config file needs another look at its port entry.",
]
TEXT = "The server does not start on the expected port. " + " ".join(PARAPHRASES) + " Hmm. " * 15  # under span_floor


@pytest.mark.parametrize("background", [False, True])
def test_semantic_recurrence_steers_without_firing(real_cached: object, background: bool) -> None:
    """Sentences that say the same thing in new words steer (with a message) and never fire alone."""
    guard = StreamGuard("reasoning", embedder=real_cached, semantic_background=background)
    results = []
    for chunk in seeded(TEXT, 15, 3, 12):
        result = guard.feed(chunk)
        # in background mode, wait for the pending batches after each chunk: a loaded machine
        # would otherwise fill the bounded queue and drop batches (by design), and what is
        # tested here is the verdict, not the machine's speed
        results.append(guard.settle(timeout=60) if background else result)
    last = results[-1]
    assert not any(r.fired for r in results) and not last.fired
    assert last.steer and last.action == "steer"
    assert last.message is not None and "restating" in last.message


def test_semantic_recurrence_fires_only_with_textual_corroboration(real_cached: object) -> None:
    """The same stream fires as a semantic loop when the wording counts as corroboration (test setting)."""
    lenient = StreamGuardConfig(corroboration_fresh=1.0, novelty_window=20)
    res = first_fire(seeded(TEXT, 15, 3, 12), "reasoning", config=lenient, embedder=real_cached, semantic_background=False)
    assert res.fired and res.reason == "stream.semantic_loop"
    assert res.unit in PARAPHRASES and res.loop_start is not None and res.cut_offset is not None


def test_parts_the_request_counts_only_steer_on_semantic_recurrence(real_cached: object) -> None:
    """Parts the request counts ("five ways to say it") are written from one frame, meaning and
    wording alike: the stream that fires as a semantic loop above only steers under that request."""
    lenient = StreamGuardConfig(corroboration_fresh=1.0, novelty_window=20)
    guard = StreamGuard("reasoning", config=lenient, embedder=real_cached, semantic_background=False,
                        context="Give me five ways to say that the server does not start on its port.")
    results = [guard.feed(c) for c in seeded(TEXT, 15, 3, 12)]
    assert not any(r.fired for r in results) and results[-1].steer


def test_semantic_layer_is_off_for_tool_args_and_without_an_embedder(real_cached: object) -> None:
    """No embedder, or the tool_args channel: no steer."""
    for guard in (StreamGuard("reasoning"), StreamGuard("tool_args", embedder=real_cached, semantic_background=False)):
        results = [guard.feed(c) for c in seeded(TEXT, 16)]
        assert not any(r.steer or r.fired for r in results)


# ----------------------------------------------------------------------------- over the wire


def test_guard_stream_carries_the_context_over_grpc(hashing_server: str) -> None:
    """A remote GuardStream reads the request from the first message: 50 requested OKs stay quiet."""
    from plateau.adapters import guard_text_chunks
    from plateau.client import Client

    chunks = seeded("OK\n" * 50, 17)
    with Client.remote(hashing_server) as client:
        quiet = list(client.guard_stream(chunks, context="Print OK 50 times."))
        loud = list(client.guard_stream(chunks))
        assert not any(r.fired for r in quiet)
        assert any(r.fired for r in loud)
        guarded = guard_text_chunks(client, chunks, on_fire="stop", context="Print OK 50 times.")
        assert list(guarded) == chunks and not guarded.fired


def test_steer_and_message_survive_the_wire_format() -> None:
    """GuardVerdict carries steer and message both ways (and a quiet verdict carries neither)."""
    from plateau import convert

    steer = GuardResult(fired=False, chars=120, steer=True, message="The response keeps restating itself.")
    assert convert.guard_result_from_pb(convert.guard_result_to_pb("reasoning", steer)) == ("reasoning", steer)
    quiet = GuardResult(fired=False, chars=3)
    assert convert.guard_result_from_pb(convert.guard_result_to_pb("content", quiet)) == ("content", quiet)


def test_a_failing_embedder_never_breaks_the_stream() -> None:
    """An embedder that raises loses its batches; the textual detectors go on and still fire."""

    class Broken:
        name = "broken"

        def encode(self, texts: list[str]) -> object:
            raise RuntimeError("model gone")

    for background in (False, True):
        guard = StreamGuard("reasoning", embedder=Broken(), semantic_background=background)
        results = [guard.feed(c) for c in seeded(TEXT + "I will check it again. " * 40, 18)]
        guard.settle(timeout=10)
        assert results[-1].fired and not any(r.steer for r in results)


def test_semantic_steer_begins_on_the_same_block_whatever_the_chunking(real_cached: object) -> None:
    """Synchronous embedding: the steer starts on the chunk that completes the same block (the 9th)."""
    for chunks in (list(TEXT), seeded(TEXT, 15, 3, 12), fixed(TEXT, 50)):
        guard = StreamGuard("reasoning", embedder=real_cached, semantic_background=False)
        first = next(i for i, c in enumerate(chunks) if guard.feed(c).steer)
        assert first == chunk_of(chunks, 9 * B - 1)  # seeded regression value: block 9 completes the window


# ----------------------------------------------------------------------------- indentation is not content

_ASKS = (
    "What does the parser do with a quoted comma?",
    "Where is the cache kept between two runs?",
    "How many retries does the client make?",
    "Which header does the router read first?",
    "Why is the second worker idle?",
)
_REPLIES = (
    "It keeps the comma inside the field.",
    "In a folder next to the config file.",
    "Three, each one after a longer pause.",
    "The host header, before any cookie.",
    "It waits for the first one to release the lock.",
)


def _transcript(indent: str, pairs: int, first: str = "Human", second: str = "AI Assistant") -> tuple[str, list[int]]:
    """An answer, then ``pairs`` turn pairs under labels indented by ``indent``; where each turn's text begins."""
    text, starts = "Hello! How can I help you today?\n", []
    for q, a in zip(_ASKS[:pairs], _REPLIES[:pairs], strict=True):
        for label, body in ((first, q), (second, a)):
            text += f"{indent}{label}: "
            starts.append(len(text))
            text += body + "\n"
    return text, starts


@pytest.mark.parametrize("indent", ["", "    ", "        ", "\t", " \t  "])
def test_an_indented_self_dialogue_fires_where_the_unindented_one_does(indent: str) -> None:
    """'Human:' / 'AI Assistant:' turns indented by spaces or tabs are the same self-dialogue:
    fire on the chunk that brings the newline ending the 6th label's turn (the third pair),
    never on the chunk before it, and never with two pairs."""
    text, starts = _transcript(indent, 5)
    due = text.index("\n", starts[5])
    for seed in range(4):
        chunks = seeded(text, 500 + seed, 1, 12)
        res = first_fire(chunks)
        assert res.fired and res.reason == "stream.self_dialogue", (indent, res)
        assert res.fired_at_chunk == chunk_of(chunks, due), (indent, seed, res.fired_at_chunk, chunk_of(chunks, due))
        assert res.loop_start == text.index("Human:")
        before = chunks[: chunk_of(chunks, due)]
        assert not first_fire(before).fired
    two, _ = _transcript(indent, 2)
    assert not first_fire(seeded(two + ANSWER * 2, 510, 1, 12)).fired


@pytest.mark.parametrize("indent", ["    ", "        "])
def test_indented_labels_that_are_no_self_dialogue_stay_quiet(indent: str) -> None:
    """Indentation does not make a record a dialogue: an indented FAQ the response presents,
    indented 'Value:' / 'Dtype:' rows (no role names, no question) and an indented 'Name:' /
    'Version:' listing stay quiet, chunked any way."""
    faq, _ = _transcript(indent, 5, "User", "Assistant")
    faq = faq.replace("Hello! How can I help you today?\n", "Here is a short FAQ:\n\n")
    rows = "The values print as\n" + "".join(f"{indent}Value: {i}.0 km\n{indent}Dtype: float{16 * (i % 3 + 1)}\n" for i in range(8))
    pkgs = "Installed:\n" + "".join(f"{indent}Name: pkg{i}\n{indent}Version: 1.{i}.0\n" for i in range(8))
    for text in (faq, rows, pkgs):
        for seed in range(3):
            assert not first_fire(seeded(text, 520 + seed, 1, 12)).fired, (indent, text[:40])


def test_an_indented_label_at_the_stream_start_is_the_answer_naming_itself() -> None:
    """A label at the stream's very start -- indented or not -- is the response labelling its own
    answer, not a turn it writes for the other side: the fire waits for the third pair after it,
    on the same chunk whether the first label is indented or not."""
    for indent in ("", "        "):
        text = f"{indent}AI Assistant: Hello! How can I help you today?\n"
        starts = []
        for q, a in zip(_ASKS, _REPLIES, strict=True):
            for label, body in (("Human", q), ("AI Assistant", a)):
                text += f"{indent}{label}: "
                starts.append(len(text))
                text += body + "\n"
        chunks = seeded(text, 530, 1, 12)
        res = first_fire(chunks)
        assert res.fired and res.reason == "stream.self_dialogue"
        assert res.fired_at_chunk == chunk_of(chunks, text.index("\n", starts[5])), indent


def test_one_role_opened_again_while_its_turn_is_open_fires_on_the_third_marker() -> None:
    """A greeting, then '<|assistant|>' opened again and again with no end-of-turn token and
    turns that differ: the model writes new turns for itself, each turn one cycle; the chunk
    that completes the third marker fires (the second repeat), never the second."""
    turns = [
        "Hi! It is good to see you. What brings you here today?",
        "Hey there, welcome back! Ask me anything you like.",
        "Good day! I am here to help with whatever you have in mind.",
        "Hello again! What shall we look at first?",
    ]
    text = "Hello there! How can I help you today?\n" + "".join(f"<|assistant|> {t}\n" for t in turns)
    marks = [i for i in range(len(text)) if text.startswith("<|assistant|>", i)]
    third = marks[2] + len("<|assistant|>") - 1
    for seed in range(3):
        chunks = seeded(text, 70 + seed)
        res = first_fire(chunks)
        assert res.fired and res.reason == "stream.self_dialogue"
        assert res.loop_start == marks[0] and res.fired_at_chunk == chunk_of(chunks, third), (res, chunk_of(chunks, third))
    assert not first_fire(seeded(text[: marks[2]], 70)).fired


def test_a_token_run_counts_its_first_copy_whatever_its_case() -> None:
    """'Oh, oh, oh, ...': the capital of the first copy is no new token; the run is counted from
    it and fires on the chunk holding its 96th character, one copy sooner than from the second."""
    text = "Oh, " + "oh, " * 40
    for seed in (1, 2, 3):
        chunks = seeded(text, 90 + seed)
        res = first_fire(chunks)
        assert res.fired and res.reason == "stream.period" and res.loop_start == 0
        assert res.fired_at_chunk == chunk_of(chunks, CFG.digit_run_floor - 1), (seed, res)
