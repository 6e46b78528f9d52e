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
=========================  ======================  ==========================================

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
    "DegenerateOutput",
    "InvalidArgument",
    "LimitExceeded",
    "ModelUnavailable",
    "PlateauError",
    "RunNotFound",
    "StepConflict",
    "StoreUnavailable",
    "Unauthenticated",
]


class PlateauError(Exception):
    """Base class of Plateau's errors; ``code`` names the gRPC status it maps to."""

    code = "UNKNOWN"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidArgument(PlateauError, ValueError):
    """A request field is malformed; ``field`` names it (dotted path, e.g. ``step.args``)."""

    code = "INVALID_ARGUMENT"

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}" if field else problem)
        self.field = field


class RunNotFound(PlateauError, LookupError):
    """The run id names no run (or a run this caller may not see)."""

    code = "NOT_FOUND"


class StepConflict(PlateauError):
    """The step does not fit the run: a gap, a conflicting re-send, or an ended run."""

    code = "FAILED_PRECONDITION"


class LimitExceeded(PlateauError):
    """A configured limit (text size, runs, steps) is exceeded."""

    code = "RESOURCE_EXHAUSTED"


class ModelUnavailable(PlateauError, RuntimeError):
    """The embedding model cannot be loaded; the message says what to install or pass."""

    code = "UNAVAILABLE"


class StoreUnavailable(PlateauError, RuntimeError):
    """The run store failed (disk full, unreadable file); the step was not applied.

    The message starts with ``store:`` so that the remote client can tell it from
    :class:`ModelUnavailable` (both are ``UNAVAILABLE``). Retrying the same step is safe.
    """

    code = "UNAVAILABLE"

    def __init__(self, message: str) -> None:
        super().__init__(message if message.startswith("store:") else f"store: {message}")


class Unauthenticated(PlateauError, PermissionError):
    """The server requires a bearer token and the call carried none, or an unknown one."""

    code = "UNAUTHENTICATED"


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

    def __init__(self, channel: str, result: object, text: str) -> None:
        unit = getattr(result, "unit", None) or ""
        super().__init__(f"{channel}: the response degenerated into repetition of {unit[:60]!r}")
        self.channel = channel
        self.result = result
        self.text = text


def from_code(code: str, message: str) -> PlateauError:
    """Rebuild the error for a gRPC status code name (used by the remote client)."""
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
    }.get(code)
    if cls is None:
        err = PlateauError(message)
        err.code = code
        return err
    return cls(message)
