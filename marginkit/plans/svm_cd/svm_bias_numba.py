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

from ..common.numba_rows import (ONE, PREFETCH_AHEAD, compiled_once, dense_axpy, dense_dot, jitable,
                                 prefetch, prefetch_csr_row, prefetch_dense_head, sparse_axpy, sparse_dot)
from .svm_coordinate import _random_below, projected_gradient

PG_ZERO = 1e-12   # |projected gradient| below this: no update (liblinear's test)


@jitable
def _prefetch_coordinate(y, a, qii, box, i):
    """Request ``y_i, a_i, Q_ii, C_i`` (nothing in Python)."""
    prefetch(y, i)
    prefetch(a, i)
    prefetch(qii, i)
    prefetch(box, i)


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
        for k in range(active - 1):   # a fresh random order of the active coordinates
            j = k + _random_below(seed, active - k)
            tmp = index[k]
            index[k] = index[j]
            index[j] = tmp
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
                _prefetch_coordinate(y, a, qii, box, ahead)
            ii = index[k]
            i = np.uint64(ii)
            if X is None:
                dot = sparse_dot(data, indices, np.uint64(indptr[i]), np.uint64(indptr[i + ONE]), w)
            else:
                dot = dense_dot(X, i, w)
            G = y[i] * (dot + lam + rho * s) - 1.0
            ai = a[i]
            C = box[i]
            pg = projected_gradient(G, ai, C, pg_max_old, pg_min_old)
            if pg != pg:   # shrink: swap behind the active part, visit the swapped-in one next
                active -= 1
                index[k] = index[active]
                index[active] = ii
                continue
            pg_max = max(pg_max, pg)
            pg_min = min(pg_min, pg)
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
