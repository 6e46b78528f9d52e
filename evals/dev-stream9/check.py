#!/usr/bin/env python3
"""Check the blind-stream9 case files (Python 3.11 stdlib only).

For every stream/BS9-NN.json: valid JSON; the fields the format asks for; the
chunks join back to the text and follow the chunking rule (case n uses
random.Random(20261209 + n).randint(1, 12) per chunk); fire windows lie inside
the stream and the chunk indices are in range and hold the window's first and
last characters.
"""
import glob
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
problems = []
counts = {"fire": 0, "no-fire": 0}
sources = set()

files = sorted(glob.glob(os.path.join(HERE, "stream", "BS9-*.json")))
for path in files:
    name = os.path.basename(path)
    try:
        with open(path, encoding="utf-8") as f:
            c = json.load(f)
    except Exception as e:  # noqa: BLE001
        problems.append("%s: not valid JSON (%s)" % (name, e))
        continue
    n = int(name[4:6])
    if c.get("id") != name[:-5]:
        problems.append("%s: id %r does not match the file name" % (name, c.get("id")))
    if c.get("level") != "stream":
        problems.append("%s: level is not 'stream'" % name)
    chunks = c.get("input")
    if not isinstance(chunks, list) or not chunks or not all(isinstance(x, str) and x for x in chunks):
        problems.append("%s: input is not a list of non-empty strings" % name)
        continue
    text = "".join(chunks)
    rng = random.Random(20261209 + n)
    i, rebuilt = 0, []
    while i < len(text):
        k = rng.randint(1, 12)
        rebuilt.append(text[i:i + k])
        i += k
    if rebuilt != chunks:
        problems.append("%s: chunks do not follow the chunking rule for case %d" % (name, n))
    if "".join(rebuilt) != text:
        problems.append("%s: chunks do not join back to the text" % name)
    for key in ("kind", "source", "notes"):
        if not isinstance(c.get(key), str) or not c[key]:
            problems.append("%s: missing %s" % (name, key))
    sources.add(c.get("source"))
    ch = c.get("stream_channel", "content")
    if ch not in ("content", "reasoning", "tool_args"):
        problems.append("%s: bad stream_channel %r" % (name, ch))
    exp = c.get("expected") or {}
    v = exp.get("verdict")
    if v not in ("fire", "no-fire"):
        problems.append("%s: bad verdict %r" % (name, v))
        continue
    counts[v] += 1
    if v == "no-fire":
        if "fire_between_chunks" in exp or "fire_between_chars" in exp:
            problems.append("%s: no-fire case carries a fire window" % name)
        continue
    a, b = exp.get("fire_between_chars", [None, None])
    first, last = exp.get("fire_between_chunks", [None, None])
    if not (isinstance(a, int) and isinstance(b, int) and 0 <= a < b <= len(text)):
        problems.append("%s: fire_between_chars %r outside the stream (%d)" % (name, [a, b], len(text)))
        continue
    if not (isinstance(first, int) and isinstance(last, int) and 0 <= first <= last < len(chunks)):
        problems.append("%s: fire_between_chunks %r out of range (%d chunks)" % (name, [first, last], len(chunks)))
        continue
    starts, acc = [], 0
    for x in chunks:
        starts.append(acc)
        acc += len(x)
    if not (starts[first] <= a < starts[first] + len(chunks[first])):
        problems.append("%s: chunk %d does not hold the window's first character" % (name, first))
    if not (starts[last] <= b - 1 < starts[last] + len(chunks[last])):
        problems.append("%s: chunk %d does not hold the window's last character" % (name, last))
    if c.get("status") not in ("real", "continued", "rebuilt"):
        problems.append("%s: fire case without status real/continued/rebuilt" % name)

nums = [int(os.path.basename(p)[4:6]) for p in files]
if nums != list(range(1, len(files) + 1)):
    problems.append("case numbers are not 01..%02d without gaps" % len(files))
fire_nums = [int(os.path.basename(p)[4:6]) for p in files
             if json.load(open(p, encoding="utf-8"))["expected"]["verdict"] == "fire"]
if fire_nums != list(range(1, len(fire_nums) + 1)):
    problems.append("fire cases do not come first")

print("files: %d  fire: %d  no-fire: %d  distinct sources: %d" % (len(files), counts["fire"], counts["no-fire"], len(sources)))
if counts["fire"] < 20 or counts["no-fire"] < 20:
    problems.append("fewer than 20 fire or 20 no-fire cases")
if problems:
    print("PROBLEMS:")
    for p in problems:
        print(" -", p)
    sys.exit(1)
print("all checks passed")
