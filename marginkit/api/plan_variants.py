"""The problems ``check_plan`` runs a plan on: the user's problem, and the same problem in every data kind and form
that the method's card admits (a card admits the narrowest form unless it says more: NumPy/SciPy data, no kernel,
no offset, no sample weights).

From the user's problem (rebuilt from its data and its constructor's parameters: problems are immutable), one change
at a time:

* where the data live (the card's ``arrays``): ``"numpy"`` covers SciPy: dense data are also given as a CSR matrix
  and CSR data densely; ``"array-api"``: the data as ``array_api_strict`` arrays (when that package is importable);
  ``"dask"``: ``X`` as a row-chunked dask array (when dask is importable; run on the threaded scheduler, no cluster);
* the form (the card's ``admits``, :data:`marginkit.engine.registry.FEATURES`): ``"bias"`` flips ``bias``,
  ``"kernel"`` sets ``kernel="rbf"`` (or removes the kernel), ``"weights"`` adds sample weights (or removes them),
  where the problem's class has that parameter.

A variant is kept only where the method is offered on it (``marginkit.methods``: the card's ``accepts``, its
``requires`` and its own ``supports`` included). Each comes with the problem whose CVXPY reference certifies it (the
user's problem where only the data kind changed).
"""
from __future__ import annotations

import contextlib
import importlib.util
import inspect
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..core.validation import ProblemError
from ..engine.graph import methods
from ..formulations.base import Problem

AS_GIVEN = "the problem as given"
REFERENCE_MAX_SAMPLES, REFERENCE_MAX_KERNEL_SAMPLES = 2000, 400   # variants certified by CVXPY up to these sizes
DASK_CHUNKS = 2                                                    # row chunks of the dask variant


@dataclass(frozen=True)
class Variant:
    """``problem`` (described by ``label``, as failures name it) and ``reference``, whose CVXPY reference certifies
    it (the same mathematical problem, on NumPy data)."""

    label: str
    problem: Problem
    reference: Problem
    feature: str | None = None   # the feature of the form that changed (FEATURES), None where the data kind did

    @property
    def as_given(self) -> bool:
        return self.label == AS_GIVEN

    def certifiable(self) -> bool:
        """Whether CVXPY is importable and the problem small enough for its reference within a test's time."""
        if importlib.util.find_spec("cvxpy") is None:
            return False
        n = getattr(self.reference, "n", 0)
        limit = REFERENCE_MAX_KERNEL_SAMPLES if getattr(self.reference, "kernel", None) is not None \
            else REFERENCE_MAX_SAMPLES
        return n <= limit

    def context(self):
        """Where the variant's runs are made: dask data on the threaded scheduler (no cluster needed)."""
        if getattr(getattr(self.problem, "backend", None), "kind", None) == "dask":
            import dask
            return dask.config.set(scheduler="threads")
        return contextlib.nullcontext()


def _parameters(problem) -> dict:
    """The constructor's parameters of ``problem`` other than its data, read back from the problem (a
    ``ProblemError`` where the class keeps one under another name: that problem is checked as given only)."""
    names = [p for p in inspect.signature(type(problem).__init__).parameters if p not in ("self", "X", "y")]
    missing = [name for name in names if not hasattr(problem, name)]
    if missing:
        raise ProblemError(f"{type(problem).__name__} keeps no attribute {missing[0]!r}: it cannot be rebuilt")
    return {name: getattr(problem, name) for name in names}


def _labels(problem):
    """The labels as the user gave them (the classes, or the real targets), on the host."""
    y = problem.backend.host(problem.y)
    classes = getattr(problem, "classes_", None)
    return y if classes is None else np.where(y > 0, classes[1], classes[0])


def _rebuild(problem, X=None, y=None, **changes):
    params = {**_parameters(problem), **changes}
    return type(problem)(problem.X if X is None else X, _labels(problem) if y is None else y, **params)


def _data_kinds(problem, arrays: tuple):
    """``(label, build)`` for the same data in the other kinds the card computes on."""
    kind = getattr(getattr(problem, "backend", None), "kind", "numpy")
    labelled = hasattr(problem, "X") and hasattr(problem, "y")
    if kind != "numpy":
        if "numpy" in arrays:
            yield "the same data as NumPy arrays", problem.to_host
        return
    if labelled and sp.issparse(problem.X):
        yield "the same data as a dense NumPy array", lambda: _rebuild(problem, X=problem.X.toarray())
    elif labelled:
        yield "the same data as a SciPy CSR matrix", lambda: _rebuild(problem, X=sp.csr_matrix(problem.X))
    if getattr(problem, "kernel", None) is not None:   # kernels run on NumPy/SciPy data only
        return
    if "array-api" in arrays and importlib.util.find_spec("array_api_strict") is not None:
        yield "the same data as array_api_strict arrays", lambda: _on_array_api(problem)
    if "dask" in arrays and labelled and importlib.util.find_spec("dask") is not None:
        yield f"the same data with X a row-chunked dask array ({DASK_CHUNKS} chunks)", lambda: _on_dask(problem)


def _dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X)


def _on_array_api(problem):
    import array_api_strict as xps
    if hasattr(problem, "X"):
        signed = problem.backend.host(problem.y)
        return _rebuild(problem, X=xps.asarray(_dense(problem.X)), y=xps.asarray(signed))
    arrays = (problem.centers_c, problem.shapes_c, problem.centers_d, problem.shapes_d)   # EllipsoidSeparation
    return type(problem)(*(xps.asarray(np.asarray(a)) for a in arrays))


def _on_dask(problem):
    import dask.array as da
    X = _dense(problem.X)
    rows = max(1, -(-X.shape[0] // DASK_CHUNKS))
    return _rebuild(problem, X=da.from_array(X, chunks=(rows, -1)))


def _forms(problem, admits: tuple):
    """``(feature, label, build)`` for the same data with one feature of the form changed, where the card admits
    it."""
    if getattr(getattr(problem, "backend", None), "kind", "numpy") != "numpy" or not hasattr(problem, "X"):
        return
    try:
        params = _parameters(problem)
    except ProblemError:
        return
    if "bias" in admits and isinstance(params.get("bias"), (bool, np.bool_)):
        flipped = not params["bias"]
        yield "bias", f"the problem with bias={flipped}", lambda: _rebuild(problem, bias=flipped)
    if "kernel" in admits and "kernel" in params:
        if params["kernel"] is None:
            yield "kernel", "the problem with kernel='rbf'", lambda: _rebuild(problem, kernel="rbf", gamma=None)
        else:
            yield "kernel", "the problem without a kernel", lambda: _rebuild(problem, kernel=None, gamma=None)
    if "weights" in admits and "sample_weight" in params:
        if params["sample_weight"] is None:
            weights = np.linspace(0.5, 1.5, problem.n)   # deterministic, every sample's C scaled differently
            yield "weights", "the problem with sample_weight (0.5 to 1.5)", lambda: _rebuild(problem,
                                                                                          sample_weight=weights)
        else:
            yield "weights", "the problem without sample weights", lambda: _rebuild(problem, sample_weight=None)


def variants(problem, card, method: str) -> list[Variant]:
    """The user's ``problem`` first, then every variant the ``card`` of ``method`` admits and is offered (see the
    module docstring). A variant that cannot be built here (a form that refuses that kind of data) is left out."""
    out = [Variant(AS_GIVEN, problem, problem)]
    arrays, admits = tuple(card.arrays), tuple(getattr(card, "admits", ()))
    for feature, label, build in (*((None, *kind) for kind in _data_kinds(problem, arrays)),
                                  *_forms(problem, admits)):
        try:
            built = build()
        except ProblemError:   # e.g. MinNormFeasibility refuses array-API data
            continue
        if method in methods(built):
            out.append(Variant(label, built, problem if feature is None else built, feature))
    return out
