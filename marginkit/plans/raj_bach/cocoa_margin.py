"""CoCoA+ for ``dykstra`` and ``dykstra-accelerated`` on a row-chunked ``dask.array``: the margin case, p = 2.

Papers: Ma, Smith, Jaggi, Jordan, Richtárik & Takáč, *Adding vs. averaging in distributed primal-dual optimization*
(ICML 2015), Algorithm 1 (CoCoA+, the subproblem ``G_k^{σ'}`` of their §3, the safe ``σ' = γK``); Smith, Forte, Ma,
Takáč, Jordan & Jaggi, *CoCoA: a general framework for communication-efficient distributed optimization* (JMLR 2018),
Algorithm 1 with any Θ-approximate local solver (their Assumption 1); Raj & Bach (AISTATS 2021), Algorithms 1 and 2
for the local solvers (*Explicit regularization of stochastic gradient methods through duality*, §2.2 and §2.4).

**The problem.** ``MinNormFeasibility(p=2, "margin")`` (and ``MaxMargin(bias=False)`` through its reduction):
``min ½||θ − θ0||²`` s.t. ``a_iᵀθ >= 1``, ``a_i = y_i x_i``. Its dual (RB eq. 2's dual with ``ψ = ½||·||²``, in the
λ-scaling of :mod:`.coordinate_ascent`) is

    max_{λ >= 0}  D(λ) = 1ᵀλ − ½||u||² + ½||θ0||²,      u = θ0 + Σ_i λ_i a_i,   θ(λ) = u,

the SVM box dual of :mod:`~marginkit.plans.common.cocoa` with an infinite box (and ``w`` started at ``θ0``). CoCoA+ runs
on it unchanged: block ``k`` approximately maximises ``G_k^{σ'}(Δ) = 1ᵀΔ − uᵀA_kΔ − (σ'/2)||A_kΔ||²`` over
``λ_[k] + Δ >= 0`` from ``Δ = 0``, ``λ_[k] ← λ_[k] + γΔ``, ``u ← u + Σ_k γA_kΔ_[k]`` (one reduce task;
``aggregation="add"``: ``γ = 1``, ``σ' = K``; ``"average"``: ``γ = 1/K``, ``σ' = 1``). In the variables
``β = σ'(λ_[k] + Δ)`` the subproblem is ``(1/σ')[1ᵀβ − ½||v_k + A_kβ||²] + const`` with ``v_k = u − σ'A_kλ_[k]``: RB's
dual on the block's rows with ``u0 = v_k``, started at ``β = σ'λ_[k]`` where its mirror point is the shared ``u``. The
local solvers:

* ``dykstra``: ``local_epochs`` (H) epochs of RB Algorithm 1 on it, whose step is the exact coordinate maximiser:
  the dual coordinate round of :mod:`~marginkit.plans.common.coordinate_round` with the box ``C_i = +∞``
  (:class:`CoCoADykstra`);
* ``dykstra-accelerated``: H epochs of RB Algorithm 2 (APCG of Lin, Lu & Xiao with μ = 0, ``γ_0 = 1/n_k``) from
  ``Δ = 0``, the step kept only if it increases ``G_k^{σ'}`` (:class:`CoCoAAcceleratedDykstra`).

With a safe ``σ'`` every round is an ascent step of ``D`` (Ma et al.'s bound ``D(λ + γΔ) >= (1 − γ)D(λ) +
γ Σ_k G_k^{σ'}(Δ_[k])``, which holds for any concave separable part). **No rate is claimed**: the O(1/T)
theorems of both papers assume L-Lipschitz losses, and the margin constraint is an indicator (its conjugate has
an unbounded domain); the statuses come from the certificate only.

**Certificate**: the plan family's own (:mod:`.coordinate_ascent`), from one pass per block that returns scalars
and d-vectors only (:class:`CoCoAMargin`); ``infeasible`` is never reported on dask, ``infeasible_inaccurate`` is.
λ stays on the workers (a dask n-vector chunked like X's rows, persisted, returned as ``Result.dual["lambda"]``);
``X.compute()`` never happens. One iteration = one communication round.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import dask
import dask.array as da
import numpy as np
import scipy.sparse as sp

from ...core.params import Options
from ...core.solution import Solution
from ...core.validation import ProblemError
from ...core.warmstart import dual_warm_value, parse_warm_start
from ..common.cocoa import CoCoAConfig, CoCoAPlan, CoCoAState, block_matvec, block_rmatvec, block_rows, block_sq_norms
from ..common.numba_rows import COMPILED, compiled_info
from .constraints import RowConstraints
from .coordinate_ascent import reference_entries, relative_gap

__all__ = ["CoCoAAcceleratedDykstra", "CoCoADykstra"]


# block functions (module level: pickled by reference) ------------------------------------------------------
def block_setup(Xb, yb, qb, x0):
    """``[#zero rows, max over nonzero rows of max(1 − a_iᵀθ0, 0)/||x_i||, max ||x_i||²]`` of a block."""
    q = np.asarray(qb, dtype=np.float64)
    nz = q > 0.0
    shift = np.maximum(1.0 - np.asarray(yb, dtype=np.float64) * block_matvec(Xb, x0), 0.0)
    dist = float(np.max(shift[nz] / np.sqrt(q[nz]), initial=0.0))
    return np.array([float(np.count_nonzero(~nz)), dist, float(np.max(q, initial=0.0))])


def block_margin_certificate(Xb, ab, yb, boxb, w):
    """``[min_{P_k} y_i x_iᵀw, Σ_{P_k} λ_i, #{y_i x_iᵀw <= 0}]`` (one pass over the block in storage order)."""
    m = np.asarray(yb, dtype=np.float64) * block_matvec(Xb, w)
    return np.array([float(np.min(m, initial=np.inf)), float(np.sum(ab)), float(np.count_nonzero(m <= 0.0))])


class BlockRows(RowConstraints):
    """The margin rows ``a_i = y_i x_i`` of one block as a :class:`~.constraints.RowConstraints` (what the APCG
    epochs read: rows, signs, right-hand sides 1); read-only views, never copies of a C-ordered float64 block."""

    def __init__(self, Xb, yb):   # noqa: D107 -- no problem object: the block is the data
        X2, data, indices, indptr = block_rows(Xb)
        self.sparse = X2 is None
        self.X = sp.csr_matrix((data, indices, indptr), shape=Xb.shape) if self.sparse else X2
        self.n, self.d = Xb.shape
        self.margin = True
        self.s = np.ascontiguousarray(yb, dtype=np.float64)
        self.c = np.ones(self.n)
        ro = [_view(a) for a in (X2 if X2 is not None else np.zeros((0, 0)), data, indices, indptr)]
        self._kernel_data = (*ro, not self.sparse)


def _view(a):
    v = np.asarray(a).view()
    v.setflags(write=False)   # the compiled epochs' read-only signature (the view only: the block is untouched)
    return v


def local_apcg(Xb, ab, yb, boxb, qb, w, seed, sigma, gamma, epochs, output, runner):
    """One block's part of a round with RB Algorithm 2 as the local solver (module docstring):
    ``(λ_[k] + γΔ, [Δu_k, visits, epochs])``."""
    ab = np.asarray(ab, dtype=np.float64)
    boxb = np.asarray(boxb, dtype=np.float64)
    q = np.asarray(qb, dtype=np.float64)
    system = BlockRows(Xb, yb)
    nk = system.n
    movable = (boxb > 0.0) & (q > 0.0)
    Linv = np.where(movable, 1.0 / np.where(movable, q, 1.0), 0.0)   # zero rows never move
    alpha = ab * sigma                    # β = σ'(λ_[k] + Δ), Δ = 0
    ehat, ue = np.zeros(nk), np.zeros(system.d)
    ua = np.array(w, dtype=np.float64)    # v_k + A_k β = the shared u
    scal = np.array([1.0 / max(nk, 1), 1.0])
    rng = np.random.default_rng(seed)
    for _ in range(int(epochs) if nk else 0):
        system.apcg_epoch(Linv, rng.integers(0, nk, size=nk), alpha, ehat, ua, ue, scal, 2.0, runner)
    beta = alpha if output == "alpha" or not nk else alpha + (scal[1] / (1.0 - scal[0])) * ehat
    delta = np.maximum(beta, 0.0) / sigma - ab            # back into the subproblem's domain β >= 0
    a_new = np.clip(ab + gamma * delta, 0.0, boxb)
    step = a_new - ab
    dw = block_rmatvec(Xb, system.s * step)
    # G_k^{σ'}(Δ) at Δ = step/γ; the step is kept only if it improves on Δ = 0
    value = (float(step.sum()) - float(np.asarray(w) @ dw)) / gamma - 0.5 * sigma * float(dw @ dw) / gamma ** 2
    if not value > 0.0:
        a_new, dw = ab, np.zeros_like(dw)
    return a_new, np.concatenate([dw, [float(int(epochs) * nk), float(epochs)]])


# the plans -------------------------------------------------------------------------------------------------
@dataclass
class MarginCoCoAState(CoCoAState):
    cert: dict = field(default_factory=dict, repr=False)   # the certificate of iteration ``checked``


class CoCoAMargin(CoCoAPlan):
    """CoCoA+ on ``MinNormFeasibility(p=2, "margin")`` over a row-chunked dask X (module docstring). A subclass
    gives the local solver (:attr:`local_fn`, :meth:`local_options`).

    **Certificate** (the plan family's own, :mod:`.coordinate_ascent`): each block returns ``[min_{P_k} a_iᵀθ,
    Σ_{P_k} λ_i, #{a_iᵀθ <= 0}]`` (one pass in storage order, in the round's own graph), so only scalars and
    d-vectors reach the driver. ``dual = D(λ)``; when ``θ = u`` separates, ``primal`` is the objective at the
    feasible point ``θ/min_i a_iᵀθ`` (or ``θ`` itself when it is feasible and better), so
    ``duality_gap >= ψ(θ*) − D(λ)``; otherwise ``primal = inf``. ``max_violation = max(0, 1 − min_i a_iᵀθ)``;
    ``distance_lower_bound = (1ᵀλ − (u − θ0)ᵀθ0) / ||u − θ0||``. ``optimal`` when ``max_violation <= tol`` and
    ``|duality_gap| <= tol·D`` with ``D > 0``. ``infeasible`` is never reported on dask (the hull proof of the NumPy
    plan reads X on the host): when ``distance_lower_bound·tol`` exceeds the distance to the farthest single
    constraint while θ does not separate, or when a row of X is zero (its constraint ``0 >= 1`` cannot hold; its
    ``λ_i`` is frozen at 0), the status is ``infeasible_inaccurate``; otherwise the run goes on to its budget
    (``user_limit``)."""

    log_columns = ("objective", "dual_objective", "duality_gap", "max_violation")
    cert_fn = staticmethod(block_margin_certificate)
    State = MarginCoCoAState

    def check_form(self, form):
        """The forms this CoCoA+ solves; a ``ProblemError`` naming the argument otherwise."""
        what = f"method {self.method!r} on dask data (CoCoA+, Ma et al. 2015)"
        if getattr(form, "form", None) != "MinNormFeasibility":
            raise ProblemError(f"{what} solves MinNormFeasibility(p=2, constraint='margin') and MaxMargin(bias=False) "
                               f"only; got {type(form).__name__}: convert X with X.compute() for the NumPy plan")
        if form.constraint != "margin":
            raise ProblemError(f"constraint={form.constraint!r}: {what} runs the margin constraints only (its dual is "
                               "the SVM box dual with an infinite box); convert X with X.compute() for interpolation")
        if float(form.p) != 2.0:
            raise ProblemError(f"p={form.p:g}: {what} needs p = 2 (θ(λ) = u is linear in λ, so the blocks' updates "
                               "add up); use p=2, or X.compute() for the NumPy plan")
        if getattr(form, "sample_weight", None) is not None:
            raise ProblemError(f"sample_weight: {what} has no per-sample weights; drop sample_weight")

    def setup(self):
        form = self.form
        self.check_form(form)
        X = form.X
        chunks = self.setup_blocks()
        self.x0 = np.zeros(self.d) if form.w0 is None else np.array(form.w0, dtype=np.float64)
        self.half_x0 = 0.5 * float(self.x0 @ self.x0)   # ψ*(u0) = ½||θ0||²
        y = form.y if form.y.chunks == chunks else form.y.rechunk(chunks)
        q = X.map_blocks(block_sq_norms, drop_axis=1, dtype=np.float64, meta=np.empty(0))   # ||x_i||² = L_i
        y, q = dask.persist(y, q)
        parts = [dask.delayed(block_setup)(x, yb, qb, self.x0)
                 for x, yb, qb in zip(X.to_delayed().ravel(), y.to_delayed().ravel(), q.to_delayed().ravel())]
        stats = np.array(dask.compute(*parts))
        self.zero_rows = int(stats[:, 0].sum())
        self.distance_scale = float(stats[:, 1].max(initial=0.0))
        self.L_max = float(stats[:, 2].max(initial=0.0))
        box = da.where(q > 0.0, np.inf, 0.0)   # λ_i >= 0; a zero row's λ_i stays 0 (its constraint cannot hold)
        curv = self.curvatures(q)
        self.data = (X, y) + dask.persist(box, curv)
        self.box = self.data[2]

    def curvatures(self, q):
        """Each row's coordinate constant as the local solver reads it (``L_i = ||x_i||²``)."""
        return q

    # certificate -------------------------------------------------------------------------------------------
    def combine(self, parts):
        parts = np.asarray(parts, dtype=np.float64).reshape(-1, 3)
        return np.array([parts[:, 0].min(initial=np.inf), parts[:, 1].sum(), parts[:, 2].sum()])

    def objective(self, theta) -> float:
        return self.form.objective(theta)

    def store(self, st, sums) -> None:
        """The plan family's certificate (:class:`CoCoAMargin`) from the blocks' ``[min a_iᵀθ, Σλ_i, mistakes]``."""
        amin, sum_lam, mistakes = (float(v) for v in sums)
        u = st.w
        dual = sum_lam - 0.5 * float(u @ u) + self.half_x0
        Alam = u - self.x0
        norm_Alam = float(np.linalg.norm(Alam))
        num = sum_lam - float(Alam @ self.x0)
        dlb = max(num, 0.0) / norm_Alam if norm_Alam > 0 else (np.inf if num > 0 else 0.0)
        separates = amin > 0.0 and np.isfinite(amin)
        point, primal = u, np.inf
        if separates:   # θ/min_i a_iᵀθ is feasible: its objective bounds ψ(θ*) from above
            point = u / amin
            primal = self.objective(point)
            if amin >= 1.0 and self.objective(u) < primal:
                point, primal = u, self.objective(u)
        nt = float(np.linalg.norm(u))
        st.cert = {"point": point, "separates": separates, "max_violation": max(0.0, 1.0 - amin),
                   "distance_lower_bound": dlb, "mistakes": mistakes,
                   "margin": amin / nt if nt > 0 and np.isfinite(amin) else 0.0}
        st.primal, st.dual, st.checked = primal, dual, st.t

    def relative_gap(self, st) -> float:
        """``|P − D|/D`` with ``D > 0`` finite (``inf`` without such a bound or without a feasible point)."""
        return relative_gap(st.primal, st.dual)

    # hooks -------------------------------------------------------------------------------------------------
    def start_a(self, warm_start):
        if warm_start is None:
            return self.bk.zeros_n(self.n)
        value = dual_warm_value(warm_start, key="lambda",
                                hint="run 'dykstra', 'dykstra-accelerated' or 'cvxpy' first")
        if not hasattr(value, "chunks"):
            value = self.bk.asarray_n(parse_warm_start(value, self.n, name="warm_start dual 'lambda'"))
        elif value.shape != (self.n,):
            raise ProblemError(f"warm_start dual 'lambda' must have length {self.n}; got {value.shape}")
        value = value.astype(np.float64).rechunk((self.row_chunks,))
        finite, nonneg = dask.compute(da.isfinite(value).all(), (value >= 0.0).all())
        if not bool(finite):
            raise ProblemError("warm_start dual 'lambda' contains NaN or inf")
        if not bool(nonneg):
            raise ProblemError("warm_start dual 'lambda' must be >= 0 for margin constraints (the dual domain)")
        return da.minimum(value, self.box).persist()   # a zero row's λ_i is 0

    def init(self, rng, warm_start, budget=None):
        a = self.start_a(warm_start)
        root = int(rng.integers(1, 2 ** 62))
        w = self.x0.copy() if warm_start is None else self.x0 + self.signed_sum(a)   # u = θ0 + Σ λ_i a_i
        st = self.State(t=0, a=a, w=np.asarray(w, dtype=np.float64), root=root)
        self.certify(st)
        return st

    def stop(self, st, budget):
        self.ensure_certified(st)
        if self.zero_rows:
            return "infeasible_inaccurate"   # a zero row's constraint 0 >= 1 cannot hold (no hull proof on dask)
        c = st.cert
        if (budget.tol > 0 and self.distance_scale > 0 and not c["separates"]
                and c["distance_lower_bound"] * budget.tol >= self.distance_scale):
            return "infeasible_inaccurate"   # not separable to relative tolerance tol (RB Conclusion (2))
        bounded = st.dual > 0 and np.isfinite(st.dual)
        if bounded and c["max_violation"] <= budget.tol and abs(st.primal - st.dual) <= budget.tol * st.dual:
            return "optimal"
        return None

    def measure(self, st) -> dict:
        self.ensure_certified(st)
        c = st.cert
        return {"objective": self.objective(st.w), "dual_objective": st.dual, "duality_gap": st.primal - st.dual,
                "max_violation": c["max_violation"], "margin": c["margin"], "mistakes": c["mistakes"],
                "epochs": st.epochs, "visits": float(st.visits)}

    def snapshot(self, st):
        return st.w.copy()   # θ(λ) = u

    def solution(self, st, status) -> Solution:
        self.ensure_certified(st)
        c = st.cert
        cert = {"primal": st.primal, "dual": st.dual, "duality_gap": st.primal - st.dual,
                "max_violation": c["max_violation"], "distance_lower_bound": c["distance_lower_bound"],
                "violation_scale": 1.0, "relative_gap": self.relative_gap(st)}
        if self.zero_rows:
            cert["zero_rows"] = self.zero_rows
        cert.update(reference_entries(self.form, st.dual, st.w, 2.0))
        info = {**compiled_info(self.resolved_backend), "epochs": st.epochs, "coordinate_steps": st.visits,
                "cocoa": self.cocoa_info()}
        return Solution(w=np.array(c["point"], dtype=np.float64), status=status, certificate=cert,
                        dual={"lambda": st.a}, info=info)


class CoCoADykstra(CoCoAMargin):
    """``dykstra`` on dask: CoCoA+ with H epochs of RB Algorithm 1 (the dual coordinate round with an infinite box)
    per round on every row chunk. Options: ``local_epochs``, ``aggregation``, ``step`` (``"per-sample"``: ``1/L_i``;
    ``"max"``: ``1/L_max``), ``compiled``.

    The local solver: ``local_epochs`` (H) epochs of RB Algorithm 1 on the block's subproblem -- for margins and
    p = 2 the step ``λ_i ← max(λ_i + (1 − a_iᵀθ)/L_i, 0)`` (Lemma 1) is the exact coordinate maximiser, which is the
    dual coordinate round (:func:`~marginkit.plans.common.coordinate_round.dcd_round`) with the box ``C_i = +∞``:
    the block function of :mod:`~marginkit.plans.common.cocoa` runs it unchanged (every epoch visits the block's rows
    in a fresh random order, no shrinking). ``step="max"`` passes ``L_max`` as every row's curvature (RB: "L_i can be
    replaced by max_i L_i").

    The engine runs it for ``dykstra`` on dask data (the registry card's variant for dask)."""

    name = "dykstra"

    @dataclass(frozen=True)
    class Config(CoCoAConfig):
        step: str = field(default="per-sample", metadata={"doc": "RB Lemma 1's 1/L_i, or 1/L_max (\"max\")"})
        compiled: bool | str = field(default="auto", metadata={
            "doc": 'the local round compiled by numba (True; "auto": when installed) or in Python'})
        constraints: ClassVar[dict] = {**CoCoAConfig.constraints, "step": [Options("per-sample", "max")],
                                       "compiled": COMPILED}

    def curvatures(self, q):
        if self.config.step == "max":
            return da.where(q > 0.0, self.L_max, 0.0)
        return q

    def local_options(self) -> tuple:
        return self.sigma, self.gamma, self.local_epochs, False, self.rounds


class CoCoAAcceleratedDykstra(CoCoAMargin):
    """``dykstra-accelerated`` on dask: CoCoA+ with H epochs of RB Algorithm 2 (APCG) per round on every row chunk,
    from ``Δ = 0``. Options: ``local_epochs``, ``aggregation``, ``output`` (``"v"``: the APCG sequence ``v``;
    ``"alpha"``: ``α``), ``compiled``.

    The local solver: H epochs of RB Algorithm 2 (APCG of Lin, Lu & Xiao with μ = 0, ``γ_0 = 1/n_k``, the compiled
    :func:`~.epochs_numba.apcg_epoch` or its NumPy twin over a :class:`~.constraints.RowConstraints` view of the
    block) from ``Δ = 0``, returning ``β(v_T)`` (``output="v"``, the sequence APCG's theorem bounds: expected
    subproblem suboptimality ``<= (2/(2 + H))²`` times the initial one plus the distance term) or ``β(α_T)``
    (``output="alpha"``), moved into ``β >= 0`` (v extrapolates). The step is kept only if it increases
    ``G_k^{σ'}`` (computed exactly from ``A_kΔ``, the pass that ``Δu_k`` needs anyway); otherwise the block returns
    ``Δ = 0``. That safeguard only improves a Θ-approximate solver (Smith et al. Assumption 1) and keeps ``D``
    monotone.

    The engine runs it for ``dykstra-accelerated`` on dask data (the registry card's variant for dask)."""

    name = "dykstra-accelerated"

    @dataclass(frozen=True)
    class Config(CoCoAConfig):
        output: str = field(default="v", metadata={"doc": "the block's step from β(v_T) or β(α_T)"})
        compiled: bool | str = field(default="auto", metadata={
            "doc": 'the local APCG epochs compiled by numba (True; "auto": when installed) or not'})
        constraints: ClassVar[dict] = {**CoCoAConfig.constraints, "output": [Options("v", "alpha")],
                                       "compiled": COMPILED}

    local_fn = staticmethod(local_apcg)

    def local_options(self) -> tuple:
        return self.sigma, self.gamma, self.local_epochs, self.output, self.resolved_backend

