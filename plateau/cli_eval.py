"""``plateau eval`` and ``plateau plot`` (registered into the main parser by :func:`register`).

- ``plateau eval PATH... [--detector NAME | --compare] [--level L] [--json]``: score labelled
  cases (both levels) with Plateau or a baseline, or with all of them side by side
  (:mod:`plateau.evalrun`, scored by :mod:`plateau.evaluate`). Tables on stdout, a progress
  bar on stderr; with ``--json`` stdout carries one JSON object.
- ``plateau plot CASE [--case ID] [-o PNG]``: Plateau's signals and verdicts on every step of
  one run, as a picture (:mod:`plateau.plot`); ``plateau plot --remote HOST:PORT RUN`` draws the
  same picture from a run's history on a server (``GetRunHistory``).

The logic lives in :mod:`plateau.evalrun` and :mod:`plateau.plot`; this module only parses
arguments, loads the model once and prints.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["cmd_eval", "cmd_plot", "find_case", "register"]


def _embedder(args: argparse.Namespace) -> Any:
    from plateau.evalrun import default_embedder

    return default_embedder(args.model, backend=args.backend)


def _config(args: argparse.Namespace) -> Any:
    from plateau.cli import engine_config

    return engine_config(args)


# ------------------------------------------------------------------------- eval
def cmd_eval(args: argparse.Namespace) -> int:
    """Score labelled cases; print tables (or one JSON object with ``--json``)."""
    from plateau import evalrun
    from plateau.evaluate import load_cases

    cases = load_cases(args.paths)
    if args.level:
        cases = [c for c in cases if c.get("level") == args.level]
    if not cases:
        print("plateau: no labelled cases found under " + " ".join(args.paths), file=sys.stderr)
        return 1
    detectors = list(evalrun.DETECTORS) if args.compare else [args.detector]
    for name in detectors:
        evalrun.detector_levels(name)  # ValueError naming --detector for an unknown name
    from plateau.progress import progress

    bar = progress(total=evalrun.work_units(cases, detectors), desc="eval", unit="case")

    def tick(detector: str, case_id: str) -> None:
        bar.set_postfix_str(f"{detector}: {case_id[:32]}", refresh=False)
        bar.update(1)

    try:
        runs = evalrun.compare(cases, detectors, embedder=_embedder(args), config=_config(args), on_case=tick)
    finally:
        bar.close()
    if args.json:
        payload: dict[str, Any] = {"cases": len(cases), "paths": list(args.paths)}
        if args.compare:
            payload["detectors"] = [r.as_dict() for r in runs]
        else:
            payload.update(runs[0].as_dict())
        sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=None) + "\n")
        return 0
    if args.compare:
        sys.stdout.write(evalrun.format_comparison(runs))
    else:
        text = evalrun.format_run(runs[0])
        if not text:
            levels = " and ".join(evalrun.detector_levels(args.detector))
            print(f"plateau: {args.detector} judges {levels} cases; none found under " + " ".join(args.paths), file=sys.stderr)
            return 1
        sys.stdout.write(text)
    sys.stdout.flush()
    return 0


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
    from plateau.evalrun import trace_steps_case
    from plateau.plot import outcome_text, save_plot

    case = find_case(args.case_path, args.case)
    config = _config(args)
    trace = trace_steps_case(Engine(config, _embedder(args)), case)
    out = Path(args.output) if args.output else Path(f"plot-{trace.case_id}.png")
    if out.parent and not out.parent.exists():
        raise FileNotFoundError(f"-o: folder {out.parent} does not exist")
    save_plot(trace, out, config=config, dpi=args.dpi)
    print(f"{out}: {trace.case_id}: {outcome_text(trace)}")
    return 0


# ------------------------------------------------------------------------- parser
def register(sub: Any) -> None:
    """Add the evaluation subcommands to ``sub`` (an argparse subparsers action)."""
    from plateau.cli import add_engine_options, connection_options
    from plateau.evalrun import DETECTORS

    p = sub.add_parser(
        "eval",
        help="score labelled cases with Plateau or a baseline (--compare: all side by side)",
        description="Score labelled cases (docs/format.md, both levels) and print per-case scores and totals.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="labelled case files (.json) or folders of them")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--detector", default="plateau", choices=DETECTORS, metavar="NAME",
                       help=f"who judges: {', '.join(DETECTORS)} (default plateau)")
    which.add_argument("--compare", action="store_true", help="run Plateau and every baseline on the same cases; one table")
    p.add_argument("--level", choices=("steps", "stream"), help="score only cases of this level")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout (per-case scores and totals)")
    add_engine_options(p)
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser(
        "plot",
        parents=[connection_options()],
        help="draw Plateau's signals and verdicts on every step of one run (PNG)",
        description="Replay one run through Plateau and draw movement, baseline band, stall score and verdicts per step.",
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
