"""Per-tool policy: tools that legitimately repeat get their own bounds; some are never judged.

A debugger's ``next``, a status poller or a pager repeats the same call by design; a breaker
that treats it like any retry halts debugging sessions (gemini-cli's users reported exactly
this, google-gemini/gemini-cli#9276, and were given only a global off switch, #18008). Plateau
lets the server's configuration (``Config.tool_policy``, ``plateau serve --tool-policy``) or
a run itself (``tool_policy=`` on ``observe``/``check``, or on a
:class:`~plateau.session.RunSession`; sent with the steps, kept by the run, and taking
precedence over the server's rule for the same tool) declare, per tool name:

- its own repeat bounds: the identical-call counts that steer and trip (``repeat_steer``,
  ``repeat_trip``, counted within ``Config.window`` steps, so at most ``window``) and the
  consecutive-poll counts (``poll_steer``, ``poll_trip``, raised to at least the tool's own)
  for that tool's steps; every other signal is unchanged, so a debugger session whose
  narration has stalled is still caught;
- ``judge=False``: the tool's steps are recorded (idempotent re-sends work) but judged not at
  all and teach the run nothing: the verdict is ``continue`` with reason ``policy.unjudged``
  (``trip`` while the breaker is open).

The engine applies the policy in one place (``Engine._judge``) through :func:`config_for`,
so the fusion reads the effective bounds from the :class:`~plateau.config.Config` it is given.
This module imports nothing beyond Plateau's own value types.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from plateau.errors import InvalidArgument
from plateau.types import Action, BreakerState, Verdict

if TYPE_CHECKING:
    from plateau.config import Config

__all__ = ["UNJUDGED_REASON", "ToolPolicy", "config_for", "parse_tool_policy", "unjudged_verdict"]

#: The reason code of a step whose tool is never judged.
UNJUDGED_REASON = "policy.unjudged"


@dataclass(frozen=True)
class ToolPolicy:
    """How one tool's steps are judged.

    Parameters
    ----------
    repeat_steer, repeat_trip
        Identical calls of this tool (same arguments and result) that steer / trip, and
        consecutive polls that steer / trip (ints, 2 <= steer < trip). None keeps the run's
        settings.
    judge
        False: never judge this tool's steps (verdict ``continue``, reason ``policy.unjudged``).

    Raises
    ------
    InvalidArgument
        Naming the field: a bound that is not an integer >= 2, or a steer bound that is not
        less than the trip bound (the message gives both bounds).
    """

    repeat_steer: int | None = None
    repeat_trip: int | None = None
    judge: bool = True

    def __post_init__(self) -> None:
        for name in ("repeat_steer", "repeat_trip"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 2):
                raise InvalidArgument(f"tool_policy.{name}", f"{name} must be an integer >= 2, got {value!r}")
        if (self.repeat_steer is None) != (self.repeat_trip is None):
            raise InvalidArgument("tool_policy.repeat_trip", "repeat_steer and repeat_trip go together")
        if self.repeat_steer is not None and self.repeat_trip is not None and self.repeat_trip <= self.repeat_steer:
            how = "equals" if self.repeat_trip == self.repeat_steer else "is greater than"
            raise InvalidArgument(
                "tool_policy.repeat_steer",
                f"steer bound {self.repeat_steer} {how} trip bound {self.repeat_trip}; "
                "steer must be less than trip (a tool is steered before it is tripped)",
            )
        if not isinstance(self.judge, bool):
            raise InvalidArgument("tool_policy.judge", f"judge must be a boolean, got {self.judge!r}")


def config_for(config: Config, tool: str | None, run_policy: Mapping[str, ToolPolicy] | None = None) -> Config | None:
    """The settings a step of ``tool`` is judged with: ``config`` itself, a copy with the
    tool's own repeat and poll bounds, or None when the tool is never judged. A rule the run
    declared (``run_policy``) takes precedence over the configuration's."""
    policy = None
    if tool is not None:
        policy = (run_policy or {}).get(tool) or config.tool_policy.get(tool)
    if policy is None:
        return config
    if not policy.judge:
        return None
    if policy.repeat_steer is None or policy.repeat_trip is None:
        return config
    return config.with_(
        repeat_steer=policy.repeat_steer,
        repeat_trip=policy.repeat_trip,
        poll_steer=max(config.poll_steer, policy.repeat_steer),
        poll_trip=max(config.poll_trip, policy.repeat_trip, max(config.poll_steer, policy.repeat_steer) + 1),
    )


def unjudged_verdict(run_id: str, index: int, state: BreakerState) -> Verdict:
    """The verdict of a step whose tool is never judged (the breaker's state is unchanged)."""
    action = Action.TRIP if state is BreakerState.OPEN else Action.CONTINUE
    return Verdict(run_id, index, action, state, 0.0, (UNJUDGED_REASON,), {}, None)


def parse_tool_policy(spec: str | Mapping[str, object]) -> dict[str, ToolPolicy]:
    """Read tool policies from text or a mapping.

    Text: comma-separated ``NAME=ignore`` or ``NAME=STEER:TRIP`` items, e.g.
    ``"debugger_next=6:8,status=ignore"`` (the form of ``plateau serve --tool-policy`` and
    ``PLATEAU_TOOL_POLICY``). A mapping: name → :class:`ToolPolicy`, ``"ignore"``, ``"STEER:TRIP"``
    or a dict of :class:`ToolPolicy` fields.

    Raises
    ------
    InvalidArgument
        ``tool_policy``, naming the malformed item; ``tool_policy.NAME`` for a tool whose
        bounds are out of range, naming the tool and its bounds (the steer bound must be less
        than the trip bound).
    """
    items: list[tuple[str, object]] = []
    if isinstance(spec, str):
        for raw in spec.split(","):
            if not raw.strip():
                continue
            name, sep, text = raw.partition("=")
            if not sep or not name.strip():
                raise InvalidArgument("tool_policy", f"{raw.strip()!r}: expected NAME=ignore or NAME=STEER:TRIP")
            items.append((name.strip(), text.strip()))
    else:
        items = list(spec.items())
    out: dict[str, ToolPolicy] = {}
    for name, value in items:
        if isinstance(value, ToolPolicy):
            out[name] = value
        elif value == "ignore":
            out[name] = ToolPolicy(judge=False)
        elif isinstance(value, str):
            steer, sep, trip = value.partition(":")
            try:
                bounds = int(steer), int(trip)
            except ValueError:
                raise InvalidArgument("tool_policy", f"{name}={value}: expected NAME=ignore or NAME=STEER:TRIP") from None
            out[name] = _named(name, f"{value}: ", repeat_steer=bounds[0], repeat_trip=bounds[1])
        elif isinstance(value, Mapping):
            out[name] = _named(name, "", **{str(k): v for k, v in value.items()})
        else:
            raise InvalidArgument("tool_policy", f"{name}: expected a ToolPolicy, 'ignore' or 'STEER:TRIP'")
    return out


def _named(name: str, given: str, **fields: object) -> ToolPolicy:
    """``ToolPolicy(**fields)`` for the tool ``name``: an error names the tool
    (``tool_policy.NAME``) and starts with what was ``given`` for it."""
    try:
        return ToolPolicy(**fields)  # type: ignore[arg-type]
    except InvalidArgument as exc:
        raise InvalidArgument(f"tool_policy.{name}", given + exc.message.removeprefix(f"{exc.field}: ")) from None
    except TypeError:  # a field ToolPolicy does not have
        known = "repeat_steer, repeat_trip, judge"
        raise InvalidArgument(f"tool_policy.{name}", f"{given}expected the fields {known}, got {', '.join(sorted(fields))}") from None
