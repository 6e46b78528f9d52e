#!/usr/bin/env python3
"""Check stream/ against src/: re-cut every case, re-derive every fire window with
code independent of build.py, check that no unit of 16+ characters reaches a 4th
copy before a window opens, and validate the fields.  Exit status 0 when
everything holds.  Standard library only."""
import glob
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
STREAM = os.path.join(HERE, "stream")
# the shared list of sources used by earlier sets, beside the sets: when this set
# sits at evals/dev-stream20, that is evals/used-sources.txt
USED_LIST = os.path.join(os.path.dirname(HERE), "used-sources.txt")
SEED = 20261220
PREFIX = "BS20"
errors = []


def err(msg):
    errors.append(msg)


def read_text(path):
    with open(path, "r", encoding="utf-8", newline="") as f:
        return f.read()


def recut(text, n):
    rng = random.Random(SEED + n)
    out, i = [], 0
    while i < len(text):
        size = rng.randint(1, 12)
        out.append(text[i:i + size])
        i += size
    return out


def fold(text):
    """Collapse runs of whitespace to one space; return folded text and, for each
    folded character, its position in the original text."""
    chars, pos = [], []
    prev_space = False
    for i, ch in enumerate(text):
        if ch.isspace():
            if prev_space:
                continue
            chars.append(" ")
            prev_space = True
        else:
            chars.append(ch)
            prev_space = False
        pos.append(i)
    return "".join(chars), pos


def unit_copies(text, unit):
    """Non-overlapping copies of unit, compared with whitespace folded; spans in
    original positions."""
    f, pos = fold(text)
    u = " ".join(unit.split())
    spans, i = [], f.find(u)
    while i != -1:
        spans.append((pos[i], pos[i + len(u) - 1] + 1))
        i = f.find(u, i + len(u))
    return spans


def short_window(start, end, n):
    lo, hi = start + 31, min(start + 96, n)
    if end < hi:
        raise ValueError("the run breaks before the window ends")
    return lo, hi


def window(text, rule):
    n = len(text)
    t = rule.get("type")
    if t == "periodic":
        p, a = rule["period"], rule["anchor"]
        if text[a:a + p] != text[a + p:a + 2 * p]:
            raise ValueError("anchor is not inside a periodic span")
        s = a
        while s - 1 >= 0 and s - 1 + p < n and text[s - 1] == text[s - 1 + p]:
            s -= 1
        e = a + p
        while e < n and text[e] == text[e - p]:
            e += 1
        if p >= 16:
            lo, hi = s + 2 * p, min(s + 4 * p, n)
            if e < hi:
                raise ValueError("the loop breaks before the window ends")
            return lo, hi
        return short_window(s, e, n)
    if t == "run":
        rx = re.compile(rule["regex"])
        # every maximal chain of back-to-back matches, in order
        i = 0
        while i < n:
            j = i
            while True:
                m = rx.match(text, j)
                if m is None or m.end() == j:
                    break
                j = m.end()
            if j > i:
                if j - i >= 32:
                    return short_window(i, j, n)
                i = j
            else:
                i += 1
        raise ValueError("no run reaches 32 characters")
    if t == "unit":
        spans = unit_copies(text, rule["unit"])
    elif t == "template":
        spans = [m.span() for m in re.compile(rule["regex"]).finditer(text)]
    elif t == "cycle":
        starts = [m.start() for m in re.compile(rule["regex"]).finditer(text)]
        if len(starts) < 3:
            raise ValueError("fewer than three cycles")
        return starts[2], (starts[3] if len(starts) > 3 else n)
    else:
        raise ValueError(f"unknown rule type {t!r}")
    if len(spans) < 3:
        raise ValueError("fewer than three copies")
    return spans[2][0], (spans[3][1] if len(spans) > 3 else n)


def first_fourth_copy(text, max_len=40):
    """Earliest end of a 4th non-overlapping copy of any unit of 16..max_len
    characters (whitespace folded; the unit starts and ends with a letter or digit,
    so padding does not count toward its length)."""
    f, pos = fold(text)
    best = None
    for length in range(16, max_len + 1):
        seen = {}
        for i in range(len(f) - length + 1):
            u = f[i:i + length]
            if not (u[0].isalnum() and u[-1].isalnum()):
                continue
            lst = seen.setdefault(u, [])
            if lst and i < lst[-1] + length:
                continue
            lst.append(i)
            if len(lst) == 4:
                end = pos[i + length - 1] + 1
                if best is None or end < best:
                    best = end
    return best


def chunk_of(chunks, c):
    acc = 0
    for i, ch in enumerate(chunks):
        if acc <= c < acc + len(ch):
            return i
        acc += len(ch)
    return None


def main():
    used = set()
    if os.path.exists(USED_LIST):
        used = {line.strip() for line in open(USED_LIST, encoding="utf-8") if line.strip()}
    else:
        err(f"shared list of used sources not found at {USED_LIST}")
    own = os.path.join(HERE, "used-sources.txt")
    if os.path.exists(own):  # once this set's sources are merged into the shared list
        used -= {line.strip() for line in open(own, encoding="utf-8") if line.strip()}
    srcs = []
    for group in ("fire", "nofire"):
        for p in sorted(glob.glob(os.path.join(SRC, group, "*.txt"))):
            base = os.path.basename(p)[:-4]
            srcs.append((int(base[:2]), group, base, p))
    srcs.sort()
    nums = [s[0] for s in srcs]
    if nums != list(range(1, len(srcs) + 1)):
        err(f"case numbers are not 1..N: {nums}")
    groups = [s[1] for s in srcs]
    if groups != sorted(groups):  # 'fire' < 'nofire': fire cases first
        err("fire cases must come first")
    n_fire, n_nofire = groups.count("fire"), groups.count("nofire")
    if n_fire < 22 or n_nofire < 22:
        err(f"need at least 22 + 22 cases, have {n_fire} + {n_nofire}")
    streams = {os.path.basename(p): p for p in glob.glob(os.path.join(STREAM, "*.json"))}
    seen_ids, sources = set(), set()
    statuses, origins = {}, {}
    for num, group, base, p in srcs:
        text = read_text(p)
        meta_path = p[:-4] + ".json"
        if not os.path.exists(meta_path):
            err(f"{base}: missing source JSON")
            continue
        meta = json.load(open(meta_path, encoding="utf-8"))
        for field in ("short_kind", "kind", "source", "notes"):
            if not meta.get(field):
                err(f"{base}: missing {field}")
        if not re.fullmatch(r"[a-z0-9-]+", meta.get("short_kind", "")):
            err(f"{base}: bad short_kind")
        cid = f"{PREFIX}-{num:02d}-{meta.get('short_kind')}"
        fname = cid + ".json"
        if fname not in streams:
            err(f"{base}: no stream/{fname}")
            continue
        seen_ids.add(fname)
        case = json.load(open(streams[fname], encoding="utf-8"))
        if case.get("id") != cid or case.get("level") != "stream":
            err(f"{cid}: bad id/level")
        chunks = case.get("input")
        if not isinstance(chunks, list) or not all(isinstance(c, str) and c for c in chunks):
            err(f"{cid}: input must be a list of non-empty strings")
            continue
        if "".join(chunks) != text:
            err(f"{cid}: chunks do not join to the source text")
        if chunks != recut(text, num):
            err(f"{cid}: chunking differs from the seeded re-cut")
        if any(not 1 <= len(c) <= 12 for c in chunks):
            err(f"{cid}: a chunk is outside 1..12 code points")
        for field in ("kind", "source", "notes", "context", "stream_channel"):
            if case.get(field) != meta.get(field):
                err(f"{cid}: {field} differs from src")
        if case.get("stream_channel") not in (None, "content", "reasoning", "tool_args"):
            err(f"{cid}: bad stream_channel")
        exp = case.get("expected", {})
        if group == "fire":
            sources.add(meta.get("source"))
            if exp.get("verdict") != "fire":
                err(f"{cid}: verdict must be fire")
            st = meta.get("status")
            statuses[st] = statuses.get(st, 0) + 1
            if st not in ("real", "continued", "rebuilt"):
                err(f"{cid}: bad status {st!r}")
            if not meta.get("model") or case.get("model") != meta.get("model"):
                err(f"{cid}: missing or differing model")
            src = meta.get("source", "")
            if not (re.fullmatch(r"https://github\.com/[^/]+/[^/]+/(issues|pull)/\d+", src)
                    or re.fullmatch(r"https://github\.com/[^/]+/[^/]+/blob/[0-9a-f]{40}/\S+", src)):
                err(f"{cid}: fire source should be a public issue, pull-request or pinned file address")
            if src in used:
                err(f"{cid}: source already in used-sources.txt")
            try:
                lo, hi = window(text, meta["label"]["rule"])
            except Exception as e:  # noqa: BLE001
                err(f"{cid}: rule does not derive: {e}")
                continue
            if [lo, hi] != meta["label"].get("fire_between_chars"):
                err(f"{cid}: src label window differs from the rule")
            if exp.get("fire_between_chars") != [lo, hi]:
                err(f"{cid}: fire_between_chars {exp.get('fire_between_chars')} != {[lo, hi]}")
            want = [chunk_of(chunks, lo), chunk_of(chunks, hi - 1)]
            if exp.get("fire_between_chunks") != want:
                err(f"{cid}: fire_between_chunks {exp.get('fire_between_chunks')} != {want}")
            if not (0 <= lo < hi <= len(text)):
                err(f"{cid}: window out of range")
            early = first_fourth_copy(text)
            if early is not None and early < lo:
                err(f"{cid}: some unit of 16+ characters reaches a 4th copy at {early}, before the window [{lo}, {hi})")
            if f"[{lo}, {hi})" not in meta.get("notes", ""):
                err(f"{cid}: notes do not state the window")
        else:
            if exp != {"verdict": "no-fire"}:
                err(f"{cid}: expected must be just no-fire")
            if not meta.get("context"):
                err(f"{cid}: no-fire case needs a context")
            og = meta.get("origin")
            origins[og] = origins.get(og, 0) + 1
            if og == "real":
                m = re.search(r"src/inputs/([^/]+)/run\.sh", meta.get("source", ""))
                if not m:
                    err(f"{cid}: real output must name its src/inputs/<name>/run.sh")
                else:
                    rs = os.path.join(SRC, "inputs", m.group(1), "run.sh")
                    if not os.path.exists(rs):
                        err(f"{cid}: {rs} missing")
                    else:
                        cmd = open(rs, encoding="utf-8").read().strip().splitlines()[-1]
                        if cmd not in meta["source"]:
                            err(f"{cid}: source does not quote the run.sh command")
            elif og != "written":
                err(f"{cid}: origin must be real or written")
    for extra in set(streams) - seen_ids:
        err(f"stream/{extra} has no source")
    if statuses.get("real", 0) < 16 or statuses.get("real", 0) * 2 < n_fire:
        err(f"fewer than 16 (or half) of the fire cases are real: {statuses}")
    if statuses.get("rebuilt", 0) > 4:
        err(f"too many rebuilt fire cases: {statuses}")
    if len(sources) != n_fire:
        err("two fire cases share a source")
    own_list = set()
    if os.path.exists(own):
        own_list = {line.strip() for line in open(own, encoding="utf-8") if line.strip()}
    for s in sources - own_list:
        err(f"{s} missing from used-sources.txt")
    if errors:
        for e in errors:
            print("FAIL", e)
        sys.exit(1)
    print(f"ok: {n_fire} fire ({statuses}), {n_nofire} no-fire ({origins}), {len(sources)} fire sources")


if __name__ == "__main__":
    main()
