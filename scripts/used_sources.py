#!/usr/bin/env python3
"""Write ``evals/used-sources.txt``: every address any evaluation set cites, one per line, sorted.

A new blind set is built from public sources no earlier set used; its author checks each
source against this list (the ``check.py`` of a stream set reads it from the folder above the
set). The list is every ``http(s)://`` address in the sets' case files, sources and READMEs
(``evals/**/*.json``, ``*.txt``, ``*.md``), so a thread quoted by any set is taken.

Usage::

    python scripts/used_sources.py [--check]

``--check`` writes nothing and exits 1 when the file on disk lacks an address the sets cite.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "evals" / "used-sources.txt"
_URL = re.compile(r"https?://[^\s'\"<>)\]|`,]+")


def cited() -> list[str]:
    """Every address cited under ``evals/`` (trailing full stops dropped), sorted."""
    urls: set[str] = set()
    for path in (ROOT / "evals").rglob("*"):
        if path.suffix in {".json", ".txt", ".md"} and path != OUT and path.is_file():
            urls.update(u.rstrip(".") for u in _URL.findall(path.read_text(encoding="utf-8", errors="replace")))
    return sorted(urls)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when the file lacks a cited address")
    args = ap.parse_args(argv)
    urls = cited()
    if args.check:
        have = set(OUT.read_text(encoding="utf-8").split()) if OUT.is_file() else set()
        missing = [u for u in urls if u not in have]
        for u in missing:
            print(f"missing from {OUT.relative_to(ROOT)}: {u}", file=sys.stderr)
        return 1 if missing else 0
    OUT.write_text("".join(u + "\n" for u in urls), encoding="utf-8")
    print(f"{len(urls)} addresses -> {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
