"""Separation of two families of ellipsoids by a hyperplane (Hough & Vavasis's ESP, an SOCP)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.validation import ProblemError, check_matrix
from ..operators.ellipsoids import esp_operator
from .base import Problem


if TYPE_CHECKING:
    from .base import ArrayLike


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

    def __init__(self, centers_c: ArrayLike, shapes_c: ArrayLike, centers_d: ArrayLike,
                 shapes_d: ArrayLike) -> None:
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

    def agrees(self, gaps, res, ref, tol) -> bool:
        """A separation problem agrees when it separates exactly when the reference certifies separability (an
        early-stopped separator is not an optimum of the SOCP, and need not be one)."""
        separable = ref.status in ("optimal", "optimal_inaccurate")
        return bool(res.info.get("separates_all", False)) == separable

    @classmethod
    def agreement_label(cls, tol: float) -> str:
        return "separator iff separable"

    def result_fields(self, sol) -> dict:
        """Result fields recomputed on the user's data: which ellipsoids ``(w, b)`` separates (``info``), the
        certified margin ``min(−max_{C_i}(wᵀz + b), min_{D_i}(wᵀz + b))/||w||`` (0 without a hyperplane) and
        ``value`` = ``f(x) = ½||𝒜x − b||²`` of (5) at the returned dual point. A status ``optimal`` whose
        hyperplane does not separate every ellipsoid on the raw data is downgraded to ``optimal_inaccurate``."""
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
