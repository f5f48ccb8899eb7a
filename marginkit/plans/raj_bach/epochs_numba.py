"""Compiled epochs of the dual coordinate plans on row constraints (numba, the ``fast`` extra).

The compiled twins of :func:`~.epochs.numpy_coordinate_epoch` and :func:`~.epochs.numpy_apcg_epoch` for
:class:`~.constraints.RowConstraints` (rows ``a_i = s_i x_i``), imported by :func:`~.constraints.compiled_kernels` only
when a plan runs with numba. One call runs ``len(idx)`` coordinate updates in place on the arrays passed in; the
index sequence is drawn outside, with the plan's NumPy generator, so both implementations see the same indices.
Dense and CSR storage go through the same compiled signature (the unused one is an empty array); the row access is
:mod:`marginkit.plans.common.numba_rows`.

IEEE arithmetic except for the dot products with dense rows (Alg. 1's ``dense_dot``, Alg. 2's two-vector dot),
which may reassociate their sums (vectorised): as with BLAS, only the order of the sums differs from the NumPy
implementation (rounding-level differences).

For dense X the next sampled row is prefetched while the current one is processed (random order makes every row
a cache miss; the hardware prefetcher only helps within a row): 30-50% per epoch at n = 20,000, d = 500.
"""
from __future__ import annotations

import numpy as np

from ..common.numba_rows import (ONE, dense_axpy, dense_dot, njit, prefetch_dense_row, sparse_axpy,
                                 sparse_dot)
from .epochs import RCD, SMD

_jit = njit()  # imports numba and registers the row twins
_inline = njit(inline="always")   # row helpers inlined into the epochs (a call passes every field of every array)


@_inline
def _row_dot(i, w, X2, data, indices, indptr, dense):
    if dense:
        return dense_dot(X2, i, w)
    return sparse_dot(data, indices, np.uint64(indptr[i]), np.uint64(indptr[i + ONE]), w)


@_inline
def _row_axpy(i, coef, u, X2, data, indices, indptr, dense):
    if dense:
        dense_axpy(coef, X2, i, u)
    else:
        sparse_axpy(coef, data, indices, np.uint64(indptr[i]), np.uint64(indptr[i + ONE]), u)


@njit(fastmath={"reassoc", "contract", "nsz"})
def _row_dot2(i, w, w2, X2, data, indices, indptr, dense, d):
    """``(x_iᵀw, x_iᵀw2)`` in one pass over the row."""
    a = 0.0
    b = 0.0
    if dense:
        row = X2[i]
        for j in range(d):
            a += row[j] * w[j]
            b += row[j] * w2[j]
    else:
        for k in range(np.uint64(indptr[i]), np.uint64(indptr[i + ONE])):
            col = np.uint64(indices[k])
            a += data[k] * w[col]
            b += data[k] * w2[col]
    return a, b


@_inline
def _row_axpy2(i, c1, u1, c2, u2, X2, data, indices, indptr, dense, d):
    if dense:
        row = X2[i]
        for j in range(d):
            u1[j] += c1 * row[j]
            u2[j] += c2 * row[j]
    else:
        for k in range(np.uint64(indptr[i]), np.uint64(indptr[i + ONE])):
            col = np.uint64(indices[k])
            u1[col] += c1 * data[k]
            u2[col] += c2 * data[k]


@_jit
def _mirror_row_dot(i, w, w2, pi, q, X2, data, indices, indptr, dense, d):
    """``x_iᵀ ∇ψ*(w + π w2)`` with ``∇ψ*(z) = N (M/N)^{q−1} sign(z)(|z|/M)^{q−1}``, ``M = max|z|``,
    ``N = ||z||_q``: every power has a base in [0, 1] (no overflow for large q)."""
    M = 0.0
    for j in range(d):
        a = abs(w[j] + pi * w2[j])
        if a > M:
            M = a
    if M == 0.0:
        return 0.0
    S = 0.0
    acc = 0.0
    if dense:
        row = X2[i]
        for j in range(d):
            z = w[j] + pi * w2[j]
            r = abs(z) / M
            t = r ** (q - 1.0)
            S += t * r
            acc += row[j] * (t if z >= 0.0 else -t)
    else:
        for j in range(d):
            S += (abs(w[j] + pi * w2[j]) / M) ** q
        for k in range(np.uint64(indptr[i]), np.uint64(indptr[i + ONE])):
            col = np.uint64(indices[k])
            z = w[col] + pi * w2[col]
            t = (abs(z) / M) ** (q - 1.0)
            acc += data[k] * (t if z >= 0.0 else -t)
    N = M * S ** (1.0 / q)
    return N * (M / N) ** (q - 1.0) * acc


@_jit
def coordinate_epoch(X2, data, indices, indptr, dense, d, s, c, margin, rule, step, idx, lam, u, q):
    """RB Algorithm 1 (``rule=RCD``), SMD eq. (10) corrected (``SMD``) or the perceptron (``PERCEPTRON``);
    returns the largest ``|Δλ_i| / step_i``."""
    res = 0.0
    for k in range(idx.shape[0]):
        i = np.uint64(idx[k])
        if dense and k + 1 < idx.shape[0]:
            prefetch_dense_row(X2, np.uint64(idx[k + 1]))
        h = step[i]
        if h == 0.0:
            continue
        if q == 2.0:
            dot = _row_dot(i, u, X2, data, indices, indptr, dense)
        else:
            dot = _mirror_row_dot(i, u, u, 0.0, q, X2, data, indices, indptr, dense, d)
        m = s[i] * dot
        if rule == RCD:
            delta = h * (c[i] - m)
            if margin and delta < -lam[i]:
                delta = -lam[i]
        elif rule == SMD:
            r = c[i] - m
            if margin and r < 0.0:
                r = 0.0
            delta = h * r
        else:
            delta = 1.0 if m <= 0.0 else 0.0
        if delta != 0.0:
            r = abs(delta) / h
            if r > res:
                res = r
            lam[i] += delta
            _row_axpy(i, delta * s[i], u, X2, data, indices, indptr, dense)
    return res


@_jit
def apcg_epoch(X2, data, indices, indptr, dense, d, s, c, margin, Linv, idx, alpha, ehat, ua, ue, scal, q, n):
    """RB Algorithm 2 (APCG, μ = 0) in the change of variables ``z = α + π ê``, ``v = α + π/(1−γ) ê``; ``n`` is
    the number of coordinates the indices are drawn from (all, or the live ones after gap-safe screening)."""
    res = 0.0
    gamma = scal[0]
    pi = scal[1]
    if pi != 1.0:
        for j in range(alpha.shape[0]):
            ehat[j] *= pi
        for j in range(d):
            ue[j] *= pi
        pi = 1.0
    for k in range(idx.shape[0]):
        i = np.uint64(idx[k])
        if dense and k + 1 < idx.shape[0]:
            prefetch_dense_row(X2, np.uint64(idx[k + 1]))
        h = Linv[i]
        if h != 0.0:
            if q == 2.0:
                da, de = _row_dot2(i, ua, ue, X2, data, indices, indptr, dense, d)
                dot = da + pi * de
            else:
                dot = _mirror_row_dot(i, ua, ue, pi, q, X2, data, indices, indptr, dense, d)
            m = s[i] * dot
            tau = h / (n * gamma)
            delta = tau * (c[i] - m)
            if margin and delta < -alpha[i]:
                delta = -alpha[i]
            if delta != 0.0:
                r = abs(delta) / tau
                if r > res:
                    res = r
                coef = (n * gamma - 1.0) * delta / pi
                alpha[i] += delta
                ehat[i] += coef
                _row_axpy2(i, delta * s[i], ua, coef * s[i], ue, X2, data, indices, indptr, dense, d)
        g_next = 2.0 * gamma / (np.sqrt(gamma * gamma + 4.0) + gamma)
        pi *= 1.0 - g_next
        gamma = g_next
    scal[0] = gamma
    scal[1] = pi
    return res
