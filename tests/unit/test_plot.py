"""``plateau.plot``: one run's signals and verdicts as a figure (Agg, no display, no pyplot)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench import evalrun
from plateau.plot import outcome_text, plot_trace, save_plot
from tests.support.cases import productive_case, stuck_case
from tests.support.paths import REPO as ROOT

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _long_stall() -> dict[str, Any]:
    """Twelve varied steps with progress markers, then the same failing call again and again."""
    steps: list[dict[str, Any]] = [
        {"text": f"Step {i}: reading module {name} to map how it talks to the queue.", "tool": "read_file",
         "args": {"path": f"src/{name}.py"}, "result": f"class {name.title()}:\n    size = {i * 11}",
         "progress": {"tests_passed": 40 + i, "tests_failed": 12 - i} if i % 3 == 0 else None}
        for i, name in enumerate(["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
                                  "kilo", "lima"])
    ]
    stall = {"text": "Retrying the deploy.", "tool": "shell", "args": {"cmd": "make deploy"},
             "result": "error: lock held", "status": "error"}
    steps += [dict(stall) for _ in range(8)]
    per_step = ["continue"] * 12 + ["continue|steer", "continue|steer", "steer|trip"] + ["steer|trip"] * 4 + ["trip"]
    return {"id": "long-stall", "level": "steps", "kind": "retry after real work", "input": steps,
            "expected": {"final": "trip", "onset": 12, "per_step": per_step}}


def _trace(hashing_engine: Any, case: dict[str, Any]) -> evalrun.CaseTrace:
    return evalrun.trace_steps_case(hashing_engine, case)


def test_figure_has_three_panels_and_a_title_with_the_outcome(hashing_engine) -> None:  # type: ignore[no-untyped-def]
    """The figure holds the verdict strip, the movement panel and the evidence panel; the title names case and outcome."""
    trace = _trace(hashing_engine, _long_stall())
    fig = plot_trace(trace)
    assert len(fig.axes) == 3
    title = fig._suptitle.get_text()  # noqa: SLF001 - matplotlib keeps the suptitle here
    assert "long-stall" in title and "labelled stuck (onset 12)" in title and "detected" in title
    strip, movement, evidence = fig.axes
    assert [t.get_text() for t in strip.get_yticklabels()] == ["Plateau", "expected", "progress"]
    assert movement.get_title(loc="left") == "how much each step moves in meaning"
    assert evidence.get_title(loc="left") == "evidence that the run is stuck"
    labels = [t.get_text() for t in movement.get_legend().get_texts()]
    assert any("center ± scale" in label for label in labels) and any(label.startswith("novelty") for label in labels)
    assert not any("CUSUM" in t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts())


def test_every_mark_has_a_legend_entry_and_no_text_overlaps_another(hashing_engine) -> None:  # type: ignore[no-untyped-def]
    """Every labelled line, band and bar is in its panel's legend; no two texts of the drawn figure overlap."""
    trace = _trace(hashing_engine, _long_stall())
    fig = plot_trace(trace)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    for ax in fig.axes[1:]:
        handles, labels = ax.get_legend_handles_labels()
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert labels and labels == legend
        # every drawn line says what it is; the vertical markers (onset, first trip, progress) repeat
        # across panels and are labelled once, in the movement panel
        unlabelled = [line for line in ax.get_lines() if line.get_label().startswith("_") and len(set(line.get_xdata())) > 1]
        assert unlabelled == []
    texts = [t for ax in fig.axes for t in ax.texts if t.get_text().strip()]
    boxes = [t.get_window_extent(renderer) for t in texts]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            assert not boxes[i].overlaps(boxes[j]), (texts[i].get_text(), texts[j].get_text())


def test_save_plot_writes_a_png(tmp_path: Path, hashing_engine) -> None:  # type: ignore[no-untyped-def]
    """save_plot writes a real PNG of a readable size."""
    out = save_plot(_trace(hashing_engine, _long_stall()), tmp_path / "run.png")
    data = out.read_bytes()
    assert data[:8] == PNG_MAGIC and len(data) > 30_000


def test_unlabelled_and_short_runs_draw_without_optional_rows(tmp_path: Path, hashing_engine) -> None:  # type: ignore[no-untyped-def]
    """A run without labels or progress markers draws only the Plateau row; a one-step run draws too."""
    raw = {"id": "raw", "input": productive_case()["input"]}
    fig = plot_trace(_trace(hashing_engine, raw))
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["Plateau"]
    one = {"id": "one", "input": productive_case()["input"][:1]}
    assert save_plot(_trace(hashing_engine, one), tmp_path / "one.png").read_bytes()[:8] == PNG_MAGIC


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        (stuck_case(), "Plateau tripped at step 3"),
        (productive_case(), "labelled productive - Plateau never tripped: correct"),
        ({"id": "raw", "input": stuck_case()["input"]}, "unlabelled - Plateau tripped at step 3"),
    ],
)
def test_outcome_text(hashing_engine, case: dict[str, Any], expected: str) -> None:  # type: ignore[no-untyped-def]
    """outcome_text says what the run was labelled and what Plateau did."""
    assert expected in outcome_text(_trace(hashing_engine, case))


def test_outcome_text_names_false_and_early_trips(hashing_engine) -> None:  # type: ignore[no-untyped-def]
    """A productive run tripped is a FALSE TRIP; a stuck run tripped before any trip is allowed an EARLY TRIP."""
    false = dict(stuck_case(), expected={"final": "continue", "per_step": ["continue"] * 6})
    assert outcome_text(_trace(hashing_engine, false)).endswith("FALSE TRIP")
    early = dict(stuck_case(), expected={"final": "trip", "per_step": ["continue"] * 5 + ["trip"]})
    assert outcome_text(_trace(hashing_engine, early)).endswith("EARLY TRIP")


def test_plotting_never_imports_pyplot() -> None:
    """Drawing and saving use the Agg canvas only: pyplot (and a GUI backend) is never imported."""
    code = (
        "import sys, tempfile, os\n"
        "from plateau.embed import HashingEmbedder\nfrom plateau.engine import Engine\n"
        "from bench.evalrun import trace_steps_case\nfrom plateau.plot import save_plot\n"
        "from tests.support.cases import stuck_case\n"
        "t = trace_steps_case(Engine(embedder=HashingEmbedder()), stuck_case())\n"
        "save_plot(t, os.path.join(tempfile.mkdtemp(), 'x.png'))\n"
        "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot imported'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
