"""``evals/used-sources.txt`` holds every address the evaluation sets cite (``scripts/used_sources.py``)."""

from __future__ import annotations

from tests.support.scripts import load_script


def test_the_used_sources_list_holds_every_cited_address() -> None:
    module = load_script("used_sources")
    cited = module.cited()
    assert len(cited) > 1000 and all(u.startswith(("http://", "https://")) for u in cited)
    assert module.main(["--check"]) == 0, "run python scripts/used_sources.py after adding a set"
