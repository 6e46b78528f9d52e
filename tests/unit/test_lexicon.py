"""Wording lists as data (plateau.lexicon) and the check that no list reads a single case."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from plateau import lexicon
from tests.support.paths import REPO
from tests.support.scripts import load_script

ROOT = REPO


def _overlap_script():  # type: ignore[no-untyped-def]
    return load_script("lexicon_overlap")


def test_the_package_holds_the_lists() -> None:
    names = lexicon.names()
    assert {"unchanged-en", "unchanged-es", "unchanged-fr", "unchanged-de", "unchanged-zh", "claim-verbs", "refusals"} <= set(names)
    assert {"stop-words-en", "pending-states", "transient-failures", "repetition-requests", "phatic-prototypes"} <= set(names)


@pytest.mark.parametrize("name", lexicon.names())
def test_every_list_loads_with_a_header(name: str) -> None:
    """Each list says what kind of text it reads, its languages, its format and how it was
    written, and has entries; a regex list compiles, entry by entry."""
    lex = lexicon.lexicon(name)
    assert {"kind", "languages", "format", "written"} <= set(lex.header), lex.header
    assert lex.format in lexicon.FORMATS
    assert "no entry from a labelled case" in lex.header["written"]
    assert lex.entries and lex.entries == lexicon.load(name)
    assert all(e == e.strip() and not e.startswith("#") for e in lex.entries)
    for fragment in lex.fragments():
        re.compile(fragment)
    re.compile(lexicon.alternation(name))


def test_literal_entries_are_escaped_and_pairs_split() -> None:
    assert lexicon.pattern("read-endpoints").search("POST /api/v1/search") is not None
    words = dict(line.split() for line in lexicon.load("number-words"))
    assert words["twice"] == "2" and words["thousand"] == "1000"


def test_an_unknown_list_is_an_error() -> None:
    with pytest.raises(FileNotFoundError):
        lexicon.load("no-such-list")


def test_statements_of_no_change_are_read_in_general_wordings() -> None:
    """Wordings of the kind (nothing changed, still the same, no difference, as before), none of
    them from a case."""
    from plateau.signals.talk import says_unchanged

    for text in (
        "No difference from the previous run.",
        "The error has not changed.",
        "Sin cambios desde la última prueba.",
        "El resultado sigue igual.",
        "Mismo resultado que ayer.",
        "Aucun changement depuis hier.",
        "Le résultat est inchangé.",
        "Toujours pareil après le redémarrage.",
        "Keine Änderung seit gestern.",
        "Das Ergebnis ist wie zuvor.",
        "和上次一样，没有变化。",
    ):
        assert says_unchanged(text), text
    for text in ("We changed the config and restarted.", "Même si le test passe, je relis.", "Der Test ist grün."):
        assert not says_unchanged(text), text


def _corpus(tmp_path: Path, texts: dict[str, object]) -> list[Path]:
    for name, value in texts.items():
        (tmp_path / name).write_text(json.dumps(value), encoding="utf-8")
    return [tmp_path]


def test_an_entry_of_three_words_in_exactly_one_case_fails(tmp_path: Path) -> None:
    mod = _overlap_script()
    corpus = _corpus(tmp_path, {"a.json": {"steps": [{"text": "Nothing has changed since then."}]}, "b.json": {"x": "ok"}})
    cases = list(mod.read_cases(corpus))
    status, reports = mod.check(["unchanged-en"], cases)
    assert status == 1
    failing = [r for r in reports["unchanged-en"] if r.fails]
    assert failing and failing[0].cases == 1 and failing[0].words >= 3


def test_the_same_entry_in_two_cases_passes(tmp_path: Path) -> None:
    mod = _overlap_script()
    runs = [{"traj": [{"content": "Nothing has changed since then."}]}, {"traj": [{"content": "nothing has changed, again"}]}]
    cases = list(mod.read_cases(_corpus(tmp_path, {"runs.json": runs})))  # one file, two runs: two cases
    assert len(cases) == 2
    status, reports = mod.check(["unchanged-en"], cases)
    assert status == 0
    assert any(r.cases == 2 for r in reports["unchanged-en"])


def test_short_entries_in_one_case_are_reported_not_failed(tmp_path: Path) -> None:
    mod = _overlap_script()
    cases = list(mod.read_cases(_corpus(tmp_path, {"a.json": {"t": "Sin cambios."}, "b.json": {"t": "otra cosa"}})))
    status, reports = mod.check(["unchanged-es"], cases)
    assert status == 0 and [r.cases for r in reports["unchanged-es"]] == [1]


def test_words_are_counted_in_cjk_by_pairs_of_characters() -> None:
    mod = _overlap_script()
    assert mod.count_words("nothing has changed") == 3
    assert mod.count_words("没有变化") == 2 and mod.count_words("与之前相同") == 3


def test_the_script_exits_with_the_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mod = _overlap_script()
    corpus = _corpus(tmp_path, {"a.json": {"t": "Nothing has changed since then."}})
    assert mod.main(["--corpus", str(corpus[0]), "--list", "unchanged-en"]) == 1
    assert "FAIL" in capsys.readouterr().out
    assert mod.main(["--corpus", str(corpus[0]), "--list", "claim-adverbs", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == 0


def test_the_lists_ship_in_the_wheel() -> None:
    """pyproject's package data takes every list file along (a wheel built from it holds them)."""
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]["plateau"]
    assert "lexicon/*.txt" in data
    assert all(p.parent.name == "lexicon" for p in (ROOT / "plateau" / "lexicon").glob("*.txt"))
