"""Kernel (Gram) matrices for the dual methods: ``None``/``"linear"``, ``"rbf"`` and user callables."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .linalg import row_norms
from .validation import ProblemError


def _dense(A):
    return A.toarray() if sp.issparse(A) else np.asarray(A, dtype=np.float64)


def gram(kernel, gamma, A, B=None) -> np.ndarray:
    """Gram matrix ``K[i, j] = k(a_i, b_j)``; ``B=None`` means ``B = A``."""
    if B is None:
        B = A
    if kernel is None or kernel == "linear":
        K = A @ B.T
        return _dense(K)
    if kernel == "rbf":
        Ad, Bd = _dense(A), _dense(B)
        sq = (np.einsum("ij,ij->i", Ad, Ad)[:, None] + np.einsum("ij,ij->i", Bd, Bd)[None, :]
              - 2.0 * Ad @ Bd.T)
        np.maximum(sq, 0.0, out=sq)
        return np.exp(-gamma * sq)
    try:
        K = np.asarray(kernel(A, B), dtype=np.float64)
    except Exception as exc:   # the user's callable failed: say so, naming it
        raise ProblemError(f"kernel callable failed on the data: {type(exc).__name__}: {exc}") from exc
    if K.shape != (A.shape[0], B.shape[0]):
        raise ProblemError(f"kernel callable returned shape {K.shape}; expected {(A.shape[0], B.shape[0])}")
    return K


def check_psd_gram(K: np.ndarray, name: str = "kernel") -> None:
    """A user kernel must give a finite, symmetric, positive semidefinite Gram matrix on the data."""
    if not np.all(np.isfinite(K)):
        raise ProblemError(f"{name} returned a Gram matrix with NaN or inf")
    scale = max(1.0, float(np.max(np.abs(K))))
    if not np.allclose(K, K.T, atol=1e-10 * scale):
        raise ProblemError(f"{name} returned a non-symmetric Gram matrix on X")
    lam_min = float(np.linalg.eigvalsh(0.5 * (K + K.T))[0])
    if lam_min < -1e-8 * scale * K.shape[0]:
        raise ProblemError(f"{name} is not positive semidefinite on X (smallest eigenvalue {lam_min:.3g})")


class GramRows:
    """Rows ``k(x_i, ·)`` of the Gram matrix over the rows of ``X``, one at a time: ``n`` kernel evaluations per
    row and nothing of size ``n²`` (JST's Algorithm 2 and the batch perceptron in kernel form, JST §4 and Fig. 3),
    or read from a precomputed Gram matrix ``K`` when one is given. ``diagonal()`` gives ``k(x_i, x_i)``."""

    def __init__(self, kernel, gamma, X, K=None):
        self.kernel, self.gamma, self.X, self.K = kernel, gamma, X, K
        self.n = X.shape[0]
        self._sq = None
        if K is None and kernel == "rbf":   # ||x_i||² once, so that a row costs one product with X
            self._sq = row_norms(X, squared=True)

    def row(self, i: int) -> np.ndarray:
        """``[k(x_i, x_j) for j]`` as a fresh float array."""
        if self.K is not None:
            return np.array(self.K[i], dtype=np.float64)
        if self._sq is not None:
            xi = self.X[i]
            dots = (np.asarray((self.X @ xi.T).toarray()).ravel() if sp.issparse(self.X)
                    else self.X @ np.asarray(xi, dtype=np.float64))
            sq = self._sq[i] + self._sq - 2.0 * dots
            return np.exp(-self.gamma * np.maximum(sq, 0.0))
        return gram(self.kernel, self.gamma, self.X[i:i + 1], self.X)[0]

    def diagonal(self) -> np.ndarray:
        """``[k(x_i, x_i) for i]`` (``n`` kernel evaluations)."""
        if self.K is not None:
            return np.array(np.diag(self.K), dtype=np.float64)
        if self.kernel == "rbf":
            return np.ones(self.n)
        if self.kernel is None or self.kernel == "linear":
            return row_norms(self.X, squared=True)
        return np.array([gram(self.kernel, None, self.X[i:i + 1], self.X[i:i + 1])[0, 0] for i in range(self.n)])
