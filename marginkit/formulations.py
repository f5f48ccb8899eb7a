"""Declarative, immutable problem classes (the contract's five problems).

A problem only *describes*: its data (validated once, here, at construction), its objective and its
options. Solving goes through :mod:`marginkit.reductions` (``solve`` = find a path in the reduction graph
to the form the method accepts, apply, run, invert) or through the certified CVXPY reference
(:mod:`marginkit.reference`).

Sign conventions of the papers (``y_i x_i`` versus ``-y_i x_i``) are converted inside the plans; the
public API is always in terms of ``X`` (rows ``x_i``) and ``y``.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._validation import (ProblemError, check_bool, check_kernel, check_labels, check_matrix,
                          check_positive, check_real_targets, check_samples, check_vector)
from .kernels import check_psd_gram, gram
from .linalg import row_norms


class Problem:
    """Base class: immutable after construction; ``solve``, ``compile``, ``reference``, ``constants``."""

    form: str = ""
    is_classification = True
    _frozen = False

    def _freeze(self):
        self._cache = {}
        self._frozen = True

    def __setattr__(self, key, value):
        if self._frozen and key != "_cache":
            raise AttributeError(f"{type(self).__name__} is immutable; build a new problem instead")
        object.__setattr__(self, key, value)

    # public API -------------------------------------------------------------------------------
    def solve(self, method: str = "cvxpy", **options):
        """Solve with ``method`` (see :func:`marginkit.methods`); returns a :class:`~marginkit.Result`."""
        from .reductions import solve
        return solve(self, method, **options)

    def compile(self, method: str = "cvxpy", **options):
        """``cvxpy.Problem`` for ``"cvxpy"``, otherwise a runnable, steppable iteration plan."""
        from .reductions import compile_method
        return compile_method(self, method, **options)

    def reference(self, solver: str | None = None):
        """The certified CVXPY solution (cached per solver)."""
        key = ("reference", solver)
        if key not in self._cache:
            from .reference import solve_reference
            self._cache[key] = solve_reference(self, solver=solver)
        return self._cache[key]

    def constants(self) -> dict:
        """Data-dependent constants used by the papers' bounds, computed through CVXPY."""
        if "constants" not in self._cache:
            from .reference import compute_constants
            self._cache["constants"] = compute_constants(self)
        return dict(self._cache["constants"])

    def cached_reference(self):
        """The reference if it was already computed (any solver), else None; never triggers a solve."""
        for key, val in self._cache.items():
            if isinstance(key, tuple) and key[0] == "reference":
                return val
        return None

    @property
    def shape(self):
        return self.X.shape


class _LabelledData(Problem):
    def _set_data(self, X, y, labels="binary"):
        X = check_samples(X, "X")
        if labels == "binary":
            y, classes = check_labels(y, X.shape[0], "y")
        else:
            y, classes = check_real_targets(y, X.shape[0], "y"), None
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "classes_", classes)

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    @property
    def sparse(self) -> bool:
        return sp.issparse(self.X)

    def row_norms(self) -> np.ndarray:
        if "row_norms" not in self._cache:
            self._cache["row_norms"] = row_norms(self.X)
        return self._cache["row_norms"]

    def gram(self) -> np.ndarray:
        """Kernel Gram matrix on the training data (cached)."""
        if "gram" not in self._cache:
            self._cache["gram"] = gram(getattr(self, "kernel", None), getattr(self, "gamma", None), self.X)
        return self._cache["gram"]

    def scores(self, w, b=0.0) -> np.ndarray:
        return np.asarray(self.X @ w).ravel() + b

    def margin_of(self, w, b=0.0) -> float:
        """Normalised geometric margin ``min_i y_i(x_i^T w + b) / ||w||`` (0 at ``w = 0``)."""
        nw = float(np.linalg.norm(w))
        if nw == 0.0:
            return 0.0
        return float(np.min(self.y * self.scores(w, b)) / nw)

    def _set_kernel(self, kernel, gamma):
        kernel, gamma = check_kernel(kernel, gamma, self.X)
        object.__setattr__(self, "kernel", kernel)
        object.__setattr__(self, "gamma", gamma)
        if callable(kernel):
            K = gram(kernel, None, self.X)
            check_psd_gram(K, "kernel")


class MaxMargin(_LabelledData):
    """Hard-margin l2 separation ``min ½||w||² s.t. y_i(x_i^T w + b) >= 1``; max margin ``γ* = 1/||w*||``.

    Non-separable data are a valid problem: its reference has status ``infeasible`` with the dual
    point of the convex hull of ``{y_i x_i}`` as certificate.
    """

    form = "MaxMargin"

    def __init__(self, X, y, bias: bool = False, kernel=None, gamma=None):
        self._set_data(X, y)
        object.__setattr__(self, "bias", check_bool(bias, "bias"))
        self._set_kernel(kernel, gamma)
        self._freeze()

    def objective(self, w, b=0.0) -> float:
        return 0.5 * float(np.dot(w, w))

    def __repr__(self):
        k = f", kernel={self.kernel!r}" if self.kernel else ""
        return f"MaxMargin(n={self.n}, d={self.d}, bias={self.bias}{k})"


class MinNormFeasibility(_LabelledData):
    """``min D_ψ(w, w0)``, ``ψ = ½||·||_p²`` s.t. ``y_i x_i^T w >= 1`` (``"margin"``) or ``x_i^T w = y_i``
    (``"interpolation"``, real ``y``). Raj & Bach, eq. (2) with the special cases of their §3."""

    form = "MinNormFeasibility"

    def __init__(self, X, y, p: float = 2.0, constraint: str = "margin", w0=None):
        if constraint not in ("margin", "interpolation"):
            raise ProblemError(f"constraint must be 'margin' or 'interpolation'; got {constraint!r}")
        self._set_data(X, y, labels="binary" if constraint == "margin" else "real")
        p = check_positive(p, "p")
        if p <= 1:
            raise ProblemError(f"p must be > 1 (½||·||_p² is not strictly convex for p <= 1); got {p}")
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "constraint", constraint)
        object.__setattr__(self, "w0", None if w0 is None else check_vector(w0, "w0", size=self.d))
        self._freeze()

    @property
    def is_classification(self):
        return self.constraint == "margin"

    @property
    def q(self) -> float:
        return self.p / (self.p - 1.0)

    def objective(self, w, b=0.0) -> float:
        """``D_ψ(w, w0)`` with ``ψ = ½||·||_p²`` (``½||w||_p²`` when ``w0`` is None)."""
        from .mirror import bregman_lp
        return bregman_lp(np.asarray(w, float), self.w0, self.p)

    def __repr__(self):
        return f"MinNormFeasibility(n={self.n}, d={self.d}, p={self.p:g}, constraint={self.constraint!r})"


class SoftMarginSVM(_LabelledData):
    """``min ½||w||² + C Σ max(0, 1 − y_i(x_i^T w + b))``."""

    form = "SoftMarginSVM"

    def __init__(self, X, y, C: float = 1.0, bias: bool = True, kernel=None, gamma=None):
        self._set_data(X, y)
        object.__setattr__(self, "C", check_positive(C, "C"))
        object.__setattr__(self, "bias", check_bool(bias, "bias"))
        self._set_kernel(kernel, gamma)
        self._freeze()

    def objective(self, w, b=0.0) -> float:
        hinge = np.maximum(0.0, 1.0 - self.y * self.scores(w, b))
        return 0.5 * float(np.dot(w, w)) + self.C * float(hinge.sum())

    def kernel_objective(self, coef, b=0.0) -> float:
        """Objective for ``f = Σ coef_i k(x_i, ·) + b``: ``½ coefᵀK coef + C Σ hinge``."""
        K = self.gram()
        f = K @ coef + b
        return 0.5 * float(coef @ f - b * coef.sum()) + self.C * float(np.maximum(0, 1 - self.y * f).sum())

    def __repr__(self):
        return f"SoftMarginSVM(n={self.n}, d={self.d}, C={self.C:g}, bias={self.bias})"


class PerturbedSVMDual(_LabelledData):
    """The μ-strongly concave perturbed SVM dual (15) of Hough & Vavasis.

    ``max_{(u,v) ∈ Ω} −½||Cᵀu − Dᵀv||² + eᵀu + eᵀv − (μ/2)(||u||² + ||v||²)``,
    ``Ω = {eᵀu = eᵀv, 0 <= u, v <= γ}``, with ``c``-points the class ``+1`` rows and ``d``-points the
    class ``−1`` rows; defaults ``γ = 64/n``, ``μ = n/128`` (paper §3.4). ``gamma`` here is the
    misclassification penalty (the usual C), not a kernel width.
    """

    form = "PerturbedSVMDual"

    def __init__(self, X, y, gamma=None, mu=None):
        self._set_data(X, y)
        n = self.n
        object.__setattr__(self, "gamma", 64.0 / n if gamma is None else check_positive(gamma, "gamma"))
        object.__setattr__(self, "mu", n / 128.0 if mu is None else check_positive(mu, "mu"))
        self._freeze()

    def dual_objective(self, z) -> float:
        """``g(z)`` of (15) for ``z = (u, v)`` stacked in the order of the rows of X (``u`` on y=+1)."""
        w = np.asarray(self.X.T @ (self.y * z)).ravel()
        return float(-0.5 * w @ w + z.sum() - 0.5 * self.mu * z @ z)

    def primal(self):
        """The perturbed primal (20): ``min_{w,t} ½||w||² + Σ ψ(y_i(x_i^T w + t))`` with the Huber-smoothed
        hinge ψ of (19)."""
        from .svm_forms import PerturbedSVMPrimal
        return PerturbedSVMPrimal(self)

    def _assemble(self, sol) -> dict:
        """Result fields: the classifier ``(w, b)``, ``value`` = the dual objective (15) at the returned ``a``
        (recomputed), the margin of ``(w, b)`` and, in ``info``, the primal value (20) at ``(w, b)``."""
        out = {"classes_": self.classes_, "info": dict(sol.info)}
        a = sol.dual.get("a")
        out["value"] = self.dual_objective(a) if a is not None else np.nan
        if sol.w is None:
            return {**out, "w": None, "b": np.nan, "margin": np.nan}
        w, b = np.asarray(sol.w, float), float(sol.b)
        out.update(w=w, b=b, margin=self.margin_of(w, b))
        out["info"]["primal_value"] = self.primal().objective(w, b)
        return out

    def __repr__(self):
        return f"PerturbedSVMDual(n={self.n}, d={self.d}, gamma={self.gamma:g}, mu={self.mu:g})"


def _check_ellipsoids(centers, shapes, cname, sname, d=None):
    C = check_matrix(centers, cname, allow_sparse=False)
    k, dim = C.shape
    if k == 0:
        raise ProblemError(f"{cname} is empty: each class needs at least one ellipsoid")
    if d is not None and dim != d:
        raise ProblemError(f"{cname} has dimension {dim} but the other class has dimension {d}")
    try:
        S = np.array(shapes, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as exc:
        raise ProblemError(f"{sname} must be numeric; {exc}") from None
    if S.ndim == 2:
        if S.shape != (k, dim):
            raise ProblemError(f"{sname} (diagonal shapes) must have shape {(k, dim)}; got {S.shape}")
    elif S.ndim == 3:
        if S.shape[1] != S.shape[2]:
            raise ProblemError(f"{sname} must hold square (d, d) matrices; got {S.shape[1:]} ")
        if S.shape != (k, dim, dim):
            raise ProblemError(f"{sname} must have shape {(k, dim, dim)}; got {S.shape}")
    else:
        raise ProblemError(f"{sname} must be (k, d, d) dense or (k, d) diagonal; got shape {S.shape}")
    if not np.all(np.isfinite(S)):
        raise ProblemError(f"{sname} contains NaN or inf")
    S.setflags(write=False)
    return C, S


class EllipsoidSeparation(Problem):
    """Strictly separate ellipsoids ``c_i + A_i·B`` from ``d_i + B_i·B`` by a hyperplane (an SOCP).

    Shapes are dense ``(k, d, d)`` or diagonal ``(k, d)``; singular shapes are valid (flat ellipsoids,
    points). The result's ``wᵀz + b`` is negative on every C-ellipsoid and positive on every D-ellipsoid.
    """

    form = "EllipsoidSeparation"
    is_classification = False

    def __init__(self, centers_c, shapes_c, centers_d, shapes_d):
        Cc, Sc = _check_ellipsoids(centers_c, shapes_c, "centers_c", "shapes_c")
        Cd, Sd = _check_ellipsoids(centers_d, shapes_d, "centers_d", "shapes_d", d=Cc.shape[1])
        if (Sc.ndim == 2) != (Sd.ndim == 2):
            raise ProblemError("shapes_c and shapes_d must both be dense (k, d, d) or both diagonal (k, d)")
        object.__setattr__(self, "centers_c", Cc)
        object.__setattr__(self, "shapes_c", Sc)
        object.__setattr__(self, "centers_d", Cd)
        object.__setattr__(self, "shapes_d", Sd)
        object.__setattr__(self, "diagonal", Sc.ndim == 2)
        self._freeze()

    @property
    def d(self) -> int:
        return self.centers_c.shape[1]

    @property
    def shape(self):
        return (self.centers_c.shape[0], self.centers_d.shape[0], self.d)

    def support_values(self, w):
        """``(max over each C_i of wᵀz, min over each D_i of wᵀz)`` by Lemma 2.1."""
        w = np.asarray(w, float)
        if self.diagonal:
            rc = np.linalg.norm(self.shapes_c * w, axis=1)
            rd = np.linalg.norm(self.shapes_d * w, axis=1)
        else:
            rc = np.linalg.norm(np.einsum("kij,i->kj", self.shapes_c, w), axis=1)
            rd = np.linalg.norm(np.einsum("kij,i->kj", self.shapes_d, w), axis=1)
        return self.centers_c @ w + rc, self.centers_d @ w - rd

    def separates(self, w, b):
        """Boolean arrays: which C- and D-ellipsoids lie strictly on their side of ``wᵀz + b = 0``."""
        hi_c, lo_d = self.support_values(w)
        return hi_c + b < 0, lo_d + b > 0

    def _assemble(self, sol) -> dict:
        """Result fields recomputed on the user's data: which ellipsoids ``(w, b)`` separates (``info``), the
        certified margin ``min(−max_{C_i}(wᵀz + b), min_{D_i}(wᵀz + b))/||w||`` (0 without a hyperplane) and
        ``value`` = ``f(x) = ½||𝒜x − b||²`` of (5) at the returned dual point. A status ``optimal`` whose
        hyperplane does not separate every ellipsoid on the raw data is downgraded to ``optimal_inaccurate``."""
        from .ellipsoids import esp_operator
        info = dict(sol.info)
        out = {"classes_": None, "w": None, "b": np.nan, "margin": 0.0, "value": np.nan, "info": info}
        xc, xd = sol.dual.get("x_c"), sol.dual.get("x_d")
        if xc is not None and xd is not None:
            out["value"] = esp_operator(self).objective(xc, xd)
        if sol.w is None:
            info.update(separated_c=np.zeros(self.shape[0], bool), separated_d=np.zeros(self.shape[1], bool),
                        separates_all=False)
            return out
        w, b = np.asarray(sol.w, float), float(sol.b)
        hi_c, lo_d = self.support_values(w)
        sep_c, sep_d = hi_c + b < 0, lo_d + b > 0
        ok = bool(sep_c.all() and sep_d.all())
        info.update(separated_c=sep_c, separated_d=sep_d, separates_all=ok)
        nw = float(np.linalg.norm(w))
        out.update(w=w, b=b, margin=min(float(-(hi_c + b).max()), float((lo_d + b).min())) / nw if nw > 0 else 0.0)
        if sol.status == "optimal" and not ok:
            out["status"] = "optimal_inaccurate"
        return out

    def __repr__(self):
        j, l, d = self.shape
        return f"EllipsoidSeparation(j={j}, l={l}, d={d}, {'diagonal' if self.diagonal else 'dense'} shapes)"
