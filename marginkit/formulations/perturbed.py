"""Hough & Vavasis's perturbed SVM: the strongly concave dual (15) and its primal (20)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.validation import check_positive
from ..operators.hinge import smoothed_hinge
from .base import _LabelledData


if TYPE_CHECKING:
    from .base import ArrayLike, Data


class PerturbedSVMDual(_LabelledData):
    """The μ-strongly concave perturbed SVM dual (15) of Hough & Vavasis.

    ``max_{(u,v) ∈ Ω} −½||Cᵀu − Dᵀv||² + eᵀu + eᵀv − (μ/2)(||u||² + ||v||²)``,
    ``Ω = {eᵀu = eᵀv, 0 <= u, v <= γ}``, with ``c``-points the class ``+1`` rows and ``d``-points the
    class ``−1`` rows; defaults ``γ = 64/n``, ``μ = n/128`` (paper §3.4). ``gamma`` here is the
    misclassification penalty (the usual C), not a kernel width.
    """

    form = "PerturbedSVMDual"
    sense = "max"

    def __init__(self, X: Data, y: ArrayLike, gamma: float | None = None, mu: float | None = None) -> None:
        self._set_data(X, y)
        n = self.n
        self._set(gamma=64.0 / n if gamma is None else check_positive(gamma, "gamma"),
                  mu=n / 128.0 if mu is None else check_positive(mu, "mu"))
        self._freeze()

    def dual_objective(self, z) -> float:
        """``g(z)`` of (15) for ``z = (u, v)`` stacked in the order of the rows of X (``u`` on y=+1); ``z`` where X
        lives when X is not on the host (computed there)."""
        bk = self.backend
        w = bk.rmatvec(self.X, self.y * z)   # Cᵀu − Dᵀv
        return -0.5 * bk.sq_norm(w) + bk.float(bk.xp.sum(z)) - bk.scaled_sq_norm(z, 0.5 * self.mu)

    def primal(self):
        """The perturbed primal (20): ``min_{w,t} ½||w||² + Σ ψ(y_i(x_i^T w + t))`` with the Huber-smoothed
        hinge ψ of (19)."""
        return PerturbedSVMPrimal(self)

    def result_fields(self, sol) -> dict:
        """Result fields: the classifier ``(w, b)``, ``value`` = the dual objective (15) at the returned ``a``
        (recomputed), the margin of ``(w, b)`` and, in ``info``, the primal value (20) at ``(w, b)``."""
        out = {"classes_": self.classes_, "info": dict(sol.info)}
        a = sol.dual.get("a")
        out["value"] = self.dual_objective(a) if a is not None else np.nan
        if sol.w is None:
            return {**out, "w": None, "b": np.nan, "margin": np.nan}
        w, b = self.backend.result_vector(sol.w), float(sol.b)
        out.update(w=w, b=b, margin=self.margin_of(w, b))
        out["info"]["primal_value"] = self.primal().objective(w, b)
        return out

    def __repr__(self):
        return f"PerturbedSVMDual(n={self.n}, d={self.d}, gamma={self.gamma:g}, mu={self.mu:g})"


class PerturbedSVMPrimal(_LabelledData):
    """The perturbed primal (20): ``min_{w,b} ½||w||² + Σ_i ψ(y_i(x_iᵀw + b))`` with the smoothed hinge ψ of (19),
    the Lagrange dual of :class:`~marginkit.PerturbedSVMDual` (same ``gamma``, ``mu``; defaults ``64/n``, ``n/128``).

    Build it from data, ``PerturbedSVMPrimal(X, y, gamma=None, mu=None)``, or from a dual problem
    (``PerturbedSVMDual(...).primal()``, which shares its validated arrays)."""

    form = "PerturbedSVMPrimal"
    kernel = None
    bias = True

    def __init__(self, X: Data, y: ArrayLike | None = None, gamma: float | None = None,
                 mu: float | None = None) -> None:
        if not isinstance(X, PerturbedSVMDual):
            X = PerturbedSVMDual(X, y, gamma=gamma, mu=mu)
        self._set(**{key: getattr(X, key) for key in ("X", "y", "classes_", "gamma", "mu", "backend")}, _dual=X)
        self._freeze()

    def dual(self) -> PerturbedSVMDual:
        return self._dual

    def objective(self, w, b=0.0) -> float:
        bk = self.backend
        w = bk.as_d(w)
        theta = self.y * (self.scores(w) + float(b))   # (20) where X lives: ψ of (19) in the backend's namespace
        return 0.5 * bk.sq_norm(w) + bk.float(bk.xp.sum(smoothed_hinge(theta, self.gamma, self.mu, bk.xp)))

    def __repr__(self):
        return f"PerturbedSVMPrimal(n={self.n}, d={self.d}, gamma={self.gamma:g}, mu={self.mu:g})"
