"""What ``check`` costs next to ``observe``: the dry run deep-copies the run's learned state.

Usage: ``python scripts/bench_check.py [--steps N] [--embedder model|hashing]``. Builds one run of
N varied tool steps (in process), then times ``check`` of the next call and ``observe`` of
the run's next step (texts pre-embedded) at several run lengths, in the same process, and prints the per-call times and
the ratio check/observe (and the copy of the learned state alone), so the numbers are comparable on a shared
machine. The embedding of a checked call is cached after its first check, so a repeated
check measures the copy and the judging alone.
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400, help="longest run length measured (default 400)")
    parser.add_argument("--embedder", choices=("model", "hashing"), default="model")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    from plateau import Client, Step
    from plateau.embed import HashingEmbedder
    from plateau.engine import Engine, _copy_analysis

    engine = Engine(embedder=HashingEmbedder()) if args.embedder == "hashing" else Engine()
    client = Client.local(engine=engine)
    run = client.session(context="Audit every service's configuration for a wrong port.")
    marks = sorted({n for n in (25, 100, args.steps) if n <= args.steps})
    print(
        f"{'steps':>6} {'observe ms':>11} {'check ms':>9} {'copy ms':>8} {'check/observe':>14}   (model time excluded: texts pre-embedded)"
    )
    for target in marks:
        while run.next_index < target:
            i = run.next_index
            run.observe(
                Step(
                    index=0,
                    text=f"Reading service {i}'s config.",
                    tool="read_file",
                    args={"path": f"svc{i}/app.yaml"},
                    result=f"port: {8000 + i}\nname: svc{i}",
                )
            )
        call = Step(index=0, text="Reading the gateway config.", tool="read_file", args={"path": "gateway/app.yaml"})
        run.check(call)  # warm the embedding cache for this text
        checks, observes, copies = [], [], []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            run.check(call)
            checks.append(time.perf_counter() - t0)
            record = engine.store.get(("", run.run_id))
            t0 = time.perf_counter()
            _copy_analysis(record.analysis)
            copies.append(time.perf_counter() - t0)
            # observe the run's next step with its texts already embedded (as check's are), so
            # both times exclude the model and compare the judging on the same run length
            i = run.next_index
            step = Step(
                index=0,
                text=f"Reading service {i}'s config.",
                tool="read_file",
                args={"path": f"svc{i}/app.yaml"},
                result=f"port: {8000 + i}\nname: svc{i}",
            )
            engine.embedder.encode([t for t in engine.embed_inputs(step) if t])
            t0 = time.perf_counter()
            run.observe(step)
            observes.append(time.perf_counter() - t0)
        c, o, k = statistics.median(checks), statistics.median(observes), statistics.median(copies)
        print(f"{target:>6} {o * 1000:>11.2f} {c * 1000:>9.2f} {k * 1000:>8.2f} {c / o:>14.2f}")


if __name__ == "__main__":
    main()
