"""What a duality gap proves about the exact optimum, sample by sample (the gap-safe ball).

For the soft-margin SVM ``P(w, b) = ½||w||² + Σ C_i max(0, 1 − y_i(x_iᵀw + b))`` the function ``P̃(w) = min_b P(w, b)``
is 1-strongly convex, so any dual-feasible value ``D`` (weak duality ``D <= P*``) gives, for the returned ``(w, b)``,

    ``½||w − w*||² <= P̃(w) − P* <= P(w, b) − D = gap``,   hence ``||w − w*|| <= r = √(2·gap)``

(the Gap Safe sphere of Ndiaye, Fercoq, Gramfort & Salmon, *Gap safe screening rules for sparsity enforcing
penalties*, JMLR 18, 2017, Theorem 6; for SVM samples, Ogawa, Suzuki & Takeuchi, *Safe screening of non-support
vectors in pathwise SVM computation*, ICML 2013, §3). With a kernel the ball lives in the feature space and
``|f(x) − f*(x)| <= r·√k(x, x)``. Every ``x_iᵀw*`` then lies in ``[x_iᵀw − r||x_i||, x_iᵀw + r||x_i||]``.

**The offset.** ``b*`` minimises ``g(b) = Σ C_i max(0, 1 − y_i(x_iᵀw* + b))``, a convex function of one variable
whose one-sided derivatives count the samples on each side of the margin. Bounding each count over the intervals
above bounds them for the true ``w*``: where the smallest possible left derivative is positive, every minimiser lies
to the left, and where the largest possible right derivative is negative, to the right (:func:`offset_interval`).
So every optimal ``b*`` lies in ``[b_lo, b_hi]``, and ``f*(x) = xᵀw* + b*`` in an interval whose sign, where it has
one, is the exact classifier's. By the KKT conditions a training sample whose margin interval lies above 1 has
``a*_i = 0`` (not a support vector) and one whose interval lies below 1 has ``a*_i = C_i`` (a support vector).
"""
from __future__ import annotations

import math

import numpy as np

EPS = np.finfo(float).eps


def gap_radius(certificate: dict | None) -> float:
    """``r = √(2·gap)`` from a certificate's ``primal``/``dual`` (the gap's own rounding added); ``inf`` without a
    finite gap."""
    if not certificate:
        return np.inf
    primal, dual = float(certificate.get("primal", np.nan)), float(certificate.get("dual", np.nan))
    gap = float(certificate.get("duality_gap", primal - dual))
    if not (math.isfinite(gap) and math.isfinite(primal) and math.isfinite(dual)):
        return np.inf
    gap = max(gap, 0.0) + 8 * EPS * max(abs(primal), abs(dual))
    return math.sqrt(2.0 * gap)


def offset_interval(scores, norms, y, box, r: float) -> tuple[float, float]:
    """``[b_lo, b_hi]`` containing every optimal offset, given ``x_iᵀw* ∈ [s_i − r·n_i, s_i + r·n_i]`` (``scores``
    ``s``, ``norms`` ``n``), labels ``y`` in ±1 and the weights ``C_i`` (``box``); see the module docstring.

    Left derivative ``g'_-(b) = −Σ_{y=+1} C_i [s*_i + b <= 1] + Σ_{y=−1} C_i [s*_i + b > −1]``: its smallest value
    over the intervals takes ``s*_i = s_i − r n_i`` for every sample; it starts at ``−Σ_{y=+1} C_i`` and each sample
    adds ``C_i`` at its breakpoint, so ``b_hi`` is the breakpoint where the running sum first turns positive. The
    right derivative's largest value takes ``s*_i = s_i + r n_i``; ``b_lo`` is where its running sum reaches 0."""
    if not np.isfinite(r):
        return -np.inf, np.inf
    s, n, y, C = (np.asarray(a, dtype=float) for a in (scores, norms, y, box))
    lo, hi = s - r * n, s + r * n
    pos = y > 0
    start = -float(C[pos].sum())
    if start == 0.0 or float(C[~pos].sum()) == 0.0:
        return -np.inf, np.inf                     # one class carries no weight: the offset is not bounded
    # breakpoints of the smallest left derivative: b = 1 − lo (y = +1 leaves), b = −1 − lo (y = −1 enters)
    # a sum that is 0 in exact arithmetic (a flat stretch of g: equal weights on both sides) may round either way:
    # sums within ``zero`` of 0 count as 0 on the side that widens the interval
    zero = 4.0 * len(C) * EPS * float(C.sum())
    # any sort will do: C_i >= 0 makes the running sum nondecreasing, so its first crossing falls in the same group
    # of equal breakpoints (the same b) whatever the order inside the group (quicksort: 7x a stable sort at 1e5)
    t = np.where(pos, 1.0 - lo, -1.0 - lo)
    order = np.argsort(t)
    run = start + np.cumsum(C[order])
    above = run > zero
    b_hi = float(t[order[int(np.argmax(above))]]) if above.any() else np.inf
    # breakpoints of the largest right derivative: b = 1 − hi and b = −1 − hi; it is >= 0 from the first b with
    # running sum >= 0 on
    t = np.where(pos, 1.0 - hi, -1.0 - hi)
    order = np.argsort(t)
    run = start + np.cumsum(C[order])
    reached = run >= -zero
    b_lo = float(t[order[int(np.argmax(reached))]]) if reached.any() else -np.inf
    slack = 8 * EPS * (1.0 + max(float(np.max(np.abs(lo), initial=0.0)), float(np.max(np.abs(hi), initial=0.0))))
    if not (np.isfinite(b_lo) and np.isfinite(b_hi)):
        return -np.inf, np.inf
    return b_lo - slack, b_hi + slack


def margin_intervals(scores, norms, y, r: float, b_range) -> tuple[np.ndarray, np.ndarray]:
    """Intervals of ``y_i(x_iᵀw* + b*)``: the score intervals shifted by every offset of ``b_range``."""
    s, n, y = (np.asarray(a, dtype=float) for a in (scores, norms, y))
    f_lo, f_hi = s - r * n + b_range[0], s + r * n + b_range[1]
    return np.where(y > 0, f_lo, -f_hi), np.where(y > 0, f_hi, -f_lo)
