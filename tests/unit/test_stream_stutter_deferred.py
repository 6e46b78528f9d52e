"""The stutter detector judges only every ``stutter_blocks``-th block while no run is alive: its
fires must be those of judging every block."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from plateau.stream.block import Splitter, Tail
from plateau.stream.config import StreamGuardConfig
from plateau.stream.stutter import StutterDetector, _example

_WORDS = "the cat sat on mat hello world yes sir a thethethe HelloHello abcabcabc 12 | ok".split()


def _text(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(10, 200)):
        w = rng.choice(_WORDS)
        mode = rng.random()
        if mode < 0.3:
            parts.append((w + " ") * rng.randint(1, 4))
        elif mode < 0.4:
            parts.append(w * rng.randint(2, 5) + " ")
        elif mode < 0.45:
            parts.append(" " * rng.randint(1, 130))  # a block without a token is transparent
        else:
            parts.append(w + rng.choice([" ", "\n", "  "]))
    return "".join(parts)


@pytest.mark.parametrize("blocks", [2, 3, 4, 7])
def test_deferred_judging_fires_as_judging_every_block(blocks: int) -> None:
    cfg = StreamGuardConfig(stutter_blocks=blocks)
    fires = 0
    for seed in range(300):
        text = _text(random.Random(seed))
        splitter, tail = Splitter(cfg.novelty_ngram), Tail(256, 4096)
        det = StutterDetector(cfg)
        last, run = "", []  # the reference: every block holding a token judged
        for i in range(0, len(text) - cfg.block + 1, cfg.block):
            piece = text[i : i + cfg.block]
            tail.push(piece)
            b = splitter.block(tail, piece)
            fire = det.update(b)  # fed on past a fire, as a fire the request excuses is
            want = None
            if b.tokens:
                example = _example(b.tokens, b.tokens[0] == last)
                last = b.tokens[-1]
                run = [*run, (b.end - len(piece), example)] if example else []
                if len(run) >= blocks and b.end >= cfg.min_chars:
                    want = (run[0][0], Counter(ex for _, ex in run).most_common(1)[0][0], len(run))
            got = None if fire is None else (fire.loop_start, fire.unit, fire.copies)
            assert got == want, (seed, i)
            fires += fire is not None
    assert fires > 100
