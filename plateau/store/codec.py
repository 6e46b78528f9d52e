"""A versioned, non-pickle encoding of a run's learned state, and its per-step deltas.

The learned state (``RunRecord.analysis``: trackers, baselines, CUSUMs, the breaker) is an
ordinary object graph. This module writes it as *tagged JSON* by walking plain attributes, so
that new trackers and new fields round-trip without changes here, and reads it back without
running any code of the data's choosing: only classes defined in ``plateau`` modules are
rebuilt (``cls.__new__`` then the attributes; no ``__init__``, ``__reduce__`` or
``__setstate__``), everything else is a builtin value. A document names its format
(:data:`FORMAT`, :data:`VERSION`); another version is refused with :class:`CodecError`.

Values and their nodes::

    None, bool, int, str, finite float   themselves (JSON keeps 1 and 1.0 apart)
    nan, inf, -inf                       {"$f": "nan"}
    list                                 [ ... ]
    tuple, set, frozenset                {"$t": [...]}, {"$s": [...]}, {"$fs": [...]}
    dict (any hashable keys)             {"$d": [[k, v], ...]}; Counter {"$c": ...}, OrderedDict {"$od": ...}
    defaultdict (builtin factory)        {"$dd": [[k, v], ...], "f": "int"}
    deque                                {"$q": [...], "n": maxlen}
    bytes                                {"$b": base64}
    numpy array / scalar                 {"$nd": base64, "dt": "<f4", "sh": [2, 384]} / {"$ns": base64, "dt": ...}
    enum member (plateau class)          {"$e": "@stable.name", "v": value}
    object, dataclass (plateau class)    {"$o": "@stable.name", "i": id, "a": {attr: node}}

A class is named by its stable name (:data:`STATE_NAMES`; a detector by ``detector.`` and its
registered name), never by where its code lives, so moving a class keeps stored runs
readable: the move changes one line of :data:`STATE_NAMES`. A plateau class without a stable
name is written as ``module:Qualname`` (and such documents are still read, also after the
module moved: :data:`MOVED_MODULES`).
    the same object met again            {"$r": id}

Set items are sorted by their encoding, so equal states give equal documents. Objects keep
their identity within a document (a configuration shared by several trackers is
one object again after decoding); containers do not.

Deltas (:class:`StateLog`): a step should not rewrite a run's whole history. The containers
reached through attributes from the root (``information._terms``, ``textual._history`` …)
that are large are written *outside* the small base document, as a log of changes: a set or
a dict records what was added and removed, a list or a deque what was appended and how many
items left its front. The log is compacted into one full entry whenever it has grown past the
size of the containers themselves, so reading a run costs at most about twice its state and a
step writes its base, its changes and, amortised, a constant factor more.

The stored verdict of a step (:func:`verdict_to_json`, :func:`verdict_from_json`) and the
format number of the learned state (:data:`ANALYSIS_FORMAT`) live here too: the SQLite and the
Redis store share them.
"""

from __future__ import annotations

import base64
import collections
import enum
import importlib
import json
import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from plateau.types import Action, BreakerState, Verdict

__all__ = [
    "ANALYSIS_FORMAT", "FORMAT", "MOVED_MODULES", "STATE_NAMES", "VERSION", "CodecError", "StateLog", "decode", "dumps", "encode", "loads",
    "verdict_from_json", "verdict_to_json",
]

#: Name of the document format.
FORMAT = "plateau.state"
#: Version of the document format; bump on an incompatible change to the encoding itself
#: (new trackers and fields need no bump).
VERSION = 1

#: Format of the stored learned state: 4 to 7 are this module's documents (5: the progress
#: tracker remembers the previous call; 6: repeated actions, written files and statements of
#: no change; 7: the step analysis as detectors under :mod:`plateau.analysis`, every class named
#: by its stable name (:data:`plateau.store.codec.STATE_NAMES`), so moving code no longer
#: changes stored documents; 3 was pickle, refused).
#: New trackers and fields need no codec change, but a stored run decoded into changed classes
#: would lack their new fields: bump this number whenever the classes behind the learned state
#: change (both the SQLite and the Redis store refuse runs of another format, naming both).
ANALYSIS_FORMAT = 7

_ALLOWED_ROOT = "plateau"
_FACTORIES: dict[str, Any] = {"None": None, "int": int, "float": float, "list": list, "set": set, "dict": dict, "str": str}
_SCALARS = (str, int, float, bool, type(None))


class CodecError(ValueError):
    """A value cannot be encoded, or a document cannot be decoded (wrong format or version,
    a class outside ``plateau``, a malformed node). The message names the path."""


# ---------------------------------------------------------------------------- encoding
#: Stable name → ``module:Qualname`` of every class a run's learned state holds. The names are
#: what stored documents say; the right-hand sides may change when code moves.
STATE_NAMES: dict[str, str] = {
    "analysis.run": "plateau.analysis:RunAnalysis",
    "breaker": "plateau.breaker:Breaker",
    "breaker.state": "plateau.types:BreakerState",
    "config": "plateau.config:Config",
    "test.calibrated_stall": "plateau.stats.calibrated:CalibratedStallTest",
    "test.cusum": "plateau.stats.cusum:CUSUM",
    "test.robust_baseline": "plateau.stats.robust_baseline:RobustBaseline",
    "tracker.information": "plateau.signals.information:InformationTracker",
    "tracker.memory": "plateau.signals.recurrence:RunMemory",
    "tracker.progress": "plateau.signals.progress:ProgressTracker",
    "tracker.semantic": "plateau.signals.semantic:SemanticTracker",
    "tracker.talk": "plateau.signals.talk:TalkTracker",
    "tracker.textual": "plateau.signals.textual:TextualTracker",
    "tracker.textual.config": "plateau.signals.textual:TextualConfig",
    "tracker.textual.entry": "plateau.signals.textual:_Entry",
    "intent.repetition": "plateau.signals.intent:Repetition",
    "policy.tool": "plateau.policy:ToolPolicy",
}
_NAME_OF: dict[str, str] = {}  # module:Qualname -> stable name, with the detectors
#: Old module path → new, for documents that name a class by ``module:Qualname`` (a class
#: without a stable name) written before its module moved (issue 25: ``plateau.detect`` became
#: :mod:`plateau.stats`, ``plateau.signals.memory`` :mod:`plateau.signals.recurrence`).
MOVED_MODULES: dict[str, str] = {"plateau.detect": "plateau.stats", "plateau.signals.memory": "plateau.signals.recurrence"}


def _stable_names() -> dict[str, str]:
    if not _NAME_OF:
        from plateau.analysis.registry import DETECTORS

        names = {f"{d.__module__}:{d.__qualname__}": f"detector.{d.name}" for d in DETECTORS}
        names.update({where: name for name, where in STATE_NAMES.items()})
        _NAME_OF.update(names)
    return _NAME_OF


def _qualname(cls: type) -> str:
    where = f"{cls.__module__}:{cls.__qualname__}"
    name = _stable_names().get(where) if _allowed_module(cls.__module__) else None
    return f"@{name}" if name is not None else where


def _allowed_module(module: str) -> bool:
    return module == _ALLOWED_ROOT or module.startswith(_ALLOWED_ROOT + ".")


def _attrs(obj: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for klass in type(obj).__mro__:
        for name in getattr(klass, "__slots__", ()):
            if name in ("__dict__", "__weakref__") or name in out:
                continue
            try:
                out[name] = object.__getattribute__(obj, name)
            except AttributeError:
                continue
    d = getattr(obj, "__dict__", None)
    if d is not None:
        out.update(d)
    return out


class _Encoder:
    def __init__(self) -> None:
        self.ids: dict[int, int] = {}
        self.keep: list[Any] = []  # objects stay alive while their id() is in use

    def enc(self, value: Any, path: str) -> Any:
        t = type(value)
        if value is None or t is bool or t is str or t is int:
            return value
        if t is float:
            return value if math.isfinite(value) else {"$f": repr(value)}
        if t is list:
            return [self.enc(v, f"{path}[{i}]") for i, v in enumerate(value)]
        if t is tuple:
            return {"$t": [self.enc(v, f"{path}[{i}]") for i, v in enumerate(value)]}
        if t is set or t is frozenset:  # sorted: equal sets give equal documents
            tag = "$s" if t is set else "$fs"
            kinds = {type(v) for v in value}
            if len(kinds) == 1 and kinds <= {str, int}:  # the common case: sort the values themselves
                return {tag: sorted(value)}
            return {tag: sorted((self.enc(v, f"{path}{{}}") for v in value), key=_json)}
        if t is dict or t is collections.Counter or t is collections.OrderedDict:
            tag = "$d" if t is dict else ("$c" if t is collections.Counter else "$od")
            return {tag: [[self.enc(k, f"{path}<key>"), self.enc(v, f"{path}[{k!r}]")] for k, v in value.items()]}
        if t is collections.deque:
            return {"$q": [self.enc(v, f"{path}[{i}]") for i, v in enumerate(value)], "n": value.maxlen}
        if t is collections.defaultdict:
            factory = next((name for name, f in _FACTORIES.items() if f is value.default_factory), None)
            if factory is None:
                raise CodecError(f"{path}: a defaultdict's factory must be one of {', '.join(_FACTORIES)} or None")
            return {"$dd": [[self.enc(k, f"{path}<key>"), self.enc(v, f"{path}[{k!r}]")] for k, v in value.items()], "f": factory}
        if t is bytes:
            return {"$b": base64.b64encode(value).decode("ascii")}
        if isinstance(value, np.ndarray):
            if value.dtype.hasobject:
                raise CodecError(f"{path}: numpy arrays of objects cannot be encoded")
            arr = np.ascontiguousarray(value)
            return {"$nd": base64.b64encode(arr.tobytes()).decode("ascii"), "dt": arr.dtype.str, "sh": list(arr.shape)}
        if isinstance(value, np.generic):
            return {"$ns": base64.b64encode(value.tobytes()).decode("ascii"), "dt": value.dtype.str}
        if not _allowed_module(t.__module__):
            raise CodecError(f"{path}: cannot encode a {_qualname(t)} (only builtin values and plateau classes)")
        if isinstance(value, enum.Enum):
            return {"$e": _qualname(t), "v": self.enc(value.value, f"{path}.value")}
        if isinstance(value, type) or callable(value) and not hasattr(value, "__dict__") and not hasattr(t, "__slots__"):
            raise CodecError(f"{path}: cannot encode {value!r}")
        oid = self.ids.get(id(value))
        if oid is not None:
            return {"$r": oid}
        oid = self.ids[id(value)] = len(self.ids)
        self.keep.append(value)
        attrs = {name: self.enc(v, f"{path}.{name}") for name, v in _attrs(value).items()}
        return {"$o": _qualname(t), "i": oid, "a": attrs}


def encode(value: Any) -> Any:
    """``value`` as a JSON-compatible node (see the module docstring).

    Raises
    ------
    CodecError
        A value of a type outside the builtins, numpy and ``plateau`` (a lock, a function, a
        foreign class), or a numpy array of objects; the message names its path.
    """
    return _Encoder().enc(value, "$")


# ---------------------------------------------------------------------------- decoding
_CLASSES: dict[str, type] = {}


def _resolve(name: Any, path: str) -> type:
    if not isinstance(name, str):
        raise CodecError(f"{path}: class name must be a string")
    cls = _CLASSES.get(name)
    if cls is not None:
        return cls
    if name.startswith("@"):
        where = {v: k for k, v in _stable_names().items()}.get(name[1:])
        if where is None:
            raise CodecError(f"{path}: unknown class {name!r} (no class has this stable name)")
        cls = _resolve(where, path)
        _CLASSES[name] = cls
        return cls
    module_name, _, qual = name.partition(":")
    module_name = _moved(module_name)
    if not _allowed_module(module_name) or not qual:
        raise CodecError(f"{path}: class {name!r} is not a plateau class")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in qual.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise CodecError(f"{path}: unknown class {name!r} ({exc})") from exc
    if not isinstance(obj, type) or obj.__module__ != module_name:
        raise CodecError(f"{path}: {name!r} is not a class of {module_name}")
    _CLASSES[name] = obj
    return obj


def _moved(module: str) -> str:
    for old, new in MOVED_MODULES.items():
        if module == old or module.startswith(old + "."):
            return new + module[len(old):]
    return module


class _Decoder:
    def __init__(self) -> None:
        self.objects: dict[int, Any] = {}

    def dec(self, node: Any, path: str) -> Any:
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list):
            return [self.dec(v, f"{path}[{i}]") for i, v in enumerate(node)]
        if not isinstance(node, dict) or not node:
            raise CodecError(f"{path}: malformed node")
        try:
            return self._tagged(node, path)
        except CodecError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise CodecError(f"{path}: malformed node ({type(exc).__name__}: {exc})") from exc

    def _items(self, seq: Any, path: str) -> list[Any]:
        if not isinstance(seq, list):
            raise CodecError(f"{path}: expected a list")
        return [self.dec(v, path) for v in seq]

    def _tagged(self, node: dict[str, Any], path: str) -> Any:
        tag = next(iter(node))
        if tag == "$f":
            return float(node["$f"])
        if tag == "$t":
            return tuple(self._items(node["$t"], path))
        if tag == "$s":
            return set(self._items(node["$s"], path))
        if tag == "$fs":
            return frozenset(self._items(node["$fs"], path))
        if tag in ("$d", "$c", "$od"):
            pairs = [(self.dec(k, path), self.dec(v, path)) for k, v in node[tag]]
            return {"$d": dict, "$c": collections.Counter, "$od": collections.OrderedDict}[tag](pairs)
        if tag == "$dd":
            factory = node["f"]
            if factory not in _FACTORIES:
                raise CodecError(f"{path}: unknown defaultdict factory {factory!r}")
            return collections.defaultdict(_FACTORIES[factory], [(self.dec(k, path), self.dec(v, path)) for k, v in node["$dd"]])
        if tag == "$q":
            maxlen = node.get("n")
            if maxlen is not None and not isinstance(maxlen, int):
                raise CodecError(f"{path}: deque maxlen must be an integer")
            return collections.deque(self._items(node["$q"], path), maxlen=maxlen)
        if tag == "$b":
            return base64.b64decode(node["$b"], validate=True)
        if tag in ("$nd", "$ns"):
            dtype = np.dtype(node["dt"])
            if dtype.hasobject:
                raise CodecError(f"{path}: numpy arrays of objects are refused")
            raw = base64.b64decode(node[tag], validate=True)
            if tag == "$ns":
                return np.frombuffer(raw, dtype=dtype)[0]
            return np.frombuffer(raw, dtype=dtype).reshape([int(s) for s in node["sh"]]).copy()
        if tag == "$e":
            cls = _resolve(node["$e"], path)
            if not issubclass(cls, enum.Enum):
                raise CodecError(f"{path}: {node['$e']!r} is not an enum")
            return cls(self.dec(node["v"], path))
        if tag == "$r":
            try:
                return self.objects[node["$r"]]
            except KeyError:
                raise CodecError(f"{path}: reference to an unknown object {node['$r']!r}") from None
        if tag == "$o":
            cls = _resolve(node["$o"], path)
            if issubclass(cls, (enum.Enum, BaseException)):
                raise CodecError(f"{path}: {node['$o']!r} cannot be rebuilt as an object")
            obj = cls.__new__(cls)
            self.objects[node["i"]] = obj  # before the attributes: cycles resolve to it
            attrs = node["a"]
            if not isinstance(attrs, dict):
                raise CodecError(f"{path}: attributes must be an object")
            for name, value in attrs.items():
                object.__setattr__(obj, name, self.dec(value, f"{path}.{name}"))
            return obj
        raise CodecError(f"{path}: unknown tag {tag!r}")


def decode(node: Any) -> Any:
    """The value encoded as ``node`` by :func:`encode`. Raises :class:`CodecError`."""
    return _Decoder().dec(node, "$")


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _json(node: Any) -> str:
    return _ENCODER.encode(node)


def dumps(value: Any) -> bytes:
    """``value`` as a versioned UTF-8 JSON document. Raises :class:`CodecError`."""
    return _json({"format": FORMAT, "version": VERSION, "root": encode(value)}).encode("utf-8")


def _check_header(doc: Any) -> None:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise CodecError(f"not a {FORMAT} document")
    if doc.get("version") != VERSION:
        raise CodecError(f"{FORMAT} version {doc.get('version')!r}; this Plateau reads version {VERSION}")


def loads(data: bytes | str) -> Any:
    """The value of a :func:`dumps` document. Raises :class:`CodecError` (also for another
    format version, naming both)."""
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise CodecError(f"not a {FORMAT} document ({exc})") from exc
    _check_header(doc)
    return decode(doc["root"])


# ---------------------------------------------------------------------------- deltas
#: A container whose items encode to more than this many characters is kept outside the base
#: document, as a log of changes.
EXTERNAL_MIN_CHARS = 2048

_KINDS: dict[type, str] = {set: "set", frozenset: "set", dict: "dict", list: "list", collections.deque: "list"}


class _External:
    """What was last persisted of one external container: its kind and its items, encoded."""

    __slots__ = ("items", "kind", "maxlen", "pytype", "raw")

    def __init__(self, kind: str, pytype: str, maxlen: int | None) -> None:
        self.kind = kind
        self.pytype = pytype
        self.maxlen = maxlen
        #: set: {value: encoded}; dict: {key: (encoded key, encoded value)}; list: [encoded]
        self.items: Any = {} if kind in ("set", "dict") else []
        self.raw: dict[Any, Any] = {}  # dict: key -> value when the value is a scalar (cheap compare)

    def size(self) -> int:
        if self.kind == "set":
            return sum(len(e) for e in self.items.values())
        if self.kind == "dict":
            return sum(len(k) + len(v) for k, v in self.items.values())
        return sum(len(e) for e in self.items)


_PYTYPES: dict[type, str] = {set: "set", frozenset: "frozenset", dict: "dict", list: "list", collections.deque: "deque"}


def _pytype(value: Any) -> str:
    return _PYTYPES[type(value)]


class StateLog:
    """One run's learned state as a small *base* document plus a log of container changes.

    The writer side (:meth:`snapshot`) compares the live state with what was last persisted
    and returns ``(base, entry, full)``: the base document (JSON text, always written), the
    log entry for this change (JSON text, appended) and whether ``entry`` is a full rewrite
    that replaces the log (compaction). The reader side (:meth:`restore`) rebuilds the state
    from a base and the log's entries. A :class:`StateLog` is the memory of one replica about
    one run; after a failed write it must be dropped (its view would be ahead of the store).

    Parameters
    ----------
    min_chars
        Containers larger than this (encoded characters) go to the log (default
        :data:`EXTERNAL_MIN_CHARS`).
    """

    def __init__(self, min_chars: int = EXTERNAL_MIN_CHARS) -> None:
        self.min_chars = min_chars
        self._ext: dict[str, _External] = {}
        self.log_chars = 0  # characters in the log's entries after its last full entry
        self._pending: tuple[dict[str, _External], int] = ({}, 0)
        #: Size of the state encoded by the last :meth:`snapshot`, in characters of JSON (the
        #: base document plus every container, as a full rewrite would hold them; a character
        #: is one byte of ASCII text, up to 4 of other text): what ``Config.max_run_state_bytes``
        #: bounds.
        self.snapshot_chars = 0

    # -------------------------------------------------------------- writer
    def snapshot(self, root: Any, *, full: bool = False) -> tuple[str, str, bool]:
        """Base document, log entry (``""`` when nothing changed outside the base) and whether
        the entry is a full rewrite (see the class).

        ``full=True`` asks for a full entry (a new log). Raises :class:`CodecError` for a
        value that cannot be encoded. Commit the returned view with :meth:`commit` only after
        the write succeeded.
        """
        ops: list[Any] = []
        new_ext: dict[str, _External] = {}
        base_root = self._walk(root, "", _Encoder(), ops, new_ext)
        total = sum(e.size() for e in new_ext.values())
        entry = _json({"f": False, "ops": ops})
        if full or self.log_chars + len(entry) > max(4 * self.min_chars, total):
            full = True
            entry = _json({"f": True, "ops": [self._full_op(path, ext) for path, ext in new_ext.items()]})
        if not full and not ops:
            entry = ""  # nothing changed outside the base
        base = _json({"format": FORMAT, "version": VERSION, "root": base_root})
        self.snapshot_chars = len(base) + total
        self._pending = (new_ext, 0 if full else self.log_chars + len(entry))
        return base, entry, full

    def commit(self) -> None:
        """Adopt the view of the last :meth:`snapshot` (its write succeeded)."""
        self._ext, self.log_chars = self._pending

    @staticmethod
    def _full_op(path: str, ext: _External) -> list[Any]:
        if ext.kind == "set":
            items: list[Any] = [json.loads(e) for e in ext.items.values()]
        elif ext.kind == "dict":
            items = [[json.loads(k), json.loads(v)] for k, v in ext.items.values()]
        else:
            items = [json.loads(e) for e in ext.items]
        return [path, "=", ext.kind, ext.pytype, ext.maxlen, items]

    def _walk(self, value: Any, path: str, encoder: _Encoder, ops: list[Any], new_ext: dict[str, _External]) -> Any:
        """Encode ``value`` like :func:`encode`, sending large attribute containers to the log."""
        t = type(value)
        if path and t in _KINDS:
            prior = self._ext.get(path)
            kind = _KINDS[t]
            if prior is not None and prior.kind == kind and prior.pytype == _pytype(value):
                return self._external(value, path, prior, ops, new_ext)
            node = encoder.enc(value, path)
            if len(_json(node)) > self.min_chars:
                return self._external(value, path, None, ops, new_ext)
            return node
        if t in _SCALARS or t in _KINDS or t in (tuple, collections.Counter, collections.OrderedDict, collections.defaultdict, bytes):
            return encoder.enc(value, path or "$")
        if isinstance(value, (np.ndarray, np.generic, enum.Enum)) or not _allowed_module(t.__module__):
            return encoder.enc(value, path or "$")
        oid = encoder.ids.get(id(value))
        if oid is not None:
            return {"$r": oid}
        oid = encoder.ids[id(value)] = len(encoder.ids)
        encoder.keep.append(value)
        attrs = {name: self._walk(v, f"{path}.{name}" if path else name, encoder, ops, new_ext) for name, v in _attrs(value).items()}
        return {"$o": _qualname(t), "i": oid, "a": attrs}

    def _external(self, value: Any, path: str, prior: _External | None, ops: list[Any], new_ext: dict[str, _External]) -> Any:
        kind = _KINDS[type(value)]
        maxlen = value.maxlen if isinstance(value, collections.deque) else None
        ext = _External(kind, _pytype(value), maxlen)
        new_ext[path] = ext
        # items are encoded on their own (a fresh encoder): they are data, not shared objects
        if kind == "set":
            old = prior.items if prior is not None else {}
            ext.items = {v: old[v] if v in old else _json(encode(v)) for v in value}
            added = [json.loads(ext.items[v]) for v in value if v not in old]
            removed = [json.loads(e) for v, e in old.items() if v not in ext.items]
            if prior is None or added or removed:
                ops.append([path, "s", ext.kind, ext.pytype, maxlen, added, removed] if prior is not None else self._full_op(path, ext))
        elif kind == "dict":
            old = prior.items if prior is not None else {}
            old_raw = prior.raw if prior is not None else {}
            upserts: list[Any] = []
            for k, v in value.items():
                if type(v) in _SCALARS and k in old_raw and type(old_raw[k]) is type(v) and old_raw[k] == v:
                    ext.items[k] = old[k]
                    ext.raw[k] = v
                    continue
                ek = old[k][0] if k in old else _json(encode(k))
                ev = _json(encode(v))
                ext.items[k] = (ek, ev)
                if type(v) in _SCALARS:
                    ext.raw[k] = v
                if k not in old or old[k][1] != ev:
                    upserts.append([json.loads(ek), json.loads(ev)])
            removed = [json.loads(ek) for k, (ek, _) in old.items() if k not in value]
            if prior is None:
                ops.append(self._full_op(path, ext))
            elif upserts or removed:
                ops.append([path, "d", ext.kind, ext.pytype, maxlen, upserts, removed])
        else:
            ext.items = [_json(encode(v)) for v in value]
            old_list: list[str] = prior.items if prior is not None else []
            drop = _front_drop(old_list, ext.items)
            if prior is None or drop is None:
                ops.append(self._full_op(path, ext))
            else:
                appended = [json.loads(e) for e in ext.items[len(old_list) - drop :]]
                if drop or appended:
                    ops.append([path, "l", ext.kind, ext.pytype, maxlen, appended, drop])
        return {"$x": path}

    # -------------------------------------------------------------- reader
    def restore(self, base: str | bytes, entries: Iterable[str | bytes], *, fresh: bool = True) -> Any:
        """The state from its ``base`` and the log ``entries`` (oldest first), and remember it
        as the persisted view. With ``fresh=False`` the entries continue this log's view.

        Raises :class:`CodecError` for another format version or a malformed document.
        """
        try:
            doc = json.loads(base)
        except (ValueError, UnicodeDecodeError) as exc:
            raise CodecError(f"not a {FORMAT} document ({exc})") from exc
        _check_header(doc)
        if fresh:
            self._ext, self.log_chars = {}, 0
        for raw in entries:
            try:
                entry = json.loads(raw)
                full, ops = bool(entry["f"]), entry["ops"]
            except (ValueError, UnicodeDecodeError, KeyError, TypeError) as exc:
                raise CodecError(f"malformed state log entry ({exc})") from exc
            if full:
                self._ext, self.log_chars = {}, -len(raw)
            self._replay(ops)
            self.log_chars += len(raw)
        return _XDecoder(self._ext).dec(doc["root"], "$")

    def _replay(self, ops: Any) -> None:
        if not isinstance(ops, list):
            raise CodecError("malformed state log entry")
        for op in ops:
            try:
                path, code, kind, pytype, maxlen = op[:5]
                if code == "=":
                    ext = self._ext[path] = _External(kind, pytype, maxlen)
                    self._fill(ext, op[5])
                    continue
                ext = self._ext[path]
                if code == "s":
                    for item in op[5]:
                        ext.items[(decode(item))] = _json(item)
                    for item in op[6]:
                        ext.items.pop((decode(item)), None)
                elif code == "d":
                    for k, v in op[5]:
                        ext.items[(decode(k))] = (_json(k), _json(v))
                    for k in op[6]:
                        ext.items.pop((decode(k)), None)
                elif code == "l":
                    if op[6]:
                        del ext.items[: int(op[6])]
                    ext.items.extend(_json(item) for item in op[5])
                else:
                    raise CodecError(f"unknown state log operation {code!r}")
            except CodecError:
                raise
            except (KeyError, TypeError, ValueError, IndexError) as exc:
                raise CodecError(f"malformed state log operation ({type(exc).__name__}: {exc})") from exc

    @staticmethod
    def _fill(ext: _External, items: list[Any]) -> None:
        if ext.kind == "set":
            ext.items = {(decode(item)): _json(item) for item in items}
        elif ext.kind == "dict":
            ext.items = {(decode(k)): (_json(k), _json(v)) for k, v in items}
        else:
            ext.items = [_json(item) for item in items]

    def copy(self) -> StateLog:
        """An independent copy of this view (its containers' items are shared, not mutated)."""
        other = StateLog(self.min_chars)
        other._ext = {}
        for path, ext in self._ext.items():
            dup = _External(ext.kind, ext.pytype, ext.maxlen)
            dup.items = dict(ext.items) if isinstance(ext.items, dict) else list(ext.items)
            dup.raw = dict(ext.raw)
            other._ext[path] = dup
        other.log_chars = self.log_chars
        return other


def _front_drop(old: list[str], new: list[str]) -> int | None:
    """How many items left the front of ``old`` so that ``new`` continues it, or None."""
    for drop in range(min(len(old), 64) + 1):
        kept = len(old) - drop
        if kept <= len(new) and new[:kept] == old[drop:]:
            return drop
    return None


class _XDecoder(_Decoder):
    def __init__(self, ext: dict[str, _External]) -> None:
        super().__init__()
        self.ext = ext

    def _tagged(self, node: dict[str, Any], path: str) -> Any:
        if "$x" in node:
            ext = self.ext.get(node["$x"])
            if ext is None:
                raise CodecError(f"{path}: the state log holds no container {node['$x']!r}")
            return _rebuild(ext, path)
        return super()._tagged(node, path)


_BUILD: dict[str, Callable[..., Any]] = {
    "set": set,
    "frozenset": frozenset,
    "dict": dict,
    "list": list,
}


def _item(text: str, path: str) -> Any:
    # each item was encoded on its own, so its object ids are its own: a fresh decoder
    return _Decoder().dec(json.loads(text), path)


def _rebuild(ext: _External, path: str) -> Any:
    if ext.kind == "set":
        items: Iterable[Any] = (_item(e, path) for e in ext.items.values())
    elif ext.kind == "dict":
        return {_item(k, path): _item(v, path) for k, v in ext.items.values()}
    else:
        items = (_item(e, path) for e in ext.items)
    if ext.pytype == "deque":
        return collections.deque(items, maxlen=ext.maxlen)
    build = _BUILD.get(ext.pytype)
    if build is None:
        raise CodecError(f"{path}: unknown container type {ext.pytype!r}")
    return build(items)


# ----------------------------------------------------------------------------- verdicts
def verdict_to_json(v: Verdict) -> str:
    """A :class:`~plateau.types.Verdict` as compact JSON (floats round-trip exactly)."""
    return json.dumps(
        [v.step_index, v.action.value, v.state.value, v.score, list(v.reasons), dict(v.signals), v.message],
        ensure_ascii=False,
        separators=(",", ":"),
    )


def verdict_from_json(run_id: str, text: str) -> Verdict:
    """The inverse of :func:`verdict_to_json` (``run_id`` is not stored per row)."""
    idx, action, state, score, reasons, signals, message = json.loads(text)
    return Verdict(
        run_id=run_id,
        step_index=int(idx),
        action=Action(action),
        state=BreakerState(state),
        score=score,
        reasons=tuple(reasons),
        signals=signals,
        message=message,
    )
