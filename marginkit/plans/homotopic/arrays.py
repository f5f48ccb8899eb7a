"""The homotopic subgradient plan of :mod:`.homotopic` where ``X`` lives (issue 13): array-API libraries (torch, CuPy,
``array-api-strict``) and row-chunked dask, through the problem's :class:`~marginkit.core.backend.Backend`.

The NumPy plan does not call this module (its code is the one of :mod:`.homotopic`, unchanged). Here the margins
``s``, the dual weights ``a`` and the labels are n-side vectors (``bk.xp``; persisted on dask, so the task graph does
not grow across steps), ``w`` and ``w_pos`` d-side (``bk.xd``). The learned offset and the certified bound
``||Zᵀa||/Σa`` (MNW's iterates are ``Zᵀa``, ``a >= 0``; weak duality, :mod:`..common.margin`) stay 0-d arrays on an
array-API device; the scalars of ``stop``/``measure``/``solution`` come to the host (:meth:`Backend.float`).
``output="best"`` compares ``f_λ`` of two iterates at every step: one scalar to the host per step there.
"""
from __future__ import annotations

import math

import numpy as np


def as_float(bk, cond):
    """A boolean n-vector as 0.0/1.0 in ``X``'s dtype."""
    return cond.astype(float) if bk.kind == "dask" else bk.xp.astype(cond, bk.dtype)


def masked_min(bk, s, sel) -> float:
    """``min_{sel} s_i`` as a float (``inf`` for an empty selection)."""
    return bk.float(bk.xp.min(bk.xp.where(sel, s, math.inf)))


def ratio(bk, num, den):
    """``num/den`` when ``den > 0``, else ``inf``: floats on dask, a 0-d array (no synchronisation) on a device."""
    if bk.kind != "array-api":
        return num / den if den > 0 else math.inf
    xp = bk.xp
    ok = den > 0
    return xp.where(ok, num / xp.where(ok, den, 1.0), math.inf)


def persist_point(bk, p):
    """On dask, the point's n-vectors materialised (``s``, ``a``); elsewhere the point itself."""
    if bk.kind == "dask":
        import dask
        p.s, p.a = dask.persist(p.s, p.a)
    return p


def margin_upper_bound(Z, bk, pos, bias: bool, steps: int) -> float:
    """:func:`.homotopic.margin_upper_bound` where ``X`` lives: the same Frank–Wolfe (Gilbert) steps on
    ``min_q ½||Zᵀq||²`` over the simplex (with a bias ``½`` per class), the vertex index found where the margins live
    (one integer to the host per step) and the row ``z_i`` read from ``X``. The simplex weights ``q`` need not be
    stored (only ``v = Zᵀq`` enters the bound)."""
    n = Z.n
    pos_h = bk.host(pos).astype(bool)
    q = (np.where(pos_h, 0.5 / max(pos_h.sum(), 1), 0.5 / max((~pos_h).sum(), 1)) if bias
         else np.full(n, 1.0 / n))
    v = Z.rmatvec(bk.asarray_n(q))
    best = bk.norm(v)
    xp = bk.xp
    for _ in range(steps):
        s = Z.matvec(v)
        if bias:
            i = int(bk.float(xp.argmin(xp.where(pos, s, math.inf))))
            j = int(bk.float(xp.argmin(xp.where(pos, math.inf, s))))
            vertex = 0.5 * (Z.row(i) + Z.row(j))
        else:
            vertex = Z.row(int(bk.float(xp.argmin(s))))
        d = vertex - v
        dd = bk.float(bk.vdot(d, d))
        if dd <= 0.0:
            break
        step = min(1.0, max(0.0, -bk.float(bk.vdot(v, d)) / dd))
        if step == 0.0:
            break
        v = v + step * d
        best = min(best, bk.norm(v))
    return best


def active_sum(bk, X, Z, y, act, posf, bias: bool):
    """``Σ_{active} y_i x_i`` (one product with ``Xᵀ``), and with a bias its positive-class part (one product with
    the two columns ``c⊙pos``, ``c⊙neg``)."""
    if not bias:
        return Z.rmatvec(act), None
    c = y * act
    xp = bk.xp
    M = xp.stack([c * posf, c - c * posf], axis=1)
    if bk.kind == "dask":
        G = np.asarray((X.T @ M).compute())
    else:
        G = xp.matrix_transpose(X) @ M
    return G[:, 0] + G[:, 1], G[:, 0]


def bound(bk, p, pos, bias: bool):
    """The certified bound of :meth:`.homotopic.HomotopicSubgradient.bound` at ``p`` (lazy on a device)."""
    if not bias:
        return ratio(bk, bk.lazy_norm(p.w), bk.lazy_sum(p.a))
    xp = bk.xp
    m_pos, m_neg = bk.lazy_sum(xp.where(pos, p.a, 0.0)), bk.lazy_sum(xp.where(pos, 0.0, p.a))
    if bk.kind != "array-api":
        if m_pos <= 0 or m_neg <= 0:
            return math.inf
        return bk.norm(p.w_pos / (2 * m_pos) + (p.w - p.w_pos) / (2 * m_neg))
    ok = (m_pos > 0) & (m_neg > 0)
    vec = p.w_pos / (2 * xp.where(ok, m_pos, 1.0)) + (p.w - p.w_pos) / (2 * xp.where(ok, m_neg, 1.0))
    return xp.where(ok, xp.linalg.vector_norm(vec), math.inf)


def stage_objective(bk, p, y, sigma: float, lam: float) -> float:
    hinge = bk.float(bk.xp.sum(bk.xp.clip(1.0 - (p.s + y * p.b), 0.0, None) if bk.kind == "dask"
                               else bk.xp.clip(1.0 - (p.s + y * p.b), min=0.0)))
    return sigma * hinge + 0.5 * lam * bk.float(bk.vdot(p.w, p.w))


def point_margin(bk, p, pos, bias: bool) -> float:
    nw = bk.norm(p.w)
    if nw == 0.0:
        return 0.0
    if bias:
        return 0.5 * (masked_min(bk, p.s, pos) + masked_min(bk, p.s, ~pos)) / nw
    return bk.float(bk.xp.min(p.s)) / nw


def posthoc_bias(bk, p, pos) -> float:
    return -0.5 * (-masked_min(bk, p.s, ~pos) + masked_min(bk, p.s, pos))


def finite(bk, points) -> bool:
    """One scalar to the host: the sum of every entry of the points (NaN or inf iff an entry is, or overflows)."""
    xp = bk.xp
    if bk.kind == "dask":
        total = bk.float(sum(xp.sum(p.s) + xp.sum(p.a) for p in points))
        return math.isfinite(total + sum(float(np.sum(p.w)) + float(p.b) for p in points))
    total = sum(xp.sum(p.s) + xp.sum(p.a) + xp.sum(p.w) + p.b for p in points)
    return math.isfinite(bk.float(total))
