"""Gap-safe screening in the compiled dual coordinate epochs: a screening decision applied in place (and the
other compiled reordering of ``dual-cd``'s index array, the restore of its shrinking).

The proof that the screened samples are at their bound at the optimum is in :mod:`.svm_coordinate`'s docstring
(Ndiaye, Fercoq, Gramfort & Salmon, JMLR 18, 2017, Theorem 6, for the hinge loss); this module only moves the proven
multipliers to their bound and keeps ``w = Σ a_i y_i x_i``, written once for NumPy and numba
(:mod:`marginkit.plans.common.numba_rows`).
"""
from __future__ import annotations

import numpy as np

from ...core.safe import EPS, gap_radius
from ..common.numba_rows import ONE, compiled_once, dense_axpy, jitable, sparse_axpy


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


@jitable
def stable_partition(index, live, group, count):
    """Reorder ``index[:live]`` in place into its groups ``0, 1, ...`` (``group[k]`` the group of ``index[k]``,
    ``count[g]`` the size of group ``g``), each group in its own order."""
    start = np.zeros(count.shape[0], dtype=np.int64)
    for g in range(1, count.shape[0]):
        start[g] = start[g - 1] + count[g - 1]
    order = np.empty(live, dtype=index.dtype)
    for k in range(live):
        g = group[k]
        order[start[g]] = index[k]
        start[g] += 1
    index[:live] = order


def dcd_screen_order(G, norms, index, live, active, r, slack):
    """The screening decision of :meth:`GapSafeScreening.screen` on ``index[:live]``, in place: with
    ``half_i = r·||x_i|| + slack·||x_i|| + 4·eps``, a coordinate with ``G_i − half_i > 0`` is removed (``a*_i = 0``)
    and one with ``G_i + half_i < 0`` fixed (``a*_i = C_i``); ``index[:live]`` becomes the kept active coordinates,
    the kept shrunk ones (each in its order), the removed, then the fixed. Returns ``(active, removed, fixed)``,
    the counts after the decision (nothing moves when none is screened)."""
    group = np.empty(live, dtype=np.int8)   # 0 kept active, 1 kept shrunk, 2 removed, 3 fixed
    count = np.zeros(4, dtype=np.int64)
    for k in range(live):
        i = index[k]
        half = r * norms[i] + slack * norms[i] + 4 * EPS
        g = G[i]
        if g - half > 0.0:
            c = 2
        elif g + half < 0.0:
            c = 3
        elif k < active:
            c = 0
        else:
            c = 1
        group[k] = c
        count[c] += 1
    if count[2] + count[3] == 0:
        return active, 0, 0
    stable_partition(index, live, group, count)
    return count[0], count[2], count[3]


def dcd_restore(G, a, box, index, live, above, below):
    """The restore of ``dual-cd``'s shrinking (:meth:`.svm_coordinate.DualCoordinateDescent.reactivate`) on
    ``index[:live]``, in place: a coordinate stays shrunk if ``a_i <= 0`` and ``G_i > above``, or ``a_i >= C_i`` and
    ``G_i < below``; the others come first, then the shrunk ones (each in its order). Returns the number of the
    others (the new active count)."""
    group = np.empty(live, dtype=np.int8)   # 0 active, 1 stays shrunk
    count = np.zeros(2, dtype=np.int64)
    for k in range(live):
        i = index[k]
        g = G[i]
        ai = a[i]
        c = 1 if (ai <= 0.0 and g > above) or (ai >= box[i] and g < below) else 0
        group[k] = c
        count[c] += 1
    if count[1] > 0:
        stable_partition(index, live, group, count)
    return count[0]


compiled_apply_screen = compiled_once(dcd_apply_screen)
compiled_screen_order = compiled_once(dcd_screen_order)
compiled_restore = compiled_once(dcd_restore)


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


class GapSafeScreening:
    """The screening of :class:`~.svm_coordinate.DualCoordinateDescent` (its module docstring has the rule and its
    proof): a warm start's screened sets, the decision at a certificate check, and the sets screened so far. The plan
    provides ``n``, ``d``, ``box``, ``y``, ``movable`` (the samples with ``C_i > 0``), ``norms`` (``||x_i||``) and
    ``Xop``."""

    def start_screened(self, st, removed, fixed) -> None:
        """Start with the samples ``removed`` (proven ``a*_i = 0``) and ``fixed`` (proven ``a*_i = C_i``) screened:
        their ``a_i`` set, ``w`` recomputed from ``a`` (one product with X) and the indices put behind ``live``. The
        proof is the caller's (:func:`marginkit.api.path.sequential_screen`); samples with ``C_i = 0`` are ignored."""
        out = np.zeros(self.n, dtype=np.int8)
        out[np.asarray(removed, dtype=np.int64)] = 1
        out[np.asarray(fixed, dtype=np.int64)] = 2
        out[self.box <= 0.0] = 0
        if not out.any():
            return
        st.a[out == 1] = 0.0
        st.a[out == 2] = self.box[out == 2]
        st.w = np.asarray(self.Xop.T @ (st.a * self.y)).ravel()
        mark = out[self.movable]
        st.index = np.concatenate([self.movable[mark == 0], self.movable[mark == 1], self.movable[mark == 2]])
        st.live = st.active = int(np.count_nonzero(mark == 0))
        st.removed, st.fixed = int(np.count_nonzero(mark == 1)), int(np.count_nonzero(mark == 2))

    def screen(self, st, G) -> None:
        """Gap-safe screening at a certificate check (module docstring): with ``r = √(2(P(w) − D(a)))`` from
        :func:`marginkit.core.safe.gap_radius`, the coordinates of ``index[:live]`` whose margin interval
        ``y_i x_iᵀw ± r||x_i||`` lies above 1 (``a*_i = 0``) or below 1 (``a*_i = C_i``) move behind ``live``, the
        first to 0 and the second to ``C_i`` (``pending``, applied by the next round). The active/shrunk order of the
        others is kept. ``G = y ∘ Xw − 1`` are the certificate's margins minus 1."""
        r = gap_radius({"primal": st.primal, "dual": st.dual})
        if not np.isfinite(r):
            return
        # the rounding of the margins: |fl(x_iᵀw) − x_iᵀw| <= (d + 2)·eps·||x_i||·||w|| (and of the subtraction of 1);
        # an interval above 1 (G_i − half_i > 0) is removed, one below 1 fixed (the compiled screen_order)
        slack = (self.d + 2) * EPS * float(np.sqrt(st.w @ st.w))
        # in place: ``st`` is the state being built (init, step), whose index array no other state holds
        active, removed, fixed = self.screen_order(G, self.norms, st.index, st.live, st.active, r, slack)
        if removed + fixed == 0:
            return
        st.active = int(active)
        st.live -= int(removed + fixed)
        st.pending = (int(removed), int(fixed))
        st.removed += st.pending[0]
        st.fixed += st.pending[1]

    def screened_sets(self, st) -> tuple[np.ndarray, np.ndarray]:
        """The samples screened so far: ``(removed, fixed)`` (:func:`.screening.screened_sets`)."""
        return screened_sets(st)

