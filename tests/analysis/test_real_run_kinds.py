"""The kinds of behaviour real runs showed (issue 11): work that looks repetitive must not trip,
stalls without a byte-identical repeat must.

Seeded synthetic runs on the deterministic test embedder, each with the exact step where a
verdict must (or must not) appear; a property over runs whose every step brings new facts; and
the real runs in ``../shared/data/real-runs`` replayed on the real model (no run that finished
or succeeded may be tripped).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plateau.analysis.facts import StepFacts
from plateau.config import Config
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.fuse import STEER_LEVEL, count_score, evidence_of
from plateau.signals.progress import ProgressSignals, failure_count, is_mutation, is_transient, is_wait, is_waiting
from plateau.types import Step
from tests.support.hunts import NAMES, RESTATED, explore
from tests.support.paths import shared_path


def _actions(steps: list[Step]) -> list[str]:
    engine = Engine(embedder=HashingEmbedder())
    return [engine.observe("r", s).action.value for s in steps]


def test_the_same_passing_check_after_edits_to_different_files_never_trips() -> None:
    """Verification between edits: edit file k, run the suite, the same "87 passed" every time."""
    rng = random.Random(7)
    steps = explore(rng, 4)
    for k in range(8):
        i = len(steps)
        steps.append(Step(index=i, text=f"Migrating utcnow() in module {k}.", tool="edit_file",
                          args={"path": f"src/job_{k}.py", "old": "utcnow()", "new": "now(UTC)"},
                          result="Replaced 1 occurrence", status="ok"))
        steps.append(Step(index=i + 1, text=f"Running the tests after module {k}.", tool="bash",
                          args={"command": "pytest -q"}, result="87 passed in 3.1s", status="ok"))
    assert "trip" not in _actions(steps)
    assert "steer" not in _actions(steps)


def test_the_same_failing_check_after_every_edit_trips_at_its_fourth_occurrence() -> None:
    """Edits to different files succeed, yet the same error comes back: the edits change nothing
    that matters, so they do not reset the evidence (steer at the 3rd error, trip at the 4th)."""
    rng = random.Random(8)
    steps = explore(rng, 4)
    error = "error: Argument 1 to \"send\" has incompatible type \"str\"; expected \"bytes\"  [arg-type]\nFound 1 error in 1 file"
    for k in range(5):
        i = len(steps)
        steps.append(Step(index=i, text=f"Trying a cast in module {k}.", tool="bash",
                          args={"command": f"sed -i 's/send(msg)/send(bytes(msg))/' src/notify_{k}.py"}, result="", status="ok"))
        steps.append(Step(index=i + 1, text=f"Checking types again (attempt {k + 1}).", tool="bash",
                          args={"command": "mypy --strict src/"}, result=error, status="error"))
    actions = _actions(steps)
    checks = [i for i, s in enumerate(steps) if "mypy" in s.args]
    assert actions[checks[1]] == "continue"
    assert actions[checks[2]] == "steer"
    assert actions[checks[3]] == "trip"


def test_retries_interleaved_with_other_steps_and_drifting_arguments_trip() -> None:
    """The same byte-identical error from a call whose flags drift, with a search and a note
    between attempts: the searches' successes do not end the failure (they are other calls)."""
    rng = random.Random(9)
    steps = explore(rng, 4)
    error = 'Error from server (NotFound): the server could not find the requested resource (post certificates.cert-manager.io)'
    flags = ["", " --validate=false", " --server-side", " --force", " --server-side --force-conflicts"]
    for k, flag in enumerate(flags):
        i = len(steps)
        steps.append(Step(index=i, text=f"Applying the certificate (attempt {k + 1}).", tool="bash",
                          args={"command": f"kubectl apply -f cert.yaml{flag}"}, result=error, status="error"))
        steps.append(Step(index=i + 1, text="Searching for the cause.", tool="web_search",
                          args={"query": f"cert-manager NotFound certificates {rng.choice(NAMES)}"},
                          result="; ".join(rng.sample(NAMES, 6)), status="ok"))
    actions = _actions(steps)
    attempts = [i for i, s in enumerate(steps) if "kubectl" in s.args]
    assert actions[attempts[2]] == "steer"
    assert actions[attempts[3]] == "trip"


def test_a_retry_that_succeeds_after_two_failures_is_recovery() -> None:
    """Two timeouts, then the same call with a longer timeout works: never a trip."""
    rng = random.Random(10)
    steps = explore(rng, 4)
    for k in range(2):
        steps.append(Step(index=len(steps), text=f"terraform init timed out, retrying ({k + 1}).", tool="bash",
                          args={"command": "terraform init -input=false"},
                          result="Error: Failed to query available provider packages: net/http: TLS handshake timeout",
                          status="error"))
    steps.append(Step(index=len(steps), text="Retrying with a longer timeout.", tool="bash",
                      args={"command": "terraform init -input=false -lock-timeout=120s"},
                      result="Terraform has been successfully initialized!", status="ok"))
    steps += [Step(index=len(steps) + j, text=f"Planning stage {j}.", tool="bash", args={"command": f"terraform plan -target=module.s{j}"},
                   result="Plan: " + ", ".join(rng.sample(NAMES, 5)), status="ok") for j in range(4)]
    assert "trip" not in _actions(steps)


def test_waiting_whose_result_moves_only_in_a_timestamp_is_bounded_by_the_poll_limits() -> None:
    """A poller whose output changes only in what masking removes is waiting: it passes the
    repeat limits (3, 4) and is steered at ``poll_steer`` (8) and tripped at ``poll_trip`` (16)."""
    steps = explore(random.Random(11), 3)
    for k in range(18):
        steps.append(Step(index=len(steps), text="Checking the rollout again.", tool="kubectl",
                          args={"command": "kubectl rollout status deploy/checkout"},
                          result=f"Waiting for deployment \"checkout\" rollout to finish: 2 of 3 updated replicas are available "
                                 f"(checked 2024-06-11T14:{10 + k:02d}:07Z)", status="ok"))
    actions = _actions(steps)
    polls = list(range(3, len(steps)))
    assert all(a == "continue" for a in actions[polls[0] : polls[6]])
    assert actions[polls[7]] == "steer"
    assert actions[polls[15]] == "trip"



def test_a_poller_that_sleeps_between_its_checks_is_bounded_like_one_that_does_not() -> None:
    """Waiting with a ``sleep`` call between checks: the sleeps ask nothing and are transparent
    (never a repeat or a cycle), and the checks form one poll, steered at its 8th check and
    tripped at its 16th (``poll_steer``, ``poll_trip``), as back-to-back checks would be."""
    steps = explore(random.Random(24), 3)
    for k in range(18):
        steps.append(Step(index=len(steps), text="Giving the job a minute.", tool="bash", args={"command": "sleep 60"},
                          result="", status="ok"))
        steps.append(Step(index=len(steps), text="Checking the job.", tool="bash",
                          args={"command": "curl -s https://api.example.test/v1/jobs/job-17"},
                          result=f'{{"id": "job-17", "state": "RUNNING", "checked_at": "2024-06-11T14:{10 + k:02d}:07Z"}}',
                          status="ok"))
    actions = _actions(steps)
    checks = [i for i, s in enumerate(steps) if "curl" in s.args]
    assert all(actions[i] == "continue" for i in checks[:7])
    assert actions[checks[7]] == "steer"
    assert "trip" not in actions[: checks[15]]
    assert actions[checks[15]] == "trip"
    assert is_wait(steps[3]) and not is_wait(steps[4])

def test_a_batch_over_items_the_agent_names_itself_never_trips() -> None:
    """A backfill one day at a time and a drain one node at a time: each call asks about an
    item no earlier call asked about (a day, a node the agent names itself, not from a
    listing), and each answer reads like the previous one. New questions answered are work,
    however formulaic the narration and however alike the answers."""
    rng = random.Random(25)
    steps = explore(rng, 6)
    for day in range(1, 29):
        rows = rng.randint(90_000, 120_000)
        steps.append(Step(index=len(steps), text=f"Backfilling 2024-02-{day:02d}.", tool="bash",
                          args={"command": f"python backfill.py --date 2024-02-{day:02d}"},
                          result=f"loaded {rows} rows into fact_orders_daily", status="ok"))
        steps.append(Step(index=len(steps), text=f"Day {day} loaded; checking it against raw.", tool="sql",
                          args={"query": f"select count(*) from raw.orders where day = '2024-02-{day:02d}'"},
                          result=f" count\n-------\n {rows}\n(1 row)", status="ok"))
    assert "trip" not in _actions(steps)
    steps = explore(rng, 6)
    for k in range(30):
        steps.append(Step(index=len(steps), text=f"Node {k + 1} of 30. Draining it.", tool="bash",
                          args={"command": f"kubectl drain gke-prod-pool-b-{k:03d} --ignore-daemonsets --delete-emptydir-data"},
                          result=f"node/gke-prod-pool-b-{k:03d} cordoned\nevicting pod default/web-{rng.randint(100, 999)}\n"
                                 f"node/gke-prod-pool-b-{k:03d} drained", status="ok"))
    assert "trip" not in _actions(steps)

def test_a_check_whose_failure_count_keeps_falling_is_progress() -> None:
    """A migration checked after each edit: the same first error line every time, but the
    summary's count falls (12 errors, 11, 10, ...). Each new lowest count restarts the error's
    streak, so the check never trips; counts that go back and forth (edits undoing each
    other) do not restart it."""
    steps = explore(random.Random(26), 4)
    for k in range(10):
        steps.append(Step(index=len(steps), text=f"Annotating module {k}.", tool="edit_file",
                          args={"path": f"src/svc_{k}.py", "old": "def run(self):", "new": "def run(self) -> None:"},
                          result="ok", status="ok"))
        steps.append(Step(index=len(steps), text="Type-checking again.", tool="bash", args={"command": "mypy --strict src/"},
                          result=f'src/svc_9.py:3: error: Function is missing a return type annotation  [no-untyped-def]\n'
                                 f"Found {12 - k} errors in {10 - k} files (checked 40 source files)", status="error"))
    assert "trip" not in _actions(steps)
    steps = explore(random.Random(27), 4)
    for k in range(8):
        steps.append(Step(index=len(steps), text=f"Trying variant {k}.", tool="edit_file",
                          args={"path": "src/svc.py", "old": f"x{k}", "new": f"x{k + 1}"}, result="ok", status="ok"))
        steps.append(Step(index=len(steps), text="Type-checking again.", tool="bash", args={"command": "mypy --strict src/"},
                          result="src/svc.py:3: error: Incompatible return value type  [return-value]\n"
                                 f"Found {3 - k % 2} errors in 1 file", status="error"))
    actions = _actions(steps)
    checks = [i for i, s in enumerate(steps) if "mypy" in s.args]
    assert actions[checks[4]] == "trip"  # 3, 2 (a new best: restart), 3, 2, 3, 2: the fourth since the restart


def test_retrying_an_overloaded_service_is_waiting_bounded_by_the_poll_limits() -> None:
    """A service that answers "529 overloaded" (or 429, 503) says waiting will help: the same
    error is bounded by the poll limits (8 steers, 16 trips), not the repeat limits (3, 4)."""
    steps = explore(random.Random(28), 4)
    for k in range(17):
        steps.append(Step(index=len(steps), text=f"The API is overloaded; retrying ({k + 1}).", tool="http",
                          args={"url": "https://api.example.test/v1/messages", "attempt": k + 1},
                          result='HTTP 529 {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}',
                          status="error"))
    actions = _actions(steps)
    assert all(a == "continue" for a in actions[4:10])
    assert actions[4 + 7] == "steer"
    assert "trip" not in actions[: 4 + 15]
    assert actions[4 + 15] == "trip"
    assert is_transient("503 Service Unavailable") and not is_transient("AssertionError: expected 500, got 200")
    assert failure_count("===== 3 failed, 84 passed in 2.1s =====") == 3

def test_the_same_acknowledged_action_between_new_findings_is_paging_not_a_loop() -> None:
    """A browser agent pages through results: the same "click Next" with the same
    acknowledgement, then an extract that brings new records. A success repeats only when
    nothing new was learned since; the clicks never trip. Clicking on with nothing new to
    show for it is a loop again: the 4th such click trips (``repeat_trip``)."""
    rng = random.Random(29)
    steps = explore(rng, 4)
    for page in range(2, 16):
        steps.append(Step(index=len(steps), text=f"Going to page {page}.", tool="click",
                          args={"selector": "a[rel=next]"}, result="Clicked element: a[rel=next]", status="ok"))
        steps.append(Step(index=len(steps), text=f"Extracting page {page}.", tool="extract", args={"what": "job postings"},
                          result="\n".join(f"{a}{b} - Senior engineer, {b}{a} Ltd"
                                            for a, b in zip(rng.sample(NAMES, 5), rng.sample(NAMES, 5), strict=True)),
                          status="ok"))
    assert "trip" not in _actions(steps)
    stuck = steps[:12]
    for _ in range(4):
        stuck.append(Step(index=len(stuck), text="Clicking next again.", tool="click", args={"selector": "a[rel=next]"},
                          result="Clicked element: a[rel=next]", status="ok"))
    assert _actions(stuck)[-1] == "trip"

def test_a_check_that_sleeps_first_or_reports_a_status_under_way_is_waiting() -> None:
    """``sleep 300 && describe-job`` answering ``"Status": "InProgress"`` the same way many
    times is a poll: bounded by the poll limits, not tripped at its 4th identical answer."""
    steps = explore(random.Random(30), 4)
    for _ in range(12):
        steps.append(Step(index=len(steps), text="Checking on the training job.", tool="bash",
                          args={"command": "sleep 300 && aws sagemaker describe-training-job --training-job-name clf-v7"},
                          result='{"Status": "InProgress", "Secondary": "Training"}', status="ok"))
    actions = _actions(steps)
    assert "trip" not in actions
    assert actions[4 + 7] == "steer"
    status = Step(index=0, text="", tool="gh", args={"run": 1}, result="in_progress\nlint: completed success\ne2e: queued")
    assert is_waiting(status) and not is_waiting(Step(index=0, text="", tool="gh", args={}, result="completed success"))


def test_a_write_reported_by_its_result_is_a_mutation() -> None:
    """A backfill script whose only trace of writing is its result (``INSERT 0 3``), or a
    drain acknowledged as ``node/x drained``, changed the world: the same acknowledgement
    day after day is not a repeated answer, and checks after it are new."""
    assert is_mutation(Step(index=0, text="", tool="bash", args={"command": "psql -v day=2024-03-04 -f rollup.sql"},
                            result="BEGIN\nDELETE 0\nINSERT 0 3\nCOMMIT", status="ok"))
    assert is_mutation(Step(index=0, text="", tool="bash", args={"command": "kubectl drain gke-b-001"},
                            result="node/gke-b-001 cordoned\nnode/gke-b-001 drained", status="ok"))
    assert not is_mutation(Step(index=0, text="", tool="bash", args={"command": "psql -c 'select 1'"},
                                result=" ?column?\n----------\n        1\n(1 row)", status="ok"))
    rng = random.Random(31)
    steps = explore(rng, 5)
    for day in range(1, 25):
        steps.append(Step(index=len(steps), text=f"Rolling up 2024-03-{day:02d}.", tool="bash",
                          args={"command": f"psql -v day=2024-03-{day:02d} -f jobs/rollup.sql"},
                          result="BEGIN\nDELETE 0\nINSERT 0 3\nCOMMIT", status="ok"))
        steps.append(Step(index=len(steps), text="Checking it against the source.", tool="bash",
                          args={"command": f"psql -v day=2024-03-{day:02d} -f checks/rollup_vs_source.sql"},
                          result=f" channel | orders | src_orders\n web | {rng.randint(900, 999)} | same\n"
                                 f" ios | {rng.randint(300, 399)} | same", status="ok"))
    assert "trip" not in _actions(steps)

def test_varied_searches_that_echo_the_query_and_return_the_same_hit_trip() -> None:
    """Reworded searches whose answers differ only in the query they echo ("Search results
    for 'ESG report'") return the same answer: the echo is not part of it, so the 4th steers
    and the 6th trips (``same_outcome_*``)."""
    steps = explore(random.Random(32), 4)
    queries = ["sustainability report 2023", "ESG report 2023", "annual report 2023", "climate report", "GRI index",
               "2023 sustainability", "emissions disclosure"]
    for q in queries:
        steps.append(Step(index=len(steps), text=f"Searching for {q}.", tool="type",
                          args={"selector": "input[name=q]", "text": q, "submit": True},
                          result=f"Search results for '{q}' - 1 result\n1. Halvorsen Maritime publishes Q3 2023 results "
                                 "(Press release) - /news/2023/q3-results", status="ok"))
    actions = _actions(steps)
    assert actions[4 + 2] == "continue"
    assert actions[4 + 3] == "steer"
    assert actions[4 + 5] == "trip"

def test_claims_of_a_done_action_with_no_call_behind_them_trip_though_the_user_objects() -> None:
    """Claims of having acted ("I've sent the refund", "the address has been changed") with no
    call that changed anything since: the user's objections bring new words, so the talk
    streak restarts, but the claims keep counting (3rd steers, 6th trips). A claim right after
    a real write is a report, and a write resets the count."""
    steps = explore(random.Random(33), 4)
    claims = ["I've sent the refund to your card.", "The refund has been processed, it can take a day to show.",
              "Your address has been changed to the new one as well.", "Everything is updated on our side now.",
              "I have already submitted the change request for you.", "The refund is now sent, please check again tomorrow.",
              "Your account has been updated with both changes."]
    objections = ["I still don't see any refund in my banking app.", "The old address is still shown on the order page.",
                  "Nothing arrived, are you sure?", "My order history shows no change at all.",
                  "I checked again with the bank this morning.", "Support chat said there is no request on file."]
    for k, claim in enumerate(claims):
        steps.append(Step(index=len(steps), text=claim, user=objections[k - 1] if k else None))
    actions = _actions(steps)
    assert actions[4 + 1] == "continue"
    assert actions[4 + 2] == "steer"
    assert actions[4 + 5] == "trip"
    honest = explore(random.Random(34), 4)
    for k in range(6):
        honest.append(Step(index=len(honest), text=f"Updating line {k} of the order.", tool="update_order",
                           args={"order": "W512", "line": k}, result="ok", status="ok"))
        honest.append(Step(index=len(honest), text=f"Line {k} has been updated.", user=f"Thanks, now line {k + 1} please."))
    assert "steer" not in _actions(honest) and "trip" not in _actions(honest)

def test_checks_of_what_each_write_just_changed_verify_it_however_alike_they_read() -> None:
    """A rollout cluster by cluster: ``helm upgrade`` (a write) names the cluster first, and the
    checks after it ask about that cluster and answer exactly as they did for the last one
    ("successfully rolled out", "ok"). Each check verifies the write it follows; a run of them
    is not recurrence, however formulaic the narration."""
    steps = explore(random.Random(35), 8)
    for k in range(24):
        cluster = f"{NAMES[k]}-{NAMES[k + 24]}"
        steps.append(Step(index=len(steps), text=f"Cluster {k + 1}: upgrading.", tool="bash",
                          args={"command": f"helm upgrade ingress ./chart --kube-context {cluster} -f values.yaml"},
                          result='Release "ingress" has been upgraded. Happy Helming!\nSTATUS: deployed', status="ok"))
        steps.append(Step(index=len(steps), text="Waiting for the rollout.", tool="bash",
                          args={"command": f"kubectl --context {cluster} rollout status deploy/ingress --timeout=300s"},
                          result='deployment "ingress" successfully rolled out', status="ok"))
        steps.append(Step(index=len(steps), text=f"Cluster {k + 1} done. Next.", tool="bash",
                          args={"command": f"curl -s https://{cluster}.internal.example/healthz"}, result="ok", status="ok"))
    assert "trip" not in _actions(steps)

def test_a_poller_whose_counter_advances_is_waiting_not_a_stall() -> None:
    """Waiting: the same status call asked again right away, its answer moving in a counter the
    masks keep (replicas ready, rows copied). The poll is waited for, not recalled: however
    formulaic the narration, the calibrated tests never trip it."""
    steps = explore(random.Random(21), 6)
    for k in range(24):
        steps.append(Step(index=len(steps), text=f"Still rolling out, {k // 3} of 8 ready. Checking again.", tool="bash",
                          args={"command": "kubectl rollout status deploy/api --timeout=5s"},
                          result=f'Waiting for deployment "api" rollout to finish: {k // 3} of 8 updated replicas are available...',
                          status="ok"))
    assert "trip" not in _actions(steps)


def test_a_batch_over_listed_items_answering_in_numbers_never_trips() -> None:
    """A batch over items the environment listed (partitions, regions): each call asks about
    the next listed item and answers with the same table shape and new numbers. Each answer is
    that item's facts, not a re-measurement, however alike the tables and the narration read."""
    rng = random.Random(22)
    steps = explore(rng, 5)
    parts = [f"events_p2024_03_{d:02d}" for d in range(1, 21)]
    steps.append(Step(index=len(steps), text="Listing the partitions in scope.", tool="sql",
                      args={"query": "select relname from pg_class where relname like 'events_p2024_03_%'"},
                      result="\n".join(parts), status="ok"))
    for k, part in enumerate(parts):
        raw, fact = rng.randint(40_000, 60_000), rng.randint(40_000, 60_000)
        steps.append(Step(index=len(steps), text=f"Partition {k + 1} checked. Next one.", tool="sql",
                          args={"query": f"select count(*) raw, sum(amount) from {part}"},
                          result=f" raw_rows | fact_rows | diff\n----------+-----------+------\n {raw} | {fact} | {raw - fact}\n(1 row)",
                          status="ok"))
    assert "trip" not in _actions(steps)



@pytest.mark.parametrize("count", range(2, 12))
def test_the_same_waiting_answer_to_varied_status_calls_is_bounded_by_the_poll_limits(count: int) -> None:
    """Varied status calls (squeue, sacct, scontrol) that all answer that the job still waits:
    the same answer to varied calls, but a waiting one, so the poll limits bound it (steer from
    ``poll_steer``, trip from ``poll_trip``), not ``same_outcome_*``; a non-waiting answer keeps them."""
    config = Config()
    prog = ProgressSignals(signature=f"s{count}", repeat_count=1, streak=1, same_outcome_count=count)
    step = Step(index=20, tool="bash", args={"command": "sacct -j 81234 -n -o State"}, result="PENDING (Priority)")
    waiting = evidence_of(StepFacts.of(step, progress=prog, result_kind="waiting"), config).components["tool.same_outcome"]
    other = evidence_of(StepFacts.of(step, progress=prog), config).components["tool.same_outcome"]
    assert waiting == pytest.approx(count_score(count, config.poll_steer, config.poll_trip), abs=1e-4)
    assert other == pytest.approx(count_score(count, config.same_outcome_steer, config.same_outcome_trip), abs=1e-4)
    assert (waiting >= STEER_LEVEL) == (count >= config.poll_steer)


def test_talk_instead_of_action_steers_at_the_third_turn_and_trips_at_the_sixth() -> None:
    """A tool-using agent that keeps claiming it acted, with no call and nothing new from the user."""
    steps = explore(random.Random(12), 4)
    claims = ["I've updated the reservation to the 14th.", "The change is saved in our system now.",
              "Everything has been updated as requested.", "Your booking now shows the new date.",
              "I have applied the modification for you.", "The record is updated and confirmed.",
              "All set: the new date is stored."]
    for k, claim in enumerate(claims):
        steps.append(Step(index=len(steps), text=claim, user="ok" if k else None))
    actions = _actions(steps)
    assert actions[4:6] == ["continue", "continue"]
    assert actions[6] == "steer"
    assert actions[9] == "trip"


def test_a_user_who_brings_new_facts_keeps_a_conversation_going() -> None:
    """Talk turns answered by a user with new facts each time are a conversation, not a stall."""
    rng = random.Random(13)
    steps = explore(rng, 3)
    for k in range(10):
        told = rng.sample(NAMES, 5)
        steps.append(Step(index=len(steps), text=f"Noted. How does {told[0]} relate to step {k} of the plan?", user=" ".join(told)))
    assert "trip" not in _actions(steps)


def test_is_mutation_reads_tools_commands_and_markers() -> None:
    """Writes are mutations (edit tools, redirection, sed -i, installs); reads and failures are not."""
    assert is_mutation(Step(index=0, text="", tool="edit_file", args={"path": "a.py"}, result="ok"))
    assert is_mutation(Step(index=0, text="", tool="bash", args={"command": "cat > t.py << 'EOF'\nx\nEOF"}, result=""))
    assert is_mutation(Step(index=0, text="", tool="bash", args={"command": "sed -i 's/a/b/' x.py"}, result=""))
    assert is_mutation(Step(index=0, text="", tool="bash", args={"command": "pip install pytz -q"}, result=""))
    assert not is_mutation(Step(index=0, text="", tool="bash", args={"command": "grep -n foo x.py 2>/dev/null"}, result="1: foo"))
    assert not is_mutation(Step(index=0, text="", tool="read_file", args={"path": "a.py"}, result="x = 1"))
    assert not is_mutation(Step(index=0, text="", tool="edit_file", args={"path": "a.py"}, result="Error: no match", status="error"))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(10, 40),
    template=st.sampled_from(["Next item.", "Now checking the next one.", "Continuing."]),
)
def test_a_run_whose_every_step_brings_new_facts_never_trips(seed: int, n: int, template: str) -> None:
    """However formulaic the narration, a run whose every answer names things new to the run
    (a batch over fresh records) is never tripped."""
    rng = random.Random(seed)
    steps = [
        Step(index=i, text=template, tool="lookup", args={"id": f"rec-{i}"},
             result="; ".join(f"{w}-{rng.randrange(10_000)}" for w in rng.sample(NAMES, 6)) + f" owner={rng.choice(NAMES)}{i}")
        for i in range(n)
    ]
    assert "trip" not in _actions(steps)


@pytest.mark.model
@pytest.mark.timeout(1800)
@pytest.mark.shared("data", "real-runs")
def test_real_runs_that_finished_or_succeeded_are_never_tripped(real_cached) -> None:  # type: ignore[no-untyped-def]
    """The 23 finished SWE-bench runs, the 53 successful tau-bench runs and the 100 resolved
    SWE-bench Verified runs in mini-swe-agent 1.15's text format in ``../shared/data/real-runs``:
    no trip, and at most 2% of their steps steered."""
    from plateau.replay import load_runs

    runs = [r for r in load_runs([shared_path("data", "real-runs")]) if r.outcome in ("finished", "succeeded", "resolved")]
    assert len(runs) == 176
    engine = Engine(embedder=real_cached)
    # embed every text once, in batches (the model is several times faster batched on a CPU);
    # the engine then finds each vector in the shared cache
    texts = sorted({t for r in runs for i, s in enumerate(r.steps) for t in engine.embed_inputs(Step.from_dict(s, i)) if t})
    for start in range(0, len(texts), 64):
        real_cached.encode(texts[start : start + 64])
    steered = total = 0
    tripped = []
    for n, run in enumerate(runs):
        actions = [engine.observe(f"real-{n}", Step.from_dict(s, i), run.context).action.value for i, s in enumerate(run.steps)]
        if "trip" in actions:
            tripped.append(f"{run.id}@{actions.index('trip')}")
        steered += actions.count("steer")
        total += len(actions)
    assert tripped == []
    assert steered / total <= 0.02


def test_a_script_that_writes_and_a_result_that_reports_writes_are_mutations() -> None:
    """A script named for a write (``migrate_tenant.sh``, ``deploy.py``) and a tool's own report
    of what it wrote ("restored 41 tables", "imported 500 rows") change the world."""

    def bash(command: str, result: str) -> Step:
        return Step(index=0, text="", tool="bash", args={"command": command}, result=result)

    assert is_mutation(bash("./scripts/migrate_tenant.sh t_1139 2>&1 | tail -4", "done"))
    assert is_mutation(bash("python deploy.py --env staging", "ok"))
    assert is_mutation(bash("run-job nightly", "pg_restore: restored 41 tables, 87 indexes"))
    assert not is_mutation(bash("./scripts/verify_tenant.sh t_1139", "41/41 tables match"))
    assert not is_mutation(bash("cat scripts/deploy.md", "last updated 3 days ago"))
    assert not is_mutation(bash('python -c "print(len(rows) > 0)"', "True"))
    assert not is_mutation(Step(index=0, text="", tool="psql", args={"query": "SELECT 1 FROM t WHERE applied_at > now()"}, result="1"))
    assert is_mutation(bash("curl -s -X POST https://api.example.com/v4/zones/z/dns_records --data '{}'", '{"success":true}'))
    assert not is_mutation(bash("curl -s -X POST localhost:9200/logs/_search -d '{\"query\": {}}'", '{"hits": []}'))


def test_a_queue_that_hands_back_the_same_message_with_a_new_handle_brings_no_new_facts() -> None:
    """Only a receipt handle and a receive counter change between receives of the same message:
    what masking removes is not a new fact, so the 2nd receive onward is not new to the run."""
    engine = Engine(embedder=HashingEmbedder())
    rng = random.Random(21)
    for step in explore(rng, 4):
        engine.observe("q", step)
    facts = []
    for k in range(4):
        # base64, as SQS hands it out: '+' and '/' cut it into fragments a tokenizer reads as words
        handle = "AQEB" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") for _ in range(76))
        result = (
            '{"Messages": [{"MessageId": "f4f28ada-f111-8eb1-bae4-7acf3d5c27ea", '
            f'"ReceiptHandle": "{handle}", "Body": "invoice INV-20931", "ApproximateReceiveCount": "{k + 1}"}}]}}'
        )
        v = engine.observe(
            "q",
            Step(
                index=4 + k,
                text="Receiving the next message.",
                tool="sqs_receive",
                args={"queue": "invoices-dlq"},
                result=result,
                status="ok",
            ),
        )
        facts.append(v.signals["new_facts"])
    assert facts == [1.0, 0.0, 0.0, 0.0]


def _queue_loop(rng: random.Random, stuck: bool, rounds: int = 8) -> list[Step]:
    """Receive a message, look up its customer, republish it fixed, delete it: ``stuck`` hands
    back the same message every round (a stale receipt handle deleted nothing)."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    stale = "AQEBE33sq16UWqsHFIi0pSHm/RHBdYZWByOo9AbQ"  # an earlier message's handle: deletes nothing
    steps = explore(rng, 4)
    for k in range(rounds):
        n = 0 if stuck else k
        invoice, customer = f"INV-{20931 + n}", f"cus_{NAMES[n]}"
        handle = "AQEB" + "".join(rng.choice(alphabet) for _ in range(76))
        uuid = "-".join("".join(rng.choice("0123456789abcdef") for _ in range(m)) for m in (8, 4, 4, 4, 12))
        body = f'{{"invoice_id": "{invoice}", "customer_id": "{customer}", "tax": {{"region": null}}}}'
        i = len(steps)
        steps += [
            Step(index=i, text="Receiving the next message from the DLQ.", tool="bash",
                 args={"command": "aws sqs receive-message --queue-url $DLQ --attribute-names All"},
                 result=f'{{"Messages": [{{"ReceiptHandle": "{handle}", "Body": {body!r}, '
                 f'"ApproximateReceiveCount": "{k + 1 if stuck else 1}"}}]}}'),
            Step(index=i + 1, text="Looking up the customer's region.", tool="get_billing_address",
                 args={"customer_id": customer},
                 result=f'{{"customer_id": "{customer}", "state_code": "AT-{4 + n % 5}", "city": "{NAMES[-1 - n].title()}"}}'),
            Step(index=i + 2, text="Republishing it with the region filled in.", tool="bash",
                 args={"command": f"aws sqs send-message --queue-url $MAIN --message-body '{invoice} AT-{4 + n % 5}'"},
                 result=f'{{"MessageId": "{uuid}", "SequenceNumber": "{rng.randrange(10**19, 10**20)}"}}'),
            Step(index=i + 3, text="Deleting it from the DLQ.", tool="bash",
                 args={"command": f"aws sqs delete-message --queue-url $DLQ --receipt-handle {stale if stuck else handle}"},
                 result="", status="ok"),
        ]
    return steps


def test_a_write_cycle_that_learns_nothing_trips() -> None:
    """The same message comes back every round and the same writes follow (republish, delete):
    a write repeated with nothing learned since is a repeat, whatever else was written in
    between, so the cycle steers at its 3rd round and trips at its 4th."""
    steps = _queue_loop(random.Random(22), stuck=True)
    actions = _actions(steps)
    deletes = [i for i, s in enumerate(steps) if "delete-message" in s.args]
    assert "trip" not in actions[: deletes[2]] and "steer" not in actions[: deletes[1] + 1]
    assert actions[deletes[2]] == "steer"
    assert actions[deletes[3]] == "trip"


def test_the_same_writes_for_a_new_message_every_round_never_trip() -> None:
    """The same loop over new messages (a new invoice and customer each round) is a batch."""
    assert "trip" not in _actions(_queue_loop(random.Random(22), stuck=False, rounds=12))




def _plateau_after_a_conclusion(rng: random.Random, *, write_between: bool = False, user_between: bool = False) -> list[Step]:
    """A diagnosis, a blocked fix, then re-checks through varied tools whose answers carry
    new incidental words while the narration says each time that nothing changed."""
    steps = explore(rng, 5)
    steps.append(Step(index=len(steps), text="Recreating the index.", tool="psql",
                      args={"sql": "CREATE INDEX CONCURRENTLY idx_orders ON payments (order_id)"},
                      result="ERROR:  must be owner of table payments", status="error"))
    for k, text in enumerate(RESTATED):
        i = len(steps)
        if write_between and k % 2 == 1:
            steps.append(Step(index=i, text=f"Applying fix {k} to module {k}.", tool="edit_file",
                              args={"path": f"src/fix_{k}.py", "new": f"patch {k}"}, result="ok", status="ok"))
            i += 1
        user = " ".join(rng.sample(NAMES, 4)) if user_between else None
        steps.append(Step(index=i, text=text, tool=f"probe_{k}", args={"q": f"check {k}"}, user=user,
                          result=" ".join(rng.sample(NAMES, 5)) + f" value {rng.randrange(1000)}", status="ok"))
    return steps


def test_a_conclusion_restated_while_varied_checks_change_nothing_trips() -> None:
    """The paraphrase plateau: the fix was refused, and every re-check since says it changed
    nothing; the 3rd statement steers and the 6th trips (``talk_steer``, ``talk_trip``)."""
    steps = _plateau_after_a_conclusion(random.Random(31))
    actions = _actions(steps)
    statements = [i for i, s in enumerate(steps) if s.tool and s.tool.startswith("probe_")]
    assert "steer" not in actions[: statements[2]] and "trip" not in actions[: statements[5]]
    assert actions[statements[2]] == "steer"
    assert actions[statements[5]] == "trip"


def test_statements_of_no_change_between_writes_or_new_requests_never_trip() -> None:
    """A write (the next fix) or a user who brings something new starts the count over."""
    assert "trip" not in _actions(_plateau_after_a_conclusion(random.Random(32), write_between=True))
    assert "trip" not in _actions(_plateau_after_a_conclusion(random.Random(33), user_between=True))


def test_waiting_that_says_nothing_changed_yet_is_left_to_the_poll_limits() -> None:
    """"Still shows the same status" while the job runs is waiting, not a restated conclusion."""
    steps = explore(random.Random(34), 4)
    for k in range(10):
        steps.append(Step(index=len(steps), text="Still the same: the job is running, checking again.", tool="job_status",
                          args={"job": f"train-{k % 2}"}, result=f'{{"state": "RUNNING", "progress": {10 * k}}}', status="ok"))
    assert "trip" not in _actions(steps)


def test_statements_of_no_change_are_read_in_five_languages() -> None:
    from plateau.signals.talk import says_unchanged

    for text in ("Nothing has moved; same picture as before.", "My recommendation remains: roll back.", "Sin cambios en los tickets.",
                 "La situación sigue igual.", "Aucun changement dans les journaux.", "Der Befund ist unverändert.", "结论不变，仍需回滚。",
                 "Même refus de permission.", "Mismo error de autorización.", "Put differently, the regular method saves more."):
        assert says_unchanged(text), text
    for text in ("I fixed the same bug in b.py.", "Run the same command on the next host.", "The build changed three files.",
                 "Tests pass.", "Même si le test passe, je relis le code."):
        assert not says_unchanged(text), text


def test_an_audit_that_finds_each_item_unchanged_is_work() -> None:
    """Role after role "unchanged since the last audit": the same check over the next item of a
    series, each statement that item's finding, never a restated conclusion."""
    rng = random.Random(35)
    steps = explore(rng, 4)
    for role in NAMES[:18]:
        steps.append(Step(index=len(steps), text=f"Role {role}: unchanged since the last audit, no new grants.", tool="iam",
                          args={"command": f"aws iam get-role-policy --role-name {role} --policy-name main"},
                          result=f'{{"RoleName": "{role}", "Team": "{rng.choice(NAMES)}-{rng.choice(NAMES)}", '
                          f'"Statement": [{{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "{rng.choice(NAMES)}/*"}}]}}',
                          status="ok"))
    actions = _actions(steps)
    assert "trip" not in actions and "steer" not in actions


def test_statements_of_no_change_without_a_refusal_are_no_evidence() -> None:
    """A watch or an audit that keeps finding nothing says so step after step; nothing was
    refused, so its statements are not a plateau: no steer, no trip."""
    steps = [s for s in _plateau_after_a_conclusion(random.Random(36)) if s.tool != "psql"]
    steps = [Step(index=i, text=s.text, tool=s.tool, args=s.args, result=s.result, status=s.status) for i, s in enumerate(steps)]
    actions = _actions(steps)
    assert "trip" not in actions and "steer" not in actions


def test_is_refused_reads_failed_writes_and_authorization_errors() -> None:
    from plateau.signals.progress import is_refused

    def call(command: str, result: str, status: str = "error") -> Step:
        return Step(index=0, text="", tool="bash", args={"command": command}, result=result, status=status)

    assert is_refused(call('psql -c "CREATE INDEX i ON t (a)"', "ERROR:  must be owner of table t"))
    assert is_refused(call("aws organizations list-policies", "An error occurred (AccessDeniedException): access denied"))
    assert is_refused(call("gh pr merge 12", "HTTP 403: Forbidden"))
    assert not is_refused(call("pytest -q", "FAILED tests/test_a.py::test_x - AssertionError"))
    assert not is_refused(call('psql -c "CREATE INDEX i ON t (a)"', "CREATE INDEX", status="ok"))


_LINT_FINDINGS = [
    "C0114: Missing module docstring (missing-module-docstring)",
    "C0116: Missing function or method docstring (missing-function-docstring)",
    "W0611: Unused import re (unused-import)",
    "C0103: Variable name \"e\" doesn't conform to snake_case naming style (invalid-name)",
    "W0703: Catching too general exception Exception (broad-except)",
    "R0801: Similar lines in 2 files",
    "W1510: Using subprocess.run without explicitly set `check` is not recommended. (subprocess-run-check)",
]


def _lint_report(rng: random.Random, modules: list[str], findings: list[str]) -> str:
    lines = []
    for module in modules:
        lines.append(f"************* Module {module}")
        lines += [f"{module}.py:{rng.randint(1, 80)}:{rng.randint(0, 12)}: {f}" for f in findings]
    lines += ["", "-" * 35, f"Your code has been rated at {rng.uniform(1, 9):.2f}/10"]
    return "\n".join(lines)


def test_a_linter_report_whose_findings_change_after_edits_never_trips() -> None:
    """A checker whose non-zero exit is its report (pylint exits 16/24 with findings), re-run
    after edits elsewhere: the same header and a finding that stays, but the list changes every
    time (a finding added, one gone, another module), the positions move. Every skeleton a
    single line could give is the same, the report is not: it never trips."""
    for seed in range(5):
        rng = random.Random(100 + seed)
        steps = explore(rng, 4)
        lists = [sorted(rng.sample(range(1, len(_LINT_FINDINGS)), k)) for k in (1, 2, 3, 4, 5, 6)]
        for k, chosen in enumerate(lists + lists[::-1][1:]):  # grows, then shrinks again
            steps.append(Step(index=len(steps), text=f"Adjusting the checker, attempt {k}.", tool="bash",
                              args={"command": f"sed -i 's/min_lines={k}/min_lines={k + 1}/' pylint/checkers/similar.py"},
                              result="", status="ok"))
            findings = [_LINT_FINDINGS[0], *(_LINT_FINDINGS[j] for j in chosen)]
            steps.append(Step(index=len(steps), text="Running pylint on the reproduction again.", tool="bash",
                              args={"command": "python3 -m pylint --rcfile=pylintrc_repro reproduce_issue_2.py"},
                              result=_lint_report(rng, ["reproduce_issue_2"], findings), status="error"))
        assert "trip" not in _actions(steps), seed


def test_a_link_check_whose_broken_links_are_the_reproduction_never_trips() -> None:
    """``sphinx-build -b linkcheck`` over a reproduction whose broken links are the point: the
    same broken link every time, while the document is edited and other links come and go."""
    rng = random.Random(31)
    steps = explore(rng, 4)
    extra = ["ok        foo.txt", "broken    doesntexist - path not found", "ok        bar.txt",
             "broken    ../foo.txt - path not found", "redirect  https://example.org - permanently to https://example.org/"]
    for k in range(8):
        body = [f"(line {rng.randint(1, 30):4d}) {e}" for e in extra[: (k % len(extra)) + 1]]
        body.append(f"(line {rng.randint(1, 30):4d}) broken    https://lkfqhlkghflkhs - HTTPSConnectionPool(host='lkfqhlkghflkhs', "
                    "port=443): Max retries exceeded with url: / (Caused by NameResolutionError(\"Failed to resolve\"))")
        steps.append(Step(index=len(steps), text=f"Editing the reproduction, variant {k}.", tool="bash",
                          args={"command": f"cat <<'EOF' > reproduce_issue/index.rst\nvariant {k}\nEOF\ncd reproduce_issue && "
                                           "sphinx-build -b linkcheck . _build"},
                          result="Running Sphinx v3.2.0\nwriting output... [100%] index\n\n" + "\n".join(body)
                          + f"\n\nbuild finished with problems, {k % 3 + 1} warning.", status="error"))
    assert "trip" not in _actions(steps)


def test_the_same_traceback_after_each_attempted_fix_still_trips_at_the_fourth() -> None:
    """The kind ``tool.error_repeat`` exists for, with reports around it: edits to other files,
    then the same traceback (its line numbers moving as the edits shift the code), the same
    compile error at a moving position, the same "command not found": each trips at its 4th."""
    rng = random.Random(41)
    failures = {
        "traceback": lambda: ("Traceback (most recent call last):\n"
                              f'  File "/repo/app/views.py", line {rng.randint(10, 90)}, in handler\n'
                              "    return render(ctx)\n"
                              f'  File "/repo/app/render.py", line {rng.randint(10, 90)}, in render\n'
                              "    raise KeyError(name)\nKeyError: 'tz'"),
        "compile": lambda: (f"src/parser.c:{rng.randint(100, 140)}:{rng.randint(2, 30)}: error: 'tok' undeclared "
                            "(first use in this function)\n"
                            f"src/parser.c:{rng.randint(100, 140)}:{rng.randint(2, 30)}: note: each undeclared identifier "
                            "is reported only once\nmake: *** [Makefile:14: parser.o] Error 1"),
        "not found": lambda: "bash: line 1: tox: command not found",
    }
    for name, failure in failures.items():
        steps = explore(rng, 4)
        for k in range(5):
            steps.append(Step(index=len(steps), text=f"Trying fix {k}.", tool="edit_file",
                              args={"path": f"src/mod_{k}.py", "old": "a = 1", "new": f"a = {k + 2}"},
                              result="Replaced 1 occurrence", status="ok"))
            steps.append(Step(index=len(steps), text=f"Checking again (attempt {k + 1}).", tool="bash",
                              args={"command": "make test"}, result=failure(), status="error"))
        actions = _actions(steps)
        checks = [i for i, s in enumerate(steps) if "make test" in s.args]
        assert actions[checks[2]] == "steer", name
        assert actions[checks[3]] == "trip", name
