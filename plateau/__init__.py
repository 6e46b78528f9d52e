"""Plateau: a circuit breaker for LLM agents.

>>> from plateau import Client, Step                                   # doctest: +SKIP
>>> client = Client.remote("127.0.0.1:50051")                          # doctest: +SKIP
>>> client.observe("run-1", Step(index=0, text="Reading the config."))  # doctest: +SKIP

The names below are imported lazily, so ``import plateau`` stays cheap (no grpc, numpy or
torch until a name that needs them is used).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what type checkers see; at run time the names are imported on first use
    from plateau.aio import AsyncClient
    from plateau.auth import ClientTls
    from plateau.client import Client
    from plateau.config import Config
    from plateau.policy import ToolPolicy
    from plateau.session import AsyncRunSession, RunSession
    from plateau.stream import StreamGuard
    from plateau.types import RunInfo, Step, Verdict

    __version__: str

#: The distribution whose installed metadata holds the version (pyproject.toml is the one place
#: it is written; ``__version__`` is read from the metadata on first use).
DISTRIBUTION = "plateau-breaker"

#: Public name → the module that defines it.
_EXPORTS = {
    "AsyncClient": "plateau.aio",
    "AsyncRunSession": "plateau.session",
    "Client": "plateau.client",
    "ClientTls": "plateau.auth",
    "Config": "plateau.config",
    "RunInfo": "plateau.types",
    "RunSession": "plateau.session",
    "Step": "plateau.types",
    "StreamGuard": "plateau.stream",
    "ToolPolicy": "plateau.policy",
    "Verdict": "plateau.types",
}

__all__ = [
    "AsyncClient",
    "AsyncRunSession",
    "Client",
    "ClientTls",
    "Config",
    "RunInfo",
    "RunSession",
    "Step",
    "StreamGuard",
    "ToolPolicy",
    "Verdict",
    "__version__",
]


def _version() -> str:
    """The installed version of :data:`DISTRIBUTION` (``importlib.metadata``), or ``"0+unknown"``
    for a source tree that is on ``sys.path`` without being installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "0+unknown"


def __getattr__(name: str) -> object:
    if name == "__version__":
        globals()[name] = value = _version()
        return value
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'plateau' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # resolved once; later lookups skip this function
    return value


def __dir__() -> list[str]:
    return __all__
