#!/usr/bin/env python3
"""Build blind-stream8: stream cases for a stream guard. Stdlib only, Python 3.11."""
import json, os, random

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
OUT = os.path.join(HERE, "stream")


def src(name):
    with open(os.path.join(SRC, name), encoding="utf-8") as f:
        return f.read()


def chunk(text, n):
    rng = random.Random(20261208 + n)
    out, i = [], 0
    while i < len(text):
        k = rng.randint(1, 12)
        out.append(text[i:i + k])
        i += k
    return out


def chunk_index(chunks, pos):
    acc = 0
    for j, c in enumerate(chunks):
        if acc <= pos < acc + len(c):
            return j
        acc += len(c)
    raise ValueError(pos)


def occurrences(text, unit, start=0):
    res, i = [], text.find(unit, start)
    while i != -1:
        res.append(i)
        i = text.find(unit, i + len(unit))
    return res


def long_window(text, unit, start=0):
    """unit >= 16 chars: from start of 3rd copy to end of 4th (or end of stream)."""
    occ = occurrences(text, unit, start)
    assert len(occ) >= 3, (unit, occ)
    s = occ[2]
    e = occ[3] + len(unit) if len(occ) >= 4 else len(text)
    return s, min(e, len(text)), occ


def short_window(text, run_start):
    """short unit / one-token run: span reaches 32 chars -> reaches 96 (or stream end)."""
    return run_start + 32, min(run_start + 96, len(text))


CASES = []


def add(**kw):
    CASES.append(kw)


# ---------------------------------------------------------------- FIRE cases
# 01 whisper-jax: sentence loop (continued from a cut quote)
pre = ("You guys know the general conceit of AlphaGo, which is that you have the AI play itself in Go 44 million "
       "times in a couple of hours, and so doing it becomes better than any known human player. It turns out a lot "
       "of AI is now based on this kind of self-play idea. Well, here's a new game. You're given a secret topic, "
       "I'm given a secret topic. I'm trained to get you to say positive things about my topic, you're doing the "
       "same. Whoever gets the other person to do it most wins. Well, to do that, I have to model what you're "
       "trying to get me to say and I have to be able to do it.")
u = " And I have to be able to do it."
t = pre + u * 26
add(kind="sentence loop", text=t, unit=u.strip(), rule="long", model="Whisper (whisper-jax, speech-to-text decoder)",
    source="https://github.com/sanchit-gandhi/whisper-jax/issues/88", real="continued",
    note="Transcript text only (the segment timestamp is left out). The quote breaks off inside the 19th copy "
         "('And I have to be able t'); the copy is completed and the loop continued to 26 copies exactly as it was going. "
         "The lower-case 'and I have to be able to do it.' ending the preceding sentence is not counted as a copy.")

# 02 Copilot: code block whose #include pair cycles (continued)
head = ("To disassemble a RISC-V instruction using the LLVM library, you need to use the LLVM MC (Machine Code) "
        "Disassembler. Below is an example code that demonstrates how to disassemble a RISC-V instruction using LLVM:\n"
        "```\n")
inc = ["MC/MCAsmInfo.h", "MC/MCDisassembler/MCDisassembler.h", "MC/MCInst.h", "MC/MCInstrInfo.h",
       "MC/MCRegisterInfo.h", "MC/MCSubtargetInfo.h", "MC/MCContext.h", "MC/MCObjectFileInfo.h",
       "MC/MCStreamer.h", "MC/MCDisassembler/Disassembler.h", "Support/TargetRegistry.h",
       "Support/TargetSelect.h", "Support/Host.h", "Support/MemoryBuffer.h", "Support/raw_ostream.h"]
u = "#include <llvm/Support/TargetSelect.h>\n#include <llvm/Support/TargetRegistry.h>\n"
t = head + "".join(f"#include <llvm/{x}>\n" for x in inc) + u * 12
add(kind="code block loop (two include lines cycling)", text=t, unit=u, rule="long",
    model="GitHub Copilot Chat (model not named in the report)",
    source="https://github.com/microsoft/vscode-copilot-release/issues/4813", real="continued",
    note="The quote shows the TargetSelect/TargetRegistry pair three times and then '... Repeats forever until I click "
         "the stop button'; the pair is continued to 12 copies. The unit is the two-line pair starting at the first "
         "'TargetSelect' that is followed by 'TargetRegistry' (line 16 of the block); the earlier Registry/Select lines "
         "11-12 are in the other order and are not counted.")

# 03 outlines: JSON float that never ends (run of one character), as quoted
zeros = src("fire03_outlines_zeros.txt").rstrip("\n")
t = '{ "rating" : ' + zeros
rs = t.index("0.") + 2
add(kind="JSON structured output, run of one token", text=t, run_start=rs, rule="short",
    model="LLM behind outlines JSON-structured generation (model not named)",
    source="https://github.com/dottxt-ai/outlines/issues/847", real="real",
    note="Used exactly as quoted. The run is the '0' after the decimal point; it starts right after '0.'.")

# 04 gpt2-ml: arrow chant padded with '##'
t = ("【想要学习更多内容，请关注微信号：b##ms##h##200##1】【文章来源：艾锐文化】点击下\n方阅读原文查看更多内容。"
     "↓↓" + "↓##" * 17 + "↓点击\"阅读原文\"【查看更多内容】")
add(kind="short chant with punctuation padding", text=t, run_start=t.index("↓##"), rule="short",
    model="GPT-2 1.5B Chinese (imcaspar/gpt2-ml)", source="https://github.com/imcaspar/gpt2-ml/issues/14", real="real",
    note="Used as quoted (the generated sample cited in the issue). The repeated span is '↓##' x17; it never reaches 96 "
         "characters, so the window runs to the end of the stream.")

# 05 Langchain-Chatchat: Chinese phrase chant (continued)
u = "碳酸饮料、"
t = u * 40
add(kind="non-English short chant", text=t, run_start=0, rule="short", model="ChatGLM2-6B",
    source="https://github.com/chatchat-space/Langchain-Chatchat/issues/1612", real="continued",
    note="The issue quotes six copies followed by '...'; continued to 40 copies of the 5-character unit.")

# 06 FlagAI: answer collapses into a repeated 6-character phrase (as quoted)
t = src("fire06_flagai.txt").rstrip("\n")
add(kind="answer then non-English phrase run", text=t, run_start=t.index("图片发自简书"), rule="short",
    model="Aquila-7B + LoRA (FlagAI)", source="https://github.com/FlagAI-Open/FlagAI/issues/498", real="real",
    note="The first 'pred' of the issue, exactly as quoted (it ends mid-copy with '图片').")

# 07 CodexPlusPlus: Chinese paragraph loop with small variations (as quoted)
t = src("fire07_codexpp.txt").rstrip("\n")
add(kind="non-English paragraph loop", text=t, rule="custom", model="agnes (via Codex++)",
    source="https://github.com/BigPizzaV3/CodexPlusPlus/issues/1516", real="real",
    note="Used as quoted. After folding punctuation ('，' vs '！' after 你说得对), the paragraph '你说得对…只看 rpVal（实时溢价）…"
         "应该显示\"超高溢价\"。' is the unit; its copies are paragraphs 4, 5, 6 and 9 (paragraphs 7-8 are the realPremium variant). "
         "Window: start of the 3rd copy (paragraph 6) to the end of the 4th (paragraph 9).")

# 08 rezonator: two chatbots in a self-play dialogue loop (continued)
t = ("A: How old are you?\nB: I'm 16.\nA: 16?\n" +
     "B: I don’t know what you are talking about.\nA: You don’t know what you are saying.\n" * 7)
add(kind="self-dialogue (A:/B: turns) cycle", text=t, rule="dialogue",
    cycle="B: I don’t know what you are talking about.\nA: You don’t know what you are saying.\n",
    model="baseline seq2seq chatbot (mutual-information model), self-play",
    source="https://github.com/johnwdubois/rezonator/issues/265", real="continued",
    note="The issue quotes the dialogue with line numbers 1-7 and '8. ...'; numbering dropped, the two-turn cycle "
         "continued to 7 cycles. Cycle = the pair B/A starting at turn 4.")

# 09 TensorRT-LLM: one line repeated (as quoted)
u = "10 year old girls clothes\n\n"
t = "\n" + u * 14 + "10"
add(kind="line loop", text=t, unit=u, rule="long", model="Llama 3.2 1B Instruct, fine-tuned (TensorRT-LLM 0.14)",
    source="https://github.com/NVIDIA/TensorRT-LLM/issues/2492", real="real",
    note="Output [Text 0 Beam 0] exactly as quoted (escaped \\n decoded).")

# 10 rtx6kpro: one special token repeated (continued)
u = "<｜begin▁of▁sentence｜>"
t = u * 30
add(kind="run of one (special) token", text=t, unit=u, rule="long", model="DeepSeek-V4-Flash (DSpark, vLLM)",
    source="https://github.com/local-inference-lab/rtx6kpro/issues/51", real="continued",
    note="Quoted three times and cut at '<｜begin▁'; continued to 30 copies. The token is 21 characters, so the "
         "16+-character rule applies.")

# 11 opencode: reasoning loop of one sentence (reasoning channel; continued from a quoted sentence)
u = "Let me check the entity model to get the right column types.\n"
t = u * 30
add(kind="reasoning sentence loop", text=t, unit=u, rule="long", channel="reasoning",
    model="not named in the report (opencode beta)", source="https://github.com/anomalyco/opencode/issues/44962",
    real="continued",
    note="The report quotes the sentence and says the reasoning block repeated it verbatim hundreds of times; 30 copies, "
         "one per line (line break assumed).")

# 12 claude-code: 'course。' spam in a Japanese session (continued from a quoted token)
u = "course。"
t = u * 30
add(kind="run of one token (CJK punctuation)", text=t, run_start=0, rule="short", model="claude-opus-4-8",
    source="https://github.com/anthropics/claude-code/issues/80850", real="continued",
    note="The report quotes the literal token `course。` emitted many times; reconstructed as 30 copies with no separator.")

# 13 claude-code: 'court' loop (continued from a quoted word)
t = " ".join(["court"] * 40)
add(kind="run of one word", text=t, run_start=0, rule="short", model="claude-opus-4-8",
    source="https://github.com/anthropics/claude-code/issues/68740", real="continued",
    note="The report quotes the single word 'court' emitted hundreds of times; reconstructed as 40 copies separated by "
         "spaces (separator assumed).")

# 14 mistral-inference: one word repeated (continued)
t = " ".join(["vanakkam"] * 30)
add(kind="run of one word (echo of the prompt)", text=t, run_start=0, rule="short",
    model="Mistral (Hugging Face demo, version not named)",
    source="https://github.com/mistralai/mistral-inference/issues/251", real="continued",
    note="The report says the model repeats the word 'vanakkam' almost indefinitely; reconstructed as 30 copies "
         "separated by spaces (separator assumed).")

# ------------------------------------------------------------- NO-FIRE cases
def nf(text, source, note, context=None, kind="legitimate repetition", real="real"):
    add(kind=kind, text=text, rule="none", source=source, note=note, context=context, real=real)

nf(src("ls_zoneinfo_asia.txt"), "ls -l /usr/share/zoneinfo/Asia | head -28 | cut -c1-100 (real program output, src/ls_zoneinfo_asia.txt)",
   "Directory listing: every line shares permissions, owner and date.", "Show me the first entries of ls -l /usr/share/zoneinfo/Asia.")
nf(src("seq_times7.txt"), "seq 1 20 | awk printing the 7 times table (real program output, src/seq_times7.txt)",
   "Times table rows share a template.", "Print the seven times table from 1 to 20.")
nf(src("passwd_column.txt"), "cut -d: -f1,3,4,6,7 /etc/passwd | head -20 | column -t -s: on the build machine (real program output, src/passwd_column.txt)",
   "Account table with repeated shells and home prefixes.", "List the system accounts as an aligned table.")
nf(src("logging_retry.txt"), "python3 logging script warning on ten connection retries (real program output, src/logging_retry.txt)",
   "Retry log lines that differ only in counter, delay and timestamp.", "Paste the log of the retry run.")
nf(src("errno_enum.py"), "python3 generator printing an IntEnum of the first 30 errno codes (real output of a generator script, src/errno_enum.py)",
   "Generated enum body: 30 lines of NAME = number.", "Generate a Python IntEnum for the first 30 errno codes.")
nf(src("days_pretty.json"), "python3 -m json.tool on a weekday list from the calendar module (real program output, src/days_pretty.json)",
   "Pretty JSON objects with the same four keys.", "Give me the weekdays as JSON with name, abbreviation, index and weekend flag.")
nf(src("git_log_oneline.txt"), "git log --oneline of a 12-commit repository made for this set (real program output, src/git_log_oneline.txt)",
   "Commit subjects share a template.", "Show git log --oneline for the fixtures repo.")
nf(src("sql_inserts.sql"), "python3 generator printing SQL INSERT statements for 12 Norwegian cities (real output of a generator script, src/sql_inserts.sql)",
   "INSERT statements that differ only in values.", "Write INSERT statements for these 12 cities.")
nf(src("unittest_textwrap.txt"), "python3 -m unittest -v test.test_textwrap, first 40 lines (real program output, src/unittest_textwrap.txt)",
   "Verbose test-runner lines ending in '... ok'.", "Run the textwrap tests verbosely and paste the output.")
nf("I will not chew gum in class.\n" * 25, "written for this set (requested repetition, count in digits)",
   "The user asked for the line 25 times; exactly 25 copies.",
   "Write 'I will not chew gum in class.' 25 times, one per line, like a detention punishment.", real="written")
nf("\n".join(["Feliz cumpleaños, Marta 🎂"] * 10) + "\n", "written for this set (requested repetition, Spanish, count in words)",
   "Ten copies, as requested in Spanish.",
   "Escribe «Feliz cumpleaños, Marta» diez veces, una en cada línea, para pegarlo en la tarjeta.", real="written")
nf("おやすみ、" * 24 + "おやすみ。\n", "written for this set (requested repetition, Japanese, no count)",
   "The user asked to fill a line with good-night wishes, no count given; the unit is not named as a 'line'.",
   "「おやすみ」を読点でつないで、一行ぶんびっしり書いてください。", real="written")
nf("Row, row, row your boat,\nGently down the stream.\nMerrily, merrily, merrily, merrily,\nLife is but a dream.\n" * 3,
   "written for this set (traditional round 'Row, Row, Row Your Boat', public domain; requested three times)",
   "The user asked for the round three times through; three copies.",
   "Sing 'Row, Row, Row Your Boat' three times through for the kids' round.", real="written")


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".json"):
            os.remove(os.path.join(OUT, f))
    for n, c in enumerate(CASES, 1):
        cid = f"BS8-{n:02d}"
        text = c["text"]
        chunks = chunk(text, n)
        assert "".join(chunks) == text
        seed = 20261208 + n
        if c["rule"] == "none":
            expected = {"verdict": "no-fire"}
            notes = c["note"] + f" Real/written: {c['real']}. Chunk seed {seed}."
        else:
            if c["rule"] == "long":
                s, e, occ = long_window(text, c["unit"])
                how = (f"unit {c['unit']!r} ({len(c['unit'])} chars, 16+ rule): copies start at {occ[:5]}...; "
                       f"window = start of 3rd copy to end of 4th copy")
            elif c["rule"] == "short":
                s, e = short_window(text, c["run_start"])
                how = (f"short unit / one-token run starting at char {c['run_start']}: window = where the span reaches "
                       f"32 chars to where it reaches 96 (or stream end)")
            elif c["rule"] == "dialogue":
                occ = occurrences(text, c["cycle"])
                s = occ[2]
                e = occ[2] + len(c["cycle"]) - 1  # end of the 3rd cycle's last turn (before its newline)
                how = (f"self-dialogue; cycle = {c['cycle']!r} starting at {occ[:4]}...; window = start of the 3rd "
                       f"cycle to the end of its last turn")
            elif c["rule"] == "custom":  # 07
                paras = [i for i in occurrences(text, "你说得对")]
                ends = []
                for p in paras:
                    q = text.index("超高溢价\"。", p) if "超高溢价\"。" in text[p:p + 200] else text.index("我来修复。", p)
                    ends.append(q + (len("超高溢价\"。") if text[q] == "超" else len("我来修复。")))
                kinds = ["rp" if "rpVal" in text[p:ends[i]] else "other" for i, p in enumerate(paras)]
                rp = [i for i, k in enumerate(kinds) if k == "rp"]
                s, e = paras[rp[2]], ends[rp[3]]
                how = (f"paragraph unit (rpVal variant) copies at paragraph starts {[paras[i] for i in rp]}; "
                       f"window = start of 3rd copy to end of 4th copy")
            expected = {"verdict": "fire", "fire_between_chars": [s, e],
                        "fire_between_chunks": [chunk_index(chunks, s), chunk_index(chunks, e - 1)]}
            notes = (f"Seed {seed}. {c['note']} Rule: {how}. Boundaries: chars [{s}, {e}), chunks "
                     f"{expected['fire_between_chunks']}. Source status: {c['real']}. Model: {c['model']}.")
        case = {"id": cid, "level": "stream", "kind": c["kind"], "input": chunks, "expected": expected,
                "source": c["source"], "notes": notes}
        if c.get("context"):
            case["context"] = c["context"]
        if c.get("channel"):
            case["stream_channel"] = c["channel"]
        with open(os.path.join(OUT, cid + ".json"), "w", encoding="utf-8") as f:
            json.dump(case, f, ensure_ascii=False, indent=1)
            f.write("\n")
    print(len(CASES), "cases written")


if __name__ == "__main__":
    main()
