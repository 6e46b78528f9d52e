"""Per-tool policy: a tool that legitimately repeats has its own bounds; an ignored tool is never judged."""

from __future__ import annotations

import pytest

from plateau import Client, Config, ToolPolicy
from plateau.engine import Engine
from plateau.errors import InvalidArgument
from plateau.policy import UNJUDGED_REASON, config_for, parse_tool_policy
from plateau.types import Action, Step


def _stepping(n: int, tool: str = "debugger_next") -> list[Step]:
    """A debugger stepping through a loop body: the same command, the same line, n times."""
    return [
        Step(
            index=i,
            text="Stepping through the accumulation loop.",
            tool=tool,
            args={},
            result="> billing/invoice.py(12)total()\n-> total += item.price",
        )
        for i in range(n)
    ]


def _actions(engine: Engine, run_id: str, steps: list[Step]) -> list[Action]:
    client = Client.local(engine=engine)
    return [client.observe(run_id, s).action for s in steps]


def test_without_a_policy_a_stepping_debugger_trips(real_cached) -> None:  # type: ignore[no-untyped-def]
    """The same debugger command and line four times is an identical-call loop by the default bounds."""
    actions = _actions(Engine(embedder=real_cached), "dbg", _stepping(6))
    assert Action.TRIP in actions[:6]


def test_a_tool_with_its_own_bounds_repeats_until_them(real_cached) -> None:  # type: ignore[no-untyped-def]
    """debugger_next=6:8: five identical steps pass, the 6th steers, the 8th trips (the default trips at the 4th)."""
    engine = Engine(Config(tool_policy={"debugger_next": ToolPolicy(repeat_steer=6, repeat_trip=8)}), real_cached)
    actions = _actions(engine, "dbg", _stepping(8))
    assert actions[:5] == [Action.CONTINUE] * 5
    assert actions[5] is Action.STEER and actions[7] is Action.TRIP


def test_an_ignored_tool_is_never_judged_but_counted(real_cached) -> None:  # type: ignore[no-untyped-def]
    """status=ignore: every step continues with reason policy.unjudged and the run still counts them."""
    engine = Engine(Config(tool_policy="job_status=ignore"), real_cached)
    client = Client.local(engine=engine)
    verdicts = [client.observe("poll", s) for s in _stepping(8, tool="job_status")]
    assert {v.action for v in verdicts} == {Action.CONTINUE}
    assert all(v.reasons == (UNJUDGED_REASON,) for v in verdicts)
    assert client.get_run("poll").steps == 8


def test_policy_text_and_validation() -> None:
    """The text form parses; malformed items and bounds raise InvalidArgument naming tool_policy."""
    policy = parse_tool_policy("debugger_next=20:40, pager = ignore")
    assert policy == {"debugger_next": ToolPolicy(20, 40), "pager": ToolPolicy(judge=False)}
    config = Config(window=40, tool_policy=policy)
    assert config_for(config, "pager") is None and config_for(config, "other") is config
    bounded = config_for(config, "debugger_next")
    assert bounded is not None and (bounded.repeat_steer, bounded.repeat_trip) == (20, 40) and bounded.poll_trip > bounded.poll_steer
    for bad in ("next", "next=3", "next=5:4", "next=a:b", "=ignore", "next=20:40"):
        with pytest.raises(InvalidArgument, match="tool_policy"):
            Config(tool_policy=bad)


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        ("8:6", "steer bound 8 is greater than trip bound 6; steer must be less than trip"),
        ("6:6", "steer bound 6 equals trip bound 6; steer must be less than trip"),
    ],
)
def test_a_steer_bound_not_below_the_trip_bound_names_the_tool_and_both_bounds(rule: str, problem: str) -> None:
    """STEER >= TRIP is a ValueError naming the tool (field tool_policy.NAME) and both bounds, in every form a policy comes in."""
    from plateau import convert
    from plateau.v1 import plateau_pb2 as pb

    steer, trip = (int(n) for n in rule.split(":"))
    forms = [
        lambda: parse_tool_policy(f"pager=ignore,debugger_next={rule}"),
        lambda: parse_tool_policy({"debugger_next": {"repeat_steer": steer, "repeat_trip": trip}}),
        lambda: Config(tool_policy={"debugger_next": rule}),
        lambda: convert.tool_policy_from_pb({"debugger_next": pb.ToolPolicy(repeat_steer=steer, repeat_trip=trip)}),
    ]
    for form in forms:
        with pytest.raises(ValueError, match=problem) as info:
            form()
        assert isinstance(info.value, InvalidArgument) and info.value.field == "tool_policy.debugger_next"
        assert str(info.value).startswith("tool_policy.debugger_next: ")


def test_a_run_declares_its_own_policy_over_grpc(hashing_server: str) -> None:
    """A session's tool_policy travels with its steps: 6:8 for the debugger, ignore for the poller; bad bounds are refused."""
    from plateau.errors import InvalidArgument as Invalid

    with Client.remote(hashing_server) as client:
        run = client.session(tool_policy={"debugger_next": "6:8", "job_status": "ignore"})
        actions = [run.observe(s).action for s in _stepping(8)]
        assert actions[:5] == [Action.CONTINUE] * 5 and actions[5] is Action.STEER and actions[7] is Action.TRIP
        polls = client.session(tool_policy={"job_status": ToolPolicy(judge=False)})
        assert {polls.observe(s).reasons for s in _stepping(6, tool="job_status")} == {(UNJUDGED_REASON,)}
        plain = client.session()
        assert Action.TRIP in [plain.observe(s).action for s in _stepping(6)]
        with pytest.raises(Invalid, match="window"):
            client.observe("too-long", _stepping(1)[0], tool_policy={"debugger_next": "20:40"})
        checked = client.check(run.run_id, {"tool": "job_status", "args": {}})
        assert checked.reasons == (UNJUDGED_REASON,)  # the run's own rule applies to checks too


def test_a_run_s_policy_survives_a_durable_store(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The run's declared policy is part of its stored state: a new engine on the same SQLite file still applies it."""
    from plateau.embed import HashingEmbedder
    from plateau.store.sqlite import SqliteStore

    path = tmp_path / "runs.sqlite"
    first = Engine(embedder=HashingEmbedder(), store=SqliteStore(path))
    client = Client.local(engine=first)
    client.observe("dur", _stepping(1, tool="job_status")[0], tool_policy={"job_status": "ignore"})
    first.close()
    second = Engine(embedder=HashingEmbedder(), store=SqliteStore(path))
    try:
        verdicts = [Client.local(engine=second).observe("dur", s) for s in _stepping(6, tool="job_status")[1:]]
        assert all(v.reasons == (UNJUDGED_REASON,) for v in verdicts)
    finally:
        second.close()
