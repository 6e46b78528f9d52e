#!/usr/bin/env python3
"""Which entries of Plateau's wording lists occur in labelled cases and real runs.

Usage::

    python scripts/lexicon_overlap.py [--corpus PATH ...] [--list NAME ...] [--json] [--verbose]

A wording list (:mod:`plateau.lexicon`) is written for a kind of text, never copied from a
labelled case. This script searches every entry of every list, compiled as a case-insensitive
regular expression (a literal entry, of format ``words``, ``sentences`` or ``pairs``, escaped
and matched as whole words), in the text of every case of the corpora: by default
``../shared/benchmark``, ``evals/`` and ``../shared/data`` (relative to the repository), never
a blind set (a folder named ``blind-*``: held out until its one score, read by nothing). A
*case* is one JSON file (``.json``, ``.jsonl``, ``.traj``), or one run of a file that holds
several (a top-level JSON array of objects, one object per line of a ``.jsonl``); its text is
every string value in it.

It prints, per list, the entries found and in how many cases, and exits 1 when an entry of
three words or more occurs in exactly one case (an entry that one case's wording alone
bears out reads that case, not a kind). Words are counted in the entry for a literal entry
and in the longest text the entry matched for a regular expression; a run of CJK characters
counts one word per two characters.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from plateau import lexicon  # noqa: E402

DEFAULT_CORPORA = (ROOT.parent / "shared" / "benchmark", ROOT / "evals", ROOT.parent / "shared" / "data")
#: An entry of at least this many words found in exactly one case fails the check.
MIN_WORDS = 3
CASE_SUFFIXES = (".json", ".jsonl", ".traj")

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_WORD = re.compile(r"[^\W_]+")
_TOKEN = re.compile(r"\w+")


def count_words(text: str) -> int:
    """Words of ``text``: runs of letters and digits outside CJK, plus one word per two
    characters of each CJK run (rounded up)."""
    cjk = sum(math.ceil(len(run) / 2) for run in _CJK.findall(text))
    return cjk + len(_WORD.findall(_CJK.sub(" ", text)))


def _strings(value: object) -> Iterator[str]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))


def _text(value: object) -> str:
    """The string values of a case, each once (a run that logs its messages twice is read once)."""
    return "\n".join(dict.fromkeys(_strings(value)))


def read_cases(paths: Sequence[Path]) -> Iterator[tuple[str, str]]:
    """``(case id, text)`` for every case under ``paths`` (files or folders, searched
    recursively); a missing path yields nothing."""
    for root in paths:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []
        for path in files:
            if not path.name.endswith(CASE_SUFFIXES) or any(part.startswith("blind-") for part in path.parts):
                continue
            raw = path.read_text(encoding="utf-8", errors="replace")
            try:
                value = json.loads(raw)
            except ValueError:
                lines = [line for line in raw.splitlines() if line.strip()]
                try:
                    runs = [json.loads(line) for line in lines]
                except ValueError:
                    yield str(path), raw  # not JSON: its text as it is
                    continue
                for i, run in enumerate(runs):
                    yield f"{path}#{i}", _text(run)
                continue
            if isinstance(value, list) and len(value) > 1 and all(isinstance(v, dict) for v in value):
                for i, run in enumerate(value):
                    yield f"{path}#{i}", _text(run)
            else:
                yield str(path), _text(value)


def entry_pattern(lex: lexicon.Lexicon, entry: str) -> re.Pattern[str]:
    """An entry compiled as a case-insensitive expression (a literal one between word bounds)."""
    if lex.format == "regex":
        return re.compile(entry, re.IGNORECASE | re.MULTILINE)
    literal = entry.split()[0] if lex.format == "pairs" else entry
    return re.compile(r"(?<!\w)" + re.escape(literal) + r"(?!\w)", re.IGNORECASE)


@dataclass
class EntryReport:
    """Where one entry of a list was found: ``cases`` (how many), ``words`` (of the entry, or
    of its longest match for a regular expression), ``examples`` (up to three case ids) and
    ``fails`` (three words or more, in exactly one case)."""

    entry: str
    cases: int = 0
    words: int = 0
    examples: list[str] = field(default_factory=list)
    fails: bool = False


def overlap(names: Sequence[str], cases: Sequence[tuple[str, str]]) -> dict[str, list[EntryReport]]:
    """Per list, a report for every entry found in at least one of ``cases``."""
    lowered = [(case_id, text, text.lower()) for case_id, text in cases]
    vocabulary = {case_id: frozenset(_TOKEN.findall(low)) for case_id, _, low in lowered}
    out: dict[str, list[EntryReport]] = {}
    for name in names:
        lex = lexicon.lexicon(name)
        regex = lex.format == "regex"
        # a case the whole list does not match holds none of its entries (one scan, not one per entry)
        candidates = lowered
        if regex:
            whole = re.compile("|".join(f"(?:{e})" for e in lex.entries), re.IGNORECASE | re.MULTILINE)
            candidates = [c for c in lowered if whole.search(c[1])]
        reports = []
        for entry in lex.entries:
            rx = entry_pattern(lex, entry)
            literal = None if regex else (entry.split()[0] if lex.format == "pairs" else entry)
            needle = None if literal is None else literal.lower()
            report = EntryReport(entry)
            for case_id, text, low in candidates:
                if needle is not None and _TOKEN.fullmatch(needle):  # one word: in the case's words
                    if needle not in vocabulary[case_id]:
                        continue
                    words = 1
                elif needle is not None:
                    if needle not in low or not rx.search(text):
                        continue
                    words = count_words(needle)
                else:
                    first = rx.search(text)
                    if first is None:
                        continue
                    words = max(count_words(m.group()) for m in rx.finditer(text, first.start()))
                report.cases += 1
                if len(report.examples) < 3:
                    report.examples.append(case_id)
                report.words = max(report.words, words)
            report.fails = report.cases == 1 and report.words >= MIN_WORDS
            if report.cases:
                reports.append(report)
        out[name] = reports
    return out


def check(names: Sequence[str], cases: Sequence[tuple[str, str]]) -> tuple[int, dict[str, list[EntryReport]]]:
    """Exit status (1 when an entry of :data:`MIN_WORDS` words or more occurs in exactly one
    case, else 0) and the reports of :func:`overlap`."""
    reports = overlap(names, cases)
    return (1 if any(r.fails for rs in reports.values() for r in rs) else 0), reports


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--corpus",
        action="append",
        type=Path,
        metavar="PATH",
        help="a file or folder of cases (repeatable; default: ../shared/benchmark, evals, ../shared/data)",
    )
    parser.add_argument("--list", action="append", metavar="NAME", help="a list to check (repeatable; default: all)")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--verbose", action="store_true", help="name up to three cases per entry found")
    args = parser.parse_args(argv)
    names = args.list or list(lexicon.names())
    unknown = sorted(set(names) - set(lexicon.names()))
    if unknown:
        parser.error(f"no such list: {', '.join(unknown)} (lists: {', '.join(lexicon.names())})")
    corpora = args.corpus or list(DEFAULT_CORPORA)
    cases = list(read_cases(corpora))
    status, reports = check(names, cases)
    if args.json:
        json.dump(
            {
                "corpora": [str(p) for p in corpora],
                "cases": len(cases),
                "min_words": MIN_WORDS,
                "status": status,
                "lists": {n: [asdict(r) for r in rs] for n, rs in reports.items()},
            },
            sys.stdout,
            ensure_ascii=False,
            indent=1,
        )
        print()
        return status
    print(f"{len(cases)} cases in {', '.join(str(p) for p in corpora)}")
    for name, rs in reports.items():
        total = len(lexicon.load(name))
        print(f"\n{name}: {len(rs)} of {total} entries found")
        for r in sorted(rs, key=lambda r: (-r.fails, r.cases, r.entry)):
            mark = "FAIL " if r.fails else "     "
            where = f"  [{', '.join(r.examples)}]" if args.verbose or r.fails else ""
            print(f"  {mark}{r.cases:5d} case{'s' if r.cases != 1 else ' '}  {r.words:2d} words  {r.entry}{where}")
    failing = [(n, r.entry) for n, rs in reports.items() for r in rs if r.fails]
    print(f"\n{len(failing)} entries of {MIN_WORDS} words or more found in exactly one case" + (":" if failing else "."))
    for name, entry in failing:
        print(f"  {name}: {entry}")
    return status


if __name__ == "__main__":
    sys.exit(main())
