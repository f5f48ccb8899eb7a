"""The epochs of the Raj–Bach coordinate plans, in NumPy, over the constraint-system protocol (:mod:`.constraints`).

An epoch is ``len(idx)`` coordinate updates with the indices ``idx`` drawn outside, by the run's generator, so the
compiled twins of these functions (:mod:`.epochs_numba`, rows only) see the same indices; they do the same
arithmetic up to the order of the sums. Both return the largest coordinate residual ``|Δλ_i|_∞ / step_i`` met (the
projected violation of the sampled constraint where it was sampled): the plans' free test for when the full
certificate (one product with X) is worth computing.
"""
from __future__ import annotations

import numpy as np

from ...core.mirror import grad_half_sq_norm

RCD, SMD, PERCEPTRON = 0, 1, 2  # coordinate rules: RB Alg. 1, SMD eq. (10) corrected, the perceptron


def _mirror(u, q):
    """``θ = ∇ψ*(u)``; for p = 2 the identity (returns ``u`` itself, not a copy)."""
    return u if q == 2.0 else grad_half_sq_norm(u, q)


def numpy_coordinate_epoch(system, rule, step, idx, lam, u, q):
    """``len(idx)`` updates of RB Algorithm 1 (``RCD``), of SMD eq. (10) (``SMD``) or of the perceptron,
    in place on ``lam`` and ``u``; returns the largest coordinate residual ``|Δλ_i|_∞ / step_i`` met."""
    res = 0.0
    for i in idx:
        h = step[i]
        if h == 0.0:
            continue
        m = system.dot(i, _mirror(u, q))
        if rule == RCD:
            delta = system.prox_delta(i, lam[i], m, h)
        elif rule == SMD:
            delta = system.smd_delta(i, m, h)
        else:
            delta = 1.0 if m <= 0.0 else 0.0
        if np.any(delta != 0.0):
            res = max(res, float(np.max(np.abs(delta))) / h)
            lam[i] += delta
            system.add(i, delta, u)
    return res


def numpy_apcg_epoch(system, Linv, idx, alpha, ehat, ua, ue, scal, q, n=None):
    """``len(idx)`` steps of RB Algorithm 2 in the variables ``(α, ê, π, γ)`` (see
    :class:`~marginkit.plans.raj_bach.coordinate_ascent.AcceleratedDykstra`); ``scal = [γ, π]`` is updated in
    place; returns the largest coordinate residual ``|Δα_i|_∞ / τ_i`` met. ``n``: the number of coordinates the
    indices are drawn from (APCG's ``n``; all of them by default, the live ones after gap-safe screening)."""
    n = system.n if n is None else n
    res = 0.0
    gamma, pi = float(scal[0]), float(scal[1])
    if pi != 1.0:
        ehat *= pi
        ue *= pi
        pi = 1.0
    for i in idx:
        h = Linv[i]
        if h != 0.0:
            if q == 2.0:
                m = system.dot2(i, ua, ue, pi)
            else:
                m = system.dot(i, grad_half_sq_norm(ua + pi * ue, q))
            tau = h / (n * gamma)
            delta = system.prox_delta(i, alpha[i], m, tau)
            if np.any(delta != 0.0):
                res = max(res, float(np.max(np.abs(delta))) / tau)
                coef = (n * gamma - 1.0) * delta / pi
                alpha[i] += delta
                ehat[i] += coef
                system.add(i, delta, ua)
                system.add(i, coef, ue)
        g_next = 2.0 * gamma / (np.sqrt(gamma * gamma + 4.0) + gamma)
        pi *= 1.0 - g_next
        gamma = g_next
    scal[0], scal[1] = gamma, pi
    return res
