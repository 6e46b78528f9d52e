"""Where the tests find the repository and ``../shared`` (one place, whatever folder a test is in).

``REPO`` is the checkout's root; ``EXAMPLES`` its ``examples/``; ``SHARED`` the team's benchmark
and real runs beside the checkout (``../shared``; ``$PLATEAU_SHARED`` names another folder, e.g.
an empty one to see what a user's clone runs). A clone without it runs every test that does not
need it; those that do carry the ``shared`` marker and are skipped with :data:`SHARED_SKIP` in
their reason, which the run's summary counts (``tests/conftest.py``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

__all__ = ["EXAMPLES", "REPO", "SHARED", "SHARED_SKIP", "shared_path"]

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
SHARED = Path(os.environ.get("PLATEAU_SHARED") or REPO.parent / "shared").resolve()

#: The words that open the reason of every skip for lack of ``../shared`` (the summary counts them).
SHARED_SKIP = "needs ../shared"


def shared_path(*parts: str) -> Path:
    """``SHARED / parts``; skips the calling test (reason opening with :data:`SHARED_SKIP`) when it is absent.

    Raises ``pytest.skip.Exception`` when the path does not exist.
    """
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{SHARED_SKIP}: {path} is absent (../shared holds the team's benchmark and real runs; a user's clone has none)")
    return path
