"""The read-only runs page of ``plateau serve --ui-port PORT``: a tenant's runs, and one run's
verdict timeline with its reasons.

Served by the standard library (:class:`http.server.ThreadingHTTPServer` in a background
thread, one thread per request) from the server's own :class:`~plateau.engine.Engine`, so it
shows exactly what ``ListRuns`` and ``GetRunHistory`` answer. No JavaScript: plain HTML with
the run's picture inline as SVG, drawn by :func:`plateau.plot.plot_trace` (the picture of
``plateau plot``; needs the ``plot`` extra, else the page says so and shows the table only).

Pages (``GET``; ``HEAD`` too)::

    /                          the tenant's runs, newest first (?page=TOKEN for the next 1,000)
    /runs/RUN_ID               one run: summary, timeline (SVG, one mark id="step-N" per step)
                               and a table of every step: time, action, state, score, reasons,
                               message
    /runs/RUN_ID/plot.svg      the timeline alone (also plot.png)

Auth: when the server has tokens (``--tokens-file`` / ``$PLATEAU_TOKENS``), every page needs
one of them, as the gRPC calls do: an ``Authorization: Bearer TOKEN`` header, or, for a browser,
a ``?token=TOKEN`` query parameter (links on the page carry it on). Without one the answer is
``401``. A token in a URL can end up in the browser's history: prefer the header where a tool
allows it, and keep the page on loopback (``--ui-host``, default ``127.0.0.1``) or serve it
with TLS (it uses the server's ``--tls-cert``/``--tls-key`` when given). Pages are sent with
``Referrer-Policy: no-referrer``, ``Cache-Control: no-store`` and a Content-Security-Policy
that allows no script.

Bounds: the timeline is drawn for at most :data:`PLOT_STEPS` steps (the first ones; the table
lists every step), one picture at a time, and the last :data:`CACHED_PLOTS` pictures are kept;
at most :data:`MAX_CONNECTIONS` connections are served at once, each closed after
:data:`IDLE_SECONDS` of silence.
"""

from __future__ import annotations

import html
import io
import logging
import socket
import ssl
import threading
import time
from collections import OrderedDict
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

from plateau.errors import InvalidArgument, PlateauError, RunNotFound, StoreUnavailable

__all__ = ["CACHED_PLOTS", "IDLE_SECONDS", "MAX_CONNECTIONS", "PLOT_STEPS", "RunsPage"]

log = logging.getLogger("plateau.ui")

#: Most steps drawn in a run's timeline (a picture of 2,000 steps takes about a second to draw).
PLOT_STEPS = 2000
#: Pictures kept, by tenant, run, steps and last change (a run that moves on is drawn again).
CACHED_PLOTS = 16
#: Connections served at once (a thread each); more are closed at once.
MAX_CONNECTIONS = 32
#: Seconds a connection may stay silent before it is closed.
IDLE_SECONDS = 30.0

_ACTION_COLORS = {"continue": "#3a9d5d", "steer": "#f0a030", "trip": "#d62728"}

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #222; }
table { border-collapse: collapse; font-size: 0.9rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.action { font-weight: 600; }
.continue { color: #3a9d5d; } .steer { color: #b86e00; } .trip { color: #d62728; }
.timeline svg { max-width: 100%; height: auto; }
td.time { white-space: nowrap; }
ul.reasons { margin: 0; padding-left: 1rem; }
.note { color: #555; }
"""

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'none'; frame-ancestors 'none'"


def _when(t: float | None) -> str:
    return "" if t is None else time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t)) + "Z"


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


class RunsPage:
    """The runs page over ``engine`` on ``host:port`` (see the module docstring).

    Parameters
    ----------
    engine
        The server's :class:`~plateau.engine.Engine`.
    auth
        The server's :class:`~plateau.auth.TokenTable`; None serves every caller as tenant ``""``
        (as the gRPC service does without tokens).
    host, port
        Where to listen; port 0 picks a free one (:attr:`port` after :meth:`start`).
    certfile, keyfile
        PEM files to serve HTTPS with (the server's ``--tls-cert``/``--tls-key``); plain HTTP
        when None.
    config
        The :class:`~plateau.config.Config` to draw with (the engine's when None).

    Raises
    ------
    OSError
        From :meth:`start` when the address cannot be bound.
    """

    def __init__(
        self,
        engine: Any,
        auth: Any = None,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        certfile: str | None = None,
        keyfile: str | None = None,
        config: Any = None,
    ) -> None:
        self.engine = engine
        self.auth = auth
        self.host = host
        self.port = port
        self.certfile = certfile
        self.keyfile = keyfile
        self.config = config if config is not None else engine.config
        self._plots: OrderedDict[tuple[Any, ...], str] = OrderedDict()
        self._draw_lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def scheme(self) -> str:
        """``https`` with a certificate, else ``http``."""
        return "https" if self.certfile else "http"

    @property
    def url(self) -> str:
        """The page's address (after :meth:`start`)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}/"

    def start(self) -> RunsPage:
        """Bind and serve in a daemon thread; returns self (its :attr:`port` is the bound one)."""
        page = self

        class Handler(_Handler):
            owner = page

        server_class = _DualStackServer if ":" in self.host else _BoundedServer
        httpd = server_class((self.host, self.port), Handler)
        httpd.daemon_threads = True
        if self.certfile:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(self.certfile, self.keyfile)
            httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
        self._httpd = httpd
        self.port = httpd.server_address[1]
        self._thread = threading.Thread(target=httpd.serve_forever, name="plateau-ui", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket (idempotent)."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def __enter__(self) -> RunsPage:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ content
    def history(self, tenant: str, run_id: str) -> Any:
        """The run's whole :class:`~plateau.types.RunHistory` (every page). Raises
        ``RunNotFound``, ``InvalidArgument``."""
        from plateau.types import RunHistory

        pages = []
        token = ""
        while True:
            page, token = self.engine.run_history(run_id, tenant=tenant, page_token=token)
            pages.append(page)
            if not token:
                return RunHistory(pages[-1].run, tuple(s for p in pages for s in p.steps))

    def picture(self, tenant: str, history: Any, fmt: str) -> bytes:
        """The run's timeline drawn by :func:`plateau.plot.plot_trace` (its first
        :data:`PLOT_STEPS` steps) as ``svg`` or ``png`` bytes. Raises ``ModuleNotFoundError``
        without matplotlib."""
        from plateau.plot import history_trace, plot_trace
        from plateau.types import RunHistory

        run = history.run
        key = (tenant, run.run_id, run.steps, run.updated, run.ended, fmt)
        with self._draw_lock:
            cached = self._plots.get(key)
            if cached is not None:
                self._plots.move_to_end(key)
                return cached.encode("latin-1")
            drawn = RunHistory(run, history.steps[:PLOT_STEPS])
            fig = plot_trace(history_trace(drawn), config=self.config)
            out = io.BytesIO()
            fig.savefig(out, format=fmt, dpi=90, metadata={"Date": None} if fmt == "svg" else None)
            data = out.getvalue()
            self._plots[key] = data.decode("latin-1")
            while len(self._plots) > CACHED_PLOTS:
                self._plots.popitem(last=False)
        return data


class _BoundedServer(ThreadingHTTPServer):
    """A thread per connection, at most :data:`MAX_CONNECTIONS` at once (more are closed at once)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


class _DualStackServer(_BoundedServer):
    """The server for an IPv6 address."""

    address_family = socket.AF_INET6


class _Handler(BaseHTTPRequestHandler):
    owner: RunsPage
    server_version = "plateau-ui"
    sys_version = ""
    timeout = IDLE_SECONDS  # a connection that sends nothing for this long is closed

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        log.debug("%s %s", self.address_string(), format % args, extra={"path": urlsplit(self.path).path})

    # ------------------------------------------------------------------ plumbing
    def _send(self, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", _CSP)
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _page(self, status: int, title: str, body: str, extra: dict[str, str] | None = None) -> None:
        doc = (
            f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{_e(title)} - Plateau</title>'
            f"<style>{_STYLE}</style></head><body>{body}</body></html>\n"
        )
        self._send(status, doc.encode("utf-8"), "text/html; charset=utf-8", extra)

    def _error(self, status: HTTPStatus, message: str, extra: dict[str, str] | None = None) -> None:
        self._page(status, status.phrase, f'<h1>{status.value} {_e(status.phrase)}</h1><p id="error">{_e(message)}</p>', extra)

    def _tenant(self, query: dict[str, list[str]]) -> tuple[str, str | None] | None:
        """(tenant, the token to carry on in links) or None after answering 401."""
        auth = self.owner.auth
        if auth is None:
            return "", None
        header = self.headers.get("Authorization")
        token: str | None = None
        from_query = None
        if header:
            scheme, _, value = header.strip().partition(" ")
            token = value.strip() if scheme.lower() == "bearer" else None
        elif query.get("token"):
            token = from_query = query["token"][0]
        tenant = auth.tenant_for(token)
        if tenant is None:
            why = "this server requires a token: send 'Authorization: Bearer TOKEN', or open the page with ?token=TOKEN"
            if token:
                why = "unknown token"
            self._error(HTTPStatus.UNAUTHORIZED, why, {"WWW-Authenticate": 'Bearer realm="plateau"'})
            return None
        return tenant, from_query

    @staticmethod
    def _link(path: str, token: str | None, **params: str) -> str:
        query = {**params, **({"token": token} if token else {})}
        return path + ("?" + urlencode(query) if query else "")

    # ------------------------------------------------------------------ routes
    def do_HEAD(self) -> None:  # noqa: N802 - http.server's name
        self.do_GET()

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        who = self._tenant(query)
        if who is None:
            return
        tenant, token = who
        path = parts.path
        try:
            if path == "/":
                self._runs(tenant, token, (query.get("page") or [""])[0])
            elif path.startswith("/runs/") and path.endswith(("/plot.svg", "/plot.png")):
                run_id = unquote(path[len("/runs/") : -len("/plot.svg")])
                self._plot(tenant, run_id, path[-3:])
            elif path.startswith("/runs/") and len(path) > len("/runs/"):
                self._run(tenant, token, unquote(path[len("/runs/") :]))
            else:
                self._error(HTTPStatus.NOT_FOUND, f"no page {path}")
        except RunNotFound as exc:
            self._error(HTTPStatus.NOT_FOUND, exc.message)
        except InvalidArgument as exc:
            self._error(HTTPStatus.BAD_REQUEST, exc.message)
        except StoreUnavailable as exc:
            self._error(HTTPStatus.SERVICE_UNAVAILABLE, exc.message)
        except PlateauError as exc:
            self._error(HTTPStatus.BAD_REQUEST, exc.message)
        except (BrokenPipeError, ConnectionResetError):
            pass
        except Exception as exc:  # a bug of ours: logged, and an answer rather than a dropped connection
            log.exception("runs page %s failed", path)
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"internal error ({type(exc).__name__}); please report it")

    def _runs(self, tenant: str, token: str | None, page_token: str) -> None:
        from plateau.engine import MAX_PAGE_SIZE

        runs, next_token = self.owner.engine.list_runs(tenant=tenant, page_size=MAX_PAGE_SIZE, page_token=page_token)
        rows = []
        for r in runs:
            action = r.last_action.value if r.last_action is not None else ""
            rows.append(
                f'<tr class="run" data-run="{_e(r.run_id)}"><td><a href="{_e(self._link("/runs/" + quote(r.run_id, safe=""), token))}">'
                f"{_e(r.run_id)}</a></td><td class=\"num\">{r.steps}</td>"
                f'<td class="action {action}">{_e(action)}</td><td>{_e(r.state.value)}</td>'
                f"<td class=\"time\">{'ended ' + _when(r.ended_at) if r.ended else 'open'}</td><td class=\"time\">{_when(r.updated)}</td>"
                f"<td>{_e((r.context or '')[:120])}</td></tr>"
            )
        title = "Runs" + (f" of {tenant}" if tenant else "")
        more = f'<p><a id="next" href="{_e(self._link("/", token, page=next_token))}">more runs</a></p>' if next_token else ""
        body = (
            f"<h1>{_e(title)}</h1>"
            + (
                '<table id="runs"><thead><tr><th>run</th><th>steps</th><th>last action</th><th>state</th><th>ended</th>'
                "<th>last change (UTC)</th><th>context</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
                if rows
                else '<p id="no-runs" class="note">No runs yet.</p>'
            )
            + more
        )
        self._page(HTTPStatus.OK, title, body)

    def _run(self, tenant: str, token: str | None, run_id: str) -> None:
        history = self.owner.history(tenant, run_id)
        run = history.run
        counts = {a: sum(1 for s in history.steps if s.verdict.action.value == a) for a in _ACTION_COLORS}
        picture = ""
        if history.steps:
            try:
                svg = self.owner.picture(tenant, history, "svg").decode("utf-8")
                picture = '<div class="timeline" id="timeline">' + svg[svg.index("<svg") :] + "</div>"
                if run.steps > PLOT_STEPS:
                    picture += f'<p class="note">The timeline shows the first {PLOT_STEPS} of {run.steps} steps; the table lists all.</p>'
            except ModuleNotFoundError:
                picture = '<p class="note" id="no-plot">The timeline needs matplotlib (pip install "plateau-breaker[plot]").</p>'
        rows = []
        for s in history.steps:
            v = s.verdict
            reasons = "".join(f'<li class="reason">{_e(r)}</li>' for r in v.reasons)
            rows.append(
                f'<tr class="step" data-action="{v.action.value}" id="row-{v.step_index}"><td class="num">{v.step_index}</td>'
                f'<td class="time">{_when(s.time)}</td>'
                f'<td class="action {v.action.value}">{v.action.value}</td><td>{v.state.value}</td>'
                f'<td class="num">{v.score:.3f}</td><td><ul class="reasons">{reasons}</ul></td><td>{_e(v.message or "")}</td></tr>'
            )
        summary = (
            f'<p id="summary">{run.steps} steps: {counts["continue"]} continue, {counts["steer"]} steer, {counts["trip"]} trip. '
            f"State {_e(run.state.value)}; {'ended ' + _when(run.ended_at) if run.ended else 'open'}; "
            f"started {_when(run.created)}, last change {_when(run.updated)} (UTC).</p>"
            + (f'<p class="note">Context: {_e(run.context)}</p>' if run.context else "")
        )
        table = (
            '<table id="steps"><thead><tr><th>step</th><th>time (UTC)</th><th>action</th><th>state</th><th>score</th>'
            "<th>reasons</th><th>message</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
        )
        back = f'<p><a id="back" href="{_e(self._link("/", token))}">all runs</a></p>'
        self._page(HTTPStatus.OK, f"Run {run_id}", f"{back}<h1>Run {_e(run_id)}</h1>{summary}{picture}{table}")

    def _plot(self, tenant: str, run_id: str, fmt: str) -> None:
        history = self.owner.history(tenant, run_id)
        if not history.steps:
            self._error(HTTPStatus.NOT_FOUND, f"run {run_id!r} has no steps to draw")
            return
        try:
            data = self.owner.picture(tenant, history, fmt)
        except ModuleNotFoundError:
            self._error(HTTPStatus.NOT_IMPLEMENTED, 'the timeline needs matplotlib (pip install "plateau-breaker[plot]")')
            return
        self._send(HTTPStatus.OK, data, "image/svg+xml" if fmt == "svg" else "image/png")
