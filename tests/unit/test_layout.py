"""The package's import contracts (issue 25).

- ``[tool.importlinter]`` in ``pyproject.toml``: only the service and client layers import
  :mod:`plateau.engine` (the stores and the analysis import :mod:`plateau.record` and
  :mod:`plateau.types`), checked with import-linter on the real import graph.
- No module of ``plateau/`` imports another module's private name (``from plateau.x import _y``):
  import-linter checks modules, not names, so this walks the source.
- No test file imports another test file or a ``conftest.py`` (helpers live in ``tests/support/``,
  fixtures in a ``conftest.py``), and every test that calls ``shared_path`` carries the ``shared``
  marker (so a run without ``../shared`` names it in its summary).
"""

from __future__ import annotations

import ast
import os
import re
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


# ------------------------------------------------------------------------------ tests/


def _is_test_module(name: str) -> bool:
    parts = name.split(".")
    return parts[0] == "tests" and (parts[-1].startswith("test_") or parts[-1] == "conftest")


_IMPORT_IN_TEXT = re.compile(r"^\s*(?:from|import)\s+(tests(?:\.\w+)*)", re.M)


def imports_of_test_modules(root: Path) -> list[str]:
    """``path:line: importer imports module`` for each import, in a file under ``root/tests``, of a
    test module or a ``conftest`` (relative imports resolved; code in string literals, as run by a
    subprocess, is read too)."""
    found = []
    for path in sorted((root / "tests").rglob("*.py")):
        module = ".".join(path.relative_to(root).with_suffix("").parts)
        is_package = path.name == "__init__.py"
        if is_package:
            module = module.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            sources: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = _imported_from(node, module, is_package)
                sources = [base] + [f"{base}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                sources = [a.name for a in node.names]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                sources = _IMPORT_IN_TEXT.findall(node.value)
            for source in sources:
                if _is_test_module(source):
                    found.append(f"{path.relative_to(root)}:{node.lineno}: {module} imports {source}")
                    break
    return found


def unmarked_shared_tests(root: Path) -> list[str]:
    """``path:line: name`` for each test function under ``root/tests`` that calls ``shared_path``
    without the ``shared`` marker (on the function or the module's ``pytestmark``)."""
    found = []
    for path in sorted((root / "tests").rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        module_marked = any(
            isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in n.targets)
            and "mark.shared" in ast.unparse(n.value) for n in tree.body
        )
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or not node.name.startswith("test_"):
                continue
            calls = any(isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "shared_path" for c in ast.walk(node))
            marked = module_marked or any(ast.unparse(d).startswith("pytest.mark.shared") for d in node.decorator_list)
            if calls and not marked:
                found.append(f"{path.relative_to(root)}:{node.lineno}: {node.name}")
    return found


def test_no_test_file_imports_another_test_file() -> None:
    assert imports_of_test_modules(ROOT) == []


def test_every_test_that_reads_shared_carries_the_marker() -> None:
    assert unmarked_shared_tests(ROOT) == []


def test_the_test_import_check_sees_a_violation(tmp_path: Path) -> None:
    """Absolute, relative and in-text imports of a test module or a conftest are found; support is allowed;
    a test reading ../shared without the marker is found."""
    unit = tmp_path / "tests" / "unit"
    (tmp_path / "tests" / "support").mkdir(parents=True)
    unit.mkdir()
    pkg = "tests.unit"  # spelt apart so that this file's own strings hold no such import
    (unit / "test_a.py").write_text(
        "from tests.support.paths import shared_path\n"
        "from .test_b import helper\n"
        "from ..conftest import ROOT\n"
        f"import {pkg}.test_b\n"
        f"SCRIPT = 'x = 1\\nfrom {pkg}.test_b import helper\\n'\n"
        "def test_x():\n    shared_path('benchmark')\n"
    )
    (unit / "test_b.py").write_text(
        "import pytest\nfrom tests.support import paths\nfrom tests import support\n"
        "@pytest.mark.shared('benchmark')\ndef test_y():\n    paths.shared_path('benchmark')\n"
        "@pytest.mark.shared('data')\ndef test_z():\n    shared_path('data')\n"
    )
    assert imports_of_test_modules(tmp_path) == [
        "tests/unit/test_a.py:2: tests.unit.test_a imports tests.unit.test_b",
        "tests/unit/test_a.py:3: tests.unit.test_a imports tests.conftest",
        "tests/unit/test_a.py:4: tests.unit.test_a imports tests.unit.test_b",
        "tests/unit/test_a.py:5: tests.unit.test_a imports tests.unit.test_b",
    ]
    assert unmarked_shared_tests(tmp_path) == ["tests/unit/test_a.py:6: test_x"]
