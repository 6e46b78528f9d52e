"""Durable run store on SQLite (stdlib :mod:`sqlite3`) in WAL mode: ``plateau serve``'s default.

Every accepted step is written in one transaction — the run's learned state and the step's
fingerprint and verdict — before its verdict is returned, so after a crash (even ``kill -9``)
and a restart a run continues with its baseline and history as if nothing happened, and a
re-sent step gets its stored verdict.

Layout (``PRAGMA user_version`` = :data:`SCHEMA_VERSION`)::

    runs     (tenant, run_id, context, ended, created, updated, ended_at, steps,
              analysis, analysis_format)                  one row per run
    steps    (tenant, run_id, idx, fingerprint, verdict, at)
                                                          one row per accepted step (verdict as JSON,
                                                          ``at`` the Unix time it was accepted)
    statelog (tenant, run_id, seq, entry)                 the learned state's log of changes

The learned state (``RunRecord.analysis``: trackers, baseline, CUSUM, breaker) is written with
:mod:`plateau.store.codec` (tagged JSON, versioned, never pickle; :data:`ANALYSIS_FORMAT`): a
small base document in ``runs.analysis`` plus, in ``statelog``, a log of the changes to its
large containers (term sets, histories), compacted when it outgrows them. A step therefore
writes its verdict, the base and what changed, not the run's whole state. Runs stored in
another format (format 3 was pickle) are refused with ``StoreUnavailable`` naming both formats
(end them on the old version, or let them expire). A schema version 1 file is upgraded in place
(its ``statelog`` table is added). The ``steps.at`` column was added without a version change
(a nullable column that earlier versions neither read nor write): a file without it gains it on
open, and its older rows have no time. The file is created mode 0600 (it holds the runs' text).

Durability: ``synchronous=NORMAL`` (the default) in WAL mode makes every committed transaction
survive the death of the process (``kill -9``, OOM): the commit has reached the operating system
before the verdict is returned. An operating-system crash or power loss may roll back the last
few commits (never corrupt the file); those steps are then new to the server, and because the
engine is deterministic a client that re-sends them gets the same verdicts. ``FULL`` also fsyncs
each commit (survives power loss) at the cost of one disk flush per step.

One server per file: an exclusive advisory lock (``flock``) on the database file itself, held
on a descriptor of the file for the store's lifetime, refuses a second process however it
reaches the file: a symbolic link, a hard link (the same inode, so the same lock) or another
folder. (Before issue 22 the lock was a ``REALPATH.lock`` file beside the database, which a
hard link or a deleted ``.lock`` defeated, letting two servers keep two WALs of one file.) A
file of zero bytes is refused (a store that was truncated must not start over silently as an
empty one).

Integrity: opening runs ``PRAGMA quick_check`` (it reads every page once: about a second per
GB) and refuses a corrupt file, saying so, instead of serving from it. A corruption found
later (``SQLITE_CORRUPT``, ``SQLITE_NOTADB``) stops the store: every call then fails with
``StoreUnavailable`` saying the file is corrupt and that retrying will not help (never that
retrying is safe), and :meth:`SqliteStore.probe` reports it.

A file deleted or replaced under a live server (issue 22, item 5): before and after every
write the store compares the file at its path with the one it holds open (``fstat``: a link
count of 0 means deleted; ``stat`` of the path: another inode means replaced). A change
written to a deleted file would be lost at the next restart, so the store stops: that step
and every later call fail with ``StoreUnavailable`` naming the cause, no step is acknowledged
that is not in the file at the path, and :meth:`SqliteStore.probe` reports it until the
server is restarted on a restored file.

A failed write names its cause (``the disk is full``, ``the database is read-only``, …, from
SQLite's error code); it says ``retrying is safe`` only when it is (the change was not applied
and the fault may pass). :meth:`SqliteStore.probe` tells whether the store can serve (the
server reports ``NOT_SERVING`` meanwhile).
"""

from __future__ import annotations

import logging
import math
import os
import sqlite3
import stat
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from plateau.errors import StoreUnavailable
from plateau.record import RunRecord
from plateau.store.base import RunKey, SingleProcessStore, run_summary, state_too_large
from plateau.store.codec import ANALYSIS_FORMAT, CodecError, StateLog, verdict_from_json, verdict_to_json
from plateau.types import Verdict

__all__ = ["ANALYSIS_FORMAT", "SCHEMA_VERSION", "SqliteStore"]

log = logging.getLogger("plateau.store")

#: Version of the table layout (``PRAGMA user_version``); version 1 files are upgraded.
SCHEMA_VERSION = 2
_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    tenant TEXT NOT NULL,
    run_id TEXT NOT NULL,
    context TEXT,
    ended INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    ended_at REAL,
    steps INTEGER NOT NULL,
    analysis BLOB NOT NULL,
    analysis_format INTEGER NOT NULL,
    PRIMARY KEY (tenant, run_id)
);
CREATE INDEX IF NOT EXISTS runs_updated ON runs (updated);
CREATE INDEX IF NOT EXISTS runs_ended ON runs (tenant, ended, ended_at);
CREATE TABLE IF NOT EXISTS steps (
    tenant TEXT NOT NULL,
    run_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,
    verdict TEXT NOT NULL,
    at REAL,
    PRIMARY KEY (tenant, run_id, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS statelog (
    tenant TEXT NOT NULL,
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    entry TEXT NOT NULL,
    PRIMARY KEY (tenant, run_id, seq)
) WITHOUT ROWID;
"""

_SYNCHRONOUS = ("OFF", "NORMAL", "FULL", "EXTRA")

_RESTORE = "restore the file from a backup, or move it away to start an empty store, then restart the server"

#: SQLite primary result codes → what they mean for the operator.
_CAUSES = {
    "SQLITE_FULL": "the disk is full",
    "SQLITE_READONLY": "the database is read-only",
    "SQLITE_IOERR": "an I/O error",
    "SQLITE_BUSY": "the database is locked by another connection",
    "SQLITE_LOCKED": "the database is locked",
    "SQLITE_CORRUPT": "the database file is corrupt",
    "SQLITE_NOTADB": "the file is not a SQLite database",
    "SQLITE_CANTOPEN": "the file cannot be opened",
    "SQLITE_PERM": "permission denied",
    "SQLITE_NOMEM": "out of memory",
}


#: Error codes after which retrying cannot help: the file itself is damaged.
_FATAL = ("SQLITE_CORRUPT", "SQLITE_NOTADB")


def _fatal(exc: BaseException) -> bool:
    """Whether ``exc`` says the database file is damaged (retrying the same change cannot help)."""
    name = getattr(exc, "sqlite_errorname", None) or ""
    if any(name == code or name.startswith(code + "_") for code in _FATAL):
        return True
    text = str(exc)
    return isinstance(exc, sqlite3.DatabaseError) and ("malformed" in text or "not a database" in text)


def _cause(exc: BaseException) -> str:
    """What a failed store operation means, e.g. ``the disk is full (database or disk is full)``."""
    name = getattr(exc, "sqlite_errorname", None) or ""
    for code, meaning in _CAUSES.items():
        if name == code or name.startswith(code + "_"):
            return f"{meaning} ({exc})"
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror.lower()} ({exc})"
    return str(exc) or type(exc).__name__


class SqliteStore(SingleProcessStore):
    """Run records in a SQLite file, with a write-through cache of recently used runs.

    Parameters
    ----------
    path
        The database file (created with its folder when absent, mode 0600). ``":memory:"``
        gives a private in-memory database (for tests of the code path, not durable).
    synchronous
        SQLite's ``synchronous`` setting in WAL mode: ``"NORMAL"`` (default: survives a
        process crash) or ``"FULL"`` (also survives power loss; slower). See the module
        docstring.
    cache_runs
        Most run records kept decoded in memory (int >= 1); others are read from the file
        when next used. Default 1,024.

    Raises
    ------
    StoreUnavailable
        The file cannot be opened, is corrupt (``PRAGMA quick_check``), has an unknown schema
        version, is writable by other users, or is in use by another process.
    ValueError
        For a bad ``synchronous`` or ``cache_runs``.
    """

    def __init__(self, path: str | os.PathLike[str], *, synchronous: str = "NORMAL", cache_runs: int = 1024) -> None:
        if synchronous.upper() not in _SYNCHRONOUS:
            raise ValueError(f"synchronous must be one of {', '.join(_SYNCHRONOUS)}, got {synchronous!r}")
        if cache_runs < 1:
            raise ValueError(f"cache_runs must be >= 1, got {cache_runs}")
        self.path = str(path)
        self.synchronous = synchronous.upper()
        self.cache_runs = cache_runs
        self.errors = 0
        self._cache: OrderedDict[RunKey, Any] = OrderedDict()
        self._states: dict[RunKey, StateLog] = {}  # what is persisted of each cached run's state
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._fd: int | None = None  # the database file, held open for its lock and identity
        self._identity: tuple[int, int] | None = None  # (st_dev, st_ino) of the file opened
        self._broken: str | None = None  # why the store stopped serving (deleted or corrupt file)
        self._closed = False
        if self.path != ":memory:":
            self._prepare_file(Path(self.path))
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10.0)
            if self._fd is not None:
                self._integrity()
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={self.synchronous}")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, 1, SCHEMA_VERSION):
                raise StoreUnavailable(f"store: {self.path} has schema version {version}; this Plateau reads version {SCHEMA_VERSION}")
            self._db.executescript(_SCHEMA)
            if "at" not in {row[1] for row in self._db.execute("PRAGMA table_info(steps)")}:
                self._db.execute("ALTER TABLE steps ADD COLUMN at REAL")  # files written before step times were kept
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            for tenant, n in self._db.execute("SELECT tenant, count(*) FROM runs GROUP BY tenant"):
                self._counts[tenant] = n
        except sqlite3.Error as exc:
            self._close_quietly()
            if _fatal(exc):
                raise StoreUnavailable(f"store: {self.path} is corrupt ({exc}); {_RESTORE}") from exc
            raise StoreUnavailable(f"store: cannot open {self.path}: {exc}") from exc
        except BaseException:
            self._close_quietly()
            raise

    def _integrity(self) -> None:
        """Refuse a damaged file: ``PRAGMA quick_check`` (every page read once; at most 5 errors listed)."""
        rows = [str(r[0]) for r in self._db.execute("PRAGMA quick_check(5)")]
        if rows != ["ok"]:
            raise StoreUnavailable(f"store: {self.path} is corrupt (quick_check: {'; '.join(rows)[:500]}); {_RESTORE}")

    def _close_quietly(self) -> None:
        db = getattr(self, "_db", None)
        if db is not None:
            try:
                db.close()
            except sqlite3.Error:  # pragma: no cover - closing a connection that failed to open
                pass
        self._release_lockfile()

    # ------------------------------------------------------------------ file handling
    def _prepare_file(self, path: Path) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists():
                fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
                os.close(fd)
            elif path.stat().st_size == 0 and not Path(f"{path}-wal").exists():
                raise StoreUnavailable(
                    f"store: {path} is empty (0 bytes), not a Plateau store; it may have been truncated. "
                    "Restore it, or delete it to start an empty store"
                )
            mode = path.stat().st_mode
            real = path.resolve()
        except OSError as exc:
            raise StoreUnavailable(f"store: cannot create {path}: {_cause(exc)}") from exc
        if mode & (stat.S_IWGRP | stat.S_IWOTH):
            raise StoreUnavailable(f"store: {path} is writable by other users; chmod 600 it (the store holds the runs' state)")
        try:
            fd = os.open(real, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            raise StoreUnavailable(f"store: cannot open {path}: {_cause(exc)}") from exc
        st = os.fstat(fd)
        self._fd, self._identity = fd, (st.st_dev, st.st_ino)
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no advisory lock
            return
        # the lock belongs to the file (its inode), not to a name: a second server reaching it
        # through a symbolic link, a hard link or another folder finds it taken. flock locks are
        # apart from SQLite's own (POSIX fcntl) locks on Linux and the BSDs; this descriptor
        # stays open until the database is closed, as SQLite requires of any other descriptor
        # of its file (closing one drops the process's POSIX locks).
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            self._fd = self._identity = None
            raise StoreUnavailable(f"store: {path} is in use by another Plateau process") from None

    def _release_lockfile(self) -> None:
        """Release the file lock and its descriptor (after the database is closed)."""
        if self._fd is not None:
            try:
                import fcntl

                fcntl.flock(self._fd, fcntl.LOCK_UN)
            except (ImportError, OSError):  # pragma: no cover
                pass
            os.close(self._fd)
            self._fd = None

    def _file_fault(self) -> str | None:
        """Why the file at the path is no longer the one this store writes, or None."""
        if self._fd is None or self._identity is None:
            return None
        try:
            if os.fstat(self._fd).st_nlink == 0:
                return f"the database file {self.path} was deleted while the server used it"
            st = os.stat(self.path)
        except FileNotFoundError:
            return f"the database file {self.path} was moved or deleted while the server used it"
        except OSError as exc:
            return f"the database file {self.path} cannot be checked: {_cause(exc)}"
        if (st.st_dev, st.st_ino) != self._identity:
            return f"the database file {self.path} was replaced by another file while the server used it"
        return None

    def _stop(self, cause: str) -> StoreUnavailable:
        """Stop serving for good (a deleted, replaced or corrupt file); the error to raise."""
        if self._broken is None:
            self._broken = cause
            log.error("store: %s; refusing every call until the server is restarted on a sound file", cause)
        self._cache.clear()
        self._states.clear()
        return self._refusal()

    def _refusal(self) -> StoreUnavailable:
        assert self._broken is not None
        return StoreUnavailable(f"store: {self._broken}; nothing was applied and retrying will not help: {_RESTORE}")

    def _ensure_sound(self) -> None:
        """Raise when the store has stopped, or stop it when its file is gone (lock held)."""
        if self._broken is not None:
            self.errors += 1
            raise self._refusal()
        fault = self._file_fault()
        if fault is not None:
            self.errors += 1
            raise self._stop(fault)

    # ------------------------------------------------------------------ cache
    def _remember(self, key: RunKey, record: Any, state: StateLog) -> None:
        self._cache[key] = record
        self._states[key] = state
        self._cache.move_to_end(key)
        while len(self._cache) > self.cache_runs:
            old, _ = self._cache.popitem(last=False)
            self._states.pop(old, None)

    def _forget(self, key: RunKey) -> None:
        self._cache.pop(key, None)
        self._states.pop(key, None)

    def _fail(self, key: RunKey | None, what: str, exc: BaseException) -> StoreUnavailable:
        self.errors += 1
        if key is not None:
            self._forget(key)
        cause = _cause(exc)
        log.error("store: %s failed: %s", what, cause)
        if _fatal(exc):
            return self._stop(f"{what} failed: the database file {self.path} is corrupt ({exc})")
        if not isinstance(exc, (sqlite3.Error, OSError)):  # the stored row itself cannot be decoded
            return StoreUnavailable(f"store: {what} failed: {cause}; the stored run cannot be read and retrying will not help")
        return StoreUnavailable(f"store: {what} failed: {cause}; the change was not applied, retrying is safe")

    def _rollback(self) -> None:
        """Roll back the open transaction, if SQLite has not already (it does on a full disk);
        an error here must not hide the one that caused the rollback."""
        if self._db.in_transaction:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error as exc:
                log.warning("store: rollback failed: %s", exc)

    def probe(self) -> tuple[bool, str]:
        """Whether the store can serve: ``(True, "")`` or ``(False, cause)``; never raises.

        Checks, cheapest first: the store has not stopped (a corrupt or deleted file); the file
        at the path is still the one open (``stat``/``fstat``, item 5 of issue 22); a read of
        the runs table's first page; and a small write of its own (the schema version, in one
        transaction), so that a full disk or a read-only file turns health ``NOT_SERVING``
        before a caller's step fails on it (one page written per probe; the server probes
        every ``Config.health_probe_seconds``).
        """
        with self._lock:
            if self._closed:
                return False, "the store is closed"
            if self._broken is not None:
                return False, self._broken
            fault = self._file_fault()
            if fault is not None:
                self._stop(fault)
                return False, fault
            try:
                self._db.execute("SELECT 1 FROM runs LIMIT 1").fetchall()
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                    self._db.execute("COMMIT")
                except BaseException:
                    self._rollback()
                    raise
            except sqlite3.Error as exc:
                if _fatal(exc):
                    cause = f"the database file {self.path} is corrupt ({exc})"
                    self._stop(cause)
                    return False, cause
                return False, _cause(exc)
        return True, ""

    # ------------------------------------------------------------------ reads
    def get(self, key: RunKey) -> Any | None:
        """The record of ``key`` (from the cache or the file), or None.

        Raises ``StoreUnavailable`` when the row cannot be read or was stored in another
        analysis format.
        """
        with self._lock:
            self._ensure_sound()
            record = self._cache.get(key)
            if record is not None:
                self._cache.move_to_end(key)
                return record
            try:
                loaded = self._load(key)
            except StoreUnavailable:
                self.errors += 1
                raise
            except (sqlite3.Error, CodecError, ValueError, TypeError, AttributeError) as exc:
                raise self._fail(None, f"reading run {key[1]!r}", exc) from exc
            if loaded is None:
                return None
            record, state = loaded
            self._remember(key, record, state)
            return record

    def _load(self, key: RunKey) -> tuple[Any, StateLog] | None:
        row = self._db.execute(
            "SELECT context, ended, created, updated, ended_at, steps, analysis, analysis_format FROM runs WHERE tenant=? AND run_id=?",
            key,
        ).fetchone()
        if row is None:
            return None
        context, ended, created, updated, ended_at, steps, blob, fmt = row
        if fmt != ANALYSIS_FORMAT:
            raise StoreUnavailable(
                f"store: run {key[1]!r} was saved in analysis format {fmt}; this Plateau reads format {ANALYSIS_FORMAT}"
            )
        state = StateLog()
        entries = [e for (e,) in self._db.execute("SELECT entry FROM statelog WHERE tenant=? AND run_id=? ORDER BY seq", key)]
        analysis = state.restore(blob, entries)
        fingerprints: list[str] = []
        verdicts: list[Verdict] = []
        times: list[float | None] = []
        for idx, fingerprint, verdict, at in self._db.execute(
            "SELECT idx, fingerprint, verdict, at FROM steps WHERE tenant=? AND run_id=? ORDER BY idx", key
        ):
            if idx != len(fingerprints):
                raise ValueError(f"step rows of run {key[1]!r} are not contiguous at {idx}")
            fingerprints.append(fingerprint)
            verdicts.append(verdict_from_json(key[1], verdict))
            times.append(at)
        if len(fingerprints) != steps:
            raise ValueError(f"run {key[1]!r} records {steps} steps but holds {len(fingerprints)}")
        record = RunRecord(
            run_id=key[1],
            context=context,
            analysis=analysis,
            fingerprints=fingerprints,
            verdicts=verdicts,
            ended=bool(ended),
            tenant=key[0],
            created=created,
            updated=updated,
            ended_at=ended_at,
            times=times,
        )
        return record, state

    def count(self, tenant: str) -> int:
        """Number of runs ``tenant`` holds."""
        return self._counts.get(tenant, 0)

    def oldest_ended(self, tenant: str) -> RunKey | None:
        """The key of ``tenant``'s run that ended first, or None when none has ended."""
        with self._lock:
            row = self._db.execute(
                "SELECT run_id FROM runs WHERE tenant=? AND ended=1 ORDER BY ended_at LIMIT 1", (tenant,)
            ).fetchone()
        return None if row is None else (tenant, row[0])

    def keys(self) -> Iterator[RunKey]:
        """Every key held (a snapshot)."""
        with self._lock:
            return iter([(t, r) for t, r in self._db.execute("SELECT tenant, run_id FROM runs")])

    def summaries(self, tenant: str) -> list[Any]:
        """The :class:`~plateau.types.RunSummary` of each of ``tenant``'s runs, from the ``runs``
        rows and each run's last step row (one query; the learned state is not decoded).

        Raises ``StoreUnavailable`` when the file cannot be read.
        """
        query = (
            "SELECT r.run_id, r.context, r.ended, r.created, r.updated, r.ended_at, r.steps, s.verdict FROM runs r "
            "LEFT JOIN steps s ON s.tenant = r.tenant AND s.run_id = r.run_id AND s.idx = r.steps - 1 WHERE r.tenant = ?"
        )
        with self._lock:
            try:
                rows = self._db.execute(query, (tenant,)).fetchall()
            except sqlite3.Error as exc:
                raise self._fail(None, "listing runs", exc) from exc
        return [
            run_summary(
                run_id, context=context, ended=bool(ended), created=created, updated=updated, ended_at=ended_at, steps=steps,
                last=verdict_from_json(run_id, last) if last is not None else None,
            )
            for run_id, context, ended, created, updated, ended_at, steps, last in rows
        ]

    def expired(self, idle_before: float, ended_before: float) -> list[RunKey]:
        """Keys of runs last active before ``idle_before`` or ended before ``ended_before``."""
        clauses, params = [], []
        if not math.isinf(idle_before):
            clauses.append("updated < ?")
            params.append(idle_before)
        if not math.isinf(ended_before):
            clauses.append("(ended = 1 AND ended_at < ?)")
            params.append(ended_before)
        if not clauses:
            return []
        with self._lock:
            rows = self._db.execute(f"SELECT tenant, run_id FROM runs WHERE {' OR '.join(clauses)}", params).fetchall()
        return [(t, r) for t, r in rows]

    # ------------------------------------------------------------------ writes
    def _run_row(self, key: RunKey, record: Any, base: str) -> tuple[Any, ...]:
        return (
            key[0], key[1], record.context, int(record.ended), record.created, record.updated, record.ended_at,
            len(record.fingerprints), base, ANALYSIS_FORMAT,
        )

    _UPSERT = (
        "INSERT INTO runs (tenant, run_id, context, ended, created, updated, ended_at, steps, analysis, analysis_format) "
        "VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT (tenant, run_id) DO UPDATE SET context=excluded.context, ended=excluded.ended, "
        "created=excluded.created, updated=excluded.updated, ended_at=excluded.ended_at, steps=excluded.steps, "
        "analysis=excluded.analysis, analysis_format=excluded.analysis_format"
    )

    def _write(self, key: RunKey, record: Any, what: str, *, clear_steps: bool, new_step: bool) -> None:
        with self._lock:
            self._ensure_sound()
            prior = self._states.get(key) if self._cache.get(key) is record else None
            state = StateLog() if prior is None or clear_steps else prior.copy()
            try:
                existed = key in self._cache or self._exists(key)
                base, entry, full = state.snapshot(record.analysis, full=prior is None or clear_steps)
                if new_step and state.snapshot_chars > self.max_state_bytes:
                    self._forget(key)
                    raise state_too_large(key[1], state.snapshot_chars, self.max_state_bytes)
                row = self._run_row(key, record, base)
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    self._db.execute(self._UPSERT, row)
                    if clear_steps:
                        self._db.execute("DELETE FROM steps WHERE tenant=? AND run_id=?", key)
                    if full:
                        self._db.execute("DELETE FROM statelog WHERE tenant=? AND run_id=?", key)
                    if entry:
                        self._db.execute(
                            "INSERT INTO statelog (tenant, run_id, seq, entry) VALUES (?, ?, "
                            "(SELECT coalesce(max(seq), -1) + 1 FROM statelog WHERE tenant=? AND run_id=?), ?)",
                            (*key, *key, entry),
                        )
                    if new_step and record.verdicts:
                        idx = len(record.fingerprints) - 1
                        times = getattr(record, "times", ())
                        self._db.execute(
                            "INSERT INTO steps (tenant, run_id, idx, fingerprint, verdict, at) VALUES (?,?,?,?,?,?)",
                            (key[0], key[1], idx, record.fingerprints[idx], verdict_to_json(record.verdicts[idx]),
                             times[idx] if idx < len(times) else None),
                        )
                    self._db.execute("COMMIT")
                except BaseException:
                    self._rollback()
                    raise
            except (sqlite3.Error, CodecError, TypeError, ValueError, AttributeError, OSError) as exc:
                raise self._fail(key, what, exc) from exc
            except BaseException:
                self._forget(key)
                raise
            fault = self._file_fault()
            if fault is not None:  # committed to a file that is gone: not durable, not acknowledged
                self.errors += 1
                raise self._stop(f"{fault}; {what} was not kept")
            state.commit()
            if not existed:
                self._counts[key[0]] += 1
            self._remember(key, record, state)

    def _exists(self, key: RunKey) -> bool:
        return self._db.execute("SELECT 1 FROM runs WHERE tenant=? AND run_id=?", key).fetchone() is not None

    def append(self, key: RunKey, record: Any) -> None:
        """Write the run's learned state and its newest step in one transaction."""
        self._write(key, record, f"saving step {len(record.fingerprints) - 1} of run {key[1]!r}", clear_steps=False, new_step=True)

    def replace(self, key: RunKey, record: Any) -> None:
        """Write the run in full and drop its old steps (reset), in one transaction."""
        self._write(key, record, f"resetting run {key[1]!r}", clear_steps=True, new_step=False)

    def update(self, key: RunKey, record: Any) -> None:
        """Write the run's metadata and state (its steps are unchanged)."""
        self._write(key, record, f"updating run {key[1]!r}", clear_steps=False, new_step=False)

    def delete(self, key: RunKey) -> None:
        """Delete the run and its steps (no error when absent)."""
        with self._lock:
            self._ensure_sound()
            self._forget(key)
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    gone = self._db.execute("DELETE FROM runs WHERE tenant=? AND run_id=?", key).rowcount
                    self._db.execute("DELETE FROM steps WHERE tenant=? AND run_id=?", key)
                    self._db.execute("DELETE FROM statelog WHERE tenant=? AND run_id=?", key)
                    self._db.execute("COMMIT")
                except BaseException:
                    self._rollback()
                    raise
            except sqlite3.Error as exc:
                raise self._fail(key, f"deleting run {key[1]!r}", exc) from exc
            if gone:
                self._counts[key[0]] -= 1
                if self._counts[key[0]] <= 0:
                    del self._counts[key[0]]

    def discard(self, key: RunKey) -> None:
        """Drop the cached copy of ``key``; the next :meth:`get` reads the file."""
        with self._lock:
            self._forget(key)

    def close(self) -> None:
        """Checkpoint the WAL, close the database and release the file lock (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error as exc:  # closing anyway; the WAL is replayed on the next open
                log.warning("store: checkpoint on close failed: %s", exc)
            self._db.close()
            self._cache.clear()
            self._states.clear()
            self._release_lockfile()  # after the database: SQLite's own locks live until then

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM runs").fetchone()[0])
