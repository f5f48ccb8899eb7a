"""CoCoA+ for ``dual-cd`` on a row-chunked ``dask.array``: the existing dual coordinate round on every block.

Papers: Ma, Smith, Jaggi, Jordan, Richtárik & Takáč, *Adding vs. averaging in distributed primal-dual optimization*
(ICML 2015), Algorithm 1 (CoCoA+) with the data-local quadratic subproblem ``G_k^{σ'}`` of their §3 and the safe
choice ``σ' = γK`` (their lemma on the safe ``σ'``: ``σ' >= σ'_min = γ max_α ||Aα||² / Σ_k ||A α_[k]||²``, which ``γK``
bounds by Cauchy-Schwarz);
Smith, Forte, Ma, Takáč, Jordan & Jaggi, *CoCoA: a general framework for communication-efficient distributed
optimization* (JMLR 2018), Algorithm 1 (the same scheme with any local solver that is Θ-approximate, their
Assumption 1). Jaggi et al. (NeurIPS 2014, CoCoA) is the averaging case ``γ = 1/K``, ``σ' = 1``.

The problem is the box dual of :mod:`.svm_coordinate` (no ``λn`` normalisation: ``A α = Σ_i α_i y_i x_i``)

    max_{0 <= a_i <= C_i}  D(a) = 1ᵀa − ½||w(a)||²,      w(a) = Σ_i a_i y_i x_i.

The rows are split into the K row chunks of ``X`` (a worker's block ``P_k``). One CoCoA+ round, from the shared ``w``
(a NumPy d-vector sent to every block) and ``a`` (a dask n-vector chunked like ``X``'s rows, persisted: it never
leaves the workers):

1. block ``k`` approximately maximises its subproblem (Ma et al. ``G_k^{σ'}`` in our units, constants dropped)

       max_{0 <= a_[k] + Δ <= C_[k]}  1ᵀΔ − wᵀ(A_k Δ) − (σ'/2)||A_k Δ||²,      A_k Δ = Σ_{i∈P_k} Δ_i y_i x_i,

   by ``local_epochs`` (H) epochs of the EXISTING compiled dual coordinate round (:func:`.svm_coordinate.dcd_round`,
   Hsieh et al. Alg. 1 with the shrinking of §3.2) -- the exact coordinate maximiser of this subproblem is
   ``Δ_i ← clip(a_i + Δ_i − G/(σ'||x_i||²), 0, C_i) − a_i`` with ``G = y_i x_iᵀ(w + σ' A_k Δ) − 1``. The round runs it
   unchanged in the variables ``b = σ'(a_[k] + Δ)`` (box ``σ' C_i``, curvature ``||x_i||²``, its ``w`` started at the
   shared ``w``): then its ``G`` is the one above and its step ``δb = σ'δΔ``, so ``b/σ'`` is the subproblem's iterate
   (the scale invariance of the module docstring of :mod:`.svm_coordinate`);
2. ``a_[k] ← a_[k] + γΔ`` (clipped to the box against rounding) and the block returns ``Δw_k = A_k(γΔ)``, computed
   from the block's rows in storage order (not accumulated through the epoch, so ``w = Σ_i a_i y_i x_i`` holds up to
   one rounding per round: the certificate's ``D`` is the dual value of the ``a`` it reports);
3. ``w ← w + Σ_k Δw_k`` (Ma et al. Alg. 1, the reduce step; the K d-vectors are summed in block order by one task,
   and the driver receives the new ``w``).

``aggregation="add"`` (default: CoCoA+, ``γ = 1``, ``σ' = K``) or ``"average"`` (CoCoA, ``γ = 1/K``, ``σ' = 1``).
Both are monotone in ``D`` (with a safe ``σ'``, ``D(a + γΔ) >= (1 − γ)D(a) + γ Σ_k G_k^{σ'}(Δ_[k])``, and the local
round only increases ``G_k^{σ'}`` from ``Δ = 0``), and converge for any Θ-approximate local solver (the convergence
theorems of both papers; O(1/T) rounds for the hinge loss, whose conjugate is not strongly convex): the number of
rounds depends on the number of row chunks K (through ``σ'``), not on the number of workers that run them.

**Certificate** (unchanged from ``dual-cd``): the duality gap ``P(w) − D(a)`` with ``P(w) = ½||w||² + Σ C_i max(0,
1 − y_i x_iᵀw)``; each block returns ``Σ_{P_k} C_i hinge_i`` and ``Σ_{P_k} a_i`` (two scalars: one pass over the
block in storage order), so only scalars and d-vectors reach the driver. ``optimal`` when the certified relative gap
``(P − D)/D <= tol`` with ``D > 0``. The certificate passes run in the same dask graph as the round, after the
reduce step (one task summing the K replies in block order, so the new ``w`` reaches the blocks without a trip
through the driver): one scheduler round trip per round, one extra pass over each block in storage order (cheap
next to H epochs in random order).

The local work runs on the block as NumPy/SciPy (dense C-ordered rows or CSR: ``X.to_delayed()``, never
``X.compute()``) with numba (``compiled=True``) or the same round in Python (``False``), through the threaded
scheduler or a ``distributed.Client`` alike (the block functions are module-level, pickled by reference). Each
block's visiting order comes from a xorshift64 seed drawn per round from the run's ``seed``: a run is reproducible
for a given seed and chunking.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import dask
import dask.array as da
import numpy as np
import scipy.sparse as sp

from ...core.params import Boolean, Interval, Options
from ...core.solution import Solution
from ...core.validation import ProblemError
from ...core.warmstart import dual_warm_value, parse_warm_start
from ..common.numba_rows import COMPILED, compiled_info, kernel_rows, resolve_compiled, row_storage
from .gap import DualityGapPlan
from .svm_coordinate import compiled_round, dcd_round

AGGREGATION = Options("add", "average")
INFO = 2   # entries after Δw_k in a block's reply: coordinates visited, epochs run


# block functions (run on the workers; module level so that they pickle by reference) ------------------------
def _rows(Xb):
    """``(X, data, indices, indptr)`` as the round reads them: dense C-ordered float64 rows (CSR unused) or CSR."""
    Xb = sp.csr_matrix(Xb, dtype=np.float64) if sp.issparse(Xb) else np.asarray(Xb, dtype=np.float64)
    return kernel_rows(*row_storage(Xb)[:2])


def _block_rmatvec(Xb, q):
    """``X_kᵀ q`` as a float64 d-vector (dense or sparse block)."""
    return np.asarray(Xb.T @ q, dtype=np.float64).ravel()


def _block_matvec(Xb, w):
    return np.asarray(Xb @ w, dtype=np.float64).ravel()


def block_sq_norms(Xb):
    """``||x_i||²`` of the block's rows."""
    if sp.issparse(Xb):
        A = sp.csr_matrix(Xb, dtype=np.float64)
        return np.asarray(A.multiply(A).sum(axis=1), dtype=np.float64).ravel()
    A = np.asarray(Xb, dtype=np.float64)
    return np.einsum("ij,ij->i", A, A)


def local_round(Xb, ab, yb, boxb, qb, w, seed, sigma, gamma, epochs, shrinking, rounds):
    """One block's part of a CoCoA+ round (module docstring, steps 1-2): ``(a_[k] + γΔ, [Δw_k, visits, epochs])``.
    ``rounds = (dcd_round, compiled_round or None)``: the round of :mod:`.svm_coordinate` in Python, and its
    compiled form unless the plan runs ``compiled=False``."""
    py_round, compiled = rounds
    fn = compiled() if compiled is not None else py_round
    ab = np.asarray(ab, dtype=np.float64)
    yb = np.ascontiguousarray(yb, dtype=np.float64)
    boxb = np.asarray(boxb, dtype=np.float64)
    rows = _rows(Xb)
    b = ab * sigma                      # b = σ'(a_[k] + Δ), Δ = 0
    box_b = np.ascontiguousarray(boxb * sigma)
    v = np.array(w, dtype=np.float64)   # the round's w: w + σ' A_k Δ
    index = np.flatnonzero(boxb > 0.0).astype(np.int64)   # C_i = 0: a_i = 0 for ever
    m = int(index.shape[0])
    sums = np.array([b.sum(), v @ v])
    state = np.array([seed], dtype=np.uint64)
    with np.errstate(invalid="ignore"):   # an infinite box (cocoa_margin.py): the round's gap estimate is inf·0
        out = fn(*rows, yb, box_b, np.ascontiguousarray(qb, dtype=np.float64), b, v, index, m,
                 np.inf, -np.inf, state, 0.0, max(int(epochs) * m, 1), bool(shrinking), sums, 0.0)
    visits, ran = out[5], out[4]
    a_new = np.clip(ab + gamma * (b / sigma - ab), 0.0, boxb)
    dw = _block_rmatvec(Xb, yb * (a_new - ab))
    return a_new, np.concatenate([dw, [float(visits), float(ran)]])


def block_certificate(Xb, ab, yb, boxb, w):
    """``[Σ_{P_k} C_i max(0, 1 − y_i x_iᵀw), Σ_{P_k} a_i]`` (one pass over the block in storage order)."""
    yb = np.asarray(yb, dtype=np.float64)
    hinge = np.maximum(0.0, 1.0 - yb * _block_matvec(Xb, w))
    return np.array([float(np.asarray(boxb, dtype=np.float64) @ hinge), float(np.sum(ab))])


def reduce_step(w, *replies):
    """``(w + Σ_k Δw_k, [visits, epochs])`` summed in block order (Ma et al. Alg. 1, the reduce step)."""
    total = np.zeros(w.shape[0] + INFO)
    for v in replies:
        total += v
    return w + total[:w.shape[0]], total[w.shape[0]:]


# the plan ------------------------------------------------------------------------------------------------
@dataclass
class CoCoAState:
    t: int
    a: object                # dask n-vector chunked like X's rows (persisted), 0 <= a_i <= C_i
    w: np.ndarray            # Σ a_i y_i x_i (NumPy, the driver's copy)
    root: int                # the run's seed for the per-round, per-block visiting orders
    visits: int = 0          # coordinate visits on all blocks so far
    epochs: float = 0.0      # local epochs run so far (mean over blocks)
    primal: float = np.nan   # P(w) and D(a) at iteration ``checked``
    dual: float = np.nan
    checked: int = -1


class CoCoAPlus(DualityGapPlan):
    """``dual-cd`` on a row-chunked dask ``X``: CoCoA+ (Ma et al. 2015, Alg. 1; Smith et al. 2018) with the existing
    dual coordinate round as the local solver on every row chunk (see the module docstring). Options:
    ``local_epochs`` (H, epochs of the local round per communication round), ``aggregation`` (``"add"``: CoCoA+,
    ``γ = 1``, ``σ' = K``; ``"average"``: CoCoA, ``γ = 1/K``, ``σ' = 1``), ``shrinking`` and ``compiled`` as for
    ``dual-cd`` (applied inside each local round). One iteration = one communication round.

    The engine runs it for ``dual-cd`` on dask data (the registry card's variant for dask)."""

    name = "dual-cd"

    @dataclass(frozen=True)
    class Config:
        local_epochs: int = field(default=1, metadata={"doc": "H: local epochs per round"})
        aggregation: str = field(default="add", metadata={"doc": '"add" (CoCoA+) or "average" (CoCoA)'})
        shrinking: bool = field(default=True, metadata={"doc": "Hsieh et al. §3.2, inside a local round"})
        compiled: bool | str = field(
            default="auto",
            metadata={"doc": 'the local round compiled by numba (True; "auto": when installed) or in Python'})
        constraints: ClassVar[dict] = {"local_epochs": [Interval(int, 1, None)], "aggregation": [AGGREGATION],
                                       "shrinking": [Boolean()], "compiled": COMPILED}

    # the block functions of a round (module level: they pickle by reference); the margin form of ``dykstra`` and
    # ``dykstra-accelerated`` (:mod:`.cocoa_margin`) swaps them and the three hooks below
    local_fn = staticmethod(local_round)
    cert_fn = staticmethod(block_certificate)
    State = CoCoAState

    def setup_blocks(self):
        """What every CoCoA+ plan sets first: the array backend, the shape, the local round (compiled or Python), the
        K row chunks and the aggregation's ``(γ, σ')``; returns ``X``'s row chunking ``(chunks,)``."""
        X = self.form.X
        self.bk = self.form.backend
        self.n, self.d = X.shape
        self.resolved_backend = resolve_compiled(self.config.compiled, self.method)
        self.rounds = (dcd_round, compiled_round if self.resolved_backend == "numba" else None)
        self.row_chunks = X.chunks[0]
        self.K = len(self.row_chunks)
        if self.config.aggregation == "add":
            self.gamma, self.sigma = 1.0, float(self.K)
        else:
            self.gamma, self.sigma = 1.0 / self.K, 1.0
        return (X.chunks[0],)

    def setup(self):
        form = self.form
        X = form.X
        chunks = self.setup_blocks()
        y = form.y if form.y.chunks == chunks else form.y.rechunk(chunks)
        box = form.box_n
        box = box if box.chunks == chunks else box.rechunk(chunks)
        q = X.map_blocks(block_sq_norms, drop_axis=1, dtype=np.float64, meta=np.empty(0))   # ||x_i||²
        # kept as arrays: on a distributed.Client the persisted blocks live as long as these references
        self.data = (X,) + dask.persist(y, box, q)
        self.box = self.data[2]
        self.box_total = float(np.sum(form.box))   # P(0) = Σ C_i

    # helpers ---------------------------------------------------------------------------------------------
    def start_a(self, warm_start):
        bk = self.bk
        if warm_start is None:
            return bk.zeros_n(self.n)
        value = dual_warm_value(warm_start)
        if not hasattr(value, "chunks"):
            value = bk.asarray_n(parse_warm_start(value, self.n))
        elif value.shape != (self.n,):
            raise ProblemError(f"warm_start must have length {self.n}; got {value.shape}")
        value = value.astype(np.float64).rechunk((self.row_chunks,))
        if not bool(da.isfinite(value).all().compute()):
            raise ProblemError("warm_start contains NaN or inf")
        return da.clip(value, 0.0, self.box).persist()

    def blocks(self):
        """``(X, y, C, ||x_i||²)`` block by block: K delayed row chunks each (references to persisted keys)."""
        return [list(v.to_delayed().ravel()) for v in self.data]

    def certify(self, st) -> None:
        """``P(w)``, ``D(a)`` into ``st`` from two scalars per block (module docstring, certificate)."""
        ab = st.a.to_delayed().ravel()
        Xb, yb, boxb, _ = self.blocks()
        parts = [dask.delayed(self.cert_fn, pure=False)(x, a, y, c, st.w)
                 for x, a, y, c in zip(Xb, ab, yb, boxb)]
        self.store(st, self.combine(self.bk.compute(*parts)))

    def combine(self, parts):
        """The blocks' certificate replies combined on the driver (here: summed, in block order)."""
        return np.sum(parts, axis=0)

    def local_options(self) -> tuple:
        """The arguments of :attr:`local_fn` after the block's seed."""
        return self.sigma, self.gamma, self.local_epochs, self.shrinking, self.rounds

    def store(self, st, sums) -> None:
        """``P(w) = ½||w||² + Σ C_i hinge_i`` and ``D(a) = Σ a_i − ½||w||²`` from the blocks' sums."""
        half = 0.5 * float(st.w @ st.w)
        st.primal, st.dual, st.checked = half + float(sums[0]), float(sums[1]) - half, st.t

    # hooks -------------------------------------------------------------------------------------------------
    def signed_sum(self, a) -> np.ndarray:
        """``Σ_i a_i y_i x_i`` of a dask n-vector ``a``, block by block (one d-vector per block, summed)."""
        Xb, yb, _, _ = self.blocks()
        parts = [dask.delayed(_block_rmatvec)(x, dask.delayed(np.multiply)(y, v))
                 for x, y, v in zip(Xb, yb, a.to_delayed().ravel())]
        return np.sum(self.bk.compute(*parts), axis=0)

    def cocoa_info(self) -> dict:
        return {"aggregation": self.aggregation, "blocks": self.K, "sigma": self.sigma, "gamma": self.gamma,
                "local_epochs": self.local_epochs}

    def init(self, rng, warm_start, budget=None):
        a = self.start_a(warm_start)
        root = int(rng.integers(1, 2 ** 62))
        if warm_start is None:
            st = CoCoAState(t=0, a=a, w=np.zeros(self.d), root=root)
            st.primal, st.dual, st.checked = self.box_total, 0.0, 0   # w = 0: P = Σ C_i, D = 0
            return st
        return CoCoAState(t=0, a=a, w=np.asarray(self.signed_sum(a), dtype=np.float64), root=root)

    def step(self, st):
        """One round as ONE dask graph: the K local rounds, the reduce step ``w + Σ_k Δw_k`` (one task, block order)
        and the K certificate passes at the new ``(a, w)``; ``a`` is persisted where it was computed and only ``w``
        and ``K`` pairs of scalars come back (one scheduler round trip)."""
        seeds = np.random.default_rng([st.root, st.t]).integers(1, 2 ** 63, size=self.K, dtype=np.uint64)
        ab = st.a.to_delayed().ravel()
        Xb, yb, boxb, qb = self.blocks()
        wd = dask.delayed(st.w, pure=False)   # one key: sent once to each worker that needs it
        opts = self.local_options()
        replies = [dask.delayed(self.local_fn, nout=2, pure=False)(x, a, y, c, q, wd, int(s), *opts)
                   for x, a, y, c, q, s in zip(Xb, ab, yb, boxb, qb, seeds)]
        a_parts = [r[0] for r in replies]
        total = dask.delayed(reduce_step, pure=False)(wd, *[r[1] for r in replies])
        w_new = total[0]
        certs = [dask.delayed(self.cert_fn, pure=False)(x, a, y, c, w_new)
                 for x, a, y, c in zip(Xb, a_parts, yb, boxb)]
        a_new = da.concatenate([da.from_delayed(a, (m,), dtype=np.float64, meta=np.empty(0))
                                for a, m in zip(a_parts, self.row_chunks)])
        # a stays where it was computed; w, 2 counters and 2K scalars come to the driver (a lost cluster: the
        # backend's SolverFailure, which ends the run with solver_error)
        a_new, total, *certs = self.bk.persist_all(a_new, total, *certs)
        (w, info), *certs = self.bk.compute(total, *certs)
        self.bk.replicate(a_new)   # a lost worker then costs one round, not the lineage of every round so far
        nxt = self.State(t=st.t + 1, a=a_new, w=w, root=st.root, visits=st.visits + int(info[0]),
                         epochs=st.epochs + float(info[1]) / self.K)
        self.store(nxt, self.combine(certs))
        return nxt

    def measure(self, st) -> dict:
        self.ensure_certified(st)   # a warm start's first state
        return {"objective": st.primal, "dual_objective": st.dual, "duality_gap": st.primal - st.dual,
                "epochs": st.epochs, "visits": float(st.visits)}

    def certified_now(self, st) -> bool:
        """Every round certifies its own iterate; a warm start's first state is certified here, on demand."""
        self.ensure_certified(st)
        return True

    def solution(self, st, status) -> Solution:
        return Solution(w=st.w.copy(), status=status, certificate=self.gap_certificate(st), dual={"a": st.a},
                        info={**compiled_info(self.resolved_backend), "shrinking": self.shrinking, "epochs": st.epochs,
                              "cocoa": self.cocoa_info()})
