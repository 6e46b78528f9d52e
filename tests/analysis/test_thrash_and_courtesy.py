"""Thrash (varied calls that fail or find nothing) and courtesy loops (thanks, goodbyes).

Seeded synthetic runs with the exact step where each signal must fire; properties for the
runs that must never meet them; the labelled cases of both kinds replayed on the real model.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plateau.analysis.facts import StepFacts
from plateau.config import Config
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.fuse import STEER_LEVEL, TRIP_LEVEL, evidence_of
from plateau.signals.information import InformationTracker
from plateau.signals.progress import ProgressSignals
from plateau.signals.semantic import SemanticSignals
from plateau.types import Action, Step
from tests.support.hunts import WORDS
from tests.support.hunts import absent_steps as _absent_steps
from tests.support.hunts import facts_line as _facts
from tests.support.hunts import working_steps as _working_steps
from tests.support.paths import shared_path


def test_observed_gain_ignores_the_echo_of_the_call_and_the_narration() -> None:
    """A search that answers with its own query and a guess the agent wrote adds no observation."""
    info = InformationTracker(Config())
    info.update("Reading the index.", "alpha beta gamma", args=json.dumps({"path": "index"}))
    step = info.update("Maybe delta lives in epsilon.", "no match for delta epsilon",
                       args=json.dumps({"query": "delta epsilon"}))
    assert step.observed_terms == 1  # "match": "no"/"for" are stop words, the rest an echo or narration
    assert step.new_terms == 5  # the step-gain test counts "maybe", "delta", "lives", "epsilon" and "match"


def test_calls_failing_counts_failures_and_empties_and_resets_on_progress() -> None:
    """Empty results and failures that say nothing new count over the last window of calls; a
    failure with a new term is an answer; progress clears the count."""
    info = InformationTracker(Config(window=4))
    seq = [("fine", False), ("", False), ("Error: boom", True), ("Error: boom", True), (None, False), ("", False)]
    counts = [info.update(f"step {i}", r, args="{}", failed=f).calls_failing for i, (r, f) in enumerate(seq)]
    assert counts == [0, 1, 1, 2, 0, 3]  # a step without a result is no call; the window holds 4 calls
    info.reset_evidence()
    assert info.update("next", "", args="{}").calls_failing == 1


def test_only_calls_that_answer_are_samples_of_the_observed_gain_test() -> None:
    """An empty call, or a failure the run has already seen, leaves the observed-gain CUSUM where it was."""
    info = InformationTracker(Config())
    rng = random.Random(5)
    for i in range(8):
        info.update(f"reading part {i}", f"defines {_facts(rng, 6)}", args=json.dumps({"path": f"p{i}"}))
    low = info.update("searching", "0 results", args=json.dumps({"query": "x"}))
    assert not low.observed_calibrating and low.observed_cusum > 0
    for result, failed in (("", False), ("0 results", True)):
        assert info.update("trying again", result, args="{}", failed=failed).observed_cusum == low.observed_cusum


def test_thrash_steers_then_trips_at_the_exact_steps() -> None:
    """After 8 working steps (6 new terms each: baseline centre log 7, scale at its floor
    0.25 x centre), 12 varied calls that fail or find nothing. The calls that answer (output,
    and for a failure a new term) feed the observed-gain test: 0 new terms add 3.5 to its
    CUSUM, 1 adds 2.08, 2 add 1.24, 4 add 0.19, so it stands at 11.16 after index 17. Empty
    outputs and failures with nothing new (indices 8, 12, 14, 16, 18) are failing calls: half
    of the last 8 at index 18, which steers; the hunt goes on with empty searches, and the first
    step with ``thrash_trip_share`` of them (6) failing calls of the last 8 trips."""
    engine = Engine(embedder=HashingEmbedder())
    rng = random.Random(7)
    more = [Step(index=20 + j, text=f"Trying another place {j}.", tool="grep", args={"pattern": f"zz{j}"}, result="") for j in range(6)]
    verdicts = [engine.observe("r", s) for s in _working_steps(rng, 8) + _absent_steps(8) + more]
    assert verdicts[17].signals["observed_cusum"] == pytest.approx(11.159, abs=1e-3)
    assert [v.signals["calls_failing"] for v in verdicts[8:19]] == [1, 1, 1, 1, 2, 2, 3, 3, 3, 3, 4]
    actions = [v.action for v in verdicts]
    assert actions[:19] == [Action.CONTINUE] * 18 + [Action.STEER]
    first_trip = actions.index(Action.TRIP)
    failing = [v.signals["calls_failing"] for v in verdicts]
    assert failing[first_trip] >= 6 and all(f < 6 for f in failing[:first_trip])
    assert set(actions[18:first_trip]) == {Action.STEER} and "tool.thrash" in verdicts[first_trip].reasons


def test_an_exploration_whose_reads_bring_new_facts_is_not_thrash() -> None:
    """Half the calls miss (empty searches) but every read brings new facts: never thrash."""
    engine = Engine(embedder=HashingEmbedder())
    rng = random.Random(3)
    steps = _working_steps(rng, 8)
    for j in range(20):
        if j % 2 == 0:
            steps.append(Step(index=8 + j, text=f"Searching for usage {j}.", tool="grep", args={"pattern": f"sym{j}"}, result=""))
        else:
            steps.append(Step(index=8 + j, text=f"Reading module {j}.", tool="read_file", args={"path": f"m{j}.py"},
                              result=f"defines {_facts(rng, 6)}"))
    assert not any("tool.thrash" in engine.observe("r", s).reasons for s in steps)


def test_a_fix_loop_whose_errors_change_is_not_thrash() -> None:
    """Edits (no files-changed marker) alternating with test runs that fail with a different
    error each time: every failure says something new, so it is an answer, not a failed call."""
    engine = Engine(embedder=HashingEmbedder())
    rng = random.Random(11)
    steps = _working_steps(rng, 8)
    for j in range(16):
        name = WORDS[j]
        if j % 2 == 0:
            steps.append(Step(index=8 + j, text=f"Fixing {name}.", tool="edit", args={"path": f"src/{name}.py", "old": "a", "new": "b"},
                              result=f"Edited src/{name}.py (1 replacement)"))
        else:
            steps.append(Step(index=8 + j, text="Running the tests.", tool="bash", args={"command": "pytest -q"}, status="error",
                              result=f"FAILED tests/test_{name}.py::test_{WORDS[j + 20]} - AssertionError: {_facts(rng, 2)}"))
    assert not any("tool.thrash" in engine.observe("r", s).reasons for s in steps)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(9, 30), repeat_share=st.floats(0, 1))
def test_a_run_whose_calls_all_succeed_is_never_thrash(seed: int, n: int, repeat_share: float) -> None:
    """Property: however little its results say, a run whose calls all succeed with output (a
    batch job, a paging reader) never gets ``tool.thrash``."""
    rng = random.Random(seed)
    engine = Engine(embedder=HashingEmbedder())
    for i in range(n):
        result = "ok" if rng.random() < repeat_share else f"processed item {i}: {_facts(rng, 1)}"
        v = engine.observe("r", Step(index=i, text=f"Item {i}.", tool="process", args={"item": i}, result=result))
        assert "tool.thrash" not in v.reasons


def test_thrash_steers_from_half_the_calls_failing_and_trips_from_thrash_trip_share() -> None:
    """The same observed-gain evidence scores 0 with 3 failing calls of 8, steer level with 4 and
    5 (finished runs reach those: searches that miss before one finds), trip level from
    ``thrash_trip_share`` of the window (6 of 8)."""
    from plateau.signals.information import InformationSignals

    step = Step(index=20, tool="grep", args={"p": "x"}, result="")

    def score(failing: int) -> float:
        info = InformationSignals(calibrating=False, observed_calibrating=False, observed_cusum=9.0, calls_failing=failing)
        prog = ProgressSignals(signature="s", repeat_count=1)
        ev = evidence_of(StepFacts.of(step, semantic=SemanticSignals(calibrating=False), progress=prog, information=info), Config())
        return ev.components.get("tool.thrash", 0.0)

    assert score(3) == 0.0 and score(4) == score(5) == STEER_LEVEL
    assert Config().thrash_trip_share * Config().window == 6 and score(6) >= TRIP_LEVEL


def test_courtesy_streak_scores() -> None:
    """Consecutive courtesies steer at the 3rd and reach trip level at the 5th; with a call, never."""
    def score(n: int, tool: str | None = None) -> float:
        step = Step(index=10, text="Thanks!", tool=tool, args={} if tool else None, result="ok" if tool else None)
        ev = evidence_of(StepFacts.of(step, phatic_streak=n), Config())
        return ev.components.get("text.phatic", 0.0)

    assert score(1) == 0.0 and score(2) < STEER_LEVEL
    assert score(3) == pytest.approx(STEER_LEVEL) and score(5) == pytest.approx(TRIP_LEVEL)
    assert score(5, tool="bash") == 0.0


@pytest.mark.model
@pytest.mark.parametrize(
    ("text", "phatic"),
    [
        ("Many thanks, that was really helpful!", True),
        ("You're most welcome. Have a good evening!", True),
        ("Cheers, bye!", True),
        ("Thanks! Now add error bars to the plot, please.", False),
        ("Thank you. The second query still times out after 30 s.", False),
        ("Goodbye to Python 3.8: dropping it from the CI matrix.", False),
    ],
)
def test_courtesies_are_read_by_meaning(real_cached, text: str, phatic: bool) -> None:  # type: ignore[no-untyped-def]
    """Held-out wordings (not among the prototypes): a bare courtesy is phatic, a thank-you
    carrying a request or a fact is not."""
    from plateau.signals.intent import IntentReader

    assert IntentReader(real_cached).is_phatic(real_cached.encode([text])[0]) is phatic


@pytest.mark.model
def test_a_closing_loop_steers_at_the_third_courtesy_and_trips_at_the_fifth(real_engine: Engine) -> None:
    """Two agents that keep thanking each other after the task is done: steer, then trip."""
    texts = [
        "I wrote the migration script and ran it on staging; all 12 tables converted.",
        "Verified: row counts match and the application starts cleanly.",
        "Many thanks, that was really helpful!",
        "You're most welcome. Have a good evening!",
        "Thanks once more, much appreciated.",
        "My pleasure, take care!",
        "Cheers, bye!",
    ]
    verdicts = [real_engine.observe("chat", Step(index=i, text=t, agent="a" if i % 2 else "b")) for i, t in enumerate(texts)]
    assert [v.action for v in verdicts] == [Action.CONTINUE] * 4 + [Action.STEER, Action.STEER, Action.TRIP]
    assert "text.phatic" in verdicts[-1].reasons


@pytest.mark.model
def test_a_thank_you_followed_by_new_work_is_not_a_loop(real_engine: Engine) -> None:
    """Courtesies between real requests never build a streak."""
    texts = [
        "Here is the chart of monthly revenue.", "Thanks! Could you also add a legend?",
        "Done: the legend is in the top left.", "Great, thank you. Now export it as SVG.",
        "Exported to revenue.svg.", "Thanks! Last thing: make the bars blue.", "The bars are blue now.",
        "Perfect, thanks a lot!",
    ]
    verdicts = [real_engine.observe("chat2", Step(index=i, text=t)) for i, t in enumerate(texts)]
    assert not any("text.phatic" in v.reasons for v in verdicts)
    assert all(v.action is Action.CONTINUE for v in verdicts)


@pytest.mark.model
@pytest.mark.parametrize("case", ["L-A03-billing-merge-importerror", "T20-autogen-gratitude-loop"])
@pytest.mark.shared("benchmark", "steps")
def test_labelled_cases_of_these_kinds_trip_in_their_window(real_engine: Engine, case: str) -> None:
    """The labelled thrash and gratitude-loop cases: tripped, and never at a step that forbids it."""
    from bench.evaluate import load_cases, score_steps_case
    from plateau.client import Client

    (labelled,) = load_cases([shared_path("benchmark", "steps", f"{case}.json")])
    steps = [Step.from_dict(s, i) for i, s in enumerate(labelled["input"])]
    verdicts = list(Client.local(engine=real_engine).observe_many(case, steps, labelled.get("context")))
    scored = score_steps_case(labelled, [v.action.value for v in verdicts])
    assert scored.detected and not scored.early_trip


def test_same_empty_answer_only_steers_but_the_same_error_trips() -> None:
    """Varied calls with the same outcome: an error repeating reaches trip level at 6, the same
    empty answer never passes steer level."""
    def score(error: bool) -> float:
        prog = ProgressSignals(signature="s", repeat_count=1, same_outcome_count=6, error=error)
        step = Step(index=9, tool="grep", args={"p": "x"}, result="Error: x" if error else "")
        return evidence_of(StepFacts.of(step, progress=prog), Config()).components["tool.same_outcome"]

    assert score(error=True) >= TRIP_LEVEL and score(error=False) == pytest.approx(STEER_LEVEL)


def test_iterating_over_listed_items_with_empty_answers_is_neither_thrash_nor_same_outcome() -> None:
    """An audit: a listing names 12 hosts, then the same check runs on each; most answer nothing
    (clean), which is each item's answer, not a failed guess."""
    engine = Engine(embedder=HashingEmbedder())
    rng = random.Random(5)
    hosts = [f"{w}-{n:02d}" for w, n in zip(WORDS, range(1, 13), strict=False)]
    steps = _working_steps(rng, 6)
    steps.append(Step(index=6, text="Listing the hosts.", tool="inventory", args={"group": "prod"}, result="\n".join(hosts)))
    for j, host in enumerate(hosts):
        vulnerable = j in (4, 9)
        steps.append(Step(index=7 + j, text=f"Checking {host}.", tool="bash", args={"command": f"ssh {host} dpkg -l xz-utils"},
                          result=f"ii xz-utils 5.6.{j % 2} amd64" if vulnerable else ""))
    verdicts = [engine.observe("audit", s) for s in steps]
    assert all(v.signals.get("iterating") == 1.0 for v in verdicts[8:])
    assert not any({"tool.thrash", "tool.same_outcome"} & set(v.reasons) for v in verdicts)


def test_observed_terms_mask_volatile_values_and_ids_but_keep_numbers() -> None:
    """A log stamp, a timestamp and a commit id are not facts; "8760 rows" and "257 days" are."""
    from plateau.signals.information import observed_terms

    stamped = observed_terms("npm ERR! A complete log: /root/.npm/_logs/2024-06-19T10_05_40_118Z-debug-0.log")
    assert not any(len([c for c in t if c.isdigit()]) >= 4 and not t.isdigit() for t in stamped)
    facts = observed_terms("AT-0583: 8760 rows, valid until 2025-03-02 11:04:51 UTC (257 days), build 9c1e04b6d1f0")
    assert {"8760", "rows", "257", "days"} <= facts and "9c1e04b6d1f0" not in facts and "11" not in facts


def test_what_the_masks_leave_is_never_a_fact() -> None:
    """A result whose only change is a timestamp, a UUID, a duration or an opaque handle names
    nothing new: the masks' placeholders (``<uuid>`` reads as "uuid") are not terms."""
    from plateau.signals.information import observed_terms

    masked = observed_terms(
        '{"MessageId": "c7852b1c-2c22-3a90-f150-3788f0336589", "at": "2024-06-12T22:14:03Z", "took": "34 s", '
        '"ReceiptHandle": "AQEB4l7YHddDvgtP/3iJfi0XOfJogppTEUQnm+Zq8sWd1Lx"}'
    )
    assert masked == {"messageid", "took", "receipthandle"}


def test_opaque_handles_are_masked_in_results_but_paths_and_identifiers_are_not() -> None:
    """Receipt handles, tokens and JWT segments mix case and digits in long unbroken runs; a
    datasheet path or a CamelCase name breaks into short segments or lacks a class."""
    from plateau.signals.progress import normalize_result

    assert normalize_result("handle AQEBVUbaELqeomkwgTJ3VQxy8ssYrCmeJCGp9e+tWkEa9CqzM47/5UWi end") == "handle <opaque> end"
    assert normalize_result("next eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9") == "next <opaque>"
    for kept in ("com/datasheets/NIB-185Ah-prismatic-rev3", "getUTF8StringValue", "test_payment_service_integration_2024"):
        assert normalize_result(kept) == kept


def test_the_same_change_in_a_file_never_written_is_new_work() -> None:
    """The next file of a migration is work though a listing named it first and the edit's
    words are all known; writing the same file again with known words is not."""
    from plateau.config import Config
    from plateau.signals.information import InformationTracker

    info = InformationTracker(Config())
    info.update("Where is utcnow used?", "src/a.py:3: datetime.utcnow()\nsrc/b.py:9: datetime.utcnow()", tool="bash",
                args='{"command": "grep -rn utcnow src"}')
    first = info.update("Fixing a.py.", "edited", tool="edit", mutation=True,
                        args='{"path": "src/a.py", "old": "datetime.utcnow()", "new": "datetime.now(timezone.utc)"}')
    second = info.update("Fixing b.py.", "edited", tool="edit", mutation=True,
                         args='{"path": "src/b.py", "old": "datetime.utcnow()", "new": "datetime.now(timezone.utc)"}')
    again = info.update("Fixing b.py again.", "edited", tool="edit", mutation=True,
                        args='{"path": "src/b.py", "old": "datetime.utcnow()", "new": "datetime.now(timezone.utc)"}')
    assert first.new_facts and second.new_facts and not again.new_facts



def test_turns_the_harness_refused_for_their_format_are_not_failing_calls() -> None:
    """A turn with two bash blocks that the harness refused ran nothing: it is neither a call
    that failed nor one that answered (a harness that ran nothing gives no evidence to the
    calibrated tests). Interleaved with a hunt that steers, the refusals leave the count of
    failing calls where it was, and do not push the hunt from a steer to a trip."""
    reply = "Please always provide EXACTLY ONE action in triple backticks, found {n} actions."
    rng = random.Random(17)
    steps = _working_steps(rng, 8)
    refused = []
    for j, call in enumerate(_absent_steps(8)):
        steps.append(Step(index=len(steps), text=call.text, tool=call.tool, args=call.args, result=call.result, status=call.status))
        if j % 2 == 0:  # the agent writes the next two commands in one message; the harness refuses it
            refused.append(len(steps))
            steps.append(Step(index=len(steps), text=f"THOUGHT: next\n```bash\ngrep -rn x{j} src\n```\n```bash\nls lib{j}\n```",
                              result=reply.format(n=2)))
    engine = Engine(embedder=HashingEmbedder())
    verdicts = [engine.observe("r", s) for s in steps]
    failing = [v.signals["calls_failing"] for v in verdicts]
    assert [failing[i] for i in refused] == [failing[i - 1] for i in refused]
    assert max(failing) == 4 and Action.STEER in [v.action for v in verdicts]
    assert Action.TRIP not in [v.action for v in verdicts]
