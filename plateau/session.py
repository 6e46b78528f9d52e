"""One run, its id and its step numbering: :class:`RunSession` and :class:`AsyncRunSession`.

A harness that talks to :class:`~plateau.client.Client` directly builds every
:class:`~plateau.types.Step` and tracks its ``index``. A session does both::

    run = client.session(context="Fix the failing test in billing/")
    verdict = run.check(tool="pytest", args={"path": "tests/"})   # before the call: nothing recorded
    if verdict.action.value != "trip":
        output = run_the_tool()
        verdict = run.observe(text="Running the tests.", tool="pytest", args={"path": "tests/"}, result=output)

``observe`` numbers the steps 0, 1, 2 …; a verdict the client made up because Plateau could not
judge (``on_unavailable="open"`` or ``"closed"``, reason ``client.unavailable``) does not
advance the numbering, since Plateau did not record the step. :class:`AsyncRunSession` is the
same on :class:`~plateau.aio.AsyncClient`, with ``await``.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from plateau.errors import InvalidArgument
from plateau.failure import UNAVAILABLE_REASON
from plateau.types import RunInfo, Step, Verdict

__all__ = ["AsyncRunSession", "RunSession", "new_run_id"]


def new_run_id(prefix: str = "run") -> str:
    """A fresh run id: ``prefix`` and 32 random hex digits."""
    return f"{prefix}-{uuid.uuid4().hex}"


def _build(index: int, step: Step | Mapping[str, Any] | None, fields: Mapping[str, Any]) -> Step:
    if step is not None and fields:
        raise InvalidArgument("step", "pass a step or keyword fields, not both")
    if isinstance(step, Step):
        return Step(
            index=index,
            text=step.text,
            tool=step.tool,
            args=step.args,
            result=step.result,
            status=step.status,
            progress=step.progress,
            user=step.user,
            agent=step.agent,
        )
    data = dict(step if step is not None else fields)
    data.pop("index", None)
    return Step.from_dict(data, index)


def _recorded(verdict: Verdict) -> bool:
    return verdict.reasons != (UNAVAILABLE_REASON,)


class _RunState:
    """What both sessions share, without I/O: the run id, the numbering, the step each call
    sends and what a verdict does to the numbering. :class:`RunSession` and
    :class:`AsyncRunSession` only make the call (plain or awaited)."""

    def __init__(
        self,
        client: Any,
        run_id: str | None = None,
        context: str | None = None,
        *,
        next_index: int = 0,
        tool_policy: Mapping[str, Any] | None = None,
    ) -> None:
        if isinstance(next_index, bool) or not isinstance(next_index, int) or next_index < 0:
            raise InvalidArgument("next_index", f"must be an integer >= 0, got {next_index!r}")
        self.client = client
        self.run_id = run_id if run_id is not None else new_run_id()
        self.context = context
        self.next_index = next_index
        self.tool_policy = dict(tool_policy) if tool_policy else None
        self.last: Verdict | None = None

    def _request(self, step: Step | Mapping[str, Any] | None, fields: Mapping[str, Any]) -> tuple[str, Step, str | None]:
        """The positional arguments of the client's ``observe``/``check`` for the next step."""
        return self.run_id, _build(self.next_index, step, fields), self.context

    def _settle(self, verdict: Verdict) -> Verdict:
        """Advance the numbering past a recorded step; keep the verdict as :attr:`last`."""
        if _recorded(verdict):
            self.next_index = verdict.step_index + 1
        self.last = verdict
        return verdict


class RunSession(_RunState):
    """A run on a :class:`~plateau.client.Client`: owns the run id and the next step index.

    Parameters
    ----------
    client
        The client (local or remote).
    run_id
        The run's id; a fresh one (:func:`new_run_id`) when None.
    context
        What the user asked for, sent with every step (the server keeps the first).
    next_index
        The index of the next step (int >= 0): 0 for a new run, ``get_run(...).steps`` to
        continue a run this process did not start.
    tool_policy
        Per-tool rules this run declares (:mod:`plateau.policy`), sent with its steps.

    Attributes
    ----------
    run_id, context, next_index
        As given; ``next_index`` advances by one per recorded step.
    last
        The latest verdict of :meth:`observe`, or None.

    Raises
    ------
    plateau.errors.InvalidArgument
        ``next_index`` not an integer >= 0.
    """

    def observe(self, step: Step | Mapping[str, Any] | None = None, /, **fields: Any) -> Verdict:
        """Judge the run's next step: a :class:`~plateau.types.Step` or mapping (its index is
        replaced), or keyword fields (``text=``, ``tool=``, ``args=``, ``result=`` …)."""
        return self._settle(self.client.observe(*self._request(step, fields), tool_policy=self.tool_policy))

    def check(self, step: Step | Mapping[str, Any] | None = None, /, **fields: Any) -> Verdict:
        """What :meth:`observe` would answer for this step now, recording nothing (leave
        ``result`` out to ask before the call runs; see :meth:`plateau.client.Client.check`)."""
        verdict: Verdict = self.client.check(*self._request(step, fields), tool_policy=self.tool_policy)
        return verdict

    def info(self) -> RunInfo:
        """The run's state (``RunNotFound`` before its first step)."""
        info: RunInfo = self.client.get_run(self.run_id)
        return info

    def end(self) -> RunInfo:
        """Mark the run ended."""
        info: RunInfo = self.client.end_run(self.run_id)
        return info


class AsyncRunSession(_RunState):
    """:class:`RunSession` on an :class:`~plateau.aio.AsyncClient`: the same parameters and
    methods, awaited."""

    async def observe(self, step: Step | Mapping[str, Any] | None = None, /, **fields: Any) -> Verdict:
        """Judge the run's next step (see :meth:`RunSession.observe`)."""
        return self._settle(await self.client.observe(*self._request(step, fields), tool_policy=self.tool_policy))

    async def check(self, step: Step | Mapping[str, Any] | None = None, /, **fields: Any) -> Verdict:
        """What :meth:`observe` would answer now, recording nothing (see :meth:`RunSession.check`)."""
        verdict: Verdict = await self.client.check(*self._request(step, fields), tool_policy=self.tool_policy)
        return verdict

    async def info(self) -> RunInfo:
        """The run's state (``RunNotFound`` before its first step)."""
        info: RunInfo = await self.client.get_run(self.run_id)
        return info

    async def end(self) -> RunInfo:
        """Mark the run ended."""
        info: RunInfo = await self.client.end_run(self.run_id)
        return info
