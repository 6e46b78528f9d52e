#!/usr/bin/env python3
"""Score Plateau on every evaluation set at once: labelled cases and real runs with outcomes.

Usage::

    python scripts/score_sets.py [--set NAME=PATH ...] [--json] [--rows FILE.jsonl]

Without ``--set`` it scores the sets that exist of:

- ``benchmark``: ``../shared/benchmark/steps`` (labelled; detected, early, false trips, agreement);
- ``real``: ``../shared/data/real-runs`` (runs with outcomes: a run that succeeded or finished
  must not be tripped; steer rate on them; trips on runs that failed, for reference);
- ``trajectories``: ``../shared/data/trajectories`` (two SWE-agent runs, unlabelled);
- ``dev-set1`` to ``dev-set8``: ``evals/dev-set*`` (labelled; written without reading the code,
  but each was scored more than once and some shaped changes, so they are development sets);
- ``dev``: ``evals/dev`` (labelled; read and developed against, so it flatters);
- ``examples``: ``examples`` (labelled).

A labelled set prints the evaluator's totals; a set with outcomes prints, per outcome, how
many runs were tripped and the share of steps steered. Embeddings come from the real model
behind a disk cache keyed by the text's SHA-256 (``~/.cache/plateau/score-sets``), so a
re-run after a change to the detectors embeds nothing again; the cache holds only vectors the
model produced for those exact texts, so verdicts are the model's.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout: the scorer lives in bench/ (not in the wheel)
    sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared"
DEFAULT_SETS = {
    "benchmark": SHARED / "benchmark" / "steps",
    "real": SHARED / "data" / "real-runs",
    "trajectories": SHARED / "data" / "trajectories",
    "dev-set1": ROOT / "evals" / "dev-set1",
    "dev-set2": ROOT / "evals" / "dev-set2",
    "dev-set3": ROOT / "evals" / "dev-set3",
    "dev-set4": ROOT / "evals" / "dev-set4",
    "dev-set5": ROOT / "evals" / "dev-set5",
    "dev-set6": ROOT / "evals" / "dev-set6",
    "dev-set7": ROOT / "evals" / "dev-set7",
    "dev-set8": ROOT / "evals" / "dev-set8",
    "dev": ROOT / "evals" / "dev",
    "examples": ROOT / "examples",
}


class DiskCachedEmbedder:
    """The real model behind a persistent vector cache (one ``.npy`` shard per process run)."""

    def __init__(self, inner: Any, folder: Path) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "model")
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.vectors: dict[str, np.ndarray] = {}
        for shard in sorted(folder.glob("*.npz")):
            with np.load(shard) as data:
                for key in data.files:
                    self.vectors[key] = data[key]
        self.new: dict[str, np.ndarray] = {}

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        keys = [self.key(t) for t in texts]
        missing = [i for i, k in enumerate(keys) if k not in self.vectors]
        if missing:
            vecs = self.inner.encode([texts[i] for i in missing])
            for i, v in zip(missing, vecs, strict=True):
                self.vectors[keys[i]] = self.new[keys[i]] = np.asarray(v, dtype=np.float32)
        return np.stack([self.vectors[k] for k in keys]).astype(np.float32)

    def save(self) -> None:
        if self.new:
            np.savez(self.folder / f"shard-{os.getpid()}-{len(self.vectors)}.npz", **self.new)
            self.new = {}


def _outcome_rows(name: str, runs: list[Any], actions: dict[str, list[str]], reasons: dict[str, list[tuple[str, ...]]]) -> dict[str, Any]:
    by: dict[str, dict[str, Any]] = {}
    for run in runs:
        outcome = run.outcome or "unknown"
        acts = actions[run.id]
        entry = by.setdefault(outcome, {"runs": 0, "tripped": 0, "steps": 0, "steered": 0, "trip_ids": []})
        entry["runs"] += 1
        entry["steps"] += len(acts)
        entry["steered"] += acts.count("steer")
        if "trip" in acts:
            first = acts.index("trip")
            entry["tripped"] += 1
            entry["trip_ids"].append(f"{run.id}@{first}:{'+'.join(reasons[run.id][first])}")
    for entry in by.values():
        entry["steer_rate"] = round(entry["steered"] / entry["steps"], 4) if entry["steps"] else None
    return {"set": name, "by_outcome": by}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", action="append", default=[], metavar="NAME=PATH", help="a set to score (repeatable)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--rows", metavar="FILE", help="write every verdict as JSON lines to FILE")
    parser.add_argument("--verbose", action="store_true", help="list the tripped runs and missed cases")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    from bench.evaluate import score_steps_case, summarize_steps
    from plateau.embed import SentenceTransformerEmbedder
    from plateau.engine import Engine
    from plateau.replay import load_runs
    from plateau.types import Step

    sets = dict(s.split("=", 1) for s in args.set) if args.set else {k: str(v) for k, v in DEFAULT_SETS.items() if v.exists()}
    embedder = DiskCachedEmbedder(SentenceTransformerEmbedder(), Path.home() / ".cache" / "plateau" / "score-sets")
    out: dict[str, Any] = {}
    rows = open(args.rows, "w", encoding="utf-8") if args.rows else None  # noqa: SIM115
    try:
        for name, path in sets.items():
            runs = load_runs([path])
            engine = Engine(embedder=embedder)
            texts = {t for run in runs for i, s in enumerate(run.steps) for t in engine.embed_inputs(Step.from_dict(s, i)) if t}
            missing = [t for t in texts if embedder.key(t) not in embedder.vectors]
            for start in range(0, len(missing), 256):  # one batched pass over the set's new texts
                embedder.encode(missing[start : start + 256])
            embedder.save()
            actions: dict[str, list[str]] = {}
            reasons: dict[str, list[tuple[str, ...]]] = {}
            for n, run in enumerate(runs):
                steps = [Step.from_dict(s, i) for i, s in enumerate(run.steps)]
                verdicts = [engine.observe(f"{name}-{n}", step, run.context) for step in steps]
                actions[run.id] = [v.action.value for v in verdicts]
                reasons[run.id] = [v.reasons for v in verdicts]
                if rows:
                    expected = run.expected if isinstance(run.expected, dict) else {}
                    allowed = expected.get("per_step") or []
                    for v in verdicts:
                        row = {"set": name, "case": run.id, "outcome": run.outcome or expected.get("final"), "step": v.step_index,
                               "allowed": allowed[v.step_index] if v.step_index < len(allowed) else None,
                               "action": v.action.value, "reasons": list(v.reasons), "score": v.score, "signals": v.signals}
                        rows.write(json.dumps(row) + "\n")
            embedder.save()
            labelled = [r for r in runs if isinstance(r.expected, dict) and "per_step" in r.expected]
            result: dict[str, Any] = {"runs": len(runs)}
            if labelled:
                scores = [
                    score_steps_case({"id": r.id, "level": "steps", "input": list(r.steps), "expected": r.expected}, actions[r.id])
                    for r in labelled
                ]
                totals = summarize_steps(scores).as_dict()
                result["labelled"] = {k: totals[k] for k in totals if not isinstance(totals[k], (list, dict))}
                result["misses"] = [s.case_id for s in scores if s.stuck and not s.detected]
                result["false"] = [
                    f"{s.case_id}@{s.first_trip}:{'+'.join(reasons[s.case_id][s.first_trip])}"
                    for s in scores if s.first_trip is not None and (s.false_trip or s.early_trip)
                ]
            if any(r.outcome for r in runs) or not labelled:
                result.update(_outcome_rows(name, runs, actions, reasons))
            out[name] = result
    finally:
        if rows:
            rows.close()
    if args.json:
        print(json.dumps(out))
        return 0
    for name, result in out.items():
        print(f"== {name}: {result['runs']} runs")
        if "labelled" in result:
            t = result["labelled"]
            print("   " + "  ".join(f"{k}={v}" for k, v in t.items()))
            if args.verbose:
                for line in result["misses"]:
                    print(f"   miss  {line}")
                for line in result["false"]:
                    print(f"   false {line}")
        for outcome, e in sorted(result.get("by_outcome", {}).items()):
            print(f"   {outcome:>10}: {e['tripped']}/{e['runs']} tripped, steer rate {e['steer_rate']}")
            if args.verbose:
                counts = collections.Counter(t.split(":", 1)[1] for t in e["trip_ids"])
                for t in e["trip_ids"][:40]:
                    print(f"      {t}")
                if counts:
                    print(f"      by reason: {dict(counts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
