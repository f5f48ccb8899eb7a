"""Kernel (Gram) matrices for the dual methods: ``None``/``"linear"``, ``"rbf"`` and user callables."""
from __future__ import annotations

import os
import time

import numpy as np
import scipy.sparse as sp

from .linalg import row_norms
from .validation import ProblemError


def _dense(A):
    return A.toarray() if sp.issparse(A) else np.asarray(A, dtype=np.float64)


EXTREME = 2.0 ** 64   # data beyond this (or below its inverse) have squared distances near under/overflow


def extreme_scale(*arrays) -> float:
    """A power of two ``c`` bringing the largest entry of ``arrays`` to about 1 when that entry is beyond
    :data:`EXTREME` or below its inverse (``||a − b||²`` would under- or overflow), else 1.0 (no rescaling: the
    Gram matrices of ordinary data are computed exactly as before)."""
    big = max((float(np.max(np.abs(a))) for a in arrays if np.size(a)), default=0.0)
    if not np.isfinite(big) or big == 0.0 or 1.0 / EXTREME <= big <= EXTREME:
        return 1.0
    m, e = np.frexp(big)
    return float(np.ldexp(1.0, int(e)))


def rbf_of(gamma_scaled: float, sq: np.ndarray) -> np.ndarray:
    """``exp(−γ'·sq)`` where ``γ' = γc²`` may have under- or overflowed: a zero distance gives exactly 1."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        e = gamma_scaled * sq
    e[sq == 0.0] = 0.0
    return np.exp(-e)


def gram(kernel, gamma, A, B=None) -> np.ndarray:
    """Gram matrix ``K[i, j] = k(a_i, b_j)``; ``B=None`` means ``B = A``."""
    if B is None:
        B = A
    if kernel is None or kernel == "linear":
        K = A @ B.T
        return _dense(K)
    if kernel == "rbf":
        same = B is A
        Ad, Bd = _dense(A), _dense(B)
        c = extreme_scale(Ad, Bd)
        if c != 1.0:   # squares beyond double precision: distances of the data over c, γ·c² applied after
            Ad, Bd = Ad / c, Bd / c
        sq = (np.einsum("ij,ij->i", Ad, Ad)[:, None] + np.einsum("ij,ij->i", Bd, Bd)[None, :]
              - 2.0 * Ad @ Bd.T)
        np.maximum(sq, 0.0, out=sq)
        if c == 1.0:
            return np.exp(-gamma * sq)
        if same:
            np.fill_diagonal(sq, 0.0)   # k(x, x) = 1 exactly, whatever the rounding of the expanded square
        return rbf_of(gamma * c * c, sq)
    try:
        K = np.asarray(kernel(A, B), dtype=np.float64)
    except Exception as exc:   # the user's callable failed: say so, naming it
        raise ProblemError(f"kernel callable failed on the data: {type(exc).__name__}: {exc}") from exc
    if K.shape != (A.shape[0], B.shape[0]):
        raise ProblemError(f"kernel callable returned shape {K.shape}; expected {(A.shape[0], B.shape[0])}")
    return K


GRAM_BLOCK = 1 << 21       # entries of one block of rows of a Gram matrix computed under a deadline (16 MiB)
EIGEN_SHARE = 0.5          # the largest eigenvalue's Lanczos, as a fraction of the Gram matrix's time (a bound)
MEMORY_SHARE = 0.5         # refused where the Gram matrix would take more than this share of the physical memory


def _physical_memory() -> float:
    try:
        return float(os.sysconf("SC_PAGE_SIZE")) * float(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):   # not a POSIX system: no memory check
        return np.inf


def gram_within(kernel, gamma, X, deadline: float | None, method: str, extra: float = EIGEN_SHARE) -> np.ndarray:
    """``gram(kernel, gamma, X)`` (``K = XXᵀ`` or the Gaussian kernel) in blocks of :data:`GRAM_BLOCK` entries, for a
    plan whose ``time_limit`` covers its set-up: ``deadline`` is the ``perf_counter`` time the limit ends (None: no
    limit). The first block is timed and extrapolated to all ``n`` rows, plus ``extra`` times that for what the
    plan does with the matrix before its first iteration (its largest eigenvalue); when that would end past the
    deadline, or the matrix (``8n²`` bytes) would take more than :data:`MEMORY_SHARE` of the physical memory, a
    :class:`ProblemError` says how many seconds and GiB it needs before more is computed. A callable kernel is
    computed whole (the problem has already evaluated it on ``X`` to check it). The Gaussian kernel's diagonal is
    exactly 1."""
    n = X.shape[0]
    gib = 8.0 * n * n / 2.0 ** 30
    if 8.0 * n * n > MEMORY_SHARE * _physical_memory():
        raise ProblemError(f"{method}: the n x n Gram matrix (n = {n}) needs {gib:.3g} GiB, more than "
                           f"{MEMORY_SHARE:.0%} of this machine's memory; use a linear problem or fewer samples")
    if kernel not in (None, "linear", "rbf"):
        return gram(kernel, gamma, X)
    A = _dense(X)
    c = extreme_scale(A) if kernel == "rbf" else 1.0
    if c != 1.0:
        A = A / c
    sq = np.einsum("ij,ij->i", A, A)
    K = np.empty((n, n))
    rows = max(1, GRAM_BLOCK // max(n, 1))
    first = max(1, min(rows, n // 16))   # the timed block: 1/16 of the matrix at most
    t0 = time.perf_counter()
    for start in [0] + list(range(first, n, rows)):
        stop = min(n, start + (first if start == 0 else rows))
        block = A[start:stop] @ A.T
        if kernel == "rbf":
            block *= -2.0
            block += sq[start:stop, None]
            block += sq[None, :]
            np.maximum(block, 0.0, out=block)
            block[np.arange(stop - start), np.arange(start, stop)] = 0.0
            block = rbf_of(gamma * c * c, block)
        K[start:stop] = block
        if start == 0 and deadline is not None and stop < n:
            now = time.perf_counter()
            need = (now - t0) * (n / stop) * (1.0 + extra)
            if t0 + need > deadline:
                raise ProblemError(
                    f"{method}: the kernel set-up does not fit time_limit: the n x n Gram matrix (n = {n}: "
                    f"{gib:.3g} GiB) and its largest eigenvalue need about {need:.3g} s here, {deadline - t0:.3g} s "
                    "were left; give a larger time_limit, fewer samples, or a linear problem")
    return K


def problem_gram(form, deadline: float | None, method: str) -> np.ndarray:
    """The Gram matrix of a kernel problem ``form`` for a plan's set-up: the problem's cached one (``form.gram()``
    caches it), else :func:`gram_within` under ``deadline``, then cached on the problem (its results read it)."""
    cache = getattr(form, "_cache", None)
    if cache is not None and cache.get("gram") is not None:
        return cache["gram"]
    K = gram_within(form.kernel, form.gamma, form.X, deadline, method)
    K.flags.writeable = False
    return form._cached("gram", lambda: K)


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
        self._c = 1.0
        if K is None and kernel == "rbf":   # ||x_i||² once, so that a row costs one product with X
            self._c = extreme_scale(X.data if sp.issparse(X) else X)
            if self._c != 1.0:
                self.X = X = X / self._c     # a scaled copy, for data whose squared distances leave double range
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
            if self._c == 1.0:
                return np.exp(-self.gamma * np.maximum(sq, 0.0))
            sq = np.maximum(sq, 0.0)
            sq[i] = 0.0
            return rbf_of(self.gamma * self._c * self._c, sq)
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
