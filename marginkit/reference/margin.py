"""CVXPY references for the margin problems: ``MaxMargin`` here, ``MinNormFeasibility`` in :mod:`.minnorm` and
``SoftMarginSVM`` in :mod:`.svm` (both re-exported here, where the registry's cards point).

Formulations: the hard-margin problem ``min ½||w||² s.t. y_i(x_iᵀw + b) >= 1`` and its dual, the common target of
Ji, Srebro & Telgarsky, *Fast margin maximization via dual acceleration* (ICML 2021), App. A, of Apidopoulos,
Poggio, Rosasco & Villa, *Iterative regularization in classification via hinge loss diagonal descent* (2022),
§3 and (4.11), and of Molitor, Needell & Ward, *Bias of homotopic gradient descent for the hinge loss* (2021);
the ℓp forms of Raj & Bach, *Explicit regularization of stochastic gradient methods through duality* (AISTATS
2021), eqs. (2) and (11). Dual sign conventions of CVXPY (checked with CVXPY 1.9): for ``A @ w >= 1`` the multiplier is
``constraint.dual_value >= 0``; for ``A @ w == y`` it is ``-constraint.dual_value``.
"""
from __future__ import annotations

import itertools
import math

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ..core.solution import Solution
from .base import CvxpyReference, banded, data_scale, no_point, pow2, solve_auxiliary, value_of
from .certificates import HULL_TOL, balance, hull_certificate, margin_certificate, signed
from .hoffman import dual_hoffman, linear_rate, lojasiewicz_mu, separability_hoffman
from .minnorm import MinNormReference, dual_value_lp  # re-exported: the registry's cards point here
from .svm import SoftMarginReference

__all__ = ["HULL_TOL", "hull_certificate", "MaxMarginReference", "MinNormReference", "SoftMarginReference",
           "dual_value_lp", "balance", "signed", "margin_certificate", "dual_solution", "degree_nonseparability"]


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
        """A solver's claim of infeasibility, judged by marginkit's own hull certificate: ``infeasible`` with an exact
        hull point (cancellation at the level of rounding), ``infeasible_inaccurate`` when the hull distance is only
        below ``HULL_TOL`` (relative to ``Σ q_i ||x_i||``: no separator has an angular margin above it), and a failure
        of that solver (the next one is tried) when the hull certificate shows separable data."""
        hull = self.hull()
        if not hull["certified"]:
            why = hull.get("message") or (f"the hull distance {hull['hull_distance']:.3g} "
                                          f"(relative {hull['hull_distance_relative']:.3g}) certifies separable data")
            return no_point("solver_error", f"{claim}, but {why}")
        cert = {"primal": np.inf, "dual": np.inf, "duality_gap": np.nan, "max_violation": np.nan,
                "hull_distance": hull["hull_distance"], "hull_distance_relative": hull["hull_distance_relative"],
                "dual_point": hull["dual_point"], "margin_upper_bound": hull["hull_distance"]}
        status = "infeasible" if hull["proof"] else "infeasible_inaccurate"
        sol = Solution(w=np.zeros(self.problem.d) if self.problem.kernel is None else None,
                       status=status, certificate=cert, dual_coef=np.zeros(self.problem.n))
        if status == "infeasible_inaccurate":
            sol.info["message"] = (f"{claim}; no separator has a margin above {hull['hull_distance']:.3g} (the "
                                   f"hull distance, {hull['hull_distance_relative']:.3g} relative to the hull point's "
                                   f"rows), but no exact hull point proves the data inseparable")
        return sol

    def direct_solutions(self) -> list:
        """The nearest hull point by Lawson–Hanson (:func:`marginkit.core.hull.min_norm_point`) for dense linear data
        of moderate size: it reads every row at unit scale, where the conic solvers see rows of norms 1e-6 and 1e6
        in one set, or a margin of 1e-9·R, as rounding."""
        if self.problem.kernel is not None or not isinstance(self.problem.X, np.ndarray):
            return []
        return [("NNLS (nearest hull point)", self._nearest_point)]

    def _nearest_point(self):
        from ..core.hull import min_norm_point
        p = self.problem
        q = min_norm_point(p.X, p.y, p.bias)
        if q is None:
            return None
        v = np.asarray(p.X.T @ (q * p.y)).ravel()
        g2 = float(v @ v)
        if not (g2 > 0 and np.isfinite(g2)):
            return None
        w, a = v / g2, q / g2                         # w* = v/||v||², a = q/||v||²: the dual of eq. (2.1)
        f = np.asarray(p.X @ w).ravel()
        b = -0.5 * (float(f[p.y > 0].min()) + float(f[p.y < 0].max())) if p.bias else 0.0
        cert = margin_certificate(p, p.y * (f + b), 0.5 * float(w @ w), a,
                                  lambda ab: np.asarray(p.X.T @ (ab * p.y)).ravel())
        return Solution(w=w, b=b, status="optimal", certificate=cert, dual={"a": a})

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
        distance, and for linear problems the hinge exactness threshold ``lambda_star``
        ``λ*_A = 1/min{||a||_∞ : a >= 0, Σ a_i y_i x_i = w*, a_i = 0 off the active set}`` (one LP once ``w*`` is
        known; derived here from the KKT conditions of the regularised hinge problem at ``w*``, whose multipliers
        ``λa`` must lie in ``[0, 1]``: the λ below which the regularisation path equals ``w*``, which Molitor et al.
        mention and which AP's condition ``λ_0||u*|| <= 1`` of Theorem 5.1 needs; AP's ``u*`` is not unique and the
        proof needs only ``λ_0||u*||_∞ <= 1``), in the summed-hinge scaling of Apidopoulos et al.; divide by n for
        the averaged hinge of Molitor et al.,
        ``condition`` (:func:`_condition`), and the Hoffman constants of :mod:`.hoffman` (homogeneous linear
        problems): ``hoffman_separability`` (of ``{w : y_i x_iᵀw >= b_i}``, ℓ∞ residuals: ``||w*||`` for separable
        data, proved there), ``hoffman_dual`` (a dict: τ of Apidopoulos et al. (5.3), ``value``, ``exact``,
        ``method``, ``witness`` when exact), ``lojasiewicz_mu`` ((5.2)/(A.40) with that τ, ``u_0 = 0`` and the
        least-norm dual solution, whose norm is ``dual_least_norm``) and ``linear_rate`` (Theorem 5.1's
        ``q = 1/(1 + γμ)`` at the step ``γ = 1/||Q||``); each is None with a ``*_reason`` when it cannot be computed.
        Freund–Grigas–Mazumder's ``degree_nonseparability`` and ``degree_separability`` (:func:`_fgm`, homogeneous
        linear problems), with ``degree_nonseparability_info`` (exact or not, method, witness or bound).
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
            out.update(_hoffman(problem, None, None, separable=False,
                                why=None if ref.status == "infeasible" else out["message"]))
            out.update(_fgm(problem, None, why=None if ref.status == "infeasible" else out["message"]))
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
        out.update(_hoffman(problem, ref, np.flatnonzero(loose), separable=ref.margin > 0))
        out.update(_fgm(problem, ref.margin if ref.margin > 0 else None))
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


def _not_computed(problem, why: str | None, homogeneous_only: str) -> str | None:
    """Why a constant of homogeneous linear classifiers is not computed (``None``: it is): ``homogeneous_only`` with
    a bias or a kernel, the size cap of the dense copies, else the caller's own ``why``."""
    if problem.bias or problem.kernel is not None:
        return homogeneous_only
    if problem.n * problem.d > _HOFFMAN_MAX_ENTRIES:
        return f"n*d = {problem.n * problem.d} exceeds {_HOFFMAN_MAX_ENTRIES}: not computed"
    return why


def _hoffman(problem, ref, loose, separable: bool, why: str | None = None) -> dict:
    """``hoffman_separability``, ``hoffman_dual``, ``lojasiewicz_mu`` and Theorem 5.1's ``linear_rate`` (step
    ``1/||Q||``), defined and derived in :mod:`.hoffman`. Both Hoffman systems are those of homogeneous linear
    classifiers (Apidopoulos et al. have no offset): with a bias or a kernel they are ``None`` with the reason,
    as when the data are too large (dense copies of at most ``_HOFFMAN_MAX_ENTRIES`` entries)."""
    out = {"hoffman_separability": None, "hoffman_dual": None, "lojasiewicz_mu": None, "linear_rate": None}
    reason = _not_computed(problem, why, "the Hoffman systems are those of homogeneous linear classifiers "
                           "y_i x_i^T w >= 0 (Apidopoulos et al. have no offset); not defined with a bias or a kernel")
    if reason is not None:
        out.update(hoffman_separability_reason=reason,
                   hoffman_dual={"value": None, "exact": False, "method": None, "reason": reason})
        return out
    A = signed(problem)
    Z = A.toarray() if sp.issparse(A) else np.asarray(A, float)
    norm_w = float(np.linalg.norm(ref.w)) if separable else None
    sep = separability_hoffman(Z, norm_w, separable)
    out["hoffman_separability"] = sep["value"]
    if sep["value"] is None:
        out["hoffman_separability_reason"] = sep["reason"]
    tau = dual_hoffman(Z)
    out["hoffman_dual"] = tau
    if not separable or tau["value"] is None:
        out["lojasiewicz_reason"] = (tau.get("reason") if tau["value"] is None
                                     else "the data are not separable: (5.2) assumes a dual minimiser")
        return out
    ustar = _least_norm_dual(problem, ref.w, loose)
    if not np.isfinite(ustar):
        out["lojasiewicz_reason"] = "the least-norm dual solution u* was not found"
        return out
    opnorm = float(np.linalg.norm(Z, 2))
    mu = lojasiewicz_mu(tau["value"], norm_w, ustar, opnorm)
    out.update(lojasiewicz_mu=mu, linear_rate=linear_rate(mu, 1.0 / opnorm ** 2), dual_least_norm=ustar)
    return out


_HOFFMAN_MAX_ENTRIES = 2_000_000


def _least_norm_dual(problem, wstar, active) -> float:
    """``||u*||`` for the least-norm dual solution: ``min ||a|| s.t. a >= 0, Σ_A a_i y_i x_i = w*`` (zero off the
    active set), on the scaled data as in :func:`_lambda_star` (``a = ã/c²``); NaN if not solved."""
    if len(active) == 0:
        return np.nan
    A = signed(problem)
    c = data_scale(A)
    Xa = A[active] / c
    us = np.asarray(wstar, float) * c
    a = cp.Variable(len(active), nonneg=True)
    prob = cp.Problem(cp.Minimize(cp.norm(a, 2)),
                      [cp.norm(Xa.T @ a - us, 2) <= 1e-7 * max(1.0, float(np.linalg.norm(us)))])
    solve_auxiliary(prob)
    av = value_of(a)
    if prob.status not in ("optimal", "optimal_inaccurate") or av is None:
        return np.nan
    return float(np.linalg.norm(np.clip(av, 0, None))) / (c * c)


def dual_solution(problem, cap: float | None = None) -> np.ndarray | None:
    """A dual solution ``a* = −u*`` of the hard-margin problem (homogeneous, linear) of least Euclidean norm among
    those with ``||a*||_∞ <= cap``: ``min ||a|| s.t. 0 <= a <= cap, Σ a_i y_i x_i = w*, a_i = 0 off the active set``
    (the equality to the reference's accuracy, on the scaled data as in :func:`_lambda_star`). Apidopoulos et
    al.'s Theorems 5.1/5.2 need a ``u*`` with ``λ_0||u*||_∞ <= 1``: ``cap = 1/λ_0``. None when there is none (then
    ``cap < 1/λ*_A``) or the reference has no ``w*``."""
    ref = problem.reference()
    if problem.bias or problem.kernel is not None or ref.w is None or not ref.margin > 0:
        return None
    f = ref.decision_function(problem.X)
    loose = problem.y * f <= 1 + 1e-4
    a_ref = ref.dual.get("a")
    if a_ref is not None:
        loose |= a_ref > 1e-8 * max(float(a_ref.max()), 1e-300)
    active = np.flatnonzero(loose)
    A = signed(problem)
    c = data_scale(A)
    Xa = A[active] / c
    us = np.asarray(ref.w, float) * c
    a = cp.Variable(len(active), nonneg=True)
    cons = [cp.norm(Xa.T @ a - us, 2) <= 1e-7 * max(1.0, float(np.linalg.norm(us)))]
    if cap is not None:
        cons.append(a <= cap * c * c)
    prob = cp.Problem(cp.Minimize(cp.norm(a, 2)), cons)
    solve_auxiliary(prob)
    av = value_of(a)
    if prob.status not in ("optimal", "optimal_inaccurate") or av is None:
        return None
    out = np.zeros(problem.n)
    out[active] = np.clip(av, 0.0, None if cap is None else cap * c * c) / (c * c)
    return out

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




# ----------------------------------------------------------------------------------------------------------------
# Freund, Grigas & Mazumder's degrees of separability and non-separability
# ----------------------------------------------------------------------------------------------------------------

FGM_MAX_SUBSETS = 200_000      # (d−1)-subsets of rows the exact degree of non-separability may visit
_FGM_SAMPLES = 2_000           # directions tried for the upper bound beyond that


def _fgm(problem, margin: float | None, why: str | None = None) -> dict:
    """Freund, Grigas & Mazumder (2018), *Condition number analysis of logistic regression, and its implications
    for standard first-order solution methods* (arXiv:1810.08727), §2, with the ℓ2 norm and rows ``z_i = y_i x_i``
    (homogeneous linear classifiers, as in their logistic regression without an offset column):

    * ``degree_nonseparability`` ``DegNSEP* = min_{||β|| = 1} (1/n) Σ_i [z_iᵀβ]⁻`` with ``[s]⁻ = max(0, −s)``:
      the least average misclassification depth of a unit direction. It is 0 exactly when some ``β ≠ 0`` has
      ``z_iᵀβ >= 0`` for all ``i`` (the data are weakly separable), and it scales like the data.
    * ``degree_separability`` ``DegSEP* = max_{||β|| <= 1} min_i z_iᵀβ``: the max margin ``γ*`` (0 when the data are
      not strictly separable).

    The first is 0 on separable data (``β = w*/||w*||``, exact); otherwise :func:`degree_nonseparability`
    computes it exactly by enumeration for small ``C(n, d−1)``, and beyond that gives a certified upper bound.
    With a bias or a kernel both are ``None`` with the reason (the definitions are for ``β`` acting on the rows)."""
    out = {"degree_nonseparability": None, "degree_separability": None}
    reason = _not_computed(problem, why, "Freund-Grigas-Mazumder's degrees are defined for homogeneous linear "
                           "classifiers y_i x_i^T beta; not with a bias or a kernel")
    if reason is not None:
        out["degree_nonseparability_info"] = {"value": None, "exact": False, "reason": reason}
        return out
    if margin is not None:
        out.update(degree_separability=float(margin), degree_nonseparability=0.0,
                   degree_nonseparability_info={"value": 0.0, "exact": True,
                                                "method": "separable data: beta = w*/||w*|| has no negative part"})
        return out
    A = signed(problem)
    Z = A.toarray() if sp.issparse(A) else np.asarray(A, float)
    info = degree_nonseparability(Z)
    out.update(degree_separability=0.0, degree_nonseparability=info["value"], degree_nonseparability_info=info)
    return out


def negative_part_mean(Z: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``(1/n) Σ_i [z_iᵀβ]⁻`` for each column ``β`` of ``B`` (d × m)."""
    return np.maximum(-(Z @ B), 0.0).mean(axis=0)


def degree_nonseparability(Z: np.ndarray, max_subsets: int = FGM_MAX_SUBSETS, seed: int = 0) -> dict:
    """``DegNSEP* = min_{||β|| = 1} f(β)``, ``f(β) = (1/n) Σ_i [z_iᵀβ]⁻`` (see :func:`_fgm`).

    **Exact by enumeration.** ``f`` is the support function of the zonotope ``S = {−Σ_i λ_i z_i : 0 <= λ_i <= 1/n}``
    (``[s]⁻ = max_{0<=λ<=1} −λs``), which contains 0. If the rows do not span ``R^d``, a ``β`` orthogonal to all of
    them gives ``f = 0``. Otherwise ``S`` is full-dimensional and ``min_{||β||=1} σ_S(β)`` is the distance from 0 to
    the boundary of ``S`` (0 when 0 is on it), i.e. the smallest value of ``σ_S`` at the unit normals of the
    facets of ``S``; every facet of a zonotope is parallel to ``d − 1`` linearly independent generators, so the
    minimum is over ``±ν_J`` for the unit normals ``ν_J`` of the hyperplanes spanned by ``(d−1)``-subsets ``J`` of
    rows of rank ``d − 1``: ``C(n, d−1)`` candidates, polynomial in ``n`` for fixed ``d``. Done when that count is
    at most ``max_subsets`` (``exact: True``, ``witness`` the minimising ``β``).

    **Beyond it**, ``value`` is None and ``upper_bound`` the least ``f`` over the rows' directions and
    ``_FGM_SAMPLES`` random unit directions (any unit ``β`` bounds the minimum from above)."""
    Z = np.asarray(Z, dtype=float)
    n, d = Z.shape
    method = "min over the facet normals of the zonotope {sum lambda_i z_i : 0 <= lambda_i <= 1/n}"
    if n == 0:
        return {"value": 0.0, "exact": True, "method": "no rows", "witness": np.eye(d, 1).ravel()}
    _, sv, Vt = np.linalg.svd(Z, full_matrices=True)
    rank_tol = max(n, d) * np.finfo(float).eps * (float(sv[0]) if sv.size else 0.0)
    if d == 0 or int(np.sum(sv > rank_tol)) < d:
        beta = Vt[-1]
        return {"value": float(negative_part_mean(Z, beta[:, None])[0]), "exact": True,
                "method": "the rows do not span R^d: a direction orthogonal to all of them", "witness": beta}
    total = math.comb(n, d - 1)
    if total > max_subsets:
        rng = np.random.default_rng(seed)
        rows = Z[np.linalg.norm(Z, axis=1) > 0]
        ls = np.linalg.lstsq(Z, np.ones(n), rcond=None)[0]          # the least-squares separator's direction
        B = np.hstack([rng.standard_normal((d, _FGM_SAMPLES)), rows.T, -rows.T, ls[:, None]])
        B /= np.where(np.linalg.norm(B, axis=0) > 0, np.linalg.norm(B, axis=0), 1.0)
        vals = negative_part_mean(Z, B)
        beta, best = B[:, int(np.argmin(vals))], float(vals.min())
        beta, best = _descend_on_sphere(Z, beta, best)
        return {"value": None, "exact": False, "method": method, "subsets": total, "max_subsets": max_subsets,
                "upper_bound": best, "witness": beta,
                "reason": f"the exact minimum visits C(n, d-1) = {total} row subsets (more than max_subsets = "
                          f"{max_subsets}); upper_bound is f at a unit direction (the best of {B.shape[1]} "
                          f"candidates, improved by projected subgradient steps on the sphere)"}
    if d == 1:                                                         # the only "hyperplane" is {0}
        vals = negative_part_mean(Z, np.array([[1.0, -1.0]]))
        i = int(np.argmin(vals))
        return {"value": float(vals[i]), "exact": True, "method": method, "subsets": 1, "max_subsets": max_subsets,
                "witness": np.array([1.0 if i == 0 else -1.0])}
    best, witness = np.inf, None
    combos = itertools.combinations(range(n), d - 1)
    while True:
        block = np.array(list(itertools.islice(combos, 4096)), dtype=int)
        if block.size == 0:
            break
        _, s, V = np.linalg.svd(Z[block], full_matrices=True)          # stacks (m, d−1, d)
        N = V[s[:, -1] > rank_tol, -1, :]                              # unit normals of the spanned hyperplanes
        if len(N):
            B = np.hstack([N.T, -N.T])
            vals = negative_part_mean(Z, B)
            i = int(np.argmin(vals))
            if vals[i] < best:
                best, witness = float(vals[i]), B[:, i].copy()
    return {"value": best, "exact": True, "method": method, "subsets": total, "max_subsets": max_subsets,
            "witness": witness}


def _descend_on_sphere(Z: np.ndarray, beta: np.ndarray, best: float, steps: int = 300):
    """Projected subgradient steps of ``f`` on the unit sphere from ``beta`` (steps ``0.5/sqrt(k+1)``); returns the
    best unit direction seen and its value (each one an upper bound on the minimum)."""
    scale = float(np.linalg.norm(Z, axis=1).mean()) or 1.0
    cur = beta.copy()
    for k in range(steps):
        g = -(Z * (Z @ cur < 0)[:, None]).mean(axis=0) / scale
        g -= (g @ cur) * cur                                         # tangent part
        nxt = cur - 0.5 / np.sqrt(k + 1.0) * g
        norm = float(np.linalg.norm(nxt))
        if norm == 0.0:
            break
        cur = nxt / norm
        val = float(negative_part_mean(Z, cur[:, None])[0])
        if val < best:
            best, beta = val, cur.copy()
    return beta, best
