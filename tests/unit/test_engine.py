"""The engine: idempotent steps, ordering rules, bad input, and verdict properties."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plateau.config import Config
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.errors import InvalidArgument, RunNotFound, StepConflict
from plateau.types import Action, BreakerState, Step


def _step(i: int, text: str = "", **kw: object) -> Step:
    return Step(index=i, text=text or f"step {i}: reading module {i * 7919 % 1000} and noting what it exports", **kw)  # type: ignore[arg-type]


def test_resending_a_step_returns_the_same_verdict_and_changes_nothing(hashing_engine: Engine) -> None:
    """A retried step gets the stored verdict and the run does not advance."""
    first = hashing_engine.observe("r", _step(0))
    again = hashing_engine.observe("r", _step(0))
    assert again == first
    assert hashing_engine.get_run("r").steps == 1


def test_gap_and_conflicting_resend_are_failed_precondition(hashing_engine: Engine) -> None:
    """A skipped index or a past index with new content is a StepConflict; state is unchanged."""
    hashing_engine.observe("r", _step(0))
    with pytest.raises(StepConflict, match="gap"):
        hashing_engine.observe("r", _step(2))
    with pytest.raises(StepConflict, match="different content"):
        hashing_engine.observe("r", _step(0, "something else"))
    with pytest.raises(StepConflict):
        hashing_engine.observe("new-run", _step(3))
    assert hashing_engine.get_run("r").steps == 1


BAD = [
    ("", _step(0), "run_id"),
    ("x" * 257, _step(0), "run_id"),
    ("a\nb", _step(0), "run_id"),
    ("r", Step(index=0, text="x" * 1_000_001), "step.text"),
    ("r", Step(index=0, tool="t", result="y" * 1_000_001), "step.result"),
]


@pytest.mark.parametrize(("run_id", "step", "field"), BAD)
def test_bad_input_names_the_field_and_leaves_state_unchanged(hashing_engine: Engine, run_id: str, step: Step, field: str) -> None:
    """Each bad request is InvalidArgument naming its field; the run's state is untouched."""
    hashing_engine.observe("r", _step(0))
    before = hashing_engine.get_run("r")
    with pytest.raises(InvalidArgument) as info:
        hashing_engine.observe(run_id, step)
    assert info.value.field == field
    assert hashing_engine.get_run("r") == before


def test_tens_of_kb_results_are_accepted(hashing_engine: Engine) -> None:
    """A real tool output of 60 KB is judged, not refused."""
    v = hashing_engine.observe("r", Step(index=0, text="cat log", tool="bash", result="line of log output\n" * 3300))
    assert v.action is Action.CONTINUE


def test_unknown_run_is_not_found(hashing_engine: Engine) -> None:
    """get/reset/end of a run that does not exist raise RunNotFound."""
    for call in (hashing_engine.get_run, hashing_engine.reset_run, hashing_engine.end_run):
        with pytest.raises(RunNotFound):
            call("missing")


def test_reset_and_end(hashing_engine: Engine) -> None:
    """Reset restarts the run at index 0; an ended run refuses new steps but stays readable."""
    for i in range(3):
        hashing_engine.observe("r", _step(i))
    info = hashing_engine.reset_run("r")
    assert info.steps == 0 and info.state is BreakerState.CALIBRATING
    hashing_engine.observe("r", _step(0))
    assert hashing_engine.end_run("r").ended
    with pytest.raises(StepConflict, match="ended"):
        hashing_engine.observe("r", _step(1))
    assert hashing_engine.get_run("r").steps == 1


def test_identical_failing_calls_steer_then_trip_with_a_message(hashing_engine: Engine) -> None:
    """The same failing call steers at its 3rd occurrence and trips at its 4th, whatever the narration."""
    narration = ["Editing the config.", "Trying again.", "Applying the change once more.", "Retrying the edit."]
    actions = []
    for i, text in enumerate(narration):
        v = hashing_engine.observe("r", Step(index=i, text=text, tool="replace", args={"old": "a", "new": "b"},
                                             result="Error: found 3 occurrences"))
        actions.append(v.action)
    assert actions == [Action.CONTINUE, Action.CONTINUE, Action.STEER, Action.TRIP]
    assert "tool.error_repeat" in v.reasons or "tool.repeat" in v.reasons
    assert v.message and "replace" in v.message
    assert hashing_engine.get_run("r").state is BreakerState.OPEN


def test_open_breaker_stays_open_without_probe(hashing_engine: Engine) -> None:
    """After a trip every later step reports trip, even a productive one."""
    for i in range(4):
        hashing_engine.observe("r", Step(index=i, tool="t", args={"a": 1}, result="Error: no"))
    v = hashing_engine.observe("r", _step(4))
    assert v.action is Action.TRIP and "breaker.open" in v.reasons


def test_probe_closes_the_breaker_on_a_new_step() -> None:
    """With probing, a novel step after a trip closes the breaker; a repeat re-opens it."""
    engine = Engine(Config(probe=True), HashingEmbedder())
    for i in range(4):
        engine.observe("r", Step(index=i, tool="t", args={"a": 1}, result="Error: no"))
    assert engine.get_run("r").state is BreakerState.HALF_OPEN
    v = engine.observe("r", _step(4, "Switching strategy: reading the docs of the parser to find the real cause."))
    assert v.action is Action.CONTINUE and "breaker.probe_passed" in v.reasons
    for i in range(5, 9):
        v = engine.observe("r", Step(index=i, tool="t", args={"a": 1}, result="Error: no"))
    assert v.action is Action.TRIP


def test_near_identical_steps_after_a_high_variance_warm_up_are_caught(hashing_engine: Engine) -> None:
    """The absolute near-duplicate rule trips a verbatim loop whatever the warm-up looked like."""
    warm = ["a", "completely different words about databases and indexes", "x y z",
            "the quick brown fox jumps over the lazy dog near the river bank", "42"]
    for i, t in enumerate(warm):
        hashing_engine.observe("r", Step(index=i, text=t))
    actions = [hashing_engine.observe("r", Step(index=5 + i, text="I will now check the status of the job.")).action for i in range(5)]
    assert Action.TRIP in actions
    assert actions[0] is Action.CONTINUE


texts = st.text(alphabet=st.characters(codec="utf-8", categories=["L", "N", "Zs"]), min_size=0, max_size=80)
steps = st.lists(st.tuples(texts, st.sampled_from([None, "bash", "read"]), texts), min_size=1, max_size=15)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps)
def test_same_inputs_give_the_same_verdicts(run: list[tuple[str, str | None, str]]) -> None:
    """Two engines fed the same steps return identical verdicts."""
    a, b = Engine(embedder=HashingEmbedder()), Engine(embedder=HashingEmbedder())
    for i, (text, tool, result) in enumerate(run):
        step = Step(index=i, text=text, tool=tool, result=result if tool else None)
        assert a.observe("r", step) == b.observe("r", step)


@settings(max_examples=30, deadline=None)
@given(
    st.integers(min_value=3, max_value=12),
    st.sampled_from([1.0, 2.0, 4.0]),
    st.integers(min_value=10, max_value=30),
)
def test_a_strictly_progressing_run_never_trips(warmup: int, h: float, n: int) -> None:
    """A run whose every step passes more tests and returns a new result never trips, at any sensitivity."""
    engine = Engine(Config(warmup_steps=warmup, cusum_steer=h, cusum_trip=2 * h), HashingEmbedder())
    for i in range(n):
        v = engine.observe("r", Step(index=i, text="Running the tests again.", tool="bash", args={"c": "pytest"},
                                     result=f"{i + 1} passed", progress={"tests_passed": i + 1}))
        assert v.action is not Action.TRIP


@settings(max_examples=30, deadline=None)
@given(st.lists(texts, min_size=8, max_size=8))
def test_identical_failing_calls_trip_within_a_bound_whatever_the_narration(narration: list[str]) -> None:
    """Eight identical failing calls trip by the 4th, whatever text accompanies them."""
    engine = Engine(embedder=HashingEmbedder())
    actions = [
        engine.observe("r", Step(index=i, text=t, tool="apply", args={"p": "x"}, result="Error: patch does not apply")).action
        for i, t in enumerate(narration)
    ]
    assert Action.TRIP in actions[:4]


def test_lexical_similarity_alone_never_trips() -> None:
    """Evidence made only of lexical sentence similarity steers at most, however long it lasts."""
    from plateau.analysis.facts import StepFacts
    from plateau.breaker import Breaker
    from plateau.fuse import evidence_of
    from plateau.signals.semantic import SemanticSignals
    from plateau.signals.textual import TextualSignals

    config = Config()
    breaker = Breaker(config)
    lexical = TextualSignals(ngram_jaccard=0.3, containment=0.3, longest_run=4, verbatim=False,
                             sentence_similarity=0.9, repeated_sentences=1.0, matched_step=0)
    actions = []
    for i in range(40):
        facts = StepFacts.of(Step(index=i, text="reworded"), semantic=SemanticSignals(calibrating=False), textual=lexical)
        evidence = evidence_of(facts, config)
        assert evidence.reasons == ("text.lexical",) and not evidence.structural
        actions.append(breaker.decide(i, evidence, calibrating=False).action)
    assert Action.TRIP not in actions and Action.STEER in actions


def test_verbatim_restatement_counts_toward_a_trip(hashing_engine: Engine) -> None:
    """A long paragraph restated word for word (no tools) reaches trip through text.ngram or near-duplicate."""
    para = ("The root cause is that migration 0142 dropped the order_id index, so every checkout query "
            "falls back to a sequential scan and the connection pool runs dry under load.")
    warm = ["Looking at the error rate dashboards for checkout.", "Pulling logs from the ingress.",
            "Checking pod restarts and liveness probes.", "Reading the Hikari pool metrics.", "Explaining the slow query plan."]
    for i, t in enumerate(warm):
        hashing_engine.observe("r", Step(index=i, text=t))
    verdicts = [hashing_engine.observe("r", Step(index=5 + i, text=para)) for i in range(5)]
    assert verdicts[-1].action is Action.TRIP
    assert any("text.ngram" in v.reasons for v in verdicts)
