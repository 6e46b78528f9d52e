"""Seeded synthetic runs shared by the analysis and check tests: productive warm-up steps and a
hunt for something that does not exist (varied calls that fail or find nothing)."""

from __future__ import annotations

import random

from plateau.types import Step

__all__ = ["ABSENT", "NAMES", "NARRATION", "RESTATED", "WORDS", "absent_steps", "explore", "facts_line", "working_steps"]

WORDS = [f"{a}{b}" for a in ("kal", "mor", "ten", "vir", "sap", "dul", "ferg", "hob") for b in ("ax", "en", "ist", "or", "ume", "ipp")]


def facts_line(rng: random.Random, n: int) -> str:
    """A result line of ``n`` distinct made-up identifiers with fresh numbers (new facts)."""
    return ", ".join(f"{w}_{rng.randrange(1000)}" for w in rng.sample(WORDS, n))


def working_steps(rng: random.Random, n: int) -> list[Step]:
    """``n`` calls that succeed and return new facts (the warm-up of a productive run)."""
    return [
        Step(index=i, text=f"Inspecting part {i} of the service.", tool="read_file",
             args={"path": f"src/part_{i}.py"}, result=f"defines {facts_line(rng, 6)}")
        for i in range(n)
    ]


ABSENT = [
    ("grep", {"pattern": "def round_even"}, ""),
    ("search_docs", {"query": "rounding helper location"}, "0 results for \"rounding helper location\""),
    ("read_file", {"path": "lib/rounding.py"}, "Error: ENOENT: no such file or directory, open 'lib/rounding.py'"),
    ("bash", {"command": "pip show money-utils"}, "WARNING: Package(s) not found: money-utils"),
    ("git_log", {"query": "round_even", "all": True}, ""),
    ("search_code", {"query": "def round_even", "scope": "org"}, "No code results for \"def round_even\""),
    ("bash", {"command": "ls vendor/"}, ""),
    ("search_docs", {"query": "bankers rounding"}, "0 results for \"bankers rounding\""),
    ("read_file", {"path": "docs/rounding.md"}, "Error: ENOENT: no such file or directory, open 'docs/rounding.md'"),
    ("python", {"code": "import decimal; hasattr(decimal, 'round_even')"}, "False"),
    ("git_stash", {"action": "list"}, ""),
    ("search_code", {"query": "round_even", "scope": "vendor"}, "No code results for \"round_even\""),
]
NARRATION = [
    "Maybe the helper is defined in a utility module.", "Perhaps the documentation says where it lives.",
    "It could be in a dedicated rounding file.", "A shared package might provide it.",
    "Another branch may have introduced it.", "Some other service might define it.",
    "The vendored code could contain it.", "The docs might use another wording.",
    "There might be a design note about it.", "The standard library could have it.",
    "Someone may have stashed the implementation.", "Vendored code might still hide it.",
]


def absent_steps(start: int) -> list[Step]:
    """Varied calls (a different tool or argument each time) that all fail or find nothing,
    each with new narration, the shape of a hunt for something that does not exist."""
    return [
        Step(index=start + j, text=NARRATION[j], tool=tool, args=args, result=result,
             status="error" if result.startswith("Error") else None)
        for j, (tool, args, result) in enumerate(ABSENT)
    ]


NAMES = [f"{a}{b}{c}" for a in ("kor", "vel", "san", "mip", "tor", "bal") for b in ("an", "et", "ol", "ur") for c in ("ix", "da", "mo")]


def explore(rng: random.Random, n: int) -> list[Step]:
    """``n`` reads of different files, each answering with new identifiers (a warm-up)."""
    return [
        Step(index=i, text=f"Reading module {i} to see how it fits together.", tool="read_file",
             args={"path": f"src/mod_{i}.py"}, result="def " + ", ".join(rng.sample(NAMES, 8)), status="ok")
        for i in range(n)
    ]


#: conclusions restated in new words, each adding nothing (a diagnosis said again)
RESTATED = [
    "Same picture: p95 is still about 1.9 s. The missing index is the cause.",
    "Nothing has moved. Recreating the index remains the fix.",
    "As established, the pool saturates behind the sequential scan.",
    "The diagnosis stands: the index was dropped by the migration.",
    "To recap: index gone, seq scans, pool exhausted, 502s.",
    "Same seq scan for another order; the index is what is missing.",
    "Still the same error rate. The conclusion is unchanged.",
    "No change in the pods either; the fix remains the index.",
]
