#!/usr/bin/env python3
"""Validate every case file in stream/ of blind-stream10."""
import glob, json, os, random, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEED_BASE = 20261210
errors = []


def err(name, msg):
    errors.append("%s: %s" % (name, msg))


def chunk(text, n):
    rng = random.Random(SEED_BASE + n)
    out, pos = [], 0
    while pos < len(text):
        k = rng.randint(1, 12)
        out.append(text[pos:pos + k])
        pos += k
    return out


def idx_of(chunks, pos):
    acc = 0
    for i, c in enumerate(chunks):
        if acc <= pos < acc + len(c):
            return i
        acc += len(c)
    return None


files = sorted(glob.glob(os.path.join(HERE, "stream", "*.json")))
verdicts, numbers = [], []
for path in files:
    name = os.path.basename(path)
    try:
        with open(path, encoding="utf-8") as f:
            c = json.load(f)
    except Exception as e:  # invalid JSON
        err(name, "invalid JSON: %s" % e)
        continue
    if not isinstance(c, dict):
        err(name, "not an object"); continue
    for k in ("id", "level", "input", "kind", "source", "notes", "expected"):
        if k not in c:
            err(name, "missing field %s" % k)
    if any(k not in c for k in ("id", "input", "expected")):
        continue
    m = re.fullmatch(r"BS10-(\d\d)", c["id"])
    if not m:
        err(name, "bad id %r" % c["id"]); continue
    n = int(m.group(1))
    numbers.append(n)
    if not re.fullmatch(r"BS10-\d\d-[a-z0-9][a-z0-9-]*\.json", name) or not name.startswith(c["id"] + "-"):
        err(name, "file name does not match id / pattern")
    if c.get("level") != "stream":
        err(name, "level is not 'stream'")
    for k in ("kind", "source", "notes"):
        if not isinstance(c.get(k), str) or not c.get(k).strip():
            err(name, "%s must be a non-empty string" % k)
    inp = c["input"]
    if not isinstance(inp, list) or not inp or not all(isinstance(x, str) and x for x in inp):
        err(name, "input must be a non-empty list of non-empty strings"); continue
    text = "".join(inp)
    if chunk(text, n) != inp:
        err(name, "chunks do not follow the chunking rule for n=%d" % n)
    if "context" in c:
        ctx = c["context"]
        if not isinstance(ctx, str) or not ctx.strip():
            err(name, "context must be a non-empty string (the request)")
    if c.get("stream_channel", "content") not in ("content", "reasoning", "tool_args"):
        err(name, "bad stream_channel")
    exp = c["expected"]
    v = exp.get("verdict") if isinstance(exp, dict) else None
    if v not in ("fire", "no-fire"):
        err(name, "bad verdict"); continue
    verdicts.append((n, v))
    if v == "fire":
        if c.get("status") not in ("real", "continued", "rebuilt"):
            err(name, "fire case needs status real/continued/rebuilt")
        fc, fch = exp.get("fire_between_chunks"), exp.get("fire_between_chars")
        if not (isinstance(fc, list) and len(fc) == 2 and all(isinstance(x, int) for x in fc)):
            err(name, "bad fire_between_chunks"); continue
        if not (isinstance(fch, list) and len(fch) == 2 and all(isinstance(x, int) for x in fch)):
            err(name, "bad fire_between_chars"); continue
        s, e = fch
        if not (0 <= s < e <= len(text)):
            err(name, "char window %s outside stream of %d" % (fch, len(text))); continue
        if not (0 <= fc[0] <= fc[1] < len(inp)):
            err(name, "chunk window %s outside %d chunks" % (fc, len(inp))); continue
        if idx_of(inp, s) != fc[0]:
            err(name, "chunk %d does not hold window start char %d" % (fc[0], s))
        if idx_of(inp, e - 1) != fc[1]:
            err(name, "chunk %d does not hold window last char %d" % (fc[1], e - 1))
    else:
        for k in ("fire_between_chunks", "fire_between_chars"):
            if k in exp:
                err(name, "no-fire case has %s" % k)
        if "status" in c:
            err(name, "no-fire case has status")

if sorted(numbers) != list(range(1, len(numbers) + 1)):
    errors.append("numbering has gaps or duplicates: %s" % sorted(numbers))
vs = [v for _, v in sorted(verdicts)]
if "fire" in vs and "no-fire" in vs and vs.index("no-fire") < len(vs) - 1 - vs[::-1].index("fire"):
    errors.append("fire cases are not all before no-fire cases")
nf, nn = vs.count("fire"), vs.count("no-fire")
if nf < 22 or nn < 22:
    errors.append("need at least 22 fire and 22 no-fire cases (have %d / %d)" % (nf, nn))

print("files checked: %d (fire %d, no-fire %d)" % (len(files), nf, nn))
if errors:
    print("FAILED: %d problem(s)" % len(errors))
    for e in errors:
        print("  " + e)
    sys.exit(1)
print("OK: valid JSON, required fields, chunks join and follow the chunking rule, windows inside the stream, window chunks hold first and last characters, numbering without gaps, fire first")
