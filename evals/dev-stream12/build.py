#!/usr/bin/env python3
"""Rebuild stream/ from src/: cut each case into chunks and write one case file per case."""
import glob
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20261203


def load_cases():
    """Fire cases first, then no-fire cases, each group in file-name order."""
    cases = []
    for group in ("fire", "nofire"):
        for meta_path in sorted(glob.glob(os.path.join(HERE, "src", group, "*.json"))):
            txt_path = meta_path[:-5] + ".txt"
            with open(txt_path, encoding="utf-8", newline="") as f:
                text = f.read()
            with open(meta_path, encoding="utf-8") as f:
                meta = json.load(f)
            cases.append((group, os.path.basename(meta_path)[:-5], text, meta))
    return cases


def cut(text, n):
    rng = random.Random(SEED + n)
    chunks, pos = [], 0
    while pos < len(text):
        k = rng.randint(1, 12)
        chunks.append(text[pos:pos + k])
        pos += k
    assert "".join(chunks) == text
    return chunks


def chunk_of(chunks, char_index):
    pos = 0
    for i, c in enumerate(chunks):
        if pos <= char_index < pos + len(c):
            return i
        pos += len(c)
    raise ValueError("char index %d outside the stream" % char_index)


def case_id(n, meta):
    return "BS12-%02d-%s" % (n, meta["short_kind"])


def build_case(n, group, text, meta):
    chunks = cut(text, n)
    out = {"id": case_id(n, meta), "level": "stream", "input": chunks,
           "kind": meta["kind"], "source": meta["source"], "notes": meta["notes"]}
    if group == "fire":
        s, e = meta["label"]["fire_between_chars"]
        assert 0 <= s < e <= len(text)
        out["expected"] = {"verdict": "fire",
                           "fire_between_chunks": [chunk_of(chunks, s), chunk_of(chunks, e - 1)],
                           "fire_between_chars": [s, e]}
    else:
        out["expected"] = {"verdict": "no-fire"}
    if meta.get("context"):
        out["context"] = meta["context"]
    if meta.get("stream_channel") in ("reasoning", "tool_args"):
        out["stream_channel"] = meta["stream_channel"]
    if group == "fire":
        out["status"] = meta["status"]
        out["model"] = meta["model"]
    else:
        out["origin"] = meta["origin"]
    return out


def main():
    out_dir = os.path.join(HERE, "stream")
    os.makedirs(out_dir, exist_ok=True)
    for old in glob.glob(os.path.join(out_dir, "BS12-*.json")):
        os.remove(old)
    cases = load_cases()
    for n, (group, _name, text, meta) in enumerate(cases, 1):
        case = build_case(n, group, text, meta)
        with open(os.path.join(out_dir, case["id"] + ".json"), "w", encoding="utf-8") as f:
            json.dump(case, f, ensure_ascii=False, indent=1)
            f.write("\n")
    fire = sum(1 for c in cases if c[0] == "fire")
    print("built %d cases (%d fire, %d no-fire) in stream/" % (len(cases), fire, len(cases) - fire))


if __name__ == "__main__":
    main()
