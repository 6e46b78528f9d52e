"""The engine's own Python per step (the time it holds the GIL), without the embedding model.

Usage::

    .venv/bin/python scripts/profile_step.py                 # per-step CPU time, regex compiles
    .venv/bin/python scripts/profile_step.py --profile 25    # and the top 25 functions (cProfile)
    .venv/bin/python scripts/profile_step.py --json          # one JSON object on the last line

Every step of the benchmark's step cases and trajectories (``../shared/benchmark/steps``,
``../shared/data/trajectories``; ``--shared`` elsewhere) is observed by a fresh engine whose
embedder serves vectors computed beforehand (a dictionary look-up: the model's time is left
out, it runs outside the GIL anyway). Per step, the CPU time of the calling thread
(``time.thread_time``) is the engine's own Python work: everything it does under the GIL
between receiving a step and returning its verdict. Also counted: how many regular
expressions were compiled (``re._compiler.compile`` calls: a pattern compiled again is one
that fell out of ``re``'s cache). The first pass over the steps is a warm-up (imports, first
compilations); the second is measured on fresh runs, with the process-wide state a
long-running server has (``re``'s cache), but with the sentence splitter's cache of lines
emptied, since a server meets new text.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

__all__ = ["main"]


class _Table:
    """An embedder that serves vectors computed once (the warm-up pass fills it; later a dictionary look-up)."""

    name = "precomputed"

    def __init__(self, dim: int = 384) -> None:
        from plateau.embed import HashingEmbedder

        self.inner = HashingEmbedder(dim)
        self.vectors: dict[str, Any] = {}

    def encode(self, texts: Sequence[str]) -> Any:
        import numpy as np

        missing = [t for t in texts if t not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, self.inner.encode(missing), strict=True))
        if not texts:
            return np.zeros((0, self.inner.dim), dtype=np.float32)
        return np.stack([self.vectors[t] for t in texts])


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Observe every step twice (warm-up, then measured); return the figures."""
    import re._compiler as re_compiler

    import numpy as np

    from plateau.engine import Engine
    from plateau.replay import load_runs
    from plateau.signals import textual
    from plateau.types import Step

    shared = Path(args.shared)
    runs = load_runs([p for p in (shared / "benchmark" / "steps", shared / "data" / "trajectories") if p.is_dir()])
    if not runs:
        raise SystemExit(f"profile_step.py: no runs under {shared} (pass --shared)")
    steps = [(run, Step.from_dict(raw, i)) for run in runs for i, raw in enumerate(run.steps)]
    table = _Table()
    if args.re_cache is not None:  # reproduce another bound of re's cache (512: Python's own)
        import re

        setattr(re, "_MAXCACHE", args.re_cache)  # noqa: B010
        re.purge()
    compiles = [0]
    original = re_compiler.compile

    def counting(*a: Any, **k: Any) -> Any:
        compiles[0] += 1
        return original(*a, **k)

    re_compiler.compile = counting
    profile = cProfile.Profile() if args.profile else None
    per_step: list[float] = []
    try:
        for rnd in range(2):
            engine = Engine(embedder=table)
            if rnd == 1:
                compiles[0] = 0
                # The sentence splitter's cache of lines (a looping agent repeats its lines)
                # would serve every line of the second pass: a server meets new text.
                split_line = getattr(textual, "_split_line", None)
                if split_line is not None and hasattr(split_line, "cache_clear"):
                    split_line.cache_clear()
            for run_, step in steps:
                start = time.thread_time()
                if profile is not None and rnd == 1:
                    profile.enable()
                engine.observe(f"{run_.id}#{rnd}", step, run_.context)
                if profile is not None and rnd == 1:
                    profile.disable()
                if rnd == 1:
                    per_step.append(time.thread_time() - start)
    finally:
        re_compiler.compile = original
    ms = np.array(per_step) * 1000.0
    report: dict[str, Any] = {
        "steps": len(per_step),
        "cpu_ms_per_step": {"mean": round(float(ms.mean()), 3), "median": round(float(np.median(ms)), 3),
                            "p90": round(float(np.percentile(ms, 90)), 3), "max": round(float(ms.max()), 3)},
        "regex_compiles": compiles[0],
        "loadavg": [round(x, 2) for x in os.getloadavg()],
    }
    if profile is not None:
        stats = pstats.Stats(profile, stream=sys.stderr)
        stats.sort_stats("tottime").print_stats(args.profile)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    """Run the profile; print the figures (and with --json one JSON object last) on stdout."""
    p = argparse.ArgumentParser(prog="profile_step.py", description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--shared", default=str(ROOT.parent / "shared"), help="the team's shared folder (default ../shared)")
    p.add_argument("--profile", type=int, default=0, metavar="N", help="print the top N functions by own time to stderr")
    p.add_argument("--re-cache", type=int, metavar="N",
                   help="set re's cache bound to N after Plateau is imported (512: Python's default, as before Plateau raised it)")
    p.add_argument("--json", action="store_true", help="one JSON object as the last line")
    args = p.parse_args(argv)
    report = run(args)
    c = report["cpu_ms_per_step"]
    print(f"{report['steps']} steps: engine CPU time per step mean {c['mean']:.2f} ms, median {c['median']:.2f} ms, "
          f"p90 {c['p90']:.2f} ms, max {c['max']:.1f} ms; {report['regex_compiles']} regex compiles; load average {report['loadavg'][0]}")
    if args.json:
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
