"""The breaker as a state machine (hypothesis), and run-level properties of the engine."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from plateau.breaker import Breaker
from plateau.config import Config
from plateau.embed import HashingEmbedder
from plateau.engine import Engine
from plateau.fuse import Evidence
from plateau.types import Action, BreakerState, Step


class BreakerMachine(RuleBasedStateMachine):
    """Random evidence sequences against the breaker's rules."""

    def __init__(self) -> None:
        super().__init__()
        self.probe = False
        self.breaker = Breaker(Config(steer_cap=2, probe=self.probe))
        self.index = 0
        self.steered_in_stall = False
        self.opened = False
        self.consecutive = 0

    @rule(score=st.sampled_from([0.0, 0.3, 0.5, 0.8, 1.0, 1.5]), structural=st.booleans(), calibrating=st.booleans())
    def step(self, score: float, structural: bool, calibrating: bool) -> None:
        evidence = Evidence(score, (), structural, "x", {})
        was_open = self.opened
        decision = self.breaker.decide(self.index, evidence, calibrating=calibrating)
        self.index += 1
        if was_open:
            assert decision.action is Action.TRIP, "open stays open until a probe or reset"
            return
        if decision.action is Action.TRIP:
            assert score >= 1.0, "only trip-level evidence trips (the steer cap never does)"
            assert structural or self.steered_in_stall, "semantic evidence trips only after a steer"
            self.opened = True
        elif decision.action is Action.STEER:
            assert score >= 0.5
            self.steered_in_stall = True
            self.consecutive += 1
            if self.consecutive > self.breaker.config.steer_cap:
                assert decision.message is None and "breaker.steer_capped" in decision.reasons
            else:
                assert decision.message
        else:
            assert score < 0.5
            self.steered_in_stall = False
            self.consecutive = 0

    @invariant()
    def steers_are_capped(self) -> None:
        assert self.breaker.consecutive_steers <= self.breaker.config.steer_cap

    @invariant()
    def state_matches(self) -> None:
        if self.opened:
            assert self.breaker.state is BreakerState.OPEN


TestBreakerMachine = BreakerMachine.TestCase
TestBreakerMachine.settings = settings(max_examples=150, stateful_step_count=30, deadline=None)


WORDS = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec "
    "romeo sierra tango uniform victor whiskey xray yankee zulu amber basalt cobalt dune ember fjord granite "
    "harbor iris jasper kelp lagoon meadow nectar onyx prairie quartz river summit tundra umber valley willow"
).split()


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.sampled_from(["read_file", "bash", "grep", "edit"]), min_size=5, max_size=30),
    st.text(min_size=0, max_size=40),
    st.randoms(use_true_random=False),
)
def test_a_run_whose_every_result_is_new_never_trips(tools: list[str], narration: str, rnd) -> None:  # type: ignore[no-untyped-def]
    """Whatever the tools and however the narration repeats, a new result every step never trips."""
    engine = Engine(embedder=HashingEmbedder())
    for i, tool in enumerate(tools):
        # new content every step: terms the run has never seen, not old words reshuffled
        result = " ".join(f"{w}{i}x{rnd.randrange(10**6)}" for w in rnd.sample(WORDS, 12))
        v = engine.observe("r", Step(index=i, text=narration, tool=tool, args={"i": i % 3}, result=result))
        assert v.action is not Action.TRIP
