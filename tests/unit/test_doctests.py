"""The examples in the package's docstrings run as written (``python -m doctest`` over every module)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import plateau

MODULES = sorted(m.name for m in pkgutil.walk_packages(plateau.__path__, "plateau.") if not m.name.startswith("plateau.v1."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run_as_written(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} fail"
