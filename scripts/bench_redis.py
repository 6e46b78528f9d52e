"""What Redis costs per step, and steps/s at 1 and 2 replicas (hashing test embedder, loopback).

1. **Cost per step** (in process, one throwaway ``redis-server``): runs driven through one
   engine on a :class:`~plateau.store.redis_store.RedisStore` (a run sticks to its replica) and
   through two engines taking turns (every step lands on the other replica: the worst case for
   the replicas' caches). Counted: round trips (requests a replica sends to Redis), bytes
   Redis received and sent (``INFO stats``) and the CPU time Redis spent (``INFO cpu``), per
   step. Two workloads: the load test's runs, and
   runs whose tool results are large and always new (the term sets grow every step), for which
   it also prints what the store wrote before (the whole learned state pickled, every step).
2. **Steps/s at 1 and 2 replicas** (``plateau serve --embedder hashing --store redis://…``
   child processes, clients with every replica as target): the same workload, no faults; and
   the same with one replica on ``--store memory`` (no store at all) as the reference of the
   same run. Prints the ratios, and the CPU time per step of the replicas, of the clients and
   of Redis (``/proc``), with how busy Redis was.

    .venv/bin/python scripts/bench_redis.py            # ~1 min
    .venv/bin/python scripts/bench_redis.py --runs 60  # quicker

The machine's load matters (every process here shares its cores): run it on an idle machine
and compare ratios, not absolute numbers.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from load_test import Server, free_port, make_run  # noqa: E402

from plateau.client import Client  # noqa: E402
from plateau.embed import HashingEmbedder  # noqa: E402
from plateau.engine import Engine  # noqa: E402
from plateau.store.redis_store import RedisStore  # noqa: E402
from plateau.types import Step  # noqa: E402
from tests.support.redis_proc import RedisProcess  # noqa: E402


def large_run(seed: int, n: int) -> list[Step]:
    """Steps whose tool results are large (~10 KB) and always new."""
    return [
        Step(index=i, text=f"Listing table {i} of batch {seed}.", tool="sql", args={"q": f"select {i}"},
             result=" ".join(f"row{seed}_{i}_{j} field{(i * 31 + j) % 997} value{j * i}" for j in range(300)))
        for i in range(n)
    ]


class Counting:
    """Counts the requests sent on redis-py connections (one per command, pipeline or script call)."""

    def __init__(self) -> None:
        import redis.connection

        self.sent = 0
        self._cls = redis.connection.AbstractConnection
        self._orig = self._cls.send_packed_command
        counter = self

        def send_packed_command(conn: Any, command: Any, check_health: bool = True) -> None:
            counter.sent += 1
            counter._orig(conn, command, check_health)

        self._cls.send_packed_command = send_packed_command  # type: ignore[method-assign]

    def close(self) -> None:
        self._cls.send_packed_command = self._orig  # type: ignore[method-assign]


def cost_per_step(runs: list[list[Step]], replicas: int, label: str) -> None:
    """Drive ``runs`` through ``replicas`` in-process engines taking turns; print the Redis cost per step."""
    import redis

    with RedisProcess() as server, redis.Redis.from_url(server.url) as r:
        engines = [Engine(embedder=HashingEmbedder(), store=RedisStore(server.url)) for _ in range(replicas)]
        counting = Counting()
        try:
            before, cpu0 = r.info("stats"), r.info("cpu")
            sent0 = counting.sent
            steps = 0
            pickled = 0
            shadow = Engine(embedder=HashingEmbedder())  # in memory: what the old store pickled, without touching Redis
            for k, steps_of_run in enumerate(runs):
                for i, s in enumerate(steps_of_run):
                    engines[i % replicas].observe(f"run-{k}", s)
                    steps += 1
                    if label == "large":
                        shadow.observe(f"run-{k}", s)
                        pickled += len(pickle.dumps(shadow.store.get(("", f"run-{k}")).analysis, protocol=5))
            after, cpu1 = r.info("stats"), r.info("cpu")
            trips = (counting.sent - sent0) / steps
        finally:
            counting.close()
            for e in engines:
                e.close()
    got_in = (after["total_net_input_bytes"] - before["total_net_input_bytes"]) / steps
    got_out = (after["total_net_output_bytes"] - before["total_net_output_bytes"]) / steps
    cpu = sum(cpu1[k] - cpu0[k] for k in ("used_cpu_user", "used_cpu_sys")) / steps
    line = (f"cost {label} replicas={replicas}: {trips:.2f} round trips/step, {got_in / 1024:.1f} KiB to Redis/step, "
            f"{got_out / 1024:.1f} KiB from Redis/step, Redis CPU {cpu * 1e6:.0f} µs/step ({steps} steps)")
    if pickled:
        line += f"; the whole state pickled (the old per-step write): {pickled / steps / 1024:.1f} KiB/step"
    print(line, flush=True)


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def steps_per_second(store: str, replicas: int, runs: list[list[Step]], clients: int, redis_pid: int | None = None) -> float:
    """Steps/s of ``runs`` through ``replicas`` ``plateau serve`` processes on ``store``; also
    prints the CPU the replicas, the clients and Redis spent per step."""
    servers = [Server(free_port(), store, "hashing") for _ in range(replicas)]
    try:
        for s in servers:
            s.start()
        targets = [s.target for s in servers]
        queue = list(range(len(runs)))
        lock = threading.Lock()

        def worker() -> None:
            with Client.remote(targets if len(targets) > 1 else targets[0], timeout=60.0) as client:
                while True:
                    with lock:
                        if not queue:
                            return
                        k = queue.pop()
                    for step in runs[k]:
                        client.observe(f"bench-{k}", step)

        threads = [threading.Thread(target=worker) for _ in range(clients)]
        pids = [s.proc.pid for s in servers if s.proc is not None]
        cpu0 = [_cpu_seconds(p) for p in pids], _cpu_seconds(os.getpid()), _cpu_seconds(redis_pid) if redis_pid else 0.0
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
        n = sum(len(r) for r in runs)
        replica_cpu = sum(_cpu_seconds(p) for p in pids) - sum(cpu0[0])
        client_cpu = _cpu_seconds(os.getpid()) - cpu0[1]
        redis_cpu = (_cpu_seconds(redis_pid) - cpu0[2]) if redis_pid else 0.0
        print(f"  {replicas} replica(s) on {store.split(':')[0]}: CPU per step: replicas {replica_cpu / n * 1000:.2f} ms, "
              f"clients {client_cpu / n * 1000:.2f} ms, Redis {redis_cpu / n * 1000:.2f} ms; "
              f"Redis busy {redis_cpu / elapsed * 100:.0f}% of one core", flush=True)
        return n / elapsed
    finally:
        for s in servers:
            s.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=120, help="runs per throughput measurement (default %(default)s)")
    parser.add_argument("--steps", type=int, default=20, help="steps per run (default %(default)s)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent client threads (default %(default)s)")
    args = parser.parse_args(argv)
    if not (1 <= args.runs <= 2000 and 1 <= args.steps <= 200 and 1 <= args.clients <= 128):
        parser.error("--runs 1..2000, --steps 1..200, --clients 1..128")
    print(f"machine: {os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    small = [make_run(1000 + k, args.steps) for k in range(20)]
    large = [large_run(k, args.steps) for k in range(4)]
    for replicas in (1, 2):
        cost_per_step(small, replicas, "load-test")
    for replicas in (1, 2):
        cost_per_step(large, replicas, "large")
    runs = [make_run(k, args.steps) for k in range(args.runs)]
    rates: dict[str, float] = {}
    rates["memory, 1 replica"] = steps_per_second("memory", 1, runs, args.clients)
    with RedisProcess() as server:
        rates["redis, 1 replica"] = steps_per_second(server.url, 1, runs, args.clients, server.proc.pid)
    with RedisProcess() as server:
        rates["redis, 2 replicas"] = steps_per_second(server.url, 2, runs, args.clients, server.proc.pid)
    for name, rate in rates.items():
        print(f"steps/s {name}: {rate:.0f}", flush=True)
    print(f"ratio redis/memory at 1 replica: {rates['redis, 1 replica'] / rates['memory, 1 replica']:.2f}; "
          f"2 replicas / 1 replica on redis: {rates['redis, 2 replicas'] / rates['redis, 1 replica']:.2f}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
