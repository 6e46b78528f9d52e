"""What a client answers when Plateau cannot judge a step: the ``on_unavailable`` policy.

Both clients (:class:`~plateau.client.Client`, :class:`~plateau.aio.AsyncClient`) take
``on_unavailable``, which applies to ``observe`` and ``check`` when the error is one of
:func:`plateau.errors.is_unavailable` (Plateau unreachable, no answer in time, no model, a
failing store):

- ``"raise"`` (the default): the error propagates; the harness decides.
- ``"open"`` (fail open): the step is let through: a ``continue`` verdict whose only reason is
  ``client.unavailable``. An agent keeps working while Plateau is down, unguarded.
- ``"closed"`` (fail closed): the run is stopped: a ``trip`` verdict with reason
  ``client.unavailable`` and a message saying why. Nothing runs unguarded.

Every other error (a malformed step, a gap, an unknown run) is the caller's to fix and always
raises. A fallback verdict is made on the client and never stored by Plateau: once Plateau is
back, re-send the step (steps are idempotent) to get its real verdict.
"""

from __future__ import annotations

from typing import Literal

from plateau.errors import InvalidArgument, PlateauError
from plateau.types import Action, BreakerState, Verdict

__all__ = ["POLICIES", "UNAVAILABLE_REASON", "OnUnavailable", "check_policy", "fallback_verdict"]

OnUnavailable = Literal["raise", "open", "closed"]
#: The accepted values of ``on_unavailable``.
POLICIES: tuple[str, ...] = ("raise", "open", "closed")
#: The reason code of a fallback verdict.
UNAVAILABLE_REASON = "client.unavailable"


def check_policy(value: object) -> OnUnavailable:
    """Return ``value`` if it is a policy name, else raise ``InvalidArgument("on_unavailable", …)``."""
    if value not in POLICIES:
        raise InvalidArgument("on_unavailable", f"must be one of {', '.join(POLICIES)}; got {value!r}")
    return value  # type: ignore[return-value]


def fallback_verdict(run_id: str, index: int, policy: OnUnavailable, error: PlateauError) -> Verdict:
    """The verdict ``policy`` gives step ``index`` of ``run_id`` when Plateau failed with ``error``.

    Raises ``error`` itself for the ``"raise"`` policy.
    """
    if policy == "open":
        return Verdict(run_id, index, Action.CONTINUE, BreakerState.CLOSED, 0.0, (UNAVAILABLE_REASON,), {}, None)
    if policy == "closed":
        message = f"Plateau could not judge this step ({error.message}); the run is stopped (fail-closed policy)."
        return Verdict(run_id, index, Action.TRIP, BreakerState.OPEN, 1.0, (UNAVAILABLE_REASON,), {}, message)
    raise error
