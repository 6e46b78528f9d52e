"""Running detectors over labelled cases: Plateau and the published baselines, side by side.

:mod:`bench.evaluate` scores actions; this module produces them. A *detector* is named:

==================  ========================================================================
``plateau``         steps: :class:`~plateau.engine.Engine`; streams: :class:`~plateau.channels.ChannelGuards`
``seed-baseline``   steps only (:class:`~bench.baselines.SeedBaseline`, same embedder as Plateau)
``exact-args``      steps only (:class:`~bench.baselines.ExactArgs`)
``stuck-detector``  steps only (:class:`~bench.baselines.StuckDetector`)
``jaccard``         steps only (:class:`~bench.baselines.JaccardRepeat`)
``chunk-hash``      streams only (:class:`~bench.baselines.ChunkHash`)
``line-window``     streams only (:class:`~bench.baselines.LineWindow`)
==================  ========================================================================

A detector is scored on the cases of the levels it covers and skips the others. Every run of
a comparison sees the same cases in the same order, and every detector that embeds text
(Plateau and ``seed-baseline``) shares **one** embedder, so the model is loaded once per
process and each distinct text is embedded once (:class:`~plateau.embed.CachedEmbedder`).

Plateau's step verdicts are read as a harness that ignored them would produce them (every
step observed, the case's ``context`` passed with the run); its stream verdict is the first
chunk after which the guard of the case's ``stream_channel`` has ``fired``.

The functions take any :class:`~plateau.embed.Embedder`; pass
:class:`~plateau.embed.HashingEmbedder` to run everything without the model (tests), or leave
it ``None`` for the real all-MiniLM-L6-v2 (loaded lazily, only if a detector needs it).

Examples
--------
>>> from plateau.embed import HashingEmbedder
>>> case = {"id": "r", "level": "steps", "input": [{"text": "x", "tool": "t", "args": {"a": 1},
...         "result": "boom"}] * 5, "expected": {"final": "trip", "per_step":
...         ["continue", "continue", "continue|steer|trip", "steer|trip", "trip"]}}
>>> run = evaluate([case], "exact-args")
>>> run.steps[0].first_trip, run.steps_totals.recall
(2, 1.0)
>>> evaluate([case], "plateau", embedder=HashingEmbedder()).steps[0].detected
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bench.evaluate import (
    StepsScore,
    StepsTotals,
    StreamScore,
    StreamTotals,
    run_steps_detector,
    run_stream_detector,
    score_steps_case,
    score_stream_case,
    summarize_steps,
    summarize_stream,
)
from plateau.trace import CaseTrace, default_embedder
from plateau.trace import trace_steps_case as _trace_steps_case

__all__ = [
    "DETECTORS",
    "STEP_DETECTORS",
    "STREAM_DETECTORS",
    "CaseTrace",
    "DetectorRun",
    "compare",
    "default_embedder",
    "detector_levels",
    "evaluate",
    "format_comparison",
    "format_run",
    "plateau_stream_fire",
    "trace_steps_case",
    "work_units",
]

#: Detectors that judge agent steps, Plateau first.
STEP_DETECTORS: tuple[str, ...] = ("plateau", "seed-baseline", "exact-args", "stuck-detector", "jaccard")
#: Detectors that judge streamed responses, Plateau first.
STREAM_DETECTORS: tuple[str, ...] = ("plateau", "chunk-hash", "line-window")
#: Every detector name, in the order tables list them.
DETECTORS: tuple[str, ...] = STEP_DETECTORS + tuple(n for n in STREAM_DETECTORS if n not in STEP_DETECTORS)

def detector_levels(name: str) -> tuple[str, ...]:
    """The levels (``"steps"``, ``"stream"``) detector ``name`` covers.

    Raises
    ------
    ValueError
        For an unknown name; the message lists the known ones.
    """
    if name not in DETECTORS:
        raise ValueError(f"--detector: unknown detector {name!r}; known: {', '.join(DETECTORS)}")
    return tuple(level for level, names in (("steps", STEP_DETECTORS), ("stream", STREAM_DETECTORS)) if name in names)


# ----------------------------------------------------------------------------------------
# Plateau on one case
# ----------------------------------------------------------------------------------------


def trace_steps_case(engine: Any, case: Mapping[str, Any]) -> CaseTrace:
    """:func:`plateau.trace.trace_steps_case` scored against the case's labels
    (:func:`~bench.evaluate.score_steps_case`) when it carries ``expected.per_step`` and ``expected.final``."""
    return _trace_steps_case(engine, case, scorer=score_steps_case)


def plateau_stream_fire(case: Mapping[str, Any], config: Any = None, embedder: Any = None) -> int | None:
    """Feed a stream case to Plateau's guard chunk by chunk; the chunk after which it first fired.

    The last chunk is sent as the end of the stream (the guard's final verdict,
    :meth:`~plateau.stream.StreamGuard.finish`), as a harness does when the response completes.

    Parameters
    ----------
    case
        A ``level: "stream"`` case; ``stream_channel`` (default ``content``) picks the guard,
        ``context`` (optional) is the request the response answers.
    config
        A :class:`~plateau.stream.StreamGuardConfig`, or ``None`` for the defaults.
    embedder
        An embedder for the guard's semantic layer, run synchronously (deterministic); ``None``
        turns the layer off.

    Returns
    -------
    int or None
        0-based chunk index, or ``None`` when the guard never fired.
    """
    from plateau.channels import ChannelGuards

    context = case.get("context") if isinstance(case.get("context"), str) else None
    guards = ChannelGuards(config, context=context, embedder=embedder, semantic_background=False)
    channel = str(case.get("stream_channel") or "content")
    last = len(case["input"]) - 1
    for i, chunk in enumerate(case["input"]):
        if guards.feed(channel, chunk, end=i == last).fired:
            return i
    return None


# ----------------------------------------------------------------------------------------
# one detector over many cases
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DetectorRun:
    """One detector's scores over a set of cases.

    Attributes
    ----------
    detector
        The detector's name.
    steps, stream
        Per-case scores, in case order; empty for a level the detector does not cover.
    levels
        The levels the detector covers.
    """

    detector: str
    steps: tuple[StepsScore, ...]
    stream: tuple[StreamScore, ...]
    levels: tuple[str, ...]

    @property
    def steps_totals(self) -> StepsTotals | None:
        """Totals over the steps-level cases (``None`` when the level is not covered or empty)."""
        return summarize_steps(self.steps) if "steps" in self.levels and self.steps else None

    @property
    def stream_totals(self) -> StreamTotals | None:
        """Totals over the stream-level cases (``None`` when the level is not covered or empty)."""
        return summarize_stream(self.stream) if "stream" in self.levels and self.stream else None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``detector``, ``levels``, and per level its ``cases`` and ``totals``."""
        out: dict[str, Any] = {"detector": self.detector, "levels": list(self.levels)}
        st = self.steps_totals
        out["steps"] = None if st is None else {"totals": st.as_dict(), "cases": [s.as_dict() for s in self.steps]}
        sr = self.stream_totals
        out["stream"] = None if sr is None else {"totals": sr.as_dict(), "cases": [s.as_dict() for s in self.stream]}
        return out


class _LazyEmbedder:
    """Builds the default embedder on first use, so rules without embeddings never load the model."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory = factory
        self._inner: Any = None

    def get(self) -> Any:
        if self._inner is None:
            self._inner = self._factory()
        return self._inner


def _split(cases: Iterable[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    steps: list[Mapping[str, Any]] = []
    stream: list[Mapping[str, Any]] = []
    for case in cases:
        (stream if case.get("level") == "stream" else steps).append(case)
    return steps, stream


def _evaluate(
    cases: Sequence[Mapping[str, Any]],
    detector: str,
    embedder: _LazyEmbedder,
    config: Any,
    stream_config: Any,
    on_case: Callable[[str, str], None] | None,
) -> DetectorRun:
    from bench.baselines import STEP_BASELINES, STREAM_BASELINES

    levels = detector_levels(detector)
    step_cases, stream_cases = _split(cases)
    step_scores: list[StepsScore] = []
    stream_scores: list[StreamScore] = []
    if "steps" in levels and step_cases:
        if detector == "plateau":
            from plateau.engine import Engine

            engine = Engine(config, embedder.get())
            for case in step_cases:
                trace = trace_steps_case(engine, case)
                step_scores.append(trace.score if trace.score is not None else score_steps_case(case, trace.actions))
                if on_case is not None:
                    on_case(detector, trace.case_id)
        else:
            factory = STEP_BASELINES[detector]
            det = factory(embed=embedder.get().encode) if detector == "seed-baseline" else factory()
            for case in step_cases:
                step_scores.append(score_steps_case(case, run_steps_detector(det, case)))
                if on_case is not None:
                    on_case(detector, str(case.get("id")))
    if "stream" in levels and stream_cases:
        semantic = None
        if detector == "plateau":
            from plateau.errors import ModelUnavailable

            try:  # the stream guard's semantic layer; its textual detectors need no model
                semantic = embedder.get()
            except ModelUnavailable:
                semantic = None
        for case in stream_cases:
            if detector == "plateau":
                fired = plateau_stream_fire(case, stream_config, semantic)
            else:
                fired = run_stream_detector(STREAM_BASELINES[detector](), case)
            stream_scores.append(score_stream_case(case, fired))
            if on_case is not None:
                on_case(detector, str(case.get("id")))
    return DetectorRun(detector=detector, steps=tuple(step_scores), stream=tuple(stream_scores), levels=levels)


def _lazy(embedder: Any) -> _LazyEmbedder:
    if embedder is None:
        return _LazyEmbedder(default_embedder)
    from plateau.embed import CachedEmbedder

    cached = embedder if isinstance(embedder, CachedEmbedder) else CachedEmbedder(embedder, max_items=100_000)
    return _LazyEmbedder(lambda: cached)


def evaluate(
    cases: Sequence[Mapping[str, Any]],
    detector: str = "plateau",
    *,
    embedder: Any = None,
    config: Any = None,
    stream_config: Any = None,
    on_case: Callable[[str, str], None] | None = None,
) -> DetectorRun:
    """Run one detector over labelled cases and score it.

    Parameters
    ----------
    cases
        Labelled cases of either level (:func:`bench.evaluate.load_cases`).
    detector
        A name from :data:`DETECTORS` (default ``"plateau"``).
    embedder
        The :class:`~plateau.embed.Embedder` for Plateau and ``seed-baseline`` (wrapped in a
        cache unless it is one); ``None`` for the real model, loaded only if needed.
    config
        Plateau's :class:`~plateau.config.Config` (defaults when ``None``).
    stream_config
        Plateau's :class:`~plateau.stream.StreamGuardConfig` (defaults when ``None``).
    on_case
        Called as ``on_case(detector, case_id)`` after each case (for a progress bar).

    Returns
    -------
    DetectorRun

    Raises
    ------
    ValueError
        For an unknown detector or a malformed case (naming it).
    """
    return _evaluate(list(cases), detector, _lazy(embedder), config, stream_config, on_case)


def compare(
    cases: Sequence[Mapping[str, Any]],
    detectors: Sequence[str] = DETECTORS,
    *,
    embedder: Any = None,
    config: Any = None,
    stream_config: Any = None,
    on_case: Callable[[str, str], None] | None = None,
) -> list[DetectorRun]:
    """Run several detectors over the same cases (one shared embedder); see :func:`evaluate`.

    Returns
    -------
    list of DetectorRun
        In the order of ``detectors`` (default: Plateau, then every baseline).
    """
    for name in detectors:
        detector_levels(name)
    shared = _lazy(embedder)
    cases = list(cases)
    return [_evaluate(cases, name, shared, config, stream_config, on_case) for name in detectors]


def work_units(cases: Sequence[Mapping[str, Any]], detectors: Sequence[str]) -> int:
    """How many ``on_case`` calls :func:`compare` makes (the length of a progress bar)."""
    step_cases, stream_cases = _split(cases)
    total = 0
    for name in detectors:
        levels = detector_levels(name)
        total += (len(step_cases) if "steps" in levels else 0) + (len(stream_cases) if "stream" in levels else 0)
    return total


# ----------------------------------------------------------------------------------------
# tables
# ----------------------------------------------------------------------------------------


def _num(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "-"
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.{digits}f}"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], title: str | None = None) -> str:
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]

    def line(cells: Sequence[str]) -> str:
        parts = [str(cells[0]).ljust(widths[0])] + [str(c).rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join(parts).rstrip()

    out = [title] if title else []
    out += [line(headers), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in rows]
    return "\n".join(out) + "\n"


def _steps_cell(s: StepsScore) -> str:
    if s.stuck:
        if s.detected:
            return f"det@{s.first_trip} ({s.steps_to_detect:+d})"
        if s.early_trip:
            return f"EARLY@{s.first_trip}"
        return "miss"
    return f"FALSE@{s.first_trip}" if s.false_trip else "ok"


def _stream_cell(s: StreamScore) -> str:
    if s.caught:
        return f"caught@{s.fired_at_chunk}"
    if s.premature:
        return f"PREMATURE@{s.fired_at_chunk}"
    if s.late:
        return f"late@{s.fired_at_chunk}"
    if s.missed:
        return "miss"
    return f"FALSE@{s.fired_at_chunk}" if s.false_fire else "ok"


def _steps_summary_row(run: DetectorRun) -> list[str]:
    t = run.steps_totals
    assert t is not None
    return [
        run.detector,
        f"{t.detected}/{t.stuck}",
        _num(t.recall),
        str(t.early_trips),
        f"{t.false_trips}/{t.productive}",
        _num(t.false_trip_rate),
        _num(t.median_steps_to_detect, 1),
        _num(t.agreement),
        _num(t.steer_rate_productive),
    ]


def _stream_summary_row(run: DetectorRun) -> list[str]:
    t = run.stream_totals
    assert t is not None
    return [
        run.detector,
        f"{t.caught}/{t.fire_streams}",
        _num(t.catch_rate),
        str(t.premature),
        str(t.late),
        str(t.missed),
        f"{t.false_fires}/{t.no_fire_streams}",
        _num(t.false_fire_rate),
        _num(t.median_chars_to_detect, 0),
    ]


_STEPS_SUMMARY = ["detector", "detected", "recall", "early", "false trips", "false-trip rate", "median s2d", "agreement", "steer (prod)"]
_STREAM_SUMMARY = ["detector", "caught", "catch rate", "premature", "late", "missed", "false fires", "false-fire rate", "median chars"]


def format_comparison(runs: Sequence[DetectorRun]) -> str:
    """Render detectors side by side: per level, a totals table and a per-case matrix.

    Totals (one row per detector): steps -- ``detected`` (detected/stuck), ``recall``,
    ``early`` (runs whose first trip came before any step allowing it), ``false trips``
    (productive runs tripped / productive runs), ``false-trip rate``, ``median s2d`` (steps to
    detect), ``agreement`` (per-step, pooled) and ``steer (prod)`` (steer rate on productive
    runs' steps); streams -- ``caught``, ``catch rate``, ``premature``, ``late``, ``missed``,
    ``false fires`` (no-fire streams fired / no-fire streams), ``false-fire rate`` and
    ``median chars`` (chars to detect).

    Per case (one column per detector): ``det@T (+d)`` detected at step T, d steps after the
    onset; ``EARLY@T`` tripped before a trip was acceptable; ``miss``; ``FALSE@T`` a
    productive run tripped at T; ``ok`` a productive run left alone. Streams: ``caught@C``,
    ``PREMATURE@C``, ``late@C``, ``miss``, ``FALSE@C`` and ``ok`` (C is the chunk index).
    Upper-case cells are false alarms.
    """
    out: list[str] = []
    step_runs = [r for r in runs if r.steps_totals is not None]
    stream_runs = [r for r in runs if r.stream_totals is not None]
    if step_runs:
        n = step_runs[0].steps_totals
        assert n is not None
        out.append(
            _table(
                _STEPS_SUMMARY,
                [_steps_summary_row(r) for r in step_runs],
                f"STEPS: {n.runs} runs ({n.stuck} stuck, {n.productive} productive), {n.steps} steps",
            )
        )
        rows = []
        for i, first in enumerate(step_runs[0].steps):
            cells = [_steps_cell(r.steps[i]) for r in step_runs]
            rows.append([first.case_id, "stuck" if first.stuck else "prod", str(first.n_steps), *cells])
        out.append(_table(["case", "label", "steps", *[r.detector for r in step_runs]], rows, "STEPS per case (first trip)"))
    if stream_runs:
        n2 = stream_runs[0].stream_totals
        assert n2 is not None
        out.append(
            _table(
                _STREAM_SUMMARY,
                [_stream_summary_row(r) for r in stream_runs],
                f"STREAM: {n2.streams} streams ({n2.fire_streams} fire, {n2.no_fire_streams} no-fire)",
            )
        )
        rows = []
        for i, lead in enumerate(stream_runs[0].stream):
            window = f"{lead.window[0]}-{lead.window[1]}" if lead.window else "-"
            cells = [_stream_cell(r.stream[i]) for r in stream_runs]
            rows.append([lead.case_id, "fire" if lead.should_fire else "no-fire", window, *cells])
        out.append(_table(["case", "expect", "window", *[r.detector for r in stream_runs]], rows, "STREAM per case (first fire)"))
    return "\n".join(out)


def format_run(run: DetectorRun) -> str:
    """Render one detector's per-case tables with totals (:mod:`bench.evaluate`'s format)."""
    from bench.evaluate import format_steps_table, format_stream_table

    parts: list[str] = []
    if run.steps_totals is not None:
        parts.append(format_steps_table(run.steps, run.steps_totals, title=f"STEPS: {run.detector}"))
    if run.stream_totals is not None:
        parts.append(format_stream_table(run.stream, run.stream_totals, title=f"STREAM: {run.detector}"))
    return "\n".join(parts)
