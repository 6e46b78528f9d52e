"""Information gain of a run: how many content terms each step adds that the run never had.

A stuck run keeps talking and keeps calling tools, but stops bringing anything new: no new
file names, numbers, error messages, facts. Per step, this module counts *new content terms*
(lower-cased word tokens, stop words and one-character tokens removed) that no earlier step
of the run contained, and feeds ``log(1 + count)`` to calibrated stall tests (median/MAD
baseline learned on the run's own warm-up, lower CUSUM;
:class:`~plateau.stats.calibrated.CalibratedStallTest`). Two counts are tested:

- **step gain**: new terms of the step's text and the head of its tool result;
- **observed gain**: what the environment returned, for a step with a tool result: the terms
  of the result's head that neither the run so far, nor the call's own arguments (a search
  echoes its query, an error its path), nor the step's narration contained. Narration is not
  evidence of information: an agent that has run out of ideas keeps wording new guesses
  ("maybe it lives in a shared package") while every answer it gets says the same nothing. A
  step without a result (a chat turn, a thought) is judged by the new terms of its text.

New vocabulary naturally thins out over a long productive run (Heaps' law: the vocabulary of
a text grows sub-linearly with its length), so neither test is used alone: the fusion trips a
semantic stall only when the step-gain test *and* the semantic movement test both accumulate
evidence, and thrash only when the observed-gain test accumulates evidence while most recent
calls fail or come back empty (:func:`plateau.fuse.fuse`). These are lexical measures of
information gain, not of lexical similarity.

References
----------
H. S. Heaps, *Information Retrieval: Computational and Theoretical Aspects*, Academic Press,
1978 (vocabulary growth).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import deque
from dataclasses import dataclass, replace
from typing import Any

from plateau import lexicon
from plateau.config import Config
from plateau.signals.progress import normalize_asked, normalize_result, normalize_volatile, strip_placeholders
from plateau.signals.semantic import calibrated_test
from plateau.signals.textual import STOP_WORDS, tokenize

__all__ = [
    "NEW_FACT_TERMS",
    "NEW_WRITE_TERMS",
    "InformationSignals",
    "InformationTracker",
    "asked_tokens",
    "content_terms",
    "observed_terms",
    "write_targets",
]

#: Observed terms a result (or new terms a user message) must add to count as new facts. One
#: term is the noise floor of a re-run (a changed number, a temp name the masks missed); two
#: are the smallest fact ("7 rows" after "5 rows" adds one term; "7 rows, 2 skipped" two).
NEW_FACT_TERMS = 2
#: Content terms a successful mutation's arguments must write that are new to the run for
#: the step to count as work: one, because the smallest new action is the same change made
#: in a new place (the next file of a migration adds one term, its path); rewriting a note
#: with what the run already knows adds none.
NEW_WRITE_TERMS = 1
#: Characters of a tool result read for terms (its head; long logs repeat themselves).
RESULT_CHARS = 3000
#: Characters of a call's arguments read for terms (what a write wrote, what a result echoes):
#: their head, 64 KiB. The principle is cost: tokenising 64 KiB takes ~30 ms, the order of
#: embedding the step, so reading terms never costs a step more than its embedding, however
#: large its arguments (megabytes of args cost seconds of CPU that every other call waits for:
#: issue 22, item 2). A write's novelty shows in its head (one new term is enough,
#: :data:`NEW_WRITE_TERMS`).
ARGS_TERMS_CHARS = 65_536
#: Most distinct terms remembered per run (a bound on memory; ~50 bytes each).
MAX_TERMS = 200_000
#: Most tool names whose last arguments are remembered per run.
MAX_TOOLS = 1_000
#: Distinct earlier calls of a tool a new call is compared with to find the series it
#: continues (a batch alternates two or three calls: check, compare, note).
SERIES_CALLS = 4
#: The longest changed stretch (characters, widened to whole tokens) that names the next item
#: of a series: a table, a role, a host, a day, a file path. A moved window, a reworded query
#: or another statement is longer.
ITEM_CHARS = 40
#: Characters of a call's arguments compared with the previous call of its tool (the
#: comparison is quadratic in the worst case; item names sit near the start of arguments).
ARGS_CHARS = 500

_BOUNDARY = frozenset(" \t\n\"'/\\=:,;()[]{}<>|&")
_BOUNDARY_RE = re.compile("[" + re.escape("".join(sorted(_BOUNDARY))) + "]+")


def result_tokens(result: str) -> set[str]:
    """Lower-cased tokens of a result split at the :func:`changed_span` delimiters (at least 2
    characters): the items a listing names (``ci-runner-02``, ``b.py``)."""
    return {t for t in _BOUNDARY_RE.split(result.lower()) if len(t) >= 2}


def changed_span(previous: str, current: str) -> str:
    """The part of ``current`` that differs from ``previous``, widened to whole tokens
    (delimited by blanks, quotes, slashes, brackets and separators): the ``ci-runner-02`` of
    ``ssh ci-runner-02 uptime`` after ``ssh ci-runner-01 uptime``; ``""`` when equal.
    Several changes give one span from the first to the last."""
    if previous == current:
        return ""
    # from the first character that differs to the last (common prefix and suffix trimmed):
    # linear, where an alignment (difflib) is quadratic on long arguments
    start = len(os.path.commonprefix([previous, current]))
    limit = min(len(previous), len(current)) - start
    suffix = len(os.path.commonprefix([previous[::-1], current[::-1]]))
    end = len(current) - min(suffix, limit)
    while start > 0 and current[start - 1] not in _BOUNDARY:
        start -= 1
    while end < len(current) and current[end] not in _BOUNDARY:
        end += 1
    return current[start:end]


def _new_item(span: str, unasked: set[str]) -> set[str]:
    """The tokens never asked about before in a changed stretch of arguments short enough to
    name one item (``ITEM_CHARS``); empty otherwise."""
    return asked_tokens(span) & unasked if 0 < len(span) <= ITEM_CHARS else set()


def asked_tokens(args: str) -> set[str]:
    """The tokens a call's arguments (JSON text) ask about: lower-cased, at least 3 characters,
    split at the :func:`changed_span` delimiters, with clock readings masked and calendar dates
    kept (:func:`plateau.signals.progress.normalize_asked`)."""
    return {t for t in _BOUNDARY_RE.split(normalize_asked(args[: ARGS_CHARS * 4]).lower()) if len(t) >= 3}


#: Argument keys that name what a write writes to.
_TARGET_KEY = lexicon.pattern("write-target-keys", prefix="^", suffix="$", flags=re.IGNORECASE)


def write_targets(args: str | None, value: Any = None) -> set[str]:
    """The files a write's arguments (a JSON object as text, or ``value``, that text parsed)
    name as its target: the string values of keys such as ``path``, ``file``, ``target``
    (lower-cased); empty for anything else (a shell command names its target in its own syntax)."""
    if value is None:
        try:
            value = json.loads(args) if args else None
        except ValueError:
            return set()
    if not isinstance(value, dict):
        return set()
    return {v.strip().lower() for k, v in value.items() if isinstance(v, str) and v.strip() and _TARGET_KEY.match(k)}


def content_terms(text: str) -> set[str]:
    """Lower-cased word tokens of ``text`` without stop words and one-character tokens."""
    return {t for t in tokenize(text) if len(t) > 1 and t not in STOP_WORDS}


_ID_DIGITS = re.compile(r"\d")
_NUMBER = re.compile(r"[\d.,:%+\-]+[a-z]{0,2}")


def observed_terms(result: str) -> set[str]:
    """Content terms of a tool result that can be facts: volatile values masked first
    (timestamps, UUIDs, hex ids, PIDs, durations, temp paths, opaque handles;
    :func:`plateau.signals.progress.normalize_result`) and their placeholders taken out
    (:func:`plateau.signals.progress.strip_placeholders`), so that what masking removes is
    never the fact that changed; and tokens that mix letters with four
    or more digits dropped (log-file stamps such as ``19t10_05_40_118z``, request and build
    ids): they change on every call without saying anything about the task. Plain numbers
    ("1200 rows", "90 days") stay."""
    return {
        t
        for t in content_terms(strip_placeholders(normalize_result(result)))
        if t.isdigit() or len(_ID_DIGITS.findall(t)) < 4
    }


@dataclass(frozen=True)
class InformationSignals:
    """Information-gain signals of one step.

    Attributes
    ----------
    new_terms
        Content terms this step's text and result add to the run (int >= 0).
    observed_terms
        Content terms the tool result adds that the run, the call's arguments and the step's
        text did not contain (int >= 0; the text's new terms for a step without a result).
    calibrating
        True while the tests are learning the run's baseline.
    z
        Robust z-score of ``log(1 + new_terms)`` (None while calibrating).
    cusum
        CUSUM statistic of the step-gain test (baseline-scale units, >= 0).
    observed_calibrating
        True while the observed-gain test is learning (its samples are the calls that
        answered: output, and for a failure, output with a new term).
    observed_cusum
        CUSUM statistic of the observed-gain test (baseline-scale units, >= 0).
    calls_failing
        Of the last ``window`` tool calls since the last progress (this one included), how
        many came back empty or failed without adding an observed term (int >= 0; 0 for a
        step without a result).
    call_failing
        This step's call is one of ``calls_failing``: it came back empty or failed without
        adding an observed term (a check's predicted step counts a call that has not run;
        :attr:`plateau.analysis.facts.StepFacts.predicted`).
    iterating
        True when what changed since the previous call of the same tool (:func:`changed_span`,
        widened to whole tokens) is one token that appeared in an earlier tool result (the next
        host of an inventory, the next file of a listing): work through items the environment
        named, not guesses built from familiar words. Its empty or repeated answer is that
        item's answer, so it never counts as a failing call.
    next_item
        A new question answered: a call never made before (``call_seen`` False:
        :attr:`plateau.signals.progress.ProgressSignals.call_seen`, clock readings masked and
        calendar dates kept) did not fail, and its answer is not verbatim an earlier
        one and names at least one observed term (:func:`observed_terms`) the run had not
        seen. Its answer is new facts from one new term on, numbers included (the noise floor
        of two terms is a re-run's), and it is not recurrence however alike it reads to the
        previous item's (issue 11: a batch over items, a day at a time or a region at a time, is work; a stall
        asks the same questions again, or gets the same answers).
    names_item
        The call continues a series over items (one of the tool's last ``SERIES_CALLS``
        distinct calls with one stretch of at most ``ITEM_CHARS`` characters changed to a
        token never asked about before: the next table of an audit, the next host, the next
        day) and the step's narration names that item ("Role web-admin: unchanged since the
        last audit"): what it says is that item's finding.
    verifies
        A new question whose arguments name something the latest successful write asked about
        first (:func:`asked_tokens`: the release it upgraded, the node it drained): its answer
        verifies that write, and is not recurrence however alike it reads to the answer for
        the previous item (issue 11: a rollout region by region, a drain node by node).
    user_terms
        Content terms the user message that arrived before this step adds to the run (int
        >= 0; 0 without one): a user who says something new brings facts to the run.
    new_facts
        The step brought facts new to the run: a non-empty tool result with at least
        ``NEW_FACT_TERMS`` observed terms that are words, not bare numbers or quantities
        (``1.93s``, ``61%``: a metric read again is a re-measurement), and no near-identical
        earlier observation; a successful mutation whose arguments write at least
        ``NEW_WRITE_TERMS`` content term new to the run, or that writes a file the run never
        wrote (:func:`write_targets`: the same edit in a new place, though a listing named the
        file first; rewriting a note with what the run already knows is not); a fact
        marker (a progress marker, a recovery, an error the run had never seen); or a user
        message with at least ``NEW_FACT_TERMS`` terms new to the run. The narration never
        counts: a stuck agent keeps wording new guesses. A step with new facts is evidence
        against a stall and re-calibrates the baselines
        (:meth:`plateau.stats.calibrated.CalibratedStallTest.update`; issue 11: a change of
        regime is not a stall, and a run whose every step brings new facts never trips).
    """

    new_terms: int = 0
    observed_terms: int = 0
    calibrating: bool = True
    z: float | None = None
    cusum: float = 0.0
    observed_calibrating: bool = True
    observed_cusum: float = 0.0
    calls_failing: int = 0
    call_failing: bool = False
    iterating: bool = False
    next_item: bool = False
    names_item: bool = False
    verifies: bool = False
    user_terms: int = 0
    new_facts: bool = False


class InformationTracker:
    """Per-run vocabulary, the two calibrated information-gain tests and the failing-call count.

    Parameters
    ----------
    config
        Uses ``window``, ``warmup_steps``, ``baseline_size``, ``scale_floor``, ``cusum_k``,
        ``cusum_steer`` and ``cusum_trip`` (the same settings as the semantic test).
    """

    def __init__(self, config: Config) -> None:
        self.config = config
        self._terms: set[str] = set()
        self._steps = 0
        self._test = calibrated_test(config)
        self._observed = calibrated_test(config)
        self._failing: deque[bool] = deque(maxlen=config.window)
        self._result_tokens: set[str] = set()
        self._last_args: dict[str, deque[str]] = {}  # per tool, its last distinct arguments, latest last
        self._asked_tokens: set[str] = set()  # the tokens of every call's arguments so far
        self._changed: set[str] = set()  # the tokens the latest write asked about first (its items)
        self._targets: set[str] = set()  # the files written so far (:func:`write_targets`)

    def reset_evidence(self) -> None:
        """Forget accumulated evidence and failing calls (on progress), keeping the vocabulary
        and baselines."""
        self._test.reset_evidence()
        self._observed.reset_evidence()
        self._failing.clear()

    def update(
        self,
        text: str,
        result: str | None,
        *,
        args: str | None = None,
        tool: str | None = None,
        failed: bool = False,
        informative: bool = True,
        user: str | None = None,
        acknowledged: bool = False,
        result_recurrent: bool = False,
        marker: bool = False,
        mutation: bool = False,
        novel: bool = True,
        call_seen: bool = False,
        args_value: Any = None,
    ) -> InformationSignals:
        """Count the step's new terms and judge them.

        ``result`` is the tool result (None for a step without one), ``args`` the call's
        arguments as text (their terms are an echo, not an observation), ``tool`` its name and
        ``failed`` whether the call failed; ``informative=False`` for a structural repeat
        (judged but not learned). ``call_seen`` says the same call was made before (a
        re-query, not a new question) and ``novel`` that the normalised result is new to the
        run (:class:`~plateau.signals.progress.ProgressSignals`); ``args_value`` is ``args``
        parsed, when the caller has it (:attr:`plateau.types.Step.args_value`).
        Only calls that answered are samples of the observed-gain test: an empty output, or a
        failure that adds no observed term (an error the run has already seen), is counted in
        ``calls_failing`` instead, so the test asks whether the calls that *do* answer still say
        anything new. A failure with new terms (a fix loop's changing errors) is an answer.
        ``acknowledged=True`` leaves the step out of ``calls_failing``'s window: an empty
        success (a write acknowledged) or a turn the harness refused for its format (it ran
        nothing) is neither a call that failed nor one that answered.
        """
        heard = content_terms(user) - self._terms if user else set()
        # what a mutation wrote (a new file, a new record) is the agent's work, not an echo
        wrote = content_terms(normalize_volatile((args or "")[:ARGS_TERMS_CHARS])) if mutation else set()
        wrote_new = wrote - self._terms - heard
        # the same change made in a new place: a write to a file it never wrote before (the next
        # file of a migration), even when every word of it is known from a listing
        targets = write_targets(args, args_value) if mutation else set()
        new_place = bool(targets - self._targets)
        if len(self._targets) < MAX_TERMS:
            self._targets |= targets
        if heard and len(self._terms) < MAX_TERMS:
            self._terms |= heard
        said = content_terms(text)
        answered = False
        call_failing = False
        iterating = False
        names_item = False
        asks_new = False
        checks_change = False
        if tool is not None:
            asks_new = not call_seen
            tokens = asked_tokens(args or "")
            unasked = tokens - self._asked_tokens
            if mutation:
                self._changed = tokens - self._asked_tokens
            else:
                checks_change = bool(tokens & self._changed)
            if len(self._asked_tokens) < MAX_TERMS:
                self._asked_tokens |= tokens
            current = (args or "")[:ARGS_CHARS]
            earlier = self._last_args.get(tool)
            previous = earlier[-1] if earlier else None
            span = changed_span(previous, current) if previous is not None else ""
            iterating = len(span) >= 2 and span.lower() in self._result_tokens
            # the narration names the next item of a series ("Role web-admin: unchanged"): one of
            # the tool's last calls with one short stretch changed to a token never asked before
            # (the next table, role, host or day; a moved window or a reworded query is not),
            # and the text says that token. What it says is about the item, not a conclusion
            # restated over another example. Only tokens the text names are looked for, so the
            # comparison runs on the few steps that can qualify.
            spoken = text.lower()
            said_new = {t for t in unasked if t in spoken}
            if said_new and earlier:
                asked = normalize_asked(current)
                names_item = any(_new_item(changed_span(normalize_asked(p), asked), said_new) for p in earlier)
            if earlier is None and len(self._last_args) < MAX_TOOLS:
                earlier = self._last_args[tool] = deque(maxlen=SERIES_CALLS)
            if earlier is not None:  # distinct calls, the latest last (``previous``)
                if current in earlier:
                    earlier.remove(current)
                earlier.append(current)
        if result is None:
            terms = said
            new = observed = said - self._terms
        else:
            head = result[:RESULT_CHARS]
            got = content_terms(head)
            echo = content_terms((args or "")[:ARGS_TERMS_CHARS])
            new = (said | got) - self._terms
            observed = observed_terms(head) - self._terms - echo - said
            terms = said | got
            # an error that says something new is an answer (a fix loop's changing errors);
            # an empty output, or an error the run has already seen, is a call that failed
            answered = bool(result.strip()) and (not failed or bool(observed))
            if not acknowledged:
                call_failing = not answered and not iterating
                self._failing.append(call_failing)
            if len(self._result_tokens) < MAX_TERMS:
                self._result_tokens |= result_tokens(head)
        if len(self._terms) < MAX_TERMS:
            self._terms |= terms
        failing = sum(self._failing) if result is not None else 0
        # a fact is named by a word: new bare numbers in an answer (a metric re-read, a count)
        # are a re-measurement of something the run already knows about
        # ... unless the call asks a new question (the next day, region or node) and its answer
        # says something the run had not seen (an echo of the question says nothing): its
        # numbers are that item's answer, however alike the table reads
        next_item = asks_new and novel and bool(observed) and result is not None and not failed
        # a new question about what the latest write acted on first (``rollout status`` of the
        # release just upgraded, the node just drained): its answer verifies the write, however
        # alike it reads to the previous item's
        verifies = checks_change and asks_new and result is not None and bool(result.strip()) and not failed
        named = sum(1 for t in observed if next_item or not _NUMBER.fullmatch(t))
        # one new term is the noise floor of a re-run, not of a new question's answer
        enough = 1 if next_item else NEW_FACT_TERMS
        from_world = result is not None and bool(result.strip()) and named >= enough and (next_item or not result_recurrent)
        new_facts = marker or from_world or len(heard) >= NEW_FACT_TERMS or len(wrote_new) >= NEW_WRITE_TERMS or new_place
        if wrote and len(self._terms) < MAX_TERMS:
            self._terms |= wrote
        self._steps += 1
        counts = InformationSignals(
            new_terms=len(new),
            observed_terms=len(observed),
            calls_failing=failing,
            call_failing=call_failing,
            iterating=iterating,
            next_item=next_item,
            names_item=names_item,
            verifies=verifies,
            user_terms=len(heard),
            new_facts=new_facts,
        )
        if self._steps == 1:  # everything is new on the first step: not a sample of normal gain
            return counts
        r = self._test.update(math.log1p(len(new)), informative=informative)
        if answered:
            o = self._observed.update(math.log1p(len(observed)), informative=informative)
            observed_calibrating, observed_cusum = o.calibrating, o.statistic
        else:
            observed_calibrating, observed_cusum = not self._observed.baseline.ready, self._observed.statistic
        return replace(
            counts,
            calibrating=r.calibrating,
            z=None if r.z is None else round(r.z, 4),
            cusum=round(r.statistic, 4),
            observed_calibrating=observed_calibrating,
            observed_cusum=round(observed_cusum, 4),
        )
