"""Kernel (Gram) matrices for the dual methods: ``None``/``"linear"``, ``"rbf"`` and user callables."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

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
