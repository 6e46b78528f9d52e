"""Run stores: in memory (:class:`MemoryStore`) or durable on SQLite (:class:`SqliteStore`).

:func:`open_store` turns a ``--store`` value into a store: ``memory``, ``sqlite`` (the default
file, :func:`default_sqlite_path`), ``sqlite:PATH`` or ``redis://HOST:PORT/DB`` (shared by
several replicas, :class:`~plateau.store.redis_store.RedisStore`).

``plateau serve`` defaults to ``sqlite``: one file per listening port
(``runs-50051.sqlite``), so servers on different ports never share a file and a server
restarted on its port continues its runs. With ``--port 0`` (a throwaway server whose clients
could not find it again after a restart) the default is ``memory``.
"""

from __future__ import annotations

import os
from pathlib import Path

from plateau.errors import InvalidArgument
from plateau.store.base import RunKey, Store
from plateau.store.memory import MemoryStore

__all__ = ["MemoryStore", "RunKey", "Store", "default_sqlite_path", "open_store"]


def default_sqlite_path(port: int | None = None) -> Path:
    """Where ``plateau serve`` keeps runs by default: ``runs-PORT.sqlite`` (``runs.sqlite``
    without a port) in the user's state folder.

    ``platformdirs.user_state_path("plateau")`` when platformdirs is installed, else
    ``$XDG_STATE_HOME/plateau`` (``~/.local/state/plateau``).
    """
    try:
        import platformdirs
    except ImportError:
        base = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "plateau"
    else:
        base = Path(platformdirs.user_state_path("plateau"))
    return base / ("runs.sqlite" if port is None else f"runs-{port}.sqlite")


def open_store(spec: str, *, port: int | None = None, password_file: str | os.PathLike[str] | None = None) -> Store:
    """The store named by ``spec``: ``memory``, ``sqlite`` (:func:`default_sqlite_path` of
    ``port``), ``sqlite:PATH`` or ``redis://HOST:PORT/DB`` (also ``rediss://``, ``unix://``).

    A Redis password is best not put in ``spec`` (``ps`` shows a server's arguments to every
    user): give ``password_file`` (its first line; ``plateau serve --store-password-file``) or
    set ``$PLATEAU_REDIS_PASSWORD``. ``password_file`` with a store other than Redis is
    ``InvalidArgument``.

    Raises
    ------
    InvalidArgument
        ``store`` for an unknown kind or an empty path.
    StoreUnavailable
        The SQLite file cannot be opened (see :class:`~plateau.store.sqlite.SqliteStore`), or
        Redis cannot be reached.
    """
    if spec.startswith(("redis://", "rediss://", "unix://")):
        try:
            from plateau.store.redis_store import RedisStore
        except ImportError as exc:  # pragma: no cover - the server extra installs redis
            raise InvalidArgument("store", f"{spec!r} needs the redis package: pip install 'plateau[server]'") from exc
        return RedisStore(spec, password_file=password_file)
    if password_file is not None:
        raise InvalidArgument("store_password_file", "is for a redis:// store only")
    kind, _, arg = spec.partition(":")
    if kind == "memory" and not arg:
        return MemoryStore()
    if kind == "sqlite":
        from plateau.store.sqlite import SqliteStore

        if _ and not arg:
            raise InvalidArgument("store", "sqlite:PATH needs a path")
        return SqliteStore(arg or default_sqlite_path(port))
    raise InvalidArgument("store", f"unknown store {spec!r}; use memory, sqlite, sqlite:PATH or redis://HOST:PORT/DB")
