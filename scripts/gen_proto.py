"""Regenerate the committed gRPC code under ``plateau/v1/`` from ``proto/plateau/v1/*.proto``.

Usage: ``python scripts/gen_proto.py`` (needs ``grpcio-tools``). ``tests/unit/test_proto_drift.py``
runs the same generation into a temporary folder and fails when the committed files differ.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def generate(out_dir: Path) -> list[Path]:
    """Run protoc on every ``.proto`` under ``proto/`` writing into ``out_dir``.

    Returns the generated files. Raises ``RuntimeError`` when protoc fails.
    """
    import grpc_tools
    from grpc_tools import protoc  # type: ignore[import-untyped]

    proto_root = ROOT / "proto"
    protos = sorted(str(p.relative_to(proto_root)) for p in proto_root.rglob("*.proto"))
    include = str(Path(grpc_tools.__file__).parent / "_proto")
    args = [
        "grpc_tools.protoc",
        f"-I{proto_root}",
        f"-I{include}",
        f"--python_out={out_dir}",
        f"--pyi_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        *protos,
    ]
    if protoc.main(args) != 0:
        raise RuntimeError(f"protoc failed: {' '.join(args)}")
    return sorted(p for p in out_dir.rglob("*") if p.suffix in {".py", ".pyi"})


if __name__ == "__main__":
    for path in generate(ROOT):
        print(path.relative_to(ROOT))
    sys.exit(0)
