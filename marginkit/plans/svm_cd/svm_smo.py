"""Sequential minimal optimisation on a cached Gram matrix for the soft-margin SVM with a free offset (``smo``).

Papers: J. C. Platt, *Fast training of support vector machines using sequential minimal optimization* (Advances in
Kernel Methods, MIT Press, 1998: the two-multiplier step that keeps ``yᵀa = 0``); S. S. Keerthi, S. K. Shevade,
C. Bhattacharyya & K. R. K. Murthy, *Improvements to Platt's SMO algorithm for SVM classifier design* (Neural
Computation 13(3), 2001: the sets ``I_up``/``I_low`` and the maximal violating pair); R.-E. Fan, P.-H. Chen &
C.-J. Lin, *Working set selection using second order information for training support vector machines* (JMLR 6,
2005, §2–3, WSS 2: the second index chosen by the decrease of the objective).

With ``n`` small the ``n × n`` Gram matrix ``K = XXᵀ`` is cheap to form and keep, and with it the whole gradient is
updated in ``O(n)`` per step, so each pair is chosen from every sample (``dual-cd-bias`` reads one row a step and
never the whole gradient). With ``C_i = C·s_i`` the dual is

    min_a  ½ Σ_ij a_i a_j y_i y_j K_ij − 1ᵀa   s.t.  yᵀa = 0,  0 <= a_i <= C_i.

The plan keeps ``f = K(a∘y)`` and ``v = y − f``. A step moves ``a_i`` by ``y_i τ`` and ``a_j`` by ``−y_j τ`` (keeping
``yᵀa``), ``i ∈ I_up`` (``a_i < C_i, y_i = +1`` or ``a_i > 0, y_i = −1``), ``j ∈ I_low`` (the mirror sets); the
objective changes by ``−τ(v_i − v_j) + ½τ² a_ij``, ``a_ij = K_ii + K_jj − 2K_ij``, so ``τ* = (v_i − v_j)/a_ij`` cut to
the room to the bounds, and ``f_k`` moves by ``τ(K_ki − K_kj)``. The pair: ``i = argmax_{I_up} v`` and, among
``t ∈ I_low`` with ``v_t < v_i``, the ``j`` of largest ``(v_i − v_t)²/a_it`` (Fan et al., WSS 2; ``a_it <= 0``, a
duplicate row, counts as ``1e-12``). ``a`` is a KKT point exactly when ``max_{I_up} v <= min_{I_low} v`` (Keerthi et
al.): a round of at most ``n`` steps ends when the difference is below ``eps`` (libsvm's test, here the trigger of a
check).

**Certificate**: ``dual-cd-bias``'s (:func:`.svm_bias.offset_certificate`), from ``w = Xᵀ(a∘y)`` and ``f = Xw``
recomputed from the data at every check: ``P(w, b̂)`` at the best offset and the dual value of ``a`` moved onto
``yᵀa = 0``; ``optimal`` iff ``(P − D)/D <= tol``. A check that fails ``tol`` after a round that met ``eps`` sets
``eps`` below that round's violation (:func:`.svm_bias.next_check_factor`). **Scale**: ``X → cX``, ``C → C/c²`` maps
``K`` to ``c²K`` and each ``τ`` to ``τ/c²``: the same steps up to rounding. **Memory**: ``8n²`` bytes; above
:data:`MAX_SAMPLES` the method is not offered and asking for it is a ``ProblemError`` naming ``dual-cd-bias`` and
``ipm``. A warm start is clipped into the box and moved onto ``yᵀa = 0``. The round is one source, compiled by numba
or run as plain Python (option ``compiled``). Measurements: docs/design/svm_cd.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import scipy.sparse as sp

from ...core.costs import CD_RATE, SMO_STEP
from ...core.solution import Solution
from ...core.validation import ProblemError
from ...core.warmstart import dual_warm_value, parse_warm_start
from ...engine.registry import GRAM_MAX_SAMPLES
from ...engine.runloop import Budget
from ..common.numba_rows import COMPILED, compiled_info, compiled_once, resolve_compiled
from .gap import DualityGapPlan
from .svm_bias import PG_EPS0, next_check_factor, offset_certificate, repair_equality

MAX_SAMPLES = GRAM_MAX_SAMPLES   # the largest n: the Gram matrix is 8n² bytes (the registry's gram_fits)
TINY_CURVATURE = 1e-12   # a_ij at or below 0 (duplicate rows) is taken as this


def smo_round(K, y, box, a, f, steps, eps):
    """Up to ``steps`` pair steps (module docstring) on ``a`` and the scores ``f = K(a∘y)``, in place; returns
    ``(steps done, violation)``: the violation ``max_{I_up} v − min_{I_low} v`` (``v = y − f``) when the round
    stopped, ``<= eps`` if it stopped on it (``-inf`` when one of the sets is empty)."""
    n = a.shape[0]
    done = 0
    violation = np.inf
    while done < steps:
        # i: the most violating index of I_up; the smallest v over I_low, for the stop test
        i = -1
        v_max = -np.inf
        v_min = np.inf
        for k in range(n):
            vk = y[k] - f[k]
            if (y[k] > 0.0 and a[k] < box[k]) or (y[k] < 0.0 and a[k] > 0.0):
                if vk > v_max:
                    v_max = vk
                    i = k
            if (y[k] < 0.0 and a[k] < box[k]) or (y[k] > 0.0 and a[k] > 0.0):
                if vk < v_min:
                    v_min = vk
        violation = v_max - v_min
        if i < 0 or violation <= eps:
            break
        # j: the largest second-order decrease over I_low with v_j < v_i (Fan, Chen & Lin, WSS 2)
        j = -1
        best = 0.0
        kii = K[i, i]
        for k in range(n):
            if (y[k] < 0.0 and a[k] < box[k]) or (y[k] > 0.0 and a[k] > 0.0):
                gap = v_max - (y[k] - f[k])
                if gap > 0.0:
                    curvature = kii + K[k, k] - 2.0 * K[i, k]
                    if curvature <= 0.0:
                        curvature = TINY_CURVATURE
                    gain = gap * gap / curvature
                    if gain > best:
                        best = gain
                        j = k
        if j < 0:
            break
        curvature = kii + K[j, j] - 2.0 * K[i, j]
        if curvature <= 0.0:
            curvature = TINY_CURVATURE
        tau = (v_max - (y[j] - f[j])) / curvature
        room_i = box[i] - a[i] if y[i] > 0.0 else a[i]
        room_j = a[j] if y[j] > 0.0 else box[j] - a[j]
        hit_i = room_i <= tau
        hit_j = room_j <= tau
        if hit_i or hit_j:
            tau = min(room_i, room_j)
        # the two multipliers; one that reaches its bound is put on it exactly
        if hit_i and room_i <= room_j:
            a[i] = box[i] if y[i] > 0.0 else 0.0
        else:
            a[i] += y[i] * tau
        if hit_j and room_j <= room_i:
            a[j] = 0.0 if y[j] > 0.0 else box[j]
        else:
            a[j] -= y[j] * tau
        for k in range(n):
            f[k] += tau * (K[i, k] - K[j, k])
        done += 1
    return done, violation


DENSE_GRAM = 4_000_000   # a CSR X with at most this many entries (n·d) is multiplied as a dense copy


def gram_matrix(X) -> np.ndarray:
    """``XXᵀ`` (float64, C order). A CSR ``X`` of at most :data:`DENSE_GRAM` entries is densified first, so that a
    NumPy array and a CSR matrix holding the same data give the same matrix to the last bit (one BLAS product),
    hence the same steps; a larger CSR ``X`` is multiplied sparse."""
    if sp.issparse(X):
        if X.shape[0] * X.shape[1] <= DENSE_GRAM:
            X = X.toarray()
        else:
            return np.ascontiguousarray((X @ X.T).toarray(), dtype=np.float64)
    X = np.asarray(X, dtype=np.float64)
    return np.ascontiguousarray(X @ X.T)


compiled_smo_round = compiled_once(smo_round)


@dataclass
class SMOState:
    t: int
    a: np.ndarray            # dual iterate in the box, yᵀa = 0 up to rounding
    f: np.ndarray            # the scores K(a∘y) the steps maintain
    tol: float = 0.0
    eps: float = PG_EPS0     # the violation below which a round ends for a check
    violation: float = np.inf   # max_{I_up} v − min_{I_low} v when the last round ended
    steps: int = 0           # pair steps so far
    w: np.ndarray = None     # Xᵀ(a∘y), the primal point of the last check
    primal: float = np.nan   # the certificate at the last check (iteration ``checked``)
    dual: float = np.nan
    b: float = 0.0           # the best offset of w at the last check
    a_cert: np.ndarray = None   # the dual point of the last check's bound (a moved onto yᵀa = 0)
    checked: int = -1
    total_work: float = 0.0  # the steps' and checks' work in the cost model's seconds (core/costs.py; auto's probe)


class PairwiseSMO(DualityGapPlan):
    """SMO with second-order pair selection on the cached Gram matrix, for ``SoftMarginSVM(bias=True)`` with ``n`` up
    to :data:`MAX_SAMPLES` (module docstring). Parameter: ``compiled``. One iteration is a round of at most ``n`` pair
    steps followed by a certificate check."""

    name = "smo"
    default_max_iter = 1000
    log_columns = ("objective", "dual_objective", "duality_gap", "offset")

    @dataclass(frozen=True)
    class Config:
        compiled: bool | str = field(
            default="auto",
            metadata={"doc": 'the round compiled by numba (True; "auto": when installed) or in Python'})
        constraints: ClassVar[dict] = {"compiled": COMPILED}

    def setup(self):
        form = self.form
        if getattr(form, "kernel", None) is not None or not getattr(form, "bias", True):
            raise ProblemError(f"{self.method}: linear SoftMarginSVM with bias=True only (use 'dual-cd' without a "
                               "bias)")
        X = form.X
        self.n, self.d = X.shape
        if self.n > MAX_SAMPLES:   # the registry's requirement (gram_fits) says so first
            raise ProblemError(f"{self.method}: n = {self.n} samples; the n × n Gram matrix is formed up to n = "
                               f"{MAX_SAMPLES}: use 'dual-cd-bias' or 'ipm'")
        self.resolved_backend = resolve_compiled(self.config.compiled, self.method)
        self.round = compiled_smo_round.of(self.resolved_backend)
        self.X = X
        self.y = np.ascontiguousarray(form.y, dtype=np.float64)
        self.box = np.ascontiguousarray(form.box, dtype=np.float64)
        self.K = gram_matrix(X)
        self.nnz = int(X.nnz) if sp.issparse(X) else self.n * self.d
        self.check_work = 2.0 * self.nnz / CD_RATE   # a certificate: two products with X, in the model's seconds
        q = np.diag(self.K)[self.box > 0]
        self.R = float(np.sqrt(max(float(q.max()), 0.0))) if q.size else 0.0

    # certificate ------------------------------------------------------------------------------------------------
    def certify(self, st) -> None:
        """The certificate of ``st`` from the data (``w = Xᵀ(a∘y)``, ``f = Xw``); the steps keep their own scores
        (from ``K``: the same for a NumPy array and a CSR matrix of the same data, so are the steps)."""
        w = np.asarray(self.X.T @ (st.a * self.y)).ravel()
        f = np.asarray(self.X @ w).ravel()
        st.w = w
        st.primal, st.dual, st.b, st.a_cert = offset_certificate(self.y, self.box, self.R, st.a, w, f)
        st.checked = st.t

    def start_a(self, warm_start) -> np.ndarray:
        if warm_start is None:
            return np.zeros(self.n)
        a = np.clip(parse_warm_start(dual_warm_value(warm_start), self.n), 0.0, self.box)
        if a.any():   # onto yᵀa = 0, as the certificate moves a dual point
            f = np.asarray(self.X @ np.asarray(self.X.T @ (a * self.y)).ravel()).ravel()
            a = repair_equality(a, self.y, self.box, f)[0]
        return a

    # hooks ------------------------------------------------------------------------------------------------------
    def init(self, rng, warm_start, budget=None):
        budget = Budget(self.default_max_iter, self.default_tol) if budget is None else budget
        a = self.start_a(warm_start)
        f = self.K @ (a * self.y) if a.any() else np.zeros(self.n)   # the scores the steps keep
        st = SMOState(t=0, a=a, f=f, tol=budget.tol)
        self.certify(st)
        return st

    def step(self, st):
        a, f = st.a.copy(), st.f.copy()   # updated in place by the round
        done, violation = self.round(self.K, self.y, self.box, a, f, self.n, st.eps)
        nxt = SMOState(t=st.t + 1, a=a, f=f, tol=st.tol, eps=st.eps, violation=float(violation),
                       steps=st.steps + int(done),
                       total_work=st.total_work + int(done) * self.n * SMO_STEP + self.check_work)
        self.certify(nxt)
        gap = self.relative_gap(nxt)
        if gap > st.tol and violation <= st.eps:   # the round's stop test passed, the certificate did not: the next
            nxt.eps = max(violation, 0.0) * next_check_factor(gap, st.tol)   # round goes below this violation
        return nxt

    def finite(self, st) -> bool:
        return bool(np.isfinite(st.a).all()) and bool(np.isfinite(st.f).all())

    def measure(self, st) -> dict:
        return {"objective": st.primal, "dual_objective": st.dual, "duality_gap": st.primal - st.dual,
                "offset": st.b, "pg_range": st.violation, "visits": float(st.steps)}

    def solution(self, st, status) -> Solution:
        cert = self.gap_certificate(st)
        cert["max_violation"] = abs(float(self.y @ st.a_cert))   # |yᵀa| of the certified dual point
        return Solution(w=st.w.copy(), b=st.b, status=status, certificate=cert, dual={"a": st.a_cert.copy()},
                        info={**compiled_info(self.resolved_backend), "steps": st.steps})
