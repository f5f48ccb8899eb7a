"""CVXPY reference of ``SoftMarginSVM``: ``min ½||w||² + Σ C_i max(0, 1 − y_i(x_iᵀw + b))`` with ``C_i = C·s_i``
(``s``: the problem's ``sample_weight``, all ones without it; primal QP, or the dual QP with the Gram matrix for
kernels)."""
from __future__ import annotations

import cvxpy as cp
import numpy as np

from ..core.solution import Solution
from .base import UNIT_BAND, CvxpyReference, banded, data_scale, no_point, pow2, value_of
from .certificates import balance

CAP = 1e8   # above this C̃ = c²C the scaled primal is ill-conditioned: the capped model is tried as well


class SoftMarginReference(CvxpyReference):
    """``min ½||w||² + Σ C_i ξ_i s.t. y ⊙ (Xw + b) >= 1 − ξ, ξ >= 0`` with the box ``C_i = C·s_i`` a
    ``cp.Parameter`` (a scalar without sample weights, a vector with them; a sweep over C re-solves without
    recompiling); kernels solve the dual QP ``0 <= a_i <= C_i`` with the Gram matrix.

    **Scaling.** The problem is not homogeneous in ``X`` (``SoftMarginSVM(c·X, C)`` is ``SoftMarginSVM(X, c²C)``
    up to the factor ``c²`` of the objective), so the data are scaled and ``C`` with them. ``c`` = the power of two
    nearest to ``max||x_i||`` (``√max K_ii`` for kernels; 1 when that is within a factor 16 of 1); with ``X̃ = X/c``
    and ``w = u/c``: ``x_iᵀw = x̃_iᵀu`` and ``½||w||² + CΣξ = (½||u||² + C̃Σξ)/c²`` with ``C̃ = c²C``; the objective
    is also multiplied by ``σ`` (a power of two, ``σ ≈ 1/(C̃n)`` when ``C̃n < 1/16``, else 1) so that its optimal
    value is not tiny. The solver sees ``min σ(½||u||² + C̃Σξ)`` subject to ``y_i(x̃_iᵀu + b) >= 1 − ξ_i``, whose
    Lagrangian is ``σc²`` times the user's when ``α = σc²·a``. Hence ``w = u/c``, ``b = b̃``, ``ξ = ξ̃`` and
    ``a = α/(σc²)`` (kernels: the dual variable ``β = σc²·a ∈ [0, σC̃]`` of ``max Σβ − βᵀQ̃β/(2σ)``, ``Q̃ = Q/c²``).
    When ``C̃`` is huge, :meth:`scalings` adds two more models and the multipliers are also rebuilt from the primal
    point (:func:`kkt_multipliers`); the larger valid dual value is kept. With sample weights every ``C`` above is the
    vector ``C_i`` (scaled alike), and the scale tests use its largest entry (cap) and its sum (``σ``).

    Certificate (user's data): primal = the objective at ``(w, b)`` (always feasible: the hinge is exact), dual
    ``1ᵀa − ½||Σ a_i y_i x_i||²`` at the multipliers clipped to ``[0, C_i]`` and, with a bias, balanced onto
    ``yᵀa = 0`` (the raw ``|yᵀa|`` is ``dual_violation``), so the dual is a valid lower bound; ``relative_gap`` =
    gap / max(|primal|, |dual|)."""

    form = "SoftMarginSVM"

    def identity_scale(self):
        return {"c": 1.0, "sigma": 1.0}

    def scaling(self):
        p = self.problem
        if p.kernel is not None:
            c = banded(pow2(np.sqrt(max(float(np.max(np.diag(p.gram()))), 0.0))))
        else:
            c = banded(data_scale(p.X))
        total = float(p.box.sum()) * c * c          # C̃·n without sample weights
        sigma = pow2(1.0 / total) if 0 < total < 1.0 / UNIT_BAND else 1.0
        return {"c": c, "sigma": sigma}

    def scalings(self):
        """The scaled primal; when ``C̃ = c²C`` exceeds :data:`CAP` (an interior-point method then mistakes the model
        for an infeasible one) also the model with ``C̃`` capped at ``CAP`` (exact whenever no multiplier reaches the
        cap: then ``ξ = 0`` and the KKT conditions hold for every ``C >= CAP``) and, for linear problems, the model
        weighted by ``σ = 1/C̃`` (``min ½||u||²/C̃ + Σξ``: the regime where the hinge dominates). The certificate,
        always with the user's ``C``, decides which answer stands."""
        base = self.scaling()
        out = [base]
        Ct = float(self.problem.box.max()) * base["c"] * base["c"]
        if np.isfinite(Ct) and Ct > CAP:
            out.append({**base, "cap": CAP})
            if self.problem.kernel is None:
                out.append({**base, "sigma": 1.0 / pow2(Ct)})
        return out

    def scale_problem(self, scale):
        reason = super().scale_problem(scale)
        if reason is None:
            Cmax = float(self.problem.box.max())
            Ct = Cmax * scale["c"] * scale["c"] * scale["sigma"]
            if not (np.isfinite(Ct) and 1e-300 < Ct < 1e300):
                reason = f"C·c² = {Cmax:g}·{scale['c']:g}² (c ≈ max||x_i||) is beyond double precision"
        return reason

    def build(self, scale):
        p, c, sigma = self.problem, scale["c"], scale["sigma"]
        if p.weighted:
            C = cp.Parameter(p.n, nonneg=True, value=np.minimum(p.box * (c * c), scale.get("cap", np.inf)) * sigma)
        else:
            C = cp.Parameter(nonneg=True, value=min(p.C * c * c, scale.get("cap", np.inf)) * sigma)
        if p.kernel is not None:
            a = cp.Variable(p.n)
            Q = p.gram() * np.outer(p.y, p.y) / (c * c * sigma)
            cons = [a >= 0, a <= C]
            if p.bias:
                cons.append(p.y @ a == 0)
            obj = cp.sum(a) - 0.5 * cp.quad_form(a, cp.psd_wrap(0.5 * (Q + Q.T)))
            return cp.Problem(cp.Maximize(obj), cons), (a, cons)
        X = p.X if c == 1.0 else p.X / c
        w = cp.Variable(p.d)
        b = cp.Variable() if p.bias else 0.0
        xi = cp.Variable(p.n, nonneg=True)
        margin = cp.multiply(p.y, X @ w + b) >= 1 - xi
        quad = 0.5 * cp.sum_squares(w) if sigma == 1.0 else (0.5 * sigma) * cp.sum_squares(w)
        hinge = C @ xi if p.weighted else C * cp.sum(xi)
        return cp.Problem(cp.Minimize(quad + hinge), [margin]), (w, b, xi, margin)

    def extract(self, status, handles, scale):
        p = self.problem
        factor = scale["sigma"] * scale["c"] * scale["c"]         # α = σc²·a
        if status in ("infeasible", "unbounded"):          # never for this problem: always feasible and bounded
            return no_point("solver_error", f"the solver reported the problem {status}; it is feasible and bounded")
        if p.kernel is not None:
            a_var, cons = handles
            beta = value_of(a_var)
            if beta is None:
                return no_point(status, f"the solver returned no point (status {status})")
            a = np.clip(beta / factor, 0, p.box)
            raw = abs(float(p.y @ a)) if p.bias else 0.0
            a = balance(a, p.y) if p.bias else a
            coef = a * p.y
            f0 = p.gram() @ coef
            b = svm_offset(p, a, f0) if p.bias else 0.0
            primal = p.kernel_objective(coef, b)
            dual = a.sum() - 0.5 * coef @ f0
            cert = {"primal": primal, "dual": dual, "duality_gap": primal - dual, "max_violation": 0.0,
                    "dual_violation": raw}
            return Solution(w=None, b=b, status=status, certificate=cert, dual={"a": a}, dual_coef=coef)
        w, b, xi, margin = handles
        u = value_of(w)
        bv = value_of(b) if p.bias else 0.0
        if u is None or bv is None:
            return no_point(status, f"the solver returned no point (status {status})")
        wv, bv = u / scale["c"], float(bv)
        alpha = value_of(margin.dual_value)
        a = np.zeros(p.n) if alpha is None else np.clip(alpha / factor, 0, p.box)
        raw = abs(float(p.y @ a)) if p.bias else 0.0
        ab = balance(a, p.y) if p.bias else a
        wv, bv = polish(p, wv, bv)
        primal = p.objective(wv, bv)
        dual = dual_value(p, ab)
        kkt = kkt_multipliers(p, wv, bv)
        if kkt is not None:
            dk = dual_value(p, kkt)
            if dk > dual:
                ab, dual = kkt, dk
        cert = {"primal": primal, "dual": dual, "duality_gap": primal - dual, "max_violation": 0.0,
                "dual_violation": raw}
        return Solution(w=wv, b=bv, status=status, certificate=cert, dual={"a": ab})

    @staticmethod
    def constants(problem) -> dict:
        ref = problem.reference()
        out = {"status": ref.status, "C": problem.C, "R": float(problem.row_norms().max())}
        if ref.status in ("optimal", "optimal_inaccurate") and "a" in ref.dual:
            a = ref.dual["a"]
            tol = 1e-6 * problem.box
            out.update(objective=ref.value, w=ref.w, b=ref.b, support_vectors=np.flatnonzero(a > tol),
                       bounded_support_vectors=np.flatnonzero((a > problem.box - tol) & (problem.box > 0)))
        else:
            out["message"] = ref.info.get("message", f"the reference has status {ref.status}")
        return out


def polish(p, w, b):
    """``s·(w, b)`` for the best ``s`` in a few candidates around 1 (1 itself, and just past the scaling that puts the
    nearly active margins ``y_i f(x_i) ≈ 1`` exactly on the feasible side): when ``C·max||x_i||²`` is large, a
    rounding-level violation of a margin costs ``C`` times more than the whole ``½||w||²``, and rescaling by
    ``1 + O(1e-12)`` removes it. The objective never increases (the candidate ``s = 1`` is kept if best)."""
    m = p.y * p.scores(w, b)
    near = m[(m > 0.5) & (m < 1.0)]
    if near.size == 0:
        return w, b
    best, best_val = (w, b), p.objective(w, b)
    for s in (1.0 / near.min(), 1.0 / np.median(near)):
        for eps in (1e-12, 1e-10):
            wc, bc = w * (s * (1 + eps)), b * (s * (1 + eps))
            val = p.objective(wc, bc)
            if val < best_val:
                best, best_val = (wc, bc), val
    return best


def dual_value(p, a) -> float:
    """``1ᵀa − ½||Σ a_i y_i x_i||²``: a lower bound on the optimum for ``0 <= a_i <= C_i`` (with ``yᵀa = 0`` if a
    bias): the Lagrange dual of the weighted problem has the same function, only the box changes."""
    v = np.asarray(p.X.T @ (a * p.y)).ravel()
    return float(a.sum() - 0.5 * v @ v)


def kkt_multipliers(p, w, b, tol=1e-6):
    """Multipliers rebuilt from the primal point by the KKT conditions: ``a_i = C_i`` where ``y_i f(x_i) < 1``,
    ``a_i = 0`` where ``y_i f(x_i) > 1``, and on the margin (``|y_i f(x_i) − 1| <= tol``) the least-squares solution
    of ``Σ a_i y_i x_i = w`` (and ``yᵀa = 0`` with a bias), clipped to ``[0, C_i]`` and balanced. When ``C·max||x_i||²``
    is large the solver's own multipliers carry its relative error times ``C·||x||`` into ``Σ a_i y_i x_i``; these
    are exact off the margin. None when nothing is on the margin."""
    m = p.y * p.scores(w, b)
    free = np.abs(m - 1.0) <= tol
    if not free.any():
        return None
    box = p.box
    a = np.where(m < 1.0 - tol, box, 0.0)
    Xf = p.X[np.flatnonzero(free)]
    Xf = np.asarray(Xf.todense()) if hasattr(Xf, "todense") else np.asarray(Xf)
    s = data_scale(Xf)           # solve for ã = s²a on x̃ = x/s: Σ ã_i y_i x̃_i = s(w − Σ_bounded C y_i x_i)
    M = (Xf / s * p.y[free, None]).T
    r = s * (np.asarray(w, float) - np.asarray(p.X.T @ (a * p.y)).ravel())
    if p.bias:
        M = np.vstack([M, p.y[free][None, :]])
        r = np.concatenate([r, [-s * s * float(p.y @ a)]])
    with np.errstate(all="ignore"):
        at = np.linalg.lstsq(M, r, rcond=None)[0]
    if not np.all(np.isfinite(at)):
        return None
    a[free] = np.clip(at / (s * s), 0.0, box[free])
    return balance(a, p.y) if p.bias else a


def svm_offset(p, a, f0) -> float:
    """Offset from KKT: free support vectors (0 < a_i < C_i) satisfy ``y_i f(x_i) = 1``; otherwise the
    offset minimising the (weighted) hinge over the interval allowed by the bounded ones."""
    box = p.box
    tol = 1e-6 * box
    free = (a > tol) & (a < box - tol)
    if free.any():
        return float(np.median(p.y[free] - f0[free]))
    cand = np.unique(p.y - f0)
    vals = [box @ np.maximum(0, 1 - p.y * (f0 + b)) for b in cand]
    return float(cand[int(np.argmin(vals))])
