"""CVXPY references for the margin problems: ``MaxMargin``, ``MinNormFeasibility``, ``SoftMarginSVM``.

Formulations follow the digests (dual-acceleration-and-dykstra.md Part C, hinge-diagonal-and-homotopic.md
§0.4). Dual sign conventions of CVXPY (checked with CVXPY 1.9): for ``A @ w >= 1`` the multiplier is
``constraint.dual_value >= 0``; for ``A @ w == y`` it is ``-constraint.dual_value``.
"""
from __future__ import annotations


import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ..core.mirror import grad_half_sq_norm, lp_norm
from ..core.solution import Solution
from .base import CvxpyReference, solve_auxiliary

HULL_TOL = 1e-6  # a hull distance below this (relative to max ||x_i||) certifies non-separability


def _signed(problem):
    """``diag(y) X`` for CVXPY (a copy is fine here: the reference is the exact, not the fast, path)."""
    X, y = problem.X, problem.y
    if sp.issparse(X):
        return sp.diags(y) @ X
    return y[:, None] * X


def hull_certificate(problem, solver=None) -> dict:
    """Dual certificate of (non-)separability: ``min_{q ∈ Δ} ||Σ q_i y_i x_i||`` (with a bias: ``q`` puts
    mass ½ on each class, i.e. the distance between the classes' convex hulls, halved). Zero iff no
    strict separator exists (Gordan's alternative). Kernel problems use the Gram matrix."""
    n = problem.n
    q = cp.Variable(n, nonneg=True)
    cons = [cp.sum(q) == 1]
    if getattr(problem, "bias", False):
        cons.append(problem.y @ q == 0)
    if getattr(problem, "kernel", None) is not None:
        K = problem.gram() * np.outer(problem.y, problem.y)
        lam, V = np.linalg.eigh(0.5 * (K + K.T))
        A = V * np.sqrt(np.clip(lam, 0, None))  # K = A A^T
        R = float(np.sqrt(np.max(np.diag(problem.gram()))))
    else:
        A = _signed(problem)
        R = float(problem.row_norms().max())
    # minimise the norm itself (an SOC), not its square: the square's solver tolerance would become
    # the square root of it in the distance
    prob = cp.Problem(cp.Minimize(cp.norm(A.T @ q, 2)), cons)
    # accuracy is judged below from the distance itself
    solve_auxiliary(prob, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    qv = np.clip(q.value, 0, None)
    qv /= qv.sum()
    dist = float(np.linalg.norm(np.asarray(A.T @ qv).ravel()))
    return {"dual_point": qv, "hull_distance": dist, "separable": dist > HULL_TOL * max(R, 1e-300)}


class MaxMarginReference(CvxpyReference):
    """``min ½||w||² s.t. y ⊙ (Xw + b) >= 1`` (primal), or its dual QP with the Gram matrix for kernels.

    Certificate: primal ``½||w||²``, dual ``1ᵀa − ½||Σ a_i y_i x_i||²`` at the multipliers ``a``,
    their gap, and the primal constraint violation; non-separable data give ``infeasible`` with the
    hull certificate (the dual point ``q ∈ Δ`` with ``Σ q_i y_i x_i ≈ 0``)."""

    form = "MaxMargin"

    def build(self):
        p = self.problem
        if p.kernel is not None:
            a = cp.Variable(p.n, nonneg=True)
            Q = p.gram() * np.outer(p.y, p.y)
            cons = [p.y @ a == 0] if p.bias else []
            self._vars = (a, cons)
            return cp.Problem(cp.Maximize(cp.sum(a) - 0.5 * cp.quad_form(a, cp.psd_wrap(0.5 * (Q + Q.T)))), cons)
        w = cp.Variable(p.d)
        b = cp.Variable() if p.bias else 0.0
        margin = cp.multiply(p.y, p.X @ w + b) >= 1
        self._vars = (w, b, margin)
        return cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w)), [margin])

    def _infeasible(self):
        hull = hull_certificate(self.problem)
        cert = {"primal": np.inf, "dual": np.inf, "duality_gap": np.nan, "max_violation": np.nan,
                "hull_distance": hull["hull_distance"], "dual_point": hull["dual_point"]}
        status = "infeasible" if not hull["separable"] else "solver_error"
        return Solution(w=np.zeros(self.problem.d) if self.problem.kernel is None else None,
                        status=status, certificate=cert, dual_coef=np.zeros(self.problem.n))

    def extract(self, status):
        p = self.problem
        if p.kernel is not None:
            return self._extract_kernel(status)
        if status in ("infeasible", "unbounded"):
            return self._infeasible()
        if status not in ("optimal", "optimal_inaccurate"):
            return Solution(w=None, status=status)
        w, b, margin = self._vars
        wv = np.asarray(w.value, float)
        bv = float(b.value) if p.bias else 0.0
        a = np.clip(np.asarray(margin.dual_value, float), 0, None)
        v = np.asarray(p.X.T @ (a * p.y)).ravel()
        primal, dual = 0.5 * wv @ wv, a.sum() - 0.5 * v @ v
        viol = float(max(0.0, np.max(1 - p.y * p.scores(wv, bv))))
        cert = {"primal": primal, "dual": dual, "duality_gap": primal - dual, "max_violation": viol,
                "dual_violation": abs(float(p.y @ a)) if p.bias else 0.0}
        return Solution(w=wv, b=bv, status=status, certificate=cert, dual={"a": a})

    def _extract_kernel(self, status):
        p = self.problem
        if status in ("unbounded", "infeasible"):
            sol = self._infeasible()
            return sol
        if status not in ("optimal", "optimal_inaccurate"):
            return Solution(w=None, status=status)
        a_var, cons = self._vars
        a = np.clip(np.asarray(a_var.value, float), 0, None)
        K = p.gram()
        coef = a * p.y
        f0 = K @ coef
        if p.bias:
            sv = a > 1e-6 * max(a.max(), 1e-300)
            b = float(np.median(p.y[sv] - f0[sv]))
        else:
            b = 0.0
        primal = 0.5 * coef @ f0
        dual = a.sum() - 0.5 * coef @ f0
        viol = float(max(0.0, np.max(1 - p.y * (f0 + b))))
        # the dual QP can be bounded-but-huge near non-separability: confirm with the hull certificate
        hull = hull_certificate(p)
        if not hull["separable"]:
            return self._infeasible()
        cert = {"primal": primal, "dual": dual, "duality_gap": primal - dual, "max_violation": viol}
        return Solution(w=None, b=b, status=status, certificate=cert, dual={"a": a}, dual_coef=coef)

    @staticmethod
    def constants(problem) -> dict:
        """``margin`` (γ* = 1/||w*||), ``support_vectors``, ``w``, ``b``, ``R = max ||x_i||``, the hull
        distance, and for linear problems the hinge exactness threshold ``lambda_star`` (digest §0.2:
        ``λ*_A = 1/min{||a||_∞ : a >= 0, Σ a_i y_i x_i = w*, a_i = 0 off the active set}``, in the
        summed-hinge scaling of Apidopoulos et al.; divide by n for the averaged hinge of Molitor et al.)."""
        ref = problem.reference()
        out = {"status": ref.status, "R": float(problem.row_norms().max())}
        if ref.status not in ("optimal", "optimal_inaccurate"):
            out.update(margin=0.0, hull_distance=ref.certificate.get("hull_distance", 0.0),
                       support_vectors=np.array([], int), lambda_star=np.nan)
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
                   norm_w=1.0 / ref.margin, hull_distance=ref.margin if not problem.bias else np.nan)
        if problem.kernel is None:
            out["lambda_star"] = _lambda_star(problem, ref.w, np.flatnonzero(loose))
        return out


def _lambda_star(problem, wstar, active) -> float:
    Xa = _signed(problem)[active]
    a = cp.Variable(len(active), nonneg=True)
    t = cp.Variable()
    # Z_Aᵀa = w* up to the reference's own accuracy (an exact equality can be infeasible by 1e-9)
    cons = [cp.norm(Xa.T @ a - wstar, 2) <= 1e-7 * max(1.0, float(np.linalg.norm(wstar))), a <= t]
    if problem.bias:
        cons.append(problem.y[active] @ a == 0)
    prob = cp.Problem(cp.Minimize(t), cons)
    solve_auxiliary(prob)
    if prob.status not in ("optimal", "optimal_inaccurate") or t.value <= 0:
        return np.nan
    return float(1.0 / t.value)


class MinNormReference(CvxpyReference):
    """``min D_ψ(w, w0)``, ``ψ = ½||·||_p²`` with exact power cones (``approx=False``) for ``p ≠ 2``.

    Dual (λ-scaling of the Raj–Bach digest, B1): ``D(λ) = cᵀλ − ½||u0 + Aᵀλ||_q² + ½||u0||_q²`` with
    ``A = diag(y)X, c = 1, λ >= 0`` (margin) or ``A = X, c = y`` (interpolation), ``u0 = ∇ψ(w0)``."""

    form = "MinNormFeasibility"

    def build(self):
        p = self.problem
        w = cp.Variable(p.d)
        psi = 0.5 * cp.sum_squares(w) if p.p == 2 else 0.5 * cp.square(cp.pnorm(w, p.p, approx=False))
        obj = psi
        if p.w0 is not None:
            obj = psi - grad_half_sq_norm(p.w0, p.p) @ w
        if p.constraint == "margin":
            con = cp.multiply(p.y, p.X @ w) >= 1
        else:
            con = p.X @ w == p.y
        self._vars = (w, con)
        return cp.Problem(cp.Minimize(obj), [con])

    def extract(self, status):
        p = self.problem
        if status in ("infeasible", "unbounded"):
            return Solution(w=np.zeros(p.d), status="infeasible", certificate=self.farkas())
        if status not in ("optimal", "optimal_inaccurate"):
            return Solution(w=None, status=status)
        w, con = self._vars
        wv = np.asarray(w.value, float)
        lam = np.asarray(con.dual_value, float)
        if p.constraint == "interpolation":
            lam = -lam
            A_lam = np.asarray(p.X.T @ lam).ravel()
            c = p.y
            viol = float(np.max(np.abs(p.scores(wv) - p.y)))
        else:
            lam = np.clip(lam, 0, None)
            A_lam = np.asarray(p.X.T @ (lam * p.y)).ravel()
            c = np.ones(p.n)
            viol = float(max(0.0, np.max(1 - p.y * p.scores(wv))))
        primal = p.objective(wv)
        dual = dual_value_lp(p, lam, A_lam, c)
        cert = {"primal": primal, "dual": dual, "duality_gap": primal - dual, "max_violation": viol}
        return Solution(w=wv, status=status, certificate=cert, dual={"lambda": lam})

    def farkas(self) -> dict:
        """Infeasibility certificate: ``λ`` with ``Aᵀλ ≈ 0`` and ``cᵀλ = 1`` (``λ >= 0`` for margins)."""
        p = self.problem
        lam = cp.Variable(p.n, nonneg=p.constraint == "margin")
        A = _signed(p) if p.constraint == "margin" else p.X
        c = np.ones(p.n) if p.constraint == "margin" else p.y
        prob = cp.Problem(cp.Minimize(cp.sum_squares(A.T @ lam)), [c @ lam == 1])
        solve_auxiliary(prob)
        lv = np.asarray(lam.value, float)
        return {"primal": np.inf, "dual": np.inf, "duality_gap": np.nan, "max_violation": np.nan,
                "farkas_lambda": lv, "farkas_residual": float(np.linalg.norm(np.asarray(A.T @ lv).ravel()))}

    @staticmethod
    def constants(problem) -> dict:
        ref = problem.reference()
        out = {"status": ref.status, "p": problem.p, "q": problem.q,
               "R_q": float(max(lp_norm(np.asarray(problem.X[i].todense()).ravel() if sp.issparse(problem.X)
                                        else problem.X[i], problem.q) for i in range(problem.n)))}
        if ref.status in ("optimal", "optimal_inaccurate"):
            lam = ref.dual["lambda"]
            out.update(psi_star=ref.value, w=ref.w, lambda_star=lam,
                       L=out["R_q"] ** 2 / (problem.p - 1.0))
            if problem.constraint == "margin":
                out["margin"] = 1.0 / lp_norm(ref.w, problem.p)  # the l_p max margin, 1/||θ*||_p
        return out


def dual_value_lp(p, lam, A_lam, c) -> float:
    """``D(λ) = cᵀλ − ½||u0 + Aᵀλ||_q² + ½||u0||_q²`` (digest B1, λ-scaling)."""
    q = p.q
    if p.w0 is None:
        return float(c @ lam - 0.5 * lp_norm(A_lam, q) ** 2)
    u0 = grad_half_sq_norm(p.w0, p.p)
    return float(c @ lam - 0.5 * lp_norm(u0 + A_lam, q) ** 2 + 0.5 * lp_norm(u0, q) ** 2)


class SoftMarginReference(CvxpyReference):
    """``min ½||w||² + C Σ ξ_i s.t. y ⊙ (Xw + b) >= 1 − ξ, ξ >= 0`` with ``C`` a ``cp.Parameter`` (a sweep
    over C re-solves without recompiling); kernels solve the dual QP with the Gram matrix.
    Certificate: the dual ``1ᵀa − ½||Σ a_i y_i x_i||²`` at the margin multipliers ``a ∈ [0, C]``."""

    form = "SoftMarginSVM"

    def build(self):
        p = self.problem
        self.C = cp.Parameter(nonneg=True, value=p.C)
        if p.kernel is not None:
            a = cp.Variable(p.n)
            Q = p.gram() * np.outer(p.y, p.y)
            cons = [a >= 0, a <= self.C]
            if p.bias:
                cons.append(p.y @ a == 0)
            self._vars = (a, cons)
            return cp.Problem(cp.Maximize(cp.sum(a) - 0.5 * cp.quad_form(a, cp.psd_wrap(0.5 * (Q + Q.T)))), cons)
        w = cp.Variable(p.d)
        b = cp.Variable() if p.bias else 0.0
        xi = cp.Variable(p.n, nonneg=True)
        margin = cp.multiply(p.y, p.X @ w + b) >= 1 - xi
        self._vars = (w, b, xi, margin)
        return cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + self.C * cp.sum(xi)), [margin])

    def extract(self, status):
        p = self.problem
        if status not in ("optimal", "optimal_inaccurate"):
            return Solution(w=None, status=status)
        if p.kernel is not None:
            a_var, cons = self._vars
            a = np.clip(np.asarray(a_var.value, float), 0, p.C)
            coef = a * p.y
            f0 = p.gram() @ coef
            b = _svm_offset(p, a, f0) if p.bias else 0.0
            primal = p.kernel_objective(coef, b)
            dual = a.sum() - 0.5 * coef @ f0
            cert = {"primal": primal, "dual": dual, "duality_gap": primal - dual, "max_violation": 0.0,
                    "violation_scale": 1.0}
            return Solution(w=None, b=b, status=status, certificate=cert, dual={"a": a}, dual_coef=coef)
        w, b, xi, margin = self._vars
        wv = np.asarray(w.value, float)
        bv = float(b.value) if p.bias else 0.0
        a = np.clip(np.asarray(margin.dual_value, float), 0, p.C)
        v = np.asarray(p.X.T @ (a * p.y)).ravel()
        primal = p.objective(wv, bv)
        dual = a.sum() - 0.5 * v @ v
        cert = {"primal": primal, "dual": dual, "duality_gap": primal - dual,
                "max_violation": abs(float(p.y @ a)) if p.bias else 0.0, "violation_scale": p.C}
        return Solution(w=wv, b=bv, status=status, certificate=cert, dual={"a": a})

    @staticmethod
    def constants(problem) -> dict:
        ref = problem.reference()
        out = {"status": ref.status, "C": problem.C, "R": float(problem.row_norms().max())}
        if ref.status in ("optimal", "optimal_inaccurate"):
            a = ref.dual["a"]
            tol = 1e-6 * problem.C
            out.update(objective=ref.value, w=ref.w, b=ref.b, support_vectors=np.flatnonzero(a > tol),
                       bounded_support_vectors=np.flatnonzero(a > problem.C - tol))
        return out


def _svm_offset(p, a, f0) -> float:
    """Offset from KKT: free support vectors (0 < a_i < C) satisfy ``y_i f(x_i) = 1``; otherwise the
    offset minimising the primal over the interval allowed by the bounded ones."""
    tol = 1e-6 * p.C
    free = (a > tol) & (a < p.C - tol)
    if free.any():
        return float(np.median(p.y[free] - f0[free]))
    cand = np.unique(p.y - f0)
    vals = [np.maximum(0, 1 - p.y * (f0 + b)).sum() for b in cand]
    return float(cand[int(np.argmin(vals))])
