"""The Python client: one API, in-process or remote.

>>> client = Client.local()                      # doctest: +SKIP
>>> client = Client.remote("plateau.internal:50051")   # doctest: +SKIP
>>> verdict = client.observe("run-1", Step(index=0, text="Reading the config."))  # doctest: +SKIP

Both modes have the same methods, return the same types (:mod:`plateau.types`) and raise the
same exceptions (:mod:`plateau.errors`): the remote client turns each gRPC status back into
the domain error it came from. ``Client.remote`` needs only ``grpcio`` and ``protobuf`` (no
torch); ``Client.local`` needs the ``engine`` extra.

When Plateau cannot judge a step (unreachable, no model, a failing store), ``observe`` and
``check`` raise by default; ``on_unavailable="open"`` lets the step through and
``on_unavailable="closed"`` stops the run instead (:mod:`plateau.failure`). A server that is
down raises :class:`~plateau.errors.ServiceUnavailable`, never ``ModelUnavailable``.

:meth:`Client.session` returns a :class:`~plateau.session.RunSession` that owns a run id and
numbers its steps; :meth:`Client.check` asks what the breaker would say about a call before it
runs, changing nothing. :class:`~plateau.aio.AsyncClient` is the same API on asyncio.

Against a server with auth and TLS (:mod:`plateau.auth`)::

    client = Client.remote("plateau.internal:50051", token="…",
                           tls=ClientTls.from_files(ca="ca.pem", cert="me.pem", key="me.key"))

Against several replicas (``plateau serve --store redis://…``): one DNS name with several
addresses (re-resolved by gRPC as replicas come and go), or a list of targets::

    client = Client.remote("plateau.internal:50051")                 # every address of the name
    client = Client.remote(["10.0.0.5:50051", "10.0.0.6:50051"])      # a fixed set

Calls are spread over the addresses with gRPC's ``round_robin`` policy, and a call that fails
with ``UNAVAILABLE`` (a replica stopped, a store outage) is retried by gRPC's retry policy
(:func:`service_config`): safe, because a step sent twice counts once.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from plateau.auth import ClientTls
from plateau.errors import InvalidArgument, PlateauError, is_unavailable
from plateau.failure import OnUnavailable, check_policy, fallback_verdict
from plateau.types import RunHistory, RunInfo, RunSummary, Step, Verdict

__all__ = ["DEFAULT_PORT", "ENGINE_INSTALL", "Client", "ClientBase", "engine_extra_missing", "service_config", "with_port"]

#: The gRPC service whose methods the retry policy covers.
_SERVICE = "plateau.v1.Plateau"


def service_config(attempts: int = 5, initial_backoff: float = 0.1, max_backoff: float = 2.0) -> str:
    """The gRPC service config the remote client uses, as JSON.

    ``round_robin`` load balancing over every address of the target, and a retry policy for
    every Plateau method: up to ``attempts`` tries in all (2–5; gRPC caps at 5) on
    ``UNAVAILABLE``, with exponential backoff from ``initial_backoff`` to ``max_backoff``
    seconds (jittered by gRPC). Steps are idempotent, so retrying is safe.

    Raises
    ------
    ValueError
        ``attempts`` outside 2–5, or a backoff that is not > 0.
    """
    if not 2 <= attempts <= 5:
        raise ValueError(f"attempts must be between 2 and 5, got {attempts}")
    if not (initial_backoff > 0 and max_backoff >= initial_backoff):
        raise ValueError(f"backoff must satisfy 0 < initial_backoff <= max_backoff, got {initial_backoff}, {max_backoff}")
    policy = {
        "maxAttempts": attempts,
        "initialBackoff": f"{initial_backoff}s",
        "maxBackoff": f"{max_backoff}s",
        "backoffMultiplier": 2,
        "retryableStatusCodes": ["UNAVAILABLE"],
    }
    return json.dumps(
        {"loadBalancingConfig": [{"round_robin": {}}], "methodConfig": [{"name": [{"service": _SERVICE}], "retryPolicy": policy}]}
    )


#: The port a target without one uses: the port ``plateau serve`` listens on by default. gRPC's
#: own default for a target without a port is 443 (HTTPS), which a Plateau server never uses.
DEFAULT_PORT = 50051

#: Target prefixes that name a gRPC resolver (``dns:///``, ``unix:``, ``ipv4:``…): passed as given.
_SCHEMES = ("dns:", "unix:", "unix-abstract:", "ipv4:", "ipv6:", "vsock:", "xds:")


def with_port(target: str) -> str:
    """``target`` with :data:`DEFAULT_PORT` added when it names no port.

    ``"plateau.internal"`` → ``"plateau.internal:50051"``, ``"::1"`` and ``"[::1]"`` →
    ``"[::1]:50051"``; a target with a port, or a gRPC resolver URI (``dns:///h:p``,
    ``unix:/path``), is returned unchanged.

    Raises
    ------
    InvalidArgument
        ``target`` is empty or its port is not a number 1–65535 (the message starts with ``target``).
    """
    text = target.strip()
    if not text:
        raise InvalidArgument("target", "must be 'host:port' or 'host' (port 50051), got an empty string")
    if text.lower().startswith(_SCHEMES):
        return text
    if text.startswith("["):  # [v6] or [v6]:port
        host, close, rest = text[1:].partition("]")
        if not close or not host or (rest and not rest.startswith(":")):
            raise InvalidArgument("target", f"{target!r} must be 'host:port', '[v6]:port' or a host alone (port {DEFAULT_PORT})")
        port = rest[1:] if rest else str(DEFAULT_PORT)
        host = f"[{host}]"
    elif text.count(":") > 1:  # a bare IPv6 address: no port can be told apart
        try:
            ipaddress.IPv6Address(text)
        except ValueError:
            raise InvalidArgument("target", f"{target!r} must be 'host:port', '[v6]:port' or a host alone (port {DEFAULT_PORT})") from None
        host, port = f"[{text}]", str(DEFAULT_PORT)
    else:
        host, sep, port = text.partition(":")
        port = port if sep else str(DEFAULT_PORT)
    if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise InvalidArgument(
            "target", f"{target!r}: the port must be a number 1-65535 ('host:port', or a host alone for port {DEFAULT_PORT})"
        )
    return f"{host}:{port}"


def _split_host_port(target: str) -> tuple[str, str]:
    host, sep, port = with_port(target).rpartition(":")
    if not sep or not host or not port.isdigit():
        raise InvalidArgument("target", f"{target!r} must be 'host:port'")
    return host.strip("[]"), port


def channel_target(targets: Sequence[str]) -> tuple[str, str | None]:
    """One gRPC target for ``targets`` and the authority to present (None: gRPC's default).

    One target is used as given, port 50051 added when it names none (:func:`with_port`; gRPC's
    DNS resolver returns every address of a name). Several become a static address list
    (``ipv4:a:p,b:p`` or ``ipv6:``); host names among them are resolved once, here, and the
    first name is the authority (TLS checks it).
    """
    if len(targets) == 1:
        return with_port(targets[0]), None
    addresses: list[tuple[int, str]] = []
    authority = None
    for target in targets:
        host, port = _split_host_port(target)
        try:
            ip = ipaddress.ip_address(host)
            addresses.append((ip.version, f"[{ip}]:{port}" if ip.version == 6 else f"{ip}:{port}"))
            continue
        except ValueError:
            authority = authority or target
        try:
            infos = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
        except OSError as exc:
            raise InvalidArgument("target", f"cannot resolve {host!r}: {exc}") from exc
        for family, _, _, _, sockaddr in infos:
            version = 6 if family == socket.AF_INET6 else 4
            addresses.append((version, f"[{sockaddr[0]}]:{port}" if version == 6 else f"{sockaddr[0]}:{port}"))
    v4 = list(dict.fromkeys(a for v, a in addresses if v == 4))
    v6 = list(dict.fromkeys(a for v, a in addresses if v == 6))
    if v4 and v6:  # gRPC's static lists take one family; prefer IPv4 when both are given
        v6 = []
    return (f"ipv4:{','.join(v4)}" if v4 else f"ipv6:{','.join(v6)}"), authority


def as_step(step: Step | Mapping[str, Any], index: int | None = None) -> Step:
    """``step`` as a :class:`~plateau.types.Step` (a mapping's ``index``, else ``index``); shared by
    :class:`Client` and :class:`~plateau.aio.AsyncClient`.

    Raises :class:`~plateau.errors.InvalidArgument` naming ``step.index`` when a mapping has no
    index and none is given, ``step`` when it is neither a Step nor a mapping.
    """
    if isinstance(step, Step):
        return step
    if isinstance(step, Mapping):
        idx = step.get("index", index)
        if idx is None:
            raise InvalidArgument("step.index", "is required")
        return Step.from_dict(step, idx)
    raise InvalidArgument("step", f"must be a Step or a mapping, got {type(step).__name__}")


def check_limit(limit: object) -> int | None:
    """``limit`` of a listing: an integer >= 1, or None for all. Raises
    :class:`~plateau.errors.InvalidArgument` naming ``limit`` otherwise."""
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidArgument("limit", f"must be an integer >= 1 or None, got {limit!r}")
    return limit


#: Page size the clients ask for (the server's most, ``plateau.engine.MAX_PAGE_SIZE``).
PAGE_SIZE = 1000
#: Steps of a recorded run whose texts ``Client.local().observe_many`` embeds ahead in batches
#: before judging them: 2 texts a step, 256 of the engine's cache of 512 vectors
#: (:class:`plateau.embed.CachedEmbedder`), so none is evicted before its step is judged.
PREFETCH_STEPS = 128


def merge_history(pages: Sequence[RunHistory]) -> RunHistory:
    """One :class:`RunHistory` from consecutive pages (the run's summary from the last page)."""
    return RunHistory(pages[-1].run, tuple(step for page in pages for step in page.steps))


def history_consistent(pages: Sequence[RunHistory]) -> bool:
    """False when the run was reset or replaced while its pages were read (start again)."""
    first, last = pages[0].run, pages[-1].run
    return first.created == last.created and last.steps >= sum(len(p.steps) for p in pages)

#: The pip command that installs the engine next to the client (torch pinned to its CPU build).
ENGINE_INSTALL = 'pip install "torch==2.13.0" "plateau-breaker[engine]"'


def engine_extra_missing(exc: ModuleNotFoundError, what: str) -> ModuleNotFoundError:
    """``exc`` (a module of the engine missing) as an error naming the extra to install.

    The result is a :class:`ModuleNotFoundError` with the same ``name``, whose message says that
    ``what`` runs the engine in process, which module is missing, :data:`ENGINE_INSTALL`, and
    that a client-only install talks to a server with ``Client.remote``.
    """
    return ModuleNotFoundError(
        f"{what} runs the engine in process and needs the 'engine' extra (module {exc.name!r} is missing): "
        f"{ENGINE_INSTALL}; a client-only install talks to a server with Client.remote(TARGET)",
        name=exc.name,
    )


@dataclass(frozen=True)
class ChannelSettings:
    """A remote client's channel, validated and without I/O: the sync client (``grpc``) and
    the async one (``grpc.aio``) open theirs from the same settings (:meth:`open`).

    Attributes
    ----------
    target
        The channel's target (``ipv4:a,b`` for several servers; :func:`channel_target`).
    label
        The targets as given, comma-separated (named in connection errors).
    options
        The channel options: 16 MiB messages, the retry policy of :func:`service_config`,
        the default authority for several servers, then the caller's ``channel_options``.
    metadata
        ``(("authorization", "Bearer TOKEN"),)``, or None without a token.
    tls
        The client's TLS material, or None for a plaintext channel.
    """

    target: str
    label: str
    options: tuple[tuple[str, Any], ...]
    metadata: tuple[tuple[str, str], ...] | None
    tls: ClientTls | None

    @classmethod
    def build(
        cls,
        target: str | Sequence[str],
        *,
        token: str | None = None,
        tls: ClientTls | None = None,
        channel_options: Sequence[tuple[str, Any]] = (),
        retry_attempts: int = 5,
    ) -> ChannelSettings:
        """Validate and assemble.

        Raises
        ------
        plateau.errors.InvalidArgument
            ``target`` not a non-empty ``host:port`` or list of them; ``token`` empty or not
            printable ASCII.
        """
        targets = [target] if isinstance(target, str) else list(target)
        if not targets or not all(isinstance(t, str) and t for t in targets):
            raise InvalidArgument("target", "must be 'host:port' or a non-empty list of them")
        if token is not None and (not token or any(ord(c) < 32 or ord(c) > 126 for c in token)):
            raise InvalidArgument("token", "must be non-empty printable ASCII")
        config = service_config(retry_attempts)
        channel, authority = channel_target(targets)
        options: list[tuple[str, Any]] = [
            ("grpc.max_send_message_length", 16 * 1024 * 1024),
            ("grpc.max_receive_message_length", 16 * 1024 * 1024),
            ("grpc.service_config", config),
            ("grpc.enable_retries", 1),
            *channel_options,
        ]
        if authority is not None:
            options.append(("grpc.default_authority", authority))
        metadata = (("authorization", f"Bearer {token}"),) if token else None
        return cls(channel, ", ".join(targets), tuple(options), metadata, tls)

    def open(self, channels: Any) -> Any:
        """A channel from ``channels``: the ``grpc`` module (sync) or ``grpc.aio`` (async)."""
        import grpc

        options = list(self.options)
        if self.tls is None:
            return channels.insecure_channel(self.target, options=options)
        if self.tls.server_name:
            options.append(("grpc.ssl_target_name_override", self.tls.server_name))
        credentials = grpc.ssl_channel_credentials(
            root_certificates=self.tls.root_certificates, private_key=self.tls.private_key, certificate_chain=self.tls.cert_chain
        )
        return channels.secure_channel(self.target, credentials, options=options)


#: A paging protocol: yields the arguments of the next page's call, is sent its reply, returns the result.
Paging = Generator[tuple[Any, ...], Any, Any]


def list_runs_pages(limit: int | None) -> Paging:
    """The paging of :meth:`Client.list_runs` without I/O: yields ``(page_size, token)``, is sent
    ``(runs, next_token)``; returns at most ``limit`` runs (None: every page).

    Raises ``InvalidArgument`` naming ``limit`` (at the first step, before any call)."""
    limit = check_limit(limit)
    out: list[RunSummary] = []
    token = ""
    while True:
        size = PAGE_SIZE if limit is None else min(PAGE_SIZE, limit - len(out))
        runs, token = yield size, token
        out.extend(runs)
        if not token or (limit is not None and len(out) >= limit):
            return out if limit is None else out[:limit]


def run_history_pages(run_id: str) -> Paging:
    """The paging of :meth:`Client.run_history` without I/O: yields ``(run_id, page_size, token)``,
    is sent ``(history, next_token)``; returns the merged history, reading every page again (up
    to three times) when a step was accepted between two pages (:func:`history_consistent`)."""
    for _ in range(3):
        pages: list[RunHistory] = []
        token = ""
        while True:
            history, token = yield run_id, PAGE_SIZE, token
            pages.append(history)
            if not token:
                break
        if history_consistent(pages):
            break
    return merge_history(pages)


def drive(protocol: Paging, call: Any) -> Any:
    """Step ``protocol`` through the blocking ``call`` (one call a yielded request); its result.
    (:func:`plateau.aio.drive_async` is the same with ``await``.)"""
    try:
        request = next(protocol)
        while True:
            request = protocol.send(call(*request))
    except StopIteration as stop:
        return stop.value


class ClientBase:
    """What :class:`Client` and :class:`~plateau.aio.AsyncClient` share without I/O: the
    backend and the ``on_unavailable`` policy, and :meth:`remote` (each opens its own kind of
    remote backend, plain or ``grpc.aio``).

    ``on_unavailable`` (``"raise"``, ``"open"`` or ``"closed"``; :mod:`plateau.failure`) says
    what ``observe`` and ``check`` answer when Plateau cannot judge the step.

    Raises
    ------
    InvalidArgument
        ``on_unavailable`` is not a policy name.
    """

    def __init__(self, backend: Any, *, on_unavailable: OnUnavailable = "raise") -> None:
        self._backend = backend
        self.on_unavailable: OnUnavailable = check_policy(on_unavailable)

    def _unjudged(self, run_id: str, index: int, exc: PlateauError) -> Verdict:
        """What ``observe`` or ``check`` answers when the backend raised ``exc`` for step
        ``index``: the ``on_unavailable`` verdict (:func:`plateau.failure.fallback_verdict`) when
        ``exc`` says Plateau could not judge (:func:`plateau.errors.is_unavailable`) and the
        policy is not ``"raise"``; else ``exc`` is raised again."""
        if self.on_unavailable == "raise" or not is_unavailable(exc):
            raise exc
        return fallback_verdict(run_id, index, self.on_unavailable, exc)

    #: The backend classes a client opens: in process (engine, tenant) and remote (settings, timeout).
    _kinds: ClassVar[tuple[Callable[[Any, str], Any], Callable[[ChannelSettings, float | None], Any]]]

    @classmethod
    def local(
        cls,
        config: Any = None,
        *,
        embedder: Any = None,
        engine: Any = None,
        tenant: str = "",
        on_unavailable: OnUnavailable = "raise",
        backend: str | None = None,
    ) -> Self:
        """An in-process client over an :class:`~plateau.engine.Engine` (:class:`Client`; on
        :class:`~plateau.aio.AsyncClient` the engine's calls run in worker threads).

        Parameters
        ----------
        config
            A :class:`~plateau.config.Config` (default settings when None).
        embedder
            An :class:`~plateau.embed.Embedder`; the default model when None.
        engine
            An existing engine to share (``config`` and ``embedder`` are then ignored).
        tenant
            The run namespace this client uses in the engine (``""`` by default), as a token's
            tenant does on a server with auth.
        on_unavailable
            ``"raise"`` (default), ``"open"`` or ``"closed"``: see :mod:`plateau.failure`.
        backend
            The embedding backend of the default model, ``"onnx"`` or ``"torch"``
            (:func:`plateau.embed.model_embedder`); ``None`` for the default. Only used when
            neither ``embedder`` nor ``engine`` is given.

        Raises
        ------
        InvalidArgument
            ``backend`` is not a backend's name (the message starts with ``backend``).
        ModuleNotFoundError
            In a client-only install: the message names the ``engine`` extra and its pip command
            (:func:`engine_extra_missing`).
        """
        try:
            from plateau.engine import Engine
        except ModuleNotFoundError as exc:
            raise engine_extra_missing(exc, f"{cls.__name__}.local()") from exc

        if backend is not None:
            from plateau.embed import check_backend

            try:
                check_backend(backend)
            except ValueError as exc:
                raise InvalidArgument("backend", str(exc).split(": ", 1)[1]) from None
            if embedder is None and engine is None:
                from plateau.embed import BatchingEmbedder, model_embedder

                embedder = BatchingEmbedder(model_embedder(backend))
        return cls(cls._kinds[0](engine or Engine(config, embedder), tenant), on_unavailable=on_unavailable)

    @classmethod
    def remote(
        cls,
        target: str | Sequence[str],
        *,
        timeout: float | None = 60.0,
        token: str | None = None,
        tls: ClientTls | bool | None = None,
        channel_options: Sequence[tuple[str, Any]] = (),
        retry_attempts: int = 5,
        on_unavailable: OnUnavailable = "raise",
    ) -> Self:
        """A client of the Plateau server(s) at ``target`` (:class:`Client` over ``grpc``,
        :class:`~plateau.aio.AsyncClient` over ``grpc.aio``).

        Parameters
        ----------
        target
            ``host:port`` of the server, or of a DNS name with one address per replica, or a
            sequence of ``host:port`` (replicas; names among them are resolved once). Calls
            are spread with ``round_robin``. A host without a port uses port 50051
            (:data:`DEFAULT_PORT`, ``plateau serve``'s default), never gRPC's 443.
        timeout
            Deadline of each call in seconds (None for none).
        token
            Bearer token for a server with auth (sent as ``authorization`` metadata); None
            sends none. Use TLS off loopback, or the token travels in the clear.
        tls
            :class:`~plateau.auth.ClientTls` (CA, client certificate for mutual TLS), ``True``
            for TLS with the system's CA roots, None/False for plaintext.
        channel_options
            Extra gRPC channel arguments, e.g. ``[("grpc.max_reconnect_backoff_ms", 1000)]``
            for a client that must reconnect quickly after a server restart.
        retry_attempts
            Tries per call on ``UNAVAILABLE`` (2–5), by gRPC's retry policy
            (:func:`service_config`).
        on_unavailable
            ``"raise"`` (default), ``"open"`` or ``"closed"``: what ``observe`` and ``check``
            answer when the server cannot be reached or cannot judge (:mod:`plateau.failure`).

        Raises
        ------
        InvalidArgument
            ``target`` is empty or malformed (a name that does not resolve), ``token``
            holds characters not allowed in metadata, or ``on_unavailable`` is not a policy name.
        ValueError
            ``retry_attempts`` outside 2–5.
        """
        client_tls = ClientTls() if tls is True else (tls or None)
        settings = ChannelSettings.build(
            target, token=token, tls=client_tls, channel_options=channel_options, retry_attempts=retry_attempts
        )
        backend = cls._kinds[1](settings, timeout)
        return cls(backend, on_unavailable=on_unavailable)


class Client(ClientBase):
    """A Plateau client. Build it with :meth:`local` or :meth:`remote`.

    ``on_unavailable`` (``"raise"``, ``"open"`` or ``"closed"``; :mod:`plateau.failure`) says
    what ``observe`` and ``check`` answer when Plateau cannot judge the step.
    """

    _backend: LocalBackend | _Remote

    def observe(
        self, run_id: str, step: Step | Mapping[str, Any], context: str | None = None, *, tool_policy: Mapping[str, Any] | None = None
    ) -> Verdict:
        """Judge one step (see :meth:`plateau.engine.Engine.observe` for the rules and errors).

        ``tool_policy`` declares per-tool rules for this run (:mod:`plateau.policy`). Raises
        :class:`~plateau.errors.ServiceUnavailable` when the server cannot be reached, unless
        ``on_unavailable`` says to fail open or closed.
        """
        step = as_step(step)
        try:
            return self._backend.observe(run_id, step, context, tool_policy)
        except PlateauError as exc:
            return self._unjudged(run_id, step.index, exc)

    def check(
        self, run_id: str, step: Step | Mapping[str, Any], context: str | None = None, *, tool_policy: Mapping[str, Any] | None = None
    ) -> Verdict:
        """What the breaker would answer if ``step`` were observed now, committing nothing.

        Call it with the tool call *before* running the tool (``result`` left out): the verdict
        says whether the call is a repeat of a failing call, closes a cycle, or is otherwise
        already judged a loop, so the harness can refuse it. The step's ``index`` is ignored
        (the run's next index is used); a run that does not exist yet is judged as new. The
        run is not created or changed, and the normal ``observe`` with the result follows.
        See :meth:`plateau.engine.Engine.check`.
        """
        step = as_step(step, 0)
        try:
            return self._backend.check(run_id, step, context, tool_policy)
        except PlateauError as exc:
            return self._unjudged(run_id, step.index, exc)

    def session(
        self, run_id: str | None = None, context: str | None = None, *, next_index: int = 0, tool_policy: Mapping[str, Any] | None = None
    ) -> Any:
        """A :class:`~plateau.session.RunSession` for one run: it owns the run id (a fresh one
        when None), numbers the steps from ``next_index`` and declares ``tool_policy``."""
        from plateau.session import RunSession

        return RunSession(self, run_id, context, next_index=next_index, tool_policy=tool_policy)

    def observe_many(self, run_id: str, steps: Iterable[Step | Mapping[str, Any]], context: str | None = None) -> Iterator[Verdict]:
        """Judge steps in order (one stream for the remote client); yields one verdict per step.

        Mappings without an ``index`` are numbered from 0 in order.
        """
        return self._backend.observe_many(run_id, (as_step(s, i) for i, s in enumerate(steps)), context)

    def get_run(self, run_id: str) -> RunInfo:
        """The run's state; ``RunNotFound`` for an unknown run."""
        return self._backend.get_run(run_id)

    def list_runs(self, *, limit: int | None = None) -> list[RunSummary]:
        """This client's runs (a server's tenant sees only its own), newest first, as
        :class:`~plateau.types.RunSummary` values; at most ``limit`` (an int >= 1; None for all,
        read a page of 1,000 at a time). See :meth:`plateau.engine.Engine.list_runs`.

        Raises ``InvalidArgument`` naming ``limit``, and the errors of the connection.
        """
        return list(drive(list_runs_pages(limit), self._backend.list_runs))

    def run_history(self, run_id: str) -> RunHistory:
        """Every step the run accepted, in order: its verdict (action, state, score, reasons,
        signals, message) and the time it was accepted, with the run's summary
        (:class:`~plateau.types.RunHistory`; read a page of 1,000 steps at a time).

        Raises ``RunNotFound`` for an unknown run, ``InvalidArgument`` for a malformed run id.
        """
        history: RunHistory = drive(run_history_pages(run_id), self._backend.run_history)
        return history

    def reset_run(self, run_id: str) -> RunInfo:
        """Forget the run's steps and calibration; ``RunNotFound`` for an unknown run."""
        return self._backend.reset_run(run_id)

    def end_run(self, run_id: str) -> RunInfo:
        """Mark the run ended; ``RunNotFound`` for an unknown run."""
        return self._backend.end_run(run_id)

    def delete_run(self, run_id: str) -> RunInfo:
        """Delete the run now and return its last state; ``RunNotFound`` for an unknown run."""
        return self._backend.delete_run(run_id)

    def guard_stream(self, chunks: Iterable[str | tuple[str, str] | tuple[str, str, bool]], context: str | None = None) -> Iterator[Any]:
        """Guard one streamed response: yields a :class:`~plateau.stream.GuardResult` per chunk.

        Each item is a chunk of the ``content`` channel, a ``(channel, chunk)`` pair or a
        ``(channel, chunk, end)`` triple: ``end`` marks the channel's last chunk, whose result
        is the guard's final verdict on the complete response
        (:meth:`~plateau.stream.StreamGuard.finish`: it judges the text after the last block
        and a response that ended as a loop, ``stream.ending``).
        ``context`` is the request the response answers (the user's last message): uniform
        output it asks for does not fire within its bound. Stop reading the model as soon as a
        result has ``fired``; a result with ``steer`` carries a ``message`` for the next turn.
        """
        from plateau.channels import guard_item

        return self._backend.guard_stream((guard_item(c) for c in chunks), context or "")

    def guard_session(self, context: str | None = None) -> Any:
        """A guard for one streamed response, fed chunk by chunk as they arrive.

        Returns an object with ``feed(channel, chunk, end=False) -> GuardResult`` and ``close()``
        (remote: one ``GuardStream`` call kept open between chunks). ``context`` is the
        request the response answers. The adapters in :mod:`plateau.adapters` build on it.
        """
        return self._backend.guard_session(context or "")

    def close(self) -> None:
        """Release the connection (remote) or nothing (local)."""
        self._backend.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LocalBackend:
    """The in-process backend of :class:`Client`: each call goes to an
    :class:`~plateau.engine.Engine` under one tenant (``engine=None``: the stream guard only).

    The stream guard's semantic layer embeds with ``embedder`` (the engine's when None), as a
    server's does with its engine's, so that a stream gets the same verdicts in process and
    over gRPC; ``semantic_background=False`` embeds each completed sentence before the chunk's
    verdict (a recorded stream replayed faster than it was written: ``plateau guard``, as
    ``plateau eval`` scores it) instead of in a worker thread.
    """

    def __init__(self, engine: Any, tenant: str = "", *, embedder: Any = None, semantic_background: bool = True) -> None:
        self.engine = engine
        self.tenant = tenant
        self.stream_embedder = embedder if embedder is not None else getattr(engine, "embedder", None)
        self.semantic_background = semantic_background

    def observe(self, run_id: str, step: Step, context: str | None, tool_policy: Mapping[str, Any] | None = None) -> Verdict:
        return self.engine.observe(run_id, step, context, tenant=self.tenant, tool_policy=tool_policy)  # type: ignore[no-any-return]

    def observe_many(self, run_id: str, steps: Iterable[Step], context: str | None) -> Iterator[Verdict]:
        if not isinstance(steps, (list, tuple)):  # a lazy iterable is left lazy
            for step in steps:
                yield self.engine.observe(run_id, step, context, tenant=self.tenant)
            return
        # a recorded run: embed the texts of the next PREFETCH_STEPS steps in batches, then judge
        # them (the engine's cache holds them: 2 texts a step, within its 512 vectors)
        for start in range(0, len(steps), PREFETCH_STEPS):
            chunk = steps[start : start + PREFETCH_STEPS]
            try:
                self.engine.prefetch(chunk)
            except Exception:  # noqa: BLE001 - a warm-up only; observe() reports a bad step properly
                pass
            for step in chunk:
                yield self.engine.observe(run_id, step, context, tenant=self.tenant)

    def check(self, run_id: str, step: Step, context: str | None, tool_policy: Mapping[str, Any] | None = None) -> Verdict:
        return self.engine.check(run_id, step, context, tenant=self.tenant, tool_policy=tool_policy)  # type: ignore[no-any-return]

    def get_run(self, run_id: str) -> RunInfo:
        return self.engine.get_run(run_id, tenant=self.tenant)  # type: ignore[no-any-return]

    def list_runs(self, page_size: int, token: str) -> tuple[list[RunSummary], str]:
        return self.engine.list_runs(tenant=self.tenant, page_size=page_size, page_token=token)  # type: ignore[no-any-return]

    def run_history(self, run_id: str, page_size: int, token: str) -> tuple[RunHistory, str]:
        return self.engine.run_history(run_id, tenant=self.tenant, page_size=page_size, page_token=token)  # type: ignore[no-any-return]

    def reset_run(self, run_id: str) -> RunInfo:
        return self.engine.reset_run(run_id, tenant=self.tenant)  # type: ignore[no-any-return]

    def end_run(self, run_id: str) -> RunInfo:
        return self.engine.end_run(run_id, tenant=self.tenant)  # type: ignore[no-any-return]

    def delete_run(self, run_id: str) -> RunInfo:
        return self.engine.delete_run(run_id, tenant=self.tenant)  # type: ignore[no-any-return]

    def guard_stream(self, items: Iterable[tuple[str, str, bool]], context: str = "") -> Iterator[Any]:
        from plateau.channels import ChannelGuards

        guards = ChannelGuards(context=context, embedder=self.stream_embedder, semantic_background=self.semantic_background)
        for channel, chunk, end in items:
            yield guards.feed(channel, chunk, end=end)

    def guard_session(self, context: str = "") -> Any:
        from plateau.channels import ChannelGuards

        guards = ChannelGuards(context=context, embedder=self.stream_embedder, semantic_background=self.semantic_background)

        class _Session:
            def feed(self, channel: str, chunk: str, end: bool = False) -> Any:
                return guards.feed(channel, chunk, end=end)

            def close(self) -> None:
                pass

        return _Session()

    def close(self) -> None:
        pass


class _Remote:
    def __init__(self, settings: ChannelSettings, timeout: float | None) -> None:
        import grpc

        from plateau.v1 import plateau_pb2_grpc

        self._grpc = grpc
        self._target = settings.label
        self._channel = settings.open(grpc)
        self._stub = plateau_pb2_grpc.PlateauStub(self._channel)  # type: ignore[no-untyped-call]
        self._timeout = timeout
        self._metadata = settings.metadata

    def _error(self, exc: Any) -> PlateauError:
        from plateau.rpc_errors import error_from_rpc

        return error_from_rpc(exc, self._target)

    def _judge(
        self, method: Any, request_type: Any, run_id: str, step: Step, context: str | None, tool_policy: Mapping[str, Any] | None
    ) -> Verdict:
        from plateau import convert

        request = request_type(
            run_id=run_id, step=convert.step_to_pb(step), context=context or "", tool_policy=convert.tool_policy_to_pb(tool_policy)
        )
        return convert.verdict_from_pb(self._unary(method, request))

    def observe(self, run_id: str, step: Step, context: str | None, tool_policy: Mapping[str, Any] | None = None) -> Verdict:
        from plateau.v1 import plateau_pb2 as pb

        return self._judge(self._stub.Observe, pb.ObserveRequest, run_id, step, context, tool_policy)

    def check(self, run_id: str, step: Step, context: str | None, tool_policy: Mapping[str, Any] | None = None) -> Verdict:
        from plateau.v1 import plateau_pb2 as pb

        return self._judge(self._stub.Check, pb.CheckRequest, run_id, step, context, tool_policy)

    def observe_many(self, run_id: str, steps: Iterable[Step], context: str | None) -> Iterator[Verdict]:
        from plateau import convert
        from plateau.v1 import plateau_pb2 as pb

        requests = (pb.ObserveRequest(run_id=run_id, step=convert.step_to_pb(s), context=context or "") for s in steps)
        try:
            for msg in self._stub.ObserveStream(requests, metadata=self._metadata):
                yield convert.verdict_from_pb(msg)
        except self._grpc.RpcError as exc:
            raise self._error(exc) from None

    def _unary(self, method: Any, request: Any) -> Any:
        """``method(request)`` with the client's deadline and metadata; a gRPC error raised as
        the :class:`~plateau.errors.PlateauError` it stands for."""
        try:
            return method(request, timeout=self._timeout, metadata=self._metadata)
        except self._grpc.RpcError as exc:
            raise self._error(exc) from None

    def _run_call(self, method: Any, request: Any) -> RunInfo:
        from plateau import convert

        return convert.run_info_from_pb(self._unary(method, request))

    def get_run(self, run_id: str) -> RunInfo:
        from plateau.v1 import plateau_pb2 as pb

        return self._run_call(self._stub.GetRun, pb.GetRunRequest(run_id=run_id))

    def reset_run(self, run_id: str) -> RunInfo:
        from plateau.v1 import plateau_pb2 as pb

        return self._run_call(self._stub.ResetRun, pb.ResetRunRequest(run_id=run_id))

    def list_runs(self, page_size: int, token: str) -> tuple[list[RunSummary], str]:
        from plateau import convert
        from plateau.v1 import plateau_pb2 as pb

        msg = self._unary(self._stub.ListRuns, pb.ListRunsRequest(page_size=page_size, page_token=token))
        return [convert.run_summary_from_pb(r) for r in msg.runs], msg.next_page_token

    def run_history(self, run_id: str, page_size: int, token: str) -> tuple[RunHistory, str]:
        from plateau import convert
        from plateau.v1 import plateau_pb2 as pb

        request = pb.GetRunHistoryRequest(run_id=run_id, page_size=page_size, page_token=token)
        return convert.run_history_from_pb(self._unary(self._stub.GetRunHistory, request))

    def end_run(self, run_id: str) -> RunInfo:
        from plateau.v1 import plateau_pb2 as pb

        return self._run_call(self._stub.EndRun, pb.EndRunRequest(run_id=run_id))

    def delete_run(self, run_id: str) -> RunInfo:
        from plateau.v1 import plateau_pb2 as pb

        return self._run_call(self._stub.DeleteRun, pb.DeleteRunRequest(run_id=run_id))

    def guard_stream(self, items: Iterable[tuple[str, str, bool]], context: str = "") -> Iterator[Any]:
        from plateau import convert
        from plateau.v1 import plateau_pb2 as pb

        requests = (
            pb.GuardRequest(channel=ch, chunk=chunk, context=context if i == 0 else "", end=end) for i, (ch, chunk, end) in enumerate(items)
        )
        call = self._stub.GuardStream(requests, metadata=self._metadata)
        try:
            for msg in call:
                yield convert.guard_result_from_pb(msg)[1]
        except self._grpc.RpcError as exc:
            raise self._error(exc) from None
        finally:
            call.cancel()

    def guard_session(self, context: str = "") -> Any:
        return _RemoteGuardSession(self, context)

    def close(self) -> None:
        self._channel.close()


class _RemoteGuardSession:
    """One open ``GuardStream`` call: each ``feed`` sends a chunk and waits for its verdict."""

    _END = object()

    def __init__(self, remote: _Remote, context: str = "") -> None:
        import queue

        from plateau.v1 import plateau_pb2 as pb

        self._pb = pb
        self._remote = remote
        self._context = context
        self._requests: queue.Queue[Any] = queue.Queue()
        self._call = remote._stub.GuardStream(iter(self._requests.get, self._END), metadata=remote._metadata)
        self._responses = iter(self._call)

    def feed(self, channel: str, chunk: str, end: bool = False) -> Any:
        from plateau import convert

        self._requests.put(self._pb.GuardRequest(channel=channel, chunk=chunk, context=self._context, end=end))
        self._context = ""
        try:
            return convert.guard_result_from_pb(next(self._responses))[1]
        except self._remote._grpc.RpcError as exc:
            raise self._remote._error(exc) from None

    def close(self) -> None:
        self._requests.put(self._END)
        self._call.cancel()


Client._kinds = (LocalBackend, _Remote)  # defined after Client
