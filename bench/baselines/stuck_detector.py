"""``stuck-detector``: OpenHands' ``StuckDetector``, replayed over ``docs/format.md`` steps.

Source
------
OpenHands/OpenHands ``openhands/controller/stuck.py`` (legacy V0 controller, read at commit
``331a1a43145f185f7596431e2a19668a0e0a6daa``), cross-checked with the V1 SDK's
``openhands-sdk/openhands/sdk/conversation/stuck_detector.py`` (OpenHands/software-agent-sdk,
commit ``1c2e6b518376822bdfe05cec8625d4dcc02495d4``) and its ``StuckDetectionThresholds``
defaults (``action_observation=4``, ``action_error=3``, ``monologue=3``,
``alternating_pattern=6``). ``is_stuck`` is evaluated after every step, as the agent
controller does; the first ``True`` trips.

Scenarios, as verified in ``stuck.py`` (checked in this order; fewer than 3 events never trip):

1. **repeating action/observation** -- the last 4 actions are all equal and the last 4
   observations are all equal (actions and observations are collected independently from the
   end of history, wherever they sit);
2. **repeating action/error** -- the last 3 actions are all equal and the last 3 observations
   are all *error observations* (the errors themselves need not be equal);
3. **monologue** -- the last 3 agent messages are equal and no observation lies between the
   first and the last of them;
4. **alternating pattern** -- with at least 6 events, the last 6 actions satisfy
   ``a0 == a2 == a4`` and ``a1 == a3 == a5``, and the last 6 observations likewise
   (A-B-A-B-A-B; six identical pairs also qualify);
6. **empty responses** -- the history ends with 3 or more consecutive empty agent messages
   (no action or observation after them).

"Identical" ignores ids, timestamps, ``tool_call_id``, ``llm_response_id`` and (for command
output) the process id; it does **not** ignore the agent's thought: a V0 ``Action`` is a
dataclass whose ``__eq__`` includes ``thought``, and the SDK's ``_event_eq`` compares
``(source, thought, action, tool_name)``. Paraphrased text before a byte-identical call
therefore defeats scenarios 1, 2 and 4 -- a known gap (OpenHands issue #15087), reproduced here.
In V0 a ``MessageAction`` is itself an ``Action``, so agent messages take part in scenarios 1,
2 and 4 as well; that is kept.

Mapping of a step onto OpenHands events
---------------------------------------
* ``user`` (non-empty) -> a user message before the step; only events after the last user
  message are considered (the SDK's behaviour, and V0's interactive mode; V0's headless mode
  instead drops user messages and keeps all history).
* ``tool`` not ``None`` -> an action ``(agent, tool, canonical args, thought = text)``; then, if
  ``result`` or ``status`` is present, an observation: an *error observation*
  (``ErrorObservation`` / ``AgentErrorEvent``) when the step is an error (see
  :func:`step_is_error`), else an observation ``(tool, result)``.
* ``tool`` is ``None`` -> an agent message ``(agent, text)``.
* ``agent`` (multi-agent speaker) plays the part of the event ``source``; ``progress`` is
  ignored (OpenHands has no such signal).

Not modelled (the step format does not carry the information): V0's special equalities --
``CmdOutputObservation`` compared only by command and exit code (its output ignored),
``IPythonRunCellAction`` edits compared by their first three code lines, the IPython
``SyntaxError`` consistency checks of scenario 2 -- scenario 5 (repeated context-window
condensation events), the SDK's 20-event scan window, and V0's corrective-nudge filter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bench.baselines.exact_args import sorted_json

__all__ = ["StuckDetector", "step_is_error"]

_FIRST_LINE_ERROR = re.compile(r"^\s*(?:error|fatal|exception)\b", re.IGNORECASE)
_EXCEPTION_LINE = re.compile(r"^\s*(?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception)\s*:", re.MULTILINE)
_TRACEBACK = "Traceback (most recent call last)"


def step_is_error(step: Mapping[str, Any]) -> bool:
    r"""Whether a step's tool call failed.

    ``status`` decides when present (``"error"`` -> ``True``, anything else -> ``False``).
    Otherwise the ``result`` text is read: it is an error when its first non-blank line starts
    with ``error``, ``fatal`` or ``exception`` (any case), when a line starts with a
    Python-style ``SomeError:`` / ``SomeException:``, or when it holds a Python traceback
    header. A missing result is not an error.

    Examples
    --------
    >>> step_is_error({"result": "Error: Failed to edit, expected 1 occurrence(s) but found 3."})
    True
    >>> step_is_error({"result": "Cell In[1], line 2\n    ^\nSyntaxError: incomplete input"})
    True
    >>> step_is_error({"result": "3 of 9,871 hits\n14:07:41 ERROR [exec-112] payment lookup"})
    False
    >>> step_is_error({"result": "Error: boom", "status": "ok"})
    False
    """
    status = step.get("status")
    if status is not None:
        return str(status).strip().lower() == "error"
    result = step.get("result")
    if result is None:
        return False
    text = str(result)
    first = next((line for line in text.splitlines() if line.strip()), "")
    return bool(_FIRST_LINE_ERROR.match(first) or _EXCEPTION_LINE.search(text) or _TRACEBACK in text)


@dataclass(frozen=True)
class _Event:
    """One replayed OpenHands event: ``kind`` in action, message, obs, error; ``key`` = content."""

    kind: str
    key: tuple[str, ...]

    @property
    def is_action(self) -> bool:
        return self.kind in ("action", "message")

    @property
    def is_observation(self) -> bool:
        return self.kind in ("obs", "error")


class StuckDetector:
    """OpenHands' stuck detection (scenarios 1-4 and 6), evaluated after every step.

    Parameters
    ----------
    action_observation
        Identical action/observation pairs that trip (int >= 1; default 4).
    action_error
        Identical actions each followed by an error observation that trip (int >= 1;
        default 3).
    monologue
        Identical agent messages, without an observation between them, that trip (int >= 1;
        default 3).
    alternating_pattern
        Number of actions (and observations) in the A-B-A-B check (even int >= 4; default 6).

    Raises
    ------
    ValueError
        On a bad parameter (named in the message).

    Examples
    --------
    >>> det = StuckDetector()
    >>> step = {"text": "Retry.", "tool": "replace", "args": {"old": "a"}, "result": "Error: no match"}
    >>> [det.observe(step) for _ in range(4)]
    ['continue', 'continue', 'trip', 'trip']

    References
    ----------
    .. [1] OpenHands/OpenHands, ``openhands/controller/stuck.py``, ``StuckDetector.is_stuck``.
    .. [2] OpenHands/software-agent-sdk, ``openhands/sdk/conversation/stuck_detector.py``.
    """

    name = "stuck-detector"

    def __init__(
        self,
        action_observation: int = 4,
        action_error: int = 3,
        monologue: int = 3,
        alternating_pattern: int = 6,
    ) -> None:
        for pname, value in (
            ("action_observation", action_observation),
            ("action_error", action_error),
            ("monologue", monologue),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{pname} must be an integer >= 1, got {value!r}")
        if (
            isinstance(alternating_pattern, bool)
            or not isinstance(alternating_pattern, int)
            or alternating_pattern < 4
            or alternating_pattern % 2
        ):
            raise ValueError(f"alternating_pattern must be an even integer >= 4, got {alternating_pattern!r}")
        self.action_observation = action_observation
        self.action_error = action_error
        self.monologue = monologue
        self.alternating_pattern = alternating_pattern
        self._reset()

    def _reset(self) -> None:
        self._events: list[_Event] = []
        self._tripped = False
        self._reason: str | None = None

    def reset(self) -> None:
        """Forget the history and the trip: the next step starts a new run."""
        self._reset()

    @property
    def reason(self) -> str | None:
        """The scenario that tripped, else ``None``.

        One of ``"repeating_action_observation"``, ``"repeating_action_error"``, ``"monologue"``,
        ``"alternating_pattern"``, ``"empty_response_loop"``.
        """
        return self._reason

    def observe(self, step: Mapping[str, Any]) -> str:
        """Judge one step (``"continue"`` or ``"trip"``); see the class docstring."""
        if self._tripped:
            return "trip"
        self._append(step)
        reason = self._stuck_reason()
        if reason is not None:
            self._tripped = True
            self._reason = reason
            return "trip"
        return "continue"

    # -- replaying a step as events -------------------------------------------------------

    def _append(self, step: Mapping[str, Any]) -> None:
        if step.get("user"):
            self._events.clear()  # only history after the last user message counts
        agent = str(step.get("agent") or "")
        text = str(step.get("text") or "")
        tool = step.get("tool")
        if tool is None:
            self._events.append(_Event("message", (agent, text)))
            return
        self._events.append(_Event("action", (agent, str(tool), sorted_json(step.get("args")), text)))
        if step.get("result") is None and step.get("status") is None:
            return
        result = "" if step.get("result") is None else str(step.get("result"))
        if step_is_error(step):
            self._events.append(_Event("error", (result,)))
        else:
            self._events.append(_Event("obs", (str(tool), result)))

    # -- the scenarios ----------------------------------------------------------------------

    def _last(self, n_actions: int, n_observations: int) -> tuple[list[_Event], list[_Event]]:
        actions: list[_Event] = []
        observations: list[_Event] = []
        for event in reversed(self._events):
            if event.is_action and len(actions) < n_actions:
                actions.append(event)
            elif event.is_observation and len(observations) < n_observations:
                observations.append(event)
            if len(actions) == n_actions and len(observations) == n_observations:
                break
        return actions, observations

    def _stuck_reason(self) -> str | None:
        events = self._events
        if len(events) < 3:
            return None
        n = max(self.action_observation, self.action_error)
        actions, observations = self._last(n, n)

        k = self.action_observation
        if (
            len(actions) >= k
            and len(observations) >= k
            and all(a == actions[0] for a in actions[:k])
            and all(o == observations[0] for o in observations[:k])
        ):
            return "repeating_action_observation"

        k = self.action_error
        if (
            len(actions) >= k
            and len(observations) >= k
            and all(a == actions[0] for a in actions[:k])
            and all(o.kind == "error" for o in observations[:k])
        ):
            return "repeating_action_error"

        if self._is_monologue():
            return "monologue"

        k = self.alternating_pattern
        if len(events) >= k:
            acts, obs = self._last(k, k)
            if len(acts) == k and len(obs) == k:
                alternating = all(acts[i] == acts[i + 2] for i in range(k - 2)) and all(
                    obs[i] == obs[i + 2] for i in range(k - 2)
                )
                if alternating:
                    return "alternating_pattern"

        if self._empty_responses() >= 3:
            return "empty_response_loop"
        return None

    def _is_monologue(self) -> bool:
        messages = [(i, e) for i, e in enumerate(self._events) if e.kind == "message"]
        if len(messages) < self.monologue:
            return False
        last = messages[-self.monologue :]
        if not all(e == last[0][1] for _, e in last):
            return False
        start, end = last[0][0], last[-1][0]
        return not any(e.is_observation for e in self._events[start + 1 : end])

    def _empty_responses(self) -> int:
        count = 0
        for event in reversed(self._events):
            if event.kind == "message":
                if event.key[1].strip():
                    break
                count += 1
            else:
                break
        return count
