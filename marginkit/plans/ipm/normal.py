"""The normal equations of the SVM's interior-point step: the ``d × d`` matrix ``I + Xᵀ D X`` (bordered by the
offset's row and column with a bias), formed with BLAS (dense ``X``) or sparse products (CSR), and factored by
Cholesky.

The derivation is in :mod:`marginkit.plans.ipm.core`; here is only what costs: one pass over ``X`` per interior-point
iteration (``n d²`` flops, the symmetric rank-k update ``dsyrk`` over row blocks, so the temporary is one block of
rows, never an ``n × d`` copy), and a Cholesky factorisation of ``d`` (or ``d + 1``) rows. No ``n × n`` matrix is
ever formed (the point of Ferris & Munson 2003, §3: the normal equations of the SVM have the size of the feature
space, whatever ``n``).

Near the end of a run ``D`` spans many orders of magnitude (its entries grow like ``1/μ`` on the free support
vectors and fall like ``μ`` elsewhere), and the matrix can lose its positive definiteness to rounding. A failed
factorisation is retried with a growing multiple of the diagonal added (a primal regularisation in the sense of
Friedlander & Orban, *A primal–dual regularized interior-point method for convex quadratic programs*, Math. Prog.
Comp. 4, 2012): the direction is then inexact, which the certificate absorbs (the status rests on the duality gap,
never on the direction). Only when every retry fails is the step declared impossible (:class:`Breakdown`).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from scipy.linalg.blas import dsyrk

BLOCK_BYTES = 1 << 22          # the scaled rows of one block of the rank-k update: about 4 MiB
REGULARIZATIONS = (0.0, 1e-14, 1e-12, 1e-10, 1e-8)   # multiples of the diagonal tried, in order


class Breakdown(Exception):
    """The normal matrix could not be factored, even regularised: no direction at this point."""


def weighted_gram(X, D) -> np.ndarray:
    """``Xᵀ diag(D) X`` (``D >= 0``), dense ``d × d``, upper triangle and its mirror. Dense ``X``: ``dsyrk`` on blocks
    of rows scaled by ``√D`` into one reused buffer of about :data:`BLOCK_BYTES` (a cache-sized temporary: scaling the
    whole of ``X`` at once costs more than the product, in page faults); CSR ``X``: one sparse product. Rows with
    ``D_i = 0`` are skipped."""
    n, d = X.shape
    rows_used = np.flatnonzero(D > 0)
    if sp.issparse(X):
        Xu = X[rows_used] if rows_used.shape[0] < n else X
        root = np.sqrt(D[rows_used])
        scaled = sp.csr_matrix((Xu.data * np.repeat(root, np.diff(Xu.indptr)), Xu.indices, Xu.indptr),
                               shape=Xu.shape)
        return np.asarray((scaled.T @ scaled).toarray(), dtype=np.float64)
    G = np.zeros((d, d), order="F")
    rows = max(1, min(rows_used.shape[0], BLOCK_BYTES // (8 * max(d, 1))))
    buffer = np.empty((rows, d))
    dense_run = rows_used.shape[0] == n
    for start in range(0, rows_used.shape[0], rows):
        stop = min(start + rows, rows_used.shape[0])
        block = buffer[:stop - start]
        if dense_run:
            np.multiply(X[start:stop], np.sqrt(D[start:stop])[:, None], out=block)
        else:
            idx = rows_used[start:stop]
            np.multiply(X[idx], np.sqrt(D[idx])[:, None], out=block)
        # dsyrk(a) = a aᵀ with a = blockᵀ (d × rows, Fortran-ordered: the C-ordered block without a copy)
        G = dsyrk(1.0, block.T, beta=1.0, c=G, trans=0, lower=0, overwrite_c=1)
    return np.triu(G) + np.triu(G, 1).T


class NormalEquations:
    """The factored matrix ``K = [[I + XᵀDX, XᵀD1], [1ᵀDX, 1ᵀD1]]`` (the bordered row and column only with a bias),
    ready for :meth:`solve` with any right-hand side (the predictor and the corrector share it). ``regularization``:
    the multiple of the diagonal that had to be added (0 when the matrix factored as it is)."""

    def __init__(self, X, D, bias: bool):
        d = X.shape[1]
        G = weighted_gram(X, D)
        G[np.diag_indices(d)] += 1.0
        if bias:
            border = np.asarray(X.T @ D).ravel()
            K = np.empty((d + 1, d + 1))
            K[:d, :d] = G
            K[:d, d] = K[d, :d] = border
            K[d, d] = float(D.sum())
        else:
            K = G
        self.bias = bias
        if not np.all(np.isfinite(K)):
            raise Breakdown("the normal matrix is not finite")
        diag = np.abs(np.diag(K)).copy()
        for reg in REGULARIZATIONS:
            try:
                A = K if reg == 0.0 else K + np.diag(reg * diag)
                self.factor = cho_factor(A, lower=False, overwrite_a=reg != 0.0, check_finite=False)
            except (LinAlgError, ValueError):
                continue
            if np.all(np.isfinite(self.factor[0])) and np.all(np.diag(self.factor[0]) > 0):
                self.regularization = reg
                return
        raise Breakdown("the normal matrix is not positive definite in floating point, even regularised")

    def solve(self, rw: np.ndarray, rb: float = 0.0) -> tuple[np.ndarray, float]:
        """``(dw, db)`` solving ``K [dw; db] = [rw; rb]`` (``db = 0`` without a bias)."""
        rhs = np.append(rw, rb) if self.bias else rw
        sol = cho_solve(self.factor, rhs, check_finite=False)
        if not np.all(np.isfinite(sol)):
            raise Breakdown("the Newton direction is not finite")
        return (sol[:-1], float(sol[-1])) if self.bias else (sol, 0.0)
