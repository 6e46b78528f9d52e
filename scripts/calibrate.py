#!/usr/bin/env python3
"""Measure every detector that can trip against its false-alarm budget, on real runs that
finished or succeeded.

Usage::

    python scripts/calibrate.py [--corpus PATH ...] [--json]

The corpus (default: ``../shared/data/real-runs`` and ``../shared/data/trajectories``) is read
by ``plateau replay``'s loader; only runs whose outcome is ``succeeded``, ``finished`` or
``resolved`` (or unknown, for the SWE-agent trajectories, which all submitted) are kept: a trip
on any of them would have killed work that got done. Every step is observed as a harness
that ignores the verdicts would (after a trip the breaker stays open, so a run is scored up to
its first trip).

For each detector that can trip (a rule that is ``trip`` or ``trip_after_steer``,
:mod:`plateau.analysis.registry`) it reports:

- ``budget``: what the detector declares (runs per 1,000 that may trip on it alone, and the
  score margin it keeps below trip level; :class:`plateau.analysis.detector.Budget`);
- ``threshold``: the :class:`~plateau.config.Config` values and module constants it reads;
- ``firings_per_1000_steps``: steps whose score for it reached steer level;
- ``runs_tripped``: runs that would trip on it alone (a trip-level score where its rule may
  trip: at once for ``trip``, after one of its own steers in the same stall for
  ``trip_after_steer``);
- ``margin``: trip level (1.0) minus the largest score it reached, in fusion-scale units
  (0.5 is steer level); ``holds``: the budget and the margin are kept;
- for the calibrated (CUSUM) detectors, ``max_statistic``: the largest value their statistic
  reached in robust-z units on a step where they had evidence (the thrash test's also on
  steps where fewer calls failed than a trip needs), and ``derived_trip_threshold``: the
  smallest decision interval h that keeps the margin over it, beside ``cusum_trip``.

The last line is one JSON object (``--json`` prints only it). Embeddings come from the real
model behind ``scripts/score_sets.py``'s disk cache.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DEFAULT_CORPUS = [SHARED / "data" / "real-runs", SHARED / "data" / "trajectories"]
FINISHED = {"succeeded", "finished", "resolved", None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", action="append", default=[], metavar="PATH", help="a file or folder of runs (repeatable)")
    parser.add_argument("--json", action="store_true", help="print only the JSON object")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.path.insert(0, str(ROOT / "scripts"))

    from score_sets import DiskCachedEmbedder

    from plateau.analysis.registry import DETECTORS
    from plateau.analysis.scale import STEER_LEVEL, TRIP_LEVEL
    from plateau.config import Config
    from plateau.embed import SentenceTransformerEmbedder
    from plateau.engine import Engine
    from plateau.replay import load_runs
    from plateau.types import Action, Step

    paths = [Path(p) for p in args.corpus] or [p for p in DEFAULT_CORPUS if p.exists()]
    runs = [r for r in load_runs(paths) if r.outcome in FINISHED]
    config = Config()
    embedder = DiskCachedEmbedder(SentenceTransformerEmbedder(), Path.home() / ".cache" / "plateau" / "score-sets")
    engine = Engine(embedder=embedder, config=config)
    texts = list(dict.fromkeys(t for run in runs for i, s in enumerate(run.steps) for t in engine.embed_inputs(Step.from_dict(s, i)) if t))
    missing = [t for t in texts if embedder.key(t) not in embedder.vectors]
    for start in range(0, len(missing), 256):
        embedder.encode(missing[start : start + 256])
    embedder.save()

    trippers = [d for d in DETECTORS if any(r.acts != "steer" for r in d.rules.values())]
    stats: dict[str, dict[str, Any]] = {d.name: {"firings": 0, "runs": set(), "max": 0.0, "statistic": 0.0} for d in trippers}
    steps = tripped_runs = 0
    started = time.perf_counter()
    for n, run in enumerate(runs):
        last_steer: dict[str, int] = {}
        for i, raw in enumerate(run.steps):
            verdict = engine.observe(f"calibrate-{n}", Step.from_dict(raw, i), run.context)
            steps += 1
            for d in trippers:
                score = max((verdict.signals.get(f"score.{code}", 0.0) for code in d.rules), default=0.0)
                entry = stats[d.name]
                entry["max"] = max(entry["max"], score)
                if d.statistic_signals and any(f"score.{code}" in verdict.signals for code in d.rules):
                    values = [max(0.0, verdict.signals.get(name, 0.0)) for name in d.statistic_signals]
                    entry["statistic"] = max(entry["statistic"], math.prod(values) ** (1 / len(values)))
                if score < STEER_LEVEL:
                    continue
                entry["firings"] += 1
                if score >= TRIP_LEVEL:
                    # a "trip" rule trips at once; a "trip_after_steer" one after its own steer
                    # on the step before (its stall goes on while it stays at steer level)
                    at_once = any(d.rules[c].acts == "trip" for c in d.rules if verdict.signals.get(f"score.{c}", 0.0) >= TRIP_LEVEL)
                    if at_once or last_steer.get(d.name) == i - 1:
                        entry["runs"].add(run.id)
                last_steer[d.name] = i
            if verdict.action is Action.TRIP:  # scored up to the first trip
                tripped_runs += 1
                break
    elapsed = time.perf_counter() - started

    detectors: dict[str, Any] = {}
    for d in trippers:
        entry = stats[d.name]
        budget = d.budget
        runs_tripped = len(entry["runs"])
        margin = round(TRIP_LEVEL - entry["max"], 4)
        row: dict[str, Any] = {
            "codes": sorted(d.rules),
            "budget": None if budget is None else {"runs_per_1000": budget.runs_per_1000, "margin": budget.margin, "why": budget.why},
            "threshold": {**{name: getattr(config, name) for name in d.thresholds}, **d.constants},
            "firings_per_1000_steps": round(1000 * entry["firings"] / steps, 3) if steps else None,
            "runs_tripped": runs_tripped,
            "tripped_runs": sorted(entry["runs"])[:20],
            "margin": margin,
            "holds": budget is not None and 1000 * runs_tripped / max(1, len(runs)) <= budget.runs_per_1000 and margin > budget.margin,
        }
        if d.statistic_signals:
            statistic = entry["statistic"]
            row["max_statistic"] = round(statistic, 3)
            if budget is not None:
                # the h at which the largest statistic seen scores trip level minus the margin
                share = (TRIP_LEVEL - budget.margin - STEER_LEVEL) / (TRIP_LEVEL - STEER_LEVEL)
                derived = config.cusum_steer + (statistic - config.cusum_steer) / share
                row["derived_trip_threshold"] = round(max(config.cusum_steer, derived), 3)
        detectors[d.name] = row
    out = {
        "corpus": {"paths": [str(p) for p in paths], "runs": len(runs), "steps": steps, "runs_tripped": tripped_runs},
        "detectors": detectors,
        "seconds": round(elapsed, 1),
        "load": os.getloadavg()[0],
    }
    if not args.json:
        print(f"corpus: {len(runs)} runs that finished or succeeded, {steps} steps; {tripped_runs} tripped")
        print(f"  ({elapsed:.0f} s, load {out['load']:.2f})")
        for name, row in detectors.items():
            print(
                f"  {name:<15} fired/1000 {row['firings_per_1000_steps']:>7}  runs tripped {row['runs_tripped']:>2}  "
                f"margin {row['margin']:>6}  {'ok' if row['holds'] else 'OVER BUDGET'}  {row['threshold']}"
            )
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
