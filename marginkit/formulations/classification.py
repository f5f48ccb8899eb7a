"""The classification problems: hard-margin :class:`MaxMargin`, :class:`MinNormFeasibility` in ℓp and the
:class:`SoftMarginSVM`."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.mirror import bregman_lp
from ..core.validation import ProblemError, check_bool, check_positive, check_sample_weight, check_vector, read_only
from .base import _LabelledData


if TYPE_CHECKING:
    from .base import ArrayLike, Data, Kernel


class MaxMargin(_LabelledData):
    """Hard-margin l2 separation ``min ½||w||² s.t. y_i(x_i^T w + b) >= 1``; max margin ``γ* = 1/||w*||``.

    Non-separable data are a valid problem: its reference has status ``infeasible`` with the dual
    point of the convex hull of ``{y_i x_i}`` as certificate.
    """

    form = "MaxMargin"
    agreement_metric = "margin_gap"

    def __init__(self, X: Data, y: ArrayLike, bias: bool = False, kernel: Kernel = None,
                 gamma: float | None = None) -> None:
        self._set_data(X, y)
        self._set(bias=check_bool(bias, "bias"))
        self._set_kernel(kernel, gamma)
        self._freeze()

    def objective(self, w, b=0.0) -> float:
        return 0.5 * self.backend.norm(w) ** 2

    def _value_fields(self, out, sol, f, nw):
        """The canonical scaling onto the constraint set ``min_i y_i f(x_i) = 1`` (the hard-margin solution), so
        ``value = ½||w||²`` compares with the reference; ``inf`` when the iterate does not separate."""
        if out["margin"] > 0:
            s = 1.0 / self.backend.float(self.backend.xp.min(self.y * f))
            out["w"] = None if out["w"] is None else out["w"] * s
            out["dual_coef"] = None if out["dual_coef"] is None else out["dual_coef"] * s
            out["b"] = out["b"] * s
            out["value"] = 0.5 * (nw * s) ** 2
        else:
            out["value"] = np.inf

    def __repr__(self):
        k = f", kernel={self.kernel!r}" if self.kernel else ""
        return f"MaxMargin(n={self.n}, d={self.d}, bias={self.bias}{k})"


class MinNormFeasibility(_LabelledData):
    """``min D_ψ(w, w0)``, ``ψ = ½||·||_p²`` s.t. ``y_i x_i^T w >= 1`` (``"margin"``) or ``x_i^T w = y_i``
    (``"interpolation"``, real ``y``). Raj & Bach, eq. (2) with the special cases of their §3."""

    form = "MinNormFeasibility"

    def __init__(self, X: Data, y: ArrayLike, p: float = 2.0, constraint: str = "margin",
                 w0: ArrayLike | None = None) -> None:
        if constraint not in ("margin", "interpolation"):
            raise ProblemError(f"constraint must be 'margin' or 'interpolation'; got {constraint!r}")
        self._set_data(X, y, labels="binary" if constraint == "margin" else "real")
        if not self.backend.supports_coordinate_methods:
            raise ProblemError(f"MinNormFeasibility runs on NumPy/SciPy or dask data only so far (its methods are "
                               f"coordinate methods); X is {self.backend.describe()}: convert it with np.asarray(X)")
        p = check_positive(p, "p")
        if p <= 1:
            raise ProblemError(f"p must be > 1 (½||·||_p² is not strictly convex for p <= 1); got {p}")
        self._set(p=p, constraint=constraint, w0=None if w0 is None else check_vector(w0, "w0", size=self.d))
        self._freeze()

    @property
    def is_classification(self):
        return self.constraint == "margin"

    @property
    def q(self) -> float:
        return self.p / (self.p - 1.0)

    def objective(self, w, b=0.0) -> float:
        """``D_ψ(w, w0)`` with ``ψ = ½||·||_p²`` (``½||w||_p²`` when ``w0`` is None)."""
        return bregman_lp(np.asarray(w, float), self.w0, self.p)

    def max_violation(self, w) -> float:
        """Largest violation of the margin (``1 − y_i x_iᵀw``) or interpolation (``|x_iᵀw − y_i|``) constraints."""
        r = self.scores(w)
        if self.constraint == "interpolation":
            return float(np.max(np.abs(r - self.y)))
        return max(0.0, self.backend.float(self.backend.xp.max(1.0 - self.y * r)))

    def _value_fields(self, out, sol, f, nw):
        out["value"] = self.objective(out["w"])
        out["info"] = {**sol.info, "max_violation": self.max_violation(out["w"])}

    def __repr__(self):
        return f"MinNormFeasibility(n={self.n}, d={self.d}, p={self.p:g}, constraint={self.constraint!r})"


class SoftMarginSVM(_LabelledData):
    """``min ½||w||² + Σ C_i max(0, 1 − y_i(x_i^T w + b))`` with ``C_i = C·s_i``.

    ``sample_weight`` (``s``, nonnegative, not all zero; None: all ones) scales each sample's C, as in
    scikit-learn's ``SVC.fit(sample_weight=...)``; the dual box becomes ``0 <= a_i <= C_i`` (:attr:`box`).
    """

    form = "SoftMarginSVM"

    def __init__(self, X: Data, y: ArrayLike, C: float = 1.0, bias: bool = True, kernel: Kernel = None,
                 gamma: float | None = None, sample_weight: ArrayLike | None = None) -> None:
        self._set_data(X, y)
        self._set(C=check_positive(C, "C"), bias=check_bool(bias, "bias"),
                  sample_weight=None if sample_weight is None else check_sample_weight(sample_weight, self.n))
        self._set_kernel(kernel, gamma)
        self._freeze()

    @property
    def box(self) -> np.ndarray:
        """The per-sample upper bounds ``C_i = C·s_i`` of the dual box (read-only, length n)."""
        return self._cached("box", lambda: read_only(np.full(self.n, self.C) if self.sample_weight is None
                                                     else self.C * self.sample_weight))

    @property
    def box_n(self):
        """:attr:`box` where ``X`` lives (the backend's n-side; the NumPy array itself on the host)."""
        # one C (no sample weights): dask makes it on the workers
        return self._cached("box_n", lambda: self.backend.constant_n(self.box, None if self.weighted else self.C))

    @property
    def weighted(self) -> bool:
        return self.sample_weight is not None

    def objective(self, w, b=0.0) -> float:
        bk = self.backend
        return 0.5 * bk.sq_norm(w) + bk.hinge_sum(self.box_n, 1.0 - self.y * self.scores(w, b))

    def _value_fields(self, out, sol, f, nw):
        coef = out["dual_coef"]
        out["value"] = self.kernel_objective(coef, out["b"]) if coef is not None else self.objective(out["w"], out["b"])

    def kernel_objective(self, coef, b=0.0) -> float:
        """Objective for ``f = Σ coef_i k(x_i, ·) + b``: ``½ coefᵀK coef + C Σ hinge``."""
        K = self.gram()
        f = K @ coef + b
        return 0.5 * float(coef @ f - b * coef.sum()) + float(self.box @ np.maximum(0, 1 - self.y * f))

    def __repr__(self):
        sw = ", sample_weight=..." if self.sample_weight is not None else ""
        return f"SoftMarginSVM(n={self.n}, d={self.d}, C={self.C:g}, bias={self.bias}{sw})"
