"""Projection of a point onto an intersection of simple convex sets: the general case of Raj & Bach's
eq. (2) with ``x_i = I``, ``Y_i = K_i`` (digest B1, special case 1), solved by the same plans as
:class:`~marginkit.MinNormFeasibility` (``dykstra`` is then Dykstra's algorithm in random order for p = 2).

``ProjectionOntoIntersection(point, sets, p=2.0)`` is ``min D_ψ(θ, point)`` with ``ψ = ½||·||_p²``
(``½||θ − point||²``, the Euclidean projection, for p = 2) subject to ``θ ∈ K_i`` for every set. The sets are
immutable and validated when built: :class:`HalfSpace` ``{aᵀθ <= b}``, :class:`Hyperplane` ``{aᵀθ = b}``,
:class:`Ball` ``{||θ − center||₂ <= radius}`` and :class:`Box` ``{lo <= θ <= hi}`` (infinite bounds allowed).
Each knows its Euclidean projection, its support function ``σ_K(w) = sup_{z∈K} ⟨z, w⟩`` (for the dual
``D(λ) = −Σσ_{K_i}(−λ_i) − ψ*(u0 + Σλ_i) + ψ*(u0)``), its CVXPY constraints and how to read its multiplier.

The CVXPY reference is registered by :func:`register_reference`, called when :mod:`marginkit.reference` is
imported (so that ``import marginkit`` does not import CVXPY).
"""
from __future__ import annotations

import numbers

import numpy as np

from ._validation import ProblemError, check_positive, check_vector
from .formulations import Problem
from .mirror import bregman_lp, grad_half_sq_norm, lp_norm

_PARALLEL_RTOL = 1e-9  # a multiplier within this relative distance of the dual cone counts as inside (rounding)


def _real(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ProblemError(f"{name} must be a finite real number; got {value!r}")
    return float(value)


def _scalar(dual_value) -> float:
    return float(np.asarray(dual_value, dtype=float).reshape(-1)[0])


class ConvexSet:
    """Base class of the simple sets (immutable after construction)."""

    _frozen = False
    dim: int = 0

    def __setattr__(self, key, value):
        if self._frozen:
            raise AttributeError(f"{type(self).__name__} is immutable; build a new set instead")
        object.__setattr__(self, key, value)

    def project(self, v: np.ndarray) -> np.ndarray:
        """Euclidean projection onto the set (a new array)."""
        raise NotImplementedError

    def distance(self, v: np.ndarray) -> float:
        return float(np.linalg.norm(v - self.project(v)))

    def dual_domain_projection(self, w: np.ndarray) -> np.ndarray:
        """Nearest point of ``dom σ_K`` (the cone where the support function is finite)."""
        return np.array(w, dtype=float, copy=True)

    def support(self, w: np.ndarray) -> float:
        """``σ_K(w) = sup_{z ∈ K} ⟨z, w⟩`` (``inf`` outside ``dom σ_K``)."""
        raise NotImplementedError

    def cvxpy_constraints(self, theta) -> list:
        raise NotImplementedError

    def multiplier(self, constraints, theta_value) -> np.ndarray:
        """``λ_K`` with ``∇ψ(θ*) = ∇ψ(point) + Σ_K λ_K`` from the CVXPY duals (``−λ_K`` is a normal vector)."""
        raise NotImplementedError


class _Affine(ConvexSet):
    """Shared by :class:`HalfSpace` and :class:`Hyperplane`: ``aᵀθ <= b`` or ``aᵀθ = b`` with ``a ≠ 0``."""

    def __init__(self, a, b):
        a = check_vector(a, "a")
        if a.size == 0 or not np.any(a != 0):
            raise ProblemError("a must be a nonzero vector (a = 0 gives the empty set or the whole space)")
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", _real(b, "b"))
        object.__setattr__(self, "dim", a.size)
        object.__setattr__(self, "_aa", float(a @ a))
        self._frozen = True

    def _coefficient(self, w) -> float:
        return float(self.a @ w) / self._aa

    def _support_on_line(self, w, nonneg: bool) -> float:
        t = self._coefficient(w)
        if nonneg:
            t = max(t, 0.0)
        if np.linalg.norm(w - t * self.a) > _PARALLEL_RTOL * max(float(np.linalg.norm(w)), 1e-300):
            return np.inf
        return t * self.b


class HalfSpace(_Affine):
    """``{θ : aᵀθ <= b}``."""

    def project(self, v):
        s = float(self.a @ v) - self.b
        return np.array(v, dtype=float, copy=True) if s <= 0 else v - (s / self._aa) * self.a

    def dual_domain_projection(self, w):
        return max(self._coefficient(w), 0.0) * self.a

    def support(self, w):
        return self._support_on_line(w, nonneg=True)

    def cvxpy_constraints(self, theta):
        return [self.a @ theta <= self.b]

    def multiplier(self, constraints, theta_value):
        return -max(_scalar(constraints[0].dual_value), 0.0) * self.a

    def __repr__(self):
        return f"HalfSpace(dim={self.dim}, b={self.b:g})"


class Hyperplane(_Affine):
    """``{θ : aᵀθ = b}``."""

    def project(self, v):
        return v - ((float(self.a @ v) - self.b) / self._aa) * self.a

    def dual_domain_projection(self, w):
        return self._coefficient(w) * self.a

    def support(self, w):
        return self._support_on_line(w, nonneg=False)

    def cvxpy_constraints(self, theta):
        return [self.a @ theta == self.b]

    def multiplier(self, constraints, theta_value):
        return -_scalar(constraints[0].dual_value) * self.a

    def __repr__(self):
        return f"Hyperplane(dim={self.dim}, b={self.b:g})"


class Ball(ConvexSet):
    """``{θ : ||θ − center||₂ <= radius}``, ``radius >= 0``."""

    def __init__(self, center, radius):
        c = check_vector(center, "center")
        if c.size == 0:
            raise ProblemError("center must be a non-empty vector")
        object.__setattr__(self, "center", c)
        object.__setattr__(self, "radius", check_positive(radius, "radius", strict=False))
        object.__setattr__(self, "dim", c.size)
        self._frozen = True

    def project(self, v):
        diff = v - self.center
        nd = float(np.linalg.norm(diff))
        if nd <= self.radius:
            return np.array(v, dtype=float, copy=True)
        return self.center + (self.radius / nd) * diff

    def support(self, w):
        return float(self.center @ w) + self.radius * float(np.linalg.norm(w))

    def cvxpy_constraints(self, theta):
        import cvxpy as cp
        return [cp.sum_squares(theta - self.center) <= self.radius ** 2]

    def multiplier(self, constraints, theta_value):
        return -2.0 * max(_scalar(constraints[0].dual_value), 0.0) * (theta_value - self.center)

    def __repr__(self):
        return f"Ball(dim={self.dim}, radius={self.radius:g})"


class Box(ConvexSet):
    """``{θ : lo <= θ <= hi}`` elementwise; ``-inf``/``inf`` bounds are allowed, a scalar bound is broadcast
    to the length of the other one."""

    def __init__(self, lo, hi):
        lo_a, hi_a = self._bound(lo, "lo"), self._bound(hi, "hi")
        if lo_a.ndim == 0 and hi_a.ndim == 0:
            raise ProblemError("lo and hi are both scalars: give at least one as a vector (the dimension)")
        try:
            lo_a, hi_a = np.broadcast_arrays(lo_a, hi_a)
        except ValueError:
            raise ProblemError(f"lo and hi must have the same length; got {lo_a.shape} and {hi_a.shape}") from None
        lo_a, hi_a = np.array(lo_a, dtype=float), np.array(hi_a, dtype=float)
        if lo_a.ndim != 1 or lo_a.size == 0:
            raise ProblemError(f"lo and hi must be 1-D and non-empty; got shape {lo_a.shape}")
        if np.any(lo_a == np.inf) or np.any(hi_a == -np.inf):
            raise ProblemError("lo must be < inf and hi must be > -inf (the box would be empty)")
        if np.any(lo_a > hi_a):
            j = int(np.flatnonzero(lo_a > hi_a)[0])
            raise ProblemError(f"lo must be <= hi; lo[{j}] = {lo_a[j]} > hi[{j}] = {hi_a[j]}")
        for arr in (lo_a, hi_a):
            arr.setflags(write=False)
        object.__setattr__(self, "lo", lo_a)
        object.__setattr__(self, "hi", hi_a)
        object.__setattr__(self, "dim", lo_a.size)
        self._frozen = True

    @staticmethod
    def _bound(v, name):
        try:
            a = np.array(v, dtype=float)
        except (TypeError, ValueError) as exc:
            raise ProblemError(f"{name} must be numeric; {exc}") from None
        if np.any(np.isnan(a)):
            raise ProblemError(f"{name} contains NaN")
        return a

    def project(self, v):
        return np.clip(v, self.lo, self.hi)

    def dual_domain_projection(self, w):
        w = np.array(w, dtype=float, copy=True)
        w[(self.hi == np.inf) & (w > 0)] = 0.0
        w[(self.lo == -np.inf) & (w < 0)] = 0.0
        return w

    def support(self, w):
        pos, neg = w > 0, w < 0
        if np.any(pos & (self.hi == np.inf)) or np.any(neg & (self.lo == -np.inf)):
            return np.inf
        return float(self.hi[pos] @ w[pos] + self.lo[neg] @ w[neg])

    def _finite_bounds(self):
        return np.flatnonzero(np.isfinite(self.lo)), np.flatnonzero(np.isfinite(self.hi))

    def cvxpy_constraints(self, theta):
        lo_idx, hi_idx = self._finite_bounds()
        cons = [theta[lo_idx] >= self.lo[lo_idx]] if lo_idx.size else []
        return cons + ([theta[hi_idx] <= self.hi[hi_idx]] if hi_idx.size else [])

    def multiplier(self, constraints, theta_value):
        lo_idx, hi_idx = self._finite_bounds()
        lam, k = np.zeros(self.dim), 0
        if lo_idx.size:
            lam[lo_idx] += np.clip(np.asarray(constraints[0].dual_value, float).ravel(), 0, None)
            k = 1
        if hi_idx.size:
            lam[hi_idx] -= np.clip(np.asarray(constraints[k].dual_value, float).ravel(), 0, None)
        return lam

    def __repr__(self):
        return f"Box(dim={self.dim})"


class ProjectionOntoIntersection(Problem):
    """``min D_ψ(θ, point)``, ``ψ = ½||·||_p²`` (the Euclidean projection ``½||θ − point||²`` for p = 2),
    subject to ``θ ∈ K_i`` for every set of ``sets``; methods ``cvxpy``, ``dykstra``, ``dykstra-accelerated``,
    ``mirror-descent`` (the last three for 1 < p <= 2)."""

    form = "ProjectionOntoIntersection"
    is_classification = False

    def __init__(self, point, sets, p: float = 2.0):
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
        object.__setattr__(self, "point", x0)
        object.__setattr__(self, "sets", tuple(sets))
        object.__setattr__(self, "p", p)
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

    def _assemble(self, sol) -> dict:
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


_REGISTERED = False


def register_reference():
    """Define and register the CVXPY reference of :class:`ProjectionOntoIntersection` (once)."""
    global _REGISTERED
    if _REGISTERED:
        return
    import cvxpy as cp

    from .reference import CvxpyReference
    from .reference import register_reference as _register
    from .runloop import Solution

    @_register
    class IntersectionReference(CvxpyReference):
        """``min D_ψ(θ, point) s.t. θ ∈ K_i`` (exact power cones for p ≠ 2). Certificate: the primal
        value, the dual ``D(λ)`` at the sets' multipliers (moved into ``dom σ`` first), their gap and the
        largest Euclidean distance of ``θ`` to a set."""

        form = "ProjectionOntoIntersection"

        def build(self):
            P = self.problem
            th = cp.Variable(P.d)
            if P.p == 2.0:
                obj = 0.5 * cp.sum_squares(th - P.point)
            else:
                u0 = grad_half_sq_norm(P.point, P.p)
                obj = 0.5 * cp.square(cp.pnorm(th, P.p, approx=False)) - u0 @ th
            cons = [K.cvxpy_constraints(th) for K in P.sets]
            self._vars = (th, cons)
            return cp.Problem(cp.Minimize(obj), [c for group in cons for c in group])

        def extract(self, status):
            P = self.problem
            if status in ("infeasible", "unbounded"):
                return Solution(w=None, status="infeasible",
                                certificate={"primal": np.inf, "dual": np.inf, "duality_gap": np.nan,
                                             "max_violation": np.nan})
            if status not in ("optimal", "optimal_inaccurate"):
                return Solution(w=None, status=status)
            th, cons = self._vars
            w = np.asarray(th.value, float)
            lams = np.array([-K.dual_domain_projection(-K.multiplier(c, w)) for K, c in zip(P.sets, cons)])
            primal, dual = P.objective(w), dual_value(P, lams)
            cert = {"primal": primal, "dual": dual, "duality_gap": primal - dual,
                    "max_violation": P.max_violation(w), "violation_scale": max(1.0, float(np.abs(P.point).max()))}
            return Solution(w=w, status=status, certificate=cert, dual={"lambda": lams})

        @staticmethod
        def constants(problem) -> dict:
            ref = problem.reference()
            out = {"status": ref.status, "p": problem.p, "q": problem.p / (problem.p - 1.0),
                   "L": 1.0 / (problem.p - 1.0)}
            if ref.status in ("optimal", "optimal_inaccurate"):
                out.update(psi_star=ref.value, w=ref.w, lambda_star=ref.dual["lambda"])
            return out

    _REGISTERED = True
