"""The install an agent machine gets: the wheel ``make dist`` builds, installed with its dependencies
(no extras) into a fresh virtualenv without the system's site-packages, talks to a running server
without torch or numpy.

The wheel and the sdist are built with ``python -m build`` (the command ``make dist`` runs, in a virtualenv holding only ``build``; its
isolated build environment and the wheel's dependencies come from pip's cache or the package index).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

from tests.support.paths import REPO

ROOT = REPO
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``PLATEAU_PURE_PYTHON=1 python -m build --outdir DIR .`` (``make dist``): the sdist, and the pure-Python wheel built from it."""
    out = tmp_path_factory.mktemp("dist")
    env = {**os.environ, "PLATEAU_PURE_PYTHON": "1"}  # as make dist: the platform-independent wheel
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def client_venv(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv (``system_site_packages=False``) with ``pip install WHEEL`` and its dependencies."""
    folder = tmp_path_factory.mktemp("venv") / "client"
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(folder)
    python = folder / "bin" / "python"
    wheel = next(dist.glob("*.whl"))
    done = subprocess.run([str(python), "-m", "pip", "install", "--disable-pip-version-check", str(wheel)], capture_output=True,
                          text=True, timeout=900, env=_clean_env())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return folder


def _clean_env() -> dict[str, str]:
    """The environment without PYTHONPATH (the worktree must not leak into the fresh virtualenv)."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


def _run(folder: Path, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(folder / "bin" / "python"), "-c", code], cwd=cwd, env=_clean_env(), capture_output=True, text=True,
                          timeout=300)


def test_the_build_makes_a_wheel_and_an_sdist_with_the_metadata(dist: Path) -> None:
    """One wheel and one sdist named after pyproject's name and version; the wheel's metadata requires only the client's packages."""
    version = PROJECT["version"]
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    assert [w.name for w in wheels] == [f"plateau_breaker-{version}-py3-none-any.whl"]
    assert [s.name for s in sdists] == [f"plateau_breaker-{version}.tar.gz"]
    with zipfile.ZipFile(wheels[0]) as zf:
        names = set(zf.namelist())
        metadata = zf.read(f"plateau_breaker-{version}.dist-info/METADATA").decode()
        scripts = zf.read(f"plateau_breaker-{version}.dist-info/entry_points.txt").decode()
    assert {"plateau/__init__.py", "plateau/client.py", "plateau/v1/plateau_pb2.py", "plateau/py.typed"} <= names
    assert any(n.startswith("plateau/lexicon/") for n in names) and not any(n.startswith("tests/") for n in names)
    # test fixtures live in tests/support/, outside the wheel (issue 25)
    assert not [n for n in names if "redis_proc" in n or "/support/" in n]
    # the demo agent lives in demo/, outside the wheel (issue 25)
    assert not [n for n in names if n.startswith("demo/") or n.endswith("/harness.py")]
    # the lab (evaluator, baselines, the eval command) lives in bench/, outside the wheel (issue 25)
    lab = ("bench/", "plateau/baselines/", "plateau/evaluate.py", "plateau/evalrun.py", "plateau/cli_eval.py")
    assert not [n for n in names if n.startswith(lab) or "/baselines/" in n]
    assert {"plateau/plot.py", "plateau/trace.py", "plateau/cli_plot.py"} <= names  # plotting a run stays
    unconditional = sorted(line.split(":", 1)[1].strip().split(">")[0].split("<")[0].split("=")[0].strip()
                           for line in metadata.splitlines() if line.startswith("Requires-Dist:") and "extra ==" not in line)
    assert unconditional == sorted(d.split(">")[0].split("<")[0].split("=")[0].strip() for d in PROJECT["dependencies"])
    assert "numpy" not in unconditional and "torch" not in unconditional
    assert f"Version: {version}\n" in metadata and "Name: plateau-breaker\n" in metadata
    assert "plateau = plateau.cli:main" in scripts and "plateau-agent" not in scripts


def test_the_wheel_alone_gives_a_client_that_talks_to_a_server(client_venv: Path, tmp_path: Path) -> None:
    """In the fresh virtualenv: no torch, no numpy; ``plateau.Client.remote`` judges steps on a live server."""
    from plateau.cli import ServerThread
    from plateau.embed import HashingEmbedder
    from plateau.engine import Engine

    probe = _run(client_venv, "import importlib.util as u, json; print(json.dumps([u.find_spec(m) is None for m in "
                 "('numpy', 'torch', 'sentence_transformers', 'grpc')]))", tmp_path)
    assert probe.returncode == 0, probe.stderr
    assert json.loads(probe.stdout) == [True, True, True, False]

    code = """
import json, sys, plateau
assert plateau.__file__.startswith(sys.prefix), plateau.__file__
with plateau.Client.remote(sys.argv[1], timeout=30) as client:
    verdicts = [client.observe("r1", plateau.Step(index=i, text="Running the tests again.", tool="bash",
                                                  args={"cmd": "pytest"}, result="1 failed")) for i in range(8)]
print(json.dumps({"version": plateau.__version__, "actions": [v.action.value for v in verdicts],
                  "indices": [v.step_index for v in verdicts], "numpy": "numpy" in sys.modules}))
"""
    with ServerThread(Engine(embedder=HashingEmbedder()), "127.0.0.1", 0) as server:
        out = subprocess.run([str(client_venv / "bin" / "python"), "-c", code, server.target], cwd=tmp_path, env=_clean_env(),
                             capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["version"] == PROJECT["version"] and report["indices"] == list(range(8)) and report["numpy"] is False
    assert report["actions"][0] == "continue" and "trip" in report["actions"]  # the same failing call eight times is tripped


def test_client_local_in_the_client_only_install_names_the_extra(client_venv: Path, tmp_path: Path) -> None:
    """``Client.local()`` without the engine extra raises ModuleNotFoundError naming ``plateau-breaker[engine]``."""
    code = "import plateau\ntry:\n    plateau.Client.local()\nexcept ModuleNotFoundError as exc:\n    print(exc)\n"
    out = _run(client_venv, code, tmp_path)
    assert out.returncode == 0, out.stderr
    assert "plateau-breaker[engine]" in out.stdout and "'numpy' is missing" in out.stdout and "Client.remote" in out.stdout


def test_the_console_scripts_of_the_client_only_install(client_venv: Path, tmp_path: Path) -> None:
    """``plateau --version`` works, and the demo agent from the repository; ``plateau replay`` says which extra it needs and
    exits 2; ``plateau eval`` says in one line that the evaluator lives in the repository's ``bench/``."""
    bin_ = client_venv / "bin"
    version = subprocess.run([str(bin_ / "plateau"), "--version"], cwd=tmp_path, env=_clean_env(), capture_output=True, text=True,
                             timeout=120)
    assert version.returncode == 0 and version.stdout.strip() == f"plateau {PROJECT['version']}"
    # the demo agent is not in the wheel: it runs from the repository on the client-only install
    agent = subprocess.run([str(bin_ / "python"), "-m", "demo.harness", "--help"], cwd=ROOT, env=_clean_env(), capture_output=True,
                           text=True, timeout=120)
    assert agent.returncode == 0 and agent.stdout.startswith("usage: python -m demo.harness "), agent.stderr
    replay = subprocess.run([str(bin_ / "plateau"), "replay", str(ROOT / "examples")], cwd=tmp_path, env=_clean_env(),
                            capture_output=True, text=True, timeout=120)
    assert replay.returncode == 2 and "plateau-breaker[engine]" in replay.stderr and "Traceback" not in replay.stderr
    # the evaluator is not in the wheel: `plateau eval` says in one line where it lives and how to run it
    evaluate = subprocess.run([str(bin_ / "plateau"), "eval", str(ROOT / "examples")], cwd=tmp_path, env=_clean_env(),
                              capture_output=True, text=True, timeout=120)
    assert evaluate.returncode == 2 and evaluate.stdout == "", evaluate.stderr
    assert len(evaluate.stderr.splitlines()) == 1 and "bench/" in evaluate.stderr and "python -m bench eval" in evaluate.stderr
