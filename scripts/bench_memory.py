"""Peak server memory under many concurrent large ``Observe`` calls, with and without the call cap.

Usage::

    .venv/bin/python scripts/bench_memory.py                      # caps 32 (default) and 8
    .venv/bin/python scripts/bench_memory.py --calls 64 --caps 32 --json
    .venv/bin/python scripts/bench_memory.py --reference-root ../old-checkout   # first row: an older Plateau, no cap

For each cap, in one process run: start ``plateau serve --port 0 --store memory --embedder
hashing --max-concurrent-rpcs CAP`` as a child process (the test embedder: the model's memory
is the same with or without a cap and would only hide the difference), read its resident memory
(``VmRSS``), send ``--calls`` concurrent ``Observe`` calls of about 5 MB each (five fields of
1,000,000 characters: text, args, result, user, context; each call a new run), then read its
peak resident memory (``VmHWM`` from ``/proc/PID/status``) and, a second later, its resident memory again: the runs
that were created keep some state (``after``), the rest of the peak (``transient`` = peak − after)
is what concurrent calls held while in flight, which the cap bounds. Calls refused as
``RESOURCE_EXHAUSTED`` (beyond the cap and its queue) are counted, not retried. The ratio
``peak growth / peak growth of the first row`` is printed next to the machine's load average;
with ``--reference-root`` the first row is an older checkout without the cap (cap shown as 0).
Only 127.0.0.1 is reached.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIELD_CHARS = 1_000_000


def _status(pid: int, key: str) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {key} in /proc/{pid}/status")


def _request(i: int) -> bytes:
    from plateau.v1 import plateau_pb2 as pb

    filler = (f"call {i}: " + "lorem ipsum dolor sit amet " * (FIELD_CHARS // 27))[: FIELD_CHARS - 100]
    step = pb.Step(index=0, text=filler, tool="read", args_json=json.dumps({"blob": filler}).encode(), result=filler, user=filler)
    return pb.ObserveRequest(run_id=f"mem-{i}", step=step, context=filler).SerializeToString()  # type: ignore[no-any-return]


def measure(cap: int, calls: int, root: Path = ROOT) -> dict[str, Any]:
    """Start a server with ``--max-concurrent-rpcs cap`` (none when 0: a Plateau without the option, from ``root``),
    send ``calls`` concurrent large calls, return its memory."""
    import grpc

    cmd = [sys.executable, "-m", "plateau.cli", "serve", "--port", "0", "--store", "memory", "--embedder", "hashing"]
    if cap:
        cmd += ["--max-concurrent-rpcs", str(cap), "--drain-seconds", "0"]
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=env, cwd=root)  # -m imports from the cwd first
    try:
        assert proc.stderr is not None
        target = ""
        for line in proc.stderr:
            if "serving plateau.v1.Plateau on " in line:
                target = line.rsplit(" ", 1)[1].strip()
                break
        if not target:
            raise RuntimeError("the server did not start")
        requests = [_request(i) for i in range(calls)]
        channel = grpc.insecure_channel(target, options=[("grpc.max_send_message_length", 64 << 20)])
        observe = channel.unary_unary("/plateau.v1.Plateau/Observe")
        observe(_request(calls), timeout=120)  # warm: imports, first run
        time.sleep(0.5)
        before = _status(proc.pid, "VmRSS")

        def send(data: bytes) -> str:
            try:
                observe(data, timeout=300)
                return "OK"
            except grpc.RpcError as exc:
                return str(exc.code().name)

        started = time.perf_counter()
        with ThreadPoolExecutor(calls) as pool:
            codes = list(pool.map(send, requests))
        elapsed = time.perf_counter() - started
        peak = _status(proc.pid, "VmHWM")
        time.sleep(1.0)
        after = _status(proc.pid, "VmRSS")
        channel.close()
        return {
            "cap": cap,
            "calls": calls,
            "rss_before_mb": round(before / 2**20, 1),
            "peak_mb": round(peak / 2**20, 1),
            "growth_mb": round((peak - before) / 2**20, 1),
            "transient_mb": round((peak - after) / 2**20, 1),
            "ok": codes.count("OK"),
            "refused": len(codes) - codes.count("OK"),
            "codes": {c: codes.count(c) for c in sorted(set(codes))},
            "seconds": round(elapsed, 2),
        }
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=64, help="concurrent ~5 MB Observe calls (default 64)")
    parser.add_argument("--caps", type=int, nargs="+", default=[32, 8], help="--max-concurrent-rpcs values (default 32 8)")
    parser.add_argument(
        "--reference-root", type=Path, help="a checkout of an earlier Plateau (no call cap): measured first, as the reference"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args(argv)
    rows = [measure(0, args.calls, args.reference_root)] if args.reference_root else []
    rows += [measure(cap, args.calls) for cap in args.caps]
    reference = rows[0]["growth_mb"] or 1.0
    for row in rows:
        row["growth_ratio"] = round(row["growth_mb"] / reference, 3)
    load = os.getloadavg()
    if args.json:
        print(json.dumps({"load": load, "rows": rows}))
        return 0
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {args.calls} concurrent Observe calls of ~5 MB")
    print(f"{'cap':>6} {'rss before':>11} {'peak':>9} {'growth':>9} {'ratio':>6} {'transient':>10} {'ok':>4} {'refused':>8} {'s':>7}")
    for r in rows:
        print(f"{r['cap']:>6} {r['rss_before_mb']:>9.1f}MB {r['peak_mb']:>7.1f}MB {r['growth_mb']:>7.1f}MB "
              f"{r['growth_ratio']:>6.3f} {r['transient_mb']:>8.1f}MB {r['ok']:>4} {r['refused']:>8} {r['seconds']:>7.2f}  {r['codes']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
