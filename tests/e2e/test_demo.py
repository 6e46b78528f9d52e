"""The two-host demo: the harness loop, its live mode against a scripted OpenAI-compatible server,
and ``demo/run.sh`` end to end across two network namespaces."""

from __future__ import annotations

import io
import itertools
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from demo.harness import (
    Harness,
    chunk_deltas,
    estimate_tokens,
    guard_chunks,
    live_run,
    load_streams,
    main,
    step_tokens,
    wait_healthy,
)
from plateau.client import Client
from plateau.integrations import STEER_PREFIX
from plateau.replay import Run, load_runs
from tests.support.paths import EXAMPLES, SHARED
from tests.support.paths import REPO as ROOT

DEMO = ROOT / "demo"
RUN_SH = DEMO / "run.sh"
STUCK_TEXT = "I am not sure why the rows are still missing. Let me re-run the export and compare the row counts again."


# ------------------------------------------------------------------------ pieces
def test_estimate_tokens_is_characters_over_four_rounded_up() -> None:
    """The documented estimate: ceil(characters / 4), 0 for nothing."""
    assert estimate_tokens(None) == 0
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2


def test_step_tokens_counts_text_tool_args_result_and_user() -> None:
    """A step's tokens are those of its text, tool name, JSON args, result and user message."""
    step = {"text": "a" * 8, "tool": "bash", "args": {"command": "ls"}, "result": "b" * 12, "user": "c" * 4}
    args = json.dumps({"command": "ls"})
    assert step_tokens(step) == 2 + 1 + estimate_tokens(args) + 3 + 1
    assert step_tokens({"text": "abc"}) == 1


def test_chunk_deltas_reads_every_channel_of_the_sdk_chunks() -> None:
    """Content, reasoning (both extra field names) and tool-call argument deltas of the ``openai``
    SDK's ``ChatCompletionChunk`` objects come out in order; chunks without choices yield nothing."""
    from openai.types.chat import ChatCompletionChunk

    deltas = [
        {"role": "assistant"},
        {"reasoning_content": "think"},
        {"reasoning": "more"},
        {"content": "Hello"},
        {"tool_calls": [{"index": 0, "function": {"arguments": "{\"a\":"}}]},
    ]
    base = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    chunks = [ChatCompletionChunk.model_validate({**base, "choices": [{"index": 0, "delta": d}]}) for d in deltas]
    chunks.append(ChatCompletionChunk.model_validate({**base, "choices": []}))
    assert list(chunk_deltas(chunks)) == [("reasoning", "think"), ("reasoning", "more"), ("content", "Hello"), ("tool_args", '{"a":')]


def test_demo_folder_holds_a_stuck_run_to_its_cap_and_a_degenerate_stream() -> None:
    """demo/ ships one labelled stuck run and one labelled degenerate stream chunked like SSE deltas."""
    runs = load_runs([DEMO])
    streams = load_streams([DEMO])
    assert [r.expected["final"] for r in runs if r.expected] == ["trip"]
    assert len(runs[0].steps) >= 20
    (stream,) = streams
    assert stream.label == "fire" and stream.channel == "reasoning"
    assert len(stream.chunks) > 1000 and max(len(c) for c in stream.chunks) <= 16
    assert load_streams([EXAMPLES]) == []


@pytest.mark.parametrize("mode", ["local", "remote"])
def test_guard_chunks_stops_pulling_the_source_when_the_guard_fires(mode: str, hashing_server: str) -> None:
    """After the firing chunk, not one more chunk is read from the source (local and over gRPC)."""
    (case,) = load_streams([DEMO])
    pulled = 0

    def source() -> Iterator[tuple[str, str]]:
        nonlocal pulled
        for chunk in case.chunks:
            pulled += 1
            yield case.channel, chunk

    client = Client.remote(hashing_server) if mode == "remote" else Client.local(engine=object())
    with client:
        results = [result for _, result in guard_chunks(client, source())]
    assert results[-1].fired and not any(r.fired for r in results[:-1])
    assert pulled == len(results) < len(case.chunks) // 5


def _run(steps: list[str], label: str) -> Run:
    return Run(id=f"synthetic-{label}", steps=tuple({"text": t} for t in steps), expected={"final": label}, source="test")


def test_harness_stops_at_the_trip_and_counts_the_rest_as_saved(hashing_server: str) -> None:
    """A stuck run is stopped at its trip; the steps after it are never sent and count as saved."""
    steps = ["Reading the export job.", "The filter uses naive datetimes."] + [STUCK_TEXT] * 10
    out = io.StringIO()
    with Client.remote(hashing_server) as client:
        report = Harness(client, hashing_server, out).play_run(_run(steps, "trip"))
    assert report.tripped and report.check is True
    assert report.steps_run == report.tripped_at + 1 < len(steps)  # type: ignore[operator]
    assert report.steps_saved == len(steps) - report.steps_run
    assert report.tokens_saved == sum(step_tokens({"text": t}) for t in steps[report.steps_run :])
    assert report.steers, "a steer comes before the trip"
    text = out.getvalue()
    assert f"tripped by {hashing_server}" in text
    assert "a recording cannot react" in text


def test_check_fails_when_a_productive_label_is_tripped(hashing_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--check exits 1 when a run labelled productive is tripped, and the JSON summary says which."""
    case = {"id": "looks-productive", "level": "steps", "expected": {"final": "continue"}, "input": [{"text": STUCK_TEXT}] * 8}
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case))
    summary = tmp_path / "summary.json"
    assert main([str(path), "--remote", hashing_server, "--check", "--summary", str(summary)]) == 1
    data = json.loads(summary.read_text())
    assert data["check_failures"] == ["looks-productive"]
    assert data["runs"][0]["tripped"] is True
    assert main([str(path), "--remote", hashing_server]) == 0
    capsys.readouterr()


def test_wait_healthy_sees_a_live_server_and_times_out_on_a_dead_port(hashing_server: str) -> None:
    """The gRPC health check answers SERVING for a running server and gives up in time otherwise."""
    assert wait_healthy(hashing_server, 10)
    assert not wait_healthy("127.0.0.1:1", 1.0)


def test_the_agent_side_loads_no_torch_or_numpy(hashing_server: str) -> None:
    """Playing runs and streams against a remote server needs only the client (no torch, no numpy)."""
    code = (
        "import sys, io, contextlib\n"
        "from demo.harness import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    rc = main([{str(DEMO)!r}, '--remote', {hashing_server!r}])\n"
        "print(rc, ' '.join(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True, timeout=120).stdout
    rc, modules = out.split(" ", 1)
    assert rc == "0"
    assert not {"torch", "numpy", "sentence_transformers"} & set(modules.split())


# -------------------------------------------------------- live mode, scripted model
class _ScriptedModel:
    """A tiny OpenAI-compatible ``/v1/chat/completions`` server on 127.0.0.1 streaming scripted completions.

    Turn 0 answers normally on both channels, turn 1 degenerates (one reasoning paragraph
    repeated for up to ``cap`` chunks, 10 ms apart, as a runaway model would), every
    later turn repeats the same stuck message. It records each request body and, per response,
    how many chunks it sent and whether the client hung up.
    """

    LOOP = ("But wait, I should check the bounds again. start is naive local midnight and end is start plus one day, "
            "so on the fall-back night the filter covers 24 of the 25 local hours. ")

    def __init__(self, cap: int = 4000, error: str | None = None) -> None:
        self.cap = cap
        self.error = error  # when set, every response is this one error event
        self.requests: list[dict[str, Any]] = []
        # by turn: handlers run in threads and finish out of order (the runaway one notices the
        # hang-up only at its next write, after the next turn may have been answered)
        self.sent: dict[int, int] = {}
        self.hung_up: dict[int, bool] = {}
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                if self.path != "/v1/chat/completions":
                    self.send_error(404)
                    return
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                turn = len(model.requests)
                model.requests.append(body)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                sent, hung_up = 0, False
                if model.error is not None:
                    self.wfile.write(f"data: {json.dumps({'error': {'message': model.error}})}\n\n".encode())
                    self.wfile.flush()
                    model.sent[turn], model.hung_up[turn] = 0, False
                    return
                try:
                    for channel, chunk in model.script(turn):
                        event = {"choices": [{"index": 0, "delta": {channel: chunk}}]}
                        self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                        self.wfile.flush()
                        sent += 1
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    hung_up = True
                model.sent[turn] = sent
                model.hung_up[turn] = hung_up

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def script(self, turn: int) -> Iterator[tuple[str, str]]:
        """The deltas of the response to request number ``turn``."""
        if turn == 0:
            yield "reasoning_content", "The export drops rows near DST; look at the filter first."
            text = "I'll read the export job's filter to see how the day bounds are built."
        elif turn == 1:
            # a runaway response far longer than any client reads before its guard fires: the
            # server writes until the client hangs up (the kernel's socket buffers hold a few
            # MB; this is ~40 MB), whatever the machine's load, so no timing is assumed
            head = "The bounds are built like this. "
            yield from (("reasoning_content", c) for c in (head, *itertools.repeat(self.LOOP, 400_000)))
            return
        else:
            text = STUCK_TEXT
        channel = "reasoning_content" if turn == 1 else "content"
        chunks = [text[i : i + 7] for i in range(0, len(text), 7)]
        yield from ((channel, c) for c in chunks[: self.cap])

    def __enter__(self) -> _ScriptedModel:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_live_mode_cuts_the_runaway_stream_injects_the_steer_and_stops_at_the_trip(hashing_server: str) -> None:
    """Against a streaming OpenAI-compatible server: the degenerate response is cut mid-stream (the
    server sees the client hang up), the steer reaches the model as a message, the trip ends the loop."""
    out = io.StringIO()
    with _ScriptedModel() as model, Client.remote(hashing_server) as client:
        report = live_run(client, model.url, task="Fix the DST export.", max_steps=12, max_tokens=4096, target=hashing_server, out=out)
        deadline = time.monotonic() + 30
        while len(model.hung_up) < len(model.requests) and time.monotonic() < deadline:  # every handler has finished
            time.sleep(0.05)
    # the runaway response: cut mid-stream, connection closed by the agent
    assert report.streams_cut == 1
    assert model.hung_up[1] is True  # the agent closed the stream before the server finished it
    assert not model.hung_up[0] and not model.hung_up[2]
    # the trip ends the conversation before the turn cap
    assert report.tripped and len(model.requests) == report.steps_run == report.tripped_at + 1 < 12  # type: ignore[operator]
    assert report.steers, "a steer comes before the trip"
    # the steer was sent to the model, as its own message, in the request after it
    first = report.steers[0]
    injected = [m for m in model.requests[first + 1]["messages"] if m["content"].startswith(STEER_PREFIX)]
    assert len(injected) == 1 and injected[0]["role"] == "user"
    assert all(not m["content"].startswith(STEER_PREFIX) for m in model.requests[first]["messages"])
    # every request streams and carries the cap
    assert all(r["stream"] is True and r["max_tokens"] == 4096 for r in model.requests)
    # the cut turn was recorded as one copy of the loop plus the marker, not the runaway text
    assistant = [m["content"] for m in model.requests[2]["messages"] if m["role"] == "assistant"]
    assert assistant[1].count("fall-back night") == 1 and "Plateau" in assistant[1]
    text = out.getvalue()
    assert "closed the HTTP stream" in text and "sent to the model as a user message" in text


def test_live_mode_reports_an_error_event_and_an_unreachable_server(hashing_server: str) -> None:
    """An ``error`` event from the model server and a server that is not there are ``ValueError``s
    naming the endpoint (the command line prints them and exits 2)."""
    with _ScriptedModel(error="overloaded") as model, Client.remote(hashing_server) as client:
        with pytest.raises(ValueError, match="overloaded") as caught:
            live_run(client, model.url, task="t", max_steps=3, target=hashing_server, out=io.StringIO())
        assert model.url + "/chat/completions" in str(caught.value)
        assert len(model.requests) == 1
    with Client.remote(hashing_server) as client, pytest.raises(ValueError, match="127.0.0.1:1/v1/chat/completions"):
        live_run(client, "http://127.0.0.1:1", task="t", max_steps=3, target=hashing_server, out=io.StringIO(), timeout=5)


def test_live_mode_through_the_command_line(hashing_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m demo.harness --live URL --remote HOST:PORT`` prints the turns and the summary."""
    summary = tmp_path / "live.json"
    with _ScriptedModel() as model:
        rc = main(["--live", model.url, "--remote", hashing_server, "--max-steps", "12", "--summary", str(summary)])
    assert rc == 0
    data = json.loads(summary.read_text())
    (run,) = data["runs"]
    assert run["live"] and run["tripped"] and run["streams_cut"] == 1
    assert run["steps_saved"] == 12 - run["steps_run"] > 0
    assert "summary" in capsys.readouterr().out


# ---------------------------------------------------------------- two namespaces
def _netns_or_skip() -> None:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("the two-namespace demo needs root (ip netns)")
    if shutil.which("ip") is None:
        pytest.skip("the ip command is missing (iproute2)")
    probe = f"plateau-probe-{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"this machine does not allow network namespaces: {made.stderr.strip()}")
    subprocess.run(["ip", "netns", "del", probe], capture_output=True)


def _namespaces() -> set[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _default_sigint() -> None:
    """Give the demo a default SIGINT: a test suite started in the background (``cmd &`` in a
    non-interactive shell) inherits SIGINT ignored, and bash cannot trap a signal ignored on
    entry, so the Ctrl-C tests would see the demo run to its end."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class _Demo:
    """``demo/run.sh`` in its own session, its output collected line by line by a thread."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            ["bash", str(RUN_SH), *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
            env=dict(os.environ, HF_HUB_OFFLINE="1"), preexec_fn=_default_sigint,
        )
        self.names = {f"plateau-srv-{self.proc.pid}", f"plateau-agt-{self.proc.pid}"}
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.output: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def until(self, text: str, timeout: float) -> bool:
        """Collect output until a line contains ``text``; False at the end of output or timeout."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return False
            if line is None:
                return False
            self.output.append(line)
            if text in line:
                return True
        return False

    def finish(self, timeout: float) -> int:
        """Wait for the script (SIGTERM to its group at the timeout: its trap cleans up) and return its code."""
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.until("\0never\0", 5)
        return self.proc.returncode

    def server_pid(self) -> int | None:
        for line in self.output:
            if "server starting" in line and "(pid " in line:
                return int(line.split("(pid ", 1)[1].split(";", 1)[0])
        return None

    def force_cleanup(self) -> None:
        """Last resort if the script itself was killed: remove what it left behind."""
        for name in self.names & _namespaces():
            subprocess.run(["ip", "netns", "del", name], capture_output=True)


@pytest.mark.netns
@pytest.mark.model
def test_two_namespace_demo_trips_the_stuck_runs_remotely_and_leaves_the_real_runs_alone(tmp_path: Path) -> None:
    """demo/run.sh end to end: from the agent's namespace, every stuck run is tripped by the server
    at 10.231.0.1, the productive and real SWE-agent runs are not, the degenerate stream is cut; then
    nothing of it is left (namespaces, server process)."""
    _netns_or_skip()
    summary = tmp_path / "summary.json"
    paths = [str(EXAMPLES), str(DEMO)]
    trajectories = SHARED / "data" / "trajectories"
    if trajectories.is_dir():
        paths.append(str(trajectories))
    demo = _Demo("--summary", str(summary), "--", *paths, "--check")
    try:
        code = demo.finish(timeout=540)
    finally:
        demo.force_cleanup()
    output = "".join(demo.output)
    assert code == 0, output[-4000:]
    assert "SERVING (gRPC health check)" in output
    data = json.loads(summary.read_text())
    assert data["target"].startswith("10.231.0.1:")
    runs = {r["run"]: r for r in data["runs"]}
    stuck = [r for r in runs.values() if r["label"] == "trip"]
    assert {"example-stuck-failing-patch", "example-stuck-read-edit-cycle", "demo-stuck-ci-reinstall-loop"} <= {r["run"] for r in stuck}
    for r in stuck:
        assert r["tripped"] and r["target"] == data["target"] and r["steps_saved"] >= 1, r
    assert runs["demo-stuck-ci-reinstall-loop"]["steps_saved"] >= 8
    real = [r for r in runs.values() if r["label"] != "trip"]
    assert {"example-productive-bugfix", "example-productive-rollout-poller"} <= {r["run"] for r in real}
    if trajectories.is_dir():
        assert sum(1 for r in real if r["label"] is None) == 2
    for r in real:
        assert not r["tripped"] and r["steps_run"] == r["steps_total"], r
    (stream,) = data["streams"]
    assert stream["fired"] and stream["chunks_read"] < stream["chunks_total"] and stream["tokens_saved"] > 0
    assert data["check_failures"] == []
    assert "✂ guard fired" in output and "summary: verdicts from 10.231.0.1:" in output
    assert not (demo.names & _namespaces()), "namespaces left behind"
    pid = demo.server_pid()
    assert pid is not None and not _alive(pid), "server process left behind"


@pytest.mark.netns
@pytest.mark.parametrize("phase", ["server starting", "running the agent there"], ids=["while-the-server-loads", "while-the-agent-runs"])
def test_ctrl_c_leaves_nothing_behind(phase: str) -> None:
    """Ctrl-C (SIGINT to the foreground process group) while the server loads or while the agent
    runs: the trap stops the agent and the server and deletes both namespaces; exit status 130."""
    _netns_or_skip()
    demo = _Demo()
    try:
        assert demo.until(phase, 240), "".join(demo.output)
        assert demo.names <= _namespaces()
        pid = demo.server_pid()
        assert pid is not None
        time.sleep(1.0)
        os.killpg(demo.proc.pid, signal.SIGINT)
        code = demo.finish(timeout=60)
    finally:
        demo.force_cleanup()
    assert code == 130, "".join(demo.output)
    assert not (demo.names & _namespaces())
    assert not _alive(pid)
    assert any("removed namespaces" in line for line in demo.output)
