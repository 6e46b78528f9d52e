"""One run at a glance: Plateau's signals and verdicts per step, drawn with matplotlib (Agg).

:func:`plot_trace` draws a :class:`~plateau.trace.CaseTrace` (every step of one run with
its :class:`~plateau.types.Verdict`) as one figure with three panels sharing the step axis:

1. **Verdicts** -- a strip per step: Plateau's action (green continue, orange steer, red
   trip); when the run is labelled, the acceptable verdicts (a cell split in stripes when
   several are acceptable) with a cross over every step where Plateau is outside them; and
   the harness's progress markers (tests passing / failing, files changed, metric).
2. **How much each step moves in meaning** -- ``novelty`` (distance to the most similar
   recent step, what the calibrated test judges), ``delta`` (distance to the previous step),
   the run's normal movement learned during warm-up (``center ± scale``), the line below
   which a step counts as stalling, the warm-up span, and the near-identical floor.
3. **Evidence that the run is stuck** -- the stall score per step (bars coloured by action)
   against the steer (0.5) and trip (1.0) levels, and the accumulated evidence of slow
   movement (the CUSUM divided by its trip level, so it crosses the trip line when it would
   trip; and the accumulated lack of new content, when the engine reports ``info_cusum``);
   the reasons of the first steer and the first trip.

The labelled onset (``expected.onset``) and Plateau's first trip are vertical lines across
every panel; the title names the case and the outcome. Every mark has a legend entry in
plain words, and the legends sit outside the panels so that nothing is drawn over the data.

:func:`history_trace` turns a run's history as a server kept it
(:class:`~plateau.types.RunHistory`, from ``run_history``) into a trace drawn the same way
(``plateau plot --remote TARGET RUN`` and the page of ``plateau serve --ui-port``): without the
steps' inputs, so without the progress markers or labels. Each cell of the verdict strip
carries the id ``step-N`` in SVG output, so a reader of the SVG finds one mark per step.

Only the object-oriented API is used (``matplotlib.figure.Figure`` saved through the Agg
canvas), so nothing here touches pyplot's global state or needs a display.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["ACTION_COLORS", "RunTrace", "history_trace", "outcome_text", "plot_trace", "save_plot"]

#: Colour of each action in every panel.
ACTION_COLORS: dict[str, str] = {"continue": "#3a9d5d", "steer": "#f0a030", "trip": "#d62728"}
_ORDER = ("continue", "steer", "trip")
_MOVE = "#1f5fa8"
_DELTA = "#8c8c8c"
_BAND = "#9ecae1"
_CUSUM = "#6a3d9a"
_INFO = "#b15928"
_PROGRESS = "#2ca02c"


@dataclass(frozen=True)
class RunTrace:
    """A run's verdicts to draw with :func:`plot_trace`, like an
    :class:`~plateau.trace.CaseTrace` of an unlabelled case (``score`` is always None)."""

    case_id: str
    case: Mapping[str, Any]
    verdicts: tuple[Any, ...]
    score: None = None


def history_trace(history: Any) -> RunTrace:
    """The :class:`RunTrace` of a :class:`~plateau.types.RunHistory`: its verdicts in step
    order, the run id as the case id and the run's context; no step inputs, no labels."""
    run = history.run
    case = {"id": run.run_id, "level": "steps", "input": [], "expected": None, "context": run.context}
    return RunTrace(run.run_id, case, tuple(history.verdicts))


def _expected(case: Mapping[str, Any]) -> Mapping[str, Any]:
    exp = case.get("expected")
    return exp if isinstance(exp, Mapping) else {}


def outcome_text(trace: Any) -> str:
    """One line saying what the run was labelled and what Plateau did.

    Examples: ``"labelled stuck (onset 13) - Plateau tripped at step 18, 5 steps after onset:
    detected"``, ``"labelled productive - Plateau never tripped (2 steers): correct"``,
    ``"unlabelled - Plateau tripped at step 7"``; a labelled trace without a score (drawn where
    the repository's ``bench/`` evaluator is not importable) says so instead of a score.
    """
    actions = [v.action.value for v in trace.verdicts]
    first_trip = actions.index("trip") if "trip" in actions else None
    steers = sum(1 for a in actions[: first_trip if first_trip is not None else len(actions)] if a == "steer")
    did = f"Plateau tripped at step {first_trip}" if first_trip is not None else "Plateau never tripped"
    if steers:
        did += f" ({steers} steer{'s' if steers > 1 else ''}{' before' if first_trip is not None else ''})"
    score = trace.score
    if score is None:
        final = _expected(trace.case).get("final")
        if final is not None:  # labelled, but the evaluator (the repository's bench/) was not there to score it
            return f"labelled {final} (not scored: the evaluator lives in the repository's bench/) - {did}"
        return f"unlabelled - {did}"
    onset = _expected(trace.case).get("onset")
    if score.stuck:
        label = "labelled stuck" + (f" (onset {onset})" if onset is not None else "")
        if score.detected:
            ref = "onset" if onset is not None else "the first trip-allowed step"
            after = f", {score.steps_to_detect} step{'s' if score.steps_to_detect != 1 else ''} after {ref}"
            return f"{label} - {did}{after}: detected"
        return f"{label} - {did}: {'EARLY TRIP' if score.early_trip else 'MISSED'}"
    return f"labelled productive - {did}: {'FALSE TRIP' if score.false_trip else 'correct'}"


def _progress_label(progress: Any) -> str | None:
    if not isinstance(progress, Mapping) or not progress:
        return None
    parts = []
    passed, failed = progress.get("tests_passed"), progress.get("tests_failed")
    if passed is not None or failed is not None:
        parts.append(f"{passed if passed is not None else '?'}/{failed if failed is not None else '?'}")
    files = progress.get("files_changed")
    if files:
        parts.append(f"{len(files) if isinstance(files, (list, tuple)) else 1}f")
    if progress.get("metric") is not None:
        parts.append(f"m{float(progress['metric']):.3g}")
    return " ".join(parts) if parts else None


def _signal(verdicts: Sequence[Any], name: str) -> list[float]:
    return [float(v.signals[name]) if name in v.signals else math.nan for v in verdicts]


def _allowed(entry: Any) -> list[str]:
    if not isinstance(entry, str):
        return []
    parts = {p.strip() for p in entry.split("|")}
    return [a for a in _ORDER if a in parts]


def plot_trace(trace: Any, *, config: Any = None, title: str | None = None, width: float | None = None) -> Any:
    """Draw one run (see the module docstring) and return the ``matplotlib.figure.Figure``.

    Parameters
    ----------
    trace
        A :class:`~plateau.trace.CaseTrace`, or a :class:`RunTrace` (:func:`history_trace`).
    config
        The :class:`~plateau.config.Config` the run was judged with (for the near-duplicate
        floor and the CUSUM trip level); the defaults when ``None``.
    title
        Replaces the first title line (default: the case id).
    width
        Figure width in inches (default: grows with the number of steps, 10 to 22).
    """
    from matplotlib.artist import Artist
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Rectangle

    from plateau.config import Config

    cfg = config or Config()
    verdicts = list(trace.verdicts)
    n = len(verdicts)
    steps = list(trace.case.get("input") or [])
    exp = _expected(trace.case)
    per_step = exp.get("per_step") if isinstance(exp.get("per_step"), list) and len(exp["per_step"]) == n else None
    onset = exp.get("onset") if isinstance(exp.get("onset"), int) else None
    actions = [v.action.value for v in verdicts]
    first_trip = actions.index("trip") if "trip" in actions else None
    xs = list(range(n))

    fig_w = width if width is not None else min(22.0, max(10.0, 0.32 * n + 3.0))
    fig = Figure(figsize=(fig_w, 8.2), dpi=100, layout="constrained")
    grid = fig.add_gridspec(3, 1, height_ratios=[1.15, 2.6, 2.1])
    ax_v = fig.add_subplot(grid[0])
    ax_m = fig.add_subplot(grid[1], sharex=ax_v)
    ax_s = fig.add_subplot(grid[2], sharex=ax_v)

    # ------------------------------------------------------------- verdict strip
    labels = [_progress_label(s.get("progress") if isinstance(s, Mapping) else None) for s in steps[:n]]
    has_progress = any(labels)
    rows = ["Plateau"] + (["expected"] if per_step is not None else []) + (["progress"] if has_progress else [])
    ypos = {name: len(rows) - 1 - i for i, name in enumerate(rows)}
    for i, action in enumerate(actions):
        ax_v.add_patch(Rectangle((i - 0.45, ypos["Plateau"] - 0.38), 0.9, 0.76, color=ACTION_COLORS[action], lw=0, gid=f"step-{i}"))
        if per_step is not None:
            ok = _allowed(per_step[i])
            for j, a in enumerate(ok):
                h = 0.76 / len(ok)
                ax_v.add_patch(Rectangle((i - 0.45, ypos["expected"] - 0.38 + j * h), 0.9, h, color=ACTION_COLORS[a], lw=0, alpha=0.75))
            if action not in ok:
                ax_v.plot([i], [ypos["Plateau"]], marker="x", color="black", markersize=9, mew=2.2)
        label = labels[i] if i < len(labels) else None
        if label:
            ax_v.plot([i], [ypos["progress"] + 0.12], marker="^", color=_PROGRESS, markersize=8)
            ax_v.text(i, ypos["progress"] - 0.3, label, ha="center", va="center", fontsize=6.5, color="#1b5e20")
    ax_v.set_ylim(-0.6, len(rows) - 0.4)
    ax_v.set_yticks([ypos[r] for r in rows], rows)
    ax_v.tick_params(axis="y", length=0, labelsize=9)
    ax_v.tick_params(axis="x", labelbottom=False)
    for side in ("top", "right", "left"):
        ax_v.spines[side].set_visible(False)
    strip_legend: list[Artist] = [Patch(color=ACTION_COLORS[a], label=f"Plateau: {a}") for a in _ORDER]
    if per_step is not None:
        strip_legend.append(Patch(facecolor="white", edgecolor="#888888", label="expected: the verdicts allowed (stripes: several)"))
    if per_step is not None:
        strip_legend.append(Line2D([], [], marker="x", color="black", lw=0, mew=2, label="Plateau differs from the expected"))
    if has_progress:
        strip_legend.append(
            Line2D([], [], marker="^", color=_PROGRESS, lw=0, label="progress reported: tests passed/failed, Nf = N files changed")
        )
    ax_v.legend(handles=strip_legend, loc="lower left", bbox_to_anchor=(1.0, 0.0), fontsize=8, frameon=False)

    # ------------------------------------------------------------- semantic movement
    novelty = _signal(verdicts, "novelty")
    delta = _signal(verdicts, "delta")
    center = _signal(verdicts, "baseline_center")
    scale = _signal(verdicts, "baseline_scale")
    calibrating = [v.signals.get("calibrating", 0.0) >= 0.5 for v in verdicts]
    warm_end = next((i for i, c in enumerate(calibrating) if not c), n)
    if warm_end > 0:
        warm_label = "warm-up: learning this run's normal movement" + ("" if warm_end < n else " (not finished)")
        ax_m.axvspan(-0.5, warm_end - 0.5, color="#eeeeee", zorder=0, label=warm_label)
    # The baseline is drawn from the first step it judged (the step that completes warm-up
    # already reports the baseline it just learned, but was not judged against it).
    center = [math.nan if cal else c for c, cal in zip(center, calibrating, strict=True)]
    lo = [c - s if not (math.isnan(c) or math.isnan(s)) else math.nan for c, s in zip(center, scale, strict=True)]
    hi = [c + s if not (math.isnan(c) or math.isnan(s)) else math.nan for c, s in zip(center, scale, strict=True)]
    has_band = any(not math.isnan(v) for v in lo)
    if has_band:
        ax_m.fill_between(xs, lo, hi, color=_BAND, alpha=0.55, step="mid", lw=0, label="this run's normal movement (center ± scale)")
        ax_m.plot(xs, center, color="#4a90c2", lw=1, ls=":", drawstyle="steps-mid", label="its center")
        allowance = [c - cfg.cusum_k * s if not (math.isnan(c) or math.isnan(s)) else math.nan for c, s in zip(center, scale, strict=True)]
        ax_m.plot(xs, allowance, color="#08519c", lw=1, ls="--", drawstyle="steps-mid", alpha=0.8,
                  label=f"below this (center − {cfg.cusum_k:g}·scale) a step counts as stalling")
    ax_m.plot(xs, delta, color=_DELTA, lw=1.1, ls="--", marker=".", markersize=4, label="delta: change from the previous step")
    ax_m.plot(xs, novelty, color=_MOVE, lw=2, marker="o", markersize=4.5, label="novelty: distance to the most similar recent step")
    ax_m.axhline(cfg.near_duplicate_eps, color="#b03060", lw=0.9, ls=(0, (1, 2)), label="below this: a near-identical step")
    finite = [v for v in novelty + delta + hi if not math.isnan(v)]
    ax_m.set_ylim(0, max(0.1, max(finite) * 1.12) if finite else 1.0)
    ax_m.set_ylabel("distance in meaning\n(0 = the same)")
    ax_m.set_title("how much each step moves in meaning", loc="left", fontsize=10)
    ax_m.tick_params(axis="x", labelbottom=False)
    ax_m.grid(axis="y", alpha=0.3)

    # ------------------------------------------------------------- stall evidence
    scores = [float(v.score) for v in verdicts]
    bar_colors = [ACTION_COLORS[a] for a in actions]
    ax_s.bar(xs, scores, width=0.7, color=bar_colors, alpha=0.85, label="stall score (bar colour: Plateau's action)")
    cusum = [c / cfg.cusum_trip for c in _signal(verdicts, "cusum")]
    # Scores are capped at 2; the CUSUM keeps growing in a long stall: clip it at the top.
    info_values = [float(v.signals["info_cusum"]) / cfg.cusum_trip for v in verdicts if "info_cusum" in v.signals]
    # headroom above the data for the first steer/trip notes in the top-left corner
    ymax = max(1.5, min(2.9, max(scores + [c for c in cusum if not math.isnan(c)] + info_values, default=0.0) * 1.45))
    top = ymax * 0.97
    shown = [min(c, top) if not math.isnan(c) else c for c in cusum]
    ax_s.plot(xs, shown, color=_CUSUM, lw=1.6, marker=".", markersize=5, label="accumulated slow movement (1 = enough to trip)")
    info = [c / cfg.cusum_trip for c in _signal(verdicts, "info_cusum")]
    if any(not math.isnan(c) for c in info):
        ax_s.plot(xs, [min(c, top) if not math.isnan(c) else c for c in info], color=_INFO, lw=1.3, ls="--", marker=".",
                  markersize=4, label="accumulated lack of new content (1 = enough to trip)")
    clipped = [i for i, c in enumerate(cusum) if not math.isnan(c) and c > top]
    if clipped:
        ax_s.plot(clipped, [top] * len(clipped), lw=0, marker="^", color=_CUSUM, markersize=6, label="off the top of the scale")
    ax_s.axhline(0.5, color=ACTION_COLORS["steer"], lw=1, ls="--", label="steer level (0.5)")
    ax_s.axhline(1.0, color=ACTION_COLORS["trip"], lw=1, ls="--", label="trip level (1.0)")
    marked = [i for i, label in enumerate(labels) if label]
    for k, i in enumerate(marked):
        ax_s.axvline(i, color=_PROGRESS, lw=0.8, alpha=0.35, zorder=0, label="a step that reported progress" if k == 0 else None)
    ax_s.set_ylim(0, ymax)
    first_steer = actions.index("steer") if "steer" in actions else None
    # the reasons of the first steer and the first trip, stacked in the panel's top-left corner
    # (fixed places, so they never overlap each other); the bars and the trip line show where
    notes = 0
    for idx, name in ((first_steer, "steer"), (first_trip, "trip")):
        if idx is None or (name == "steer" and first_trip is not None and idx > first_trip):
            continue
        reasons = [r for r in verdicts[idx].reasons if not r.startswith("breaker.")] or list(verdicts[idx].reasons)
        ax_s.text(0.01, 0.97 - 0.13 * notes, f"first {name} at step {idx}: " + ", ".join(reasons[:3]), transform=ax_s.transAxes,
                  ha="left", va="top", fontsize=8, color=ACTION_COLORS[name], zorder=6,
                  bbox={"boxstyle": "round,pad=0.25", "fc": "white", "ec": ACTION_COLORS[name], "lw": 0.8})
        notes += 1
    ax_s.set_ylabel("score")
    ax_s.set_xlabel("step")
    ax_s.set_title("evidence that the run is stuck", loc="left", fontsize=10)
    ax_s.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    ax_s.grid(axis="y", alpha=0.3)
    ax_s.set_xlim(-0.6, n - 0.4)
    step_tick = 1 if n <= 40 else 2 if n <= 80 else 5 if n <= 200 else 10
    ax_s.set_xticks(range(0, n, step_tick))
    ax_s.tick_params(axis="x", labelsize=8)

    # ------------------------------------------------------------- onset, first trip, title
    for ax in (ax_v, ax_m, ax_s):
        if onset is not None:
            ax.axvline(onset - 0.5, color="black", lw=1.3, ls="--", zorder=5, label="labelled: stuck from here" if ax is ax_m else None)
        if first_trip is not None:
            trip_label = "Plateau's first trip" if ax is ax_m else None
            ax.axvline(first_trip, color=ACTION_COLORS["trip"], lw=1.3, alpha=0.8, zorder=5, label=trip_label)
    ax_m.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    kind = str(trace.case.get("kind") or "")
    limit = int(fig_w * 12)
    if len(kind) > limit:
        kind = kind[: limit - 3] + "..."
    head = title or str(trace.case_id)
    outcome = "\n".join(textwrap.wrap(outcome_text(trace), width=int(fig_w * 8.5)))
    fig.suptitle(f"{head}  ({n} steps)\n{outcome}", fontsize=12, fontweight="bold", x=0.01, ha="left")
    if kind:
        ax_v.set_title(kind, loc="left", fontsize=8.5, color="#444444", style="italic")
    return fig


def save_plot(trace: Any, path: str | Path, *, config: Any = None, dpi: int = 110, title: str | None = None) -> Path:
    """Draw ``trace`` with :func:`plot_trace` and write it to ``path`` (format from the suffix).

    Returns the path written. The parent folder must exist.
    """
    out = Path(path)
    fig = plot_trace(trace, config=config, title=title)
    fig.savefig(out, dpi=dpi)
    return out
