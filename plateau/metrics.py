"""Prometheus metrics of the service, on an optional HTTP port (``plateau serve --metrics-port``).

=====================================  =========  =============================================
metric                                 type       labels / meaning
=====================================  =========  =============================================
``plateau_requests_total``             counter    ``method``, ``code`` (gRPC status name)
``plateau_request_seconds``            histogram  ``method``: handler latency, seconds
``plateau_verdicts_total``             counter    ``action``: continue, steer, trip (new steps)
``plateau_embed_batch_size``           histogram  texts per model call
``plateau_embed_cache_hits_total``     counter    embedding cache hits
``plateau_embed_cache_misses_total``   counter    embedding cache misses
``plateau_embed_cache_hit_ratio``      gauge      hits / lookups since start, in [0, 1]
``plateau_store_errors_total``         counter    failed store reads and writes
``plateau_open_streams``               gauge      open ``ObserveStream``/``GuardStream`` calls
``plateau_runs_expired_total``         counter    runs deleted by retention
``plateau_refused_total``              counter    ``reason``, ``tenant``: calls refused by admission
                                                  (``RESOURCE_EXHAUSTED``) or the store's breaker
                                                  (``UNAVAILABLE``, reason ``store_out_of_service``)
=====================================  =========  =============================================

``plateau_refused_total`` reasons (:attr:`plateau.admission.Admission.refused`): ``work_slots``
and ``receive_slots`` (the server's queue of calls waiting for a work or a receive slot is
full), ``request_bytes`` (the request bytes the server holds), ``streams`` (open streams), each
as ``<reason>_share`` when the tenant's own share is what is used up, and
``store_out_of_service``. ``tenant`` is the token table's tenant (``""`` on an open server):
a label bounded by the token table, never by what callers send.

Needs ``prometheus-client`` (in the ``server`` extra); imported only when metrics are on.
Each :class:`Metrics` has its own registry, so several servers in one process (tests) do not
collide.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

__all__ = ["Metrics"]

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
_BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)


class _MeasuredEmbedder:
    """Passes calls through to ``inner`` and records each call's batch size."""

    def __init__(self, inner: Any, observe: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self._observe = observe

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if texts:
            self._observe(len(texts))
        return self.inner.encode(texts)  # type: ignore[no-any-return]


class Metrics:
    """The service's metrics in a private registry.

    Raises
    ------
    ModelUnavailable
        Never; ``ImportError`` with what to install when prometheus-client is missing.
    """

    def __init__(self) -> None:
        try:
            from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
        except ImportError:
            raise ImportError("metrics need prometheus-client: pip install 'plateau[server]'") from None
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter("plateau_requests", "RPCs handled, by method and status code.", ["method", "code"], registry=r)
        self.latency = Histogram(
            "plateau_request_seconds", "RPC handler latency in seconds.", ["method"], buckets=_LATENCY_BUCKETS, registry=r
        )
        self.verdicts = Counter("plateau_verdicts", "Verdicts on new steps, by action.", ["action"], registry=r)
        self.batch_size = Histogram("plateau_embed_batch_size", "Texts per embedding model call.", buckets=_BATCH_BUCKETS, registry=r)
        self.open_streams = Gauge("plateau_open_streams", "Open streaming calls.", registry=r)
        self.expired = Counter("plateau_runs_expired", "Runs deleted by retention.", registry=r)
        self._engine: Any = None
        self._service: Any = None
        self._http: Any = None
        r.register(self)  # the engine-derived values below, read at scrape time

    # a prometheus "custom collector": read the cache and store counters when scraped
    def describe(self) -> list[Any]:
        return []

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        engine = self._engine
        if engine is None:
            return
        cache = engine.embedder
        hits, misses = int(getattr(cache, "hits", 0)), int(getattr(cache, "misses", 0))
        yield CounterMetricFamily("plateau_embed_cache_hits", "Embedding cache hits.", value=hits)
        yield CounterMetricFamily("plateau_embed_cache_misses", "Embedding cache misses.", value=misses)
        ratio = hits / max(1, hits + misses)
        yield GaugeMetricFamily("plateau_embed_cache_hit_ratio", "Embedding cache hit ratio since start.", value=ratio)
        yield CounterMetricFamily("plateau_store_errors", "Failed store reads and writes.", value=int(getattr(engine.store, "errors", 0)))
        service = self._service
        if service is not None:
            refused = CounterMetricFamily(
                "plateau_refused", "Calls refused by admission or the store's breaker, by reason and tenant.", labels=["reason", "tenant"]
            )
            for (reason, tenant), n in sorted(dict(service.admission.refused).items()):
                refused.add_metric([reason, tenant], n)
            health = getattr(service, "store_health", None)
            for tenant, n in sorted(dict(getattr(health, "refused_by", {})).items()):
                refused.add_metric(["store_out_of_service", tenant], n)
            yield refused

    def instrument(self, engine: Any) -> None:
        """Watch ``engine``: its cache and store counters, and the batch size of each model call."""
        self._engine = engine
        engine.listeners.append(lambda tenant, verdict: self.verdicts.labels(verdict.action.value).inc())
        holder = engine.embedder  # CachedEmbedder(inner=BatchingEmbedder(inner=model)) or CachedEmbedder(inner=model)
        inner = getattr(holder, "inner", None)
        if inner is not None and hasattr(inner, "inner") and hasattr(inner, "max_batch"):
            holder = inner
        if hasattr(holder, "inner") and not isinstance(holder.inner, _MeasuredEmbedder):
            holder.inner = _MeasuredEmbedder(holder.inner, self.batch_size.observe)

    def watch(self, service: Any) -> None:
        """Export ``service``'s refusal counters (its admission's and its store breaker's) as
        ``plateau_refused_total``, read when scraped."""
        self._service = service

    def serve_http(self, host: str, port: int) -> int:
        """Serve ``/metrics`` on ``host:port`` (port 0 picks one) in a daemon thread; returns the port."""
        from prometheus_client import start_http_server

        server, thread = start_http_server(port, addr=host, registry=self.registry)
        self._http = (server, thread)
        return int(server.server_address[1])

    def close(self) -> None:
        """Stop the HTTP endpoint, if any."""
        if self._http is not None:
            server, _ = self._http
            threading.Thread(target=server.shutdown, daemon=True).start()
            server.server_close()
            self._http = None

    def render(self) -> str:
        """The current metrics in the Prometheus text format."""
        from prometheus_client import generate_latest

        return generate_latest(self.registry).decode("utf-8")
