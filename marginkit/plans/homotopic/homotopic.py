"""Homotopic averaged subgradient descent on the regularised hinge loss (Molitor, Needell & Ward, *Bias of
homotopic gradient descent for the hinge loss*, Appl. Math. Optim. 2021, arXiv 1907.11746).

The copy of the paper this was written from lost every displayed formula, so the stage schedules and constants below
are a reconstruction, marked **[RECON]**: the standard analysis (Bubeck 2015, Thm 3.2, with strong convexity, and a
Lipschitz regularisation path) written to fit every surviving sentence, each a parameter whose default is stated
below. What the prose fixes: stages ``k = 0, 1, ...`` of subgradient steps on

    f_λ(w) = h(w) + (λ/2)||w||²,   h(w) = σ Σ_i max(0, 1 − y_i x_iᵀw)                       (eq. 2)

with ``λ_k`` and the step ``η_k`` decreasing to 0 and the stage length ``T_k`` growing, each stage started at the
previous stage's output, which is the average of its iterates (Algorithm 1). The regularisation path
``w[λ] = argmin f_λ`` equals ``w*`` for ``λ <= λ*`` (in this scaling ``λ* = λ*_A/n`` for the mean hinge,
``problem.constants()["lambda_star"]`` being ``λ*_A``).

Resolved in this file (each in full, with its derivation, in :class:`HomotopicSubgradient`; what was observed on
data while resolving them: docs/design/homotopic.md):

* **Schedules [RECON]**: ``λ_k = λ0/a^k``, ``η_k = η0/b^k``, ``T_k = ⌈T0 c^k⌉`` (``lambda_decay = a``,
  ``step_decay = b``, ``stage_growth = c``); defaults ``a = 2``, ``b = a³``, ``c = a^{4+δ}``, ``δ = 2`` (Lemma 4.3,
  rate ``O(T^{−1/(4+δ)})``) and ``T0 = ⌈1/(λ0η0)⌉``, with ``L = 2H``, ``H = σ Σ||x_i||`` (eq. 7, Lemma 2.2).
* **λ0, data-driven** (``lambda0="auto"``, the default): ``λ0 = σ n γ̄² >= λ*`` with ``γ̄`` a certified upper
  bound on the max margin (the KKT conditions of ``f_λ`` at ``w*`` give ``λ* <= σ n γ*²``), the best of
  :data:`AUTO_STEPS` Frank–Wolfe (Gilbert) steps (:func:`margin_upper_bound`). A number is used as given.
* **Step η0**: ``min(1/λ0, 1/L)`` ([RECON]; ``η0λ0 <= 1``, Lemma 2.2).
* **Hinge scale**: ``hinge="mean"`` (``σ = 1/n``, default) or ``"sum"`` (``σ = 1``, the scaling of Apidopoulos et al.).
* **Average** over ``v_0 .. v_{T_k−1}``, for which Lemma 4.1 is exact, or ``output="best"`` (§6.4, Fig. 5).
* **Kinks**: the active set is ``y_i x_iᵀv < 1`` (strict), a valid subgradient of eq. (3).
* **Budget**: an iteration of the run loop is one subgradient evaluation, so ``max_iter`` caps the paper's ``T``
  and truncates the last stage; the output is the running average (or best) of the current stage (Lemma 4.1).
* **Bias** (§6.5 [RECON]): the offset is a jointly learned, unregularised coordinate; the reported offset is the
  paper's post-hoc ``b̂(w) = −½(max_{y_i=−1} x_iᵀw + min_{y_i=+1} x_iᵀw)``, ``|b̂ − b*| <= max||x_i|| ||w − w*||``.

Certificate: every iterate is ``v = Zᵀa`` with ``a >= 0`` (the steps only add active rows and shrink), so
:class:`MarginPlan`'s bound ``γ̄ <= ||Zᵀa||/Σa`` applies; with a bias the weights are balanced per class
(``q_i = a_i/(2 A_±)``, ``γ̄ <= ||Σ q_i y_i x_i||``). A warm start ``w0`` is not of that form: no bound then.
The one ``step`` runs where ``X`` lives, through the problem's backend (torch, CuPy, array-api-strict, dask; issue
13; :class:`HomotopicSubgradient`).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ...core.linalg import SignedData
from ...core.params import Interval, Options
from ...core.solution import Solution
from ...core.validation import ProblemError
from ..common.margin import MarginPlan

POSITIVE = Interval(float, 0, None, closed="neither")
ABOVE_ONE = Interval(float, 1, None, closed="neither")
AUTO_STEPS = 200          # Frank–Wolfe steps for the certified γ̄ of lambda0="auto"
AUTO_FLOOR = 1e-3         # γ̄ >= AUTO_FLOOR·max||x_i|| in λ0 = σnγ̄² (non-separable data have γ̄ = 0 and no λ*)


def margin_upper_bound(Z, bk, pos, bias: bool, steps: int = AUTO_STEPS) -> float:
    """A certified upper bound ``||Σ q_i y_i x_i||`` on the max margin from ``steps`` Frank–Wolfe (Gilbert 1966)
    steps on ``min_q ½||Zᵀq||²`` over the simplex (with a bias: ``½`` per class), ``Z`` rows ``y_i x_i``, where ``X``
    lives (backend ``bk``; one vertex index to the host per step). Every iterate ``q`` is feasible, so the smallest
    norm seen is a bound (weak duality); only ``v = Zᵀq`` enters it, so ``q`` itself is not kept."""
    n, xp = Z.n, bk.xp
    pos_h = bk.host(pos).astype(bool)
    q = (np.where(pos_h, 0.5 / max(pos_h.sum(), 1), 0.5 / max((~pos_h).sum(), 1)) if bias
         else np.full(n, 1.0 / n))
    v = Z.rmatvec(bk.asarray_n(q))
    best = bk.norm(v)
    for _ in range(steps):
        s = Z.matvec(v)                                  # gradient of ½||Zᵀq||² in q
        if bias:   # the first minimiser in each class
            i = int(bk.float(xp.argmin(xp.where(pos, s, math.inf))))
            j = int(bk.float(xp.argmin(xp.where(pos, math.inf, s))))
            vertex = 0.5 * (Z.row(i) + Z.row(j))
        else:
            vertex = Z.row(int(bk.float(xp.argmin(s))))
        d = vertex - v
        dd = bk.float(bk.vdot(d, d))
        if dd <= 0.0:
            break
        step = min(1.0, max(0.0, -bk.float(bk.vdot(v, d)) / dd))   # exact line search
        if step == 0.0:
            break
        v = v + step * d
        best = min(best, bk.norm(v))
    return best


def masked_min(bk, s, sel) -> float:
    """``min_{sel} s_i`` as a float (``inf`` for an empty selection)."""
    return bk.float(bk.xp.min(bk.xp.where(sel, s, math.inf)))


@dataclass
class Point:
    """A primal point with its margins and dual weights: ``w = Zᵀa`` (``a >= 0``), ``s = Zw``; with a bias,
    the offset ``b`` and ``w_pos = Σ_{y_i=+1} a_i y_i x_i`` (for the balanced certificate)."""

    w: np.ndarray
    s: np.ndarray
    a: np.ndarray
    b: float = 0.0
    w_pos: np.ndarray | None = None

    def scaled(self, c: float) -> "Point":
        return Point(c * self.w, c * self.s, c * self.a, c * self.b,
                     None if self.w_pos is None else c * self.w_pos)

    def plus(self, other: "Point") -> "Point":
        return Point(self.w + other.w, self.s + other.s, self.a + other.a, self.b + other.b,
                     None if self.w_pos is None else self.w_pos + other.w_pos)

    def persisted(self, bk) -> "Point":
        """The point with its n-vectors ``s`` and ``a`` materialised where they live (dask; elsewhere itself)."""
        self.s, self.a = bk.persist_all(self.s, self.a)
        return self


@dataclass
class HomotopyState:
    t: int                    # subgradient evaluations so far (the paper's T)
    k: int                    # stage
    j: int                    # steps done in stage k
    v: Point                  # inner iterate v_j
    start: Point              # stage start w̃_k
    acc: Point | None         # sum of v_0..v_{j-1} ("average") or the best of them ("best")
    acc_value: float          # f_{λ_k} at the best iterate ("best")
    dual_bound: float         # certified upper bound on the max margin
    certified: bool = True    # False after a warm start w0 (not of the form Zᵀa): no bound then


class HomotopicSubgradient(MarginPlan):
    """Molitor–Needell–Ward Algorithm 1: for ``k = 0, 1, ...``, ``T_k`` subgradient steps on ``f_{λ_k}``,

        g_j = λ_k v_j − σ Σ_{i: y_i x_iᵀv_j < 1} y_i x_i,    v_{j+1} = v_j − η_k g_j                  (eq. 3)

    from ``v_0 = w̃_k``; ``w̃_{k+1}`` = average of ``v_0..v_{T_k−1}`` (or the best iterate). One product with
    ``X`` and one with ``Xᵀ`` per step. With ``η_kλ_k <= 1`` every iterate satisfies ``||v_j|| <= H/λ_k``
    (Lemma 2.2) and a stage of length ``T`` from ``v_0`` gives ``f_λ(v̄) − f_λ(w[λ]) <= R²/(2ηT) + ηL²/2``,
    ``R = ||v_0 − w[λ]||`` (Lemma 4.1 [RECON]).

    Parameters (defaults and [RECON] status below): ``lambda0``, ``lambda_decay`` (a),
    ``step_decay`` (b), ``stage_growth`` (c), ``delta`` (δ), ``T0``, ``eta0``, ``hinge`` (``"mean"`` or
    ``"sum"``), ``output`` (``"average"`` or ``"best"``). ``η0 λ0 > 1`` is rejected (Lemma 2.2); ``b <= a``
    (the noise term ``η_k/λ_k`` does not decay) and ``c < ab`` (``λ_kη_kT_k`` does not grow) run with a
    ``UserWarning``. The values in use, defaults filled in, are ``plan.a``, ``plan.b``, ``plan.c``,
    ``plan.first_lambda`` (λ0; with ``lambda0="auto"`` also ``plan.margin_bound``, the certified ``γ̄`` it comes
    from), ``plan.first_step`` (η0) and ``plan.first_length`` (T0).

    Resolved in this plan (each once):

    * **Schedules [RECON]**: geometric, ``λ_k = λ0/a^k``, ``η_k = η0/b^k``, ``T_k = ⌈T0 c^k⌉`` (parameters
      ``lambda_decay = a``, ``step_decay = b``, ``stage_growth = c``); defaults ``a = 2``, ``b = a³``,
      ``c = a^{4+δ}``, ``δ = 2`` (the balance of Lemma 4.3, rate ``O(T^{−1/(4+δ)})``: ``T^{−1/6}`` at the
      default, ``T^{−1/4+ε}`` only as ``δ -> 0``), with ``L = 2H``, ``H = σ Σ||x_i||`` (eq. 7: the Lipschitz
      constant of ``f_λ`` on the ball ``||w|| <= H/λ`` where the iterates stay when ``ηλ <= 1``, Lemma 2.2). The
      paper's ``T0`` is not in our copy; the default here is ``T0 = ⌈1/(λ0η0)⌉``, the shortest first stage whose
      contraction factor ``R²/(λ0η0T0)`` of Lemma 4.3 is at most ``R²``.
    * **λ0, data-driven** (``lambda0="auto"``, the default): ``λ0 = σ n γ̄²`` with ``γ̄`` a *certified* upper bound
      on the max margin, which bounds the exactness threshold from above: ``λ0 >= λ*``. Derivation (KKT of ``f_λ``
      at ``w*``): ``λ* = σ / min{||a||_∞ : a >= 0, Zᵀa = w*, a_i = 0 off the support}``; every such ``a`` has
      ``Σ a_i = Σ a_i z_iᵀw* = ||w*||² = 1/γ*²`` (complementary slackness; with a bias ``Σ a_i y_i = 0`` adds
      nothing), so ``||a||_∞ >= 1/(n γ*²)`` and ``λ* <= σ n γ*² <= σ n γ̄²`` (``γ̄²`` for the mean hinge).
      ``γ̄ = ||Σ q_i y_i x_i||`` for a simplex point ``q`` (weak duality, :mod:`..common.margin`), the best of
      :data:`AUTO_STEPS` Frank–Wolfe (Gilbert) steps on ``min_q ||Σ q_i y_i x_i||`` (balanced ``½`` per class with
      a bias): two products with the data per step, the same for dense, sparse and chunked data. Starting at
      ``λ* <= λ0`` spends ``log_a(λ0/λ*)`` stages on the plateau ``w[λ_k] ≠ w*`` but never starts in a part of the
      path it must leave; how far above ``λ*`` the bound is depends on the data (about 1 when most points are
      support vectors). A number is used as given.
    * **Step η0**: ``min(1/λ0, 1/L)`` ([RECON]; ``η0λ0 <= 1``, Lemma 2.2). It is not scale-equivariant
      (``λ ~ c²`` but ``L ~ c`` when the data are scaled by ``c``); ``1/L²`` would be.
    * **Hinge scale**: summed or averaged is not stated; ``hinge="mean"`` (``σ = 1/n``, default) or
      ``"sum"`` (``σ = 1``, the scaling of Apidopoulos et al.).
    * **Average** over ``v_0 .. v_{T_k−1}`` (the start of the stage included), for which Lemma 4.1 is exact;
      ``output="best"`` keeps the iterate of smallest ``f_{λ_k}`` instead (§6.4; first occurrence on ties): the
      same guarantee (``min_j f(v_j) <= mean_j f(v_j)``), one more ``O(n)`` pass per step, and much smaller errors
      in practice (§6.4, Fig. 5; ``experiments/molitor_fig5.py``).
    * **Kinks** (exact ties ``y_i x_iᵀv = 1`` occur): the active set is ``y_i x_iᵀv < 1`` (strict), a valid
      subgradient of eq. (3).
    * **Budget** (``T_k = T0 c^k`` explodes: five stages need about ``1e7·T0`` steps): an iteration of the run loop
      is one subgradient evaluation, so ``max_iter`` caps the paper's ``T`` and truncates the last stage; the output
      at any time is the running average (or best) of the current stage, which satisfies Lemma 4.1 with the number
      of steps done.
    * **Bias** (§6.5 [RECON]): how ``w`` is learned with an offset is not stated. Here the offset is a jointly
      learned, unregularised coordinate (subgradient ``−σ Σ_active y_i``) so that the stages follow the path of the
      SVM with a bias; the reported offset is the paper's post-hoc
      ``b̂(w) = −½(max_{y_i=−1} x_iᵀw + min_{y_i=+1} x_iᵀw)``, the best offset for ``w``, with
      ``|b̂ − b*| <= max||x_i|| ||w − w*||``.

    Data of another library (torch, CuPy, array-api-strict, dask; issue 13): the one ``step`` is written against the
    problem's :class:`~marginkit.core.backend.Backend` ``bk``, so it runs where ``X`` lives, ``lambda0="auto"``
    included (its Frank–Wolfe steps run through the backend too). NumPy runs plain NumPy. Elsewhere the margins
    ``s``, the weights ``a`` and the labels are n-side vectors (persisted on dask, so the task graph does not grow
    across steps), ``w`` and ``w_pos`` d-side; the learned offset and the bound stay 0-d arrays on an array-API
    device (no synchronisation inside a step). ``output="best"`` compares ``f_λ`` of two iterates at every step:
    one scalar to the host per step there. ``w`` comes back in the user's namespace.
    """

    name = "homotopic"
    default_max_iter = 100000
    default_tol = 1e-3
    log_columns = ("margin", "margin_upper", "stage", "lam")

    @dataclass(frozen=True)
    class Config:
        lambda0: float | str = field(default="auto", metadata={
            "doc": 'λ_0 of the first stage; "auto": σnγ̄² >= λ* (module docstring)'})
        lambda_decay: float = field(default=2.0, metadata={"doc": "a of λ_k = λ0/a^k [RECON]"})
        step_decay: float | None = field(default=None, metadata={"doc": "b of η_k = η0/b^k [RECON]; default a³"})
        stage_growth: float | None = field(default=None, metadata={
            "doc": "c of T_k = ⌈T0 c^k⌉ [RECON]; default a^{4+δ}"})
        delta: float = field(default=2.0, metadata={"doc": "δ of the default c = a^{4+δ} (Lemma 4.3)"})
        T0: int | None = field(default=None, metadata={"doc": "first stage length; default ⌈1/(λ0η0)⌉"})
        eta0: float | None = field(default=None, metadata={"doc": "first step; default min(1/λ0, 1/L), L = 2H (eq. 7)"})
        hinge: str = field(default="mean", metadata={"doc": 'σ = 1/n ("mean") or 1 ("sum") in h(w) of eq. (2)'})
        output: str = field(default="average", metadata={
            "doc": "stage output: the average of Algorithm 1 or the best iterate (§6.4)"})
        constraints: ClassVar[dict] = {
            "lambda0": [Options("auto"), POSITIVE], "lambda_decay": [ABOVE_ONE],   # λ_k, η_k decrease to 0
            "step_decay": [None, ABOVE_ONE], "stage_growth": [None, Interval(float, 1, None)],  # no shrinking
            "delta": [Interval(float, 0, None)], "T0": [None, Interval(int, 1, None)], "eta0": [None, POSITIVE],
            "hinge": [Options("mean", "sum")], "output": [Options("average", "best")]}

        def decays(self) -> tuple[float, float, float]:
            """``(a, b, c)`` with the defaults ``b = a³``, ``c = a^{4+δ}`` filled in."""
            a = float(self.lambda_decay)
            b = a ** 3 if self.step_decay is None else float(self.step_decay)
            c = a ** (4 + float(self.delta)) if self.stage_growth is None else float(self.stage_growth)
            return a, b, c

        def validate(self, method):
            if self.eta0 is not None and self.lambda0 != "auto" and self.eta0 * self.lambda0 > 1.0 + 1e-12:
                raise ProblemError(f"{method}: eta0 * lambda0 must be <= 1 (bounded iterates, Lemma 2.2); got "
                                   f"{self.eta0:g} * {self.lambda0:g}")
            a, b, c = self.decays()
            if b <= a:
                warnings.warn(f"step_decay = {b:g} <= lambda_decay = {a:g}: the noise term η_k L²/λ_k of "
                              f"Lemma 4.1 does not decay [RECON]", UserWarning, stacklevel=2)
            if c < a * b:
                warnings.warn(f"stage_growth = {c:g} < lambda_decay * step_decay = {a * b:g}: λ_kη_kT_k "
                              f"does not grow, the contraction of Lemma 4.3 fails [RECON]", UserWarning, stacklevel=2)

    def setup(self):
        super().setup()   # MarginPlan: R (for the infeasibility test), n, d
        form = self.form
        bk = self.bk   # where X lives (MarginPlan.setup)
        self.Z = SignedData(form.X, form.y, sign=+1.0, backend=bk)   # rows y_i x_i (MNW's convention), unscaled
        self.X, self.y, self.bias = form.X, form.y, bool(form.bias)
        self.pos = form.y > 0
        self.neg = ~self.pos
        self.posf, self.negf = bk.persist_all(bk.as_float(self.pos), bk.as_float(self.neg))   # the bias's two columns
        self.a, self.b, self.c = self.config.decays()
        self.sigma = 1.0 / self.n if self.hinge == "mean" else 1.0
        self.averaged = self.output == "average"   # read every step: an attribute, not a config lookup
        self.H = self.sigma * bk.float(bk.lazy_sum(form.row_norms()))
        self.L = 2.0 * self.H
        # λ_0, η_0 and T_0 with their defaults filled in (the config fields keep what the user passed)
        self.margin_bound = np.nan
        if self.lambda0 == "auto":
            self.margin_bound = margin_upper_bound(self.Z, bk, self.pos, self.bias)
            self.first_lambda = self.sigma * self.n * max(self.margin_bound, AUTO_FLOOR * self.R) ** 2
        else:
            self.first_lambda = float(self.lambda0)
        lam0 = self.first_lambda
        if self.eta0 is not None and self.eta0 * lam0 > 1.0 + 1e-12:
            raise ProblemError(f"{self.name}: eta0 * lambda0 must be <= 1 (bounded iterates, Lemma 2.2); got "
                               f"{self.eta0:g} * {lam0:g} (lambda0='auto')")
        # all-zero data (L = 0): any step is admissible, 1/λ0 is the bound of Lemma 2.2
        self.first_step = ((min(1.0 / lam0, 1.0 / self.L) if self.L > 0 else 1.0 / lam0)
                           if self.eta0 is None else float(self.eta0))
        if self.T0 is None and not (math.isfinite(self.first_step * lam0) and self.first_step * lam0 > 0):
            # R² overflowed (data of a scale near 1e300): λ0 and the first step are inf and 0, their product NaN
            raise ProblemError(f"{self.name}: X: the scale of the data (R = max ||x_i|| = {self.R:g}) is beyond double "
                               "precision (eta0 * lambda0 is not a positive number); rescale X")
        self.first_length = (math.ceil(1.0 / (self.first_step * lam0)) if self.T0 is None else int(self.T0))

    # schedules [RECON] -----------------------------------------------------------------------------------
    def lam(self, k: int) -> float:
        return self.first_lambda * self.a ** (-k)

    def eta(self, k: int) -> float:
        return self.first_step * self.b ** (-k)

    def stage_length(self, k: int) -> int:
        return int(math.ceil(self.first_length * self.c ** k))

    # hooks ------------------------------------------------------------------------------------------------
    def init(self, rng, warm_start, budget):
        w = self.start_w(warm_start)
        b = float(getattr(warm_start, "b", 0.0) or 0.0) if self.bias else 0.0
        bk = self.bk
        v = Point(w=w, s=self.Z.matvec(w), a=bk.zeros_n(self.n), b=b, w_pos=bk.zeros_d(self.d) if self.bias else None)
        return HomotopyState(t=0, k=0, j=0, v=v, start=v, acc=None, acc_value=np.inf, dual_bound=np.inf,
                             certified=warm_start is None)

    def step(self, st):
        bk = self.bk
        lam, eta, v = self.lam(st.k), self.eta(st.k), st.v
        acc, acc_value = self.accumulate(st, lam)
        act = bk.as_float(v.s + self.y * v.b < 1.0)
        g, g_pos = self.active_sum(act)
        shrink, push = 1.0 - eta * lam, eta * self.sigma
        w = shrink * v.w + push * g
        new = Point(w=w, s=self.Z.matvec(w), a=shrink * v.a + push * act,
                    b=v.b + push * bk.lazy(bk.vdot(self.y, act)) if self.bias else 0.0,
                    w_pos=None if g_pos is None else shrink * v.w_pos + push * g_pos).persisted(bk)
        j, k, start = st.j + 1, st.k, st.start
        if j == self.stage_length(k):       # end of stage: warm start the next one at its output
            start = self.output_point(acc, j)
            new, acc, acc_value, j, k = start, None, np.inf, 0, k + 1
        bound = math.inf
        if st.certified:  # bounds are scale invariant: the running sum certifies like the average
            bound = bk.minimum(st.dual_bound, self.bound(new))
            if acc is not None:
                bound = bk.minimum(bound, self.bound(acc))
        return HomotopyState(t=st.t + 1, k=k, j=j, v=new, start=start, acc=acc, acc_value=acc_value,
                             dual_bound=bound, certified=st.certified)

    def accumulate(self, st, lam):
        """Add ``v_j`` to the running sum, or keep it if it is the best so far (strictly smaller ``f_λ``)."""
        if self.averaged:
            return (st.v if st.acc is None else st.acc.plus(st.v).persisted(self.bk)), np.inf
        value = self.stage_objective(st.v, lam)
        if value < st.acc_value:
            return st.v, value
        return st.acc, st.acc_value

    def active_sum(self, act):
        """``Σ_{active} y_i x_i`` (one product with ``Xᵀ``), and with a bias its positive-class part (one product
        with the two columns ``c⊙pos``, ``c⊙neg``)."""
        if not self.bias:
            return self.Z.rmatvec(act), None
        c = self.y * act
        G = self.bk.rmatmat(self.X, self.bk.xp.stack([c * self.posf, c * self.negf], axis=1))
        return G[:, 0] + G[:, 1], G[:, 0]

    def output_point(self, acc, j) -> Point:
        return acc.scaled(1.0 / j).persisted(self.bk) if self.averaged else acc

    def out(self, st) -> Point:
        """The current stage output: the stage start, then the running average (or best) of the stage."""
        return st.start if st.j == 0 else self.output_point(st.acc, st.j)

    def stage_objective(self, p: Point, lam: float) -> float:
        """``f_λ(w) = σ Σ hinge(y_i(x_iᵀw + b)) + (λ/2)||w||²`` (the offset is not regularised)."""
        bk = self.bk
        hinge = bk.float(bk.lazy_sum(bk.clip(1.0 - (p.s + self.y * p.b), 0.0)))
        return self.sigma * hinge + 0.5 * lam * bk.float(bk.vdot(p.w, p.w))

    # certificate ------------------------------------------------------------------------------------------
    def bound(self, p: Point):
        """``||Zᵀa||/Σa`` (with a bias, balanced per class), a 0-d array on an array-API device (no
        synchronisation)."""
        bk = self.bk
        if not self.bias:
            return bk.ratio(bk.lazy_norm(p.w), bk.lazy_sum(p.a))
        m_pos, m_neg = bk.masked_sum(p.a, self.pos), bk.masked_sum(p.a, self.neg)
        ok = (m_pos > 0) & (m_neg > 0)   # both sides of ``where`` are computed: safe denominators first
        vec = p.w_pos / (2 * bk.where(ok, m_pos, 1.0)) + (p.w - p.w_pos) / (2 * bk.where(ok, m_neg, 1.0))
        return bk.where(ok, bk.lazy_norm(vec), math.inf)

    def point_margin(self, p: Point) -> float:
        """Normalised margin of ``w`` (with a bias: of ``(w, b̂(w))``, ``½(min_+ s + min_− s)/||w||``)."""
        bk = self.bk
        nw = bk.norm(p.w)
        if nw == 0.0:
            return 0.0
        if self.bias:
            return 0.5 * (masked_min(bk, p.s, self.pos) + masked_min(bk, p.s, self.neg)) / nw
        return bk.float(bk.xp.min(p.s)) / nw

    def posthoc_bias(self, p: Point) -> float:
        """§6.5: ``b̂ = −½(max_{y=−1} x_iᵀw + min_{y=+1} x_iᵀw)``, with ``x_iᵀw = y_i s_i``."""
        return -0.5 * (-masked_min(self.bk, p.s, self.neg) + masked_min(self.bk, p.s, self.pos))

    def margin(self, st) -> float:
        # margins are scale invariant: the running sum has the margin of the running average
        return self.point_margin(st.start if st.j == 0 else st.acc)

    def measure(self, st) -> dict:
        p, lam = self.out(st), self.lam(st.k)
        m, ub = self.point_margin(p), self.bk.float(st.dual_bound)
        return {"margin": m, "margin_upper": ub, "gap_bound": ub - m,
                "norm_w": self.bk.norm(p.w), "stage": st.k, "lam": lam,
                "stage_objective": self.stage_objective(p, lam)}

    def snapshot(self, st):
        return self.bk.host(self.bk.copy(self.out(st).w))

    def finite(self, st) -> bool:
        """The run loop's guard on what a step creates: the new iterate and the running sum or best iterate (the
        stage start is an earlier output, already checked); cheaper than scanning all fifteen arrays of the state."""
        points = (st.v,) if st.acc is None else (st.v, st.acc)   # a sum is NaN or inf iff an entry is (or overflows)
        return self.bk.finite_sum([x for p in points for x in (p.w, p.s, p.a, p.b)])

    def solution(self, st, status) -> Solution:
        p = self.out(st)
        m, ub = self.point_margin(p), self.bk.float(st.dual_bound)
        rel = self.relative_gap(m, ub)
        cert = {"margin_lower": m, "margin_upper": ub, "gap_bound": ub - m,
                "relative_gap_bound": rel, "relative_gap": rel,
                "stage": st.k, "lambda": self.lam(st.k), "lambda0": self.first_lambda,
                "subgradient_evaluations": st.t}
        self.add_hull_proof(cert, status)
        b = self.posthoc_bias(p) if self.bias else 0.0
        return Solution(w=self.bk.xd.asarray(p.w, copy=True), b=b, status=status, certificate=cert,
                        info={"learned_bias": self.bk.float(p.b)} if self.bias else {})
