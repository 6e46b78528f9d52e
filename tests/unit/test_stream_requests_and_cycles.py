"""The stream guard on requested repetition, pasted program output, marker-joined loops, number
subtitles and self-dialogue cycles of several turn pairs.

Every stream is built from a fixed text and cut into seeded chunks; where the rule fixes the
firing character, the test computes the chunk that brings it (and checks the chunk before is
quiet), and checks that other chunkings give the same character.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plateau.stream import GuardResult, RequestContext, StreamGuard, StreamGuardConfig
from plateau.stream.text import visible
from tests.support.streams import block_chunk, chunk_of, first_fire, fourth_copy_line, seeded

CFG = StreamGuardConfig()


def fires_at(text: str, offset: int, seeds: tuple[int, ...] = (1, 2, 3), **kw: object) -> GuardResult:
    """Assert that every seeded chunking fires on the chunk holding ``offset``; the last result."""
    res = GuardResult(fired=False, chars=0)
    for seed in seeds:
        chunks = seeded(text, seed)
        res = first_fire(chunks, **kw)
        assert res.fired, (seed, offset)
        assert res.fired_at_chunk == chunk_of(chunks, offset), (seed, res, offset)
    return res


# ----------------------------------------------------------------------------- requested counts


@pytest.mark.parametrize(
    "request_text",
    [
        "Tell me a story about the sea, and please do not repeat words.",
        "Don't repeat yourself; explain the error once.",
        "Summarise the report without repeating the introduction.",
        "Avoid repetition in the answer.",
        "Écris une histoire et ne te répète pas.",
        "Cuéntame un cuento, no repitas palabras.",
        "Schreib eine Geschichte und bitte nicht wiederholen.",
        "Напиши рассказ, не повторяйся.",
        "写一个故事，不要重复。",
        "物語を書いてください。繰り返さないでください。",
        "이야기를 써 주세요. 반복하지 마세요.",
    ],
)
def test_a_request_that_rules_repetition_out_asks_for_none(request_text: str) -> None:
    """Naming repetition to forbid it (``repetition-prohibitions``) asks for no repeated output:
    the request excuses nothing, and a loop in the answer fires where it would without it."""
    ctx = RequestContext.parse(request_text)
    assert not ctx.requested and ctx.bound is None
    text = "Here it is. " + "The waves are blue and calm. " * 12
    assert first_fire(seeded(text, 1), context=request_text).fired_at_chunk == first_fire(seeded(text, 1)).fired_at_chunk
    assert RequestContext.parse("Do not forget to repeat the chorus.").requested  # a negation of something else


@pytest.mark.parametrize(
    ("request_text", "bound"),
    [
        ("Write the line four times.", 4),
        ("Écris 15 fois la phrase « Il pleut. »", 15),
        ("请把“你好”写二十遍。", 20),
        ("Schreib „Guten Morgen“ zwanzigmal.", 20),
        ("Escribe 'hola amigo' diez veces.", 10),
        ("Напиши «доброе утро» три раза.", 3),
        ("「ありがとう」を三回書いて。", 3),
        ("Scrivi 'ciao' dodici volte.", 12),
        ("「ありがとう」を40回書いてください。", 40),  # digits right after a kana particle
        ("请把“你好”写20遍。", 20),
    ],
)
def test_a_count_in_words_or_another_language_asks_for_repetition(request_text: str, bound: int) -> None:
    """A count of times (a numeral or a number word, then the language's word for "times") asks
    for repetition, and its value is the bound."""
    ctx = RequestContext.parse(request_text)
    assert ctx.requested and ctx.bound == bound


@pytest.mark.parametrize(
    "request_text",
    [
        "Her grandparents gave her twice as much as her parents. How much is left?",
        "Tom has three times as many apples as Ann. How many do they have together?",
        "A car is 3 times faster than a bike; how long does the bike take?",
        "The tank is 5 times larger than the cup.",
        "Take the tablet twice a day for a week.",
        "Il a deux fois plus de pommes que Marie.",
        "Tiene tres veces más libros que su hermano.",
        "У него в три раза больше яблок.",
    ],
)
def test_a_ratio_or_a_frequency_is_no_count_of_times(request_text: str) -> None:
    """A count of times followed by a comparative or a period of time ("twice as much", "three
    times larger", "twice a day") is a ratio or a frequency, as math word problems state them:
    the request asks for no repetition, and a loop in the answer fires by its 4th copy."""
    ctx = RequestContext.parse(request_text)
    assert not ctx.requested and ctx.bound is None
    unit = "Wait, let me recompute the total once more to be sure.\n"
    text = "The answer is 35.\n" + unit * 8
    fourth = len("The answer is 35.\n") + 3 * len(unit)  # where the 4th copy begins
    for seed in (1, 2, 3):
        chunks = seeded(text, seed)
        res = first_fire(chunks, context=request_text)
        assert res.fired and chunk_of(chunks, fourth) <= res.fired_at_chunk <= chunk_of(chunks, fourth + len(unit) - 1), (seed, res)
    assert res.reason == "stream.period"
    # the same counts asking for output are counts of times
    assert RequestContext.parse("Say it three times, then twice as loud.").requested


def test_volume_and_plain_requests_ask_for_nothing() -> None:
    assert not RequestContext.parse("Write 500 lines of code for the parser.").requested
    assert not RequestContext.parse("Résume ce fichier en trois points.").requested
    assert not RequestContext.parse("Fasse die Datei zusammen.").requested


_LINE = "Je ne dois pas bavarder avec mes voisins pendant la leçon.\n"  # ten words, a sentence


def test_a_french_count_excuses_the_numbered_lines_it_asked_for() -> None:
    """'15 fois' with the sentence quoted in guillemets: 15 numbered copies stay quiet. Without the
    request the numbered lines fire (the drift detector folds the numbers), and the same request
    does not excuse 100 copies, more than twice its bound."""
    ask = "Écris 15 fois la phrase « Je ne dois pas bavarder avec mes voisins pendant la leçon. », numérotée."
    text = "".join(f"{i}. {_LINE}" for i in range(1, 16))
    for seed in (4, 5):
        assert not first_fire(seeded(text, seed), context=ask).fired
        assert first_fire(seeded(text, seed)).fired
    long = "".join(f"{i}. {_LINE}" for i in range(1, 101))
    res = first_fire(seeded(long, 6), context=ask)
    assert res.fired and res.chars < len(long)


def test_a_chinese_count_excuses_the_run_it_asked_for() -> None:
    """'二十遍' (twenty times) with the phrase quoted: twenty copies of a 3-character phrase without
    line breaks stay quiet; without the request the run fires when it reaches 48 wide characters
    (96 columns, the 16th copy's last character)."""
    ask = "请把“加油！”连着写二十遍，不要换行。"
    text = "好的：\n" + "加油！" * 20 + "\n"
    assert not first_fire(seeded(text, 7), context=ask).fired
    res = first_fire(seeded(text, 7))
    assert res.fired and res.unit is not None and "加油" in res.unit


@pytest.mark.parametrize(
    ("ask", "word", "per_line", "lines"),
    [("请把“谢谢”写五十遍，每行十个。", "谢谢", 10, 5), ("「ありがとう」を三十回、一行に五つずつ書いてください。", "ありがとう", 5, 6)],
)
def test_glued_copies_of_a_unit_in_a_script_without_spaces_are_the_unit_named(ask: str, word: str, per_line: int, lines: int) -> None:
    """A word of a script written without spaces, asked for many times and several to a line: its
    copies are glued, so the repeated line is nothing but the named unit and stays excused; the
    same answer without the request fires."""
    text = (word * per_line + "\n") * lines
    assert not first_fire(seeded(text, 31), context=ask).fired
    assert first_fire(seeded(text, 31)).fired


_VERSE = "Twinkle, twinkle, little star,\nHow I wonder what you are.\nUp above the world so high,\nLike a diamond in the sky.\n\n"


def test_a_piece_named_by_its_title_is_excused() -> None:
    """'Write out "Twinkle, Twinkle, Little Star" three times': the verse opens with its title,
    so its copies are the piece asked for; without the request the 4th copy fires on the line
    break that ends its first line."""
    ask = "Write out 'Twinkle, Twinkle, Little Star' three times for the class."
    text = "Here it is three times:\n\n" + _VERSE * 3
    assert not first_fire(seeded(text, 8), context=ask).fired
    loop = "Here it is:\n\n" + _VERSE * 5
    start = len("Here it is:\n\n")
    fires_at(loop, start + 3 * len(_VERSE) + _VERSE.index("\n"))


def test_a_piece_named_by_its_kind_is_excused() -> None:
    """'sing the chorus after each verse': the request names the repetition by the piece's part,
    not its wording; a chorus repeated after each verse stays quiet."""
    ask = "Write a short song about the sea and sing the chorus after each verse."
    chorus = "Oh the sea, the rolling sea, carry me home to the harbour.\n"
    verses = [f"Verse {i}: the boat went out on day {i} with the nets and the gulls.\n" for i in range(1, 7)]
    text = "".join(v + chorus * 2 for v in verses)
    assert not first_fire(seeded(text, 9), context=ask).fired


def test_a_title_does_not_excuse_the_answer_restarted() -> None:
    """A unit that opens with a preamble (not the named title) is the answer restarted: it fires on
    the first line of its 4th copy as without the request."""
    ask = "Write out 'Twinkle, Twinkle, Little Star' three times."
    unit = "Sure! Here is the song.\n" + _VERSE
    text = unit * 6
    with_ask = fires_at(text, fourth_copy_line(text, 0, len(unit)), context=ask)
    assert with_ask.reason == "stream.period"


# ----------------------------------------------------------------------------- pasted output

_SUMMARY = "test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n"


def test_pasted_test_runner_output_keeps_its_repeated_lines() -> None:
    """'Run the tests and paste what it prints': identical summary lines in a row are program
    output -- quiet at 20 copies, fired on the block that completes ``pasted_run_floor``
    characters from the first copy; without the request the 4th copy fires once its first
    sentence (``test result: ok.``) is written, by which a reader recognises a copy of one line.
    (The run begins at the newline that ends the command line: it equals the summary's last
    character.)"""
    ask = "Run the workspace tests with `cargo test` and paste what it prints."
    assert RequestContext.parse(ask).pastes_output
    head = "$ cargo test\n"
    text = head + _SUMMARY * 20
    assert not first_fire(seeded(text, 10), context=ask).fired
    fires_at(text, fourth_copy_line(text, len(head) - 1, len(_SUMMARY)))
    assert fourth_copy_line(text, len(head) - 1, len(_SUMMARY)) == len(head) - 1 + 3 * len(_SUMMARY) + len("\ntest result: ok.") - 1
    long = head + _SUMMARY * (2 * CFG.pasted_run_floor // len(_SUMMARY))
    for seed in (10, 11, 12):
        chunks = seeded(long, seed)
        res = first_fire(chunks, context=ask)
        assert res.fired and res.loop_start == len(head)
        assert res.fired_at_chunk == block_chunk(chunks, res.loop_start + CFG.pasted_run_floor - 1)


@pytest.mark.parametrize(
    ("ask", "output"),
    [
        (
            "Run Walker and paste the full exception it throws.",
            "Exception in thread \"main\" java.lang.IllegalStateException: empty leaf\n\tat Walk.leaf(Walk.java:4)\n"
            + "\tat Walk.visit(Walk.java:9)\n" * 40
            + "\tat Walk.main(Walk.java:15)\n",
        ),
        (
            "Run count.py under python -m trace --trace so I can see every line it executes.",
            " --- modulename: count, funcname: <module>\n"
            + "count.py(1): total = 0\n"
            + "count.py(2): for i in range(30):\ncount.py(3):     total += i\n" * 30
            + "count.py(4): print(total)\n435\n",
        ),
        (
            "Run the plotting script and paste the output.",
            "DEBUG: Rectangle _update_patch_limits count=10 max_y=1.0\n" * 90,
        ),
    ],
)
def test_pasted_program_output_repeating_whole_lines_is_quiet(ask: str, output: str) -> None:
    """A program prints what its loops print: a frame per recursive call, the traced lines of
    every pass, a debug line per iteration. Asked for pasted, whole lines repeating verbatim stay
    quiet up to ``pasted_run_floor`` characters; the same text unasked fires."""
    assert RequestContext.parse(ask).pastes_output
    for seed in (4, 5):
        assert not first_fire(seeded(output, seed), context=ask).fired
        assert first_fire(seeded(output, seed)).fired


@pytest.mark.parametrize(
    ("unit", "shown"),
    [
        ("32m.\x1b[0m\x1b[", "."),
        ("\x1b[1;31mFAIL\x1b[0m ", "FAIL "),
        ("plain text ", "plain text "),
    ],
)
def test_visible_removes_a_terminal_s_control_sequences_read_as_a_cycle(unit: str, shown: str) -> None:
    """A periodic unit may start inside an escape sequence: it is read as a cycle."""
    assert visible(unit) == shown


def test_coloured_progress_dots_are_dots() -> None:
    """A test runner that colours its output prints ``ESC[32m.ESC[0m`` per test: pasted, the run
    is judged in the dots a terminal shows (``progress_run_floor``), not as a short unit."""
    ask = "Run the tests and paste the output."
    dot = "\x1b[32m.\x1b[0m"
    text = "collected 400 items\n\nastropy/io/fits/tests/test_header.py " + dot * 400 + "\n\n400 passed in 3.2s\n"
    for seed in (6, 7):
        assert not first_fire(seeded(text, seed), context=ask).fired
    endless = "astropy/io/fits/tests/test_header.py " + dot * (CFG.progress_run_floor + 200)
    assert first_fire(seeded(endless, 6), context=ask).fired


@pytest.mark.parametrize(
    ("ask", "pasted"),
    [
        ("Run pytest -v and give me the results.", True),
        ("Can you run the linter and tell me what it reports?", True),
        ("Please run `git log --oneline -20` and share what you get.", True),
        ("What does `df -h` print on this box?", True),
        ("Print the contents of config.yaml.", True),
        ("Show me the first 40 lines of the log file.", True),
        ("Paste the traceback.", True),
        ("Run it and paste the full exception it throws.", True),
        ("Show me the error message you get.", True),
        ("Run the script under strace so I can see every call it makes.", True),
        ("Zeig mir den Stacktrace.", True),
        ("Montre-moi la pile d'appels.", True),
        ("Trace only the write() calls of the ticker program.", True),
        ("Run the server under valgrind and paste nothing else.", True),
        ("Can you trace the calls in this code by reading it?", False),
        ("Give me an exception handling example in Java.", False),
        ("Show me the errors in my essay.", False),
        ("Build it with every lint check on and list all the warnings.", True),
        ("Show me all the compiler errors from the last build.", True),
        ("Give me every diagnostic clang reports for this file.", True),
        ("List all the errors you can find in my essay.", False),
        ("Lance les tests et montre-moi le résultat.", True),
        ("Führe die Tests aus und zeig mir das Ergebnis.", True),
        ("Ejecuta el comando y muéstrame el resultado.", True),
        ("Show me the results of your analysis.", False),
        ("What does this function do?", False),
        ("Summarise the results of the study.", False),
        ("Run through the plan once more and tell me what you think.", False),
        ("What does the word ennui mean?", False),
    ],
)
def test_a_request_for_program_output_in_its_usual_wordings(ask: str, pasted: bool) -> None:
    """A request to run something and show what it produced, to show a file's lines, or asking
    what a command prints wants program output as it is (``output-requests``); asking for
    results of one's own work, or what a word means, does not."""
    assert RequestContext.parse(ask).pastes_output is pasted


@pytest.mark.parametrize("layout", ["cargo", "name-line", "go"])
def test_a_summary_line_per_package_is_an_enumeration(layout: str) -> None:
    """Machine output whose identical summary line recurs once per package, each copy beside a
    line that brings new words (the package's name): the blocks differ in words, an enumeration
    of items -- quiet without any request. The same block whose copies do not differ fires."""
    pkgs = ["core", "parser", "lexer", "codegen", "cli", "utils", "macros", "runtime", "storage", "net"]
    if layout == "cargo":
        block = "     Running unittests src/lib.rs (target/debug/deps/{p}-a3f9c1)\n\nrunning 0 tests\n\n" + _SUMMARY + "\n"
    elif layout == "name-line":
        block = "Testing {p}\n" + _SUMMARY
    else:
        block = "?   \tgithub.com/acme/app/{p}\t[no test files]\n"
    text = "".join(block.format(p=p) for p in pkgs)
    assert not first_fire(seeded(text, 11)).fired
    same = block.format(p="core") * 10
    assert first_fire(seeded(same, 11)).fired


# ----------------------------------------------------------------------------- marker-joined loops

_SENTENCE = "Perfect, we will use Arabic for the mediation. One moment while I update the system."
_JOIN = "\n\n(waiting) ... "


def test_a_loop_ending_with_the_stream_at_its_fourth_copy_fires_on_its_last_character() -> None:
    """Copies joined by a marker that opens the next copy's line: the 4th copy is complete at the
    end of its body, so a stream that ends there fires on the chunk of its last character, never
    on the one before; three copies stay quiet."""
    text = _JOIN.join([_SENTENCE] * 4)
    res = fires_at(text, len(text) - 1)
    assert res.reason == "stream.period"
    for seed in (1, 2, 3):
        chunks = seeded(text, seed)
        guard = StreamGuard()
        for c in chunks[:-1]:
            assert not guard.feed(c).fired
    assert not first_fire(seeded(_JOIN.join([_SENTENCE] * 3), 4)).fired


# ----------------------------------------------------------------------------- subtitle records


def _srt(copies: int, text: str = "90") -> str:
    out = ""
    for i in range(copies):
        n = 1286 + i
        out += f"{n}\n00:25:{55 + i:02d},660 --> 00:25:{56 + i:02d},660\n{text}\n\n"
    return out


def test_subtitle_blocks_whose_text_is_a_number_fire_by_the_fourth_copy() -> None:
    """SRT blocks whose counter and times change and whose text is the number '90': the 4th copy
    fires on the newline ending its text; three copies stay quiet."""
    text = _srt(8)
    one = len(_srt(1))
    res = fires_at(text, 3 * one + one - 3)  # the newline after the 4th copy's "90"
    assert res.reason == "stream.line_dominance"
    assert not first_fire(seeded(_srt(3), 5)).fired


def test_number_rows_under_changing_times_without_a_counter_stay_quiet() -> None:
    """A time line and a value (no counter line that numbers the records): data, not a subtitle."""
    text = "".join(f"12:00:{i:02d} -> 12:00:{i + 1:02d}\n0\n" for i in range(20))
    assert not first_fire(seeded(text, 6)).fired


# ----------------------------------------------------------------------------- self-dialogue cycles

_PAIRS = [
    ("I would like to make a new account.", "Okay. What is your name?"),
    ("Sam", "It looks like you are new to programming."),
    ("I am", "I am also new to programming."),
]


def _chatml(cycles: int) -> str:
    text = "Welcome to the shop.\n<|im_end|>\n"
    for _ in range(cycles):
        for q, a in _PAIRS:
            text += f"<|im_start|>user\n{q}\n<|im_end|>\n<|im_start|>assistant\n{a}\n<|im_end|>\n"
    return text


def test_a_three_pair_cycle_fires_in_its_third_cycle_never_before() -> None:
    """ChatML turns whose cycle is three pairs: quiet through the 2nd cycle; fire once the first
    turn of the 3rd cycle is complete and alike its counterparts -- on the chunk that completes
    the next marker, ``<|im_start|>assistant`` and the character after it."""
    text = _chatml(4)
    assert not first_fire(seeded(_chatml(2), 1)).fired
    marks = [i for i in range(len(text)) if text.startswith("<|im_start|>assistant", i)]
    res = fires_at(text, marks[6] + len("<|im_start|>assistant"))
    assert res.reason == "stream.self_dialogue"


def _labelled(cycles: int) -> str:
    pairs = [("Sounds good, thanks!", "You're welcome! I'm glad I could help, reach out anytime."),
             ("Okay, thanks!", "You're welcome! Happy to be of assistance, I'm always glad to lend a hand.")]
    text = "The order ships tomorrow.\n\n"
    for _ in range(cycles):
        for q, a in pairs:
            text += f"USER: {q}\n\nA: {a}\n\n"
    return text


def test_a_two_pair_label_cycle_fires_in_its_third_cycle_never_before() -> None:
    """'USER:' / 'A:' turns whose cycle is two pairs: quiet through the 2nd cycle; fire on the
    newline that ends the 3rd cycle's first 'A:' turn (its 'USER:' turn is then complete and alike
    its counterparts)."""
    text = _labelled(4)
    assert not first_fire(seeded(_labelled(2), 2)).fired
    a_turns = [i for i in range(len(text)) if text.startswith("\nA: ", i)]
    fifth = a_turns[4] + 1
    res = fires_at(text, text.index("\n", fifth))
    assert res.reason == "stream.self_dialogue"


# ----------------------------------------------------------------- how a request names its unit


def test_an_apostrophe_inside_a_word_opens_no_quotation() -> None:
    """A contraction before the quoted unit ("can't") is an apostrophe, not an opening quote: the
    unit named is the quoted line, and an open-ended request for it excuses its copies."""
    ask = "I can't sleep. Print 'Count one more star in the sky.' on its own line, again and again, until I say stop."
    assert RequestContext.parse(ask).units == ("count one more star in the sky",)
    assert RequestContext.parse("Write 'don't panic' five times.").units == ("don t panic",)
    text = "Count one more star in the sky.\n" * 40
    for seed in (1, 2):
        assert not first_fire(seeded(text, seed), context=ask).fired
        assert first_fire(seeded(text, seed)).fired


def test_a_unit_found_mid_cycle_is_the_unit_the_request_named() -> None:
    """Copies joined by a comma on one line: the period detector may report the unit from any
    of its words ("gracias, Muchas "). A rotation of the named unit is that unit, so the twelve
    copies asked for stay quiet; forty are more than twice the bound and fire."""
    ask = "Escribe 'Muchas gracias' doce veces seguidas, separadas por comas."
    twelve = ", ".join(["Muchas gracias"] * 12) + ".\n"
    forty = ", ".join(["Muchas gracias"] * 40) + ".\n"
    for seed in (3, 4, 5):
        assert not first_fire(seeded(twelve, seed), context=ask).fired
        assert first_fire(seeded(twelve, seed)).fired
        res = first_fire(seeded(forty, seed), context=ask)
        assert res.fired and res.chars < len(forty)


# ------------------------------------------------------------------------ words of wide scripts


def test_a_chant_of_one_syllable_korean_words_fires_as_a_short_unit_with_words() -> None:
    """'그 후,' holds two words of one hangul syllable each: a short unit with words, whose copies
    fire once they hold 96 columns of content. The run starts at the comma before the first copy
    (', 그 후' is the same cycle), index 7; the 5-character unit has 7 columns of content (a
    hangul syllable is two), so it needs ceil(96 * 5 / 7) = 69 characters: the fire lands on
    the chunk that brings character 7 + 69 - 1 = 75, the same for every chunking. Counted as a
    wordless layout unit it waited for 256 characters."""
    text = "2029년에는," + " 그 후," * 50
    res = fires_at(text, 75, seeds=(1, 2, 3, 4))
    assert res.reason == "stream.period" and res.unit.strip() == "그 후,"


# ------------------------------------------------------- an answer made of the request's own text


_FILL = "Escribe 'muchas gracias' hasta llenar la página."  # no count, no word for "repeat"


def test_a_request_that_quotes_its_unit_excuses_an_answer_made_of_copies_of_it() -> None:
    """The request quotes the unit and asks in words no list holds: an answer that opens with
    copies of the unit (on one line, or one per line after a lead-in) is the request's own text,
    excused like a request without a number -- for ``context_cap_chars`` characters."""
    cap = StreamGuardConfig().context_cap_chars
    one_line = "muchas gracias, " * 400
    per_line = "¡Claro! Aquí la tienes:\n" + "Muchas gracias.\n" * 400
    for text in (one_line, per_line):
        for seed in (1, 2):
            assert first_fire(seeded(text, seed)).fired
            assert not first_fire(seeded(text, seed), context=_FILL).fired
    long = "muchas gracias, " * 2000
    res = first_fire(seeded(long, 3), context=_FILL)
    assert res.fired and cap < res.chars < cap + 64


def test_numbered_copies_the_request_asks_for_by_a_template_or_a_plan_stay_quiet() -> None:
    """The same text under each item's label and number (``Day 3: ...``) fires by its fourth
    copy when nothing asks for it (``stream.counted``, once 16 characters follow its number); a
    request that quotes it as a template with a placeholder
    for the number (``'Day N: ...'``) names it, and a request for a plan whose items recur by
    design (a 7-day checklist) makes it the plan: both stay quiet to the end."""
    line = "Drink eight glasses of water and take a short walk."
    text = "".join(f"Day {i}: {line}\n" for i in range(1, 8))
    fourth = sum(len(f"Day {i}: {line}\n") for i in range(1, 4)) + len("Day 4:")
    assert fires_at(text, fourth + 16).reason == "stream.counted"
    asks = (f"Make me a list with one line per day, each line 'Day N: {line}'", "Write a 7-day plan: every day, drink water and walk.")
    for ask in asks:
        for seed in (1, 2):
            assert not first_fire(seeded(text, seed), context=ask).fired, ask
    assert RequestContext.parse("Label them '{n}. Slide X: Intro'").named[0] == "slide intro"


def test_a_loop_after_the_answer_s_own_words_is_not_the_quoted_text_asked_for() -> None:
    """The same quote, but the answer opens with words of its own and falls into a loop on the
    quoted words: the request does not excuse it, and it fires on the same chunk as it does
    without the request."""
    ask = "What does 'muchas gracias' mean in English?"
    text = "'Muchas gracias' means thank you very much. " + "muchas gracias " * 60
    for seed in (4, 5):
        chunks = seeded(text, seed)
        quiet = first_fire(chunks)
        asked = first_fire(chunks, context=ask)
        assert quiet.fired and asked.fired and asked.fired_at_chunk == quiet.fired_at_chunk


def test_a_unit_cut_inside_a_word_is_the_named_unit() -> None:
    """The period detector may report a unit cut inside a word ('ias, grac' for copies of
    'gracias, '). Read from a word start it is the unit the request named, so an open-ended
    request excuses the copies until ``context_cap_chars``, not before."""
    cap = StreamGuardConfig().context_cap_chars
    text = "gracias, " * 3000
    res = first_fire(seeded(text, 6, 4, 12), context="Write 'gracias' over and over.")
    assert res.fired and res.chars > cap


# --------------------------------------------------------------- a cycle of lines, cut by the stream


_CYCLE = "".join(f"Her life was a {w} life.\n" for w in ("brief", "bright", "lonely", "famous", "quiet", "restless", "gentle"))
_BORN = "She was born in 1940.\n"


def test_a_cycle_of_lines_fires_on_the_first_line_of_its_fourth_copy() -> None:
    """Seven lines that cycle: three copies are read, and the fourth is recognised by its first
    line. The fire lands on the chunk that brings the newline ending that line (character
    ``len(_BORN) + 3 * len(_CYCLE) + len(first line) - 1``), whatever the chunking; a stream cut
    by a token limit two lines into the fourth copy is therefore caught before it ends."""
    first = _CYCLE.index("\n") + 1
    at = len(_BORN) + 3 * len(_CYCLE) + first - 1
    fires_at(_BORN + _CYCLE * 6, at, seeds=(1, 2, 3, 4))
    cut = _BORN + _CYCLE * 3 + "".join(_CYCLE.splitlines(keepends=True)[:2])
    for seed in (5, 6):
        assert first_fire(seeded(cut, seed)).fired


def test_three_copies_of_a_cycle_then_other_lines_stay_quiet() -> None:
    """Three copies of the cycle and a fourth that changes at its first line: nothing fires."""
    text = _BORN + _CYCLE * 3 + "Her life ended in 1973, in Hong Kong.\n" + "She is remembered as an actor and a teacher.\n"
    for seed in (7, 8, 9):
        assert not first_fire(seeded(text, seed)).fired


def test_the_rest_of_a_line_after_a_colon_is_named_like_a_quotation() -> None:
    """'Say it with me, and don't stop: I am calm and focused.' names the sentence after its colon:
    an answer made of its copies is excused (no count: up to ``context_cap_chars``); a colon in a
    time or a URL names nothing, and colon text never narrows a request for repetition."""
    ask = "Say it with me, and don't stop: I am calm and focused."
    assert RequestContext.parse(ask).named == ("i am calm and focused",)
    assert RequestContext.parse("Meet me at 10:30 on http://example.org").named == ()
    assert RequestContext.parse("Do this 20 times: write a haiku about rain.").units == ()
    text = "I am calm and focused.\n" * 200
    for seed in (1, 2):
        assert first_fire(seeded(text, seed)).fired
        assert not first_fire(seeded(text, seed), context=ask).fired


_UNITS = ("thank you", "Lo siento", "I am calm and focused.", "加油", "그 후", "OK", "the quick brown fox jumps")
_ASKS = (
    "Write '{u}' {n} times.",
    "Escribe '{u}' hasta llenar la página.",
    "Say it with me: {u}",
    "What does '{u}' mean?",
    "Repeat «{u}» over and over.",
    "Translate '{u}' into French.",
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(unit=st.sampled_from(_UNITS), ask=st.sampled_from(_ASKS), n=st.integers(1, 60), copies=st.integers(2, 120),
       lead=st.sampled_from(("", "Sure:\n", "Here is what it means. ")), sep=st.sampled_from((" ", ", ", "\n", ". ")),
       seed=st.integers(0, 1000))
def test_a_request_never_makes_the_guard_fire_earlier(unit: str, ask: str, n: int, copies: int, lead: str, sep: str, seed: int) -> None:
    """The request only excuses: with any request, the guard fires on the same chunk as without
    it, later, or not at all -- never earlier."""
    text = lead + sep.join([unit] * copies) + "\n" + " ".join(random.Random(seed).sample(_FILLER, 12))
    chunks = seeded(text, seed)
    bare = first_fire(chunks)
    asked = first_fire(chunks, context=ask.format(u=unit, n=n))
    if asked.fired:
        assert bare.fired and asked.fired_at_chunk >= bare.fired_at_chunk  # type: ignore[operator]


_FILLER = tuple(
    "river lamp orbit canvas pepper violin marble tunnel garden copper window ladder meadow planet "
    "saddle harbor pencil rocket blanket lantern".split()
)



def test_a_particle_after_a_closing_quote_closes_it() -> None:
    """Korean and Japanese attach particles to the closing quote ("'고마워'를", "'ありがとう'と"):
    a quote followed by a letter of a script without apostrophes still closes."""
    assert RequestContext.parse("'고마워'를 열 번 써 줘.").units == ("고마워",)
    assert RequestContext.parse("'ありがとう'と十回書いて。").units == ("ありがとう",)
    ask = "'고마워'를 열 번 써 줘."
    for seed in (1, 2):
        assert not first_fire(seeded("고마워 " * 10, seed), context=ask).fired


def test_a_quoted_unit_counts_as_named_beside_the_words_after_the_verb() -> None:
    """'Repeat after me, 30 times: <line>' reads "after me" after the verb, but the line after the
    colon is what the request quotes: its 30 copies are excused, 100 are not."""
    ask = "Repeat after me, 30 times, slowly: Breathe in calm, breathe out worry."
    line = "Breathe in calm, breathe out worry. "
    for seed in (3, 4):
        assert not first_fire(seeded(line * 30, seed), context=ask).fired
        assert first_fire(seeded(line * 100, seed), context=ask).fired


# ------------------------------------------------------------ a template filled once per item


_NAMES = ("Alma", "Bruno", "Cyrus", "Delia", "Eamon", "Fiona", "Gustav", "Helga", "Idris", "Juno", "Kasia", "Lorenzo")
_NOTE = (
    "Dear {},\nThank you for helping at the harvest supper on Friday. The tables were ready in no time.\n"
    "We hope you can join us next autumn.\nWith gratitude,\nThe Parish Kitchen\n\n"
)


def test_a_letter_filled_once_per_name_is_no_drifting_loop() -> None:
    """The same note for each name in a list: every copy holds a word of its own (the name), so
    the drift detector reads an enumeration, not a loop; the same note with the same name
    every time is a loop and fires."""
    filled = "".join(_NOTE.format(n) for n in _NAMES)
    same = _NOTE.format("Alma") * len(_NAMES)
    for seed in (1, 2):
        assert not first_fire(seeded(filled, seed)).fired
        assert first_fire(seeded(same, seed)).fired


def _recheck_candidate(text: str) -> object:
    """The re-check detector's candidate after ``text`` is fed in the guard's 64-character blocks."""
    from plateau.stream.block import Splitter, Tail
    from plateau.stream.recheck import RecheckDetector

    detector = RecheckDetector(StreamGuardConfig())
    tail, splitter = Tail(4096, 4096), Splitter()
    for i in range(0, len(text), 64):  # the guard's 64-character blocks
        piece = text[i : i + 64]
        tail.push(piece)
        detector.update(splitter.block(tail, piece))
    return detector.candidate


def test_a_refrain_after_each_verse_is_no_recheck_candidate() -> None:
    """A three-line refrain after each verse whose lines name a new item (a number, a rhyme) is a
    template filled per item: the re-check detector makes no candidate of it. The refrain after
    verses that differ in wording from each other is still a candidate."""
    refrain = "Round and round the meadow goes,\nOver the hill where the river flows,\nHome again as the evening glows.\n\n"
    items = [("one", "drum"), ("two", "shoe"), ("three", "tree"), ("four", "door"), ("five", "hive"), ("six", "sticks")]
    song = "".join(f"The little cart went rolling {a},\nIt carried a bell and a painted {b};\n" + refrain for a, b in items)
    talk = [
        "Let me look at the refrain once more.",
        "Hmm, I am not sure the second line scans well, so again:",
        "Checking it one more time, carefully this time, from the top:",
        "Wait, the rhyme might be off; one more look at it:",
        "Actually, let me reread it slowly once again:",
        "Again, the whole refrain:",
    ]
    loop = "".join(t + "\n" + refrain for t in talk)
    for text, candidate in ((song, False), (loop, True)):
        assert (_recheck_candidate(text) is not None) is candidate, text[:40]


def test_a_table_header_before_each_table_is_no_recheck_candidate() -> None:
    """A reference whose sections each open a table of one shape repeats the table's header and
    delimiter row with a line before it: the document's scaffold, no re-check candidate. The
    same three lines without a delimiter row (a passage quoted before each new look) are one."""
    endpoints = ["list", "create", "get", "update", "archive", "add member"]
    header = "**Parameters**\n\n| Name | Type | Required | Description |\n|---|---|---|---|\n"
    doc = "".join(f"## {e}\n\nThe {e} endpoint.\n\n" + header + f"| `{e}_id` | string | yes | The {e} target. |\n\n" for e in endpoints)
    quoted = header.replace("|---|---|---|---|", "Every row is one field of the request.")
    loop = "".join(f"## {e}\n\nThe {e} endpoint.\n\n" + quoted + f"| `{e}_id` | string | yes | The {e} target. |\n\n" for e in endpoints)
    for text, candidate in ((doc, False), (loop, True)):
        assert (_recheck_candidate(text) is not None) is candidate, text[:40]


def test_a_letter_per_recipient_whose_title_repeats_is_no_recheck_candidate() -> None:
    """A letter filled once per recipient names a new recipient in each copy, while another field
    of the template takes a value again (a title, ``Ms.`` / ``Mr.``): still one template filled per
    item, no candidate. The same body after commentary that restates itself is one."""
    people = [("Ms.", "Alvarez", "1A"), ("Mr.", "Berg", "1B"), ("Ms.", "Chen", "2A"), ("Mr.", "Dubois", "2B"), ("Ms.", "Eze", "3A")]
    body = "The lift will be out of service on Monday from 08:00 to 12:00.\nPlease use the stairs.\nThank you for your patience.\n"
    letters = "".join(f"Subject: Lift notice, flat {u}\nDear {t} {n},\n" + body + "Facilities\n---\n" for t, n, u in people)
    assert _recheck_candidate(letters) is None
    talk = ["Let me read the notice again.", "Hmm, once more from the top:", "Checking it one more time:", "Again:", "One last look:"]
    assert _recheck_candidate("".join(t + "\n" + body + "Facilities\n" for t in talk)) is not None


def test_a_recheck_unit_holds_the_line_before_every_occurrence() -> None:
    """The lines that stand just before every occurrence of a passage belong to it as the text
    names it: a verse whose title line opens each copy, quoted between varying lines, is reported
    from its title line (a request that names the piece by its title then names it)."""
    verse = "Row, row, row your boat,\nGently down the stream.\nMerrily, merrily, merrily, merrily,\nLife is but a dream.\n"
    heads = ["Part one:", "Part two, a line later:", "Part three, two lines later:", "Part four, three lines later:", "All together now:"]
    cand = _recheck_candidate("".join(h + "\n" + verse for h in heads))
    assert cand is not None and cand.unit.startswith("Row, row, row your boat,\n")  # type: ignore[attr-defined]


def test_a_drill_of_one_character_per_row_is_excused_per_row() -> None:
    """A practice sheet asked for with each character written ten times: every row repeats its own
    character, the stutter detector reads the rows as doubled tokens, and the request's count
    holds for each character: its copies are counted where they stand, not as the sheet's length
    over the character's. Thirty copies in a row go past the count and fire."""
    ask = "Make a practice sheet: each kana followed by its romaji, then written ten times in a row."
    kana = list(zip("あいうえおかきくけこ", ["a", "i", "u", "e", "o", "ka", "ki", "ku", "ke", "ko"], strict=True))
    sheet = "Practice sheet:\n\n" + "".join(f"{k} ({r}): " + " ".join([k] * 10) + "\n" for k, r in kana) + "\nWrite slowly.\n"
    for seed in (1, 2):
        guard = StreamGuard(context=ask)
        assert not any(guard.feed(c).fired for c in seeded(sheet, seed))
        assert not guard.finish().fired
    over = "Practice sheet:\n\n" + "".join(f"{k} ({r}): " + " ".join([k] * 30) + "\n" for k, r in kana)
    assert first_fire(seeded(over, 1), context=ask).fired


@pytest.mark.parametrize(
    ("ask", "bound"),
    [
        ("Write out 'Row, Row, Row Your Boat' as a four-part round; every part sings the verse twice.", 8),
        ("Sing 'Frère Jacques' in three voices, each voice twice.", 6),
        ("Repeat the verse twice.", 2),
    ],
)
def test_a_count_of_times_holds_per_part_of_a_piece(ask: str, bound: int) -> None:
    """A round or a part-song in N parts or voices repeats what each part sings N times: the
    request's count of times is per part."""
    assert RequestContext.parse(ask).bound == bound


def test_a_part_asked_after_every_other_part_has_no_bound_from_a_count_elsewhere() -> None:
    """A chorus asked after every verse comes back as many times as there are verses: "three
    times to close" bounds the close, not the whole repetition, so the request excuses as one
    without a number does; a count of the repetition itself still bounds it."""
    per_verse = RequestContext.parse("Write a camp song whose chorus we sing after each verse, and three times to close.")
    assert per_verse.requested and per_verse.bound is None
    assert RequestContext.parse("Write a camp song and repeat the chorus twice.").bound == 2
    assert RequestContext.parse("Write the refrain between the stanzas, three times in all.").bound is None


_COUNT_WORDS = ["none", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
_KITES = "**Ten Little Kites**\n\n" + "".join(
    f"{_COUNT_WORDS[n].capitalize()} little kites flew high above the hill,\nthe wind gave a tug and one blew off still.\n"
    f"Whoosh, whoosh, up it goes,\nnow {_COUNT_WORDS[n - 1]} little kites in rows.\n\n"
    for n in range(10, 0, -1)
)


def test_a_counting_song_the_request_asks_for_counts_its_verses_by_the_counted_noun() -> None:
    """A counting-down rhyme of ten little kites: its verses differ by a number word, which
    ``stream.drift`` reads as near copies. Asked for as a rhyme that counts ten kites, the number
    and the counted noun ("Four little kites") label each verse, and the ten verses are the
    answer; asked for two kites, the copies pass their bound and fire; the same verses in answer
    to a story, or to nothing, fire."""
    ask = "Write a counting-down rhyme about ten little kites, from ten down to none, with the same refrain each verse."
    assert not first_fire(seeded(_KITES, 7), context=ask).fired
    assert first_fire(seeded(_KITES, 7), context="Write a counting-down rhyme about two little kites.").fired
    for other in ("Write a story about ten little kites.", None):
        res = first_fire(seeded(_KITES, 7), context=other)
        assert res.fired and res.reason == "stream.drift", other

