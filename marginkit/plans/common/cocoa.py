"""CoCoA+ on a row-chunked ``dask.array``: the block machinery that ``dual-cd``'s and ``dykstra``'s dask forms share.

Papers: Ma, Smith, Jaggi, Jordan, Richtárik & Takáč, *Adding vs. averaging in distributed primal-dual optimization*
(ICML 2015), Algorithm 1 (CoCoA+) with the data-local quadratic subproblem ``G_k^{σ'}`` of their §3 and the safe
``σ' = γK`` (their lemma on the safe ``σ'``: ``σ' >= γ max_α ||Aα||² / Σ_k ||A α_[k]||²``, which ``γK`` bounds by
Cauchy–Schwarz); Smith, Forte, Ma, Takáč, Jordan & Jaggi, *CoCoA: a general framework for communication-efficient
distributed optimization* (JMLR 2018), Algorithm 1 with any Θ-approximate local solver (their Assumption 1); Jaggi et
al. (NeurIPS 2014, CoCoA) is the averaging case ``γ = 1/K``, ``σ' = 1``.

Both forms solve a box dual ``max_{0 <= a_i <= C_i} 1ᵀa − ½||w(a)||²``, ``w(a) = w0 + Σ_i a_i y_i x_i`` (the SVM's
with ``w0 = 0``, the margin problem's with ``C_i = +∞`` and ``w0 = θ0``). The rows are split into the K row chunks of
``X``. One round, from the shared ``w`` (a NumPy d-vector) and ``a`` (a dask n-vector chunked like ``X``'s rows,
persisted on the workers):

1. block ``k`` approximately maximises ``G_k^{σ'}(Δ) = 1ᵀΔ − wᵀ(A_k Δ) − (σ'/2)||A_k Δ||²`` over
   ``0 <= a_[k] + Δ <= C_[k]`` (:attr:`CoCoAPlan.local_fn`; by default :func:`local_round`: ``local_epochs`` epochs of
   the dual coordinate round of :mod:`.coordinate_round` run unchanged in the variables ``b = σ'(a_[k] + Δ)``, box
   ``σ'C_i``, its ``w`` started at the shared ``w``: its step is then the subproblem's exact coordinate maximiser);
2. ``a_[k] ← a_[k] + γΔ`` (clipped to the box against rounding); the block returns ``Δw_k = A_k(γΔ)`` computed from its
   rows in storage order, so ``w = w0 + Σ_i a_i y_i x_i`` holds up to one rounding per round;
3. ``w ← w + Σ_k Δw_k`` (the reduce step: one task sums the K d-vectors in block order), then the K certificate
   passes at the new ``(a, w)`` in the same dask graph (:attr:`CoCoAPlan.cert_fn`, a few scalars per block), so one
   round is one scheduler round trip and only d-vectors and scalars reach the driver.

``aggregation="add"`` (CoCoA+, ``γ = 1``, ``σ' = K``) or ``"average"`` (CoCoA, ``γ = 1/K``, ``σ' = 1``); both are
monotone in the dual (``D(a + γΔ) >= (1 − γ)D(a) + γ Σ_k G_k^{σ'}(Δ_[k])`` with a safe ``σ'``), and the number of rounds
depends on the number of row chunks K, not on the number of workers that run them.

The local work runs on each block as NumPy/SciPy (dense C-ordered rows or CSR, ``X.to_delayed()``, never
``X.compute()``), compiled by numba or in Python, through the threaded scheduler or a ``distributed.Client`` alike (the
block functions are module-level, pickled by reference). Each block's visiting order comes from a seed drawn per
round from the run's ``seed``: a run is reproducible for a given seed and chunking. The plans:
:class:`marginkit.plans.svm_cd.cocoa.CoCoAPlus` and :mod:`marginkit.plans.raj_bach.cocoa_margin`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import dask
import dask.array as da
import numpy as np
import scipy.sparse as sp

from ...core.params import Interval, Options
from ...engine.runloop import IterationPlan
from .coordinate_round import compiled_round, dcd_round
from .numba_rows import kernel_rows, resolve_compiled, row_storage

AGGREGATION = Options("add", "average")
INFO = 2   # entries after Δw_k in a block's reply: coordinates visited, epochs run


# block functions (run on the workers; module level so that they pickle by reference) ------------------------
def block_rows(Xb):
    """``(X, data, indices, indptr)`` as the round reads them: dense C-ordered float64 rows (CSR unused) or CSR."""
    Xb = sp.csr_matrix(Xb, dtype=np.float64) if sp.issparse(Xb) else np.asarray(Xb, dtype=np.float64)
    return kernel_rows(*row_storage(Xb)[:2])


def block_rmatvec(Xb, q):
    """``X_kᵀ q`` as a float64 d-vector (dense or sparse block)."""
    return np.asarray(Xb.T @ q, dtype=np.float64).ravel()


def block_matvec(Xb, w):
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
    ``rounds = (dcd_round, compiled_round or None)``: the round of :mod:`.coordinate_round` in Python, and its
    compiled form unless the plan runs ``compiled=False``."""
    py_round, compiled = rounds
    fn = compiled() if compiled is not None else py_round
    ab = np.asarray(ab, dtype=np.float64)
    yb = np.ascontiguousarray(yb, dtype=np.float64)
    boxb = np.asarray(boxb, dtype=np.float64)
    rows = block_rows(Xb)
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
    dw = block_rmatvec(Xb, yb * (a_new - ab))
    return a_new, np.concatenate([dw, [float(visits), float(ran)]])


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
    w: np.ndarray            # w0 + Σ a_i y_i x_i (NumPy, the driver's copy)
    root: int                # the run's seed for the per-round, per-block visiting orders
    visits: int = 0          # coordinate visits on all blocks so far
    epochs: float = 0.0      # local epochs run so far (mean over blocks)
    primal: float = np.nan   # the certificate's primal and dual values at iteration ``checked``
    dual: float = np.nan
    checked: int = -1


@dataclass(frozen=True)
class CoCoAConfig:
    """The options every CoCoA+ plan has first (a plan's ``Config`` derives from it and adds its local solver's)."""
    local_epochs: int = field(default=1, metadata={"doc": "H: local epochs per round"})
    aggregation: str = field(default="add", metadata={"doc": '"add" (CoCoA+) or "average" (CoCoA)'})
    constraints: ClassVar[dict] = {"local_epochs": [Interval(int, 1, None)], "aggregation": [AGGREGATION]}


class CoCoAPlan(IterationPlan):
    """The CoCoA+ driver over a row-chunked dask ``X`` (module docstring): the blocks, one round as one dask graph, the
    certificate passes. One iteration = one communication round. A plan gives ``Config`` (from :class:`CoCoAConfig`,
    with ``compiled``), ``setup`` (calling :meth:`setup_blocks`, then setting ``data = (X, y, C, curvatures)`` and
    ``box``), ``init``, :attr:`cert_fn`, :meth:`store` (its certificate from the blocks' combined replies) and the
    hooks it reports with; :attr:`local_fn` and :meth:`local_options` choose the local solver."""

    local_fn = staticmethod(local_round)   # a block's local solver (module level: pickled by reference)
    cert_fn = None                         # a block's certificate pass: (Xb, ab, yb, boxb, w) -> array of scalars
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

    def blocks(self):
        """``(X, y, C, curvatures)`` block by block: K delayed row chunks each (references to persisted keys)."""
        return [list(v.to_delayed().ravel()) for v in self.data]

    def certify(self, st) -> None:
        """The certificate of ``st`` from the blocks' replies (:attr:`cert_fn`, combined and stored)."""
        ab = st.a.to_delayed().ravel()
        Xb, yb, boxb, _ = self.blocks()
        parts = [dask.delayed(self.cert_fn, pure=False)(x, a, y, c, st.w)
                 for x, a, y, c in zip(Xb, ab, yb, boxb)]
        self.store(st, self.combine(self.bk.compute(*parts)))

    def ensure_certified(self, st) -> None:
        """Compute the certificate of this iterate (:meth:`certify`) if the state does not hold it yet."""
        if st.checked != st.t:
            self.certify(st)

    def certified_now(self, st) -> bool:
        """Every round certifies its own iterate; a warm start's first state is certified here, on demand."""
        self.ensure_certified(st)
        return True

    def combine(self, parts):
        """The blocks' certificate replies combined on the driver (here: summed, in block order)."""
        return np.sum(parts, axis=0)

    def store(self, st, combined) -> None:
        """Set the certificate of ``st`` (``primal``, ``dual``, ``checked``) from the combined replies."""
        raise NotImplementedError

    def local_options(self) -> tuple:
        """The arguments of :attr:`local_fn` after the block's seed."""
        return self.sigma, self.gamma, self.local_epochs, self.shrinking, self.rounds

    def signed_sum(self, a) -> np.ndarray:
        """``Σ_i a_i y_i x_i`` of a dask n-vector ``a``, block by block (one d-vector per block, summed)."""
        Xb, yb, _, _ = self.blocks()
        parts = [dask.delayed(block_rmatvec)(x, dask.delayed(np.multiply)(y, v))
                 for x, y, v in zip(Xb, yb, a.to_delayed().ravel())]
        return np.sum(self.bk.compute(*parts), axis=0)

    def cocoa_info(self) -> dict:
        return {"aggregation": self.aggregation, "blocks": self.K, "sigma": self.sigma, "gamma": self.gamma,
                "local_epochs": self.local_epochs}

    def step(self, st):
        """One round as ONE dask graph: the K local rounds, the reduce step ``w + Σ_k Δw_k`` (one task, block order)
        and the K certificate passes at the new ``(a, w)``; ``a`` is persisted where it was computed and only ``w``
        and ``K`` small replies come back (one scheduler round trip)."""
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
        # a stays where it was computed; w, 2 counters and the K replies come to the driver (a lost cluster: the
        # backend's SolverFailure, which ends the run with solver_error)
        a_new, total, *certs = self.bk.persist_all(a_new, total, *certs)
        (w, info), *certs = self.bk.compute(total, *certs)
        self.bk.replicate(a_new)   # a lost worker then costs one round, not the lineage of every round so far
        nxt = self.State(t=st.t + 1, a=a_new, w=w, root=st.root, visits=st.visits + int(info[0]),
                         epochs=st.epochs + float(info[1]) / self.K)
        self.store(nxt, self.combine(certs))
        return nxt
