"""A failed gRPC call → the :mod:`plateau.errors` error it stands for (both remote clients).

The server attaches rich error details to every error it raises on purpose (see
:func:`plateau.server.rich_status`): an ``ErrorInfo`` in Plateau's domain, and a
``BadRequest`` naming the field of an :class:`~plateau.errors.InvalidArgument`. They are read
with ``grpcio-status`` from the call's trailing metadata. A status without them did not come
from Plateau's service code: ``UNAVAILABLE`` then means nothing answered
(:class:`~plateau.errors.ServiceUnavailable`, not a missing model) and ``DEADLINE_EXCEEDED``
that no answer came in time (:class:`~plateau.errors.DeadlineExceeded`).
"""

from __future__ import annotations

from typing import Any

from plateau.errors import ERROR_DOMAIN, DeadlineExceeded, PlateauError, ServiceUnavailable, from_code, from_reason

__all__ = ["error_from_rpc"]


def _details(exc: Any) -> tuple[str | None, str | None]:
    """``(ErrorInfo.reason, BadRequest field)`` from the call's rich status, when Plateau sent one."""
    from google.rpc import error_details_pb2
    from grpc_status import rpc_status

    try:
        status = rpc_status.from_call(exc)
    except (ValueError, TypeError, AttributeError):  # a mismatched or unreadable status: no details
        return None, None
    if status is None:
        return None, None
    reason: str | None = None
    field: str | None = None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            if info.domain == ERROR_DOMAIN:
                reason = info.reason
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            if bad.field_violations:
                field = bad.field_violations[0].field
    return reason, field


def error_from_rpc(exc: Any, target: str = "") -> PlateauError:
    """The domain error for a failed call (a ``grpc.RpcError`` or ``grpc.aio.AioRpcError``).

    Parameters
    ----------
    exc
        The failed call; ``code()``, ``details()`` and ``trailing_metadata()`` are read.
    target
        The server's address, named in the message of a transport error.
    """
    code = exc.code().name
    message = exc.details() or ""
    reason, field = _details(exc)
    if reason is not None:
        return from_reason(reason, code, message, field)
    where = f" at {target}" if target else ""
    if code == "UNAVAILABLE":
        return ServiceUnavailable(f"cannot reach Plateau{where}: {message or 'no answer'}")
    if code == "DEADLINE_EXCEEDED":
        return DeadlineExceeded(f"no answer from Plateau{where} within the call's deadline")
    return from_code(code, message)
