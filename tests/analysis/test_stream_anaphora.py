"""``stream.anaphora``: sentences that keep opening with the same phrase while the rest changes.

Every stream is generated from a fixed seed; the firing chunk is the one that brings the last
character of the fourth opening (issue 23's rule: by the 4th copy of a unit of 16 characters or
more).
"""

from __future__ import annotations

import pytest

from plateau.stream import StreamGuardConfig
from tests.support.streams import chunk_of, first_fire, seeded

CFG = StreamGuardConfig()

LEAD = "The story begins on a quiet night in the harbour town. "
FILLERS = [
    "walking through a dream that never ends.",
    "losing track of time and of the tide.",
    "the only one awake in the whole city.",
    "floating above the wet streets below.",
    "going to remember this for a long time.",
    "somebody else, somewhere far from here.",
]


def template(opening: str, fillers: list[str], sep: str = " ") -> str:
    return LEAD + sep.join(f"{opening} {f}" for f in fillers)


@pytest.mark.parametrize("sep", [" ", "\n", "\n\n"])
def test_a_template_loop_fires_on_the_chunk_that_completes_its_fourth_opening(sep: str) -> None:
    """Sentences (or lines) that open with "I feel like I am" and end anew each time: the
    chunk holding the last character of the fourth "I feel like I am" fires, not before."""
    text = template("I feel like I am", FILLERS, sep)
    starts = [i for i in range(len(text)) if text.startswith("I feel like I am", i)]
    fourth_end = starts[3] + len("I feel like I am") - 1
    for seed in (1, 2, 3):
        chunks = seeded(text, seed)
        res = first_fire(chunks)
        assert res.fired and res.reason == "stream.anaphora", (seed, res)
        assert res.unit == "I feel like I am " and res.loop_start == starts[0]
        assert res.fired_at_chunk == chunk_of(chunks, fourth_end), (seed, res)
    assert not first_fire(seeded(text[:fourth_end], 1)).fired  # three copies and most of the fourth


def test_three_openings_alike_or_four_spread_out_stay_quiet() -> None:
    """Three sentences that open alike are a style; four spread over more than
    ``anaphora_sentences`` sentences are a theme the answer comes back to."""
    assert not first_fire(seeded(template("It is important to", FILLERS[:3]), 4)).fired
    other = [
        "Tides follow the moon.",
        "Boats leave before dawn.",
        "Nets are mended at noon.",
        "Gulls follow the boats.",
        "Fish are sold by the quay.",
        "Nobody hurries here at all.",
        "The bell rings at six.",
        "Children run along the wall.",
    ]
    spread = LEAD + " ".join(f"It is important to {f} {other[k]} {other[(k + 3) % 8]} {other[(k + 5) % 8]}" for k, f in enumerate(FILLERS))
    res = first_fire(seeded(spread, 4))
    assert not (res.fired and res.reason == "stream.anaphora"), res


def test_a_refrain_or_a_repeated_line_is_no_template() -> None:
    """A poem's refrain, or a line written again and again, repeats its whole sentence: its
    filler does not vary, and the detectors of repeated lines judge it."""
    stanza = (
        "The harbour folds its nets away,\nthe gulls go quiet on the pier,\n"
        "And still the lanterns burn tonight,\nAnd still the lanterns burn tonight.\n\n"
    )
    poem = "".join(stanza.replace("harbour", w) for w in ("harbour", "river", "valley", "market"))
    res = first_fire(seeded(poem, 5))
    assert not (res.fired and res.reason == "stream.anaphora"), res


@pytest.mark.parametrize(
    "lines",
    [
        # code: lines that open in lower case
        [f"from typing import {n}" for n in ("Any", "Callable", "Iterator", "Mapping", "Optional", "Sequence")],
        # a listing: paths, sizes, times
        [f"Checked file src/app/{n}.py in {k} ms" for k, n in enumerate(("core", "cli", "io", "net", "db", "ui"))],
        # labelled fields of a program's records
        [f"Error message: Avoid {n} in the query" for n in ("aliases", "joins", "subqueries", "casts", "unions", "hints")],
        # a numbered list whose items open alike
        [f"{k}. Make sure that the {n} is closed" for k, n in enumerate(("valve", "door", "window", "tap", "gate", "lid"), 1)],
    ],
)
def test_program_output_code_and_list_items_are_not_sentences(lines: list[str]) -> None:
    """Lines that open alike in code (lower case), in a program's listing (code characters:
    paths, brackets, dotted names), in labelled records (``Field: ...``) or as the items of a
    numbered list are not prose sentences."""
    res = first_fire(seeded("Here is what it printed:\n" + "\n".join(lines) + "\n", 6))
    assert not (res.fired and res.reason == "stream.anaphora"), res


def test_pasted_output_and_code_fences_stay_quiet() -> None:
    """In output the request asks to paste, or inside an open code fence, sentences that open
    alike are what the program printed."""
    text = template("Created the cache entry for", FILLERS, "\n")
    assert first_fire(seeded(text, 7)).fired
    assert not first_fire(seeded(text, 7), context="Run the warm-up script and paste the output.").fired
    fenced = "Here is the log:\n\n```\n" + text + "\n```\n"
    res = first_fire(seeded(fenced, 7))
    assert not (res.fired and res.reason == "stream.anaphora"), res


def test_a_requested_sentence_frame_is_excused() -> None:
    """"Write six sentences that start with 'I feel like I am'": the request names the opening
    and asks for it again; its copies stay within the request's bound."""
    ask = "Write six sentences that start with 'I feel like I am'."
    text = " ".join(f"I feel like I am {f}" for f in FILLERS)
    assert not first_fire(seeded(text, 8), context=ask).fired
    assert first_fire(seeded(text, 8), context="Tell me how you feel at night.").fired
    assert not first_fire(seeded(text, 8), context="Write six sentences about how you feel at night.").fired  # parts it counts


@pytest.mark.parametrize(
    "ask", ["Write a song about the harbour at night.", "Give a short speech for the harbour's reopening.", "Écris un poème sur le port."]
)
def test_a_song_a_poem_or_a_speech_opens_its_lines_alike_by_its_form(ask: str) -> None:
    """Lines that open with the same phrase are a song's, a poem's or a speech's device
    (``verse-forms``): quiet when the request asks for one; the same text unasked fires."""
    text = template("I will be there when you", FILLERS, "\n")
    assert first_fire(seeded(text, 9)).fired
    assert not first_fire(seeded(text, 9), context=ask).fired
