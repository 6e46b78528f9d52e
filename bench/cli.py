"""``eval``: score labelled cases with Plateau or a baseline, or with all of them side by side.

``plateau eval PATH... [--detector NAME | --compare] [--level L] [--json]`` from a repository
checkout (``plateau.cli`` registers this subcommand when ``bench`` is importable), or
``python -m bench eval ...`` (:mod:`bench.__main__`). The logic lives in :mod:`bench.evalrun`,
scored by :mod:`bench.evaluate`; this module only parses arguments, loads the model once and
prints. Tables on stdout, a progress bar on stderr; with ``--json`` stdout carries one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

__all__ = ["build_parser", "cmd_eval", "register"]


def _embedder(args: argparse.Namespace) -> Any:
    """The embedder the cases are scored with. An explicit ``--model`` is loaded now, so that a path
    that is not a model exits 3 naming it before any case (stream cases included, whose textual
    detectors would otherwise be scored quietly without the semantic layer); the process shares
    the loaded model with the embedder, which the default model builds on first use."""
    from bench.evalrun import default_embedder

    if args.model is not None:
        from plateau.cli import _load_model

        _load_model(args)
    return default_embedder(args.model, backend=args.backend)


def _config(args: argparse.Namespace) -> Any:
    from plateau.cli import engine_config

    return engine_config(args)


def cmd_eval(args: argparse.Namespace) -> int:
    """Score labelled cases; print tables (or one JSON object with ``--json``)."""
    from bench import evalrun
    from bench.evaluate import load_cases

    cases = load_cases(args.paths)
    if args.level:
        cases = [c for c in cases if c.get("level") == args.level]
    if not cases:
        print("plateau: no labelled cases found under " + " ".join(args.paths), file=sys.stderr)
        return 1
    detectors = list(evalrun.DETECTORS) if args.compare else [args.detector]
    for name in detectors:
        evalrun.detector_levels(name)  # ValueError naming --detector for an unknown name
    from plateau.progress_bar import progress

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


def register(sub: Any) -> None:
    """Add ``eval`` to ``sub`` (an argparse subparsers action)."""
    from bench.evalrun import DETECTORS
    from plateau.cli import add_engine_options

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


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m bench``: the lab's subcommands (``eval``)."""
    parser = argparse.ArgumentParser(prog="python -m bench", description="The Plateau lab: the evaluator over labelled cases.")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging on stderr")
    register(parser.add_subparsers(dest="command", required=True))
    return parser
