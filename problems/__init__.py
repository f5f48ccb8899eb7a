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
import os
import pkgutil
from dataclasses import dataclass
from typing import Callable

import numpy as np

INSTANCES: dict = {}


@dataclass
class Instance:
    name: str
    build: Callable
    description: str
    problem: str  # class name of the problem it builds
    source: str = ""


def instance(name: str, problem: str, description: str, source: str = ""):
    def deco(fn):
        INSTANCES[name] = Instance(name=name, build=fn, description=description, problem=problem, source=source)
        return fn
    return deco


def _discover():
    for mod in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{mod.name}")


def names() -> list[str]:
    _discover()
    return sorted(INSTANCES)


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


def load_file(path: str):
    import scipy.sparse as sp
    import marginkit
    from marginkit import ProblemError
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise ProblemError(f"cannot read instance file {path!r}: {exc}") from None
    if "X" in data:
        X = data["X"]
    elif "X_data" in data:
        X = sp.csr_matrix((data["X_data"], data["X_indices"], data["X_indptr"]), shape=tuple(data["X_shape"]))
    else:
        raise ProblemError(f"instance file {path!r} has no X")
    kind = str(data["problem"]) if "problem" in data else "MaxMargin"
    cls = getattr(marginkit, kind, None)
    if cls is None:
        raise ProblemError(f"instance file {path!r}: unknown problem {kind!r}")
    opts = {k: data[k].item() for k in ("C", "bias", "p", "constraint", "gamma", "mu") if k in data}
    return cls(X, data["y"], **opts)
