"""Scoring of labelled cases (``docs/format.md``), for any detector.

Pure Python on purpose: importing this module loads neither ``torch`` nor ``grpc``, so the
scorer can run anywhere the case files are.

Steps level (one agent run)
---------------------------
A detector's raw per-step actions are first read **as a harness that ignored them would
produce them**: every step is observed, and once the run has tripped the breaker stays open,
so every step *after the first* ``"trip"`` is scored as ``"trip"`` whatever the detector
returned afterwards (see :func:`effective_verdicts`). On these effective verdicts, per run:

* ``stuck`` -- ``expected.final`` is ``"trip"`` (otherwise the run is productive);
* ``first_trip`` -- index of the first ``"trip"`` (``None`` if the run never tripped);
* ``early_trip`` -- the first trip falls on a step whose ``per_step`` does not allow
  ``"trip"`` (it counts as a false trip). Since the breaker then stays open, a run is judged by
  its *first* trip: a stuck run tripped early is an early trip, **not** a detection;
* ``detected`` -- a stuck run whose first trip falls on a step that allows ``"trip"``;
* ``missed`` -- a stuck run that never tripped;
* ``false_trip`` -- a productive run that tripped anywhere;
* ``steps_to_detect`` -- for a detected run, ``first_trip - onset``, or, when ``onset`` is
  absent, ``first_trip`` minus the first step whose ``per_step`` allows ``"trip"``
  (``None`` when not detected);
* ``agreement`` -- share of the run's steps whose effective verdict is among the acceptable
  ones (totals pool the steps of all runs);
* ``steer_rate`` -- share of the run's steps answered ``"steer"`` (totals report it pooled
  over the steps of productive runs only).

Stream level (one streamed response)
------------------------------------
``fired_at_chunk`` is the index of the chunk after which the detector first fired (``None``:
never). For a ``fire`` stream with window ``expected.fire_between_chunks = [first, last]``
(inclusive): ``caught`` if ``first <= fired <= last``, ``premature`` if ``fired < first``
(counted as a false fire), ``late`` if ``fired > last``, ``missed`` if it never fired. For a
``no-fire`` stream any fire is a ``false_fire``. ``chars_to_detect`` is, for a caught or late
fire, the number of characters from the window's start to the end of the firing chunk::

    len("".join(chunks[: fired + 1])) - len("".join(chunks[:first]))

i.e. the window starts at the first character of chunk ``first`` (the joined length of the
chunks before it) and the count includes the whole firing chunk, so a fire right after
chunk ``first`` scores ``len(chunks[first])``. It is ``None`` otherwise.

Totals (:func:`summarize_steps`, :func:`summarize_stream`) report counts, rates, and the
median and mean of ``steps_to_detect`` (detected runs) and ``chars_to_detect`` (caught
streams). Every score and total is a frozen dataclass with ``as_dict()`` (JSON-ready), and
:func:`format_steps_table` / :func:`format_stream_table` render plain fixed-width tables.
"""

from __future__ import annotations

import json
import logging
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger("plateau.eval")

__all__ = [
    "VERDICTS",
    "StepsScore",
    "StepsTotals",
    "StreamScore",
    "StreamTotals",
    "allowed_verdicts",
    "effective_verdicts",
    "format_steps_table",
    "format_stream_table",
    "load_cases",
    "run_steps_detector",
    "run_stream_detector",
    "score_steps_case",
    "score_stream_case",
    "summarize_steps",
    "summarize_stream",
]

#: The three step verdicts, in escalating order.
VERDICTS: tuple[str, ...] = ("continue", "steer", "trip")

_REQUIRED_KEYS = ("id", "level", "input", "expected")


# ----------------------------------------------------------------------------------------
# loading
# ----------------------------------------------------------------------------------------


def _case_files(paths: Iterable[str | Path]) -> list[tuple[Path, bool]]:
    """The files to load, each with whether it was found by walking a folder."""
    files: list[tuple[Path, bool]] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend((p, True) for p in sorted(path.rglob("*.json")) if p.is_file())
        elif path.is_file():
            files.append((path, False))
        else:
            raise FileNotFoundError(f"no such case file or folder: {path}")
    return files


def _check_case(case: Any, file: Path) -> dict[str, Any]:
    if not isinstance(case, dict):
        raise ValueError(f"{file}: a case must be a JSON object, got {type(case).__name__}")
    missing = [key for key in _REQUIRED_KEYS if key not in case]
    if missing:
        raise ValueError(f"{file}: malformed case, missing {', '.join(missing)}")
    if not isinstance(case["id"], str) or not case["id"]:
        raise ValueError(f"{file}: malformed case, 'id' must be a non-empty string")
    if case["level"] not in ("steps", "stream"):
        raise ValueError(f"{file}: malformed case, 'level' must be 'steps' or 'stream', got {case['level']!r}")
    if not isinstance(case["input"], list):
        raise ValueError(f"{file}: malformed case, 'input' must be a list")
    if not isinstance(case["expected"], dict):
        raise ValueError(f"{file}: malformed case, 'expected' must be an object")
    return case


def load_cases(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """Load labelled cases from files and folders.

    Parameters
    ----------
    paths
        Case files, or folders searched recursively for ``*.json`` (sorted by path within
        each folder). Order follows ``paths``; a file reached twice is loaded once. In a
        folder, a JSON file that is not an object with a ``level`` is a set's input data (a
        list, a record a case was built from), not a case: it is skipped (logged at INFO).
        A file named in ``paths`` must be a case.

    Returns
    -------
    list of dict
        One dict per case, as stored (unknown keys are kept and ignored by the scorers).

    Raises
    ------
    FileNotFoundError
        If a path does not exist.
    ValueError
        Naming the file, if it is not valid JSON, not an object, lacks one of ``id``,
        ``level``, ``input``, ``expected`` (or one has the wrong type), or repeats the ``id``
        of a case loaded from another file.
    """
    cases: list[dict[str, Any]] = []
    seen_files: set[Path] = set()
    seen_ids: dict[str, Path] = {}
    skipped: list[Path] = []
    for file, walked in _case_files(paths):
        resolved = file.resolve()
        if resolved in seen_files:
            continue
        seen_files.add(resolved)
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{file}: not a valid JSON case ({exc})") from exc
        if walked and not (isinstance(data, dict) and "level" in data):
            skipped.append(file)  # a set's input data beside its cases (a list, a record), not a case
            continue
        case = _check_case(data, file)
        if case["id"] in seen_ids:
            raise ValueError(f"{file}: duplicate case id {case['id']!r} (also in {seen_ids[case['id']]})")
        seen_ids[case["id"]] = file
        cases.append(case)
    if skipped:
        log.info("%d JSON file(s) without a 'level' skipped as not cases (first: %s)", len(skipped), skipped[0])
    return cases


# ----------------------------------------------------------------------------------------
# steps level
# ----------------------------------------------------------------------------------------


def allowed_verdicts(entry: object) -> frozenset[str]:
    """Parse one ``per_step`` entry (``"continue|steer"``) into the set of acceptable verdicts.

    Raises
    ------
    ValueError
        If the entry is not a string of ``|``-joined known verdicts.
    """
    if not isinstance(entry, str):
        raise ValueError(f"a per_step entry must be a string, got {entry!r}")
    parts = frozenset(part.strip() for part in entry.split("|"))
    if not parts or not parts <= set(VERDICTS):
        raise ValueError(f"unknown verdict in per_step entry {entry!r}; expected {'|'.join(VERDICTS)}")
    return parts


def effective_verdicts(actions: Sequence[str]) -> tuple[str, ...]:
    """Apply the open-breaker rule: every action after the first ``"trip"`` becomes ``"trip"``.

    Examples
    --------
    >>> effective_verdicts(["continue", "trip", "continue", "steer"])
    ('continue', 'trip', 'trip', 'trip')
    """
    out: list[str] = []
    tripped = False
    for action in actions:
        tripped = tripped or action == "trip"
        out.append("trip" if tripped else action)
    return tuple(out)


def _case_label(case: Mapping[str, Any]) -> str:
    return str(case.get("id", "?"))


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _median(values: Sequence[float]) -> float | None:
    return float(statistics.median(values)) if values else None


def _mean(values: Sequence[float]) -> float | None:
    return float(statistics.fmean(values)) if values else None


def _json_ready(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_json_ready(v) for v in value]
    return value


@dataclass(frozen=True)
class StepsScore:
    """The score of one steps-level run (see the module docstring for each field).

    ``verdicts`` are the effective verdicts (after the open-breaker rule); ``agreement`` and
    ``steer_rate`` are fractions in [0, 1] (``None`` for a run without steps, which
    :func:`score_steps_case` rejects anyway).
    """

    case_id: str
    kind: str
    stuck: bool
    n_steps: int
    verdicts: tuple[str, ...]
    first_trip: int | None
    detected: bool
    missed: bool
    early_trip: bool
    false_trip: bool
    steps_to_detect: int | None
    agreed: int
    agreement: float | None
    steers: int
    steer_rate: float | None

    def as_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field (tuples become lists)."""
        return {name: _json_ready(getattr(self, name)) for name in self.__dataclass_fields__}


@dataclass(frozen=True)
class StepsTotals:
    """Totals over steps-level runs.

    Counts: ``runs``, ``stuck``, ``productive``, ``detected``, ``missed``, ``early_trips``
    (runs whose first trip was early, stuck or productive), ``false_trips`` (productive runs
    that tripped), ``false_trip_runs`` (runs with any false trip: productive runs tripped plus
    stuck runs tripped early). Rates in [0, 1], ``None`` on an empty denominator: ``recall`` =
    detected / stuck, ``false_trip_rate`` = false_trips / productive, ``agreement`` pooled over
    all ``steps``, ``steer_rate_productive`` pooled over the ``productive_steps``.
    ``median_steps_to_detect`` / ``mean_steps_to_detect`` are over detected runs, in steps.
    """

    runs: int
    stuck: int
    productive: int
    detected: int
    missed: int
    early_trips: int
    false_trips: int
    false_trip_runs: int
    recall: float | None
    false_trip_rate: float | None
    median_steps_to_detect: float | None
    mean_steps_to_detect: float | None
    steps: int
    agreement: float | None
    productive_steps: int
    steer_rate_productive: float | None

    def as_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def score_steps_case(case: Mapping[str, Any], actions: Sequence[str]) -> StepsScore:
    """Score a detector's actions on one steps-level case.

    Parameters
    ----------
    case
        A ``level: "steps"`` case (``input``, ``expected.per_step``, ``expected.final``,
        optional ``expected.onset``).
    actions
        The detector's raw action after each step, one of ``"continue"``, ``"steer"``,
        ``"trip"``; scored after the open-breaker rule (:func:`effective_verdicts`).

    Returns
    -------
    StepsScore

    Raises
    ------
    ValueError
        If the case is not a well-formed steps case (``per_step`` length differs from
        ``input``, an unknown verdict, a bad ``onset``), if ``len(actions)`` differs from the
        number of steps, or if an action is unknown. Messages name the case id.
    """
    cid = _case_label(case)
    if case.get("level") != "steps":
        raise ValueError(f"case {cid}: not a steps-level case (level={case.get('level')!r})")
    steps = case.get("input")
    expected = case.get("expected")
    if not isinstance(steps, list) or not steps:
        raise ValueError(f"case {cid}: 'input' must be a non-empty list of steps")
    if not isinstance(expected, Mapping):
        raise ValueError(f"case {cid}: 'expected' must be an object")
    per_step = expected.get("per_step")
    if not isinstance(per_step, list) or len(per_step) != len(steps):
        raise ValueError(f"case {cid}: expected.per_step must list one verdict per step ({len(steps)})")
    try:
        allowed = [allowed_verdicts(entry) for entry in per_step]
        final = allowed_verdicts(expected.get("final"))
    except ValueError as exc:
        raise ValueError(f"case {cid}: {exc}") from exc
    onset = expected.get("onset")
    if onset is not None and (isinstance(onset, bool) or not isinstance(onset, int) or not 0 <= onset < len(steps)):
        raise ValueError(f"case {cid}: expected.onset must be a step index in [0, {len(steps) - 1}], got {onset!r}")
    if isinstance(actions, str):
        raise ValueError(f"case {cid}: actions must be a sequence of verdicts, not a string")
    if len(actions) != len(steps):
        raise ValueError(f"case {cid}: got {len(actions)} actions for {len(steps)} steps")
    for i, action in enumerate(actions):
        if action not in VERDICTS:
            raise ValueError(
                f"case {cid}: unknown action {action!r} at step {i}; expected one of {', '.join(VERDICTS)}"
            )

    stuck = final == frozenset({"trip"})
    verdicts = effective_verdicts(actions)
    first_trip = verdicts.index("trip") if "trip" in verdicts else None
    tripped = first_trip is not None
    early_trip = first_trip is not None and "trip" not in allowed[first_trip]
    detected = stuck and tripped and not early_trip
    steps_to_detect: int | None = None
    if detected and first_trip is not None:
        reference = onset
        if reference is None:
            reference = next(i for i, ok in enumerate(allowed) if "trip" in ok)
        steps_to_detect = first_trip - reference
    agreed = sum(1 for verdict, ok in zip(verdicts, allowed, strict=True) if verdict in ok)
    steers = verdicts.count("steer")
    return StepsScore(
        case_id=cid,
        kind=str(case.get("kind") or ""),
        stuck=stuck,
        n_steps=len(steps),
        verdicts=verdicts,
        first_trip=first_trip,
        detected=detected,
        missed=stuck and not tripped,
        early_trip=early_trip,
        false_trip=(not stuck) and tripped,
        steps_to_detect=steps_to_detect,
        agreed=agreed,
        agreement=_ratio(agreed, len(steps)),
        steers=steers,
        steer_rate=_ratio(steers, len(steps)),
    )


def summarize_steps(scores: Sequence[StepsScore]) -> StepsTotals:
    """Totals over steps-level scores (see :class:`StepsTotals`); an empty input gives zeros."""
    stuck = [s for s in scores if s.stuck]
    productive = [s for s in scores if not s.stuck]
    detected = [s for s in stuck if s.detected]
    to_detect = [float(s.steps_to_detect) for s in detected if s.steps_to_detect is not None]
    false_trips = sum(1 for s in productive if s.false_trip)
    steps = sum(s.n_steps for s in scores)
    productive_steps = sum(s.n_steps for s in productive)
    return StepsTotals(
        runs=len(scores),
        stuck=len(stuck),
        productive=len(productive),
        detected=len(detected),
        missed=sum(1 for s in stuck if s.missed),
        early_trips=sum(1 for s in scores if s.early_trip),
        false_trips=false_trips,
        false_trip_runs=sum(1 for s in scores if s.false_trip or s.early_trip),
        recall=_ratio(len(detected), len(stuck)),
        false_trip_rate=_ratio(false_trips, len(productive)),
        median_steps_to_detect=_median(to_detect),
        mean_steps_to_detect=_mean(to_detect),
        steps=steps,
        agreement=_ratio(sum(s.agreed for s in scores), steps),
        productive_steps=productive_steps,
        steer_rate_productive=_ratio(sum(s.steers for s in productive), productive_steps),
    )


# ----------------------------------------------------------------------------------------
# stream level
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StreamScore:
    """The score of one streamed response (see the module docstring for each field).

    ``window`` is ``expected.fire_between_chunks`` as ``(first, last)`` (``None`` for a
    ``no-fire`` stream); ``chars_to_detect`` is in characters.
    """

    case_id: str
    kind: str
    should_fire: bool
    n_chunks: int
    total_chars: int
    window: tuple[int, int] | None
    fired_at_chunk: int | None
    caught: bool
    premature: bool
    late: bool
    missed: bool
    false_fire: bool
    chars_to_detect: int | None

    @property
    def outcome(self) -> str:
        """One word: ``caught``, ``premature``, ``late``, ``missed``, ``false-fire`` or ``quiet``."""
        for name in ("caught", "premature", "late", "missed"):
            if getattr(self, name):
                return name
        return "false-fire" if self.false_fire else "quiet"

    def as_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field plus ``outcome`` (tuples become lists)."""
        out = {name: _json_ready(getattr(self, name)) for name in self.__dataclass_fields__}
        out["outcome"] = self.outcome
        return out


@dataclass(frozen=True)
class StreamTotals:
    """Totals over streamed responses.

    Counts: ``streams``, ``fire_streams``, ``no_fire_streams``, ``caught``, ``premature``,
    ``late``, ``missed``, ``false_fires`` (``no-fire`` streams that fired) and
    ``false_fire_streams`` (``false_fires`` plus ``premature``). Rates in [0, 1], ``None`` on
    an empty denominator: ``catch_rate`` = caught / fire_streams, ``false_fire_rate`` =
    false_fires / no_fire_streams. ``median_chars_to_detect`` / ``mean_chars_to_detect`` are
    over caught streams, in characters.
    """

    streams: int
    fire_streams: int
    no_fire_streams: int
    caught: int
    premature: int
    late: int
    missed: int
    false_fires: int
    false_fire_streams: int
    catch_rate: float | None
    false_fire_rate: float | None
    median_chars_to_detect: float | None
    mean_chars_to_detect: float | None

    def as_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def score_stream_case(case: Mapping[str, Any], fired_at_chunk: int | None) -> StreamScore:
    """Score where a detector first fired on one stream-level case.

    Parameters
    ----------
    case
        A ``level: "stream"`` case (``input`` chunks, ``expected.verdict``, and for ``fire``
        ``expected.fire_between_chunks``).
    fired_at_chunk
        Index of the chunk after which the detector first fired, or ``None`` if it never did.

    Returns
    -------
    StreamScore

    Raises
    ------
    ValueError
        If the case is not a well-formed stream case (chunks not strings, unknown verdict, a
        missing or out-of-range window) or ``fired_at_chunk`` is not ``None`` or a chunk index.
        Messages name the case id.
    """
    cid = _case_label(case)
    if case.get("level") != "stream":
        raise ValueError(f"case {cid}: not a stream-level case (level={case.get('level')!r})")
    chunks = case.get("input")
    expected = case.get("expected")
    if not isinstance(chunks, list) or not all(isinstance(c, str) for c in chunks):
        raise ValueError(f"case {cid}: 'input' must be a list of text chunks")
    if not isinstance(expected, Mapping):
        raise ValueError(f"case {cid}: 'expected' must be an object")
    verdict = expected.get("verdict")
    if verdict not in ("fire", "no-fire"):
        raise ValueError(f"case {cid}: expected.verdict must be 'fire' or 'no-fire', got {verdict!r}")
    window: tuple[int, int] | None = None
    if verdict == "fire":
        raw = expected.get("fire_between_chunks")
        if (
            not isinstance(raw, (list, tuple))
            or len(raw) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in raw)
            or not 0 <= raw[0] <= raw[1] < len(chunks)
        ):
            raise ValueError(
                f"case {cid}: expected.fire_between_chunks must be [first, last] chunk indices "
                f"with 0 <= first <= last < {len(chunks)}, got {raw!r}"
            )
        window = (raw[0], raw[1])
    if fired_at_chunk is not None and (
        isinstance(fired_at_chunk, bool) or not isinstance(fired_at_chunk, int) or not 0 <= fired_at_chunk < len(chunks)
    ):
        raise ValueError(
            f"case {cid}: fired_at_chunk must be None or a chunk index in [0, {len(chunks) - 1}], "
            f"got {fired_at_chunk!r}"
        )

    fired = fired_at_chunk is not None
    caught = premature = late = False
    chars: int | None = None
    if window is not None and fired_at_chunk is not None:
        first, last = window
        premature = fired_at_chunk < first
        late = fired_at_chunk > last
        caught = not premature and not late
        if not premature:
            start = sum(len(c) for c in chunks[:first])
            chars = sum(len(c) for c in chunks[: fired_at_chunk + 1]) - start
    return StreamScore(
        case_id=cid,
        kind=str(case.get("kind") or ""),
        should_fire=window is not None,
        n_chunks=len(chunks),
        total_chars=sum(len(c) for c in chunks),
        window=window,
        fired_at_chunk=fired_at_chunk,
        caught=caught,
        premature=premature,
        late=late,
        missed=window is not None and not fired,
        false_fire=window is None and fired,
        chars_to_detect=chars,
    )


def summarize_stream(scores: Sequence[StreamScore]) -> StreamTotals:
    """Totals over stream-level scores (see :class:`StreamTotals`); an empty input gives zeros."""
    fire = [s for s in scores if s.should_fire]
    no_fire = [s for s in scores if not s.should_fire]
    caught = [s for s in fire if s.caught]
    chars = [float(s.chars_to_detect) for s in caught if s.chars_to_detect is not None]
    premature = sum(1 for s in fire if s.premature)
    false_fires = sum(1 for s in no_fire if s.false_fire)
    return StreamTotals(
        streams=len(scores),
        fire_streams=len(fire),
        no_fire_streams=len(no_fire),
        caught=len(caught),
        premature=premature,
        late=sum(1 for s in fire if s.late),
        missed=sum(1 for s in fire if s.missed),
        false_fires=false_fires,
        false_fire_streams=false_fires + premature,
        catch_rate=_ratio(len(caught), len(fire)),
        false_fire_rate=_ratio(false_fires, len(no_fire)),
        median_chars_to_detect=_median(chars),
        mean_chars_to_detect=_mean(chars),
    )


# ----------------------------------------------------------------------------------------
# running detectors
# ----------------------------------------------------------------------------------------


def run_steps_detector(detector: Any, case: Mapping[str, Any]) -> list[str]:
    """Replay a steps-level case through a step detector.

    The detector is :meth:`reset` first, then ``observe(step)`` is called on every step in
    order -- also after a trip, as a harness that ignores verdicts would (the scorer applies
    the open-breaker rule).

    Parameters
    ----------
    detector
        An object with ``observe(step) -> str`` and ``reset()``
        (:class:`bench.baselines.StepDetector`).
    case
        A ``level: "steps"`` case.

    Returns
    -------
    list of str
        The raw action after each step.

    Raises
    ------
    ValueError
        If the case has no list of step objects, or the detector returns an unknown action.
    """
    cid = _case_label(case)
    steps = case.get("input")
    if not isinstance(steps, list) or not all(isinstance(s, Mapping) for s in steps):
        raise ValueError(f"case {cid}: 'input' must be a list of step objects")
    detector.reset()
    actions: list[str] = []
    for i, step in enumerate(steps):
        action = detector.observe(step)
        if action not in VERDICTS:
            raise ValueError(f"case {cid}: detector returned unknown action {action!r} at step {i}")
        actions.append(action)
    return actions


def run_stream_detector(detector: Any, case: Mapping[str, Any]) -> int | None:
    """Replay a stream-level case through a stream detector.

    The detector is :meth:`reset` first and fed chunk by chunk until it fires.

    Parameters
    ----------
    detector
        An object with ``feed(chunk) -> bool`` and ``reset()``
        (:class:`bench.baselines.StreamDetector`).
    case
        A ``level: "stream"`` case.

    Returns
    -------
    int or None
        Index of the chunk after which the detector first returned ``True``, else ``None``.

    Raises
    ------
    ValueError
        If the case's ``input`` is not a list of strings.
    """
    cid = _case_label(case)
    chunks = case.get("input")
    if not isinstance(chunks, list) or not all(isinstance(c, str) for c in chunks):
        raise ValueError(f"case {cid}: 'input' must be a list of text chunks")
    detector.reset()
    for i, chunk in enumerate(chunks):
        if detector.feed(chunk):
            return i
    return None


# ----------------------------------------------------------------------------------------
# plain-text tables
# ----------------------------------------------------------------------------------------


def _fmt_num(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "-"
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.{digits}f}"


def _yes(flag: bool) -> str:
    return "yes" if flag else "-"


def _render(
    headers: Sequence[str], rows: Sequence[Sequence[str]], footer: Sequence[str] | None, title: str | None
) -> str:
    table = [list(headers), *[list(r) for r in rows]]
    if footer is not None:
        table.append(list(footer))
    widths = [max(len(row[i]) for row in table) for i in range(len(headers))]

    def line(cells: Sequence[str]) -> str:
        # first column left-aligned (case ids), the others right-aligned (numbers, flags)
        parts = [cells[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    out = [title] if title else []
    out += [line(headers), rule]
    out += [line(r) for r in rows]
    if footer is not None:
        out += [rule, line(footer)]
    return "\n".join(out) + "\n"


def format_steps_table(
    scores: Sequence[StepsScore], totals: StepsTotals | None = None, *, title: str | None = None
) -> str:
    """Render steps-level scores as a fixed-width plain-text table with a totals row.

    Columns: case id, ``label`` (stuck / prod), ``steps``, ``trip@`` (first trip index),
    ``detected``, ``early``, ``false`` (false trip), ``s2d`` (steps to detect), ``agree``
    (agreement) and ``steer`` (steer rate). The totals row gives detected/stuck, the count of
    early trips, false trips/productive, the median steps to detect, pooled agreement and the
    steer rate pooled over productive runs. ``totals`` defaults to
    ``summarize_steps(scores)``.
    """
    totals = totals if totals is not None else summarize_steps(scores)
    headers = ["case", "label", "steps", "trip@", "detected", "early", "false", "s2d", "agree", "steer"]
    rows = [
        [
            s.case_id,
            "stuck" if s.stuck else "prod",
            str(s.n_steps),
            _fmt_num(s.first_trip),
            _yes(s.detected),
            _yes(s.early_trip),
            _yes(s.false_trip),
            _fmt_num(s.steps_to_detect),
            _fmt_num(s.agreement),
            _fmt_num(s.steer_rate),
        ]
        for s in scores
    ]
    footer = [
        f"TOTAL ({totals.runs} runs)",
        f"{totals.stuck}/{totals.productive}",
        str(totals.steps),
        "",
        f"{totals.detected}/{totals.stuck}",
        str(totals.early_trips),
        f"{totals.false_trips}/{totals.productive}",
        _fmt_num(totals.median_steps_to_detect),
        _fmt_num(totals.agreement),
        _fmt_num(totals.steer_rate_productive),
    ]
    return _render(headers, rows, footer, title)


def format_stream_table(
    scores: Sequence[StreamScore], totals: StreamTotals | None = None, *, title: str | None = None
) -> str:
    """Render stream-level scores as a fixed-width plain-text table with a totals row.

    Columns: case id, ``expect`` (fire / no-fire), ``window`` (first-last chunk), ``fired@``,
    ``caught``, ``premature``, ``late``, ``missed``, ``false`` (false fire) and ``chars``
    (chars to detect). The totals row counts each outcome (caught over fire streams, false
    fires over no-fire streams) and gives the median chars to detect of caught streams.
    ``totals`` defaults to ``summarize_stream(scores)``.
    """
    totals = totals if totals is not None else summarize_stream(scores)
    headers = ["case", "expect", "window", "fired@", "caught", "premature", "late", "missed", "false", "chars"]
    rows = [
        [
            s.case_id,
            "fire" if s.should_fire else "no-fire",
            f"{s.window[0]}-{s.window[1]}" if s.window else "-",
            _fmt_num(s.fired_at_chunk),
            _yes(s.caught),
            _yes(s.premature),
            _yes(s.late),
            _yes(s.missed),
            _yes(s.false_fire),
            _fmt_num(s.chars_to_detect),
        ]
        for s in scores
    ]
    footer = [
        f"TOTAL ({totals.streams} streams)",
        f"{totals.fire_streams}/{totals.no_fire_streams}",
        "",
        "",
        f"{totals.caught}/{totals.fire_streams}",
        str(totals.premature),
        str(totals.late),
        str(totals.missed),
        f"{totals.false_fires}/{totals.no_fire_streams}",
        _fmt_num(totals.median_chars_to_detect),
    ]
    return _render(headers, rows, footer, title)
