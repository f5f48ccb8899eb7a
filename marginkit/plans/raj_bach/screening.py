"""Gap-safe screening in the compiled dual coordinate epochs: a screening decision applied in place.

The proof that the screened samples are at their bound at the optimum is in :mod:`.svm_coordinate`'s docstring
(Ndiaye, Fercoq, Gramfort & Salmon, JMLR 18, 2017, Theorem 6, for the hinge loss); this module only moves the proven
multipliers to their bound and keeps ``w = Σ a_i y_i x_i``, written once for NumPy and numba
(:mod:`marginkit.plans.common.numba_rows`).
"""
from __future__ import annotations

import numpy as np

from ..common.numba_rows import ONE, dense_axpy, njit, sparse_axpy


def dcd_apply_screen(X, data, indices, indptr, y, box, a, w, index, start, removed, fixed):
    """Apply a screening decision in place: ``a_i = 0`` for ``index[start:start + removed]``, ``a_i = C_i`` for the
    ``fixed`` entries after them, with ``w`` kept equal to ``Σ a_i y_i x_i`` (one row axpy per changed ``a_i``)."""
    for k in range(start, start + removed + fixed):
        i = np.uint64(index[k])
        new = 0.0 if k < start + removed else box[i]
        delta = new - a[i]
        if delta != 0.0:
            if X is None:
                sparse_axpy(delta * y[i], data, indices, np.uint64(indptr[i]), np.uint64(indptr[i + ONE]), w)
            else:
                dense_axpy(delta * y[i], X, i, w)
            a[i] = new


_COMPILED_SCREEN = None


def compiled_apply_screen():
    """:func:`dcd_apply_screen` compiled (built on first use)."""
    global _COMPILED_SCREEN
    if _COMPILED_SCREEN is None:
        _COMPILED_SCREEN = njit()(dcd_apply_screen)
    return _COMPILED_SCREEN


def screened_sets(st) -> tuple[np.ndarray, np.ndarray]:
    """The samples a coordinate plan's state has screened so far: ``(removed, fixed)``, proven ``a*_i = 0`` and
    ``a*_i = C_i`` (sorted indices; the pending ones by their place behind ``st.live``, the applied ones by their
    value, since ``C_i > 0``). The state's ``index`` holds the live samples, then the pending decisions (``removed``
    first), then the applied ones."""
    p0, p1 = st.pending
    pending = st.index[st.live:st.live + p0 + p1]
    done = st.index[st.live + p0 + p1:]
    at_zero = st.a[done] <= 0.0
    removed = np.concatenate([pending[:p0], done[at_zero]])
    fixed = np.concatenate([pending[p0:], done[~at_zero]])
    return np.sort(removed), np.sort(fixed)
