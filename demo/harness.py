"""The demo agent's harness: ask Plateau after every step and act on the verdict.

A harness is the loop around a model that runs an agent. This one is small on purpose: it shows
what a real harness does with Plateau, step by step, against a server on another host.

- **Recorded runs** (:meth:`Harness.play_run`): case files (``examples/``, ``demo/runs/``,
  ``docs/format.md``) and SWE-agent ``.traj`` trajectories, loaded with
  :func:`plateau.replay.load_runs`. Per step the harness calls ``client.observe`` and waits for
  the verdict before taking the next step. **continue**: take the next step. **steer**: inject
  the verdict's message into the next step (a recording cannot react, so the harness prints
  the message it would inject and plays the next recorded step unchanged; the live mode really
  injects it). **trip**: stop; the steps left in the recording are counted as saved.
- **Recorded streams** (:meth:`Harness.play_stream`): stream case files (``level: "stream"``),
  chunked like server-sent deltas. Each chunk goes through ``client.guard_stream`` and the
  harness reads the next chunk only after the guard has answered for this one, so when the
  guard fires it stops reading at once; the text is cut to one copy of the repeated unit
  (:func:`plateau.stream.truncate`) and the chunks never read are counted as saved.
- **Live** (:func:`live_run`, ``--live URL``): an OpenAI-compatible ``/v1/chat/completions``
  endpoint, streamed (``stream: true``); each response goes through the guard the same way
  (the HTTP response is closed when it fires), each turn is a step, a steer message is sent to
  the model as a message of its own before the next turn, and a trip ends the conversation.

Token counts are an **estimate**: ``ceil(characters / 4)`` (:func:`estimate_tokens`, the usual
rule of thumb for English text with GPT-style tokenisers). A step's tokens are those of what it
adds to the transcript: its text, tool name, arguments, result and user message. This is
conservative: an agent re-sends its growing transcript every turn, so the real saving of
stopping a run early is larger.

Only the client side of Plateau is imported here (``grpcio`` and ``protobuf`` for ``--remote``,
and the ``openai`` SDK, for the live mode only), so an agent machine needs only the client install (the wheel
``make dist`` builds, without extras) and a checkout of this repository, where the harness
lives (it is not part of the wheel); without ``--remote`` (no server) it needs the engine extra.
The loaders of recorded runs and streams and the token estimate are the wheel's
(:mod:`plateau.replay`).

Run it from the repository's root as ``python -m demo.harness --remote HOST:PORT [PATH...]``
(the demo agent, ``plateau-agent`` in its messages); ``--help`` lists the
options. Exit status: 0 on success, 1 when ``--check`` finds a labelled run or stream whose
outcome contradicts its label, 2 for bad input, 4 when the server is not healthy in time.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import queue
import sys
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from plateau.client import Client
from plateau.errors import PlateauError
from plateau.integrations import steer_text
from plateau.replay import CHARS_PER_TOKEN, Run, StreamCase, estimate_tokens, load_runs, load_streams, step_tokens
from plateau.types import Action, Step, Verdict

__all__ = [
    "Harness",
    "RunReport",
    "StreamCase",
    "StreamReport",
    "chunk_deltas",
    "estimate_tokens",
    "guard_chunks",
    "live_run",
    "load_streams",
    "main",
    "step_tokens",
    "wait_healthy",
]

#: The repository's own recorded runs, played when no path is given (present in a clone).
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATHS = (ROOT / "examples", ROOT / "demo")


# ----------------------------------------------------------------------- reports
@dataclass
class RunReport:
    """What happened to one run (recorded or live), from the agent's side.

    ``steps_total``/``tokens_total`` are the unguarded run (the whole recording, or for a live
    run the ``--max-steps`` cap and what was generated); ``steps_run``/``tokens_used`` what the
    guarded run consumed before it ended or was tripped.
    """

    run: str
    source: str
    label: str | None
    target: str
    steps_total: int
    steps_run: int = 0
    tokens_total: int = 0
    tokens_used: int = 0
    tripped_at: int | None = None
    steers: list[int] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    trip_message: str | None = None
    live: bool = False
    streams_cut: int = 0

    @property
    def tripped(self) -> bool:
        """True when Plateau stopped the run."""
        return self.tripped_at is not None

    @property
    def steps_saved(self) -> int:
        """Steps the unguarded run would have taken that the guarded run did not."""
        return self.steps_total - self.steps_run

    @property
    def tokens_saved(self) -> int:
        """Estimated tokens of the steps not taken."""
        return self.tokens_total - self.tokens_used

    @property
    def check(self) -> bool | None:
        """True/False when the label says stuck (must trip) or productive (must not); None unlabelled."""
        if self.label is None:
            return None
        return self.tripped == (self.label == "trip")

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready view with the derived fields."""
        out = asdict(self)
        out.update(tripped=self.tripped, steps_saved=self.steps_saved, tokens_saved=self.tokens_saved, check=self.check)
        return out


@dataclass
class StreamReport:
    """What happened to one streamed response, from the agent's side.

    ``chars_total`` is the whole response an unguarded reader would have read (for a live
    stream cut by the guard, what was read: the model's remainder is unknown, bounded by
    ``max_tokens``); ``chars_read`` what the guarded reader read before it stopped;
    ``chars_kept`` what it keeps after cutting to one copy of the repeated unit.
    """

    stream: str
    source: str
    label: str | None
    channel: str
    chunks_total: int | None
    chunks_read: int = 0
    chars_total: int | None = None
    chars_read: int = 0
    chars_kept: int = 0
    fired: bool = False
    fired_at_chunk: int | None = None
    reason: str | None = None
    unit: str | None = None
    cut_offset: int | None = None

    @property
    def tokens_total(self) -> int | None:
        """Estimated tokens of the whole response (None when unknown)."""
        return None if self.chars_total is None else math.ceil(self.chars_total / CHARS_PER_TOKEN)

    @property
    def tokens_read(self) -> int:
        """Estimated tokens read before the guard stopped the reader."""
        return math.ceil(self.chars_read / CHARS_PER_TOKEN)

    @property
    def tokens_saved(self) -> int:
        """Estimated tokens never read (0 when the whole response is unknown)."""
        return 0 if self.tokens_total is None else self.tokens_total - self.tokens_read

    @property
    def check(self) -> bool | None:
        """True/False against a ``fire``/``no-fire`` label; None unlabelled."""
        if self.label is None:
            return None
        return self.fired == (self.label == "fire")

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready view with the derived fields."""
        out = asdict(self)
        out.update(tokens_total=self.tokens_total, tokens_read=self.tokens_read, tokens_saved=self.tokens_saved, check=self.check)
        return out


# ----------------------------------------------------------------------- streams
def guard_chunks(client: Client, chunks: Iterable[tuple[str, str]]) -> Iterator[tuple[tuple[str, str], Any]]:
    """Pass ``(channel, chunk)`` pairs through the guard in lock-step; yield ``(pair, result)``.

    The next chunk is pulled from ``chunks`` only after the guard has answered for the previous
    one, and nothing more is pulled once a result has ``fired`` (the generator ends). Pulling
    happens in the caller's thread, so ``chunks`` may read a socket (an HTTP response) that the
    caller then closes. The cost is one round-trip to the server per chunk.
    """
    pending: queue.Queue[tuple[str, str] | None] = queue.Queue()

    def requests() -> Iterator[tuple[str, str]]:
        while True:
            item = pending.get()
            if item is None:
                return
            yield item

    results = client.guard_stream(requests())
    try:
        for pair in chunks:
            pending.put(pair)
            try:
                result = next(results)
            except StopIteration:
                raise RuntimeError("the guard stream ended before answering a chunk") from None
            yield pair, result
            if result.fired:
                return
    finally:
        pending.put(None)
        close = getattr(results, "close", None)
        if close is not None:
            close()


# ------------------------------------------------------------------------ health
def wait_healthy(target: str, timeout: float, *, interval: float = 0.5, tls: Any = None) -> bool:
    """Wait until the server at ``target`` reports ``SERVING`` to the gRPC health check.

    Uses ``grpc_health`` when installed, else the same call with its two-byte wire format (an
    agent machine may have only ``grpcio``). Returns False when ``timeout`` seconds pass first.
    ``tls`` (a :class:`~plateau.auth.ClientTls`) reaches a TLS server; the health check needs
    no token. A target without a port uses 50051.
    """
    import grpc

    from plateau.client import with_port

    deadline = time.monotonic() + timeout
    if tls is None:
        opened = grpc.insecure_channel(with_port(target))
    else:
        credentials = grpc.ssl_channel_credentials(
            root_certificates=tls.root_certificates, private_key=tls.private_key, certificate_chain=tls.cert_chain
        )
        opened = grpc.secure_channel(with_port(target), credentials)
    with opened as channel:
        try:
            from grpc_health.v1 import health_pb2, health_pb2_grpc

            stub = health_pb2_grpc.HealthStub(channel)

            def check(remaining: float) -> bool:
                reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=remaining)
                return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)

        except ImportError:
            raw = channel.unary_unary("/grpc.health.v1.Health/Check", request_serializer=None, response_deserializer=None)

            def check(remaining: float) -> bool:
                return bool(raw(b"", timeout=remaining) == b"\x08\x01")  # status = SERVING (1)

        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            try:
                if check(min(max(remaining, 0.1), 5.0)):
                    return True
            except grpc.RpcError:
                pass
            time.sleep(min(interval, max(deadline - time.monotonic(), 0)))


# ----------------------------------------------------------------------- harness
def _clip(text: str | None, width: int) -> str:
    one = " ".join((text or "").split())
    return one if len(one) <= width else one[: width - 1] + "…"


class Harness:
    """The demo agent's loop over a :class:`~plateau.client.Client`, printing as it goes.

    Parameters
    ----------
    client
        Local or remote Plateau client.
    target
        Where the verdicts come from, for the printout (``"10.231.0.1:50051"``, ``"in process"``).
    out
        Where to print (default ``sys.stdout``).
    """

    def __init__(self, client: Client, target: str, out: TextIO | None = None) -> None:
        self.client = client
        self.target = target
        self.out = out if out is not None else sys.stdout

    def _p(self, line: str = "") -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def _verdict_line(self, verdict: Verdict, tokens: int, detail: str) -> None:
        mark = {"continue": "continue", "steer": "STEER", "trip": "TRIP"}[verdict.action.value]
        reasons = f"  [{', '.join(verdict.reasons)}]" if verdict.reasons else ""
        self._p(f"  step {verdict.step_index:>3}  {mark:8} {verdict.state.value:11} score {verdict.score:4.2f}  "
                f"~{tokens:>5} tok  {detail}{reasons}")

    # ---------------------------------------------------------------- recorded runs
    def play_run(self, run: Run) -> RunReport:
        """Play a recorded run step by step, asking Plateau after each and acting on the verdict."""
        label = (run.expected or {}).get("final")
        costs = [step_tokens(s) for s in run.steps]
        report = RunReport(run=run.id, source=run.source, label=label, target=self.target,
                           steps_total=len(run.steps), tokens_total=sum(costs))
        run_id = f"{run.id}-{uuid.uuid4().hex[:8]}"
        self._p(f"\n── run {run.id}: {len(run.steps)} recorded steps, ~{report.tokens_total:,} tokens"
                + (f"  (labelled {label})" if label else "") + f"\n   {run.source}")
        for index, raw in enumerate(run.steps):
            step = Step.from_dict(raw, index)
            verdict = self.client.observe(run_id, step, run.context)
            report.steps_run += 1
            report.tokens_used += costs[index]
            report.actions.append(verdict.action.value)
            tool = f"{step.tool}: " if step.tool else ""
            self._verdict_line(verdict, costs[index], tool + repr(_clip(step.text, 56)))
            if verdict.action is Action.STEER:
                report.steers.append(index)
                if not verdict.message:
                    self._p(f"{'':13}↳ steer (cap reached: still stalled, no new message to inject)")
                elif index + 1 < len(run.steps):
                    self._p(f"{'':13}↳ steer, injected before step {index + 1}: {verdict.message}")
                    if len(report.steers) == 1:
                        self._p(f"{'':15}(a recording cannot react: its next steps are played as recorded; "
                                "--live sends the message to the model)")
                else:
                    self._p(f"{'':13}↳ steer: {verdict.message}")
            elif verdict.action is Action.TRIP:
                report.tripped_at = index
                report.trip_message = verdict.message
                self._p(f"{'':13}↳ trip: {verdict.message}")
                break
        try:
            self.client.end_run(run_id)
        except PlateauError:
            pass
        if report.tripped:
            self._p(f"  ✗ tripped by {self.target} at step {report.tripped_at}: the agent stops; "
                    f"{report.steps_saved} of {report.steps_total} steps not run")
        else:
            steers = f" ({len(report.steers)} steer{'s' if len(report.steers) != 1 else ''})" if report.steers else ""
            self._p(f"  ✓ ran to the end{steers}: {report.steps_run} steps, never tripped")
        plural = "" if report.steps_saved == 1 else "s"
        if not report.steps_saved:
            self._p(f"  guarded = unguarded: {report.steps_run} steps / ~{report.tokens_used:,} tok, nothing cut")
            return report
        self._p(f"  guarded {report.steps_run} steps / ~{report.tokens_used:,} tok   unguarded {report.steps_total} steps / "
                f"~{report.tokens_total:,} tok   saved {report.steps_saved} step{plural} / ~{report.tokens_saved:,} tok"
                + (f" ({report.tokens_saved / report.tokens_total:.0%})" if report.tokens_total else ""))
        return report

    # -------------------------------------------------------------- recorded streams
    def play_stream(self, case: StreamCase) -> StreamReport:
        """Read a recorded streamed response chunk by chunk through the guard; stop when it fires."""
        from plateau.stream import truncate

        total = sum(len(c) for c in case.chunks)
        report = StreamReport(stream=case.id, source=case.source, label=case.label, channel=case.channel,
                              chunks_total=len(case.chunks), chars_total=total)
        self._p(f"\n── stream {case.id}: {len(case.chunks):,} chunks on '{case.channel}', {total:,} chars "
                f"(~{math.ceil(total / CHARS_PER_TOKEN):,} tok) if read to the end" + (f"  (labelled {case.label})" if case.label else "")
                + f"\n   {case.source}")
        text, result = self._guarded_read(((case.channel, c) for c in case.chunks), report)
        report.chars_kept = len(truncate(text, result) if result is not None else text)
        if report.fired:
            self._p(f"  kept {report.chars_kept:,} chars (one copy of the unit + the cut marker); "
                    f"saved {total - report.chars_read:,} unread chars, ~{report.tokens_saved:,} tok "
                    f"({(total - report.chars_read) / total:.0%})")
        return report

    def _guarded_read(self, pairs: Iterable[tuple[str, str]], report: StreamReport, echo: int = 160) -> tuple[str, Any]:
        """Feed ``pairs`` through :func:`guard_chunks`, filling ``report``.

        Returns the text read and the guard's firing result (None when it stayed quiet).
        """
        fired: Any = None
        parts: list[str] = []
        shown = 0
        started = time.monotonic()
        for (_channel, chunk), result in guard_chunks(self.client, pairs):
            report.chunks_read += 1
            report.chars_read += len(chunk)
            parts.append(chunk)
            if shown < echo:
                piece = chunk[: echo - shown]
                shown += len(piece)
                if shown >= echo:
                    self._p(f"  reading: {_clip(''.join(parts)[:echo], echo)} …")
            if result.fired:
                report.fired = True
                report.fired_at_chunk = report.chunks_read - 1
                report.reason = result.reason
                report.unit = result.unit
                report.cut_offset = result.cut_offset
                fired = result
                self._p(f"  ✂ guard fired at chunk {report.fired_at_chunk:,} (char {report.chars_read:,}) "
                        f"[{result.reason}]: stopped reading; repeated unit {_clip(result.unit, 70)!r}")
                break
        if not report.fired:
            self._p(f"  ✓ read to the end: {report.chunks_read:,} chunks, {report.chars_read:,} chars, the guard stayed quiet "
                    f"({time.monotonic() - started:.1f} s)")
        return "".join(parts), fired

    # ------------------------------------------------------------------- summary
    def summary(self, runs: Sequence[RunReport], streams: Sequence[StreamReport]) -> None:
        """Print the guarded-vs-unguarded table and the totals."""
        self._p(f"\n══ summary: verdicts from {self.target}; tokens ≈ characters / {CHARS_PER_TOKEN}")
        self._p(f"  {'run or stream':44} {'label':9} {'outcome':26} {'steps g/u':>10} {'tokens guarded/unguarded':>25} {'saved':>14}")
        steps_g = steps_u = tok_g = tok_u = 0
        for r in runs:
            if r.tripped:
                outcome = f"tripped at step {r.tripped_at}"
            else:
                outcome = "ran to the end" + (f", {len(r.steers)} steer" + ("s" if len(r.steers) > 1 else "") if r.steers else "")
            if r.live:
                outcome = "live: " + outcome
            steps_g += r.steps_run
            steps_u += r.steps_total
            tok_g += r.tokens_used
            tok_u += r.tokens_total
            pct = f" ({r.tokens_saved / r.tokens_total:.0%})" if r.tokens_total and r.tokens_saved else ""
            self._p(f"  {_clip(r.run, 44):44} {r.label or '-':9} {outcome:26} {f'{r.steps_run}/{r.steps_total}':>10} "
                    f"{f'{r.tokens_used:,}/{r.tokens_total:,}':>25} {f'{r.tokens_saved:,}{pct}':>14}")
        for s in streams:
            outcome = f"cut at chunk {s.fired_at_chunk:,}" if s.fired else "read to the end"
            total = s.tokens_total
            if total is not None:
                tok_g += s.tokens_read
                tok_u += total
            pct = f" ({s.tokens_saved / total:.0%})" if total and s.tokens_saved else ""
            self._p(f"  {_clip(s.stream + ' (stream)', 44):44} {s.label or '-':9} {outcome:26} {'-':>10} "
                    f"{f'{s.tokens_read:,}/' + (f'{total:,}' if total is not None else '?'):>25} {f'{s.tokens_saved:,}{pct}':>14}")
        saved = tok_u - tok_g
        self._p(f"  {'total':44} {'':9} {'':26} {f'{steps_g}/{steps_u}':>10} {f'{tok_g:,}/{tok_u:,}':>25} "
                f"{f'{saved:,}' + (f' ({saved / tok_u:.0%})' if tok_u else ''):>14}")
        self._p(f"  guarded, the agent took {steps_g} of {steps_u} steps and read ~{tok_g:,} of ~{tok_u:,} tokens: "
                f"{steps_u - steps_g} steps and ~{saved:,} tokens saved.")


# -------------------------------------------------------------------------- live
def chunk_deltas(chunks: Iterable[Any]) -> Iterator[tuple[str, str]]:
    """``(channel, text)`` deltas of a streamed chat completion, as the ``openai`` SDK yields it.

    ``chunks`` are ``openai.types.chat.ChatCompletionChunk`` objects (what
    ``client.chat.completions.create(..., stream=True)`` iterates over). ``choices[0].delta.content``
    is the ``content`` channel; ``reasoning_content`` (or ``reasoning``, the extra field
    OpenAI-compatible servers such as vLLM and llama.cpp send) the ``reasoning`` channel;
    ``tool_calls[].function.arguments`` the ``tool_args`` channel. Chunks without choices (a
    usage chunk) yield nothing. The SDK ends the stream at ``data: [DONE]`` and raises
    ``openai.APIError`` for an ``error`` event.
    """
    for chunk in chunks:
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        if delta is None:
            continue
        reasoning = getattr(delta, "reasoning_content", None) or getattr(delta, "reasoning", None)
        if isinstance(reasoning, str) and reasoning:
            yield "reasoning", reasoning
        if isinstance(delta.content, str) and delta.content:
            yield "content", delta.content
        for call in delta.tool_calls or []:
            args = call.function.arguments if call.function is not None else None
            if isinstance(args, str) and args:
                yield "tool_args", args


def _base_url(url: str) -> str:
    """The SDK's ``base_url`` for ``url``: a server root, its ``/v1`` or its ``/v1/chat/completions``."""
    url = url.rstrip("/")
    if url.endswith("/chat/completions"):
        url = url[: -len("/chat/completions")]
    return url if url.endswith("/v1") else url + "/v1"


def live_run(
    client: Client,
    url: str,
    *,
    task: str,
    model: str = "default",
    system: str = "You are a careful software engineering agent. Think step by step and say what you do next.",
    next_prompt: str = "Continue.",
    max_steps: int = 8,
    max_tokens: int = 1024,
    steer_role: str = "user",
    api_key: str | None = None,
    timeout: float = 120.0,
    target: str = "",
    out: TextIO | None = None,
) -> RunReport:
    """Drive a chat model through an OpenAI-compatible streaming endpoint, guarded by Plateau.

    The model is called with the ``openai`` SDK (``OpenAI(base_url=..., api_key=...)``,
    ``chat.completions.create(stream=True)``; the ``openai`` extra); ``url`` is the server's root,
    its ``/v1`` or its ``/v1/chat/completions``. ``api_key`` defaults to ``$OPENAI_API_KEY``, else
    a placeholder (local servers do not check it); ``timeout`` is in seconds, per request.
    Each turn is one step: the response is streamed through the guard (and the stream, with its
    HTTP connection, is closed as soon as the guard fires, its text cut to one copy of the repeated unit), then the
    step is sent to ``client.observe``. On **continue** the harness sends ``next_prompt``; on
    **steer** it sends the verdict's message first, as a ``steer_role`` message prefixed
    :data:`~plateau.integrations.STEER_PREFIX`; on **trip** it stops. Without Plateau the loop would run ``max_steps`` turns:
    that cap is the unguarded run of the summary.

    Raises ``ValueError`` for an HTTP error, an unreachable server or an error event from the model
    server, and ``ImportError`` naming the extra when ``openai`` is not installed.
    """
    try:
        import openai
    except ImportError:
        raise ImportError("the live mode needs the openai SDK: pip install 'plateau-breaker[openai]'") from None
    from plateau.stream import truncate

    harness = Harness(client, target or "plateau", out)
    base_url = _base_url(url)
    endpoint = base_url + "/chat/completions"
    model_client = openai.OpenAI(base_url=base_url, api_key=api_key or os.environ.get("OPENAI_API_KEY") or "unused",
                                 timeout=timeout)
    run_id = f"live-{uuid.uuid4().hex[:8]}"
    report = RunReport(run=run_id, source=endpoint, label=None, target=harness.target, steps_total=max_steps, live=True)
    messages: list[dict[str, str]] = [{"role": "system", "content": system}, {"role": "user", "content": task}]
    harness._p(f"\n── live run {run_id}: {endpoint} (model {model!r}), at most {max_steps} turns of at most {max_tokens} tokens")
    for index in range(max_steps):
        try:
            response = model_client.chat.completions.create(model=model, messages=messages,  # type: ignore[arg-type]
                                                            stream=True, max_tokens=max_tokens)
        except openai.APIStatusError as exc:
            raise ValueError(f"{endpoint}: HTTP {exc.status_code}: {exc.message[:300]}") from None
        except openai.APIConnectionError as exc:
            raise ValueError(f"{endpoint}: {exc.message}") from None
        stream = StreamReport(stream=f"{run_id} turn {index}", source=endpoint, label=None, channel="content+reasoning",
                              chunks_total=None)
        content: list[str] = []
        reasoning: list[str] = []
        try:
            for (channel, chunk), result in guard_chunks(client, chunk_deltas(response)):
                stream.chunks_read += 1
                stream.chars_read += len(chunk)
                (reasoning if channel == "reasoning" else content).append(chunk)
                if result.fired:
                    stream.fired = True
                    stream.fired_at_chunk = stream.chunks_read - 1
                    stream.reason = result.reason
                    stream.unit = result.unit
                    cut = truncate("".join(reasoning if channel == "reasoning" else content), result)
                    if channel == "reasoning":
                        reasoning = [cut]
                    else:
                        content = [cut]
                    break
        except openai.APIError as exc:
            raise ValueError(f"{endpoint}: the model server sent an error: {exc.message}") from None
        finally:
            response.close()
        text = "".join(content).strip() or "".join(reasoning).strip()
        if stream.fired:
            report.streams_cut += 1
            harness._p(f"  ✂ turn {index}: guard fired at chunk {stream.fired_at_chunk} (char {stream.chars_read:,}, "
                       f"~{stream.tokens_read:,} tok) [{stream.reason}]: closed the HTTP stream "
                       f"(unguarded it could run to max_tokens={max_tokens:,}); repeated unit {_clip(stream.unit, 60)!r}")
        step = Step(index=index, text=text)
        verdict = client.observe(run_id, step, task)
        # What this turn cost: the prompt message it answered and every token read from the stream.
        tokens = stream.tokens_read + estimate_tokens(messages[-1]["content"])
        report.steps_run += 1
        report.tokens_used += tokens
        report.actions.append(verdict.action.value)
        harness._verdict_line(verdict, tokens, repr(_clip(text, 56)))
        messages.append({"role": "assistant", "content": text})
        if verdict.action is Action.TRIP:
            report.tripped_at = index
            report.trip_message = verdict.message
            harness._p(f"{'':13}↳ trip: {verdict.message}")
            harness._p(f"  ✗ tripped by {harness.target} at turn {index}: conversation stopped, "
                       f"{max_steps - index - 1} of {max_steps} turns not requested")
            break
        if verdict.action is Action.STEER and verdict.message:
            report.steers.append(index)
            messages.append({"role": steer_role, "content": steer_text(verdict.message)})
            harness._p(f"{'':13}↳ steer, sent to the model as a {steer_role} message before turn {index + 1}: {verdict.message}")
        messages.append({"role": "user", "content": next_prompt})
    else:
        harness._p(f"  ✓ reached the {max_steps}-turn cap without a trip")
    # Unguarded: the cap's worth of turns at the average cost of the turns taken.
    per_turn = report.tokens_used / max(report.steps_run, 1)
    report.tokens_total = report.tokens_used + round(per_turn * report.steps_saved)
    try:
        client.end_run(run_id)
    except PlateauError:
        pass
    return report


# -------------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the demo agent (``python -m demo.harness``)."""
    from plateau.cli import connection_options

    p = argparse.ArgumentParser(
        prog="python -m demo.harness",
        description="The demo agent: plays recorded runs and streams (or drives a live model) and asks Plateau after every step.",
        parents=[connection_options()],
    )
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="case files, stream cases, SWE-agent .traj files or folders (default: the repository's examples/ and demo/)")
    p.add_argument("--remote", metavar="TARGET",
                   help="the Plateau server, HOST:PORT (HOST alone: port 50051; default: an in-process engine with the real model)")
    p.add_argument("--wait", type=float, default=0.0, metavar="SECONDS",
                   help="first wait up to SECONDS for the server's gRPC health check to report SERVING")
    p.add_argument("--wait-only", action="store_true", help="only wait for the health check (exit 0 when serving, 4 if not)")
    p.add_argument("--check", action="store_true",
                   help="exit 1 unless every run labelled trip was tripped, no other labelled run was, "
                        "and labelled streams fired as labelled")
    p.add_argument("--summary", metavar="FILE", help="also write the reports as JSON to FILE")
    live = p.add_argument_group("live mode (an OpenAI-compatible chat endpoint instead of recordings)")
    live.add_argument("--live", metavar="URL", help="base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    live.add_argument("--model", default="default", help="model name sent to the endpoint")
    live.add_argument("--task", default="Find out why the nightly export drops rows around the DST change and fix it.",
                      help="the user's task")
    live.add_argument("--next-prompt", default="Continue.", help="the user message after each turn")
    live.add_argument("--max-steps", type=int, default=8, help="turn cap of the conversation (the unguarded run)")
    live.add_argument("--max-tokens", type=int, default=1024, help="max_tokens of each completion")
    live.add_argument("--steer-role", choices=("user", "system"), default="user", help="role of the injected steer message")
    live.add_argument("--api-key", help="bearer token for the endpoint (default: $OPENAI_API_KEY)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (see the module docstring)."""

    args = build_parser().parse_args(argv)
    if args.wait or args.wait_only:
        if not args.remote:
            print("plateau-agent: --wait needs --remote", file=sys.stderr)
            return 2
        from plateau.cli import client_tls

        if not wait_healthy(args.remote, args.wait or 1.0, tls=client_tls(args)):
            print(f"plateau-agent: {args.remote} is not SERVING after {args.wait or 1.0:g} s", file=sys.stderr)
            return 4
        if args.wait_only:
            return 0
    try:
        if args.remote:
            from plateau.cli import remote_client

            client = remote_client(args, args.remote)
            target = args.remote
        else:
            client = Client.local()
            target = "the in-process engine"
        with client:
            harness = Harness(client, target)
            runs: list[RunReport] = []
            streams: list[StreamReport] = []
            if args.live:
                runs.append(live_run(client, args.live, task=args.task, model=args.model, next_prompt=args.next_prompt,
                                     max_steps=args.max_steps, max_tokens=args.max_tokens, steer_role=args.steer_role,
                                     api_key=args.api_key or os.environ.get("OPENAI_API_KEY"), target=target))
            else:
                paths = args.paths or [str(p) for p in DEFAULT_PATHS if p.exists()]
                if not paths:
                    print("plateau-agent: give case files, trajectories or folders to play", file=sys.stderr)
                    return 2
                harness._p(f"plateau-agent: asking {target} after every step of the runs under {' '.join(paths)}")
                recorded = load_runs(paths)
                cases = load_streams(paths)
                if not recorded and not cases:
                    print("plateau-agent: no runs or streams found under " + " ".join(paths), file=sys.stderr)
                    return 2
                runs.extend(harness.play_run(run) for run in recorded)
                streams.extend(harness.play_stream(case) for case in cases)
            harness.summary(runs, streams)
    except (PlateauError, FileNotFoundError, ValueError) as exc:
        print(f"plateau-agent: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("plateau-agent: interrupted", file=sys.stderr)
        return 130
    failures = [r.run for r in runs if r.check is False] + [s.stream for s in streams if s.check is False]
    if args.summary:
        Path(args.summary).write_text(json.dumps({"target": target, "runs": [r.as_dict() for r in runs],
                                                  "streams": [s.as_dict() for s in streams], "check_failures": failures},
                                                 indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.check:
        if failures:
            print("plateau-agent: check FAILED: outcome contradicts the label for " + ", ".join(failures), file=sys.stderr)
            return 1
        harness._p("  check: OK — every run labelled trip was tripped, no productive run was, labelled streams fired as labelled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
