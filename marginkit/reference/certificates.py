"""Certificates shared by the margin references: the convex-hull (Gordan) certificate of non-separability, the
hard-margin duality certificate, and the balancing of multipliers onto ``yᵀa = 0``."""
from __future__ import annotations

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ..core.hull import exact_proof
from ..core.linalg import scaled_row_norms
from .base import solve_auxiliary, value_of

HULL_TOL = 1e-6  # a hull distance below this (relative to Σ q_i ||x_i||): no separator's angular margin exceeds it


def signed(problem):
    """``diag(y) X`` for CVXPY (a copy is fine here: the reference is the exact, not the fast, path)."""
    return signed_rows(problem.X, problem.y)


def signed_rows(X, y):
    """``diag(y) X`` (sparse stays sparse)."""
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


def _hull_rows(problem):
    """``(F, y)`` with ``F`` the rows whose signed hull is asked about: ``X`` itself, or for a kernel a factor of the
    Gram matrix (``K = F Fᵀ``, so ``||Σ q_i y_i φ(x_i)|| = ||Σ q_i y_i F_i||``)."""
    if getattr(problem, "kernel", None) is not None:
        K = problem.gram()
        lam, V = np.linalg.eigh(0.5 * (K + K.T))
        return V * np.sqrt(np.clip(lam, 0, None)), np.asarray(problem.y, dtype=float)
    return problem.X, np.asarray(problem.y, dtype=float)


def opposite_duplicates(X, y):
    """The Gaussian kernel's proof of non-separability: the same point twice with opposite labels (``q = ½, ½`` on the
    pair cancels exactly, with or without a bias). The Gaussian kernel is strictly positive definite, so data without
    such a pair are separable, however close to 1 the rounded Gram matrix is (points 1e-300 apart): no rounded hull
    point proves more. ``(q, 0.0, 1.0)`` or ``None``."""
    Xd = X.toarray() if sp.issparse(X) else np.asarray(X)
    _, inverse = np.unique(Xd, axis=0, return_inverse=True)
    inverse = np.ravel(inverse)
    for label in np.unique(inverse):
        rows = np.flatnonzero(inverse == label)
        if rows.size > 1 and np.unique(y[rows]).size > 1:
            i, j = rows[np.argmax(y[rows] > 0)], rows[np.argmax(y[rows] < 0)]
            q = np.zeros(len(y))
            q[i] = q[j] = 0.5
            return q, 0.0, 1.0
    return None


def hull_certificate(problem, solver=None) -> dict:
    """Dual certificate of (non-)separability, Gordan's alternative: a hull point ``q >= 0``, ``Σ q = 1`` (with a bias
    ``½`` per class) making ``||Σ q_i y_i x_i||`` small (zero iff no strict separator exists; kernel problems use a
    factor of the Gram matrix). Judged relative to ``Σ q_i ||x_i||`` (:mod:`marginkit.core.hull`: rescaling rows by
    positive factors changes neither separability nor this ratio), so rows of norms 1e-6 and 1e6 in one set are
    judged as the same rows of unit norm would be.

    Solved by CVXPY on the rows scaled to unit norm (with a bias, the rows ``y_i[x_i; τ]``, Gordan's form with an
    offset), the solver's tolerances then meaning the same for every row. Returns ``hull_distance`` (user units),
    ``hull_distance_relative`` (over ``Σ q_i ||x_i||``), ``separable`` (False when the relative distance is at most
    ``HULL_TOL``: no separator has an angular margin ``min_i y_i f(x_i)/(||x_i|| ||w||)`` above it, which is
    ``infeasible_inaccurate``'s evidence), ``certified`` (= not ``separable``) and ``proof``: True only when an exact
    hull point (Lawson–Hanson, :func:`marginkit.core.hull.exact_proof`) cancels at the level of rounding, the proof
    ``infeasible`` needs. When the solve failed the distance is NaN, ``separable`` True and ``message`` says why."""
    F, y = _hull_rows(problem)
    bias = bool(getattr(problem, "bias", False))
    n = problem.n
    norms = scaled_row_norms(F)
    s = np.where(norms > 0, norms, 1.0)
    Z = signed_rows(F, y)
    if bias:
        tau = float(np.median(s))
        Z = sp.hstack([Z, sp.csr_matrix(y[:, None] * tau)]).tocsr() if sp.issparse(Z) else \
            np.hstack([Z, y[:, None] * tau])
        cn = np.sqrt(s ** 2 + tau ** 2)
    else:
        cn = s
    Zs = sp.diags(1.0 / cn) @ Z if sp.issparse(Z) else Z / cn[:, None]
    p = cp.Variable(n, nonneg=True)
    # minimise the norm itself (an SOC), not its square: the square's solver tolerance would become
    # the square root of it in the distance
    prob = cp.Problem(cp.Minimize(cp.norm(Zs.T @ p, 2)), [cp.sum(p) == 1])
    status = solve_auxiliary(prob, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    pv = value_of(p)
    out = {"dual_point": None, "hull_distance": np.nan, "hull_distance_relative": np.nan, "separable": True,
           "certified": False, "proof": False}
    if pv is not None:
        q = np.clip(pv, 0, None) / cn
        if bias:
            pos = y > 0
            mp, mn = float(q[pos].sum()), float(q[~pos].sum())
            q = np.where(pos, 0.5 * q / mp, 0.5 * q / mn) if mp > 0 and mn > 0 else None
        elif q.sum() > 0:
            q = q / q.sum()
        else:
            q = None
        if q is not None:
            dist = float(np.linalg.norm(np.asarray(F.T @ (q * y)).ravel()))
            wnorm = float(q @ norms)
            rel = dist / wnorm if wnorm > 0 else (0.0 if dist == 0.0 else np.inf)
            out.update(dual_point=q, hull_distance=dist, hull_distance_relative=rel, separable=bool(rel > HULL_TOL),
                       certified=bool(rel <= HULL_TOL))
    if pv is None or out["dual_point"] is None:
        out["message"] = f"the hull problem was not solved (status {status})"
    if not out["separable"] or pv is None:
        exact = (opposite_duplicates(problem.X, y) if getattr(problem, "kernel", None) == "rbf" else
                 exact_proof(np.asarray(F) if not sp.issparse(F) else F, y, bias))
        if exact is not None:
            q, dist, wnorm = exact
            out.update(dual_point=q, hull_distance=dist, hull_distance_relative=dist / wnorm if wnorm > 0 else 0.0,
                       separable=False, certified=True, proof=True)
            out.pop("message", None)
    return out


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
