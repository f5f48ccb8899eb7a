"""Regularisation paths: the soft-margin problem along a grid of ``C``, each point warm-started from its neighbour.

``marginkit.path(SoftMarginSVM(X, y), C=grid, method=None, **options) -> list[Result]`` (CONTRACT: Regularisation
paths). The grid is solved in increasing order of ``C`` and the results come back in the order of ``grid``. Each
point is an ordinary solve of ``SoftMarginSVM(X, y, C=c, ...)`` (same data, bias, kernel and sample weights), so its
status is what the method's own certificate proves at ``tol`` (CONTRACT: Statuses); ``result.info["C"]`` is its
``C``.

**The warm start.** The dual of the soft-margin problem is ``max 1ᵀa − ½||Σ a_i y_i x_i||²`` over ``0 <= a_i <= C_i``
(and ``yᵀa = 0`` with a bias), ``C_i = C·s_i``. Going up the grid, the previous multipliers ``a`` are feasible as they
are (the box grows, ``yᵀa = 0`` holds). The coordinate methods (cards tagged :data:`RESCALED`) start instead from
``a·C/C_prev``, also in the new box and on ``yᵀa = 0``: the multipliers at their bound (the margin errors, most of
them at small ``C``) stay at their bound, as they do along the exact path while the set of margin errors does not
change, and the coordinate sweeps then only move the free ones. ``fista`` keeps the previous result as is: rescaling
saves ``dual-cd-bias`` epochs but costs FISTA iterations (the counts: benchmarks/README.md, "Warm starts along a
path"). The offset ``b`` is kept as the initial multiplier of ``yᵀa = 0`` (``dual-cd-bias``); ``w`` is rescaled with
``a`` (``w = Σ a_i y_i x_i``). The CVXPY reference (``method="cvxpy"``) solves every point from scratch.

**Sequential screening** (methods tagged :data:`SCREENED`: ``dual-cd``, unless ``screening=False``): before each new
``C' = ρC`` the previous point ``(w, a)`` proves samples at their bound for ``C'`` (:func:`sequential_screen`), which
the run starts with screened (and then screens dynamically at its own certificate checks). *Proof.* For ``0 <= t <= ρ``,
``t·a`` lies in the new box (``t a_i <= ρ C_i = C'_i``), with the dual value ``D(ta) = t·1ᵀa − ½t²||w||²`` (``w = Σ a_i
y_i x_i``; ``D`` depends on ``C`` only through its box); for every ``u >= 0``, ``P_{C'}(uw) = ½u²||w||² + Σ C'_i max(0,
1 − u m_i)`` with ``m_i = y_i x_iᵀw``. ``P_{C'}`` is 1-strongly convex and ``D(ta) <= P*_{C'}`` (weak duality), so the
optimum ``w*(C')`` lies in the ball of centre ``uw`` and radius ``√(2(P_{C'}(uw) − D(ta)))`` (the Gap Safe sphere of
Ndiaye, Fercoq, Gramfort & Salmon, *Gap safe screening rules for sparsity enforcing penalties*, JMLR 18, 2017, Theorem
6, with the previous solution rescaled into the new dual feasible set as in their §4.3 "warm start"; the same pathwise
setting as Ogawa, Suzuki & Takeuchi, *Safe screening of non-support vectors in pathwise SVM computation*, ICML 2013).
``t`` maximises the concave ``D(ta)`` on ``[0, ρ]`` and ``u`` is the best of ``{1, ρ, t}`` for ``P_{C'}`` (any choice is
valid: they only make the ball smaller). A sample whose margin interval ``u m_i ± r||x_i||`` lies above 1 has ``a*_i =
0`` at ``C'``, below 1 ``a*_i = C'_i`` (the KKT conditions, as in :mod:`marginkit.plans.svm_cd.svm_coordinate`). Every
point's certificate is still computed on the full problem.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..core.result import Result
from ..core.validation import ProblemError
from ..engine.choice import choose
from ..engine.graph import method_spec, methods
from ..formulations import MaxMargin, PerturbedSVMDual, SoftMarginSVM

#: the card tag of the methods whose warm start along the path is ``a·C/C_prev`` (see the module docstring); the others
#: start from the previous result as it is
RESCALED = "path-rescaled"
#: the card tag of the methods that read the sequential screening rule's screened set from their warm start
SCREENED = "path-screened"

def default_method(problem, warm: bool = False) -> str:
    """The method ``method=None`` means for ``problem``: ``solve("auto")``'s choice (:func:`marginkit.engine.choice.
    choose`, its cost model between the coordinate methods and ``ipm``); ``warm=True`` for a path, whose warm starts
    make the coordinate methods cheaper."""
    return choose(problem, warm)[0]


@dataclass(frozen=True)
class WarmStart:
    """What a plan reads from a warm start (``w``, ``b``, ``dual``), here rescaled from the previous point."""

    w: Any
    b: float
    dual: dict
    screened: tuple | None = None   # (removed, fixed) proven for the new C by sequential_screen (dual-cd reads it)


def sequential_screen(problem: SoftMarginSVM, result: Result, C_prev: float, C: float, norms=None):
    """``(removed, fixed)``: the samples proven to have ``a*_i = 0`` and ``a*_i = C_i`` at ``C`` from the result at
    ``C_prev`` (the module docstring's sequential rule; no bias, no kernel), or None when the result holds no usable
    ``(w, a)``. One product with ``X``; ``norms`` are the row norms of ``X`` (computed when not given)."""
    from ..core.linalg import row_norms
    from ..core.safe import EPS, gap_radius
    dual = result.dual if isinstance(result.dual, dict) else {}
    if problem.bias or problem.kernel is not None or result.w is None or dual.get("a") is None:
        return None
    w, a = np.asarray(result.w, dtype=float).ravel(), np.asarray(dual["a"], dtype=float).ravel()
    if not (np.all(np.isfinite(w)) and np.all(np.isfinite(a))) or a.shape[0] != problem.n:
        return None
    rho = C / C_prev
    box = np.asarray(problem.box, dtype=float) * (C / float(problem.C))   # C'_i = C'·s_i
    m = np.asarray(problem.y, dtype=float) * np.asarray(problem.X @ w).ravel()
    S, q = float(a.sum()), float(w @ w)
    t = min(max(S / q, 0.0), rho) if q > 0 else rho
    dual_value = t * S - 0.5 * t * t * q
    primal, u = min((0.5 * v * v * q + float(box @ np.maximum(0.0, 1.0 - v * m)), v) for v in (1.0, rho, t))
    r = gap_radius({"primal": primal, "dual": dual_value})
    if not np.isfinite(r):
        return None
    norms = row_norms(problem.X) if norms is None else norms
    half = (r + (problem.d + 2) * EPS * u * np.sqrt(q)) * norms + 4 * EPS * (1.0 + u * np.abs(m))
    movable = box > 0.0
    removed = np.flatnonzero(movable & (u * m - half > 1.0))
    fixed = np.flatnonzero(movable & (u * m + half < 1.0))
    return removed, fixed


def rescaled(result: Result, ratio: float) -> WarmStart | None:
    """The warm start for ``C = ratio·C_prev`` from the result at ``C_prev`` (see the module docstring), or None when
    the result holds no usable point."""
    dual = result.dual if isinstance(result.dual, dict) else {}
    a = dual.get("a")
    if a is not None:
        a = np.asarray(a, dtype=float) * ratio
        if not np.all(np.isfinite(a)):
            a = None
    w = None if result.w is None else np.asarray(result.w, dtype=float) * ratio
    if w is not None and not np.all(np.isfinite(w)):
        w = None
    if a is None and w is None:
        return None
    b = float(result.b) if result.b is not None and np.isfinite(result.b) else 0.0
    return WarmStart(w=w, b=b, dual={"a": a} if a is not None else None)


def check_grid(C) -> np.ndarray:
    """``C`` as a new 1-D float array of finite positive values; ``ProblemError`` naming ``C`` otherwise."""
    if C is None or isinstance(C, (str, bytes, dict)):
        raise ProblemError(f"C must be a 1-D array of positive values (the grid of the path); got {C!r:.60}")
    try:
        grid = np.array(C, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ProblemError(f"C must be a 1-D array of positive numbers (the grid of the path); {exc}") from None
    if grid.ndim != 1:
        raise ProblemError(f"C must be a 1-D array (the grid of the path); got shape {grid.shape}")
    if grid.size == 0:
        raise ProblemError("C must hold at least one value (the grid of the path is empty)")
    if not np.all(np.isfinite(grid)):
        raise ProblemError("C contains NaN or inf; every value of the grid must be finite and positive")
    if np.any(grid <= 0):
        raise ProblemError(f"C must be positive; the grid holds {float(grid.min()):g}")
    return grid


def _at(problem: SoftMarginSVM, C: float) -> SoftMarginSVM:
    """The same problem with another ``C`` (the user's labels, so that results keep ``classes_``)."""
    y = problem.y if problem.classes_ is None else np.asarray(problem.classes_)[(problem.y > 0).astype(int)]
    return SoftMarginSVM(problem.X, y, C=C, bias=problem.bias, kernel=problem.kernel, gamma=problem.gamma,
                         sample_weight=problem.sample_weight)


def path(problem, C, method: str | None = None, validation=None, **options: Any) -> list[Result]:
    """Solve the soft-margin ``problem`` at every ``C`` of the grid, warm-starting each point from the previous one.

    Parameters
    ----------
    problem : SoftMarginSVM
        The data, offset, kernel and sample weights of the path; its own ``C`` is not used.
    C : array-like of shape (k,)
        The grid: finite positive values in any order (solved increasing, returned in the given order).
    method : str, optional
        Any name in ``marginkit.methods(problem)``; None: ``solve("auto")``'s choice for a warm-started path
        (:func:`default_method`: ``ipm`` where its cost model beats the coordinate methods' warm-started epochs, else
        ``dual-cd-bias`` with an offset when listed, else ``fista``; ``dual-cd`` without one; the CVXPY reference
        when none of them applies).
    validation : (X_val, y_val), optional
        A validation set: every result gets ``info["validation_error"]`` (its own) and
        ``info["validation_error_interval"]``, proven to hold the exact optimum's validation error at its ``C``, and
        ``info["validation_summary"]``: the grid point with the smallest proven upper bound and a lower bound valid for
        every ``C`` in the grid's range, between grid points included (:mod:`marginkit.api.validation`): "the best
        ``C`` of the grid is provably within ``epsilon`` of the best achievable on ``[min(C), max(C)]``".
    **options
        The method's options and run options (``max_iter``, ``tol``, ...) for every point; a ``warm_start`` starts the
        smallest ``C``.

    Returns
    -------
    list of Result
        ``results[j]`` is the solution at ``C[j]`` (also in ``results[j].info["C"]``), each with the status its own
        certificate proves.

    Examples
    --------
    >>> import numpy as np, marginkit as mk
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((80, 3)); y = np.where(X[:, 0] + 0.5 * rng.standard_normal(80) > 0, 1, -1)
    >>> results = mk.path(mk.SoftMarginSVM(X, y), C=np.logspace(-2, 1, 5), tol=1e-6, max_iter=20000, seed=0)
    >>> [r.status for r in results]
    ['optimal', 'optimal', 'optimal', 'optimal', 'optimal']

    A grid search of scikit-learn's kind over ``C`` with the path (one warm-started path per fold instead of one cold
    fit per ``C`` and fold, as ``GridSearchCV(MarginClassifier(), {"C": grid})`` does)::

        from sklearn.model_selection import StratifiedKFold
        scores = np.zeros(len(grid))
        for train, test in StratifiedKFold(5).split(X, y):
            for j, res in enumerate(mk.path(mk.SoftMarginSVM(X[train], y[train]), C=grid)):
                scores[j] += np.mean(res.predict(X[test]) == y[test]) / 5
        best_C = grid[int(np.argmax(scores))]
        clf = mk.MarginClassifier(C=best_C).fit(X, y)
    """
    if not isinstance(problem, SoftMarginSVM):
        kind = type(problem).__name__
        hint = (" (the hard margin has no C)" if isinstance(problem, MaxMargin) else
                " (its penalty is gamma)" if isinstance(problem, PerturbedSVMDual) else "")
        raise ProblemError(f"problem must be a SoftMarginSVM (the path runs over its C); got {kind}{hint}")
    grid = check_grid(C)
    if method is None:
        method = default_method(problem, warm=True)   # the path warm-starts the coordinate methods
    if not isinstance(method, str):
        raise ProblemError(f"method must be None or a method name of methods(problem): {methods(problem)}; "
                           f"got {method!r}")
    options = dict(options)
    card = method_spec(problem, method)
    warm = not card.is_reference      # the reference takes CVXPY's own warm_start flag, passed as given
    start = options.pop("warm_start", None) if warm else None
    order = np.argsort(grid, kind="stable")
    out: list[Result | None] = [None] * grid.size
    previous, previous_C = None, None
    # dual-cd reads the screened set (on dask data its CoCoA+ variant runs, which does not)
    screening = (SCREENED in card.tags and options.get("screening", True) is not False
                 and (isinstance(problem.X, np.ndarray) or sp.issparse(problem.X)))
    norms = None
    for j in order:
        c = float(grid[j])
        if warm and previous is not None:
            start = rescaled(previous, c / previous_C) if RESCALED in card.tags and previous_C != c else previous
            if screening and isinstance(start, WarmStart):   # the sequential rule (module docstring)
                if norms is None:
                    from ..core.linalg import row_norms
                    norms = row_norms(problem.X)
                screened = sequential_screen(problem, previous, previous_C, c, norms)
                if screened is not None:
                    start = replace(start, screened=screened)
        opts = {**options, "warm_start": start} if warm and start is not None else options
        res = _at(problem, c).solve(method, **opts)
        res.info["C"] = c
        out[j] = res
        if res.w is not None or res.dual_coef is not None:
            previous, previous_C = res, c
    if validation is not None:
        from .validation import certify_validation
        certify_validation(problem, grid, out, validation)
    return out
