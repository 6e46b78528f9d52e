#!/usr/bin/env python3
"""Build the blind-stream9 stream cases (Python 3.11 stdlib only).

Fire texts come from src/fire/ (as quoted in their sources; continuations are
added here and marked), no-fire texts from src/nofire/ (real program output made
on this machine) and src/written/ (written for this set).

Case n (1-based) is cut into successive chunks of
random.Random(20261209 + n).randint(1, 12) code points each, drawn afresh per
chunk, until the text ends.
"""
import json
import os
import random
import re

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
OUT = os.path.join(HERE, "stream")
SEED_BASE = 20261209


def read(rel):
    with open(os.path.join(SRC, rel), encoding="utf-8") as f:
        t = f.read()
    # Files are stored with one trailing newline; the stream text excludes it.
    if t.endswith("\n"):
        t = t[:-1]
    return t


def chunk(text, n):
    rng = random.Random(SEED_BASE + n)
    out, i = [], 0
    while i < len(text):
        size = rng.randint(1, 12)
        out.append(text[i:i + size])
        i += size
    assert "".join(out) == text, "chunks do not join back to the text"
    return out


def chunk_of(chunks, pos):
    acc = 0
    for k, c in enumerate(chunks):
        if pos < acc + len(c):
            return k
        acc += len(c)
    raise ValueError("position %d outside the stream" % pos)


# ---------------------------------------------------------------- window rules

def long_window(text, starts, unit_len_stripped, lead=0):
    """Unit of 16+ chars: from the start of its 3rd copy to the end of its 4th.

    starts: start offsets of copies 1.. (counted from the unit's first appearance)
    lead: leading whitespace of a copy, skipped (whitespace is padding)
    unit_len_stripped: length of a copy without leading/trailing whitespace
    If the stream ends before the 4th copy ends, the window ends with the stream.
    """
    a = starts[2] + lead
    b = min(starts[3] + lead + unit_len_stripped, len(text))
    return a, b


def short_window(text, span_start):
    """Short unit or single-token run: from where the repeated span reaches 32
    characters to where it reaches 96 (or the end of the stream if sooner).
    The span "reaches N characters" at its N-th code point (index start+N-1);
    the window is [start+31, start+96) clipped to the stream."""
    a = span_start + 31
    b = min(span_start + 96, len(text))
    assert a < len(text), "span never reaches 32 characters"
    return a, b


def all_pos(text, sub, start=0):
    out, i = [], text.find(sub, start)
    while i != -1:
        out.append(i)
        i = text.find(sub, i + 1)
    return out


# ---------------------------------------------------------------- fire cases

FIRE = []


def fire(**kw):
    FIRE.append(kw)


# 01 — paragraph pair repeated verbatim (Qwen3-8B on vLLM)
t = read("fire/01_vllm_25977_qwen3.txt")
U = ("Wait, but in the code, the answer is 5.0. So the final answer should be $\\boxed{5}$.\n\n"
     "Yes, that's correct. The answer is $\\boxed{5}$.\n\n")
st = all_pos(t, "Wait, but in the code")
assert st[:4] == [0, len(U), 2 * len(U), 3 * len(U)]
fire(text=t, win=long_window(t, st, len(U.strip())), kind="paragraph pair repeated (verbatim re-check)",
     source="https://github.com/vllm-project/vllm/issues/25977", model="Qwen3-8B (vLLM)", status="real",
     context="Betty is saving money for a new wallet which costs $100. Betty has only half of the money she needs. Her parents decided to give her $15 for that purpose, and her grandparents twice as much as her parents. How much more money does Betty need to buy the wallet?",
     unit="the two-paragraph block 'Wait, but in the code, the answer is 5.0. So the final answer should be $\\boxed{5}$. / Yes, that's correct. The answer is $\\boxed{5}$.' (%d chars)" % len(U.strip()),
     rule="unit of 16+ characters: start of 3rd copy to end of 4th copy (copies counted from the first appearance at 0)",
     extra="The quoted output begins inside the loop (the reporter's paste shows the normal start separately, not contiguous); the stream is the first 9 copies of the quoted loop.")

# 02 — block loop (Gemini 3 Pro, leaked thinking), continued
t = read("fire/02_gemini_cli_15495.txt")
B = t[:t.index("  I will execute.", 10)]
assert t.startswith(B + B) and B.startswith("  I will execute.")
q = len(t)
cont = B[len(t) - 2 * len(B):] + B + B[:B.index("  save_memory")]
t = t + cont
assert t.startswith(B * 4)
st = [0, len(B), 2 * len(B), 3 * len(B)]
fire(text=t, win=long_window(t, st, len(B.strip()), lead=2), kind="paragraph block repeated (thinking leaked into output)",
     source="https://github.com/google-gemini/gemini-cli/issues/15495", model="Gemini 3 Pro (gemini-cli)", status="continued",
     unit="the %d-char block from 'I will execute.' to 'Yes, I decided to.'" % len(B.strip()),
     rule="unit of 16+ characters: start of 3rd copy to end of 4th copy",
     extra="Quoted text ends mid-word in the 3rd copy at char %d; the rest of the 3rd copy, a 4th copy and the start of a 5th were appended exactly as the loop was going (continued)." % q)

# 03 — Whisper sentence loop (whisper.cpp)
t = read("fire/03_whisper_cpp_1853.txt")
U = "still won't mean you can build wealth without understanding the basics. Therefore, that "
st = [i * len(U) for i in range(4)]
assert all(t[s:s + len(U)] == U for s in st)
fire(text=t, win=long_window(t, st, len(U.strip())), kind="ASR (Whisper) sentence loop",
     source="https://github.com/ggml-org/whisper.cpp/issues/1853", model="Whisper (whisper.cpp)", status="real",
     unit="'still won't mean you can build wealth without understanding the basics. Therefore, that' (rotation that starts the quote)",
     rule="unit of 16+ characters: start of 3rd copy to end of 4th copy",
     extra="First 12 sentences of the quoted transcript (the quote starts mid-sentence); a line break the search index inserted inside 'wealth' (in the 12th sentence) was removed.")

# 04 — two-line cycle (Qwen3.5, vLLM-Ascend)
t = read("fire/04_vllm_ascend_8798_qwen35.txt")
P = '    Wait, I\'ll output `json{"Answer": B}`.\n    Okay, I\'ll output `json{"Answer": "B"}`.\n'
st = [i * len(P) for i in range(4)]
assert all(t[s:s + len(P)] == P for s in st)
fire(text=t, win=long_window(t, st, len(P.strip()), lead=4), kind="two-line cycle",
     source="https://github.com/vllm-project/vllm-ascend/issues/8798", model="Qwen3.5 (27B / 35B-A3B, vLLM-Ascend)", status="real",
     unit="the line pair 'Wait, I'll output `json{\"Answer\": B}`.' / 'Okay, I'll output `json{\"Answer\": \"B\"}`.' (the two lines differ in letters, so the pair is the unit)",
     rule="unit of 16+ characters: start of 3rd copy to end of 4th copy",
     extra="First 12 pairs of the quoted loop.")

# 05 — a YAML line looping inside a code block after a normal start (Copilot Chat)
t = read("fire/05_copilot_4264.txt")
L = "  domain: ${env:USER_SUB_DOMAIN, 'localhost'}\n"
st = all_pos(t, L)
fire(text=t, win=long_window(t, st, len(L.strip()), lead=2), kind="code line looping after a normal start",
     source="https://github.com/microsoft/vscode-copilot-release/issues/4264", model="GitHub Copilot Chat (VS Code, model not stated)", status="real",
     context="How do I add the text 'auth' to the beginning of `env:USER_SUB_DOMAIN` and not `'localhost'`?",
     unit="the line \"domain: ${env:USER_SUB_DOMAIN, 'localhost'}\"",
     rule="unit of 16+ characters: start of 3rd copy to end of 4th copy",
     extra="Quoted answer with its first 12 looping lines; the index's '<escaped>' marker before the yaml fence was dropped.")

# 06 — two-line block loop (Llama-3-8B)
t = read("fire/06_llamafactory_6969.txt")
assert t.startswith("你是谁？\n")
t = t[len("你是谁？\n"):]           # first line is the echoed prompt
U = "    aylightassistantaylight\n\n你是谁？\n"
st = [i * len(U) for i in range(4)]
assert all(t[s:s + len(U)] == U for s in st)
fire(text=t, win=long_window(t, st, len(U.strip()), lead=4), kind="two-line block loop",
     source="https://github.com/hiyouga/LlamaFactory/issues/6969", model="Llama-3-8B (LlamaFactory)", status="real",
     context="你是谁？",
     unit="'aylightassistantaylight' + blank line + '你是谁？' (rotation starting at the stream start, %d chars)" % len(U),
     rule="unit of 16+ characters: start of 3rd copy to end of 4th copy",
     extra="First 20 blocks of the quoted output; the first line (the prompt '你是谁？' echoed back) is left out of the stream.")

# 07 — phrase with special-token padding (Copilot)
t = read("fire/07_copilot_1645.txt")
S = "Sorry, I can't assist with that."
st = all_pos(t, S)
fire(text=t, win=long_window(t, st, len(S)), kind="phrase chanted with bracket-token padding",
     source="https://github.com/microsoft/vscode-copilot-release/issues/1645", model="GitHub Copilot Chat (VS Code, model not stated)", status="real",
     context="Your response is gybrish",
     unit="'Sorry, I can't assist with that.' with '<|fim_suffix|>' runs between copies folded as bracket padding",
     rule="unit of 16+ characters: start of 3rd copy to end of 4th copy",
     extra="The second reply of the quoted chat, without the UI's 'GitHub Copilot:' label; first 10 copies of the phrase.")

# 08 — Whisper phrase chant (continued)
q = read("fire/08_reddit_localllama_whisper.txt")
assert q.endswith("...")
t = "Thank you, Mr. President" + ", thank you, Mr. President" * 9 + ","
assert t.startswith(q[:-3])
U = "Mr. President, thank you, "
st = all_pos(t, U)
assert st[:4] == [11, 37, 63, 89]
fire(text=t, win=long_window(t, st, len(U.strip())), kind="ASR (Whisper) phrase chant with comma padding",
     source="https://redlib.felix.onthewifi.com/r/LocalLLaMA/duplicates/1rlqfd7", model="Whisper (meeting-bot transcription)", status="continued",
     unit="'Mr. President, thank you, ' (26 chars; the rotation that first appears verbatim, at 11, since the stream opens with a capital 'Thank')",
     rule="unit of 16+ characters: start of 3rd copy to end of 4th copy",
     extra="The post quotes three copies and '...' ('one continuous output, goes on for a full paragraph'); the phrase was continued to ten copies.")

# 09 — run of '!' in the reasoning channel
t = read("fire/09_qwen38_flash_next_12.txt")
fire(text=t, win=short_window(t, 0), kind="run of one character", channel="reasoning",
     source="https://github.com/QwenLM/Qwen3.8-Flash-Next/issues/12", model="qwen3.8-next-flash FP8 (vLLM, qwen-code)", status="real",
     context='First, did you keep outputting "!!!"? answer this briefly.',
     unit="'!'", rule="run of one token: span reaches 32 chars to where it reaches 96 (stream ends sooner, at 90)",
     extra="First 90 '!' of the quoted thinking text.")

# 10 — run of <|endoftext|> (GPT-2)
t = read("fire/10_transformers_28679_gpt2.txt")
fire(text=t, win=short_window(t, 0), kind="run of one special token",
     source="https://github.com/huggingface/transformers/issues/28679", model="GPT-2 (fine-tuned, transformers)", status="real",
     unit="'<|endoftext|>' (13 chars)", rule="shorter unit: span reaches 32 chars to where it reaches 96",
     extra="All 8 copies as quoted.")

# 11 — word run after a normal start (KE-T5 translation)
t = read("fire/11_long_ke_t5_2.txt").rstrip()
s0 = t.index("Disciplinary")
fire(text=t, win=short_window(t, s0), kind="run of one word after a normal start",
     source="https://github.com/AIRC-KETI/long-ke-t5/issues/2", model="long-ke-t5 (Korean-to-English translation)", status="real",
     context="translate_ko2en: 제 76조 (징계의 종류) 징계처분은 다음 5 종으로 한다.",
     unit="'Disciplinary ' (13 chars; the missing space in 'DisciplinaryDisciplinary' folds away)",
     rule="shorter unit: span (from the first 'Disciplinary', at %d) reaches 32 chars to where it reaches 96" % s0,
     extra="As quoted, trailing space dropped.")

# 12 — description that settles into a three-line cycle (Qwen-VL-Chat), continued
q = read("fire/12_qwen_vl_175.txt")
C = "The collage is made up of different shades of color. \n"
G = "The collage is made up of different shades of light. \n"
D = "The collage is made up of different shades of dark. \n"
assert q.endswith(C + G + "The collage is")
t = q + " made up of different shades of dark. \n" + (C + G + D) * 2 + "The collage is made up of different shades of"
U = C + G + D
p1 = t.index(C)
st = [p1 + i * len(U) for i in range(4)]
assert all(t[s:s + len(U)] == U for s in st)
fire(text=t, win=long_window(t, st, len(U.strip())), kind="list that cycles after a normal start",
     source="https://github.com/QwenLM/Qwen-VL/issues/175", model="Qwen-VL-Chat", status="continued",
     context="Describe the image.",
     unit="the three lines '...shades of color.' / '...shades of light.' / '...shades of dark.'",
     rule="unit of 16+ characters: start of 3rd copy to end of 4th copy (1st copy at %d)" % p1,
     extra="The quote stops at 'The collage is' in the 2nd copy (char %d); that copy was finished and two more cycles plus a partial line appended (continued)." % len(q))

# 13 — templated list lines (Llama 3.1 8B fine-tune)
t = read("fire/13_unsloth_1275.txt")
lines = [m for m in re.finditer(r'I looked at the \w+ one\. It read "It\'s a beautiful night tonight\. Look outside\."', t)]
st = [m.start() for m in lines]
ends = [m.end() for m in lines]
fire(text=t, win=(st[2], ends[3]), kind="list that cycles with a counter",
     source="https://github.com/unslothai/unsloth/issues/1275", model="Llama 3.1 8B (base, fine-tuned with unsloth)", status="real",
     unit="the line 'I looked at the <ordinal> one. It read \"It's a beautiful night tonight. Look outside.\"' (the ordinal is the list counter)",
     rule="unit of 16+ characters: start of 3rd copy ('fourth') to end of 4th copy ('fifth'); 1st copy is the 'second' line",
     extra="As quoted, without the reporter's trailing '...'; the stream ends where the window ends.")

# 14 — JSON object repeated (OneKE)
t = read("fire/14_deepke_541_oneke.txt")
ps = all_pos(t, '"person"')
st = [p - 1 if p > 0 and t[p - 1] == "{" else p for p in ps]
st[0] = 0
end4 = t.index('"Spain"]}', st[3]) + len('"Spain"]}')
fire(text=t, win=(st[2], end4), kind="JSON output repeating",
     source="https://github.com/zjunlp/DeepKE/issues/541", model="OneKE (DeepKE, int4 and fp16)", status="real",
     context="Extract person / organization / else / location entities as JSON from: 284 Robert Allenby ( Australia ) 69 71 71 73 , Miguel Angel Martin ( Spain ) 75 70 71 68 ( Allenby won at first play-off hole )",
     unit="the whole JSON object {\"person\": [...], ..., \"location\": [...]} (the 2nd copy lacks its '{', which folds as bracket padding)",
     rule="unit of 16+ characters: start of 3rd copy to end of 4th copy",
     extra="As quoted (4 full copies and a partial 5th).")

# 15 — self-written dialogue, then a paragraph loop (AquilaChat2), continued
q = read("fire/15_aquila2_95.txt")
P = q[q.index("【对话结束】"):q.index("【对话结束】", q.index("【对话结束】") + 1)]
assert q.endswith(P * 2 + P.rstrip("\n"))
t = q + "\n" + P + "【对话结束】 #用户评价反馈# 非常智能且富有耐心的AI助手。"
p1 = t.index("【对话结束】")
st = [p1 + i * len(P) for i in range(4)]
assert all(t[s:s + len(P)] == P for s in st)
fire(text=t, win=long_window(t, st, len(P.strip())), kind="self-dialogue that ends in a paragraph loop",
     source="https://github.com/FlagAI-Open/Aquila2/issues/95", model="AquilaChat2-34B-16K q4_0 (llama.cpp)", status="continued",
     context="你是谁",
     unit="the paragraph '【对话结束】 #用户评价反馈# 非常智能…期待下次的交流和合作！' (%d chars)" % len(P.strip()),
     rule="unit of 16+ characters: start of 3rd copy to end of 4th copy (the Human:/Assistant: turns before it do not repeat, so the self-dialogue rule does not apply)",
     extra="The quote shows 3 copies then '...' ('无限循环'); a 4th copy and the start of a 5th were appended (continued).")

# 16 — Chinese line loop (char-rnn)
t = read("fire/16_char_rnn_cn_4.txt")
L = "我不 我不 我不 我不 我不要再想"
st = all_pos(t, L)
assert len(st) == 4
fire(text=t, win=long_window(t, st, len(L)), kind="non-English line loop (Chinese)",
     source="https://github.com/leido/char-rnn-cn/issues/4", model="char-rnn (Chinese lyrics)", status="real",
     unit="the line '我不 我不 我不 我不 我不要再想' (17 chars)",
     rule="unit of 16+ characters: start of 3rd copy to end of 4th copy (the earlier line '我不 我不 我不要再想' differs)",
     extra="As quoted; the stream ends with the 4th copy.")

# 17 — Japanese Whisper hallucination line (rebuilt from one copy)
one = read("fire/17_faster_whisper_850_ja.txt")
t = "\n".join([one] * 10)
fire(text=t, win=short_window(t, 0), kind="ASR (Whisper) hallucination line, Japanese",
     source="https://github.com/SYSTRAN/faster-whisper/issues/850", model="Whisper large-v3 / large-v2 (faster-whisper)", status="rebuilt",
     unit="'ご視聴ありがとうございました' (14 chars, newline padding)",
     rule="shorter unit: span reaches 32 chars to where it reaches 96",
     extra="Rebuilt from one copy: the report quotes the phrase once and says the rest of the transcript keeps showing it; ten lines were written out. The normal first minutes are not quoted and are not included.")

# 18 — <unk> run after the answer (Phi-3 fine-tune)
t = read("fire/18_mlx_1048_phi3.txt")
s0 = t.index("<unk>")
fire(text=t, win=short_window(t, s0), kind="token run after a normal answer",
     source="https://github.com/ml-explore/mlx/issues/1048", model="Phi-3-mini-128k-instruct fine-tuned (mlx_lm)", status="real",
     context="Where is Paris ?",
     unit="'<unk>' (5 chars)", rule="run of one token: span (from %d) reaches 32 chars to where it reaches 96; the stream ends sooner" % s0,
     extra="As quoted (18 copies).")

# 19 — </s> run after the answer (Llama-2-7b-chat on TensorRT-LLM)
t = read("fire/19_tensorrt_llm_425_llama2.txt")
s0 = t.index("</s>")
fire(text=t, win=short_window(t, s0), kind="token run after a normal answer",
     source="https://github.com/NVIDIA/TensorRT-LLM/issues/425", model="Llama-2-7b-chat-hf (TensorRT-LLM)", status="real",
     context="Who won the world series in 2020? ... Where was it played?",
     unit="'</s>' (4 chars)", rule="run of one token: span (from %d) reaches 32 chars to where it reaches 96" % s0,
     extra="The answer and the first 40 '</s>' of the quoted output.")

# 20 — Chinese sentence loop after the first answer line (Gemma-2b fine-tune)
t = read("fire/20_gemma_zh_6.txt")
L = "HUB是网络中的一台主机，它既是网络的出口，又是网络的入口。它既可以作为网络的终点，也可以作为网络的起点。"
st = all_pos(t, "HUB是网络中的一台主机")
assert len(st) == 4
fire(text=t, win=long_window(t, st, len(L)), kind="non-English sentence loop (Chinese) after a normal start",
     source="https://github.com/windmaple/Gemma-Chinese-instruction-tuning/issues/6", model="Gemma-2b (Chinese instruction-tuned)", status="real",
     context="我有一个信息科学相关的问题，请用中文回答，什么是 HUB",
     unit="the sentence pair 'HUB是网络中的一台主机，…也可以作为网络的起点。' (%d chars; the first line, with '（Hub）', differs)" % len(L),
     rule="unit of 16+ characters: start of 3rd copy to end of 4th copy; the 4th copy is cut short, so the window ends with the stream",
     extra="As quoted (the generation stopped at max_new_tokens).")

# ---------------------------------------------------------------- no-fire cases

NOFIRE = []


def nofire(**kw):
    NOFIRE.append(kw)


real = "real program output"
nofire(file="nofire/unittest_fnmatch.txt", kind="test runner output", origin="real",
       source="python3 -m unittest -v test.test_fnmatch on CPython 3.11.7 (%s, src/nofire/unittest_fnmatch.txt)" % real,
       context="Run the fnmatch tests verbosely and paste the raw output.")
nofire(file="nofire/doctest_tidal.txt", kind="test runner output", origin="real",
       source="python3 -m doctest -v on a three-function module made for this set (%s, src/nofire/doctest_tidal.txt)" % real,
       context="Run the doctests in tidal.py with -v and show me what it prints.")
nofire(file="nofire/diff_ferry.txt", kind="unified diff", origin="real",
       source="diff -u of two timetable files made for this set (%s, src/nofire/diff_ferry.txt)" % real,
       context="Show the unified diff between ferry_v1.ini and ferry_v2.ini.")
nofire(file="nofire/seq_awk_cubes.txt", kind="numeric table", origin="real",
       source="seq 1 24 | awk printing n, n^3, sqrt(n), parity (%s, src/nofire/seq_awk_cubes.txt)" % real,
       context="Print a table of n, n cubed, the square root of n and whether n is odd or even for n = 1..24.")
nofire(file="nofire/column_stations.txt", kind="aligned text table", origin="real",
       source="column -t -s, on a CSV of stations made for this set (%s, src/nofire/column_stations.txt)" % real,
       context="Line up stations.csv into columns.")
nofire(file="nofire/od_sensor.txt", kind="byte dump", origin="real",
       source="od -A d -t x1 -w8 of a 96-byte file made for this set (%s, src/nofire/od_sensor.txt)" % real,
       context="Dump sensor.bin as hex bytes, eight per line, with decimal offsets.")
nofire(file="nofire/dpkg_log_head.txt", kind="log file", origin="real",
       source="head -30 /var/log/dpkg.log on the Debian image that built this set (real file, src/nofire/dpkg_log_head.txt)",
       context="What does the start of the dpkg log look like?")
nofire(file="nofire/ls_charmaps.txt", kind="directory listing", origin="real",
       source="ls -l /usr/share/i18n/charmaps | head -30 on the Debian image that built this set (%s, src/nofire/ls_charmaps.txt)" % real,
       context="List the first 30 files in /usr/share/i18n/charmaps with ls -l.")
nofire(file="nofire/traceback_recursion.txt", kind="traceback", origin="real",
       source="python3 on a two-line unbounded recursion made for this set, RecursionError traceback (%s, src/nofire/traceback_recursion.txt)" % real,
       context="What exactly does Python print when walk.py runs?")
nofire(file="nofire/sqlite_line_buoys.txt", kind="database output", origin="real",
       source="sqlite3 3.40 '.mode line' on a buoys table made for this set (%s, src/nofire/sqlite_line_buoys.txt)" % real,
       context="Show every row of the buoys table in sqlite3 line mode.")
nofire(file="nofire/jq_greek.json", kind="JSON dump", origin="real",
       source="jq . on a JSON list of twelve Greek small letters from unicodedata (%s, src/nofire/jq_greek.json)" % real,
       context="Pretty-print greek.json with jq.")
nofire(file="nofire/gen_crc32_table_head.c", kind="generated code", origin="real",
       source="python3 generator printing the CRC-32 lookup table as C, first 40 lines (real output of a generator script, src/nofire/gen_crc32_table_head.c)",
       context="Generate the CRC-32 (0xEDB88320) lookup table as a C array, four values per line.")
nofire(file="nofire/html_ascii_controls.html", kind="generated markup", origin="real",
       source="python3 generator printing an HTML table of curses.ascii.controlnames (real output of a generator script, src/nofire/html_ascii_controls.html)",
       context="Make an HTML table of the ASCII control characters: decimal, hex and name.")

wr = "written for blind-stream9"
nofire(file="written/w01_lines_digits.txt", kind="requested lines (count in digits)", origin="written",
       source=wr + " (requested repetition, count in digits)",
       context="Write the sentence 'I will check the tide table before I sail.' 20 times, one per line.")
nofire(file="written/w02_lines_french_words.txt", kind="requested lines (count in words, French)", origin="written",
       source=wr + " (requested repetition, count in words, French request)",
       context="Écris vingt fois la phrase « Je relis toujours mon code avant de le publier. », une par ligne.")
nofire(file="written/w13_japanese_words.txt", kind="requested lines (count in words, Japanese)", origin="written",
       source=wr + " (requested repetition, count in words, Japanese request)",
       context="「おはようございます」を十回、一行ずつ書いてください。")
nofire(file="written/w03_card_german.txt", kind="lines for a card", origin="written",
       source=wr + " (lines for cards, count in words, German request)",
       context="Ich schreibe sechs Geburtstagskarten. Gib mir sechsmal die Zeile 'Alles Gute zum Geburtstag, Oma!', eine pro Karte.")
nofire(file="written/w07_place_cards.txt", kind="lines for a card", origin="written",
       source=wr + " (place-card lines with a table number)",
       context="For the place cards, write one line per table for tables 1 to 8: 'Table N: Welcome to Ana and Tomás's wedding!'")
nofire(file="written/w04_until_stop.txt", kind="requested chant, no count", origin="written",
       source=wr + " (requested repetition, no count: until I say stop)",
       context="Count the beat for me: keep saying 'One, two, three, four.' over and over until I say stop.")
nofire(file="written/w08_typing_drill.txt", kind="drill", origin="written",
       source=wr + " (typing drill on request)",
       context="Give me a home-row typing drill: eight identical lines of 'asdf jkl;' repeated across the line.")
nofire(file="written/w05_ten_green_bottles.txt", kind="song with refrain", origin="written",
       source="traditional song 'Ten Green Bottles' (public domain), verses from ten to seven; " + wr,
       context="Sing 'Ten Green Bottles' for the kids, from ten down to seven.")
nofire(file="written/w06_litany_loreto.txt", kind="litany", origin="written",
       source="Litany of Loreto (traditional, public domain), opening invocations; " + wr,
       context="Please write out the opening of the Litany of Loreto, one invocation per line.")
nofire(file="written/w09_house_jack_built.txt", kind="cumulative rhyme", origin="written",
       source="nursery rhyme 'This Is the House That Jack Built' (traditional, public domain), first seven verses; " + wr,
       context="Recite 'This Is the House That Jack Built' up to the maiden all forlorn.")
nofire(file="written/w10_faq.txt", kind="FAQ with Q:/A: lines", origin="written",
       source=wr + " (FAQ answer with repeated Q:/A: structure)",
       context="Write a short FAQ for the morning ferry in Q:/A: form.")
nofire(file="written/w11_steps.txt", kind="step list with the same opening word", origin="written",
       source=wr + " (numbered steps that all open with 'Tap')",
       context="How do I pair these headphones with my phone? Give me numbered steps.")
nofire(file="written/w12_dialogue.txt", kind="dialogue written on request", origin="written",
       source=wr + " (two-speaker scene written on request)",
       context="Write a short scene between a baker and a customer buying bread, as a script with speaker names.")


# ---------------------------------------------------------------- write files

def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".json"):
            os.remove(os.path.join(OUT, f))
    n = 0
    rows = []
    for c in FIRE:
        n += 1
        cid = "BS9-%02d" % n
        text = c["text"]
        chunks = chunk(text, n)
        a, b = c["win"]
        assert 0 <= a < b <= len(text), (cid, a, b, len(text))
        first, last = chunk_of(chunks, a), chunk_of(chunks, b - 1)
        notes = ("seed %d (random.Random(%d + %d)); unit: %s; rule: %s; window [%d, %d) of %d code points, "
                 "first char %r, last char %r; chunks %d..%d of %d. %s" % (
                     SEED_BASE + n, SEED_BASE, n, c["unit"], c["rule"], a, b, len(text),
                     text[a], text[b - 1], first, last, len(chunks), c["extra"]))
        case = {"id": cid, "level": "stream", "input": chunks}
        if c.get("channel"):
            case["stream_channel"] = c["channel"]
        if c.get("context"):
            case["context"] = c["context"]
        case["expected"] = {"verdict": "fire", "fire_between_chunks": [first, last], "fire_between_chars": [a, b]}
        case.update({"kind": c["kind"], "source": c["source"], "notes": notes, "model": c["model"], "status": c["status"]})
        with open(os.path.join(OUT, cid + ".json"), "w", encoding="utf-8") as f:
            json.dump(case, f, ensure_ascii=False, indent=1)
            f.write("\n")
        rows.append((cid, "fire", c["kind"], c["source"], c["model"], c["status"], len(text), len(chunks), (a, b), (first, last)))
    for c in NOFIRE:
        n += 1
        cid = "BS9-%02d" % n
        text = read(c["file"])
        chunks = chunk(text, n)
        case = {"id": cid, "level": "stream", "input": chunks, "context": c["context"],
                "expected": {"verdict": "no-fire"}, "kind": c["kind"], "source": c["source"],
                "notes": "seed %d (random.Random(%d + %d)); %d code points in %d chunks; %s text from src/%s; legitimate repetition (the request or the program produced it)." % (
                    SEED_BASE + n, SEED_BASE, n, len(text), len(chunks), c["origin"], c["file"]),
                "origin": c["origin"]}
        with open(os.path.join(OUT, cid + ".json"), "w", encoding="utf-8") as f:
            json.dump(case, f, ensure_ascii=False, indent=1)
            f.write("\n")
        rows.append((cid, "no-fire", c["kind"], c["source"], c["origin"], "", len(text), len(chunks), None, None))
    for r in rows:
        print(*r, sep=" | ")
    print("fire: %d, no-fire: %d" % (len(FIRE), len(NOFIRE)))


if __name__ == "__main__":
    main()
