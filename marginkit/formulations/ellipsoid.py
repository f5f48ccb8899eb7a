"""Separation of two families of ellipsoids by a hyperplane (Hough & Vavasis's ESP, an SOCP)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..core.backend import NUMPY, ArrayAPIBackend, is_dask, is_foreign
from ..core.validation import ProblemError, check_foreign_matrix, check_foreign_values, check_matrix
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


_ARGS = ("centers_c", "shapes_c", "centers_d", "shapes_d")


def _kind(a) -> str:
    return f"{type(a).__module__}.{type(a).__name__}"


def _check_foreign_ellipsoids(args):
    """The four ellipsoid arrays of one array-API library (torch, CuPy, array-api-strict) on one device, validated
    where they live (issue 13): shapes and dtypes from the metadata, finiteness as one boolean per array (the
    centres through :func:`~marginkit.core.validation.check_foreign_matrix`, as for ``X``). Returns the arrays
    (integer data cast to float64, mixed floating dtypes to their common type; the user's arrays are not copied
    and never written) and the backend. A dask array or a mix of libraries or devices is a ``ProblemError``."""
    for name, a in zip(_ARGS, args):
        if is_dask(a):
            raise ProblemError(f"{name} is a dask array: ellipsoids are not row-chunked samples, the ESP plans need "
                               f"every ellipsoid at each step; compute it ({name} = {name}.compute()) or pass arrays "
                               "of one array-API library (NumPy, torch, CuPy)")
    lead = next(i for i, a in enumerate(args) if is_foreign(a))
    import array_api_compat as aac
    try:
        xp = aac.array_namespace(args[lead])
    except TypeError:
        raise ProblemError(f"{_ARGS[lead]} is a {_kind(args[lead])}, which is neither NumPy nor an array-API array: "
                           f"convert it with np.asarray({_ARGS[lead]})") from None
    dev = aac.device(args[lead])
    for name, a in zip(_ARGS, args):
        try:
            axp = aac.array_namespace(a) if is_foreign(a) else None
        except TypeError:
            axp = None
        if axp is not xp:
            raise ProblemError(f"{name} is a {_kind(a)} but {_ARGS[lead]} is a {_kind(args[lead])}: pass the four "
                               f"ellipsoid arrays in one library and on one device (move {name} there, for example "
                               f"xp.asarray({name}, device={_ARGS[lead]}.device))")
        if aac.device(a) != dev:
            raise ProblemError(f"{name} is on device {aac.device(a)} but {_ARGS[lead]} is on {dev}: move {name} to "
                               f"{_ARGS[lead]}'s device")
    out = [check_foreign_matrix(a, name) if i % 2 == 0 else _check_foreign_shapes(a, name, xp)
           for i, (name, a) in enumerate(zip(_ARGS, args))]
    Cc, Sc, Cd, Sd = out
    for (C, S, cname, sname) in ((Cc, Sc, "centers_c", "shapes_c"), (Cd, Sd, "centers_d", "shapes_d")):
        _check_shape_dims(tuple(C.shape), tuple(S.shape), cname, sname, d=Cc.shape[1] if cname == "centers_d" else None)
    dtype = xp.result_type(*(a.dtype for a in out))
    out = [a if a.dtype == dtype else xp.astype(a, dtype) for a in out]
    return out, ArrayAPIBackend(out[0])


def _check_foreign_shapes(S, name, xp):
    if len(S.shape) not in (2, 3):
        raise ProblemError(f"{name} must be (k, d, d) dense or (k, d) diagonal; got shape {tuple(S.shape)}")
    return check_foreign_values(S, name, xp)


def _check_shape_dims(cshape, sshape, cname, sname, d=None):
    """The shape checks of :func:`_check_ellipsoids` on metadata only (arrays of another library)."""
    k, dim = cshape
    if d is not None and dim != d:
        raise ProblemError(f"{cname} has dimension {dim} but the other class has dimension {d}")
    if len(sshape) == 2 and sshape != (k, dim):
        raise ProblemError(f"{sname} (diagonal shapes) must have shape {(k, dim)}; got {sshape}")
    if len(sshape) == 3:
        if sshape[1] != sshape[2]:
            raise ProblemError(f"{sname} must hold square (d, d) matrices; got {sshape[1:]} ")
        if sshape != (k, dim, dim):
            raise ProblemError(f"{sname} must have shape {(k, dim, dim)}; got {sshape}")


class EllipsoidSeparation(Problem):
    """Strictly separate ellipsoids ``c_i + A_i·B`` from ``d_i + B_i·B`` by a hyperplane (an SOCP).

    Shapes are dense ``(k, d, d)`` or diagonal ``(k, d)``; singular shapes are valid (flat ellipsoids,
    points). The result's ``wᵀz + b`` is negative on every C-ellipsoid and positive on every D-ellipsoid.

    The four arrays may be NumPy (copied to read-only float64) or of one other array-API library on one device
    (torch, CuPy, array-api-strict; issue 13): they are then kept where they live (``problem.backend``), the
    ``fista``/``pdhg`` plans compute there and return ``w`` there, and the CVXPY reference solves
    :meth:`to_host`'s NumPy copy.
    """

    form = "EllipsoidSeparation"
    is_classification = False
    backend = NUMPY   # where the ellipsoids live (core/backend); set per problem for other array libraries

    def __init__(self, centers_c: ArrayLike, shapes_c: ArrayLike, centers_d: ArrayLike,
                 shapes_d: ArrayLike) -> None:
        args = (centers_c, shapes_c, centers_d, shapes_d)
        if any(is_foreign(a) for a in args):   # torch, CuPy, array-api-strict (dask is refused by name)
            (Cc, Sc, Cd, Sd), backend = _check_foreign_ellipsoids(args)
            self._set(backend=backend)
        else:
            Cc, Sc = _check_ellipsoids(centers_c, shapes_c, "centers_c", "shapes_c")
            Cd, Sd = _check_ellipsoids(centers_d, shapes_d, "centers_d", "shapes_d", d=Cc.shape[1])
        if (Sc.ndim == 2) != (Sd.ndim == 2):
            raise ProblemError("shapes_c and shapes_d must both be dense (k, d, d) or both diagonal (k, d)")
        self._set(centers_c=Cc, shapes_c=Sc, centers_d=Cd, shapes_d=Sd, diagonal=Sc.ndim == 2)
        self._freeze()

    def to_host(self) -> "EllipsoidSeparation":
        """The same problem on NumPy copies of the ellipsoids (itself when they are NumPy): what the CVXPY reference
        solves when they live in another library (``Result.info["host_copy"]`` says so)."""
        return self.backend.host_problem(self, self._host_copy)

    def _host_copy(self) -> "EllipsoidSeparation":
        return self._cached("host_problem", lambda: EllipsoidSeparation(
            *(self.backend.host(a) for a in (self.centers_c, self.shapes_c, self.centers_d, self.shapes_d))))

    @property
    def d(self) -> int:
        return self.centers_c.shape[1]

    @property
    def shape(self):
        return (self.centers_c.shape[0], self.centers_d.shape[0], self.d)

    def support_values(self, w):
        """``(max over each C_i of wᵀz, min over each D_i of wᵀz)`` by Lemma 2.1 (NumPy vectors; on another
        array library they are computed where the ellipsoids live and only the two k-vectors come to the host)."""
        bk = self.backend
        w = bk.as_d(w)
        rc = bk.stack_rmatvec_norms(self.shapes_c, w)   # ||A_iᵀw||: the support radius of C_i in direction w
        rd = bk.stack_rmatvec_norms(self.shapes_d, w)
        return bk.host(self.centers_c @ w + rc), bk.host(self.centers_d @ w - rd)

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
        # a w of another array library stays there (the user's namespace); the checks below pull two k-vectors
        w, b = self.backend.result_vector(sol.w), float(sol.b)
        hi_c, lo_d = self.support_values(w)
        sep_c, sep_d = hi_c + b < 0, lo_d + b > 0
        ok = bool(sep_c.all() and sep_d.all())
        info.update(separated_c=sep_c, separated_d=sep_d, separates_all=ok)
        nw = self.backend.norm(w)
        out.update(w=w, b=b, margin=min(float(-(hi_c + b).max()), float((lo_d + b).min())) / nw if nw > 0 else 0.0)
        if sol.status == "optimal" and not ok:
            out["status"] = "optimal_inaccurate"
        return out

    def __repr__(self):
        j, m, d = self.shape
        return f"EllipsoidSeparation(j={j}, l={m}, d={d}, {'diagonal' if self.diagonal else 'dense'} shapes)"
