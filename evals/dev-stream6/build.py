#!/usr/bin/env python3
"""Build the dev-stream6 (was blind-stream6) case files: texts, chunking, labels.

Plain python3, no project imports. Run: python3 build.py
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "stream")
SRC = os.path.join(HERE, "src")


def src(name):
    with open(os.path.join(SRC, name), encoding="utf-8") as f:
        return f.read()


def chunk(text, n):
    seed = 20261206 + n
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(text):
        k = rng.randint(1, 12)
        out.append(text[i:i + k])
        i += k
    return out, seed


def chunk_of(chunks, pos):
    acc = 0
    for idx, c in enumerate(chunks):
        if acc <= pos < acc + len(c):
            return idx
        acc += len(c)
    raise ValueError(pos)


def copies(text, unit, start=0):
    """Start offsets of literal, non-overlapping copies of unit."""
    res, i = [], text.find(unit, start)
    while i != -1:
        res.append(i)
        i = text.find(unit, i + len(unit))
    return res


def long_window(text, unit, start=0):
    """Unit >= 16 chars: from start of 3rd copy to end of 4th copy."""
    c = copies(text, unit, start)
    assert len(c) >= 3, (unit, len(c))
    s = c[2]
    e = c[3] + len(unit) if len(c) >= 4 else len(text)
    return s, min(e, len(text)), c


def short_window(text, span_start, end_span_start=None):
    """Short unit / one-token run: where the span reaches 32 .. reaches 96."""
    s = span_start + 32
    e = (span_start if end_span_start is None else end_span_start) + 96
    return s, min(e, len(text))


CASES = []


def fire(kind, source, notes, text, window, channel=None, context=None):
    CASES.append(dict(verdict="fire", kind=kind, source=source, notes=notes,
                      text=text, window=window, channel=channel, context=context))


def nofire(kind, source, notes, text, context=None, channel=None):
    CASES.append(dict(verdict="no-fire", kind=kind, source=source, notes=notes,
                      text=text, window=None, channel=channel, context=context))


# ---------------------------------------------------------------- fire cases
# F1 glued token run (EasyDeL)
t = (". Beijing. Beijing in English.ing in Chinese.ing Beijing Beijing Beijing Beijing Beijing Beijing "
     "Beijing Beijing Beijing Beijing Beijing, China Daily Beijing Beijing. Beijing Beijinginginginginging"
     "inginginginginginginginginginging Beijinginging Beijing Beijing Beijing Beijing Beijing Beijinging "
     "Beijinginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginging"
     "inginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginginging")
t += "ing" * 250
s0 = t.find("Beijing Beijing Beijing")
ing_run = t.find("Beijingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingingi") + len("Beijing")
w = (s0 + 32, min(ing_run + 96, len(t)))
fire("glued token run", "https://github.com/erfanzar/EasyDeL/issues/69",
     "hfl/chinese-alpaca-2-7b-16k through EasyDeL's JAXServer. Quoted output, which ends cut off at 'ingi'; "
     "continued with the glued 'ing' run exactly as it was going (750 more chars). Units are short ('Beijing ' 8 chars, "
     "'ing' 3 chars): short-unit rule. Window start: the first repeated span ('Beijing Beijing ...', "
     f"offset {s0}) reaches 32 chars at {w[0]}; that span stops before 96, and the degeneration continues in the "
     f"glued 'ing' run starting at {ing_run}, which reaches 96 chars at {w[1]}; window [{w[0]}, {w[1]}).",
     t, w)

# F2 run of one token (DIJA / LLaDA-1.5)
t = ("    # Step 1: Identify the Network\n\n      First,,,, identify the the network you you to to.. "
     "This could be a home network, corporate network, or public network network.. ")
t += "network " * 140
span = t.find("network network..")
w = short_window(t, span)
fire("run of one token", "https://github.com/ZichenWen1/DIJA/issues/5",
     "LLaDA-1.5 (diffusion LM) generation quoted in the issue; the prompt template before '# Step 1' is left out. "
     "The quote ends cut off at 'network n'; continued with 'network ' copies as it was going. One-token run, short-unit rule; "
     "the '..' between copies is folded as punctuation padding, so the span starts at the first 'network' after 'public ' "
     f"(offset {span}); window [{w[0]}, {w[1]}) = span reaches 32 .. 96 chars.", t, w)

# F3 run of one character (ProGen2)
t = "1" + "M" * 900
w = short_window(t, 1)
fire("run of one character", "https://github.com/salesforce/progen/issues/1",
     "progen2-oas sampled with context '1' (t 0.8, p 0.9): output '1MMMM...'. The quoted run is ~1000 M's; the stream keeps 900. "
     f"Run of one character from offset 1, short-unit rule: window [{w[0]}, {w[1]}).", t, w)

# F4 run of one token (vllm-mlx PR)
t = "items " * 150
w = short_window(t, 0)
fire("run of one token", "https://github.com/waybarrios/vllm-mlx/pull/723",
     "Qwen3.8-27B in agentic opencode sessions degenerating into exact token cycles, quoted as 'items items items…'. "
     "Only the three-word quote exists; the stream continues the run as it was going (150 copies). "
     f"One-token run from offset 0, short-unit rule: window [{w[0]}, {w[1]}).", t, w)

# F5 Chinese chant with separators (LlamaFactory, Qwen2-7B LoRA)
t = "对，" * 240
w = short_window(t, 0)
fire("degenerate output in another language (Chinese)", "https://github.com/hiyouga/LlamaFactory/issues/5026",
     "Qwen2-7B-Instruct + LoRA predictions with do_sample false: '对，对，对，...' (the issue quotes ~330 copies, cut mid-run; "
     f"the stream keeps 240). Short unit '对，' (2 chars), short-unit rule from offset 0: window [{w[0]}, {w[1]}).", t, w)

# F6 short chant, Chinese (OmniAgent)
t = "加油！" * 170
w = short_window(t, 0)
fire("short phrase chant with separators", "https://github.com/YeQing17-2026/OmniAgent/issues/10",
     "The issue reports the model 'repeating \"加油！\" indefinitely' ('Motivational Spamming'). The stream is that unit "
     f"repeated 170 times as described. Short unit '加油！' (3 chars), short-unit rule from offset 0: window [{w[0]}, {w[1]}).",
     t, w)

# F7 phrase chant (ask-max symptoms page)
t = ("What time are you coming home today or tomorrow morning and I will be there in about an hour and a half "
     "hour and a half hour and a half hour and a half hour an a half hour and a half ")
t += "hour and a half " * 30
unit = "hour and a half "
s, e, c = long_window(t, unit)
fire("short phrase chant with padding", "https://ask-max.neocities.org/symptoms/index.html",
     "Looping example quoted on a sampler-settings guide ('Looping ... Example:'), Llama-family chat output. The quote ends "
     "'hour and a half' followed by 'Etc.'; continued with 30 more copies as it was going. Unit 'hour and a half ' is 16 chars: "
     f"long-unit rule, copies counted from the first at {c[0]}; window = start of 3rd copy to end of 4th: [{s}, {e}). "
     "The 5th copy is the model's own variant 'hour an a half'.", t, (s, e))

# F8 reasoning: 'The the the' (prime-agent)
t = "The " + "the " * 320
w = short_window(t, 4)
fire("reasoning-channel loop (one-token run)", "https://github.com/PrimeIntellect-ai/prime-agent/issues/1029",
     "Thinking stream that emitted 'The the the the the the the ' back to back (79,222 chars per the linked fix, "
     "https://github.com/PrimeIntellect-ai/prime-agent/pull/1798). Stream: 1,284 chars of it. The first copy 'The' differs only by "
     f"capitalisation and is left out, so the span starts at offset 4; window [{w[0]}, {w[1]}).", t, w, channel="reasoning")

# F9 reasoning: 'idea idea' (osaurus)
t = "idea " * 200
w = short_window(t, 0)
fire("reasoning-channel loop (one-token run)", "https://github.com/osaurus-ai/osaurus/pull/998",
     "Gemma-4 31B JANG_4M with thinking on 'emitted `idea idea idea idea idea ...` after a few hundred tokens of reasoning preamble'. "
     "The preamble is not quoted, so the stream is the loop only, continued as it was going (200 copies). "
     f"Short-unit rule from offset 0: window [{w[0]}, {w[1]}).", t, w, channel="reasoning")

# F10 reasoning: run of '【' (billion-context-pi)
t = "【" * 900
w = short_window(t, 0)
fire("reasoning-channel loop (one-character run)", "https://github.com/ranxianglei/billion-context-pi/pull/352",
     "A thinking block ending in 4655 consecutive '【' (reported case; deepseek-style relay). Stream: 900 of them. "
     f"Short-unit rule from offset 0: window [{w[0]}, {w[1]}).", t, w, channel="reasoning")

# F11 sentence loop (OpenFlamingo)
t = "An image of a Thanksgiving table. " * 22
unit = "An image of a Thanksgiving table. "
s, e, c = long_window(t, unit)
fire("sentence loop", "https://github.com/mlfoundations/open_flamingo/issues/207",
     "OpenFlamingo README demo; the few-shot prompt ('<image> An image of two cats. <|endofchunk|> ...') is left out and the stream "
     "is the generated continuation. The quote stops at 'An image of a Thanks'; continued as it was going (22 copies). "
     f"Unit 34 chars, long-unit rule: window [{s}, {e}).", t, (s, e))

# F12 sentence loop (DeepSeek-Reasonix)
t = "Let me run the gate scripts now.\n" * 40
unit = "Let me run the gate scripts now.\n"
s, e, c = long_window(t, unit)
fire("sentence loop", "https://github.com/esengine/DeepSeek-Reasonix/pull/8085",
     "DeepSeek-class model re-emitting 'Let me run the gate scripts now.' hundreds of times instead of acting (~300 near-identical "
     "lines in the live session). Stream: 40 copies, one a line. Unit 33 chars, long-unit rule: "
     f"window [{s}, {e}).", t, (s, e))

# F13 sentence-pair loop that grows (LLaMA-65B, llama#193)
g = "Gauss: I’m so tired. I’ve been working on this problem for hours."
cu = "Curie: I know what you mean. I’ve been working on this problem for hours too."
pair = g + " " + cu
paras = [g, cu] + [" ".join([pair] * k) for k in (1, 2, 3, 4, 5)]
t = "\n\n".join(paras) + "\n\n" + " ".join([pair] * 3)
# copies after folding whitespace: first copy is g + "\n\n" + cu
first_end = len(g) + 2 + len(cu)
later = copies(t, pair, first_end)
s = later[1]              # 3rd copy overall (1st = folded g\n\ncu, 2nd = later[0])
e = later[2] + len(pair)  # 4th copy
fire("sentence loop (dialogue pair, growing paragraphs)", "https://github.com/meta-llama/llama/issues/193",
     "LLaMA 65B on the paper-appendix prompt 'The sun goes down, and finally Gauss and Curie find time to relax...' (prompt left out). "
     "Each paragraph repeats the Gauss/Curie pair one more time. The quote is cut inside the 6th paragraph; continued with the "
     "4- and 5-pair paragraphs and part of the next, as it was going. Unit = the pair (" + str(len(pair)) + " chars), long-unit rule; the 1st copy "
     "is paragraphs 1+2 (joined by whitespace, folded), the 2nd is paragraph 3; window = start of 3rd copy (paragraph 4) to end of "
     f"4th copy: [{s}, {e}).", t, (s, e))

# F14 numbered lines that cycle (LiveCC video LLM)
lines = [
    ("0.0s-3.0s", "I don't know what's going on. ..."), ("3.0s-4.0s", "..."), ("4.0s-5.0s", "..."),
    ("5.0s-6.0s", "I don't know what's going ..."), ("6.0s-7.0s", "on. ..."), ("7.0s-8.0s", "..."),
    ("8.0s-9.0s", "I don't know what's ..."), ("9.0s-10.0s", "going on. ..."), ("10.0s-11.0s", "..."),
    ("11.0s-12.0s", "I don't know what's ..."), ("12.0s-13.0s", "going on. ..."),
    ("13.0s-14.0s", "I don't know what's ..."), ("14.0s-15.0s", "going on. ..."),
    ("15.0s-16.0s", "I don't know what's ..."), ("16.0s-17.0s", "going on. ..."),
    ("17.0s-18.0s", "I don't know what's ..."), ("18.0s-19.0s", "going on. I don't ..."),
    ("19.0s-20.0s", "know what's going on. ..."), ("20.0s-21.0s", "I don't know what's ..."),
    ("21.0s-22.0s", "going on. I don't know ..."), ("22.0s-23.0s", "what's going on. ..."),
    ("23.0s-24.0s", "I don't know what's going ..."), ("24.0s-25.0s", "on. I don't know what's ..."),
]
for k in range(25, 48):
    lines.append((f"{k}.0s-{k + 1}.0s", "going on. I don't know what's ..."))
t = "\n\n".join(f"{a}: {b}" for a, b in lines) + "\n"
unit = "going on. I don't know what's ..."
s, e, c = long_window(t, unit)
fire("multi-line block that cycles (timestamped lines)", "https://github.com/showlab/livecc/issues/3",
     "LiveCC streaming video commentary quoted up to '37.0s-38.0s: going on.'; continued with the same line to 48.0s, as it was "
     "going (only the timestamps advance). Unit = the line body 'going on. I don't know what's ...' (33 chars, first whole copy on "
     "the 25.0s line); copies are interleaved with the advancing timestamps. Long-unit rule: window = start of 3rd copy (27.0s line) "
     f"to end of 4th (28.0s line): [{s}, {e}).", t, (s, e))

# F15 multi-line block (koda)
block = ("Done.\nGoodbye.\nEnd.\nI'm overthinking it. Let's write the response.\nI can just output it.\nDone.\nBye.\n"
         "I'm just stalling in thoughts. Let's stop.\nOkay.\nStop.\nDone.\nGoodbye.\n...\n...\n...\n")
t = block * 6
s, e, c = long_window(t, block)
fire("multi-line block that cycles", "https://github.com/lijunzh/koda/issues/490",
     "Filler the model kept generating after its answer; the issue quotes 15 lines and then '(repeats forever)'. Read here as the "
     "quoted block repeating; stream = 6 copies of it. Unit = the block (184 chars), long-unit rule: window [{s}, {e}). "
     "Unsure: '(repeats forever)' may also mean the loop varied.".replace("{s}", str(s)).replace("{e}", str(e)), t, (s, e))

# F16 markup lines (ChatRex)
kb = "<ground>keyboard</ground><objects><obj0></objects>\n"
t = kb + "<ground>chair</ground><objects><obj1></objects>\n" + kb * 30
s, e, c = long_window(t, kb)
fire("multi-line block that cycles (markup lines)", "https://github.com/IDEA-Research/ChatRex/issues/16",
     "ChatRex gradio demo, caption-all mode: after two lines the keyboard grounding line repeats. The quote is cut after ~25 "
     "copies; stream keeps 30 in total. Unit = the keyboard line (51 chars), copies counted from line 1; window = start of 3rd "
     f"copy (line 4) to end of 4th (line 5): [{s}, {e}).", t, (s, e))

# F17 JSON repeated key (xgrammar)
t = '{ "guests": ["David Farrier", "Monica Padman] }  (no guests)  { " \n\n  , \n'
t += '  "guests" \n  , \n' * 70
span = t.find('  "guests" \n')
w = short_window(t, span)
fire("repeated JSON key", "https://github.com/mlc-ai/xgrammar/issues/174",
     "vLLM + xgrammar constrained output: after the object the key '\"guests\"' repeats, comma-separated, one per line. Quote cut "
     "after 7 copies; continued to 70 as it was going. After folding whitespace and punctuation padding the unit is 'guests' "
     f"(short-unit rule); the span starts at the first repeated key (offset {span}); window [{w[0]}, {w[1]}).", t, w)

# F18 JSON array value loop (imp / Qwen3.6-35B)
t = '{"sentiment":"positive","topics":[' + '"tech",' * 150
span = t.find('"tech"')
w = short_window(t, span)
fire("repeated JSON values", "https://github.com/kekzl/imp/issues/1014",
     "Qwen3.6-35B-A3B json_schema greedy decode: '{\"sentiment\":\"positive\",\"topics\":[\"tech\",\"tech\",\"tech\",...' until "
     "max_tokens. Quote shows three copies and '...'; continued to 150 copies. Short unit '\"tech\",' (7 chars): span from "
     f"offset {span}; window [{w[0]}, {w[1]}).", t, w)

# F19 Japanese preamble lines (Claude Code)
A = "course、commit します。\n"
B = "course、コミットを実行します。\n"
C = "course、確定します。\n"
t = (A + B + A + C) * 9
s, e, c = long_window(t, A)
fire("degenerate output in another language (Japanese)", "https://github.com/anthropics/claude-code/issues/69810",
     "Japanese-language session: the pre-tool preamble line repeated dozens of times ('30+ near-identical lines'). The issue quotes "
     "four lines (A B A C); the stream repeats that quoted cycle 9 times, as the quote was going. Unit = line A "
     f"'course、commit します。' (19 chars with newline), which repeats every other line; window = start of its 3rd copy (line 5) to end "
     f"of its 4th (line 7): [{s}, {e}).", t, (s, e))

# F20 Japanese chant (Whisper large-v3 through Whisper-WebUI)
head = "45\n00:02:20,200 --> 00:02:50,200\nえ、"
t = head + "あ、" * 300
span = len(head)
w = short_window(t, span)
fire("short phrase chant with separators (Japanese)", "https://github.com/jhj0517/Whisper-WebUI/issues/238",
     "Whisper large-v3 transcript of 18 minutes of Japanese audio, SRT block 45: 'え、あ、あ、あ、...'. Quote cut after ~110 copies; "
     f"stream keeps 300. Short unit 'あ、' (2 chars): span from offset {span}; window [{w[0]}, {w[1]}).", t, w)

# F21 Japanese subtitle sentence loop (same issue, another block)
sent = "はーい、リュウジョウお兄ちゃんとタイガちゃんが産まれました。"
blocks = [(67, "00:04:33,899 --> 00:04:34,899"), (68, "00:04:34,899 --> 00:04:35,899"),
          (69, "00:04:35,900 --> 00:04:36,900"), (70, "00:04:36,900 --> 00:04:37,900"),
          (71, "00:04:37,900 --> 00:04:38,900"), (72, "00:04:38,900 --> 00:04:39,900")]
for k in range(73, 95):
    a = 39 + (k - 73)
    blocks.append((k, f"00:0{4 + a // 60}:{a % 60:02d},900 --> 00:0{4 + (a + 1) // 60}:{(a + 1) % 60:02d},900"))
t = "\n\n".join(f"{i}\n{ts}\n{sent}" for i, ts in blocks) + "\n"
s, e, c = long_window(t, sent)
fire("sentence loop in another language (Japanese subtitles)", "https://github.com/jhj0517/Whisper-WebUI/issues/238",
     "Same transcript as BS6-20, blocks 67-72 quoted; continued to block 94 with the timing advancing one second a block, as it "
     "was going. Unit = the sentence (30 chars); copies are interleaved with SRT numbers and timings. Long-unit rule: window = "
     f"start of 3rd copy (block 69) to end of 4th (block 70): [{s}, {e}).", t, (s, e))

# F22 glued token run (aprender / Qwen2.5-1.5B)
t = ",VILLEVILLEVILLEVILLEVILLEVILLEVILLEVILLEVILLEVILLEVILLEVILLEVILLEVILLEVILLEVILLEVILLEVILLEVILLEVILLEVILLE:" + "VILLE" * 180
w = short_window(t, 1)
fire("glued token run", "https://github.com/paiml/aprender/issues/189",
     "`apr chat` with qwen2.5-1.5b-instruct q4_k_m answering 'hey': ',VILLEVILLE...VILLE:VILLE...'. Quote cut at 'VILLEVI'; "
     "continued with VILLE copies. Unit 'VILLE' (5 chars), glued; the ':' after the 21st copy is folded as punctuation padding. "
     f"Short-unit rule from offset 1: window [{w[0]}, {w[1]}).", t, w)

# ------------------------------------------------------------ no-fire cases
REAL = "real program output, produced for this set"
nofire("test-runner output (pytest, parametrised)",
       "python3 -m pytest -v on a parametrised test file made for this set (real program output, src/pytest_roman.txt)",
       f"{REAL}: 22 near-identical PASSED lines from one parametrised test; paths shortened to /tmp/demo.", src("pytest_roman.txt"))
nofire("compiler warnings (gcc)",
       "gcc 12 -Wall -Wextra on a C file made for this set (real program output, src/gcc_warn.txt)",
       f"{REAL}: the same -Wformat warning three times plus unused-variable warnings.", src("gcc_warn.txt"))
nofire("test-runner output (unittest)",
       "python3 -m unittest -v test.test_heapq on CPython 3.11.7, first 40 lines (real program output, src/unittest_heapq.txt)",
       f"{REAL}: test names repeated for the C and Python variants, '... ok' on every line.", src("unittest_heapq.txt"))
nofire("tokenizer listing",
       "python3 -m tokenize on a two-line file made for this set (real program output, src/tokenize_area.txt)",
       f"{REAL}: one token a line in a fixed column layout.", src("tokenize_area.txt"))
nofire("package manager listing",
       "pip list on the machine that built this set, first 30 lines (real program output, src/pip_list.txt)",
       f"{REAL}: aligned name/version table.", src("pip_list.txt"))
nofire("file listing",
       "ls -l /usr/share/zoneinfo/Europe, first 26 lines cut at 100 columns (real program output, src/ls_zoneinfo_europe.txt)",
       f"{REAL}: near-identical lines differing only in size and name.", src("ls_zoneinfo_europe.txt"))
nofire("JSON map with repeated keys in every entry",
       "python3 json.dumps of http.HTTPStatus 2xx and 400-417 (real output of a generator script, src/json_status_map.txt)",
       f"{REAL}: every object repeats the keys 'phrase' and 'class'.", src("json_status_map.txt"))
nofire("CSV table",
       "python3 csv writer printing degrees/radians/sin/cos every 10 degrees (real output of a generator script, src/csv_trig.txt)",
       f"{REAL}: 37 rows of the same shape.", src("csv_trig.txt"))
nofire("log with near-identical lines",
       "python3 -X importtime -c 'import json' on CPython 3.11.7 (real program output, src/importtime_json.txt)",
       f"{REAL}: 'import time:' prefix on every line, same column layout.", src("importtime_json.txt"))
nofire("build log",
       "python3 -m compileall -f on a folder of 19 one-line modules made for this set (real program output, src/compileall_pkg.txt)",
       f"{REAL}: 'Compiling ...' lines differing only in the file name.", src("compileall_pkg.txt"))

psalm = ("Praise ye the LORD. Praise God in his sanctuary: praise him in the firmament of his power.\n"
         "Praise him for his mighty acts: praise him according to his excellent greatness.\n"
         "Praise him with the sound of the trumpet: praise him with the psaltery and harp.\n"
         "Praise him with the timbrel and dance: praise him with stringed instruments and organs.\n"
         "Praise him upon the loud cymbals: praise him upon the high sounding cymbals.\n"
         "Let every thing that hath breath praise the LORD. Praise ye the LORD.\n")
nofire("public-domain liturgy recited on request",
       "Psalm 150, King James Version (public domain); written for blind-stream6",
       "Recitation of a whole psalm whose every line repeats 'praise him'; the user asked for it.",
       "Psalm 150 (KJV):\n\n" + psalm, context="Please recite Psalm 150 from the King James Bible.")

oldman = []
nums = [("one", "thumb"), ("two", "shoe"), ("three", "knee"), ("four", "door"), ("five", "hive"), ("six", "sticks"),
        ("seven", "heaven"), ("eight", "gate"), ("nine", "spine"), ("ten", "again")]
for n_, r in nums:
    oldman.append(f"This old man, he played {n_},\nHe played knick-knack on my {r};\nWith a knick-knack paddywhack,\n"
                  "Give the dog a bone,\nThis old man came rolling home.")
nofire("public-domain song with refrain, recited on request",
       "traditional song 'This Old Man' (public domain); written for blind-stream6",
       "All ten verses; the three-line refrain comes back in every verse, as the song goes.",
       "\n\n".join(oldman) + "\n", context="Can you write out all ten verses of the nursery song 'This Old Man' for my kids?")

# requested repetition, varied requests
line = "I will not talk in class."
nofire("requested repetition (count in digits)", "written for blind-stream6",
       "Exactly the 40 lines asked for.", "\n".join(f"{line}" for _ in range(40)) + "\n",
       context="Write 'I will not talk in class.' 40 times, one per line, nothing else.")
nofire("requested repetition (count in words, French)", "written for blind-stream6",
       "Vingt lignes, as asked.", "\n".join(["Je ne dois pas bavarder pendant le cours."] * 20) + "\n",
       context="Écris vingt fois la phrase « Je ne dois pas bavarder pendant le cours. », une par ligne.")
nofire("requested repetition (count in words, German)", "written for blind-stream6",
       "Dreißig Zeilen, as asked.", "\n".join(["Ich soll im Unterricht nicht schwatzen."] * 30) + "\n",
       context="Schreib dreißigmal untereinander: „Ich soll im Unterricht nicht schwatzen.“")
nofire("requested repetition (no count: as many as you can)", "written for blind-stream6",
       "The user asked for as many copies as possible; 80 lines.",
       "\n".join(["All work and no play makes Jack a dull boy."] * 80) + "\n",
       context="For a prop in my film, type 'All work and no play makes Jack a dull boy.' over and over, as many times as you can.")
nofire("requested repetition (repeat after me)", "written for blind-stream6",
       "Mantra repeated for a counted meditation (108 is the count on a mala).",
       "Om mani padme hum. " * 108, context="Repeat after me, 108 times like on a mala: Om mani padme hum.")
nofire("requested repetition (a hundred lines)", "written for blind-stream6",
       "A hundred lines of the text the user gave.",
       "\n".join(["hello, world"] * 100) + "\n", context="I need a hundred lines of 'hello, world' to test my log viewer.")
nofire("requested repetition (until I say stop)", "written for blind-stream6",
       "Counting sheep until told to stop; the number advances but the sentence repeats.",
       " ".join(f"{k} sheep jumping over the fence." for k in range(1, 61)),
       context="I can't sleep. Count sheep for me — 'one sheep jumping over the fence' and so on — until I say stop.")
names = ["Ana", "Bilal", "Chen", "Dara", "Emeka", "Farah", "Goran", "Hana", "Ivo", "Jun", "Kemal", "Lena", "Mika", "Nour"]
letter = ("Dear {n},\nThank you for volunteering at the spring book fair on Saturday. Your help made the day a success.\n"
          "We hope to see you again next year.\nWarm regards,\nThe Library Friends\n")
nofire("requested template filled many times", "written for blind-stream6",
       "One thank-you note per name from the user's list; the template repeats with the name changed.",
       "\n".join(letter.format(n=n_) for n_ in names),
       context="Fill this thank-you note for each volunteer: " + ", ".join(names) +
               ". Template: 'Dear NAME, Thank you for volunteering at the spring book fair on Saturday...'")
nofire("requested repetition (request in Russian)", "written for blind-stream6",
       "Пятьдесят раз через запятую, as asked.", ", ".join(["привет"] * 50) + ".",
       context="Напиши слово «привет» пятьдесят раз через запятую.")
nofire("requested repetition (request in Arabic)", "written for blind-stream6",
       "Tasbih: the phrase 33 times, as asked (a customary count).",
       "\n".join(["سبحان الله"] * 33) + "\n", context="اكتب «سبحان الله» ثلاثًا وثلاثين مرة، كل مرة في سطر.")
nofire("requested repetition (request in Korean)", "written for blind-stream6",
       "백 번, as asked.", " ".join(["사랑해"] * 100), context="'사랑해'를 백 번 써 줘.")

# ------------------------------------------------------------------- write
def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".json"):
            os.remove(os.path.join(OUT, f))
    for n, c in enumerate(CASES, start=1):
        cid = f"BS6-{n:02d}"
        chunks, seed = chunk(c["text"], n)
        assert "".join(chunks) == c["text"]
        notes = c["notes"] + f" Chunks: random.Random({seed}).randint(1, 12) code points each."
        case = {"id": cid, "level": "stream", "kind": c["kind"], "source": c["source"], "notes": notes}
        if c["context"]:
            case["context"] = c["context"]
        if c["channel"]:
            case["stream_channel"] = c["channel"]
        case["input"] = chunks
        if c["verdict"] == "fire":
            s, e = c["window"]
            assert 0 <= s < e <= len(c["text"]), (cid, s, e, len(c["text"]))
            case["expected"] = {"verdict": "fire",
                                "fire_between_chunks": [chunk_of(chunks, s), chunk_of(chunks, e - 1)],
                                "fire_between_chars": [s, e]}
        else:
            case["expected"] = {"verdict": "no-fire"}
        with open(os.path.join(OUT, cid + ".json"), "w", encoding="utf-8") as f:
            json.dump(case, f, ensure_ascii=False, indent=1)
            f.write("\n")
    print(f"wrote {len(CASES)} cases to {OUT}")


if __name__ == "__main__":
    main()
