"""The real embedding model: offline loading, meaning, caching, and batching robustness."""

from __future__ import annotations

import numpy as np
import pytest

from plateau.embed import BatchingEmbedder, CachedEmbedder, SentenceTransformerEmbedder
from plateau.engine import Engine
from plateau.errors import ModelUnavailable
from plateau.replay import load_runs
from plateau.types import Step
from tests.support.paths import EXAMPLES

pytestmark = pytest.mark.model


PAIRS = [
    # (anchor, paraphrase: same content in other words, look-alike: same frame, other facts)
    ("The cache goes stale because its TTL is never refreshed.",
     "Since nobody refreshes the TTL, the cached data becomes outdated.",
     "The cache goes cold because its owner is never notified."),
    ("I found the root cause: the index on order_id was dropped.",
     "The missing order_id index is what caused the slowdown.",
     "I found the root cause: the disk on node three was full."),
]


@pytest.mark.parametrize(("anchor", "paraphrase", "look_alike"), PAIRS)
def test_paraphrase_is_closer_than_a_look_alike(real_model, anchor: str, paraphrase: str, look_alike: str) -> None:  # type: ignore[no-untyped-def]
    """A paraphrase scores a higher cosine than a sentence with the same frame but different facts (DESIGN §6).

    (A polarity flip, "the build passed" vs "the build failed", is NOT separated by MiniLM:
    see models/README.md.)
    """
    vec = real_model.encode([anchor, paraphrase, look_alike])
    assert vec.shape == (3, 384) and vec.dtype == np.float32
    assert np.allclose(np.linalg.norm(vec, axis=1), 1.0, atol=1e-5)
    assert float(vec[0] @ vec[1]) > float(vec[0] @ vec[2]) + 0.1


def test_missing_model_folder_is_a_clear_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A --model path that is not a model folder raises ModelUnavailable naming it."""
    with pytest.raises(ModelUnavailable, match=str(tmp_path / "nope")):
        SentenceTransformerEmbedder(tmp_path / "nope").load()


def test_cache_serves_repeated_texts(real_model) -> None:  # type: ignore[no-untyped-def]
    """A repeated text is served from the cache with the identical vector."""
    cached = CachedEmbedder(real_model)
    a = cached.encode(["retrying the same call", "another text"])
    b = cached.encode(["retrying the same call"])
    assert cached.hits == 1 and cached.misses == 2
    assert np.array_equal(a[0], b[0])


def test_batched_and_unbatched_replays_give_the_same_verdicts(real_model) -> None:  # type: ignore[no-untyped-def]
    """Verdicts do not depend on batch composition: one text per call vs all texts of a run at once."""

    class OneByOne:
        name = real_model.name

        def encode(self, texts):  # type: ignore[no-untyped-def]
            return np.concatenate([real_model.encode([t]) for t in texts])

    runs = load_runs([EXAMPLES])
    for run in runs:
        steps = [Step.from_dict(s, i) for i, s in enumerate(run.steps)]
        # prime a cache with every text of the run encoded in one padded batch
        batched = CachedEmbedder(real_model, max_items=10_000)
        probe = Engine(embedder=OneByOne())
        texts = [t for s in steps for t in probe.embed_inputs(s) if t is not None]
        batched.encode(texts)
        single = Engine(embedder=OneByOne())
        together = Engine(embedder=batched)
        for step in steps:
            assert single.observe(run.id, step, run.context) == together.observe(run.id, step, run.context)


def test_batching_embedder_merges_concurrent_calls(real_model) -> None:  # type: ignore[no-untyped-def]
    """Concurrent callers share model calls and each gets its own rows back."""
    from concurrent.futures import ThreadPoolExecutor

    batcher = BatchingEmbedder(real_model, max_batch=64, max_wait_ms=20)
    texts = [f"step {i}: checking shard {i} of the index" for i in range(16)]
    with ThreadPoolExecutor(8) as pool:
        out = list(pool.map(lambda t: batcher.encode([t])[0], texts))
    batcher.close()
    ref = real_model.encode(texts)
    assert all(float(o @ r) > 0.9999 for o, r in zip(out, ref, strict=False))
    assert len(batcher.batch_sizes) < len(texts)
