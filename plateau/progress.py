"""Progress output for long ``plateau eval`` and ``plateau replay`` runs, on stderr.

On a terminal: a tqdm bar redrawn in place and removed at the end. Elsewhere (CI logs, a pipe,
a file): the same tqdm statistics as whole lines, at most one every ``interval`` seconds plus
one at the start and one at the end, so a log shows that a long run is moving without ``\\r``
noise.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any, TextIO, TypeVar

from tqdm import tqdm

__all__ = ["LineProgress", "progress"]

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


def progress(iterable: Iterable[T] | None = None, *, total: int | None = None, desc: str, unit: str, file: TextIO | None = None) -> Any:
    """A progress bar over ``iterable`` (or ``total`` units updated by hand) on ``file``
    (stderr by default): a bar on a terminal, a line every :data:`LINE_INTERVAL` seconds elsewhere."""
    out = file if file is not None else sys.stderr
    isatty = getattr(out, "isatty", None)
    if isatty is not None and isatty():
        return tqdm(iterable, total=total, desc=desc, unit=unit, file=out, leave=False)
    return LineProgress(iterable, total=total, desc=desc, unit=unit, file=out, leave=True, mininterval=LINE_INTERVAL, ascii=True, ncols=100)
