"""The hinge-dual iteration of :mod:`.diagonal` where ``X`` lives (issue 13): array-API libraries (torch, CuPy,
``array-api-strict``) and row-chunked dask, through the problem's :class:`~marginkit.core.backend.Backend`.

The NumPy plans do not call this module: their code is the one of :mod:`.diagonal`, unchanged. Here the dual iterate
``u`` and the margins ``s = Zw`` are n-side vectors (``bk.xp``), ``w = −Zᵀu`` a d-side vector (``bk.xd``); on an
array-API device the certified bound of a step (``||Zᵀa||/Σa``, AP §5, the weak-duality bound of
:mod:`..common.margin`) stays a 0-d array, so a step never waits for the device; only ``stop``/``measure``/``solution``
bring scalars to the host (:meth:`Backend.float`).
"""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse.linalg as spla

from ...core.linalg import largest_eigenvalue

GRAM_BELOW = 500   # as core.linalg.spectral_norm_sq: the d×d (or n×n) Gram matrix is formed below this size


def spectral_norm_sq_on(X, bk, tol: float = 1e-6, seed: int = 0) -> float:
    """``||X||_2²`` for ``X`` of the backend ``bk``: the small Gram matrix ``XᵀX`` (or ``XXᵀ``) is formed where ``X``
    lives and its exact top eigenvalue taken on the host (the same rule and rounding-up as
    :func:`~marginkit.core.linalg.spectral_norm_sq`, so the step ``1/||Q||_op`` equals the NumPy run's to rounding);
    beyond, Lanczos on ``v -> Xᵀ(Xv)`` with the products where ``X`` lives (inflated by ``10 tol``)."""
    n, d = X.shape
    if d <= GRAM_BELOW or n <= GRAM_BELOW:
        if bk.kind == "dask":
            G = np.asarray((X.T @ X if d <= GRAM_BELOW else X @ X.T).compute())
        else:
            XT = bk.xp.matrix_transpose(X)
            G = bk.host(XT @ X if d <= GRAM_BELOW else X @ XT)
        size = G.shape[0]
        return largest_eigenvalue(G, size, dense=lambda: G, exact_below=size)

    def gram_matvec(v):
        return bk.host(bk.rmatvec(X, bk.matvec(X, bk.asarray_d(np.ravel(v))))).ravel()
    op = spla.LinearOperator((d, d), matvec=gram_matvec, dtype=float)
    return largest_eigenvalue(op, d, tol=tol, inflation=10 * tol, seed=seed)


def clip(bk, x, lo, hi):
    """``min(max(x, lo), hi)`` elementwise on the n-side (``None``: no bound), persisted on dask."""
    if bk.kind == "dask":
        return bk.persist(bk.xp.clip(x, lo, hi))
    return bk.xp.clip(x, min=lo, max=hi)


def dual_step(bk, u, s, step: float, inv_lam: float):
    """:func:`.diagonal.hinge_dual_step` where ``u`` lives: ``P_{[−1/λ,0]^n}(u + γs − γ)`` (AP (4.1)–(4.2))."""
    return clip(bk, u + step * s - step, -inv_lam, 0.0)


def norm_sq(bk, u, s):
    """``||w||² = −u·s`` clipped at 0 (:func:`.diagonal.norm_sq`): a 0-d array on an array-API device, else a float."""
    if bk.kind == "array-api":
        return bk.xp.clip(-bk.vdot(u, s), min=0.0)
    return max(-bk.float(bk.vdot(u, s)), 0.0)


def certify(bk, bound, u, s):
    """``min(bound, ||Zᵀa||/Σa)`` with ``a = −u`` (the bound of :meth:`.diagonal.DiagonalDescent.certify`), without a
    synchronisation on an array-API device (a 0-d array; ``Σa <= 0`` keeps ``bound``)."""
    mass = -bk.lazy_sum(u)
    nsq = norm_sq(bk, u, s)
    if bk.kind != "array-api":
        return min(bound, math.sqrt(nsq) / mass) if mass > 0 else bound
    xp = bk.xp
    ok = mass > 0
    return bk.minimum(bound, xp.where(ok, xp.sqrt(nsq) / xp.where(ok, mass, 1.0), math.inf))


def host_norm_sq(bk, u, s) -> float:
    return max(-bk.float(bk.vdot(u, s)), 0.0)


def margin(bk, u, s) -> float:
    """Normalised margin ``min_i s_i / ||w||`` of ``w = −Zᵀu`` (two scalars to the host)."""
    nw = math.sqrt(host_norm_sq(bk, u, s))
    return 0.0 if nw == 0.0 else bk.float(bk.xp.min(s)) / nw


def measure(bk, st) -> dict:
    """The trace record of :meth:`.diagonal.DiagonalDescent.measure` (scalars to the host)."""
    m, nsq, ub = margin(bk, st.u, st.s), host_norm_sq(bk, st.u, st.s), bk.float(st.dual_bound)
    return {"margin": m, "margin_upper": ub, "gap_bound": ub - m, "norm_w": math.sqrt(nsq),
            "dual_potential": 0.5 * nsq + bk.float(bk.xp.sum(st.u))}


def svm_values(bk, st, C: float):
    """``(P(w), 1ᵀa − ½||w||²)`` of :meth:`.diagonal.SoftMarginDiagonal.values` (``Σ max(0, 1 − s_i)`` where ``s``
    lives)."""
    half_nsq = 0.5 * host_norm_sq(bk, st.u, st.s)
    hinge = bk.float(bk.xp.sum(clip(bk, 1.0 - st.s, 0.0, None)))
    return half_nsq + C * hinge, -bk.float(bk.xp.sum(st.u)) - half_nsq


def read_out(bk, st) -> dict:
    """``w`` in the user's namespace; the dual iterate as NumPy host copies (``u`` and ``a = −u`` warm-start any
    run, and a saved result keeps them)."""
    u = bk.host(st.u)
    return {"w": bk.xd.asarray(st.w, copy=True), "dual": {"u": u, "a": -u}, "dual_coef": None}


def finite(bk, st) -> bool:
    """The run loop's guard for a state on dask: ``u`` and ``s`` finite (one scalar to the driver; ``w`` follows
    from them, and a NumPy ``w`` of a dask run is also checked)."""
    total = bk.float(bk.xp.sum(st.u) + bk.xp.sum(st.s))
    return math.isfinite(total) and (not isinstance(st.w, np.ndarray) or bool(np.isfinite(st.w).all()))
