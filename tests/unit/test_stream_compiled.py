"""The stream guard's compiled per-block modules (``setup.py``, mypyc): built from the sources as
they are, and giving the verdicts the same sources give as Python, to the chunk.

Both tests skip when the modules run as Python (an install with ``PLATEAU_PURE_PYTHON=1``, or
without a C compiler): there is nothing compiled to compare.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from plateau import stream
from tests.support.paths import REPO

pytestmark = pytest.mark.skipif(not stream.COMPILED, reason="the stream guard runs as Python (nothing compiled to compare)")

#: Stream sets whose verdicts the two builds must share: the set built beside the detectors, and the
#: latest real ones (degenerate and legitimate streams, several scripts and channels).
_SETS = ("evals/stream", "evals/dev-stream14", "evals/dev-stream15")

#: Runs in a separate interpreter, with the package's Python sources alone on its path: the first
#: fire (chunk, reason) of every case, one JSON object by case id.
_FIRSTS = """
import json, sys
from pathlib import Path
import plateau, plateau.stream as st
assert plateau.__file__.startswith(sys.argv[1]), plateau.__file__
out = {"compiled": st.COMPILED, "firsts": {}}
for folder in sys.argv[2:]:
    for f in sorted(Path(folder).glob("*.json")):
        case = json.loads(f.read_text(encoding="utf-8"))
        if not isinstance(case, dict) or case.get("level") != "stream":
            continue
        ctx = case.get("context") if isinstance(case.get("context"), str) else None
        guard = st.StreamGuard(case.get("stream_channel") or "content", context=ctx)
        first = None
        for i, chunk in enumerate(case["input"]):
            r = guard.feed(chunk)
            if r.fired:
                first = [i, r.reason, r.loop_start, r.cut_offset]
                break
        if first is None:
            r = guard.finish()
            first = [len(case["input"]) - 1, r.reason, r.loop_start, r.cut_offset] if r.fired else None
        out["firsts"][case["id"]] = first
print(json.dumps(out))
"""


def _compiled_modules() -> list[str]:
    """The module paths ``setup.py`` compiles (its ``COMPILED`` list, read without running it)."""
    tree = ast.parse((REPO / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "COMPILED" for t in node.targets):
            return [str(ast.literal_eval(e)) for e in node.value.elts]  # type: ignore[attr-defined]
    raise AssertionError("setup.py has no COMPILED list")


def _firsts(python_root: Path) -> dict[str, object]:
    folders = [str(REPO / s / "stream") if (REPO / s / "stream").is_dir() else str(REPO / s) for s in _SETS]
    done = subprocess.run([sys.executable, "-c", _FIRSTS, str(python_root), *folders], cwd=python_root, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout))


def test_the_compiled_modules_are_built_from_the_current_sources() -> None:
    """Every module ``setup.py`` compiles has its extension beside it, built after its source was last
    changed: a compiled copy shadows its source, so an edit not rebuilt (``make install``) would
    leave the tests running the old code."""
    stale = []
    for module in _compiled_modules():
        source = REPO / module
        built = [p for suffix in EXTENSION_SUFFIXES for p in source.parent.glob(source.stem + suffix)]
        assert built, f"{module} has no compiled extension beside it"
        if max(p.stat().st_mtime for p in built) < source.stat().st_mtime:
            stale.append(module)
    assert not stale, f"edited since they were compiled (run make install): {stale}"


def test_the_compiled_and_the_python_guard_agree_to_the_chunk(tmp_path: Path) -> None:
    """The same stream cases fed to the compiled guard and to the same sources run as Python (a copy of
    the package without its extensions, in a separate interpreter) fire on the same chunk, for the
    same reason, with the same loop start and cut -- or both stay quiet."""
    shutil.copytree(REPO / "plateau", tmp_path / "plateau", ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    python = _firsts(tmp_path)
    compiled = _firsts(REPO)
    assert python["compiled"] is False and compiled["compiled"] is True
    firsts = compiled["firsts"]
    assert isinstance(firsts, dict) and len(firsts) >= 100
    assert sum(v is not None for v in firsts.values()) >= 40  # the sets hold streams that fire
    differ = {k: (v, firsts.get(k)) for k, v in dict(python["firsts"]).items() if firsts.get(k) != v}  # type: ignore[call-overload]
    assert not differ, differ
