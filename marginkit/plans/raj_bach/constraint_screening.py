"""Gap-safe screening of inactive margin constraints for the Raj–Bach dual coordinate plans (``dykstra``,
``dykstra-accelerated``): the mixins :class:`ConstraintScreening` and :class:`AcceleratedScreening` of
:class:`~marginkit.plans.raj_bach.coordinate_ascent.DualCoordinatePlan` and its accelerated plan.

**Gap-safe screening** (option ``screening`` of ``dykstra`` and ``dykstra-accelerated``, default True; margins
only). *Proof.* For ``1 < p <= 2``, ``ψ = ½||·||_p²`` is ``(p − 1)``-strongly convex with respect to ``||·||_p``
(Ball, Carlen & Lieb, *Sharp uniform convexity and smoothness inequalities for trace norms*, Invent. Math. 115,
1994, Prop. 3), so ``D_ψ(θ*, θ) >= (p − 1)/2·||θ* − θ||_p²``. For λ in the dual domain, RB Prop. 1 gives
``D_ψ(θ*, θ(λ)) <= ψ_0(θ*) − D(λ)`` (``ψ_0 = D_ψ(·, θ0)``, the objective), and ``ψ_0(θ*) <= ψ_0(z)`` for every
feasible ``z``. With the feasible point of the certificate, ``z = θ(λ)/min_i a_iᵀθ(λ)``, the gap
``G = ψ_0(z) − D(λ)`` therefore gives

    ``||θ* − θ(λ)||_p <= r = √(2G/(p − 1))``

(the Gap Safe sphere of Ndiaye, Fercoq, Gramfort & Salmon, *Gap safe screening rules for sparsity enforcing
penalties*, JMLR 18(128), 2017, Theorem 6, here with the Bregman bound of RB Prop. 1 in place of the strong
concavity of the dual), and by Hölder ``|a_iᵀθ* − a_iᵀθ(λ)| <= r·||a_i||_q``. A margin constraint with
``a_iᵀθ(λ) − r||a_i||_q > 1`` is therefore inactive at the (unique) optimum ``θ*``; by complementary slackness every
optimal multiplier has ``λ*_i = 0``, and the problem without constraint ``i`` has the same optimum (``θ*`` is
feasible for it and optimal: the KKT conditions hold with ``λ_i = 0``). So the screened ``λ_i`` is set to 0
(``u −= a_iλ_i``) and the epochs never draw ``i`` again. The rule uses only a certified gap: it applies where the
certificate's primal value belongs to a feasible point, i.e. to margins when ``θ(λ)`` separates, and never to
interpolation (an equality constraint is never inactive, and its multiplier's sign is free) nor to
:class:`~marginkit.ProjectionOntoIntersection` (no feasible point is at hand, so the gap there bounds nothing; a
ball inside the interior of ``K_i`` would prove ``λ*_i = 0`` only with one). ``mirror-descent`` has no screening:
its iterates do not converge to ``θ*`` for margins (they stop at the first feasible point met), so a constraint
inactive at ``θ*`` may still be the one that stops them, and removing it would change what the method returns.

**Resolved here** (each in full in :class:`ConstraintScreening` and :class:`AcceleratedScreening`): the rounding
of the computed margins, of the gap and of the maintained ``u`` widens every interval (Higham 2002, §2.8); a step
screens from the full certificate of the state it makes at the epochs of the geometric schedule and applies the
decision at the start of the next step; after a screen the epochs draw from the live constraints only; and
``dykstra-accelerated`` restarts APCG on them. The certificate is always that of the full problem: screening never
changes what a status means. ``certificate["screened"]`` reports ``{"removed": k, "fixed": 0}``.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...core.mirror import grad_conjugate, lp_norm
from ...core.safe import EPS
from .constraints import BLOCK_ELEMENTS


class ConstraintScreening:
    """The screening half of a dual coordinate plan (module docstring); the plan supplies ``system``, ``p``, ``q``,
    ``norms_q``, ``objective``, ``psi_star_u0`` and its certificate pieces.

    *Rounding*: the computed margins carry at most ``(d + 20)·eps·||a_i||_q·||θ||_p`` of error (the dot product, and
    ``∇ψ*`` for p ≠ 2), which widens every interval; ``z`` is built with ``min_i a_iᵀθ`` lowered by that much, so it
    is feasible in exact arithmetic; the gap gets the rounding of its sums (``(n + d)·eps`` relative) and an
    allowance ``4√t·eps·||u||_q·ρ`` (``t`` coordinate steps, ``ρ`` the norm of the vectors ``u`` is kept in,
    :meth:`rounding_scale`) for the drift of the maintained ``u`` from ``u0 + Σ a_iλ_i`` (the random-walk growth of
    rounding errors; Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., 2002, §2.8); where the dual
    point was repaired into the domain (the accelerated ``v``), the radius grows by ``||u' − u||_q/(p − 1)``, the
    move of ``∇ψ*`` (``ψ*`` is ``1/(p − 1)``-smooth).

    *When*: a step computes the full certificate of the state it makes at the epochs of the geometric schedule
    (where the stop rule computes it anyway; the state keeps it, so the stop rule, the trace and the solution read
    the same one and screening costs no product with X), screens from it (:meth:`screen`), and applies the decision
    at the start of the next step (:meth:`apply_screen`).

    *Sampling*: until something is screened the epochs draw ``n`` indices in ``[0, n)`` exactly as without
    screening (the same iterates); after, an epoch draws ``m`` indices uniformly from the ``m`` live constraints.

    The certificate is always that of the full problem (every constraint in ``max_violation`` and in the feasible
    point, the full λ in ``D(λ)``): screening never changes what a status means. ``certificate["screened"]``
    reports ``{"removed": k, "fixed": 0}`` (the format of ``dual-cd``; a multiplier without an upper bound is never
    fixed)."""

    def screen(self, state) -> None:
        """Check ``state`` (just made, before anyone reads it): compute its full certificate (kept in
        ``state.cert``: the stop rule, trace and solution read that one) and the live margin constraints it proves
        inactive at the optimum, ``a_iᵀθ − 1 > r||a_i||_q`` plus rounding (``pending``, applied by the next step)."""
        dc = self._dual_certificate(state)
        theta = grad_conjugate(dc["u"], self.p)
        margins = self.system.matvec(theta)   # the certificate's one product with X
        cert = self._full_certificate(dc, theta, margins)
        state.cert = cert
        r = self.screening_radius(state, cert, dc, margins)
        if not np.isfinite(r):
            return
        live = np.arange(self.system.n) if state.live is None else state.live
        nq = self.norms_q[live]
        # rounding of the computed margins (dot product, and ∇ψ* for p ≠ 2) and of r·||a_i||_q
        rounding = (self.system.d + 20) * EPS * lp_norm(theta, self.p)
        half = nq * (r * (1.0 + (self.system.d + 8) * EPS) + rounding) + 4 * EPS
        out = margins[live] - 1.0 > half
        k = int(np.count_nonzero(out))
        if k:
            state.pending = live[out]
            state.screened += k

    def screening_radius(self, state, cert, dc, margins) -> float:
        """``r`` with ``||θ* − θ||_p <= r`` for the certificate's ``θ`` (module docstring), or ``inf`` when the
        certificate has no feasible point."""
        if not cert.get("separates", False) or not np.isfinite(cert["dual"]):
            return np.inf
        p, q, d, n = self.p, self.q, self.system.d, self.system.n
        theta = cert["theta"]
        # z = θ/(min_i a_iᵀθ − e): feasible in exact arithmetic (e bounds the rounding of every computed margin)
        low = float(margins.min()) - (d + 20) * EPS * float(self.norms_q.max()) * lp_norm(theta, p)
        if not low > 0.0:
            return np.inf
        primal = self.objective(theta / low)
        if low >= 1.0:
            primal = min(primal, self.objective(theta))
        dual = cert["dual"]
        uq = lp_norm(dc["u"], q)
        sums = (n + 4) * abs(self.system.linear_part(dc["lam"])) + (d + 8) * (abs(primal) + abs(dual) + uq * uq
                                                                             + self.psi_star_u0)
        drift = 4.0 * np.sqrt(state.t + 1.0) * uq * self.rounding_scale(state)
        gap = max(primal - dual, 0.0) + EPS * (sums + drift)
        return float(np.sqrt(2.0 * gap / (p - 1.0)) + dc["shift"] / (p - 1.0))

    def rounding_scale(self, state) -> float:
        """``||·||_q`` of the vectors the dual point's ``u`` is kept in (their rounding drifts)."""
        return lp_norm(state.u, self.q)

    def apply_screen(self, state):
        """``state`` with its pending screen applied: ``λ_i = 0`` (``u −= a_iλ_i``) and ``i`` out of ``live``."""
        lam, u = state.lam.copy(), state.u.copy()
        self._zero(lam, u, state.pending)
        return replace(state, lam=lam, u=u, live=self._live_after(state), pending=None)

    def screened_sets(self, state) -> tuple[np.ndarray, np.ndarray]:
        """The constraints ``state`` has screened so far, ``(removed, fixed)`` as for ``dual-cd``: the proven
        inactive ones (``λ*_i = 0``, sorted; pending ones included) and none fixed (``λ_i`` has no upper bound)."""
        out = np.zeros(0, dtype=np.int64)
        if state.live is not None:
            out = np.setdiff1d(np.arange(self.system.n), state.live, assume_unique=True)
        if state.pending is not None:
            out = np.union1d(out, state.pending)
        return out.astype(np.int64), np.zeros(0, dtype=np.int64)

    def _live_after(self, state):
        live = np.arange(self.system.n) if state.live is None else state.live
        return np.setdiff1d(live, state.pending, assume_unique=True)

    def _zero(self, lam, u, rows) -> None:
        """``λ_i = 0`` for ``rows``, with ``u`` kept equal to ``u0 + Σ a_iλ_i`` (in place; row blocks)."""
        sys_ = self.system
        rows = rows[lam[rows] != 0.0]
        block = max(1, BLOCK_ELEMENTS // max(sys_.d, 1))   # X[rows] copies its rows: bounded blocks
        for b in range(0, len(rows), block):
            r = rows[b:b + block]
            u -= np.asarray(sys_.X[r].T @ (sys_.s[r] * lam[r])).ravel()
        lam[rows] = 0.0


class AcceleratedScreening:
    """The accelerated plan's screen: a restart of APCG on the live constraints.

    ``dykstra-accelerated`` applies a screen by restarting Algorithm 2 (APCG) on the live constraints from the
    certified point ``v`` (repaired, screened entries set to 0): ``ê = 0``, ``γ = 1/m``, ``π = 1``. Each restart is
    a fresh APCG run on a problem with the same optimum, and each removes at least one constraint, so there are at
    most ``n`` of them and the rate of the last run holds from there on."""

    def apply_screen(self, state):
        """A screen applied by restarting APCG on the live constraints (the class docstring): from the certified
        point (``v``, or ``α`` with ``output="alpha"``), repaired into the domain, with the screened entries set to
        0; ``ê = 0``, ``γ = 1/m``, ``π = 1``."""
        lam, u = self.dual_point(state)
        lam_f, u_f = self.system.repair(lam, u)
        lam_f = np.array(lam_f, dtype=float)   # copies: the state's arrays are never written
        u_f = np.array(u_f, dtype=float)
        self._zero(lam_f, u_f, state.pending)
        live = self._live_after(state)
        return replace(state, lam=lam_f, u=u_f, e_hat=np.zeros_like(lam_f), u_e=np.zeros_like(u_f),
                       gamma=1.0 / max(len(live), 1), pi=1.0, live=live, pending=None)

    def rounding_scale(self, state) -> float:
        if self.output == "alpha" or state.t == 0 or state.gamma >= 1.0:
            return lp_norm(state.u, self.q)
        return lp_norm(state.u, self.q) + state.pi / (1.0 - state.gamma) * lp_norm(state.u_e, self.q)
