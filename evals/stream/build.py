#!/usr/bin/env python3
"""Build the stream cases of ``evals/stream/`` from the real text in ``evals/stream/sources/``.

Every case is one JSON file in the team's stream format (``../shared/benchmark/FORMAT.md``).
The text comes from real files and real program output captured in ``sources/`` (this
repository's README and evaluation notes, CPython 3.11's ``token.py`` and ``operator.py``, a
``pytest -v`` log, a ``ruff --select ALL`` report, ``hexdump -C /bin/true``, the log of a small
numpy training run); the degenerate shapes are reconstructions of public reports, named in each
case's ``source``, applied to that text. The chunks imitate server-sent deltas (1-6 characters,
a word piece with its leading space), cut with a seeded generator.

The fire window is set by a rule, not by any detector: it opens when the evidence is complete
for a reader -- the end of the copy that makes the repetition unmistakable (``first_copy``, the
third copy unless stated) -- and closes ``late_chars`` characters later (at least six copies;
long enough for any guard that keeps one copy in view, short enough to save most of the waste).

Usage: ``python evals/stream/build.py`` (rewrites the ``*.json`` files next to it).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "sources"
_PIECE = re.compile(r"\s*\S{1,5}|\s+")


def source(name: str) -> str:
    return (SRC / name).read_text(encoding="utf-8")


def readme_section(title: str) -> str:
    text = source("plateau-readme-snapshot.md")
    start = text.index(title)
    end = text.find("\n#", start + len(title))
    return text[start : end if end > 0 else len(text)].strip() + "\n"


def paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n\s*\n", text) if len(p.strip()) > 80 and not p.strip().startswith(("```", "|", "#"))]


def chunks(text: str, seed: int) -> list[str]:
    """Delta-sized chunks: word pieces of 1-6 characters, sometimes two merged."""
    rng = random.Random(seed)
    pieces = _PIECE.findall(text)
    assert "".join(pieces) == text
    out: list[str] = []
    i = 0
    while i < len(pieces):
        n = 2 if rng.random() < 0.25 else 1
        out.append("".join(pieces[i : i + n]))
        i += n
    return out


def chunk_at(parts: list[str], offset: int) -> int:
    end = 0
    for i, c in enumerate(parts):
        end += len(c)
        if offset < end:
            return i
    return len(parts) - 1


CASES: list[dict[str, object]] = []


def case(
    cid: str,
    kind: str,
    src: str,
    text: str,
    *,
    verdict: str,
    channel: str = "content",
    context: str | None = None,
    window: tuple[int, int] | None = None,
    notes: str = "",
    seed: int = 0,
) -> None:
    parts = chunks(text, seed or len(CASES) + 1)
    expected: dict[str, object] = {"verdict": verdict}
    if verdict == "fire":
        assert window is not None
        lo, hi = window
        hi = min(hi, len(text) - 1)
        expected["fire_between_chunks"] = [chunk_at(parts, lo), chunk_at(parts, hi)]
        expected["fire_between_chars"] = [lo, hi]
    doc: dict[str, object] = {
        "id": cid,
        "level": "stream",
        "kind": kind,
        "source": src,
        "stream_channel": channel,
        "input": parts,
        "expected": expected,
    }
    if context is not None:
        doc["context"] = context
    if notes:
        doc["notes"] = notes
    CASES.append(doc)


def loop_case(
    cid: str,
    kind: str,
    src: str,
    head: str,
    copies: list[str],
    *,
    first_copy: int = 3,
    late_copies: int = 6,
    late_chars: int = 1500,
    **kw: object,
) -> None:
    """A fire case: ``head`` then the copies; the window opens at the end of copy ``first_copy``."""
    text = head + "".join(copies)
    ends = []
    pos = len(head)
    for c in copies:
        pos += len(c)
        ends.append(pos)
    lo = ends[first_copy - 1] - 1
    hi = max(ends[min(len(ends), first_copy + late_copies) - 1] - 1, lo + late_chars)
    case(cid, kind, src, text, verdict="fire", window=(lo, hi), **kw)  # type: ignore[arg-type]


def vary(base: str, rng: random.Random, swaps: dict[str, list[str]]) -> str:
    out = base
    for word, options in swaps.items():
        out = out.replace(word, rng.choice(options), 1)
    return out


def build() -> None:
    rng = random.Random(13)
    answer = paragraphs(readme_section("### How it decides (short)"))[0] + "\n\n"
    intro = paragraphs(source("plateau-readme-snapshot.md"))[0] + "\n\n"
    design = paragraphs(source("plateau-evaluation-doc-snapshot.md"))

    # ---------------------------------------------------------------- runs of one token
    loop_case(
        "E01-zeros-after-answer",
        "a stream of zeros after a plausible answer",
        "reconstruction of llama.cpp/ollama reports of quantised models emitting 0 tokens",
        answer,
        ["0"] * 1500,
        first_copy=64,
        late_copies=0,
        late_chars=400,
        notes="One digit repeated; a 64-bit literal is shorter than the window's start.",
    )
    loop_case(
        "E02-G-token-run",
        "one letter token repeated ('GGGG')",
        "reconstruction of ggml-org/llama.cpp issue 18925 (a converted model streams 'G')",
        "Sure, the conversion worked. Here is the output:\n\n",
        ["G"] * 1200,
        first_copy=64,
        late_copies=0,
        late_chars=400,
    )
    case(
        "E03-hexdump-zeros-legit",
        "hexdump full of 00 bytes (legitimate)",
        "hexdump -C /bin/true (real output)",
        "The ELF header of /bin/true, as hexdump shows it:\n\n```\n" + source("hexdump-bin-true.txt") + "```\n",
        verdict="no-fire",
        notes="Long rows of '00' bytes that vary in their offsets and neighbours.",
    )

    # ---------------------------------------------------------------- stutter
    words = answer.split(" ")
    loop_case(
        "E04-quadrupled-tokens",
        "every token quadrupled by the client ('TheTheTheThe')",
        "reconstruction of vinayak-mehta/ipychat issue 4 (duplicated streaming deltas)",
        "",
        [w * 4 + " " for w in words],
        first_copy=8,
        late_copies=0,
        late_chars=700,
    )
    loop_case(
        "E05-doubled-words",
        "every word doubled ('The The design design')",
        "reconstruction of prime-agent and ipychat reports of doubled deltas",
        intro,
        [f"{w} {w} " for w in words],
        first_copy=10,
        late_copies=0,
        late_chars=700,
    )
    text = intro.replace("the same", "the the same", 1) + answer.replace("is the", "is is the", 1)
    case(
        "E06-rare-doubled-word-legit", "prose with a doubled word or two (legitimate)", "README of this repository", text, verdict="no-fire"
    )

    # ---------------------------------------------------------------- chants
    chant = []
    for _ in range(90):
        chant.append(rng.choice(["let me (", "let me (", "let me  (", "Let me ("]) + rng.choice([" ", " ", "  ", "\n"]))
    loop_case(
        "E07-let-me-chant",
        "a short chant 'let me (' with drifting spaces and case",
        "reconstruction of aider reasoning logs",
        "I need to compute the total of the three invoices. ",
        chant,
        channel="reasoning",
        first_copy=6,
        late_copies=20,
        late_chars=400,
    )
    code_src = source("cpython-3.11-operator-functions.py.txt")
    case(
        "E08-code-many-parens-legit",
        "real code with the same call shapes on every line (legitimate)",
        "CPython 3.11 Lib/operator.py",
        "```python\n" + code_src + "```\n",
        verdict="no-fire",
        channel="tool_args",
        notes="Dozens of 'def f(a, b):\\n    \"Same as a X b.\"\\n    return a X b' functions: a template "
        "whose slot changes every time, not a loop.",
    )

    # ---------------------------------------------------------------- self-dialogue
    turns = []
    for _ in range(12):
        q = rng.choice(["Can you explain that again?", "Could you explain it again, please?", "Can you explain that once more?"])
        a = rng.choice(["Sure! As I said, the guard watches each step.", "Of course. As I said, the guard watches every step."])
        turns.append(f"<|im_end|>\n<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n{a}")
    loop_case(
        "E09-chatml-self-dialogue",
        "the model writes both sides of a ChatML conversation",
        "reconstruction of lm-sys/FastChat issue 1713 (a model talks to itself after 'hi')",
        "Hello! How can I help you today?",
        turns,
        first_copy=3,
        late_copies=4,
    )
    dialog = []
    for _ in range(10):
        dialog.append(
            "\nUser: "
            + rng.choice(["are you still there?", "are you there?", "hello, are you still there?"])
            + "\nBot: "
            + rng.choice(["yes, I'm still here.", "yes, I am still here.", "I'm still here, yes."])
        )
    loop_case(
        "E10-plain-self-dialogue",
        "'User:'/'Bot:' turns written by the model itself, alike each time",
        "reconstruction of microsoft/DialoGPT self-dialogues",
        "Bot: I'm here to help.",
        dialog,
        first_copy=3,
        late_copies=4,
    )
    doc = (
        "ChatML wraps every message in markers. A short exchange looks like this:\n\n```\n"
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
        "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n"
        "<|im_start|>assistant\nThe capital of France is Paris.<|im_end|>\n"
        "<|im_start|>user\nAnd of Italy?<|im_end|>\n"
        "<|im_start|>assistant\nRome.<|im_end|>\n```\n\n"
        "The model's reply ends with <|im_end|>; a server that does not stop on it lets the model go on "
        "writing a user turn of its own.\n"
    )
    case(
        "E11-chatml-documentation-legit",
        "documentation showing a ChatML exchange (legitimate)",
        "ChatML format as documented by its authors; written for this set",
        doc,
        verdict="no-fire",
    )
    faq = "".join(
        f"User: {q}\nAssistant: {a}\n\n"
        for q, a in [
            ("How do I start the server?", "Run plateau serve --port 50051."),
            ("Can I keep runs across restarts?", "Yes, the default SQLite store keeps them."),
            ("What does a steer mean?", "Inject the message into the agent's next turn."),
            ("How is a trip different?", "A trip stops the run; only evidence trips."),
            ("Where are the limits documented?", "In the README, under Running it as a service."),
        ]
    )
    case(
        "E12-transcript-example-legit",
        "an example transcript with User:/Assistant: turns that differ (legitimate)",
        "README of this repository (answers), written for this set",
        "Here is a short FAQ.\n\n" + faq,
        verdict="no-fire",
    )

    # ---------------------------------------------------------------- templated reasoning
    loop = []
    for _ in range(30):
        loop.append(
            vary(
                "Wait, let me recount the fields. The header has 27 names and the row has 51 values, so the extra "
                "delimiter must come from the quoted comma. Let me check the quoting rules again. ",
                rng,
                {
                    "recount": ["recount", "count again", "re-check"],
                    "must come": ["must come", "probably comes", "comes"],
                    "check": ["check", "look at", "verify"],
                },
            )
        )
    loop_case(
        "E13-wait-let-me-recount",
        "a templated reasoning loop restating the same steps in other words",
        "reconstruction of aider reasoning logs and deepseek-ai/DeepSeek-V3.2-Exp issue 46",
        "The user wants the CSV row appended only if the header matches. ",
        loop,
        channel="reasoning",
        first_copy=3,
        late_copies=6,
    )
    reasoning = " ".join(design[:12]) + "\n"
    case(
        "E14-converging-reasoning-legit",
        "a long reasoning trace that converges, recurring vocabulary (legitimate)",
        "docs/evaluation.md of this repository, read as a reasoning trace",
        reasoning,
        verdict="no-fire",
        channel="reasoning",
    )

    # ---------------------------------------------------------------- line loops after an answer
    loop_case(
        "E15-line-loop-after-answer",
        "a good answer, then one line repeated",
        "reconstruction of microsoft/DialoGPT issue 90 and Qwen3 line loops",
        answer,
        ["Let me know if you have any other questions!\n"] * 40,
        first_copy=3,
        late_copies=6,
    )
    loop_case(
        "E16-sentence-loop-after-answer",
        "an answer, then one sentence repeated without newlines",
        "reconstruction of microsoft/DialoGPT issue 90 ('I'm gonna have to go.')",
        "I'm not scared. I'm just saying, you're not gonna be able to take this from me. ",
        ["I'm gonna have to go. "] * 40,
        first_copy=3,
        late_copies=8,
    )
    case(
        "E17-pytest-verbose-log-legit",
        "a test runner's verbose log: one 'PASSED' line per test (legitimate)",
        "pytest -v on tests/test_evaluate.py and tests/test_types.py of this repository (real output)",
        "Running the tests:\n\n" + source("pytest-verbose.log"),
        verdict="no-fire",
    )
    case(
        "E18-ruff-report-legit",
        "a linter report: many lines of the same shape (legitimate)",
        "ruff check --select ALL on CPython 3.11 Lib/token.py (real output)",
        "The linter says:\n\n```\n" + source("ruff-select-all-token.txt") + "```\n",
        verdict="no-fire",
    )

    # ---------------------------------------------------------------- drift: counters, perturbed lists, substitutions
    steps = [f"Step {i}: I will open the config file again and check whether the port value is set correctly.\n" for i in range(12, 60)]
    loop_case(
        "E19-counter-drift",
        "a loop whose only change is a counter",
        "reconstruction of Qwen3 / smolagents step loops",
        "Let me fix the port problem.\n",
        steps,
        first_copy=3,
        late_copies=6,
    )
    items = ["check the logs", "restart the worker", "clear the cache", "rerun the failing test"]
    rounds = []
    for _ in range(12):
        order = items[:]
        rng.shuffle(order)
        swap = rng.randrange(len(order))
        order[swap] = order[swap].replace("the ", rng.choice(["the ", "our ", "that "]), 1)
        rounds.append("Plan:\n" + "".join(f"- {x}\n" for x in order) + "I will do these now.\n\n")
    loop_case(
        "E20-perturbed-list-rounds",
        "a plan list repeated each round with items reordered and a word changed",
        "reconstruction of agent plan loops (smolagents with Qwen3)",
        intro,
        rounds,
        first_copy=3,
        late_copies=5,
    )
    para = paragraphs(readme_section("## Running it as a service"))[0]
    subs = {"durable": ["durable", "persistent"], "restarted": ["restarted", "rebooted"], "continues": ["continues", "resumes"]}
    copies = [vary(para, rng, subs) + "\n\n" for _ in range(8)]
    loop_case(
        "E21-real-text-loop-with-substitutions",
        "a real paragraph looped with a word substituted here and there",
        "README of this repository, looped as in the reconstructions of public reports",
        answer,
        copies,
        first_copy=3,
        late_copies=3,
    )
    case(
        "E22-generated-enum-legit",
        "generated constants: NAME = 1, one per line (legitimate)",
        "CPython 3.11 Lib/token.py (generated by Tools/scripts/generate_token.py)",
        "```python\n" + source("cpython-3.11-token-constants.py.txt") + "```\n",
        verdict="no-fire",
        channel="tool_args",
    )
    case(
        "E23-training-log-legit",
        "a training log whose numbers change every line (legitimate)",
        "a numpy logistic-regression run printing one line per epoch (real output)",
        "Training:\n" + source("logreg-training.log"),
        verdict="no-fire",
    )
    table = readme_section("## Evaluation")
    case("E24-markdown-table-legit", "markdown tables of results (legitimate)", "README of this repository", table, verdict="no-fire")
    enum_doc = "".join(
        f"- `{name}`: returns the value of the `{name}` field of this record.\n"
        for name in [
            "id",
            "name",
            "email",
            "phone",
            "address",
            "city",
            "country",
            "created_at",
            "updated_at",
            "owner",
            "status",
            "tags",
            "notes",
            "score",
            "rank",
            "region",
        ]
    )
    case(
        "E25-templated-field-docs-legit",
        "generated field documentation: one sentence per field, one word changes (legitimate)",
        "written for this set in the shape of generated API docs",
        "Fields:\n\n" + enum_doc,
        verdict="no-fire",
    )

    # ---------------------------------------------------------------- the request's context
    case(
        "E26-requested-ok-50-legit",
        "the user asked for 'OK' 50 times",
        "the false fire of the issue's reconstruction set",
        "OK\n" * 50,
        verdict="no-fire",
        context="Print OK 50 times, one per line, nothing else.",
    )
    loop_case(
        "E27-requested-ok-50-got-500",
        "the user asked for 'OK' 50 times and got 500",
        "the issue's bound case: a bound read from the request does not excuse ten times that",
        "",
        ["OK\n"] * 500,
        first_copy=100,
        late_copies=80,
        late_chars=240,
        context="Print OK 50 times, one per line, nothing else.",
        notes="The window opens at twice the bound (copy 100: clearly more than asked) and closes 80 copies later.",
    )
    case(
        "E28-requested-sentence-30-legit",
        "the user asked for a sentence written 30 times",
        "a classic punishment line, requested",
        "I will not talk in class.\n" * 30,
        verdict="no-fire",
        context="Write the sentence 'I will not talk in class.' 30 times.",
    )
    case(
        "E29-requested-buffalo-legit",
        "the user asked for a word over and over, no number",
        "the 'buffalo' sentence, requested",
        "Buffalo " * 120 + "\n",
        verdict="no-fire",
        context="Repeat the word 'buffalo' over and over, about a hundred times.",
    )
    loop_case(
        "E30-unrequested-ok-run",
        "'OK' lines nobody asked for, after an answer",
        "the same output as E27 without the request",
        answer,
        ["OK\n"] * 300,
        first_copy=12,
        late_copies=60,
        late_chars=240,
    )

    # ---------------------------------------------------------------- semantic chant
    chant2 = []
    for _ in range(20):
        chant2.append(
            " ".join(
                rng.sample(
                    ["I'll do it.", "I'll implement it.", "I'll start now.", "I'll begin coding.", "I'll write the code.", "Let me do it."],
                    4,
                )
            )
            + " "
        )
    loop_case(
        "E31-ill-do-it-chant",
        "near-identical short sentences cycling in new orders ('I'll do it. I'll implement it.')",
        "reconstruction of can1357/oh-my-pi issue 8701",
        "I have read the five files. The plan is clear. ",
        chant2,
        channel="reasoning",
        first_copy=4,
        late_copies=8,
    )
    told = []
    for _ in range(10):
        told.append(
            rng.choice(["You're right, ", "You are right: ", "Right, "])
            + "the problem is in the badge logic: it only reads the live premium and, when it is missing, "
            "calls the fund discounted, although the official premium is "
            f"{rng.choice(['25', '25.0'])}%. I will fix it.\n\nRead file\n\n"
        )
    loop_case(
        "E32-youre-right-paragraph-loop",
        "the same fix announced again and again with small wording changes",
        "reconstruction (in English) of BigPizzaV3/CodexPlusPlus issue 1516",
        "Found it.\n\nRead file\n\n",
        told,
        first_copy=3,
        late_copies=4,
    )

    # ---------------------------------------------------------------- refrains and non-ASCII
    raven = (
        "Once upon a midnight dreary, while I pondered, weak and weary,\n"
        "Over many a quaint and curious volume of forgotten lore—\n"
        "While I nodded, nearly napping, suddenly there came a tapping,\n"
        "As of some one gently rapping, rapping at my chamber door.\n"
        '"\'Tis some visitor," I muttered, "tapping at my chamber door—\n'
        '            Only this and nothing more."\n\n'
        "Ah, distinctly I remember it was in the bleak December;\n"
        "And each separate dying ember wrought its ghost upon the floor.\n"
        "Eagerly I wished the morrow;—vainly I had sought to borrow\n"
        "From my books surcease of sorrow—sorrow for the lost Lenore—\n"
        "For the rare and radiant maiden whom the angels name Lenore—\n"
        "            Nameless here for evermore.\n\n"
        "And the silken, sad, uncertain rustling of each purple curtain\n"
        "Thrilled me—filled me with fantastic terrors never felt before;\n"
        "So that now, to still the beating of my heart, I stood repeating\n"
        "\"'Tis some visitor entreating entrance at my chamber door—\n"
        "Some late visitor entreating entrance at my chamber door;—\n"
        '            This it is and nothing more."\n'
    )
    case(
        "E33-poem-refrain-legit",
        "a poem whose stanzas end on a refrain (legitimate)",
        "Edgar Allan Poe, 'The Raven' (1845, public domain), first three stanzas",
        raven,
        verdict="no-fire",
    )
    cjk = "我是甄嬛，家父是大理寺少卿甄远道。"
    loop_case(
        "E34-cjk-sentence-loop",
        "one Chinese sentence repeated without spaces",
        "reconstruction of datawhalechina/self-llm issue 237",
        "好的，我来扮演这个角色。",
        [cjk] * 40,
        first_copy=3,
        late_copies=8,
    )

    dev_cases()


def dev_cases() -> None:
    """Synthetic dev cases (E35-E44) for the copies rule, written with the rule they check.

    Windows follow the rule of the set: they open when the evidence is complete for a reader
    (the 3rd copy of a sentence, 32 characters of a short unit or a token run, the start of the
    3rd template pair, the start of the 3rd re-check) and close at the 5th copy, 96 characters
    plus one 64-character block, the end of the 4th pair, the end of the 5th re-check.
    """
    rng = random.Random(35)
    answer = paragraphs(readme_section("### How it decides (short)"))[0] + "\n\n"
    loop_case(
        "E35-short-sentence-loop",
        "a 20-character sentence repeated after an answer (dev case)",
        "synthetic dev case: the 4th-copy rule for units of 16 characters or more",
        answer,
        ["Thanks for waiting!\n"] * 40,
        first_copy=3,
        late_copies=2,
        late_chars=2 * 20 + 64,  # to the 5th copy, plus one 64-character block
    )
    chant = []
    for _ in range(60):
        chant.append(
            rng.choice(["", "(", "[", '"', "**"]) + "ok got it" + rng.choice(["", ")", "]", '"', "**", ",", ".", "!"]) + rng.choice([" ", "  ", "\n", "\t"])
        )
    loop_case(
        "E36-padded-chant",
        "a three-token phrase repeated with wandering whitespace and brackets (dev case)",
        "synthetic dev case: copies compared after folding whitespace and padding",
        "Sure, I will take care of it.\n",
        chant,
        first_copy=4,  # 4 folded copies of 'ok got it ' cover 40 >= 32 characters
        late_copies=6,  # 10 copies cover 100 >= 96
        late_chars=200,
    )
    loop_case(
        "E37-exclamation-run",
        "'!' repeated after an answer (dev case)",
        "synthetic dev case: a single-token run fires within 96 characters",
        answer,
        ["!"] * 800,
        first_copy=32,
        late_copies=0,
        late_chars=96 + 64 - 32,
    )
    loop_case(
        "E38-emoji-run",
        "one emoji repeated (dev case)",
        "synthetic dev case: a single-token run fires within 96 characters",
        "Done! Your calendar is updated. ",
        ["\U0001f389"] * 600,
        first_copy=32,
        late_copies=0,
        late_chars=96 + 64 - 32,
    )
    qa = [
        ("What time is the meeting?", "It starts at ten in room B."),
        ("Who else is coming?", "Ana and the two new engineers."),
        ("Should I bring the slides?", "Yes, the budget slides please."),
        ("Is lunch provided?", "Sandwiches arrive at noon."),
        ("Can I join remotely?", "The link is in the invitation."),
        ("When does it end?", "By half past eleven."),
    ]
    pairs = [f"<|im_end|>\n<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n{a}" for q, a in qa]
    loop_case(
        "E39-template-cycles",
        "the model writes new user turns and answers them, each pair different (dev case)",
        "synthetic dev case: self-dialogue counted per cycle, fired during the 3rd pair, never the 1st",
        "The meeting is on Thursday.",
        pairs,
        first_copy=2,  # the window opens where the 3rd pair begins
        late_copies=2,  # and closes at the end of the 4th pair
        late_chars=0,
    )
    func = "def total(items):\n    s = 0\n    for x in items:\n        if x > 0:\n            s += x\n    return s\n"
    head = "The user wants the sum of the positive numbers in a list. Here is my implementation:\n```python\n" + func + "```\n"
    checks = []
    for _ in range(20):
        checks.append(
            rng.choice(["Wait, let me check the function again:", "Hmm, let me re-check the function:", "Actually, let me look at the function once more:"])
            + "\n```python\n" + func + "```\n"
            + rng.choice(["This looks correct.", "That seems right.", "It looks correct to me."]) + " "
            + rng.choice(["The loop skips the negative numbers.", "Negative values are skipped by the if.", "The if ignores the negative numbers."]) + " "
            + rng.choice(["But what about an empty list?", "What if the list is empty, though?", "And an empty list returns 0, which is fine."])
            + "\n\n"
        )
    loop_case(
        "E40-recheck-loop",
        "the same function quoted and re-judged in templated words (dev case)",
        "synthetic dev case: a re-check loop caught between the 3rd and 5th re-check",
        head,
        checks,
        channel="reasoning",
        first_copy=2,  # the window opens where the 3rd re-check begins
        late_copies=3,  # and closes at the end of the 5th
        late_chars=0,
    )
    findings = [
        "The variable name s could be clearer, so I will call it subtotal in the docstring.",
        "Booleans are integers in Python, so True would be counted as one; the user said numbers only.",
        "A generator expression would be shorter, but the loop is easier to read for a beginner.",
        "Floating point inputs work as well because the comparison with zero is exact.",
        "The type hint should say Iterable of float, since any iterable is accepted here.",
        "Very large lists are fine: the loop keeps one running value and no copy of the data.",
    ]
    moving = head + "".join(
        rng.choice(["Let me look at the function again:", "Once more, the function:"]) + "\n```python\n" + func + "```\n" + f + "\n\n" for f in findings
    )
    case(
        "E41-recheck-moving-on-legit",
        "the same function quoted before each new finding (legitimate, dev case)",
        "synthetic dev case: a quoted passage whose commentary moves on",
        moving,
        verdict="no-fire",
        channel="reasoning",
    )
    services = ["api", "auth", "billing", "catalog", "checkout", "email", "inventory", "orders", "search", "users"]
    jmap = json.dumps({n: {"enabled": True, "retries": 3, "timeout_s": 30, "region": "eu-west-1"} for n in services}, indent=2)
    case(
        "E42-json-map-repeated-keys-legit",
        "a JSON map whose entries repeat the same keys and values (legitimate, dev case)",
        "synthetic dev case",
        "Here is the configuration:\n\n```json\n" + jmap + "\n```\n",
        verdict="no-fire",
        channel="tool_args",
    )
    literals = (
        "The parent hash of the genesis block is 0x" + "0" * 64 + ", and the burn address is 0x" + "0" * 40 + ".\n\n"
        + "=" * 88 + "\n" + "| step | status |\n|------|--------|\n| 1 | ok |\n| 2 | ok |\n| 3 | ok |\n" + "-" * 88 + "\n"
    )  # fmt: skip
    case(
        "E43-zero-literals-and-rules-legit",
        "a 64-digit zero hash, a zero address, rules and an ok column (legitimate, dev case)",
        "synthetic dev case: literals are shorter than the token-run bound",
        literals,
        verdict="no-fire",
    )
    case(
        "E44-requested-line-20-legit",
        "the user asked for a line 20 times (legitimate, dev case)",
        "synthetic dev case: what the request asks to repeat",
        "All work and no play makes Jack a dull boy.\n" * 20,
        verdict="no-fire",
        context="Write 'All work and no play makes Jack a dull boy.' 20 times.",
    )


if __name__ == "__main__":
    build()
    for old in HERE.glob("E*.json"):
        old.unlink()
    for doc in CASES:
        (HERE / f"{doc['id']}.json").write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(CASES)} cases written to {HERE}")
