"""Iterative regularisation with the hinge loss by diagonal descent on the dual (Apidopoulos, Poggio,
Rosasco & Villa, *Iterative regularization in classification via hinge loss diagonal descent*, arXiv
2212.12675 v1).

AP (§4) penalise the summed hinge,
``w_λ = argmin (1/λ) Σ_i max(0, 1 − z_iᵀw) + ½||w||²`` (4.8) with ``z_i = y_i x_i``, and iterate on its dual

    D_λ(u) = ½||Zᵀu||² + 1ᵀu + ι_{[−1/λ, 0]^n}(u),        w_λ = −Zᵀu_λ            (4.9), (4.12)

letting ``λ = λ_t`` decrease along the iterations ("diagonal" descent): the box ``[−1/λ_t, 0]^n`` widens and
the iterates converge to the hard-margin solution ``w*`` instead of ``w_λ``. In SVM notation ``a = −u >= 0``
is the vector of multipliers, ``w = Zᵀa = Σ a_i y_i x_i`` and ``C = 1/λ``.

Resolved in this file (each once):

* **Sign folding**: after §4.1 AP write ``X`` for ``Z = diag(y)X``; here ``Z`` is never formed
  (:class:`~marginkit.core.linalg.SignedData`), and ``Q = ZZᵀ`` is only used through ``Qu = −Z w``.
* **Eqs. (4.3)/(4.7)** are printed per coordinate with a clashing index; the update is the vector
  ``w_{t+1} = −Zᵀu_{t+1} = Σ_i (−u_{t+1,i}) y_i x_i``.
* **Kernel predictor** (Remark 4.1 prints ``⟨K(x_i, x), u_t⟩``): ``f_t(x) = Σ_i (−u_{t,i}) y_i k(x_i, x)`` and
  "replace XXᵀ by K" means ``Q = diag(y) K diag(y)``; the result's ``dual_coef`` is ``−u ⊙ y``.
* **Box of (A.29)** is printed ``[−λ_t, 0]^n``; it is ``[−1/λ_t, 0]^n`` as in (4.2).
* **Schedule indices** (AP §6 use ``λ_t = λ_0/t``): ``λ_0/t`` is undefined at ``t = 0``. Here update
  ``t = 0, 1, ...`` uses ``λ(t)`` and the named schedules are shifted so that they are defined from ``t = 0``:
  ``λ0/(t+1)``, ``λ0/log(t+2)``, ``λ0/√(t+1)``, ``λ0/(t+1)²``, ``λ0/2^t``. For Algorithm 2, whose first update is
  the paper's ``t = 1``, update ``t`` here is the paper's ``t + 1``: the paper's ``λ_t = λ0/t`` is exactly
  ``"inverse"``. ``λ0/2^t`` underflows after about 1074 steps; the box is computed as ``inv_lam(t) = 2^t/λ0`` and
  becomes ``+inf``.
* **Unstated step and start** (AP §6.1 give neither): ``γ = 1/||Q||_op`` (linear: ``||X||_2²`` by power iteration, never
  forming ``Q``; kernel: ``λ_max(K)``) and ``u_0 = 0``.
* **Condition λ_0 <= 1/||u*||** (Theorems 5.1–5.2): ``u*`` is not unique and the proofs use only ``λ_0 ||u*||_∞ <= 1``,
  i.e. ``λ(0) <= λ*_A`` (``problem.constants()["lambda_star"]``). Larger ``λ(0)`` gives the same limit; the
  rates then hold once ``λ_t <= λ*_A`` (Remark 5.3).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ...core.backend import NUMPY
from ...core.linalg import SignedData, largest_eigenvalue
from ...core.params import InstanceOf, Interval, IsCallable, Options
from ...core.solution import Solution
from ...core.validation import ProblemError
from ...core.warmstart import parse_warm_start
from ...engine.runloop import IterationPlan
from ..common.margin import MarginPlan

AP = "Apidopoulos, Poggio, Rosasco & Villa (2022)"
SCHEDULE_CHECK_STEPS = 512  # a user schedule must be non-increasing on t = 0..511
POSITIVE = Interval(float, 0, None, closed="neither")


# λ-schedules (AP §4.1, §6) -------------------------------------------------------------------------------
class Schedule:
    """A non-increasing regularisation schedule: update ``t = 0, 1, ...`` uses ``lam(t)``, and the dual box
    is ``[−inv_lam(t), 0]^n`` with ``inv_lam(t) = 1/lam(t)`` (``inf`` once ``lam`` underflows to 0)."""

    def lam(self, t: int) -> float:
        raise NotImplementedError

    def inv_lam(self, t: int) -> float:
        lam = self.lam(t)
        return math.inf if lam == 0.0 else 1.0 / lam


@dataclass(frozen=True)
class _Named(Schedule):
    """A named schedule of :data:`NAMED_SCHEDULES`: a frozen dataclass of its ``λ0``."""

    lambda0: float


@dataclass(frozen=True)
class Inverse(_Named):
    """``λ(t) = λ0/(t+1)`` (AP's ``λ0/t``, Figs. 2–5)."""

    def lam(self, t):
        return self.lambda0 / (t + 1.0)


@dataclass(frozen=True)
class InverseLog(_Named):
    """``λ(t) = λ0/log(t+2)`` (AP's ``8/log t``, Fig. 5; slow decay)."""

    def lam(self, t):
        return self.lambda0 / math.log(t + 2.0)


@dataclass(frozen=True)
class InverseSqrt(_Named):
    """``λ(t) = λ0/√(t+1)`` (AP's ``8/√t``, Fig. 5)."""

    def lam(self, t):
        return self.lambda0 / math.sqrt(t + 1.0)


@dataclass(frozen=True)
class InverseSquare(_Named):
    """``λ(t) = λ0/(t+1)²`` (AP's ``8/t²``, Fig. 5)."""

    def lam(self, t):
        return self.lambda0 / (t + 1.0) ** 2


@dataclass(frozen=True)
class Geometric(_Named):
    """``λ(t) = λ0/ratio^t`` (AP's ``8/2^t``, Fig. 5); ``inv_lam`` is computed in the log domain."""

    ratio: float = 2.0

    def lam(self, t):
        return self.lambda0 * self.ratio ** (-float(t))

    def inv_lam(self, t):
        log_inv = t * math.log(self.ratio) - math.log(self.lambda0)
        return math.inf if log_inv > 709.0 else math.exp(log_inv)


@dataclass(frozen=True)
class Constant(_Named):
    """``λ(t) = λ``: the iteration then solves the fixed-λ soft-margin dual (4.9) and converges to ``w_λ``,
    which is ``w*`` only when ``λ <= λ*_A`` (claim AP-8)."""

    def lam(self, t):
        return self.lambda0


class UserSchedule(Schedule):
    """A user callable ``t -> λ_t`` (``t = 0, 1, ...``), checked non-increasing on its first steps."""

    def __init__(self, fn):
        self.fn = fn

    def lam(self, t):
        return float(self.fn(t))

    def __repr__(self):
        return f"UserSchedule({self.fn!r})"


NAMED_SCHEDULES = {"inverse": Inverse, "inverse-log": InverseLog, "inverse-sqrt": InverseSqrt,
                   "inverse-square": InverseSquare, "geometric": Geometric, "constant": Constant}
SCHEDULES = [Options(*NAMED_SCHEDULES), InstanceOf(Schedule), IsCallable()]


def resolve_schedule(schedule, lambda0=None):
    """The :class:`Schedule` of a name of :data:`NAMED_SCHEDULES` (with ``lambda0``, default 1), of a
    ``Schedule`` (itself) or of a callable ``t -> λ_t``; a value the declared constraints reject (an unknown name,
    a named schedule with a bad ``lambda0``, a non-callable) is returned as it is, for them to name it."""
    if isinstance(schedule, str):
        if schedule in NAMED_SCHEDULES and (lambda0 is None or POSITIVE.accepts(lambda0)):
            return NAMED_SCHEDULES[schedule](1.0 if lambda0 is None else float(lambda0))
        return schedule
    if lambda0 is not None:
        raise ProblemError("lambda0 only applies to a named schedule; put it inside the schedule object")
    if isinstance(schedule, Schedule) or not callable(schedule):
        return schedule
    return UserSchedule(schedule)


def check_non_increasing(sched: Schedule, method: str = "diagonal") -> None:
    """``ProblemError`` for a schedule that increases or is not positive and finite on ``t = 0..511`` (the dual
    box may only widen, AP Lemma 5.1)."""
    prev = math.inf
    for t in range(SCHEDULE_CHECK_STEPS):
        try:
            lam = sched.lam(t)
        except (TypeError, ValueError, ArithmeticError) as exc:
            raise ProblemError(f"{method}: schedule failed at t={t}: {exc}") from None
        if not (lam >= 0.0 and math.isfinite(lam)):
            raise ProblemError(f"{method}: schedule must give finite lambda_t > 0; got lambda_{t} = {lam!r}")
        if lam > prev * (1.0 + 1e-12):
            raise ProblemError(f"{method}: schedule must be non-increasing (the dual box [-1/lambda_t, 0]^n may only "
                               f"widen, AP Lemma 5.1); got lambda_{t} = {lam:.6g} > lambda_{t - 1} = {prev:.6g}")
        prev = lam


# the dual operator: u -> (w, margins), linear or kernel ------------------------------------------------
class HingeDualOperator:
    """The data of the dual (4.9) as an operator: ``primal(u) -> (w, s)`` with ``w = −Zᵀu`` and the margins
    ``s = Zw = −Qu`` (``s_i = y_i f(x_i)``). Linear: one product with ``Xᵀ`` and one with ``X``; kernel:
    one product with the Gram matrix, ``w`` is not formed (``None``). In both cases
    ``||w||² = uᵀQu = −u·s`` and ``norm_Q = ||Q||_op`` (kernel: ``λ_max(K)``, Lanczos beyond 200 rows,
    rounded up so that the step ``1/||Q||_op`` stays admissible). Linear: where X lives (the problem's backend;
    ``||X||_2²`` from the small Gram matrix formed there, :meth:`~marginkit.core.backend.Backend.spectral_norm_sq`);
    kernels run on NumPy only."""

    def __init__(self, form):
        self.y = form.y
        self.kernel = form.kernel is not None
        if self.kernel:
            K = self.K = form.gram()
            self.norm_Q = largest_eigenvalue(K, K.shape[0], dense=lambda: K, exact_below=200, tol=1e-6,
                                             inflation=1e-5)
            self.R = float(np.sqrt(max(np.max(np.diag(K)), 0.0)))
        else:
            bk = getattr(form, "backend", NUMPY)
            self.Z = SignedData(form.X, form.y, sign=+1.0, backend=bk)
            self.norm_Q = bk.spectral_norm_sq(form.X)
            self.R = form.max_row_norm()

    def primal(self, u):
        if self.kernel:
            return None, -self.y * (self.K @ (self.y * u))
        w = -self.Z.rmatvec(u)
        return w, self.Z.matvec(w)

    def dual_coef(self, u):
        """Coefficients of ``f(x) = Σ_i coef_i k(x_i, x)`` (Remark 4.1, sign and labels restored)."""
        return -u * self.y


@dataclass
class HingeDualState:
    t: int
    u: np.ndarray                # dual iterate in [−1/λ_{t−1}, 0]^n (AP's sign: u = −a)
    s: np.ndarray                # margins Zw = −Qu of the primal point
    w: np.ndarray | None         # primal iterate −Zᵀu (None with a kernel)
    dual_bound: float = np.inf   # certified upper bound on the max margin (MaxMargin only)
    u_prev: np.ndarray | None = None   # Algorithm 2: previous iterate and its margins
    s_prev: np.ndarray | None = None


STEP = [None, POSITIVE]   # the step γ of (4.1); default 1/||Q||_op


class HingeDualSteps:
    """Shared by the plans of this file: the operator, the step ``gamma`` (the config's ``step``, at most
    ``1/||Q||_op``, AP Lemma 5.3) and the warm start ``u_0``."""

    def setup(self):
        super().setup()
        self.op = HingeDualOperator(self.form)
        limit = 1.0 / self.op.norm_Q if self.op.norm_Q > 0 else 1.0
        step = self.config.step   # ``self.step`` is the hook
        if step is not None and step > limit * (1 + 1e-3):
            raise ProblemError(f"{self.method}: step must be <= 1/||Q||_op = {limit:.6g} (AP Lemma 5.3); "
                               f"got {step!r}")
        self.gamma = limit if step is None else float(step)
        self.bk = getattr(self.form, "backend", NUMPY)   # where X lives: u, s on its n-side, w on its d-side

    def start_u(self, warm_start, inv_lam0: float):
        """``u_0 = 0``, or a warm start: a previous result (its ``dual['u']``, or ``dual['a']`` of the
        reference) or a vector ``u`` of length n; clipped to the first box ``[−1/λ(0), 0]^n``, placed where X lives."""
        n = self.op.y.shape[0]
        dual = getattr(warm_start, "dual", None)
        if dual is None:
            u = parse_warm_start(warm_start, n, attr="u")
        elif isinstance(dual, dict) and "u" in dual:
            u = parse_warm_start(dual["u"], n, attr="u")
        elif isinstance(dual, dict) and "a" in dual:
            a = parse_warm_start(dual["a"], n, attr="a")
            u = None if a is None else -a
        else:
            raise ProblemError("warm_start: this result carries no dual iterate u (run a dual method first)")
        return self.bk.zeros_n(n) if u is None else self.bk.asarray_n(np.clip(u, -inv_lam0, 0.0))

    def dual_step(self, u, s, inv_lam):
        """Forward–backward step (4.1)–(4.2) with the step ``γ = gamma``: ``u ← P_{[−1/λ,0]^n}(u − γ(Qu + 1))`` with
        ``Qu = −s``; the backward part is the prox (4.15) of ``(γ/λ)𝓛*(λ·)``, a shift by ``−γ`` and a clip to the box
        ``[−1/λ, 0]``, where ``u`` lives (persisted on dask)."""
        return self.bk.persist(self.bk.clip(u + self.gamma * s - self.gamma, -inv_lam, 0.0))

    def norm_sq(self, u, s):
        """``||w||² = ||Zᵀu||² = −u·s`` clipped at 0 against rounding (a 0-d array on an array-API device)."""
        return self.bk.maximum(-self.bk.lazy(self.bk.vdot(u, s)), 0.0)

    def finite(self, st) -> bool:
        """The run loop's per-step guard: one sum over ``u``, ``s`` and ``w`` (the previous iterate of Algorithm 2 was
        checked a step earlier); one scalar on dask, none on an array-API device (checked at the stop checks)."""
        return self.bk.finite_sum([v for v in (st.u, st.s, st.w) if v is not None])

    def snapshot(self, st):
        return None if st.w is None else self.bk.host(self.bk.copy(st.w))

    def read_out(self, st) -> dict:
        """``w`` (in the user's namespace), the dual iterate as NumPy host copies (``u`` and ``a = −u`` warm-start any
        run, and a saved result keeps them) and the kernel coefficients for :class:`Solution`."""
        u = self.bk.host(self.bk.copy(st.u))
        return {"w": None if st.w is None else self.bk.xd.asarray(st.w, copy=True), "dual": {"u": u, "a": -u},
                "dual_coef": self.op.dual_coef(st.u) if st.w is None else None}


# Algorithm 1 -----------------------------------------------------------------------------------------
class DiagonalDescent(HingeDualSteps, MarginPlan):
    """AP Algorithm 1: projected gradient on the dual with a widening box,

        u_{t+1} = P_{[−1/λ_t, 0]^n}(u_t − γ(Q u_t + 1)),      w_{t+1} = −Zᵀu_{t+1}        (4.1)–(4.3)

    one product with ``X`` and one with ``Xᵀ`` per step (kernel: one with the Gram matrix). ``r_t =
    D_t(u_t) − D∞(u*)`` is non-increasing for every non-increasing schedule (Lemma 5.3) and
    ``½||w_t − w*||² <= r_t`` (Lemma 5.2); the trace column ``dual_objective`` is
    ``D_t(u_t) = ½||w_t||² + 1ᵀu_t``.

    Parameters: ``schedule`` (a name of :data:`NAMED_SCHEDULES`, a :class:`Schedule`, or a callable
    ``t -> λ_t``; default ``"inverse"``, ``λ0/(t+1)``; ``plan.schedule`` is the resolved :class:`Schedule` and
    ``plan.box_schedule`` the one the iteration uses: the same, or ``λ0 = R²`` when ``lambda0`` is not given),
    ``lambda0`` (for a named schedule, in the paper's units; default ``R² = max||x_i||²`` (kernel: ``max k(x_i,
    x_i)``), our choice: it makes the default run scale-free -- solving ``c·X`` runs through ``u_t/c²`` and ends
    with the same status and relative gap; the paper uses 4 on its toy set (``R² = 2.5`` for its support vectors)
    and 8, 0.01–100 on the kernel set), ``step`` (the paper's ``γ``, default ``1/||Q||_op``; the value used is
    ``plan.gamma``). An explicit ``lambda0``, ``Schedule`` or callable is used as given (the paper's units).

    Certificate (stop rule of :class:`MarginPlan`): ``a = −u >= 0`` gives ``γ̄ <= ||Σ a_i y_i x_i||/Σ a_i``,
    which equals ``γ*`` at a dual solution (``1ᵀa* = ||w*||²``).
    """

    name = "diagonal"
    default_max_iter = 10000

    @dataclass(frozen=True)
    class Config:
        schedule: object = field(default="inverse", metadata={
            "doc": "λ_t (AP §4.1): a name, a Schedule or a callable t -> λ_t"})
        lambda0: float | None = field(default=None, metadata={
            "doc": "λ0 of a named schedule (default R² = max ||x_i||²: scale-free)"})
        step: float | None = field(default=None, metadata={"doc": "γ of (4.1) (default 1/||Q||_op)"})
        constraints: ClassVar[dict] = {"schedule": SCHEDULES, "lambda0": [None, POSITIVE], "step": STEP}

        def __post_init__(self):   # ``schedule`` reads as the resolved Schedule (``plan.schedule.lam(t)``)
            # a named schedule without lambda0 is set in the data's units at setup (λ0 = R², scale-free)
            object.__setattr__(self, "data_units", isinstance(self.schedule, str) and self.lambda0 is None
                               and self.schedule in NAMED_SCHEDULES)
            object.__setattr__(self, "schedule", resolve_schedule(self.schedule, self.lambda0))

        def validate(self, method):
            check_non_increasing(self.schedule, method)

    def setup(self):
        super().setup()
        self.R = self.op.R if self.op.R > 0 else 1.0
        # λ has the units of ||x||² (the box 1/λ bounds multipliers a ~ ||w*||²/n_sv ~ 1/(γ*² n_sv)): solving
        # c·X from u_0 = 0 with γ = 1/||Q|| and λ0 = R² gives exactly the iterates u/c² of X (equal statuses)
        self.box_schedule = (type(self.schedule)(self.R ** 2) if getattr(self.config, "data_units", False)
                             else self.schedule)

    def init(self, rng, warm_start, budget):
        u = self.start_u(warm_start, self.box_schedule.inv_lam(0))
        w, s = self.op.primal(u)
        return HingeDualState(t=0, u=u, s=s, w=w, dual_bound=self.certify(np.inf, u, s))

    def step(self, st):
        u = self.dual_step(st.u, st.s, self.box_schedule.inv_lam(st.t))
        w, s = self.op.primal(u)
        return HingeDualState(t=st.t + 1, u=u, s=s, w=w, dual_bound=self.certify(st.dual_bound, u, s))

    # certificate and read-outs ---------------------------------------------------------------------------
    def certify(self, bound: float, u, s) -> float:
        """``min(bound, ||Zᵀa||/Σa)`` with ``a = −u`` (``Σa <= 0`` keeps ``bound``): a 0-d array on an array-API
        device, so a step never waits for it."""
        bk = self.bk
        return bk.minimum(bound, bk.ratio(bk.sqrt(self.norm_sq(u, s)), -bk.lazy_sum(u)))

    def margin(self, st) -> float:
        """Normalised margin ``min_i s_i / ||w||`` of ``w = −Zᵀu`` (two scalars to the host)."""
        nw = math.sqrt(self.bk.float(self.norm_sq(st.u, st.s)))
        return 0.0 if nw == 0.0 else self.bk.float(self.bk.xp.min(st.s)) / nw

    def measure(self, st) -> dict:
        bk = self.bk
        m, nsq, ub = self.margin(st), bk.float(self.norm_sq(st.u, st.s)), bk.float(st.dual_bound)
        return {"margin": m, "margin_upper": ub, "gap_bound": ub - m,
                "norm_w": math.sqrt(nsq), "dual_potential": 0.5 * nsq + bk.float(bk.lazy_sum(st.u))}

    def solution(self, st, status) -> Solution:
        m, ub = self.margin(st), self.bk.float(st.dual_bound)
        rel = self.relative_gap(m, ub)
        cert = {"margin_lower": m, "margin_upper": ub, "gap_bound": ub - m,
                "relative_gap_bound": rel, "relative_gap": rel}
        self.add_hull_proof(cert, status)
        return Solution(status=status, certificate=cert, **self.read_out(st))


# Algorithm 2 -----------------------------------------------------------------------------------------
class InertialDiagonalDescent(DiagonalDescent):
    """AP Algorithm 2 (i-GD): Algorithm 1 at the extrapolated point

        z_t = u_t + t/(t+α) (u_t − u_{t−1}),  u_{t+1} = P_{[−1/λ_t,0]^n}(z_t − γ(Q z_t + 1))    (4.4)–(4.6)

    with ``u_0 = u_1`` (the paper's first update is ``t = 1``; update ``t`` here is its ``t + 1``) and
    ``w_{t+1} = −Zᵀu_{t+1}`` (4.7). ``Qz`` is read off the stored margins, ``Qz = −(s_t + β(s_t − s_{t−1}))``,
    so a step costs as much as in Algorithm 1.
    ``D_t(u_t)`` is not monotone; the Lyapunov energy ``E_t = k_t² r_t + ||ν(u_{t−1} − u*) + k_t(u_t −
    u_{t−1})||²/(2γ)`` with ``k_t = t + α − 1``, ``ν = α − 1`` is (A.63). The paper's constant ``C̃²`` of
    Thm 5.2 is ``E_0``, which its own indexing does not define (resolved here); the bound starts from ``E_1``.

    ``alpha`` (default 10, the smallest value of the paper's experiments): ``α >= 3`` is the theorem's
    range; smaller positive values run with a ``UserWarning``.
    """

    name = "diagonal-inertial"

    @dataclass(frozen=True)
    class Config(DiagonalDescent.Config):
        alpha: float = field(default=10.0, metadata={
            "doc": "α of the extrapolation t/(t+α) (4.4); Thm 5.2 needs α >= 3"})
        constraints: ClassVar[dict] = {**DiagonalDescent.Config.constraints, "alpha": [POSITIVE]}

        def validate(self, method):
            super().validate(method)
            if self.alpha < 3:
                warnings.warn(f"alpha = {self.alpha:g} < 3: Theorem 5.2 of {AP} (the O(1/t) rate) does not "
                              f"cover it", UserWarning, stacklevel=2)

    def init(self, rng, warm_start, budget):
        st = super().init(rng, warm_start, budget)
        st.u_prev, st.s_prev = st.u, st.s
        return st

    def step(self, st):
        beta = (st.t + 1.0) / (st.t + 1.0 + self.alpha)
        z = st.u + beta * (st.u - st.u_prev)
        sz = st.s + beta * (st.s - st.s_prev)
        u = self.dual_step(z, sz, self.box_schedule.inv_lam(st.t))
        w, s = self.op.primal(u)
        return HingeDualState(t=st.t + 1, u=u, s=s, w=w, dual_bound=self.certify(st.dual_bound, u, s),
                              u_prev=st.u, s_prev=st.s)


def relative_gap(primal: float, lower: float) -> float:
    """Certified relative gap of a minimisation: ``(P − D)/D`` with a certified lower bound ``D > 0`` on the
    optimal value (``inf`` without one)."""
    return (primal - lower) / lower if lower > 0 and np.isfinite(lower) else np.inf


# the soft-margin SVM without bias (fixed λ = 1/C) ---------------------------------------------------------
class SoftMarginDiagonal(HingeDualSteps, IterationPlan):
    """AP Algorithm 1 with ``λ_t ≡ 1/C``: projected gradient ``a ← clip(a + γ(1 − Qa), 0, C)`` on the SVM
    dual (4.9) (``a = −u``), i.e. it solves ``min ½||w||² + C Σ hinge`` without a bias (AP-8).

    Certificate: the duality gap ``P(w) − D(a) = ½||w||² + C Σ hinge(s_i) − (1ᵀa − ½||w||²)`` at the
    iterate, whose ``a`` is always in ``[0, C]^n`` (so ``D(a) <= P*``); ``optimal`` when the certified relative gap
    ``(P(w) − D(a))/D(a) <= tol`` with ``D(a) > 0`` (scale-free; never claimed without a positive lower bound).
    """

    name = "diagonal"
    default_max_iter = 100000
    default_tol = 1e-6
    log_columns = ("objective", "dual_objective", "duality_gap")

    @dataclass(frozen=True)
    class Config:
        step: float | None = field(default=None, metadata={"doc": "γ of (4.1) (default 1/||Q||_op)"})
        constraints: ClassVar[dict] = {"step": STEP}

    def setup(self):
        super().setup()
        self.C = self.form.C

    def init(self, rng, warm_start, budget):
        u = self.start_u(warm_start, self.C)
        w, s = self.op.primal(u)
        return HingeDualState(t=0, u=u, s=s, w=w)

    def step(self, st):
        u = self.dual_step(st.u, st.s, self.C)
        w, s = self.op.primal(u)
        return HingeDualState(t=st.t + 1, u=u, s=s, w=w)

    def values(self, st):
        """``(primal P(w), dual 1ᵀa − ½||w||²)`` of the soft-margin problem at the iterate."""
        bk = self.bk
        half_nsq = 0.5 * bk.float(self.norm_sq(st.u, st.s))
        primal = half_nsq + self.C * bk.float(bk.lazy_sum(bk.clip(1.0 - st.s, 0.0)))
        return primal, -bk.float(bk.lazy_sum(st.u)) - half_nsq

    def measure(self, st) -> dict:
        primal, dual = self.values(st)
        return {"objective": primal, "dual_objective": dual, "duality_gap": primal - dual}

    def stop(self, st, budget):
        primal, dual = self.values(st)
        return "optimal" if dual > 0 and primal - dual <= budget.tol * dual else None

    def solution(self, st, status) -> Solution:
        primal, dual = self.values(st)
        cert = {"primal": primal, "dual": dual, "duality_gap": primal - dual,
                "relative_gap": relative_gap(primal, dual), "max_violation": 0.0}
        return Solution(status=status, certificate=cert, **self.read_out(st))
