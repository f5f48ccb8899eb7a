"""CVXPY reference of :class:`~marginkit.formulations.intersection.ProjectionOntoIntersection`."""
from __future__ import annotations

import cvxpy as cp
import numpy as np

from ..core.mirror import grad_half_sq_norm
from ..core.solution import Solution
from ..formulations.intersection import dual_value
from .base import CvxpyReference, no_point, value_of


class IntersectionReference(CvxpyReference):
    """``min D_ψ(θ, point) s.t. θ ∈ K_i`` (exact power cones for p ≠ 2). Certificate: the primal
    value, the dual ``D(λ)`` at the sets' multipliers (moved into ``dom σ`` first), their gap and the
    largest Euclidean distance of ``θ`` to a set."""

    form = "ProjectionOntoIntersection"

    def build(self, scale):
        P = self.problem
        th = cp.Variable(P.d)
        if P.p == 2.0:
            obj = 0.5 * cp.sum_squares(th - P.point)
        else:
            u0 = grad_half_sq_norm(P.point, P.p)
            obj = 0.5 * cp.square(cp.pnorm(th, P.p, approx=False)) - u0 @ th
        cons = [K.cvxpy_constraints(th) for K in P.sets]
        return cp.Problem(cp.Minimize(obj), [c for group in cons for c in group]), (th, cons)

    def extract(self, status, handles, scale):
        P = self.problem
        if status in ("infeasible", "unbounded"):
            # the sets' intersection is empty: no Farkas certificate is checked here, so the claim is the solver's
            return Solution(w=None, status="infeasible",
                            certificate={"primal": np.inf, "dual": np.inf, "duality_gap": np.nan,
                                         "max_violation": np.nan})
        th, cons = handles
        w = value_of(th)
        if w is None:
            return no_point(status, f"the solver returned no point (status {status})")
        lams = np.array([-K.dual_domain_projection(-K.multiplier(c, w)) for K, c in zip(P.sets, cons)])
        primal, dual = P.objective(w), dual_value(P, lams)
        cert = {"primal": primal, "dual": dual, "duality_gap": primal - dual, "gap_scale": 1.0,
                "max_violation": P.max_violation(w), "violation_scale": max(1.0, float(np.abs(P.point).max()))}
        return Solution(w=w, status=status, certificate=cert, dual={"lambda": lams})

    @staticmethod
    def constants(problem) -> dict:
        ref = problem.reference()
        out = {"status": ref.status, "p": problem.p, "q": problem.p / (problem.p - 1.0),
               "L": 1.0 / (problem.p - 1.0)}
        if ref.status in ("optimal", "optimal_inaccurate"):
            out.update(psi_star=ref.value, w=ref.w, lambda_star=ref.dual["lambda"])
        elif ref.status != "infeasible":
            out["message"] = ref.info.get("message", f"the reference has status {ref.status}")
        return out
