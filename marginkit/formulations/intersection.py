"""Projection of a point onto an intersection of simple convex sets: the general case of Raj & Bach's
eq. (2) (*Explicit regularization of stochastic gradient methods through duality*, AISTATS 2021) with ``k = d``,
``x_i = I``, ``Y_i = K_i``, solved by the same plans as
:class:`~marginkit.MinNormFeasibility` (``dykstra`` is then Dykstra's algorithm in random order for p = 2).

``ProjectionOntoIntersection(point, sets, p=2.0)`` is ``min D_ψ(θ, point)`` with ``ψ = ½||·||_p²``
(``½||θ − point||²``, the Euclidean projection, for p = 2) subject to ``θ ∈ K_i`` for every set. The sets are
immutable and validated when built: :class:`HalfSpace` ``{aᵀθ <= b}``, :class:`Hyperplane` ``{aᵀθ = b}``,
:class:`Ball` ``{||θ − center||₂ <= radius}`` and :class:`Box` ``{lo <= θ <= hi}`` (infinite bounds allowed).
Each knows its Euclidean projection, its support function ``σ_K(w) = sup_{z∈K} ⟨z, w⟩`` (for the dual
``D(λ) = −Σσ_{K_i}(−λ_i) − ψ*(u0 + Σλ_i) + ψ*(u0)``), its CVXPY constraints and how to read its multiplier.

Its CVXPY reference lives in :mod:`marginkit.reference.intersection`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.mirror import bregman_lp, grad_half_sq_norm, lp_norm
from ..core.validation import ProblemError, check_positive, check_vector
from ..operators.sets import ConvexSet
from .base import Problem


if TYPE_CHECKING:
    from .base import ArrayLike, Sequence


class ProjectionOntoIntersection(Problem):
    """``min D_ψ(θ, point)``, ``ψ = ½||·||_p²`` (the Euclidean projection ``½||θ − point||²`` for p = 2),
    subject to ``θ ∈ K_i`` for every set of ``sets``; methods ``cvxpy``, ``dykstra``, ``dykstra-accelerated``,
    ``mirror-descent`` (the last three for 1 < p <= 2)."""

    form = "ProjectionOntoIntersection"
    is_classification = False

    def __init__(self, point: ArrayLike, sets: Sequence[ConvexSet], p: float = 2.0) -> None:
        x0 = check_vector(point, "point")
        if x0.size == 0:
            raise ProblemError("point is empty (dimension 0)")
        if isinstance(sets, ConvexSet) or not isinstance(sets, (list, tuple)):
            raise ProblemError(f"sets must be a list of HalfSpace, Hyperplane, Ball or Box; got {type(sets).__name__}")
        if len(sets) == 0:
            raise ProblemError("sets is empty: give at least one set")
        for k, K in enumerate(sets):
            if not isinstance(K, ConvexSet):
                raise ProblemError(f"sets[{k}] must be a HalfSpace, Hyperplane, Ball or Box; got {type(K).__name__}")
            if K.dim != x0.size:
                raise ProblemError(f"sets[{k}] has dimension {K.dim} but point has dimension {x0.size}")
        p = check_positive(p, "p")
        if p <= 1:
            raise ProblemError(f"p must be > 1 (½||·||_p² is not strictly convex for p <= 1); got {p}")
        self._set(point=x0, sets=tuple(sets), p=p)
        self._freeze()

    @property
    def d(self) -> int:
        return self.point.size

    @property
    def shape(self):
        return (len(self.sets), self.d)

    def objective(self, theta, b=0.0) -> float:
        """``D_ψ(θ, point)``."""
        theta = np.asarray(theta, float)
        if self.p == 2.0:
            diff = theta - self.point
            return 0.5 * float(diff @ diff)
        return bregman_lp(theta, self.point, self.p)

    def max_violation(self, theta) -> float:
        return max(K.distance(theta) for K in self.sets)

    def result_fields(self, sol) -> dict:
        if sol.w is None:
            return {"w": None, "value": np.nan, "margin": np.nan}
        w = np.asarray(sol.w, float)
        return {"w": w, "value": self.objective(w), "margin": np.nan,
                "info": {**sol.info, "max_violation": self.max_violation(w)}}

    def __repr__(self):
        return f"ProjectionOntoIntersection(d={self.d}, sets={len(self.sets)}, p={self.p:g})"


def dual_value(problem, lams) -> float:
    """``D(λ) = −Σσ_{K_i}(−λ_i) − ½||u0 + Σλ_i||_q² + ½||u0||_q²`` (``-inf`` outside the dual domain)."""
    q = problem.p / (problem.p - 1.0)
    u0 = grad_half_sq_norm(problem.point, problem.p)
    lin = -sum(K.support(-li) for K, li in zip(problem.sets, lams))
    return float(lin - 0.5 * lp_norm(u0 + np.sum(lams, axis=0), q) ** 2 + 0.5 * lp_norm(u0, q) ** 2)
