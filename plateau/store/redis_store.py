"""Run store on Redis (redis-py), shared by any number of stateless ``plateau serve`` replicas.

``plateau serve --store redis://HOST:PORT/DB``. Every replica can take any step of any run:
the run's state lives in Redis, each change is one Lua script that compares the version the
replica read with the stored one and applies the change only when they are equal
(compare-and-set), so two replicas can never both apply step *i* of a run; the loser re-reads
the run and returns the verdict the winner stored (the engine is deterministic, so it is the
verdict it would have given). A replica that receives step *i* while step *i−1* is judged on
another waits for it through Redis (:meth:`RedisStore.inflight`), bounded by the engine's
``order_wait_seconds``.

Layout, per run (``H`` = the first 32 hex digits of SHA-256 of ``tenant NUL run_id``; the
``{H}`` hash tag keeps a run's keys together)::

    plateau:{H}:meta   hash   tenant, run_id, context, ended, created, updated, ended_at,
                              ver ("EPOCH:N", changes on every write), base (the state's base
                              document), xoff (index of the state log's first entry), fmt
                              (layout version), afmt (the learned state's ANALYSIS_FORMAT)
    plateau:{H}:steps  list   one entry per accepted step: [fingerprint, verdict, time] as JSON
                              (layout 1 wrote [fingerprint, verdict]: no time)
    plateau:{H}:x      list   the state log (:class:`plateau.store.codec.StateLog`)
    plateau:{H}:busy   zset   steps being judged: "INDEX:TOKEN" scored by a deadline
    plateau:tenant:T   zset   the tenant's runs (H) scored by their expiry time (for counting)

The learned state is written with :mod:`plateau.store.codec` (tagged JSON, versioned, never
pickle): a small base document plus a log of container changes, so a step writes its verdict,
the base and the changes, not the run's history. Retention is Redis expiry: every write sets
the run's keys to expire after ``idle_run_ttl_seconds`` (``ended_run_ttl_seconds`` once
ended). A replica keeps recently used runs decoded in memory and checks their version with
one round trip per read; when another replica moved the run on it reads only the new steps
and log entries.

Any Redis error (unreachable, timeout, out of memory) is :class:`~plateau.errors.StoreUnavailable`
(``UNAVAILABLE``): the step was not applied and retrying it is safe. Not for Redis Cluster (a
change touches the tenant's key too); use one primary, with replicas for failover.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from plateau.errors import InvalidArgument, StoreUnavailable
from plateau.store.base import RunKey, StaleRecord, run_summary
from plateau.store.codec import CodecError, StateLog
from plateau.store.sqlite import ANALYSIS_FORMAT, verdict_from_json, verdict_to_json

__all__ = ["RedisStore"]

log = logging.getLogger("plateau.store")

#: Version of the key layout, stored in every run's ``fmt`` field. 2: a step entry holds the
#: time the step was accepted. Runs of layout 1 are read (their steps have no time) and written
#: on as layout 2; a version of Plateau that reads only layout 1 refuses a run of layout 2.
LAYOUT_VERSION = 2
_LAYOUTS_READ = (1, 2)

_COMMIT = """
local cur = redis.call('HGET', KEYS[1], 'ver')
if (cur or '') ~= ARGV[1] then return 0 end
if ARGV[3] == 'replace' or ARGV[1] == '' then redis.call('DEL', KEYS[2], KEYS[3]) end
if ARGV[4] ~= '' then
  if redis.call('LLEN', KEYS[2]) ~= tonumber(ARGV[5]) then return 0 end
  redis.call('RPUSH', KEYS[2], ARGV[4])
end
local xoff = 0
if ARGV[3] ~= 'replace' then xoff = tonumber(redis.call('HGET', KEYS[1], 'xoff') or '0') end
if ARGV[7] ~= '' then
  if ARGV[8] == '1' then
    xoff = xoff + redis.call('LLEN', KEYS[3])
    redis.call('DEL', KEYS[3])
  end
  redis.call('RPUSH', KEYS[3], ARGV[7])
end
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'base', ARGV[6]) end
local n = tonumber(ARGV[12])
for i = 1, n do redis.call('ZREM', KEYS[5], ARGV[12 + i]) end
redis.call('HSET', KEYS[1], 'ver', ARGV[2], 'xoff', xoff, unpack(ARGV, 13 + n))
local ttl = tonumber(ARGV[9])
for i = 1, 3 do
  if ttl > 0 then redis.call('PEXPIRE', KEYS[i], ttl) else redis.call('PERSIST', KEYS[i]) end
end
redis.call('ZADD', KEYS[4], ARGV[11], ARGV[10])
return 1
"""

_READ = """
for i = 5, #ARGV, 2 do redis.call('ZADD', KEYS[4], ARGV[i + 1], ARGV[i]) end
if #ARGV > 4 then redis.call('PEXPIRE', KEYS[4], 3600000) end
local ver = redis.call('HGET', KEYS[1], 'ver')
if not ver then return {} end
if ver == ARGV[1] then return {ver} end
local meta = redis.call('HGETALL', KEYS[1])
local xoff = tonumber(redis.call('HGET', KEYS[1], 'xoff') or '0')
local epoch = string.match(ver, '^[^:]*')
local s0, x0, inc = 0, 0, 0
if ARGV[2] == epoch and tonumber(ARGV[4]) >= xoff then
  s0 = tonumber(ARGV[3]); x0 = tonumber(ARGV[4]) - xoff; inc = 1
end
return {ver, meta, redis.call('LRANGE', KEYS[2], s0, -1), redis.call('LRANGE', KEYS[3], x0, -1), inc}
"""


@dataclass
class _Cached:
    """A replica's decoded copy of a run at version ``ver``."""

    record: Any
    ver: str
    xpos: int  # absolute index after the last state-log entry included
    state: StateLog


def _epoch(ver: str) -> str:
    return ver.partition(":")[0]


class RedisStore:
    """Run records in Redis, shared by several server processes (see the module docstring).

    Parameters
    ----------
    url
        ``redis://[:password@]HOST:PORT/DB`` (or ``rediss://`` for TLS, ``unix://PATH``).
    timeout
        Socket connect and read timeout in seconds (> 0); a Redis that does not answer in
        time is ``StoreUnavailable``. Default 5.
    cache_runs
        Most runs kept decoded in this process (int >= 1). Default 1,024.
    client
        A ready ``redis.Redis`` (tests); ``url`` is then only reported.

    Raises
    ------
    InvalidArgument
        ``store`` for a malformed URL.
    StoreUnavailable
        Redis cannot be reached at start-up (the message names the URL).
    """

    def __init__(self, url: str, *, timeout: float = 5.0, cache_runs: int = 1024, client: Any = None) -> None:
        if cache_runs < 1:
            raise ValueError(f"cache_runs must be >= 1, got {cache_runs}")
        if not timeout > 0:
            raise ValueError(f"timeout must be > 0, got {timeout}")
        import redis

        self._redis_errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        parsed = urlparse(url)
        if parsed.scheme not in ("redis", "rediss", "unix"):
            raise InvalidArgument("store", f"{url!r} is not a redis://HOST:PORT/DB URL")
        self.url = url
        self.errors = 0
        self.idle_ttl = 7 * 24 * 3600.0
        self.ended_ttl = 24 * 3600.0
        self._cache: OrderedDict[RunKey, _Cached] = OrderedDict()
        self.cache_runs = cache_runs
        self._lock = threading.Lock()
        self._replica = secrets.token_hex(6)
        # announcements (enter) not yet sent: they travel with the run's next read
        self._unsent: dict[RunKey, list[tuple[str, float]]] = {}
        # announcements sent and not yet withdrawn: a step's commit withdraws its own
        self._sent: dict[RunKey, set[str]] = {}
        self._r: Any = None
        try:
            self._r = client if client is not None else redis.Redis.from_url(
                url, socket_timeout=timeout, socket_connect_timeout=timeout, health_check_interval=30
            )
            self._r.ping()
            self._commit = self._r.register_script(_COMMIT)
            self._read = self._r.register_script(_READ)
        except ValueError as exc:
            raise InvalidArgument("store", f"{url!r}: {exc}") from exc
        except self._redis_errors as exc:
            raise StoreUnavailable(f"store: cannot reach Redis at {self._safe_url()}: {exc}") from exc

    def _safe_url(self) -> str:
        p = urlparse(self.url)
        return p._replace(netloc=p.netloc.rpartition("@")[2]).geturl()

    def bind(self, config: Any) -> None:
        """Take the retention periods from the engine's config (Redis expires the runs)."""
        self.idle_ttl = float(config.idle_run_ttl_seconds)
        self.ended_ttl = float(config.ended_run_ttl_seconds)

    # ------------------------------------------------------------------ keys
    @staticmethod
    def _h(key: RunKey) -> str:
        return hashlib.sha256(f"{key[0]}\0{key[1]}".encode()).hexdigest()[:32]

    def _keys(self, key: RunKey) -> list[str]:
        h = self._h(key)
        return [f"plateau:{{{h}}}:meta", f"plateau:{{{h}}}:steps", f"plateau:{{{h}}}:x", self._tenant_key(key[0])]

    @staticmethod
    def _tenant_key(tenant: str) -> str:
        return f"plateau:tenant:{tenant.encode().hex()}"

    def _busy_key(self, key: RunKey) -> str:
        return f"plateau:{{{self._h(key)}}}:busy"

    def _fail(self, key: RunKey | None, what: str, exc: BaseException) -> StoreUnavailable:
        self.errors += 1
        if key is not None:
            with self._lock:
                self._cache.pop(key, None)
        log.error("store: %s failed: %s", what, exc)
        return StoreUnavailable(f"store: {what} failed (Redis at {self._safe_url()}: {exc}); the change was not applied, retrying is safe")

    # ------------------------------------------------------------------ reads
    def get(self, key: RunKey) -> Any | None:
        """The record of ``key`` (the cached copy when Redis holds the same version), or None.

        Raises ``StoreUnavailable`` when Redis cannot be read or the run was written in
        another format.
        """
        with self._lock:
            cached = self._cache.get(key)
            unsent = self._unsent.pop(key, [])
            if unsent:
                self._sent.setdefault(key, set()).update(token for token, _ in unsent)
        args: list[Any] = [cached.ver, _epoch(cached.ver), len(cached.record.fingerprints), cached.xpos] if cached else ["", "", 0, 0]
        for token, deadline in unsent:
            args += [token, deadline]
        try:
            reply = self._read(keys=[*self._keys(key)[:3], self._busy_key(key)], args=args)
        except self._redis_errors as exc:
            raise self._fail(key, f"reading run {key[1]!r}", exc) from exc
        if not reply:
            self.discard(key)
            return None
        if len(reply) == 1:
            assert cached is not None
            return cached.record
        try:
            fresh = self._decode(key, reply, cached)
        except (CodecError, ValueError, TypeError, KeyError, IndexError) as exc:
            raise self._fail(key, f"reading run {key[1]!r}", exc) from exc
        with self._lock:
            self._cache[key] = fresh
            self._cache.move_to_end(key)
            while len(self._cache) > self.cache_runs:
                self._cache.popitem(last=False)
        return fresh.record

    def _decode(self, key: RunKey, reply: list[Any], cached: _Cached | None) -> _Cached:
        from plateau.engine import RunRecord

        ver = reply[0].decode()
        raw = reply[1]
        meta = {raw[i].decode(): raw[i + 1] for i in range(0, len(raw), 2)}
        fmt = int(meta.get("fmt", b"0"))
        if fmt not in _LAYOUTS_READ:
            raise StoreUnavailable(f"store: run {key[1]!r} was saved in layout {fmt}; this Plateau reads layout {LAYOUT_VERSION}")
        afmt = int(meta.get("afmt", b"0"))
        if afmt != ANALYSIS_FORMAT:
            raise StoreUnavailable(
                f"store: run {key[1]!r} was saved in analysis format {afmt}; this Plateau reads format {ANALYSIS_FORMAT}"
            )
        incremental = bool(reply[4]) and cached is not None
        entries = reply[3]
        state = cached.state.copy() if incremental and cached is not None else StateLog()
        analysis = state.restore(meta["base"], entries, fresh=not incremental)
        times: list[float | None]
        if incremental and cached is not None:
            fingerprints = list(cached.record.fingerprints)
            verdicts = list(cached.record.verdicts)
            times = list(cached.record.times)
            xpos = cached.xpos + len(entries)
        else:
            fingerprints, verdicts, times = [], [], []
            xpos = int(meta["xoff"]) + len(entries)
        for item in reply[2]:
            fingerprint, verdict, *at = json.loads(item)  # layout 1: no time
            fingerprints.append(fingerprint)
            verdicts.append(verdict_from_json(key[1], verdict))
            times.append(float(at[0]) if at and at[0] is not None else None)
        steps = int(meta["steps"])
        if len(fingerprints) != steps:
            raise ValueError(f"run {key[1]!r} records {steps} steps but holds {len(fingerprints)}")

        def text(name: str) -> str | None:
            value = meta.get(name, b"")
            return value.decode() if value else None

        record = RunRecord(
            run_id=key[1],
            context=text("context"),
            analysis=analysis,
            fingerprints=fingerprints,
            verdicts=verdicts,
            ended=meta["ended"] == b"1",
            tenant=key[0],
            created=float(meta["created"]),
            updated=float(meta["updated"]),
            ended_at=float(meta["ended_at"]) if meta.get("ended_at") else None,
            times=times,
        )
        return _Cached(record, ver, xpos, state)

    def count(self, tenant: str) -> int:
        """Number of runs ``tenant`` holds (runs that expired are not counted)."""
        tkey = self._tenant_key(tenant)
        try:
            pipe = self._r.pipeline(transaction=True)
            pipe.zremrangebyscore(tkey, "-inf", f"({time.time()}")
            pipe.zcard(tkey)
            return int(pipe.execute()[1])
        except self._redis_errors as exc:
            raise self._fail(None, "counting runs", exc) from exc

    def oldest_ended(self, tenant: str) -> RunKey | None:
        """The key of ``tenant``'s run that ended first, or None when none has ended (reads the
        metadata of each of the tenant's runs; called only when the tenant is at its limit)."""
        try:
            members = self._r.zrange(self._tenant_key(tenant), 0, -1)
            pipe = self._r.pipeline(transaction=False)
            for h in members:
                pipe.hmget(f"plateau:{{{h.decode()}}}:meta", "run_id", "ended", "ended_at")
            ended = [
                (float(at or 0.0), run_id.decode())
                for run_id, flag, at in pipe.execute()
                if run_id is not None and flag == b"1"
            ]
        except self._redis_errors as exc:
            raise self._fail(None, "finding ended runs", exc) from exc
        return (tenant, min(ended)[1]) if ended else None

    def keys(self) -> Iterator[RunKey]:
        """Every key held (a snapshot; scans Redis)."""
        out: list[RunKey] = []
        try:
            for name in self._r.scan_iter(match="plateau:{*}:meta", count=1000):
                tenant, run_id = self._r.hmget(name, "tenant", "run_id")
                if run_id is not None:
                    out.append(((tenant or b"").decode(), run_id.decode()))
        except self._redis_errors as exc:
            raise self._fail(None, "listing runs", exc) from exc
        return iter(out)

    def summaries(self, tenant: str) -> list[Any]:
        """The :class:`~plateau.types.RunSummary` of each of ``tenant``'s runs: their metadata
        and last step entry, read in one transaction (``MULTI``) after listing the tenant's runs.

        Raises ``StoreUnavailable`` when Redis cannot be read.
        """
        try:
            tkey = self._tenant_key(tenant)
            self._r.zremrangebyscore(tkey, "-inf", f"({time.time()}")
            members = [h.decode() for h in self._r.zrange(tkey, 0, -1)]
            pipe = self._r.pipeline(transaction=True)  # MULTI: each run's metadata and last step agree
            for h in members:
                pipe.hmget(f"plateau:{{{h}}}:meta", "run_id", "context", "ended", "created", "updated", "ended_at", "steps", "tenant")
                pipe.lindex(f"plateau:{{{h}}}:steps", -1)
            replies = pipe.execute()
        except self._redis_errors as exc:
            raise self._fail(None, "listing runs", exc) from exc
        out = []
        for i in range(0, len(replies), 2):
            (run_id, context, ended, created, updated, ended_at, steps, owner), last = replies[i], replies[i + 1]
            if run_id is None or (owner or b"").decode() != tenant:  # expired meanwhile
                continue
            n = int(steps or 0)
            verdict = verdict_from_json(run_id.decode(), json.loads(last)[1]) if n and last is not None else None
            out.append(
                run_summary(
                    run_id.decode(), context=(context or b"").decode() or None, ended=ended == b"1", created=float(created or 0),
                    updated=float(updated or 0), ended_at=float(ended_at) if ended_at else None, steps=n, last=verdict,
                )
            )
        return out

    def expired(self, idle_before: float, ended_before: float) -> list[RunKey]:
        """None: Redis expires runs itself (see :meth:`bind`)."""
        return []

    # ------------------------------------------------------------------ writes
    def _ttl_ms(self, record: Any) -> int:
        ttl = self.ended_ttl if record.ended else self.idle_ttl
        return 0 if math.isinf(ttl) else max(1, int(ttl * 1000))

    def _write(self, key: RunKey, record: Any, what: str, mode: str) -> None:
        with self._lock:
            cached = self._cache.get(key)
        expected = cached.ver if cached is not None else ""
        fresh = mode == "replace" or cached is None  # a new log: base and one full entry
        state = StateLog() if fresh or cached is None else cached.state.copy()
        if fresh:
            ver = f"{secrets.token_hex(4)}:1"
        else:
            epoch, _, n = expected.partition(":")
            ver = f"{epoch}:{int(n) + 1}"
        step_entry, index = "", 0
        base = entry = ""
        full = False
        try:
            if mode != "update" or fresh:
                base, entry, full = state.snapshot(record.analysis, full=fresh)
            if mode == "append":
                index = len(record.fingerprints) - 1
                times = getattr(record, "times", ())
                at = times[index] if index < len(times) else None
                step_entry = json.dumps([record.fingerprints[index], verdict_to_json(record.verdicts[index]), at], ensure_ascii=False)
        except CodecError as exc:
            raise self._fail(key, what, exc) from exc
        ttl = self._ttl_ms(record)
        fields = [
            "tenant", key[0], "run_id", key[1], "context", record.context or "", "ended", "1" if record.ended else "0",
            "created", repr(record.created), "updated", repr(record.updated),
            "ended_at", "" if record.ended_at is None else repr(record.ended_at), "steps", len(record.fingerprints),
            "fmt", LAYOUT_VERSION, "afmt", ANALYSIS_FORMAT,
        ]
        expiry = time.time() + ttl / 1000 if ttl else "+inf"
        with self._lock:  # this step's own announcements are withdrawn by its commit
            mine = [t for t in self._sent.get(key, ()) if mode == "append" and t.startswith(f"{index}:")]
        try:
            ok = self._commit(
                keys=[*self._keys(key), self._busy_key(key)],
                args=[expected, ver, mode, step_entry, index, base, entry, "1" if full else "0", ttl, self._h(key), expiry,
                      len(mine), *mine, *fields],
            )
        except self._redis_errors as exc:
            raise self._fail(key, what, exc) from exc
        if not ok:
            self.discard(key)
            raise StaleRecord(f"run {key[1]!r} changed in another process")
        with self._lock:
            sent = self._sent.get(key)
            if sent is not None:
                sent.difference_update(mine)
        if base:
            state.commit()
        # a compaction moves the log's offset to the old end: positions stay absolute
        xpos = (0 if fresh or cached is None else cached.xpos) + (1 if entry else 0)
        with self._lock:
            self._cache[key] = _Cached(record, ver, xpos, state)
            self._cache.move_to_end(key)
            while len(self._cache) > self.cache_runs:
                self._cache.popitem(last=False)

    def append(self, key: RunKey, record: Any) -> None:
        """Write the run's newest step, its state's changes and metadata in one compare-and-set.

        Raises :class:`~plateau.store.base.StaleRecord` when another process changed the run
        since it was read (nothing written), ``StoreUnavailable`` when Redis fails.
        """
        self._write(key, record, f"saving step {len(record.fingerprints) - 1} of run {key[1]!r}", "append")

    def replace(self, key: RunKey, record: Any) -> None:
        """Write the run in full and drop its steps (reset), in one compare-and-set."""
        self._write(key, record, f"resetting run {key[1]!r}", "replace")

    def update(self, key: RunKey, record: Any) -> None:
        """Write the run's metadata (ended, context, timestamps), in one compare-and-set."""
        self._write(key, record, f"updating run {key[1]!r}", "update")

    def delete(self, key: RunKey) -> None:
        """Delete the run (no error when absent)."""
        self.discard(key)
        meta, steps, x, tkey = self._keys(key)
        try:
            pipe = self._r.pipeline(transaction=True)
            pipe.delete(meta, steps, x, self._busy_key(key))
            pipe.zrem(tkey, self._h(key))
            pipe.execute()
        except self._redis_errors as exc:
            raise self._fail(key, f"deleting run {key[1]!r}", exc) from exc

    def discard(self, key: RunKey) -> None:
        """Drop the cached copy of ``key``; the next :meth:`get` reads Redis."""
        with self._lock:
            self._cache.pop(key, None)

    # ------------------------------------------------------------------ steps in flight
    def enter(self, key: RunKey, index: int, seconds: float) -> Any:
        """Announce step ``index`` of ``key`` as being judged here for at most ``seconds``.

        The announcement travels with the run's next :meth:`get` (the engine reads the run
        right after announcing), so it costs no round trip of its own.
        """
        token = f"{index}:{self._replica}:{secrets.token_hex(4)}"
        with self._lock:
            self._unsent.setdefault(key, []).append((token, time.time() + seconds))
        return token

    def leave(self, key: RunKey, token: Any) -> None:
        """Withdraw the announcement ``token`` (a round trip only when its step's commit did not;
        errors are logged, not raised: it expires)."""
        if token is None:
            return
        with self._lock:
            unsent = self._unsent.get(key)
            if unsent is not None:
                unsent[:] = [(t, d) for t, d in unsent if t != token]
                if not unsent:
                    del self._unsent[key]
            sent = self._sent.get(key)
            pending = sent is not None and token in sent
            if sent is not None:
                sent.discard(token)
                if not sent:
                    del self._sent[key]
        if not pending:
            return
        try:
            self._r.zrem(self._busy_key(key), token)
        except self._redis_errors as exc:
            self.errors += 1
            log.warning("store: withdrawing %s of run %r failed (it expires): %s", token, key[1], exc)

    def inflight(self, key: RunKey) -> frozenset[int]:
        """Indices of ``key`` announced by other processes and not past their deadline."""
        try:
            members = self._r.zrangebyscore(self._busy_key(key), time.time(), "+inf")
        except self._redis_errors as exc:
            raise self._fail(None, f"reading the steps in flight of run {key[1]!r}", exc) from exc
        out = set()
        for m in members:
            index, replica, _ = m.decode().split(":")
            if replica != self._replica:
                out.add(int(index))
        return frozenset(out)

    def close(self) -> None:
        """Close the connection pool (idempotent)."""
        with self._lock:
            self._cache.clear()
        try:
            self._r.close()
        except self._redis_errors:  # closing anyway
            pass

    def __len__(self) -> int:
        return sum(1 for _ in self.keys())
