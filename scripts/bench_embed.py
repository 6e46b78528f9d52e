"""Benchmark the embedding backends: torch fp32 (sentence-transformers) vs ONNX Runtime, on real steps.

Usage::

    .venv/bin/python scripts/bench_embed.py            # a table on stdout, progress on stderr
    .venv/bin/python scripts/bench_embed.py --json     # the last line of stdout is one JSON object
    .venv/bin/python scripts/bench_embed.py --quick    # a smoke run (few steps, 3 cases)

What it does, in one process run, on the same texts for both backends:

1. **Texts.** Real agent steps, read where they lie: the labelled step cases of
   ``../shared/benchmark/steps``, the SWE-agent trajectories of ``../shared/data/trajectories``
   and the OpenAI-style chat runs of ``../shared/data/real-runs`` (mini-swe-agent, tau-bench),
   all read by :func:`plateau.replay.load_runs`. For each
   step, the texts the engine embeds (:meth:`plateau.engine.Engine.embed_inputs`: its text,
   and its tool call + result). ``--steps`` of them are drawn with a seed, spread over the
   sources.
2. **Speed.** steps/s of each backend, *single* (each step's texts in one ``encode`` call, one
   step after another: one agent alone) and *batched* (``encode`` calls of 64 texts, the
   service's micro-batch limit). The two backends alternate over ``--rounds`` slices of the
   steps in A-B, B-A order, so a drift of the machine's load cancels out of the ratios.
   ``speedup`` is the smaller of the single and batched ratios (ONNX ÷ torch).
3. **Agreement.** ``min_cosine``: the smallest cosine between the two backends' vectors of
   one text, over every text embedded here (the speed sample, single and batched, and every
   text of the benchmark's step cases). ``case_outcomes_equal``: every step case of the
   benchmark gets the same outcome (detected, early, false trip or none) from Plateau's
   evaluator (:func:`bench.evalrun.evaluate`) under both backends; the cases whose outcome
   or per-step verdicts differ are listed.

Both backends use their default threads (one per physical core). The machine's load average
is printed: on a shared machine the absolute rates move, the ratios much less.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared"

__all__ = ["main", "real_steps", "sample"]

#: Texts per batched call: the service's BatchingEmbedder default ``max_batch``.
BATCH = 64


def _log(msg: str) -> None:
    print(f"[bench_embed] {msg}", file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------------------
# real steps, read where they lie
# ----------------------------------------------------------------------------------------


def real_steps(shared: Path) -> dict[str, list[dict[str, Any]]]:
    """Step dicts per source under ``shared`` (``benchmark``, ``trajectories``, ``real-runs``); absent sources are left out."""
    from plateau.replay import load_runs

    sources: dict[str, list[dict[str, Any]]] = {}
    bench = shared / "benchmark" / "steps"
    if bench.is_dir():
        sources["benchmark"] = [s for run in load_runs([bench]) for s in run.steps]
    traj = shared / "data" / "trajectories"
    if traj.is_dir():
        sources["trajectories"] = [s for run in load_runs([traj]) for s in run.steps]
    real = shared / "data" / "real-runs"
    if real.is_dir():  # mini-swe-agent and tau-bench chat logs (plateau.replay reads them)
        sources["real-runs"] = [s for run in load_runs([real]) for s in run.steps]
    return sources


def step_texts(steps: Sequence[dict[str, Any]]) -> list[list[str]]:
    """Per step, the texts the engine embeds for it (its text; its tool call + result)."""
    from plateau.embed import HashingEmbedder
    from plateau.engine import Engine
    from plateau.types import Step

    view = Engine(embedder=HashingEmbedder())
    out = []
    for i, raw in enumerate(steps):
        texts = [t for t in view.embed_inputs(Step.from_dict(raw, i)) if t is not None]
        if texts:
            out.append(texts)
    return out


def sample(sources: dict[str, list[dict[str, Any]]], n: int, seed: int) -> list[list[str]]:
    """``n`` steps' texts, drawn with ``seed`` evenly over the sources (a source with fewer gives all it has)."""
    rng = random.Random(seed)
    per = {name: step_texts(steps) for name, steps in sources.items()}
    chosen: list[list[str]] = []
    names = sorted(per, key=lambda name: len(per[name]))  # the smallest first: what it cannot give goes to the others
    for k, name in enumerate(names):
        pool = per[name]
        want = (n - len(chosen)) // (len(names) - k)
        chosen += rng.sample(pool, min(want, len(pool)))
    rng.shuffle(chosen)
    return chosen


# ----------------------------------------------------------------------------------------
# measurements
# ----------------------------------------------------------------------------------------


def time_single(model: Any, per_step: Sequence[Sequence[str]]) -> tuple[float, list[Any]]:
    """Seconds to encode each step's texts in its own call, and the vectors per step."""
    out = []
    start = time.perf_counter()
    for texts in per_step:
        out.append(model.encode(list(texts)))
    return time.perf_counter() - start, out


def time_batched(model: Any, per_step: Sequence[Sequence[str]]) -> tuple[float, Any]:
    """Seconds to encode all the steps' texts in calls of :data:`BATCH` texts, and the vectors."""
    import numpy as np

    flat = [t for texts in per_step for t in texts]
    parts = []
    start = time.perf_counter()
    for i in range(0, len(flat), BATCH):
        parts.append(model.encode(flat[i : i + BATCH]))
    return time.perf_counter() - start, np.concatenate(parts)


def measure_speed(models: dict[str, Any], per_step: list[list[str]], rounds: int) -> tuple[dict[str, float], float]:
    """steps/s per backend and mode over alternating slices; and the smallest cosine seen between the backends."""
    import numpy as np

    seconds = {f"{b}_{m}": 0.0 for b in models for m in ("single", "batched")}
    worst = 1.0
    names = list(models)
    slices = [per_step[r::rounds] for r in range(rounds)]
    for r, part in enumerate(slices):
        order = names if r % 2 == 0 else names[::-1]
        single: dict[str, Any] = {}
        batched: dict[str, Any] = {}
        for name in order:
            took, vecs = time_single(models[name], part)
            seconds[f"{name}_single"] += took
            single[name] = np.concatenate(vecs)
        for name in order[::-1]:
            took, vecs = time_batched(models[name], part)
            seconds[f"{name}_batched"] += took
            batched[name] = vecs
        a, b = names
        worst = min(worst, float(np.min(np.sum(single[a] * single[b], axis=1))), float(np.min(np.sum(batched[a] * batched[b], axis=1))))
        _log(f"round {r + 1}/{rounds}: {len(part)} steps; seconds so far: " + ", ".join(f"{k} {v:.1f}" for k, v in seconds.items()))
    rates = {k: round(len(per_step) / v, 2) for k, v in seconds.items()}
    return rates, worst


def _outcome(score: Any) -> str:
    if score.early_trip:
        return "early"
    if score.detected:
        return "detected"
    if score.false_trip:
        return "false trip"
    return "none"


def case_outcomes(cases: list[dict[str, Any]], embedders: dict[str, Any]) -> dict[str, Any]:
    """Each backend's outcome and verdicts per step case (Plateau's evaluator), and where they differ."""
    from bench.evalrun import evaluate

    runs = {name: evaluate(cases, "plateau", embedder=emb) for name, emb in embedders.items()}
    a, b = list(runs)
    outcomes = {name: {s.case_id: _outcome(s) for s in run.steps} for name, run in runs.items()}
    verdicts = {name: {s.case_id: s.verdicts for s in run.steps} for name, run in runs.items()}
    differ = sorted(c for c in outcomes[a] if outcomes[a][c] != outcomes[b].get(c))
    verdicts_differ = sorted(c for c in verdicts[a] if verdicts[a][c] != verdicts[b].get(c))
    kinds = ("detected", "early", "false trip", "none")
    counts = {name: {k: sum(1 for v in o.values() if v == k) for k in kinds} for name, o in outcomes.items()}
    return {"cases": len(outcomes[a]), "equal": not differ, "differ": differ, "verdicts_differ": verdicts_differ, "counts": counts}


def cache_cosine(caches: dict[str, Any]) -> float:
    """Smallest cosine between the two caches' vectors of the same text (texts both embedded)."""
    import numpy as np

    a, b = (c._cache for c in caches.values())
    shared = [k for k in a if k in b]
    if not shared:
        return 1.0
    return float(np.min(np.sum(np.stack([a[k] for k in shared]) * np.stack([b[k] for k in shared]), axis=1)))


def run_bench(args: argparse.Namespace) -> dict[str, Any]:
    """Run the whole benchmark; return the report as a JSON-ready dict."""
    from bench.evaluate import load_cases
    from plateau.embed import CachedEmbedder, model_embedder

    shared = Path(args.shared)
    sources = real_steps(shared)
    if "benchmark" not in sources:
        raise SystemExit(f"bench_embed.py: no step cases under {shared / 'benchmark' / 'steps'} (pass --shared)")
    per_step = sample(sources, args.steps, args.seed)
    found = ", ".join(f"{k} ({len(v)} steps)" for k, v in sources.items())
    _log(f"{len(per_step)} steps ({sum(len(t) for t in per_step)} texts) drawn from {found}")
    report: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "loadavg_start": [round(x, 2) for x in os.getloadavg()]},
        "settings": {"steps": len(per_step), "texts": sum(len(t) for t in per_step), "rounds": args.rounds, "batch": BATCH,
                     "seed": args.seed, "sources": {k: len(v) for k, v in sources.items()}},
    }
    _log("loading torch (sentence-transformers) and ONNX Runtime (the graph is exported and cached on first use)")
    start = time.perf_counter()
    models = {"torch": model_embedder("torch").load()}
    report["load_seconds"] = {"torch": round(time.perf_counter() - start, 2)}
    start = time.perf_counter()
    models["onnx"] = model_embedder("onnx").load()
    report["load_seconds"]["onnx"] = round(time.perf_counter() - start, 2)
    report["onnx_graph"] = str(models["onnx"].graph_path)
    for model in models.values():  # warm-up, not measured
        model.encode([t for texts in per_step[:4] for t in texts])
    rates, worst = measure_speed(models, per_step, args.rounds)
    report["steps_per_s"] = rates
    report["speedup_single"] = round(rates["onnx_single"] / rates["torch_single"], 3)
    report["speedup_batched"] = round(rates["onnx_batched"] / rates["torch_batched"], 3)
    report["speedup"] = min(report["speedup_single"], report["speedup_batched"])
    cases = [c for c in load_cases([shared / "benchmark" / "steps"]) if c.get("level") == "steps"]
    if args.cases:
        cases = cases[: args.cases]
    _log(f"judging {len(cases)} step cases with Plateau under each backend")
    caches = {name: CachedEmbedder(model, max_items=1_000_000) for name, model in models.items()}
    outcomes = case_outcomes(cases, caches)
    report["cases"] = outcomes
    report["min_cosine_speed_sample"] = round(worst, 7)
    report["min_cosine_cases"] = round(cache_cosine(caches), 7)
    report["min_cosine"] = round(min(worst, report["min_cosine_cases"]), 7)
    report["case_outcomes_equal"] = outcomes["equal"]
    report["machine"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    return report


def format_report(report: dict[str, Any]) -> str:
    """The report as plain text."""
    r, s = report["steps_per_s"], report["settings"]
    cases = report["cases"]
    lines = [
        f"Embedding backends on {report['machine']['cpus']} CPUs, load average {report['machine']['loadavg_start'][0]} at start, "
        f"{report['machine']['loadavg_end'][0]} at end; {s['steps']} real steps ({s['texts']} texts), {s['rounds']} alternating rounds",
        f"{'':8} {'single steps/s':>15} {'batched(' + str(BATCH) + ') steps/s':>20}",
        f"{'torch':8} {r['torch_single']:>15.2f} {r['torch_batched']:>20.2f}",
        f"{'onnx':8} {r['onnx_single']:>15.2f} {r['onnx_batched']:>20.2f}",
        f"{'speedup':8} {report['speedup_single']:>15.2f} {report['speedup_batched']:>20.2f}"
        f"   (speedup = the smaller: {report['speedup']:.2f})",
        f"min cosine torch vs onnx: {report['min_cosine']:.7f} (speed sample {report['min_cosine_speed_sample']:.7f}, "
        f"every text of the {cases['cases']} cases {report['min_cosine_cases']:.7f})",
        f"case outcomes equal: {report['case_outcomes_equal']} (torch {cases['counts']['torch']}, onnx {cases['counts']['onnx']}; "
        f"outcomes differ: {cases['differ'] or 'none'}; per-step verdicts differ: {cases['verdicts_differ'] or 'none'})",
    ]
    return "\n".join(lines) + "\n"


def build_parser() -> argparse.ArgumentParser:
    """The command line of the benchmark."""
    p = argparse.ArgumentParser(prog="bench_embed.py", description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--steps", type=int, default=160, help="steps in the speed sample (default 160)")
    p.add_argument("--rounds", type=int, default=4, help="alternating slices of the sample (default 4)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    p.add_argument("--cases", type=int, default=0, help="judge only the first N step cases (default 0: all)")
    p.add_argument("--shared", default=str(SHARED), help="the team's shared folder (default ../shared)")
    p.add_argument("--quick", action="store_true", help="a smoke run: 12 steps, 2 rounds, 3 cases")
    p.add_argument("--json", action="store_true", help="print the table, then one JSON object as the last line")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print a table (and with --json one JSON object last) on stdout."""
    args = build_parser().parse_args(argv)
    if args.quick:
        args.steps, args.rounds, args.cases = 12, 2, 3
    if args.steps < args.rounds or args.rounds < 1 or args.cases < 0:
        build_parser().error("--rounds must be >= 1, --steps >= --rounds and --cases >= 0")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    report = run_bench(args)
    sys.stdout.write(format_report(report))
    if args.json:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
