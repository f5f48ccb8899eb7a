"""Saving and loading results without pickle: one ``.npz`` file holding the arrays and a JSON document for the rest.

:func:`pack` turns nested dicts/lists/tuples of numbers, strings, booleans, ``None`` and NumPy arrays into a JSON
document whose arrays are replaced by ``{"__array__": key}`` references into a dict of arrays; :func:`unpack` undoes it.
:func:`write_npz` stores both in one archive (the JSON as a 0-d unicode array named ``__meta__``) and :func:`read_npz`
reads it back with ``allow_pickle=False``, so loading a file never executes code. Values that are none of the above
(a callable kernel, a solver object) are stored as their ``repr`` under ``{"__repr__": ...}`` and come back as that
string: saving never fails, and what could not be kept is visible.
"""
from __future__ import annotations

import json
import os
import zipfile

import numpy as np

from .validation import ProblemError, dtype_kind

FORMAT_VERSION = 1


def pack(value, arrays: dict):
    """A JSON-able image of ``value``; its arrays are added to ``arrays`` and referenced by key."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        if dtype_kind(value) in "biufcUS":   # numbers, booleans, strings: stored as arrays (no pickle needed)
            key = f"a{len(arrays)}"
            arrays[key] = value
            return {"__array__": key}
        return {"__objects__": [pack(v, arrays) for v in value.ravel().tolist()], "shape": list(value.shape)}
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            return {"__dict__": {k: pack(v, arrays) for k, v in value.items()}}
        return {"__items__": [[pack(k, arrays), pack(v, arrays)] for k, v in value.items()]}
    if isinstance(value, tuple):
        return {"__tuple__": [pack(v, arrays) for v in value]}
    if isinstance(value, list):
        return [pack(v, arrays) for v in value]
    return {"__repr__": repr(value)}


def unpack(doc, arrays):
    """The value :func:`pack` described (arrays read from ``arrays``)."""
    if isinstance(doc, list):
        return [unpack(v, arrays) for v in doc]
    if not isinstance(doc, dict):
        return doc
    if "__array__" in doc:
        return np.array(arrays[doc["__array__"]])
    if "__objects__" in doc:
        out = np.empty(len(doc["__objects__"]), dtype=object)
        out[:] = [unpack(v, arrays) for v in doc["__objects__"]]
        return out.reshape(doc["shape"])
    if "__dict__" in doc:
        return {k: unpack(v, arrays) for k, v in doc["__dict__"].items()}
    if "__items__" in doc:
        return {_hashable(unpack(k, arrays)): unpack(v, arrays) for k, v in doc["__items__"]}
    if "__tuple__" in doc:
        return tuple(unpack(v, arrays) for v in doc["__tuple__"])
    if "__repr__" in doc:
        return doc["__repr__"]
    raise ProblemError(f"unknown entry in a saved marginkit file: {sorted(doc)}")


def _hashable(key):
    return tuple(key) if isinstance(key, list) else key


def write_npz(path, kind: str, meta, arrays: dict) -> str:
    """Write ``meta`` (JSON-able, from :func:`pack`) and ``arrays`` to ``path`` (the name is kept as given)."""
    path = os.fspath(path)
    doc = json.dumps({"format": kind, "version": FORMAT_VERSION, "content": meta}, allow_nan=True)
    try:
        with open(path, "wb") as fh:
            np.savez_compressed(fh, __meta__=np.array(doc), **arrays)
    except OSError as exc:
        raise ProblemError(f"path: cannot write {path!r} ({exc.strerror or exc})") from None
    return path


def read_npz(path, kind: str):
    """``(content, arrays)`` of a file written by :func:`write_npz` for ``kind``; ``ProblemError`` naming ``path``
    for a missing file, another format or another kind of object."""
    path = os.fspath(path)
    try:
        npz = np.load(path, allow_pickle=False)
        if not hasattr(npz, "files"):
            raise ProblemError(f"path: {path!r} is not a file saved by marginkit (a plain array)")
        with npz:
            if "__meta__" not in npz.files:
                raise ProblemError(f"path: {path!r} is not a file saved by marginkit")
            arrays = {k: npz[k] for k in npz.files if k != "__meta__"}
            head = json.loads(str(npz["__meta__"][()]))
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        reason = " ".join(str(exc).split())
        raise ProblemError(f"path: cannot read {path!r} as a marginkit .npz file ({reason})") from None
    if head.get("format") != kind:
        raise ProblemError(f"path: {path!r} holds a {head.get('format')!r}, not a {kind!r}")
    if head.get("version", 0) > FORMAT_VERSION:
        raise ProblemError(f"path: {path!r} was written by a newer marginkit (format {head.get('version')})")
    return head["content"], arrays
