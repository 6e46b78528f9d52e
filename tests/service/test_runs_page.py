"""``plateau runs``, ``plateau show``, ``plateau plot --remote`` and the runs page of
``plateau serve --ui-port``, against a real server process on loopback with tokens; the page is
rendered by headless Chromium (checked by its DOM structure and a screenshot's size and colours)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from plateau.cli import build_parser
from plateau.client import Client
from plateau.replay import load_runs, replay_run
from tests.support.paths import EXAMPLES, REPO

ROOT = REPO
TOKEN_A = "tok-a-0123456789abcdef"
TOKEN_B = "tok-b-0123456789abcdef"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class Served:
    target: str
    page: str
    proc: subprocess.Popen[str]
    verdicts: dict[str, list[Any]] = field(default_factory=dict)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``plateau serve`` with two tenants, a SQLite store and the runs page; the examples replayed
    through it by tenant alpha."""
    folder = tmp_path_factory.mktemp("serve")
    tokens = folder / "tokens"
    tokens.write_text(f"alpha:{TOKEN_A}\nbeta:{TOKEN_B}\n", encoding="utf-8")
    tokens.chmod(0o600)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLATEAU_")} | {"PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "plateau.cli", "serve", "--port", "0", "--store", f"sqlite:{folder / 'runs.sqlite'}",
         "--embedder", "hashing", "--tokens-file", str(tokens), "--ui-port", "0"],
        stderr=subprocess.PIPE, text=True, env=env,
    )
    target = page = ""
    assert proc.stderr is not None
    for line in proc.stderr:
        if "runs page on " in line:
            page = line.split("runs page on ", 1)[1].split()[0]
        if "serving plateau.v1.Plateau on " in line:
            target = line.rsplit(" ", 1)[1].strip()
            break
    assert target and page.startswith("http://127.0.0.1:"), (target, page)
    served = Served(target, page, proc)
    try:
        with Client.remote(target, token=TOKEN_A) as client:
            for run in load_runs([EXAMPLES]):
                verdicts = [v for _, _, v in replay_run(client, run)]
                served.verdicts[verdicts[0].run_id] = verdicts  # replay gives each run a fresh id
        yield served
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _plateau(*args: str, token: str | None = TOKEN_A) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLATEAU_")} | {"PYTHONPATH": str(ROOT)}
    if token is not None:
        env["PLATEAU_TOKEN"] = token
    return subprocess.run([sys.executable, "-m", "plateau.cli", *args], capture_output=True, text=True, env=env, timeout=120)


def _stuck(served: Served) -> str:
    return next(run_id for run_id in served.verdicts if run_id.startswith("example-stuck-failing-patch"))


def test_help_lists_runs_show_and_the_page() -> None:
    """runs and show are subcommands; serve has --ui-port; plot has --remote."""
    parser = build_parser({})
    text = parser.format_help()
    assert " runs " in text and " show " in text
    sub = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert "--ui-port" in sub["serve"].format_help() and "--token" in sub["show"].format_help()
    assert "--remote" in sub["plot"].format_help() and "--tls-ca" in sub["runs"].format_help()


def test_show_json_after_a_replay_lists_every_steps_verdict(served: Served) -> None:
    """plateau show RUN --json lists each step's action, reasons, score and time, equal to what the replay received."""
    for run_id, verdicts in served.verdicts.items():
        out = _plateau("show", run_id, "--remote", served.target, "--json")
        assert out.returncode == 0, out.stderr
        doc = json.loads(out.stdout)
        assert doc["run"]["run_id"] == run_id and doc["run"]["steps"] == len(verdicts) == len(doc["steps"])
        for got, want in zip(doc["steps"], verdicts, strict=True):
            assert (got["step"], got["action"], got["reasons"], got["score"], got["message"]) == (
                want.step_index, want.action.value, list(want.reasons), want.score, want.message
            )
            assert isinstance(got["time"], float)
    table = _plateau("show", _stuck(served), "--remote", served.target)
    assert table.returncode == 0 and "tool.repeat" in table.stdout and "trip" in table.stdout


def test_runs_lists_the_tenants_runs_only(served: Served) -> None:
    """plateau runs: the caller's tenant's runs, newest first; another tenant sees none; no token is refused (exit 2)."""
    out = _plateau("runs", "--remote", served.target, "--json")
    assert out.returncode == 0, out.stderr
    runs = json.loads(out.stdout)["runs"]
    assert sorted(r["run_id"] for r in runs) == sorted(served.verdicts)
    assert [r["created"] for r in runs] == sorted((r["created"] for r in runs), reverse=True)
    assert {r["run_id"]: r["steps"] for r in runs} == {k: len(v) for k, v in served.verdicts.items()}
    table = _plateau("runs", "--remote", served.target)
    assert table.returncode == 0 and all(run_id in table.stdout for run_id in served.verdicts)
    assert json.loads(_plateau("runs", "--remote", served.target, "--json", token=TOKEN_B).stdout)["runs"] == []
    refused = _plateau("runs", "--remote", served.target, token=None)
    assert refused.returncode == 2 and "token" in refused.stderr
    missing = _plateau("show", _stuck(served), "--remote", served.target, token=TOKEN_B)
    assert missing.returncode == 2 and "no run" in missing.stderr


def test_plot_remote_draws_the_runs_history(served: Served, tmp_path: Path) -> None:
    """plateau plot --remote TARGET RUN writes the plot's picture with one verdict mark per step."""
    pytest.importorskip("matplotlib")
    run_id = _stuck(served)
    out = tmp_path / "run.svg"
    done = _plateau("plot", "--remote", served.target, run_id, "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "tripped at step" in done.stdout
    marks = {f'id="step-{i}"' for i in range(len(served.verdicts[run_id]))}
    svg = out.read_text(encoding="utf-8")
    assert all(m in svg for m in marks) and f'id="step-{len(marks)}"' not in svg
    assert _plateau("plot", "--remote", served.target, run_id, "--preset", "chat").returncode == 2


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str, dict[str, str]]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read().decode("utf-8"), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8"), dict(exc.headers)


def test_the_page_needs_a_token_and_shows_only_the_tenants_runs(served: Served) -> None:
    """No token: 401; the header or ?token= works; another tenant's run is 404; nothing is cached or referred."""
    status, body, headers = _get(served.page)
    assert status == 401 and "Bearer" in headers.get("WWW-Authenticate", "")
    assert _get(served.page + "?token=tok-z-0123456789abcdef")[0] == 401
    status, body, headers = _get(served.page, {"Authorization": f"Bearer {TOKEN_A}"})
    assert status == 200 and all(run_id in body for run_id in served.verdicts)
    assert headers["Cache-Control"] == "no-store" and headers["Referrer-Policy"] == "no-referrer" and "script" not in body
    status, body, _ = _get(served.page + f"?token={TOKEN_B}")
    assert status == 200 and 'id="no-runs"' in body
    run_page = served.page + "runs/" + quote(_stuck(served), safe="")
    assert _get(run_page + f"?token={TOKEN_B}")[0] == 404
    status, svg, headers = _get(run_page + "/plot.svg", {"Authorization": f"Bearer {TOKEN_A}"})
    assert status == 200 and headers["Content-Type"] == "image/svg+xml" and 'id="step-0"' in svg
    assert _get(served.page + "nowhere", {"Authorization": f"Bearer {TOKEN_A}"})[0] == 404


class _Dom(HTMLParser):
    """The elements of a dumped DOM: (tag, attributes) in order, and the text of each reason."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.reasons: list[str] = []
        self._in_reason = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.elements.append((tag, a))
        self._in_reason = tag == "li" and a.get("class") == "reason"

    def handle_data(self, data: str) -> None:
        if self._in_reason:
            self.reasons.append(data.strip())
            self._in_reason = False

    def ids(self, prefix: str) -> list[str]:
        return [a["id"] for _, a in self.elements if a.get("id", "").startswith(prefix)]


def _chromium(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CHROMIUM or "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args],
        capture_output=True, text=True, timeout=120,
    )


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; .ci/run installs it)")
def test_the_page_renders_in_headless_chromium(served: Served, tmp_path: Path) -> None:
    """Chromium renders the list (every run linked) and one run (one timeline mark and one row per step, its reasons);
    the screenshot has the window's size and the verdict colours."""
    pytest.importorskip("matplotlib")
    listing = _Dom()
    done = _chromium("--dump-dom", served.page + f"?token={TOKEN_A}")
    assert done.returncode == 0, done.stderr[-2000:]
    listing.feed(done.stdout)
    rows = [a["data-run"] for tag, a in listing.elements if tag == "tr" and a.get("class") == "run"]
    assert sorted(rows) == sorted(served.verdicts)
    links = [a["href"] for tag, a in listing.elements if tag == "a" and a.get("href", "").startswith("/runs/")]
    assert len(links) == len(served.verdicts) and all(f"token={TOKEN_A}" in h for h in links)

    run_id = _stuck(served)
    verdicts = served.verdicts[run_id]
    url = served.page + "runs/" + quote(run_id, safe="") + f"?token={TOKEN_A}"
    page = _Dom()
    done = _chromium("--dump-dom", url)
    assert done.returncode == 0, done.stderr[-2000:]
    page.feed(done.stdout)
    assert page.ids("timeline") == ["timeline"]
    assert sorted(page.ids("step-"), key=lambda s: int(s.split("-")[1])) == [f"step-{i}" for i in range(len(verdicts))]
    assert page.ids("row-") == [f"row-{i}" for i in range(len(verdicts))]
    actions = [a["data-action"] for tag, a in page.elements if tag == "tr" and a.get("class") == "step"]
    assert actions == [v.action.value for v in verdicts] and {"steer", "trip"} <= set(actions)
    assert page.reasons == [r for v in verdicts for r in v.reasons]

    shot = tmp_path / "run.png"
    done = _chromium("--window-size=1200,1500", f"--screenshot={shot}", url)
    assert done.returncode == 0 and shot.exists(), done.stderr[-2000:]
    from PIL import Image

    with Image.open(shot) as image:
        assert image.size == (1200, 1500)
        colours = {c for _, c in image.convert("RGB").getcolors(maxcolors=1 << 20) or []}
    assert len(colours) > 50  # not blank
    near = lambda want: any(sum(abs(a - b) for a, b in zip(c, want, strict=True)) < 30 for c in colours)  # noqa: E731
    assert near((0x3A, 0x9D, 0x5D)) and near((0xF0, 0xA0, 0x30)) and near((0xD6, 0x27, 0x28))  # continue, steer, trip


def test_runs_show_and_the_page_over_tls_with_tokens(certs: Path) -> None:  # noqa: F811 - the imported fixture
    """Against a TLS server with tokens: runs and show with --tls-ca and --token; the page serves HTTPS with the
    server's certificate (a client trusting the CA reads it; plain HTTP gets no page)."""
    import ssl

    from plateau.auth import ServerTls, TokenTable
    from plateau.cli import ServerThread
    from plateau.embed import HashingEmbedder
    from plateau.engine import Engine
    from plateau.ui import RunsPage

    engine = Engine(embedder=HashingEmbedder())
    auth = TokenTable([("alpha", TOKEN_A)])
    tls = ServerTls.from_files(certs / "server.pem", certs / "server.key")
    with ServerThread(engine, tls=tls, auth=auth) as server, RunsPage(
        engine, auth, certfile=str(certs / "server.pem"), keyfile=str(certs / "server.key")
    ) as page:
        target = f"localhost:{server.port}"
        from plateau.auth import ClientTls

        with Client.remote(target, token=TOKEN_A, tls=ClientTls.from_files(ca=certs / "ca.pem")) as client:
            verdicts = [client.observe("tls-run", {"index": i, "text": "Running the tests again.", "tool": "pytest"})
                        for i in range(6)]
        tls_args = ("--remote", target, "--tls-ca", str(certs / "ca.pem"))
        shown = _plateau("show", "tls-run", *tls_args, "--json", "--token", TOKEN_A, token=None)
        assert shown.returncode == 0, shown.stderr
        assert [s["action"] for s in json.loads(shown.stdout)["steps"]] == [v.action.value for v in verdicts]
        listed = _plateau("runs", *tls_args, "--json")
        assert [r["run_id"] for r in json.loads(listed.stdout)["runs"]] == ["tls-run"]
        assert _plateau("runs", "--remote", target, "--json").returncode == 2  # plaintext to a TLS port
        assert page.url.startswith("https://")
        context = ssl.create_default_context(cafile=str(certs / "ca.pem"))
        request = urllib.request.Request(f"https://localhost:{page.port}/runs/tls-run", headers={"Authorization": f"Bearer {TOKEN_A}"})
        with urllib.request.urlopen(request, timeout=60, context=context) as response:
            body = response.read().decode("utf-8")
        assert response.status == 200 and body.count('<tr class="step"') == len(verdicts)
        with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
            urllib.request.urlopen(f"http://localhost:{page.port}/", timeout=10).read()


def test_runs_and_show_need_neither_numpy_nor_torch(served: Served) -> None:
    """The client side of looking at runs works on a client-only install (numpy and torch made unimportable)."""
    code = (
        "import sys\n"
        "for name in ('numpy', 'torch', 'sentence_transformers', 'matplotlib'):\n"
        "    sys.modules[name] = None\n"
        "from plateau.cli import main\n"
        f"sys.exit(main(['show', {_stuck(served)!r}, '--remote', {served.target!r}, '--json']))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLATEAU_")} | {"PYTHONPATH": str(ROOT), "PLATEAU_TOKEN": TOKEN_A}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["steps"]) == len(served.verdicts[_stuck(served)])


def test_show_after_plateau_replay_remote_lists_what_the_replay_printed() -> None:
    """plateau replay --remote, then plateau runs and plateau show --json: the same verdict for every step."""
    from plateau.cli import ServerThread
    from plateau.embed import HashingEmbedder
    from plateau.engine import Engine

    with ServerThread(Engine(embedder=HashingEmbedder())) as server:
        replayed = _plateau("replay", str(EXAMPLES / "example-stuck-failing-patch.json"), "--remote", server.target, "--jsonl",
                            token=None)
        assert replayed.returncode == 0, replayed.stderr
        rows = [json.loads(line) for line in replayed.stdout.splitlines()]
        runs = json.loads(_plateau("runs", "--remote", server.target, "--json", token=None).stdout)["runs"]
        assert len(runs) == 1 and runs[0]["run_id"].startswith("example-stuck-failing-patch") and runs[0]["steps"] == len(rows)
        shown = _plateau("show", runs[0]["run_id"], "--remote", server.target, "--json", token=None)
        steps = json.loads(shown.stdout)["steps"]
        assert [(s["step"], s["action"], s["reasons"], s["score"]) for s in steps] == [
            (r["step"], r["action"], r["reasons"], r["score"]) for r in rows
        ]
        assert {"steer", "trip"} <= {s["action"] for s in steps}
