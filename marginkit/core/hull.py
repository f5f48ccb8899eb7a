"""Gordan's alternative, made checkable: a point of the signed data's convex hull that proves non-separability.

No ``w`` (and ``b``) gives ``y_i(x_iᵀw + b) > 0`` for all ``i`` exactly when some ``q >= 0``, ``Σ q = 1`` (with a
bias also ``Σ q_i y_i = 0``) has ``Σ q_i y_i x_i = 0`` (Gordan's theorem of the alternative; the hull distance
``min ||Σ q_i y_i x_i||`` over that set is the max margin, the duality behind Ji, Srebro & Telgarsky, *Fast margin
maximization via dual acceleration*, ICML 2021, §2, eq. (2.1)). In floating point a hull point can only cancel to
the level of rounding, and rounding is relative to the rows it adds: evaluating ``Σ q_i y_i x_i`` errs by about
``n·eps·Σ q_i ||x_i||``. The proof is therefore judged against ``Σ q_i ||x_i||``, not against ``max ||x_i||``:
rows rescaled by positive factors leave separability unchanged, and so must the proof (rows of norms 1e-6 and 1e6
in one set are separable or not whatever ``max ||x_i||`` is).

Any ``q`` of the set with ``||Σ q_i y_i x_i|| <= τ · Σ q_i ||x_i||`` shows that no separator has an angular margin
``min_i y_i(x_iᵀw + b) / (||x_i|| ||w||)`` above ``τ`` (average the constraints with the weights ``q``); with ``τ``
at the level of rounding (:data:`PROOF_TOL` ``·√n``) it is the contract's proof for ``infeasible``.
"""
from __future__ import annotations

import numpy as np

from .linalg import scaled_row_norms

PROOF_TOL = 1e-12            # ||Σ q_i y_i x_i|| <= PROOF_TOL·√n·Σ q_i||x_i||: cancellation at the level of rounding
MAX_ENTRIES = 2_000_000      # n·d above which no exact hull point is attempted (dense data only)
MAX_ROWS = 5000


def hull_point(X, y, bias: bool):
    """The nearest point of the signed hull to the origin, by one non-negative least-squares solve (Lawson–Hanson:
    a finite active set, so the point is exact to rounding when the solve ends) on the rows scaled to unit norm.

    Returns ``(q, distance, weighted_norm)``: ``q >= 0`` with ``Σ q = 1`` (with a bias, ``½`` per class, exactly),
    ``distance = ||Σ q_i y_i x_i||`` and ``weighted_norm = Σ q_i ||x_i||``, both evaluated on the user's rows; or
    ``None`` when the data are not a dense in-memory array of moderate size, or the solve gives no usable point.
    ``distance`` bounds the max margin from above for any such ``q``."""
    if not isinstance(X, np.ndarray) or X.ndim != 2 or X.size > MAX_ENTRIES or X.shape[0] > MAX_ROWS:
        return None
    try:
        from scipy.optimize import nnls
    except ImportError:  # pragma: no cover
        return None
    y = np.asarray(y, dtype=float)
    n, d = X.shape
    if n == 0:
        return None
    with np.errstate(all="ignore"):
        big = float(np.max(np.abs(X))) if X.size else 0.0
        if not np.isfinite(big):
            return None
        unit = 1.0 if big == 0.0 else big
        norms = scaled_row_norms(X)
    s = np.where(norms > 0, norms, 1.0)
    if bias:
        # Gordan with an offset: 0 in the hull of y_i [x_i; τ]; the rows scaled to unit norm (τ: the rows' size)
        tau = float(np.median(s))
        cols = y[:, None] * np.hstack([X, np.full((n, 1), tau)])
        cn = scaled_row_norms(cols)
        cn = np.where(cn > 0, cn, 1.0)
    else:
        cols = y[:, None] * X
        cn = s
    A = (cols / cn[:, None]).T                       # unit columns: the solve sees every row at the same scale
    rho = 1e3 * max(1.0, float(np.sqrt(n)))
    try:
        p, _ = nnls(np.vstack([A, np.full((1, n), rho)]), np.concatenate([np.zeros(A.shape[0]), [rho]]),
                    maxiter=max(50 * n, 1000))
    except Exception:  # noqa: BLE001  (no convergence of the active set: no proof)
        return None
    q = p / cn                                        # Σ p_i (y_i z_i / ||z_i||) = Σ q_i y_i z_i
    if bias:
        pos = y > 0
        mp, mn = float(q[pos].sum()), float(q[~pos].sum())
        if not (mp > 0 and mn > 0):
            return None
        q = np.where(pos, 0.5 * q / mp, 0.5 * q / mn)
    else:
        m = float(q.sum())
        if not m > 0:
            return None
        q = q / m
    with np.errstate(all="ignore"):
        dist = float(unit * np.linalg.norm(X.T @ (q * y) / unit))
    wnorm = float(q @ norms)
    if not (np.isfinite(dist) and np.isfinite(wnorm)):
        return None
    return q, dist, wnorm


def min_norm_point(X, y, bias: bool):
    """The weights ``q`` (``q >= 0``, ``Σ q = 1``; with a bias ``½`` per class) of the hull point nearest to the origin,
    ``argmin ||Σ q_i y_i x_i||``: the hard margin's dual solution (``w* = v/||v||²`` with ``v = Σ q_i y_i x_i``, the
    max margin ``||v||``; Ji, Srebro & Telgarsky, ICML 2021, §2, eq. (2.1)). One Lawson–Hanson solve on the rows
    scaled to unit norm, the masses as heavily weighted rows: without a bias the direction of the penalised solution
    is exactly the nearest point's (a common factor of ``q`` scales ``||Σ q_i y_i x_i||²`` by its square), so the
    exact renormalisation loses nothing; with a bias the two class masses are renormalised apart, exact up to the
    weight's ``1/ρ²``. ``None`` where :func:`hull_point` gives up. The caller certifies what it builds from ``q``."""
    if not isinstance(X, np.ndarray) or X.ndim != 2 or X.size > MAX_ENTRIES or X.shape[0] > MAX_ROWS or \
            X.shape[0] == 0:
        return None
    from scipy.optimize import nnls
    y = np.asarray(y, dtype=float)
    n = X.shape[0]
    with np.errstate(all="ignore"):
        big = float(np.max(np.abs(X)))
        if not np.isfinite(big) or big == 0.0:
            return None
    norms = scaled_row_norms(X)
    s = np.where(norms > 0, norms, float(norms[norms > 0].min()) if (norms > 0).any() else 1.0)
    A = (y[:, None] * X / s[:, None]).T
    rho = 1e4 * max(1.0, float(np.sqrt(n)))
    w = rho * float(s.min()) / s                      # the mass of q_i = p_i/s_i, weighted so the largest entry is ρ
    if bias:
        pos = y > 0
        rows = np.vstack([np.where(pos, w, 0.0), np.where(pos, 0.0, w)])
        rhs = np.array([0.5, 0.5]) * rho * float(s.min())
    else:
        rows, rhs = w[None, :], np.array([rho * float(s.min())])
    try:
        p, _ = nnls(np.vstack([A, rows]), np.concatenate([np.zeros(A.shape[0]), rhs]), maxiter=max(50 * n, 1000))
    except Exception:  # noqa: BLE001
        return None
    q = _polished(A, p, s, y, bias)
    if q is None:
        q = p / s
    if bias:
        mp, mn = float(q[pos].sum()), float(q[~pos].sum())
        if not (mp > 0 and mn > 0):
            return None
        return np.where(pos, 0.5 * q / mp, 0.5 * q / mn)
    m = float(q.sum())
    return q / m if m > 0 else None


def _polished(A, p, s, y, bias):
    """The nearest point of the affine hull of the active rows (``p > 0``), solved exactly by the KKT system of
    ``min ||A_S p_S||`` under the mass constraints (scaled columns), when it stays in the cone (``p_S >= 0``):
    the penalty's ``1/ρ²`` is then gone. ``None`` when it leaves the cone or the system is singular."""
    S = np.flatnonzero(p > 0)
    if S.size == 0 or S.size > 2000:
        return None
    As = A[:, S]
    inv = 1.0 / s[S]
    if bias:
        pos = y[S] > 0
        E = np.vstack([np.where(pos, inv, 0.0), np.where(pos, 0.0, inv)])
        rhs = np.array([0.5, 0.5])
    else:
        E, rhs = inv[None, :], np.array([1.0])
    try:   # p_S = p0 + N z with E p0 = rhs and N a basis of E's null space: least squares in z, not squared
        p0 = np.linalg.lstsq(E, rhs, rcond=None)[0]
        _, sv, Vt = np.linalg.svd(E)
        N = Vt[int(np.sum(sv > sv.max() * 1e-14)):].T
        z = np.linalg.lstsq(As @ N, -(As @ p0), rcond=None)[0] if N.shape[1] else np.zeros(0)
    except np.linalg.LinAlgError:
        return None
    pS = p0 + N @ z
    if not (np.all(np.isfinite(pS)) and np.all(pS >= 0)):
        return None
    q = np.zeros_like(s)
    q[S] = pS * inv
    return q


def proves_non_separability(distance: float, weighted_norm: float, n: int) -> bool:
    """Whether a hull point of ``distance`` and ``weighted_norm`` (:func:`hull_point`) cancels to the level of
    rounding: ``distance <= PROOF_TOL·√n·weighted_norm``."""
    return bool(distance <= PROOF_TOL * np.sqrt(max(n, 1)) * weighted_norm)


def exact_proof(X, y, bias: bool):
    """``(q, distance, weighted_norm)`` when an exact hull point proves the data not separable, else ``None``."""
    point = hull_point(X, y, bias)
    if point is None or not proves_non_separability(point[1], point[2], X.shape[0]):
        return None
    return point
