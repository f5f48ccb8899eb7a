"""The catalog of named problem instances (``marginkit list``, ``solve NAME``, ``compare NAME``).

Installed as ``marginkit.catalog``. Each module of this folder registers builders with :func:`instance`;
a builder takes ``quick`` (a reduced size for the test suite) and returns a problem object. Data come from
:mod:`marginkit.datasets` (shipped with the dependencies; nothing is downloaded).

An instance *file* is an ``.npz`` with ``X`` and ``y`` (or ``X_data, X_indices, X_indptr, X_shape`` for a
sparse ``X``), a string ``problem`` (a class name, default ``MaxMargin``) and optional scalar options
(``C``, ``bias``, ``p``, ``constraint``, ``gamma``, ``mu``).
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import zipfile
import pkgutil
from dataclasses import dataclass
from typing import Callable

import numpy as np

from marginkit.core.validation import ProblemError

INSTANCES: dict = {}


@dataclass
class Instance:
    name: str
    build: Callable
    description: str
    problem: str  # class name of the problem it builds
    source: str = ""
    requires: str = ""  # the optional package that ships its data ("" when the core dependencies do)


def instance(name: str, problem: str, description: str, source: str = "", requires: str = ""):
    def deco(fn):
        INSTANCES[name] = Instance(name=name, build=fn, description=description, problem=problem, source=source,
                                   requires=requires)
        return fn
    return deco


def installed(name: str) -> bool:
    """Whether the data of the instance ``name`` are installed (its ``requires`` package, found without importing
    it)."""
    _discover()
    return _has_data(INSTANCES[name])


def _has_data(inst: Instance) -> bool:
    return not inst.requires or importlib.util.find_spec(inst.requires) is not None


def _discover():
    for mod in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{mod.name}")


def names(everything: bool = False) -> list[str]:
    """The instances whose data are installed (``marginkit list`` builds each one), or all of them with
    ``everything=True``; :func:`load` of one whose package is missing raises a ``ProblemError`` naming it."""
    _discover()
    return sorted(n for n, inst in INSTANCES.items() if everything or _has_data(inst))


def get(name: str) -> Instance:
    _discover()
    return INSTANCES[name]


def load(name: str, quick: bool = False):
    """Build the problem named ``name`` (a catalog entry or a path to an ``.npz`` instance file)."""
    from marginkit import ProblemError
    _discover()
    if name in INSTANCES:
        return INSTANCES[name].build(quick=quick)
    if os.path.exists(name):
        return load_file(name)
    raise ProblemError(f"unknown problem {name!r}: not in the catalog ({', '.join(sorted(INSTANCES))}) "
                       f"and not an existing file")


_FILE_OPTIONS = {"C": float, "bias": bool, "p": float, "constraint": str, "gamma": float, "mu": float}
_FILE_PROBLEMS = ("MaxMargin", "MinNormFeasibility", "SoftMarginSVM", "PerturbedSVMDual")


def _field(data, path, key):
    try:
        return data[key]
    except KeyError:
        raise ProblemError(f"instance file {path!r} has no {key!r}") from None
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ProblemError(f"instance file {path!r}: field {key!r} cannot be read ({exc})") from None


def _scalar(data, path, key, kind):
    value = _field(data, path, key)
    if value.ndim != 0:
        raise ProblemError(f"instance file {path!r}: {key} must be a scalar; got shape {value.shape}")
    value = value.item()
    if kind is str and not isinstance(value, str):
        raise ProblemError(f"instance file {path!r}: {key} must be a string; got {value!r}")
    return value


def load_file(path: str):
    """An instance from an ``.npz`` file: ``X`` (or the CSR parts ``X_data``, ``X_indices``, ``X_indptr``,
    ``X_shape``), ``y``, optionally ``problem`` (one of :data:`_FILE_PROBLEMS`, default ``MaxMargin``) and the
    problem's scalar options. Every field is checked with the API's messages; nothing but ``ProblemError`` escapes."""
    import scipy.sparse as sp
    import marginkit
    if os.path.isdir(path):
        raise ProblemError(f"instance file {path!r} is a directory")
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise ProblemError(f"cannot read instance file {path!r}: {exc}") from None
    if not hasattr(data, "files"):
        raise ProblemError(f"instance file {path!r} is a single array, not an .npz archive of named fields")
    if "X" in data.files:
        X = _field(data, path, "X")
    elif "X_data" in data.files:
        parts = [_field(data, path, k) for k in ("X_data", "X_indices", "X_indptr", "X_shape")]
        try:
            X = sp.csr_matrix(tuple(parts[:3]), shape=tuple(int(v) for v in parts[3]))
        except (TypeError, ValueError, IndexError) as exc:
            raise ProblemError(f"instance file {path!r}: the sparse parts of X are inconsistent ({exc})") from None
    else:
        raise ProblemError(f"instance file {path!r} has no X (nor X_data, X_indices, X_indptr, X_shape)")
    if X.dtype.kind == "O":
        raise ProblemError(f"instance file {path!r}: X must be numeric")
    y = _field(data, path, "y")
    kind = _scalar(data, path, "problem", str) if "problem" in data.files else "MaxMargin"
    if kind not in _FILE_PROBLEMS:
        raise ProblemError(f"instance file {path!r}: unknown problem {kind!r}; one of {', '.join(_FILE_PROBLEMS)}")
    opts = {k: _scalar(data, path, k, t) for k, t in _FILE_OPTIONS.items() if k in data.files}
    return getattr(marginkit, kind)(X, y, **opts)
