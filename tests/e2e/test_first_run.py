"""A new user's first run: ``make demo``'s path check, the demo's bottom line, and what the logs
show on the way (the ONNX export said once, no progress bars from model loading, no
cancellation noise at INFO)."""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from plateau.cli import ServerThread
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.replay import load_runs, load_streams, step_tokens
from tests.support.paths import EXAMPLES
from tests.support.paths import REPO as ROOT

DEMO_STREAMS = ROOT / "demo" / "streams"


def _env(**extra: str) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1", **extra)


def _plateau(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "plateau.cli", *argv], cwd=ROOT, env=env or _env(), capture_output=True, text=True,
                          timeout=600)


@pytest.mark.model
def test_the_demo_ends_with_one_bottom_line_matching_its_verdicts() -> None:
    """``plateau demo examples demo/streams``: the last line counts the runs steered and tripped, the streams cut, and the
    tokens saved, each equal to what the printed verdicts and the recordings give."""
    out = _plateau("demo", str(EXAMPLES), str(DEMO_STREAMS))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    verdicts = re.findall(r"^   verdicts: (\S+)", out.stdout, re.M)
    runs = load_runs([str(EXAMPLES)])
    assert len(verdicts) == len(runs) == 4
    ids = re.findall(r"^== (\S+): \d+ steps", out.stdout, re.M)
    by_id = dict(zip(ids, verdicts, strict=True))
    steered = sum("S" in v and "T" not in v for v in by_id.values())
    tripped = sum("T" in v for v in by_id.values())
    saved = sum(sum(step_tokens(s) for s in run.steps[by_id[run.id].index("T") + 1:]) for run in runs if "T" in by_id[run.id])
    (case,) = load_streams([str(DEMO_STREAMS)])
    cut = re.search(r"^== stream (\S+): cut at chunk (\d+) of chunks 0-(\d+)$", out.stdout, re.M)
    assert cut is not None and cut.group(1) == case.id and int(cut.group(3)) == len(case.chunks) - 1
    saved += -(-sum(len(c) for c in case.chunks[int(cut.group(2)) + 1:]) // 4)
    assert tripped == 2  # the two stuck examples; the productive ones are never tripped
    assert lines[-1] == (f"plateau demo: 4 runs: {tripped} tripped, {steered} steered without a trip; 1 stream: 1 cut; "
                         f"~{saved:,} tokens saved "
                         "(steps and chunks a guarded agent skips; 4 chars a token)")
    assert sum(line.startswith("plateau demo: ") for line in lines) == 1
    assert "CANCELLED" not in out.stderr and "Loading weights" not in out.stderr and "it/s]" not in out.stderr


def test_the_bottom_line_counts_runs_streams_and_the_tokens_after_a_trip_or_cut() -> None:
    """``demo_bottom_line``: runs steered/tripped, streams cut, and the tokens of the steps after the first trip."""
    from plateau.cli import demo_bottom_line

    (case,) = load_streams([str(DEMO_STREAMS)])
    line = demo_bottom_line([], {}, [(case, None)])
    assert line == "plateau demo: 0 runs: 0 tripped, 0 steered without a trip; 1 stream: 0 cut; ~0 tokens saved " \
                   "(steps and chunks a guarded agent skips; 4 chars a token)"
    runs = load_runs([str(EXAMPLES)])
    stuck = next(r for r in runs if r.id == "example-stuck-failing-patch")
    actions = ["continue"] * 3 + ["steer", "trip"] + ["trip"] * (len(stuck.steps) - 5)
    line = demo_bottom_line([stuck], {stuck.id: actions}, [])
    assert line.startswith("plateau demo: 1 run: 1 tripped, 0 steered without a trip; ~") and "stream" not in line.split(";")[1]
    assert f"~{sum(step_tokens(s) for s in stuck.steps[5:]):,} tokens saved" in line


def test_demo_on_a_missing_path_fails_in_one_line() -> None:
    """``plateau demo ../shared/none`` exits 2 with one line naming the path, before loading any model."""
    out = _plateau("demo", "../shared/no-such-folder")
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == ["plateau: ../shared/no-such-folder: no such file or folder"]


def test_make_demo_checks_paths_before_installing(tmp_path: Path) -> None:
    """``make demo PATHS=missing`` prints one line saying the path does not exist and installs nothing."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    argv = ["make", "--no-print-directory", "-C", str(ROOT), "demo", "PATHS=../shared/no-such-folder", "VENV=" + str(tmp_path / "venv")]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert out.stdout.strip().splitlines() == [
        "make demo: PATHS: ../shared/no-such-folder does not exist "
        "(give case files, .traj files or folders of them, e.g. examples demo/runs)"
    ]
    assert not (tmp_path / "venv").exists()


def test_make_s_first_install_says_what_it_installs_and_shows_pip_s_progress() -> None:
    """The install recipe announces what it installs and how long before pip runs, and pip's install step is not --quiet."""
    out = subprocess.run(["make", "-n", "-B", "-C", str(ROOT), "install", "VENV=/nonexistent-venv"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    steps = out.stdout.splitlines()
    announce = next(i for i, s in enumerate(steps) if "about 1.9 GB" in s or "1.9 GB" in s)
    install = next(i for i, s in enumerate(steps) if "pip install" in s and "-e" in s)
    assert announce < install and "--quiet" not in steps[install] and "several minutes" in " ".join(steps[: install])


def test_a_client_closing_its_stream_is_logged_at_debug_not_info(caplog: pytest.LogCaptureFixture) -> None:
    """An ObserveStream the client cancels while the server waits for its next step is recorded at DEBUG (a client
    closing its stream is normal), never at INFO or above: as CANCELLED, or as OK when the client's end of the request
    stream reaches the server before the cancellation does (a race of the transport, seen on a loaded machine)."""
    import queue
    import time

    from plateau.v1 import plateau_pb2_grpc

    caplog.set_level(logging.DEBUG, logger="plateau")
    with ServerThread(Engine(embedder=HashingEmbedder()), "127.0.0.1", 0) as server, grpc.insecure_channel(server.target) as channel:
        stub = plateau_pb2_grpc.PlateauStub(channel)  # type: ignore[no-untyped-call]
        requests: queue.Queue[object] = queue.Queue()
        call = stub.ObserveStream(iter(requests.get, None))  # open; the server waits for the first step
        time.sleep(0.5)
        call.cancel()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(r.getMessage().startswith("ObserveStream ") for r in caplog.records):
            time.sleep(0.05)
    records = [r for r in caplog.records if r.getMessage().startswith("ObserveStream ")]
    assert [(r.levelno, r.getMessage()) for r in records] in (
        [(logging.DEBUG, "ObserveStream CANCELLED")],
        [(logging.DEBUG, "ObserveStream OK")],
    )


@pytest.mark.model
def test_model_loading_draws_no_progress_bar() -> None:
    """``replay --backend torch`` (sentence-transformers loads the weights) writes no progress bar to stderr."""
    out = _plateau("replay", str(EXAMPLES / "example-productive-bugfix.json"), "--jsonl", "--backend", "torch")
    assert out.returncode == 0, out.stderr
    assert "Loading weights" not in out.stderr and "it/s" not in out.stderr and "%|" not in out.stderr
    assert all(json.loads(line) for line in out.stdout.splitlines())


@pytest.mark.model
def test_the_onnx_export_is_announced_once_with_its_reason(tmp_path: Path) -> None:
    """On a fresh cache the export logs one INFO line saying it is running and why, before it runs; no progress bar;
    the next start reads the cache and logs no export."""
    env = _env(PLATEAU_CACHE_DIR=str(tmp_path))
    example = str(EXAMPLES / "example-productive-bugfix.json")
    first = _plateau("replay", example, "--jsonl", env=env)
    assert first.returncode == 0, first.stderr
    exports = [line for line in first.stderr.splitlines() if "to ONNX" in line]
    assert len(exports) == 1 and exports[0].startswith("INFO plateau.embed: exporting ")
    assert "its graph in the cache is missing" in exports[0] and "once per model" in exports[0]
    assert "Loading weights" not in first.stderr and "%|" not in first.stderr
    assert (next(tmp_path.glob("onnx/*/model.onnx"))).is_file()
    second = _plateau("replay", example, "--jsonl", env=env)
    assert second.returncode == 0 and "to ONNX" not in second.stderr
