"""The test suite's own layout (issue 25): no test file imports another test file or a
``conftest.py`` (a helper two files use lives in ``tests/support/``, a fixture in the
``conftest.py`` of the folder that uses it), and every test that calls ``shared_path`` carries
the ``shared`` marker (so a run without ``../shared`` names it in its summary)."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

from tests.support.paths import REPO

_IMPORT_IN_TEXT = re.compile(r"^\s*(?:from|import)\s+(tests(?:\.\w+)*)", re.M)


def _is_test_module(name: str) -> bool:
    parts = name.split(".")
    return parts[0] == "tests" and (parts[-1].startswith("test_") or parts[-1] == "conftest")


def imports_of_test_modules(root: Path) -> list[str]:
    """``path:line: importer imports module`` for each import, in a file under ``root/tests``, of a
    test module or a ``conftest`` (relative imports resolved; code in string literals, as run by a
    subprocess, is read too)."""
    found = []
    for path in sorted((root / "tests").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        package = module if parts[-1] == "__init__" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            sources: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = importlib.util.resolve_name("." * node.level + (node.module or ""), package) if node.level else node.module or ""
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
    assert imports_of_test_modules(REPO) == []


def test_every_test_that_reads_shared_carries_the_marker() -> None:
    assert unmarked_shared_tests(REPO) == []


def test_the_checks_see_a_violation(tmp_path: Path) -> None:
    """Absolute, relative and in-text imports of a test module or a conftest are found, tests.support
    is allowed; a test calling shared_path without the marker is found."""
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
        "import pytest\nfrom tests.support import paths\nfrom tests import support\nfrom . import helpers\n"
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
