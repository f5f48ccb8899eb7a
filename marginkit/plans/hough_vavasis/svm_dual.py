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
* With a kernel the ``n × n`` Gram matrix and its largest eigenvalue (exact up to ``EXACT_BELOW`` samples, Lanczos
  beyond) are the set-up; a ``time_limit`` given to ``solve``/``compile`` covers it: the Gram matrix's first block
  is timed, and a set-up that would not fit is a ``ProblemError`` giving the seconds and GiB it needs
  (:func:`~marginkit.core.kernels.gram_within`).
* Both are written once against the problem's backend (``core/backend``) and run where ``X`` lives: on
  torch/CuPy/array-api-strict the n-vectors, ``θ``, ``β``, the restart test and ``G_k`` stay on the device (the
  knapsack multiplier by the fixed-length bracket search of :class:`~marginkit.operators.projections.Bracket`), a
  step brings no value to the host except ``p = |T|/n`` for the early stop (``μ > 0``); the offset (Algorithm
  OFFSET, exact, by a sort there) and the certificate are computed where ``stop``, ``measure`` and ``solution`` need
  them, each number coming to the host once. On dask ``X`` stays chunked and the multiplier and the offset use the
  NumPy finders on one host copy of the n-vector (``Backend.search``).

The iteration itself is :func:`marginkit.plans.common.fista.fista_step` (the projection of
:func:`~marginkit.operators.projections.project_svm_dual` injected as its ``prox``). Paper symbols: the FISTA momentum
scalar is ``theta`` (the paper's ``t_k``, a letter HV also use for the offset); the extrapolated point is ``z`` (the
paper's ``y_k``, renamed to keep ``y`` for the labels).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ...core.backend import NUMPY
from ...core.kernels import problem_gram
from ...core.linalg import largest_eigenvalue
from ...core.params import Interval, Options
from ...core.solution import Solution
from ...core.validation import ProblemError
from ...core.warmstart import parse_warm_start
from ...engine.runloop import IterationPlan
from ...operators.hinge import best_offset, smoothed_hinge, weighted_best_offset
from ...operators.projections import (GRID_FRACTIONS, PROJECTIONS, Bracket, project_box_knapsack, project_svm_dual,
                                      weighted_projection)
from ..common.fista import RESTARTS, Momentum, MomentumRule, Point, constant_momentum, fista_step

EXACT_BELOW = 1000   # the kernel form's largest eigenvalue: exact up to this n, Lanczos (ARPACK) beyond (O(n²) a step)

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
    ``<= tol``, else ``optimal_inaccurate``; with ``tol=0`` ("run the whole budget") it is off. ``stop="tol"``:
    stop when that gap is ``<= tol``. The relative gap is certified and scale-free: ``(P − g)/g`` (``g > 0``, a lower
    bound on the SVM's optimal ``P*``) when the problem is the SVM primal, ``(P − g)/P`` (``g >= 0``, ``P`` an upper
    bound on the dual's optimum) when the problem is the perturbed dual (a maximisation); ``inf`` (never ``optimal``)
    without such a bound.

    A subclass says which μ the iteration uses and which one the certificate refers to (:meth:`mus`).
    """

    name = "fista"
    default_max_iter = 10000
    default_tol = 1e-6
    log_columns = ("objective", "duality_gap", "gradient_mapping")

    def mus(self) -> tuple[float, float]:
        """``(μ of the problem, for the certificate; μ of the dual the iteration maximises)``."""
        raise NotImplementedError

    bk = NUMPY       # where X lives (core/backend); setup sets the problem's

    def setup(self):
        begin = time.perf_counter()   # a time_limit given to solve/compile covers the set-up (the Gram matrix)
        form = self.form
        self.bk = bk = getattr(form, "backend", NUMPY)
        xp = bk.xp
        self.y = form.y
        self.y_host = bk.host(self.y)   # the labels of the host finders (the same array on NumPy)
        self.n = form.n
        self.kernel = getattr(form, "kernel", None)
        # γ of (12)/(15); with sample weights the per-sample box C_i = C·s_i (an array, see weighted_projection)
        weighted = form.form == "SoftMarginSVM" and form.weighted
        self.box = np.asarray(form.box, float) if weighted else float(form.C) if form.form == "SoftMarginSVM" \
            else float(form.gamma)
        self.box_max = float(np.max(self.box))
        zero = xp.zeros_like(self.y[0])
        self.ub = form.box_n if weighted else zero + self.box   # the box where X lives (n-side, or a 0-d γ)
        self.equality = bool(getattr(form, "bias", True))
        self.mu_problem, self.mu_dual = self.mus()
        self.momentum_variant = self.variant or ("v-fista" if self.mu_dual > 0 else "fista")
        if self.kernel is None:
            self.X = form.X
            H2 = bk.spectral_norm_sq(form.X)
        else:
            limit = self.run_defaults.get("time_limit")
            self.K = problem_gram(form, None if limit is None else begin + limit, self.method)
            Ks = 0.5 * (self.K + self.K.T) if self.n <= EXACT_BELOW else self.K   # Lanczos: K symmetric to rounding
            H2 = largest_eigenvalue(Ks, self.n, dense=lambda: Ks, exact_below=EXACT_BELOW, residual=True)
        L = self.mu_dual + max(H2, 0.0)
        self.L = L if L != 0.0 else 1.0
        self.kappa = self.L / self.mu_dual if self.mu_dual > 0 else np.inf
        beta = float(constant_momentum(self.kappa)) if self.momentum_variant == "v-fista" else None
        self.rule = MomentumRule(beta=beta, restart=self.restart, restart_min=getattr(self.config, "restart_min", 1),
                                 bk=bk)
        # the knapsack of the bracket search (an array-API device, see project): Σ_{y=+1} C_i and the search grid
        self.br = Bracket(xp, zero, bk.asarray_d(GRID_FRACTIONS))
        self.target = xp.sum(xp.where(self.y > zero, self.ub, zero)) if weighted \
            else zero + self.box * int(np.count_nonzero(self.y_host > 0))
        self.projection_used = bk.search(lambda: self.projection, lambda: "bracket")   # what project runs here

    # the data operator ----------------------------------------------------------------------------
    def apply(self, a):
        """``(Hᵀa, HHᵀa)``: ``w = Xᵀ(y∘a)`` and ``y ∘ (Xw)`` (``(None, y ∘ K(y∘a))`` with a kernel)."""
        ya = self.y * a
        if self.kernel is not None:
            return None, self.y * (self.K @ ya)
        bk = self.bk
        w = bk.rmatvec(self.X, ya)
        return w, bk.persist(self.y * bk.matvec(self.X, w))

    def project(self, a, tau0=None):
        """``(proj_Ω(a), τ)``: the box alone is elementwise, where ``a`` lives; with ``yᵀa = 0`` the multiplier ``τ`` is
        the backend's search: the NumPy finders (:meth:`project_exact`; ``tau0`` warm-starts Newton from the last
        iteration's τ) on NumPy and on one host copy on dask, the bracket search of fixed length on an array-API
        device (no warm start, no synchronisation)."""
        bk = self.bk
        if not self.equality:
            return bk.clip(bk.clip(a, 0.0), None, self.ub), 0.0   # torch: no host copy
        return bk.search(lambda v: self.project_exact(v, tau0),
                         lambda v: project_box_knapsack(v, self.y, self.ub, self.target, True, self.br), a)

    def project_exact(self, a, tau0=None):
        """The knapsack projection of a NumPy vector by the exact finders, placed back where X lives."""
        if isinstance(self.box, np.ndarray):
            r, tau = weighted_projection(a, self.y_host, self.box, True)
        else:
            r, tau = project_svm_dual(a, self.y_host, self.box, equality=True, method=self.projection, tau0=tau0,
                                      return_tau=True)
        return self.bk.asarray_n(r), tau

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
        """``−g(r)`` for the function restart (the core minimises): a float, a 0-d array on a device (the restart
        test stays there)."""
        bk, r, Qr = self.bk, x.blocks[0], x.images[0]
        return bk.lazy(-(bk.sum(r) - 0.5 * bk.vdot(r, Qr) - 0.5 * self.mu_dual * bk.vdot(r, r)))

    # certificate -----------------------------------------------------------------------------------
    def values(self, st):
        """``(P(w, b), g(r), b)`` for the problem's own μ: the primal at the best offset and the dual value
        (computed once per state: the offset is O(n) for μ = 0, see :func:`~marginkit.operators.hinge.best_offset`),
        where X lives; the numbers come to the host together at the end."""
        if st.vals is not None:
            return st.vals
        mu, bk, xp = self.mu_problem, self.bk, self.bk.xp
        f = self.y * st.Qr                 # x_iᵀw (or the kernel expansion) at w = Hᵀr
        norm_w2 = bk.vdot(st.r, st.Qr)
        b = self.offset(f, mu) if self.equality else 0.0
        hinge = bk.sum(smoothed_hinge(self.y * (f + b), self.ub, mu, xp))
        rr = bk.vdot(st.r, st.r) if mu else 0.0
        norm_w2, hinge, r_sum, rr = bk.floats(norm_w2, hinge, bk.sum(st.r), rr)
        st.vals = 0.5 * norm_w2 + hinge, r_sum - 0.5 * norm_w2 - 0.5 * mu * rr, b
        return st.vals

    def offset(self, f, mu: float) -> float:
        """Algorithm OFFSET for the scores ``f`` (:func:`~marginkit.operators.hinge.weighted_best_offset` for a box per
        sample and ``μ = 0``, else :func:`~marginkit.operators.hinge.best_offset`), by the backend's search: on the
        host on NumPy and on one host copy of ``f`` on dask, in the data's namespace on an array-API device."""
        weighted = mu == 0 and isinstance(self.box, np.ndarray)
        xp = self.bk.xp

        def host_offset(f):
            y = self.y_host
            return weighted_best_offset(f, y, self.box) if weighted else best_offset(f, y, self.box, mu)

        def device_offset(f):
            return weighted_best_offset(f, self.y, self.ub, xp) if weighted else best_offset(f, self.y, self.ub, mu, xp)
        return self.bk.search(host_offset, device_offset, f)

    def relative_gap(self, st) -> float:
        primal, dual, _ = self.values(st)
        return self.relative_of(primal, dual)

    maximise = False   # is the problem's objective the dual value g (a maximisation bounded above by P)?

    def relative_of(self, primal: float, dual: float) -> float:
        """Certified relative gap: ``(P − g)/g`` for the primal (min), ``(P − g)/P`` for the dual (max). A gap below
        zero by more than rounding proves the dual point infeasible (off ``yᵀa = 0`` after a projection that lost
        digits on data far from unit scale), so its value bounds nothing: no certificate then."""
        if not (np.isfinite(primal) and np.isfinite(dual)):
            return np.inf
        if primal - dual < -1e-12 * max(abs(primal), abs(dual)):
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
        bk = self.bk
        r = bk.zeros_n(self.n) if r is None else self.project(bk.asarray_n(r))[0]
        w, Qr = self.apply(r)
        x = Point((r,), (Qr,))
        return SVMState(k=0, x=x, w=w, z=x, certified=bk.zeros_n(self.n) > 1.0)

    def step(self, st):
        """A FISTA step, then the bookkeeping of §4.2 with ``G_k``, ``D_k`` floats (0-d arrays on a device); the
        certified set is counted on the host only for ``μ > 0`` (the stall rule needs ``p``; with ``μ = 0`` it stays
        empty)."""
        bk = self.bk
        x, z, momentum, (w, tau) = fista_step(st.x, st.z, st.momentum, descent=self.descent,
                                              prox=lambda u: self.prox(u, st.tau), L=self.L, rule=self.rule,
                                              value=self.negative_value)
        r = x.blocks[0]
        z = Point((bk.persist(z.blocks[0]),), (bk.persist(z.images[0]),))   # dask: the graph never grows
        G = bk.lazy_norm(st.z.blocks[0] - r)
        D, certified, p = np.inf, st.certified, 0.0
        if self.mu_dual > 0:
            D = 2.0 * self.kappa * G
            certified = bk.persist(st.certified | (self.ub - r > D))
            p = bk.float(bk.xp.count_nonzero(certified)) / self.n
        p_best, stale = st.p_best, st.stale
        if p > p_best + self.delta_min:
            p_best, stale = p, 0
        elif p_best > 0:             # the stall guard: count only after the first certification
            stale += 1
        return SVMState(k=st.k + 1, x=x, w=w, z=z, momentum=momentum, grad_map=G, dist_bound=D, certified=certified,
                        p_best=p_best, stale=stale, tau=tau)

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
        if not budget.tol > 0:   # tol=0: run the whole budget (the early stop is not a certificate)
            return "optimal" if self.relative_gap(st) <= 0.0 else None
        stalled = st.stale >= self.stale_max and st.k >= self.min_iter
        if stalled or self.bk.float(st.dist_bound) <= budget.tol * self.box_max:
            return "optimal" if self.relative_gap(st) <= budget.tol else "optimal_inaccurate"
        return None

    def snapshot(self, st):
        return None if st.w is None else np.array(self.bk.host(st.w))

    def solution(self, st, status) -> Solution:
        """The result: ``w`` in the user's namespace (NumPy for dask), ``dual["a"]`` where X lives, the class-wise
        parts ``u``, ``v`` and the certified set as host copies."""
        bk = self.bk
        primal, dual, b = self.values(st)
        cert = self.certificate(primal, dual)
        cert.update(relative_gap=self.relative_of(primal, dual), gradient_mapping=bk.float(st.grad_map))
        info = {"stop": self.config.stop, "variant": self.momentum_variant, "projection": self.projection_used,
                "L": self.L, "mu": self.mu_dual}
        a_host, y_host = bk.host(st.r), self.y_host
        if self.mu_dual > 0:
            T = np.flatnonzero(bk.host(st.certified))
            f = y_host * bk.host(st.Qr) + b
            cert["distance_bound"] = bk.float(st.dist_bound)
            info.update(kappa=self.kappa, certified=T, certified_fraction=T.size / self.n,
                        separates_certified=bool(np.all(y_host[T] * f[T] > 0)))
        a = bk.copy(st.r)
        return Solution(w=None if st.w is None else bk.xd.asarray(st.w, copy=True), b=b, status=status,
                        certificate=cert, dual={"a": a, "u": a_host[y_host > 0], "v": a_host[y_host < 0]}, info=info,
                        dual_coef=self.y * a if self.kernel is not None else None)

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
        mu: float = field(default=0.0, metadata={
            "doc": "μ of the perturbed dual (15) the iteration solves (0: the SVM dual (12))"})
        stop: str = field(default="tol", metadata={
            "doc": "the relative primal-dual gap (\"tol\") or §4.2's early stop (needs mu > 0)"})
        variant: str | None = field(default=None, metadata={
            "doc": '"v-fista" (needs mu > 0) or "fista"; None: V-FISTA when mu > 0'})
        projection: str = field(default="linear", metadata={
            "doc": "root finder of the knapsack projection onto Ω (13)-(14)"})
        restart: str | None = field(default="function", metadata={
            "doc": "momentum restart (O'Donoghue & Candès): None, \"gradient\", \"function\""})
        delta_min: float = field(default=1e-4, metadata={"doc": "δ_min of the stall rule (§4.2)"})
        stale_max: int = field(default=2, metadata={"doc": "stale steps before the early stop"})
        min_iter: int = field(default=0, metadata={"doc": "no early stop before this iteration"})
        restart_min: int = field(default=1, metadata={"doc": "iterations between two momentum resets"})
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
        stop: str = field(default="early", metadata={
            "doc": "§4.2's early stop (\"early\") or the relative primal-dual gap (\"tol\")"})
        variant: str | None = field(default="v-fista", metadata={
            "doc": 'V-FISTA (§3.4, Beck Thm 10.42) or "fista"; None: V-FISTA'})
        projection: str = field(default="linear", metadata={
            "doc": "root finder of the knapsack projection onto Ω (13)-(14)"})
        restart: str | None = field(default=None, metadata={
            "doc": 'momentum restart (not in the paper): None, "gradient", "function"'})
        delta_min: float = field(default=1e-4, metadata={"doc": "δ_min of the stall rule (§4.2)"})
        stale_max: int = field(default=2, metadata={"doc": "stale steps before the early stop"})
        min_iter: int = field(default=0, metadata={"doc": "no early stop before this iteration"})
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
