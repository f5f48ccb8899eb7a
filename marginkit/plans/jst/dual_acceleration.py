"""Margin maximisation by dual acceleration and its baselines (Ji, Srebro & Telgarsky, *Fast margin maximization
via dual acceleration*, ICML 2021 [JST]).

JST write ``z_i = −y_i x_i`` (note the minus) and assume ``||z_i|| <= 1``; :class:`MarginPlan` scales the rows by
``R = max ||x_i||``.

Resolved in this file (each once):

* **Sign typo** (JST §3.1 writes ``Zᵀq̄ = γ̄ū``): the dual optimum satisfies ``−Zᵀq̄ = γ̄ū``.
* **Overflow**: ``||w_t||`` grows like ``t²`` (``||w_t|| >= γ̄t(t+3)/4``, JST App. C), so ``exp(⟨w, z_i⟩)``
  underflows; ``q_t = softmax(Z w_t)`` is always computed from ``s = Z w`` with max-subtraction, never as
  ``∇R(w)/R(w)`` and never by multiplying a stored ``q``.
* **Indexing of g_t**: ``β_0 = 0`` so ``g_0 = 0``; the certificate of Thm 3.1(2) pairs the ``g_t`` computed in
  iteration ``t`` with ``t``: ``γ̄ <= 2||g_t||/t`` (with ``g_{t−1}`` the upper bound fails at ``t = 1``).
* **Logistic step** (the step ``1/ρ`` appears only in JST App. C, not in §5.1; resolved here): App. C divides the
  step by ``ρ = n``; ``step_scale="theory"`` does that, ``"unit"`` (default for the baselines) does not.
* **Batch perceptron** (JST say only that it is implemented as in Cotter, Shalev-Shwartz & Srebro (2012), with no
  formula; resolved here): supergradient ascent on ``min_i y_i x_iᵀw`` at the worst example,
  ``projected`` onto the unit ball with ``η_t = 1/√(t+1)`` (default) or ``unprojected`` with ``η = 1``.
* **Algorithm 2 sampling** uses the Gumbel-max trick on ``s`` (exact sampling from ``softmax(s)``).
* **Kernel form** (JST §6 and App. F run kernel (NTK) margins; resolved here): on a problem with a kernel the
  registry cards of ``dual-accelerated``, ``dual-accelerated-stochastic`` and ``batch-perceptron`` name their
  ``"kernel"`` variant, a class of :mod:`.kernel` that runs the same algorithm on the dual weights ``a`` of
  ``w = −Zᵀa``: the same iterates, margins and certificates as on ``w`` (checked with a linear kernel), ``n²`` kernel
  values per step for Algorithm 1 and ``n`` for Algorithm 2 and the batch perceptron. The classes here work on ``w``.
* **Arrays of other libraries** (issue 13, ``core/backend.py``): every linear plan here also runs where ``X`` lives
  (Algorithm 2 on array-API devices only: one row per step is no dask workload). Each algorithm has one ``step``,
  written against the problem's backend ``bk``: NumPy runs plain NumPy (``a[i] += v`` in place, :meth:`add_at`),
  elsewhere the same floating-point operations run in ``bk.xp``/``bk.xd`` (``+ v·e_i``) and, on an array-API device,
  the worst index, its row and the bound stay on the device.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ...core.params import Interval, Options
from ..common.margin import MarginPlan, MarginState, logsumexp, softmax

LOSSES = Options("exp", "logistic")


@dataclass
class MomentumState(MarginState):
    g: np.ndarray = None   # momentum g_t (Alg. 1/2)
    q: np.ndarray = None   # q_t = softmax(Z w_t)
    a: np.ndarray = None   # weights with w = −Zᵀa, a >= 0 (for the certificate of sampled plans)
    c: np.ndarray = None   # weights with g = Zᵀc (Alg. 2)
    rng: object = None     # the run's random generator (Alg. 2)
    theta: float = 1.0     # the step θ (Alg. 2's theory variant: sqrt(ln n / T), T fixed by the budget)


class DualAccelerated(MarginPlan):
    """JST Algorithm 1, eq. (1.1), with ``θ_t = 1``, ``β_t = t/(t+1)``::

        v   = Zᵀ q_t                  # = ∇R(w_t)/R(w_t)
        g_t = β_t (g_{t−1} + v)
        w_{t+1} = w_t − θ_t (g_t + v),     q_{t+1} = softmax(Z w_{t+1})

    It is Nesterov-accelerated entropic mirror descent on ``φ(q) = ½||Zᵀq||²`` over the simplex (JST §3.2):
    margin gap ``γ̄ − γ(w_t) <= 4(1+ln n)(1+2 ln(t+1))/(γ̄(t+1)²)`` (Thm 3.1(1)) and the certificate
    ``4||g_t||²/t² − 8 ln n/(t+1)² <= γ̄² <= 4||g_t||²/t²`` (Thm 3.1(2)), which is the stop rule here.
    Two mat-vecs with X per iteration; the margin for the trace is read off ``s = Z w``.

    ``loss="logistic"`` replaces ``q_t`` by ``∇ψ(Z w_t)`` of the logistic potential and divides the step by
    ``ρ = n`` when ``step_scale="theory"`` (§5.1, App. C).

    Kernel form: :class:`~.kernel.KernelDualAccelerated` (the card's ``"kernel"`` variant).
    """

    name = "dual-accelerated"

    @dataclass(frozen=True)
    class Config:
        loss: str = field(default="exp", metadata={
            "doc": "the exponential loss of Alg. 1, or the logistic loss of §5.1"})
        step_scale: str = field(default="unit", metadata={
            "doc": '"theory": the logistic step divided by ρ = n (App. C)'})
        theta: float = field(default=1.0, metadata={"doc": "the step θ_t ≡ θ"})
        constraints: ClassVar[dict] = {"loss": [LOSSES], "step_scale": [Options("unit", "theory")],
                                       "theta": [Interval(float, 0, None, closed="neither")]}

    def setup(self):
        super().setup()
        self.rho = float(self.n) if (self.loss == "logistic" and self.step_scale == "theory") else 1.0

    def dual_weights(self, s):
        xp = self.bk.xp
        q = softmax(s, xp) if self.loss == "exp" else logistic_potential_grad(s, xp)
        return self.bk.persist(q)   # dask: computed once, used twice per step

    def init(self, rng, warm_start, budget):
        w = self.start_w(warm_start)
        s = self.Z.matvec(w)
        return MomentumState(t=0, w=w, s=s, dual_bound=np.inf, g=self.bk.zeros_d(self.d), q=self.dual_weights(s))

    def momentum_bound(self, t: int, v_norm, g_norm, q):
        """``R||Zᵀq_t||/Σq_t`` and, for ``t >= 1``, Thm 3.1(2)'s ``2R||g_t||/t`` (``Zᵀμ_t = 2g_t/t``, ``μ_t`` in the
        simplex; exp loss with ``θ = ρ = 1`` only). On an array-API device the norms and the bound stay 0-d arrays
        (``Σq_t > 0``: softmax or logistic weights), so a step never waits for the device."""
        bk = self.bk
        bound = self.weights_bound(v_norm, q)
        if t >= 1 and self.loss == "exp" and self.theta == 1.0:
            bound = bk.minimum(bound, 2.0 * self.R * g_norm / t)
        return bound

    def step(self, st):
        bk = self.bk
        t = st.t
        beta = t / (t + 1.0)
        v = self.Z.rmatvec(st.q)
        g = beta * (st.g + v)
        w = st.w - (self.theta / self.rho) * (g + v)
        s = self.Z.matvec(w)
        bound = self.momentum_bound(t, bk.lazy_norm(v), bk.lazy_norm(g), st.q)
        return MomentumState(t=t + 1, w=w, s=s, dual_bound=bk.minimum(st.dual_bound, bound), g=g,
                             q=self.dual_weights(s))


class DualAcceleratedStochastic(MarginPlan):
    """JST Algorithm 2: the batch direction ``Zᵀq_t`` is replaced by one row ``z_{i_t}``, ``i_t ~ q_t``
    (hard examples are sampled more often; Gumbel-max sampling).

    ``variant="momentum"`` (the paper's experiments, Figs. 3–4; no theory): ``β_t = t/(t+1)``, ``θ_t = 1``.
    ``variant="theory"`` (Thm 4.1): ``β_t = 0`` and the horizon-dependent ``θ = sqrt(ln n / T)``, with ``T`` the
    ``horizon`` parameter (default: the run's ``max_iter``, so fix it in advance).
    The certificate keeps the weights ``a >= 0`` with ``w = −Zᵀa``: ``γ̄ <= R ||w|| / ||a||_1``.

    Kernel form: :class:`~.kernel.KernelDualAcceleratedStochastic` (the card's ``"kernel"`` variant).
    """

    name = "dual-accelerated-stochastic"
    default_tol = 1e-3

    @dataclass(frozen=True)
    class Config:
        variant: str = field(default="momentum", metadata={"doc": '"momentum" (Figs. 3-4) or "theory" (Thm 4.1)'})
        horizon: int | None = field(default=None, metadata={
            "doc": "T of Thm 4.1's θ = sqrt(ln n / T); default: the run's max_iter"})
        constraints: ClassVar[dict] = {"variant": [Options("momentum", "theory")],
                                       "horizon": [None, Interval(int, 1, None)]}

    def step_size(self, budget) -> float:
        """``θ``: 1 for the momentum variant, Thm 4.1's ``sqrt(ln n / T)`` for the theory variant."""
        T = self.horizon or max(budget.max_iter, 1)
        return 1.0 if self.variant == "momentum" else float(np.sqrt(np.log(self.n) / T))

    def momentum(self, t: int) -> float:
        """``β_t``: ``t/(t+1)`` for the momentum variant, 0 for the theory variant."""
        return t / (t + 1.0) if self.variant == "momentum" else 0.0

    def draw(self, st):
        """``i_t ~ q_t = softmax(s)`` by the Gumbel-max trick; the draws come from the run's NumPy generator (moved to
        the device off NumPy)."""
        bk = self.bk
        return bk.argmax(st.s + bk.asarray_n(st.rng.gumbel(size=self.n), like=st.s))

    def init(self, rng, warm_start, budget):
        w = self.start_w(warm_start)
        bk = self.bk
        a = bk.zeros_n(self.n) if warm_start is None else None
        return MomentumState(t=0, w=w, s=self.Z.matvec(w), dual_bound=np.inf, g=bk.zeros_d(self.d),
                             a=a, c=bk.zeros_n(self.n), rng=rng, theta=self.step_size(budget))

    def step(self, st):
        """``c[i] += β`` and ``a[i] += θ`` are :meth:`~marginkit.core.backend.Backend.add_at` (``+ β e_i`` off
        NumPy)."""
        bk, t = self.bk, st.t
        i = self.draw(st)
        zi = bk.signed_row(self.Z, i)
        beta = self.momentum(t)
        g = beta * (st.g + zi)
        w = st.w - st.theta * (g + zi)
        c = bk.add_at(beta * st.c, i, beta)
        a, bound = None, st.dual_bound
        if st.a is not None:
            a = bk.add_at(st.a + st.theta * c, i, st.theta)
            bound = bk.minimum(bound, self.weights_bound(bk.lazy_norm(w), a))
        return MomentumState(t=t + 1, w=w, s=self.Z.matvec(w), dual_bound=bound, g=g, a=a, c=c, rng=st.rng,
                             theta=st.theta)


class NormalizedGD(MarginPlan):
    """Normalised gradient descent ``w_{t+1} = w_t − θ_t Zᵀ q_t`` with ``q_t = ∇ψ(Z w_t)``: Algorithm 1 with
    ``β ≡ 0``, i.e. entropic mirror descent on the dual (JST §3.1). ``step="constant"`` (θ = 1, O(1/t)) or
    ``"sqrt"`` (θ_t = 1/√(t+1), Nacson et al.); ``loss="exp"`` or ``"logistic"``."""

    name = "normalized-gd"

    @dataclass(frozen=True)
    class Config:
        loss: str = field(default="exp", metadata={"doc": "the exponential loss, or the logistic loss of §5.1"})
        step: str = field(default="constant", metadata={"doc": 'θ = 1 ("constant") or θ_t = 1/√(t+1) ("sqrt")'})
        constraints: ClassVar[dict] = {"loss": [LOSSES], "step": [Options("constant", "sqrt")]}

    def init(self, rng, warm_start, budget):
        w = self.start_w(warm_start)
        return MarginState(t=0, w=w, s=self.Z.matvec(w), dual_bound=np.inf)

    def step(self, st):
        """The bound stays a 0-d array on an array-API device (no synchronisation)."""
        bk = self.bk
        q = bk.persist(softmax(st.s, bk.xp) if self.loss == "exp" else logistic_potential_grad(st.s, bk.xp))
        v = self.Z.rmatvec(q)
        theta = 1.0 if self.config.step == "constant" else float(1.0 / np.sqrt(st.t + 1.0))   # a Python float
        w = st.w - theta * v
        bound = self.weights_bound(bk.lazy_norm(v), q)
        return MarginState(t=st.t + 1, w=w, s=self.Z.matvec(w), dual_bound=bk.minimum(st.dual_bound, bound))


class GradientDescent(MarginPlan):
    """Plain gradient descent on the empirical risk ``R(w) = (1/n) Σ ℓ(z_iᵀw)`` with step ``eta`` (JST use
    ``η = 1``). Exp loss: ``∇R(w) = R(w)·Zᵀsoftmax(Zw)`` with ``log R = lse(Zw) − ln n`` (the step
    legitimately becomes tiny; never ``exp`` of a large score). Logistic: ``∇R = (1/n) Zᵀσ(Zw)``."""

    name = "gd"

    @dataclass(frozen=True)
    class Config:
        loss: str = field(default="exp", metadata={"doc": "the exponential loss, or the logistic loss of §5.1"})
        eta: float = field(default=1.0, metadata={"doc": "the step η (JST use 1)"})
        # the rows are scaled into the unit ball, so the first step has norm at most η and squared norm η²: beyond
        # 1e150 that square overflows and the run could only end at a margin of 0 (a bad input, not a run)
        constraints: ClassVar[dict] = {"loss": [LOSSES], "eta": [Interval(float, 0, 1e150, closed="right")]}

    def init(self, rng, warm_start, budget):
        w = self.start_w(warm_start)
        return MarginState(t=0, w=w, s=self.Z.matvec(w), dual_bound=np.inf)

    def step(self, st):
        """``R(w)`` is a 0-d array on an array-API device (a float on NumPy and dask, whose d-vectors are NumPy)."""
        bk, xp = self.bk, self.bk.xp
        if self.loss == "exp":
            q = bk.persist(softmax(st.s, xp))
            scale = bk.lazy(xp.exp(logsumexp(st.s, xp) - float(np.log(self.n))))  # R(w)
        else:
            q = bk.persist(sigmoid(st.s, xp))
            scale = 1.0 / self.n
        v = self.Z.rmatvec(q)
        w = st.w - self.eta * scale * v
        bound = self.weights_bound(bk.lazy_norm(v), q)
        return MarginState(t=st.t + 1, w=w, s=self.Z.matvec(w), dual_bound=bk.minimum(st.dual_bound, bound))


class BatchPerceptron(MarginPlan):
    """Supergradient ascent on ``f(w) = min_i y_i x_iᵀw``: step along the worst example
    ``i* = argmax_i (Zw)_i`` (lowest index on ties), ``w ← w − η_t z_{i*}``; ``variant="projected"``
    (default; then ``w ← w / max(1, ||w||)``, ``η_t = 1/√(t+1)``) or ``"unprojected"`` (``η = 1``; the
    classical min-over perceptron, Frank–Wolfe on the dual). The last iterate's margin is not monotone.
    Kernel form: :class:`~.kernel.KernelBatchPerceptron` (the card's ``"kernel"`` variant)."""

    name = "batch-perceptron"

    @dataclass(frozen=True)
    class Config:
        variant: str = field(default="projected", metadata={
            "doc": "projected onto the unit ball with η_t = 1/√(t+1), or η = 1 unprojected"})
        constraints: ClassVar[dict] = {"variant": [Options("projected", "unprojected")]}

    def step_size(self, t: int) -> float:
        """``η_t = 1/√(t+1)`` projected, ``η = 1`` unprojected (a Python float)."""
        return float(1.0 / np.sqrt(t + 1.0)) if self.variant == "projected" else 1.0

    def init(self, rng, warm_start, budget):
        w = self.start_w(warm_start)
        a = self.bk.zeros_n(self.n) if warm_start is None else None
        return MomentumState(t=0, w=w, s=self.Z.matvec(w), dual_bound=np.inf, a=a)

    def step(self, st):
        """``a[i] += η`` is :meth:`~marginkit.core.backend.Backend.add_at`; on an array-API device the worst index, its
        row, the projection ``max(1, ||w||)`` and the bound stay on the device (no synchronisation)."""
        bk = self.bk
        i = bk.argmax(st.s)
        eta = self.step_size(st.t)
        w = st.w - eta * bk.signed_row(self.Z, i)
        a = None if st.a is None else bk.add_at(st.a, i, eta, copy=True)
        if self.variant == "projected":
            c = bk.maximum(1.0, bk.lazy_norm(w))
            w = w / c
            if a is not None:
                a = a / c
        bound = st.dual_bound
        if a is not None:
            a = bk.persist(a)
            bound = bk.minimum(bound, self.weights_bound(bk.lazy_norm(w), a))
        return MomentumState(t=st.t + 1, w=w, s=self.Z.matvec(w), dual_bound=bound, a=a)


def sigmoid(s, xp=np):
    """``σ(s)`` in any namespace without overflow: ``1/(1+z)`` for ``s >= 0`` and ``z/(1+z)`` below, ``z = e^{−|s|}``
    (``where`` in place of masks: no synchronisation, and faster than masks on NumPy)."""
    z = xp.exp(-xp.abs(s))
    return xp.where(s >= 0, 1.0 / (1.0 + z), z / (1.0 + z))


def logistic_potential_grad(s, xp=np):
    """``∇ψ(ξ)_i = σ(ξ_i)/(1 − e^{−S})`` with ``S = Σ_j softplus(ξ_j)`` for the logistic potential
    ``ψ = ℓ^{-1}(Σ ℓ(ξ_i))`` (JST §5.1, App. C), in the log domain: ``exp(log σ(ξ_i) − log(−expm1(−S)))``.
    ``xp``: the namespace of ``s`` (the same formulas with ``where`` in place of masks,
    and no synchronisation, off NumPy)."""
    if xp is not np:
        zero = xp.zeros_like(s)
        log_sig = -xp.logaddexp(zero, -s)
        log_softplus = xp.where(s >= -30, xp.log(xp.logaddexp(zero, s)), s)
        log_S = logsumexp(log_softplus, xp)
        S = xp.exp(log_S)
        log_den = xp.where(S < 1e-12, log_S, xp.log(-xp.expm1(-S)))
        return xp.exp(log_sig - log_den)
    log_sig = -np.logaddexp(0.0, -s)
    log_softplus = s.copy()  # log softplus(ξ) = ξ up to 1e-13 relative for ξ < −30
    big = s >= -30
    log_softplus[big] = np.log(np.logaddexp(0.0, s[big]))
    log_S = logsumexp(log_softplus)
    S = np.exp(log_S)
    log_den = log_S if S < 1e-12 else np.log(-np.expm1(-S))
    return np.exp(log_sig - log_den)
