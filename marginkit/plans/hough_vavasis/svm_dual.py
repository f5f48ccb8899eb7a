"""FISTA on SVM duals (Hough & Vavasis 2025, §3–§4.2): the perturbed dual (15) and the soft-margin dual (12).

Reference: ../shared/papers/fista-esp-and-svm.md §1.6–1.7, §2.6–2.9 and the pitfalls of §5.

* ``fista`` for :class:`~marginkit.PerturbedSVMDual` (:class:`PerturbedDualFista`): Algorithm SVM-FISTA, V-FISTA on
  the μ-strongly concave dual (15), the distance bound of Theorem 3.2, the guarded early stopping of §4.2 and the
  offset (27) (Algorithm OFFSET).
* ``fista`` for :class:`~marginkit.SoftMarginSVM` (:class:`SoftMarginFista`): FISTA with function restart on the
  dual (12), the same knapsack projection onto Ω (13)–(14), a primal–dual gap stop.
* ``PerturbedSVMPrimal`` (20) reaches :class:`PerturbedDualFista` through a reduction (its ``(w, t)`` are the same).

The iteration itself is :func:`marginkit.plans.common.fista.fista_step` (the projection of
:func:`~marginkit.operators.projections.project_svm_dual` injected as its ``prox``). Paper symbols: the FISTA momentum
scalar is ``theta`` (the paper's ``t_k``, digest §0); the extrapolated point is ``z`` (the paper's ``y_k``, renamed to
keep ``y`` for the labels).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ...core.linalg import largest_eigenvalue, spectral_norm_sq
from ...core.params import Interval, Options
from ...core.solution import Solution
from ...core.validation import ProblemError
from ...core.warmstart import parse_warm_start
from ...engine.runloop import IterationPlan
from ...operators.hinge import best_offset, smoothed_hinge
from ...operators.projections import PROJECTIONS, project_svm_dual
from ..common.fista import RESTARTS, Momentum, MomentumRule, Point, constant_momentum, fista_step

# the options both dual plans share, declared once
DUAL_CONSTRAINTS = {"stop": [Options("early", "tol")], "variant": [None, Options("v-fista", "fista")],
                    "projection": [Options(*PROJECTIONS)], "restart": [None, Options(*RESTARTS)],
                    "delta_min": [Interval(float, 0, None)], "stale_max": [Interval(int, 1, None)],
                    "min_iter": [Interval(int, 0, None)]}


def weighted_projection(z, y, ub, equality: bool):
    """``(proj(z), τ)`` onto ``{0 <= a_i <= ub_i}`` intersected with ``{yᵀa = 0}`` when ``equality`` (per-sample bounds,
    ``ub_i = C·s_i``; the knapsack (13)–(14) of the digest with a box per coordinate). The minimiser is
    ``a_i(τ) = clip(z_i − y_i τ, 0, ub_i)``; with ``lo_i = z_i − ub_i`` (``y_i = +1``) or ``−z_i`` (``y_i = −1``),
    ``yᵀa(τ) = Σ_{y=+1} ub_i − h(τ)``, ``h(τ) = Σ_i clip(τ − lo_i, 0, ub_i)`` continuous, piecewise linear and
    non-decreasing, with slope +1 from ``lo_i`` and −1 from ``lo_i + ub_i``: the root is exact after one sort of
    the ``2n`` breakpoints (O(n log n); a zero bound adds two cancelling breakpoints)."""
    if not equality:
        return np.clip(z, 0.0, ub), 0.0
    pos = y > 0
    lo = np.where(pos, z - ub, -z)
    target = float(ub[pos].sum())
    bp = np.concatenate([lo, lo + ub])
    order = np.argsort(bp, kind="stable")
    bp = bp[order]
    slope = np.cumsum(np.concatenate([np.ones(lo.size), -np.ones(lo.size)])[order])
    h = np.concatenate([[0.0], np.cumsum(slope[:-1] * np.diff(bp))])   # h at each breakpoint
    k = min(int(np.searchsorted(h, target, side="left")), h.size - 1)   # first breakpoint with h >= target
    if h[k] <= target or k == 0 or slope[k - 1] <= 0:
        tau = float(bp[k])
    else:   # h is linear with slope slope[k-1] > 0 on [bp[k-1], bp[k]]
        tau = float(bp[k - 1] + (target - h[k - 1]) / slope[k - 1])
    return np.clip(z - y * tau, 0.0, ub), tau


def weighted_best_offset(scores, y, ub) -> float:
    """``argmin_t Σ ub_i max(0, 1 − y_i(scores_i + t))`` (Algorithm OFFSET (2.9) with a weight per sample, μ = 0):
    with breakpoints ``bp_i = y_i − scores_i`` the derivative is ``F'(t) = Σ_{bp_i < t} ub_i − Σ_{y_i = +1} ub_i``,
    non-decreasing, so a minimiser is the first sorted breakpoint where the cumulative weight reaches the positive
    class's weight (the midpoint of the next gap when it reaches it exactly: ``F`` is flat there)."""
    bp = np.asarray(y, float) - np.asarray(scores, float)
    order = np.argsort(bp, kind="stable")
    bp, cw = bp[order], np.cumsum(np.asarray(ub, float)[order])
    target = float(np.asarray(ub, float)[np.asarray(y) > 0].sum())
    k = min(int(np.searchsorted(cw, target, side="left")), bp.size - 1)
    if cw[k] == target and k + 1 < bp.size:
        return float(0.5 * (bp[k] + bp[k + 1]))
    return float(bp[k])


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
    ``Ω = {0 <= a <= γ}`` intersected with ``{yᵀa = 0}`` when there is an offset (digest §2.7)::

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
        self.equality = bool(getattr(form, "bias", True))
        self.mu_problem, self.mu_dual = self.mus()
        self.momentum_variant = self.variant or ("v-fista" if self.mu_dual > 0 else "fista")
        if self.kernel is None:
            self.X = form.X
            H2 = spectral_norm_sq(form.X)
        else:
            self.K = form.gram()
            Ks = 0.5 * (self.K + self.K.T)
            H2 = largest_eigenvalue(Ks, Ks.shape[0], dense=lambda: Ks, exact_below=Ks.shape[0])
        L = self.mu_dual + max(H2, 0.0)
        self.L = L if L != 0.0 else 1.0
        self.kappa = self.L / self.mu_dual if self.mu_dual > 0 else np.inf
        beta = constant_momentum(self.kappa) if self.momentum_variant == "v-fista" else None
        self.rule = MomentumRule(beta=beta, restart=self.restart, restart_min=getattr(self.config, "restart_min", 1))

    # the data operator ----------------------------------------------------------------------------
    def apply(self, a):
        """``(Hᵀa, HHᵀa)``: ``w = Xᵀ(y∘a)`` and ``y ∘ (Xw)`` (``(None, y ∘ K(y∘a))`` with a kernel)."""
        ya = self.y * a
        if self.kernel is not None:
            return None, self.y * (self.K @ ya)
        w = np.asarray(self.X.T @ ya).ravel()
        return w, self.y * np.asarray(self.X @ w).ravel()

    def project(self, a, tau0=None):
        """``(proj_Ω(a), τ)``; ``tau0`` warm-starts the knapsack multiplier (Newton from the last iteration's τ)."""
        if isinstance(self.box, np.ndarray):
            return weighted_projection(a, self.y, self.box, self.equality)
        return project_svm_dual(a, self.y, self.box, equality=self.equality, method=self.projection, tau0=tau0,
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
        return -float(r.sum() - 0.5 * np.dot(r, Qr) - 0.5 * self.mu_dual * np.dot(r, r))

    # certificate -----------------------------------------------------------------------------------
    def values(self, st):
        """``(P(w, b), g(r), b)`` for the problem's own μ: the primal at the best offset and the dual value
        (computed once per state: the offset is O(n) for μ = 0, see :func:`~marginkit.operators.hinge.best_offset`)."""
        if st.vals is not None:
            return st.vals
        mu = self.mu_problem
        f = self.y * st.Qr                         # x_iᵀw (or the kernel expansion) at w = Hᵀr
        norm_w2 = float(np.dot(st.r, st.Qr))
        if not self.equality:
            b = 0.0
        elif mu == 0 and isinstance(self.box, np.ndarray):
            b = weighted_best_offset(f, self.y, self.box)
        else:
            b = best_offset(f, self.y, self.box, mu)
        primal = 0.5 * norm_w2 + float(smoothed_hinge(self.y * (f + b), self.box, mu).sum())
        dual = float(st.r.sum() - 0.5 * norm_w2 - 0.5 * mu * np.dot(st.r, st.r))
        st.vals = (primal, dual, b)
        return st.vals

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
        r = np.zeros(self.n) if r is None else self.project(r)[0]
        w, Qr = self.apply(r)
        x = Point((r,), (Qr,))
        return SVMState(k=0, x=x, w=w, z=x, certified=np.zeros(self.n, bool))

    def step(self, st):
        x, z, momentum, (w, tau) = fista_step(st.x, st.z, st.momentum, descent=self.descent,
                                              prox=lambda u: self.prox(u, st.tau), L=self.L, rule=self.rule,
                                              value=self.negative_value)
        r = x.blocks[0]
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

    def measure(self, st) -> dict:
        primal, dual, _ = self.values(st)
        out = {"objective": self.objective_of(primal, dual), "dual_objective": dual, "primal_objective": primal,
               "duality_gap": primal - dual, "gradient_mapping": st.grad_map}
        if self.mu_dual > 0:
            out.update(distance_bound=st.dist_bound, certified_fraction=float(np.count_nonzero(st.certified)) / self.n)
        return out

    def objective_of(self, primal, dual):
        return primal

    def stop(self, st, budget):
        if self.config.stop == "tol":
            return "optimal" if st.k > 0 and self.relative_gap(st) <= budget.tol else None
        stalled = st.stale >= self.stale_max and st.k >= self.min_iter
        if stalled or st.dist_bound <= budget.tol * self.box_max:
            return "optimal" if self.relative_gap(st) <= budget.tol else "optimal_inaccurate"
        return None

    def snapshot(self, st):
        return None if st.w is None else st.w.copy()

    def solution(self, st, status) -> Solution:
        primal, dual, b = self.values(st)
        cert = self.certificate(primal, dual)
        cert.update(relative_gap=self.relative_of(primal, dual), gradient_mapping=st.grad_map)
        info = {"stop": self.config.stop, "variant": self.momentum_variant, "projection": self.projection,
                "L": self.L, "mu": self.mu_dual}
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
    """Algorithm SVM-FISTA (digest §2.7) on (15) with the problem's ``γ`` and ``μ`` (``mu`` is a parameter of the
    problem, ``PerturbedSVMDual(X, y, mu=...)``, not of the method). Defaults of the paper: ``variant="v-fista"``,
    ``stop="early"``, ``delta_min=1e-4``, ``stale_max=2``; ``projection="linear"``.
    The result's ``info`` holds the certified set ``T`` (every ``i ∈ T`` has ``r*_i < γ``: a properly classified
    point), ``certified_fraction`` and ``separates_certified`` (whether ``(w, b)`` separates ``T``: the paper claims
    it, no theorem proves it for arbitrary data, so it is checked and reported, pitfall 6)."""

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
