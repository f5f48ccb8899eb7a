"""FISTA with data-dependent early stopping (Hough & Vavasis): ellipsoid separation and the (perturbed) SVM dual.

Reference: ../shared/papers/fista-esp-and-svm.md (Parts 1–2 and the pitfalls of Part 5).

* ``fista`` / ``pdhg`` for :class:`~marginkit.EllipsoidSeparation`: the least-squares reformulation (5) over a
  product of second-order cones, on data normalised by (1) (:mod:`marginkit.ellipsoids`); the separator is read
  off the residual ``v_k = b − 𝒜x_k`` (Theorem 2.2) and certified by test (28).
* ``fista`` for :class:`~marginkit.PerturbedSVMDual` (V-FISTA on (15), early stopping of §4.2, offset (27)) and for
  :class:`~marginkit.SoftMarginSVM` (FISTA on the dual (12), same knapsack projection, primal–dual gap stop).
* ``PerturbedSVMPrimal`` (20) reaches the dual plan through a reduction (its ``(w, t)`` are the same).

Paper symbols: the FISTA momentum scalar is ``theta`` (the paper's ``t_k`` of §4.1, digest §0); the extrapolated
point of the SVM dual is ``z`` (the paper's ``y_k``, renamed to keep ``y`` for the labels).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.validation import ProblemError
from ...operators.ellipsoids import esp_operator, iteration_bounds
from ...core.linalg import largest_eigenvalue, spectral_norm_sq
from ...operators.projections import PROJECTIONS, project_soc_rows, project_svm_dual
from ...engine.runloop import IterationPlan
from ...core.solution import Solution
from ...operators.hinge import best_offset, smoothed_hinge

HV = "Hough & Vavasis (2025)"


def _choice(value, name, allowed):
    if value not in allowed:
        raise ProblemError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return value


def _positive_int(value, name, minimum=1):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ProblemError(f"{name} must be an int >= {minimum}; got {value!r}")
    return int(value)


def _nonneg(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or not np.isfinite(value) \
            or value < 0:
        raise ProblemError(f"{name} must be a finite number >= 0; got {value!r}")
    return float(value)


def _reject(unknown: dict, method: str):
    if unknown:
        raise ProblemError(f"unknown option(s) {sorted(unknown)} for method {method!r}")


def _fista_theta(theta):
    """Beck–Teboulle: ``θ_{k+1} = (1 + sqrt(1 + 4θ_k²))/2`` and the momentum ``(θ_k − 1)/θ_{k+1}``."""
    nxt = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * theta * theta))
    return nxt, (theta - 1.0) / nxt


# =========================================================================================================
# Ellipsoid separation


@dataclass
class ESPState:
    k: int
    xc: np.ndarray      # x_k, C-blocks (λ_i, p_i) as rows
    xd: np.ndarray      # x_k, D-blocks (μ_i, q_i)
    Ax: np.ndarray      # 𝒜x_k
    yc: np.ndarray = None   # FISTA: extrapolated y_k
    yd: np.ndarray = None
    Ay: np.ndarray = None   # 𝒜y_k, carried by linearity (one 𝒜 and one 𝒜ᵀ product per iteration)
    theta: float = 1.0
    grad_map: float = np.inf  # ||y_{k−1} − x_k||, the gradient-mapping norm of the last step
    dual: np.ndarray = None   # PDHG: dual iterate y_k (length d + 2)
    disp: np.ndarray = None   # PDHG: displacement y_{k−1} − y_k


class _ESPPlan(IterationPlan):
    """Shared by the ESP plans: the normalised operator, the warm start, test (28), the hyperplane and the
    Theorem 2.4 bound. ``iteration_bound=True`` adds ``info["iteration_bound"]`` (Theorem 2.4 with ``δ_𝒜 = M``,
    and the variants of :func:`~marginkit.reference.conic.iteration_bounds`), computed through the problem's
    cached CVXPY constants, outside the timed run."""

    default_max_iter = 5000
    default_tol = 1e-6
    log_columns = ("residual", "objective", "gradient_mapping")

    def __init__(self, form, iteration_bound=True):
        super().__init__(form)
        self.op = esp_operator(form)
        self.L = self.op.lipschitz()
        self.iteration_bound = bool(iteration_bound)

    def start_x(self, warm_start):
        if warm_start is None:
            return self.op.zeros()
        dual = getattr(warm_start, "dual", None)
        xc, xd = (dual.get("x_c"), dual.get("x_d")) if isinstance(dual, dict) else tuple(warm_start)
        xc, xd = np.array(xc, dtype=float), np.array(xd, dtype=float)
        if xc.shape != (self.op.j, self.op.d + 1) or xd.shape != (self.op.l, self.op.d + 1):
            raise ProblemError(f"warm_start must be a Result of an ESP method or a pair of arrays of shapes "
                               f"{(self.op.j, self.op.d + 1)} and {(self.op.l, self.op.d + 1)}")
        return project_soc_rows(xc), project_soc_rows(xd)

    def residual(self, st) -> np.ndarray:
        """``v_k = (s_k, t_k, w_k) = b − 𝒜x_k`` (normalised data)."""
        return self.op.b - st.Ax

    def measure(self, st) -> dict:
        v = self.residual(st)
        return {"residual": float(np.linalg.norm(v)), "objective": 0.5 * float(v @ v), "gradient_mapping": st.grad_map}

    def snapshot(self, st):
        w = self.residual(st)[2:]
        nw = np.linalg.norm(w)
        return w / nw if nw > 0 else w.copy()

    def certified_separator(self, st):
        """Test (28) on the residual(s) of this plan: ``(branch, v)`` with ``branch = 0`` when none separates."""
        v = self.residual(st)
        return self.op.test28(v)[0], v

    def infeasible(self, st) -> bool:
        """``δ_𝒜 <= 3||v_D|| <= 3||v_k||`` (Theorem 2.3; ``v_k ∈ b − 𝒜(𝒞)`` and ``v_D`` is its least-norm element)."""
        return 3.0 * float(np.linalg.norm(self.residual(st))) <= self.tol

    def solution(self, st, status) -> Solution:
        op = self.op
        branch, v = self.certified_separator(st)
        f = op.objective(st.xc, st.xd)
        lb = op.lower_bound(v)
        cert = {"objective": f, "lower_bound": lb, "objective_gap_bound": f - lb,
                "residual_norm": float(np.linalg.norm(self.residual(st))), "gradient_mapping": st.grad_map,
                "separability_radius_upper": 3.0 * float(np.linalg.norm(self.residual(st))) * op.alpha}
        info = {"stop": self.stop_rule, "orientation": branch, "residual": self.residual(st), "alpha": op.alpha,
                "L": self.L}
        if self.iteration_bound:
            info.update(self.bounds())
        dual = {"x_c": st.xc.copy(), "x_d": st.xd.copy()}
        if not branch:
            if status == "optimal":
                status = "optimal_inaccurate"
            return Solution(w=None, b=np.nan, status=status, certificate=cert, dual=dual, info=info)
        _, mc, md = op.test28(v)
        w, b = op.hyperplane(v, branch)
        cert.update(certified_margin_c=mc * op.alpha, certified_margin_d=md * op.alpha)
        return Solution(w=w, b=b, status=status, certificate=cert, dual=dual, info=info)

    def bounds(self) -> dict:
        """Theorem 2.4's iteration bounds from the problem's constants, only when ``constants()`` was already
        computed: a plan never calls CVXPY (``{}`` otherwise; call ``problem.constants()`` first to get them)."""
        c, ref = self.form.cached_constants(), self.form.cached_reference()
        if c is None or ref is None:
            return {}
        if not c.get("separable", False):   # not separable (or the reference failed): no finite bound
            return {"iteration_bound": np.inf, "iteration_bound_both": np.inf, "iteration_bound_v": np.inf}
        (x0c, x0d), xbar = self._x0, ref.dual
        dist0 = float(np.sqrt(np.sum((x0c - xbar["x_c"]) ** 2) + np.sum((x0d - xbar["x_d"]) ** 2)))
        return iteration_bounds(c["opnorm_A"], dist0, c["v_D_norm"], c["delta_normalized"])


class ESPFista(_ESPPlan):
    """ESP-FISTA (digest §2.3) on ``min ½||𝒜x − b||²`` s.t. ``x ∈ 𝒞`` (5), ``L = ||𝒜||²`` exact from the
    ``(d+2)×(d+2)`` Gram matrix (§2.2)::

        x_{k+1} = proj_𝒞(y_k + 𝒜ᵀ(b − 𝒜y_k)/L)
        θ_{k+1} = (1 + sqrt(1 + 4θ_k²))/2,   y_{k+1} = x_{k+1} + ((θ_k − 1)/θ_{k+1})(x_{k+1} − x_k)
        v_{k+1} = (s, t, w) = b − 𝒜x_{k+1},  m_{k+1} = (t − s)/2

    ``stop="early"`` (default): test (28) on ``v_{k+1}`` -- every C-ellipsoid strictly below ``wᵀz = m`` and every
    D-ellipsoid strictly above (or the reverse) -- is the certificate, and the status is ``optimal``.
    ``stop="tol"``: the paper's baseline of Table 1, the gradient-mapping norm ``||y_k − x_{k+1}|| <= tol``
    (**typo resolved**: §4.1 prints ``proj_𝒞(x + 𝒜ᵀv_k/L)``; the gradient mapping is taken at ``y_k``); the
    status is ``optimal`` only if the certified gap ``f(x) − f_lower <= tol·max(1, f)`` (see
    :meth:`~marginkit.ellipsoids.ESPOperator.lower_bound`), else ``optimal_inaccurate``.
    Either way ``infeasible`` is reported when ``3||v_k|| <= tol`` without a separator (then ``δ_𝒜 <= tol`` in
    normalised units), and a hyperplane is returned only when (28) certifies it.
    """

    name = "fista"

    def __init__(self, form, stop="early", iteration_bound=True, **unknown):
        _reject(unknown, self.name)
        super().__init__(form, iteration_bound=iteration_bound)
        self.stop_rule = _choice(stop, "stop", ("early", "tol"))

    def init(self, rng, warm_start, budget=None):
        xc, xd = self.start_x(warm_start)
        self._x0 = (xc, xd)
        Ax = self.op.forward(xc, xd)
        return ESPState(k=0, xc=xc, xd=xd, Ax=Ax, yc=xc, yd=xd, Ay=Ax, theta=1.0)

    def step(self, st):
        op, L = self.op, self.L
        gc, gd = op.adjoint(op.b - st.Ay)                       # −∇f(y_k) = 𝒜ᵀ(b − 𝒜y_k)
        xc, xd = project_soc_rows(st.yc + gc / L), project_soc_rows(st.yd + gd / L)
        Ax = op.forward(xc, xd)
        theta, beta = _fista_theta(st.theta)
        grad_map = float(np.sqrt(((st.yc - xc) ** 2).sum() + ((st.yd - xd) ** 2).sum()))
        return ESPState(k=st.k + 1, xc=xc, xd=xd, Ax=Ax, yc=xc + beta * (xc - st.xc), yd=xd + beta * (xd - st.xd),
                        Ay=Ax + beta * (Ax - st.Ax), theta=theta, grad_map=grad_map)

    def stop(self, st, budget=None):
        if self.stop_rule == "early":
            if self.certified_separator(st)[0]:
                return "optimal"
            return "infeasible" if self.infeasible(st) else None
        if st.grad_map > budget.tol:
            return None
        branch, v = self.certified_separator(st)
        if not branch:
            return "infeasible" if self.infeasible(st) else "optimal_inaccurate"
        f = self.op.objective(st.xc, st.xd)
        return "optimal" if f - self.op.lower_bound(v) <= budget.tol * max(1.0, f) else "optimal_inaccurate"


class ESPPdhg(_ESPPlan):
    """PDHG (29) for ``min{0 : 𝒜x = b, x ∈ 𝒞}`` with primal step ``σ = sigma_scale/||𝒜||²`` and dual step 1::

        x_{k+1} = proj_𝒞(x_k − σ 𝒜ᵀy_k),     y_{k+1} = y_k + 𝒜(2x_{k+1} − x_k) − b

    The D-part of the infimal displacement vector equals FISTA's limiting residual ``v_D`` (Theorem 2.1).
    **Sign typo resolved**: Appendix A writes ``(x_{k+1}, y_{k+1}) − (x_k, y_k) → (v_R, v_D)``; since ``v`` lies in
    ``Range(Id − T)`` it is ``y_k − y_{k+1} → v_D`` (digest §2.5). Test (28) is applied to that displacement and to
    ``b − 𝒜x_{k+1}`` (also ``→ v_D``); the first that certifies a separator stops the run (``stop="early"`` only).
    """

    name = "pdhg"

    def __init__(self, form, stop="early", sigma_scale=0.95, iteration_bound=False, **unknown):
        _reject(unknown, self.name)
        super().__init__(form, iteration_bound=iteration_bound)
        self.stop_rule = _choice(stop, "stop", ("early",))
        if not (isinstance(sigma_scale, (int, float)) and 0 < sigma_scale < 1):
            raise ProblemError(f"sigma_scale must be in (0, 1) (σ < 1/||𝒜||²); got {sigma_scale!r}")
        self.sigma = float(sigma_scale) / self.L

    def init(self, rng, warm_start, budget=None):
        xc, xd = self.start_x(warm_start)
        self._x0 = (xc, xd)
        zero = np.zeros(self.op.d + 2)
        return ESPState(k=0, xc=xc, xd=xd, Ax=self.op.forward(xc, xd), dual=zero, disp=zero)

    def step(self, st):
        op = self.op
        gc, gd = op.adjoint(st.dual)
        xc, xd = project_soc_rows(st.xc - self.sigma * gc), project_soc_rows(st.xd - self.sigma * gd)
        Ax = op.forward(xc, xd)
        disp = op.b - (2.0 * Ax - st.Ax)                       # y_k − y_{k+1}
        grad_map = float(np.sqrt(((st.xc - xc) ** 2).sum() + ((st.xd - xd) ** 2).sum()))
        return ESPState(k=st.k + 1, xc=xc, xd=xd, Ax=Ax, dual=st.dual - disp, disp=disp, grad_map=grad_map)

    def certified_separator(self, st):
        if st.k > 0:
            branch = self.op.test28(st.disp)[0]
            if branch:
                return branch, st.disp
        return super().certified_separator(st)

    def stop(self, st, budget=None):
        if self.certified_separator(st)[0]:
            return "optimal"
        return "infeasible" if self.infeasible(st) else None


# =========================================================================================================
# SVM duals: the perturbed dual (15) and the soft-margin dual (12)


@dataclass
class SVMState:
    k: int
    r: np.ndarray            # r_k ∈ Ω (the paper's (u_k, v_k), in the order of the rows of X)
    w: np.ndarray | None     # Hᵀr_k = Xᵀ(y∘r_k) (None with a kernel)
    Qr: np.ndarray           # H Hᵀ r_k = y ∘ (X w)
    z: np.ndarray            # extrapolated point (the paper's y_k)
    Qz: np.ndarray           # H Hᵀ z, carried by linearity
    theta: float = 1.0       # FISTA momentum scalar
    grad_map: float = np.inf  # G_k = ||z_{k−1} − r_k||
    dist_bound: float = np.inf  # D_k = (2L/μ) G_k >= ||r_k − r*|| (Theorem 3.2)
    certified: np.ndarray = None  # T (boolean mask): certified r*_i < γ, never removed
    p_best: float = 0.0
    stale: int = 0
    tau: float = None        # multiplier of yᵀa = 0 in the last projection (warm start of the next one)
    vals: tuple = None       # (P, g, b) of this state, computed once (shared by stop, measure and solution)
    since: int = 0           # iterations since the momentum was last reset
    gval: float = -np.inf    # the plan's dual value g(r_k) (restart="function")


class SVMDualFista(IterationPlan):
    """FISTA on ``max_{a ∈ Ω} g(a) = −½||Hᵀa||² + eᵀa − (μ/2)||a||²``, ``H = diag(y)X`` (``K`` for kernels),
    ``Ω = {0 <= a <= γ}`` intersected with ``{yᵀa = 0}`` when there is an offset (digest §2.7)::

        r_{k+1} = proj_Ω(z_k + ∇g(z_k)/L),     ∇g(z) = e − HHᵀz − μz,     L = μ + ||H||²
        z_{k+1} = r_{k+1} + β_k (r_{k+1} − r_k)

    ``variant="v-fista"`` (needs ``μ > 0``): ``β = (√κ − 1)/(√κ + 1)``, ``κ = L/μ`` (Beck §10.7.7, Thm 10.42:
    ``||r_k − r*||² <= (1 − 1/√κ)^k (2(g* − g(r_0))/μ + ||r_0 − r*||²)``); ``variant="fista"``: the θ-sequence.
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
    ``(P − g)/max(1, |P|) <= tol``, else ``optimal_inaccurate``. ``stop="tol"``: stop when that gap is ``<= tol``.
    """

    name = "fista"
    default_max_iter = 10000
    default_tol = 1e-6
    log_columns = ("objective", "duality_gap", "gradient_mapping")

    def __init__(self, form, *, mu_problem, mu=0.0, stop="tol", variant=None, projection="linear", restart=None,
                 delta_min=1e-4, stale_max=2, min_iter=0, restart_min=1):
        super().__init__(form)
        self.restart_min = _positive_int(restart_min, "restart_min")
        self.y = form.y
        self.n = form.n
        self.kernel = getattr(form, "kernel", None)
        self.box = float(form.C) if form.form == "SoftMarginSVM" else float(form.gamma)  # γ of (12)/(15)
        self.equality = bool(getattr(form, "bias", True))
        self.mu_problem = float(mu_problem)
        self.mu = _nonneg(mu, "mu")
        self.stop_rule = _choice(stop, "stop", ("early", "tol"))
        variant = variant if variant is not None else ("v-fista" if self.mu > 0 else "fista")
        self.variant = _choice(variant, "variant", ("v-fista", "fista"))
        self.projection = _choice(projection, "projection", PROJECTIONS)
        self.restart = _choice(restart, "restart", (None, "gradient", "function"))
        if self.mu == 0 and (self.variant == "v-fista" or self.stop_rule == "early"):
            raise ProblemError("variant='v-fista' and stop='early' need a strongly concave dual: mu > 0")
        self.delta_min = _nonneg(delta_min, "delta_min")
        self.stale_max = _positive_int(stale_max, "stale_max")
        self.min_iter = _positive_int(min_iter, "min_iter", minimum=0)
        if self.kernel is None:
            self.X = form.X
            H2 = spectral_norm_sq(form.X)
        else:
            self.K = form.gram()
            Ks = 0.5 * (self.K + self.K.T)
            H2 = largest_eigenvalue(Ks, Ks.shape[0], dense=lambda: Ks, exact_below=Ks.shape[0])
        self.L = self.mu + max(H2, 0.0)
        if self.L == 0.0:
            self.L = 1.0
        self.kappa = self.L / self.mu if self.mu > 0 else np.inf
        self.beta = (np.sqrt(self.kappa) - 1) / (np.sqrt(self.kappa) + 1) if self.variant == "v-fista" else None

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
        return project_svm_dual(a, self.y, self.box, equality=self.equality, method=self.projection, tau0=tau0,
                                return_tau=True)

    # certificate -----------------------------------------------------------------------------------
    def values(self, st):
        """``(P(w, b), g(r), b)`` for the problem's own μ: the primal at the best offset and the dual value
        (computed once per state: the offset is O(n) for μ = 0, see :func:`~marginkit.svm_forms.best_offset`)."""
        if st.vals is not None:
            return st.vals
        mu = self.mu_problem
        f = self.y * st.Qr                         # x_iᵀw (or the kernel expansion) at w = Hᵀr
        norm_w2 = float(np.dot(st.r, st.Qr))
        b = best_offset(f, self.y, self.box, mu) if self.equality else 0.0
        primal = 0.5 * norm_w2 + float(smoothed_hinge(self.y * (f + b), self.box, mu).sum())
        dual = float(st.r.sum() - 0.5 * norm_w2 - 0.5 * mu * np.dot(st.r, st.r))
        st.vals = (primal, dual, b)
        return st.vals

    def relative_gap(self, st) -> float:
        primal, dual, _ = self.values(st)
        return (primal - dual) / max(1.0, abs(primal))

    # hooks -----------------------------------------------------------------------------------------
    def init(self, rng, warm_start, budget=None):
        if warm_start is None:
            r = np.zeros(self.n)       # feasible (the paper's r_0 = 0; start point not stated)
        else:
            dual = getattr(warm_start, "dual", None)
            r = np.array(dual["a"] if isinstance(dual, dict) and "a" in dual else warm_start, dtype=float).ravel()
            if r.shape != (self.n,):
                raise ProblemError(f"warm_start must be a Result of an SVM dual method or a vector of length {self.n}")
            r = self.project(r)[0]
        w, Qr = self.apply(r)
        return SVMState(k=0, r=r, w=w, Qr=Qr, z=r, Qz=Qr, certified=np.zeros(self.n, bool))

    def step(self, st):
        grad = 1.0 - st.Qz - self.mu * st.z
        r, tau = self.project(st.z + grad / self.L, st.tau)
        w, Qr = self.apply(r)
        G = float(np.linalg.norm(st.z - r))
        D = 2.0 * self.kappa * G if self.mu > 0 else np.inf
        certified = st.certified | (self.box - r > D) if self.mu > 0 else st.certified
        p = float(np.count_nonzero(certified)) / self.n
        p_best, stale = st.p_best, st.stale
        if p > p_best + self.delta_min:
            p_best, stale = p, 0
        elif p_best > 0:             # the stall guard: count only after the first certification
            stale += 1
        if self.variant == "v-fista":
            theta, beta = 1.0, self.beta
        else:
            theta, beta = _fista_theta(st.theta)
        since = st.since + 1
        gval = -np.inf
        if self.restart == "function":
            gval = float(r.sum() - 0.5 * np.dot(r, Qr) - 0.5 * self.mu * np.dot(r, r))
            if gval < st.gval and since >= self.restart_min:
                theta, beta, since = 1.0, 0.0, 0
        elif self.restart == "gradient" and since >= self.restart_min and float(np.dot(st.z - r, r - st.r)) > 0:
            theta, beta, since = 1.0, 0.0, 0
        return SVMState(k=st.k + 1, r=r, w=w, Qr=Qr, z=r + beta * (r - st.r), Qz=Qr + beta * (Qr - st.Qr),
                        theta=theta, grad_map=G, dist_bound=D, certified=certified, p_best=p_best, stale=stale,
                        tau=tau, since=since, gval=gval)

    def measure(self, st) -> dict:
        primal, dual, _ = self.values(st)
        out = {"objective": self.objective_of(primal, dual), "dual_objective": dual, "primal_objective": primal,
               "duality_gap": primal - dual, "gradient_mapping": st.grad_map}
        if self.mu > 0:
            out.update(distance_bound=st.dist_bound, certified_fraction=float(np.count_nonzero(st.certified)) / self.n)
        return out

    def objective_of(self, primal, dual):
        return primal

    def stop(self, st, budget=None):
        if self.stop_rule == "tol":
            return "optimal" if st.k > 0 and self.relative_gap(st) <= budget.tol else None
        stalled = st.stale >= self.stale_max and st.k >= self.min_iter
        if stalled or st.dist_bound <= budget.tol * self.box:
            return "optimal" if self.relative_gap(st) <= budget.tol else "optimal_inaccurate"
        return None

    def snapshot(self, st):
        return None if st.w is None else st.w.copy()

    def solution(self, st, status) -> Solution:
        primal, dual, b = self.values(st)
        cert = self.certificate(primal, dual)
        cert.update(relative_gap=(primal - dual) / max(1.0, abs(primal)), gradient_mapping=st.grad_map)
        info = {"stop": self.stop_rule, "variant": self.variant, "projection": self.projection, "L": self.L,
                "mu": self.mu}
        if self.mu > 0:
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
    Defaults: ``stop="tol"`` on the relative primal–dual gap, ``restart="function"``."""

    def __init__(self, form, mu=0.0, stop="tol", variant=None, projection="linear", restart="function",
                 delta_min=1e-4, stale_max=2, min_iter=0, restart_min=1, **unknown):
        _reject(unknown, self.name)
        super().__init__(form, mu_problem=0.0, mu=mu, stop=stop, variant=variant, projection=projection,
                         restart=restart, delta_min=delta_min, stale_max=stale_max, min_iter=min_iter,
                         restart_min=restart_min)


class PerturbedDualFista(SVMDualFista):
    """Algorithm SVM-FISTA (digest §2.7) on (15) with the problem's ``γ`` and ``μ``. Defaults of the paper:
    ``variant="v-fista"``, ``stop="early"``, ``delta_min=1e-4``, ``stale_max=2``; ``projection="linear"``.
    The result's ``info`` holds the certified set ``T`` (every ``i ∈ T`` has ``r*_i < γ``: a properly classified
    point), ``certified_fraction`` and ``separates_certified`` (whether ``(w, b)`` separates ``T``: the paper claims
    it, no theorem proves it for arbitrary data, so it is checked and reported, pitfall 6)."""

    def __init__(self, form, stop="early", variant="v-fista", projection="linear", restart=None, delta_min=1e-4,
                 stale_max=2, min_iter=0, **unknown):
        if "mu" in unknown:
            raise ProblemError("mu is a parameter of the problem: build PerturbedSVMDual(X, y, mu=...)")
        _reject(unknown, self.name)
        super().__init__(form, mu_problem=form.mu, mu=form.mu, stop=stop, variant=variant, projection=projection,
                         restart=restart, delta_min=delta_min, stale_max=stale_max, min_iter=min_iter)

    def objective_of(self, primal, dual):
        return dual

    def certificate(self, primal, dual) -> dict:
        # the problem is the dual (15): its own value first, the value of its Lagrange dual (20) as the bound
        return {"primal": dual, "dual": primal, "duality_gap": primal - dual}

