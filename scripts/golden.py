#!/usr/bin/env python3
"""Record or check the golden verdicts: every step's action, reasons and score on ``examples/``,
``evals/dev`` and the benchmark (``../shared/benchmark/steps``).

Usage::

    python scripts/golden.py --check          # exit 1 and list the steps whose verdict moved
    python scripts/golden.py --write          # record the verdicts of this checkout

A change that only moves code (a refactor) must leave the file unchanged; a change meant to
move verdicts rewrites it in the same commit, and its diff is the change's effect. Verdicts
come from the real model (through ``scripts/score_sets.py`` and its vector cache).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "evals" / "golden-verdicts.jsonl"
SETS = {
    "examples": ROOT / "examples",
    "dev": ROOT / "evals" / "dev",
    "benchmark": ROOT.parent / "shared" / "benchmark" / "steps",
}


def current() -> list[dict[str, object]]:
    """The verdicts of this checkout, one row per step: set, case, step, action, reasons, score."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import score_sets

    with tempfile.NamedTemporaryFile(suffix=".jsonl") as rows:
        argv = [a for name, path in SETS.items() if path.exists() for a in ("--set", f"{name}={path}")]
        with contextlib.redirect_stdout(io.StringIO()):
            score_sets.main([*argv, "--json", "--rows", rows.name])
        out = []
        for line in Path(rows.name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            out.append({k: row[k] for k in ("set", "case", "step", "action", "reasons", "score")})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="compare with the golden file (exit 1 on any difference)")
    mode.add_argument("--write", action="store_true", help="record the golden file")
    args = parser.parse_args(argv)
    rows = current()
    if args.write:
        GOLDEN.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
        print(f"wrote {len(rows)} verdicts to {GOLDEN.relative_to(ROOT)}", file=sys.stderr)
        return 0
    golden = {(r["set"], r["case"], r["step"]): r for r in map(json.loads, GOLDEN.read_text(encoding="utf-8").splitlines())}
    now = {(r["set"], r["case"], r["step"]): r for r in rows}
    moved = [k for k in sorted(set(golden) | set(now), key=str) if golden.get(k) != now.get(k)]
    for key in moved[:50]:
        print(f"{key}: {golden.get(key)} -> {now.get(key)}")
    print(f"{len(moved)} of {len(now)} verdicts differ from {GOLDEN.relative_to(ROOT)}", file=sys.stderr)
    return 1 if moved else 0


if __name__ == "__main__":
    sys.exit(main())
