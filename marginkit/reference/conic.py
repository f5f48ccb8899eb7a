"""CVXPY references for the conic forms of Hough & Vavasis: ``EllipsoidSeparation`` (an SOCP), the perturbed SVM
dual ``PerturbedSVMDual`` (15) and its primal ``PerturbedSVMPrimal`` (20).

Reference: M. Hough, S. A. Vavasis, *Data-dependent complexity of first-order methods for binary classification*
(2025) [HV]: the ESP of §2.1–2.2 ((1)–(5)) with Theorems 2.2–2.4 of §2.3–2.4, the perturbed SVM dual (15) and its
primal (16)/(20) of §3.2, the data model of §3.3. (R1)–(R4) below are this module's names for the four exact
formulations it solves. CVXPY dual convention (checked with CVXPY 1.9.3): for
``cp.SOC(−s − Cw, rows A_iᵀw)`` the cone multipliers ``(λ_i, P_i)`` give the (R1) point ``(λ_i, p_i) = (λ_i, −P_i)``
(the vector part enters the cone with the opposite sign of the paper's ``𝒜ᵀ``).

**ESP.** The reference solves the regularised primal (R2) on the normalised data,

    v_D = argmax_{s,t,w} s + t − ½(s² + t² + ||w||²)   s.t.  ||A_iᵀw|| <= −s − c_iᵀw,  ||B_iᵀw|| <= d_iᵀw − t,

whose Lagrange dual is the FISTA problem (5) (R1): its cone multipliers are a minimiser ``x̄`` of
``½||𝒜x − b||²`` over ``𝒞``. Certificate: ``primal`` = (R2) value at ``v``, ``dual`` = ``½||b − 𝒜x̄||²`` at the
multipliers (projected onto ``𝒞``), their gap and the cone violation of ``v``. The hyperplane of ``v_D``
(``m = (t − s)/2``, Theorem 2.2) is reported only when test (28) certifies it; when it does not and
``3||v_D|| <= NONSEPARABLE_TOL`` the status is ``infeasible`` (``δ_𝒜 <= 3||v_D||``, Theorem 2.3) with the
hull point ``x̄`` (``𝒜x̄ ≈ b``: a common point of ``conv ∪C_i`` and ``conv ∪D_i``) as certificate, never a hyperplane.
"""
from __future__ import annotations

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ..operators.ellipsoids import ESPOperator, esp_operator, iteration_bounds  # noqa: F401
from ..core.linalg import spectral_norm_sq
from ..operators.projections import project_soc_rows, project_svm_dual
from ..core.solution import Solution
from ..operators.hinge import best_offset, perturbed_primal_value, smoothed_hinge, smoothed_hinge_grad
from .base import CvxpyReference, certified, data_scale, no_point, solve_auxiliary, value_of

NONSEPARABLE_TOL = 1e-6  # 3||v_D|| below this (normalised units) and no certified hyperplane -> "infeasible"


def _shape_rows(S, w, diagonal):
    """CVXPY expression of shape (k, d) whose rows are ``S_iᵀ w`` (a sparse stacked map for diagonal shapes)."""
    k, d = S.shape[0], S.shape[1]
    if diagonal:
        M = sp.csr_matrix((S.ravel(), (np.arange(k * d), np.tile(np.arange(d), k))), shape=(k * d, d))
    else:
        M = np.transpose(S, (0, 2, 1)).reshape(k * d, d)
    return cp.reshape(M @ w, (k, d), order="C")


def esp_cones(op: ESPOperator, s, t, w):
    """The constraints of the primal (2): C_i in ``{wᵀz <= −s}``, D_i in ``{wᵀz >= t}`` (Lemma 2.1)."""
    return [cp.SOC(-s - op.c @ w, _shape_rows(op.A, w, op.diagonal), axis=1),
            cp.SOC(op.dc @ w - t, _shape_rows(op.B, w, op.diagonal), axis=1)]


class EllipsoidSeparationReference(CvxpyReference):
    """(R2) on the normalised data; ``v_D``, the (R1) point ``x̄`` and the hyperplane of Theorem 2.2."""

    form = "EllipsoidSeparation"

    @property
    def op(self) -> ESPOperator:
        return esp_operator(self.problem)

    def build(self, scale):
        s, t, w = cp.Variable(), cp.Variable(), cp.Variable(self.op.d)
        cones = esp_cones(self.op, s, t, w)
        return (cp.Problem(cp.Maximize(s + t - 0.5 * (cp.square(s) + cp.square(t) + cp.sum_squares(w))), cones),
                (s, t, w, cones))

    def extract(self, status, handles, scale):
        if status not in ("optimal", "optimal_inaccurate", "user_limit"):
            return no_point("solver_error", f"the solver reported {status}: (R2) is always feasible and bounded")
        op = self.op
        s, t, w, (con_c, con_d) = handles
        vals = [value_of(s), value_of(t), value_of(w)]
        duals = [con_c.dual_value, con_d.dual_value]
        if any(v is None for v in vals) or any(d is None for d in duals):
            return no_point(status, f"the solver returned no point (status {status})")
        v = np.concatenate([np.ravel(vals[0]), np.ravel(vals[1]), vals[2]])
        lam, P = (np.asarray(x, float) for x in duals[0])
        mu, Q = (np.asarray(x, float) for x in duals[1])
        xc = project_soc_rows(np.column_stack([np.ravel(lam), -np.reshape(P, (op.j, op.d))]))
        xd = project_soc_rows(np.column_stack([np.ravel(mu), -np.reshape(Q, (op.l, op.d))]))
        cw, rc, dw, rd = op.support(v[2:])
        primal = float(v[0] + v[1] - 0.5 * v @ v)
        dual = op.objective(xc, xd)
        viol = max(0.0, float(np.max(v[0] + cw + rc)), float(np.max(v[1] - dw + rd)))
        norm_v = float(np.linalg.norm(v))
        # the data are normalised by the operator (alpha): the gap is measured against that unit scale
        cert = {"primal": primal, "dual": dual, "duality_gap": dual - primal, "max_violation": viol, "gap_scale": 1.0,
                "v_D_norm": norm_v, "hull_residual": float(np.linalg.norm(op.b - op.forward(xc, xd)))}
        info = {"v_D": v, "alpha": op.alpha}
        status = _certified_status(status, cert)
        branch, mc, md = op.test28(v)
        if branch:
            wu, bu = op.hyperplane(v, branch)
            info["orientation"] = branch
            cert.update(certified_margin_c=mc * op.alpha, certified_margin_d=md * op.alpha)
            return Solution(w=wu, b=bu, status=status, certificate=cert, dual={"x_c": xc, "x_d": xd}, info=info)
        if 3.0 * norm_v <= NONSEPARABLE_TOL:
            status = "infeasible"
            cert["separability_radius_upper"] = 3.0 * norm_v * op.alpha
        else:  # v_D is not ~0 but does not certify a separator: the solve was not accurate enough
            status = "optimal_inaccurate"
        return Solution(w=None, b=np.nan, status=status, certificate=cert, dual={"x_c": xc, "x_d": xd}, info=info)

    @staticmethod
    def constants(problem) -> dict:
        """``v_D`` (R2), ``δ_𝒜`` (R3, user units and normalised), ``||𝒜||``, ``||x_0 − x̄||`` for ``x_0 = 0`` and
        the iteration bounds of HV Theorem 2.4 (``K_δ = 54√2||𝒜||·||x_0 − x̄||/δ_𝒜² − 1`` for both readings of
        ``δ_𝒜``) and its sharper ``K_v = 6√2||𝒜||·||x_0 − x̄||/||v_D||² − 1`` (the same proof with Theorem 2.2's
        ``||v_D||``; ``K_v <= K_δ`` as ``δ_𝒜 <= 3||v_D||``, Theorem 2.3), each as ``max(1, ceil(K))``. HV Theorem 2.3
        does not say how a perturbation of the centres is measured; resolved here with both readings: one class
        moved, ``δ_𝒜 = M = dist(conv ∪C_i, conv ∪D_i)``, or both classes, ``M/2``; each satisfies Theorems
        2.3–2.4."""
        op = esp_operator(problem)
        ref = problem.reference()
        L = op.lipschitz()
        out = {"status": ref.status, "alpha": op.alpha, "L": L, "opnorm_A": float(np.sqrt(L))}
        M, w_M, m_M = hull_distance_R3(problem)
        out.update(delta=M * op.alpha, delta_both=0.5 * M * op.alpha, delta_normalized=M,
                   delta_both_normalized=0.5 * M, hull_distance=M * op.alpha, max_margin_w=w_M,
                   max_margin_b=None if w_M is None else -op.alpha * m_M)
        v = ref.info.get("v_D")
        if v is None:
            out.update(v_D=None, v_D_norm=np.nan, separable=False)
            if ref.status != "infeasible":
                out["message"] = ref.info.get("message", f"the reference has status {ref.status}")
            return out
        nv = float(np.linalg.norm(v))
        xbar = np.sqrt(float((ref.dual["x_c"] ** 2).sum() + (ref.dual["x_d"] ** 2).sum()))
        out.update(v_D=v, v_D_norm=nv, s_star=float(v[0]), t_star=float(v[1]), x_bar_norm=xbar,
                   separable=ref.status in ("optimal", "optimal_inaccurate") and ref.w is not None)
        out.update(iteration_bounds(np.sqrt(L), xbar, nv, M))
        return out


def hull_distance_R3(problem):
    """(R3) ``M = max s + t`` s.t. the cones of (2) and ``||w|| <= 1`` on the normalised data: ``M = dist(P, Q)``
    (0 when not separable). Returns ``(M, unit normal or None, offset m)``."""
    op = esp_operator(problem)
    s, t, w = cp.Variable(), cp.Variable(), cp.Variable(op.d)
    prob = cp.Problem(cp.Maximize(s + t), esp_cones(op, s, t, w) + [cp.norm(w) <= 1])
    status = solve_auxiliary(prob)
    wv, sv, tv = value_of(w), value_of(s), value_of(t)
    if status not in ("optimal", "optimal_inaccurate") or wv is None or sv is None or tv is None:
        return np.nan, None, np.nan
    M = max(0.0, float(sv + tv))
    if M <= 0 or np.linalg.norm(wv) == 0:
        return M, None, np.nan
    return M, wv / np.linalg.norm(wv), 0.5 * float(tv - sv)


def hull_distance_R4(problem) -> float:
    """(R4) ``M = min ||p − q||`` over ``p ∈ conv ∪C_i``, ``q ∈ conv ∪D_i`` (normalised data); equals (R3)."""
    op = esp_operator(problem)
    xc, xd = cp.Variable((op.j, op.d + 1)), cp.Variable((op.l, op.d + 1))

    def hull_point(centres, S, x):
        if op.diagonal:
            shaped = cp.sum(cp.multiply(S, x[:, 1:]), axis=0)
        else:
            shaped = sum(S[i] @ x[i, 1:] for i in range(S.shape[0]))
        return centres.T @ x[:, 0] + shaped
    cons = [cp.SOC(xc[:, 0], xc[:, 1:], axis=1), cp.SOC(xd[:, 0], xd[:, 1:], axis=1),
            cp.sum(xc[:, 0]) == 1, cp.sum(xd[:, 0]) == 1]
    prob = cp.Problem(cp.Minimize(cp.norm(hull_point(op.c, op.A, xc) - hull_point(op.dc, op.B, xd))), cons)
    status = solve_auxiliary(prob)
    return float(prob.value) if status in ("optimal", "optimal_inaccurate") and prob.value is not None else np.nan


# --------------------------------------------------------------------------------------------------------
# The perturbed SVM: dual (15) and primal (20)


def _certified_status(status, cert):
    """Clarabel sometimes stops at "almost solved" with tight settings; marginkit's own certificate decides."""
    return "optimal" if status == "optimal_inaccurate" and certified(cert) else status


def _perturbed_certificate(problem, a, w, t):
    scores = np.asarray(problem.X @ w).ravel()
    g = problem.dual_objective(a)
    f = perturbed_primal_value(w, scores, problem.y, problem.gamma, problem.mu, t)
    return g, f


class PerturbedSVMDualReference(CvxpyReference):
    """The perturbed dual (15), vectorised: ``max −½||Xᵀ(y∘a)||² + eᵀa − (μ/2)||a||²`` over
    ``Ω = {0 <= a <= γ, yᵀa = 0}`` (``u`` = the ``y = +1`` entries, ``v`` = the ``y = −1`` entries).

    The solver's ``a`` is projected onto ``Ω`` exactly, ``w = Xᵀ(y∘a)`` and the offset is Algorithm OFFSET (2.9).
    Certificate: ``primal`` = the problem's own objective (15) at ``a``, ``dual`` = the value of its Lagrange dual
    (20) at ``(w, t)`` (an upper bound), ``duality_gap = dual − primal >= 0``, ``max_violation = |yᵀa|``.

    **Scaling.** ``γ`` and ``μ`` are fixed, so ``c·X`` is not the same problem rescaled: for large data the
    curvature ``||X||²`` of (15) dwarfs ``μ`` and the solution lies near ``{Xᵀ(y∘a) = 0}`` with ``w* = O(1/c)``;
    an interior-point solver then cannot resolve the linear part (relative size ``1/c²``) and ``Xᵀ(y∘a)`` loses
    all its digits to cancellation. So when ``c = max||x_i||`` (a power of two, :func:`~.base.data_scale`) is above
    ``PRIMAL_ABOVE``, the model solved first is the primal (20) on ``X̃ = X/c`` with ``w = ŵ/c``:
    ``min ½||ŵ||²/c² + Σψ(y_i(x̃_iᵀŵ + t))`` (``y_i(x_iᵀw + t) = y_i(x̃_iᵀŵ + t)`` exactly), well posed at any large
    ``c``; ``a = −ψ'(θ)`` projected onto ``Ω`` is its dual point (Theorem 3.3) and the certificate is the same
    (weak duality holds for any ``(w, t)`` and any ``a ∈ Ω``; ``w`` is then ``ŵ/c``, not the cancelled
    ``Xᵀ(y∘a)``). The dual model (15) on the user's data is the other attempt (first for small data, where it is
    well conditioned: ``−½||w||²`` only shrinks)."""

    form = "PerturbedSVMDual"
    PRIMAL_ABOVE = 16.0

    def identity_scale(self):
        return {"c": 1.0, "primal": 0.0}

    def scalings(self):
        c = data_scale(self.problem.X)
        dual, primal = self.identity_scale(), {"c": c, "primal": 1.0}
        return [primal, dual] if c > self.PRIMAL_ABOVE else [dual, primal]

    def build(self, scale):
        p = self.problem
        if scale.get("primal"):
            c = scale["c"]
            w, t = cp.Variable(p.d), cp.Variable()
            theta = cp.multiply(p.y, (p.X / c) @ w + t)
            loss = cp.sum(cp.huber(cp.pos(1 - theta), p.mu * p.gamma)) / (2.0 * p.mu)
            return cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) / (c * c) + loss)), ("primal", w, t)
        a = cp.Variable(p.n)
        w = p.X.T @ cp.multiply(p.y, a)
        obj = -0.5 * cp.sum_squares(w) + cp.sum(a) - 0.5 * p.mu * cp.sum_squares(a)
        return cp.Problem(cp.Maximize(obj), [a >= 0, a <= p.gamma, p.y @ a == 0]), (a,)

    def extract(self, status, handles, scale):
        p = self.problem
        ok = status in ("optimal", "optimal_inaccurate", "user_limit")
        if handles[0] == "primal":
            wv, tv = (value_of(handles[1]), value_of(handles[2])) if ok else (None, None)
            if wv is None or tv is None:
                return no_point(status, f"the solver returned no point (status {status})")
            w, t = newton_polish(p, scale["c"], np.asarray(wv, float), float(tv))
            scores = np.asarray(p.X @ w).ravel()
            t = best_offset(scores, p.y, p.gamma, p.mu)
            a = project_svm_dual(-smoothed_hinge_grad(p.y * (scores + t), p.gamma, p.mu), p.y, p.gamma,
                                 method="sort")
        else:
            av = value_of(handles[0]) if ok else None
            if av is None:
                return no_point(status, f"the solver returned no point (status {status})")
            a = project_svm_dual(av, p.y, p.gamma, method="sort")
            w = np.asarray(p.X.T @ (p.y * a)).ravel()
            t = best_offset(np.asarray(p.X @ w).ravel(), p.y, p.gamma, p.mu)
        g, f = _perturbed_certificate(p, a, w, t)
        cert = {"primal": g, "dual": f, "duality_gap": f - g, "max_violation": abs(float(p.y @ a)),
                "violation_scale": p.gamma}
        return Solution(w=w, b=t, status=_certified_status(status, cert), certificate=cert, dual=svm_dual_parts(p, a))

    @staticmethod
    def constants(problem) -> dict:
        """``γ, μ, R = max||x_i||``, ``||H||`` with ``H = diag(y)X``, ``L = μ + ||H||²``, ``κ = L/μ`` and Theorem
        3.1's bound ``1 + nR²/μ`` (``1 + 128R²`` with the defaults), the V-FISTA contraction ``1 − 1/√κ``; at the
        optimum ``g* = g(r*)``, ``r*``, ``w*``, ``t*``, the properly classified points (``r*_i < γ``) and
        ``2g*/μ + ||r*||²`` (``||r_k − r*||² <= (1 − 1/√κ)^k`` times this from ``r_0 = 0``: Beck's V-FISTA rate,
        *First-Order Methods in Optimization* (2017) Thm 10.42, with the strong concavity of (15); HV state no SVM
        iteration bound). The constants of HV's data model (§3.3) need the model's parameters: see
        :func:`data_model_constants`."""
        H2 = spectral_norm_sq(problem.X)
        R = float(problem.row_norms().max())
        L = problem.mu + H2
        kappa = L / problem.mu
        out = {"gamma": problem.gamma, "mu": problem.mu, "n": problem.n, "R": R, "norm_H": float(np.sqrt(H2)),
               "L": L, "kappa": kappa, "kappa_bound": 1.0 + problem.n * R * R / problem.mu,
               "vfista_rate": 1.0 - 1.0 / np.sqrt(kappa)}
        ref = problem.reference()
        out["status"] = ref.status
        if ref.status in ("optimal", "optimal_inaccurate"):
            a = ref.dual["a"]
            g = float(ref.certificate["primal"])
            out.update(g_star=g, r_star=a, w_star=ref.w, t_star=ref.b,
                       properly_classified=np.flatnonzero(a < problem.gamma * (1 - 1e-9)),
                       initial_distance_sq_bound=2.0 * g / problem.mu + float(a @ a))
        else:
            out["message"] = ref.info.get("message", f"the reference has status {ref.status}")
        return out


POLISH_MAX_ENTRIES = 2_000_000


def newton_polish(p, c, w_hat, t, steps=30):
    """``(w, t)`` of the primal (20) from the solver's scaled point ``(ŵ, t)`` (``w = ŵ/c``), improved by Newton
    steps on ``F(ŵ, t) = ½||ŵ||²/c² + Σψ(y_i(x̃_iᵀŵ + t))``: ``F`` is piecewise quadratic (ψ is quadratic on
    ``1 − μγ < θ < 1``, affine below, 0 above), so its generalised Hessian ``diag(I/c², 0) + Σ_quad z̃_i z̃_iᵀ/μ``
    (``z̃_i = y_i(x̃_i, 1)``) gives the exact minimiser once the pieces settle; each step is kept only if it
    decreases ``F`` (Armijo backtracking), so the polish can never make the point worse. Dense data of moderate
    size only (the solver's point is returned as it is otherwise)."""
    if p.n * (p.d + 1) > POLISH_MAX_ENTRIES or not np.all(np.isfinite(w_hat)) or not np.isfinite(t):
        return w_hat / c, t
    X = p.X.toarray() if sp.issparse(p.X) else np.asarray(p.X, float)
    Z = p.y[:, None] * np.column_stack([X / c, np.ones(p.n)])
    reg = np.concatenate([np.full(p.d, 1.0 / (c * c)), [0.0]])
    knee = 1.0 - p.mu * p.gamma

    def value(v):
        return 0.5 * float(reg @ (v * v)) + float(smoothed_hinge(Z @ v, p.gamma, p.mu).sum())

    v = np.concatenate([w_hat, [t]])
    fv = value(v)
    for _ in range(steps):
        theta = Z @ v
        grad = reg * v + Z.T @ smoothed_hinge_grad(theta, p.gamma, p.mu)
        quad = (theta > knee) & (theta < 1.0)
        H = np.diag(reg) + (Z[quad].T @ Z[quad]) / p.mu
        step = -np.linalg.lstsq(H, grad, rcond=None)[0]
        slope = float(grad @ step)
        if not (np.all(np.isfinite(step)) and slope < 0):
            break
        size, improved = 1.0, False
        while size > 1e-8:
            cand = v + size * step
            fc = value(cand)
            if fc <= fv + 1e-4 * size * slope:
                v, fv, improved = cand, fc, True
                break
            size *= 0.5
        if not improved:
            break
    return v[:-1] / c, float(v[-1])


def svm_dual_parts(problem, a) -> dict:
    return {"a": a, "u": a[problem.y > 0], "v": a[problem.y < 0]}


class PerturbedSVMPrimalReference(CvxpyReference):
    """The perturbed primal (20): ``min ½||w||² + Σ ψ(y_i(x_iᵀw + t))`` with ``ψ(θ) = huber(pos(1 − θ), μγ)/(2μ)``.
    Certificate: ``dual`` = (15) at ``a = −ψ'(θ)`` (Theorem 3.3) projected onto ``Ω``."""

    form = "PerturbedSVMPrimal"

    def build(self, scale):
        p = self.problem
        w, t = cp.Variable(p.d), cp.Variable()
        theta = cp.multiply(p.y, p.X @ w + t)
        loss = cp.sum(cp.huber(cp.pos(1 - theta), p.mu * p.gamma)) / (2.0 * p.mu)
        return cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + loss)), (w, t)

    def extract(self, status, handles, scale):
        p = self.problem
        ok = status in ("optimal", "optimal_inaccurate", "user_limit")
        w, t = (value_of(handles[0]), value_of(handles[1])) if ok else (None, None)
        if w is None or t is None:
            return no_point(status, f"the solver returned no point (status {status})")
        t = float(t)
        theta = p.y * p.scores(w, t)
        a = project_svm_dual(-smoothed_hinge_grad(theta, p.gamma, p.mu), p.y, p.gamma, method="sort")
        f = p.objective(w, t)
        g = p.dual().dual_objective(a)
        cert = {"primal": f, "dual": g, "duality_gap": f - g, "max_violation": 0.0}
        return Solution(w=w, b=t, status=_certified_status(status, cert), certificate=cert, dual=svm_dual_parts(p, a))

    @staticmethod
    def constants(problem) -> dict:
        return problem.dual().constants()


def data_model_constants(sigma1: float, sigma2: float, rho: float, nu: float, n: int, Kbar: float | None = None):
    """The constants of the data model of HV §3.3: ``ξ`` (Lemma 3.4), ``K`` (Cor. 3.1),
    ``Δ_0 = (1 − 2K)γ`` (§3.5.1), ``K̄_min`` of (25) and ``Δ₂₆`` of (26) at ``K̄`` (default: midway between
    ``max(K̄_min, ½)`` and 1), with ``γ = 64/n``. ``valid`` says whether the theory applies ((22), ``K < ½``,
    ``K̄_min < 1``, ``σ_i ∈ [½, 1]``, ``0 <= ρ < σ``)."""
    sigma = min(sigma1, sigma2)
    gamma = 64.0 / n
    dL = 1.0 / (sigma - rho) - 1.0
    xi = float(np.sqrt((1 + dL) ** 2 + 32 * nu * (11 + 8 * dL)) - 1)
    req22 = (1 + xi + 64 * nu) / (sigma - rho)
    K = 3 * (1 + xi + 64 * nu) / (128 * (sigma - rho)) + 3 * rho * (1 + xi)
    Kbar_min = 3 * K ** 2 + 3 * rho * (1 + xi) * (4 / 3 + 2 * nu) + 3 * nu * (9 / 4 + 2 * xi) + 0.5
    lo = max(Kbar_min, 0.5)
    if Kbar is None:
        Kbar = 0.5 * (lo + 1.0)

    def delta26(kb):
        num = (kb - 3 * K ** 2) / 3 - rho * (1 + xi) * (4 / 3 + 2 * nu) - nu * (9 / 4 + 2 * xi) - 1 / 6
        return num / (4 * np.sqrt(2 * n) * (1 + 2 * rho / 3))
    valid = (0.5 <= sigma1 <= 1 and 0.5 <= sigma2 <= 1 and 0 <= rho < sigma and req22 <= 64 / 3 and K < 0.5
             and Kbar_min < 1)
    return {"delta_L34": dL, "xi": xi, "requirement_22": req22, "K": K, "Delta0": (1 - 2 * K) * gamma,
            "Kbar_min": Kbar_min, "Kbar": Kbar, "Delta26": float(delta26(Kbar)) if valid else np.nan,
            "Delta26_sup": float(delta26(1.0)) if valid else np.nan, "margin_guarantee": 1 - Kbar,
            "gamma": gamma, "valid": bool(valid)}
