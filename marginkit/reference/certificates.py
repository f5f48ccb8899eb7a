"""Certificates shared by the margin references: the convex-hull (Gordan) certificate of non-separability, the
hard-margin duality certificate, and the balancing of multipliers onto ``yᵀa = 0``."""
from __future__ import annotations

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from .base import data_scale, solve_auxiliary, value_of

HULL_TOL = 1e-6  # a hull distance below this (relative to max ||x_i||) certifies non-separability


def signed(problem):
    """``diag(y) X`` for CVXPY (a copy is fine here: the reference is the exact, not the fast, path)."""
    X, y = problem.X, problem.y
    if sp.issparse(X):
        return sp.csr_matrix(sp.diags(y) @ X)
    return y[:, None] * X


def balance(a, y):
    """``a >= 0`` with ``yᵀa = 0``: the heavier class's multipliers scaled down (stays in any box ``[0, C]``), so
    that the Lagrange dual value at ``a`` is a valid bound of a problem with an offset."""
    a = np.array(a, dtype=float)
    pos, neg = y > 0, y < 0
    sp_, sn = a[pos].sum(), a[neg].sum()
    if sp_ > sn and sp_ > 0:
        a[pos] *= sn / sp_
    elif sn > sp_ and sn > 0:
        a[neg] *= sp_ / sn
    return a


def hull_certificate(problem, solver=None) -> dict:
    """Dual certificate of (non-)separability: ``min_{q ∈ Δ} ||Σ q_i y_i x_i||`` (with a bias: ``q`` puts
    mass ½ on each class, i.e. the distance between the classes' convex hulls, halved). Zero iff no
    strict separator exists (Gordan's alternative). Kernel problems use the Gram matrix.

    Solved on the data divided by a power of two ``c`` (rows of norm about 1, so the solver's tolerances mean the
    same at every scale); the distance is reported in the user's units and compared with ``HULL_TOL·max||x_i||``.
    ``separable`` is False only when non-separability is certified (``certified``); when the solve failed the
    distance is NaN, ``separable`` True and ``message`` says why."""
    n = problem.n
    q = cp.Variable(n, nonneg=True)
    cons = [cp.sum(q) == 1]
    if getattr(problem, "bias", False):
        cons.append(problem.y @ q == 0)
    if getattr(problem, "kernel", None) is not None:
        K = problem.gram() * np.outer(problem.y, problem.y)
        lam, V = np.linalg.eigh(0.5 * (K + K.T))
        A = V * np.sqrt(np.clip(lam, 0, None))  # K = A A^T
    else:
        A = signed(problem)
    c = data_scale(A)
    As = A / c
    Rs = float(np.max(np.sqrt(np.asarray(As.multiply(As).sum(axis=1)).ravel())) if sp.issparse(As)
               else np.max(np.linalg.norm(As, axis=1)))
    # minimise the norm itself (an SOC), not its square: the square's solver tolerance would become
    # the square root of it in the distance
    prob = cp.Problem(cp.Minimize(cp.norm(As.T @ q, 2)), cons)
    status = solve_auxiliary(prob, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    qv = value_of(q)
    if qv is None or np.clip(qv, 0, None).sum() <= 0:
        return {"dual_point": None, "hull_distance": np.nan, "separable": True, "certified": False,
                "message": f"the hull problem was not solved (status {status})"}
    qv = np.clip(qv, 0, None)
    qv /= qv.sum()
    dist_s = float(np.linalg.norm(np.asarray(As.T @ qv).ravel()))
    separable = dist_s > HULL_TOL * max(Rs, 1e-300)
    return {"dual_point": qv, "hull_distance": dist_s * c, "hull_distance_relative": dist_s / max(Rs, 1e-300),
            "separable": separable, "certified": not separable}


def margin_certificate(p, yf, primal, a, gram_of, coef_f0=None) -> dict:
    """The hard-margin certificate at a point with functional margins ``yf`` and value ``primal`` and multipliers
    ``a`` (``gram_of(a)`` = ``Σ a_i y_i x_i``; for kernels ``coef_f0`` is ``||Σ a_i y_i φ(x_i)||²``)."""
    raw = abs(float(p.y @ a)) if p.bias else 0.0
    ab = balance(a, p.y) if p.bias else a
    sq = coef_f0 if gram_of is None else float(np.sum(gram_of(ab) ** 2))
    dual = float(ab.sum() - 0.5 * sq)
    viol = float(max(0.0, np.max(1.0 - yf)))
    norm_w = np.sqrt(2.0 * primal)
    gamma = float(np.min(yf)) / norm_w if norm_w > 0 else 0.0
    rel = 1.0 - gamma * np.sqrt(2.0 * dual) if dual > 0 else np.inf
    return {"primal": primal, "dual": dual, "duality_gap": primal - dual, "max_violation": viol,
            "dual_violation": raw, "relative_gap": float(rel), "margin_upper_bound": 1.0 / np.sqrt(2.0 * dual)
            if dual > 0 else np.inf}
