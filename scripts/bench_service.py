"""Benchmark the Plateau service: a real server on loopback, N concurrent remote agents.

Usage::

    .venv/bin/python scripts/bench_service.py                 # N = 1, 8, 32; table on stdout
    .venv/bin/python scripts/bench_service.py --json          # one JSON object (``ratio`` = N=32)
    .venv/bin/python scripts/bench_service.py --quick         # a smoke run (N = 1, 2; few steps)
    .venv/bin/python scripts/bench_service.py --torch-threads 1   # the server with plateau serve --torch-threads 1
    .venv/bin/python scripts/bench_service.py --backend torch     # server and raw reference on torch (default: onnx)

What it does, in one process run:

1. Starts ``plateau serve --host 127.0.0.1 --port 0`` as a child process (the real server:
   grpc.aio, the micro-batching embedder, the embedding cache, all-MiniLM-L6-v2 on the CPU)
   and waits until it listens. Agents are threads of this process, each with its own gRPC
   channel, sending one step per unary ``Observe`` call and timing it (latency = call start to
   verdict received, client side).
2. For each N: N agents run N fresh runs concurrently; all steps of the configuration are
   distinct, realistic agent steps (text + tool + args + result) from a seeded generator, and
   no text repeats within or across configurations, so the server's embedding cache never
   hits. Reported: steps/s (steps / wall time from the first send to the last verdict), p50
   and p99 latency.
3. Next to the service, with the server idle, the **raw** reference on the same steps:
   ``model.encode`` in this process on exactly the texts the engine embeds for them
   (:meth:`plateau.engine.Engine.embed_inputs`: the step's text and its tool call + result,
   two texts per step), (a) one step at a time (``encode([text, call])``, what one agent alone
   costs) and (b) in batches of 64 texts (the service's ``BatchingEmbedder`` limit: the best a
   raw loop can do). ``ratio`` = service steps/s ÷ raw batched steps/s; the ratio to the
   one-step raw loop is reported too. Service and raw alternate over ``--rounds`` successive
   slices of the configuration's steps in A-B, B-A order (service first in even rounds, raw
   first in odd ones), so a steady drift of the machine's load cancels out of the ratio.
4. A cached run: the largest configuration's steps sent again under new run ids (every text
   is then served from the cache), reported separately.
5. Resident memory per idle run, in a *fresh* server (memory that earlier phases freed but
   kept would otherwise absorb the new runs): its RSS (``/proc/PID/status``) after one
   step, then after ``--idle-runs`` new runs of one step each (a short fixed text, so they
   cost no model time), the difference divided by their number.

Everything is bounded: ``--steps`` per configuration, ``--max-seconds`` of service time per
configuration (agents stop sending at the deadline and the raw reference encodes only the
steps that were sent), and a timeout on every call. Nothing but 127.0.0.1 is reached. The machine's load
average is printed: on a shared machine the absolute figures move, the ratios much less
(service and raw are measured back to back on the same texts).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

__all__ = ["StepGenerator", "main"]

#: Texts per raw batch: the service's BatchingEmbedder default ``max_batch``.
RAW_BATCH = 64


# ----------------------------------------------------------------------------------------
# realistic, unique agent steps
# ----------------------------------------------------------------------------------------

_MODULES = ["billing", "auth", "storage", "scheduler", "ingest", "search", "checkout", "reports", "notify", "geo",
            "payments", "inventory", "orders", "profile", "metrics", "gateway", "cache", "exporter", "importer", "audit"]
_FILES = ["handlers", "models", "client", "utils", "config", "service", "views", "tasks", "schema", "retry", "pool",
          "serializers", "queue", "middleware", "parser", "worker", "cli", "router", "store", "limits"]
_FUNCS = ["load", "parse", "refresh", "resolve", "dispatch", "flush", "validate", "merge", "render", "compute",
          "retry", "close", "open", "fetch", "apply", "reconcile", "normalize", "encode", "decode", "schedule"]
_NOUNS = ["timeout", "connection pool", "retry budget", "cursor", "session", "token", "batch size", "index",
          "lock", "checksum", "offset", "migration", "fixture", "cache key", "rate limit", "deadline", "buffer",
          "partition", "webhook", "feature flag"]
_ERRORS = ["KeyError", "TypeError", "ValueError", "AssertionError", "TimeoutError", "ConnectionResetError",
           "IntegrityError", "AttributeError", "IndexError", "PermissionError"]
_VERBS = ["check", "inspect", "trace", "compare", "re-read", "verify", "narrow down", "confirm", "look at", "measure"]
_FINDINGS = ["is never released on the error path", "is read before it is initialised", "is shared between threads",
             "uses the wrong unit (ms instead of s)", "is rebuilt on every request", "is compared as a string",
             "silently drops the last element", "is cached with a stale key", "ignores the caller's deadline",
             "is off by one at the page boundary", "retries without backoff", "swallows the original exception"]
_TOOLS = ["read_file", "run_tests", "grep", "edit_file", "shell", "web_search", "fetch_url", "sql_query"]


class StepGenerator:
    """Seeded generator of realistic agent steps whose texts never repeat.

    Each step has a ``text`` of two to four sentences (what the agent says it does and why),
    a ``tool`` with ``args`` and a ``result`` of 8-20 lines (a file excerpt, test output, search
    hits, query rows, a log tail) -- roughly 300-1,200 characters per embedded text, so both
    texts land near MiniLM's 256-word-piece limit like real steps do. Every step carries
    details drawn at random (paths, line numbers, ids, values) and a running serial, and the
    generator checks that no embedded text ever repeats.

    Parameters
    ----------
    seed
        Seed of the pseudo-random generator (same seed, same steps).
    """

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._rng = random.Random(seed)
        self._serial = 0
        self._seen: set[str] = set()

    def _path(self) -> str:
        r = self._rng
        return f"src/{r.choice(_MODULES)}/{r.choice(_FILES)}.py"

    def _text(self, tool: str, path: str, line: int) -> str:
        r = self._rng
        noun, finding = r.choice(_NOUNS), r.choice(_FINDINGS)
        func = f"{r.choice(_FUNCS)}_{r.choice(_NOUNS).replace(' ', '_')}"
        sentences = [
            f"Step {self._serial}: I want to {r.choice(_VERBS)} how `{func}` in {path} handles the {noun}.",
            f"My current hypothesis is that the {noun} {finding}, which would explain the {r.choice(_ERRORS)} "
            f"seen in job {r.randrange(10**6, 10**7)} at {r.randrange(24):02d}:{r.randrange(60):02d} UTC.",
        ]
        if r.random() < 0.7:
            sentences.append(f"Around line {line} the {r.choice(_NOUNS)} is passed through {r.randrange(2, 9)} layers, "
                             f"so I will {r.choice(_VERBS)} each caller before changing anything.")
        if r.random() < 0.5:
            sentences.append(f"Using `{tool}` next; if it shows the {r.choice(_NOUNS)} is fine, the next suspect is "
                             f"{self._path()}.")
        return " ".join(sentences)

    def _result(self, tool: str, path: str, line: int) -> str:
        r = self._rng
        n = r.randrange(8, 20)
        if tool == "run_tests":
            rows = [f"tests/{r.choice(_MODULES)}/test_{r.choice(_FILES)}.py::test_{r.choice(_FUNCS)}_{r.randrange(1000)} "
                    f"{r.choice(['PASSED', 'PASSED', 'PASSED', 'FAILED'])} [{r.randrange(1, 100)}%]" for _ in range(n)]
            rows.append(f"==== {r.randrange(1, 9)} failed, {r.randrange(50, 400)} passed in {r.uniform(1, 90):.2f}s ====")
        elif tool in ("grep", "web_search"):
            rows = [f"{self._path()}:{r.randrange(1, 900)}: {r.choice(_FUNCS)}(self.{r.choice(_NOUNS).replace(' ', '_')}, "
                    f"{r.randrange(10**4)})" for _ in range(n)]
        elif tool == "sql_query":
            rows = ["id | status | amount | updated_at"] + [
                f"{r.randrange(10**7)} | {r.choice(['open', 'paid', 'void', 'late'])} | {r.uniform(1, 9999):.2f} | "
                f"2024-{r.randrange(1, 13):02d}-{r.randrange(1, 29):02d}T{r.randrange(24):02d}:{r.randrange(60):02d}Z"
                for _ in range(n)]
        elif tool == "shell":
            rows = [f"{r.randrange(24):02d}:{r.randrange(60):02d}:{r.randrange(60):02d} {r.choice(['INFO', 'WARN', 'ERROR'])} "
                    f"{r.choice(_MODULES)}.{r.choice(_FILES)}: {r.choice(_NOUNS)} {r.choice(_FINDINGS)} "
                    f"(req={r.randrange(16**8):08x})" for _ in range(n)]
        else:
            rows = []
            for k in range(n):
                ln = line + k
                rows.append(f"{ln:5d}  {' ' * (4 * r.randrange(1, 4))}{r.choice(_NOUNS).replace(' ', '_')} = "
                            f"{r.choice(_FUNCS)}({r.choice(_NOUNS).replace(' ', '_')}, {r.randrange(10**5)})")
        return "\n".join(rows)

    def step(self) -> dict[str, Any]:
        """The next step as a docs/format.md step dict (``text``, ``tool``, ``args``, ``result``)."""
        from plateau.types import Step

        engine = _embed_view()
        while True:
            r = self._rng
            self._serial += 1
            tool = r.choice(_TOOLS)
            path = self._path()
            line = r.randrange(1, 800)
            data = {
                "text": self._text(tool, path, line),
                "tool": tool,
                "args": {"path": path, "line": line, "query": f"{r.choice(_FUNCS)} {r.choice(_NOUNS)}", "n": self._serial},
                "result": self._result(tool, path, line),
            }
            texts = [t for t in engine.embed_inputs(Step.from_dict(data, 0)) if t is not None]
            if not any(t in self._seen for t in texts):
                self._seen.update(texts)
                return data
            # a repeat (practically never: every step carries its serial): draw again

    def steps(self, n: int) -> list[dict[str, Any]]:
        """The next ``n`` steps."""
        return [self.step() for _ in range(n)]


_VIEW: Any = None


def _embed_view() -> Any:
    """An engine used only for :meth:`~plateau.engine.Engine.embed_inputs` (no model loaded)."""
    global _VIEW
    if _VIEW is None:
        from plateau.embed import HashingEmbedder
        from plateau.engine import Engine

        _VIEW = Engine(embedder=HashingEmbedder())
    return _VIEW


def embedded_texts(steps: Sequence[dict[str, Any]]) -> list[list[str]]:
    """Per step, the texts the engine embeds for it (its text; its tool call + result)."""
    from plateau.types import Step

    view = _embed_view()
    return [[t for t in view.embed_inputs(Step.from_dict(s, i)) if t is not None] for i, s in enumerate(steps)]


# ----------------------------------------------------------------------------------------
# the server (a child process) and the agents (threads)
# ----------------------------------------------------------------------------------------


class ServerProcess:
    """``plateau serve`` on 127.0.0.1 with a free port, as a child process.

    Parameters
    ----------
    model
        ``--model`` for the server (``None``: all-MiniLM-L6-v2).
    timeout
        Seconds to wait for the server to listen.
    extra
        More ``plateau serve`` options (``--store memory``, limits).
    """

    def __init__(self, model: str | None = None, timeout: float = 180.0, extra: Sequence[str] = ()) -> None:
        self.model = model
        self.timeout = timeout
        self.extra = list(extra)
        self.proc: subprocess.Popen[str] | None = None
        self.target = ""
        self.log: list[str] = []

    def start(self) -> ServerProcess:
        cmd = [sys.executable, "-m", "plateau.cli", "serve", "--host", "127.0.0.1", "--port", "0"]
        if self.model:
            cmd += ["--model", self.model]
        cmd += self.extra
        env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        ready = threading.Event()

        def drain() -> None:
            assert self.proc is not None and self.proc.stderr is not None
            for line in self.proc.stderr:
                self.log.append(line.rstrip())
                del self.log[:-200]
                if "serving plateau.v1.Plateau on " in line:
                    self.target = line.rsplit(" on ", 1)[1].strip()
                    ready.set()
            ready.set()

        threading.Thread(target=drain, name="server-stderr", daemon=True).start()
        if not ready.wait(self.timeout) or not self.target:
            self.stop()
            raise RuntimeError("the server did not start:\n" + "\n".join(self.log[-20:]))
        return self

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def rss_bytes(self) -> int:
        """The server's resident set size, from ``/proc/PID/status`` (bytes)."""
        return _rss(self.pid)

    def stop(self) -> None:
        """SIGTERM (graceful shutdown), then SIGKILL after 30 s."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _rss(pid: int | str = "self") -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS in /proc/{pid}/status")


@dataclass
class _AgentResult:
    latencies: list[float] = field(default_factory=list)
    error: BaseException | None = None


def drive(target: str, runs: Sequence[Sequence[dict[str, Any]]], prefix: str, deadline_s: float) -> tuple[float, list[float], list[int]]:
    """Run one agent thread per run, all at once; each sends its steps in order, one call each.

    Parameters
    ----------
    target
        ``host:port`` of the server.
    runs
        Per agent, its steps (docs/format.md dicts).
    prefix
        Run ids are ``{prefix}-{k}``.
    deadline_s
        Agents stop sending new steps this many seconds after the start.

    Returns
    -------
    (wall seconds, latencies in seconds, steps sent by each agent)
    """
    from plateau.client import Client
    from plateau.types import Step

    results = [_AgentResult() for _ in runs]
    clients = [Client.remote(target, timeout=120.0) for _ in runs]
    start_gate = threading.Barrier(len(runs) + 1)
    t0 = [0.0]

    def agent(k: int) -> None:
        res = results[k]
        try:
            start_gate.wait()
            for i, data in enumerate(runs[k]):
                if time.perf_counter() - t0[0] > deadline_s:
                    break
                step = Step.from_dict(data, i)
                s = time.perf_counter()
                clients[k].observe(f"{prefix}-{k}", step)
                res.latencies.append(time.perf_counter() - s)
        except BaseException as exc:  # reported below
            res.error = exc

    threads = [threading.Thread(target=agent, args=(k,), name=f"agent-{k}") for k in range(len(runs))]
    for th in threads:
        th.start()
    t0[0] = time.perf_counter()
    start_gate.wait()
    for th in threads:
        th.join()
    wall = time.perf_counter() - t0[0]
    for c in clients:
        c.close()
    for res in results:
        if res.error is not None:
            raise RuntimeError(f"an agent failed: {res.error!r}") from res.error
    latencies = [x for res in results for x in res.latencies]
    return wall, latencies, [len(res.latencies) for res in results]


def _pct(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of ``values``, linear interpolation."""
    xs = sorted(values)
    if not xs:
        return float("nan")
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


# ----------------------------------------------------------------------------------------
# the raw reference
# ----------------------------------------------------------------------------------------


def raw_per_step(model: Any, per_step: Sequence[Sequence[str]]) -> float:
    """Seconds to encode each step's texts in its own ``encode`` call, step after step."""
    t = time.perf_counter()
    for texts in per_step:
        model.encode(list(texts))
    return time.perf_counter() - t


def raw_batched(model: Any, per_step: Sequence[Sequence[str]], batch: int = RAW_BATCH) -> float:
    """Seconds to encode all the steps' texts in ``encode`` calls of ``batch`` texts."""
    flat = [t for texts in per_step for t in texts]
    t = time.perf_counter()
    for i in range(0, len(flat), batch):
        model.encode(flat[i : i + batch])
    return time.perf_counter() - t


# ----------------------------------------------------------------------------------------
# the benchmark
# ----------------------------------------------------------------------------------------


@dataclass
class ConfigResult:
    """One configuration's figures (rates in steps/s, latencies in ms)."""

    clients: int
    steps: int
    wall_s: float
    steps_per_s: float
    p50_ms: float
    p99_ms: float
    raw_step_steps_per_s: float | None = None
    raw_batched_steps_per_s: float | None = None
    ratio_vs_raw_step: float | None = None
    ratio: float | None = None
    texts_per_step: float = 0.0
    chars_per_step: float = 0.0
    rounds: int = 1


def _split(steps: Sequence[dict[str, Any]], n: int) -> list[list[dict[str, Any]]]:
    per = -(-len(steps) // n)
    return [list(steps[k * per : (k + 1) * per]) for k in range(n) if steps[k * per : (k + 1) * per]]


def _log(msg: str) -> None:
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def _measure_config(
    args: argparse.Namespace, server: ServerProcess, model: Any, gen: StepGenerator, n: int
) -> tuple[ConfigResult, list[dict[str, Any]]]:
    """One configuration: ``args.rounds`` rounds of (service, then raw on the same steps)."""
    steps = gen.steps(max(args.steps, n))
    rounds = max(1, min(args.rounds, len(steps) // n))
    size = -(-len(steps) // rounds)
    _log(f"N={n}: {len(steps)} unique steps over {n} concurrent agents, {rounds} round(s) alternating service/raw and raw/service")
    wall = t_step = t_batch = 0.0
    raw_count = 0  # steps the raw reference encoded (rates are per step, so counts may differ)
    latencies: list[float] = []
    sent_steps: list[dict[str, Any]] = []
    for r in range(rounds):
        left = args.max_seconds - wall
        if left <= 0:
            break
        chunk = steps[r * size : (r + 1) * size]
        runs = _split(chunk, n)
        raw_first = r % 2 == 1 and not args.no_raw  # A-B, B-A: a steady drift in load cancels out
        if raw_first:
            per_step = embedded_texts(chunk)
            t_step += raw_per_step(model, per_step)
            t_batch += raw_batched(model, per_step)
            raw_count += len(per_step)
        w, lat, counts = drive(server.target, runs, f"bench-n{n}-r{r}", left)
        sent = [s for run, c in zip(runs, counts, strict=True) for s in run[:c]]
        wall += w
        latencies += lat
        sent_steps += sent
        if not raw_first and not args.no_raw and sent:
            per_step = embedded_texts(sent)
            t_step += raw_per_step(model, per_step)
            t_batch += raw_batched(model, per_step)
            raw_count += len(per_step)
    per_step = embedded_texts(sent_steps)
    count = len(sent_steps)
    res = ConfigResult(
        clients=n, steps=count, wall_s=round(wall, 3), steps_per_s=round(count / wall, 2),
        p50_ms=round(_pct(latencies, 50) * 1000, 1), p99_ms=round(_pct(latencies, 99) * 1000, 1),
        texts_per_step=round(sum(map(len, per_step)) / max(1, count), 2),
        chars_per_step=round(sum(len(t) for ts in per_step for t in ts) / max(1, count), 1),
        rounds=rounds,
    )
    if not args.no_raw and count and raw_count:
        res.raw_step_steps_per_s = round(raw_count / t_step, 2)
        res.raw_batched_steps_per_s = round(raw_count / t_batch, 2)
        res.ratio_vs_raw_step = round((count / wall) / (raw_count / t_step), 3)
        res.ratio = round((count / wall) / (raw_count / t_batch), 3)
    _log(f"N={n}: {res.steps_per_s} steps/s, p50 {res.p50_ms} ms, p99 {res.p99_ms} ms; raw {res.raw_step_steps_per_s} (1-step) "
         f"/ {res.raw_batched_steps_per_s} (batched) steps/s; ratio {res.ratio}")
    return res, sent_steps


def _measure_memory(args: argparse.Namespace) -> dict[str, Any]:
    """RSS per idle run, in a fresh server (so memory freed by earlier phases cannot hide it)."""
    from plateau.client import Client
    from plateau.types import Step

    idle = {"text": "Checking whether the deployment finished.", "tool": "kubectl",
            "args": {"cmd": "rollout status deploy/api"}, "result": "deployment \"api\" successfully rolled out"}
    _log(f"memory: a fresh server, then {args.idle_runs:,} idle runs of one step each")
    backend = ["--backend", args.backend] if args.backend else []
    extra = ["--store", args.store, "--max-runs-per-tenant", str(args.idle_runs + 100), *backend, *_torch_args(args)]
    with ServerProcess(args.model, extra=extra) as server:
        with Client.remote(server.target, timeout=120.0) as client:
            client.observe("idle-warm", Step.from_dict(idle, 0))  # loads the model, fills the cache
        time.sleep(0.5)
        before = server.rss_bytes()
        workers = 8
        errors: list[BaseException] = []

        def create(k: int) -> None:
            try:
                with Client.remote(server.target, timeout=120.0) as client:
                    for i in range(k, args.idle_runs, workers):
                        client.observe(f"idle-{i}", Step.from_dict(idle, 0))
            except BaseException as exc:  # reported below
                errors.append(exc)

        t = time.perf_counter()
        threads = [threading.Thread(target=create, args=(k,)) for k in range(workers)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        if errors:
            raise RuntimeError(f"creating idle runs failed: {errors[0]!r}") from errors[0]
        took = time.perf_counter() - t
        time.sleep(0.5)
        after = server.rss_bytes()
    return {
        "idle_runs": args.idle_runs,
        "store": args.store,
        "rss_before_mb": round(before / 2**20, 1),
        "rss_after_mb": round(after / 2**20, 1),
        "per_run_kb": round((after - before) / args.idle_runs / 1024, 2),
        "create_steps_per_s": round(args.idle_runs / took, 1),
    }


def run_bench(args: argparse.Namespace) -> dict[str, Any]:
    """Run the whole benchmark; return the report as a JSON-ready dict."""
    from plateau.embed import DEFAULT_BACKEND, model_embedder

    backend = args.backend or DEFAULT_BACKEND
    gen = StepGenerator(args.seed)
    report: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "loadavg_start": [round(x, 2) for x in os.getloadavg()]},
        "settings": {"clients": args.clients, "steps": args.steps, "rounds": args.rounds, "max_seconds": args.max_seconds,
                     "seed": args.seed, "idle_runs": args.idle_runs, "raw_batch": RAW_BATCH, "store": args.store,
                     "server_torch_threads": args.torch_threads, "backend": backend},
    }
    _log("starting the server (plateau serve on 127.0.0.1, port 0) and loading the model here for the raw reference")
    with ServerProcess(args.model, extra=["--store", args.store, "--backend", backend, *_torch_args(args)]) as server:
        model = model_embedder(backend, args.model).load()
        report["model"] = model.name
        report["server"] = {"pid": server.pid, "target": server.target}
        # Warm-up: the server's first forward passes and this process's, not measured.
        warm = gen.steps(args.warmup_steps)
        drive(server.target, [warm], "warmup", args.max_seconds)
        raw_per_step(model, embedded_texts(warm))
        report["server"]["rss_after_warmup_mb"] = round(server.rss_bytes() / 2**20, 1)
        configs: list[ConfigResult] = []
        last_steps: list[dict[str, Any]] = []
        for n in args.clients:
            res, last_steps = _measure_config(args, server, model, gen, n)
            configs.append(res)
        report["configs"] = [asdict(c) for c in configs]
        # Cached: the last configuration's steps again, new runs: every text is a cache hit.
        if configs and not args.no_cached:
            n = configs[-1].clients
            wall, lat, counts = drive(server.target, _split(last_steps, n), f"cached-n{n}", args.max_seconds)
            sent = sum(counts)
            report["cached"] = {"clients": n, "steps": sent, "steps_per_s": round(sent / wall, 2),
                                "p50_ms": round(_pct(lat, 50) * 1000, 1), "p99_ms": round(_pct(lat, 99) * 1000, 1)}
            _log(f"cached N={n}: {report['cached']['steps_per_s']} steps/s")
        report["server"]["rss_end_mb"] = round(server.rss_bytes() / 2**20, 1)
    if args.idle_runs > 0:
        report["memory"] = _measure_memory(args)
    report["machine"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    last = next((c for c in reversed(report["configs"]) if c["clients"] == 32), report["configs"][-1] if report["configs"] else None)
    report["ratio"] = None if last is None else last["ratio"]
    report["ratio_clients"] = None if last is None else last["clients"]
    return report


def format_report(report: dict[str, Any]) -> str:
    """The report as plain text (tables and one line per measurement)."""
    lines = [
        f"Plateau service benchmark: server pid {report['server']['pid']} on {report['server']['target']}, model {report['model']} "
        f"on {report.get('settings', {}).get('backend', 'torch')}, "
        f"{report['machine']['cpus']} CPUs, load average {report['machine']['loadavg_start'][0]} at start, "
        f"{report['machine']['loadavg_end'][0]} at end",
    ]
    cfgs = report["configs"]
    if cfgs:
        c0 = cfgs[0]
        lines.append(f"steps: unique texts (no cache hits), {c0['texts_per_step']} embedded texts per step, "
                     f"{c0['chars_per_step']:.0f} embedded characters per step on average")
        head = ["N", "steps", "service steps/s", "p50 ms", "p99 ms", "raw 1-step steps/s", f"raw batched({RAW_BATCH}) steps/s",
                "service/raw 1-step", "service/raw batched"]
        rows = [[str(c["clients"]), str(c["steps"]), f"{c['steps_per_s']:.2f}", f"{c['p50_ms']:.1f}", f"{c['p99_ms']:.1f}",
                 _f(c["raw_step_steps_per_s"]), _f(c["raw_batched_steps_per_s"]), _f(c["ratio_vs_raw_step"], 3), _f(c["ratio"], 3)]
                for c in cfgs]
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        lines.append("  ".join(h.rjust(w) for h, w in zip(head, widths, strict=True)))
        lines.append("  ".join("-" * w for w in widths))
        lines += ["  ".join(v.rjust(w) for v, w in zip(r, widths, strict=True)) for r in rows]
    if "cached" in report:
        c = report["cached"]
        lines.append(f"cached (N={c['clients']}, the same steps again, every text from the cache): {c['steps_per_s']:.2f} steps/s, "
                     f"p50 {c['p50_ms']:.1f} ms, p99 {c['p99_ms']:.1f} ms")
    if "memory" in report:
        m = report["memory"]
        lines.append(f"memory ({m.get('store', 'memory')} store): server RSS {m['rss_before_mb']:.1f} MB before, "
                     f"{m['rss_after_mb']:.1f} MB after "
                     f"{m['idle_runs']:,} idle runs of one step: {m['per_run_kb']:.2f} KB per run "
                     f"(created at {m['create_steps_per_s']:.0f} runs/s)")
    if report.get("ratio") is not None:
        lines.append(f"ratio (N={report['ratio_clients']}, service steps/s / raw batched model.encode steps/s): {report['ratio']:.3f}")
    return "\n".join(lines) + "\n"


def _torch_args(args: argparse.Namespace) -> list[str]:
    """``--torch-threads N`` for ``plateau serve`` when the benchmark was given one."""
    return [] if args.torch_threads is None else ["--torch-threads", str(args.torch_threads)]


def _f(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _clients(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--clients: a comma-separated list of integers, got {text!r}") from None
    if not values or any(v < 1 or v > 256 for v in values):
        raise argparse.ArgumentTypeError(f"--clients: integers in [1, 256], got {text!r}")
    return values


def build_parser() -> argparse.ArgumentParser:
    """The command line of the benchmark."""
    p = argparse.ArgumentParser(prog="bench_service.py", description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--clients", type=_clients, default=[1, 8, 32], metavar="N,N,...",
                   help="concurrent agents per configuration (default 1,8,32)")
    p.add_argument("--steps", type=int, default=256, help="steps per configuration, split between its agents (default 256)")
    p.add_argument("--rounds", type=int, default=2,
                   help="per configuration, alternate service and raw this many times on successive slices of its steps (default 2)")
    p.add_argument("--max-seconds", type=float, default=180.0,
                   help="agents stop sending new steps after this much service time per configuration (default 180)")
    p.add_argument("--warmup-steps", type=int, default=8, help="unmeasured steps before the first configuration (default 8)")
    p.add_argument("--idle-runs", type=int, default=10_000, help="idle runs created for the memory figure (default 10,000; 0 skips)")
    p.add_argument("--seed", type=int, default=0, help="seed of the step generator (default 0)")
    p.add_argument("--model", metavar="PATH", help="local sentence-transformers folder (default all-MiniLM-L6-v2)")
    p.add_argument("--store", default="memory", metavar="SPEC",
                   help="the server's run store, passed to plateau serve --store (default memory; sqlite:PATH for the durable one)")
    p.add_argument("--backend", choices=("onnx", "torch"),
                   help="embedding backend of the server and of the raw reference (default: Plateau's default, onnx)")
    p.add_argument("--torch-threads", type=int, metavar="N",
                   help="passed to plateau serve --torch-threads (default: torch's own); the raw reference keeps torch's default")
    p.add_argument("--no-raw", action="store_true", help="skip the raw model.encode reference")
    p.add_argument("--no-cached", action="store_true", help="skip the cached run")
    p.add_argument("--quick", action="store_true", help="a smoke run: N = 1,2, 6 steps, 2 warm-up steps, 50 idle runs (overrides those)")
    p.add_argument("--json", action="store_true", help="print one JSON object (its 'ratio' is the N = 32 figure, else the last N)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print a table (or JSON) on stdout, progress on stderr."""
    args = build_parser().parse_args(argv)
    if args.quick:
        args.clients, args.steps, args.warmup_steps, args.idle_runs, args.rounds = [1, 2], 6, 2, 50, 1
    for name in ("steps", "warmup_steps", "rounds"):
        if getattr(args, name) < 1:
            build_parser().error(f"--{name.replace('_', '-')} must be >= 1")
    if args.torch_threads is not None and args.torch_threads < 1:
        build_parser().error("--torch-threads must be >= 1")
    if args.idle_runs < 0 or args.max_seconds <= 0:
        build_parser().error("--idle-runs must be >= 0 and --max-seconds > 0")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    report = run_bench(args)
    if args.json:
        print(json.dumps(report))
    else:
        sys.stdout.write(format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
