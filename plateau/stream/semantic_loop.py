"""Semantic recurrence inside one stream: sentences that keep landing near earlier ones.

A templated reasoning loop restates the same steps in new words each time ("wait, let me
recount..."): string matching sees fresh text, a sentence encoder sees the same sentences.
:class:`SemanticRecurrence` collects the completed sentences of the channel (at most one per
``40`` characters, each cut to 300 characters), embeds them in batches with the guard's
:class:`~plateau.embed.Embedder` -- on a background thread by default, never on the chunk path --
and marks each new sentence *near* when its cosine similarity to an earlier sentence of the same
response (the last 64) reaches ``semantic_similarity``. When at least ``semantic_fraction`` of
the last ``semantic_window`` sentences are near, it *recurs*. A sentence that differs from the
one it lands near only by a word or two that no earlier sentence holds is the next item of an
enumeration (a verse that differs from the one before by its count and its rhyme), not near:
a restatement recycles its words.

Alone, recurrence only **steers** (a message, the stream goes on): meaning is not wording, and a
converging argument may circle back to its premises. The guard fires on it only with textual
corroboration (the word n-gram novelty at most ``corroboration_fresh``), as
``stream.semantic_loop`` -- never in output the request asks to paste, over copies read as an
enumeration, in a plan the request asks to recur by design (a schedule, a log with one block
per day: :attr:`~plateau.stream.context.RequestContext.recurring`), or in parts the request
counts (a letter for each of six members, ten examples:
:attr:`~plateau.stream.context.RequestContext.items`), which are written from one frame, as
``stream.anaphora`` and ``stream.recheck`` read them.

Cost: sentence splitting is one regular-expression pass per block; sentences are embedded in
batches of 8, and at once when the last queued sentence brings no new word (a restatement may
have begun; one set test per sentence); embedding is bounded by the batch queue (at most 4
batches in flight; sentences arriving while it is full are skipped and counted in
:attr:`SemanticRecurrence.skipped`). Results are taken up at the next block after they
are ready, so the chunk that steers depends on the embedding speed; :meth:`drain` waits for them
(tests, offline evaluation), and ``background=False`` embeds synchronously (deterministic).

References
----------
.. [1] N. Reimers and I. Gurevych, "Sentence-BERT: Sentence embeddings using Siamese BERT
   networks", EMNLP 2019 (the encoder family of all-MiniLM-L6-v2).
"""

from __future__ import annotations

import re
import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from plateau.stream.config import StreamGuardConfig

__all__ = ["SemanticRecurrence"]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_MIN_WORDS = re.compile(r"(?:\b[^\W\d_]{2,}\b.*?){4}", re.S)
_MAX_SENTENCE = 300
_MAX_PENDING = 1200  # characters of an unfinished sentence kept
_BATCH = 8
_MAX_INFLIGHT = 4
_MEMORY = 64
_MAX_WORDS = 32_768  # distinct words of the response remembered (cleared when full)
_WORD = re.compile(r"[^\W\d_]{2,}")

_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="plateau-stream-embed")
        return _POOL


class SemanticRecurrence:
    """Recurrence of meaning among the completed sentences of one stream.

    Parameters
    ----------
    embedder
        An :class:`~plateau.embed.Embedder` (``encode(list[str]) -> (n, dim)`` unit rows).
    config
        The guard's hyper-parameters (``semantic_similarity``, ``semantic_window``,
        ``semantic_fraction``).
    background
        Embed on a shared background thread (default) or synchronously in :meth:`add`.

    Attributes
    ----------
    recurring : bool
        Whether the last window of sentences recurs.
    near : int
        Near sentences in the current window.
    example : str or None
        The most recent near sentence, and ``origin`` the earlier sentence it lands near.
    skipped : int
        Sentences not embedded because the queue was full.
    errors : int
        Batches lost because the embedder raised (the stream goes on without them).
    """

    def __init__(self, embedder: Any, config: StreamGuardConfig, *, background: bool = True) -> None:
        if not hasattr(embedder, "encode"):
            raise TypeError(f"embedder must have an encode(texts) method, got {type(embedder).__name__}")
        self.embedder = embedder
        self.config = config
        self.background = background
        self._pend = ""
        self._pend_start = 0
        self._batch: list[tuple[str, int]] = []
        self._inflight: deque[tuple[Future[Any], list[tuple[str, int]]]] = deque()
        self._vectors: deque[Any] = deque(maxlen=_MEMORY)
        self._texts: deque[tuple[str, int]] = deque(maxlen=_MEMORY)
        self._marks: deque[tuple[int, bool]] = deque(maxlen=_MEMORY)  # (start, near) of each embedded sentence
        self._window: deque[bool] = deque(maxlen=config.semantic_window)
        self._words: set[str] = set()  # the words of the sentences embedded
        self._queued: set[str] = set()  # the words of the sentences queued (embedded or not)
        self._next_at = 0
        self.recurring = False
        self.near = 0
        self.example: str | None = None
        self.origin: tuple[str, int] | None = None
        self.skipped = 0
        self.errors = 0

    def add(self, text: str, base: int) -> None:
        """Split ``text`` (the block starting at absolute offset ``base``) into sentences and queue the completed ones."""
        joined = self._pend + text
        base0 = self._pend_start if self._pend else base
        pos = 0
        recycled = False
        for m in _SENTENCE_END.finditer(joined):
            part = joined[pos : m.start()]
            start = base0 + pos
            if part and start >= self._next_at and _MIN_WORDS.search(part):
                self._batch.append((part[:_MAX_SENTENCE], start))
                self._next_at = start + 40
                words = set(_WORD.findall(part[:_MAX_SENTENCE].lower()))
                recycled = words <= self._queued
                if len(self._queued) >= _MAX_WORDS:
                    self._queued.clear()
                self._queued |= words
            pos = m.end()
        if len(joined) - pos > _MAX_PENDING:
            pos = len(joined) - _MAX_PENDING
        self._pend = joined[pos:]
        self._pend_start = base0 + pos
        # A full batch is embedded; so is a batch whose last sentence brings no new word (a
        # restatement may have begun: judged now, not a batch of sentences later).
        if len(self._batch) >= _BATCH or (recycled and self._batch):
            self._submit()

    def _submit(self) -> None:
        batch, self._batch = self._batch, []
        if not batch:
            return
        if len(self._inflight) >= _MAX_INFLIGHT:
            self.skipped += len(batch)
            return
        texts = [t for t, _ in batch]
        future: Future[Any]
        if self.background:
            future = _pool().submit(self.embedder.encode, texts)
        else:
            future = Future()
            try:
                future.set_result(self.embedder.encode(texts))
            except Exception as exc:  # noqa: BLE001 - an embedder failure must not break the stream
                future.set_exception(exc)
        self._inflight.append((future, batch))
        if not self.background:
            self.poll()

    def poll(self) -> bool:
        """Take up the embeddings that are ready (never waits); return :attr:`recurring`."""
        while self._inflight and self._inflight[0][0].done():
            future, batch = self._inflight.popleft()
            if future.exception() is not None:  # the embedder failed: the batch is lost, the stream goes on
                self.errors += 1
                continue
            self._integrate(future.result(), batch)
        return self.recurring

    def flush(self) -> None:
        """Embed the sentences queued so far without waiting for a full batch (never waits).

        Synchronously when ``background`` is False; otherwise the batch is submitted and taken
        up by a later :meth:`poll`.
        """
        self._submit()
        self.poll()

    @property
    def window_start(self) -> int:
        """Absolute offset where the oldest sentence of the current window begins (-1 when empty)."""
        n = min(len(self._window), len(self._marks))
        return self._marks[-n][0] if n else -1

    def near_since(self, start: int) -> tuple[int, int]:
        """``(near, embedded)``: sentences beginning at or after offset ``start`` that were
        embedded, and how many of them landed near an earlier sentence."""
        near = total = 0
        for at, is_near in reversed(self._marks):
            if at < start:
                break
            total += 1
            near += is_near
        return near, total

    def drain(self, timeout: float | None = None) -> bool:
        """Embed what is queued and wait for every batch in flight; return :attr:`recurring`."""
        self._submit()
        for future, _ in list(self._inflight):
            try:
                future.exception(timeout=timeout)
            except TimeoutError:
                break
        return self.poll()

    def _integrate(self, vectors: Any, batch: list[tuple[str, int]]) -> None:
        import numpy as np

        cfg = self.config
        for row, (text, start) in zip(vectors, batch, strict=True):
            near = False
            words = set(_WORD.findall(text.lower()))
            if self._vectors:
                sims = np.asarray(self._vectors) @ np.asarray(row, dtype=np.float32)
                best = int(np.argmax(sims))
                if float(sims[best]) >= cfg.semantic_similarity and not self._names_new(words, self._texts[best][0]):
                    near = True
                    self.example = text
                    self.origin = self._texts[best]
            if len(self._words) >= _MAX_WORDS:
                self._words.clear()
            self._words.update(words)
            self._vectors.append(np.asarray(row, dtype=np.float32))
            self._texts.append((text, start))
            self._marks.append((start, near))
            self._window.append(near)
        self.near = sum(self._window)
        self.recurring = len(self._window) == cfg.semantic_window and self.near >= cfg.semantic_fraction * cfg.semantic_window

    def _names_new(self, a: set[str], origin: str) -> bool:
        """Whether a sentence of the words ``a`` differs from the earlier sentence it lands near
        (``origin``) only by a word or two that no earlier sentence of the response holds: the
        next item of an enumeration (a verse that differs from the one before by its count and
        its rhyme), not a restatement, which recycles its words."""
        b = set(_WORD.findall(origin.lower()))
        added = a - b
        return 0 < len(added) <= 2 and len(b - a) <= 2 and not (added & self._words)

    def message(self) -> str:
        """The steer message: what recurs, and what to do instead."""
        example = (self.example or "").strip()
        if len(example) > 120:
            example = example[:117] + "..."
        return (
            f"The response keeps restating itself: {self.near} of its last {len(self._window)} sentences say again "
            f'what an earlier one said (e.g. "{example}"). Stop re-checking; state the conclusion once and move on.'
        )

    @property
    def size(self) -> int:
        """Sentences remembered (embedded), pending a batch, and in flight."""
        return len(self._vectors) + len(self._batch) + sum(len(b) for _, b in self._inflight)
