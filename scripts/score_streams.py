#!/usr/bin/env python3
"""Score the stream guard on every stream set at once, one row per set, and diff two runs.

Usage::

    python scripts/score_streams.py [--set NAME=PATH ...] [--detector NAME]
                                    [--save FILE.json] [--diff FILE.json] [--json]
                                    [--score-blind]

Without ``--set`` it scores the stream sets that exist of:

- ``dev-stream1`` ... ``dev-streamN``: ``evals/dev-stream*`` (written without reading the code,
  each scored once as a blind set and a development set since);
- ``stream``: ``evals/stream`` (built beside the detectors: it flatters);
- ``benchmark``: ``../shared/benchmark/stream`` (the thresholds were checked on it).

Each row gives the fire streams caught in their window, late, missed and premature, and the
no-fire streams fired on (false fires), with :func:`bench.evalrun.evaluate`'s scoring (the
same as ``plateau eval --level stream``). ``--save`` writes every case's outcome and first
fire chunk; ``--diff`` prints the cases whose outcome or first fire chunk moved since a saved
file -- the check that a change to a detector moved nothing it was not meant to.

The embedding model is loaded first (the semantic layer's fires need it; without it the scores
differ): where it cannot load -- the script run outside the project's environment -- the script
exits 3 saying so. A set still blind -- a folder whose ``README.md`` title says "blind" and does not call it a
development set -- is refused unless
``--score-blind`` is given: a blind set is scored once, at the end, and is a development set
from then on (its README must say so); the default sets leave it out and say so.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.evalrun import STREAM_DETECTORS, default_embedder, evaluate  # noqa: E402
from bench.evaluate import load_cases  # noqa: E402
from plateau.errors import ModelUnavailable  # noqa: E402
from plateau.tables import render, table  # noqa: E402

# ../shared next to the repository, or next to the folder of worktrees holding it
_SHARED = [p / "shared" for p in (ROOT.parent, ROOT.parent.parent) if (p / "shared").is_dir()]


def _dev_number(path: Path) -> int:
    tail = path.name.removeprefix("dev-stream")
    return int(tail) if tail.isdigit() else 0


def default_sets() -> list[tuple[str, Path]]:
    """The stream sets that exist, in the order the table lists them."""
    sets = [(p.name, p) for p in sorted(ROOT.glob("evals/dev-stream*"), key=_dev_number) if p.is_dir()]
    sets.append(("stream", ROOT / "evals" / "stream"))
    if _SHARED:
        sets.append(("benchmark", _SHARED[0] / "benchmark" / "stream"))
    return [(name, path) for name, path in sets if path.is_dir()]


def is_blind(path: Path) -> bool:
    """Whether the folder's ``README.md`` title calls the set blind: it says "blind" and not that
    the set is a development set now (``dev-stream17 — ... (a development set now: scored once
    while blind ...)``)."""
    readme = path / "README.md"
    text = readme.read_text(encoding="utf-8").strip() if readme.is_file() else ""
    title = text.splitlines()[0].lower() if text else ""
    return "blind" in title and "development set" not in title


def _parse_set(spec: str) -> tuple[str, Path]:
    name, sep, path = spec.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"--set: expected NAME=PATH, got {spec!r}")
    return name, Path(path)


def score(sets: Sequence[tuple[str, Path]], detector: str, embedder: Any = None) -> dict[str, Any]:
    """Score ``detector`` on each set: ``{name: {"totals": {...}, "cases": {case_id: [outcome, chunk]}}}``.

    ``embedder``: the embedding model for the semantic layer (:func:`loaded_embedder`); ``None``
    loads the default on first use."""
    out: dict[str, Any] = {}
    for name, path in sets:
        cases = [c for c in load_cases([path]) if c.get("level") == "stream"]
        if not cases:
            continue
        run = evaluate(cases, detector, embedder=embedder)
        totals = run.stream_totals
        assert totals is not None
        out[name] = {
            "path": str(path),
            "totals": totals.as_dict(),
            "cases": {s.case_id: [s.outcome, s.fired_at_chunk] for s in run.stream},
        }
    return out


def loaded_embedder() -> Any:
    """The default embedding model, loaded now: the stream guard's semantic layer
    (``stream.recheck``, ``stream.semantic_loop``) needs it, and scores taken without it differ.

    Raises
    ------
    ModelUnavailable
        No model (or no numpy, ONNX Runtime, sentence-transformers) in this environment.
    """
    try:
        embedder = default_embedder(None)
        embedder.encode(["The embedding model answers."])
    except ImportError as exc:
        hint = "run the script with the project's environment, .venv/bin/python"
        raise ModelUnavailable(f"the embedding model cannot load here ({exc}): {hint}") from exc
    return embedder


def format_table(scores: dict[str, Any], detector: str) -> str:
    """One row per set and a total row, as text."""
    cols = ["set", "caught", "late", "missed", "premature", "false fires"]
    t = table(cols, title=f"{detector} on the stream sets", right=cols[1:])
    sums = dict.fromkeys(("caught", "late", "missed", "premature", "false_fires", "fire_streams", "no_fire_streams"), 0)
    for name, entry in scores.items():
        tot = entry["totals"]
        for key in sums:
            sums[key] += tot[key]
        t.add_row(
            name,
            f"{tot['caught']}/{tot['fire_streams']}",
            str(tot["late"]),
            str(tot["missed"]),
            str(tot["premature"]),
            f"{tot['false_fires']}/{tot['no_fire_streams']}",
        )
    t.add_row(
        "all",
        f"{sums['caught']}/{sums['fire_streams']}",
        str(sums["late"]),
        str(sums["missed"]),
        str(sums["premature"]),
        f"{sums['false_fires']}/{sums['no_fire_streams']}",
    )
    return render(t, sys.stdout)


def diff(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The cases whose outcome or first fire chunk differ, one line each (sets in both only)."""
    lines = []
    for name in after:
        if name not in before:
            continue
        old, new = before[name]["cases"], after[name]["cases"]
        for cid in sorted(set(old) | set(new)):
            if old.get(cid) != new.get(cid):
                lines.append(f"{name}/{cid}: {old.get(cid)} -> {new.get(cid)}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", dest="sets", action="append", type=_parse_set, metavar="NAME=PATH",
                    help="score this folder (repeatable); default: every stream set")
    ap.add_argument("--detector", default="plateau", choices=STREAM_DETECTORS, help="who judges (default plateau)")
    ap.add_argument("--save", type=Path, metavar="FILE.json", help="write every case's outcome and first fire chunk")
    ap.add_argument("--diff", type=Path, metavar="FILE.json", help="print the cases that moved since this saved file")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    ap.add_argument("--score-blind", action="store_true", help="score a set whose README still calls it blind (its one score)")
    args = ap.parse_args(argv)
    sets = args.sets or default_sets()
    if not args.sets:
        left = [p.name for p in sorted(ROOT.glob("evals/*stream*")) if p.is_dir() and is_blind(p)]
        if left:
            print("score_streams: not scored, still blind: " + ", ".join(left), file=sys.stderr)
    blind = [str(path) for _, path in sets if is_blind(path)]
    if blind and not args.score_blind:
        print("score_streams: refusing to score a blind set (its one score needs --score-blind): " + ", ".join(blind), file=sys.stderr)
        return 2
    before = json.loads(args.diff.read_text(encoding="utf-8")) if args.diff else None
    try:
        embedder = loaded_embedder() if args.detector == "plateau" else None
    except ModelUnavailable as exc:
        print(f"score_streams: {exc.message}", file=sys.stderr)
        return 3
    scores = score(sets, args.detector, embedder)
    if args.save:
        args.save.write_text(json.dumps(scores, indent=1) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(scores, indent=1))
    else:
        print(format_table(scores, args.detector), end="")
    if before is not None:
        moved = diff(before, scores)
        print(f"\n{len(moved)} case(s) moved since {args.diff}")
        for line in moved:
            print("  " + line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
