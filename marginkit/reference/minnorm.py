"""CVXPY reference of ``MinNormFeasibility``: ``min D_ψ(w, w0)``, ``ψ = ½||·||_p²``, under margin or interpolation
constraints (exact power cones for ``p ≠ 2``)."""
from __future__ import annotations

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ..core.mirror import grad_half_sq_norm, lp_norm
from ..core.solution import Solution
from .base import CvxpyReference, banded, data_scale, no_point, pow2, solve_auxiliary, value_of
from .certificates import HULL_TOL, hull_certificate


class MinNormReference(CvxpyReference):
    """``min D_ψ(w, w0)``, ``ψ = ½||·||_p²`` with exact power cones (``approx=False``) for ``p ≠ 2``.

    Dual of Raj & Bach, *Explicit regularization of stochastic gradient methods through duality* (AISTATS 2021),
    eq. (2) and §2, in the λ-scaling ``λ_i = −α_i/n`` of RB's dual variables ``α`` (the scaling RB's App. B.1 uses,
    calling it α; eq. (12) carries the extra ``1/n``): ``D(λ) = cᵀλ − ½||u0 + Aᵀλ||_q² + ½||u0||_q²`` with
    ``A = diag(y)X, c = 1, λ >= 0`` (margin) or ``A = X, c = y`` (interpolation), ``u0 = ∇ψ(w0)``.

    **Scaling.** ``c`` = the power of two nearest to ``max||x_i||``, ``t`` = the one nearest to ``max|y_i|`` for
    interpolation (1 for margins; each 1 when within a factor 16 of 1); the solver sees ``X̃ = X/c``, ``ỹ = y/t``
    and ``w̃0 = (c/t)·w0``. With ``w = (t/c)·u``: ``x_iᵀw = t·x̃_iᵀu`` so the constraints become
    ``y_i x̃_iᵀu >= 1`` / ``x̃_iᵀu = ỹ_i``, and as ψ is 2-homogeneous and ∇ψ 1-homogeneous,
    ``D_ψ(w, w0) = (t/c)²·D_ψ(u, w̃0)``. The scaled Lagrangian is ``(c/t)²`` times the user's when
    ``λ̃ = (c²/t)·λ``. Hence ``w = (t/c)·u`` and ``λ = (t/c²)·λ̃`` (exact: powers of two).

    Certificate (user's data): primal ``D_ψ(w, w0)``, ``D(λ)``, their gap and the violation, relative to 1 for
    margins and to ``max|y_i|`` for interpolation. ``infeasible`` only with a Farkas certificate marginkit checks
    itself: for margins the hull certificate (``λ = q ∈ Δ`` with ``||Σ q_i y_i x_i||`` below ``HULL_TOL·max||x_i||``),
    for interpolation ``λ`` with ``yᵀλ = 1`` and ``||X̃ᵀλ̃||`` below ``HULL_TOL``."""

    form = "MinNormFeasibility"

    def identity_scale(self):
        return {"c": 1.0, "t": 1.0}

    def scaling(self):
        p = self.problem
        t = banded(pow2(np.max(np.abs(p.y)))) if p.constraint == "interpolation" else 1.0
        return {"c": banded(data_scale(p.X)), "t": t}

    def build(self, scale):
        p, c, t = self.problem, scale["c"], scale["t"]
        X = p.X if c == 1.0 else p.X / c
        w = cp.Variable(p.d)
        psi = 0.5 * cp.sum_squares(w) if p.p == 2 else 0.5 * cp.square(cp.pnorm(w, p.p, approx=False))
        obj = psi
        if p.w0 is not None:
            obj = psi - grad_half_sq_norm(p.w0 * (c / t), p.p) @ w
        if p.constraint == "margin":
            con = cp.multiply(p.y, X @ w) >= 1
        else:
            con = X @ w == (p.y if t == 1.0 else p.y / t)
        return cp.Problem(cp.Minimize(obj), [con]), (w, con)

    def extract(self, status, handles, scale):
        p, c, t = self.problem, scale["c"], scale["t"]
        if status in ("infeasible", "unbounded"):
            return self._infeasible()
        w, con = handles
        u = value_of(w)
        if u is None:
            return no_point(status, f"the solver returned no point (status {status})")
        wv = u * (t / c)
        lam_s = value_of(con.dual_value)
        lam = np.zeros(p.n) if lam_s is None else lam_s * (t / (c * c))
        if p.constraint == "interpolation":
            lam = -lam
            A_lam = np.asarray(p.X.T @ lam).ravel()
            cvec = p.y
            viol = float(np.max(np.abs(p.scores(wv) - p.y)))
            vscale = float(np.max(np.abs(p.y))) or 1.0
        else:
            lam = np.clip(lam, 0, None)
            A_lam = np.asarray(p.X.T @ (lam * p.y)).ravel()
            cvec = np.ones(p.n)
            viol = float(max(0.0, np.max(1 - p.y * p.scores(wv))))
            vscale = 1.0
        primal = p.objective(wv)
        dual = dual_value_lp(p, lam, A_lam, cvec)
        cert = {"primal": primal, "dual": dual, "duality_gap": primal - dual, "max_violation": viol,
                "violation_scale": vscale}
        return Solution(w=wv, status=status, certificate=cert, dual={"lambda": lam})

    def _infeasible(self):
        cert = self.farkas()
        if not cert.get("certified"):
            return no_point("solver_error", "the solver reported the constraints infeasible, but "
                            + cert.get("message", f"the Farkas residual {cert['farkas_relative_residual']:.3g} "
                                                  f"(relative) does not confirm it"))
        status = "infeasible" if cert.get("proof", True) else "infeasible_inaccurate"
        return Solution(w=np.zeros(self.problem.d), status=status, certificate=cert)

    def farkas(self) -> dict:
        """Infeasibility certificate: ``λ`` with ``Aᵀλ ≈ 0`` and ``cᵀλ = 1`` (``λ >= 0`` for margins), computed on
        the scaled data; ``farkas_residual = ||Aᵀλ||`` in the user's units, ``farkas_relative_residual`` on the
        scaled data (rows of norm about 1), compared with ``HULL_TOL``."""
        p = self.problem
        base = {"primal": np.inf, "dual": np.inf, "duality_gap": np.nan, "max_violation": np.nan}
        if p.constraint == "margin":
            hull = hull_certificate(p)
            return {**base, "farkas_lambda": hull["dual_point"], "farkas_residual": hull["hull_distance"],
                    "farkas_relative_residual": hull.get("hull_distance_relative", np.nan),
                    "certified": hull["certified"], "proof": hull["proof"],
                    **({"message": hull["message"]} if "message" in hull else {})}
        c, t = data_scale(p.X), pow2(np.max(np.abs(p.y)))
        Xs, ys = p.X / c, p.y / t
        lam = cp.Variable(p.n)
        prob = cp.Problem(cp.Minimize(cp.norm(Xs.T @ lam, 2)), [ys @ lam == 1])
        status = solve_auxiliary(prob, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
        lv = value_of(lam)
        if lv is None:
            return {**base, "farkas_lambda": None, "farkas_residual": np.nan, "farkas_relative_residual": np.nan,
                    "certified": False, "message": f"the Farkas problem was not solved (status {status})"}
        rel = float(np.linalg.norm(np.asarray(Xs.T @ lv).ravel()))
        lam_user = lv / t                                    # yᵀλ = ỹᵀλ̃ = 1
        res = float(np.linalg.norm(np.asarray(p.X.T @ lam_user).ravel()))
        return {**base, "farkas_lambda": lam_user, "farkas_residual": res, "farkas_relative_residual": rel,
                "certified": bool(rel <= HULL_TOL)}

    @staticmethod
    def constants(problem) -> dict:
        """``p``, ``q``, ``R_q = max||x_i||_q`` and, at the optimum, ``ψ*``, ``w``, ``λ*``, ``L = R_q²/(p − 1)`` and
        (margins) the ℓp max margin ``1/||w*||_p``; without an optimum the reference's ``message``."""
        ref = problem.reference()
        X = problem.X
        rows = (np.asarray(X[i].todense()).ravel() if sp.issparse(X) else X[i] for i in range(problem.n))
        out = {"status": ref.status, "p": problem.p, "q": problem.q,
               "R_q": float(max(lp_norm(r, problem.q) for r in rows))}
        if ref.status in ("optimal", "optimal_inaccurate") and ref.w is not None:
            lam = ref.dual.get("lambda")
            out.update(psi_star=ref.value, w=ref.w, lambda_star=lam, L=out["R_q"] ** 2 / (problem.p - 1.0))
            if problem.constraint == "margin":
                nw = lp_norm(ref.w, problem.p)
                out["margin"] = 1.0 / nw if nw > 0 else np.inf  # the l_p max margin, 1/||θ*||_p
        elif ref.status != "infeasible":
            out["message"] = ref.info.get("message", f"the reference has status {ref.status}")
        elif problem.constraint == "margin":
            out["margin"] = 0.0
        return out


def dual_value_lp(p, lam, A_lam, c) -> float:
    """``D(λ) = cᵀλ − ½||u0 + Aᵀλ||_q² + ½||u0||_q²`` (Raj & Bach's dual in the λ-scaling ``λ = −α/n``)."""
    q = p.q
    if p.w0 is None:
        return float(c @ lam - 0.5 * lp_norm(A_lam, q) ** 2)
    u0 = grad_half_sq_norm(p.w0, p.p)
    return float(c @ lam - 0.5 * lp_norm(u0 + A_lam, q) ** 2 + 0.5 * lp_norm(u0, q) ** 2)
