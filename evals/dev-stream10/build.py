#!/usr/bin/env python3
"""Build every case file of blind-stream10 from src/.

src/fire/*.json and src/nofire/*.json hold one case description each; the text of the
stream is the plain file named in "text" (relative to src/). Fire cases are numbered
first (in "order"), then no-fire cases, as BS10-01, BS10-02, ...

Chunking: case n (1-based) is cut into successive chunks of
random.Random(20261210 + n).randint(1, 12) code points each, drawn afresh per chunk.

Windows (code points of the joined stream, [start, end)):
  long    unit of 16+ chars: start of its 3rd copy .. end of its 4th copy (or stream end)
  short   unit under 16 chars / run of one token: from where the repeated span reaches
          32 chars (the span's 32nd char) to where it reaches 96 (or stream end)
  chat    chat-template self-dialogue: start of 3rd cycle .. end of its last turn
  recheck templated re-check loop: start of 3rd re-check .. end of 5th
"""
import json, os, random, re, sys, glob

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
OUT = os.path.join(HERE, "stream")
SEED_BASE = 20261210


def chunk(text, n):
    rng = random.Random(SEED_BASE + n)
    out, pos = [], 0
    while pos < len(text):
        k = rng.randint(1, 12)
        out.append(text[pos:pos + k])
        pos += k
    return out


def find_all(text, s, start=0):
    res, i = [], text.find(s, start)
    while i != -1:
        res.append(i)
        i = text.find(s, i + 1)
    return res


def window(text, rule):
    L = len(text)
    t = rule["type"]
    if t == "long":
        if "unit_re" in rule:
            ms = [(m.start(), m.end()) for m in re.finditer(rule["unit_re"], text)]
        else:
            u = rule["unit"]
            ms = [(i, i + len(u)) for i in find_all(text, u, rule.get("from", 0))]
            # keep non-overlapping
            keep, last = [], -1
            for a, b in ms:
                if a >= last:
                    keep.append((a, b)); last = b
            ms = keep
        assert len(ms) >= 3, (rule, len(ms))
        start = ms[2][0]
        end = ms[3][1] if len(ms) >= 4 else L
        desc = "%d copies found, starting at %s" % (len(ms), [a for a, _ in ms][:12])
        return start, min(end, L), desc
    if t == "short":
        anchor = rule["span_anchor"]
        occ = find_all(text, anchor)
        s = occ[rule.get("nth", 0)]
        assert L - s >= 32, (rule, L - s)
        start = s + 31
        end = L if rule.get("end") == "stream" else min(s + 96, L)
        return start, end, "repeated span starts at char %d" % s
    if t == "chat":
        occ = find_all(text, rule["cycle_anchor"])
        assert len(occ) >= 3, occ
        start = occ[2]
        end = rule.get("end", L)
        return start, end, "%d cycles, starting at %s" % (len(occ), occ[:12])
    if t == "recheck":
        ms = [m.start() for m in re.finditer(rule["recheck_re"], text)]
        assert len(ms) >= 3, ms
        start = ms[2]
        end = ms[5] if len(ms) >= 6 else L
        return start, end, "%d re-checks, starting at %s" % (len(ms), ms[:12])
    raise ValueError(t)


def chunk_index(chunks, pos):
    acc = 0
    for i, c in enumerate(chunks):
        if acc <= pos < acc + len(c):
            return i
        acc += len(c)
    raise IndexError(pos)


def load(kind):
    items = []
    for p in sorted(glob.glob(os.path.join(SRC, kind, "*.json"))):
        with open(p, encoding="utf-8") as f:
            d = json.load(f)
        with open(os.path.join(SRC, d["text"]), encoding="utf-8") as f:
            d["_text"] = f.read()
        items.append(d)
    items.sort(key=lambda d: d["order"])
    return items


def main():
    os.makedirs(OUT, exist_ok=True)
    for p in glob.glob(os.path.join(OUT, "*.json")):
        os.remove(p)
    cases = [("fire", d) for d in load("fire")] + [("no-fire", d) for d in load("nofire")]
    for n, (verdict, d) in enumerate(cases, 1):
        text = d["_text"]
        cid = "BS10-%02d" % n
        chunks = chunk(text, n)
        assert "".join(chunks) == text, cid
        notes = d["notes"].rstrip()
        case = {"id": cid, "level": "stream", "input": chunks, "kind": d["kind"],
                "source": d["source"]}
        if d.get("context"):
            # the case format's context is a string: the request the response answers
            case["context"] = d["context"]["request"]
        if d.get("stream_channel"):
            case["stream_channel"] = d["stream_channel"]
        exp = {"verdict": verdict}
        if verdict == "fire":
            s, e, desc = window(text, d["rule"])
            assert 0 <= s < e <= len(text), (cid, s, e)
            exp["fire_between_chunks"] = [chunk_index(chunks, s), chunk_index(chunks, e - 1)]
            exp["fire_between_chars"] = [s, e]
            case["status"] = d["status"]
            if d.get("model"):
                case["model"] = d["model"]
            notes += (" Rule applied: %s (%s); %s. Window [%d, %d) of %d code points; "
                      "chunks %d..%d of %d." % (d["rule"]["type"], d["rule_note"], desc, s, e,
                                                  len(text), exp["fire_between_chunks"][0],
                                                  exp["fire_between_chunks"][1], len(chunks)))
        notes += " Chunk seed %d (random.Random(%d).randint(1, 12) per chunk)." % (SEED_BASE + n, SEED_BASE + n)
        case["notes"] = notes
        case["expected"] = exp
        name = "%s-%s.json" % (cid, d["short_kind"])
        with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
            json.dump(case, f, ensure_ascii=False, indent=1)
            f.write("\n")
        print(name, verdict, len(text), exp.get("fire_between_chars", ""))


if __name__ == "__main__":
    main()
