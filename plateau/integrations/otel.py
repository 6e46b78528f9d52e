"""OpenTelemetry for Plateau: verdicts on spans, verdict counters as metrics, the server's calls as spans.

Agent stacks are observed through OpenTelemetry (Langfuse, Phoenix, OpenLLMetry, Logfire all
read its spans); this module puts Plateau's verdicts where they look:

- :func:`record_verdict` (or :meth:`Telemetry.record`) sets a verdict's attributes on the
  current span and adds it as an event named ``plateau.verdict`` (``plateau.check`` for the
  answer of a check before a call, which records an event only):

  ========================  =======================================================
  ``plateau.action``        ``"continue"``, ``"steer"`` or ``"trip"``
  ``plateau.reasons``       the detectors that fired (list of str; empty when none)
  ``plateau.score``         the stall score (float >= 0; 0.5 steers, 1.0 trips)
  ``plateau.run_id``        the run's id
  ``plateau.step``          the step's index (int >= 0)
  ``plateau.message``       the steer or trip message (event only, when there is one)
  ========================  =======================================================

- metrics: ``plateau.verdicts`` (counter, by ``plateau.action`` and ``plateau.call`` =
  ``observe``/``check``), ``plateau.verdict.reasons`` (counter, one per reason, by
  ``plateau.reason``) and ``plateau.score`` (histogram, observed steps);
- :func:`instrument` makes a :class:`~plateau.client.Client` or
  :class:`~plateau.aio.AsyncClient` record every verdict it returns (so every integration that
  uses it does too);
- :func:`server_interceptors`: the gRPC server's calls as spans (OpenTelemetry's own gRPC
  instrumentation, ``opentelemetry-instrumentation-grpc``, with the verdict of ``Observe`` and
  ``Check`` recorded on the call's span). ``plateau serve`` adds them when the environment says
  ``PLATEAU_OTEL=1`` and the extra is installed; an exporter is configured the usual
  OpenTelemetry way (``opentelemetry-instrument``, or an SDK ``TracerProvider`` set in code).

Without the ``otel`` extra (``pip install "plateau-breaker[otel]"``) importing this module
raises ``ModuleNotFoundError`` naming the extra, and nothing else in Plateau imports it.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from typing import Any

import grpc

from plateau.integrations import extra_missing

try:
    from opentelemetry import metrics, trace
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
    raise extra_missing(exc, "plateau.integrations.otel", "OpenTelemetry", "otel") from exc

from plateau.types import Verdict

__all__ = [
    "ACTION",
    "REASONS",
    "SCORE",
    "Telemetry",
    "instrument",
    "record_verdict",
    "server_interceptors",
    "verdict_attributes",
]

ACTION = "plateau.action"
REASONS = "plateau.reasons"
SCORE = "plateau.score"
RUN_ID = "plateau.run_id"
STEP = "plateau.step"
MESSAGE = "plateau.message"

#: The environment variable that turns the server's spans on (``1``, ``true``, ``yes`` or ``on``).
ENV_FLAG = "PLATEAU_OTEL"

_SCOPE = "plateau"


def verdict_attributes(verdict: Verdict) -> dict[str, Any]:
    """The span attributes of a verdict: ``plateau.action`` (str), ``plateau.reasons`` (list of
    str), ``plateau.score`` (float), ``plateau.run_id`` (str), ``plateau.step`` (int)."""
    return {
        ACTION: verdict.action.value,
        REASONS: list(verdict.reasons),
        SCORE: float(verdict.score),
        RUN_ID: verdict.run_id,
        STEP: int(verdict.step_index),
    }


class Telemetry:
    """Where verdicts go: a tracer's current span and a meter's instruments.

    Parameters
    ----------
    tracer_provider, meter_provider
        OpenTelemetry providers; the global ones (``trace.get_tracer_provider()``,
        ``metrics.get_meter_provider()``) when None.
    """

    def __init__(self, tracer_provider: Any = None, meter_provider: Any = None) -> None:
        from plateau import __version__

        self.tracer = trace.get_tracer(_SCOPE, __version__, tracer_provider)
        meter = metrics.get_meter(_SCOPE, __version__, meter_provider)
        self.verdicts = meter.create_counter("plateau.verdicts", unit="{verdict}", description="Verdicts Plateau returned, by action")
        self.reasons = meter.create_counter("plateau.verdict.reasons", unit="{reason}", description="Reasons the verdicts named")
        self.scores = meter.create_histogram(
            "plateau.score", unit="1", description="Stall score of each observed step (0.5 steers, 1.0 trips)"
        )

    def record(self, verdict: Verdict, span: Any = None, *, check: bool = False) -> None:
        """Record ``verdict`` on ``span`` (the current span when None) and in the metrics.

        An observed step's verdict (``check=False``) sets :func:`verdict_attributes` on the span
        and adds a ``plateau.verdict`` event; a check's verdict adds a ``plateau.check`` event
        only. Both are counted in ``plateau.verdicts`` (``plateau.call`` = observe/check).
        """
        span = span if span is not None else trace.get_current_span()
        attributes = verdict_attributes(verdict)
        if span.is_recording():
            if not check:
                span.set_attributes(attributes)
            event = dict(attributes)
            if verdict.message:
                event[MESSAGE] = verdict.message
            span.add_event("plateau.check" if check else "plateau.verdict", event)
        call = "check" if check else "observe"
        self.verdicts.add(1, {ACTION: verdict.action.value, "plateau.call": call})
        for reason in verdict.reasons:
            self.reasons.add(1, {"plateau.reason": reason, "plateau.call": call})
        if not check:
            self.scores.record(float(verdict.score), {ACTION: verdict.action.value})


_default: Telemetry | None = None


def _telemetry(telemetry: Telemetry | None) -> Telemetry:
    global _default
    if telemetry is not None:
        return telemetry
    if _default is None:
        _default = Telemetry()
    return _default


def record_verdict(verdict: Verdict, span: Any = None, *, check: bool = False) -> None:
    """:meth:`Telemetry.record` on the global providers."""
    _telemetry(None).record(verdict, span, check=check)


def instrument(client: Any, telemetry: Telemetry | None = None) -> Any:
    """Make ``client`` (a :class:`~plateau.client.Client` or :class:`~plateau.aio.AsyncClient`)
    record each verdict of its ``observe`` and ``check`` on the span current at the call; returns
    the client. Sessions and integrations built on it record too."""
    sink = _telemetry(telemetry)

    def wrap(method: Callable[..., Any], check: bool) -> Callable[..., Any]:
        if inspect.iscoroutinefunction(method):

            async def arecorded(*args: Any, **kwargs: Any) -> Any:
                verdict = await method(*args, **kwargs)
                sink.record(verdict, check=check)
                return verdict

            return arecorded

        def recorded(*args: Any, **kwargs: Any) -> Any:
            verdict = method(*args, **kwargs)
            sink.record(verdict, check=check)
            return verdict

        return recorded

    if not getattr(client, "_plateau_otel", False):
        client.observe = wrap(client.observe, False)
        client.check = wrap(client.check, True)
        client._plateau_otel = True
    return client


def enabled() -> bool:
    """Whether the environment turns the server's spans on (:data:`ENV_FLAG`)."""
    return os.environ.get(ENV_FLAG, "").strip().lower() in ("1", "true", "yes", "on")


def server_interceptors(telemetry: Telemetry | None = None, *, tracer_provider: Any = None, force: bool = False) -> list[Any]:
    """The ``grpc.aio`` server interceptors that make each call a span (OpenTelemetry's gRPC
    instrumentation) and record the verdict of ``Observe`` and ``Check`` on it; ``[]`` unless
    ``PLATEAU_OTEL`` is set (or ``force``) and ``opentelemetry-instrumentation-grpc`` is installed."""
    if not (force or enabled()):
        return []
    try:
        from opentelemetry.instrumentation.grpc import aio_server_interceptor
    except ModuleNotFoundError:
        return []
    spans = aio_server_interceptor(tracer_provider=tracer_provider)  # type: ignore[no-untyped-call]
    return [spans, _VerdictInterceptor(_telemetry(telemetry))]


class _VerdictInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Records the verdict an ``Observe`` or ``Check`` call answers on the call's span."""

    def __init__(self, telemetry: Telemetry) -> None:
        self.telemetry = telemetry

    async def intercept_service(self, continuation: Any, details: Any) -> Any:
        handler = await continuation(details)
        method = getattr(details, "method", "") or ""
        if handler is None or not method.endswith(("/Observe", "/Check")):
            return handler
        # the server reads unary calls through stream-unary handlers (its admission path reads
        # the body after auth); a unary-unary handler is wrapped the same way
        kind = "stream_unary" if handler.stream_unary is not None else "unary_unary"
        behavior = getattr(handler, kind)
        if behavior is None:
            return handler
        check = method.endswith("/Check")

        async def recorded(request: Any, context: Any) -> Any:
            response = behavior(request, context)
            if inspect.isawaitable(response):
                response = await response
            from plateau.convert import verdict_from_pb

            try:
                verdict = verdict_from_pb(response)
            except Exception:  # noqa: BLE001 - telemetry never fails a call
                return response
            self.telemetry.record(verdict, check=check)
            return response

        return handler._replace(**{kind: recorded})
