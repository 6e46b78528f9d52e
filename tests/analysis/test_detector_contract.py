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


def _firing_facts() -> dict[str, StepFacts]:
    """Hand-built facts on which each registered detector finds something (by its name)."""
    from plateau.signals.information import InformationSignals
    from plateau.signals.progress import ProgressSignals
    from plateau.signals.semantic import SemanticSignals
    from plateau.signals.talk import TalkSignals
    from plateau.signals.textual import TextualSignals

    call = Step(index=9, text="Running the build.", tool="bash", args={"command": "make"}, result="Error: boom", status="error")
    talk = Step(index=9, text="Thanks again, that settles it.")
    stalled = SemanticSignals(calibrating=False, cusum=6.0, nearest_lag=2)
    return {
        "tool_repeat": StepFacts.of(call, progress=ProgressSignals(signature="s", repeat_count=4, streak=4)),
        "error_repeat": StepFacts.of(call, progress=ProgressSignals(signature="s", error=True, error_count=4, error_text="boom")),
        "same_outcome": StepFacts.of(call, progress=ProgressSignals(signature="s", repeat_count=1, error=True, same_outcome_count=5)),
        "oscillation": StepFacts.of(call, progress=ProgressSignals(signature="s", oscillation=2, state=(40, 2))),
        "near_duplicate": StepFacts.of(talk, near_duplicate_streak=2, semantic=stalled),
        "verbatim": StepFacts.of(talk, verbatim_streak=2, textual=TextualSignals(longest_run=12, verbatim=True, matched_step=6)),
        "lexical": StepFacts.of(talk, textual=TextualSignals(repeated_sentences=1.0, sentence_similarity=0.9)),
        "phatic": StepFacts.of(talk, phatic_streak=4),
        "talk": StepFacts.of(talk, talk=TalkSignals(talk_streak=4)),
        "claim": StepFacts.of(talk, talk=TalkSignals(claims=4)),
        "unchanged": StepFacts.of(call, talk=TalkSignals(unchanged=4, blocked=True)),
        "semantic_stall": StepFacts.of(call, semantic=stalled),
        "no_progress": StepFacts.of(call, semantic=stalled, information=InformationSignals(calibrating=False, cusum=6.0)),
        "thrash": StepFacts.of(
            call, information=InformationSignals(observed_calibrating=False, observed_cusum=6.0, calls_failing=6, call_failing=True)
        ),
    }


def test_a_predicted_step_changes_the_words_never_the_finding() -> None:
    """A pre-call check's step (``predicted``) gets the same code and score from every detector;
    only a message that counts this step's call changes, and it counts one call fewer (the
    calls that ran; the window of the last calls holds one fewer that ran, too)."""
    firing = _firing_facts()
    assert set(firing) == {d.name for d in DETECTORS}, "a new detector needs facts that make it find here"
    assert not StepFacts.of(Step(index=0)).predicted
    config = Config()
    counted = {}
    for d in DETECTORS:
        ran = d().update(firing[d.name], config)
        predicted = d().update(dataclasses.replace(firing[d.name], predicted=True), config)
        assert ran is not None and predicted is not None, d.name
        assert (predicted.code, predicted.score) == (ran.code, ran.score), d.name
        if predicted.what != ran.what:
            numbers = zip(re.findall(r"\d+", ran.what), re.findall(r"\d+", predicted.what), strict=True)
            counted[d.name] = [(int(a), int(b)) for a, b in numbers]
    assert set(counted) == {"tool_repeat", "error_repeat", "same_outcome", "thrash"}
    assert counted == {"tool_repeat": [(4, 3)], "error_repeat": [(4, 3)], "same_outcome": [(5, 4)], "thrash": [(6, 5), (8, 7)]}
    # a predicted call that answers is not one of the failing calls it would be counted among
    answered = dataclasses.replace(firing["thrash"], information=dataclasses.replace(firing["thrash"].information, call_failing=False))
    thrash = next(d for d in DETECTORS if d.name == "thrash")
    finding = thrash().update(dataclasses.replace(answered, predicted=True), config)
    assert finding is not None and finding.what.startswith("6 of the last 7 calls")


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
