"""plateau.integrations.otel: verdicts on the current span (attributes and an event), verdict
counters as metrics, and the server's calls as spans, read back with OpenTelemetry's in-memory
span exporter and metric reader."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.paths import REPO

pytest.importorskip("opentelemetry.sdk")

from opentelemetry import trace  # noqa: E402
from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

from plateau import Client  # noqa: E402
from plateau.embed import HashingEmbedder  # noqa: E402
from plateau.engine import Engine  # noqa: E402
from plateau.integrations import otel_server_interceptors  # noqa: E402
from plateau.integrations.otel import ACTION, REASONS, SCORE, Telemetry, instrument, server_interceptors  # noqa: E402

EXAMPLES = REPO / "examples" / "integrations"


@pytest.fixture()
def otel() -> Iterator[tuple[TracerProvider, InMemorySpanExporter, InMemoryMetricReader, Telemetry]]:
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    yield tracer_provider, exporter, reader, Telemetry(tracer_provider, meter_provider)
    meter_provider.shutdown()
    tracer_provider.shutdown()


def _points(reader: InMemoryMetricReader, name: str) -> dict[tuple[tuple[str, Any], ...], Any]:
    data = reader.get_metrics_data()
    out: dict[tuple[tuple[str, Any], ...], Any] = {}
    for resource in data.resource_metrics if data else []:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                if metric.name == name:
                    for point in metric.data.data_points:
                        out[tuple(sorted(point.attributes.items()))] = point
    return out


def test_each_verdict_of_a_looping_run_is_on_its_span_and_counted(otel: Any, real_cached: Any) -> None:
    """An instrumented client under the LangChain middleware: the verdicts land on the span current at each call."""
    tracer_provider, exporter, reader, telemetry = otel
    sys.path.insert(0, str(EXAMPLES))
    try:
        import langchain_agent
    finally:
        sys.path.remove(str(EXAMPLES))
    client = instrument(Client.local(engine=Engine(embedder=real_cached)), telemetry)
    tracer = tracer_provider.get_tracer("test")
    run = langchain_agent.scenario("loop")
    tools = langchain_agent.tool_functions(run)

    from langchain.agents import create_agent
    from langchain_core.messages import HumanMessage
    from langchain_core.tools import tool

    from plateau.integrations.langchain import PlateauMiddleware

    middleware = PlateauMiddleware(client)
    model = langchain_agent.chat_model(run)
    agent = create_agent(model, [tool(f) for f in tools], middleware=[middleware])
    with tracer.start_as_current_span("agent run") as root:
        agent.invoke({"messages": [HumanMessage(run.task)]}, {"recursion_limit": 80})
    ((run_id, verdicts),) = middleware.verdicts.items()
    assert [v.action.value for v in verdicts] == ["continue", "continue", "steer", "trip"]

    spans = {s.name: s for s in exporter.get_finished_spans()}
    root_span = spans["agent run"]
    assert root.get_span_context().trace_id == root_span.context.trace_id
    # the middleware observes after the tool returns, so the verdicts land on the run's span, in order
    events = [e for e in root_span.events if e.name in ("plateau.verdict", "plateau.check")]
    observed = [e for e in events if e.name == "plateau.verdict"]
    assert [e.attributes[ACTION] for e in observed] == ["continue", "continue", "steer"]
    assert [e.attributes[ACTION] for e in events if e.name == "plateau.check"][-1] == "trip"
    assert root_span.attributes[ACTION] == "steer" and root_span.attributes["plateau.run_id"] == run_id
    assert "tool.repeat" in root_span.attributes[REASONS] and root_span.attributes[SCORE] >= 0.5
    assert observed[2].attributes["plateau.message"] == verdicts[2].message

    counts = _points(reader, "plateau.verdicts")
    assert counts[(("plateau.action", "continue"), ("plateau.call", "observe"))].value == 2
    assert counts[(("plateau.action", "steer"), ("plateau.call", "observe"))].value == 1
    assert counts[(("plateau.action", "trip"), ("plateau.call", "check"))].value == 1
    assert sum(p.count for p in _points(reader, "plateau.score").values()) == 3  # observed steps only
    assert _points(reader, "plateau.verdict.reasons")[(("plateau.call", "observe"), ("plateau.reason", "tool.repeat"))].value >= 1


def test_record_on_a_non_recording_span_counts_only(otel: Any) -> None:
    """Outside any span the verdict is still counted; nothing is exported."""
    _, exporter, reader, telemetry = otel
    client = instrument(Client.local(engine=Engine(embedder=HashingEmbedder())), telemetry)
    client.observe("r1", {"index": 0, "text": "hello", "tool": "bash", "args": {"command": "ls"}, "result": "a b"})
    assert exporter.get_finished_spans() == ()
    assert sum(p.value for p in _points(reader, "plateau.verdicts").values()) == 1
    assert instrument(client, telemetry) is client  # idempotent: verdicts are not recorded twice
    client.observe("r1", {"index": 1, "text": "again", "tool": "bash", "args": {"command": "ls -l"}, "result": "a b c"})
    assert sum(p.value for p in _points(reader, "plateau.verdicts").values()) == 2


@pytest.fixture()
def global_tracer(monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemorySpanExporter]:
    """A global TracerProvider for the server's interceptors (restored afterwards)."""
    from opentelemetry.util._once import Once

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    saved = trace._TRACER_PROVIDER, trace._TRACER_PROVIDER_SET_ONCE
    trace._TRACER_PROVIDER_SET_ONCE = Once()
    trace.set_tracer_provider(provider)
    yield exporter
    trace._TRACER_PROVIDER, trace._TRACER_PROVIDER_SET_ONCE = saved
    provider.shutdown()


def test_server_calls_are_spans_with_the_verdict(global_tracer: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch) -> None:
    """PLATEAU_OTEL=1: a real server on a socket makes each call a SERVER span; Observe's carries the verdict."""
    from plateau.cli import ServerThread

    monkeypatch.delenv("PLATEAU_OTEL", raising=False)
    assert otel_server_interceptors() == [] and server_interceptors() == []  # off unless asked for
    monkeypatch.setenv("PLATEAU_OTEL", "1")
    with ServerThread(Engine(embedder=HashingEmbedder()), "127.0.0.1", 0) as server, Client.remote(server.target) as client:
        step = {"index": 0, "text": "Listing.", "tool": "bash", "args": {"command": "ls"}, "result": "a b"}
        verdict = client.observe("otel-run", step)
        client.check("otel-run", {**step, "index": 1})
        client.get_run("otel-run")
    spans = [s for s in global_tracer.get_finished_spans() if s.kind is trace.SpanKind.SERVER]
    by_method = {s.name: s for s in spans}
    assert {"/plateau.v1.Plateau/Observe", "/plateau.v1.Plateau/Check", "/plateau.v1.Plateau/GetRun"} <= set(by_method)
    observe = by_method["/plateau.v1.Plateau/Observe"]
    assert observe.attributes["rpc.system"] == "grpc" and observe.attributes[ACTION] == verdict.action.value
    assert observe.attributes["plateau.run_id"] == "otel-run" and observe.attributes["plateau.step"] == 0
    assert [e.name for e in by_method["/plateau.v1.Plateau/Check"].events] == ["plateau.check"]
    assert ACTION not in by_method["/plateau.v1.Plateau/GetRun"].attributes
