"""A throwaway ``redis-server`` on a free loopback port (tests and load tests).

``RedisProcess()`` starts ``redis-server`` (the Debian package ``redis-server``) on 127.0.0.1
with a temporary working folder and no persistence (no RDB snapshots, no AOF), waits until it
answers ``PING``, and stops it (and removes the folder) on :meth:`RedisProcess.stop` or at the
end of a ``with`` block. Not for production: it is a fixture.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

__all__ = ["RedisProcess", "redis_server_binary"]


def redis_server_binary() -> str | None:
    """Path of ``redis-server`` on ``PATH``, or None."""
    return shutil.which("redis-server")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisProcess:
    """A ``redis-server`` child process on 127.0.0.1 (see the module docstring).

    Parameters
    ----------
    port
        The port; a free one when None.
    start_timeout
        Seconds to wait for ``PING`` to answer (> 0).
    args
        More ``redis-server`` arguments, e.g. ``("--requirepass", "s3cret")`` (the readiness
        check then accepts a ``NOAUTH`` answer).

    Raises
    ------
    FileNotFoundError
        ``redis-server`` is not installed (``apt-get install redis-server``).
    RuntimeError
        It did not answer within ``start_timeout`` (its log is in the message).
    """

    def __init__(self, port: int | None = None, *, start_timeout: float = 10.0, args: tuple[str, ...] = ()) -> None:
        binary = redis_server_binary()
        if binary is None:
            raise FileNotFoundError("redis-server is not installed (Debian/Ubuntu: apt-get install redis-server)")
        self.port = port or _free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="plateau-redis-"))
        self._log = self.dir / "redis.log"
        argv = [
            binary, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.dir), "--save", "", "--appendonly", "no",
            "--logfile", str(self._log), "--protected-mode", "yes", "--daemonize", "no", *args,
        ]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + start_timeout
        while not self.ping():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                log = self._log.read_text(errors="replace") if self._log.exists() else ""
                self.stop()
                raise RuntimeError(f"redis-server did not start on port {self.port}: {log[-2000:]}")
            time.sleep(0.02)

    @property
    def url(self) -> str:
        """``redis://127.0.0.1:PORT/0``."""
        return f"redis://127.0.0.1:{self.port}/0"

    def ping(self) -> bool:
        """Whether the server answers ``PING`` (over a raw socket; no client library needed)."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith((b"+PONG", b"-NOAUTH"))
        except OSError:
            return False

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 5 s) and remove its folder (idempotent)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> RedisProcess:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
