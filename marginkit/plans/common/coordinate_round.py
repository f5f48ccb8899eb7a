"""The dual coordinate round of a box QP, shared by ``dual-cd``, ``dual-cd-bias`` and the CoCoA+ plans of both families.

The box dual ``max_{0 <= a_i <= C_i} D(a) = 1ᵀa − ½||w(a)||²``, ``w(a) = Σ_i a_i y_i x_i``, maximised exactly in one
coordinate (Hsieh, Chang, Lin, Keerthi & Sundararajan, *A dual coordinate descent method for large-scale linear
SVM*, ICML 2008, Algorithm 1, eqs. (4)–(5)) is

    G = y_i x_iᵀw − 1,      a_i ← clip(a_i − G/Q_ii, 0, C_i),      w ← w + (a_i⁺ − a_i) y_i x_i,

with ``Q_ii = ||x_i||²`` (a zero row has ``G = −1`` and goes to ``a_i = C_i``). It is Raj & Bach's randomized dual
coordinate ascent (*Explicit regularization of stochastic gradient methods through duality*, AISTATS 2021,
Algorithm 1 and App. C) for the hinge loss; with ``C_i = +∞`` it is their Algorithm 1 on the margin constraints
``y_i x_iᵀθ >= 1`` with ``p = 2`` (Lemma 1's step), which is how ``dykstra``'s CoCoA+ form runs it
(:mod:`marginkit.plans.raj_bach.cocoa_margin`). Each update reads row ``i`` twice (a dot product and an axpy).

:func:`dcd_round` runs epochs, each over the active coordinates in a fresh random order (without replacement, as
Hsieh et al. and liblinear), drawn inside the round by a xorshift64 generator (Marsaglia 2003) with Lemire's
multiply-shift reduction (:func:`random_below`), with the shrinking of Hsieh et al. §3.2: a coordinate at a bound
whose gradient points out of the box beyond the previous epoch's extreme projected gradients (``M̄``, ``m̄``; eq.
(10) and :func:`projected_gradient`) is swapped behind the active ones. The round ends on a budget of coordinate
visits, on liblinear's stop test (the projected-gradient range ``M − m`` below ``eps``) or when its running estimate
of the duality gap asks for an exact check (the function's docstring).

**One source, compiled or not.** The round is written with the row operations of
:mod:`marginkit.plans.common.numba_rows` only: compiled by numba (:data:`compiled_round`) or run as plain Python over
the operations' NumPy bodies, with the same floating-point operations in the same order (CSR rows: the same
iterates bit for bit; dense rows: to rounding, the dot product being vectorised in both). ``X is None`` (CSR data) is
decided when numba compiles (dead-branch pruning), so the loop carries no test of the storage. Indices are cast to
unsigned inside the loop, and what the update ``PREFETCH_AHEAD`` places ahead reads (its row, or the head of a long
dense row, and its ``y_i, C_i, Q_ii, a_i``) is requested before it is needed; the iterates are the same either way.
The helpers here (:func:`shuffle`, :func:`shrink_test`, :func:`prefetch_values`) are the pieces every coordinate
round shares, the epochs of ``dual-cd-bias`` (:mod:`marginkit.plans.svm_cd.svm_bias_numba`) included; a helper
never tests ``X is None`` (an inlined twin is not pruned), so that test stays in the rounds.
"""
from __future__ import annotations

import numpy as np

from .numba_rows import (ONE, PREFETCH_AHEAD, compiled_once, dense_axpy, dense_dot, jitable, prefetch,
                         prefetch_csr_row, prefetch_dense_head, sparse_axpy, sparse_dot)

PG_ZERO = 1e-12      # |projected gradient| below this: no update (liblinear's test)
XS_A, XS_B, XS_C = np.uint64(13), np.uint64(7), np.uint64(17)   # xorshift64 shifts (Marsaglia 2003)
HALF = np.uint64(32)


# the pieces every round shares ------------------------------------------------------------------------------
@jitable
def random_below(seed, m):
    """A draw in ``[0, m)``, ``m < 2³²``, from the xorshift64 generator whose state is ``seed[0]`` (advanced in
    place): the high 32 bits times ``m``, shifted (Lemire's multiply-shift reduction: no division)."""
    x = seed[0]
    x ^= x << XS_A
    x ^= x >> XS_B
    x ^= x << XS_C
    seed[0] = x
    return np.int64(((x >> HALF) * np.uint64(m)) >> HALF)


@jitable
def shuffle(index, active, seed):
    """A fresh random order of ``index[:active]`` in place (Fisher–Yates with :func:`random_below`)."""
    for k in range(active - 1):
        j = k + random_below(seed, active - k)
        tmp = index[k]
        index[k] = index[j]
        index[j] = tmp


@jitable
def projected_gradient(G, ai, C, pg_max_old, pg_min_old):
    """The projected gradient of coordinate ``i`` in the box ``[0, C]`` (Hsieh et al. 2008, eq. (10)), or NaN when
    Hsieh's shrinking test (§3.2: at a bound, the gradient pointing out beyond last epoch's extremes) says to take it
    out of the active set; the one test of ``dual-cd`` and ``dual-cd-bias``."""
    if ai <= 0.0:
        if G > pg_max_old:
            return np.nan
        return 0.0 if G > 0.0 else G
    if ai >= C:
        if G < pg_min_old:
            return np.nan
        return 0.0 if G < 0.0 else G
    return G


@jitable
def swap_behind(index, k, active):
    """Shrink ``index[k]``: swap it behind the active part (the swapped-in coordinate is visited next); returns the
    new active count."""
    active -= 1
    tmp = index[k]
    index[k] = index[active]
    index[active] = tmp
    return active


@jitable
def shrink_test(G, ai, C, pg_max_old, pg_min_old, pg_max, pg_min, index, k, active):
    """Hsieh et al.'s §3.2 at one visit of coordinate ``index[k]`` (gradient ``G``, value ``ai`` in ``[0, C]``):
    ``(pg, active, pg_max, pg_min)``, its projected gradient (:func:`projected_gradient`) and the epoch's extreme
    projected gradients updated; or, when the test shrinks it, NaN with the coordinate swapped behind the active part
    (:func:`swap_behind`) and the extremes unchanged."""
    pg = projected_gradient(G, ai, C, pg_max_old, pg_min_old)
    if pg != pg:
        return pg, swap_behind(index, k, active), pg_max, pg_min
    return pg, active, max(pg_max, pg), min(pg_min, pg)


@jitable
def prefetch_values(y, box, qii, a, i):
    """Request ``y_i, C_i, Q_ii, a_i`` (nothing in Python)."""
    prefetch(y, i)
    prefetch(box, i)
    prefetch(qii, i)
    prefetch(a, i)


# the round -----------------------------------------------------------------------------------------------------
def dcd_round(X, data, indices, indptr, y, box, qii, a, w, index, active, pg_max_old, pg_min_old, seed, eps,
              budget, shrinking, sums, gap_target):
    """Epochs of Hsieh et al. Alg. 1 with the shrinking of §3.2 on ``a``, ``w`` (in place) over ``index[:active]``
    (the active coordinates; shrunk ones are swapped behind them), until ``budget`` coordinates are visited, or
    the projected-gradient range ``M − m`` of an epoch is ``<= eps`` (liblinear's stop test; on a shrunk set, the
    point where liblinear restores the full set), or the epoch's estimate of the duality gap is
    ``<= gap_target·D``. The last two end the round for an exact check by the caller.

    The estimate: ``P(w) − D(a) = Σ_i (a_i G_i + C_i max(0, −G_i))`` (from ``||w||² = Σ a_i (G_i + 1)``), every term
    ``>= 0`` and 0 right after coordinate ``i`` is maximised; the epoch sums each active coordinate's term just
    before its update (a shrunk one, ``a_i = 0 < G_i`` or ``a_i = C_i``, ``G_i < 0``, is taken as 0), so the sum is
    the gap as the epoch found it, a lagging guess of the gap after it. ``sums = [Σ a_i, ||w||²]`` are carried
    through the updates (``||w + δ y_i x_i||² = ||w||² + 2δ(G_i + 1) + δ² Q_ii``) for ``D = Σ a_i − ½||w||²``.
    The estimate only decides when the exact certificate is computed.

    Returns ``(active, pg_max_old, pg_min_old, pg_range, epochs, visits, converged, estimate)``: the shrinking
    state for the next round, the last epoch's projected-gradient range, the epochs run and coordinates visited,
    whether the stop test passed and the last epoch's gap estimate."""
    done = 0
    epochs = 0
    converged = False
    pg_range = np.inf
    sum_a = sums[0]
    norm2 = sums[1]
    estimate = np.inf
    while True:
        shuffle(index, active, seed)
        done += active
        pg_max, pg_min = -np.inf, np.inf
        estimate = 0.0
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
            i = np.uint64(index[k])   # unsigned indices skip numba's negative-index test
            if X is None:
                G = y[i] * sparse_dot(data, indices, np.uint64(indptr[i]), np.uint64(indptr[i + ONE]), w) - 1.0
            else:
                G = y[i] * dense_dot(X, i, w) - 1.0
            ai = a[i]
            C = box[i]
            pg, active, pg_max, pg_min = shrink_test(G, ai, C, pg_max_old, pg_min_old, pg_max, pg_min, index, k, active)
            if pg != pg:   # shrunk: the coordinate swapped in is visited next
                continue
            estimate += ai * G + C * max(0.0, -G)
            if abs(pg) > PG_ZERO:
                q = qii[i]
                new = C if q <= 0.0 else min(max(ai - G / q, 0.0), C)
                if new != ai:
                    delta = new - ai
                    if X is None:
                        sparse_axpy(delta * y[i], data, indices, np.uint64(indptr[i]), np.uint64(indptr[i + ONE]), w)
                    else:
                        dense_axpy(delta * y[i], X, i, w)
                    a[i] = new
                    sum_a += delta
                    norm2 += delta * (2.0 * (G + 1.0) + delta * q)
            k += 1
        epochs += 1
        pg_range = pg_max - pg_min if pg_max >= pg_min else 0.0
        if pg_range <= eps:   # converged on the active set: the caller checks the full set
            converged = True
            break
        if shrinking:
            pg_max_old = pg_max if pg_max > 0.0 else np.inf
            pg_min_old = pg_min if pg_min < 0.0 else -np.inf
        dual = sum_a - 0.5 * norm2
        if done >= budget or (dual > 0.0 and estimate <= gap_target * dual):
            break
    return active, pg_max_old, pg_min_old, pg_range, epochs, done, converged, estimate


compiled_round = compiled_once(dcd_round)
