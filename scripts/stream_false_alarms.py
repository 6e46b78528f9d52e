#!/usr/bin/env python3
"""False alarms of the stream guard on real legitimate text: the messages of real agent runs.

Reads the real runs in ``../shared/data/real-runs`` where they lie (mini-swe-agent runs with
Gemini and DeepSeek, tau-bench airline runs with gpt-4o): every message of every run -- the
model's responses and the tool outputs (test-runner and linter logs, listings, source files,
JSON) -- is streamed through a fresh :class:`~plateau.stream.StreamGuard` on the ``content``
channel in seeded chunks of 1-40 characters, the last followed by
:meth:`~plateau.stream.StreamGuard.finish` (the stream has ended). Messages of runs that failed are kept too: a
single message that loops is rare, and every fire is printed with its unit so that it can be
read. The script prints the messages fed, their characters, the fires per reason and, for each
fire, where it was and what repeated; ``--json`` prints one object.

This is the false-alarm budget the firing rule is checked against (see
:class:`~plateau.stream.StreamGuardConfig`): on these messages the rule should fire only where
a reader would stop the text too.

``--semantic`` adds the semantic layer (the embedding model of ``plateau guard``, embedded
synchronously, a few minutes on two cores): ``stream.recheck`` and ``stream.semantic_loop``
fire only with it. ``--quote fence`` streams every message inside a code fence that names no
language after a line of answer, and ``--quote ask`` with the request "Run it and paste the
output.": the budget of program output a model quotes (the tool messages are real program
output).

Usage::

    python scripts/stream_false_alarms.py [--root PATH] [--max-chars N] [--semantic] [--quote {none,fence,ask}] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from plateau.stream import StreamGuard  # noqa: E402

_REPO = Path(__file__).resolve().parents[1]
# ../shared next to the repository, or next to the folder of worktrees holding it
_SHARED = [p / "shared" for p in (_REPO.parent, _REPO.parent.parent) if (p / "shared").is_dir()]
ROOT = (_SHARED[0] if _SHARED else _REPO.parent / "shared") / "data" / "real-runs"


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def messages(root: Path) -> Iterator[tuple[str, str, str]]:
    """(source, role, text) of every message of every run under ``root``."""
    for path in sorted(root.glob("*/*/*.traj.json")) + sorted(root.glob("*/*.traj.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for i, m in enumerate(data.get("messages", [])):
            yield f"{path.parent.name}#{i}", str(m.get("role")), _text(m.get("content"))
    for path in sorted(root.glob("tau-bench*.json")):
        for run in json.loads(path.read_text(encoding="utf-8")):
            for i, m in enumerate(run.get("traj", [])):
                yield f"tau-{run.get('task_id')}-{run.get('trial')}#{i}", str(m.get("role")), _text(m.get("content"))


#: Messages shorter than this are not fed: no firing rule can fire on them (the ending rule
#: needs ``end_span_floor`` columns of a run).
_SHORTEST = 16


def chunks(text: str, seed: int) -> list[str]:
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(text):
        n = rng.randint(1, 40)
        out.append(text[i : i + n])
        i += n
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=ROOT)
    ap.add_argument("--max-chars", type=int, default=200_000, help="characters of a message fed (default 200,000)")
    ap.add_argument("--semantic", action="store_true", help="with the embedding model (recheck and semantic loops)")
    ap.add_argument("--quote", choices=("none", "fence", "ask"), default="none", help="stream each message as quoted program output")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    embedder = None
    if args.semantic:
        from plateau.trace import default_embedder

        embedder = default_embedder()
    context = "Run it and paste the output." if args.quote == "ask" else None
    seen: set[str] = set()
    fed = chars = 0
    reasons: Counter[str] = Counter()
    roles: Counter[str] = Counter()
    fired_roles: Counter[str] = Counter()
    fires = []
    for source, role, text in messages(args.root):
        if role == "system" or len(text) < _SHORTEST or text in seen:
            continue
        seen.add(text)
        text = text[: args.max_chars]
        fed += 1
        roles[role] += 1
        chars += len(text)
        guard = StreamGuard("content", context=context, embedder=embedder, semantic_background=False)
        if args.quote == "fence":
            text = "Here is what it printed:\n\n```\n" + text + "\n```\n"
        parts = chunks(text, len(seen))
        for i, c in enumerate(parts):
            res = guard.feed(c)
            if i == len(parts) - 1:
                res = guard.finish()  # the message is complete, as a harness says when the stream ends
            if res.fired:
                reasons[str(res.reason)] += 1
                fired_roles[role] += 1
                fires.append({"source": source, "role": role, "chars": res.chars, "reason": res.reason, "unit": (res.unit or "")[:120]})
                break
    if args.json:
        out = {
            "messages": fed,
            "chars": chars,
            "roles": dict(roles),
            "fired_roles": dict(fired_roles),
            "reasons": dict(reasons),
            "fires": fires,
        }
        print(json.dumps(out, indent=2))
        return 0
    print(f"messages fed: {fed:,} ({chars:,} characters); fires: {len(fires)}")
    for role, n in roles.most_common():
        print(f"  {role}: {n:,} messages, {fired_roles[role]} fired")
    for reason, n in reasons.most_common():
        print(f"  {reason}: {n}")
    for f in fires:
        print(f"  {f['source']} [{f['role']}] @{f['chars']:,} {f['reason']}: {f['unit']!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
