"""FISTA on SVM duals (Hough & Vavasis 2025, §3–§4.2): the perturbed dual (15) and the soft-margin dual (12).

Reference: M. Hough, S. A. Vavasis, *Data-dependent complexity of first-order methods for binary classification*
(2025): the soft-margin dual (12) and the set Ω (13)–(14) of §3.1, the perturbed dual (15) with Theorems 3.1–3.2
of §3.2 and its parameters (§3.4), the offset (27) of §3.6 and the early stopping of §4.2.

* ``fista`` for :class:`~marginkit.PerturbedSVMDual` (:class:`PerturbedDualFista`): Algorithm SVM-FISTA, V-FISTA on
  the μ-strongly concave dual (15), the distance bound of Theorem 3.2, the guarded early stopping of §4.2 and the
  offset (27) (Algorithm OFFSET).
* ``fista`` for :class:`~marginkit.SoftMarginSVM` (:class:`SoftMarginFista`): FISTA with function restart on the
  dual (12), the same knapsack projection onto Ω (13)–(14), a primal–dual gap stop.
* ``PerturbedSVMPrimal`` (20) reaches :class:`PerturbedDualFista` through a reduction (its ``(w, t)`` are the same).
* Both run where ``X`` lives (issue 13, ``core/backend.py``): on torch/CuPy/array-api-strict the n-vectors, ``θ``,
  ``β``, the restart test and ``G_k`` stay on the device (the knapsack multiplier and the offset by the fixed-length
  bracket searches of :class:`~marginkit.operators.projections.Bracket`), the host sees scalars only in ``stop``,
  ``measure`` and ``solution`` (and ``p = |T|/n`` per step for the early stop, ``μ > 0``); on dask ``X`` stays
  chunked and the multiplier and offset use the NumPy finders on host copies of the n-vector.

The iteration itself is :func:`marginkit.plans.common.fista.fista_step` (the projection of
:func:`~marginkit.operators.projections.project_svm_dual` injected as its ``prox``). Paper symbols: the FISTA momentum
scalar is ``theta`` (the paper's ``t_k``, a letter HV also use for the offset); the extrapolated point is ``z`` (the
paper's ``y_k``, renamed to keep ``y`` for the labels).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import scipy.sparse.linalg as spla

from ...core.backend import NUMPY
from ...core.linalg import largest_eigenvalue, spectral_norm_sq
from ...core.params import Interval, Options
from ...core.solution import Solution
from ...core.validation import ProblemError
from ...core.warmstart import parse_warm_start
from ...engine.runloop import IterationPlan
from ...operators.hinge import best_offset, best_offset_xp, smoothed_hinge, smoothed_hinge_xp, weighted_best_offset
from ...operators.projections import (GRID_FRACTIONS, PROJECTIONS, Bracket, project_box_knapsack, project_svm_dual,
                                      weighted_projection)
from ..common.fista import RESTARTS, Momentum, MomentumRule, Point, constant_momentum, fista_step

# the options both dual plans share, declared once
DUAL_CONSTRAINTS = {"stop": [Options("early", "tol")], "variant": [None, Options("v-fista", "fista")],
                    "projection": [Options(*PROJECTIONS)], "restart": [None, Options(*RESTARTS)],
                    "delta_min": [Interval(float, 0, None)], "stale_max": [Interval(int, 1, None)],
                    "min_iter": [Interval(int, 0, None)]}


@dataclass
class SVMState:
    k: int
    x: Point                 # r_k ∈ Ω (the paper's (u_k, v_k), in the order of the rows of X) and HHᵀr_k = y∘(Xw)
    w: np.ndarray | None     # Hᵀr_k = Xᵀ(y∘r_k) (None with a kernel)
    z: Point                 # the extrapolated point z_k (the paper's y_k) and HHᵀz_k, carried by linearity
    momentum: Momentum = Momentum()
    grad_map: float = np.inf  # G_k = ||z_{k−1} − r_k||
    dist_bound: float = np.inf  # D_k = (2L/μ) G_k >= ||r_k − r*|| (Theorem 3.2)
    certified: np.ndarray = None  # T (boolean mask): certified r*_i < γ, never removed
    p_best: float = 0.0
    stale: int = 0
    tau: float = None        # multiplier of yᵀa = 0 in the last projection (warm start of the next one)
    vals: tuple = None       # (P, g, b) of this state, computed once (shared by stop, measure and solution)

    @property
    def r(self) -> np.ndarray:
        return self.x.blocks[0]

    @property
    def Qr(self) -> np.ndarray:
        return self.x.images[0]


class SVMDualFista(IterationPlan):
    """FISTA on ``max_{a ∈ Ω} g(a) = −½||Hᵀa||² + eᵀa − (μ/2)||a||²``, ``H = diag(y)X`` (``K`` for kernels),
    ``Ω = {0 <= a <= γ}`` intersected with ``{yᵀa = 0}`` when there is an offset (HV §3.1)::

        r_{k+1} = proj_Ω(z_k + ∇g(z_k)/L),     ∇g(z) = e − HHᵀz − μz,     L = μ + ||H||²
        z_{k+1} = r_{k+1} + β_k (r_{k+1} − r_k)

    ``variant="v-fista"`` (needs ``μ > 0``): ``β = (√κ − 1)/(√κ + 1)``, ``κ = L/μ`` (Beck §10.7.7, Thm 10.42:
    ``||r_k − r*||² <= (1 − 1/√κ)^k (2(g* − g(r_0))/μ + ||r_0 − r*||²)``); ``variant="fista"``: the θ-sequence
    (``None``: V-FISTA when ``μ > 0``; the variant in use is ``plan.momentum_variant``).
    ``restart="gradient"`` resets the momentum when ``(z_k − r_{k+1})ᵀ(r_{k+1} − r_k) > 0``, ``restart="function"``
    when the dual value decreases, ``g(r_{k+1}) < g(r_k)`` (both O'Donoghue & Candès; not in the paper; the
    function scheme is the default of the soft-margin dual (12): on the a9a-like data the gradient scheme fired
    every ~1,500 iterations and needed 10,741 iterations to a 1e-4 gap against 8,671). ``restart_min`` spaces
    the resets (at least that many iterations apart).

    Certificate: the primal value ``P(w, b)`` at ``w = Hᵀr``, ``b = argmin_t P(w, t)`` (Algorithm OFFSET) minus
    ``g(r)``, both for the problem's own ``μ`` (0 for the SVM). With ``μ > 0`` also Theorem 3.2:
    ``||r_{k+1} − r*|| <= D_k = (2L/μ)||z_k − r_{k+1}||``; the gradient mapping is taken at the extrapolated point
    ``z_k`` (**typo resolved**: §3.5.1 and §4.2 write ``||(u_k,v_k) − (u_{k+1},v_{k+1})||``; Theorem 3.2 bounds the
    step taken from the point where the gradient is evaluated, which for FISTA is ``z_k``, so only this version is
    proved), and ``i`` joins the certified set ``T`` when ``γ − r_{k+1,i} > D_k`` (then ``r*_i < γ``).

    ``stop="early"`` (§4.2): ``p = |T|/n``; a step is stale when ``p <= p_best + delta_min``; stop after
    ``stale_max`` stale steps. **Ambiguity resolved (stall guard)**: stale steps are counted only after the first
    certification (``p_best > 0``) and not before ``min_iter``; taken literally the rule stops at iteration 2 with
    ``T = ∅``. The early stop (or ``D_k <= tol·γ``) reports ``optimal`` only when the relative gap
    ``<= tol``, else ``optimal_inaccurate``. ``stop="tol"``: stop when that gap is ``<= tol``. The relative gap is
    certified and scale-free: ``(P − g)/g`` (``g > 0``, a lower bound on the SVM's optimal ``P*``) when the
    problem is the SVM primal, ``(P − g)/P`` (``g >= 0``, ``P`` an upper bound on the dual's optimum) when the
    problem is the perturbed dual (a maximisation); ``inf`` (never ``optimal``) without such a bound.

    A subclass says which μ the iteration uses and which one the certificate refers to (:meth:`mus`).
    """

    name = "fista"
    default_max_iter = 10000
    default_tol = 1e-6
    log_columns = ("objective", "duality_gap", "gradient_mapping")

    def mus(self) -> tuple[float, float]:
        """``(μ of the problem, for the certificate; μ of the dual the iteration maximises)``."""
        raise NotImplementedError

    bk = NUMPY       # where X lives (core/backend.py); setup sets the problem's
    dev = False      # X is not on the host: vectors and the scalars of a step stay where X lives

    def setup(self):
        form = self.form
        self.y = form.y
        self.n = form.n
        self.kernel = getattr(form, "kernel", None)
        # γ of (12)/(15); with sample weights the per-sample box C_i = C·s_i (an array, see weighted_projection)
        weighted = form.form == "SoftMarginSVM" and form.weighted
        self.box = np.asarray(form.box, float) if weighted else float(form.C) if form.form == "SoftMarginSVM" \
            else float(form.gamma)
        self.box_max = float(np.max(self.box))
        self.bk = bk = getattr(form, "backend", NUMPY)
        self.dev = not bk.on_host
        if self.dev:
            self.setup_where_the_data_live(form, weighted)
        self.equality = bool(getattr(form, "bias", True))
        self.mu_problem, self.mu_dual = self.mus()
        self.momentum_variant = self.variant or ("v-fista" if self.mu_dual > 0 else "fista")
        if self.dev:
            self.X = form.X
            H2 = self.spectral_norm_sq_where_the_data_live()
        elif self.kernel is None:
            self.X = form.X
            H2 = spectral_norm_sq(form.X)
        else:
            self.K = form.gram()
            Ks = 0.5 * (self.K + self.K.T)
            H2 = largest_eigenvalue(Ks, Ks.shape[0], dense=lambda: Ks, exact_below=Ks.shape[0])
        L = self.mu_dual + max(H2, 0.0)
        self.L = L if L != 0.0 else 1.0
        self.kappa = self.L / self.mu_dual if self.mu_dual > 0 else np.inf
        beta = float(constant_momentum(self.kappa)) if self.momentum_variant == "v-fista" else None
        self.rule = MomentumRule(beta=beta, restart=self.restart, restart_min=getattr(self.config, "restart_min", 1),
                                 xp=bk.xp if self.dev and bk.kind == "array-api" else None)

    def setup_where_the_data_live(self, form, weighted: bool):
        """The constants of the device path (issue 13): the box on the n-side (``form.box_n``, or a 0-d γ), the
        knapsack's target ``Σ_{y=+1} C_i`` and the bracket searches of the projection and the offset. On dask the
        multiplier and the offset are found by the NumPy finders on a host copy of the n-vector (one gather of ``n``
        floats per step; ``X`` stays chunked): a bracket search of fixed length builds a graph of a few hundred
        reductions per step, which dask's scheduler runs two orders of magnitude slower."""
        bk, xp = self.bk, self.bk.xp
        zero = xp.zeros_like(self.y[0])
        self.weighted = weighted
        self.ub = form.box_n if weighted else zero + self.box
        self.br = Bracket(xp, zero, bk.asarray_d(GRID_FRACTIONS))
        self.y_host = y_host = bk.host(self.y)
        self.n_pos = int(np.count_nonzero(y_host > 0))
        self.target = xp.sum(xp.where(self.y > zero, self.ub, zero)) if weighted else zero + self.box * self.n_pos

    def spectral_norm_sq_where_the_data_live(self) -> float:
        """``||X||²``: the eigenvalue of the small Gram matrix (``XᵀX`` or ``XXᵀ``, formed where X lives and copied to
        the host: the same number as :func:`~marginkit.core.linalg.spectral_norm_sq` up to rounding), else Lanczos
        on host vectors through the backend's products."""
        bk, X = self.bk, self.X
        n, d = X.shape
        if d <= 500 or n <= 500:
            G = bk.host(X.T @ X if d <= 500 else X @ X.T)
            m = G.shape[0]
            return largest_eigenvalue(G, m, dense=lambda: G, exact_below=m)
        op = spla.LinearOperator((d, d), dtype=float,
                                 matvec=lambda v: bk.host(bk.rmatvec(X, bk.matvec(X, bk.asarray_d(np.ravel(v))))))
        return largest_eigenvalue(op, d, tol=1e-6, inflation=1e-5, seed=0)

    # the data operator ----------------------------------------------------------------------------
    def apply(self, a):
        """``(Hᵀa, HHᵀa)``: ``w = Xᵀ(y∘a)`` and ``y ∘ (Xw)`` (``(None, y ∘ K(y∘a))`` with a kernel)."""
        ya = self.y * a
        if self.dev:
            w = self.bk.rmatvec(self.X, ya)
            return w, self.bk.persist(self.y * self.bk.matvec(self.X, w))
        if self.kernel is not None:
            return None, self.y * (self.K @ ya)
        w = np.asarray(self.X.T @ ya).ravel()
        return w, self.y * np.asarray(self.X @ w).ravel()

    def project(self, a, tau0=None):
        """``(proj_Ω(a), τ)``; ``tau0`` warm-starts the knapsack multiplier (Newton from the last iteration's τ)."""
        if self.dev and self.bk.kind == "dask" and self.equality:   # the NumPy finders on a host copy (see setup)
            r, tau = self.project_on_host(self.bk.host(a), tau0)
            return self.bk.asarray_n(r), tau
        if self.dev:   # the bracket search in the data's namespace (no warm start: it has a fixed length)
            return project_box_knapsack(a, self.y, self.ub, self.target, self.equality, self.br)
        return self.project_on_host(a, tau0)

    def project_on_host(self, a, tau0=None):
        y = self.y if not self.dev else self.y_host
        if isinstance(self.box, np.ndarray):
            return weighted_projection(a, y, self.box, self.equality)
        return project_svm_dual(a, y, self.box, equality=self.equality, method=self.projection, tau0=tau0,
                                return_tau=True)

    # the callables of the FISTA core (it minimises −g) ------------------------------------------------
    def descent(self, z: Point):
        """``∇g(z) = e − HHᵀz − μz`` (= −∇(−g)), from the carried ``HHᵀz``."""
        return (1.0 - z.images[0] - self.mu_dual * z.blocks[0],)

    def prox(self, u, tau0=None):
        """``r = proj_Ω(u)`` and its images; the by-products ``(w, τ)`` go to the state."""
        r, tau = self.project(u[0], tau0)
        w, Qr = self.apply(r)
        return Point((r,), (Qr,)), (w, tau)

    def negative_value(self, x: Point) -> float:
        """``−g(r)`` for the function restart (the core minimises)."""
        r, Qr = x.blocks[0], x.images[0]
        if self.dev:   # a 0-d array on a device (the restart test stays there), a float on dask
            bk = self.bk
            v = -(bk.xp.sum(r) - 0.5 * bk.vdot(r, Qr) - 0.5 * self.mu_dual * bk.vdot(r, r))
            return bk.float(v) if bk.kind == "dask" else v
        return -float(r.sum() - 0.5 * np.dot(r, Qr) - 0.5 * self.mu_dual * np.dot(r, r))

    # certificate -----------------------------------------------------------------------------------
    def values(self, st):
        """``(P(w, b), g(r), b)`` for the problem's own μ: the primal at the best offset and the dual value
        (computed once per state: the offset is O(n) for μ = 0, see :func:`~marginkit.operators.hinge.best_offset`)."""
        if st.vals is not None:
            return st.vals
        mu = self.mu_problem
        if self.dev and (self.bk.kind != "dask" or not self.equality):   # no offset: elementwise, on the workers
            st.vals = self.values_where_the_data_live(st, mu)
        elif self.dev:
            st.vals = self.values_on_host(self.bk.host(st.r), self.bk.host(st.Qr), self.y_host, mu)
        else:
            st.vals = self.values_on_host(st.r, st.Qr, self.y, mu)
        return st.vals

    def values_on_host(self, r, Qr, y, mu):
        f = y * Qr                         # x_iᵀw (or the kernel expansion) at w = Hᵀr
        norm_w2 = float(np.dot(r, Qr))
        if not self.equality:
            b = 0.0
        elif mu == 0 and isinstance(self.box, np.ndarray):
            b = weighted_best_offset(f, y, self.box)
        else:
            b = best_offset(f, y, self.box, mu)
        primal = 0.5 * norm_w2 + float(smoothed_hinge(y * (f + b), self.box, mu).sum())
        dual = float(r.sum() - 0.5 * norm_w2 - 0.5 * mu * np.dot(r, r))
        return primal, dual, b

    def values_where_the_data_live(self, st, mu):
        """:meth:`values` computed in the data's namespace; the three numbers come to the host at the end."""
        bk, xp, br = self.bk, self.bk.xp, self.br
        f = self.y * st.Qr
        norm_w2 = bk.vdot(st.r, st.Qr)
        b = br.zero if not self.equality else best_offset_xp(f, self.y, self.ub, mu, br, self.n_pos, self.weighted)
        hinge = xp.sum(smoothed_hinge_xp(self.y * (f + b), self.ub, mu, br))
        rr = bk.vdot(st.r, st.r) if mu else 0.0
        norm_w2, hinge, r_sum, rr, b = (bk.float(v) for v in (norm_w2, hinge, xp.sum(st.r), rr, b))
        return 0.5 * norm_w2 + hinge, r_sum - 0.5 * norm_w2 - 0.5 * mu * rr, b

    def relative_gap(self, st) -> float:
        primal, dual, _ = self.values(st)
        return self.relative_of(primal, dual)

    maximise = False   # is the problem's objective the dual value g (a maximisation bounded above by P)?

    def relative_of(self, primal: float, dual: float) -> float:
        """Certified relative gap: ``(P − g)/g`` for the primal (min), ``(P − g)/P`` for the dual (max)."""
        if not (np.isfinite(primal) and np.isfinite(dual)):
            return np.inf
        if self.maximise:
            return (primal - dual) / primal if primal > 0 and dual >= 0 else np.inf
        return (primal - dual) / dual if dual > 0 else np.inf

    # hooks -----------------------------------------------------------------------------------------
    def init(self, rng, warm_start, budget):
        """``r_0 = 0`` (feasible; the paper does not state its start), or a warm start: a ``Result`` of an SVM
        dual method (its ``dual["a"]``) or a vector of length n, projected onto Ω."""
        dual = getattr(warm_start, "dual", None)
        r = parse_warm_start(dual["a"] if isinstance(dual, dict) and "a" in dual else warm_start, self.n, attr="a")
        if self.dev:
            bk = self.bk
            r = bk.zeros_n(self.n) if r is None else self.project(bk.asarray_n(r))[0]
            w, Qr = self.apply(r)
            x = Point((r,), (Qr,))
            return SVMState(k=0, x=x, w=w, z=x, certified=bk.zeros_n(self.n) > 1.0)
        r = np.zeros(self.n) if r is None else self.project(r)[0]
        w, Qr = self.apply(r)
        x = Point((r,), (Qr,))
        return SVMState(k=0, x=x, w=w, z=x, certified=np.zeros(self.n, bool))

    def step(self, st):
        x, z, momentum, (w, tau) = fista_step(st.x, st.z, st.momentum, descent=self.descent,
                                              prox=lambda u: self.prox(u, st.tau), L=self.L, rule=self.rule,
                                              value=self.negative_value)
        r = x.blocks[0]
        if self.dev:
            return self.step_where_the_data_live(st, x, z, momentum, w, tau)
        G = float(np.linalg.norm(st.z.blocks[0] - r))
        D = 2.0 * self.kappa * G if self.mu_dual > 0 else np.inf
        certified = st.certified | (self.box - r > D) if self.mu_dual > 0 else st.certified
        p = float(np.count_nonzero(certified)) / self.n
        p_best, stale = st.p_best, st.stale
        if p > p_best + self.delta_min:
            p_best, stale = p, 0
        elif p_best > 0:             # the stall guard: count only after the first certification
            stale += 1
        return SVMState(k=st.k + 1, x=x, w=w, z=z, momentum=momentum, grad_map=G, dist_bound=D, certified=certified,
                        p_best=p_best, stale=stale, tau=tau)

    def step_where_the_data_live(self, st, x, z, momentum, w, tau):
        """The bookkeeping of :meth:`step` with ``G_k``, ``D_k`` as 0-d arrays (floats on dask); the certified set
        is counted on the host only for ``μ > 0`` (the stall rule needs ``p``; with ``μ = 0`` it stays empty)."""
        bk = self.bk
        r = x.blocks[0]
        z_next = Point(tuple(bk.persist(v) for v in z.blocks), tuple(bk.persist(v) for v in z.images))
        G = bk.lazy_norm(st.z.blocks[0] - r)
        certified, p = st.certified, 0.0
        D = np.inf
        if self.mu_dual > 0:
            D = 2.0 * self.kappa * G
            certified = bk.persist(st.certified | (self.ub - r > D))
            p = bk.float(bk.xp.sum(bk.xp.where(certified, self.br.zero + 1.0, self.br.zero))) / self.n
        p_best, stale = st.p_best, st.stale
        if p > p_best + self.delta_min:
            p_best, stale = p, 0
        elif p_best > 0:
            stale += 1
        return SVMState(k=st.k + 1, x=x, w=w, z=z_next, momentum=momentum, grad_map=G, dist_bound=D,
                        certified=certified, p_best=p_best, stale=stale, tau=tau)

    def measure(self, st) -> dict:
        primal, dual, _ = self.values(st)
        out = {"objective": self.objective_of(primal, dual), "dual_objective": dual, "primal_objective": primal,
               "duality_gap": primal - dual, "gradient_mapping": self.bk.float(st.grad_map)}
        if self.mu_dual > 0:
            out.update(distance_bound=self.bk.float(st.dist_bound),
                       certified_fraction=float(np.count_nonzero(self.bk.host(st.certified))) / self.n)
        return out

    def objective_of(self, primal, dual):
        return primal

    def stop(self, st, budget):
        if self.config.stop == "tol":
            return "optimal" if st.k > 0 and self.relative_gap(st) <= budget.tol else None
        stalled = st.stale >= self.stale_max and st.k >= self.min_iter
        if stalled or self.bk.float(st.dist_bound) <= budget.tol * self.box_max:
            return "optimal" if self.relative_gap(st) <= budget.tol else "optimal_inaccurate"
        return None

    def snapshot(self, st):
        if self.dev:
            return self.bk.host(st.w)
        return None if st.w is None else st.w.copy()

    def solution(self, st, status) -> Solution:
        primal, dual, b = self.values(st)
        cert = self.certificate(primal, dual)
        cert.update(relative_gap=self.relative_of(primal, dual), gradient_mapping=st.grad_map)
        info = {"stop": self.config.stop, "variant": self.momentum_variant, "projection": self.projection,
                "L": self.L, "mu": self.mu_dual}
        if self.dev:
            return self.solution_where_the_data_live(st, status, b, cert, info)
        if self.mu_dual > 0:
            T = np.flatnonzero(st.certified)
            f = self.y * st.Qr + b
            cert["distance_bound"] = st.dist_bound
            info.update(kappa=self.kappa, certified=T, certified_fraction=T.size / self.n,
                        separates_certified=bool(np.all(self.y[T] * f[T] > 0)))
        a = st.r.copy()
        return Solution(w=None if st.w is None else st.w.copy(), b=b, status=status, certificate=cert,
                        dual={"a": a, "u": a[self.y > 0], "v": a[self.y < 0]}, info=info,
                        dual_coef=self.y * a if self.kernel is not None else None)

    def solution_where_the_data_live(self, st, status, b, cert, info) -> Solution:
        """:meth:`solution` with ``w`` in the user's namespace (NumPy for dask), ``dual["a"]`` where X lives and
        the class-wise parts ``u``, ``v`` and the certified set as host copies."""
        bk = self.bk
        cert["gradient_mapping"] = bk.float(st.grad_map)
        info["projection"] = "bracket"
        a_host, y_host = bk.host(st.r), bk.host(self.y)
        if self.mu_dual > 0:
            T = np.flatnonzero(bk.host(st.certified))
            f = y_host * bk.host(st.Qr) + b
            cert["distance_bound"] = bk.float(st.dist_bound)
            info.update(kappa=self.kappa, certified=T, certified_fraction=T.size / self.n,
                        separates_certified=bool(np.all(y_host[T] * f[T] > 0)))
        a = bk.xp.asarray(st.r, copy=True) if bk.kind == "array-api" else st.r
        return Solution(w=bk.xd.asarray(st.w, copy=True), b=b, status=status, certificate=cert,
                        dual={"a": a, "u": a_host[y_host > 0], "v": a_host[y_host < 0]}, info=info)

    def certificate(self, primal, dual) -> dict:
        return {"primal": primal, "dual": dual, "duality_gap": primal - dual}


class SoftMarginFista(SVMDualFista):
    """FISTA on the soft-margin dual (12) (``γ = C``; box only when ``bias=False``). ``mu > 0`` solves the perturbed
    dual (15) instead (a smoothed-hinge SVM); the certificate and the status always refer to the user's SVM
    (``μ = 0``), so with ``mu > 0`` the gap stalls at the perturbation error and the status is not ``optimal``.
    Defaults: ``stop="tol"`` on the relative primal–dual gap, ``restart="function"``.

    With ``sample_weight`` the box is ``0 <= a_i <= C_i = C·s_i`` (the problem's ``box``): the projection is
    :func:`weighted_projection` (exact, one sort; the ``projection`` option chooses among the uniform-box root
    finders only) and the offset :func:`weighted_best_offset`. Scale: the step is ``1/L`` with ``L = ||X||²`` computed
    from the data, so ``c·X`` with ``C/c²`` (the same problem: ``w -> w/c``, ``a -> a/c²``) runs the same iterates
    up to rounding, to the same status and relative gap."""

    @dataclass(frozen=True)
    class Config:
        mu: float = 0.0                 # μ of the perturbed dual (15) the iteration solves (0: the SVM dual (12))
        stop: str = "tol"               # the relative primal-dual gap ("tol") or §4.2's early stop (needs mu > 0)
        variant: str | None = None      # "v-fista" (needs mu > 0) or "fista"; None: V-FISTA when mu > 0
        projection: str = "linear"      # root finder of the knapsack projection onto Ω (13)-(14)
        restart: str | None = "function"   # momentum restart (O'Donoghue & Candès): None, "gradient", "function"
        delta_min: float = 1e-4         # δ_min of the stall rule (§4.2)
        stale_max: int = 2              # stale steps before the early stop
        min_iter: int = 0               # no early stop before this iteration
        restart_min: int = 1            # iterations between two momentum resets
        constraints: ClassVar[dict] = {**DUAL_CONSTRAINTS, "mu": [Interval(float, 0, None)],
                                       "restart_min": [Interval(int, 1, None)]}

        def validate(self, method):
            if self.mu == 0 and (self.variant == "v-fista" or self.stop == "early"):
                raise ProblemError(f"{method}: variant='v-fista' and stop='early' need a strongly concave dual: mu > 0")

    def mus(self):
        return 0.0, float(self.mu)


class PerturbedDualFista(SVMDualFista):
    """FISTA with the early stopping of HV §4.2 on (15) with the problem's ``γ`` and ``μ`` (``mu`` is a parameter of the
    problem, ``PerturbedSVMDual(X, y, mu=...)``, not of the method). Defaults of the paper: ``variant="v-fista"``,
    ``stop="early"``, ``delta_min=1e-4``, ``stale_max=2``; ``projection="linear"``.
    The result's ``info`` holds the certified set ``T`` (every ``i ∈ T`` has ``r*_i < γ``: a properly classified
    point), ``certified_fraction`` and ``separates_certified`` (whether ``(w, b)`` separates ``T``: the paper claims
    it, but no theorem proves it for arbitrary data: Theorem 3.5 concerns the model's sets only; so it is checked
    and reported)."""

    @dataclass(frozen=True)
    class Config:
        stop: str = "early"             # §4.2's early stop ("early") or the relative primal-dual gap ("tol")
        variant: str | None = "v-fista"   # V-FISTA (§3.4, Beck Thm 10.42) or "fista"; None: V-FISTA
        projection: str = "linear"      # root finder of the knapsack projection onto Ω (13)-(14)
        restart: str | None = None      # momentum restart (not in the paper): None, "gradient", "function"
        delta_min: float = 1e-4         # δ_min of the stall rule (§4.2)
        stale_max: int = 2              # stale steps before the early stop
        min_iter: int = 0               # no early stop before this iteration
        constraints: ClassVar[dict] = DUAL_CONSTRAINTS

    maximise = True

    def mus(self):
        mu = float(self.form.mu)
        return mu, mu

    def objective_of(self, primal, dual):
        return dual

    def certificate(self, primal, dual) -> dict:
        # the problem is the dual (15): its own value first, the value of its Lagrange dual (20) as the bound
        return {"primal": dual, "dual": primal, "duality_gap": primal - dual}
