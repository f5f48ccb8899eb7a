"""Euclidean projections used by the Hough–Vavasis plans and references (M. Hough, S. A. Vavasis, *Data-dependent
complexity of first-order methods for binary classification*, 2025: the cones 𝒞 of (5), §2.2, and the set Ω of
(13)–(14), §3.1).

* :func:`project_soc_rows` -- onto a product of second-order cones ``{(λ, p) : ||p|| <= λ}``, one cone per row.
* :func:`project_svm_dual` -- onto ``Ω = {0 <= a <= γ, yᵀa = 0}`` (the continuous quadratic knapsack of
  (13)–(14); ``eᵀu = eᵀv`` with ``u`` the ``y = +1`` entries and ``v`` the ``y = −1`` entries), three ways:
  ``"sort"`` (exact, O(n log n)), ``"linear"`` (Brucker/Kiwiel median search, O(n)) and ``"bisection"``.

The knapsack is solved through one monotone function. With a multiplier ``τ`` for ``yᵀa = 0`` the minimiser is
``a_i(τ) = clip(z_i − y_i τ, 0, γ)``. Writing ``lo_i = z_i − γ`` (``y_i = +1``) or ``lo_i = −z_i`` (``y_i = −1``),
``yᵀa(τ) = γ·#{y = +1} − h(τ)`` with ``h(τ) = Σ_i clip(τ − lo_i, 0, γ)``, which is continuous, piecewise linear
and non-decreasing from 0 to ``nγ``. The root ``h(τ*) = γ·#{y = +1}`` always exists (both classes are present);
if it is an interval, every point of it gives the same projection (HV do not say which root: any root the searches
below return will do).
"""
from __future__ import annotations

import numpy as np

from ..core.backend import NUMPY, ModulesByName


_TINY = float(np.finfo(np.float64).tiny)   # the smallest normal float: a divisor that is never 0


def project_soc_rows(X, bk=NUMPY):
    """Project every row ``(λ, p)`` of ``X`` onto ``{||p|| <= λ}`` (Beck, Example 6.37). Returns a new array.

    With ``a = ||p||`` and ``β = (a + λ)/2`` the projection is ``(β, p·β/a)`` outside the cone (``|λ| < a``), the row
    itself inside (``a <= λ``) and 0 in the polar cone (``a <= −λ``), i.e. ``(max(λ, β⁺), p·min(β⁺/a, 1))`` with
    ``β⁺ = max(β, 0)``: one formula in the namespace of ``bk`` (the array's backend, :mod:`marginkit.core.backend`),
    no boolean-mask assignment, no synchronisation of a device."""
    xp = bk.xp
    lam, P = X[:, :1], X[:, 1:]
    a = xp.sqrt(bk.row_sq_norms(P))[:, None]
    beta = xp.maximum(0.5 * (a + lam), 0.0)
    scale = xp.minimum(beta / xp.maximum(a, _TINY), 1.0)   # a = 0 (p = 0): any finite scale will do
    # + 0.0: the polar rows are +0 (p·0 keeps the sign of p)
    return xp.concat([xp.maximum(lam, beta), P * scale + 0.0], axis=1)


def _knapsack_data(z, y, gamma):
    lo = np.where(y > 0, z - gamma, -z)
    target = gamma * float(np.count_nonzero(y > 0))
    return lo, target


def _h(tau, lo, gamma):
    return float(np.clip(tau - lo, 0.0, gamma).sum())


def _root_sort(lo, target, gamma):
    n = lo.size
    bp = np.concatenate([lo, lo + gamma])
    delta = np.concatenate([np.ones(n), -np.ones(n)])
    order = np.argsort(bp, kind="stable")
    bp, slope = bp[order], np.cumsum(delta[order])
    h = np.concatenate([[0.0], np.cumsum(slope[:-1] * np.diff(bp))])
    k = int(np.searchsorted(h, target, side="left"))  # first breakpoint with h >= target
    if k < h.size and h[k] == target:
        return float(bp[k])
    # h[k-1] < target < h[k]: h is linear with slope slope[k-1] > 0 on [bp[k-1], bp[k]]
    return float(bp[k - 1] + (target - h[k - 1]) / slope[k - 1])


def _root_linear(lo, target, gamma, small=128):
    """Median search (Brucker 1984; Kiwiel 2008): every pass halves the breakpoints left in ``(left, right)``;
    terms whose two breakpoints are outside it are folded into ``const + slope·τ``. Once at most ``small``
    breakpoints remain, ``h`` is evaluated at all of them at once (it is affine between consecutive ones,
    and constant, 0 or ``nγ``, beyond an infinite end), which saves the Python overhead of the last passes."""
    left, right = -np.inf, np.inf
    U = lo                      # unresolved terms
    const, slope = 0.0, 0.0     # resolved part of h on (left, right)
    P = np.concatenate([lo, lo + gamma])
    while P.size > small:
        tau = float(np.partition(P, P.size // 2)[P.size // 2])
        val = const + slope * tau + _h(tau, U, gamma)
        if val == target:
            return tau
        if val < target:
            left = tau
        else:
            right = tau
        hi = U + gamma
        inside = ((U > left) & (U < right)) | ((hi > left) & (hi < right))
        done_lo, done_hi = U[~inside], hi[~inside]
        const += gamma * np.count_nonzero(done_hi <= left)
        linear = (done_lo <= left) & (done_hi >= right)
        const -= float(done_lo[linear].sum())
        slope += np.count_nonzero(linear)
        U = U[inside]
        P = np.concatenate([U, U + gamma])
        P = P[(P > left) & (P < right)]
    pts = np.sort(P)
    first = left if np.isfinite(left) else (pts[0] if pts.size else 0.0) - 1.0
    last = right if np.isfinite(right) else (pts[-1] if pts.size else 0.0) + 1.0
    xs = np.concatenate([[first], pts, [last]])
    vals = const + slope * xs + np.clip(xs[:, None] - U[None, :], 0.0, gamma).sum(axis=1)
    # vals[0] < target < vals[-1] in exact arithmetic; clamp against rounding at the bracket ends
    k = min(max(int(np.searchsorted(vals, target, side="left")), 1), xs.size - 1)
    if vals[k] == target:
        return float(xs[k])
    return float(xs[k - 1] + (target - vals[k - 1]) * (xs[k] - xs[k - 1]) / (vals[k] - vals[k - 1]))


def _root_bisection(lo, target, gamma, max_halvings=200):
    left, right = float(lo.min()) - 1.0, float(lo.max() + gamma) + 1.0   # h(left) = 0, h(right) = nγ
    h_left, h_right = 0.0, gamma * lo.size
    for _ in range(max_halvings):  # a bracket search, not an iteration of the method
        mid = 0.5 * (left + right)
        if mid <= left or mid >= right:
            break
        h_mid = _h(mid, lo, gamma)
        if h_mid < target:
            left, h_left = mid, h_mid
        else:
            right, h_right = mid, h_mid
    if h_right == h_left:
        return right
    return left + (target - h_left) * (right - left) / (h_right - h_left)


def weighted_projection(z, y, ub, equality: bool):
    """``(proj(z), τ)`` onto ``{0 <= a_i <= ub_i}`` intersected with ``{yᵀa = 0}`` when ``equality`` (per-sample bounds,
    ``ub_i = C·s_i``; HV's knapsack (13)–(14) with a box per coordinate). The minimiser is
    ``a_i(τ) = clip(z_i − y_i τ, 0, ub_i)``; with ``lo_i = z_i − ub_i`` (``y_i = +1``) or ``−z_i`` (``y_i = −1``),
    ``yᵀa(τ) = Σ_{y=+1} ub_i − h(τ)``, ``h(τ) = Σ_i clip(τ − lo_i, 0, ub_i)`` continuous, piecewise linear and
    non-decreasing, with slope +1 from ``lo_i`` and −1 from ``lo_i + ub_i``: the root is exact after one sort of
    the ``2n`` breakpoints (O(n log n); a zero bound adds two cancelling breakpoints)."""
    if not equality:
        return np.clip(z, 0.0, ub), 0.0
    pos = y > 0
    lo = np.where(pos, z - ub, -z)
    target = float(ub[pos].sum())
    bp = np.concatenate([lo, lo + ub])
    order = np.argsort(bp, kind="stable")
    bp = bp[order]
    slope = np.cumsum(np.concatenate([np.ones(lo.size), -np.ones(lo.size)])[order])
    h = np.concatenate([[0.0], np.cumsum(slope[:-1] * np.diff(bp))])   # h at each breakpoint
    k = min(int(np.searchsorted(h, target, side="left")), h.size - 1)   # first breakpoint with h >= target
    if h[k] <= target or k == 0 or slope[k - 1] <= 0:
        tau = float(bp[k])
    else:   # h is linear with slope slope[k-1] > 0 on [bp[k-1], bp[k]]
        tau = float(bp[k - 1] + (target - h[k - 1]) / slope[k - 1])
    return np.clip(z - y * tau, 0.0, ub), tau


_ROOTS = {"sort": _root_sort, "linear": _root_linear, "bisection": _root_bisection}
PROJECTIONS = tuple(_ROOTS)
WARM_MAX_STEPS = 12  # Newton steps from a warm start before falling back to the cold root finder
WARM_RTOL = 1e-13    # |h(τ) − target| accepted, relative to target + γ (the rounding level of the cold finders)


def _root_warm(lo, target, gamma, tau, cold):
    """Safeguarded Newton on the piecewise-linear ``h`` from a warm start ``τ`` (the previous iteration's
    multiplier): ``τ ← τ + (target − h(τ))/h'(τ)`` with ``h'(τ) = #{lo_i < τ < lo_i + γ}``. A step that stays in
    the same linear piece lands on the root; the bracket ``(left, right)`` keeps the iterates monotone, and
    after ``WARM_MAX_STEPS`` (or a flat piece, or a step leaving the bracket) the cold finder takes over."""
    left, right = -np.inf, np.inf
    tol = WARM_RTOL * (abs(target) + gamma)
    for _ in range(WARM_MAX_STEPS):
        d = tau - lo
        h = float(np.clip(d, 0.0, gamma).sum())
        if abs(h - target) <= tol:
            return tau
        if h < target:
            left = tau
        else:
            right = tau
        slope = float(np.count_nonzero((d > 0.0) & (d < gamma)))
        if slope == 0.0:
            break
        nxt = tau + (target - h) / slope
        if not (left < nxt < right):
            break
        tau = nxt
    return cold(lo, target, gamma)


def project_svm_dual(z: np.ndarray, y: np.ndarray, gamma: float, equality: bool = True,
                     method: str = "linear", tau0: float | None = None, return_tau: bool = False):
    """Projection of ``z`` onto ``{0 <= a <= γ}`` intersected with ``{yᵀa = 0}`` when ``equality`` (else the box).

    ``method`` chooses the root finder for the multiplier of ``yᵀa = 0`` (see the module docstring).
    ``tau0`` (a previous multiplier, e.g. of the last FISTA iteration) warm-starts a safeguarded Newton search
    (:func:`_root_warm`, a few O(n) passes) with ``method`` as the fallback; ``return_tau=True`` returns
    ``(a, τ)`` so the caller can pass ``τ`` on."""
    if not equality:
        a = np.clip(z, 0.0, gamma)
        return (a, 0.0) if return_tau else a
    lo, target = _knapsack_data(z, y, gamma)
    cold = _ROOTS[method]
    tau = cold(lo, target, gamma) if tau0 is None or not np.isfinite(tau0) else \
        _root_warm(lo, target, gamma, float(tau0), cold)
    a = np.clip(z - y * tau, 0.0, gamma)
    return (a, tau) if return_tau else a


# -- the same knapsack where the data live (issue 13: torch, CuPy, array-api-strict, dask) ----------------------------
# No sort and no host synchronisation: a bracket of the root is narrowed by evaluating the monotone function at
# GRID_POINTS interior points at once (one n×GRID_POINTS reduction), GRID_PASSES times; every quantity is an array of
# the namespace (0-d for the scalars), so a torch/CuPy run never waits for the device and a dask run builds one graph
# per projection. 16^15 = 2^60: the final bracket is below the rounding level of its start, and inside it the
# piecewise-linear ``h`` is affine unless two breakpoints are closer than that, so the interpolation is the exact root
# up to rounding (the iterates agree with the NumPy finders to ~1e-15; the certificate is computed from the returned
# point in any case, so the accuracy of the multiplier never decides a status).
GRID_POINTS = 15
GRID_PASSES = 15
GRID_FRACTIONS = np.arange(1, GRID_POINTS + 1, dtype=float) / (GRID_POINTS + 1)


class Bracket(ModulesByName):
    """Bracket searches on the namespace ``xp``; ``zero`` is a 0-d zero of the data's dtype and device, ``frac`` the
    interior grid :data:`GRID_FRACTIONS` in the namespace (NumPy for dask: the 0-d dask scalars broadcast over it).
    Pickles with ``xp`` kept by name (a plan holds one)."""

    def __init__(self, xp, zero, frac):
        self.xp, self.zero, self.frac = xp, zero, frac

    def search(self, h, target, left, right, strict: bool = True):
        """Narrow ``[left, right]`` around the crossing of a non-decreasing ``h`` (``h(points) -> values``,
        vectorised over a 1-D array of points) with ``target``. Invariant: ``h(left) < target <= h(right)``
        (``<=`` and ``>`` with ``strict=False``). Returns ``(left, right, h(left), h(right))`` as 0-d arrays."""
        xp = self.xp
        h_left, h_right = h(xp.reshape(left, (1,)))[0], h(xp.reshape(right, (1,)))[0]
        for _ in range(GRID_PASSES):   # a root search of fixed length, not an iteration of a method
            pts = left + (right - left) * self.frac
            vals = h(pts)
            below = vals < target if strict else vals <= target
            above = xp.logical_not(below)
            left, right = xp.max(xp.where(below, pts, left)), xp.min(xp.where(above, pts, right))
            h_left, h_right = xp.max(xp.where(below, vals, h_left)), xp.min(xp.where(above, vals, h_right))
        return left, right, h_left, h_right

    def interpolate(self, left, right, h_left, h_right, target):
        """The root of the affine interpolant of ``h`` on the final bracket (``left`` when ``h`` is flat there)."""
        xp = self.xp
        span = h_right - h_left
        safe = xp.where(span > self.zero, span, self.zero + 1.0)
        return xp.where(span > self.zero, left + (target - h_left) * (right - left) / safe, left)

    def clip_sum(self, lo, ub):
        """``τ -> Σ_i clip(τ − lo_i, 0, ub_i)`` over a 1-D array of ``τ`` (``ub`` a 0-d array or one bound per row)."""
        xp, zero = self.xp, self.zero
        ubc = ub[:, None] if ub.ndim == 1 else ub

        def h(pts):
            return xp.sum(xp.minimum(xp.maximum(pts[None, :] - lo[:, None], zero), ubc), axis=0)
        return h


def project_box_knapsack(z, y, ub, target, equality: bool, br: Bracket):
    """:func:`project_svm_dual` (per-sample bounds ``ub``: an n-vector, or a 0-d array for one γ) in the namespace of
    ``z`` through :class:`Bracket`: ``a(τ) = clip(z − yτ, 0, ub)`` with ``h(τ) = Σ clip(τ − lo_i, 0, ub_i) = target``
    (``target = Σ_{y=+1} ub_i``, see the module docstring). Returns ``(a, τ)`` (``τ`` a 0-d array; 0.0 for the box)."""
    xp, zero = br.xp, br.zero
    if not equality:
        return xp.minimum(xp.maximum(z, zero), ub), 0.0
    lo = xp.where(y > zero, z - ub, -z)
    h = br.clip_sum(lo, ub)
    left, right = xp.min(lo) - 1.0, xp.max(lo + ub) + 1.0       # h(left) = 0, h(right) = Σ ub_i >= target
    tau = br.interpolate(*br.search(h, target, left, right), target)
    return xp.minimum(xp.maximum(z - y * tau, zero), ub), tau
