"""The CLI against a secured server: ``--token``/``PLATEAU_TOKEN`` and ``--tls-ca``/``--tls-cert``/``--tls-key``
on every command that talks to a server, and the default port of a target without one.

The server is a real ``plateau serve`` process (tokens and TLS) on a loopback socket; its certificates
are generated here with the ``cryptography`` package.
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from plateau import cli
from plateau.client import DEFAULT_PORT, with_port
from plateau.errors import InvalidArgument
from tests.support.paths import REPO

ROOT = REPO
TOKEN = "cli-remote-test-token-0123456789"
STEPS_IN_EXAMPLES = sum(len(json.loads(p.read_text(encoding="utf-8"))["input"]) for p in (ROOT / "examples").glob("*.json"))


def _write_certs(folder: Path) -> None:
    """A self-signed CA (``ca.pem``) and a server certificate it signs for localhost/127.0.0.1 (``server.pem``/``server.key``)."""
    x509 = pytest.importorskip("cryptography.x509")
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)

    def name(cn: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder().subject_name(name("plateau-cli-test-ca")).issuer_name(name("plateau-cli-test-ca"))
        .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
                                     key_agreement=False, key_cert_sign=True, crl_sign=True, encipher_only=False, decipher_only=False),
                       critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    server = (
        x509.CertificateBuilder().subject_name(name("localhost")).issuer_name(ca.subject)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                       critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    (folder / "ca.pem").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (folder / "server.pem").write_bytes(server.public_bytes(serialization.Encoding.PEM))
    (folder / "server.key").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != cli.TOKEN_ENV}
    return dict(env, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1", **extra)


def _plateau(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    code = f"import sys\nfrom plateau.cli import main\nsys.exit(main({list(argv)!r}))"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env or _env(), capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A ``plateau serve`` process with a token file and TLS on a free loopback port; yields (target, cert folder)."""
    folder = tmp_path_factory.mktemp("tls")
    _write_certs(folder)
    (folder / "tokens").write_text(f"team-a:{TOKEN}\n", encoding="utf-8")
    argv = ["serve", "--port", "0", "--store", "memory", "--embedder", "hashing", "--tokens-file", str(folder / "tokens"),
            "--tls-cert", str(folder / "server.pem"), "--tls-key", str(folder / "server.key")]
    code = f"import sys\nfrom plateau.cli import main\nsys.exit(main({argv!r}))"
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=_env(), stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    target = None
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if "serving plateau.v1.Plateau on " in line:
            target = line.rsplit(" ", 1)[1].strip()
            break
    if target is None:
        proc.kill()
        pytest.fail("the server did not start: " + "".join(seen))
    assert seen[-2].strip() == "plateau: TLS, 1 tenant"
    try:
        yield target, folder
    finally:
        proc.terminate()
        proc.communicate(timeout=60)


def test_replay_remote_with_token_and_tls(secured: tuple[str, Path]) -> None:
    """``replay --remote --token --tls-ca`` gets a verdict for every step of the examples from the TLS server."""
    target, folder = secured
    out = _plateau("replay", "examples", "--jsonl", "--remote", target, "--token", TOKEN, "--tls-ca", str(folder / "ca.pem"))
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(rows) == STEPS_IN_EXAMPLES and {r["action"] for r in rows} <= {"continue", "steer", "trip"}


def test_the_token_comes_from_plateau_token(secured: tuple[str, Path]) -> None:
    """Without ``--token``, ``$PLATEAU_TOKEN`` is sent; ``--token`` wins over it."""
    target, folder = secured
    out = _plateau("replay", "examples", "--jsonl", "--remote", target, "--tls-ca", str(folder / "ca.pem"), env=_env(PLATEAU_TOKEN=TOKEN))
    assert out.returncode == 0, out.stderr
    assert len(out.stdout.splitlines()) == STEPS_IN_EXAMPLES
    wrong = _plateau("replay", "examples", "--remote", target, "--tls-ca", str(folder / "ca.pem"), "--token", "x" * 20,
                     env=_env(PLATEAU_TOKEN=TOKEN))
    assert wrong.returncode == 2 and "unknown token" in wrong.stderr


def test_without_a_token_the_command_fails_in_one_line(secured: tuple[str, Path]) -> None:
    """The same replay without a token exits 2 with one line on stderr saying a bearer token is required."""
    target, folder = secured
    out = _plateau("replay", "examples", "--remote", target, "--tls-ca", str(folder / "ca.pem"))
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("plateau: ") and "bearer token" in lines[0] and "Traceback" not in out.stderr


def test_guard_remote_with_token_and_tls(secured: tuple[str, Path], tmp_path: Path) -> None:
    """``guard --remote`` takes the same options: a looping stream fires through the TLS server."""
    target, folder = secured
    case = {"id": "loop", "level": "stream", "input": ["The answer is 42. "] * 40, "expected": {"verdict": "trip"}}
    (tmp_path / "loop.json").write_text(json.dumps(case), encoding="utf-8")
    out = _plateau("guard", str(tmp_path), "--jsonl", "--remote", target, "--token", TOKEN, "--tls-ca", str(folder / "ca.pem"))
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert rows and rows[-1]["fired"] is True and all(r["case"] == "loop" for r in rows)
    bare = _plateau("guard", str(tmp_path), "--remote", target, "--tls-ca", str(folder / "ca.pem"))
    assert bare.returncode == 2 and len(bare.stderr.strip().splitlines()) == 1 and "bearer token" in bare.stderr


def test_the_demo_agent_takes_the_same_options(secured: tuple[str, Path]) -> None:
    """``python -m demo.harness --remote --token --tls-ca`` plays the examples against the TLS server; its usage names it."""
    target, folder = secured
    code = "import sys\nfrom demo.harness import main\nsys.exit(main(sys.argv[1:]))"
    argv = ["examples", "--remote", target, "--token", TOKEN, "--tls-ca", str(folder / "ca.pem")]
    out = subprocess.run([sys.executable, "-c", code, *argv], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert f"asking {target} after every step" in out.stdout
    waited = subprocess.run([sys.executable, "-c", code, "--remote", target, "--tls-ca", str(folder / "ca.pem"), "--wait-only",
                             "--wait", "30"], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=120)
    assert waited.returncode == 0, waited.stderr  # the health check over TLS
    helped = subprocess.run([sys.executable, "-c", code, "--help"], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=60)
    assert helped.stdout.startswith("usage: python -m demo.harness ") and "--tls-cert" in helped.stdout and "--token" in helped.stdout


@pytest.mark.parametrize("command", [["replay", "examples"], ["guard", "examples"]])
@pytest.mark.parametrize("option", [["--token", TOKEN], ["--tls-ca", "ca.pem"], ["--tls-cert", "c.pem"], ["--tls-key", "k.pem"]])
def test_connection_options_without_remote_are_a_usage_error(command: list[str], option: list[str],
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A connection option without ``--remote`` exits 2 naming it (nothing runs in process)."""
    assert cli.main([*command, *option]) == 2
    err = capsys.readouterr().err
    assert option[0] in err and "--remote" in err


def test_every_server_command_has_the_connection_options() -> None:
    """``replay`` and ``guard`` list ``--token`` and the three ``--tls-*`` options in their help."""
    parser = cli.build_parser({})
    sub = next(a for a in parser._actions if a.dest == "command")
    for name in ("replay", "guard"):
        text = sub.choices[name].format_help()  # type: ignore[index]
        assert all(o in text for o in ("--token", "--tls-ca", "--tls-cert", "--tls-key", "PLATEAU_TOKEN", "50051")), name


def test_a_target_without_a_port_uses_50051() -> None:
    """A host alone gets port 50051 (never gRPC's 443); a port given is kept; a bad port names the target."""
    assert DEFAULT_PORT == 50051
    assert with_port("plateau.internal") == "plateau.internal:50051"
    assert with_port("10.0.0.5") == "10.0.0.5:50051"
    assert with_port("::1") == with_port("[::1]") == "[::1]:50051"
    assert with_port("plateau.internal:7000") == "plateau.internal:7000" and with_port("[::1]:7000") == "[::1]:7000"
    assert with_port("dns:///plateau.internal:7000") == "dns:///plateau.internal:7000"
    for bad in ("host:https", "host:0", "host:70000", "[::1", "a:b:c", " "):
        with pytest.raises(InvalidArgument) as exc:
            with_port(bad)
        assert str(exc.value).startswith("target")


def test_a_client_without_a_port_reaches_a_server_on_50051() -> None:
    """``Client.remote("127.0.0.1")`` talks to a server listening on 50051 (skipped when 50051 is taken)."""
    import socket

    from plateau.cli import ServerThread
    from plateau.client import Client
    from plateau.embed import HashingEmbedder
    from plateau.engine import Engine

    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", DEFAULT_PORT))
        except OSError:
            pytest.skip("port 50051 is in use on this machine")
    with ServerThread(Engine(embedder=HashingEmbedder()), "127.0.0.1", DEFAULT_PORT), Client.remote("127.0.0.1", timeout=30) as client:
        assert client.observe("r", {"index": 0, "text": "Reading the config."}).step_index == 0
