#!/usr/bin/env python3
"""Re-check dev-stream12 (written as blind-stream12): re-cut every case, compare with stream/, re-derive fire windows, validate fields."""
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import build  # noqa: E402

errors = []


def err(msg):
    errors.append(msg)


def derive_window(text, rule):
    kind = rule["rule"]
    if kind == "verbatim":
        unit = rule["unit"]
        assert len(unit) >= 16, "verbatim unit shorter than 16"
        pos, i = [], text.find(unit)
        while i != -1:
            pos.append(i)
            i = text.find(unit, i + len(unit))
        if len(pos) < 3:
            raise ValueError("fewer than 3 copies of the unit")
        end = pos[3] + len(unit) if len(pos) >= 4 else len(text)
        return pos[2], min(end, len(text))
    if kind == "short":
        s = rule["span_start"]
        return s + 31, min(s + 96, len(text))
    if kind == "templated":
        ms = list(re.finditer(rule["copy_regex"], text))
        if len(ms) < 3:
            raise ValueError("fewer than 3 templated copies")
        return ms[2].start(), (ms[3].end() if len(ms) >= 4 else len(text))
    if kind == "self-dialogue":
        hs = [m.start() for m in re.finditer(re.escape(rule["turn_marker"]), text)]
        if len(hs) < 2:
            raise ValueError("no second self-written turn")
        return hs[1], (hs[2] if len(hs) >= 3 else len(text))
    raise ValueError("unknown rule %r" % kind)


def main():
    cases = build.load_cases()
    seen_ids = set()
    n_fire = n_nofire = 0
    expected_files = set()
    for n, (group, name, text, meta) in enumerate(cases, 1):
        where = "%s/%s" % (group, name)
        for field in ("short_kind", "kind", "source", "notes", "label"):
            if not meta.get(field):
                err("%s: missing %s" % (where, field))
        built = build.build_case(n, group, text, meta)
        cid = built["id"]
        if cid in seen_ids:
            err("%s: duplicate id %s" % (where, cid))
        seen_ids.add(cid)
        path = os.path.join(HERE, "stream", cid + ".json")
        expected_files.add(os.path.abspath(path))
        if not os.path.exists(path):
            err("%s: %s missing (run build.py)" % (where, path))
            continue
        with open(path, encoding="utf-8") as f:
            on_disk = json.load(f)
        if on_disk != built:
            err("%s: stream file differs from a fresh build" % where)
        chunks = on_disk["input"]
        if "".join(chunks) != text:
            err("%s: chunks do not join back to the text" % where)
        if any(not (1 <= len(c) <= 12) for c in chunks):
            err("%s: a chunk is outside 1..12 code points" % where)
        if on_disk.get("level") != "stream":
            err("%s: level is not 'stream'" % where)
        if "stream_channel" in on_disk and on_disk["stream_channel"] not in ("reasoning", "tool_args"):
            err("%s: stream_channel must be reasoning or tool_args when present" % where)
        exp = on_disk["expected"]
        if group == "fire":
            n_fire += 1
            if meta.get("status") not in ("real", "continued", "rebuilt"):
                err("%s: bad status %r" % (where, meta.get("status")))
            if not meta.get("model"):
                err("%s: missing model" % where)
            if not str(meta.get("source", "")).startswith("https://"):
                err("%s: fire source must be an address" % where)
            s, e = exp["fire_between_chars"]
            if not (0 <= s < e <= len(text)):
                err("%s: window [%d, %d) outside the text" % (where, s, e))
                continue
            try:
                ds, de = derive_window(text, meta["label"]["rule"])
                if (ds, de) != (s, e):
                    err("%s: window [%d, %d) but the rule gives [%d, %d)" % (where, s, e, ds, de))
            except (KeyError, ValueError, AssertionError) as x:
                err("%s: rule check failed: %s" % (where, x))
            a, b = exp["fire_between_chunks"]
            starts, pos = [], 0
            for c in chunks:
                starts.append(pos)
                pos += len(c)
            if not (starts[a] <= s < starts[a] + len(chunks[a])):
                err("%s: chunk %d does not hold char %d" % (where, a, s))
            if not (starts[b] <= e - 1 < starts[b] + len(chunks[b])):
                err("%s: chunk %d does not hold char %d" % (where, b, e - 1))
            if "[%d, %d)" % (s, e) not in meta["notes"]:
                err("%s: notes do not state the window [%d, %d)" % (where, s, e))
            if set(exp) != {"verdict", "fire_between_chunks", "fire_between_chars"} or exp["verdict"] != "fire":
                err("%s: bad expected block" % where)
        else:
            n_nofire += 1
            if exp != {"verdict": "no-fire"}:
                err("%s: bad expected block" % where)
            if not meta.get("context"):
                err("%s: no-fire case without context" % where)
            origin = meta.get("origin")
            if origin not in ("real", "written"):
                err("%s: bad origin %r" % (where, origin))
            if origin == "real":
                m = re.match(r"src/inputs/([^/]+)/run\.sh: ", meta["source"])
                if not m or not os.path.exists(os.path.join(HERE, "src", "inputs", m.group(1), "run.sh")):
                    err("%s: real output without its run.sh under src/inputs" % where)
    for p in glob.glob(os.path.join(HERE, "stream", "*.json")):
        if os.path.abspath(p) not in expected_files:
            err("stray file in stream/: %s" % os.path.basename(p))
    if n_fire < 22:
        err("only %d fire cases" % n_fire)
    if n_nofire < 24:
        err("only %d no-fire cases" % n_nofire)
    real = sum(1 for c in cases if c[0] == "nofire" and c[3].get("origin") == "real")
    print("checked %d cases: %d fire, %d no-fire (%d real program output, %d written)"
          % (len(cases), n_fire, n_nofire, real, n_nofire - real))
    if errors:
        for e in errors:
            print("ERROR:", e)
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
