#!/usr/bin/env python3
"""Build stream/BS11-NN-<short-kind>.json from src/fire and src/nofire.

Each source case is a pair NN-<slug>.txt (the exact text) + NN-<slug>.json
(description and, for fire cases, a `label` that locates the loop).
Fire cases come first, then no-fire cases, numbered without gaps from BS11-01.

Chunking: case n (1-based) is cut into successive chunks of
random.Random(20261303 + n).randint(1, 12) code points each, drawn afresh per
chunk, until the text ends.

Labelling (label.rule):
  long  - a repeated unit of 16+ characters; copies are the occurrences of
          `unit` (or matches of `unit_regex`) counted from the first one; the
          window runs from the start of the 3rd copy to the end of the 4th copy
          (or to the end of the stream when there is no complete 4th copy).
  short - a unit shorter than 16 characters or a run of one token; the run
          starts at `span_start`; the window runs from the character at which
          the span reaches 32 characters (span_start + 31) to where it reaches
          96 (exclusive end span_start + 96), or to the end of the stream if
          that comes sooner.
Windows are [start, end) in code points of the joined stream; the chunk window
is [chunk holding `start`, chunk holding `end - 1`].
"""
import glob
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20261303
PREFIX = "BS11"


def cut(text, n):
    rng = random.Random(SEED + n)
    chunks, i = [], 0
    while i < len(text):
        k = rng.randint(1, 12)
        chunks.append(text[i:i + k])
        i += k
    return chunks


def chunk_of(chunks, pos):
    acc = 0
    for idx, c in enumerate(chunks):
        if acc <= pos < acc + len(c):
            return idx
        acc += len(c)
    raise ValueError(f"position {pos} outside the stream")


def show(s, limit=70):
    r = json.dumps(s, ensure_ascii=False)[1:-1]
    return r if len(r) <= limit else r[:limit] + "…"


def window(text, label):
    rule = label["rule"]
    if rule == "long":
        if "unit" in label:
            unit = label["unit"]
            spans, i = [], text.find(unit)
            while i != -1:
                spans.append((i, i + len(unit)))
                i = text.find(unit, i + len(unit))
            unit_desc = unit
        else:
            spans = [m.span() for m in re.finditer(label["unit_regex"], text)]
            unit_desc = "/" + label["unit_regex"] + "/"
        assert len(spans) >= 3, f"need at least 3 copies, found {len(spans)}"
        ulen = spans[0][1] - spans[0][0]
        assert ulen >= 16, f"long rule needs a unit of 16+ characters, got {ulen}"
        start = spans[2][0]
        if len(spans) >= 4:
            end, tail = spans[3][1], "the end of its 4th copy"
        else:
            end, tail = len(text), "the end of the stream (no complete 4th copy)"
        starts = ", ".join(str(a) for a, _ in spans[:6]) + (", …" if len(spans) > 6 else "")
        desc = (f"Rule: repeated unit of 16 or more characters; window from the start of its 3rd copy to {tail}. "
                f"Unit «{show(unit_desc)}» ({ulen} characters); {len(spans)} complete copies in the stream, "
                f"starting at characters {starts}.")
        return start, end, desc
    if rule == "short":
        s = label["span_start"]
        unit = label.get("unit")
        start = s + 31
        end = min(s + 96, len(text))
        assert start < len(text), "the span never reaches 32 characters"
        reach = "96 characters" if s + 96 <= len(text) else "the end of the stream (the span ends before 96 characters)"
        copies = ""
        if unit:
            body = text[s:].lower() if label.get("fold_case") else text[s:]
            copies = f"; {body.count(unit.lower() if label.get('fold_case') else unit)} copies from there to the end of the stream"
        desc = (f"Rule: unit shorter than 16 characters / run of one token; window from where the repeated span reaches 32 characters "
                f"to where it reaches {reach}. Unit «{show(unit or '')}» ({len(unit or '')} characters); the span starts at character {s}{copies}.")
        return start, end, desc
    raise ValueError(rule)


def main():
    fire = sorted(glob.glob(os.path.join(HERE, "src", "fire", "*.json")))
    nofire = sorted(glob.glob(os.path.join(HERE, "src", "nofire", "*.json")))
    out_dir = os.path.join(HERE, "stream")
    os.makedirs(out_dir, exist_ok=True)
    for old in glob.glob(os.path.join(out_dir, f"{PREFIX}-*.json")):
        os.remove(old)
    n = 0
    for verdict, files in (("fire", fire), ("no-fire", nofire)):
        for path in files:
            n += 1
            meta = json.load(open(path, encoding="utf-8"))
            text = open(path[:-5] + ".txt", encoding="utf-8").read()
            chunks = cut(text, n)
            assert "".join(chunks) == text and all(chunks)
            cid = f"{PREFIX}-{n:02d}"
            case = {"id": cid, "level": "stream", "input": chunks, "kind": meta["kind"], "source": meta["source"]}
            if verdict == "fire":
                s, e, desc = window(text, meta["label"])
                a, b = chunk_of(chunks, s), chunk_of(chunks, e - 1)
                case["notes"] = (meta["notes"] + " " + desc +
                                 f" Window: characters [{s}, {e}) of {len(text)}; chunks [{a}, {b}] of {len(chunks)}.")
                case["expected"] = {"verdict": "fire", "fire_between_chunks": [a, b], "fire_between_chars": [s, e]}
                case["status"] = meta["status"]
                case["model"] = meta["model"]
            else:
                case["notes"] = meta["notes"]
                case["expected"] = {"verdict": "no-fire"}
                case["origin"] = meta["origin"]
            if "context" in meta:
                case["context"] = meta["context"]
            if meta.get("stream_channel"):
                case["stream_channel"] = meta["stream_channel"]
            name = f"{cid}-{meta['short_kind']}.json"
            with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
                json.dump(case, f, ensure_ascii=False, indent=1)
                f.write("\n")
    print(f"built {n} cases ({len(fire)} fire, {len(nofire)} no-fire) into stream/")


if __name__ == "__main__":
    sys.exit(main())
