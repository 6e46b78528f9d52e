"""``plateau runs`` and ``plateau show`` (registered into the main parser by :func:`register`).

- ``plateau runs [--remote HOST:PORT] [--limit N] [--json]``: the server's runs that the token's
  tenant holds, newest first (``ListRuns``), as a table or one JSON object.
- ``plateau show RUN [--remote HOST:PORT] [--json]``: one run's verdict on every step, with its
  time, state, score, reasons and message (``GetRunHistory``), as a table or one JSON object.

Both talk to a running server (default ``127.0.0.1:50051``, the port of ``plateau serve``) with
``--token`` (or ``$PLATEAU_TOKEN``) and ``--tls-ca``/``--tls-cert``/``--tls-key``
(:func:`plateau.cli.connection_options`, :func:`plateau.cli.remote_client`); ``plateau plot --remote`` uses the same.
Tables are drawn by ``rich`` (:mod:`plateau.tables`; colour only on a terminal).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

__all__ = ["DEFAULT_TARGET", "cmd_runs", "cmd_show", "register"]

#: The server ``runs`` and ``show`` ask when ``--remote`` is not given (``plateau serve``'s default).
DEFAULT_TARGET = "127.0.0.1:50051"

_ACTIONS = ("continue", "steer", "trip")


def _client(args: argparse.Namespace) -> Any:
    from plateau.cli import remote_client

    return remote_client(args, args.remote)


def _when(t: float | None) -> str:
    return "" if t is None else time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t))


def cmd_runs(args: argparse.Namespace) -> int:
    """List the server's runs (this token's tenant's), newest first."""
    with _client(args) as client:
        runs = client.list_runs(limit=args.limit)
    if args.json:
        sys.stdout.write(json.dumps({"target": args.remote, "runs": [r.as_dict() for r in runs]}, ensure_ascii=False) + "\n")
        return 0
    if not runs:
        print(f"no runs on {args.remote}", file=sys.stderr)
        return 0
    from plateau.tables import action_cell, render, table

    rows = table(("run", "steps", "last action", "state", "ended", "last change", "context"),
                 title=f"runs on {args.remote} (newest first; times UTC)", right=("steps",), fold=("run", "context"))
    for r in runs:
        action = r.last_action.value if r.last_action is not None else ""
        rows.add_row(
            r.run_id, str(r.steps), action_cell(action) if action else "", r.state.value,
            _when(r.ended_at) if r.ended else "open", _when(r.updated), (r.context or "")[:60],
        )
    sys.stdout.write(render(rows, sys.stdout))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """Print one run's verdict on every step."""
    with _client(args) as client:
        history = client.run_history(args.run)
    if args.json:
        sys.stdout.write(json.dumps(history.as_dict(), ensure_ascii=False) + "\n")
        return 0
    from plateau.tables import action_cell, render, table

    run = history.run
    counts = {a: sum(1 for v in history.verdicts if v.action.value == a) for a in _ACTIONS}
    title = (
        f"run {run.run_id}: {run.steps} steps ({counts['continue']} continue, {counts['steer']} steer, {counts['trip']} trip); "
        f"state {run.state.value}; {'ended ' + _when(run.ended_at) if run.ended else 'open'}; times UTC"
    )
    rows = table(("step", "time", "action", "state", "score", "reasons", "message"), title=title, right=("step", "score"),
                 fold=("reasons", "message"))
    for s in history.steps:
        v = s.verdict
        rows.add_row(str(v.step_index), _when(s.time), action_cell(v.action.value), v.state.value, f"{v.score:.2f}",
                     ", ".join(v.reasons), v.message or "")
    sys.stdout.write(render(rows, sys.stdout))
    return 0


def register(sub: Any) -> None:
    """Add ``runs`` and ``show`` to ``sub`` (an argparse subparsers action)."""
    from plateau.cli import connection_options

    p = sub.add_parser(
        "runs",
        parents=[connection_options()],
        help="list a server's runs (the token's tenant's), newest first",
        description="List the runs a server holds for the caller's tenant (ListRuns), newest first.",
    )
    p.add_argument("--remote", metavar="TARGET", default=DEFAULT_TARGET, help="the server (default: %(default)s; HOST alone: port 50051)")
    p.add_argument("--limit", type=int, metavar="N", help="at most N runs (default: all)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout: {target, runs: [...]}")
    p.set_defaults(func=cmd_runs)

    p = sub.add_parser(
        "show",
        parents=[connection_options()],
        help="print one run's verdict on every step (action, reasons, score, time)",
        description="Print every step a server accepted for one run, with its verdict and time (GetRunHistory).",
    )
    p.add_argument("run", metavar="RUN", help="the run id")
    p.add_argument("--remote", metavar="TARGET", default=DEFAULT_TARGET, help="the server (default: %(default)s; HOST alone: port 50051)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout: {run: {...}, steps: [{step, time, action, ...}]}")
    p.set_defaults(func=cmd_show)
