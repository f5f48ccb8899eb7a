"""The epochs of ``dual-cd-bias`` (:mod:`marginkit.plans.raj_bach.svm_bias`): one coordinate pass over the
augmented Lagrangian of the SVM dual with its equality constraint ``Σ a_i y_i = 0``.

One source, compiled or not (as in :mod:`marginkit.plans.raj_bach.svm_coordinate`): the epochs are written with the
row operations of :mod:`marginkit.plans.common.numba_rows` only, so they run compiled (``@njit``) or as plain Python
over the operations' NumPy bodies, with the same floating-point operations in the same order.

For the multiplier ``λ`` (the current offset estimate) and the penalty ``ρ > 0``, coordinate ``i`` of

    min_{0 <= a <= C}  L(a) = ½||w(a)||² − 1ᵀa + λ s(a) + (ρ/2) s(a)²,   w(a) = Σ a_i y_i x_i,  s(a) = yᵀa,

has the gradient ``G_i = y_i(x_iᵀw + b) − 1`` with ``b = λ + ρ s`` (the offset the current dual point implies) and
the curvature ``Q_ii + ρ``; the exact minimisation in ``a_i`` is
``a_i ← clip(a_i − G_i/(Q_ii + ρ), 0, C_i)``, after which ``w`` and ``s`` are updated (one row axpy and a scalar).
The shrinking test is Hsieh et al.'s (§3.2) on the projected gradient, as in ``dual-cd``.
"""
from __future__ import annotations

import numpy as np

from ..common.numba_rows import (ONE, PREFETCH_AHEAD, SHORT_ROW, dense_axpy, dense_dot, jitable, njit,
                                 prefetch, prefetch_csr_row, prefetch_dense_head, short_dot, sparse_axpy, sparse_dot)

PG_ZERO = 1e-12   # |projected gradient| below this: no update (liblinear's test)


@jitable
def _bias_update(i, G, a, box, q, pg_max_old, pg_min_old):
    """``(keep, pg, new a_i)`` for the gradient ``G`` and curvature ``q`` of coordinate ``i`` (box ``[0, C_i]``);
    ``keep = False`` shrinks the coordinate (Hsieh et al. §3.2: at a bound, its gradient pointing out of the box by
    more than last epoch's extreme projected gradient)."""
    ai = a[i]
    C = box[i]
    pg = 0.0
    if ai <= 0.0:
        if G > pg_max_old:
            return False, 0.0, ai
        if G < 0.0:
            pg = G
    elif ai >= C:
        if G < pg_min_old:
            return False, 0.0, ai
        if G > 0.0:
            pg = G
    else:
        pg = G
    if abs(pg) <= PG_ZERO:
        return True, pg, ai
    return True, pg, min(max(ai - G / q, 0.0), C)


@jitable
def _prefetch_coordinate(y, a, qii, box, i):
    """Request ``y_i, a_i, Q_ii, C_i`` (nothing in Python)."""
    prefetch(y, i)
    prefetch(a, i)
    prefetch(qii, i)
    prefetch(box, i)


def bias_epoch_dense(X, y, a, w, qii, box, order, lam, rho, s, pg_max_old, pg_min_old, keep):
    """One pass over ``order`` (dense C-ordered ``X``); updates ``a``, ``w`` in place and returns
    ``(pg_max, pg_min, s)`` with ``s = yᵀa`` carried along."""
    pg_max, pg_min = -np.inf, np.inf
    m = order.shape[0]
    short = X.shape[1] <= SHORT_ROW
    for k in range(m):
        if k + PREFETCH_AHEAD < m:   # request what the update PREFETCH_AHEAD places ahead reads
            ahead = np.uint64(order[k + PREFETCH_AHEAD])
            prefetch_dense_head(X, ahead)
            _prefetch_coordinate(y, a, qii, box, ahead)
        i = np.uint64(order[k])
        G = y[i] * ((short_dot(X, i, w) if short else dense_dot(X, i, w)) + lam + rho * s) - 1.0
        ok, pg, new = _bias_update(i, G, a, box, qii[i] + rho, pg_max_old, pg_min_old)
        keep[k] = ok
        if not ok:
            continue
        pg_max = max(pg_max, pg)
        pg_min = min(pg_min, pg)
        if new != a[i]:
            c = (new - a[i]) * y[i]
            dense_axpy(c, X, i, w)
            s += c
            a[i] = new
    return pg_max, pg_min, s


def bias_epoch_sparse(data, indices, indptr, y, a, w, qii, box, order, lam, rho, s, pg_max_old, pg_min_old, keep):
    """:func:`bias_epoch_dense` for CSR ``X`` (``data, indices, indptr``, never copied)."""
    pg_max, pg_min = -np.inf, np.inf
    m = order.shape[0]
    for k in range(m):
        if k + 2 * PREFETCH_AHEAD < m:   # request what the updates ahead read
            prefetch(indptr, np.uint64(order[k + 2 * PREFETCH_AHEAD]))
        if k + PREFETCH_AHEAD < m:
            ahead = np.uint64(order[k + PREFETCH_AHEAD])
            prefetch_csr_row(data, indices, indptr, ahead)
            _prefetch_coordinate(y, a, qii, box, ahead)
        i = np.uint64(order[k])
        st, en = np.uint64(indptr[i]), np.uint64(indptr[i + ONE])
        G = y[i] * (sparse_dot(data, indices, st, en, w) + lam + rho * s) - 1.0
        ok, pg, new = _bias_update(i, G, a, box, qii[i] + rho, pg_max_old, pg_min_old)
        keep[k] = ok
        if not ok:
            continue
        pg_max = max(pg_max, pg)
        pg_min = min(pg_min, pg)
        if new != a[i]:
            c = (new - a[i]) * y[i]
            sparse_axpy(c, data, indices, st, en, w)
            s += c
            a[i] = new
    return pg_max, pg_min, s


_COMPILED = None


def compiled_epochs():
    """``(bias_epoch_dense, bias_epoch_sparse)`` compiled (on first use; numba's cache keeps them)."""
    global _COMPILED
    if _COMPILED is None:
        jit = njit()
        _COMPILED = (jit(bias_epoch_dense), jit(bias_epoch_sparse))
    return _COMPILED
