"""Intent: requested repetition, waiting and denied results, and the thresholds they select."""

from __future__ import annotations

import pytest

from plateau.analysis.facts import StepFacts
from plateau.config import Config
from plateau.fuse import evidence_of
from plateau.signals.intent import IntentReader, Repetition, repetition_bound
from plateau.signals.progress import ProgressSignals
from plateau.types import Step


@pytest.mark.parametrize(
    ("request_text", "bound"),
    [
        ("Poll its status every 10 minutes for up to 60 minutes.", 6),
        ("Run the flaky test 8 times.", 8),
        ("Keep polling until the job is done.", None),
        ("Check 3 replicas, 4 times each.", 4),
        ("Retry release 2024 up to 5 times.", 5),
    ],
)
def test_repetition_bound_reads_counts_and_spans(request_text: str, bound: int | None) -> None:
    """Counts are read from the request; an interval over a span gives span / interval."""
    assert repetition_bound(request_text) == bound


def _evidence(count: int, **kw):  # type: ignore[no-untyped-def]
    prog = ProgressSignals(signature="s", repeat_count=min(count, 8), streak=count)
    return evidence_of(StepFacts.of(Step(index=count, tool="t", args={}, result="r"), progress=prog, **kw), Config())


def test_waiting_polls_use_the_poll_thresholds() -> None:
    """A poller's identical waiting results steer at 8 in a row and trip at 16."""
    scores = {n: _evidence(n, result_kind="waiting").score for n in (7, 8, 15, 16)}
    assert scores[7] < 0.5 <= scores[8] and scores[15] < 1.0 <= scores[16]


def test_denied_calls_trip_at_the_third() -> None:
    """A call the user denied steers when repeated once and trips at its third occurrence."""
    assert _evidence(2, result_kind="denial").score == pytest.approx(0.5)
    assert _evidence(3, result_kind="denial").score == pytest.approx(1.0)


def test_requested_repetition_is_bounded() -> None:
    """A request to repeat 6 times excuses 6 polls, steers past 7 and trips by 12."""
    asked = Repetition(True, 6, 0.7)
    assert _evidence(7, repetition=asked).score < 0.5
    assert _evidence(8, repetition=asked).score >= 0.5
    assert _evidence(12, repetition=asked).score >= 1.0


def test_without_context_identical_calls_use_the_default_thresholds() -> None:
    """With no intent, the 3rd identical call steers and the 4th trips."""
    assert _evidence(3).score == pytest.approx(0.5) and _evidence(4).score == pytest.approx(1.0)


@pytest.mark.model
def test_the_model_reads_intent(real_cached) -> None:  # type: ignore[no-untyped-def]
    """On the real model: repetition requests, waiting results and denials are told from ordinary text."""
    reader = IntentReader(real_cached)
    assert reader.requested_repetition("Deploy it, then check the rollout every 2 minutes until it is healthy.").requested
    assert not reader.requested_repetition("Fix the failing unit test in the date parser.").requested
    obs = real_cached.encode(
        [
            "process: no output since the last poll",
            "check_job: Job 4411 is still running (elapsed 00:14:02)",
            "terminal: The operator declined to approve running this command.",
            "shell: Command execution was rejected by the user.",
            "bash: 42 passed in 0.81s",
            "read_file: def parse(line): return line.split(',')",
        ]
    )
    assert [reader.result_kind(v) for v in obs] == ["waiting", "waiting", "denial", "denial", None, None]
