"""What the three benchopt benchmarks of ``benchmarks/benchopt/`` measure with (``benchmark_utils.certified``: each
benchmark's ``benchmark_utils`` package also reads this folder, see its ``__init__``).

benchopt measures a solver's suboptimality against the best value that any run of the benchmark happened to reach.
marginkit knows the optimum: :meth:`marginkit.SoftMarginSVM.reference` and :meth:`marginkit.MaxMargin.reference`
solve the problem with CVXPY and certify the solution, and :func:`marginkit.certify` bounds how far any answer
``(w, b)`` is from it. Here:

* :func:`build`: marginkit's problem of a benchmark, named by its form (``"SoftMarginSVM"`` or ``"MaxMargin"``);
* :func:`certified_problem`: the same, with its certified reference computed once and kept for the process
  (memoised on a hash of the data and the parameters, so every solver, every repetition and every objective
  instance that sees the same data shares one reference solve);
* :func:`svm_metrics`, :func:`margin_metrics`: what each Objective reports, benchopt's ``value`` and the
  ``certified_gap`` next to it;
* :func:`marginkit_methods`: marginkit's methods for a problem, read from its method registry;
* :func:`coefficients`, :func:`fit_quietly`, :func:`equivalent_C`: the other libraries' fits brought to ``(w, b)``.
"""
from __future__ import annotations

import warnings

import numpy as np

# (form, hash of data and parameters) -> marginkit problem holding its cached reference; a few data sets per run
_PROBLEMS: dict = {}
_KEEP = 16


def build(form: str, X, y, C=None, bias: bool = False):
    """``SoftMarginSVM(X, y, C=C, bias=bias)`` (``form="SoftMarginSVM"``; marginkit's default ``C`` when None) or
    ``MaxMargin(X, y, bias=bias)`` (``form="MaxMargin"``, which has no ``C``)."""
    import marginkit as mk
    if form == "MaxMargin":
        return mk.MaxMargin(X, y, bias=bias)
    return mk.SoftMarginSVM(X, y, bias=bias) if C is None else mk.SoftMarginSVM(X, y, C=C, bias=bias)


def certified_problem(form: str, X, y, C=None, bias: bool = False):
    """:func:`build`'s problem, its certified reference solved now (outside any timed section) and cached."""
    import joblib

    key = (form, joblib.hash((X, y, C if form != "MaxMargin" else None, bool(bias))))
    if key not in _PROBLEMS:
        problem = build(form, X, y, C, bias)
        problem.reference()
        if len(_PROBLEMS) >= _KEEP:
            _PROBLEMS.pop(next(iter(_PROBLEMS)))
        _PROBLEMS[key] = problem
    return _PROBLEMS[key]


def _point(beta, intercept):
    """``(w, b)`` as float arrays, or None when the solver returned non-finite numbers (a diverged run)."""
    w = np.asarray(beta, dtype=float).ravel()
    b = float(np.asarray(intercept, dtype=float).ravel()[0])
    if not (np.all(np.isfinite(w)) and np.isfinite(b)):
        return None
    return w, b


def svm_metrics(problem, beta, intercept=0.0) -> dict:
    """``value``: ``½||w||² + C Σ max(0, 1 − y_i(x_iᵀw + b))`` (marginkit's ``SoftMarginSVM`` objective, the
    community benchmark's without the intercept); ``certified_gap``: :func:`marginkit.certify`'s relative gap
    ``(P(w, b) − D)/D``, with ``D`` a certified lower bound on the optimal value, so it bounds the iterate's true
    relative suboptimality from above whatever the other runs reached."""
    import marginkit as mk
    point = _point(beta, intercept)
    if point is None:
        return {"value": np.inf, "certified_gap": np.inf}
    w, b = point
    hinge = np.maximum(0.0, 1.0 - problem.y * (np.asarray(problem.X @ w).ravel() + b))
    value = 0.5 * float(w @ w) + problem.C * float(hinge.sum())
    gap = mk.certify(problem, (w, b) if problem.bias else w).certificate["relative_gap"]
    return {"value": value, "certified_gap": float(gap)}


def margin_metrics(problem, beta, intercept=0.0) -> dict:
    """``value``: minus the normalised margin ``γ = min_i y_i(x_iᵀw + b)/||w||`` of the iterate (benchopt minimises);
    ``margin``: ``γ``; ``certified_gap``: ``(γ̄ − γ)/γ̄`` with ``γ̄`` the certified upper bound on the max margin of
    :func:`marginkit.certify` (above 1 while the iterate does not separate the data).

    ``w = 0``, where most solvers start, has no direction: its margin is taken as ``−max_i ||x_i||``, the lowest margin
    of any direction through the origin. (Taken as 0, it beat every early iterate that does not separate yet, and
    benchopt's progress rule, which compares each point with the best so far, stopped those curves at once.)"""
    import marginkit as mk
    point = _point(beta, intercept)
    if point is None:
        return {"value": np.inf, "margin": -np.inf, "certified_gap": np.inf}
    w, b = point
    res = mk.certify(problem, (w, b) if problem.bias else w)
    upper = float(res.certificate["margin_upper"])
    if np.any(w != 0):
        margin = float(res.margin)
    else:
        X = problem.X
        margin = -float(np.sqrt(np.max(np.asarray(X.multiply(X).sum(axis=1)) if hasattr(X, "multiply")
                                        else np.einsum("ij,ij->i", X, X))))
    return {"value": -margin, "margin": margin, "certified_gap": (upper - margin) / upper}


def equivalent_C(problem) -> float:
    """A soft-margin ``C`` whose optimum is the hard-margin optimum: any ``C`` at least the largest multiplier
    ``a*_i`` of the certified reference is one (the KKT conditions of ``min ½||w||² s.t. y_i(x_iᵀw + b) >= 1`` are
    those of the soft margin with the box ``0 <= a <= C`` inactive); twice it, so rounding cannot make it binding.
    This is how a soft-margin library (liblinear, libsvm, skglm) is given the hard-margin problem."""
    a = np.asarray(problem.reference().dual["a"], dtype=float)
    return 2.0 * float(np.max(a))


def _tiny(form: str, bias: bool):
    """A four-point instance, only to ask the registry which methods apply to the benchmark's problem."""
    X = np.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0], [-2.0, -1.0]])
    y = np.array([1, 1, -1, -1])
    return build(form, X, y, bias=bias)


def marginkit_methods(form: str, *biases: bool, exclude_tags=("reference",)) -> list[str]:
    """The names ``marginkit.methods`` lists for the benchmark's problem with each of ``biases`` (in that order, each
    once): the registry's cards, those added by ``register_method`` or a plugin, and those reached through a
    reduction, minus any whose card carries a tag of ``exclude_tags`` (the CVXPY reference has its own benchopt
    solver)."""
    import marginkit as mk
    from marginkit.engine.plugins import all_cards
    excluded = {c.name for c in all_cards() if set(exclude_tags) & set(c.tags)}
    return list(dict.fromkeys(m for bias in biases for m in mk.methods(_tiny(form, bias)) if m not in excluded))


def fit_quietly(estimator, X, y):
    """``estimator.fit(X, y)`` with scikit-learn's ConvergenceWarning silenced: a run stopped by benchopt's
    iteration budget is expected not to have converged, and its certified gap says how far it is."""
    from sklearn.exceptions import ConvergenceWarning
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        estimator.fit(X, y)
    return estimator


def coefficients(estimator) -> dict:
    """``{"beta": w, "intercept": b}`` of a fitted binary linear classifier trained on ``y`` in ``{-1, +1}``."""
    coef = estimator.coef_
    if hasattr(coef, "toarray"):
        coef = coef.toarray()
    intercept = getattr(estimator, "intercept_", 0.0)
    return {"beta": np.asarray(coef, dtype=float).ravel(), "intercept": float(np.ravel(intercept)[0])}
