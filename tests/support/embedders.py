"""Stand-in embedding models for tests that exercise structure, order and concurrency, not meaning."""

from __future__ import annotations

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
    """A deterministic stand-in model (unit vectors from a text hash) for structure-only tests."""

    name = "hash"

    def encode(self, texts):  # type: ignore[no-untyped-def]
        out = []
        for text in texts:
            rng = np.random.default_rng(abs(hash(text)) % 2**32)
            v = rng.normal(size=16).astype(np.float32)
            out.append(v / np.linalg.norm(v))
        return np.stack(out)
