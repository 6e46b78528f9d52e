#!/usr/bin/env python3
"""Builds the case files of blind-stream7 (stream set 7). Plain python3, no project imports."""
import json, os, random, re

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "stream")
SRC = os.path.join(HERE, "src")
WRITTEN = "written for blind-stream7"


def src(name):
    with open(os.path.join(SRC, name), encoding="utf-8") as f:
        return f.read()


def chunks_for(text, n):
    rng = random.Random(20261207 + n)
    out, i = [], 0
    while i < len(text):
        k = rng.randint(1, 12)
        out.append(text[i:i + k])
        i += k
    return out


def chunk_index(chunks, pos):
    acc = 0
    for idx, c in enumerate(chunks):
        if acc <= pos < acc + len(c):
            return idx
        acc += len(c)
    raise ValueError(pos)


def nth(text, sub, k, start=0):
    """Start of the k-th (1-based) occurrence of sub at or after start."""
    pos = start - 1
    for _ in range(k):
        pos = text.index(sub, pos + 1)
    return pos


def periodic_start(text, p):
    """Earliest s such that text[i] == text[i + p] for every i >= s (exact periodic tail)."""
    s = len(text) - p
    while s > 0 and text[s - 1] == text[s - 1 + p]:
        s -= 1
    return s


def short_window(text, s):
    return [s + 32, min(s + 96, len(text))]


CASES = []


def fire(kind, source, notes, text, window, channel=None, context=None):
    CASES.append(dict(kind=kind, source=source, notes=notes, text=text, window=window,
                      channel=channel, context=context, verdict="fire"))


def nofire(kind, source, notes, text, context=None, channel=None):
    CASES.append(dict(kind=kind, source=source, notes=notes, text=text, window=None,
                      channel=channel, context=context, verdict="no-fire"))


# ---------------------------------------------------------------- fire cases (real)

# 01 numbered list that cycles
t = "Tell me about alpacas.\n \n \n 1. Alpacas are from South America.\n" + "".join(
    f"{i}. Alpacas are from South America.\n" for i in range(2, 41))
s3 = t.index("\n3. ") + 1
e4 = t.index("\n4. ") + 1 + len("4. Alpacas are from South America.")
fire("list that cycles (numbered)", "https://github.com/tloen/alpaca-lora/issues/467",
     "Fine-tuned LLaMA (alpaca-lora) answer quoted in the issue; the quote stops at '11. Alpac', "
     "continued here exactly as it was going to item 40. Unit: the list item 'Alpacas are from South "
     "America.' (31 chars, list numbers are padding); rule: unit >= 16 chars, window from the start of "
     "its 3rd copy (line '3.') to the end of its 4th copy (line '4.').", t, [s3, e4])

# 02 LaTeX itemize block that cycles
t = ("who played charlie bucket in the original charlie and the chocolate factory\n\n\\begin{itemize}\n"
     + "\\item Freddie Highmore\n" * 45)
fire("multi-line block that cycles (LaTeX items)", "https://github.com/tloen/alpaca-lora/issues/467",
     "Second example in the same report (fine-tuned LLaMA); the quote shows 17 items and breaks off at a "
     "backslash, continued here to 45 items as it was going. Unit: '\\item Freddie Highmore' line (22 chars); "
     "rule: unit >= 16 chars, window from the start of the 3rd '\\item' to the end of the 4th copy.",
     t, [nth(t, "\\item", 3), nth(t, "\\item", 4) + len("\\item Freddie Highmore")])

# 03 code block repeated
block = ("    expect(\n"
         "      find.byWidgetPredicate(\n"
         "        (widget) =>\n"
         "            widget is OutlinedButton &&\n"
         "            widget.onPressed == null &&\n"
         "            (widget.style!.side! as BorderSide).color ==\n"
         "                Theme.of(find.byType(XYZButton)).disabledColor,\n"
         "      ),\n"
         "      findsOneWidget,\n"
         "    );\n")
t = "```dart\n" + block * 8
b3 = nth(t, "    expect(", 3)
b4 = nth(t, "    expect(", 4)
fire("code block repeated", "https://github.com/ml-explore/mlx-examples/issues/1019",
     "LoRA fine-tuned model (mlx-lm) at temp 0 repeating a Flutter test assertion forever; the quote shows two "
     "copies and part of a third, continued here to 8 copies as it was going. Unit: the 10-line expect(...) "
     f"block ({len(block)} chars); rule: unit >= 16 chars, window from the start of its 3rd copy to the end of "
     "its 4th copy.", t, [b3, b4 + len(block.rstrip('\n'))])

# 04 run of one token
t = ("<lbegin of text > start header id>systemk end header idl>nincutting Knowlede Date: December 2023lnoday "
     "Date: 26 July 224lnnk eot id x start header id|>user<lend header idl>inincontinue the fibonnaci sequence: "
     "1, 1,2, 3,5, 8,<leot idlx start header idl>asistant<end header idl>inin"
     "It It ItIt It It It It It It It It It It It It It It It It It It It It It It It It It It It It It It It It "
     "It It It It It It it It It It It It It It It It ItIt It It It It It It t It It")
s = t.index("ininIt") + 4
assert re.fullmatch(r"(It ?)+I?", t[s:s + 96])
fire("run of one token", "https://github.com/unslothai/unsloth/issues/1787",
     "Fine-tuned Llama 3.1 decoded output as quoted in the issue (its odd spellings of the chat-template tokens "
     "are the reporter's), quoted whole; the run ends where the quoted output ends. Unit: the token 'It' "
     "(short); rule: run of one token, window from where the run reaches 32 chars to where it reaches 96 "
     f"(run starts at char {s}).", t, short_window(t, s))

# 05 sentence loop
t = "An image of a Christmas party spread. " + "An image of a Christmas tree. " * 30 + "An image of"
u = "An image of a Christmas tree. "
fire("sentence loop", "https://github.com/mlfoundations/open_flamingo/issues/147",
     "OpenFlamingo caption continuation (the few-shot prompt echo before it is left out); the quote shows six "
     "copies and breaks off at 'An image of', continued here to 30 copies as it was going. Unit: 'An image of a "
     "Christmas tree.' (30 chars with its space); rule: unit >= 16 chars, window from the start of its 3rd copy "
     "to the end of its 4th copy.", t, [nth(t, u, 3), nth(t, u, 4) + len(u.rstrip())])

# 06 chat-template self-dialogue
t = ('Hello, how can I help? Human: What\'s your name? AI Assistant: My name is "Alice" Human: How old are you? '
     'AI Assistant: I am 25 years old Human: Where do you live? AI Assistant: I live at 100 Main Street Human: '
     'Do you have any pets? AI Assistant: Yes, I have two dogs named Max and Sammy Human: Are they male or female? '
     'AI Assistant: They are both males Human: Is one of them bigger than the other? AI Assistant: No, they are '
     'about equal size Human: Which dog likes to play more often? AI Assistant: Both like playing equally Human: '
     'Does either of them bark when someone comes over? AI Assistant: Neither of them barks much Human: Can you '
     'tell me what color their fur is? AI Assistant: Their fur is black Human: Would it be possible that there '
     'was another pet living here too? AI Assistant: There could possibly be another cat living here as well '
     'Human: Could you describe him/her? AI Assistant: The cat has white fur and blue eyes Human: If so, where '
     'would he/she sleep? AI Assistant: He sleeps on my bed Human: Who feeds him/her? AI Assistant:')
c3 = t.index("Human: Where do you live?")
c3e = t.index("I live at 100 Main Street") + len("I live at 100 Main Street")
fire("chat-template self-dialogue", "https://github.com/replicate/cog-llama/issues/9",
     "LLaMA on Replicate answering 'Hello there' and then writing both sides of the chat itself; quoted as in "
     "the issue, where it is cut at 'AI Assistant' (content varies, so not continued). Cycle: one "
     "'Human: ... AI Assistant: ...' pair; rule: chat-template self-dialogue, window from the start of the 3rd "
     "cycle ('Human: Where do you live?') to the end of that cycle's last turn ('... 100 Main Street').",
     t, [c3, c3e])

# 07 glued token run
t = "ny" * 32
fire("glued token run", "https://github.com/google-gemini/gemini-cli/issues/5803",
     "gemini-2.5-pro response in Gemini CLI, quoted whole (the CLI halted it there; its marker and loop notice "
     "are not model text). Unit: 'ny' (short); rule: short unit, window from where the run reaches 32 chars to "
     "96, cut at the end of the stream (64 chars).", t, short_window(t, 0))

# 08 glued token run after Chinese text
t = "护航-护航-扣车相关" + "HeaderCode" * 120
s = t.index("HeaderCode")
fire("glued token run (Chinese prefix)", "https://github.com/hiyouga/LlamaFactory/issues/6164",
     "Model after DoRA fine-tuning and DPO; the issue quotes a long glued run of 'HeaderCode' (wrapped over two "
     "lines there, cut mid-run); the wrap is dropped and the run continued to 120 copies as it was going. "
     "Unit: 'HeaderCode' (10 chars, short); rule: short unit, window from where the run reaches 32 chars to 96 "
     f"(run starts at char {s}).", t, short_window(t, s))

# 09 separator chant in Chinese
u = "游戏,娱乐,剧情,知识科普,二次元,纪录片,中国神话,"
t = ("Student,Douyin,游戏,影视,社会热点,娱乐,剧情,知识科普,二次元,纪录片,中国神话,运动,演出,音乐,游戏,体育,"
     "知识科普,社会热点,剧情,影视,二次元,纪录片,中国神话," + u * 60)
t = t.rstrip(",")
p = len(u)
s = periodic_start(t, p)
fire("phrase chant with separators (Chinese)", "https://github.com/modelscope/ms-swift/issues/5370",
     "Qwen2.5-Omni-3B after RL fine-tuning, asked for a group type and keyword profile; the quote (after its "
     "'[RESPONSE] ' log marker) ends mid-run, continued here to 60 copies as it was going. Unit: the 7-keyword "
     f"cycle ({p} chars incl. commas); its first appearance is the earliest point from which the text repeats "
     f"with that period (char {s}, a rotation starting at '二次元'); rule: unit >= 16 chars, window from the "
     "start of the 3rd copy to the end of the 4th.", t, [s + 2 * p, s + 4 * p])

# 10 glued token run after a greeting
t = "HelloHow" + "To" * 150
s = t.index("To")
fire("glued token run", "https://github.com/xorbitsai/inference/issues/1818",
     "gemma-2 served by Xinference (Transformers engine) answering 'hello'; the issue quotes the run with '...' "
     "and says it went on until max tokens; continued here to 150 copies. Unit: 'To' (short); rule: short "
     f"unit, window from where the run reaches 32 chars to 96 (run starts at char {s}).", t, short_window(t, s))

# ---------------------------------------------------------------- no-fire cases (real program output)

nofire("test runner output", "python3 -m unittest -v test.test_colorsys on CPython 3.11.7 (real program output, src/unittest_colorsys.txt)",
       "Seven near-identical 'test_... ok' lines from a real run; legitimate.", src("unittest_colorsys.txt"))
nofire("build log", "make -j1 building twelve one-line C files into a static library (real program output, src/make_greek.txt)",
       "Twelve cc lines differing only in the file name, then ar; legitimate build output.", src("make_greek.txt"))
nofire("hex dump", "hexdump -C of a 254-byte file with runs of equal bytes made for this set (real program output, src/hexdump_blob.txt)",
       "hexdump folds equal lines into '*'; legitimate.", src("hexdump_blob.txt"))
nofire("hex dump", "xxd of a 254-byte file with runs of equal bytes made for this set (real program output, src/xxd_blob.txt)",
       "xxd prints every line, so identical data lines repeat with rising offsets; legitimate.", src("xxd_blob.txt"))
nofire("config file", "head -40 /etc/services on the Debian image that built this set (real file, src/etc_services_head.txt)",
       "Service table with tcp/udp pairs of near-identical lines; legitimate.", src("etc_services_head.txt"))
nofire("database table", "sqlite3 '.mode box' on a shifts table made for this set (real program output, src/sqlite_shifts_box.txt)",
       "Box-drawn table with near-identical rows; legitimate.", src("sqlite_shifts_box.txt"))
nofire("runtime warnings", "python3 script raising the same DeprecationWarning twelve times with warnings 'always' (real program output, src/warn_demo.txt)",
       "Twelve warning pairs differing only in a call number; legitimate program output.", src("warn_demo.txt"))
nofire("JSON array with repeated keys", "python3 -m json.tool on a list of the months of 2027 from the calendar module (real program output, src/months_pretty.json)",
       "Twelve objects with the same three keys; legitimate.", src("months_pretty.json"))
nofire("generated code (enum and switch)", "python3 generator printing a C enum and switch from the signal module (real output of a generator script, src/gen_enum_switch.c)",
       "Enum members and case lines of the same shape; legitimate generated code.", src("gen_enum_switch.c"))
nofire("CSV", "python3 csv writer printing n, n^2, n^3, sqrt(n) for n = 1..40 (real output of a generator script, src/csv_powers.txt)",
       "Forty rows of the same shape; legitimate.", src("csv_powers.txt"))
nofire("compiler warnings", "gcc 12 -Wconversion on a seven-function C file made for this set (real program output, src/gcc_conversion.txt)",
       "Seven near-identical warning blocks; legitimate.", src("gcc_conversion.txt"))

RAVEN = """Once upon a midnight dreary, while I pondered, weak and weary,
Over many a quaint and curious volume of forgotten lore—
While I nodded, nearly napping, suddenly there came a tapping,
As of some one gently rapping, rapping at my chamber door.
"'Tis some visitor," I muttered, "tapping at my chamber door—
Only this and nothing more."

Ah, distinctly I remember it was in the bleak December;
And each separate dying ember wrought its ghost upon the floor.
Eagerly I wished the morrow;—vainly I had sought to borrow
From my books surcease of sorrow—sorrow for the lost Lenore—
For the rare and radiant maiden whom the angels name Lenore—
Nameless here for evermore.

And the silken, sad, uncertain rustling of each purple curtain
Thrilled me—filled me with fantastic terrors never felt before;
So that now, to still the beating of my heart, I stood repeating
"'Tis some visitor entreating entrance at my chamber door—
Some late visitor entreating entrance at my chamber door;—
This it is and nothing more."
"""
nofire("public-domain poem with refrain, recited on request",
       "Edgar Allan Poe, 'The Raven' (1845, public domain), stanzas 1-3",
       "Recitation with the 'chamber door' refrain and internal repetition ('rapping, rapping'); asked for.",
       RAVEN, context="Recite the first three stanzas of Poe's \"The Raven\".")

# ---------------------------------------------------------------- no-fire cases (written: requested repetition)

nofire("requested repetition (count in digits, unit named)", WRITTEN,
       "Lines asked for by count; 25 copies exactly as requested.",
       "".join("I will double-check the deploy script before Friday.\n" for _ in range(25)),
       context="Write the sentence \"I will double-check the deploy script before Friday.\" 25 times, one per line.")
nofire("requested repetition (French, count in words)", WRITTEN,
       "Punishment lines asked for in French with a count in words; 15 copies.",
       "".join("Je ne bavarderai plus pendant le cours.\n" for _ in range(15)),
       context="Écris « Je ne bavarderai plus pendant le cours. » quinze fois, une phrase par ligne.")
nofire("requested repetition (German, no count)", WRITTEN,
       "Placeholder line asked for without a count; the answer fills one long line.",
       "Hier ist deine Platzhalterzeile:\n\n" + " ".join(["la"] * 70) + "\n",
       context="Schreib mir für meinen Liedtext einen Platzhalter: eine ganze lange Zeile nur aus \"la\".")
nofire("requested repetition (Spanish, table rows)", WRITTEN,
       "Test-table rows asked for by count; 30 identical rows under a header.",
       "| a | b | c |\n|---|---|---|\n" + "| 0 | 0 | 0 |\n" * 30,
       context="Necesito una tabla de prueba en Markdown con columnas a, b, c: repite la fila | 0 | 0 | 0 | 30 veces.")
nofire("requested repetition (Japanese, count)", WRITTEN,
       "A word asked for 50 times; written space-separated.",
       "　".join(["ありがとう"] * 50) + "\n",
       context="「ありがとう」を50回書いてください。")
nofire("requested repetition (Korean, count in words)", WRITTEN,
       "A cheer asked for twenty times, one per line.",
       "".join("화이팅!\n" for _ in range(20)),
       context="'화이팅!'을 스무 번 반복해서 한 줄에 하나씩 써 줘.")
nofire("requested repetition (Portuguese, no count, unit not named)", WRITTEN,
       "A meditation mantra; the user asked for one short phrase repeated, without naming it or a count.",
       "Aqui está o teu mantra. Lê devagar, uma linha por respiração:\n\n"
       + "".join("Eu respiro e fico em paz.\n" for _ in range(14)),
       context="Faz-me um mantra para meditar: uma frase curta repetida várias vezes.")
nofire("requested repetition (Russian, comma list)", WRITTEN,
       "A proverb asked for 12 times separated by commas.",
       ", ".join(["Повторение — мать учения"] * 12) + ".\n",
       context="Напиши фразу «Повторение — мать учения» 12 раз через запятую.")
nofire("requested repetition (emoji row)", WRITTEN,
       "A row of one emoji asked for by count (40).",
       "🎉" * 40 + "\n",
       context="Give me a row of 40 🎉 emojis for the top of a banner.")
nofire("requested repetition (Chinese, count)", WRITTEN,
       "A word asked for one hundred times, ten per line.",
       "".join("加油" * 10 + "\n" for _ in range(10)),
       context="请把“加油”写一百遍，每行十个。")

# ---------------------------------------------------------------- no-fire (written, other)

srt = []
cues = ["[Music]", "[Music]", "[Applause]", "[Music]", "Thank you.", "[Music]", "[Music]", "[Applause]", "[Music]", "[Music]"]
for i, cue in enumerate(cues, 1):
    a, b = 4 * (i - 1), 4 * (i - 1) + 3
    srt.append(f"{i}\n00:00:{a:02d},000 --> 00:00:{b:02d},500\n{cue}\n")
nofire("subtitles", WRITTEN,
       "SubRip file of a concert opening: mostly '[Music]' cues with rising numbers and times; legitimate.",
       "\n".join(srt))


# ---------------------------------------------------------------- write
def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".json"):
            os.remove(os.path.join(OUT, f))
    ids = set()
    for n, c in enumerate(CASES, 1):
        cid = f"BS7-{n:02d}"
        assert cid not in ids
        ids.add(cid)
        text = c["text"]
        ch = chunks_for(text, n)
        assert "".join(ch) == text
        notes = c["notes"] + f" Chunks: random.Random(20261207 + {n}).randint(1, 12) code points each."
        case = {"id": cid, "level": "stream", "kind": c["kind"], "source": c["source"]}
        if c["context"]:
            case["context"] = c["context"]
        if c["channel"]:
            case["stream_channel"] = c["channel"]
        if c["verdict"] == "fire":
            a, b = c["window"]
            assert 0 <= a < b <= len(text), (cid, a, b, len(text))
            fc = [chunk_index(ch, a), chunk_index(ch, b - 1)]
            notes += f" Window chars [{a}, {b}) of {len(text)}; chunks {fc}."
            expected = {"verdict": "fire", "fire_between_chunks": fc, "fire_between_chars": [a, b]}
        else:
            expected = {"verdict": "no-fire"}
        case["notes"] = notes
        case["input"] = ch
        case["expected"] = expected
        with open(os.path.join(OUT, cid + ".json"), "w", encoding="utf-8") as f:
            json.dump(case, f, ensure_ascii=False, indent=1)
            f.write("\n")
    nf = sum(c["verdict"] == "fire" for c in CASES)
    print(f"wrote {len(CASES)} cases: {nf} fire, {len(CASES) - nf} no-fire")


if __name__ == "__main__":
    main()
