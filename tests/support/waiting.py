"""Polling until a condition holds (bounded: a test that waits in vain fails, it does not hang)."""

from __future__ import annotations

import time
from typing import Any

from grpc_health.v1 import health_pb2

__all__ = ["health", "wait_health", "wait_until"]


def wait_until(cond: Any) -> None:
    """Return once ``cond()`` is true; AssertionError after 3000 polls 10 ms apart (about 30 s)."""
    for _ in range(3000):
        if cond():
            return
        time.sleep(0.01)
    raise AssertionError("condition never met")


def health(stub: Any) -> int:
    """The server's gRPC health status for ``plateau.v1.Plateau`` (a ``HealthCheckResponse.ServingStatus``)."""
    return stub.Check(health_pb2.HealthCheckRequest(service="plateau.v1.Plateau"), timeout=10).status  # type: ignore[no-any-return]


def wait_health(stub: Any, status: int) -> None:
    """Return once the health status is ``status``; AssertionError after 300 polls 100 ms apart."""
    for _ in range(300):
        if health(stub) == status:
            return
        time.sleep(0.1)
    raise AssertionError(f"health never became {status}")
