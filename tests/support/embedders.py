"""Stand-in embedding models for tests that exercise structure, order and concurrency, not meaning."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence

import numpy as np

from plateau.embed import HashingEmbedder

__all__ = ["GatedEmbedder", "HashModel"]


class GatedEmbedder:
    """The hashing embedder behind a gate: ``encode`` blocks until the test opens it."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder()
        self.name = "gated"
        self.open = threading.Event()
        self.entered = threading.Semaphore(0)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.entered.release()
        assert self.open.wait(30), "the test never opened the gate"
        return self.inner.encode(texts)


class HashModel:
    """A deterministic stand-in model for structure-only tests: a unit vector of 384 dimensions
    (the real model's) drawn from a generator seeded by the text's SHA-256, the same in every
    process (``hash()`` is salted per process, so a seed from it made a test's outcome depend on
    ``PYTHONHASHSEED``), and wide enough that two different texts are near-orthogonal (cosine
    within about 0.05 of 0) rather than similar by chance."""

    name = "hash"

    def encode(self, texts):  # type: ignore[no-untyped-def]
        out = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:8], "big")
            rng = np.random.default_rng(seed)
            v = rng.normal(size=384).astype(np.float32)
            out.append(v / np.linalg.norm(v))
        return np.stack(out)
