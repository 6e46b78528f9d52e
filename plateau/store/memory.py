"""In-memory run store: a dict of run records (lost on restart).

The library's default (``Engine()``) and the server's with ``plateau serve --store memory``.
Records are kept as live objects that the engine changes in place; each change the engine
commits (:meth:`MemoryStore.append` and friends) also keeps a *committed copy*: the learned
state pickled and compressed (zlib level 1: a run of 20 steps holds a ~50 KB pickle, ~7 KB
compressed), the other fields as they were, and the length of the step lists (which only
grow between commits). :meth:`MemoryStore.discard` rebuilds the live record from that copy,
so a step that fails half-way through being applied leaves no trace, as on a durable store.
The copy costs one pickle and one compression of the learned state per step: for a run of 60
steps with 20 KB results, a 1.3 MB pickle compressed to 25 KB, 3.6 ms + 3.3 ms on a shared
2-core machine, against ~60 ms for embedding the step. See :mod:`plateau.store.base` for the
contract.

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
2.1 GB kept after deleting all of them; the learned state is ~130 KiB of that, the committed
pickle was ~50 KiB.
"""

from __future__ import annotations

import copy
import ctypes
import ctypes.util
import dataclasses
import heapq
import math
import pickle
import threading
import zlib
from collections import Counter
from collections.abc import Iterator
from typing import Any

from plateau.store.base import RunKey, SingleProcessStore, run_summary, state_too_large

__all__ = ["MemoryStore", "release_free_memory"]

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


@dataclasses.dataclass(frozen=True)
class _Committed:
    """A record as last committed: its learned state pickled and compressed, list fields by length."""

    record: Any
    fields: dict[str, Any]
    lengths: dict[str, int]
    analysis: bytes | None
    state_bytes: int  # the pickle's size before compression

    @classmethod
    def of(cls, record: Any) -> _Committed:
        fields: dict[str, Any] = {}
        lengths: dict[str, int] = {}
        analysis = None
        state_bytes = 0
        names = [f.name for f in dataclasses.fields(record)] if dataclasses.is_dataclass(record) else list(vars(record))
        for name in names:
            value = getattr(record, name)
            if name == "analysis":
                raw = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
                state_bytes = len(raw)
                analysis = zlib.compress(raw, 1)
            elif isinstance(value, list):
                fields[name] = value
                lengths[name] = len(value)
            else:
                fields[name] = value
        return cls(record=record, fields=fields, lengths=lengths, analysis=analysis, state_bytes=state_bytes)

    def restore(self) -> Any:
        """A fresh record equal to the committed one (the live one may be half-changed)."""
        record = copy.copy(self.record)
        for name, value in self.fields.items():
            setattr(record, name, value[: self.lengths[name]] if name in self.lengths else value)
        if self.analysis is not None:
            record.analysis = pickle.loads(zlib.decompress(self.analysis))
        return record


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

    def __init__(self, *, trim_bytes: int = 64 * 1024 * 1024) -> None:
        if trim_bytes < 0:
            raise ValueError(f"trim_bytes must be >= 0, got {trim_bytes}")
        super().__init__()
        self.trim_bytes = trim_bytes
        #: How many times deletions returned memory to the operating system.
        self.trims = 0
        self._freed = 0
        self._held = 0  # bytes of committed state of the runs kept
        self._records: dict[RunKey, Any] = {}
        self._committed: dict[RunKey, _Committed] = {}
        self._counts: Counter[str] = Counter()
        # tenant -> {run_id: ended_at} of its ended runs, and a heap of (ended_at, run_id) over
        # them whose entries are valid while they match the map (stale ones are skipped, and
        # the heap is rebuilt when they outnumber the valid ones)
        self._ended: dict[str, dict[str, float]] = {}
        self._heaps: dict[str, list[tuple[float, str]]] = {}
        self._guard = threading.Lock()

    def get(self, key: RunKey) -> Any | None:
        """The record of ``key``, or None."""
        return self._records.get(key)

    def _put(self, key: RunKey, record: Any, *, check_size: bool = False) -> None:
        committed = _Committed.of(record)
        if check_size and committed.state_bytes > self.max_state_bytes:
            raise state_too_large(key[1], committed.state_bytes, self.max_state_bytes)
        with self._guard:
            if key not in self._records:
                self._counts[key[0]] += 1
            self._records[key] = record
            old = self._committed.get(key)
            self._held += committed.state_bytes - (0 if old is None else old.state_bytes)
            self._committed[key] = committed
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
        self._put(key, record)

    def update(self, key: RunKey, record: Any) -> None:
        """Keep ``record`` (metadata changed)."""
        self._put(key, record)

    def _drop(self, key: RunKey) -> int:
        """Forget ``key`` (called with the guard held); the bytes of state freed."""
        committed = self._committed.pop(key, None)
        if committed is not None:
            self._held -= committed.state_bytes
        if self._records.pop(key, None) is not None:
            self._counts[key[0]] -= 1
            if self._counts[key[0]] <= 0:
                del self._counts[key[0]]
        self._index_ended(key, None)
        return 0 if committed is None else committed.state_bytes

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
            committed = self._committed.get(key)
            if committed is not None:
                self._records[key] = committed.restore()
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
        """Keys of runs idle since before ``idle_before`` or ended before ``ended_before``."""
        out = []
        for key, rec in list(self._records.items()):
            if rec.ended and rec.ended_at is not None and not math.isinf(ended_before) and rec.ended_at < ended_before:
                out.append(key)
            elif not math.isinf(idle_before) and rec.updated < idle_before:
                out.append(key)
        return out

    def keys(self) -> Iterator[RunKey]:
        """Every key held (a snapshot)."""
        return iter(list(self._records))

    def summaries(self, tenant: str) -> list[Any]:
        """The :class:`~plateau.types.RunSummary` of each of ``tenant``'s runs, read from the
        committed copies (a step being applied meanwhile is not seen half-done)."""
        with self._guard:
            committed = [c for key, c in self._committed.items() if key[0] == tenant]
        out = []
        for c in committed:
            f, steps = c.fields, c.lengths.get("verdicts", 0)
            out.append(
                run_summary(
                    f["run_id"], context=f["context"], ended=f["ended"], created=f["created"], updated=f["updated"],
                    ended_at=f["ended_at"], steps=steps, last=f["verdicts"][steps - 1] if steps else None,
                )
            )
        return out

    def probe(self) -> tuple[bool, str]:
        """Always ``(True, "")``: process memory has no fault a probe could see."""
        return True, ""

    def close(self) -> None:
        """Nothing to release."""

    def __len__(self) -> int:
        return len(self._records)
