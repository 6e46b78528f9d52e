"""``plateau plot`` (registered into the main parser by :func:`register`).

- ``plateau plot CASE [--case ID] [-o PNG]``: Plateau's signals and verdicts on every step of
  one run, as a picture (:mod:`plateau.plot`); ``plateau plot --remote HOST:PORT RUN`` draws the
  same picture from a run's history on a server (``GetRunHistory``).

A labelled case is scored against its labels (the title says caught, missed or false trip) only
from a repository checkout, where the evaluator (``bench/``, not in the wheel) is importable;
the installed wheel draws the verdicts and the labels without the score.

The logic lives in :mod:`plateau.trace` and :mod:`plateau.plot`; this module only parses
arguments, loads the model once and prints.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

__all__ = ["cmd_plot", "find_case", "labels_scorer", "register"]


def _embedder(args: argparse.Namespace) -> Any:
    from plateau.trace import default_embedder

    return default_embedder(args.model, backend=args.backend)


def _config(args: argparse.Namespace) -> Any:
    from plateau.cli import engine_config

    return engine_config(args)


# ------------------------------------------------------------------------- plot
def find_case(path: str | Path, case_id: str | None = None) -> dict[str, Any]:
    """One steps-level run from a case file, a ``.traj`` file or a folder, as a case dict.

    Parameters
    ----------
    path
        A labelled case (``.json``), a SWE-agent trajectory (``.traj``) or a folder of them.
    case_id
        Which run, when ``path`` holds several: its id, or an unambiguous prefix of it
        (``L-A01`` for ``L-A01-checkout-502-incident``).

    Returns
    -------
    dict
        ``id``, ``level`` (``"steps"``), ``input``, ``expected`` (``None`` when unlabelled),
        ``context`` and, for labelled cases, every other key of the file (``kind``, ...).

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    ValueError
        When no steps-level run matches, or several do (the message lists them).
    """
    from plateau.replay import load_runs

    runs = load_runs([path])
    if not runs:
        raise ValueError(f"{path}: no steps-level run to plot (stream cases are not plotted)")
    if case_id is not None:
        exact = [r for r in runs if r.id == case_id]
        runs = exact or [r for r in runs if r.id.startswith(case_id)]
        if not runs:
            raise ValueError(f"--case: no run {case_id!r} under {path}")
    if len(runs) > 1:
        names = ", ".join(r.id for r in runs[:12]) + (" ..." if len(runs) > 12 else "")
        raise ValueError(f"{path} holds {len(runs)} runs; pick one with --case ID ({names})")
    run = runs[0]
    case: dict[str, Any] = {}
    if run.source.endswith(".json"):
        case.update(json.loads(Path(run.source).read_text(encoding="utf-8")))
    case.update({"id": run.id, "level": "steps", "input": list(run.steps), "expected": run.expected, "context": run.context})
    return case


def labels_scorer() -> Any:
    """The evaluator's ``score_steps_case`` where the repository's ``bench/`` is importable (a
    checkout; :func:`plateau.cli.bench_module`), else ``None`` (the installed wheel: no scoring)."""
    from plateau.cli import bench_module

    module = bench_module("bench.evaluate")
    return None if module is None else getattr(module, "score_steps_case", None)


def _plot_remote(args: argparse.Namespace) -> int:
    """Draw run ``args.case_path`` from its history on the server ``args.remote``."""
    from plateau.cli import ENGINE_OPTIONS, UsageError, remote_client
    from plateau.plot import history_trace, outcome_text, save_plot

    given = ["--" + n.replace("_", "-") for n in ENGINE_OPTIONS if getattr(args, n, None) not in (None, False)]
    if given or args.case:
        given += ["--case"] if args.case else []
        raise UsageError(f"{', '.join(given)}: not allowed with --remote (the run was judged by the server; RUN is its id)")
    with remote_client(args, args.remote) as client:
        history = client.run_history(args.case_path)
    if not history.steps:
        raise ValueError(f"run {args.case_path!r} has no steps to draw")
    trace = history_trace(history)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in history.run.run_id)[:100]
    out = Path(args.output) if args.output else Path(f"plot-{safe}.png")
    if out.parent and not out.parent.exists():
        raise FileNotFoundError(f"-o: folder {out.parent} does not exist")
    save_plot(trace, out, dpi=args.dpi)
    print(f"{out}: {history.run.run_id}: {outcome_text(trace)}")
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    """Replay one run through Plateau in process and draw its signals and verdicts to a PNG
    (with ``--remote``: draw a run a server judged, from its history)."""
    if args.remote:
        return _plot_remote(args)
    from plateau.engine import Engine
    from plateau.plot import outcome_text, save_plot
    from plateau.trace import trace_steps_case

    case = find_case(args.case_path, args.case)
    config = _config(args)
    trace = trace_steps_case(Engine(config, _embedder(args)), case, scorer=labels_scorer())
    out = Path(args.output) if args.output else Path(f"plot-{trace.case_id}.png")
    if out.parent and not out.parent.exists():
        raise FileNotFoundError(f"-o: folder {out.parent} does not exist")
    save_plot(trace, out, config=config, dpi=args.dpi)
    print(f"{out}: {trace.case_id}: {outcome_text(trace)}")
    return 0


# ------------------------------------------------------------------------- parser
def register(sub: Any) -> None:
    """Add ``plot`` to ``sub`` (an argparse subparsers action)."""
    from plateau.cli import add_engine_options, connection_options

    p = sub.add_parser(
        "plot",
        parents=[connection_options()],
        help="draw Plateau's signals and verdicts on every step of one run (PNG)",
        description=(
            "Replay one run through Plateau and draw movement, baseline band, stall score and verdicts per step. "
            "A labelled case is also scored against its labels (caught, missed, false trip) when run from a "
            "repository checkout, where the evaluator (bench/) is importable; the installed wheel draws without the score."
        ),
    )
    p.add_argument(
        "case_path",
        metavar="CASE",
        help="a case file (.json), a SWE-agent trajectory (.traj), or a folder with --case; with --remote, the id of a run on the server",
    )
    p.add_argument("--case", metavar="ID", help="the run's id (or a unique prefix) when CASE is a folder")
    p.add_argument("-o", "--output", metavar="PNG", help="image to write (default plot-<id>.png; .svg and .pdf work too)")
    p.add_argument("--dpi", type=int, default=110, help="resolution of the image (default 110)")
    p.add_argument("--remote", metavar="TARGET", help="draw run CASE (a run id) as this server judged it, from its history")
    add_engine_options(p)
    p.set_defaults(func=cmd_plot)
