"""Import boundaries: the engine needs neither grpc nor torch; the client needs no torch."""

from __future__ import annotations

import subprocess
import sys


def _loaded_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return {name.split(".")[0] for name in out.split()}


def test_engine_imports_neither_grpc_nor_torch() -> None:
    """Importing the engine (and judging nothing yet) loads neither grpc nor torch."""
    loaded = _loaded_after("import plateau.engine, plateau.embed, plateau.fuse, plateau.breaker")
    assert "grpc" not in loaded and "torch" not in loaded and "sentence_transformers" not in loaded


def test_remote_client_imports_no_torch() -> None:
    """A remote client (what an agent machine installs) loads no torch or numpy."""
    loaded = _loaded_after("from plateau.client import Client; Client.remote('127.0.0.1:1')")
    assert "torch" not in loaded and "numpy" not in loaded and "sentence_transformers" not in loaded


def test_onnx_backend_module_imports_nothing_heavy() -> None:
    """Importing the ONNX backend loads neither onnxruntime, tokenizers nor torch: they load with the model."""
    loaded = _loaded_after("import plateau.embed_onnx")
    assert not loaded & {"torch", "onnxruntime", "tokenizers", "transformers", "onnx", "grpc"}
