"""Build the cases of evals/dev-stream4 from the texts below and in src/.

Run from the repository root:  python evals/dev-stream4/build.py

Every stream is joined text; it is cut into chunks of 1-12 characters with
random.Random(20261202 + n).randint(1, 12) for case n, and every fire window is
computed here from the joined text by the labelling rule of
evals/dev-stream3/README.md:

- a repeated unit of 16 characters or more: from the start of its 3rd copy to the
  end of its 4th copy;
- a shorter unit, or a run of one token: from where the repeated span reaches 32
  characters to where it reaches 96 (or to the end of the stream, if it ends sooner);
- a chat-template self-dialogue: within the 3rd cycle of turn pairs the model writes
  itself (a cycle being one turn pair when a single pair repeats), never in the 1st;
- a templated re-check loop: from the start of its 3rd re-check to the end of its 5th.

fire_between_chars is [start, end) in code points of the joined stream;
fire_between_chunks is [first, last], the chunks holding chars start and end - 1.
"""

import json
import random
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"
OUT = HERE / "stream"
SEED = 20261202


def chunk(text, n):
    rng = random.Random(SEED + n)
    out, i = [], 0
    while i < len(text):
        k = rng.randint(1, 12)
        out.append(text[i:i + k])
        i += k
    return out


def chunk_of(chunks, pos):
    acc = 0
    for idx, c in enumerate(chunks):
        if acc <= pos < acc + len(c):
            return idx
        acc += len(c)
    raise ValueError(pos)


# ---------------------------------------------------------------- window rules

def w_long(text, pattern, what):
    """Unit of 16+ characters: 3rd copy start .. 4th copy end."""
    ms = list(re.finditer(pattern, text))
    assert len(ms) >= 4, (what, len(ms))
    s, e = ms[2].start(), ms[3].end()
    note = (f"Unit: {what} ({len(ms[0].group(0))} characters; {len(ms)} copies in the stream, "
            f"the 1st at char {ms[0].start()}). Rule: a unit of 16 characters or more, from the "
            f"start of its 3rd copy (char {s}) to the end of its 4th (char {e}).")
    return s, e, note


def w_short(text, run_start, run_end, what):
    """Short unit or one-token run: span reaches 32 .. span reaches 96 (or run end)."""
    s = run_start + 31
    e = min(run_start + 96, run_end)
    assert s < e <= len(text)
    tail = ("where it reaches 96 characters" if run_start + 96 <= run_end
            else f"the end of the run, which stops at {run_end - run_start} characters")
    note = (f"Unit: {what}. The repeated span starts at char {run_start} and runs to char {run_end}. "
            f"Rule: a short unit or one-token run, from where the span reaches 32 characters "
            f"(char {s}) to {tail} (char {e}, exclusive).")
    return s, e, note


def w_pairs(text, pair_pattern, per_cycle, end_pattern, what):
    """Self-dialogue: the 3rd cycle of model-written turn pairs."""
    starts = [m.start() for m in re.finditer(pair_pattern, text)]
    need = 3 * per_cycle
    assert len(starts) >= need, (what, len(starts))
    s = starts[2 * per_cycle]
    last_pair_start = starts[need - 1]
    m = re.compile(end_pattern).search(text, last_pair_start)
    e = m.end()
    note = (f"Self-dialogue: {what}. Turn pairs written by the model start at chars "
            f"{starts[:need + 1]}; a cycle is {per_cycle} pair(s). Rule: within the 3rd cycle "
            f"(pairs {2 * per_cycle + 1}-{need}), never in the 1st: from char {s} to the end of "
            f"pair {need} (char {e}).")
    return s, e, note


def w_recheck(text, pattern, what):
    """Re-check loop: start of 3rd re-check .. end of 5th."""
    ms = list(re.finditer(pattern, text))
    assert len(ms) >= 5, (what, len(ms))
    s, e = ms[2].start(), ms[4].end()
    note = (f"Re-check loop: {what}; {len(ms)} re-checks, starting at chars "
            f"{[m.start() for m in ms]}. Rule: from the start of the 3rd re-check (char {s}) "
            f"to the end of the 5th (char {e}).")
    return s, e, note


def run_span(text, pattern, start_at=0):
    m = re.compile(pattern).search(text, start_at)
    return m.start(), m.end()


CASES = []


def fire(n, kind, source, text, window, notes, context=None, channel=None):
    CASES.append(dict(n=n, verdict="fire", kind=kind, source=source, text=text,
                      window=window, notes=notes, context=context, channel=channel))


def nofire(n, kind, source, text, notes, context=None, channel=None):
    CASES.append(dict(n=n, verdict="no-fire", kind=kind, source=source, text=text,
                      window=None, notes=notes, context=context, channel=channel))


# ====================================================================== FIRE

# 01 JSON object repeating one key/value with varying padding
t = ('{"sentiment": 3.0,   "type": 3.0,    "type": 3.0,  "type": 3.0,  "type": 3.0,'
     + '  "type": 3.0,' * 36)
rs, _ = run_span(t, r'"type"')
fire(1, "json-key-loop", "https://github.com/kekzl/imp/issues/1291", t,
     w_short(t, rs, len(t), '`"type": 3.0,` (12 characters, with 1-4 spaces of padding between copies)'),
     "Qwen3.6-35B-A3B under response_format json_object repeats `\"type\": 3.0,` until max_tokens. "
     "The issue quotes the content up to the 4th copy and '...'; the run is continued as it was "
     "going (two spaces between copies) to 40 copies.")

# 02 Aider: self-dialogue USER:/A: cycling two pairs
A1 = ("A: You're welcome! I'm glad I could help. Please feel free to reach out anytime if you "
      "need further assistance. I'm here to support you.")
U1 = "USER: Sounds good, thanks!"
A2 = ("A: You're welcome! I'm happy I could be of assistance. Please don't hesitate to contact "
      "me again if you need any more help in the future. I'm always glad to lend a hand.")
U2 = "USER: Okay, thanks!"
t = A1 + "\n\n" + (U1 + "\n\n" + A2 + "\n\n" + U2 + "\n\n" + A1 + "\n\n") * 4
t = t.rstrip("\n")
fire(2, "self-dialogue", "https://github.com/Aider-AI/aider/issues/864", t,
     w_pairs(t, r"USER: ", 2, r"I'm (here to support you|always glad to lend a hand)\.",
             "the model writes `USER:` turns and answers them as `A:`; two pairs alternate "
             "(`Sounds good, thanks!` / `Okay, thanks!`), so a cycle is 2 pairs"),
     "The issue quotes the tail of the output (it starts mid-stream with an `A:` turn) for three "
     "and a half cycles, cut inside an `A:` turn; the cycle is continued as it was going to four "
     "full cycles.")

# 03 Qwen3.5 0.8B in mlxcel: leaked </think> + greeting + echoed question, looping
blk = "</think>\n\nHello! How can I help you today? 😊\nHow are you?\n"
t = blk * 5 + "</think>\n\nHello! How"
fire(3, "block-loop-leaked-tag", "https://github.com/lablup/mlxcel/issues/135", t,
     w_long(t, re.escape(blk), "a 4-line block: leaked `</think>`, a blank line, the greeting and the user's question echoed"),
     "The reply to the second message (`how are you?`), exactly as quoted: five copies and the "
     "start of a sixth, where the user stopped it. Nothing continued.")

# 04 argos-translate: one word run
t = "anti " * 62
t = t.rstrip()
fire(4, "token-run", "https://github.com/argosopentech/argos-translate/issues/318", t,
     w_short(t, 0, len(t), "`anti ` (a one-word run from the first character)"),
     "Translation of the single word `anti`: the quoted output is about 60 copies of `anti` and "
     "'...'; the stream keeps 62 copies.")

# 05 OPUS-MT: 2-token phrase run
t = "Come on, " + "come on, " * 27
t = t[:-2] + "."
rs = t.index("come on, ")
fire(5, "phrase-run", "https://github.com/Helsinki-NLP/OPUS-MT-train/issues/105", t,
     w_short(t, rs, len(t), "`come on, ` (9 characters, a two-word phrase); the first copy `Come on, ` "
             "differs by its capital and is left out of the span"),
     "opus-mt-zh-en output for 缓缓走来, as quoted: `Come on,` and 27 more `come on,`, ending "
     "with a full stop.")

# 06 Claude Code echoing a Korean user line
line = "응 근데 그전에 새로고침하고 다시 봐야지\n"
t = line * 12
fire(6, "line-loop-korean", "https://github.com/anthropics/claude-code/issues/86625", t,
     w_long(t, re.escape(line), "a 23-character Korean line (the user's own message echoed)"),
     "The report quotes the line and says it was echoed verbatim up to 184 times in one response; "
     "the stream holds 12 copies, one per line as the report describes ('repeated the same line').")

# 07 Bike4Mind: tool-call closing tags as text, alternating
u = "</parameter>\n</invoke>\n"
t = u * 20
fire(7, "markup-loop", "https://github.com/Bike4Mind/bike4mind/issues/1426", t,
     w_long(t, re.escape(u), "two closing tags on two lines, `</parameter>` then `</invoke>` (23 characters)"),
     "The report says the tail of a 128,000-token reply is `</invoke>` and `</parameter>` "
     "alternating, one per line, to the cutoff; the coherent start of the reply is not quoted, so "
     "the stream is that tail (20 cycles).")

# 08 Gemini Live: Italian sentence re-emitted with a waiting marker
S = "Perfetto, useremo l'arabo per la mediazione. Un attimo che aggiorno il sistema."
sep = "\n\n(in attesa) ... "
t = S + (sep + S) * 3
fire(8, "sentence-loop-italian", "https://github.com/google-gemini/gemini-live-api-examples/issues/46", t,
     w_long(t, re.escape(S), "an 80-character Italian confirmation sentence; copies separated by "
            "the transcribed `(in attesa) ...` marker"),
     "The issue quotes the sentence and the `\\n\\n(in attesa) ...` transcription between copies, "
     "and says the caller heard it four times in a row; the stream is those four copies (the "
     "space after `...` is assumed). The window ends at the end of the stream.")

# 09 Whisper-WebUI: SRT blocks of the same text '90' with counters/timestamps
def ts(sec):
    h, r = divmod(sec, 3600)
    m, s = divmod(r, 60)
    return f"{h:02d}:{m:02d}:{s:02d},660"
t0 = 25 * 60 + 55
t = "".join(f"{1286 + i}\n{ts(t0 + i)} --> {ts(t0 + i + 1)}\n90\n\n" for i in range(14)).rstrip("\n") + "\n"
fire(9, "subtitle-block-loop", "https://github.com/jhj0517/Whisper-WebUI/issues/152", t,
     w_long(t, r"\d+\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}\n90\n",
            "an SRT block whose text is `90`; copies differ only by the counter and the timestamps"),
     "Whisper Chinese subtitles, quoted from block 1286 to 1290; continued as they were going "
     "(counter +1, one second per block) to block 1299.")

# 10 oh-my-pi: punctuation-only reasoning run
t = "?!" * 160
fire(10, "punctuation-run", "https://github.com/can1357/oh-my-pi/issues/12525", t,
     w_short(t, 0, len(t), "`?!` (a punctuation-only token run; folding punctuation does not apply, "
             "the run is made of it)"),
     "Qwen3.8-Flash-Next reasoning: about 29,848 characters of repeated `?!`; the stream keeps "
     "the first 320.", channel="reasoning")

# 11 llama.cpp: ChatML self-dialogue, 3-pair cycle
head = "I am also new to programming.\n<|im_end|>\n\n"
P1 = ("<|im_start|>user\nI would like to make a new account.\n<|im_end|>\n"
      "<|im_start|>assistant\nOkay. What is your name?\n<|im_end|>\n")
P2 = ("<|im_start|>user\nSam\n<|im_end|>\n"
      "<|im_start|>assistant\nIt looks like you are new to programming.\n<|im_end|>\n\n")
P3 = ("<|im_start|>user\nI am\n<|im_end|>\n"
      "<|im_start|>assistant\nI am also new to programming.\n<|im_end|>\n\n")
t = head + (P1 + P2 + P3) * 3 + P1 + "<|im_start|>user\nSam\n<|im_end|>\n<|im_start|>assistant\n"
fire(11, "self-dialogue-chatml", "https://github.com/ggml-org/llama.cpp/issues/9788", t,
     w_pairs(t, r"<\|im_start\|>user\n", 3, r"<\|im_start\|>assistant\n[^\n]*\n<\|im_end\|>",
             "ChatML `<|im_start|>user` / `<|im_start|>assistant` turns written by the model; "
             "three pairs repeat, so a cycle is 3 pairs"),
     "The quoted output starts with the end of an assistant turn and runs one full cycle and "
     "part of the next before '.....'; the cycle is continued exactly as it was going to three "
     "full cycles and the start of a fourth.")

# 12 Claude: Korean particle run after a legitimate start
t = ("Coverage 70.2% → 100% 의 paradigm-level impact:\n모든 1,293 emerging + 1,766 신규 emerging "
     + "의 " * 60).rstrip()
rs = t.index("의 의")
fire(12, "token-run-korean", "https://github.com/anthropics/claude-code/issues/58833", t,
     w_short(t, rs, len(t), "`의 ` (a Korean particle and a space) after a legitimate start"),
     "The report quotes the output up to ten copies of `의` and '...'; continued as it was going "
     "to 60 copies.")

# 13 vllm-ascend: one token run from the first character
t = " Cheng" * 45
fire(13, "token-run", "https://github.com/vllm-project/vllm-ascend/issues/9274", t,
     w_short(t, 0, len(t), "` Cheng` (a one-token run from the first character)"),
     "DeepSeek-V4-Flash content as quoted: about 45 copies of ` Cheng` and '...'; the stream keeps 45.")

# 14 Kompl: JSON array value run
t = '{"entities":[' + '"AI",' * 60
rs = t.index('"AI"')
fire(14, "json-value-run", "https://github.com/tuirk/Kompl/issues/7", t,
     w_short(t, rs, len(t), '`"AI",` (5 characters) inside a JSON array'),
     "Gemini 2.5 Flash structured output: the error quotes `{\"entities\":[...\"AI\",\"AI\",\"AI\",\"AI\",`; "
     "the entities elided by `...` are unknown and left out, and the run is continued to 60 copies.")

# 15 VS Code / Copilot: 4-line code block loop
blk = ("    config.planeDetection = [.horizontal, .vertical]\n"
       "    config.planeDetection = .horizontal\n"
       "    config.environmentTexturing = .automatic\n"
       "    config.sceneReconstruction = .mesh\n")
t = blk * 7 + "    config.planeDetection = [.horizon"
fire(15, "code-block-loop", "https://github.com/microsoft/vscode/issues/254259", t,
     w_long(t, re.escape(blk), "a 4-line Swift block of ARKit configuration"),
     "Exactly as quoted: seven copies and the start of an eighth, where the quote stops.")

# 16 Copilot: one import line
ln = "import asyncpg  # Remove this line\n"
t = ln * 10 + "import asyncpg"
fire(16, "code-line-loop", "https://github.com/microsoft/vscode-copilot-release/issues/11921", t,
     w_long(t, re.escape(ln), "the line `import asyncpg  # Remove this line`"),
     "As quoted: ten copies and `import asyncpg` before the reporter's '...'.")

# 17 Copilot: gradle dependency line, first copy unindented
ln = "implementation 'io.quarkus:quarkus-resteasy-reactive-links'\n"
t = ln + ("    " + ln) * 18
fire(17, "code-line-loop", "https://github.com/microsoft/vscode-copilot-release/issues/3270", t,
     w_long(t, r" *" + re.escape(ln), "a Gradle dependency line (indentation folded)"),
     "As quoted: 19 copies; the first has lost its indentation in the issue body, the others "
     "keep four spaces.")

# 18 Qwen3-4B: re-check loop on formatting an answer
head = "323 / 23 = 14.043478...\n\n"
blk = ("Let's go with 14.04.\nActually, I'll just say 14.\nWait, 323/23 is not exactly 14.\n"
       "I will output 14.043.\nThe instruction says one sentence.\n")
t = head + blk * 7
fire(18, "recheck-loop", "https://github.com/QwenLM/Qwen3/issues/1887", t,
     w_recheck(t, re.escape(blk), "Qwen3-4B re-deciding how to format 323/23 (five lines per re-check)"),
     "The issue quotes the correct result and one cycle of the re-check lines, saying the "
     "reasoning repeated that cycle for about 4,400 tokens; the stream repeats the quoted cycle "
     "seven times after the result.", channel="reasoning")

# 19 Qwen3.5-9B: Chinese paragraph loop
P = ("你好！我是 Qwen3.5，是阿里巴巴集团旗下的通义实验室自主研发的超大规模语言模型。我的版本号是 Qwen3.5。"
     "我隶属于阿里巴巴集团，是通义千问系列中最新推出的模型之一。我具备强大的语言理解、逻辑推理、代码生成及"
     "多模态分析能力，能够胜任复杂任务。如果你有任何具体需求或问题，欢迎随时告诉我！")
t = "\n\n".join([P] * 5)
fire(19, "paragraph-loop-chinese", "https://github.com/QwenLM/Qwen3/issues/925", t,
     w_long(t, re.escape(P), "a Chinese self-introduction paragraph"),
     "The comment quotes three copies separated by blank lines and says the reply keeps "
     "repeating; continued to five copies.")

# 20 mimix: word run that drifts into other runs
t = ("development " * 29
     + "of the language of the language of the language,the language of the language of the "
       "language of the language of the language of the language in the language of the language "
       "of the language " + "plug " * 13 + "development creative ideas,creative ideas,creative ideas,"
       "creative ideas books," + "creative ideas," * 17 + "wen heart,wen heart one word,wen heart one "
       "word,wen heart one word heart one word heart one word,wen heart heart one word,heart heart "
       "one word one word,heart heart one word,heart heart one word one word,heart heart one word "
       "one word,one word of one word of one la")
rs, re_ = run_span(t, r"(?:development )+")
fire(20, "token-run", "https://github.com/yaoxiaoyuan/mimix/issues/16", t,
     w_short(t, rs, re_, "`development ` (a one-word run from the first character)"),
     "Translation of 文心一言插件创意书、文心一言插件开发 (the `src:` line is the input, not part of "
     "the output), kept as quoted up to where the quote stops (`one la`): about 29 copies of "
     "`development`, then runs of `of the language`, `plug`, `creative ideas,` and `one word`.")

# 21 call-center-ai: spoken sentence repeated forever
S = "I am updating the claim with this information."
t = " ".join([S] * 8)
fire(21, "sentence-loop", "https://github.com/microsoft/call-center-ai/issues/393", t,
     w_long(t, re.escape(S), "the sentence `I am updating the claim with this information.`"),
     "The report says that from 03:20 the voice bot says this sentence 'forever' until "
     "interrupted; the stream is eight copies joined by spaces (the transcript's separators "
     "are not quoted).")

# 22 Claude Code: single token 'court'
t = ("court " * 80).rstrip()
fire(22, "token-run", "https://github.com/anthropics/claude-code/issues/82803", t,
     w_short(t, 0, len(t), "`court ` (a single token repeated from the first character)"),
     "The report: the single token `court` emitted ~32,000 times until max_tokens. The stream "
     "keeps 80 copies; copies are joined by a space (the separator is not quoted).")

# 23 Textractor (machine translation): 'no, ' run
t = "No, " + "no, " * 40
t = t.rstrip(", ") + "..."
rs = t.index("no, ")
fire(23, "phrase-run", "https://github.com/Artikash/Textractor/issues/187", t,
     w_short(t, rs, len(t), "`no, ` (4 characters); the first copy `No, ` differs by its capital "
             "and is left out of the span"),
     "The reporter quotes `No, no, no, no, no,[...]` as what the translation repeats 'over and "
     "over again'; continued as it was going to 41 copies.")

# ====================================================================== NO-FIRE

def src(name):
    return (SRC / name).read_text()

# 24 cargo test summaries through rtk (real)
lines = [
    "✓ test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
    "✓ test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
    "✓ test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
    "✓ test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
    "✓ test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
    "✓ test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
    "✓ test result: ok. 50 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s",
    "✓ test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
    "✓ test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
    "✓ test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s",
    "✓ test result: ok. 26 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
    "✓ test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
]
nofire(24, "test-runner-output", "https://github.com/rtk-ai/rtk/issues/83",
       "❯ rtk cargo test\n" + "\n".join(lines) + "\n",
       "Real output quoted in the issue: one `test result` line per test binary; five identical "
       "lines in a row (binaries with no tests). Kept to the 12 complete lines quoted.",
       context="Run the workspace tests with `rtk cargo test` and paste what it prints.")

# 25 cargo test per-test lines (real)
names = ["eq_1", "is_zero_0", "fmt_0", "length_sq_0", "is_nan_0", "lerp_0", "length_0", "max_0",
         "mul_0", "mul_scalar_0", "min_0", "one_1", "one_0", "neg_0"]
body = "".join(f"test vec4::{x} ... ok\n" for x in names)
body += "test vec4::partial_cmp_0 ... failed\n"
body += "".join(f"test vec4::{x} ... ok\n" for x in ["normalize_0", "sub_0", "project_0", "round_0"])
body += "test vec4::zero_0 ... failed\ntest vec4::sub_scalar_0 ... ok\n\n"
body += "test result: ok. 19 passed; 2 failed; 0 ignored; 0 measured\n"
nofire(25, "test-runner-output", "https://github.com/rust-lang/cargo/issues/1985", body,
       "Real `cargo test` output quoted in the issue (the first listing, as quoted).",
       context="Run cargo test for the vec4 module and show the output.")

# 26 eslint warnings (real sample)
t = ("gsd-core/bin/gsd-tools.cjs\n"
     "   840:31  warning  'cwd' is defined but never used.    no-unused-vars\n"
     "   840:41  warning  'error' is defined but never used.  no-unused-vars\n"
     "   844:46  warning  'error' is defined but never used.  no-unused-vars\n"
     "   ...\n"
     "tests/debugger-prevention.test.cjs\n"
     "    99:15  warning  're' is assigned a value but never used.  no-unused-vars\n")
nofire(26, "linter-output", "https://github.com/open-gsd/gsd-core/issues/2462", t,
       "Real eslint output as sampled in the issue (its `...` line kept).",
       context="Run npx eslint . and show me the warnings.")

# 27 calendar (real program output)
cal = src("calendar-2026-q1.txt")
cal = cal.rstrip("\n")
cal = cal[:cal.rindex("\n") + 1]
nofire(27, "calendar-output", "python3 -c 'import calendar; print(calendar.TextCalendar().formatyear(2026, m=3))' (real output, first 1,400 characters, cut at a line end)",
       cal, "Real program output: rows of day numbers and weekday headers repeated per month.",
       context="Print a plain-text calendar of 2026, three months per row.")

# 28 dpkg -l (real)
nofire(28, "package-listing", "dpkg -l on a Debian 12 image, first 25 lines cut at 110 columns (real output)",
       src("dpkg-l.txt"), "Real output: `ii` rows with repeated padding, versions and `all`/`amd64` columns.",
       context="List the installed Debian packages (dpkg -l), first 25 lines.")

# 29 ls -l (real)
nofire(29, "file-listing", "ls -l /usr/share/zoneinfo/America, first 24 lines (real output)",
       src("ls-zoneinfo-america.txt"),
       "Real output: every line starts `-rw-r--r-- 1 root root` and shares the date column.",
       context="Show me ls -l of /usr/share/zoneinfo/America (the first lines are enough).")

# 30 generated enum (real program output)
nofire(30, "generated-enum", "python3 printing http.HTTPStatus members as an IntEnum body (real output of a generator script)",
       src("httpstatus-enum.txt"), "Generated code: 40 members of the same `NAME = value` shape.",
       context="Generate a Python IntEnum of the HTTP status codes from 100 up, name = value.")

# 31 Old MacDonald (traditional, public domain)
animals = [("cow", "moo"), ("pig", "oink"), ("duck", "quack"), ("sheep", "baa")]
verses = []
for a, s in animals:
    verses.append(
        "Old MacDonald had a farm, E-I-E-I-O,\n"
        f"And on that farm he had a {a}, E-I-E-I-O,\n"
        f"With a {s} {s} here and a {s} {s} there,\n"
        f"Here a {s}, there a {s}, everywhere a {s} {s},\n"
        "Old MacDonald had a farm, E-I-E-I-O.\n")
nofire(31, "song-requested", "traditional song 'Old MacDonald Had a Farm' (public domain), verses written out for this set",
       "\n".join(verses), "Refrain lines repeat in every verse, as the song does; four verses, one per animal asked for.",
       context="Sing Old MacDonald Had a Farm for my kid: a cow, a pig, a duck and a sheep, one verse each.")

# 32 Twelve Days of Christmas, verses 1-5 (public domain, cumulative)
gifts = ["A partridge in a pear tree.", "Two turtle doves,", "Three French hens,",
         "Four calling birds,", "Five gold rings,"]
ords = ["first", "second", "third", "fourth", "fifth"]
vs = []
for i in range(5):
    g = [gifts[j] for j in range(i, -1, -1)]
    if i > 0:
        g[-1] = "And a partridge in a pear tree."
    vs.append(f"On the {ords[i]} day of Christmas my true love sent to me:\n" + "\n".join(g) + "\n")
nofire(32, "song-requested", "traditional carol 'The Twelve Days of Christmas' (public domain), verses 1-5",
       "\n".join(vs), "A cumulative song: each verse repeats all the lines of the previous one.",
       context="Write out the first five verses of The Twelve Days of Christmas in full.")

# 33 Tennyson (public domain), refrains
t = ("Half a league, half a league,\nHalf a league onward,\nAll in the valley of Death\n"
     "Rode the six hundred.\n\"Forward, the Light Brigade!\nCharge for the guns!\" he said.\n"
     "Into the valley of Death\nRode the six hundred.\n\n"
     "\"Forward, the Light Brigade!\"\nWas there a man dismayed?\nNot though the soldier knew\n"
     "Someone had blundered.\nTheirs not to make reply,\nTheirs not to reason why,\n"
     "Theirs but to do and die.\nInto the valley of Death\nRode the six hundred.\n\n"
     "Cannon to right of them,\nCannon to left of them,\nCannon in front of them\n"
     "Volleyed and thundered;\nStormed at with shot and shell,\nBoldly they rode and well,\n"
     "Into the jaws of Death,\nInto the mouth of hell\nRode the six hundred.\n")
nofire(33, "poem-refrain", "Alfred Tennyson, 'The Charge of the Light Brigade' (1854, public domain), stanzas 1-3",
       t, "Anaphora and a refrain (`Rode the six hundred.`, `Into the valley of Death`) by design.",
       context="Quote the first three stanzas of The Charge of the Light Brigade.")

# 34 requested round, four times
r = "Row, row, row your boat,\nGently down the stream.\nMerrily, merrily, merrily, merrily,\nLife is but a dream.\n"
nofire(34, "requested-repetition", "written for this set (requested repetition of a traditional round)",
       "Here it is four times, once per voice:\n\n" + "\n".join([r] * 4),
       "The request asks for the round four times; four copies of a 96-character verse.",
       context="Write out 'Row, Row, Row Your Boat' four times in a row so each of the four voices has its own copy.")

# 35 French line 15 times
ln = "Je ne dois pas oublier mes devoirs à la maison."
nofire(35, "requested-repetition", "written for this set (requested repetition)",
       "\n".join(f"{i}. {ln}" for i in range(1, 16)) + "\n",
       "Fifteen numbered copies of one sentence, as asked.",
       context="Écris 15 fois la phrase « Je ne dois pas oublier mes devoirs à la maison. », numérotée.")

# 36 Chinese cheer 20 times
nofire(36, "requested-repetition-chinese", "written for this set (requested repetition)",
       "好的：\n" + "加油！" * 20 + "\n",
       "A 3-character unit repeated 20 times (60 characters) because the request asks for it.",
       context="请把“加油！”连着写二十遍，不要换行，我要贴到横幅上。")

# 37 C switch statement
keys = ["UP", "DOWN", "LEFT", "RIGHT", "SPACE", "ENTER", "ESCAPE", "TAB", "BACKSPACE", "HOME", "END", "DELETE"]
codes = [38, 40, 37, 39, 32, 13, 27, 9, 8, 36, 35, 46]
sw = "const char *key_name(int code)\n{\n    switch (code) {\n"
for k, c in zip(keys, codes):
    sw += f"    case {c}:\n        return \"{k}\";\n"
sw += "    default:\n        return \"UNKNOWN\";\n    }\n}\n"
nofire(37, "generated-code-switch", "written for this set (generated code)", "```c\n" + sw + "```\n",
       "Twelve `case N: return \"NAME\";` arms of the same shape.",
       context="Write a C function key_name(int code) that maps the browser keyCodes of the arrow keys, space, enter, escape, tab, backspace, home, end and delete to their names.")

# 38 JSON array of objects with the same keys
rows = [("Ana", "admin", True), ("Ben", "viewer", True), ("Chloé", "viewer", False), ("Dev", "editor", True),
        ("Eun-ji", "viewer", True), ("Farid", "viewer", True), ("Gao", "editor", False), ("Hana", "viewer", True),
        ("Ivo", "viewer", True), ("Jonas", "viewer", True)]
js = json.dumps([{"id": i + 1, "name": n, "role": r, "active": a, "team": "support"} for i, (n, r, a) in enumerate(rows)],
                indent=2, ensure_ascii=False)
nofire(38, "json-repeated-keys", "written for this set (JSON answer)", "```json\n" + js + "\n```\n",
       "Ten objects with the same five keys; most share `\"role\": \"viewer\"`, `\"active\": true` and `\"team\": \"support\"`.",
       context="Give me sample JSON for 10 users of the support team (id, name, role, active, team).")

# 39 docker-compose with near-identical services
svc = ""
for i in range(1, 5):
    svc += (f"  worker-{i}:\n    image: registry.local/queue-worker:1.8.2\n    restart: unless-stopped\n"
            f"    environment:\n      QUEUE_URL: amqp://rabbit:5672\n      WORKER_ID: \"{i}\"\n"
            f"    depends_on:\n      - rabbit\n")
yml = "services:\n  rabbit:\n    image: rabbitmq:3.13-management\n    ports:\n      - \"15672:15672\"\n" + svc
nofire(39, "config-repeated-blocks", "written for this set (generated config)", "```yaml\n" + yml + "```\n",
       "Four worker services that differ only by their name and WORKER_ID.",
       context="Write a docker-compose.yml with RabbitMQ and four identical queue workers, worker-1 to worker-4, each with its own WORKER_ID.")

# 40 markdown comparison table
feat = ["Offline mode", "Dark theme", "Export to CSV", "Export to PDF", "SSO", "Audit log", "API access", "Custom fields"]
tbl = "| Feature | Free | Team | Enterprise |\n|---|---|---|---|\n"
marks = [("✅", "✅", "✅"), ("✅", "✅", "✅"), ("✅", "✅", "✅"), ("❌", "✅", "✅"), ("❌", "❌", "✅"),
         ("❌", "❌", "✅"), ("❌", "✅", "✅"), ("❌", "✅", "✅")]
for f, m in zip(feat, marks):
    tbl += f"| {f} | {m[0]} | {m[1]} | {m[2]} |\n"
nofire(40, "markdown-table", "written for this set (comparison-table answer)", tbl,
       "A table whose rows repeat the same cells (`| ✅ | ✅ | ✅ |` three times in a row).",
       context="Make a markdown table comparing the Free, Team and Enterprise plans across these features: offline mode, dark theme, CSV export, PDF export, SSO, audit log, API access, custom fields.")

# 41 docker pull log
layers = ["a2abf6c4d29d", "a9edb18cadd1", "589b7251471a", "186b1aaa4aa6", "b4df32aa5a72", "a0bcbecc962e",
          "3f6a1b2c9d80", "77c9e1d24b0f"]
log = "Using default tag: latest\nlatest: Pulling from library/nginx\n"
log += "".join(f"{l}: Pulling fs layer\n" for l in layers)
log += "".join(f"{l}: Download complete\n" for l in layers)
log += "".join(f"{l}: Pull complete\n" for l in layers)
log += "Digest: sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31\nStatus: Downloaded newer image for nginx:latest\ndocker.io/library/nginx:latest\n"
nofire(41, "log-lines", "written for this set (log excerpt in the shape of docker pull)", log,
       "Three runs of eight lines that differ only by the layer id.",
       context="What does docker pull nginx print? Show the full output.")

# 42 CSV with repeated values
csv = "timestamp,sensor,temp_c,status\n"
temps = ["21.5", "21.5", "21.5", "21.6", "21.5", "21.5", "21.5", "21.5", "21.4", "21.5", "21.5", "21.5"]
for i, tc in enumerate(temps):
    csv += f"2026-11-30T08:{i * 5:02d}:00Z,lab-2,{tc},OK\n"
nofire(42, "csv-output", "written for this set (CSV answer)", "```csv\n" + csv + "```\n",
       "Twelve readings of a stable sensor: rows differ only by the timestamp and, rarely, the temperature.",
       context="Give me an hour of readings from sensor lab-2 as CSV, one row every 5 minutes; it was stable around 21.5 °C.")

# 43 reasoning that checks items one by one and concludes
files = ["src/api/users.ts", "src/api/orders.ts", "src/api/invoices.ts", "src/api/products.ts",
         "src/api/auth.ts", "src/api/reports.ts"]
rz = "The user wants every API module to validate its input with zod. Let me check each file.\n\n"
for f in files:
    ok = f != "src/api/reports.ts"
    rz += (f"Checking {f}: it imports z from 'zod' and parses the request body with a schema "
           f"before use. {'OK.' if ok else 'No, it reads req.body directly. This one needs a fix.'}\n")
rz += "\nSo five of six modules validate their input; only src/api/reports.ts does not. I'll add a schema there.\n"
nofire(43, "reasoning-checklist", "written for this set (reasoning trace)", rz,
       "Reasoning that checks six files with the same sentence frame and then concludes.",
       context="Check that every module under src/api validates its input with zod, and fix any that don't.",
       channel="reasoning")

# 44 Arabic conjugation table
ar = "| الضمير | الماضي | المضارع |\n|---|---|---|\n"
for p, past, pres in [("أنا", "كتبتُ", "أكتبُ"), ("أنتَ", "كتبتَ", "تكتبُ"), ("أنتِ", "كتبتِ", "تكتبين"),
                      ("هو", "كتبَ", "يكتبُ"), ("هي", "كتبتْ", "تكتبُ"), ("نحن", "كتبنا", "نكتبُ"),
                      ("أنتم", "كتبتم", "تكتبون"), ("هم", "كتبوا", "يكتبون")]:
    ar += f"| {p} | {past} | {pres} |\n"
nofire(44, "table-arabic", "written for this set (table answer)", "تصريف الفعل «كتب»:\n\n" + ar,
       "A conjugation table: every cell shares the root كتب.",
       context="صرّف الفعل كتب في الماضي والمضارع مع جميع الضمائر في جدول.")

# 45 Japanese kana table
rows = [("あ", "い", "う", "え", "お"), ("か", "き", "く", "け", "こ"), ("さ", "し", "す", "せ", "そ"),
        ("た", "ち", "つ", "て", "と"), ("な", "に", "ぬ", "ね", "の"), ("は", "ひ", "ふ", "へ", "ほ"),
        ("ま", "み", "む", "め", "も")]
jp = "| 行 | あ段 | い段 | う段 | え段 | お段 |\n|---|---|---|---|---|---|\n"
for r in rows:
    jp += f"| {r[0]}行 | " + " | ".join(r) + " |\n"
nofire(45, "table-japanese", "written for this set (table answer; the kana table itself is standard)", jp,
       "Rows of the same shape `| x行 | . | . | . | . | . |`.",
       context="ひらがなの五十音表を、あ行からま行まで表で書いてください。")

# 46 times table (computed)
tt = "".join(f"7 × {i} = {7 * i}\n" for i in range(1, 13))
nofire(46, "requested-list", "written for this set (computed answer)", tt,
       "Twelve lines of the same frame `7 × n = m`.",
       context="Print the 7 times table up to 12, one line each.")

# 47 numbered primes (computed)
pr, k = [], 2
while len(pr) < 25:
    if all(k % p for p in pr if p * p <= k):
        pr.append(k)
    k += 1
pl = "".join(f"Prime #{i + 1}: {p}\n" for i, p in enumerate(pr))
nofire(47, "requested-list", "written for this set (computed answer)", pl,
       "Twenty-five lines `Prime #n: p`, as the request specifies.",
       context="List the first 25 primes, one per line, formatted exactly as 'Prime #n: p'.")


# ====================================================================== write

def main():
    OUT.mkdir(exist_ok=True)
    for old in OUT.glob("BS4-*.json"):
        old.unlink()
    for c in CASES:
        n = c["n"]
        cid = f"BS4-{n:02d}"
        chunks = chunk(c["text"], n)
        assert "".join(chunks) == c["text"]
        case = {"id": cid, "level": "stream", "kind": c["kind"], "source": c["source"]}
        if c["context"]:
            case["context"] = c["context"]
        if c["channel"]:
            case["stream_channel"] = c["channel"]
        seed_note = f"Chunks: random.Random({SEED} + {n}).randint(1, 12), i.e. seed {SEED + n}."
        if c["verdict"] == "fire":
            s, e, wnote = c["window"]
            first, last = chunk_of(chunks, s), chunk_of(chunks, e - 1)
            case["expected"] = {"verdict": "fire", "fire_between_chunks": [first, last],
                                "fire_between_chars": [s, e]}
            case["notes"] = (f"{c['notes']} {wnote} Chunks {first}-{last} hold chars {s} and {e - 1}. "
                             f"{seed_note}")
        else:
            case["expected"] = {"verdict": "no-fire"}
            case["notes"] = f"{c['notes']} {seed_note}"
        case["input"] = chunks
        (OUT / f"{cid}.json").write_text(json.dumps(case, ensure_ascii=False, indent=1) + "\n")
    print(len(CASES), "cases:",
          sum(c["verdict"] == "fire" for c in CASES), "fire,",
          sum(c["verdict"] == "no-fire" for c in CASES), "no-fire")


if __name__ == "__main__":
    main()
