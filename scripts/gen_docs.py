"""Generate the API reference (HTML, from the docstrings) under ``docs/api/`` with pdoc.

Usage: ``python scripts/gen_docs.py [OUT_DIR]`` (needs the ``docs`` extra, and the
``openai-agents``, ``langgraph``, ``langchain``, ``pydantic-ai`` and ``otel`` extras for the
integration pages; ``make docs`` runs it).
The modules documented are the public API listed in :data:`MODULES`; docstrings are read as
numpydoc.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The modules of the reference, in the order of its index.
MODULES = [
    "plateau",
    "plateau.client",
    "plateau.aio",
    "plateau.session",
    "plateau.types",
    "plateau.errors",
    "plateau.failure",
    "plateau.policy",
    "plateau.config",
    "plateau.auth",
    "plateau.stream",
    "plateau.adapters",
    "plateau.chat",
    "plateau.integrations",
    "plateau.integrations.openai",
    "plateau.integrations.openai_agents",
    "plateau.integrations.langgraph",
    "plateau.integrations.langchain",
    "plateau.integrations.pydantic_ai",
    "plateau.integrations.otel",
    "plateau.engine",
    "plateau.record",
    "plateau.ordering",
    "plateau.server",
    "plateau.admission",
    "plateau.cli",
]


def generate(out_dir: Path) -> list[Path]:
    """Write the reference into ``out_dir``; returns the HTML files written."""
    import pdoc
    import pdoc.render

    import plateau

    for name in plateau.__all__:  # resolve the lazy top-level names so pdoc documents them
        getattr(plateau, name)
    pdoc.render.configure(docformat="numpy", show_source=False, search=False, footer_text="Plateau API reference")
    pdoc.pdoc(*MODULES, output_directory=out_dir)
    return sorted(out_dir.rglob("*.html"))


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "api"
    files = generate(out)
    print(f"{len(files)} pages in {out}")
