"""Wording lists as data: what Plateau reads in text, one file per list.

Each list is a plain-text file in this package (``<name>.txt``): a header of ``#`` lines, then
one entry per line. The header says what kind of text the list reads (``kind``), its
languages, the entries' ``format`` and how the list was written (``written``); lists are
written for a kind of text from general usage, and no entry is taken from a labelled case
(``scripts/lexicon_overlap.py`` reports the entries found in the evaluation sets).

Formats:

- ``words``: one word (or a short fixed phrase) per line, matched literally;
- ``sentences``: one sentence per line (prototypes for the embedding model);
- ``regex``: one regular-expression fragment per line (alternatives of one pattern);
- ``pairs``: a word and a value separated by whitespace (``twice 2``).

The format is the first word of the header's ``format:`` line; the rest of it says how the
code applies the entries (word boundaries, case).

Blank lines and lines that start with ``#`` are skipped; entries are stripped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

__all__ = ["Lexicon", "alternation", "lexicon", "load", "names", "pattern"]

FORMATS = frozenset({"words", "sentences", "regex", "pairs"})


@dataclass(frozen=True)
class Lexicon:
    """One wording list: its ``name``, its header fields (``kind``, ``languages``, ``format``,
    ``written`` …; lower-cased keys) and its ``entries`` in file order."""

    name: str
    header: dict[str, str]
    entries: tuple[str, ...]

    @property
    def format(self) -> str:
        """The first word of the header's ``format`` (``words`` when absent)."""
        return (self.header.get("format") or "words").split()[0]

    def fragments(self) -> tuple[str, ...]:
        """The entries as regular-expression fragments (literal formats escaped)."""
        if self.format == "regex":
            return self.entries
        if self.format == "pairs":
            return tuple(re.escape(e.split()[0]) for e in self.entries)
        return tuple(re.escape(e) for e in self.entries)


def names() -> tuple[str, ...]:
    """The names of all lists of the package, sorted."""
    root = resources.files(__name__)
    return tuple(sorted(p.name[: -len(".txt")] for p in root.iterdir() if p.name.endswith(".txt")))


@cache
def lexicon(name: str) -> Lexicon:
    """Read the list ``name`` (``<name>.txt`` of this package).

    Raises
    ------
    FileNotFoundError
        When the package has no such list.
    ValueError
        When its header declares an unknown format.
    """
    text = resources.files(__name__).joinpath(f"{name}.txt").read_text(encoding="utf-8")
    header: dict[str, str] = {}
    entries: list[str] = []
    key = None
    in_header = True
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.startswith("#"):
            if in_header:
                body = line[1:].strip()
                # "# key: value" opens a field; a line indented further ("#   more") continues it
                m = None if line[1:].startswith("  ") else re.match(r"([a-z][\w-]*):\s*(.*)", body)
                if m:
                    key = m.group(1).lower()
                    header[key] = m.group(2)
                elif key is not None and body:
                    header[key] = f"{header[key]} {body}".strip()
            continue
        line = line.strip()
        if not line:
            continue
        in_header = False
        entries.append(line)
    result = Lexicon(name=name, header=header, entries=tuple(entries))
    if result.format not in FORMATS:
        raise ValueError(f"lexicon {name!r}: unknown format {result.format!r}")
    return result


def load(name: str) -> tuple[str, ...]:
    """The entries of the list ``name``, in file order."""
    return lexicon(name).entries


def alternation(*names: str) -> str:
    """One non-capturing group alternating the entries of the lists ``names`` (literal formats
    escaped): ``(?:e1|e2|...)``."""
    return "(?:" + "|".join(f for n in names for f in lexicon(n).fragments()) + ")"


def pattern(*names: str, prefix: str = "", suffix: str = "", flags: int = 0) -> re.Pattern[str]:
    """``prefix + alternation(*names) + suffix`` compiled with ``flags``."""
    return re.compile(prefix + alternation(*names) + suffix, flags)
