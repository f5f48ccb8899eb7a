"""Linear-algebra helpers shared by the plans: products with the sign-folded data ``Z = diag(y) X``
without ever forming ``Z`` (no copy of ``X``; sparse stays sparse), and operator-norm estimates."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla


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


class SignedData:
    """``Z = s * diag(y) X`` as an operator: ``Z @ w = s * y * (X @ w)``, ``Z.T @ q = s * X.T @ (y * q)``.

    ``sign=+1`` gives the AP/RB convention (rows ``y_i x_i``), ``sign=-1`` the JST convention
    (rows ``-y_i x_i``); ``scale`` divides every row (e.g. by ``max_i ||x_i||`` to meet ``||z_i|| <= 1``).
    """

    def __init__(self, X, y, sign: float = 1.0, scale: float = 1.0):
        self.X = X
        self.y = y
        self.n, self.d = X.shape
        self.coef = sign / scale
        self._yc = self.coef * y
        self.sparse = sp.issparse(X)
        self._XT = X.T  # a view (CSC for CSR input), no copy

    def matvec(self, w: np.ndarray) -> np.ndarray:
        return self._yc * np.asarray(self.X @ w).ravel()

    def rmatvec(self, q: np.ndarray) -> np.ndarray:
        return np.asarray(self._XT @ (self._yc * q)).ravel()

    def row(self, i: int) -> np.ndarray:
        r = self.X[i]
        r = r.toarray().ravel() if self.sparse else np.asarray(r, dtype=float)
        return self._yc[i] * r


def spectral_norm_sq(X, tol: float = 1e-6, seed: int = 0) -> float:
    """``||X||_2^2`` (largest eigenvalue of ``X^T X``) without forming ``X^T X`` or ``X X^T``."""
    n, d = X.shape
    if d <= 500:  # the d×d Gram matrix is small: exact eigenvalue (also avoids eigsh's k < d limit)
        G = X.T @ X
        G = G.toarray() if sp.issparse(G) else G
        return float(np.linalg.eigvalsh(G)[-1]) * (1 + 1e-12)
    if n <= 500:
        G = X @ X.T
        G = G.toarray() if sp.issparse(G) else G
        return float(np.linalg.eigvalsh(G)[-1]) * (1 + 1e-12)
    op = spla.LinearOperator((d, d), matvec=lambda v: np.asarray(X.T @ (X @ v)).ravel(), dtype=float)
    v0 = np.random.default_rng(seed).standard_normal(d)
    val = spla.eigsh(op, k=1, which="LA", v0=v0, tol=tol, return_eigenvectors=False)[0]
    return float(val) * (1 + 10 * tol)  # safe side: a step 1/L must not exceed the true bound
