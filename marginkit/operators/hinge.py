"""The perturbed soft-margin SVM primal of Hough & Vavasis and the scalar functions it is built from.

Reference: M. Hough, S. A. Vavasis, *Data-dependent complexity of first-order methods for binary classification*
(2025): (10)–(11) and (15)–(20) of §3.1–3.2, the offset (27) of §3.6. With the signed margin
``θ_i = y_i(x_iᵀw + t)`` (class ``+1`` are the paper's c-points, ``−1`` its d-points), the Lagrange dual of the
perturbed dual (15) is (20)::

    min_{w,t} f(w, t) = ½||w||² + Σ_i ψ(θ_i),

    ψ(θ) = γ(1 − θ) − μγ²/2   (θ <= 1 − μγ),   (1 − θ)²/(2μ)   (1 − μγ <= θ <= 1),   0   (θ >= 1)      (19)

a Huber-smoothed hinge (``μ = 0`` gives ``γ·max(0, 1 − θ)``, the soft-margin SVM (11) with ``C = γ``).

Every function takes the namespace ``xp`` of its arrays (NumPy by default; ``bk.xp`` of a problem's backend, see
:mod:`marginkit.core.backend`, for arrays of another array-API library): one algorithm for every library.
"""
from __future__ import annotations

import numpy as np


def smoothed_hinge(theta, gamma, mu: float, xp=np):
    """``ψ(θ)`` of (19) (``gamma`` a number or one per row); ``mu = 0`` is the hinge ``γ max(0, 1 − θ)``."""
    r = xp.maximum(1.0 - xp.asarray(theta), 0.0)
    if mu == 0:
        return gamma * r
    knee = mu * gamma
    return xp.where(r <= knee, r * r / (2.0 * mu), gamma * r - 0.5 * mu * gamma * gamma)


def smoothed_hinge_grad(theta, gamma, mu: float, xp=np):
    """``ψ'(θ)`` ((21) for the paper's parameters); for ``mu = 0`` the subgradient ``−γ`` below 1, else 0."""
    theta = xp.asarray(theta)
    if mu == 0:
        return xp.where(theta < 1.0, xp.zeros_like(theta) - gamma, 0.0)   # an array: γ may be a number
    return xp.clip((theta - 1.0) / mu, -gamma, 0.0)


def best_offset(scores, y, gamma, mu: float, xp=np) -> float:
    """Algorithm OFFSET (2.9): ``argmin_t F(t)``, ``F(t) = Σ ψ(y_i(scores_i + t))``, by bisection on the derivative
    ``F'(t) = Σ y_i ψ'(y_i(scores_i + t))``, non-decreasing and piecewise linear with breakpoints
    ``y_i(1 − μγ) − scores_i`` and ``y_i − scores_i``. The bisection runs over the sorted breakpoints (``F'`` is
    ``−jγ < 0`` below all of them and ``+lγ > 0`` above), then the root inside the last bracket is exact: ``F'``
    is affine there (``μ > 0``) or constant (``μ = 0``: ``F`` is piecewise linear and the bracket end where the slope
    changes sign is a minimiser). The minimiser may be an interval (a flat ``F``, not an error); any point of it is
    returned.

    ``mu = 0`` (the hinge) takes an O(n) path: every breakpoint is ``y_i − scores_i``, and between the k-th and
    (k+1)-th smallest of them ``F'(t)/γ = k − #{y = +1}``, so ``F`` is minimal on ``[s_P, s_{P+1}]``
    (``P = #{y = +1}``, order statistics by a selection where the namespace has one, ``partition`` of NumPy and
    CuPy, else by a sort); its midpoint is returned.

    The breakpoints need not be distinct: the bisection ends on the same bracket (the largest breakpoint with
    ``F' <= 0`` and the smallest with ``F' > 0``). On a device the tests of ``F'`` bring one number each to the host
    (O(log n) of them; the offset is computed where a stop test or a certificate needs it, never inside a step)."""
    scores, y = xp.asarray(scores), xp.asarray(y)
    if mu == 0:
        n_pos = int(xp.count_nonzero(y > 0))
        if 0 < n_pos < y.shape[0]:
            bp = y - scores
            s = xp.partition(bp, (n_pos - 1, n_pos)) if hasattr(xp, "partition") else xp.sort(bp)
            return float(0.5 * (s[n_pos - 1] + s[n_pos]))
    bp = xp.sort(xp.concat([y * (1.0 - mu * gamma) - scores, y - scores]))
    size = bp.shape[0]

    def dF(t):
        return float(y @ smoothed_hinge_grad(y * (scores + t), gamma, mu, xp))
    lo_i, hi_i = -1, size             # invariant: dF(bp[lo_i]) <= 0 < dF(bp[hi_i]) (virtual ends outside)
    while hi_i - lo_i > 1:            # O(log n) evaluations of F', a root search, not a method's iteration
        mid = (lo_i + hi_i) // 2
        if dF(bp[mid]) <= 0:
            lo_i = mid
        else:
            hi_i = mid
    lo = bp[lo_i] if lo_i >= 0 else bp[0] - 1.0
    hi = bp[hi_i] if hi_i < size else bp[-1] + 1.0
    if mu > 0:
        d_lo, d_hi = dF(lo), dF(hi)
        return float(lo - d_lo * (hi - lo) / (d_hi - d_lo)) if d_lo < 0 else float(lo)
    slope = dF(0.5 * (lo + hi))
    return float(hi if slope < 0 else lo if slope > 0 else 0.5 * (lo + hi))


def weighted_best_offset(scores, y, ub, xp=np) -> float:
    """``argmin_t Σ ub_i max(0, 1 − y_i(scores_i + t))`` (Algorithm OFFSET (2.9) with a weight per sample, μ = 0):
    with breakpoints ``bp_i = y_i − scores_i`` the derivative is ``F'(t) = Σ_{bp_i < t} ub_i − Σ_{y_i = +1} ub_i``,
    non-decreasing, so a minimiser is the first sorted breakpoint where the cumulative weight reaches the positive
    class's weight (the midpoint of the next gap when it reaches it exactly: ``F`` is flat there)."""
    y, ub = xp.asarray(y), xp.asarray(ub)
    bp = y - xp.asarray(scores)
    order = xp.argsort(bp, stable=True)
    bp, cw = xp.take(bp, order), xp.cumulative_sum(xp.take(ub, order))
    target = xp.reshape(xp.sum(ub[y > 0]), (1,))
    n = bp.shape[0]
    k = min(int(xp.searchsorted(cw, target, side="left")[0]), n - 1)
    if float(cw[k]) == float(target[0]) and k + 1 < n:
        return float(0.5 * (bp[k] + bp[k + 1]))
    return float(bp[k])


def perturbed_primal_value(w, scores, y, gamma: float, mu: float, t: float) -> float:
    """``f(w, t)`` of (20) from ``scores = Xw``."""
    return 0.5 * float(np.dot(w, w)) + float(smoothed_hinge(y * (scores + t), gamma, mu).sum())
