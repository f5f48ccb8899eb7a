"""CoCoA+ for ``dual-cd`` on a row-chunked ``dask.array`` (the card's ``dask`` variant).

Papers: Ma, Smith, Jaggi, Jordan, Richtárik & Takáč, *Adding vs. averaging in distributed primal-dual optimization*
(ICML 2015), Algorithm 1; Smith, Forte, Ma, Takáč, Jordan & Jaggi, *CoCoA: a general framework for
communication-efficient distributed optimization* (JMLR 2018), Algorithm 1; the local solver is Hsieh et al.'s dual
coordinate round (ICML 2008, Alg. 1 with the shrinking of §3.2). The rounds, the blocks and the aggregation are those
of :mod:`marginkit.plans.common.cocoa`; this module gives them the soft-margin SVM without bias, the box dual of
:mod:`.svm_coordinate` (no ``λn`` normalisation: ``A α = Σ_i α_i y_i x_i``)

    max_{0 <= a_i <= C_i}  D(a) = 1ᵀa − ½||w(a)||²,      w(a) = Σ_i a_i y_i x_i.

Block ``k`` runs ``local_epochs`` (H) epochs of the dual coordinate round on its subproblem
``max_{0 <= a_[k] + Δ <= C_[k]} 1ᵀΔ − wᵀ(A_k Δ) − (σ'/2)||A_k Δ||²`` (Ma et al.'s ``G_k^{σ'}`` in our units, constants
dropped): the exact coordinate maximiser is ``Δ_i ← clip(a_i + Δ_i − G/(σ'||x_i||²), 0, C_i) − a_i`` with
``G = y_i x_iᵀ(w + σ' A_k Δ) − 1``, which is the round run unchanged in the variables ``b = σ'(a_[k] + Δ)`` (box
``σ'C_i``, curvature ``||x_i||²``): its ``G`` is the one above and its step ``δb = σ'δΔ``, the scale invariance of
``dual-cd``. Both aggregations converge for any Θ-approximate local solver (O(1/T) rounds for the hinge loss, whose
conjugate is not strongly convex; the convergence theorems of both papers).

**Certificate** (unchanged from ``dual-cd``): the duality gap ``P(w) − D(a)`` with ``P(w) = ½||w||² + Σ C_i max(0,
1 − y_i x_iᵀw)``; each block returns ``Σ_{P_k} C_i hinge_i`` and ``Σ_{P_k} a_i`` (:func:`block_certificate`, one pass
over the block in storage order, in the round's own graph). ``optimal`` when ``(P − D)/D <= tol`` with ``D > 0``.
``a`` stays on the workers (``Result.dual["a"]`` is the dask vector); ``X.compute()`` never happens.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import dask
import dask.array as da
import numpy as np

from ...core.params import Boolean
from ...core.solution import Solution
from ...core.validation import ProblemError
from ...core.warmstart import dual_warm_value, parse_warm_start
from ..common.cocoa import CoCoAConfig, CoCoAPlan, CoCoAState, block_matvec, block_sq_norms
from ..common.numba_rows import COMPILED, compiled_info
from .gap import DualityGapPlan


def block_certificate(Xb, ab, yb, boxb, w):
    """``[Σ_{P_k} C_i max(0, 1 − y_i x_iᵀw), Σ_{P_k} a_i]`` (one pass over the block in storage order)."""
    yb = np.asarray(yb, dtype=np.float64)
    hinge = np.maximum(0.0, 1.0 - yb * block_matvec(Xb, w))
    return np.array([float(np.asarray(boxb, dtype=np.float64) @ hinge), float(np.sum(ab))])


class CoCoAPlus(CoCoAPlan, DualityGapPlan):
    """``dual-cd`` on a row-chunked dask ``X``: CoCoA+ (Ma et al. 2015, Alg. 1; Smith et al. 2018) with the existing
    dual coordinate round as the local solver on every row chunk (see the module docstring). Options:
    ``local_epochs`` (H, epochs of the local round per communication round), ``aggregation`` (``"add"``: CoCoA+,
    ``γ = 1``, ``σ' = K``; ``"average"``: CoCoA, ``γ = 1/K``, ``σ' = 1``), ``shrinking`` and ``compiled`` as for
    ``dual-cd`` (applied inside each local round). One iteration = one communication round.

    The engine runs it for ``dual-cd`` on dask data (the registry card's variant for dask)."""

    name = "dual-cd"

    @dataclass(frozen=True)
    class Config(CoCoAConfig):
        shrinking: bool = field(default=True, metadata={"doc": "Hsieh et al. §3.2, inside a local round"})
        compiled: bool | str = field(
            default="auto",
            metadata={"doc": 'the local round compiled by numba (True; "auto": when installed) or in Python'})
        constraints: ClassVar[dict] = {**CoCoAConfig.constraints, "shrinking": [Boolean()], "compiled": COMPILED}

    # the block functions of a round (module level: they pickle by reference); the margin form of ``dykstra`` and
    # ``dykstra-accelerated`` (:mod:`marginkit.plans.raj_bach.cocoa_margin`) has its own
    cert_fn = staticmethod(block_certificate)

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

    def store(self, st, sums) -> None:
        """``P(w) = ½||w||² + Σ C_i hinge_i`` and ``D(a) = Σ a_i − ½||w||²`` from the blocks' sums."""
        half = 0.5 * float(st.w @ st.w)
        st.primal, st.dual, st.checked = half + float(sums[0]), float(sums[1]) - half, st.t

    # hooks -------------------------------------------------------------------------------------------------
    def init(self, rng, warm_start, budget=None):
        a = self.start_a(warm_start)
        root = int(rng.integers(1, 2 ** 62))
        if warm_start is None:
            st = CoCoAState(t=0, a=a, w=np.zeros(self.d), root=root)
            st.primal, st.dual, st.checked = self.box_total, 0.0, 0   # w = 0: P = Σ C_i, D = 0
            return st
        return CoCoAState(t=0, a=a, w=np.asarray(self.signed_sum(a), dtype=np.float64), root=root)

    def measure(self, st) -> dict:
        self.ensure_certified(st)   # a warm start's first state
        return {"objective": st.primal, "dual_objective": st.dual, "duality_gap": st.primal - st.dual,
                "epochs": st.epochs, "visits": float(st.visits)}

    def solution(self, st, status) -> Solution:
        return Solution(w=st.w.copy(), status=status, certificate=self.gap_certificate(st), dual={"a": st.a},
                        info={**compiled_info(self.resolved_backend), "shrinking": self.shrinking, "epochs": st.epochs,
                              "cocoa": self.cocoa_info()})
