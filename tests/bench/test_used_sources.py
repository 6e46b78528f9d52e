"""``evals/used-sources.txt`` holds every address the evaluation sets cite (``scripts/used_sources.py``)."""

from __future__ import annotations

import importlib.util
import sys

from tests.support.paths import REPO as ROOT


def test_the_used_sources_list_holds_every_cited_address() -> None:
    spec = importlib.util.spec_from_file_location("used_sources", ROOT / "scripts" / "used_sources.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["used_sources"] = module
    spec.loader.exec_module(module)
    cited = module.cited()
    assert len(cited) > 1000 and all(u.startswith(("http://", "https://")) for u in cited)
    assert module.main(["--check"]) == 0, "run python scripts/used_sources.py after adding a set"
