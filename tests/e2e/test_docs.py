"""The API reference builds from the docstrings (pdoc) with a page per public module."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import REPO
from tests.support.scripts import load_script

ROOT = REPO


def test_api_reference_builds_with_a_page_per_module(tmp_path: Path) -> None:
    """scripts/gen_docs.py writes one HTML page per listed module; the top page documents Client and AsyncClient."""
    pytest.importorskip("pdoc")
    pytest.importorskip("agents")
    pytest.importorskip("langgraph")
    gen = load_script("gen_docs")
    pages = gen.generate(tmp_path)
    names = {p.relative_to(tmp_path).with_suffix("").as_posix().replace("/", ".") for p in pages}
    assert set(gen.MODULES) <= names
    top = (tmp_path / "plateau.html").read_text(encoding="utf-8")
    assert "AsyncClient" in top and "Client" in top
    committed = ROOT / "docs" / "api"
    assert {p.relative_to(committed).as_posix() for p in committed.rglob("*.html")} == {p.relative_to(tmp_path).as_posix() for p in pages}
