"""The command line's tables, drawn by ``rich``: one look for ``plateau replay``, ``guard``, ``runs`` and ``show``.

:func:`table` makes a :class:`rich.table.Table` from column specs, :func:`render` turns it into
the text a stream shows: on a terminal, its width (``shutil.get_terminal_size``, so
``$COLUMNS`` wins) and colour; anywhere else (a pipe, a file), :data:`PIPE_WIDTH` columns and no
escape sequences, so the output is the same on every machine. ``ACTION_STYLES`` colours a
verdict's action the same way in every table. The ``--json``/``--jsonl`` outputs never go
through here.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Sequence
from typing import Any, TextIO

__all__ = ["ACTION_STYLES", "PIPE_WIDTH", "action_cell", "render", "table"]

#: The width of a table written to anything but a terminal (rich would otherwise assume 80 and
#: fold every column).
PIPE_WIDTH = 200

#: The style of each verdict action (rich markup style names).
ACTION_STYLES = {"continue": "green", "steer": "yellow", "trip": "bold red"}


def table(columns: Sequence[str], *, title: str | None = None, right: Sequence[str] = (), fold: Sequence[str] = ()) -> Any:
    """A ``rich`` table with the given column names, in order.

    ``right``: the columns aligned right (numbers); ``fold``: the columns whose long text folds
    onto further lines (free text: reasons, messages, ids); every other column keeps its cells
    on one line. Rows are added with ``Table.add_row`` (strings, rich markup allowed).
    """
    from rich.table import Table

    t = Table(title=title, title_justify="left")
    for name in columns:
        t.add_column(name, justify="right" if name in right else "left", no_wrap=name not in fold, overflow="fold")
    return t


def action_cell(action: str) -> str:
    """``action`` (``"continue"``, ``"steer"``, ``"trip"``) as rich markup in its :data:`ACTION_STYLES` style."""
    style = ACTION_STYLES.get(action)
    return f"[{style}]{action}[/]" if style else action


def render(renderable: Any, out: TextIO) -> str:
    """The text that shows ``renderable`` on ``out``, ending in a newline.

    A terminal (``out.isatty()``) gets its width and colour (none with ``$NO_COLOR``); anything
    else :data:`PIPE_WIDTH` columns and plain text.
    """
    from rich.console import Console

    tty = bool(getattr(out, "isatty", lambda: False)())
    width = shutil.get_terminal_size((PIPE_WIDTH, 24)).columns if tty else PIPE_WIDTH
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=tty, no_color=None if tty else True, highlight=False,
                      color_system="auto" if tty else None)
    console.print(renderable)
    return buffer.getvalue()
