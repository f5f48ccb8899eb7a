"""A certified validation error along ``C``: intervals that provably hold the validation error of the exact optimum.

At a grid point ``C`` with result ``(ŵ, b̂)`` and duality gap ``g``, the exact ``w*(C)`` lies in the ball
``||w − ŵ|| <= √(2g)`` and every optimal offset in an interval (:mod:`marginkit.core.safe`), so each validation point's
exact decision value lies in an interval: below 0, above 0, or undecided. The exact optimum's validation error is then
between the fraction of points proven misclassified and that plus the undecided fraction.

**Between grid points** (the idea of Shibagaki, Suzuki, Karasuyama & Takeuchi, *Regularization path of
cross-validation error lower bounds*, NIPS 2015, derived here for this objective). Let ``a`` be the result's dual point
in the box ``[0, C_i]`` (balanced onto ``yᵀa = 0`` with an offset) and ``κ = C'/C``. ``κa`` is dual-feasible at
``C'`` (the box scales with ``C``), and ``(ŵ, b̂)`` is primal-feasible at every ``C'``, so

    ``gap(C') = P_{C'}(ŵ, b̂) − D_{C'}(κa) = ½||ŵ||² + κ(H − 1ᵀa) + ½κ²||Σ a_i y_i x_i||²``

(``H = Σ C_i max(0, 1 − y_i(x_iᵀŵ + b̂))`` at ``C``) bounds ``½||ŵ − w*(C')||²`` for every ``C'`` at once. It is convex
in ``κ``, so on an interval of ``C'`` it is largest at an end: one ball, of the larger end's radius, holds ``w*(C')``
for every ``C'`` of the interval. The offset interval does not depend on the scale of the box (only the signs of sums
of ``C_i`` decide it), so it is computed once per ball. Each gap between two grid points is covered by two such balls,
one around each neighbour (split at the geometric midpoint): the fraction of validation points proven misclassified by
every ``w`` of a ball is a lower bound of the exact validation error anywhere on its interval.
"""
from __future__ import annotations

import numpy as np

from ..core.linalg import row_norms
from ..core.safe import EPS, offset_interval
from ..engine.assemble import check_test_set


def _proven_counts(f, lo, hi, yv, classes):
    """``(proven wrong, undecided)`` counts of validation points: ``f``'s label against ``yv``, and the interval."""
    c = np.array([-1.0, 1.0]) if classes is None else np.asarray(classes)
    pos = yv == c[1]
    wrong = np.where(pos, hi < 0, lo > 0)      # every exact decision value on the wrong side
    right = np.where(pos, lo > 0, hi < 0)
    return int(np.sum(wrong)), int(np.sum(~(wrong | right)))


class _Point:
    """What one grid result contributes: its center, its dual numbers for ``gap(C')``, its training scores."""

    def __init__(self, problem, res, C):
        from ..reference.certificates import balance
        self.C, self.res = C, res
        self.ok = res.w is not None and res.dual_coef is None and isinstance((res.dual or {}).get("a"), np.ndarray)
        if not self.ok:
            return
        X, y = problem.X, problem.y
        box = C * (np.ones(problem.n) if problem.sample_weight is None else np.asarray(problem.sample_weight))
        a = np.clip(np.asarray(res.dual["a"], dtype=float), 0.0, box)
        if problem.bias:
            a = balance(a, y)
        v = np.asarray(X.T @ (a * y)).ravel()
        self.w = np.asarray(res.w, dtype=float)
        self.b = float(res.b) if problem.bias else 0.0
        self.scores, self.norms = res._train_scores()   # computed once per result, for its interval too
        self.box = box
        self.half_w2 = 0.5 * float(self.w @ self.w)
        self.H = float(box @ np.maximum(0.0, 1.0 - y * (self.scores + self.b)))
        self.A, self.V = float(a.sum()), float(v @ v)

    def radius(self, C2: float) -> float:
        """``√(2·gap(C'))`` of the module docstring, with its rounding."""
        k = C2 / self.C
        gap = self.half_w2 + k * (self.H - self.A) + 0.5 * k * k * self.V
        scale = self.half_w2 + k * (self.H + self.A) + 0.5 * k * k * self.V
        return float(np.sqrt(2.0 * (max(gap, 0.0) + 16 * EPS * scale)))


def certify_validation(problem, grid, results, validation) -> dict:
    """Fill ``results[j].info["validation_error"]`` (the returned classifier's) and
    ``["validation_error_interval"]`` (proven to hold the exact optimum's; also ``certificate["validation_error"]``,
    the contract's name), and return the summary over the grid's
    range: ``best_C`` (the grid point with the smallest proven upper bound ``best_upper``), ``lower_bound`` (no ``C``
    in ``[min(grid), max(grid)]`` has an exact optimum with a smaller validation error) and ``epsilon = best_upper −
    lower_bound``. The summary is also ``results[j].info["validation_summary"]``."""
    Xv, yv = check_test_set(problem, validation)
    m = len(yv)
    vnorms = row_norms(Xv)
    order = np.argsort(grid, kind="stable")
    points = {}
    for j in order:
        res = results[j]
        if res.w is None and res.dual_coef is None:
            res.info["validation_error_interval"] = [0.0, 1.0]
            continue
        res.info["validation_error"] = float(np.mean(res.predict(Xv) != yv))
        try:
            f, lo, hi = res._decision_interval(Xv)
        except Exception:  # noqa: BLE001  (a result without a certificate proves nothing: the trivial interval)
            res.info["validation_error_interval"] = [0.0, 1.0]
            continue
        wrong, undecided = _proven_counts(f, lo, hi, np.asarray(yv), res.classes_)
        res.info["validation_error_interval"] = [wrong / m, (wrong + undecided) / m]
        if res.certificate is None:
            res.certificate = {}
        res.certificate["validation_error"] = res.info["validation_error_interval"]   # the contract's key
        points[j] = _Point(problem, res, float(grid[j]))
    uppers = {j: results[j].info["validation_error_interval"][1] for j in order}
    best = min(order, key=lambda j: (uppers[j], grid[j]))
    lower = min(results[j].info["validation_error_interval"][0] for j in order)
    sorted_C = [float(grid[j]) for j in order]
    for left, right in zip(order[:-1], order[1:]):
        c_mid = float(np.sqrt(grid[left] * grid[right]))
        for j, (c0, c1) in ((left, (float(grid[left]), c_mid)), (right, (c_mid, float(grid[right])))):
            lower = min(lower, _piece_lower(problem, points.get(j), c0, c1, Xv, yv, vnorms))
    summary = {"C_range": [sorted_C[0], sorted_C[-1]], "best_C": float(grid[best]), "best_upper": float(uppers[best]),
               "lower_bound": float(lower), "epsilon": float(uppers[best] - lower)}
    for res in results:
        res.info["validation_summary"] = summary
    return summary


def _piece_lower(problem, point, c0: float, c1: float, Xv, yv, vnorms) -> float:
    """A lower bound of the exact validation error for every ``C'`` in ``[c0, c1]`` from the ball around ``point``
    (0 without a usable point: nothing is claimed)."""
    if point is None or not point.ok:
        return 0.0
    r = max(point.radius(c0), point.radius(c1))
    b_range = offset_interval(point.scores, point.norms, problem.y, point.box, r) if problem.bias else (0.0, 0.0)
    f = np.asarray(Xv @ point.w).ravel()
    lo, hi = f - r * vnorms + b_range[0], f + r * vnorms + b_range[1]
    wrong, _ = _proven_counts(f + point.b, lo, hi, np.asarray(yv), point.res.classes_)
    return wrong / len(yv)
