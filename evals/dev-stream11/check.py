#!/usr/bin/env python3
"""Check every case in stream/: valid JSON, required fields, chunks join and
follow the chunking rule, windows inside the stream, window chunks hold the
window's first and last characters, numbering without gaps from BS11-01,
fire cases first, context a string when present."""
import glob
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20261303
PREFIX = "BS11"
STATUSES = {"real", "continued", "rebuilt"}


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
    return None


def main():
    errors = []
    files = sorted(glob.glob(os.path.join(HERE, "stream", "*.json")))
    if not files:
        print("no cases found")
        return 1
    seen_nofire = False
    counts = {"fire": 0, "no-fire": 0}
    status = {s: 0 for s in STATUSES}
    origin = {}
    for expected_n, path in enumerate(files, 1):
        name = os.path.basename(path)
        m = re.fullmatch(rf"{PREFIX}-(\d\d)-[a-z0-9-]+\.json", name)
        if not m:
            errors.append(f"{name}: bad file name")
            continue
        n = int(m.group(1))
        if n != expected_n:
            errors.append(f"{name}: numbering gap (expected {expected_n:02d})")
        try:
            case = json.load(open(path, encoding="utf-8"))
        except Exception as exc:  # noqa: BLE001
            errors.append(f"{name}: invalid JSON ({exc})")
            continue
        cid = f"{PREFIX}-{n:02d}"
        if case.get("id") != cid:
            errors.append(f"{name}: id {case.get('id')!r} != {cid}")
        if case.get("level") != "stream":
            errors.append(f"{name}: level must be 'stream'")
        for key in ("kind", "source", "notes"):
            if not isinstance(case.get(key), str) or not case[key].strip():
                errors.append(f"{name}: missing or empty {key}")
        chunks = case.get("input")
        if not isinstance(chunks, list) or not chunks or not all(isinstance(c, str) and c for c in chunks):
            errors.append(f"{name}: input must be a non-empty list of non-empty strings")
            continue
        text = "".join(chunks)
        if cut(text, n) != chunks:
            errors.append(f"{name}: chunks do not follow the chunking rule for case {n}")
        if "context" in case and not isinstance(case["context"], str):
            errors.append(f"{name}: context must be a string")
        if "stream_channel" in case and case["stream_channel"] != "reasoning":
            errors.append(f"{name}: stream_channel present but not 'reasoning'")
        exp = case.get("expected")
        if not isinstance(exp, dict) or exp.get("verdict") not in ("fire", "no-fire"):
            errors.append(f"{name}: expected.verdict must be fire or no-fire")
            continue
        verdict = exp["verdict"]
        counts[verdict] += 1
        if verdict == "fire":
            if seen_nofire:
                errors.append(f"{name}: fire case after a no-fire case")
            if case.get("status") not in STATUSES:
                errors.append(f"{name}: status must be one of {sorted(STATUSES)}")
            else:
                status[case["status"]] += 1
            if not isinstance(case.get("model"), str) or not case["model"].strip():
                errors.append(f"{name}: fire case needs a model")
            fc, fch = exp.get("fire_between_chunks"), exp.get("fire_between_chars")
            ok = (isinstance(fc, list) and len(fc) == 2 and all(isinstance(x, int) for x in fc)
                  and isinstance(fch, list) and len(fch) == 2 and all(isinstance(x, int) for x in fch))
            if not ok:
                errors.append(f"{name}: fire windows must be two [int, int] pairs")
                continue
            s, e = fch
            if not (0 <= s < e <= len(text)):
                errors.append(f"{name}: char window {fch} outside the stream (length {len(text)})")
                continue
            a, b = fc
            if not (0 <= a <= b < len(chunks)):
                errors.append(f"{name}: chunk window {fc} outside 0..{len(chunks) - 1}")
            if chunk_of(chunks, s) != a or chunk_of(chunks, e - 1) != b:
                errors.append(f"{name}: chunk window {fc} does not hold chars {s} and {e - 1} "
                              f"(they are in chunks {chunk_of(chunks, s)} and {chunk_of(chunks, e - 1)})")
            if f"[{s}, {e})" not in case["notes"] or f"[{a}, {b}]" not in case["notes"]:
                errors.append(f"{name}: notes must state the window and the chunk indices")
            if "Rule:" not in case["notes"]:
                errors.append(f"{name}: notes must state the rule")
        else:
            seen_nofire = True
            if "fire_between_chunks" in exp or "fire_between_chars" in exp:
                errors.append(f"{name}: no-fire case carries a fire window")
            o = case.get("origin", "?")
            origin[o] = origin.get(o, 0) + 1
    if counts["fire"] < 22 or counts["no-fire"] < 22:
        errors.append(f"need at least 22 fire and 22 no-fire cases, have {counts}")
    if status["real"] < 15:
        errors.append(f"need at least 15 real fire cases, have {status['real']}")
    if origin.get("real", 0) * 2 < counts["no-fire"]:
        errors.append(f"at least half of the no-fire cases must be real, have {origin}")
    print(f"cases: {len(files)} (fire {counts['fire']}, no-fire {counts['no-fire']})")
    print("fire status: " + ", ".join(f"{k} {v}" for k, v in sorted(status.items())))
    print("no-fire origin: " + ", ".join(f"{k} {v}" for k, v in sorted(origin.items())))
    if errors:
        print(f"FAILED: {len(errors)} problem(s)")
        for err in errors:
            print("  - " + err)
        return 1
    print("check.py: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
