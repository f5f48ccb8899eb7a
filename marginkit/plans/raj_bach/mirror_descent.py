"""Stochastic mirror descent (``mirror-descent``), the primal baseline of Raj & Bach (AISTATS 2021), §2.5 and §3,
over the constraint systems and the certificate of :class:`~.coordinate_ascent.DualCoordinatePlan`."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ...core.params import Interval, Options
from ...core.validation import ProblemError
from ..common.numba_rows import COMPILED
from .coordinate_ascent import DualCoordinatePlan
from .epochs import PERCEPTRON, SMD

__all__ = ["StochasticMirrorDescent"]


class StochasticMirrorDescent(DualCoordinatePlan):
    """Stochastic mirror descent on ``F(θ) = (1/2n) Σ_i d(a_iᵀθ, Y_i)²`` (RB eq. 9), the primal baseline::

        ∇ψ(θ_t) = ∇ψ(θ_{t−1}) − γ a_i (m − Π_{Y_i}(m)),   m = a_iᵀθ_{t−1}

    **Sign typo** (resolved): RB eq. (10) prints ``− γ x_i(Π(m) − m)``, which is gradient *ascent*; the descent
    step above is the correct one. For margins it is SGD on the squared hinge ``½(1 − a_iᵀθ)_+²``
    (``u ← u + γ(1 − m)_+ a_i``), for interpolation on least squares; with ``step="per-sample"`` (``γ = 1/L_i``)
    the interpolation iterates equal those of ``dykstra`` for the same indices (RB Lemma 2). ``step="max"``
    (default) is Theorem 1's ``γ = μ / sup_i ||x_i||²_{2→*} = 1/L_max``; a positive number sets γ. The last
    iterate is returned (RB's experiments: "non-averaged SGD, which works much better than averaged").

    ``loss="perceptron"`` (margins only) is the classical perceptron ``u ← u + a_i`` when ``a_iᵀθ <= 0``
    (mirror descent on ``max(0, −a_iᵀθ)`` with unit step; the ℓp perceptron of Grove et al. for p ≠ 2), the
    baseline of RB Fig. 1.

    The accumulated steps are a dual point (``λ_i += γ (Π_{Y_i}(m) − m)``, which stays in the dual domain),
    so the same certificate as for ``dykstra`` applies; it proves optimality only when the iterate happens to
    be the min-ψ point (interpolation). No gap-safe screening: for margins the iterates stop at a feasible point
    that is not ``θ*`` (:mod:`.constraint_screening`).
    """

    name = "mirror-descent"

    @dataclass(frozen=True)
    class Config:
        loss: str = field(default="squared-distance", metadata={
            "doc": "F of eq. (9), or the perceptron (margins only)"})
        step: str | float = field(default="max", metadata={
            "doc": 'γ = 1/L_max (Thm 1), 1/L_i ("per-sample") or a positive number'})
        compiled: bool | str = "auto"
        constraints: ClassVar[dict] = {
            "loss": [Options("squared-distance", "perceptron")],
            "step": [Options("max", "per-sample"), Interval(float, 0, None, closed="neither")],
            "compiled": COMPILED}

    def setup(self):
        super().setup()
        if self.loss == "perceptron" and not self.system.margin:
            raise ProblemError(f"{self.method}: loss='perceptron' applies to margin constraints only")
        nonzero = self.Linv > 0
        step = self.config.step   # ``self.step`` is the hook
        if self.loss == "perceptron":
            self.rule, self.step_sizes = PERCEPTRON, np.where(nonzero, 1.0, 0.0)
        elif step == "per-sample":
            self.rule, self.step_sizes = SMD, self.Linv
        elif step == "max":
            self.rule, self.step_sizes = SMD, np.where(nonzero, self.inv_L_max, 0.0)
        else:
            self.rule, self.step_sizes = SMD, np.where(nonzero, float(step), 0.0)

    def epoch(self, state, idx):
        lam, u = state.lam.copy(), state.u.copy()
        res = self.system.epoch(self.rule, self.step_sizes, idx, lam, u, self.q, self.resolved_backend)
        return self.advanced(state, t=state.t + len(idx), lam=lam, u=u, residual=res)
