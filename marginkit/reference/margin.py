"""CVXPY references for the margin problems: ``MaxMargin`` here, ``MinNormFeasibility`` in :mod:`.minnorm` and
``SoftMarginSVM`` in :mod:`.svm` (both re-exported here, where the registry's cards point).

Formulations follow the digests (dual-acceleration-and-dykstra.md Part C, hinge-diagonal-and-homotopic.md
§0.4). Dual sign conventions of CVXPY (checked with CVXPY 1.9): for ``A @ w >= 1`` the multiplier is
``constraint.dual_value >= 0``; for ``A @ w == y`` it is ``-constraint.dual_value``.
"""
from __future__ import annotations

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ..core.solution import Solution
from .base import CvxpyReference, banded, data_scale, no_point, pow2, solve_auxiliary, value_of
from .certificates import HULL_TOL, balance, hull_certificate, margin_certificate, signed
from .minnorm import MinNormReference, dual_value_lp  # re-exported: the registry's cards point here
from .svm import SoftMarginReference

__all__ = ["HULL_TOL", "hull_certificate", "MaxMarginReference", "MinNormReference", "SoftMarginReference",
           "dual_value_lp", "balance", "signed", "margin_certificate"]


class MaxMarginReference(CvxpyReference):
    """``min ½||w||² s.t. y ⊙ (Xw + b) >= 1`` (primal), or its dual QP with the Gram matrix for kernels.

    **Scaling.** With ``c`` the power of two nearest to ``max||x_i||`` (1 when that is within a factor 16 of 1,
    :func:`~.base.banded`) the solver sees ``X̃ = X/c`` (rows of norm
    about 1; ``K̃ = K/c²`` for kernels). Substituting ``w = u/c``: ``y_i(x_iᵀw + b) = y_i(x̃_iᵀu + b)`` and
    ``½||w||² = ½||u||²/c²``, so the scaled problem is MaxMargin(X̃) with its objective multiplied by ``c²``; its
    Lagrangian is ``c²`` times the user's when ``α = c² a``. Hence ``w = u/c``, ``b = b̃``, ``a = α/c²`` (exact:
    ``c`` is a power of two), the margin ``γ = γ̃·c``.

    Certificate (on the user's data): primal ``½||w||²``, dual ``1ᵀa − ½||Σ a_i y_i x_i||²`` at the multipliers
    ``a`` (with a bias, balanced first so that ``yᵀa = 0`` and the dual is a valid bound; the raw ``|yᵀa|`` is
    ``dual_violation``), their gap, the constraint violation ``max(0, 1 − y_i f(x_i))`` (relative to the
    right-hand side 1), and ``relative_gap = (γ̄ − γ)/γ̄`` with ``γ̄ = 1/√(2·dual) >= γ*`` and ``γ`` the margin of
    ``w``. Non-separable data give ``infeasible`` with the hull certificate (the dual point ``q ∈ Δ`` with
    ``Σ q_i y_i x_i ≈ 0``); a solver's claim of infeasibility that the hull certificate refutes is a failure of that
    solver (the next one is tried)."""

    form = "MaxMargin"

    def identity_scale(self):
        return {"c": 1.0}

    def scaling(self):
        p = self.problem
        if p.kernel is not None:
            return {"c": banded(pow2(np.sqrt(max(float(np.max(np.diag(p.gram()))), 0.0))))}
        return {"c": banded(data_scale(p.X))}

    def build(self, scale):
        p, c = self.problem, scale["c"]
        if p.kernel is not None:
            a = cp.Variable(p.n, nonneg=True)
            Q = p.gram() * np.outer(p.y, p.y) / (c * c)
            cons = [p.y @ a == 0] if p.bias else []
            obj = cp.sum(a) - 0.5 * cp.quad_form(a, cp.psd_wrap(0.5 * (Q + Q.T)))
            return cp.Problem(cp.Maximize(obj), cons), (a, cons)
        X = p.X if c == 1.0 else p.X / c
        w = cp.Variable(p.d)
        b = cp.Variable() if p.bias else 0.0
        margin = cp.multiply(p.y, X @ w + b) >= 1
        return cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w)), [margin]), (w, b, margin)

    def hull(self) -> dict:
        if not hasattr(self, "_hull"):
            self._hull = hull_certificate(self.problem)
        return self._hull

    def _infeasible(self, claim="the solver reported the problem infeasible"):
        hull = self.hull()
        if not hull["certified"]:
            why = hull.get("message") or (f"the hull distance {hull['hull_distance']:.3g} "
                                          f"(relative {hull['hull_distance_relative']:.3g}) certifies separable data")
            return no_point("solver_error", f"{claim}, but {why}")
        cert = {"primal": np.inf, "dual": np.inf, "duality_gap": np.nan, "max_violation": np.nan,
                "hull_distance": hull["hull_distance"], "hull_distance_relative": hull["hull_distance_relative"],
                "dual_point": hull["dual_point"]}
        return Solution(w=np.zeros(self.problem.d) if self.problem.kernel is None else None,
                        status="infeasible", certificate=cert, dual_coef=np.zeros(self.problem.n))

    def extract(self, status, handles, scale):
        p, c = self.problem, scale["c"]
        if status in ("infeasible", "unbounded"):
            return self._infeasible()
        if p.kernel is not None:
            return self._extract_kernel(status, handles, c)
        w, b, margin = handles
        u = value_of(w)
        bv = value_of(b) if p.bias else 0.0
        if u is None or bv is None:
            return no_point(status, f"the solver returned no point (status {status})")
        wv, bv = u / c, float(bv)
        alpha = value_of(margin.dual_value)
        a = np.zeros(p.n) if alpha is None else np.clip(alpha, 0, None) / (c * c)
        cert = margin_certificate(p, p.y * p.scores(wv, bv), 0.5 * float(wv @ wv), a,
                                  lambda ab: np.asarray(p.X.T @ (ab * p.y)).ravel())
        return Solution(w=wv, b=bv, status=status, certificate=cert, dual={"a": a})

    def _extract_kernel(self, status, handles, c):
        p = self.problem
        a_var, cons = handles
        alpha = value_of(a_var)
        if alpha is None:
            return no_point(status, f"the solver returned no point (status {status})")
        a = np.clip(alpha, 0, None) / (c * c)
        if p.bias:
            a = balance(a, p.y)
        K = p.gram()
        coef = a * p.y
        f0 = K @ coef
        if p.bias:
            sv = a > 1e-6 * max(a.max(), 1e-300)
            b = float(np.median(p.y[sv] - f0[sv])) if sv.any() else 0.0
        else:
            b = 0.0
        # the dual QP can be bounded-but-huge near non-separability: confirm with the hull certificate
        if self.hull()["certified"]:
            return self._infeasible("the dual is unbounded")
        cert = margin_certificate(p, p.y * (f0 + b), 0.5 * float(coef @ f0), a, None, coef_f0=float(coef @ f0))
        return Solution(w=None, b=b, status=status, certificate=cert, dual={"a": a}, dual_coef=coef)

    @staticmethod
    def constants(problem) -> dict:
        """``margin`` (γ* = 1/||w*||), ``support_vectors``, ``w``, ``b``, ``R = max ||x_i||``, the hull
        distance, and for linear problems the hinge exactness threshold ``lambda_star`` (digest §0.2:
        ``λ*_A = 1/min{||a||_∞ : a >= 0, Σ a_i y_i x_i = w*, a_i = 0 off the active set}``, in the
        summed-hinge scaling of Apidopoulos et al.; divide by n for the averaged hinge of Molitor et al.).
        When the reference has no optimum, what is known (``status``, ``R``, the hull distance, ``message``)."""
        ref = problem.reference()
        out = {"status": ref.status, "R": float(problem.row_norms().max())}
        if ref.status not in ("optimal", "optimal_inaccurate") or (ref.w is None and ref.dual_coef is None):
            out.update(margin=0.0 if ref.status == "infeasible" else np.nan,
                       hull_distance=(ref.certificate or {}).get("hull_distance", 0.0 if ref.status == "infeasible"
                                                                 else np.nan),
                       support_vectors=np.array([], int), lambda_star=np.nan)
            if ref.status != "infeasible":
                out["message"] = ref.info.get("message", f"the reference has status {ref.status}")
            elif problem.kernel is None and not problem.bias:
                out["condition"] = 0.0   # not strictly separable: the max margin of the normalised rows is 0
            return out
        f = ref.decision_function(problem.X)
        active = np.flatnonzero(problem.y * f <= 1 + 1e-6)
        # λ* needs every constraint that may carry a multiplier: the solver's accuracy leaves active
        # constraints at slack ~1e-5, so the LP uses a looser set plus the ones with a positive multiplier
        a = ref.dual.get("a")
        loose = problem.y * f <= 1 + 1e-4
        if a is not None:
            loose |= a > 1e-8 * max(float(a.max()), 1e-300)
        out.update(margin=ref.margin, w=ref.w, b=ref.b, support_vectors=active,
                   norm_w=1.0 / ref.margin if ref.margin > 0 else np.inf,
                   hull_distance=ref.margin if not problem.bias else np.nan)
        if problem.kernel is None:
            out["lambda_star"] = _lambda_star(problem, ref.w, np.flatnonzero(loose))
            if not problem.bias:
                out["condition"] = _condition(problem)
        return out


def _condition(problem) -> float:
    """The Goffin–Cheung–Cucker / Renegar measure of the separability system ``y_i x_iᵀw > 0``: the max margin of
    the row-normalised data, ``ρ = max_{||w|| <= 1} min_i y_i x_iᵀw/||x_i||`` (Cheung & Cucker 2001; Renegar's
    distance to ill-posedness for this system). It does not change when a row is multiplied by a positive number,
    and it is 0 when the data are not strictly separable (a zero row included); ``1/ρ`` is the condition number
    of the perceptron-type bounds. Computed by the certified reference of the normalised problem."""
    norms = problem.row_norms()
    if np.any(norms == 0):
        return 0.0
    X = problem.X
    Xn = sp.diags(1.0 / norms) @ X if sp.issparse(X) else X / norms[:, None]
    sub = type(problem)(Xn, problem.y).reference()
    if sub.status == "infeasible":
        return 0.0
    return float(sub.margin) if sub.status in ("optimal", "optimal_inaccurate") and sub.margin > 0 else np.nan


def _lambda_star(problem, wstar, active) -> float:
    """The LP of λ* on the scaled data (``Ã = A/c``, ``ũ = c·w*``, ``ã = c²a``: ``Ãᵀã = ũ`` iff ``Aᵀa = w*``), so
    ``λ* = c²/t̃``; NaN if the LP is not solved."""
    if len(active) == 0:
        return np.nan
    A = signed(problem)
    c = data_scale(A)
    Xa = A[active] / c
    us = np.asarray(wstar, float) * c
    a = cp.Variable(len(active), nonneg=True)
    t = cp.Variable()
    # Z_Aᵀa = w* up to the reference's own accuracy (an exact equality can be infeasible by 1e-9)
    cons = [cp.norm(Xa.T @ a - us, 2) <= 1e-7 * max(1.0, float(np.linalg.norm(us))), a <= t]
    if problem.bias:
        cons.append(problem.y[active] @ a == 0)
    prob = cp.Problem(cp.Minimize(t), cons)
    solve_auxiliary(prob)
    tv = value_of(t)
    if prob.status not in ("optimal", "optimal_inaccurate") or tv is None or tv <= 0:
        return np.nan
    return float(c * c / tv)


