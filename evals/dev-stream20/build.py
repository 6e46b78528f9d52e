#!/usr/bin/env python3
"""Rebuild stream/ from src/: cut every case into chunks and write the case files.

Case n (fire cases first, then no-fire cases) is cut into successive chunks of
random.Random(20261220 + n).randint(1, 12) code points, one fresh draw per
chunk.  Fire windows are derived from the label rule in the source JSON (see
README.md).  Standard library only.
"""
import glob
import json
import os
import random
import re

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
OUT = os.path.join(HERE, "stream")
SEED = 20261220
PREFIX = "BS20"
RUN_OPEN = 32      # a run opens a window once it reaches this many characters
RUN_LO = 31        # short units and runs: window [span_start + 31, span_start + 96)
RUN_HI = 96


def read_text(path):
    with open(path, "r", encoding="utf-8", newline="") as f:
        return f.read()


def cut(text, n):
    rng = random.Random(SEED + n)
    chunks, pos = [], 0
    while pos < len(text):
        k = rng.randint(1, 12)
        chunks.append(text[pos:pos + k])
        pos += k
    assert "".join(chunks) == text
    return chunks


def _run_window(start, end, n):
    lo, hi = start + RUN_LO, min(start + RUN_HI, n)
    assert end >= hi, "the run breaks before the window ends"
    return lo, hi


def derive_window(text, rule):
    """Window [start, end) in code points of the joined stream, from a label rule."""
    kind = rule["type"]
    n = len(text)
    if kind == "periodic":
        # contiguous loop of period p; the span is extended back from the anchor
        period, anchor = rule["period"], rule["anchor"]
        assert text[anchor:anchor + period] == text[anchor + period:anchor + 2 * period]
        start = anchor
        while start > 0 and text[start - 1] == text[start - 1 + period]:
            start -= 1
        k = anchor
        while k + period < n and text[k + period] == text[k]:
            k += 1
        end = k + period
        if period >= 16:
            w = (start + 2 * period, min(start + 4 * period, n))
            assert end >= w[1]
            return w
        return _run_window(start, end, n)
    if kind == "run":
        # back-to-back copies of one short unit (the regex may allow padding);
        # the first chain of copies that reaches RUN_OPEN characters opens the window
        rx = re.compile(rule["regex"])
        pos = 0
        while pos < n:
            m = rx.match(text, pos)
            if not m or m.end() == m.start():
                pos += 1
                continue
            start = end = m.start()
            while True:
                m = rx.match(text, end)
                if not m or m.end() == m.start():
                    break
                end = m.end()
            if end - start >= RUN_OPEN:
                return _run_window(start, end, n)
            pos = end
        raise AssertionError("no run of %d characters" % RUN_OPEN)
    if kind in ("unit", "template"):
        if kind == "unit":
            pat = r"\s+".join(re.escape(x) for x in rule["unit"].split())
        else:
            pat = rule["regex"]
        occ = [m.span() for m in re.finditer(pat, text)]
        assert len(occ) >= 3
        return (occ[2][0], occ[3][1] if len(occ) >= 4 else n)
    if kind == "cycle":
        # self-dialogue: each match of the regex opens one cycle (a fabricated turn
        # and what follows it, up to the next match); the window is the third cycle
        marks = [m.start() for m in re.finditer(rule["regex"], text)]
        assert len(marks) >= 3
        return (marks[2], marks[3] if len(marks) >= 4 else n)
    raise ValueError(kind)


def chunk_index(chunks, char_pos):
    acc = 0
    for i, c in enumerate(chunks):
        if acc <= char_pos < acc + len(c):
            return i
        acc += len(c)
    raise IndexError(char_pos)


def cases():
    out = []
    for group in ("fire", "nofire"):
        for txt in sorted(glob.glob(os.path.join(SRC, group, "*.txt"))):
            base = os.path.basename(txt)[:-4]
            num = int(base.split("-", 1)[0])
            with open(txt[:-4] + ".json", encoding="utf-8") as f:
                meta = json.load(f)
            out.append((num, group, base, read_text(txt), meta))
    out.sort(key=lambda c: c[0])
    return out


def build():
    os.makedirs(OUT, exist_ok=True)
    for old in glob.glob(os.path.join(OUT, "*.json")):
        os.remove(old)
    for num, group, base, text, meta in cases():
        chunks = cut(text, num)
        cid = f"{PREFIX}-{num:02d}-{meta['short_kind']}"
        case = {"id": cid, "level": "stream", "input": chunks}
        if meta.get("stream_channel"):
            case["stream_channel"] = meta["stream_channel"]
        if group == "fire":
            start, end = derive_window(text, meta["label"]["rule"])
            assert [start, end] == meta["label"]["fire_between_chars"], base
            case["expected"] = {
                "verdict": "fire",
                "fire_between_chars": [start, end],
                "fire_between_chunks": [chunk_index(chunks, start), chunk_index(chunks, end - 1)],
            }
        else:
            case["expected"] = {"verdict": "no-fire"}
        if meta.get("context"):
            case["context"] = meta["context"]
        case["kind"] = meta["kind"]
        case["source"] = meta["source"]
        case["notes"] = meta["notes"]
        for extra in ("model", "status", "origin"):
            if extra in meta:
                case[extra] = meta[extra]
        with open(os.path.join(OUT, cid + ".json"), "w", encoding="utf-8", newline="") as f:
            json.dump(case, f, ensure_ascii=False, indent=1)
            f.write("\n")
    print(f"wrote {len(glob.glob(os.path.join(OUT, '*.json')))} cases to stream/")


if __name__ == "__main__":
    build()
