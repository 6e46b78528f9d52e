"""Bearer-token auth, tenant isolation, and TLS / mutual TLS with certificates generated for the test."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from plateau.auth import ClientTls, ServerTls, TokenTable
from plateau.cli import ServerThread
from plateau.client import Client
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.errors import InvalidArgument, PlateauError, RunNotFound, ServiceUnavailable, Unauthenticated
from plateau.types import Step
from tests.support.paths import REPO

TOKEN_A = "tok-a-0123456789abcdef"
TOKEN_B = "tok-b-0123456789abcdef"


def test_token_table_parsing_and_lookup(tmp_path: Path) -> None:
    """A token file maps tokens to tenants; short tokens, bad tenants and empty tables are refused without echoing tokens."""
    path = tmp_path / "tokens"
    path.write_text(f"# tenants\nalpha:{TOKEN_A}\nbeta:{TOKEN_B}  # rotated monthly\n\n", encoding="utf-8")
    table = TokenTable.from_file(path)
    assert table.tenant_for(TOKEN_A) == "alpha" and table.tenant_for(TOKEN_B) == "beta"
    assert table.tenant_for("tok-c-0123456789abcdef") is None and table.tenant_for("") is None
    assert table.authenticate([("authorization", f"Bearer {TOKEN_B}")]) == "beta"
    for metadata in ([], [("authorization", TOKEN_A)], [("authorization", "Bearer nope-nope-nope-nope")]):
        with pytest.raises(Unauthenticated):
            table.authenticate(metadata)
    env = TokenTable.from_env({"PLATEAU_TOKENS": f"alpha:{TOKEN_A},beta:{TOKEN_B}"})
    assert env is not None and env.tenants == {"alpha", "beta"}
    assert TokenTable.from_env({}) is None
    for bad in ("alpha:short", f"al pha:{TOKEN_A}", f":{TOKEN_A}", "# nothing", "no-colon"):
        with pytest.raises(InvalidArgument) as info:
            TokenTable.parse(bad)
        secret = bad.partition(":")[2]
        assert info.value.field == "tokens" and (not secret or secret not in info.value.message)


@pytest.fixture(scope="module")
def auth_server() -> Iterator[str]:
    """A live server that requires tokens of tenants alpha and beta."""
    table = TokenTable([("alpha", TOKEN_A), ("beta", TOKEN_B)])
    with ServerThread(Engine(embedder=HashingEmbedder()), auth=table) as server:
        yield server.target


def test_calls_without_a_valid_token_are_unauthenticated(auth_server: str) -> None:
    """No token or an unknown token is UNAUTHENTICATED for every Plateau call; health stays open."""
    for token in (None, "tok-z-0123456789abcdef"):
        with Client.remote(auth_server, token=token) as client:
            for call in (
                lambda c: c.observe("r", Step(index=0, text="x")),
                lambda c: list(c.observe_many("r", [Step(index=0, text="x")])),
                lambda c: c.get_run("r"),
                lambda c: c.reset_run("r"),
                lambda c: c.end_run("r"),
                lambda c: list(c.guard_stream(["abc"])),
            ):
                with pytest.raises(Unauthenticated):
                    call(client)
    with grpc.insecure_channel(auth_server) as channel:
        status = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service="")).status
    assert status == health_pb2.HealthCheckResponse.SERVING


def test_one_tenant_cannot_see_or_touch_another_tenants_run(auth_server: str) -> None:
    """Tenant beta gets NOT_FOUND for alpha's run on get/reset/end, and its own steps under that id make a separate run."""
    with Client.remote(auth_server, token=TOKEN_A) as alpha, Client.remote(auth_server, token=TOKEN_B) as beta:
        for i in range(3):
            alpha.observe("shared-id", Step(index=i, text=f"alpha step {i}"))
        before = alpha.get_run("shared-id")
        for call in (beta.get_run, beta.reset_run, beta.end_run):
            with pytest.raises(RunNotFound) as info:
                call("shared-id")
            assert "alpha" not in info.value.message
        with pytest.raises(RunNotFound) as missing:
            beta.get_run("never-existed")
        assert str(missing.value).replace("never-existed", "shared-id") == str(info.value)  # nothing tells the two apart
        v = beta.observe("shared-id", Step(index=0, text="beta's own first step"))
        assert v.step_index == 0 and beta.get_run("shared-id").steps == 1
        assert alpha.get_run("shared-id") == before


# ------------------------------------------------------------------------------ TLS
def test_tls_server_and_client(certs: Path) -> None:
    """Over TLS a client trusting the test CA works; a plaintext client cannot talk to the TLS port."""
    tls = ServerTls.from_files(certs / "server.pem", certs / "server.key")
    with ServerThread(Engine(embedder=HashingEmbedder()), tls=tls) as server:
        target = f"localhost:{server.port}"
        with Client.remote(target, tls=ClientTls.from_files(ca=certs / "ca.pem")) as client:
            assert client.observe("tls", Step(index=0, text="over TLS")).step_index == 0
        with Client.remote(target, timeout=5) as plain, pytest.raises(ServiceUnavailable):
            plain.get_run("tls")


def test_mutual_tls_requires_a_client_certificate_and_combines_with_tokens(certs: Path) -> None:
    """With a client CA the server refuses clients without a certificate; with one (and a token) calls work."""
    tls = ServerTls.from_files(certs / "server.pem", certs / "server.key", client_ca=certs / "ca.pem")
    table = TokenTable([("alpha", TOKEN_A)])
    with ServerThread(Engine(embedder=HashingEmbedder()), tls=tls, auth=table) as server:
        target = f"localhost:{server.port}"
        with Client.remote(target, timeout=5, token=TOKEN_A, tls=ClientTls.from_files(ca=certs / "ca.pem")) as anonymous:
            with pytest.raises(PlateauError) as info:
                anonymous.observe("m", Step(index=0, text="x"))
            assert info.value.code == "UNAVAILABLE"
        mine = ClientTls.from_files(ca=certs / "ca.pem", cert=certs / "client.pem", key=certs / "client.key")
        with Client.remote(target, token=TOKEN_A, tls=mine) as client:
            assert client.observe("m", Step(index=0, text="x")).step_index == 0
        with Client.remote(target, tls=mine) as tokenless, pytest.raises(Unauthenticated):
            tokenless.get_run("m")
    with pytest.raises(InvalidArgument):
        ClientTls.from_files(ca=certs / "ca.pem", cert=certs / "client.pem")


def test_the_demo_agent_reaches_a_server_that_requires_a_token(auth_server: str, tmp_path: Path) -> None:
    """``python -m demo.harness --remote … --token …`` plays the examples against a server with
    auth (without the token every call would be UNAUTHENTICATED); ``$PLATEAU_TOKEN`` works too."""
    import os
    import sys

    root = REPO
    base = [sys.executable, "-m", "demo.harness", "--remote", auth_server, str(root / "examples" / "example-stuck-failing-patch.json")]
    env = dict(os.environ, PYTHONPATH=str(root))
    env.pop("PLATEAU_TOKEN", None)
    denied = subprocess.run(base, cwd=root, capture_output=True, text=True, env=env, timeout=120)
    assert denied.returncode != 0 and "token" in (denied.stdout + denied.stderr).lower()
    for args, extra in ((["--token", TOKEN_A], {}), ([], {"PLATEAU_TOKEN": TOKEN_A})):
        done = subprocess.run([*base, *args], cwd=root, capture_output=True, text=True, env={**env, **extra}, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "tripped" in done.stdout
