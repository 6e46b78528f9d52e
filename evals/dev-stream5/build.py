#!/usr/bin/env python3
"""Writes every case file of evals/dev-stream5/stream/ from the texts below.

Plain python3, no project imports.  Run from anywhere:  python3 evals/dev-stream5/build.py

Chunks: case n is cut into chunks of random.Random(20261204 + n).randint(1, 12) code points.
Labels are computed from the joined text by the rules in README.md:
  * unit of 16+ characters: window = [start of its 3rd copy, end of its 4th copy)
    (copies counted from the unit's first appearance; if the stream ends before the
    4th copy ends, the window ends with the stream);
  * shorter unit or one-token run: window = [run start + 32, run start + 96)
    (or to the end of the stream if it ends sooner).
"""
import json
import os
import random
import re

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "stream")
SRC = os.path.join(HERE, "src")
SEED = 20261204


def src(name):
    with open(os.path.join(SRC, name), encoding="utf-8") as f:
        return f.read()


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


def long_window(text, unit):
    """Copies of `unit` counted from its first appearance; window [3rd start, 4th end)."""
    occ, pos = [], 0
    while True:
        i = text.find(unit, pos)
        if i < 0:
            break
        occ.append(i)
        pos = i + len(unit)
    assert len(occ) >= 3, (unit, occ)
    start = occ[2]
    end = occ[3] + len(unit.rstrip()) if len(occ) >= 4 else len(text)
    return start, end, occ


def short_window(text, run_start, unit):
    """Run of a short unit starting at run_start; window [start+32, start+96)."""
    # sanity: the run really continues (after folding whitespace/punctuation) past the window
    stop = min(run_start + 96, len(text))
    seg = re.sub(r"[\s\W_]+", "", text[run_start:stop])
    core = re.sub(r"[\s\W_]+", "", unit)
    if core:
        assert seg == (core * (len(seg) // len(core) + 2))[:len(seg)], (unit, seg[:40])
    else:  # punctuation-only unit: the raw run must consist of the unit's characters and spaces
        assert set(text[run_start:stop]) <= set(unit) | {" ", "\n"}, unit
    return run_start + 32, stop


CASES = []


def fire(kind, source, notes, text, *, unit, rule, run_start=None, context=None,
         channel=None, real=True):
    CASES.append(dict(verdict="fire", kind=kind, source=source, notes=notes, text=text,
                      unit=unit, rule=rule, run_start=run_start, context=context,
                      channel=channel, real=real))


def nofire(kind, source, notes, text, *, context=None, channel=None, real=True):
    CASES.append(dict(verdict="no-fire", kind=kind, source=source, notes=notes, text=text,
                      context=context, channel=channel, real=real))


# ---------------------------------------------------------------------------------------
# FIRE: real degenerate outputs quoted in public reports
# ---------------------------------------------------------------------------------------

fire("phrase-chant",
     "https://github.com/QwenLM/Qwen3-ASR/issues/129",
     "Qwen3-ASR 1.6B (served by vLLM) transcript; the issue quotes the lead-in and 16 copies of "
     "'I think.' then '[...]' and says it went on about 2,000 times. Continued to 60 copies.",
     "Are there going to be exercise part of things that they can exercise? "
     + " ".join(["I think."] * 60),
     unit="I think.", rule="short", run_start="I think.")

fire("phrase-chant",
     "https://github.com/SKT-AI/KoGPT2/issues/1",
     "KoGPT2 (Korean GPT-2) greedy continuation of the prompt '2029년에는, '; the issue names the "
     "tokens '▁그', '▁후', ',' as repeating without end. Written out as the decoded text "
     "(prompt echoed as the example code prints it) with 50 copies of ' 그 후,'.",
     "2029년에는," + " 그 후," * 50,
     unit="그 후,", rule="short", run_start="그 후,")

fire("phrase-chant",
     "https://github.com/haven-jeon/KoGPT2-chatbot/issues/4",
     "KoGPT2 chatbot: the issue says only '라단조, sehr' comes out, endlessly. The separator between "
     "copies is not quoted; a single space is used. 40 copies.",
     " ".join(["라단조, sehr"] * 40),
     unit="라단조, sehr", rule="short", run_start=0)

fire("special-token-run",
     "https://github.com/antirez/ds4/issues/51",
     "DeepSeek V4 Flash Q4 GGUF under ds4: generation is only the BOS token; the issue quotes three "
     "copies and '...'. Continued to 40 copies.",
     "<｜begin▁of▁sentence｜>" * 40,
     unit="<｜begin▁of▁sentence｜>", rule="long")

fire("special-token-run",
     "https://github.com/bytedance/video-SALMONN-2/issues/20",
     "Fine-tuned video-SALMONN-2 prediction: one sentence, then '<|im_start|>' lines; the issue "
     "quotes dozens of them (the JSON shows them as \\n-separated) before it is cut. Continued to "
     "60 lines.",
     "It was a bowl of cotton.\n" + "<|im_start|>\n" * 60,
     unit="<|im_start|>\n", rule="short", run_start="<|im_start|>")

fire("glued-token-run",
     "https://github.com/yhfgyyf/vllm-deepseek-v4-sm89/issues/117",
     "glm-5.3-flash on vLLM: the issue says the model suddenly outputs the word 'lock' without end, "
     "quoted as 'locklock....'. Only the run is quoted; written as 100 glued copies.",
     "lock" * 100,
     unit="lock", rule="short", run_start=0)

fire("glued-token-run",
     "https://github.com/meta-llama/llama-cookbook/issues/453",
     "Llama 3 via the cookbook's command-line example: the assistant echoes the question, emits "
     "'приклад' and then 'itchens' glued together (well over a hundred copies quoted). Written with 80.",
     "What is the best programming language?приклад" + "itchens" * 80,
     unit="itchens", rule="short", run_start="itchens")

fire("glued-token-run",
     "https://github.com/QwenLM/Qwen3/issues/1142",
     "Qwen2.5-72B-Instruct HF space, writing a host public key: the issue says it generated "
     "'zXzXzX' without end (title quotes 'zXzXzXzX'; the rest is a screenshot). Only the run is "
     "written, 150 copies of 'zX'.",
     "zX" * 150,
     unit="zX", rule="short", run_start=0)

fire("word-run",
     "https://github.com/microsoft/vscode/issues/301818",
     "Reasoning channel of a Copilot chat model: the word 'it' repeated non-stop (hundreds quoted). "
     "Written with 150 copies.",
     " ".join(["it"] * 150),
     unit="it", rule="short", run_start=0, channel="reasoning")

fire("word-run",
     "https://github.com/ollama/ollama/issues/15502",
     "gemma4:31b with a JSON schema (format=): inside the string value the word 'own' intrudes and "
     "then repeats until num_predict. The quote's line breaks are display wrapping of a JSON string "
     "and are written as spaces. Dozens of 'own' quoted; continued to 120.",
     '{\n  "description": "The horizon is a bleeding, vibrant, orange-gold single own line where '
     'the sky meets the ocean, as the sun dips low, casting a long, shimmering path of amber'
     + " own" * 120,
     unit="own", rule="short", run_start=("amber own", len("amber ")))

CODELLAMA = ('"###Here is a simple example of Java Junitunittititiiiiijiijikilillimiminininnnnoonon'
             + "o" * 400)
fire("character-run",
     "https://github.com/oobabooga/textgen/issues/3829",
     "phind-codellama-34B in text-generation-webui: letters collapse into one repeated 'o' "
     "(dozens quoted on the first line). Continued to 400.",
     CODELLAMA,
     unit="o", rule="short", run_start=CODELLAMA.rfind("n") + 1)

fire("character-run",
     "https://github.com/open-compass/opencompass/issues/1732",
     "Fine-tuned Qwen2.5-7B evaluated in OpenCompass: the output is only full-width exclamation "
     "marks, quoted as '！！！！！！'. Written as 300.",
     "！" * 300,
     unit="！", rule="short", run_start=0)

fire("character-run",
     "https://github.com/syv-ai/qwen38-27b-rtx3090/issues/8",
     "Qwen3.8-27B thinking: '! ! ! ! ! !' loops in the reasoning (quoted in a comment). Written as "
     "200 space-separated '!'.",
     " ".join(["!"] * 200),
     unit="!", rule="short", run_start=0, channel="reasoning")

fire("sentence-loop",
     "https://github.com/Lightning-AI/litgpt/issues/1540",
     "pythia-1b via litgpt generate.py (prompt 'What food do llamas eat?' not included): the answer "
     "settles into one sentence. The issue quotes 4 copies and a cut 5th; continued to 12.",
     "Llamas eat a lot of things. They eat grass, and they eat bark, and they eat leaves. They eat "
     "nuts, fruits, seeds, and everything else.\n\nWhat do llamas eat?\n\nLlamas eat grass, bark, "
     "leaves, and nuts. " + " ".join(["They eat grass, bark, leaves, and nuts."] * 12),
     unit="They eat grass, bark, leaves, and nuts.", rule="long")

fire("sentence-loop",
     "https://github.com/RooCodeInc/Roo-Code/issues/9939",
     "Roo Code agent reply: after a short preamble one sentence repeats (dozens of copies quoted). "
     "Written with 60.",
     "Understood. my current working directory is api. I'll adjust the path accordingly to execute "
     "the test. " + " ".join(["I will now run the test."] * 60),
     unit="I will now run the test.", rule="long")

fire("sentence-loop",
     "https://github.com/anthropics/claude-code/issues/65823",
     "Claude Opus in a long Claude Code session: the fixed string 'court placeholder' repeated "
     "(10,613 times in one message). The separator is not quoted; a single space is used. 40 copies.",
     " ".join(["court placeholder"] * 40),
     unit="court placeholder", rule="long")

QWEN38_BLOCK = ("            Okay let's step out of the hallucination loop. \n"
                "             Actual User Input = `6534 / 7`. What is result?\" No wait... looking "
                "back up to **User** field content provided in system instructions or current "
                "turn? Wait, I am an AI model processing a request \"divide by four\". But where "
                "did that come from?\n             \n")
fire("paragraph-loop",
     "https://github.com/QwenLM/Qwen3.8/issues/35",
     "Qwen3.5 thinking trace (as quoted, with its indentation): one paragraph repeats. The issue "
     "quotes two copies; the stream starts at the quoted loop and is continued to 6 copies.",
     (QWEN38_BLOCK * 6).rstrip(),
     unit=QWEN38_BLOCK.lstrip(" ").rstrip(), rule="long",
     channel="reasoning")

SPARK_P = ("Let me first check the test server is up and understand the current state. Let me "
           "check the test server and the custom node.")
fire("paragraph-loop",
     "https://github.com/eugr/spark-vllm-docker/issues/341",
     "DeepSeek V4 Flash 0731 thinking in Qwen Code: the plan paragraph, one variant ('is running'), "
     "then the same paragraph again and again. The UI's 4-space indent and line wrap are removed. "
     "The issue quotes the paragraph 3 times plus a cut copy; continued to 7 copies in all. The 1st copy is the paragraph before the variant; the variant is not a copy.",
     "Now I have a good understanding of the codebase. Let me understand the task:\n\n"
     " 1. The user wants to add video workflow support.\n"
     " 2. First, I need to run the two video workflows using the test server and confirm "
     "everything is fine.\n"
     " 3. If there's an issue, tell them before continuing.\n\n"
     + SPARK_P + "\n\n"
     "Let me first check the test server is running and understand the current state. Let me "
     "check the test server and the custom node.\n\n"
     + "\n\n".join([SPARK_P] * 6),
     unit=SPARK_P, rule="long", channel="reasoning")

MNN_CYCLE = "《祝福》、《狂人日记》、《孔乙己》、《药》、"
fire("list-cycle",
     "https://github.com/alibaba/MNN/issues/3938",
     "Qwen2.5-1.5B-Instruct (MNN llm chat) asked '鲁迅作品': after the first list the same four "
     "titles cycle. The issue quotes about a dozen cycles and a cut one; continued to 16 cycles, ending on a "
     "title.",
     "鲁迅是中国现代文学的重要作家，他的作品对中国现代文学产生了深远的影响。鲁迅的代表作包括《呐喊》、"
     "《狂人日记》、《祝福》、《孔乙己》、《药》、《阿Q正传》、" + MNN_CYCLE * 16 + "《祝福》",
     unit=MNN_CYCLE, rule="long")

DSC_LINES = ["传奇", "辉煌", "短暂", "悲壮", "孤独", "无奈", "遗憾"]
DSC_CYCLE = "".join("他的一生，是%s的一生。\n" % w for w in DSC_LINES)
fire("list-cycle",
     "https://github.com/deepseek-ai/DeepSeek-Coder/issues/69",
     "deepseek-coder base on the prompt '你好啊' (prompt not included): a 7-line cycle. Exactly as "
     "quoted: 3 full cycles and a 4th cut by max_length, so no continuation and the window ends "
     "with the stream.",
     "，我叫李小龙\n1999年，李小龙去世，享年32岁。\n" + DSC_CYCLE * 3
     + "他的一生，是传奇的一生。\n他的一生，是辉煌的一生。\n他的一生，是短暂的一生。\n"
       "他的一生，是悲壮的一生。\n他的一生，是孤独的一生。\n他的一生，是无奈的一",
     unit=DSC_CYCLE, rule="long")

PALI = ("public static boolean isPalindrome(String str) {\n"
        "    int left = 0;\n"
        "    int right = str.length() - 1;\n"
        "    while (left < right) {\n"
        "        if (str.charAt(left) != str.charAt(right)) {\n"
        "            return false;\n"
        "        }\n"
        "        left++;\n"
        "        right--;\n"
        "    }\n"
        "    return true;\n"
        "}")
fire("code-block-loop",
     "https://github.com/QwenLM/Qwen3-Coder/issues/81",
     "CodeQwen1.5 fill-in-the-middle at temperature 0: the function, the prompt's comment, the "
     "function again, and so on. The issue quotes one function and the start of the second "
     "('Output may look like'); continued to 5 copies of the function.",
     " \n" + "\n\n//判断一个字符串是否为回文字符串串\n".join([PALI] * 5) + "\n",
     unit=PALI, rule="long")

# ---------------------------------------------------------------------------------------
# NO-FIRE: legitimate repetitive output
# ---------------------------------------------------------------------------------------

GOWORKS = "".join("=== RUN   %s\n--- PASS: %s (0.00s)\n" % (t, t) for t in [
    "TestObjectsAreEqual", "TestImplements", "TestIsType", "TestEqual", "TestEqualFormatting",
    "TestFormatUnequalValues", "TestNotNil", "TestNil", "TestTrue", "TestFalse", "TestExactly",
    "TestNotEqual", "TestContains", "TestNotContains", "Test_includeElement", "TestCondition",
    "TestDidPanic", "TestPanics", "TestNotPanics", "TestNoError", "TestError"])
nofire("test-runner-output",
       "https://github.com/tunnelvisionlabs/goworks/issues/36",
       "Real output of 'go test -v github.com/stretchr/testify/assert' quoted in the issue, up to "
       "the last complete test before the quote is cut (21 tests).",
       GOWORKS,
       context="Run go test -v on github.com/stretchr/testify/assert and paste the output.")

TINYGO = ("$ tinygo test -v crypto/md5\n"
          + "".join("=== RUN   %s\n--- PASS: %s\n" % (t, t) for t in [
              "TestGolden", "TestGoldenMarshal", "TestLarge", "TestBlockGeneric",
              "TestLargeHashes"])
          + "PASS\nok  \tcrypto/md5\t0.002s\n\n"
          "$ tinygo test crypto/md5 crypto/sha1 crypto/sha256 crypto/sha512\n"
          "PASS\nok  \tcrypto/md5\t0.002s\nPASS\nok  \tcrypto/sha1\t0.043s\n"
          "PASS\nok  \tcrypto/sha256\t0.002s\nPASS\nok  \tcrypto/sha512\t0.003s\n")
nofire("multi-package-test-summary",
       "https://github.com/tinygo-org/tinygo/pull/2039",
       "Real tinygo test output from the pull request description (verbose run of crypto/md5, then "
       "four packages with a PASS/ok pair each); markdown indentation removed.",
       TINYGO,
       context="Show me what `tinygo test -v` prints now, and what a multi-package run looks like.")

COWPATTY_BLOCK = ("cowpatty.c: In function 'handle_dot1x':\n"
                  "cowpatty.c:438:16: warning: variable 'index' set but not used "
                  "[-Wunused-but-set-variable]\n"
                  "  int key_info, index;\n"
                  "                ^~~~~\n"
                  "cowpatty.c: In function 'hashfile_attack':\n"
                  "cowpatty.c:727:6: warning: variable 'reclen' set but not used "
                  "[-Wunused-but-set-variable]\n"
                  "  int reclen, wordlen;\n"
                  "      ^~~~~~\n"
                  "genpmk.c: In function 'main':\n"
                  "genpmk.c:82:19: warning: variable 'ret' set but not used "
                  "[-Wunused-but-set-variable]\n"
                  "  int fret = 0, c, ret;\n"
                  "                   ^~~\n")
nofire("compiler-warnings",
       "https://github.com/joswr1ght/cowpatty/issues/7",
       "Real gcc build output quoted in the issue: the same three warnings printed twice (two "
       "build passes), exactly as quoted.",
       COWPATTY_BLOCK * 2,
       context="Paste the warnings from the cowpatty build so I can file them upstream.")

TZPL = [("143:10", "newVal", "  143 |     Obj* newVal = vm.reg(src).o;", "      |          ^~~~~~"),
        ("159:10", "newVal", "  159 |     Obj* newVal = vm.reg(src).o;", "      |          ^~~~~~"),
        ("3347:15", "oldCurrent", " 3347 |         auto* oldCurrent = current_;",
         "      |               ^~~~~~~~~~"),
        ("3853:11", "et", " 3853 |     Type* et = listType->elemType_;", "      |           ^~"),
        ("3878:10", "elemIsObj", " 3878 |     bool elemIsObj = storesObjPtr(et);",
         "      |          ^~~~~~~~~"),
        ("3907:15", "lt", " 3907 |         auto* lt = static_cast<ListType*>(node->type_);",
         "      |               ^~"),
        ("3944:15", "idx", " 3944 |     for (auto idx : gcFreeVars) {", "      |               ^~~")]
nofire("compiler-warnings",
       "https://github.com/lfnoise/tzpl/issues/11",
       "Real g++ output from a failed Debian 13 build quoted in the issue: seven unused-variable "
       "warnings from one file, up to the last complete one before the quote is cut.",
       "".join("/home/blazen/Code/tzpl/lang/src/opcodes.cpp:%s: warning: unused variable '%s' "
               "[-Wunused-variable]\n%s\n%s\n" % t for t in TZPL),
       context="The build prints a wall of warnings before failing; show me the first ones.")

nofire("build-log",
       "https://github.com/berthubert/simplomon/issues/24",
       "Real ninja build log quoted in the issue: the same unused-variable warning twice, once per "
       "target that compiles minicurl.cc.",
       "ninja: Entering directory `/home/roel/tools/simplomon/build'\n"
       "[1/16] Compiling C++ object simplomon.p/minicurl.cc.o\n"
       "../minicurl.cc: In member function ‘void MiniCurl::setupURL(const string&, const "
       "ComboAddress*, const ComboAddress*)’:\n"
       "../minicurl.cc:122:9: warning: unused variable ‘ret’ [-Wunused-variable]\n"
       "  122 |     int ret = curl_easy_setopt(d_curl, CURLOPT_INTERFACE, src->toString().c_str());\n"
       "      |         ^~~\n"
       "[5/16] Compiling C++ object testrunner.p/minicurl.cc.o\n"
       "../minicurl.cc: In member function ‘void MiniCurl::setupURL(const string&, const "
       "ComboAddress*, const ComboAddress*)’:\n"
       "../minicurl.cc:122:9: warning: unused variable ‘ret’ [-Wunused-variable]\n"
       "  122 |     int ret = curl_easy_setopt(d_curl, CURLOPT_INTERFACE, src->toString().c_str());\n"
       "      |         ^~~\n"
       "[16/16] Linking target testrunner\n",
       context="Build simplomon with ninja and show the log.")

OPENUI_INCL = ("In file included from /Users/rco/Src/taranis/opentx/radio/src/thirdparty/libopenui/"
               "src/mainwindow.h:23:0,\n"
               "                 from /Users/rco/Src/taranis/opentx/radio/src/gui/colorlcd/"
               "libopenui.h:28,\n"
               "                 from /Users/rco/Src/taranis/opentx/radio/src/opentx.h:31,\n"
               "                 from /Users/rco/Src/taranis/opentx/radio/src/targets/common/arm/"
               "stm32/bluetooth_driver.cpp:21:\n")
OPENUI_H = "/Users/rco/Src/taranis/opentx/radio/src/thirdparty/libopenui/src/layer.h"
nofire("compiler-warnings",
       "https://github.com/opentx/libopenui/issues/7",
       "Real arm-gcc output quoted in the issue ('generates 1000s of warnings'): two include-chain "
       "blocks that differ only in the function and line. The quote is cut inside the second "
       "warning line; its end and the two source lines are completed the same way as the first.",
       OPENUI_INCL
       + OPENUI_H + ": In static member function 'static void Layer::push(Window*)':\n"
       + OPENUI_H + ":47:17: warning: variable 'layer' set but not used "
                    "[-Wunused-but-set-variable]\n"
       "       for (auto layer: stack) {\n"
       "                 ^~~~~\n"
       + OPENUI_INCL
       + OPENUI_H + ": In static member function 'static void Layer::pop(Window*)':\n"
       + OPENUI_H + ":74:17: warning: variable 'layer' set but not used "
                    "[-Wunused-but-set-variable]\n"
       "       for (auto layer: stack) {\n"
       "                 ^~~~~\n",
       context="Why does the opentx build print so many warnings? Show me a couple.")

nofire("multi-crate-test-output",
       "cargo test on a three-crate workspace made for this set (real program output, src/cargo_test.txt)",
       "Real output of `cargo test` (rustc stable) on a small workspace of three library crates "
       "(units, parser, report); the path is rewritten to /home/dev/ws. Three 'running N tests' "
       "blocks and three empty doc-test blocks that are identical but for the crate name.",
       src("cargo_test.txt"),
       context="Run cargo test for the whole workspace and show me the output.")

nofire("test-runner-output",
       "python3 -m unittest -v test.test_bisect on CPython 3.11.7 (real output, src/unittest_bisect.txt)",
       "Real verbose unittest output: 42 tests in C and Python variants, so most lines come in "
       "pairs that differ only in the class name.",
       src("unittest_bisect.txt"),
       context="Run the bisect tests verbosely.")

nofire("test-runner-output",
       "node --test (Node 20) on a test file made for this set (real program output, src/node_test.txt)",
       "Real output of the Node.js built-in test runner (spec reporter) for eight small tests of a "
       "slug function.",
       src("node_test.txt"),
       context="Add tests for slug() and run them with node --test.")

nofire("generated-listing",
       "python3 dis.dis of a three-line clamp function on CPython 3.11.7 (real output, "
       "src/dis_clamp.txt)",
       "Real disassembly: three 10-instruction blocks that differ only in offsets and the variable "
       "(r, g, b).",
       src("dis_clamp.txt"),
       context="def clamp_rgb(r, g, b):\n    r = max(0, min(255, r))\n    g = max(0, min(255, g))\n"
               "    b = max(0, min(255, b))\n    return r, g, b\n\nShow me the bytecode of this "
               "function.")

nofire("markdown-table",
       "sqlite3 3.40.1 '.mode markdown' on a seats table made for this set (real program output, "
       "src/sqlite_seats.txt)",
       "Real sqlite3 output: twelve rows, eleven of them 'free' at the same price.",
       src("sqlite_seats.txt"),
       context="List every seat in the seats table as a markdown table.")

nofire("requested-recitation",
       "Psalm 136:1-9, King James Version (public domain)",
       "Every verse ends with the same refrain 'for his mercy endureth for ever'; the request asks "
       "for these nine verses.",
       "1 O give thanks unto the LORD; for he is good: for his mercy endureth for ever.\n"
       "2 O give thanks unto the God of gods: for his mercy endureth for ever.\n"
       "3 O give thanks to the Lord of lords: for his mercy endureth for ever.\n"
       "4 To him who alone doeth great wonders: for his mercy endureth for ever.\n"
       "5 To him that by wisdom made the heavens: for his mercy endureth for ever.\n"
       "6 To him that stretched out the earth above the waters: for his mercy endureth for ever.\n"
       "7 To him that made great lights: for his mercy endureth for ever:\n"
       "8 The sun to rule by day: for his mercy endureth for ever:\n"
       "9 The moon and stars to rule by night: for his mercy endureth for ever.\n",
       context="Please recite Psalm 136, verses 1 to 9, in the King James Version, one verse per "
               "line with its number.")

nofire("requested-recitation",
       "Edgar Allan Poe, 'The Bells' (1849, public domain), part I",
       "The poem's own word run: 'bells, bells, bells, bells, / Bells, bells, bells' (seven "
       "copies), plus 'tinkle, tinkle, tinkle' and 'time, time, time'.",
       "Hear the sledges with the bells—\nSilver bells!\n"
       "What a world of merriment their melody foretells!\n"
       "How they tinkle, tinkle, tinkle,\nIn the icy air of night!\n"
       "While the stars that oversprinkle\nAll the heavens, seem to twinkle\n"
       "With a crystalline delight;\nKeeping time, time, time,\nIn a sort of Runic rhyme,\n"
       "To the tintinnabulation that so musically wells\n"
       "From the bells, bells, bells, bells,\nBells, bells, bells—\n"
       "From the jingling and the tinkling of the bells.\n",
       context="Recite the first part of Poe's 'The Bells' for my class.")

JB_CHORUS = ("Glory, glory, hallelujah!\nGlory, glory, hallelujah!\nGlory, glory, hallelujah!\n"
             "His soul goes marching on!\n")
nofire("song-with-refrain",
       "traditional song 'John Brown's Body' (1861, public domain), one common version",
       "Each verse is one line sung three times and a closing line, and the chorus (the same line "
       "three times) follows every verse, as the request asks.",
       "John Brown's body lies a-mouldering in the grave,\n" * 3 + "His soul goes marching on!\n\n"
       + JB_CHORUS + "\n"
       + "He's gone to be a soldier in the army of the Lord,\n" * 3 + "His soul goes marching on!\n\n"
       + JB_CHORUS,
       context="Sing me the first two verses of 'John Brown's Body', with the chorus after each "
               "verse.")

# written for this set: repetition the request asked for ------------------------------------

nofire("requested-line-repetition",
       "written for blind-stream5 (request with a count in digits)",
       "Written: the request asks for one line 20 times; the stream gives exactly 20.",
       "Sure, here it is 20 times:\n\n" + "I will label my cables before unplugging them.\n" * 20,
       context="Write the sentence 'I will label my cables before unplugging them.' 20 times, one "
               "per line. It's for a sign in the server room.",
       real=False)

nofire("requested-token-run",
       "written for blind-stream5 (request with a count in words)",
       "Written: the request asks for the word 'ho' forty times separated by spaces; the stream "
       "gives forty.",
       " ".join(["ho"] * 40) + "\n\nThat's forty, for the Santa voice check.",
       context="For a speech-synthesis test I need the word 'ho' forty times in a row, separated by "
               "single spaces, nothing else on the line.",
       real=False)

nofire("requested-repetition-multilingual",
       "written for blind-stream5 (request in Chinese)",
       "Written: the request (in Chinese) asks for '新年快乐' twenty times, one per line.",
       "好的：\n" + "新年快乐\n" * 20,
       context="请把“新年快乐”写二十遍，每行一遍，我要剪下来贴在红包上。",
       real=False)

nofire("requested-repetition-multilingual",
       "written for blind-stream5 (request in Spanish)",
       "Written: the request (in Spanish) asks for 'Lo siento' twelve times separated by commas.",
       ", ".join(["Lo siento"] * 12) + ".",
       context="Escribe 'Lo siento' doce veces seguidas, separadas por comas, para la tarjeta.",
       real=False)

nofire("requested-repetition-multilingual",
       "written for blind-stream5 (request in Japanese)",
       "Written: the request (in Japanese) asks for 'がんばれ！' fifteen times, one per line.",
       "\n".join(["がんばれ！"] * 15) + "\n",
       context="応援ボード用に「がんばれ！」を十五回、一行ずつ書いてください。",
       real=False)

nofire("requested-open-ended-repetition",
       "written for blind-stream5 (request: until I say stop)",
       "Written: the request asks for the same line until the user says stop; the stream gives 30 "
       "lines (the user had not said stop yet).",
       "\n".join(["One more sheep jumps over the fence."] * 30) + "\n",
       context="I can't sleep. Print 'One more sheep jumps over the fence.' on its own line, again "
               "and again, until I say stop.",
       real=False)

nofire("requested-page-fill",
       "written for blind-stream5 (request: fill the page)",
       "Written: the request asks to fill a page with the alphabet line for a font test; 28 lines.",
       "\n".join(["abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789"] * 28) + "\n",
       context="Fill a whole page with the line 'abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ "
               "0123456789' so I can print it and compare fonts.",
       real=False)

CHORUS = ("Row the boat home, row the boat slow,\nThe tide is turning and the lanterns glow,\n"
          "Row the boat home where the willows grow.\n")
nofire("requested-chorus",
       "written for blind-stream5 (original lyrics; request: chorus after every verse)",
       "Written: an original three-verse song; the request asks for the chorus after every verse, "
       "so the three-line chorus appears three times.",
       "Verse 1\nThe river's wide and the evening's long,\nThe fishermen hum an older song,\n"
       "The nets are heavy, the light is thin,\nAnd the gulls are calling the last boats in.\n\n"
       "Chorus\n" + CHORUS + "\n"
       "Verse 2\nMy father rowed where the reed beds bend,\nHe knew each stone and he knew each bend,\n"
       "He'd sing this tune when the catch was small,\nAnd it never seemed to matter at all.\n\n"
       "Chorus\n" + CHORUS + "\n"
       "Verse 3\nNow the pier is new and the boats have motors,\nThe market's full of city voters,\n"
       "But I keep an oar by the kitchen door,\nFor the nights I need to row once more.\n\n"
       "Chorus\n" + CHORUS,
       context="Write a short folk song about rowing home at dusk, three verses, and write the "
               "chorus out in full after every verse (I'm printing lyric sheets).",
       real=False)

STATES = ["Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut",
          "Delaware", "Florida", "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa",
          "Kansas", "Kentucky", "Louisiana", "Maine", "Maryland", "Massachusetts", "Michigan",
          "Minnesota", "Mississippi", "Missouri", "Montana", "Nebraska", "Nevada", "New Hampshire",
          "New Jersey", "New Mexico", "New York", "North Carolina", "North Dakota", "Ohio",
          "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island", "South Carolina", "South Dakota",
          "Tennessee", "Texas", "Utah", "Vermont", "Virginia", "Washington", "West Virginia",
          "Wisconsin", "Wyoming"]
assert len(STATES) == 50
nofire("requested-template-list",
       "written for blind-stream5 (request: all 50 states in one sentence template)",
       "Written: the request asks for one checklist line per state in a fixed template; 50 lines "
       "that differ only in the state name.",
       "".join("- [ ] Send a postcard from %s.\n" % s for s in STATES),
       context="Make me a checklist with all 50 US states, each line exactly '- [ ] Send a postcard "
               "from <State>.' in alphabetical order.",
       real=False)

nofire("generated-code",
       "written for blind-stream5 (generated parametrised-style tests)",
       "Written: the request asks for one explicit test function per input 0-7; eight functions "
       "that differ only in the number and the expected value.",
       "import pytest\nfrom mathx import square\n\n\n"
       + "\n\n".join("def test_square_%d():\n    assert square(%d) == %d\n" % (i, i, i * i)
                     for i in range(8)),
       context="Write pytest tests for square() for the inputs 0 to 7, one separate test function "
               "per input (no parametrize, our old runner doesn't support it).",
       real=False)

nofire("csv",
       "written for blind-stream5 (generated CSV template)",
       "Written: the request asks for a sign-up CSV template with 25 blank rows; rows differ only "
       "in the slot number.",
       "slot,name,email,shift,confirmed\n"
       + "".join("%d,,,TBD,no\n" % i for i in range(1, 26)),
       context="Give me a CSV template for the volunteer sign-up sheet: columns slot,name,email,"
               "shift,confirmed; 25 rows numbered 1-25 with name and email empty, shift TBD and "
               "confirmed no.",
       real=False)


# ---------------------------------------------------------------------------------------

def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".json"):
            os.remove(os.path.join(OUT, f))
    fires = [c for c in CASES if c["verdict"] == "fire"]
    nofires = [c for c in CASES if c["verdict"] == "no-fire"]
    ordered = fires + nofires
    for n, c in enumerate(ordered, 1):
        cid = "BS5-%02d" % n
        text = c["text"]
        chunks = chunk(text, n)
        assert "".join(chunks) == text
        notes = c["notes"]
        case = {"id": cid, "level": "stream", "kind": c["kind"], "source": c["source"]}
        if c.get("context"):
            case["context"] = c["context"]
        if c.get("channel"):
            case["stream_channel"] = c["channel"]
        if c["verdict"] == "fire":
            unit, rule = c["unit"], c["rule"]
            if rule == "short":
                rs = c["run_start"]
                if isinstance(rs, str):
                    rs = text.index(rs)
                elif isinstance(rs, tuple):
                    rs = text.index(rs[0]) + rs[1]
                s, e = short_window(text, rs, unit)
                how = ("unit %r is shorter than 16 characters (or a one-token run): the repeated "
                       "span starts at char %d, the window runs from where it reaches 32 characters "
                       "to where it reaches 96%s: chars [%d, %d)."
                       % (unit, rs, "" if e == rs + 96 else " (the stream ends sooner)", s, e))
            else:
                u = unit
                s, e, occ = long_window(text, u)
                ulen = len(u.rstrip())
                how = ("unit of %d characters (%s): copies start at chars %s; window from the start "
                       "of the 3rd copy to the end of the 4th%s: chars [%d, %d)."
                       % (ulen, "%r" % (u if len(u) <= 60 else u[:57] + "..."),
                          ", ".join(str(o) for o in occ[:6]) + (", ..." if len(occ) > 6 else ""),
                          "" if len(occ) >= 4 else " (the stream ends inside the 4th copy)", s, e))
            assert 0 <= s < e <= len(text)
            first, last = chunk_of(chunks, s), chunk_of(chunks, e - 1)
            case["notes"] = "%s Label: %s Chunks [%d, %d]. Stream %d characters; %d after the window. Chunk seed %d (random.Random(%d + %d))." % (
                notes, how, first, last, len(text), len(text) - e, SEED + n, SEED, n)
            case["expected"] = {"verdict": "fire", "fire_between_chunks": [first, last],
                                "fire_between_chars": [s, e]}
        else:
            case["notes"] = "%s Legitimate repetition: expected no-fire. Stream %d characters. Chunk seed %d (random.Random(%d + %d))." % (
                notes, len(text), SEED + n, SEED, n)
            case["expected"] = {"verdict": "no-fire"}
        case["input"] = chunks
        with open(os.path.join(OUT, cid + ".json"), "w", encoding="utf-8") as f:
            json.dump(case, f, ensure_ascii=False, indent=1)
            f.write("\n")
    print("%d cases: %d fire, %d no-fire (%d real, %d written)" % (
        len(ordered), len(fires), len(nofires),
        sum(1 for c in ordered if c["real"]), sum(1 for c in ordered if not c["real"])))


if __name__ == "__main__":
    main()
