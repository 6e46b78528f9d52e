"""The package's import contracts (issue 25).

- ``[tool.importlinter]`` in ``pyproject.toml``: only the service and client layers import
  :mod:`plateau.engine` (the stores and the analysis import :mod:`plateau.record` and
  :mod:`plateau.types`), checked with import-linter on the real import graph.
- No module of ``plateau/`` imports another module's private name (``from plateau.x import _y``):
  import-linter checks modules, not names, so this walks the source.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO

ROOT = REPO
PACKAGE = ROOT / "plateau"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_from(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute module an ``ImportFrom`` names (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def private_name_imports(package: Path = PACKAGE) -> list[str]:
    """``path:line: importer imports module._name`` for each import of another module's private
    name under ``package`` (dunder names are not private)."""
    found = []
    for path in sorted(package.rglob("*.py")):
        module = _module_name(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = _imported_from(node, module, path.name == "__init__.py")
            if source != "plateau" and not source.startswith("plateau."):
                continue
            for alias in node.names:
                name = alias.name
                if name.startswith("_") and not name.startswith("__") and source != module:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {module} imports {source}.{name}")
    return found


def test_no_module_imports_another_modules_private_name() -> None:
    assert private_name_imports() == []


def test_the_private_name_check_sees_a_violation(tmp_path: Path) -> None:
    """The walk finds absolute and relative imports of a private name, and allows dunders."""
    pkg = tmp_path / "plateau"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("_hidden = 1\n__version__ = '1'\n")
    (pkg / "sub" / "__init__.py").write_text("from ..a import _hidden\n")
    (pkg / "b.py").write_text("from plateau.a import _hidden, __version__\nfrom os import _exit\n")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        found = private_name_imports(pkg)
    finally:
        ROOT = saved
    assert found == [
        "plateau/b.py:1: plateau.b imports plateau.a._hidden",
        "plateau/sub/__init__.py:1: plateau.sub imports plateau.a._hidden",
    ]


def test_import_contracts_hold() -> None:
    """Every contract of ``[tool.importlinter]`` is kept (import-linter on this tree's import graph)."""
    pytest.importorskip("importlinter", reason="import-linter is a dev dependency: pip install 'plateau-breaker[dev]'")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()", "--no-cache", "--no-logo"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout, done.stdout
