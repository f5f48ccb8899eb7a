"""The Ji–Srebro–Telgarsky plans in kernel form: the iterate lives in the dual (Ji, Srebro & Telgarsky, *Fast margin
maximization via dual acceleration*, ICML 2021, §3.2 (the dual form of Algorithm 1), §6 and Fig. 3).

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

from dataclasses import dataclass

import numpy as np

from ...core.kernels import GramRows
from ...core.solution import Solution
from ...core.warmstart import parse_warm_start
from ..common.margin import MarginPlan, MarginState


def cached_gram(form):
    """The problem's Gram matrix when it has already been computed (``form.gram()`` caches it), else None."""
    cache = getattr(form, "_cache", None)
    return None if cache is None else cache.get("gram")


class SignedGram:
    """``Q = diag(y) K diag(y)/R²`` (= ``ZZᵀ`` for JST's ``Z``) as an operator. ``full=True`` reads the whole Gram
    matrix (``form.gram()``, cached on the problem); ``full=False`` uses the cached Gram matrix if there is one and
    otherwise computes one kernel row per :meth:`column` (``n`` kernel evaluations)."""

    def __init__(self, form, full: bool):
        K = form.gram() if full else cached_gram(form)
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


class DualFormPlan(MarginPlan):
    """A JST plan that runs on ``w`` for a linear problem (:class:`MarginPlan`) and on the dual weights ``a`` for a
    kernel problem (this module). ``full_gram``: whether a kernel step needs the whole Gram matrix (Alg. 1) or
    one row of it (Alg. 2, batch perceptron)."""

    full_gram = True

    def setup(self):
        form = self.form
        if getattr(form, "kernel", None) is None:
            self.kop = None
            super().setup()
            return
        self.kop = SignedGram(form, full=self.full_gram)
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
        """``min(previous, R||w||/Σa)`` when the weights are non-negative (the dual certificate of A1)."""
        if not st.certified:
            return st.dual_bound
        return min(st.dual_bound, self.bound_from_weights(norm_from(a, s), float(a.sum())))

    # read-outs ------------------------------------------------------------------------------------
    def norm_w(self, st) -> float:
        return float(np.linalg.norm(st.w)) if self.kop is None else norm_from(st.a, st.s)

    def margin(self, st) -> float:
        if self.kop is None:
            return super().margin(st)
        nw = norm_from(st.a, st.s)
        return 0.0 if nw == 0.0 else float(-self.R * np.max(st.s) / nw)

    def measure(self, st) -> dict:
        if self.kop is None:
            return super().measure(st)
        m = self.margin(st)
        return {"margin": m, "margin_upper": st.dual_bound, "gap_bound": st.dual_bound - m,
                "norm_w": self.norm_w(st)}

    def snapshot(self, st):
        return super().snapshot(st) if self.kop is None else self.kop.dual_coef(st.a)

    def solution(self, st, status) -> Solution:
        if self.kop is None:
            return super().solution(st, status)
        m = self.margin(st)
        rel = self.relative_gap(m, st.dual_bound)
        cert = {"margin_lower": m, "margin_upper": st.dual_bound, "gap_bound": st.dual_bound - m,
                "relative_gap_bound": rel, "relative_gap": rel}
        return Solution(w=None, status=status, certificate=cert, dual_coef=self.kop.dual_coef(st.a))


def norm_from(a, s) -> float:
    """``||w|| = sqrt(aᵀQa) = sqrt(−a·s)`` (clipped at 0 against rounding)."""
    return float(np.sqrt(max(-float(a @ s), 0.0)))
