"""The Ji–Srebro–Telgarsky plans in kernel form: the iterate lives in the dual (Ji, Srebro & Telgarsky, *Fast margin
maximization via dual acceleration*, ICML 2021, §3.2 (the dual form of Algorithm 1), §6 and Fig. 3).

:class:`KernelDualAccelerated`, :class:`KernelDualAcceleratedStochastic` and :class:`KernelBatchPerceptron` are the
``"kernel"`` variants of the registry cards ``dual-accelerated``, ``dual-accelerated-stochastic`` and
``batch-perceptron``: the engine builds one of them for a problem with a kernel, the linear class of
:mod:`.dual_acceleration` otherwise. Each subclasses its linear class (the method's name, options, constants and
stop rule) and :class:`KernelDualForm` (the Gram operator, the start, the certificate and the read-outs on the dual
weights), and writes its own ``init`` and ``step``.

With ``Φ`` the feature map of the kernel, JST's matrix is ``Z = −diag(y)Φ/R`` with ``R = max_i sqrt(k(x_i, x_i))``
(so ``||z_i|| <= 1`` as JST §2 assume), and ``Q = ZZᵀ = diag(y) K diag(y)/R²``. The plans never form ``w``:

    w = −Zᵀa = Σ_i a_i y_i φ(x_i)/R  (a >= 0),     g = Zᵀc,     s = Zw = −Qa,     h = Zg = Qc,

so ``||w||² = aᵀQa = −a·s``, ``||g||² = c·h``, the margin is ``γ(w) = −R max_i s_i/||w||`` (raw units) and the
predictor is ``f(x) = ⟨w, φ(x)⟩ = Σ_i (a_i y_i/R) k(x_i, x)``, the result's ``dual_coef``.
A step of Algorithm 1 (eq. 1.1) moves along ``p = q_t`` and needs ``Qq_t``: one product with the Gram matrix
(``n²`` kernel values, read from the problem's cached Gram matrix). A step of Algorithm 2 or of the batch perceptron
moves along ``p = e_i`` and needs the column ``Qe_i``: one row of the Gram matrix, ``n`` kernel evaluations
(:class:`~marginkit.core.kernels.GramRows`; read from the Gram matrix only when the problem already holds it), as JST
count them for Fig. 3.

Resolved in this file (each once):

* **Sign of the weights** (a dual form written ``w = Zᵀa`` needs ``a <= 0``): here ``w = −Zᵀa`` with ``a >= 0``, so the
  weights are the non-negative dual weights of the certificate ``γ̄ <= R||Zᵀa||/||a||_1 = R||w||/Σa``
  (dual of the hard-margin problem in the feature space, JST App. A).
* **Drift of s**: ``s`` and ``h`` are updated by the same linear recursions as ``a`` and ``c`` (``s ← s − θ(h + Qp)``),
  not recomputed as ``−Qa`` (that would cost a second product with the Gram matrix per step); they agree with
  ``−Qa`` and ``Qc`` to rounding, and the result's margin is recomputed from ``dual_coef`` on the user's Gram
  matrix (:meth:`MaxMargin.result_fields`), never copied from ``s``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ...core.kernels import GramRows, problem_gram
from ...core.solution import Solution
from ...core.warmstart import parse_warm_start
from ..common.margin import MarginPlan, MarginState
from .dual_acceleration import BatchPerceptron, DualAccelerated, DualAcceleratedStochastic


def cached_gram(form):
    """The problem's Gram matrix when it has already been computed (``form.gram()`` caches it), else None."""
    cache = getattr(form, "_cache", None)
    return None if cache is None else cache.get("gram")


class SignedGram:
    """``Q = diag(y) K diag(y)/R²`` (= ``ZZᵀ`` for JST's ``Z``) as an operator. ``full=True`` reads the whole Gram
    matrix (``form.gram()``, cached on the problem); ``full=False`` uses the cached Gram matrix if there is one and
    otherwise computes one kernel row per :meth:`column` (``n`` kernel evaluations)."""

    def __init__(self, form, full: bool, deadline: float | None = None, method: str = "kernel"):
        K = problem_gram(form, deadline, method) if full else cached_gram(form)   # deadline: the run's time_limit
        self.rows = GramRows(form.kernel, form.gamma, form.X, K)
        self.y = form.y
        R = float(np.sqrt(max(float(np.max(self.rows.diagonal())), 0.0)))
        self.R = R if R > 0.0 else 1.0
        self.inv_R2 = 1.0 / self.R ** 2

    def matvec(self, p: np.ndarray) -> np.ndarray:
        """``Q p`` (one product with the Gram matrix)."""
        return self.y * (self.rows.K @ (self.y * p)) * self.inv_R2

    def column(self, i: int) -> np.ndarray:
        """``Q e_i = Q[:, i]`` (one row of the Gram matrix: ``n`` kernel evaluations)."""
        return self.rows.row(i) * (self.y * (self.y[i] * self.inv_R2))

    def dual_coef(self, a: np.ndarray) -> np.ndarray:
        """``f(x) = Σ_i coef_i k(x_i, x)`` for ``w = −Zᵀa``: ``coef = a ⊙ y / R``."""
        return a * self.y / self.R

    def weights(self, coef: np.ndarray) -> np.ndarray:
        """The inverse of :meth:`dual_coef`."""
        return coef * self.y * self.R

    def scores(self, a: np.ndarray) -> np.ndarray:
        """``s = −Qa`` from scratch (a warm start): the full product, or one column per non-zero weight."""
        if self.rows.K is not None:
            return -self.matvec(a)
        s = np.zeros_like(a)
        for i in np.flatnonzero(a):
            s -= a[i] * self.column(int(i))
        return s


@dataclass
class KernelState(MarginState):
    """``w`` is None: the iterate is ``a`` (``w = −Zᵀa``), with ``s = −Qa`` (see the module docstring)."""

    a: np.ndarray = None      # weights of w = −Zᵀa
    c: np.ndarray = None      # weights of the momentum g = Zᵀc (Alg. 1/2)
    h: np.ndarray = None      # Z g = Q c
    q: np.ndarray = None      # q_t = ∇ψ(s_t) (Alg. 1)
    rng: object = None        # the run's random generator (Alg. 2)
    theta: float = 1.0        # the step θ (Alg. 2's theory variant: sqrt(ln n / T))
    certified: bool = True    # a >= 0 (cold start, or a warm start with non-negative weights): the bound applies


class KernelDualForm(MarginPlan):
    """What the JST plans share in kernel form: the operator ``Q`` (``kop``), the start, the certificate and the
    read-outs on the dual weights ``a`` (see the module docstring). ``full_gram``: whether a step needs the whole Gram
    matrix (Alg. 1) or one row of it (Alg. 2, batch perceptron).

    A kernel class lists it after its linear class, ``class KernelDualAccelerated(DualAccelerated, KernelDualForm)``,
    so that the linear class's ``setup`` (``super().setup()``, then its own constants) reaches :meth:`setup` here in
    place of :meth:`MarginPlan.setup`, and the read-outs here replace :class:`MarginPlan`'s (the linear classes define
    none of them; ``tests/test_variants.py`` checks it). The kernel form runs on NumPy: ``bk`` stays ``NUMPY``."""

    full_gram = True

    def setup(self):
        # replaces MarginPlan.setup (no super() call): the kernel form never builds Z = −diag(y)X/R
        form, limit = self.form, self.run_defaults.get("time_limit")
        self.kop = SignedGram(form, full=self.full_gram, method=self.method,
                              deadline=None if limit is None else time.perf_counter() + limit)
        self.R = self.kop.R
        self.Z = None
        self.n, self.d = form.X.shape

    def kernel_start(self, warm_start, **fields) -> KernelState:
        """``a_0 = 0``, or the weights of a warm start's ``dual_coef`` (a kernel ``Result``, or an array of
        length n)."""
        coef = parse_warm_start(warm_start, self.n, attr="dual_coef")
        if coef is None:
            a, s = np.zeros(self.n), np.zeros(self.n)
        else:
            a = self.kop.weights(coef)
            s = self.kop.scores(a)
        return KernelState(t=0, w=None, s=s, dual_bound=np.inf, a=a, c=np.zeros(self.n), h=np.zeros(self.n),
                           certified=bool(np.all(a >= 0)), **fields)

    def kernel_bound(self, st: KernelState, a, s) -> float:
        """``min(previous, R||w||/Σa)`` when the weights are non-negative (weak duality of the hard-margin problem in
        the feature space, JST App. A)."""
        if not st.certified:
            return st.dual_bound
        return min(st.dual_bound, self.bound_from_weights(norm_from(a, s), float(a.sum())))

    # read-outs ------------------------------------------------------------------------------------
    def norm_w(self, st) -> float:
        return norm_from(st.a, st.s)

    def margin(self, st) -> float:
        nw = norm_from(st.a, st.s)
        return 0.0 if nw == 0.0 else float(-self.R * np.max(st.s) / nw)

    def measure(self, st) -> dict:
        m = self.margin(st)
        return {"margin": m, "margin_upper": st.dual_bound, "gap_bound": st.dual_bound - m,
                "norm_w": self.norm_w(st)}

    def snapshot(self, st):
        return self.kop.dual_coef(st.a)

    def solution(self, st, status) -> Solution:
        m = self.margin(st)
        rel = self.relative_gap(m, st.dual_bound)
        cert = {"margin_lower": m, "margin_upper": st.dual_bound, "gap_bound": st.dual_bound - m,
                "relative_gap_bound": rel, "relative_gap": rel}
        return Solution(w=None, status=status, certificate=cert, dual_coef=self.kop.dual_coef(st.a))


class KernelDualAccelerated(DualAccelerated, KernelDualForm):
    """JST Algorithm 1 (eq. 1.1) on the dual weights of a problem with a kernel (the dual form of JST §3.2): one
    product with the Gram matrix per step.

    With ``p = q_t``::

        c ← β(c + q),   h ← β(h + Qq),   a ← a + θ(c + q),   s ← s − θ(h + Qq)

    ``||Zᵀq|| = sqrt(q·Qq)`` and ``||g_t|| = sqrt(c·h)`` give the certificates of
    :class:`~.dual_acceleration.DualAccelerated` (its options, step ``θ/ρ`` and Thm 3.1(2) bound)."""

    def init(self, rng, warm_start, budget):
        st = self.kernel_start(warm_start)
        st.q = self.dual_weights(st.s)
        return st

    def step(self, st):
        t, q = st.t, st.q
        beta = t / (t + 1.0)
        Qq = self.kop.matvec(q)
        c = beta * (st.c + q)
        h = beta * (st.h + Qq)
        step = self.theta / self.rho
        a = st.a + step * (c + q)
        s = st.s - step * (h + Qq)
        bound = self.momentum_bound(t, float(np.sqrt(max(float(q @ Qq), 0.0))),
                                    float(np.sqrt(max(float(c @ h), 0.0))), q)
        return KernelState(t=t + 1, w=None, s=s, dual_bound=min(st.dual_bound, bound), a=a, c=c, h=h,
                           q=self.dual_weights(s))


class KernelDualAcceleratedStochastic(DualAcceleratedStochastic, KernelDualForm):
    """JST Algorithm 2 on the dual weights of a problem with a kernel: one row of the Gram matrix per step (``n``
    kernel evaluations, JST §4).

    With ``i = i_t ~ q_t`` (Gumbel-max, as :class:`~.dual_acceleration.DualAcceleratedStochastic`)::

        c ← β(c + e_i),   h ← β(h + Qe_i),   a ← a + θ(c + e_i),   s ← s − θ(h + Qe_i)
    """

    full_gram = False

    def init(self, rng, warm_start, budget):
        return self.kernel_start(warm_start, rng=rng, theta=self.step_size(budget))

    def step(self, st):
        i = self.draw(st)
        t, theta = st.t, st.theta
        col = self.kop.column(i)
        beta = self.momentum(t)
        c = beta * st.c
        c[i] += beta
        h = beta * (st.h + col)
        a = st.a + theta * c
        a[i] += theta
        s = st.s - theta * (h + col)
        return KernelState(t=t + 1, w=None, s=s, dual_bound=self.kernel_bound(st, a, s), a=a, c=c, h=h,
                           rng=st.rng, theta=theta, certified=st.certified)


class KernelBatchPerceptron(BatchPerceptron, KernelDualForm):
    """The batch perceptron on the dual weights of a problem with a kernel: one row of the Gram matrix per step
    (``n`` kernel evaluations; JST Fig. 3).

    ``a ← a + η_t e_{i*}``, ``s ← s − η_t Qe_{i*}``, then both divided by ``max(1, ||w||)`` with
    ``||w|| = sqrt(−a·s)`` when projected (:class:`~.dual_acceleration.BatchPerceptron`)."""

    full_gram = False

    def init(self, rng, warm_start, budget):
        return self.kernel_start(warm_start)

    def step(self, st):
        i = self.bk.argmax(st.s)
        eta = self.step_size(st.t)
        a = st.a.copy()
        a[i] += eta
        s = st.s - eta * self.kop.column(i)
        if self.variant == "projected":
            scale = max(1.0, norm_from(a, s))
            a, s = a / scale, s / scale
        return KernelState(t=st.t + 1, w=None, s=s, dual_bound=self.kernel_bound(st, a, s), a=a,
                           c=st.c, h=st.h, certified=st.certified)


def norm_from(a, s) -> float:
    """``||w|| = sqrt(aᵀQa) = sqrt(−a·s)`` (clipped at 0 against rounding)."""
    return float(np.sqrt(max(-float(a @ s), 0.0)))
