"""Build hook: the stream guard's per-chunk path compiled to C with mypyc.

:class:`plateau.stream.StreamGuard` runs its detectors on every 64-character block of a stream,
and in pure Python the interpreter's per-call overhead is most of its cost. mypyc compiles the
modules below, typed as they are, into one C extension; the Python sources stay the reference
and run as they are wherever the extension is absent.

- ``PLATEAU_PURE_PYTHON=1`` builds without the extension (``make dist`` does, for the
  platform-independent wheel agent machines install).
- A machine without a C compiler gets the pure-Python package: the extension is optional, and a
  failed build of it is a warning, not a failed install.

``plateau.stream.COMPILED`` says which one runs; ``scripts/bench_stream.py`` prints it.
Everything else is declared in ``pyproject.toml``.
"""

from __future__ import annotations

import os

from setuptools import Extension, setup

#: The modules of the per-chunk path: the block splitter and the detectors the guard runs on every
#: block. The guard itself stays Python -- its public methods check their arguments and raise
#: the errors they document (a compiled signature would raise its own ``TypeError`` first) -- as
#: do the request parser, the config, the results and the semantic layer.
COMPILED = [
    "plateau/stream/anaphora.py",
    "plateau/stream/block.py",
    "plateau/stream/counted.py",
    "plateau/stream/dialogue.py",
    "plateau/stream/drift.py",
    "plateau/stream/ending.py",
    "plateau/stream/fold.py",
    "plateau/stream/lines.py",
    "plateau/stream/novelty.py",
    "plateau/stream/period.py",
    "plateau/stream/recheck.py",
    "plateau/stream/stutter.py",
    "plateau/stream/tandem.py",
    "plateau/stream/text.py",
]


def _pure() -> bool:
    return os.environ.get("PLATEAU_PURE_PYTHON", "") not in ("", "0")


def _extensions() -> list[Extension]:
    from mypyc.build import mypycify

    # The compiled modules are type-checked (mypy strict, pyproject.toml); the rest of the package
    # is only read for its names, and the third-party packages it imports are not read at all
    # (Any: they are not compiled, and the build must not depend on what is installed).
    # multi_file: one C file per module, compiled in parallel (build_ext's parallel option below);
    # opt_level 1: the code is mostly calls into CPython's C API, where -O3 gains nothing measurable
    # (scripts/bench_stream.py) and costs minutes of compiling.
    flags = ["--no-site-packages", "--ignore-missing-imports", "--follow-imports=silent"]
    extensions: list[Extension] = mypycify([*flags, *COMPILED], opt_level="1", multi_file=True, group_name="plateau_stream")
    for ext in extensions:
        ext.optional = True  # no compiler: the pure-Python modules run
    return extensions


setup(
    ext_modules=[] if _pure() else _extensions(),
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
)
