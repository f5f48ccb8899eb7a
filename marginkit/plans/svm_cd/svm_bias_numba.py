"""The epochs of ``dual-cd-bias`` (:mod:`.svm_bias`): one coordinate pass over the augmented Lagrangian of the SVM dual
with its equality constraint ``Σ a_i y_i = 0``, and the multiplier step after it.

For the multiplier ``λ`` (the current offset estimate) and the penalty ``ρ > 0``, coordinate ``i`` of

    min_{0 <= a <= C}  L(a) = ½||w(a)||² − 1ᵀa + λ s(a) + (ρ/2) s(a)²,   w(a) = Σ a_i y_i x_i,  s(a) = yᵀa,

has the gradient ``G_i = y_i(x_iᵀw + b) − 1`` with ``b = λ + ρ s`` (the offset the current dual point implies) and
the curvature ``Q_ii + ρ``; the exact minimisation in ``a_i`` is ``a_i ← clip(a_i − G_i/(Q_ii + ρ), 0, C_i)``
(Hsieh et al., ICML 2008, eqs. (4)–(5), on the augmented Lagrangian), after which ``w`` and ``s`` are updated (one
row axpy and a scalar); each epoch is followed by ``λ ← λ + ρ s`` (the method of multipliers: Hestenes 1969, Powell
1969; Rockafellar 1976, §4). The shrinking test is Hsieh et al.'s (§3.2) on the projected gradient, as in
``dual-cd``.

One source, compiled or not, with the pieces of :mod:`marginkit.plans.common.coordinate_round` (the random order,
the projected gradient and shrinking test, the prefetch of the values): the epochs are written with the row
operations of :mod:`marginkit.plans.common.numba_rows` only, so they run compiled (``@njit``) or as plain Python over
the operations' NumPy bodies, with the same floating-point operations in the same order.
"""
from __future__ import annotations

import numpy as np

from ..common.coordinate_round import PG_ZERO, prefetch_values, shrink_test, shuffle
from ..common.numba_rows import (ONE, PREFETCH_AHEAD, compiled_once, dense_axpy, dense_dot, prefetch, prefetch_csr_row,
                                 prefetch_dense_head, sparse_axpy, sparse_dot)


def bias_round(X, data, indices, indptr, y, box, qii, a, w, index, active, live, pg_max_old, pg_min_old, seed,
               lam, lam_ref, rho, s, eps, budget, shrinking, since_check, check_after):
    """Epochs and multiplier steps on ``a``, ``w`` (in place) over ``index[:active]`` (the active coordinates; the
    shrunk ones are swapped behind them up to ``live``, the screened ones lie behind ``live`` and are never
    visited), each epoch in a fresh random order (Fisher-Yates with the xorshift64 generator ``seed``) and followed
    by ``λ ← λ + ρ s``. The shrinking test is Hsieh et al.'s (§3.2) on the projected gradient; the full live set is
    restored when the shrunk set is stationary (range ``<= eps``) or the offset has moved by more than ``eps``
    since the full set was last visited (every gradient moved with it), or nothing is left.

    The round ends after ``budget`` coordinate visits, or after a full-set epoch whose stationarity
    ``max(M − m, ρ|s|)`` is ``<= eps`` (``stationary``), or when the visits since the last certificate exceed
    ``check_after`` (``due``): the last two ask the caller for a certificate. Returns ``(active, pg_max_old,
    pg_min_old, pg_range, station, lam, lam_ref, s, epochs, visits, stationary, due)``."""
    done = 0
    epochs = 0
    stationary = False
    due = False
    pg_range = np.inf
    station = np.inf
    while True:
        full = active == live
        shuffle(index, active, seed)   # a fresh random order of the active coordinates
        done += active
        pg_max, pg_min = -np.inf, np.inf
        k = 0
        while k < active:
            if k + PREFETCH_AHEAD < active:   # request what the update PREFETCH_AHEAD places ahead reads
                ahead = np.uint64(index[k + PREFETCH_AHEAD])
                if X is None:
                    prefetch_csr_row(data, indices, indptr, ahead)
                    if k + 2 * PREFETCH_AHEAD < active:
                        prefetch(indptr, np.uint64(index[k + 2 * PREFETCH_AHEAD]))
                else:
                    prefetch_dense_head(X, ahead)
                prefetch_values(y, box, qii, a, ahead)
            i = np.uint64(index[k])
            if X is None:
                dot = sparse_dot(data, indices, np.uint64(indptr[i]), np.uint64(indptr[i + ONE]), w)
            else:
                dot = dense_dot(X, i, w)
            G = y[i] * (dot + lam + rho * s) - 1.0
            ai = a[i]
            C = box[i]
            pg, active, pg_max, pg_min = shrink_test(G, ai, C, pg_max_old, pg_min_old, pg_max, pg_min, index, k, active)
            if pg != pg:   # shrunk: the coordinate swapped in is visited next
                continue
            if abs(pg) > PG_ZERO:
                new = min(max(ai - G / (qii[i] + rho), 0.0), C)
                if new != ai:
                    c = (new - ai) * y[i]
                    if X is None:
                        sparse_axpy(c, data, indices, np.uint64(indptr[i]), np.uint64(indptr[i + ONE]), w)
                    else:
                        dense_axpy(c, X, i, w)
                    s += c
                    a[i] = new
            k += 1
        epochs += 1
        pg_range = pg_max - pg_min if pg_max >= pg_min else 0.0
        move = abs(rho * s)                  # the multiplier step: the offset's move (a margin)
        station = max(pg_range, move)
        lam_old = lam
        lam = lam + rho * s
        if shrinking:
            pg_max_old = pg_max if pg_max > 0.0 else np.inf
            pg_min_old = pg_min if pg_min < 0.0 else -np.inf
        if full:
            lam_ref = lam_old
            if station <= eps:
                stationary = True
                break
        elif pg_range <= eps or abs(lam - lam_ref) > eps or active == 0:
            active = live
            pg_max_old, pg_min_old = np.inf, -np.inf
        if since_check + done > check_after:
            due = True
            break
        if done >= budget or live == 0:   # nothing left to visit: only the caller's check can end the run
            break
    return active, pg_max_old, pg_min_old, pg_range, station, lam, lam_ref, s, epochs, done, stationary, due


compiled_round = compiled_once(bias_round)
