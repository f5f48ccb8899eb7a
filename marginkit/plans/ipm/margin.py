"""The interior-point method for the hard margin, with or without the offset (``ipm`` on ``MaxMargin``).

The iteration is :mod:`marginkit.plans.ipm.core` without the hinge slacks (``ξ``, ``η`` and the box are gone; the
normal equations keep their form with ``D = α/s``). The certificate is the one of every ``MaxMargin`` plan
(:mod:`marginkit.plans.common.margin`), in the units of the user's data:

* **lower bound**: the margin ``γ = min_i y_i(x_iᵀw + b̂)/||w||`` of the iterate's ``w`` with its best offset
  ``b̂ = −(min_{y=+1} x_iᵀw + max_{y=−1} x_iᵀw)/2`` (``b̂ = 0`` without a bias);
* **upper bound**: ``γ̄ <= ||Σ q_i y_i x_i||`` for ``q = α/1ᵀα`` (with a bias, ``α`` first scaled onto ``yᵀα = 0``,
  so each class carries ``½``): weak duality of the hard margin (Ji, Srebro & Telgarsky, ICML 2021, §2, eq. (2.1)),
  the least such value seen so far kept.

``optimal`` iff ``(γ̄ − γ)/γ̄ <= tol``. Non-separable data have no primal solution: the multipliers grow without
bound, ``q`` tends to a point of the signed hull near the origin and ``γ̄`` to 0. When ``γ̄ <= tol·R`` while the
iterate does not separate, the plan asks for the exact hull point of :func:`marginkit.core.hull.exact_proof` and
reports ``infeasible`` only with it (a cancellation at the level of rounding), ``infeasible_inaccurate`` otherwise,
as :class:`~marginkit.plans.common.margin.MarginPlan` does; the proof, which depends on the data only, is also asked
for as soon as ``γ̄ <= 10⁻³ R`` or the iteration stalls without a separator. A stalled iteration with a separator
ends ``optimal_inaccurate``; one without a separator or a proof runs out its budget (``user_limit``).
"""
from __future__ import annotations

import math

import numpy as np

from ...core.hull import exact_proof
from ...core.solution import Solution
from ..common.margin import data_cached
from .core import InteriorPointPlan

PROOF_EARLY = 1e-3   # γ̄/R below which the (cached, data-only) hull proof is asked for, whatever tol


class MaxMarginIPM(InteriorPointPlan):
    """Primal–dual interior-point method (Mehrotra predictor–corrector) for ``MaxMargin``, ``bias`` True or False;
    ``X`` dense or CSR, an array-API array or a row-chunked dask array, with at most ``max_columns`` columns."""

    default_tol = 1e-4   # the MaxMargin plans' relative margin gap (plans/common/margin.py)
    log_columns = ("margin", "margin_upper", "gap_bound")

    def box_of(self, form):
        return None

    def box_n_of(self, form):
        return None

    def certify(self, st, previous=None) -> dict:
        y, bk, xp = self.ya, self.bk, self.xp
        f = self.scores_of(st)
        pos = y > 0
        b = 0.0
        if self.bias and np.any(self.ya_host > 0) and np.any(self.ya_host < 0):
            # min over y = +1 and max over y = −1 of the scores, each the value of one selected entry
            low, high = bk.floats(xp.min(xp.where(pos, f, math.inf)), xp.max(xp.where(pos, -math.inf, f)))
            b = -0.5 * (low + high)
        nw = bk.norm(st.w)
        margin = bk.float(xp.min(y * (f + b))) / nw if nw > 0 else 0.0
        q = self.balanced(st.alpha) if self.bias else st.alpha
        mass = bk.float(bk.sum(q))
        upper = bk.norm(bk.rmatvec(self.Xa, y * q)) / mass if mass > 0 else np.inf
        upper = min(upper, previous["margin_upper"]) if previous else upper
        rel = (upper - margin) / upper if np.isfinite(upper) and upper > 0 else np.inf
        return {"margin_lower": margin, "margin_upper": upper, "gap_bound": upper - margin,
                "relative_gap_bound": rel, "relative_gap": rel, "offset": b, "norm_w": nw}

    def hull_proof(self):
        """``(q, ||Σ q_i y_i x_i||)`` when an exact hull point proves the data not separable, else None (computed once
        per problem)."""
        form = self.form
        # on the host copy of data of another library (the problem itself on NumPy/SciPy): the exact hull point is a
        # dense NumPy least-squares solve, asked for only when the data look non-separable
        host = form.to_host()
        cert = data_cached(form, "hull_proof", lambda: exact_proof(host.X, host.y, self.bias))
        return None if cert is None else cert[:2]

    def stop(self, st, budget):
        c = st.cert
        margin, upper = c["margin_lower"], c["margin_upper"]
        if margin > 0 and np.isfinite(upper) and upper > 0 and upper - margin <= budget.tol * upper:
            return "optimal"
        if margin <= 0:
            if upper <= budget.tol * self.R:
                return "infeasible" if self.hull_proof() is not None else "infeasible_inaccurate"
            if (upper <= PROOF_EARLY * self.R or st.stalled) and self.hull_proof() is not None:
                return "infeasible"
            return None
        return "optimal_inaccurate" if st.stalled and budget.tol > 0 else None   # tol=0: the whole budget

    def measure(self, st) -> dict:
        c = st.cert
        out = {"margin": c["margin_lower"], "margin_upper": c["margin_upper"], "gap_bound": c["gap_bound"],
               "norm_w": c["norm_w"]}
        if self.bias:
            out["offset"] = c["offset"]
        return out

    def solution(self, st, status) -> Solution:
        c = st.cert
        cert = {k: c[k] for k in ("margin_lower", "margin_upper", "gap_bound", "relative_gap_bound", "relative_gap")}
        if status == "infeasible":
            proof = self.hull_proof()
            if proof is not None:
                cert.update(hull_weights=proof[0], hull_distance=proof[1],
                            margin_upper=min(cert["margin_upper"], proof[1]))
        info = {"mu": st.mu, "step": st.step}
        if st.stalled:
            info["stalled"] = st.stalled
        # the hard margin's multipliers (w = Σ a_i y_i x_i at the optimum), yᵀa = 0 with a bias
        a = self.scatter(self.balanced(st.alpha) if self.bias else st.alpha)
        return Solution(w=self.bk.xd.asarray(st.w, copy=True), b=c["offset"], status=status, certificate=cert,
                        dual={"a": a}, info=info)
