"""The simple convex sets of Raj & Bach's general case (eq. (2) of *Explicit regularization of stochastic gradient
methods through duality*, AISTATS 2021, with ``x_i = I`` and ``Y_i = K_i``): :class:`HalfSpace`, :class:`Hyperplane`,
:class:`Ball`, :class:`Box`. Each knows its Euclidean projection, its support function, its CVXPY constraints
(CVXPY imported only when they are built) and how to read its multiplier."""
from __future__ import annotations

import numbers

import numpy as np

from ..core.validation import ProblemError, check_positive, check_vector

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


