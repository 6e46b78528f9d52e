"""The load test in small (with its kill -9 and restart), and the service's metrics and structured logs."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import urllib.request

import pytest

from plateau.cli import ServerThread
from plateau.client import Client
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.errors import StepConflict
from plateau.logs import JsonFormatter
from plateau.types import Step
from tests.support.paths import REPO as ROOT


def test_small_load_test_loses_nothing_across_a_kill_and_restart() -> None:
    """scripts/load_test.py with a few dozen runs reports 0 lost, 0 double-counted, 0 mismatched across a kill -9."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "load_test.py"), "--runs", "30", "--steps", "12", "--agents", "8", "--max-seconds", "240"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    lines = out.stdout.splitlines()
    assert out.returncode == 0, out.stdout + out.stderr
    assert "restarted=yes" in " ".join(lines)
    for key in ("lost", "double_counted", "mismatched"):
        assert f"{key}=0" in lines


def test_small_load_test_on_two_redis_replicas_loses_nothing_when_one_is_killed() -> None:
    """load_test.py --store redis --replicas 2: one replica killed with kill -9 midway, 0 lost, 0 double-counted, 0 mismatched."""
    from tests.support.redis_proc import redis_server_binary

    if redis_server_binary() is None:
        pytest.skip("redis-server is not installed (.ci/run installs it)")
    pytest.importorskip("redis", reason="redis-py is not installed (pip install '.[server]')")
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "load_test.py"), "--store", "redis", "--replicas", "2", "--runs", "30",
         "--steps", "12", "--agents", "8", "--max-seconds", "240"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    lines = out.stdout.splitlines()
    assert out.returncode == 0, out.stdout + out.stderr
    assert "killed=yes" in " ".join(lines) and "replicas=2" in lines
    for key in ("lost", "double_counted", "mismatched"):
        assert f"{key}=0" in lines


def test_metrics_count_requests_verdicts_batches_and_cache() -> None:
    """The metrics endpoint reports requests by code, latencies, verdicts by action, batch sizes, cache and store counters."""
    pytest.importorskip("prometheus_client")
    from plateau.metrics import Metrics

    metrics = Metrics()
    engine = Engine(embedder=HashingEmbedder())
    with ServerThread(engine, metrics=metrics) as server, Client.remote(server.target) as client:
        for i in range(4):
            client.observe("m", Step(index=i, text="Retrying.", tool="apply", args={"p": 1}, result="Error: no"))
        client.observe("m", Step(index=3, text="Retrying.", tool="apply", args={"p": 1}, result="Error: no"))  # a re-send
        with pytest.raises(StepConflict):
            client.observe("m", Step(index=9, text="gap"))
        port = metrics.serve_http("127.0.0.1", 0)
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
                text = response.read().decode()
        finally:
            metrics.close()
    assert 'plateau_requests_total{code="OK",method="Observe"} 5.0' in text
    assert 'plateau_requests_total{code="FAILED_PRECONDITION",method="Observe"} 1.0' in text
    assert 'plateau_verdicts_total{action="trip"} 1.0' in text and 'plateau_verdicts_total{action="steer"} 1.0' in text
    assert "plateau_request_seconds_bucket" in text and "plateau_embed_batch_size_count" in text
    assert "plateau_embed_cache_hit_ratio" in text and "plateau_store_errors_total 0.0" in text


def test_json_logs_carry_the_call_fields() -> None:
    """The JSON formatter writes one object per record with the fields passed as extra."""
    record = logging.LogRecord("plateau.server", logging.INFO, __file__, 1, "%s %s", ("Observe", "NOT_FOUND"), None)
    record.__dict__.update(rpc="Observe", code="NOT_FOUND", tenant="alpha", run_id="r", step=3, ms=1.5)
    line = json.loads(JsonFormatter().format(record))
    assert line["msg"] == "Observe NOT_FOUND" and line["level"] == "info" and line["logger"] == "plateau.server"
    fields = (line["rpc"], line["code"], line["tenant"], line["run_id"], line["step"], line["ms"])
    assert fields == ("Observe", "NOT_FOUND", "alpha", "r", 3, 1.5)
