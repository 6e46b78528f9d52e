"""Fixtures of the service tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.tls import make_certs


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A test CA, a server certificate for localhost/127.0.0.1 and a client certificate (openssl CLI)."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed (needed to generate test certificates)")
    return make_certs(tmp_path_factory.mktemp("certs"))
