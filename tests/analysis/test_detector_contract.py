"""The detector contract: facts once per step, detectors that declare what they read and may do,
fusion as the policy table, state stored under stable names."""

from __future__ import annotations

import ast
import dataclasses
import json
import re

from plateau.analysis import RunAnalysis
from plateau.analysis.detector import Detector, Finding, Rule
from plateau.analysis.facts import _ORDER, STAGES, StepFacts
from plateau.analysis.registry import DETECTORS, POLICY
from plateau.config import Config
from plateau.engine import Engine
from plateau.fuse import evidence_of
from plateau.store import codec
from plateau.types import Step
from tests.support.embedders import HashModel as _Hash
from tests.support.paths import REPO

ROOT = REPO


def test_every_detector_declares_its_name_rules_and_thresholds() -> None:
    config_fields = {f.name for f in dataclasses.fields(Config)}
    names = [d.name for d in DETECTORS]
    assert len(set(names)) == len(names) and all(names)
    codes = [code for d in DETECTORS for code in d.rules]
    assert sorted(codes) == sorted(POLICY) and len(set(codes)) == len(codes)
    for d in DETECTORS:
        assert issubclass(d, Detector)
        assert set(d.thresholds) <= config_fields, d
        assert all(isinstance(r, Rule) for r in d.rules.values())
        assert d.__doc__, f"{d.__qualname__} needs a docstring saying what it detects"


def test_fusion_holds_no_analysis_and_the_engine_none() -> None:
    """fuse.py and engine.py use no tracker and no text classifier: detectors read facts, the
    engine keeps locks, order and storage."""
    for module in ("plateau/fuse.py", "plateau/engine.py"):
        tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
        froms = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("plateau.signals")]
        names = {a.name for n in froms for a in n.names}
        assert not {n for n in names if n.endswith("Tracker") or n.startswith("is_")}, (module, names)


def test_fact_stages_run_in_the_declared_order() -> None:
    position = {name: i for i, name in enumerate(_ORDER)}
    assert set(position) == set(STAGES)
    for name, (_, needs) in STAGES.items():
        assert all(position[n] < position[name] for n in needs), name


def test_each_detector_reads_only_facts() -> None:
    """A detector file imports no tracker module and never classifies text itself (no regex)."""
    for path in (ROOT / "plateau" / "analysis" / "detectors").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        modules |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not {m for m in modules if m.startswith("plateau.signals") or m == "re"}, (path.name, modules)


def test_a_detector_finds_on_hand_built_facts() -> None:
    """Facts built by hand reach every detector: three identical failing calls trip."""
    from plateau.signals.progress import ProgressSignals

    prog = ProgressSignals(signature="s", repeat_count=4, streak=4, error=True, error_count=4, error_text="boom")
    evidence = evidence_of(StepFacts.of(Step(index=5, tool="bash", args={"command": "make"}, result="boom"), progress=prog), Config())
    assert evidence.structural and evidence.score >= 1.0 and "tool.repeat" in evidence.reasons


def test_state_is_stored_under_stable_names() -> None:
    engine = Engine(embedder=_Hash())
    for i in range(6):
        engine.observe("r", Step(i, text=f"step {i}", tool="bash", args={"command": "ls"}, result=f"out {i % 2}"))
    record = engine.store.get(("", "r"))
    assert record is not None
    document = json.dumps(codec.encode(record.analysis))
    names = set(re.findall(r'"\$[oe]": "([^"]+)"', document))
    assert names and all(n.startswith("@") for n in names), sorted(n for n in names if not n.startswith("@"))
    back = codec.decode(codec.encode(record.analysis))
    assert isinstance(back, RunAnalysis) and set(back.detectors) == {d.name for d in DETECTORS if vars(d())}


def test_a_detector_with_state_keeps_it_across_steps() -> None:
    class Every3rd(Detector):
        name = "every_3rd"
        rules = {"tool.repeat": POLICY["tool.repeat"]}

        def __init__(self) -> None:
            self.seen = 0

        def update(self, facts: StepFacts, config: Config) -> Finding | None:
            self.seen += 1
            return Finding("tool.repeat", 0.5, "three more steps") if self.seen % 3 == 0 else None

    detector = Every3rd()
    found = [detector.update(StepFacts.of(Step(index=i)), Config()) for i in range(6)]
    assert [f is not None for f in found] == [False, False, True, False, False, True]
    assert vars(detector) == {"seen": 6}


def test_a_short_answer_to_a_new_question_is_not_a_finding_found_again() -> None:
    """Probes that each ask something new and answer ``False`` do not recur against the run's
    memory; the same probe asked again does."""
    engine = Engine(embedder=_Hash())
    recurrent = []
    for i in range(6):
        step = Step(i, f"check {i}", tool="bash", args={"command": f"python -c 'print(a{i} == b)'"}, result="False")
        recurrent.append(engine.observe("probes", step).signals["recurrent_in_window"])
    assert recurrent[-1] == 0.0
    again = Step(6, "check 0 again", tool="bash", args={"command": "python -c 'print(a0 == b)'"}, result="False")
    assert engine.observe("probes", again).signals["recurrent_in_window"] == 1.0


def test_every_detector_that_can_trip_declares_its_budget() -> None:
    for d in DETECTORS:
        if any(r.acts != "steer" for r in d.rules.values()):
            assert d.budget is not None and d.budget.runs_per_1000 == 0.0 and 0.0 <= d.budget.margin < 1.0, d
