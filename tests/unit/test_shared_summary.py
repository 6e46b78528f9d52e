"""The run's summary names the tests skipped for lack of ``../shared`` (and says nothing when it is
there): a real pytest run, in a subprocess, of a small test file with this suite's conftest."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.support.paths import REPO

TINY = '''
import pytest

from tests.support.paths import SHARED, shared_path


@pytest.fixture()
def model():
    assert (SHARED / "benchmark" / "steps").is_dir(), "a test skipped for lack of ../shared set up its fixtures"


@pytest.mark.shared("benchmark", "steps")
def test_marked(model):
    assert shared_path("benchmark", "steps").is_dir()


def test_reads_it_in_its_body():
    assert shared_path("data", "real-runs").is_dir()


def test_skipped_for_another_reason():
    pytest.skip("redis-server is not installed")


def test_plain():
    assert 1 + 1 == 2
'''


def _pytest(folder: Path, shared: Path) -> list[str]:
    """Run pytest on the tiny file in ``folder`` with ``$PLATEAU_SHARED`` = ``shared``; its output's lines."""
    markers = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]["markers"]
    (folder / "pytest.ini").write_text("[pytest]\nmarkers =\n" + "".join(f"    {m}\n" for m in markers))
    (folder / "test_tiny.py").write_text(TINY)
    env = {**os.environ, "PYTHONPATH": str(REPO), "PLATEAU_SHARED": str(shared)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider", "--strict-markers", "-ra", "-q",
         "test_tiny.py"],
        cwd=folder, env=env, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def test_the_tests_skipped_for_lack_of_shared_are_named_in_one_line(tmp_path: Path) -> None:
    lines = _pytest(tmp_path, tmp_path / "no-shared")
    said = [line for line in lines if "../shared" in line and not line.startswith("SKIPPED")]
    assert said == ["2 tests need ../shared (the benchmark and real runs) and were skipped: "
                    "test_tiny.py::test_marked, test_tiny.py::test_reads_it_in_its_body"], lines
    assert lines[-1].startswith("1 passed, 3 skipped"), lines


def test_a_part_of_shared_that_is_missing_counts_alone(tmp_path: Path) -> None:
    (tmp_path / "shared" / "benchmark" / "steps").mkdir(parents=True)
    lines = _pytest(tmp_path, tmp_path / "shared")
    said = [line for line in lines if "../shared" in line and not line.startswith("SKIPPED")]
    assert said == ["1 test needs ../shared (the benchmark and real runs) and were skipped: test_tiny.py::test_reads_it_in_its_body"], lines
    assert lines[-1].startswith("2 passed, 2 skipped"), lines


def test_nothing_is_said_when_shared_is_there(tmp_path: Path) -> None:
    (tmp_path / "shared" / "benchmark" / "steps").mkdir(parents=True)
    (tmp_path / "shared" / "data" / "real-runs").mkdir(parents=True)
    lines = _pytest(tmp_path, tmp_path / "shared")
    assert not [line for line in lines if "shared" in line], lines
    assert lines[-1].startswith("3 passed, 1 skipped"), lines
