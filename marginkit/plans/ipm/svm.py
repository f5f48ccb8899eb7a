"""The interior-point method for the soft-margin SVM, with or without the offset, with sample weights (``ipm``).

The iteration is :mod:`marginkit.plans.ipm.core` (Mehrotra's predictor–corrector on the QP of Ferris & Munson 2003,
§2, with the normal equations of their §3 in the feature space). This module holds the certificate, computed at every
iterate (an interior-point iteration costs ``d`` passes over ``X``; the certificate two more products):

* **primal**: the iterate's ``w`` with its best offset ``b̂ = argmin_b P(w, b)`` (Algorithm OFFSET of Hough &
  Vavasis, 2025, (2.9); ``b̂ = 0`` without a bias) and ``ξ = max(0, 1 − y∘(Xw + b̂))``: feasible by construction,
  ``P(w, b̂) >= P*``;
* **dual**: the multipliers clipped into the box, ``a = clip(α, 0, C_i)`` and, with a bias, put onto ``yᵀa = 0`` by
  scaling the heavier class down (the box still holds), so ``D(a) = 1ᵀa − ½||Xᵀ(y∘a)||² <= P*`` by weak duality.

``optimal`` iff the certified relative gap ``(P − D)/D <= tol`` (``D > 0``), the rule of the other SVM plans
(:mod:`marginkit.plans.svm_cd.gap`); then ``(P(w, b̂) − P*)/P* <= tol``, and ``D`` is dual-feasible, so the
gap-safe ball ``||w − w*|| <= √(2(P − D))`` of :mod:`marginkit.core.safe` holds for the returned ``w``.
"""
from __future__ import annotations

import numpy as np

from ...core.solution import Solution
from ...operators.hinge import best_offset, weighted_best_offset
from .core import InteriorPointPlan


class SoftMarginIPM(InteriorPointPlan):
    """Primal–dual interior-point method (Mehrotra predictor–corrector) for ``SoftMarginSVM``, ``bias`` True or
    False, with sample weights; ``X`` dense or CSR, an array-API array (torch, CuPy, array-api-strict) or a
    row-chunked dask array, with at most ``max_columns`` columns (see
    :mod:`marginkit.plans.ipm.core` for the normal equations, this module for the certificate)."""

    log_columns = ("objective", "dual_objective", "duality_gap")

    def box_of(self, form):
        return np.asarray(form.box, dtype=np.float64)

    def box_n_of(self, form):
        return form.box_n

    def offset(self, f) -> float:
        """Algorithm OFFSET (Hough & Vavasis 2025, (2.9)) for the scores ``f`` of the active samples, by the backend's
        search: on the host on NumPy and on one host copy of ``f`` on dask, in the data's namespace on an array-API
        device."""
        boxa, xp = self.boxa_host, self.xp
        weighted = not np.all(boxa == boxa[0])

        def host_offset(f):
            y = self.ya_host
            return weighted_best_offset(f, y, boxa) if weighted else best_offset(f, y, float(boxa[0]), 0.0)

        def device_offset(f):
            y = self.ya
            return weighted_best_offset(f, y, self.boxa, xp) if weighted else best_offset(f, y, float(boxa[0]), 0.0,
                                                                                          xp)
        return float(self.bk.search(host_offset, device_offset, f))

    def certify(self, st, previous=None) -> dict:
        ya, boxa, bk = self.ya, self.boxa, self.bk
        f = self.scores_of(st)
        b = self.offset(f) if self.bias else 0.0
        hinge = bk.vdot(boxa, bk.clip(1.0 - ya * (f + b), 0.0))   # Σ C_i max(0, 1 − y_i(x_iᵀw + b)), read below
        a = bk.clip(st.alpha, 0.0, boxa)
        if self.bias:
            a = self.balanced(a)
        v = bk.rmatvec(self.Xa, ya * a)
        ww, hinge, dual, vv, violation = bk.floats(bk.vdot(st.w, st.w), hinge, bk.sum(a), bk.vdot(v, v),
                                                   bk.vdot(ya, a) if self.bias else 0.0)
        primal = 0.5 * ww + hinge
        dual = dual - 0.5 * vv
        rel = (primal - dual) / dual if dual > 0 and np.isfinite(dual) else np.inf
        return {"primal": primal, "dual": dual, "duality_gap": primal - dual, "relative_gap": float(rel),
                "max_violation": abs(violation), "offset": b, "a": a}

    def stop(self, st, budget):
        if st.cert["relative_gap"] <= budget.tol:
            return "optimal"
        if st.stalled and budget.tol > 0:   # tol=0 runs the whole budget (the stalled steps keep the iterate)
            return "optimal_inaccurate"
        return None

    def measure(self, st) -> dict:
        c = st.cert
        out = {"objective": c["primal"], "dual_objective": c["dual"], "duality_gap": c["duality_gap"]}
        if self.bias:
            out["offset"] = c["offset"]
        return out

    def solution(self, st, status) -> Solution:
        c = st.cert
        cert = {k: c[k] for k in ("primal", "dual", "duality_gap", "relative_gap", "max_violation")}
        a = self.scatter(c["a"])
        info = {"mu": st.mu, "step": st.step}
        if st.stalled:
            info["stalled"] = st.stalled
        return Solution(w=self.bk.xd.asarray(st.w, copy=True), b=c["offset"], status=status, certificate=cert,
                        dual={"a": a}, info=info)
