"""In-memory run store: run records by key, each kept as its committed copy (lost on restart).

The library's default (``Engine()``) and the server's with ``plateau serve --store memory``.
Each change the engine commits (:meth:`MemoryStore.append` and friends) keeps a *committed
copy* of the record: the learned state pickled and compressed (zlib level 1), its read-only
arrays (the step vectors, which the run shares with the embedder's cache) out of band, held by
reference; the other fields as they were, and the length of the step lists (which only grow
between commits). That copy is all the store keeps of a run: the records of the
:data:`HOT_RUNS` most recently used runs are also kept live (the engine changes them in
place), and any other run is rebuilt from its copy when read. :meth:`MemoryStore.discard`
drops the live record, so a step that fails half-way through being applied leaves no trace,
as on a durable store. The copy costs one pickle and one compression of the learned state per
step (~0.6 ms for a run of 20 steps, against ~60 ms for embedding the step); a rebuild ~0.7 ms.

Why (issue 22, item 12): a run of 20 steps held ~280 KiB of live objects: its learned state
(~80 KiB of objects: term sets, digests, windows), its vectors (40 of 1.5 KiB), a second copy
of each vector in its committed pickle (~62 KiB compressed: vectors do not compress) and a
third in the embedder's cache. Compressed with its vectors out of band, the state of a run of
20 steps is ~4 KiB, plus the vectors it shares with the cache and its verdicts.

Counts and limits are kept as counters, never by scanning runs: runs per tenant, and each
tenant's ended runs in a heap by end time, so finding the run that gives way at the tenant's
limit costs O(log n) whatever the number of runs (issue 22, item 12). A step that would take
a run's committed pickle past ``Config.max_run_state_bytes`` is refused before anything is
kept.

Memory given back: deleting a run drops every object the store holds for it (the record, its
committed copy, its entries in the counters and the heap). The C allocator keeps freed memory
for reuse, so after deleting runs holding ``trim_bytes`` of state (default 64 MiB), or as
much state as the runs still kept hold (a small store emptied), the store asks glibc to
return free memory to the operating system (``malloc_trim(0)``; elsewhere a no-op).
Issue 22 measured 216 KiB of RSS a run after 10,000 runs of 20 steps, and 0.9 GB of
2.1 GB kept after deleting all of them.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import heapq
import io
import math
import pickle
import threading
import zlib
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from plateau.store.base import RunKey, SingleProcessStore, run_summary, state_too_large

__all__ = ["HOT_RUNS", "LOG_BLOCK", "MemoryStore", "release_free_memory"]

#: Runs whose records are kept live (the most recently used); every other run is kept as its
#: committed copy alone and rebuilt when read. 16 live runs of ~100-200 KiB are a few MiB, and a
#: rebuild (~0.7 ms for a run of 20 steps) is small beside embedding a step (~60 ms); runs being
#: judged are held live by their callers whatever this number.
HOT_RUNS = 16

_libc: Any = None


def release_free_memory() -> bool:
    """Ask the C allocator to return free heap memory to the operating system (glibc's
    ``malloc_trim(0)``); False where that is not available (another libc, not Linux)."""
    global _libc
    if _libc is None:
        name = ctypes.util.find_library("c")
        try:
            lib = ctypes.CDLL(name) if name else None
            _libc = lib if lib is not None and hasattr(lib, "malloc_trim") else False
        except OSError:
            _libc = False
    if not _libc:
        return False
    _libc.malloc_trim(0)
    return True


def _out_of_band(buffers: list[pickle.PickleBuffer]) -> Callable[[pickle.PickleBuffer], bool]:
    """A pickle ``buffer_callback`` that keeps read-only buffers (the embedding vectors, shared
    with the embedder's cache: :meth:`plateau.embed.CachedEmbedder.vectors`) out of band, by
    reference, and writes every other buffer into the pickle."""

    def callback(buffer: pickle.PickleBuffer) -> bool:
        try:
            readonly = buffer.raw().readonly
        except BufferError:  # not contiguous: in band
            return True
        if not readonly:
            return True  # may change in place: a copy
        buffers.append(buffer)
        return False

    return callback


def _owner(array: Any) -> Any:
    """The array that owns the memory ``array`` views whole (numpy's pickling hands out a fresh
    view of each array; the committed copy keeps the owner, not one view object per commit)."""
    while isinstance(array, np.ndarray) and isinstance(array.base, np.ndarray):
        base = array.base
        if base.nbytes != array.nbytes or base.ctypes.data != array.ctypes.data:
            break
        array = base
    return array


#: Items of a list field compressed together into one block of its log (:class:`_Log`): a
#: verdict pickles to ~0.9 KiB, mostly signal names that recur, so 16 compress to ~2 KiB.
LOG_BLOCK = 16


@dataclasses.dataclass(frozen=True)
class _Log:
    """A list field as committed: its items pickled one after another, every :data:`LOG_BLOCK`
    of them compressed into a block (``blocks``), the rest in ``tail`` (shared by the record's
    successive commits, each reading its first ``nbytes``); ``count`` items in all, the last
    one at ``last`` in the tail (when the tail holds any)."""

    blocks: tuple[bytes, ...]
    tail: bytearray
    nbytes: int
    count: int
    last: int

    @classmethod
    def of(cls, items: list[Any], previous: _Log | None) -> _Log:
        """``items`` committed, appending to ``previous`` when they extend what it holds (a
        list field only grows between commits; a list written anew passes no ``previous``).
        O(new items) amortised."""
        if previous is None or len(items) < previous.count:
            blocks: tuple[bytes, ...] = ()
            tail, nbytes, last, start = bytearray(), 0, 0, 0
        else:
            blocks, tail, nbytes, last, start = previous.blocks, previous.tail, previous.nbytes, previous.last, previous.count
            del tail[nbytes:]  # what a refused commit appended
        for k in range(start, len(items)):
            last = nbytes
            tail += pickle.dumps(items[k], protocol=5)
            nbytes = len(tail)
            if (k + 1) % LOG_BLOCK == 0:
                blocks += (zlib.compress(bytes(tail), 1),)
                tail, nbytes = bytearray(), 0
        return cls(blocks, tail, nbytes, len(items), last)

    def items(self) -> list[Any]:
        """The committed items (new objects)."""
        out: list[Any] = []
        for block in self.blocks:
            unpickler = pickle.Unpickler(io.BytesIO(zlib.decompress(block)))
            out.extend(unpickler.load() for _ in range(LOG_BLOCK))
        unpickler = pickle.Unpickler(io.BytesIO(self.tail[: self.nbytes]))
        out.extend(unpickler.load() for _ in range(self.count - len(out)))
        return out

    def last_item(self) -> Any:
        """The last committed item (there is one)."""
        if self.count % LOG_BLOCK:
            return pickle.loads(self.tail[self.last : self.nbytes])
        unpickler = pickle.Unpickler(io.BytesIO(zlib.decompress(self.blocks[-1])))
        return [unpickler.load() for _ in range(LOG_BLOCK)][-1]


@dataclasses.dataclass(frozen=True)
class _Committed:
    """A record as last committed: its other fields as they were, its list fields as logs of
    pickled items (:class:`_Log`), its learned state pickled and compressed with its read-only
    arrays (the step vectors) out of band, held by reference rather than copied. A run not
    kept live is these few objects, not the thousands of its verdicts, floats and strings."""

    cls: Any  # the record's class
    fields: dict[str, Any]
    logs: dict[str, _Log]
    analysis: bytes | None
    buffers: tuple[Any, ...]  # the out-of-band arrays
    state_bytes: int  # the pickle's size with its out-of-band buffers, before compression

    @classmethod
    def of(cls, record: Any, previous: _Committed | None = None) -> _Committed:
        fields: dict[str, Any] = {}
        logs: dict[str, _Log] = {}
        analysis = None
        buffers: list[pickle.PickleBuffer] = []
        state_bytes = 0
        names = [f.name for f in dataclasses.fields(record)] if dataclasses.is_dataclass(record) else list(vars(record))
        for name in names:
            value = getattr(record, name)
            if name == "analysis":
                raw = pickle.dumps(value, protocol=5, buffer_callback=_out_of_band(buffers))
                state_bytes = len(raw) + sum(b.raw().nbytes for b in buffers)
                analysis = zlib.compress(raw, 1)
            elif isinstance(value, list):
                logs[name] = _Log.of(value, None if previous is None else previous.logs.get(name))
            else:
                fields[name] = value
        arrays = tuple(_owner(b.raw().obj) for b in buffers)
        return cls(type(record), fields, logs, analysis, arrays, state_bytes)

    def restore(self) -> Any:
        """A fresh record equal to the committed one (the live one may be half-changed)."""
        record = self.cls.__new__(self.cls)
        for name, value in self.fields.items():
            setattr(record, name, value)
        for name, log in self.logs.items():
            setattr(record, name, log.items())
        if self.analysis is not None:
            record.analysis = pickle.loads(zlib.decompress(self.analysis), buffers=self.buffers)
        return record

    def length(self, name: str) -> int:
        """Items of the list field ``name`` (0 without one)."""
        log = self.logs.get(name)
        return 0 if log is None else log.count


class MemoryStore(SingleProcessStore):
    """Run records by ``(tenant, run_id)``, in process memory, with all-or-nothing changes.

    Parameters
    ----------
    trim_bytes
        After deleting runs whose learned state adds up to this many bytes (pickled), return
        free memory to the operating system (:func:`release_free_memory`); int >= 0, 0 after
        every deletion. Default 64 MiB. Memory is also returned once deletions since the last
        return freed at least as much state as the store still holds (at least half of it is
        free, the store emptied included), so a small store gives memory back too; the cost of
        ``malloc_trim`` (in the heap's size) is thus paid at most once per halving of the state.

    Raises
    ------
    ValueError
        ``trim_bytes`` < 0.
    """

    def __init__(self, *, trim_bytes: int = 64 * 1024 * 1024, hot_runs: int = HOT_RUNS) -> None:
        if trim_bytes < 0:
            raise ValueError(f"trim_bytes must be >= 0, got {trim_bytes}")
        if hot_runs < 0:
            raise ValueError(f"hot_runs must be >= 0, got {hot_runs}")
        super().__init__()
        self.trim_bytes = trim_bytes
        self.hot_runs = hot_runs
        #: How many times deletions returned memory to the operating system.
        self.trims = 0
        self._freed = 0
        self._held = 0  # bytes of committed state of the runs kept
        self._hot: OrderedDict[RunKey, Any] = OrderedDict()  # live records, least recently used first
        self._committed: dict[RunKey, _Committed] = {}
        self._counts: Counter[str] = Counter()
        # tenant -> {run_id: ended_at} of its ended runs, and a heap of (ended_at, run_id) over
        # them whose entries are valid while they match the map (stale ones are skipped, and
        # the heap is rebuilt when they outnumber the valid ones)
        self._ended: dict[str, dict[str, float]] = {}
        self._heaps: dict[str, list[tuple[float, str]]] = {}
        self._guard = threading.Lock()

    def _keep_hot(self, key: RunKey, record: Any) -> None:
        """Keep ``record`` live as ``key``'s, the least recently used live record giving way (guard held)."""
        if self.hot_runs == 0:
            self._hot.pop(key, None)
            return
        self._hot[key] = record
        self._hot.move_to_end(key)
        while len(self._hot) > self.hot_runs:
            self._hot.popitem(last=False)

    def get(self, key: RunKey) -> Any | None:
        """The record of ``key``, or None: the live one of a recently used run, else rebuilt from
        its committed copy (~0.7 ms for a run of 20 steps) and kept live."""
        with self._guard:
            record = self._hot.get(key)
            if record is not None:
                self._hot.move_to_end(key)
                return record
            committed = self._committed.get(key)
        if committed is None:
            return None
        record = committed.restore()  # outside the guard: other runs are not held up
        with self._guard:
            if self._committed.get(key) is committed:  # neither changed nor deleted meanwhile
                live = self._hot.get(key)
                if live is not None:
                    return live
                self._keep_hot(key, record)
        return record

    def _put(self, key: RunKey, record: Any, *, check_size: bool = False, extends: bool = True) -> None:
        # a record that extends the committed one appends its new list items to the same logs
        committed = _Committed.of(record, self._committed.get(key) if extends else None)
        if check_size and committed.state_bytes > self.max_state_bytes:
            raise state_too_large(key[1], committed.state_bytes, self.max_state_bytes)
        with self._guard:
            old = self._committed.get(key)
            if old is None:
                self._counts[key[0]] += 1
            self._held += committed.state_bytes - (0 if old is None else old.state_bytes)
            self._committed[key] = committed
            self._keep_hot(key, record)
            self._index_ended(key, record)

    def _index_ended(self, key: RunKey, record: Any | None) -> None:
        """Keep the tenant's ended-run index in step with ``record`` (None: the run is gone)."""
        tenant, run_id = key
        ended = self._ended.get(tenant)
        if record is not None and record.ended:
            at = float(record.ended_at or 0.0)
            if ended is None:
                ended = self._ended[tenant] = {}
            if ended.get(run_id) != at:
                ended[run_id] = at
                heapq.heappush(self._heaps.setdefault(tenant, []), (at, run_id))
        elif ended is not None and ended.pop(run_id, None) is not None:
            heap = self._heaps[tenant]
            if not ended:
                del self._ended[tenant], self._heaps[tenant]
            elif len(heap) > 2 * len(ended) + 16:
                self._heaps[tenant] = [(at, r) for r, at in ended.items()]
                heapq.heapify(self._heaps[tenant])

    def append(self, key: RunKey, record: Any) -> None:
        """Keep ``record`` (it gained one step) and its committed copy.

        Raises ``LimitExceeded`` (nothing kept) when its learned state, pickled, exceeds
        ``Config.max_run_state_bytes``.
        """
        self._put(key, record, check_size=True)

    def replace(self, key: RunKey, record: Any) -> None:
        """Keep ``record`` in place of the old one."""
        self._put(key, record, extends=False)

    def update(self, key: RunKey, record: Any) -> None:
        """Keep ``record`` (metadata changed)."""
        self._put(key, record)

    def _drop(self, key: RunKey) -> int:
        """Forget ``key`` (called with the guard held); the bytes of state freed."""
        self._hot.pop(key, None)
        committed = self._committed.pop(key, None)
        if committed is None:
            return 0
        self._held -= committed.state_bytes
        self._counts[key[0]] -= 1
        if self._counts[key[0]] <= 0:
            del self._counts[key[0]]
        self._index_ended(key, None)
        return committed.state_bytes

    def delete(self, key: RunKey) -> None:
        """Forget ``key`` (no error when absent); returns free memory to the operating system
        once deletions freed ``trim_bytes``, or as much as the store still holds (see the class)."""
        with self._guard:
            self._freed += self._drop(key)
            trim = self._freed > 0 and (self._freed >= self.trim_bytes or self._freed >= self._held)
            if trim:
                self._freed = 0
        if trim:
            # the record may still be referenced by the caller; what is free now is returned
            self.trims += release_free_memory()

    def discard(self, key: RunKey) -> None:
        """Undo uncommitted changes: the record becomes its last committed copy again (a run
        never committed is forgotten)."""
        with self._guard:
            if key in self._committed:
                self._hot.pop(key, None)  # the next get() rebuilds it from the committed copy
            else:
                self._drop(key)

    def count(self, tenant: str) -> int:
        """Number of runs ``tenant`` holds (a counter)."""
        return self._counts.get(tenant, 0)

    def oldest_ended(self, tenant: str) -> RunKey | None:
        """The key of ``tenant``'s run that ended first, or None when none has ended
        (O(log n): the tenant's heap of ended runs)."""
        with self._guard:
            ended = self._ended.get(tenant)
            if not ended:
                return None
            heap = self._heaps[tenant]
            while heap:
                at, run_id = heap[0]
                if ended.get(run_id) == at:
                    return (tenant, run_id)
                heapq.heappop(heap)
            return None  # pragma: no cover - the map and the heap hold the same runs

    def expired(self, idle_before: float, ended_before: float) -> list[RunKey]:
        """Keys of runs idle since before ``idle_before`` or ended before ``ended_before`` (read
        from the committed copies)."""
        with self._guard:
            committed = list(self._committed.items())
        out = []
        for key, c in committed:
            f = c.fields
            if f["ended"] and f["ended_at"] is not None and not math.isinf(ended_before) and f["ended_at"] < ended_before:
                out.append(key)
            elif not math.isinf(idle_before) and f["updated"] < idle_before:
                out.append(key)
        return out

    def keys(self) -> Iterator[RunKey]:
        """Every key held (a snapshot)."""
        with self._guard:
            return iter(list(self._committed))

    def summaries(self, tenant: str) -> list[Any]:
        """The :class:`~plateau.types.RunSummary` of each of ``tenant``'s runs, read from the
        committed copies (a step being applied meanwhile is not seen half-done)."""
        with self._guard:
            committed = [c for key, c in self._committed.items() if key[0] == tenant]
        out = []
        for c in committed:
            f, steps = c.fields, c.length("verdicts")
            out.append(
                run_summary(
                    f["run_id"], context=f["context"], ended=f["ended"], created=f["created"], updated=f["updated"],
                    ended_at=f["ended_at"], steps=steps, last=c.logs["verdicts"].last_item() if steps else None,
                )
            )
        return out

    def probe(self) -> tuple[bool, str]:
        """Always ``(True, "")``: process memory has no fault a probe could see."""
        return True, ""

    def close(self) -> None:
        """Nothing to release."""

    def __len__(self) -> int:
        return len(self._committed)
