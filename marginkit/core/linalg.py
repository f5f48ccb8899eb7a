"""Linear-algebra helpers shared by the plans: products with the sign-folded data ``Z = diag(y) X``
without ever forming ``Z`` (no copy of ``X``; sparse stays sparse), and operator-norm estimates."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .errors import ProblemError


ROW_BLOCK = 8192  # rows per block of the sparse row norms (bounds their temporaries)


def row_norms(X, squared: bool = False) -> np.ndarray:
    """Euclidean norms of the rows of ``X`` without a temporary of the size of ``X`` (``X.multiply(X)`` would
    copy every nonzero: a CSR matrix is read in blocks of :data:`ROW_BLOCK` rows)."""
    if sp.issparse(X) and X.format == "csr":
        n = X.shape[0]
        sq = np.zeros(n)
        for r0 in range(0, n, ROW_BLOCK):
            r1 = min(n, r0 + ROW_BLOCK)
            p0, p1 = X.indptr[r0], X.indptr[r1]
            rows = np.repeat(np.arange(r1 - r0), np.diff(X.indptr[r0:r1 + 1]))
            sq[r0:r1] = np.bincount(rows, weights=np.square(X.data[p0:p1]), minlength=r1 - r0)
    elif sp.issparse(X):
        sq = np.asarray(X.multiply(X).sum(axis=1)).ravel()
    else:
        sq = np.einsum("ij,ij->i", X, X)
    return sq if squared else np.sqrt(sq)


def scaled_row_norms(X) -> np.ndarray:
    """:func:`row_norms` without overflow or underflow of the squares (rows of entries near 1e±200): the rows over their
    largest entry first, the norms scaled back."""
    data = X.data if sp.issparse(X) else np.asarray(X)
    with np.errstate(all="ignore"):
        big = float(np.max(np.abs(data))) if data.size else 0.0
    big = big if big > 0 and np.isfinite(big) else 1.0
    return big * row_norms(X / big)


class SignedData:
    """``Z = s * diag(y) X`` as an operator: ``Z @ w = s * y * (X @ w)``, ``Z.T @ q = s * X.T @ (y * q)``.

    ``sign=+1`` gives the AP/RB convention (rows ``y_i x_i``), ``sign=-1`` the JST convention
    (rows ``-y_i x_i``); ``scale`` divides every row (e.g. by ``max_i ||x_i||`` to meet ``||z_i|| <= 1``).
    ``backend`` (:mod:`marginkit.core.backend`, the problem's; required, since that module imports this one) says
    where ``X`` lives and computes the products there: ``matvec`` returns a vector of its n-side, ``rmatvec`` one of
    its d-side (the same library, except NumPy d-vectors for a dask ``X``).
    """

    def __init__(self, X, y, sign: float = 1.0, scale: float = 1.0, *, backend):
        self.X = X
        self.y = y
        self.n, self.d = X.shape
        self.coef = sign / scale
        self._yc = self.coef * y
        self.sparse = sp.issparse(X)
        self._XT = X.T  # a view (CSC for CSR input), no copy
        self.backend = backend
        self._yc = backend.persist(self._yc)

    def matvec(self, w: np.ndarray) -> np.ndarray:
        bk = self.backend
        return bk.persist(self._yc * bk.matvec(self.X, w))

    def rmatvec(self, q: np.ndarray) -> np.ndarray:
        return self.backend.rmatvec(self.X, self._yc * q, self._XT)

    def row(self, i: int) -> np.ndarray:
        bk = self.backend
        return bk.row(self.X, i) * bk.float(self._yc[i])


def _top_dense(dense) -> float:
    """The exact top eigenvalue of ``dense()``, rounded up by ``1e-12``; a matrix whose entries overflowed (data of a
    scale near 1e300: LAPACK then does not converge) is the user's data beyond double precision, said so."""
    A = dense()
    try:
        return float(np.linalg.eigvalsh(A)[-1]) * (1 + 1e-12)
    except np.linalg.LinAlgError:
        big = float(np.max(np.abs(A))) if np.size(A) else 0.0
        raise ProblemError(f"X: the scale of the data is beyond double precision (a Gram/Hessian entry of {big:g} "
                           "overflows its eigenvalue solve); rescale X (a common factor leaves the separating "
                           "directions unchanged)") from None


def largest_eigenvalue(op, size: int, *, dense=None, exact_below: int = 0, tol: float = 1e-6,
                       inflation: float = 1e-5, residual: bool = False, seed: int = 0) -> float:
    """The one largest-eigenvalue helper: an upper bound on ``λ_max`` of a symmetric PSD operator, for steps
    ``1/L`` that must stay admissible.

    ``op`` is a symmetric array or a ``LinearOperator`` of shape ``(size, size)``; ``dense()`` (optional) returns it
    as an array. Up to ``exact_below`` rows (or when Lanczos does not converge) the exact top eigenvalue of
    ``dense()`` is returned, rounded up by ``1e-12``. Beyond, ARPACK's Lanczos (``eigsh``, tolerance ``tol``, a
    seeded start) gives a Ritz value θ; ``residual=True`` adds the Ritz residual ``||Au − θu||`` (an eigenvalue lies
    within it of θ), and the result is inflated by the relative margin ``inflation``."""
    if dense is None and not isinstance(op, spla.LinearOperator):
        def dense():
            return op.toarray() if sp.issparse(op) else np.asarray(op)
    if size <= max(exact_below, 2) and dense is not None:
        return _top_dense(dense)
    v0 = np.random.default_rng(seed).standard_normal(size)
    try:
        vals, vecs = spla.eigsh(op, k=1, which="LA", v0=v0, tol=tol)
    except spla.ArpackNoConvergence:
        if dense is None:
            raise
        return _top_dense(dense)
    theta = float(vals[0])
    if residual:
        u = vecs[:, 0] / np.linalg.norm(vecs[:, 0])
        theta += float(np.linalg.norm(op @ u - theta * u))
    return theta * (1.0 + inflation)


def spectral_norm_sq(X, tol: float = 1e-6, seed: int = 0) -> float:
    """``||X||_2^2`` (largest eigenvalue of ``X^T X``) without forming ``X^T X`` or ``X X^T`` beyond 500 columns
    and 500 rows (then Lanczos on the implicit product, inflated by ``10 tol``: the step ``1/L`` stays safe)."""
    n, d = X.shape

    def small(G):
        return G.toarray() if sp.issparse(G) else G
    if d <= 500:  # the d×d Gram matrix is small: exact eigenvalue (also avoids eigsh's k < d limit)
        G = small(X.T @ X)
        return largest_eigenvalue(G, d, dense=lambda: G, exact_below=d)
    if n <= 500:
        G = small(X @ X.T)
        return largest_eigenvalue(G, n, dense=lambda: G, exact_below=n)
    op = spla.LinearOperator((d, d), matvec=lambda v: np.asarray(X.T @ (X @ v)).ravel(), dtype=float)
    return largest_eigenvalue(op, d, tol=tol, inflation=10 * tol, seed=seed)
