"""Plateau's one error hierarchy.

Every error Plateau raises on purpose derives from :class:`PlateauError`. Each class carries
the gRPC status code it maps to (``code``, a name from ``grpc.StatusCode``), so the server,
the remote client and the in-process client agree on one table:

=========================  ======================  ==========================================
error                      gRPC status             when
=========================  ======================  ==========================================
:class:`InvalidArgument`   ``INVALID_ARGUMENT``    a field is malformed (message names it);
                                                   also a ``ValueError``
:class:`RunNotFound`       ``NOT_FOUND``           get/reset/end of a run that does not exist
:class:`StepConflict`      ``FAILED_PRECONDITION`` a gap in step indices, a past index with
                                                   different content, a step for (or a reset
                                                   of) an ended run
:class:`LimitExceeded`     ``RESOURCE_EXHAUSTED``  a configured limit is exceeded (steps per
                                                   run, open runs per tenant, open streams,
                                                   calls being worked on)
:class:`ModelUnavailable`  ``UNAVAILABLE``         the embedding model cannot be loaded
:class:`StoreUnavailable`  ``UNAVAILABLE``         the run store cannot be read or written
                                                   (message starts with ``store:``)
:class:`Unauthenticated`   ``UNAUTHENTICATED``     auth is on and the call has no valid token
:class:`DeadlineExceeded`  ``DEADLINE_EXCEEDED``   no answer within the call's deadline, or a
                                                   server-side wait ran out
:class:`ServiceUnavailable` ``UNAVAILABLE``        client side only: Plateau cannot be reached
                                                   (no server, network down)
=========================  ======================  ==========================================

On the wire every error the server raises on purpose carries gRPC rich error details
(``google.rpc.Status`` via ``grpcio-status``): an ``ErrorInfo`` whose ``domain`` is
:data:`ERROR_DOMAIN` and whose ``reason`` is :attr:`PlateauError.reason` (for instance
``MODEL_UNAVAILABLE`` or ``STORE_UNAVAILABLE``), plus a ``BadRequest`` field violation naming
the field for :class:`InvalidArgument`. The remote client rebuilds the error from these
details, not from the message text: an ``UNAVAILABLE`` status *without* Plateau's
``ErrorInfo`` comes from the transport (nothing answered) and becomes
:class:`ServiceUnavailable`, so a harness can fail open when Plateau is down and still tell
that apart from a server that has no model (:class:`ModelUnavailable`) or a failing store
(:class:`StoreUnavailable`). :func:`is_unavailable` is true for all three.

A run of another tenant is reported exactly like a run that does not exist
(:class:`RunNotFound`), so one tenant learns nothing about another's runs.

:class:`DegenerateOutput` is raised on the client side by the stream adapters
(:mod:`plateau.adapters`) when a streamed model response degenerates; it never crosses the wire.

The server itself answers ``DEADLINE_EXCEEDED`` for an expired deadline or a stream idle
too long (sending nothing, or reading no answer), and ``UNAVAILABLE`` (``server: …``) for a
stream open when it shuts down. Nothing a client sends ever maps to ``INTERNAL``. This module imports neither grpc nor torch.
"""

from __future__ import annotations

__all__ = [
    "ERROR_DOMAIN",
    "DeadlineExceeded",
    "DegenerateOutput",
    "InvalidArgument",
    "LimitExceeded",
    "ModelUnavailable",
    "PlateauError",
    "RunNotFound",
    "ServiceUnavailable",
    "StepConflict",
    "StoreUnavailable",
    "Unauthenticated",
    "from_code",
    "from_reason",
    "is_unavailable",
]

#: ``ErrorInfo.domain`` of the rich error details Plateau's server attaches to its errors.
ERROR_DOMAIN = "plateau.v1"


class PlateauError(Exception):
    """Base class of Plateau's errors; ``code`` names the gRPC status it maps to."""

    code = "UNKNOWN"
    #: Machine-readable reason sent as ``ErrorInfo.reason`` (upper snake case).
    reason = "UNKNOWN"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidArgument(PlateauError, ValueError):
    """A request field is malformed; ``field`` names it (dotted path, e.g. ``step.args``)."""

    code = "INVALID_ARGUMENT"
    reason = "INVALID_ARGUMENT"

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}" if field else problem)
        self.field = field


class RunNotFound(PlateauError, LookupError):
    """The run id names no run (or a run this caller may not see)."""

    code = "NOT_FOUND"
    reason = "RUN_NOT_FOUND"


class StepConflict(PlateauError):
    """The step does not fit the run: a gap, a conflicting re-send, or an ended run."""

    code = "FAILED_PRECONDITION"
    reason = "STEP_CONFLICT"


class LimitExceeded(PlateauError):
    """A configured limit (text size, runs, steps) is exceeded."""

    code = "RESOURCE_EXHAUSTED"
    reason = "LIMIT_EXCEEDED"


class ModelUnavailable(PlateauError, RuntimeError):
    """The embedding model cannot be loaded; the message says what to install or pass."""

    code = "UNAVAILABLE"
    reason = "MODEL_UNAVAILABLE"


class StoreUnavailable(PlateauError, RuntimeError):
    """The run store failed (disk full, unreadable file); the step was not applied.

    The message starts with ``store:`` so that the remote client can tell it from
    :class:`ModelUnavailable` (both are ``UNAVAILABLE``). Retrying the same step is safe.
    """

    code = "UNAVAILABLE"
    reason = "STORE_UNAVAILABLE"

    def __init__(self, message: str) -> None:
        super().__init__(message if message.startswith("store:") else f"store: {message}")


class Unauthenticated(PlateauError, PermissionError):
    """The server requires a bearer token and the call carried none, or an unknown one."""

    code = "UNAUTHENTICATED"
    reason = "UNAUTHENTICATED"


class ServiceUnavailable(PlateauError, ConnectionError):
    """Plateau cannot be reached: no server at the target, the network is down, or the call's
    deadline passed before any answer. Raised by the remote client only (a transport-level
    ``UNAVAILABLE`` or ``DEADLINE_EXCEEDED`` without Plateau's error details).

    A harness that must not stop when Plateau is down catches this (or passes
    ``on_unavailable="open"`` to the client); retrying later is safe, as every step is
    idempotent.
    """

    code = "UNAVAILABLE"
    reason = "SERVICE_UNAVAILABLE"


class DeadlineExceeded(PlateauError, TimeoutError):
    """No answer within the call's deadline (the client's ``timeout``, or a server-side wait
    such as ``order_wait_seconds`` or an idle stream). Retrying the same step is safe."""

    code = "DEADLINE_EXCEEDED"
    reason = "DEADLINE_EXCEEDED"


class DegenerateOutput(PlateauError):
    """A streamed response degenerated into repetition and was cut.

    Attributes
    ----------
    channel
        ``content``, ``reasoning`` or ``tool_args``.
    result
        The stream guard's :class:`~plateau.stream.GuardResult` (unit, period, loop start,
        cut offset).
    text
        The channel's text up to the cut, with a visible marker; the looped part is dropped.
    """

    code = "ABORTED"
    reason = "DEGENERATE_OUTPUT"

    def __init__(self, channel: str, result: object, text: str) -> None:
        unit = getattr(result, "unit", None) or ""
        super().__init__(f"{channel}: the response degenerated into repetition of {unit[:60]!r}")
        self.channel = channel
        self.result = result
        self.text = text


_BY_REASON: dict[str, type[PlateauError]] = {
    cls.reason: cls
    for cls in (
        RunNotFound,
        StepConflict,
        LimitExceeded,
        ModelUnavailable,
        StoreUnavailable,
        Unauthenticated,
        ServiceUnavailable,
        DeadlineExceeded,
    )
}


def from_reason(reason: str, code: str, message: str, field: str | None = None) -> PlateauError:
    """Rebuild an error from the rich details the server sent (``ErrorInfo.reason``, the gRPC
    status code name, the message, and the ``BadRequest`` field when there is one)."""
    if reason == InvalidArgument.reason or code == "INVALID_ARGUMENT":
        if field is not None:
            prefix = f"{field}: "
            return InvalidArgument(field, message[len(prefix) :] if message.startswith(prefix) else message)
        return from_code("INVALID_ARGUMENT", message)
    cls = _BY_REASON.get(reason)
    if cls is StoreUnavailable:
        return StoreUnavailable(message)
    if cls is not None:
        return cls(message)
    return from_code(code, message)


def is_unavailable(error: BaseException) -> bool:
    """True when ``error`` means Plateau could not judge the step at all: unreachable
    (:class:`ServiceUnavailable`), no answer in time (:class:`DeadlineExceeded`), no model
    (:class:`ModelUnavailable`) or a failing store (:class:`StoreUnavailable`). The clients'
    ``on_unavailable`` policy applies to exactly these."""
    return isinstance(error, (ServiceUnavailable, DeadlineExceeded, ModelUnavailable, StoreUnavailable))


def from_code(code: str, message: str) -> PlateauError:
    """Rebuild the error for a gRPC status code name and message alone (a peer that sent no
    rich details; the remote client prefers :func:`from_reason`)."""
    if code == "INVALID_ARGUMENT":
        field, _, problem = message.partition(": ")
        return InvalidArgument(field, problem) if problem else InvalidArgument("", message)
    if code == "UNAVAILABLE" and message.startswith("store:"):
        return StoreUnavailable(message)
    if code == "UNAVAILABLE" and message.startswith("server:"):  # shutting down: not the model
        err = PlateauError(message)
        err.code = code
        return err
    cls = {
        "UNAUTHENTICATED": Unauthenticated,
        "NOT_FOUND": RunNotFound,
        "FAILED_PRECONDITION": StepConflict,
        "RESOURCE_EXHAUSTED": LimitExceeded,
        "UNAVAILABLE": ModelUnavailable,
        "DEADLINE_EXCEEDED": DeadlineExceeded,
    }.get(code)
    if cls is None:
        err = PlateauError(message)
        err.code = code
        return err
    return cls(message)
