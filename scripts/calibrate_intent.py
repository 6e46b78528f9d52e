#!/usr/bin/env python3
"""Where the courtesy (phatic) threshold sits: cosines to the phatic prototypes on the real model.

Prints the cosine of each text to its nearest prototype in
:data:`plateau.signals.intent.PHATIC_PROTOTYPES` for three sets:

``courtesies``
    Messages that are only a courtesy, written for this check (none is taken from a labelled
    case): they should score at or above :data:`~plateau.signals.intent.PHATIC_THRESHOLD`.
``mixed``
    Messages that thank or greet *and* carry a request or a fact, plus ordinary task
    messages: they must score below it (a false courtesy would count toward a trip).
``corpus``
    Every step text (and user message) of the labelled step cases and every thought of the
    SWE-agent trajectories under ``../shared`` (skipped when absent), with the labelled
    closing-loop cases (kind mentioning "pleasantry" or "gratitude") left out, since their
    closing messages are courtesies by construction.

Usage::

    python scripts/calibrate_intent.py [--shared PATH] [--top N]
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
from pathlib import Path

import numpy as np

from plateau.embed import SentenceTransformerEmbedder
from plateau.signals.intent import PHATIC_PROTOTYPES, PHATIC_THRESHOLD

COURTESIES = [
    "Much appreciated, thanks a lot!", "Cheers, that did the trick.", "Anytime! Good luck with the project.",
    "Thanks so much, you've been very helpful.", "It was my pleasure to assist you.", "Bye for now!",
    "See you later, thanks!", "Have a wonderful weekend!", "Thanks again for everything.", "You too, take care!",
    "Perfect, thank you!", "Happy to help anytime.", "Wonderful, many thanks.", "I'm glad it worked out for you!",
    "Thank you kindly.", "Great, thanks! That's all I needed.", "Ok thanks, bye.", "Appreciate it, have a good one.",
]
MIXED = [
    "Thanks! Could you also add a legend to the chart?", "Thanks, but the test still fails with a KeyError on line 42.",
    "Great, now please deploy it to staging.", "That works. Next, let's migrate the users table.",
    "Thank you. What about the rate limiting?", "OK. Run the benchmark again with 8 workers.",
    "Thanks for the summary. Please write it up as a memo for the team.", "The build passed. Merging now.",
    "Let me know when the migration finishes.", "I agree with the plan; I'll start on the schema.",
    "Good catch. I'll fix the off-by-one in the pager.", "Thanks, can you explain why the cache misses?",
    "Welcome to the project! Here's the onboarding checklist.", "Goodbye to the old API: removing the v1 endpoints now.",
    "Thank you for the report; reproducing the crash now.", "Sounds good. Which region should we deploy first?",
]


def corpus(shared: Path) -> list[str]:
    """Step texts of the labelled cases (closing loops excluded) and trajectory thoughts."""
    texts: list[str] = []
    for path in sorted(glob.glob(str(shared / "benchmark" / "steps" / "*.json"))):
        case = json.loads(Path(path).read_text())
        kind = case.get("kind", "").lower()
        if "pleasantry" in kind or "gratitude" in kind:
            continue
        for step in case["input"]:
            texts += [t for t in (step.get("text"), step.get("user")) if t]
    for path in sorted(glob.glob(str(shared / "data" / "trajectories" / "*.traj"))):
        for step in json.loads(Path(path).read_text()).get("trajectory", []):
            thought = step.get("thought") or step.get("response") or ""
            if thought.strip():
                texts.append(thought[:2000])
    return texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[1].parent / "shared")
    parser.add_argument("--top", type=int, default=8, help="corpus texts to list, highest first")
    args = parser.parse_args(argv)
    model = SentenceTransformerEmbedder().load()
    protos = model.encode(list(PHATIC_PROTOTYPES))

    def score(texts: list[str]) -> np.ndarray:
        return (model.encode(texts) @ protos.T).max(axis=1) if texts else np.zeros(0)

    print(f"threshold {PHATIC_THRESHOLD}")
    for name, texts in (("courtesies", COURTESIES), ("mixed", MIXED)):
        s = score(texts)
        above = int((s >= PHATIC_THRESHOLD).sum())
        print(f"{name:<11} n={len(texts):<4} min {s.min():.3f}  median {np.median(s):.3f}  max {s.max():.3f}  "
              f">= threshold: {above}/{len(texts)}")
    texts = corpus(args.shared)
    if not texts:
        print(f"corpus: {args.shared} has no cases or trajectories; skipped")
        return 0
    s = score(texts)
    print(f"{'corpus':<11} n={len(texts):<4} max {s.max():.3f}  >= threshold: {int((s >= PHATIC_THRESHOLD).sum())}")
    for i in np.argsort(-s)[: args.top]:
        print(f"  {s[i]:.3f}  {' '.join(texts[i].split())[:80]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
