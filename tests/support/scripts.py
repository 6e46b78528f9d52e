"""The scripts under ``scripts/`` imported as modules, for the tests that call their functions."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from tests.support.paths import REPO

__all__ = ["load_script"]


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` imported as the module ``name`` (registered in ``sys.modules``, which
    dataclasses and pickling need), run once per call.

    Raises ``FileNotFoundError`` when the script does not exist.
    """
    path = REPO / "scripts" / f"{name}.py"
    if not path.is_file():
        raise FileNotFoundError(path)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
