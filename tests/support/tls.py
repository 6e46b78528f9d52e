"""Test certificates made with the ``openssl`` command: a CA, a server certificate for
localhost/127.0.0.1 and a client certificate (EC P-256, valid two days)."""

from __future__ import annotations

import subprocess
from pathlib import Path

__all__ = ["make_certs"]


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certs(d: Path) -> Path:
    """Write ``ca.pem``/``ca.key``, ``server.pem``/``server.key`` and ``client.pem``/``client.key`` into ``d``; return ``d``.

    Raises ``subprocess.CalledProcessError`` when openssl fails, ``FileNotFoundError`` when it is not installed.
    """
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=plateau-test-ca", cwd=d)
    (d / "server.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
    (d / "client.ext").write_text("extendedKeyUsage=clientAuth\n")
    for name in ("server", "client"):
        _openssl("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN=plateau-test-{name}", cwd=d)
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                 "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext", cwd=d)
    return d
