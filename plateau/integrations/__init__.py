"""Step adapters for agent stacks; each module is an optional extra.

- :mod:`plateau.integrations.openai`: OpenAI chat messages (assistant ``tool_calls``, including
  parallel calls, and ``tool`` results) and Anthropic ``tool_use``/``tool_result`` blocks →
  steps, and :class:`~plateau.integrations.openai.ChatRun`, which feeds a growing message
  list to Plateau one complete step at a time. Needs only Plateau's client (the ``openai``
  extra adds the SDK for the example).
- :mod:`plateau.integrations.openai_agents`: run hooks for the OpenAI Agents SDK
  (``pip install "plateau-breaker[openai-agents]"``).
- :mod:`plateau.integrations.langgraph`: a node for hand-built LangGraph graphs and a one-line
  guard for the prebuilt ``create_react_agent`` (``pip install "plateau-breaker[langgraph]"``).
- :mod:`plateau.integrations.langchain`: middleware for LangChain v1's ``create_agent``
  (``pip install "plateau-breaker[langchain]"``).
- :mod:`plateau.integrations.pydantic_ai`: a Pydantic AI capability
  (``pip install "plateau-breaker[pydantic-ai]"``).
- :mod:`plateau.integrations.otel`: verdicts on OpenTelemetry spans and metrics, the server's
  calls as spans (``pip install "plateau-breaker[otel]"``).

Each agent integration acts on the verdict the same way: a steer reaches the agent's next model
call as its own message (Pydantic AI: as a retry message), whose text starts with
:data:`STEER_PREFIX` (:func:`steer_text`), and a trip stops the run (:class:`RunTripped`, or a
last message saying why, :func:`trip_text`) without leaving a tool call unanswered.
"""

from __future__ import annotations

from typing import Any

from plateau.errors import PlateauError
from plateau.types import Verdict

__all__ = ["DEFAULT_STEER", "STEER_PREFIX", "RunTripped", "extra_missing", "otel_server_interceptors", "steer_text", "trip_text"]

#: How every message Plateau puts into an agent's conversation begins, so the model (and whoever
#: reads the transcript) can tell it from the user's and the tools' words.
STEER_PREFIX = "[Plateau] "

#: The steer text when a verdict carries no message of its own.
DEFAULT_STEER = "You appear to be repeating yourself; change approach."


def extra_missing(exc: ModuleNotFoundError, module: str, library: str, extra: str) -> ModuleNotFoundError:
    """``exc`` (a module of an integration's agent library missing) as the error an integration
    raises on import: a :class:`ModuleNotFoundError` with the same ``name`` whose message says
    that ``module`` needs ``library``, which module is missing, and the pip command of ``extra``."""
    return ModuleNotFoundError(f'{module} needs {library} ({exc.name} is missing): pip install "plateau-breaker[{extra}]"', name=exc.name)


def steer_text(message: str | None) -> str:
    """The text injected for a steer whose message is ``message``: :data:`STEER_PREFIX` and the
    message (:data:`DEFAULT_STEER` when it is empty)."""
    return STEER_PREFIX + (message or DEFAULT_STEER)


def trip_text(verdict: Verdict) -> str:
    """Why a run stopped, as the integrations leave it in the conversation (a refused call's
    result, the last message): ``[Plateau] stopped this run: …`` with the verdict's message (or
    its reasons when it has none)."""
    message = (verdict.message or "").strip()
    for lead in ("Plateau stopped this run:", "stopped this run:"):
        if message.startswith(lead):
            message = message[len(lead) :].strip()
    return f"{STEER_PREFIX}stopped this run: {message or ', '.join(verdict.reasons)}"


class RunTripped(PlateauError):
    """Plateau tripped the run: the agent is stuck and should stop.

    Raised by the integrations when a verdict is ``trip`` (never crosses the wire).

    Attributes
    ----------
    verdict
        The :class:`~plateau.types.Verdict` that tripped (its ``message`` says what repeats).
    """

    code = "ABORTED"
    reason = "RUN_TRIPPED"

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(f"run {verdict.run_id!r} tripped at step {verdict.step_index}: {verdict.message or ', '.join(verdict.reasons)}")
        self.verdict = verdict


def otel_server_interceptors() -> list[Any]:
    """The server's OpenTelemetry interceptors (:func:`plateau.integrations.otel.server_interceptors`)
    when ``PLATEAU_OTEL=1`` and the ``otel`` extra is installed; ``[]`` otherwise (a warning is
    logged when the variable asks for spans the install cannot make)."""
    import os

    if os.environ.get("PLATEAU_OTEL", "").strip().lower() not in ("1", "true", "yes", "on"):
        return []
    try:
        from plateau.integrations.otel import server_interceptors

        interceptors = server_interceptors(force=True)
    except ModuleNotFoundError:
        interceptors = []
    if not interceptors:
        import logging

        logging.getLogger("plateau.server").warning(
            'PLATEAU_OTEL is set but the otel extra is missing: pip install "plateau-breaker[otel]"'
        )
    return interceptors
