"""``exact-args``: trip on the N-th consecutive identical tool call.

The rule every agent harness ships first: hash the tool name and its arguments, count how many
calls in a row share the hash, and stop the agent at a threshold.

Source
------
google-gemini/gemini-cli, ``packages/core/src/services/loopDetectionService.ts`` (read at
commit ``022f913dc748df9dbc4d88c6555fe475606cb379``), ``checkToolCallLoop`` and
``getToolCallKey``:

* the key is ``sha256(name + ":" + JSON.stringify(args))``;
* a call whose key equals the previous call's key increments a counter, any other call sets it
  to 1; the loop is reported when the counter reaches ``TOOL_CALL_LOOP_THRESHOLD = 5``;
* only tool-call events touch the counter: content (text) events between two calls neither
  count nor reset it (they reset the *content* tracker instead).

Verified against that file: the consecutive-key counter, the reset-to-1 on a different key,
and that text events leave it alone.

Differences (by design, per the project's spec for this baseline)
-----------------------------------------------------------------
* The threshold is **3** (the spec line), not gemini-cli's 5.
* Arguments are compared **canonically** (JSON with sorted keys, compact separators,
  ``ensure_ascii=False``); gemini-cli's ``JSON.stringify`` keeps insertion order, so two
  equal argument objects built in a different key order would not match there.
* The key is the canonical string itself rather than its SHA-256 (identical decisions barring
  a hash collision, which gemini-cli does not guard against here either).
* A step without a tool (``tool`` missing or ``None``) is treated like gemini-cli's content
  events: it neither counts nor resets the streak. A ``user`` message does not reset it either
  (gemini-cli resets only on a new prompt, i.e. a new run).

Not modelled: gemini-cli's LLM-based loop check (``checkForLoopWithLLM``) and its content
chunk detector (see :mod:`bench.baselines.chunk_hash`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["ExactArgs", "sorted_json"]


def sorted_json(args: Any) -> str:
    """Serialise tool arguments as this baseline compares them: any JSON-like value, sorted keys.

    Unlike :func:`plateau.types.canonical_args` nothing is validated or parsed (a JSON string
    stays a string), as in the rule the baseline re-implements.

    Parameters
    ----------
    args
        Any JSON-like value (usually a dict); ``None`` serialises as ``"null"``. Values that
        JSON cannot encode are converted with ``str``.

    Returns
    -------
    str
        JSON with sorted keys, no insignificant whitespace, non-ASCII kept as is.

    Examples
    --------
    >>> sorted_json({"b": 1, "a": [2, {"d": 3, "c": 4}]})
    '{"a":[2,{"c":4,"d":3}],"b":1}'
    """
    return json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


class ExactArgs:
    """Trip at the ``threshold``-th consecutive call with the same ``(tool, args)``.

    Parameters
    ----------
    threshold
        Number of consecutive identical calls that trips (int >= 2; default 3, so the third
        identical call in a row trips).

    Raises
    ------
    ValueError
        If ``threshold`` is not an integer >= 2.

    Notes
    -----
    Port of gemini-cli's ``checkToolCallLoop`` (see the module docstring for the source and the
    differences). Steps without a tool are ignored; once tripped, every later step answers
    ``"trip"`` until :meth:`reset`.

    Examples
    --------
    >>> det = ExactArgs()
    >>> call = {"text": "retry", "tool": "replace", "args": {"old": "a", "new": "b"}}
    >>> [det.observe(call) for _ in range(4)]
    ['continue', 'continue', 'trip', 'trip']

    References
    ----------
    .. [1] google-gemini/gemini-cli, ``packages/core/src/services/loopDetectionService.ts``,
       ``checkToolCallLoop`` (``TOOL_CALL_LOOP_THRESHOLD = 5``).
    """

    name = "exact-args"

    def __init__(self, threshold: int = 3) -> None:
        if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 2:
            raise ValueError(f"threshold must be an integer >= 2, got {threshold!r}")
        self.threshold = threshold
        self._reset()

    def _reset(self) -> None:
        self._last_key: tuple[str, str] | None = None
        self._count = 0
        self._tripped = False

    def reset(self) -> None:
        """Forget the streak and the trip: the next step starts a new run."""
        self._reset()

    def observe(self, step: Mapping[str, Any]) -> str:
        """Judge one step (``"continue"`` or ``"trip"``); see the class docstring."""
        if self._tripped:
            return "trip"
        tool = step.get("tool")
        if tool is None:
            return "continue"
        key = (str(tool), sorted_json(step.get("args")))
        if key == self._last_key:
            self._count += 1
        else:
            self._last_key = key
            self._count = 1
        if self._count >= self.threshold:
            self._tripped = True
            return "trip"
        return "continue"
