"""The perturbed soft-margin SVM primal of Hough & Vavasis and the scalar functions it is built from.

Reference: M. Hough, S. A. Vavasis, *Data-dependent complexity of first-order methods for binary classification*
(2025): (10)–(11) and (15)–(20) of §3.1–3.2, the offset (27) of §3.6. With the signed margin
``θ_i = y_i(x_iᵀw + t)`` (class ``+1`` are the paper's c-points, ``−1`` its d-points), the Lagrange dual of the
perturbed dual (15) is (20)::

    min_{w,t} f(w, t) = ½||w||² + Σ_i ψ(θ_i),

    ψ(θ) = γ(1 − θ) − μγ²/2   (θ <= 1 − μγ),   (1 − θ)²/(2μ)   (1 − μγ <= θ <= 1),   0   (θ >= 1)      (19)

a Huber-smoothed hinge (``μ = 0`` gives ``γ·max(0, 1 − θ)``, the soft-margin SVM (11) with ``C = γ``).
"""
from __future__ import annotations

import math

import numpy as np



def smoothed_hinge(theta, gamma: float, mu: float) -> np.ndarray:
    """``ψ(θ)`` of (19); ``mu = 0`` is the hinge ``γ max(0, 1 − θ)``."""
    r = np.maximum(0.0, 1.0 - np.asarray(theta, float))
    if mu == 0:
        return gamma * r
    knee = mu * gamma
    return np.where(r <= knee, r * r / (2.0 * mu), gamma * r - 0.5 * mu * gamma * gamma)


def smoothed_hinge_grad(theta, gamma: float, mu: float) -> np.ndarray:
    """``ψ'(θ)`` ((21) for the paper's parameters); for ``mu = 0`` the subgradient ``−γ`` below 1, else 0."""
    theta = np.asarray(theta, float)
    if mu == 0:
        return np.where(theta < 1.0, -gamma, 0.0)
    return np.clip((theta - 1.0) / mu, -gamma, 0.0)


def best_offset(scores, y, gamma: float, mu: float) -> float:
    """Algorithm OFFSET (2.9): ``argmin_t F(t)``, ``F(t) = Σ ψ(y_i(scores_i + t))``, by bisection on the derivative
    ``F'(t) = Σ y_i ψ'(y_i(scores_i + t))``, non-decreasing and piecewise linear with breakpoints
    ``y_i(1 − μγ) − scores_i`` and ``y_i − scores_i``. The bisection runs over the sorted breakpoints (``F'`` is
    ``−jγ < 0`` below all of them and ``+lγ > 0`` above), then the root inside the last bracket is exact: ``F'``
    is affine there (``μ > 0``) or constant (``μ = 0``: ``F`` is piecewise linear and the bracket end where the slope
    changes sign is a minimiser). The minimiser may be an interval (a flat ``F``, not an error); any point of it is
    returned.

    ``mu = 0`` (the hinge) takes an O(n) path: every breakpoint is ``y_i − scores_i``, and between the k-th and
    (k+1)-th smallest of them ``F'(t)/γ = k − #{y = +1}``, so ``F`` is minimal on ``[s_P, s_{P+1}]``
    (``P = #{y = +1}``, order statistics by ``np.partition``, no sort); its midpoint is returned."""
    if mu == 0:
        y_arr = np.asarray(y, float)
        n_pos = int(np.count_nonzero(y_arr > 0))
        if 0 < n_pos < y_arr.size:
            s = np.partition(y_arr - np.asarray(scores, float), (n_pos - 1, n_pos))
            return float(0.5 * (s[n_pos - 1] + s[n_pos]))
    bp = np.unique(np.concatenate([y * (1.0 - mu * gamma) - scores, y - scores]))

    def dF(t):
        return float(np.dot(y, smoothed_hinge_grad(y * (scores + t), gamma, mu)))
    lo_i, hi_i = -1, bp.size          # invariant: dF(bp[lo_i]) <= 0 < dF(bp[hi_i]) (virtual ends outside)
    while hi_i - lo_i > 1:            # O(log n) evaluations of F', a root search, not a method's iteration
        mid = (lo_i + hi_i) // 2
        if dF(bp[mid]) <= 0:
            lo_i = mid
        else:
            hi_i = mid
    lo = bp[lo_i] if lo_i >= 0 else bp[0] - 1.0
    hi = bp[hi_i] if hi_i < bp.size else bp[-1] + 1.0
    if mu > 0:
        d_lo, d_hi = dF(lo), dF(hi)
        return float(lo - d_lo * (hi - lo) / (d_hi - d_lo)) if d_lo < 0 else float(lo)
    slope = dF(0.5 * (lo + hi))
    return float(hi if slope < 0 else lo if slope > 0 else 0.5 * (lo + hi))


def weighted_best_offset(scores, y, ub) -> float:
    """``argmin_t Σ ub_i max(0, 1 − y_i(scores_i + t))`` (Algorithm OFFSET (2.9) with a weight per sample, μ = 0):
    with breakpoints ``bp_i = y_i − scores_i`` the derivative is ``F'(t) = Σ_{bp_i < t} ub_i − Σ_{y_i = +1} ub_i``,
    non-decreasing, so a minimiser is the first sorted breakpoint where the cumulative weight reaches the positive
    class's weight (the midpoint of the next gap when it reaches it exactly: ``F`` is flat there)."""
    bp = np.asarray(y, float) - np.asarray(scores, float)
    order = np.argsort(bp, kind="stable")
    bp, cw = bp[order], np.cumsum(np.asarray(ub, float)[order])
    target = float(np.asarray(ub, float)[np.asarray(y) > 0].sum())
    k = min(int(np.searchsorted(cw, target, side="left")), bp.size - 1)
    if cw[k] == target and k + 1 < bp.size:
        return float(0.5 * (bp[k] + bp[k + 1]))
    return float(bp[k])


def perturbed_primal_value(w, scores, y, gamma: float, mu: float, t: float) -> float:
    """``f(w, t)`` of (20) from ``scores = Xw``."""
    return 0.5 * float(np.dot(w, w)) + float(smoothed_hinge(y * (scores + t), gamma, mu).sum())


# -- the same functions where the data live (issue 13): ``br`` is a projections.Bracket of the data's namespace ----------
def smoothed_hinge_xp(theta, gamma, mu: float, br):
    """:func:`smoothed_hinge` in the namespace of ``theta`` (``gamma`` a 0-d array or one per row)."""
    xp = br.xp
    r = xp.maximum(1.0 - theta, br.zero)
    if mu == 0:
        return gamma * r
    return xp.where(r <= mu * gamma, r * r / (2.0 * mu), gamma * r - 0.5 * mu * gamma * gamma)


def best_offset_xp(scores, y, gamma, mu: float, br, n_pos: int, weighted: bool):
    """The offset of :func:`best_offset` (``mu = 0``, one ``γ``: the midpoint of the ``P``-th and ``(P+1)``-th
    smallest ``y_i − scores_i``), of :func:`weighted_best_offset`
    (``weighted``: the first breakpoint where the weight below reaches the positive class's weight, the midpoint to the
    next one on an exact tie) and of the bisection on ``F'`` (``mu > 0``), as a 0-d array of the data's namespace
    (bracket searches of :class:`~marginkit.operators.projections.Bracket`: no sort, no synchronisation)."""
    xp, zero = br.xp, br.zero
    one = zero + 1.0
    if mu == 0:
        bp = y - scores
        inf = zero + math.inf
        if not weighted:
            s = br.order_statistic(bp, one, float(n_pos))
            count = br.weight_below(bp, one)(xp.reshape(s, (1,)))[0]    # > P: s_P = s_{P+1} (a tie)
            return xp.where(count > float(n_pos), s, 0.5 * (s + xp.min(xp.where(bp > s, bp, inf))))
        target = xp.sum(xp.where(y > zero, gamma, zero))
        s = br.order_statistic(bp, gamma, target)
        reached = br.weight_below(bp, gamma)(xp.reshape(s, (1,)))[0]
        nxt = xp.min(xp.where(bp > s, bp, inf))
        return xp.where(xp.logical_and(reached == target, nxt < inf), 0.5 * (s + nxt), s)
    bp_lo, bp_hi = y * (1.0 - mu * gamma) - scores, y - scores

    def dF(pts):
        th = y[:, None] * (scores[:, None] + pts[None, :])
        g = gamma[:, None] if getattr(gamma, "ndim", 0) == 1 else gamma
        grad = xp.minimum(xp.maximum((th - 1.0) / mu, -g + zero), zero)
        return xp.sum(y[:, None] * grad, axis=0)
    left = xp.minimum(xp.min(bp_lo), xp.min(bp_hi)) - 1.0
    right = xp.maximum(xp.max(bp_lo), xp.max(bp_hi)) + 1.0
    return br.interpolate(*br.search(dF, zero, left, right, strict=False), zero)
