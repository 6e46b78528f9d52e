"""Tests of the stream guard (:mod:`plateau.stream`).

Every synthetic stream is generated here from a fixed seed; the chunk where the guard must fire
is computed from the stated rule (the span a unit needs, or a brute-force recomputation of the
n-gram novelty statistic over the whole text) and compared exactly.
"""

from __future__ import annotations

import base64
import itertools
import json
import math
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from plateau.stream import (
    CHANNELS,
    DEFAULT_MARKER,
    GuardResult,
    StreamGuard,
    StreamGuardConfig,
    truncate,
)
from plateau.stream.block import Splitter, Tail
from plateau.stream.novelty import NoveltyDetector
from plateau.stream.period import PeriodDetector
from plateau.stream.result import Fire
from tests.support.paths import SHARED
from tests.support.streams import chunk_of, fourth_copy_line

STREAM_CASES = SHARED / "benchmark" / "stream"
CFG = StreamGuardConfig()

# ----------------------------------------------------------------------------- generators

_NOUNS = (
    "parser cache request token buffer schema worker session module index queue config "
    "report handler client server record column table branch commit function variable "
    "thread socket payload window counter metric header footer object method interface "
    "router channel stream pipeline service account invoice ledger tenant region cluster"
).split()
_VERBS = (
    "reads writes checks builds parses loads stores sends returns updates validates "
    "merges splits rewrites logs drops retries resolves renders caches flushes tracks"
).split()
_ADJS = (
    "stale fresh empty full broken valid invalid slow fast remote local nested shared "
    "private public partial final initial optional missing extra duplicate"
).split()
_ADVS = "quickly carefully twice again early late silently eventually rarely often".split()
_JOIN = "and but so because while although since unless whereas then".split()


def prose(rng: random.Random, n_chars: int) -> str:
    """Seeded prose: random sentences over a built-in vocabulary (no long verbatim repeats)."""
    out: list[str] = []
    size = 0
    while size < n_chars:
        words = []
        for _ in range(rng.randint(1, 3)):
            words += ["the", rng.choice(_ADJS), rng.choice(_NOUNS), rng.choice(_VERBS)]
            words += [rng.choice(("the", "a", "every", "one")), rng.choice(_NOUNS)]
            if rng.random() < 0.5:
                words.append(rng.choice(_ADVS))
            words.append(rng.choice(_JOIN))
        words[-1] = str(rng.randint(2, 999)) if rng.random() < 0.3 else rng.choice(_NOUNS)
        sentence = " ".join(words).capitalize() + rng.choice((". ", ". ", "? ", ".\n\n"))
        out.append(sentence)
        size += len(sentence)
    return "".join(out)[:n_chars]


def code(rng: random.Random, n_chars: int) -> str:
    """Seeded Python-like code: functions with varying names, arguments and bodies."""
    out: list[str] = []
    size = 0
    while size < n_chars:
        name = f"{rng.choice(_VERBS)}_{rng.choice(_NOUNS)}_{rng.randint(0, 9999)}"
        args = ", ".join(rng.sample(_NOUNS, rng.randint(1, 3)))
        lines = [f"def {name}({args}):", f'    """{prose(rng, rng.randint(30, 70)).strip()}"""']
        for _ in range(rng.randint(2, 6)):
            a, b = rng.sample(_NOUNS, 2)
            lines.append(f"    {a}_{rng.randint(0, 99)} = {b}.{rng.choice(_VERBS)}({rng.randint(0, 500)})")
        lines.append(f"    return {rng.choice(_NOUNS)}_{rng.randint(0, 99)}\n\n")
        block = "\n".join(lines)
        out.append(block)
        size += len(block)
    return "".join(out)[:n_chars]


def chunked(text: str, rng: random.Random, low: int = 4, high: int = 40) -> list[str]:
    """Split ``text`` into chunks of random lengths in [low, high], like SSE deltas."""
    chunks = []
    i = 0
    while i < len(text):
        n = rng.randint(low, high)
        chunks.append(text[i : i + n])
        i += n
    return chunks


def fixed_chunks(text: str, size: int) -> list[str]:
    """Split ``text`` into chunks of ``size`` characters."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def block_chunk(chunks: list[str], offset: int, cfg: StreamGuardConfig = CFG) -> int:
    """The chunk that completes the analysis block holding the character at ``offset``.

    The guard analyses blocks of ``cfg.block`` characters aligned on the stream's start; a fire
    whose evidence is complete at ``offset`` is reported on the chunk that completes its block.
    """
    return chunk_of(chunks, (offset // cfg.block + 1) * cfg.block - 1)


def run(chunks: list[str], channel: str = "content", config: StreamGuardConfig | None = None) -> GuardResult:
    """Feed all chunks; return the first firing result, or the last result when it never fires."""
    guard = StreamGuard(channel, config)
    result = GuardResult(fired=False, chars=0)
    for c in chunks:
        result = guard.feed(c)
        if result.fired:
            return result
    return result


def run_start(text: str, begin: int, period: int) -> int:
    """Where the repetition at ``period`` whose first copy starts at ``begin`` really starts.

    The match run ``text[j] == text[j + period]`` may reach back over a common suffix of the
    text before the loop (e.g. ``"The the the"``: ``"he "`` matches ``"he "``).
    """
    while begin > 0 and text[begin - 1] == text[begin - 1 + period]:
        begin -= 1
    return begin


def expected_period_fire(text: str, begin: int, period: int, words: int, cfg: StreamGuardConfig = CFG, *, glued: bool = False) -> int:
    """Character offset at which a loop of a ``period``-char, ``words``-word unit must fire
    (``glued``: its copies abut with nothing between them)."""
    return run_start(text, begin, period) + cfg.span_required(period, words, glued=glued) - 1


# ----------------------------------------------------------------------------- period detector


def test_two_char_token_fires_at_the_glued_span_floor() -> None:
    """A 2-character token repeated without separator ('nynyny') fires once it covers 64 chars."""
    rng = random.Random(1)
    prefix = prose(rng, 300).rstrip() + " "
    text = prefix + "ny" * 400
    chunks = chunked(text, rng, 2, 7)
    res = run(chunks)
    at = expected_period_fire(text, len(prefix), 2, 1, glued=True)
    assert at == len(prefix) + CFG.glued_span_floor - 1 == len(prefix) + 63
    assert res.fired and res.reason == "stream.period"
    assert res.fired_at_chunk == chunk_of(chunks, at)  # the chunk that completes the span
    assert (res.unit, res.period, res.loop_start, res.cut_offset) == ("ny", 2, len(prefix), len(prefix) + 2)


def test_single_word_loop_on_reasoning_channel() -> None:
    """'The the the ...' on the reasoning channel fires after 96 chars, unit aligned on the word;
    the sentence's capitalised first 'The ' is the run's first copy (case alone differs)."""
    rng = random.Random(2)
    prefix = "Let me figure out why the retry counter resets. The "
    text = prefix + "the " * 300
    chunks = chunked(text, rng, 2, 7)
    res = run(chunks, "reasoning")
    start = len(prefix) - len("The ")
    assert res.fired and res.reason == "stream.period"
    assert (res.unit, res.period, res.loop_start) == ("The ", 4, start)
    assert res.fired_at_chunk == chunk_of(chunks, expected_period_fire(text, start, 4, 1))


def test_subword_token_loop_without_separator() -> None:
    """A 6-char sub-word token ('ambigu') repeated with no separator fires at 64 chars, on the
    chunk that brings the 64th (the block ending at character 64 sees the run and arms it)."""
    rng = random.Random(3)
    prefix = "The requirement in the issue is "
    text = prefix + "ambigu" * 200
    chunks = chunked(text, rng, 2, 18)
    res = run(chunks)
    assert res.fired and (res.unit, res.period, res.loop_start) == ("ambigu", 6, len(prefix))
    assert res.fired_at_chunk == chunk_of(chunks, expected_period_fire(text, len(prefix), 6, 1, glued=True))


def test_structural_line_repeated_inside_code_fence() -> None:
    """An identical box-side line (no letters) inside a fence fires after 12 copies, not before."""
    rng = random.Random(4)
    line = "  |                 |\n"
    prefix = "# Pipeline\n\n```\nRaw text\n  |\n  v\n  |-----------------|\n  | Segmentation    |\n"
    text = prefix + line * 80 + "```\n"
    chunks = chunked(text, rng, 3, 12)
    res = run(chunks)
    # The run at period 22 reaches back over the shared "  |" and spaces; compute where it starts.
    start = run_start(text, len(prefix), len(line))
    assert CFG.span_required(len(line), 0) == 12 * len(line)
    assert res.fired and res.reason == "stream.period" and res.period == len(line)
    assert res.fired_at_chunk == chunk_of(chunks, start + 12 * len(line) - 1)
    assert res.unit == line and res.loop_start == len(prefix)


def test_sentence_pair_chant_fires_at_four_copies() -> None:
    """A ~100-char two-sentence unit (17 words) repeated with no newline fires on its fourth copy,
    once that copy's first sentence is complete (by which a reader recognises it)."""
    rng = random.Random(5)
    unit = 'The build succeeded. I have added the logic that shows and hides the "empty list" placeholder. '
    text = unit * 12
    chunks = chunked(text, rng, 9, 31)
    res = run(chunks)
    assert CFG.copies_required(len(unit), 15) == 4
    assert res.fired and res.unit == unit and res.period == len(unit) and res.loop_start == 0
    first = unit.index(". ") + 1
    assert res.fired_at_chunk == chunk_of(chunks, 3 * len(unit) + first - 1) == chunk_of(chunks, fourth_copy_line(text, 0, len(unit)))


def test_multi_line_block_repeated() -> None:
    """An 8-line log block (~500 chars) repeated fires on the first line of its fourth copy, unit
    aligned on a line."""
    rng = random.Random(6)
    block = "".join(f"* (10:{i:02d}) {prose(rng, 55).strip()}\n" for i in range(8))
    prefix = "Date: Jan 5\n"
    text = prefix + block * 20
    chunks = chunked(text, rng, 7, 60)
    res = run(chunks)
    assert res.fired and res.reason == "stream.period"
    assert res.unit == block and res.loop_start == len(prefix) and res.cut_offset == len(prefix) + len(block)
    # The run also covers the newline that ends the prefix line (it equals the block's last char).
    assert res.fired_at_chunk == chunk_of(chunks, fourth_copy_line(text, len(prefix) - 1, len(block)))


def test_code_block_repeated_in_tool_args() -> None:
    """A whole function body written out again and again in a tool argument fires on the first
    line of its 4th copy."""
    rng = random.Random(7)
    body = code(rng, 350)
    body = body[: body.rindex("\n") + 1] + "\n\n"
    prefix = "import json\nimport logging\n\nlog = logging.getLogger(__name__)\n\n\n"
    text = prefix + body * 8
    chunks = chunked(text, rng, 2, 35)
    res = run(chunks, "tool_args")
    start = run_start(text, len(prefix), len(body))
    assert res.fired and res.period == len(body)
    assert res.fired_at_chunk == chunk_of(chunks, fourth_copy_line(text, start, len(body)))
    assert text[res.loop_start : res.cut_offset] == res.unit and res.unit.startswith("def ")


def test_two_alternating_paragraphs() -> None:
    """Two ~300-char paragraphs alternating (A B A B ...) fire on the fourth copy of the pair (its
    first line, for the exact period)."""
    rng = random.Random(8)
    a = prose(rng, 300).strip() + "\n\n"
    b = prose(rng, 320).strip() + "\n\n"
    prefix = prose(rng, 200).strip() + "\n\n"
    text = prefix + (a + b) * 6
    chunks = chunked(text, rng)
    res = run(chunks, "reasoning")
    p = len(a) + len(b)
    start = run_start(text, len(prefix), p)
    # By the fourth copy of the pair: the exact period on the chunk completing it, or the drifting
    # token copies (which tolerate a word) at the end of a block inside it.
    assert res.fired and res.reason in ("stream.period", "stream.drift")
    assert start + 3 * p <= res.chars - 1 and res.fired_at_chunk <= chunk_of(chunks, start + 4 * p - 1)
    if res.reason == "stream.period":
        assert res.period == p and res.fired_at_chunk == chunk_of(chunks, fourth_copy_line(text, start, p))
        assert res.unit in (a + b, b + a) or res.unit == (a + b)[1:] + (a + b)[:1]


def test_long_period_up_to_several_kb() -> None:
    """A 3 KB code unit (a file written out again) is found with its 3 KB period on the first line
    of its 4th copy."""
    rng = random.Random(9)
    unit = code(rng, 3000)
    unit = unit[: unit.rindex("\n") + 1]
    text = unit * 5
    chunks = chunked(text, rng)
    res = run(chunks, "tool_args")
    assert res.fired and res.reason == "stream.period"
    assert res.period == len(unit) and res.loop_start == 0 and res.unit == unit
    assert res.fired_at_chunk == chunk_of(chunks, fourth_copy_line(text, 0, len(unit)))


def test_long_prose_paragraph_repeated_fires_by_its_fourth_copy() -> None:
    """A 3 KB prose paragraph repeated fires by its fourth copy (exact period, token copies or low novelty)."""
    rng = random.Random(19)
    unit = prose(rng, 3000).strip() + "\n"
    text = unit * 4
    chunks = chunked(text, rng)
    res = run(chunks, "reasoning")
    assert res.fired and res.reason in ("stream.period", "stream.drift", "stream.low_novelty")
    assert 3 * len(unit) < res.chars <= 4 * len(unit)
    expect = _fire_offset(text, "reasoning")
    assert expect is not None and res.fired_at_chunk == chunk_of(chunks, expect)


def test_single_character_run_judged_by_length() -> None:
    """A run of one token ('!') fires at 96 characters; a 120-char divider (layout) stays quiet."""
    rng = random.Random(10)
    prefix = "Result:\n"
    divider = "-" * 120 + "\n"
    quiet = run(chunked(prefix + divider + "done.\n", rng))
    assert not quiet.fired
    text = prefix + "!" * 1000
    chunks = chunked(text, rng, 1, 9)
    res = run(chunks)
    assert res.fired and (res.reason, res.unit, res.period) == ("stream.run", "!", 1)
    assert res.fired_at_chunk == chunk_of(chunks, len(prefix) + CFG.digit_run_floor - 1)


# ----------------------------------------------------------------------------- line dominance


def test_line_dominance_on_lines_in_random_order() -> None:
    """Four long lines repeated in random (non-periodic) order fire at the 32nd counted line."""
    rng = random.Random(11)
    pool = [
        "Checking whether the cache entry is stale before retrying.",
        "The request failed again with a timeout from the upstream.",
        "Retrying the request with the same parameters as before.",
        "Logging the failure and waiting a little before the retry.",
    ]
    prefix = prose(rng, 400).rstrip() + "\n"
    lines = [rng.choice(pool) + "\n" for _ in range(80)]
    text = prefix + "".join(lines)
    chunks = chunked(text, rng)
    res = run(chunks)
    # Non-trivial lines of the prefix also count in the window; find the first window of 32
    # counted lines holding at most 8 distinct lines, by brute force.
    counted: list[tuple[str, int]] = []
    offset = 0
    expect = None
    for line in text.splitlines(keepends=True):
        end = offset + len(line) - 1
        words = [w for w in re.findall(r"\w+", line) if sum(ch.isalpha() for ch in w) >= 2]
        if line.endswith("\n") and len(words) >= CFG.line_min_words:
            counted.append((line.strip(), end))
            window = counted[-CFG.line_window :]
            if len(window) == CFG.line_window and len({k for k, _ in window}) <= CFG.line_max_distinct:
                expect = end
                break
        offset += len(line)
    assert expect is not None
    assert res.fired and res.reason == "stream.line_dominance"
    assert res.fired_at_chunk == block_chunk(chunks, expect)
    assert res.unit in pool
    assert text[res.loop_start :].startswith(res.unit) and text[res.cut_offset :].startswith(res.unit)


# ----------------------------------------------------------------------------- novelty


def _fire_offset(text: str, channel: str = "content", cfg: StreamGuardConfig = CFG) -> int | None:
    """Offset of the last character of the block on which the guard fires, fed one block at a time."""
    guard = StreamGuard(channel, cfg)
    for i in range(0, len(text), cfg.block):
        if guard.feed(text[i : i + cfg.block]).fired:
            return min(len(text), i + cfg.block) - 1
    return None


def _templated_loop(rng: random.Random, cycles: int) -> str:
    """A reasoning loop whose slots vary (causes, checks, a counter) while its phrases recycle."""
    causes = ["the extra delimiter", "the quoted comma", "the trailing newline", "the file encoding", "the header row"]
    checks = ["the header", "the quoting rules", "the row count", "the append code", "the delimiter"]
    seen = ["27 fields", "a stray quote", "no quotes at all", "51 fields"]
    out = ["The user wants the CSV row appended only if the header has 27 columns. "]
    for i in range(cycles):
        out.append(
            f"Maybe {rng.choice(causes)} is the cause. But the last row showed {rng.choice(seen)}. "
            f"So the header has 27 names and row {i + 3} has 51 fields. "
            f"Let me check {rng.choice(checks)} again. {rng.choice(('Hmm, maybe not. ', 'Wait. ', ''))}"
        )
    return "".join(out)


def test_templated_loop_fires_on_drift_or_low_novelty() -> None:
    """A templated reasoning loop with varying slots and a counter fires (drifting copies)."""
    rng = random.Random(12)
    text = _templated_loop(rng, 60)
    chunks = chunked(text, rng, 22, 61)
    res = run(chunks, "reasoning")
    expect = _fire_offset(text, "reasoning")
    assert expect is not None and expect == 2623  # seeded: inside the 12th cycle of ~230 characters
    assert res.fired and res.reason in ("stream.drift", "stream.low_novelty")
    assert res.fired_at_chunk == chunk_of(chunks, expect)
    assert res.loop_start is not None and res.cut_offset is not None
    assert 0 <= res.loop_start < res.cut_offset <= expect


def test_near_periodic_block_with_counter_and_swapped_words() -> None:
    """A block loop whose counter and one word vary each time (no exact period) still fires."""
    rng = random.Random(13)
    prefix = prose(rng, 500)
    parts = [prefix]
    for i in range(40):
        verb = rng.choice(("reran", "restarted", "repeated"))
        parts.append(
            f"Attempt {i + 1}: I {verb} the build and the same error appeared in the linker output. "
            "The missing symbol is still reported for the storage module, so the fix did not apply. "
        )
    text = "".join(parts)
    chunks = chunked(text, rng)
    res = run(chunks)
    expect = _fire_offset(text)
    assert expect is not None and expect == 1215  # seeded: the 5th copy of the ~175-character block (after a 500-char prefix)
    assert res.fired and res.reason == "stream.drift"
    assert res.fired_at_chunk == chunk_of(chunks, expect)
    assert res.unit is not None and "Attempt " in res.unit and res.unit[0].isupper()  # one copy, from a sentence start


# ----------------------------------------------------------------------------- legitimate text


def _table(rng: random.Random, rows: int) -> str:
    regions = ["eu-west-1", "us-east-1", "us-west-2", "ap-south-1"]
    out = ["| Service | Region | Status | Latency (ms) |\n", "|---|---|---|---|\n"]
    for _ in range(rows):
        svc = f"{rng.choice(_NOUNS)}-{rng.choice(_NOUNS)}"
        out.append(f"| {svc} | {rng.choice(regions)} | {rng.choice(['healthy'] * 5 + ['degraded'])} | {rng.randint(5, 300)} |\n")
    width = 58
    box = ["\u256d" + "\u2500" * width + "\u256e\n"]
    box += ["\u2502" + " " * width + "\u2502\n"] * 2
    box += ["\u2502 " + "services checked: 40".ljust(width - 1) + "\u2502\n"]
    box += ["\u2502" + " " * width + "\u2502\n"] * 3
    box += ["\u2570" + "\u2500" * width + "\u256f\n"]
    return "Status of each service:\n\n" + "".join(out) + "\n" + "-" * 120 + "\n\n" + "".join(box)


def _asserts(rng: random.Random) -> str:
    lines = ["```python\nfrom mathlib import clamp\n\n\ndef test_clamp():\n"]
    for v in list(range(-5, 25)):
        lines.append(f"    assert clamp({v}, 0, 10) == {min(max(v, 0), 10)}\n")
    lines.append("```\n\n```js\nfunction gap() {\n" + "  console.log();\n" * 3 + "}\n```\n")
    return "".join(lines)


def _shared_prefix_list(rng: random.Random) -> str:
    items = sorted({f"{rng.choice(_VERBS)}-{rng.choice(_NOUNS)}-{rng.randint(1, 99)}" for _ in range(60)})
    return "Resource names:\n\n" + "".join(f"- projects/example-project-12345/locations/us-central1/services/{s}\n" for s in items)


def _json_array(rng: random.Random) -> str:
    rows = [
        {"id": i, "source": rng.choice(_NOUNS) + " " + rng.choice(_NOUNS), "translation": rng.choice(_VERBS) + " " + rng.choice(_ADJS)}
        for i in range(1, 60)
    ]
    return "[\n" + ",\n".join("  " + json.dumps(r, ensure_ascii=False) for r in rows) + "\n]\n"


def _base64_blob(rng: random.Random) -> str:
    data = bytes(rng.randrange(256) for _ in range(3001))
    b64 = base64.b64encode(data).decode()
    wrapped = "\n".join(b64[i : i + 76] for i in range(0, len(b64), 76))
    return "Here is the attachment:\n\n```\n" + wrapped + "\n```\n"


def _poem() -> str:
    stanzas = [
        "The harbour folds its nets away,\nthe gulls go quiet on the pier,\na ferry hums across the bay\nand carries nobody from here.\n",
        "The baker shutters up at nine,\nthe church bell loses count of ten,\n"
        "the tide writes one unsteady line\nand wipes it out and writes again.\n",
        "A window lights above the square,\na kettle whistles, someone sings,\n"
        "the salt wind combs the evening air\nand tangles up the smaller things.\n",
        "So if you wake before the day\nand wonder who kept watch all night,\n"
        "look down the hill along the quay\nand count the windows holding light.\n",
    ]
    refrain = "And still the lanterns burn,\nand still the lanterns burn.\n\n"
    # The last refrain sung three times in a row (after the last stanza's): three copies, the most
    # the copies rule lets pass. A fourth in a row is the rule's fourth copy, and fires.
    return "".join(s + refrain for s in stanzas) + refrain * 2


def _padding_runs() -> str:
    return (
        "Header\n"
        + "=" * 120
        + "\n\n"
        + "| a |"
        + " " * 200
        + "| b |\n"
        + "value = 0x"
        + "0" * 64
        + "\n"
        + "Contents"
        + " ." * 40
        + " 12\n"
        + "-=" * 60
        + "\n"
        + "#" * 79
        + "\n"
        + "haha" * 5
        + ", very very good.\n"
    )


def _before_after(rng: random.Random) -> str:
    func = code(rng, 900)
    func = func[: func.rindex("\n") + 1]
    fixed = func.replace("return", "return  # fixed:", 1)
    return "The original:\n\n```python\n" + func + "```\n\nAfter the fix:\n\n```python\n" + fixed + "```\n"


def _repeated_rows() -> str:
    """Legitimately repeated rows: a zero matrix, a tall empty box, a quoted wait loop in a log.

    An 8-word log line needs 6 copies (48 words) to fire, so the quote holds 4.
    """
    matrix = "expected = np.array([\n" + "    [0, 0, 0, 0, 0, 0, 0, 0],\n" * 10 + "    [0, 0, 0, 0, 0, 0, 0, 1],\n])\n"
    box = "+" + "-" * 40 + "+\n" + ("|" + " " * 40 + "|\n") * 9 + "+" + "-" * 40 + "+\n"
    log = "The server log shows:\n\n```\n" + "INFO waiting for the database to accept connections\n" * 4 + "INFO ready\n```\n"
    return matrix + "\n" + box + "\n" + log


LEGIT = {
    "table": _table(random.Random(20), 40),
    "asserts": _asserts(random.Random(21)),
    "shared-prefix-list": _shared_prefix_list(random.Random(22)),
    "json-array": _json_array(random.Random(23)),
    "base64": _base64_blob(random.Random(24)),
    "poem-refrain": _poem(),
    "padding-runs": _padding_runs(),
    "repeated-rows": _repeated_rows(),
    "before-after-code": _before_after(random.Random(25)),
    "prose": prose(random.Random(26), 30_000),
    "code": code(random.Random(27), 30_000),
}


@pytest.mark.parametrize("channel", CHANNELS)
@pytest.mark.parametrize("kind", sorted(LEGIT))
def test_legitimate_text_never_fires(kind: str, channel: str) -> None:
    """Tables, dividers, asserts, shared-prefix lists, JSON, base64, a refrain, padding never fire."""
    text = LEGIT[kind]
    for seed in range(3):
        res = run(chunked(text, random.Random(seed), 1 if seed == 0 else 4, 40), channel)
        assert not res.fired, (kind, res)
        assert res.chars == len(text)


def test_legitimate_text_followed_by_a_loop_fires_in_the_loop() -> None:
    """The legitimate kinds concatenated stay quiet, then a loop appended after them fires in it."""
    text = "\n".join(LEGIT[k] for k in sorted(LEGIT))
    loop = "I will now run the tests again to confirm. " * 30
    res = run(chunked(text + loop, random.Random(5)))
    assert res.fired and res.loop_start is not None and res.loop_start >= len(text) - 1


# ----------------------------------------------------------------------------- properties


@st.composite
def _looping_or_not(draw: st.DrawFn) -> str:
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    head = prose(rng, draw(st.integers(0, 600)))
    kind = draw(st.sampled_from(["none", "token", "sentence", "block", "template", "stutter", "drift", "dialogue"]))
    if kind == "stutter":
        words = prose(rng, draw(st.integers(50, 400))).split()
        body = " ".join(w * draw(st.integers(2, 4)) if rng.random() < 0.5 else f"{w} {w}" for w in words) + " "
    elif kind == "drift":
        base = prose(rng, draw(st.integers(60, 200))).strip()
        body = "".join(f"Step {i}: {base}\n" for i in range(draw(st.integers(1, 12))))
    elif kind == "dialogue":
        turns = draw(st.integers(1, 8))
        turn = "<|im_start|>user\nare you still there?<|im_end|>\n<|im_start|>assistant\nyes {}<|im_end|>\n"
        body = "".join(turn.format(i % 2) for i in range(turns))
    elif kind == "token":
        body = draw(st.sampled_from(["ny", "the ", "ambigu", "-", "ok "])) * draw(st.integers(10, 200))
    elif kind == "sentence":
        body = (prose(rng, draw(st.integers(20, 150))) + " ") * draw(st.integers(1, 6))
    elif kind == "block":
        body = code(rng, draw(st.integers(100, 600))) * draw(st.integers(1, 5))
    elif kind == "template":
        body = _templated_loop(rng, draw(st.integers(1, 50)))
    else:
        body = prose(rng, draw(st.integers(0, 1500)))
    return head + body + prose(rng, draw(st.integers(0, 200)))


@st.composite
def _cut_points(draw: st.DrawFn, n: int) -> list[int]:
    """Chunk end offsets for a text of ``n`` characters (chunks of 1-60 characters)."""
    sizes = draw(st.lists(st.integers(1, 60), min_size=1, max_size=20))
    cuts = []
    i = 0
    for size in itertools.cycle(sizes):
        if i >= n:
            break
        i = min(i + size, n)
        cuts.append(i)
    return cuts


def _feed_at(text: str, cuts: list[int]) -> tuple[GuardResult, int | None]:
    """Feed ``text`` cut at ``cuts``; the first firing result and its chunk's end offset."""
    guard = StreamGuard("content")
    start = 0
    for end in cuts:
        res = guard.feed(text[start:end])
        if res.fired:
            return res, end
        start = end
    return guard.result, None


def test_counted_copies_with_a_number_that_stays_put_fire_alike_in_any_chunking() -> None:
    """Copies 'Step N: ... 255.' of about 100 characters: fed a character at a time, the fourth
    fires when its text after the counter is recognised; fed 44 characters at a time, the piece
    that completes it also holds the next number (``255``), which used to be registered before
    the text after the counter was judged, and the fire waited for the next block. The text
    after each counter is now judged as it arrives, up to the next counter. Found by a
    400-example run of the chunking property (CI runs 60); the round's starting code had it."""
    copy = "Step {}: The nested parser rewrites one method late 255.\n\nThe public cache sends every session again t\n"
    text = "The valid ledger tracks the cluster early but the broken object stores every service rarely object. " + (
        "The fast branch cache" + "".join(copy.format(i) for i in range(4))
    )
    one, one_end = _feed_at(text, list(range(1, len(text) + 1)))
    many, many_end = _feed_at(text, [*range(44, len(text), 44), len(text)])
    assert one.fired and many.fired and one_end is not None and many_end is not None
    assert abs(one_end - many_end) <= 44


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_chunking_does_not_change_the_verdict(data: st.DataObject) -> None:
    """The same text fed in two different chunkings fires (or not) alike, within one chunk."""
    text = data.draw(_looping_or_not())
    cuts_a = data.draw(_cut_points(len(text)))
    cuts_b = data.draw(_cut_points(len(text)))
    a_res, a_end = _feed_at(text, cuts_a)
    b_res, b_end = _feed_at(text, cuts_b)
    assert a_res.fired == b_res.fired
    if a_end is not None and b_end is not None:
        assert abs(a_end - b_end) <= 60  # one chunk at most
        # Each detector fires at a character, so everything but the chunk index agrees.
        assert (a_res.reason, a_res.unit, a_res.period, a_res.loop_start, a_res.cut_offset) == (
            b_res.reason,
            b_res.unit,
            b_res.period,
            b_res.loop_start,
            b_res.cut_offset,
        )


def _de_bruijn(alphabet: str, n: int) -> str:
    """De Bruijn sequence B(len(alphabet), n): every length-n string occurs once (cyclically)."""
    k = len(alphabet)
    a = [0] * k * n
    seq: list[int] = []

    def db(t: int, p: int) -> None:
        if t > n:
            if n % p == 0:
                seq.extend(a[1 : p + 1])
        else:
            a[t] = a[t - p]
            db(t + 1, p)
            for j in range(a[t - p] + 1, k):
                a[t] = j
                db(t + 1, t)

    db(1, 1)
    return "".join(alphabet[i] for i in seq)


_POOL = "abcdefghijklmnopqrstuvwxyz0123456789 \n-|.,=_#*"


@st.composite
def _no_long_repeat(draw: st.DrawFn) -> str:
    k = draw(st.integers(6, 14))
    n = draw(st.integers(3, 8).filter(lambda n: k**n <= 120_000))
    alphabet = "".join(draw(st.permutations(list(_POOL)))[:k])
    seq = _de_bruijn(alphabet, n)
    start = draw(st.integers(0, max(0, len(seq) - 1)))
    length = draw(st.integers(1, 6000))
    return (seq + seq[: n - 1])[start : start + length]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_no_long_repeat(), seed=st.integers(0, 1000))
def test_text_without_long_repeats_never_fires(text: str, seed: int) -> None:
    """A de Bruijn slice (no substring longer than 7 chars repeats) never fires, however chunked."""
    res = run(chunked(text, random.Random(seed), 1, 40))
    assert not res.fired


def test_de_bruijn_helper_has_no_repeat() -> None:
    """The de Bruijn helper yields every n-gram once, so no substring of length n repeats."""
    seq = _de_bruijn("abcd ", 4)
    grams = Counter(seq[i : i + 4] for i in range(len(seq) - 3))
    assert len(seq) == 5**4 and max(grams.values()) == 1


# ----------------------------------------------------------------------------- truncate, API


def test_truncate_keeps_exactly_one_copy_and_a_marker() -> None:
    """truncate() returns the prefix, one copy of the unit and the marker, nothing of the loop."""
    prefix = "All done. Summary: "
    unit = "The build succeeded and every test passed without a single warning today. "
    text = prefix + unit * 10
    res = run(fixed_chunks(text, 13))
    assert res.fired and res.unit == unit
    out = truncate(text, res)
    assert out == prefix + unit + DEFAULT_MARKER
    assert out.count(unit) == 1 and out.endswith(DEFAULT_MARKER)
    custom = truncate(text, res, marker="<cut>")
    assert custom == prefix + unit + "<cut>"
    assert truncate(text, GuardResult(fired=False, chars=len(text))) == text
    with pytest.raises(ValueError, match="cut_offset"):
        truncate(text[:5], res)
    with pytest.raises(TypeError):
        truncate(b"bytes", res)  # type: ignore[arg-type]


def test_truncate_on_a_line_loop_keeps_one_line() -> None:
    """On a repeated line the cut keeps the line once, aligned at the start of a line."""
    text = "Output:\n" + "error: disk quota exceeded on volume data\n" * 40
    res = run(fixed_chunks(text, 9))
    assert res.fired
    assert truncate(text, res, marker="") == "Output:\nerror: disk quota exceeded on volume data\n"


def test_result_is_sticky_and_cheap_after_fire() -> None:
    """Once fired the verdict stays, chars keep counting, and the analysis buffers are dropped."""
    guard = StreamGuard()
    first = None
    for _ in range(100):
        res = guard.feed("ny")
        first = first or (res if res.fired else None)
    assert first is not None and guard.fired
    for _ in range(1000):
        res = guard.feed("nynynynyny")
    assert res.fired and res.chars == 200 + 10_000
    assert (res.reason, res.unit, res.loop_start, res.cut_offset, res.fired_at_chunk) == (
        first.reason,
        first.unit,
        first.loop_start,
        first.cut_offset,
        first.fired_at_chunk,
    )
    assert guard.result == res
    sizes = guard.buffer_sizes()
    assert sizes["tail"] <= 1 and sizes["tokens"] == 0 and sizes["lines"] == 0


def test_reset_forgets_the_stream() -> None:
    """reset() makes the guard quiet again and it fires again on the same input, identically."""
    guard = StreamGuard()
    chunks = fixed_chunks("x = 1\n" + "ok " * 100, 5)
    first = [guard.feed(c) for c in chunks]
    guard.reset()
    assert not guard.fired and guard.result.chars == 0
    second = [guard.feed(c) for c in chunks]
    assert first == second and first[-1].fired


def test_empty_chunks_are_accepted() -> None:
    """Empty chunks count as chunks (for fired_at_chunk) but add no characters."""
    guard = StreamGuard()
    assert guard.feed("") == GuardResult(fired=False, chars=0)
    res = [guard.feed(c) for c in ["", "ab"] * 200]
    assert res[-1].chars == 400 and res[-1].fired
    # Chunk 0 and every odd chunk are empty; the 48th "ab" completes 96 characters: chunk 96.
    assert res[-1].fired_at_chunk == 96


def test_unknown_channel_and_bad_chunks() -> None:
    """An unknown channel is a ValueError; a non-str chunk (bytes, None) is a TypeError."""
    with pytest.raises(ValueError, match="channel"):
        StreamGuard("tools")
    guard = StreamGuard("tool_args")
    with pytest.raises(TypeError, match="chunk"):
        guard.feed(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="chunk"):
        guard.feed(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="config"):
        StreamGuard("content", {"min_chars": 3})  # type: ignore[arg-type]


_BAD = [
    ("min_chars", 0),
    ("min_chars", True),
    ("max_period", 0),
    ("max_period", 1.5),
    ("kgram", 1),
    ("span_floor", 4),
    ("structural_span_floor", 90),  # below span_floor
    ("copy_unit", 1),
    ("unit_copies", 13),  # above max_copies
    ("min_copies", 1),
    ("max_copies", 2),  # below min_copies
    ("copies_word_budget", 0),
    ("copies_char_budget", 0),
    ("line_window", 2),
    ("line_min_words", 0),
    ("line_max_distinct", 32),  # not below line_window
    ("novelty_ngram", 0),
    ("novelty_lookback", 1),
    ("novelty_window", 2000),  # above novelty_lookback
    ("novelty_min_repeats", 0),
    ("novelty_max_fresh", 1.0),
    ("novelty_max_fresh", -0.1),
    ("novelty_max_fresh", "0.1"),
    ("novelty_min_prose", 1.5),
    ("novelty_min_prose", None),
]


@pytest.mark.parametrize(("name", "value"), _BAD)
def test_config_validation_names_the_parameter(name: str, value: object) -> None:
    """A bad hyper-parameter raises ValueError whose message starts with its name."""
    with pytest.raises(ValueError, match=f"^{name} "):
        StreamGuardConfig(**{name: value})  # type: ignore[arg-type]


def test_config_kgram_above_max_period() -> None:
    """kgram larger than max_period is rejected naming kgram."""
    with pytest.raises(ValueError, match="^kgram "):
        StreamGuardConfig(max_period=4, kgram=8)


def test_copies_and_spans_follow_the_documented_rule() -> None:
    """A unit of 16 characters or more with a word fires by its 4th copy, whatever its length; a
    shorter one, or a single-token run, at 96 characters; layout without a word needs 12 copies
    and 256; one whole line inside a code fence (quoted output) needs 12 copies."""
    cases = [(2, 1, 48), (22, 0, 12), (15, 3, 7), (16, 1, 4), (17, 2, 4), (45, 5, 4), (59, 10, 4), (80, 13, 4), (101, 16, 4), (110, 12, 4)]
    assert [CFG.copies_required(p, w) for p, w, _ in cases] == [c for _, _, c in cases]
    assert CFG.span_required(1, 0) == 256 and CFG.span_required(1, 0, token=True) == 96 and CFG.span_required(22, 0) == 264
    assert CFG.span_required(143, 0, token=True) == 12 * 143  # a long wordless unit (a row of numbers) is not a token
    assert CFG.span_required(2, 1) == 96 and CFG.span_required(15, 3) == 96 and CFG.span_required(16, 1) == 4 * 16
    assert CFG.span_required(101, 16) == 4 * 101 and CFG.span_required(59, 10) == 4 * 59
    assert CFG.span_required(52, 8, quoted_line=True) == 12 * 52 and CFG.span_required(10, 1, quoted_line=True) == 12 * 10
    assert 32 <= CFG.span_floor <= 96 and 32 <= CFG.digit_run_floor <= 96
    # Indentation is not content: an 18-character line holding 'None,' is a 6-character unit.
    assert CFG.span_required(18, 1, content=6) == 16 * 18 and CFG.span_required(20, 3, content=18) == 4 * 20


# ----------------------------------------------------------------------------- bounded memory


def _limits(cfg: StreamGuardConfig) -> dict[str, int]:
    keep = 2 * cfg.max_period + cfg.kgram + 4096
    return {
        "tail": keep + 4096 + 2 * 512 + cfg.block,
        "pending": cfg.block,
        "folded": 2 * 256 + 4 * cfg.block + 48,
        "tokens": 3 * (cfg.drift_copies + 1) * max(8, cfg.max_period // 4) + 1024,
        "lines": cfg.line_window,
        "line_chars": cfg.line_window * 512 + 512,
        "ngrams": cfg.novelty_lookback + cfg.block,
        "ngram_kinds": cfg.novelty_lookback + cfg.block,
        "turns": 64,
        "sentences": 0,
        "counted": 48 + 513 + 32 * 512,  # the pending token, the text since the last counter, the gaps kept
    }


def _assert_bounded(guard: StreamGuard, text: str, step: int = 37) -> None:
    limits = _limits(guard.config)
    for i in range(0, len(text), step):
        guard.feed(text[i : i + step])
        if i % (step * 500) == 0:
            for name, size in guard.buffer_sizes().items():
                assert size <= limits[name], (name, size, i)


def test_bounded_memory_on_one_megabyte_of_degenerate_text() -> None:
    """1 MB of degenerate text keeps every buffer under a fixed size, fired or not."""
    mb = 1_000_000
    # The default guard fires early; afterwards it only counts characters.
    guard = StreamGuard()
    _assert_bounded(guard, ("ny" * (mb // 2)))
    assert guard.fired and guard.result.chars == mb
    # A guard that cannot fire keeps analysing the whole megabyte: a divider-like line loop
    # (candidate runs, tail trimming) and one endless word (pending-word cap).
    never = StreamGuardConfig(span_floor=10**9, glued_span_floor=10**9, structural_span_floor=10**9)
    for text in ("--|--\n" * (mb // 6), "ny" * (mb // 2)):
        guard = StreamGuard("content", never)
        _assert_bounded(guard, text)
        assert not guard.fired and guard.result.chars == len(text)


def test_bounded_memory_on_one_megabyte_of_prose_and_code() -> None:
    """1 MB of ordinary prose and code is analysed in full with bounded buffers and no fire."""
    rng = random.Random(30)
    parts = []
    size = 0
    while size < 1_000_000:
        part = prose(rng, 3000) if rng.random() < 0.5 else code(rng, 3000)
        parts.append(part + "\n")
        size += len(part) + 1
    text = "".join(parts)
    guard = StreamGuard("tool_args")
    _assert_bounded(guard, text, step=29)
    assert not guard.fired
    assert guard.buffer_sizes()["ngrams"] >= CFG.novelty_lookback // 2


# ----------------------------------------------------------------------------- labelled cases


def _stream_cases() -> list[Path]:
    if not STREAM_CASES.is_dir():
        return []
    return sorted(STREAM_CASES.glob("*.json"))


@pytest.mark.parametrize("path", _stream_cases() or [None], ids=lambda p: p.stem if p else "absent")
@pytest.mark.shared("benchmark", "stream")
def test_labelled_stream_cases(path: Path | None) -> None:
    """Every labelled stream case fires inside its chunk window, or never for a no-fire case."""
    if path is None:
        pytest.skip(f"{STREAM_CASES} is absent (the team's benchmark lives in ../shared, not in the repo)")
    case = json.loads(path.read_text(encoding="utf-8"))
    assert case["level"] == "stream"
    res = run(case["input"], case.get("stream_channel") or "content")
    expected = case["expected"]
    if expected["verdict"] == "no-fire":
        assert not res.fired, res
    else:
        first, last = expected["fire_between_chunks"]
        assert res.fired, "missed"
        assert first <= res.fired_at_chunk <= last, res
        text = "".join(case["input"])
        assert res.cut_offset is not None and res.loop_start is not None and res.unit is not None
        assert text[: res.cut_offset].endswith(res.unit) or res.reason != "stream.period"


def test_run_longer_than_the_tail_reports_its_true_start() -> None:
    """A repetition longer than the tail buffer still reports where it began and a unit copy."""
    cfg = StreamGuardConfig(structural_span_floor=30_000)
    text = "Divider:\n" + "-" * 40_000
    res = run(fixed_chunks(text, 37), config=cfg)
    assert res.fired and (res.unit, res.period, res.loop_start) == ("-", 1, len("Divider:\n"))
    assert res.fired_at_chunk == chunk_of(fixed_chunks(text, 37), len("Divider:\n") + 30_000 - 1)


def test_one_huge_chunk_fires_like_small_chunks() -> None:
    """A whole 200 KB stream delivered as one chunk gets the same verdict as small chunks."""
    rng = random.Random(31)
    text = prose(rng, 150_000) + "Checking the value again. " * 2000
    whole = StreamGuard().feed(text)
    small = run(chunked(text, random.Random(1)))
    assert whole.fired and whole.fired_at_chunk == 0 and whole.chars == len(text)
    fields = ("reason", "unit", "period", "loop_start", "cut_offset")
    assert [getattr(whole, f) for f in fields] == [getattr(small, f) for f in fields]


# ----------------------------------------------------------------------------- reference check

_PERIOD_ONLY = StreamGuardConfig(
    max_period=96,
    line_min_words=100,
    novelty_lookback=100_000,
    novelty_window=100_000,
    drift_copies=64,
    drift_min_words=1000,
    stutter_blocks=64,
    digit_run_floor=256,
)


def _brute_period_fire(text: str, cfg: StreamGuardConfig) -> int | None:
    """First offset where some primitive period p <= max_period has a match run with
    ``run + p >= span_required(p, words)``: every period checked at every character (O(n P))."""

    def _primitive_period(unit: str) -> int:
        # written out independently of plateau.stream.text: the smallest divisor that tiles it
        return next(d for d in range(1, len(unit) + 1) if len(unit) % d == 0 and unit[:d] * (len(unit) // d) == unit)

    def _count_words(unit: str) -> int:
        # tokens with at least two letters, counted on the rotation that starts at the first
        # non-word character (a word cut by the unit's phase counts once)
        cut = next((i for i, ch in enumerate(unit) if not (ch.isalnum() or ch == "_")), None)
        rotated = unit if cut is None else unit[cut:] + unit[:cut]
        tokens = "".join(ch if (ch.isalnum() or ch == "_") else " " for ch in rotated).split()
        return sum(1 for t in tokens if sum(c.isalpha() for c in t) >= 2)

    def _brute_span(unit: str, cfg: StreamGuardConfig) -> int:
        # the documented rule, written out: a single-token run (no whitespace, not only layout),
        # layout without a word, a short unit with a word, a unit of copy_unit characters or more
        words = _count_words(unit)
        if words == 0:
            layout = set("-=_*#~.|+/\\:<>^`'\"")
            if len(unit) < cfg.copy_unit and not any(ch.isspace() for ch in unit) and not all(ch in layout for ch in unit):
                return max(cfg.digit_run_floor, cfg.min_copies * len(unit))
            return max(cfg.structural_span_floor, cfg.max_copies * len(unit))
        # a run of whitespace counts at most four characters, the unit read as a cycle
        first = next((i for i, ch in enumerate(unit) if not ch.isspace()), 0)
        cyc = unit[first:] + unit[:first]
        content, run = 0, 0
        for ch in cyc:
            run = run + 1 if ch.isspace() else 0
            content += run <= 4
        if content < cfg.copy_unit:
            # copies that abut (no whitespace, no list or path separator; a run of two different
            # letters; not hexadecimal digits alone) need the glued floor
            seps = set(",;|/\\\uff0c\uff1b\u3001\u3002")
            letter_runs = "".join(ch if ch.isalpha() else " " for ch in unit + unit).split()  # as a cycle
            glued = (
                not any(ch.isspace() or ch in seps for ch in unit)
                and not set(unit) <= set("0123456789abcdefABCDEF")
                and any(len(set(r)) >= 2 for r in letter_runs)
            )
            floor = cfg.glued_span_floor if glued else cfg.span_floor
            return max(math.ceil(floor * len(unit) / content), cfg.min_copies * len(unit))
        need = min(math.ceil(cfg.copies_word_budget / words), math.ceil(cfg.copies_char_budget / content))
        return len(unit) * min(cfg.unit_copies, max(cfg.min_copies, need))

    runs = [0] * (cfg.max_period + 1)
    for x in range(len(text)):
        for p in range(1, min(cfg.max_period, x) + 1):
            runs[p] = runs[p] + 1 if text[x] == text[x - p] else 0
            if runs[p] and runs[p] >= 2 * p and x + 1 >= cfg.min_chars:
                unit = text[x - p + 1 : x + 1]
                if _primitive_period(unit) != p:
                    continue
                need = _brute_span(unit, cfg)
                start = x - runs[p] - p + 1  # the loop's first copy
                first = text[start : start + p]
                if need == cfg.unit_copies * p:
                    # its last copy is recognised by its first line (the first line break at least
                    # copy_unit characters into the copy, with more than blank lines after it) or,
                    # for a copy of one line (and blank lines), by its first sentence (the first
                    # ".", "!" or "?" before a space at least copy_unit characters in, with more of
                    # its line after it)
                    brk = first.find("\n", cfg.copy_unit - 1, p - 1)
                    if brk >= 0 and not first[brk:].strip():
                        brk = -1
                    body = first[: first.find("\n", cfg.copy_unit - 1)] if "\n" in first[cfg.copy_unit - 1 :] else first
                    ends = [
                        j
                        for j in range(cfg.copy_unit - 1, min(p - 1, len(body)))
                        if first[j] in ".!?" and first[j + 1] in " \t" and body[j + 1 :].strip()
                    ]
                    # with neither, the copy is complete at its last character that is not whitespace
                    bare = len(first) - len(first.rstrip()) if first.strip() else 0
                    line = (cfg.unit_copies - 1) * p + (brk if brk >= 0 else ends[0]) + 1 if brk >= 0 or ends else need - bare
                    if "\n" in first and (start == 0 or text[start - 1] == "\n") and first[0] != "\n":
                        # a copy is complete at the end of its body, before the marker that opens
                        # the next copy's line (the text after the unit's last line break)
                        nl = first.rfind("\n")
                        if first[nl + 1 :].strip() and first[:nl].rstrip():
                            need -= p - len(first[:nl].rstrip())
                    need = min(need, line)
                ext = 0  # a short unit's run goes on back while the case-folded text repeats ("Oh, oh")
                while p < cfg.copy_unit and start - ext > 0 and text[start - ext - 1].lower() == text[start - ext - 1 + p].lower():
                    ext += 1
                if runs[p] + ext + p >= need:
                    return x
    return None


@st.composite
def _loop_text(draw: st.DrawFn) -> str:
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    vocab = ["ok", "no", "the", "a", "build", "tests", "pass", "x", "=", "|", "--", "\n", ". ", ", ", "ny", "!"]
    unit = "".join(rng.choice(vocab) + rng.choice(["", " "]) for _ in range(draw(st.integers(1, 12))))
    copies = draw(st.integers(1, 60))
    head = prose(rng, draw(st.integers(0, 300)))
    # The loop runs on to the end of the stream, whose length is a whole number of blocks.
    text = (head + unit * (copies + 2000))[:1500]
    return text[: len(text) - len(text) % CFG.block]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_loop_text(), seed=st.integers(0, 100))
# A loop from the stream's first character whose line break is followed by a space: the
# first copy lacks the unit's leading space, and is the run's own, not an earlier copy.
@example(text=("!--build notests \n " * 80)[:1408], seed=0)
# A loop after a blank line whose copies fold to one another: the line break before the loop
# is layout, not an earlier copy.
@example(text=("The missing tenant tracks the schema payload.\n\n" + "= ,  xnynyx --no a\n, !" * 60)[:1408], seed=0)
# A run whose first copy differs by case alone ("The ! = the ! = ..."): that copy counts.
@example(text=("The ! = " + "the ! = " * 175)[:1408], seed=0)
def test_period_detector_agrees_with_a_brute_force_rescan(text: str, seed: int) -> None:
    """The period detector fires in the block in which a brute-force rescan of every period at
    every position first finds a repetition long enough (text over a natural alphabet whose
    loop runs on to the end of the stream), at the character the rescan names."""
    expect = _brute_period_fire(text, _PERIOD_ONLY)
    fire = _period_detector_fire(text, _PERIOD_ONLY)
    if expect is None:
        assert fire is None, fire
    else:
        assert fire is not None and fire.reason in ("stream.period", "stream.run")
        assert fire.at == expect, (expect, fire)


def _period_detector_fire(text: str, cfg: StreamGuardConfig) -> Fire | None:
    """The first fire of the period detector alone (with the novelty detector it reads), block by block."""
    tail = Tail(2 * cfg.max_period + cfg.kgram, 4096)
    splitter = Splitter(cfg.novelty_ngram)
    novelty = NoveltyDetector(cfg)
    period = PeriodDetector(cfg)
    for i in range(0, len(text) - len(text) % cfg.block, cfg.block):
        piece = text[i : i + cfg.block]
        tail.push(piece)
        block = splitter.block(tail, piece)
        novelty.update(block)
        fire = period.update(block)
        if fire is not None:
            return fire
    return None
