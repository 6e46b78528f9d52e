#!/usr/bin/env python3
"""Benchmark of the stream guard: microseconds per chunk against the stream's length, and against hermes' line window.

Two kinds of stream, each at total lengths of 10 KB, 100 KB and 1 MB, cut into chunks of 4-40
characters (seeded; the size of real server-sent deltas):

``prose+code``
    Ordinary text generated offline from a seeded source: paragraphs from a word-level
    sampler over a built-in vocabulary (sentence templates, random slots, numbers), and
    Python-like code blocks with varying names, arguments and bodies. It never repeats
    verbatim, so the guard keeps analysing every character (the expensive case).
``degenerate``
    A paragraph of that text, then a sentence repeated verbatim for the rest of the stream:
    the guard fires after a few hundred characters and is fed on past the fire (a client that
    keeps sending).

Each stream is fed, slice by slice, to a :class:`~plateau.stream.StreamGuard` and to the
hermes-agent line-window guard ported in :class:`bench.baselines.LineWindow` (the simplest
guard in use), timed separately in the same run. The output says whether the guard's per-block
modules run compiled (``plateau.stream.COMPILED``, ``setup.py``) and gives the load average. The script prints the ratio of their costs per
chunk on ``prose+code`` -- the common path, text that does not loop -- at every length; the
target is at most 2.0.

Every length gets the same total work (1 MB: 100 streams of 10 KB, 10 of 100 KB, one of
1 MB), timed with the process CPU clock and fed in interleaved 10 KB slices (one slice of each
length in turn), so that the per-chunk costs compare fairly on a busy machine. The incremental
claim is that the per-chunk cost does not grow with the stream: the ratio
``cost(1 MB) / cost(10 KB)`` should stay at or below 1.5 for both kinds.

Usage::

    python scripts/bench_stream.py            # table
    python scripts/bench_stream.py --json     # one JSON object
    python scripts/bench_stream.py --quick    # 1/10 of the work (smoke test)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.baselines.line_window import LineWindow  # noqa: E402
from plateau.stream import COMPILED, StreamGuard  # noqa: E402

SIZES = (10_000, 100_000, 1_000_000)
BUDGET = 1_000_000  # characters of work per (kind, size) cell

_SUBJECTS = (
    "the parser the cache the request the scheduler the worker the session the index the queue "
    "the config the report the handler the client the server the record the table the branch "
    "the commit the function the thread the socket the payload the window the counter the metric "
    "the header the router the channel the pipeline the service the account the invoice the ledger "
    "the tenant the cluster the replica the migration the snapshot the token the encoder the model"
).split(" the ")
_VERBS = (
    "reads writes checks builds parses loads stores sends returns updates validates merges splits "
    "rewrites logs drops retries resolves renders caches flushes tracks compares rejects accepts "
    "schedules batches streams indexes hashes signs verifies compresses"
).split()
_ADJS = (
    "stale fresh empty full broken valid invalid slow fast remote local nested shared private "
    "public partial final initial optional missing extra duplicate ordered sparse dense cold warm"
).split()
_ADVS = "quickly carefully twice again early late silently eventually rarely often lazily".split()
_LINKS = "and but so because while although since unless whereas then after before".split()
_OPENERS = (
    "First, Next, Then, However, In practice, As a result, Meanwhile, For example, In short, "
    "Finally, Otherwise, On the other hand, By default, In this case, After that,"
).split(", ")


def _clause(rng: random.Random) -> str:
    subj = rng.choice(_SUBJECTS).strip()
    subj = subj if subj.startswith("the ") else "the " + subj
    obj = rng.choice(_SUBJECTS).strip().removeprefix("the ")
    words = [subj, rng.choice(_VERBS), rng.choice(("the", "a", "every", "one", "each")), rng.choice(_ADJS), obj]
    if rng.random() < 0.4:
        words.append(rng.choice(_ADVS))
    if rng.random() < 0.3:
        words.append(f"in {rng.randint(2, 9999)} ms")
    return " ".join(words)


def prose_paragraph(rng: random.Random) -> str:
    """One paragraph of sampled prose (3-7 sentences of 1-3 linked clauses)."""
    sentences = []
    for _ in range(rng.randint(3, 7)):
        clauses = [_clause(rng) for _ in range(rng.randint(1, 3))]
        text = clauses[0]
        for c in clauses[1:]:
            text += f" {rng.choice(_LINKS)} {c}"
        if rng.random() < 0.3:
            text = f"{rng.choice(_OPENERS)}, {text}"
        sentences.append(text[0].upper() + text[1:] + rng.choice((".", ".", ".", "?", "!")))
    return " ".join(sentences) + "\n\n"


def code_block(rng: random.Random) -> str:
    """One Python-like function with varying names, arguments and body."""
    name = f"{rng.choice(_VERBS)}_{rng.choice(_ADJS)}_{rng.randint(0, 99_999)}"
    args = ", ".join(f"{rng.choice(_ADJS)}_{i}" for i in range(rng.randint(1, 4)))
    lines = ["```python", f"def {name}({args}):", f'    """{_clause(rng).capitalize()}."""']
    for _ in range(rng.randint(2, 8)):
        var = f"{rng.choice(_ADJS)}_{rng.randint(0, 999)}"
        form = rng.random()
        if form < 0.4:
            lines.append(f"    {var} = {rng.choice(_VERBS)}({rng.randint(0, 9999)}, key={rng.choice(_ADJS)!r})")
        elif form < 0.7:
            lines.append(f"    if {var} > {rng.randint(0, 500)}:\n        {var} -= {rng.randint(1, 50)}")
        else:
            lines.append(f"    for item_{rng.randint(0, 99)} in range({rng.randint(2, 300)}):\n        log.debug({var!r})")
    lines.append(f"    return {rng.choice(_ADJS)}_{rng.randint(0, 999)}")
    lines.append("```\n\n")
    return "\n".join(lines)


def ordinary_text(rng: random.Random, n_chars: int) -> str:
    """Seeded prose and code, ``n_chars`` long, with no verbatim loop."""
    parts: list[str] = []
    size = 0
    while size < n_chars:
        part = prose_paragraph(rng) if rng.random() < 0.7 else code_block(rng)
        parts.append(part)
        size += len(part)
    return "".join(parts)[:n_chars]


def degenerate_text(rng: random.Random, n_chars: int) -> str:
    """A paragraph, then one sentence repeated verbatim up to ``n_chars``."""
    head = prose_paragraph(rng)
    unit = prose_paragraph(rng).split(". ")[0] + ". "
    return (head + unit * (n_chars // len(unit) + 1))[:n_chars]


def chunks(text: str, rng: random.Random, low: int = 4, high: int = 40) -> Iterator[str]:
    """Cut ``text`` into chunks of ``low``..``high`` characters."""
    i = 0
    while i < len(text):
        n = rng.randint(low, high)
        yield text[i : i + n]
        i += n


@dataclass
class _Cell:
    """The streams of one (kind, size) cell and the CPU time spent feeding them."""

    size: int
    streams: list[list[str]]
    cpu: float = 0.0
    cpu_line_window: float = 0.0
    chunks: int = 0
    fired: int = 0


def measure(kind: str, sizes: tuple[int, ...], budget: int, seed: int) -> list[dict[str, float | int | str]]:
    """CPU microseconds per chunk of ``kind`` streams at each of ``sizes``.

    Each size gets ``budget`` characters of work: ``budget // size`` streams of ``size``
    characters, each fed to a fresh guard. The cells are fed in interleaved slices of
    ``min(sizes)`` characters (one slice of every cell in turn), so that a change in the load
    of the machine hits every size alike.
    """
    make = ordinary_text if kind == "prose+code" else degenerate_text
    slice_chars = min(sizes)
    cells: list[_Cell] = []
    for size in sizes:
        streams = []
        for s in range(max(1, budget // size)):
            rng = random.Random(f"{seed}-{kind}-{size}-{s}")
            streams.append(list(chunks(make(rng, size), rng)))
        cells.append(_Cell(size, streams))
    # Slices (stream index, first chunk, end chunk) of each cell, in feeding order.
    plans: list[list[tuple[int, int, int]]] = []
    for cell in cells:
        plan = []
        for j, pieces in enumerate(cell.streams):
            start = 0
            acc = 0
            for i, piece in enumerate(pieces):
                acc += len(piece)
                if acc >= slice_chars or i == len(pieces) - 1:
                    plan.append((j, start, i + 1))
                    start = i + 1
                    acc = 0
        plans.append(plan)
    guards: list[dict[int, StreamGuard]] = [{} for _ in cells]
    windows: list[dict[int, LineWindow]] = [{} for _ in cells]
    for step in range(max(len(p) for p in plans)):
        for c, cell in enumerate(cells):
            if step >= len(plans[c]):
                continue
            j, lo, hi = plans[c][step]
            guard = guards[c].get(j)
            if guard is None:
                guard = guards[c][j] = StreamGuard("content")
            window = windows[c].get(j)
            if window is None:
                window = windows[c][j] = LineWindow()
            pieces = cell.streams[j][lo:hi]
            feed = guard.feed
            t0 = time.process_time()
            for piece in pieces:
                feed(piece)
            cell.cpu += time.process_time() - t0
            wfeed = window.feed
            t0 = time.process_time()
            for piece in pieces:
                wfeed(piece)
            cell.cpu_line_window += time.process_time() - t0
            cell.chunks += len(pieces)
            if hi == len(cell.streams[j]):
                cell.fired += guard.fired
                del guards[c][j]
                del windows[c][j]
    return [
        {
            "kind": kind,
            "chars": cell.size,
            "streams": len(cell.streams),
            "chunks": cell.chunks,
            "fired_streams": cell.fired,
            "us_per_chunk": cell.cpu / cell.chunks * 1e6,
            "us_per_char": cell.cpu / (len(cell.streams) * cell.size) * 1e6,
            "line_window_us_per_chunk": cell.cpu_line_window / cell.chunks * 1e6,
            "ratio_vs_line_window": cell.cpu / max(cell.cpu_line_window, 1e-9),
        }
        for cell in cells
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--quick", action="store_true", help="a tenth of the work per cell (smoke test)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated streams (default 0)")
    args = parser.parse_args(argv)
    budget = BUDGET // 10 if args.quick else BUDGET
    sizes = tuple(s for s in SIZES if s <= budget)
    rows = [row for kind in ("prose+code", "degenerate") for row in measure(kind, sizes, budget, args.seed)]
    ratios = {}
    for kind in ("prose+code", "degenerate"):
        cost = {r["chars"]: float(r["us_per_chunk"]) for r in rows if r["kind"] == kind}
        ratios[kind] = cost[sizes[-1]] / cost[sizes[0]]
    common = [float(r["ratio_vs_line_window"]) for r in rows if r["kind"] == "prose+code"]
    result = {
        "ratio_vs_line_window": max(common),
        "ratio_vs_line_window_ok": max(common) <= 2.0,
        "chunk_chars": [4, 40],
        "budget_chars_per_cell": budget,
        "rows": rows,
        "ratio_largest_over_smallest": ratios,
        "incremental_ok": all(r <= 1.5 for r in ratios.values()),
        "compiled": COMPILED,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(
        f"{'kind':<12} {'chars':>9} {'streams':>7} {'chunks':>8} {'fired':>5} {'us/chunk':>9} {'us/char':>8}"
        f" {'line-window us/chunk':>20} {'ratio':>6}"
    )
    for r in rows:
        print(
            f"{r['kind']:<12} {r['chars']:>9,} {r['streams']:>7} {r['chunks']:>8,} {r['fired_streams']:>5}"
            f" {r['us_per_chunk']:>9.2f} {r['us_per_char']:>8.3f} {r['line_window_us_per_chunk']:>20.2f}"
            f" {r['ratio_vs_line_window']:>6.2f}"
        )
    print(
        f"stream guard: {'compiled (mypyc)' if COMPILED else 'pure Python'}; load average"
        f" {' '.join(f'{x:.2f}' for x in result['load_average'])} (1, 5, 15 min) on {result['cpus']} CPUs"
    )
    for kind, ratio in ratios.items():
        print(f"ratio {kind}: cost per chunk at {sizes[-1]:,} / {sizes[0]:,} chars = {ratio:.2f}")
    print("incremental (ratio <= 1.5):", "yes" if result["incremental_ok"] else "NO")
    print(
        f"ratio vs line-window (prose+code, worst length): {result['ratio_vs_line_window']:.2f}"
        f" (target <= 2.0: {'yes' if result['ratio_vs_line_window_ok'] else 'NO'})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
