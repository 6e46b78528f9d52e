"""Run store on Redis (redis-py), shared by any number of stateless ``plateau serve`` replicas.

``plateau serve --store redis://HOST:PORT/DB``. Every replica can take any step of any run:
the run's state lives in Redis, each change is one Lua script that compares the version the
replica read with the stored one and applies the change only when they are equal
(compare-and-set), so two replicas can never both apply step *i* of a run; the loser re-reads
the run and returns the verdict the winner stored (the engine is deterministic, so it is the
verdict it would have given). A replica that receives step *i* while step *i−1* is judged on
another waits for it through Redis (:meth:`RedisStore.inflight`), bounded by the engine's
``order_wait_seconds`` (the waiting itself is :mod:`plateau.ordering`'s; this store only
announces, withdraws and reads).

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
    plateau:tenant:T   zset   the tenant's runs (H) scored by their expiry time (its run count)
    plateau:ended:T    zset   the tenant's ended runs (H) scored by the time they ended
    plateau:store      hash   id (random, set by the first replica), lost_at (see below)

Limits are counters kept with each change, never scans (issue 22, items 1 and 15): a run's
first commit checks, in the same script, that its tenant holds fewer than
``max_runs_per_tenant`` runs (expired entries trimmed first); at the limit the tenant's
longest-ended run gives way (deleted in the same script) or the commit is refused with
``LimitExceeded``. The limit is therefore exact across any number of replicas, and finding the
run that gives way is one read of ``plateau:ended:T``, whatever the number of runs.

A Redis that lost its data (restarted without persistence, flushed, failed over to an empty
replica) is told apart from a run that never existed: ``plateau:store`` holds a random id that
every replica reads at start; a replica that finds it gone or changed records the loss
(``lost_at``) and answers a later step of a run Redis no longer holds with ``NOT_FOUND``
saying the store lost it (:meth:`RedisStore.lost`) instead of a gap in the step indices.

The learned state is written with :mod:`plateau.store.codec` (tagged JSON, versioned, never
pickle): a small base document plus a log of container changes, so a step writes its verdict,
the base and the changes, not the run's history. Retention is Redis expiry: every write sets
the run's keys to expire after ``idle_run_ttl_seconds`` (``ended_run_ttl_seconds`` once
ended). A replica keeps recently used runs decoded in memory and checks their version with
one round trip per read; when another replica moved the run on it reads only the new steps
and log entries.

Any Redis error (unreachable, timeout, out of memory) is :class:`~plateau.errors.StoreUnavailable`
(``UNAVAILABLE``): the step was not applied and retrying it is safe. Its message says what
failed (``Redis did not answer in time``, ``Redis is out of memory``) but never Redis's
address or password: those go to the server's log only. Not for Redis Cluster (a change
touches the tenant's keys too); use one primary, with replicas for failover.

Password: give it in ``$PLATEAU_REDIS_PASSWORD`` or a file (``password_file``, ``plateau
serve --store-password-file``) rather than in the URL, where ``ps`` shows it to every user of
the machine.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from plateau.errors import InvalidArgument, LimitExceeded, StoreUnavailable
from plateau.record import RunRecord
from plateau.store.base import DEFAULT_MAX_RUN_STATE_BYTES, RunKey, StaleRecord, run_summary, state_too_large
from plateau.store.codec import ANALYSIS_FORMAT, CodecError, StateLog, verdict_from_json, verdict_to_json

__all__ = ["PASSWORD_ENV", "RedisStore", "redis_cause"]

#: Environment variable holding the Redis password (kept out of ``--store`` and so out of ``ps``).
PASSWORD_ENV = "PLATEAU_REDIS_PASSWORD"

log = logging.getLogger("plateau.store")

#: Version of the key layout, stored in every run's ``fmt`` field. 2: a step entry holds the
#: time the step was accepted. Runs of layout 1 are read (their steps have no time) and written
#: on as layout 2; a version of Plateau that reads only layout 1 refuses a run of layout 2.
LAYOUT_VERSION = 2
_LAYOUTS_READ = (1, 2)
#: The marker hash telling a Redis that lost its data from one that never had it.
_MARKER_KEY = "plateau:store"

# KEYS: meta, steps, x, tenant, busy, ended.  ARGV: 1 expected version, 2 new version, 3 mode,
# 4 step entry, 5 step index, 6 base, 7 log entry, 8 full, 9 ttl ms, 10 H, 11 expiry, 12 now,
# 13 run limit, 14 ended_at ('' while open), 15 n, 16..15+n own announcements, then meta fields.
# Returns 1 (written), 0 (stale: another process changed the run), -1 (the tenant is full).
_COMMIT = """
local cur = redis.call('HGET', KEYS[1], 'ver')
if (cur or '') ~= ARGV[1] then return 0 end
if not cur then
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', '(' .. ARGV[12])
  if not redis.call('ZSCORE', KEYS[4], ARGV[10]) then
    local guard = 0
    while redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[13]) do
      guard = guard + 1
      local first = redis.call('ZRANGE', KEYS[6], 0, 0)
      if #first == 0 or guard > 64 then return -1 end
      local h = first[1]
      redis.call('ZREM', KEYS[6], h)
      local meta = 'plateau:{' .. h .. '}:'
      if redis.call('ZSCORE', KEYS[4], h) and redis.call('HGET', meta .. 'meta', 'ended') == '1' then
        redis.call('DEL', meta .. 'meta', meta .. 'steps', meta .. 'x', meta .. 'busy')
        redis.call('ZREM', KEYS[4], h)
      end
    end
  end
end
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
local n = tonumber(ARGV[15])
for i = 1, n do redis.call('ZREM', KEYS[5], ARGV[15 + i]) end
redis.call('HSET', KEYS[1], 'ver', ARGV[2], 'xoff', xoff, unpack(ARGV, 16 + n))
local ttl = tonumber(ARGV[9])
for i = 1, 3 do
  if ttl > 0 then redis.call('PEXPIRE', KEYS[i], ttl) else redis.call('PERSIST', KEYS[i]) end
end
redis.call('ZADD', KEYS[4], ARGV[11], ARGV[10])
if ARGV[14] ~= '' then redis.call('ZADD', KEYS[6], ARGV[14], ARGV[10]) else redis.call('ZREM', KEYS[6], ARGV[10]) end
return 1
"""

# KEYS: tenant, ended.  ARGV: now.  The tenant's longest-ended run still held: its run id, or
# nothing; entries of runs that expired or were deleted are dropped on the way.
_OLDEST = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
for i = 1, 64 do
  local first = redis.call('ZRANGE', KEYS[2], 0, 0)
  if #first == 0 then return false end
  local h = first[1]
  local meta = 'plateau:{' .. h .. '}:meta'
  if redis.call('ZSCORE', KEYS[1], h) and redis.call('HGET', meta, 'ended') == '1' then
    return redis.call('HGET', meta, 'run_id')
  end
  redis.call('ZREM', KEYS[2], h)
end
return false
"""

# KEYS: the marker hash.  ARGV: 1 a new id, 2 lost_at to record when the marker is absent
# ('' at start-up: an absent marker there means a new Redis, not a loss).  Returns {id, lost_at}.
_MARKER = """
local id = redis.call('HGET', KEYS[1], 'id')
if not id then
  redis.call('HSET', KEYS[1], 'id', ARGV[1])
  if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'lost_at', ARGV[2]) end
  id = ARGV[1]
end
return {id, redis.call('HGET', KEYS[1], 'lost_at') or ''}
"""

_READ = """
for i = 5, #ARGV, 2 do redis.call('ZADD', KEYS[4], ARGV[i + 1], ARGV[i]) end
if #ARGV > 4 then redis.call('PEXPIRE', KEYS[4], 3600000) end
local ver = redis.call('HGET', KEYS[1], 'ver')
if not ver then return {'', redis.call('HGET', KEYS[5], 'id') or ''} end
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


def redis_cause(exc: BaseException) -> str:
    """What a Redis failure means, for a client: never an address or a password (redis-py puts
    ``HOST:PORT`` in its connection errors; those go to the server's log only)."""
    import redis

    text = str(exc)
    classes = (
        (redis.exceptions.OutOfMemoryError, "Redis is out of memory (maxmemory)"),
        (redis.exceptions.ReadOnlyError, "Redis is a read-only replica"),
        (redis.exceptions.BusyLoadingError, "Redis is loading its data"),
        (redis.exceptions.MasterDownError, "Redis lost its primary"),
        (redis.exceptions.NoPermissionError, "Redis refused the command (ACL)"),
    )
    for cls, meaning in classes:
        if isinstance(exc, cls):
            return meaning
    if isinstance(exc, redis.AuthenticationError):
        return "Redis needs a password" if "required" in text.lower() else "Redis refused the password"
    if isinstance(exc, redis.ResponseError):
        # a pipeline prefixes "Command # N (...) of pipeline caused error: "
        reply = text.rpartition("caused error: ")[2]
        head = reply.split(" ", 1)[0]
        known = {
            "OOM": "Redis is out of memory (maxmemory)",
            "READONLY": "Redis is a read-only replica",
            "MISCONF": "Redis refuses writes (it cannot persist its data)",
            "LOADING": "Redis is loading its data",
            "BUSY": "Redis is busy running a script",
            "NOAUTH": "Redis needs a password",
            "WRONGPASS": "Redis refused the password",
            "NOPERM": "Redis refused the command (ACL)",
            "MASTERDOWN": "Redis lost its primary",
        }
        if head in known:
            return known[head]
        if "maxmemory" in reply:
            return known["OOM"]
        if "read only replica" in reply or "read-only" in reply:
            return known["READONLY"]
        return "Redis refused the command"
    if isinstance(exc, (redis.TimeoutError, TimeoutError)):
        return "Redis did not answer in time"
    if isinstance(exc, (redis.ConnectionError, OSError)):
        return "Redis cannot be reached"
    return f"Redis failed ({type(exc).__name__})"


class RedisStore:
    """Run records in Redis, shared by several server processes (see the module docstring).

    Parameters
    ----------
    url
        ``redis://[[user]:password@]HOST:PORT/DB`` (or ``rediss://`` for TLS, ``unix://PATH``).
        A password in the URL is visible in ``ps``: prefer ``password_file`` or
        ``$PLATEAU_REDIS_PASSWORD``.
    password
        The password (wins over the URL's). When None: the first line of ``password_file``,
        else ``$PLATEAU_REDIS_PASSWORD``, else the URL's.
    password_file
        A file whose first line is the password.
    probe_timeout
        Seconds :meth:`probe` waits for Redis to answer (> 0). Default 1.
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
        Redis cannot be reached at start-up (the message names the URL, without password), or
        ``password_file`` cannot be read.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 5.0,
        cache_runs: int = 1024,
        client: Any = None,
        password: str | None = None,
        password_file: str | os.PathLike[str] | None = None,
        probe_timeout: float = 1.0,
    ) -> None:
        if cache_runs < 1:
            raise ValueError(f"cache_runs must be >= 1, got {cache_runs}")
        if not timeout > 0:
            raise ValueError(f"timeout must be > 0, got {timeout}")
        if not probe_timeout > 0:
            raise ValueError(f"probe_timeout must be > 0, got {probe_timeout}")
        import redis

        if password is None and password_file is not None:
            try:
                lines = Path(password_file).read_text().splitlines()
            except OSError as exc:
                raise StoreUnavailable(f"store: cannot read the Redis password file {password_file}: {exc.strerror}") from None
            password = lines[0] if lines else ""
        if password is None:
            password = os.environ.get(PASSWORD_ENV) or None

        self._redis_errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        parsed = urlparse(url)
        if parsed.scheme not in ("redis", "rediss", "unix"):
            raise InvalidArgument("store", f"{url!r} is not a redis://HOST:PORT/DB URL")
        self.url = url
        if parsed.password:
            log.warning(
                "store: the Redis password is in --store, which ps shows to every user; use --store-password-file or $%s", PASSWORD_ENV
            )
        self.errors = 0
        self.idle_ttl = 7 * 24 * 3600.0
        self.ended_ttl = 24 * 3600.0
        self.max_runs = 10_000
        self.max_state_bytes = DEFAULT_MAX_RUN_STATE_BYTES
        self.probe_timeout = probe_timeout
        self._probe_client: Any = None
        self._marker = ""  # the id of plateau:store this replica knows
        self.lost_at: float | None = None  # when Redis was last seen to have lost its data
        self._lost: OrderedDict[RunKey, None] = OrderedDict()  # runs this replica held when Redis lost them
        self._seen: OrderedDict[RunKey, None] = OrderedDict()  # runs recently read or written here (4 x cache_runs)
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
            extra = {} if password is None else {"password": password}
            self._r = client if client is not None else redis.Redis.from_url(
                url, socket_timeout=timeout, socket_connect_timeout=timeout, health_check_interval=30, **extra
            )
            self._r.ping()
            self._commit = self._r.register_script(_COMMIT)
            self._read = self._r.register_script(_READ)
            self._oldest = self._r.register_script(_OLDEST)
            self._mark = self._r.register_script(_MARKER)
            self._marker, lost_at = (v.decode() for v in self._mark(keys=[_MARKER_KEY], args=[secrets.token_hex(8), ""]))
            self.lost_at = float(lost_at) if lost_at else None
        except ValueError as exc:
            raise InvalidArgument("store", f"{self._safe_url()!r}: {exc}") from None
        except self._redis_errors as exc:
            raise StoreUnavailable(f"store: cannot reach Redis at {self._safe_url()}: {redis_cause(exc)} ({exc})") from exc

    def _safe_url(self) -> str:
        """The URL without its password (for the operator's log; never sent to clients)."""
        p = urlparse(self.url)
        return p._replace(netloc=p.netloc.rpartition("@")[2]).geturl()

    def bind(self, config: Any) -> None:
        """Take the retention periods and the limits from the engine's config (Redis expires the
        runs; the run and state limits are checked by the store's commits)."""
        self.idle_ttl = float(config.idle_run_ttl_seconds)
        self.ended_ttl = float(config.ended_run_ttl_seconds)
        self.max_runs = int(getattr(config, "max_runs_per_tenant", self.max_runs))
        self.max_state_bytes = int(getattr(config, "max_run_state_bytes", self.max_state_bytes))

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

    @staticmethod
    def _ended_key(tenant: str) -> str:
        return f"plateau:ended:{tenant.encode().hex()}"

    def _busy_key(self, key: RunKey) -> str:
        return f"plateau:{{{self._h(key)}}}:busy"

    def _fail(self, key: RunKey | None, what: str, exc: BaseException) -> StoreUnavailable:
        self.errors += 1
        if key is not None:
            with self._lock:
                self._cache.pop(key, None)
        log.error("store: %s failed (Redis at %s): %s", what, self._safe_url(), exc)
        if isinstance(exc, self._redis_errors):
            return StoreUnavailable(f"store: {what} failed: {redis_cause(exc)}; the change was not applied, retrying is safe")
        # a stored run that cannot be decoded: reading it again gives the same bytes
        return StoreUnavailable(f"store: {what} failed: the stored run cannot be read ({exc}); retrying will not help")

    # ------------------------------------------------------------------ health and data loss
    def probe(self) -> tuple[bool, str]:
        """Whether Redis can serve: ``(True, "")`` or ``(False, cause)``; never raises.

        ``PING`` and a small write of its own (``plateau:probe``, expiring after a minute),
        each bounded by ``probe_timeout``: a paused or unreachable Redis, one out of memory
        (``OOM``), a read-only replica (``READONLY``) or one that cannot persist (``MISCONF``)
        fail it, named by :func:`redis_cause`.
        """
        import redis

        try:
            if self._probe_client is None:
                kwargs = dict(self._r.connection_pool.connection_kwargs)
                kwargs.update(socket_timeout=self.probe_timeout, socket_connect_timeout=self.probe_timeout)
                pool = redis.ConnectionPool(connection_class=self._r.connection_pool.connection_class, max_connections=2, **kwargs)
                self._probe_client = redis.Redis(connection_pool=pool)
            pipe = self._probe_client.pipeline(transaction=False)
            pipe.ping()
            pipe.set("plateau:probe", self._replica, px=60_000)
            pipe.execute()
        except Exception as exc:  # noqa: BLE001 - a probe reports, never raises
            log.warning("store: probe of Redis at %s failed: %s", self._safe_url(), exc)
            return False, redis_cause(exc) if isinstance(exc, self._redis_errors) else f"Redis probe failed ({type(exc).__name__})"
        return True, ""

    def _data_lost(self, marker: str) -> None:
        """Redis answered without the marker this replica knows: it lost its data (restart
        without persistence, flush, failover to an empty replica). Record it once."""
        now = time.time()
        try:
            reply = self._mark(keys=[_MARKER_KEY], args=[secrets.token_hex(8), repr(now)])
        except self._redis_errors as exc:
            raise self._fail(None, "recording that Redis lost its data", exc) from exc
        new, lost_at = (v.decode() for v in reply)
        with self._lock:
            if new == self._marker:
                return
            log.error(
                "store: Redis at %s lost its data (its marker %r is now %r); runs in progress are gone",
                self._safe_url(), self._marker or "?", new,
            )
            self._marker = new
            self.lost_at = float(lost_at) if lost_at else now
            for key in self._seen:
                self._lost[key] = None
            self._seen.clear()
            while len(self._lost) > 100_000:
                self._lost.popitem(last=False)
            self._cache.clear()

    def _saw(self, key: RunKey) -> None:
        """Remember that ``key`` was in Redis (bounded: the 4 x ``cache_runs`` most recent)."""
        with self._lock:
            self._seen[key] = None
            self._seen.move_to_end(key)
            while len(self._seen) > 4 * self.cache_runs:
                self._seen.popitem(last=False)

    def lost(self, key: RunKey) -> str | None:
        """Why ``key`` may be missing because Redis lost its data, or None.

        A run this replica held when the loss was seen is named lost for certain; any other run
        missing within the idle retention period after the loss *may* have been lost (a run
        that never existed is then reported the same way, which is honest: Redis cannot tell).
        """
        with self._lock:
            known = key in self._lost
            at = self.lost_at
        if at is None:
            return None
        when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(at))
        if known:
            return f"Redis lost its data at {when} (restarted without persistence or flushed), and this run with it"
        if math.isinf(self.idle_ttl) or time.time() - at < self.idle_ttl:
            return f"Redis lost its data at {when} (restarted without persistence or flushed); this run may have been among it"
        return None

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
            reply = self._read(keys=[*self._keys(key)[:3], self._busy_key(key), _MARKER_KEY], args=args)
        except self._redis_errors as exc:
            raise self._fail(key, f"reading run {key[1]!r}", exc) from exc
        if not reply[0]:
            if reply[1].decode() != self._marker:
                self._data_lost(reply[1].decode())
            self.discard(key)
            return None
        if len(reply) == 1:
            assert cached is not None
            self._saw(key)
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
        self._saw(key)
        return fresh.record

    def _decode(self, key: RunKey, reply: list[Any], cached: _Cached | None) -> _Cached:
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
        """The key of ``tenant``'s run that ended first, or None when none has ended: one script
        reading the head of the tenant's ended runs (``plateau:ended:T``), never their metadata."""
        try:
            run_id = self._oldest(keys=[self._tenant_key(tenant), self._ended_key(tenant)], args=[time.time()])
        except self._redis_errors as exc:
            raise self._fail(None, "finding ended runs", exc) from exc
        return None if run_id is None else (tenant, run_id.decode())

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
                if mode == "append" and state.snapshot_chars > self.max_state_bytes:
                    self.discard(key)
                    raise state_too_large(key[1], state.snapshot_chars, self.max_state_bytes)
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
        now = time.time()
        expiry = now + ttl / 1000 if ttl else "+inf"
        ended_at = (repr(record.ended_at) if record.ended_at is not None else repr(now)) if record.ended else ""
        with self._lock:  # this step's own announcements are withdrawn by its commit
            mine = [t for t in self._sent.get(key, ()) if mode == "append" and t.startswith(f"{index}:")]
        try:
            ok = self._commit(
                keys=[*self._keys(key), self._busy_key(key), self._ended_key(key[0])],
                args=[expected, ver, mode, step_entry, index, base, entry, "1" if full else "0", ttl, self._h(key), expiry,
                      repr(now), self.max_runs, ended_at, len(mine), *mine, *fields],
            )
        except self._redis_errors as exc:
            raise self._fail(key, what, exc) from exc
        if ok == -1:
            self.discard(key)
            raise LimitExceeded(
                f"run_id: this tenant holds {self.max_runs} open runs, the limit; end or delete runs, or raise max_runs_per_tenant"
            )
        if not ok:
            self.discard(key)
            raise StaleRecord(f"run {key[1]!r} changed in another process")
        if not expected:
            with self._lock:
                self._lost.pop(key, None)
        self._saw(key)
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
            pipe.zrem(self._ended_key(key[0]), self._h(key))
            pipe.execute()
            with self._lock:
                self._lost.pop(key, None)
                self._seen.pop(key, None)
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
            if self._probe_client is not None:
                self._probe_client.close()
        except self._redis_errors:  # closing anyway
            pass

    def __len__(self) -> int:
        return sum(1 for _ in self.keys())
