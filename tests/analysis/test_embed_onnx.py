"""The ONNX Runtime backend: same vectors as torch, a cache that heals itself, a validated backend name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from plateau.client import Client
from plateau.embed import BACKENDS, SentenceTransformerEmbedder, check_backend, model_embedder
from plateau.embed_onnx import EXPORT_FORMAT, OnnxEmbedder
from plateau.engine import Engine
from plateau.errors import InvalidArgument, ModelUnavailable
from plateau.replay import load_runs
from plateau.types import Step
from tests.support.paths import EXAMPLES
from tests.support.paths import REPO as ROOT

pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.model


def _example_texts(n: int) -> list[str]:
    """The first ``n`` distinct texts the engine embeds for the project's own example runs (real agent steps)."""
    from plateau.embed import HashingEmbedder

    view = Engine(embedder=HashingEmbedder())
    texts: list[str] = []
    for run in load_runs([EXAMPLES, ROOT / "demo" / "runs"]):
        for i, raw in enumerate(run.steps):
            for text in view.embed_inputs(Step.from_dict(raw, i)):
                if text and text not in texts:
                    texts.append(text)
    texts += ["", "ok", "   surrounded by spaces   ", "x " * 400]  # empty, tiny, stripped, truncated at 256 word pieces
    return texts[:n]


@pytest.fixture(scope="session")
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder of this test session, holding the exported graph once the first test has built it."""
    return tmp_path_factory.mktemp("plateau-cache")


@pytest.fixture(scope="session")
def onnx_model(onnx_cache: Path) -> OnnxEmbedder:
    """all-MiniLM-L6-v2 on ONNX Runtime, exported into the session's cache."""
    return OnnxEmbedder(cache_dir=onnx_cache).load()


def test_onnx_matches_torch_on_50_texts(onnx_model: OnnxEmbedder, real_model: SentenceTransformerEmbedder) -> None:
    """On 50 real step texts, one padded batch and one text at a time, every ONNX vector is within cosine 0.99 of torch's."""
    texts = _example_texts(50)
    assert len(texts) == 50
    ref = real_model.encode(texts)
    batched = onnx_model.encode(texts)
    single = np.concatenate([onnx_model.encode([t]) for t in texts])
    for got in (batched, single):
        assert got.shape == (50, 384) and got.dtype == np.float32
        assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
        cosines = np.sum(got * ref, axis=1)
        assert float(cosines.min()) >= 0.99, sorted(cosines)[:3]
    # Padding changes nothing: the mask is carried through the graph.
    assert float(np.min(np.sum(batched * single, axis=1))) > 0.9999


def test_onnx_and_torch_give_the_same_verdicts_on_the_examples(onnx_model: OnnxEmbedder, real_model: SentenceTransformerEmbedder) -> None:
    """Every step of the example runs gets the same action, state and reasons under both backends."""
    for run in load_runs([EXAMPLES]):
        torch_engine, onnx_engine = Engine(embedder=real_model), Engine(embedder=onnx_model)
        for i, raw in enumerate(run.steps):
            step = Step.from_dict(raw, i)
            a, b = torch_engine.observe(run.id, step, run.context), onnx_engine.observe(run.id, step, run.context)
            assert (a.action, a.state, a.reasons) == (b.action, b.state, b.reasons), (run.id, i)


def test_an_empty_call_returns_no_rows(onnx_model: OnnxEmbedder) -> None:
    """``encode([])`` is a (0, 384) array, like the torch backend's."""
    assert onnx_model.encode([]).shape == (0, 384)


def _entry(cache: Path) -> Path:
    (entry,) = (cache / "onnx").iterdir()
    return entry


def test_missing_stale_and_corrupt_caches_are_rebuilt(tmp_path: Path, onnx_model: OnnxEmbedder) -> None:
    """A cache that is missing, stale (other model checksum or format) or corrupt (graph bytes, meta.json) is rebuilt and works."""
    texts = ["the same failing test again", "reading the config"]
    expected = onnx_model.encode(texts)

    def load_and_check(reason: str) -> None:
        model = OnnxEmbedder(cache_dir=tmp_path).load()
        assert model.rebuilt is not None and model.rebuilt.startswith(reason), model.rebuilt
        assert np.allclose(model.encode(texts), expected, atol=1e-5)

    load_and_check("missing")
    entry = _entry(tmp_path)
    meta_file, graph = entry / "meta.json", entry / "model.onnx"

    meta = json.loads(meta_file.read_text())
    meta_file.write_text(json.dumps({**meta, "model_sha256": "0" * 64}))
    load_and_check("stale (exported from another version of the model)")

    meta = json.loads(meta_file.read_text())
    meta_file.write_text(json.dumps({**meta, "format": EXPORT_FORMAT - 1}))
    load_and_check("stale (export format")

    with graph.open("r+b") as fh:  # flip bytes in the middle of the weights
        fh.seek(graph.stat().st_size // 2)
        fh.write(b"\xff" * 64)
    load_and_check("corrupt (model.onnx does not match its checksum)")

    graph.write_bytes(b"not an onnx graph")  # and a meta.json that vouches for it: onnxruntime refuses it
    meta = json.loads(meta_file.read_text())
    import hashlib

    meta_file.write_text(json.dumps({**meta, "onnx_sha256": hashlib.sha256(b"not an onnx graph").hexdigest()}))
    load_and_check("corrupt (onnxruntime cannot load it")

    meta_file.write_text("{ truncated")
    load_and_check("corrupt (meta.json")

    assert OnnxEmbedder(cache_dir=tmp_path).load().rebuilt is None  # a rebuilt cache is then used as found


def test_a_cache_that_cannot_be_rebuilt_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the exporter's packages an absent cache raises ModelUnavailable saying what to install or use instead."""
    monkeypatch.setitem(sys.modules, "onnx", None)  # `import onnx` now raises ImportError
    with pytest.raises(ModelUnavailable, match=r"is missing, and exporting it needs onnx: pip install .*--backend torch"):
        OnnxEmbedder(cache_dir=tmp_path).load()


def test_a_built_cache_runs_without_torch(onnx_cache: Path, onnx_model: OnnxEmbedder) -> None:
    """Once the graph is cached, a new process loads and encodes without importing torch, transformers or sentence-transformers."""
    code = (
        "import sys\n"
        "from plateau.embed_onnx import OnnxEmbedder\n"
        f"model = OnnxEmbedder(cache_dir={str(onnx_cache)!r}).load()\n"
        "vec = model.encode(['reading the config'])\n"
        "print(model.rebuilt, vec.shape, sorted(m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300, check=True)
    assert out.stdout.strip() == "None (1, 384) []"


def test_an_unsupported_model_folder_is_a_clear_error(tmp_path: Path) -> None:
    """A folder without a fast tokenizer, or with another pooling, raises ModelUnavailable naming the folder and --backend torch."""
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ModelUnavailable, match=r"no tokenizer\.json.*--backend torch"):
        OnnxEmbedder(tmp_path, cache_dir=tmp_path / "cache").load()
    (tmp_path / "tokenizer.json").write_text("{}")
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": False}))
    with pytest.raises(ModelUnavailable, match=r"pooling_mode_cls_token.*mean pooling only"):
        OnnxEmbedder(tmp_path, cache_dir=tmp_path / "cache").load()
    with pytest.raises(ModelUnavailable, match="not a folder"):
        OnnxEmbedder(tmp_path / "nope", cache_dir=tmp_path / "cache").load()


@pytest.mark.parametrize("value", ["tensorflow", "ONNX", "", None, 1])
def test_backend_names_are_validated(value: object) -> None:
    """An unknown backend is a ValueError naming the field and the choices, from check_backend, model_embedder and Client.local."""
    with pytest.raises(ValueError, match=r"^backend: must be one of onnx, torch; got "):
        check_backend(value)
    if value is not None:  # None means "the default" for the factories
        with pytest.raises(ValueError, match=r"^backend: must be one of onnx, torch"):
            model_embedder(value)  # type: ignore[arg-type]
        with pytest.raises(InvalidArgument, match=r"^backend: must be one of onnx, torch") as exc:
            Client.local(backend=value)  # type: ignore[arg-type]
        assert exc.value.field == "backend"


def test_the_factory_builds_each_backend_unloaded() -> None:
    """model_embedder gives an OnnxEmbedder for onnx and a SentenceTransformerEmbedder for torch, nothing loaded yet."""
    assert BACKENDS == ("onnx", "torch")
    onnx, torch_model = model_embedder("onnx"), model_embedder("torch")
    assert isinstance(onnx, OnnxEmbedder) and onnx.graph_path is None
    assert isinstance(torch_model, SentenceTransformerEmbedder)


@pytest.mark.parametrize("value", [0, -1, True, 1.5])
def test_bad_sizes_are_rejected(value: object) -> None:
    """batch_size and threads must be integers >= 1 (ValueError naming the parameter)."""
    with pytest.raises(ValueError, match="batch_size"):
        OnnxEmbedder(batch_size=value)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="threads"):
        OnnxEmbedder(threads=value)  # type: ignore[arg-type]


def test_client_local_runs_on_the_named_backend(onnx_cache: Path, onnx_model: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    """Client.local(backend="onnx") judges steps with the ONNX model (read from the cache in $PLATEAU_CACHE_DIR)."""
    monkeypatch.setenv("PLATEAU_CACHE_DIR", str(onnx_cache))
    with Client.local(backend="onnx") as client:
        verdict = client.observe("r", Step(index=0, text="Reading the config.", tool="read_file", args={"path": "a"}, result="port: 1"))
        assert verdict.step_index == 0
        inner = client._backend.engine.embedder.inner.inner  # CachedEmbedder -> BatchingEmbedder -> OnnxEmbedder
        assert isinstance(inner, OnnxEmbedder) and inner.graph_path is not None
        assert inner.graph_path.is_relative_to(onnx_cache)
