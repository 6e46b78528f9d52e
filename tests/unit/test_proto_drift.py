"""The committed generated code under plateau/v1/ matches the proto."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.support.paths import REPO
from tests.support.scripts import load_script

ROOT = REPO


def test_generated_code_matches_the_proto(tmp_path: Path) -> None:
    """Regenerating from proto/ gives byte-identical files to the committed ones."""
    if importlib.util.find_spec("grpc_tools") is None:
        pytest.skip("grpcio-tools is not installed (pip install 'plateau[dev]')")
    gen = load_script("gen_proto")
    generated = gen.generate(tmp_path)
    assert generated, "protoc produced nothing"
    for path in generated:
        committed = ROOT / path.relative_to(tmp_path)
        assert committed.is_file(), f"{committed} is missing: run python scripts/gen_proto.py"
        assert committed.read_bytes() == path.read_bytes(), f"{committed} drifted from the proto: run python scripts/gen_proto.py"
