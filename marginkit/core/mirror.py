"""Mirror maps of ``ψ = ½||·||_p²`` (Raj & Bach §2.3), evaluated stably with max-scaled powers.

``∇ψ(θ) = ||θ||_p^{2−p} θ^{[p−1]}``, ``∇ψ*(u) = ||u||_q^{2−q} u^{[q−1]}`` with ``1/p + 1/q = 1`` and
``a^{[r]} = sign(a)|a|^r``. For ``q`` around 8 (the sparse setting ``p = 1 + 1/ln d``) the naive powers
overflow or underflow (``q ≈ 8.6`` for Raj & Bach's sparse perceptron, ``p = 1 + 1/ln d``, §3–4);
dividing by ``max|u|`` first keeps every power in ``[0, 1]``: ``||u||_q = m (Σ(|u_j|/m)^q)^{1/q}`` with
``m = max|u|``, then ``∇ψ*(u) = ||u||_q sign(u) (|u|/||u||_q)^{q−1}``.
"""
from __future__ import annotations

import numpy as np


def lp_norm(u: np.ndarray, p: float) -> float:
    m = float(np.max(np.abs(u))) if u.size else 0.0
    if m == 0.0:
        return 0.0
    if p == 2.0:
        return float(np.linalg.norm(u))
    return m * float(np.sum((np.abs(u) / m) ** p) ** (1.0 / p))


def grad_half_sq_norm(u: np.ndarray, p: float) -> np.ndarray:
    """``∇(½||·||_p²)(u) = ||u||_p · sign(u) · (|u|/||u||_p)^{p−1}`` (0 at 0)."""
    if p == 2.0:
        return np.array(u, dtype=float, copy=True)
    nrm = lp_norm(u, p)
    if nrm == 0.0:
        return np.zeros_like(u, dtype=float)
    return nrm * np.sign(u) * (np.abs(u) / nrm) ** (p - 1.0)


def conjugate_exponent(p: float) -> float:
    return p / (p - 1.0)


def grad_conjugate(u: np.ndarray, p: float) -> np.ndarray:
    """``∇ψ*(u) = ||u||_q^{2−q} u^{[q−1]}`` for ``ψ = ½||·||_p²``: the inverse of ``∇ψ`` (a new array)."""
    return grad_half_sq_norm(u, conjugate_exponent(p))


def bregman_lp(w: np.ndarray, w0, p: float) -> float:
    """``D_ψ(w, w0)`` for ``ψ = ½||·||_p²``; ``½||w||_p²`` when ``w0`` is None."""
    val = 0.5 * lp_norm(w, p) ** 2
    if w0 is None:
        return val
    g0 = grad_half_sq_norm(w0, p)
    return val - 0.5 * lp_norm(w0, p) ** 2 - float(g0 @ (w - w0))
