"""Progress output for long ``plateau eval`` and ``plateau replay`` runs, on stderr.

On a terminal: a tqdm bar redrawn in place and removed at the end. Elsewhere (CI logs, a pipe,
a file): for ``eval``, the same tqdm statistics as whole lines, at most one every ``interval``
seconds plus one at the start and one at the end, so a log shows that a long run is moving
without ``\\r`` noise; for ``replay``, whose tables and JSON lines are the output, nothing
(``lines=False``: tqdm's own ``disable=None``, off unless the stream is a terminal).

Output written while a bar is shown goes through :func:`write`, which takes the bar off the
terminal for the write and redraws it after, so the bar stays below the output and never lands
inside it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any, TextIO, TypeVar

from tqdm import tqdm

__all__ = ["LineProgress", "progress", "write"]

T = TypeVar("T")

#: Seconds between two progress lines on a non-terminal.
LINE_INTERVAL = 10.0


class LineProgress(tqdm):  # type: ignore[misc]
    """A tqdm whose every refresh is one complete line (for non-terminals)."""

    def display(self, msg: str | None = None, pos: int | None = None) -> bool:
        text = (msg if msg is not None else self.__str__()).strip()
        if text:
            self.fp.write(text + "\n")
            self.fp.flush()
        return True


def progress(
    iterable: Iterable[T] | None = None,
    *,
    total: int | None = None,
    desc: str,
    unit: str,
    file: TextIO | None = None,
    lines: bool = True,
) -> Any:
    """A progress bar over ``iterable`` (or ``total`` units updated by hand) on ``file``
    (stderr by default): a bar on a terminal; elsewhere a line every :data:`LINE_INTERVAL`
    seconds, or nothing at all when ``lines`` is False."""
    out = file if file is not None else sys.stderr
    isatty = getattr(out, "isatty", None)
    if not lines:  # tqdm disables itself when ``out`` is not a terminal
        return tqdm(iterable, total=total, desc=desc, unit=unit, file=out, leave=False, disable=None)
    if isatty is not None and isatty():
        return tqdm(iterable, total=total, desc=desc, unit=unit, file=out, leave=False)
    return LineProgress(iterable, total=total, desc=desc, unit=unit, file=out, leave=True, mininterval=LINE_INTERVAL, ascii=True, ncols=100)


def write(out: TextIO, text: str) -> None:
    """Write ``text`` to ``out`` and flush it, clearing the progress bars that share its terminal
    first and redrawing them after (``tqdm.external_write_mode``), so they never interleave."""
    with tqdm.external_write_mode(file=out):
        out.write(text)
        out.flush()
