"""Fusion: one step's findings → one stall score with reason codes, under a declared policy.

Each detector (:mod:`plateau.analysis.detectors`) reports a *finding*: a reason code, a score on
one scale (below 0.5 the step is fine, 0.5 is steer level, 1.0 trip level) and what it saw in
plain words. :data:`POLICY` (assembled from the detectors' declared rules,
:mod:`plateau.analysis.registry`) says, in one table, what each kind of finding may do, and
:func:`fuse` applies it; fusion holds no analysis of its own:

- **Structural recurrence trips on its own count** (``"trip"``, no warm-up): the same call
  with the same result (``tool.repeat``; a check re-run after a successful mutation is
  verification, not a repeat, unless it fails again), cycles (``tool.cycle``), the same error
  within ``2 * window`` steps across edits that change nothing that matters
  (``tool.error_repeat``), the same error from varied calls (``tool.same_outcome``), test
  states that return (``progress.oscillation``), near-identical or verbatim restatements
  without a call (``semantic.near_duplicate``, ``semantic.cycle``, ``text.ngram``).
- **Waiting is bounded, not judged as a loop**: a result that reads as waiting (a pending
  status, a check that sleeps first), a poll whose result moved only in what masking removes,
  and a failure the service calls transient (429, 503, "overloaded") count against the poll
  limits (``poll_steer``, ``poll_trip``) instead of the repeat limits.
- **Accumulated evidence trips only after a steer** (``"trip_after_steer"``): courtesy loops
  (``text.phatic``), talk instead of action (``text.talk``: a tool-using agent that keeps
  talking while the user brings nothing new; ``text.claim``: it keeps saying something is
  done with no write behind it; ``text.unchanged``: a call was refused and it keeps saying
  its re-checks since change nothing),
  thrash (``tool.thrash``), and the calibrated
  stall (``progress.none``: the semantic and the information-gain CUSUMs both at steer level
  or more, their geometric mean scored).
- **Some evidence only ever steers** (``"steer"``): the semantic CUSUM alone
  (``semantic.stall``) and lexical restatement (``text.lexical``: shared words are not shared
  meaning).

The calibrated evidence (``progress.none``, ``semantic.stall``) also needs **recurrence
against the run's memory** (:func:`recurs`): at least ``RECURRENT_SHARE`` of the last
``window`` steps found what an earlier step had already found
(:class:`~plateau.signals.recurrence.MemorySignals`), unless no recent step consulted the
environment at all (pure reasoning or chat, judged by its narration alone). Small movement
while the environment keeps answering something new is work, not a stall (issue 11: runs
that move from exploring to executing were tripped on this evidence alone). The calibrated
tests themselves re-calibrate on steps that bring new facts
(:mod:`plateau.stats.calibrated`), so such steps never add evidence.

The step's score is the largest capped finding; the breaker (:mod:`plateau.breaker`) turns it
into continue, steer or trip, tripping at once only on structural evidence.

Reason codes: ``tool.repeat``, ``tool.cycle``, ``tool.error_repeat``, ``tool.same_outcome``,
``tool.thrash``, ``progress.oscillation``, ``progress.none``, ``semantic.near_duplicate``,
``semantic.cycle``, ``semantic.stall``, ``text.ngram``, ``text.lexical``, ``text.phatic``,
``text.talk``, ``text.claim``, ``text.unchanged``, and ``progress.marker`` (a progress marker, not evidence of a stall).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from plateau.analysis.detector import Finding, Rule
from plateau.analysis.facts import StepFacts
from plateau.analysis.registry import DETECTORS, POLICY
from plateau.analysis.scale import STEER_LEVEL, TRIP_LEVEL, count_score
from plateau.config import Config
from plateau.signals.recurrence import MemorySignals

__all__ = ["POLICY", "RECURRENT_SHARE", "STEER_LEVEL", "TRIP_LEVEL", "Evidence", "Rule", "count_score", "evidence_of", "fuse", "recurs"]

#: Calibrated evidence (``progress.none``) reaches trip level only when at least this share of
#: the last ``window`` steps found what an earlier step had already found (a tool result
#: near-identical to an earlier one; :class:`~plateau.signals.recurrence.MemorySignals`), or when
#: no recent step consulted the environment at all (pure talk, judged by its narration alone).
#: Half: a stall is most of the recent steps repeating an answer, not a few re-checks among
#: new findings and actions.
RECURRENT_SHARE = 0.5


@dataclass(frozen=True)
class Evidence:
    """The fused evidence of one step.

    Attributes
    ----------
    score
        Stall score (float in [0, 2]): the largest component.
    reasons
        Reason codes of every component at or above steer level, plus ``progress.marker``.
    structural
        True when the largest component is structural (may trip without a prior steer).
    what
        Human-readable description of what repeats (for the steer/trip message), or None.
    components
        Score of each component, by reason code.
    """

    score: float
    reasons: tuple[str, ...]
    structural: bool
    what: str | None
    components: dict[str, float]


def recurs(memory: MemorySignals | None, config: Config) -> bool:
    """Whether the run shows recurrence against its memory: at least ``RECURRENT_SHARE`` of the
    last ``window`` steps found what an earlier step had found, or no recent step called a
    tool at all (pure talk, judged by its narration alone)."""
    if memory is None:
        return True
    if memory.results == 0:
        # no recent call answered anything: pure talk is judged by its narration; actions and
        # waits without answers are judged by their own structure, not by recurrence
        return memory.calls == 0
    return memory.recurrent >= RECURRENT_SHARE * config.window


def fuse(findings: Mapping[str, Finding], facts: StepFacts, config: Config) -> Evidence:
    """Apply :data:`POLICY` to one step's findings and pick the strongest.

    Parameters
    ----------
    findings
        Reason code → :class:`~plateau.analysis.detector.Finding`, in registry order (the
        order breaks ties between equal scores).
    facts
        The step's facts (recurrence against the run's memory, progress markers).
    config
        The thresholds in force for this step.

    Returns
    -------
    Evidence
        The step's score, reasons and message; a finding whose rule needs recurrence is
        dropped when the run shows none, a ``"steer"`` rule is capped at steer level.
    """
    recurring = recurs(facts.memory, config)
    parts: dict[str, tuple[float, bool, str]] = {}
    for code, finding in findings.items():
        rule = POLICY[code]
        if rule.needs_recurrence and not recurring:
            continue  # the environment keeps answering something new: small movement is work
        score = min(finding.score, STEER_LEVEL) if rule.acts == "steer" else finding.score
        parts[code] = (score, rule.acts == "trip", finding.what)
    reasons = sorted(code for code, (score, _, _) in parts.items() if score >= STEER_LEVEL)
    if facts.progress.progress:
        reasons.append("progress.marker")
    components = {code: round(score, 4) for code, (score, _, _) in parts.items()}
    if not parts:
        return Evidence(0.0, tuple(reasons), False, None, components)
    # structural evidence at trip level trips at once, even beside a larger finding that may
    # trip only after a steer
    _, (top, structural, what) = max(parts.items(), key=lambda kv: (kv[1][1] and kv[1][0] >= TRIP_LEVEL, kv[1][0], kv[1][1]))
    return Evidence(round(top, 4), tuple(reasons), structural, what, components)


def evidence_of(facts: StepFacts, config: Config) -> Evidence:
    """The evidence of ``facts`` judged by fresh detectors (no run history): every registered
    detector's finding, fused. For tests and tools that build facts by hand."""
    findings: dict[str, Finding] = {}
    for cls in DETECTORS:
        finding = cls().update(facts, config)
        if finding is not None:
            findings[finding.code] = finding
    return fuse(findings, facts, config)
