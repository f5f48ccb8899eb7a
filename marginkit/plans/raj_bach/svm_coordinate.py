"""Dual coordinate descent for the soft-margin SVM without bias (``dual-cd``).

Papers: Raj & Bach, *Explicit regularization of stochastic gradient methods through duality* (AISTATS 2021),
Algorithm 1 and App. C (randomized dual coordinate ascent = SDCA of Shalev-Shwartz & Zhang 2013, applied here
to the hinge loss), which is exactly the dual coordinate descent of Hsieh, Chang, Lin, Keerthi &
Sundararajan, *A dual coordinate descent method for large-scale linear SVM* (ICML 2008), Algorithm 1, with
the shrinking of their §3.2 (the algorithm inside liblinear / scikit-learn's ``LinearSVC``).

The problem ``min ½||w||² + C Σ max(0, 1 − y_i x_iᵀw)`` has the dual box QP

    max_{0 <= a <= C}  D(a) = 1ᵀa − ½||w(a)||²,      w(a) = Σ_i a_i y_i x_i,

and maximising ``D`` exactly in one coordinate (Hsieh et al. eqs. (4)–(5); Raj–Bach's proximal coordinate
step with ``Π_Y`` the hinge's box) is

    G = y_i x_iᵀw − 1,      a_i ← clip(a_i − G/Q_ii, 0, C),      w ← w + (a_i⁺ − a_i) y_i x_i,

with ``Q_ii = ||x_i||²`` (a zero row has ``G = −1`` and goes straight to ``a_i = C``). Each update reads row
``i`` twice (a dot product and an axpy); ``w`` is kept in sync with ``a`` so ``X`` is never multiplied as a
whole inside an epoch.

Resolved here (each once):

* **One run-loop iteration = one epoch**: a fresh random permutation of the active coordinates (sampling
  without replacement, as Hsieh et al. and liblinear; Raj–Bach's analysis samples with replacement, which is
  slower in practice and has the same fixed point). The permutation is drawn from the run's ``seed``.
* **Shrinking** (Hsieh et al. §3.2): a coordinate at a bound whose gradient points out of the box by more than
  the previous epoch's extreme projected gradient (``M̄``/``m̄``) is dropped from the active set; when the
  projected-gradient range on the active set falls below ``eps_pg`` the full set is restored (the paper's
  safeguard), so the fixed point and the certificate are those of the full problem. ``shrinking=False``
  visits every coordinate in every epoch.
* **Certificate** (stop rule): the duality gap ``P(w) − D(a)``, where ``a ∈ [0, C]^n`` always holds, so
  ``D(a) <= P* <= P(w)``; ``optimal`` when ``P(w) − D(a) <= tol · max(1, D(a))``, which implies
  ``(P(w) − P*)/max(1, P*) <= tol``. ``P(w)`` costs one product with ``X``; it is computed only when the
  epoch's projected-gradient range over the full set is below ``eps_pg`` (liblinear's own stop test, free
  during the epoch), and ``eps_pg`` is divided by 4 after every check that does not certify ``tol``; the
  projected gradient tends to 0, so a certificate is always reached.
* **Compiled loop**: with numba installed the epoch is an ``@njit`` loop; otherwise the same function runs as
  plain Python with NumPy row operations. Dense rows use BLAS ``ddot`` (the same SciPy routine in both
  engines); sparse dot products and every update are sequential loops whose NumPy counterpart (``cumsum``,
  element-wise updates) performs the same floating-point operations in the same order, so for a seed both
  engines give the same iterates (checked in ``tests/test_svm_coordinate.py``). Dense ``X`` is read row by
  row: a Fortran-ordered array is copied once to C order; sparse ``X`` stays CSR and is never copied.
* **Memory access** (what makes an epoch cost about two mat-vecs, not twenty): indices are cast to unsigned
  inside the loops (numba then drops its negative-index test), and the next sparse rows are prefetched, since
  a random visiting order makes every row a cache miss.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.linalg import blas as _blas

from ...core.validation import ProblemError, check_bool
from ...core.linalg import row_norms

from ...engine.runloop import IterationPlan
from ...core.solution import Solution

try:  # numba is optional (``pip install marginkit[fast]``)
    import numba as _numba
except ImportError:  # pragma: no cover - exercised by the engine="numpy" tests
    _numba = None

RB = "Raj & Bach (2021), App. C; Hsieh et al. (2008)"
PG_EPS0 = 1.0        # first projected-gradient threshold for a certificate check (liblinear's default is 0.1)
PG_EPS_DECAY = 0.25  # after a check that does not certify tol
PG_ZERO = 1e-12      # |projected gradient| below this: no update (liblinear's test)
PREFETCH_AHEAD = 4   # sparse rows whose memory is requested ahead of use (compiled engine only)


# epoch kernels: the same source runs compiled (numba) or as plain Python over NumPy rows ---------------
def _dense_dot_py(X, i, w):
    return _blas.ddot(X[i], w)  # the BLAS routine numba's np.dot calls (scipy.linalg.cython_blas)


def _dense_axpy_py(c, X, i, w):
    w += c * X[i]


def _sparse_dot_py(data, indices, start, end, w):
    if end == start:
        return 0.0
    return float(np.cumsum(data[start:end] * w[indices[start:end]])[-1])


def _sparse_axpy_py(c, data, indices, start, end, w):
    w[indices[start:end]] += c * data[start:end]


def _dense_dot_nb(X, i, w):
    return np.dot(X[i], w)  # BLAS ddot of scipy.linalg.cython_blas: vectorised (a loop is 1.5x slower)


def _dense_axpy_nb(c, X, i, w):
    xi = X[i]
    for k in range(xi.shape[0]):
        w[k] += c * xi[k]


def _sparse_dot_nb(data, indices, start, end, w):
    s = 0.0
    for k in range(start, end):
        s += data[k] * w[np.uint64(indices[k])]  # unsigned: no negative-index wraparound test (1.5x)
    return s


def _sparse_axpy_nb(c, data, indices, start, end, w):
    for k in range(start, end):
        w[np.uint64(indices[k])] += c * data[k]


def _no_prefetch(arr, i):
    pass


def _prefetch_sparse_nb(data, indices, indptr, y, a, qii, order, k):
    """Request the memory of the row visited ``PREFETCH_AHEAD`` updates from now: in random order every sparse
    row is a cache miss, and without this the CPU waits on each one in turn (measured 1.3-1.7x on a9a-like
    data). Dense rows are long enough for the hardware prefetcher, and a software hint there costs (1.6x)."""
    m = order.shape[0]
    if k + 2 * PREFETCH_AHEAD < m:
        _prefetch(indptr, order[k + 2 * PREFETCH_AHEAD])
    if k + PREFETCH_AHEAD < m:
        i = np.uint64(order[k + PREFETCH_AHEAD])
        s, e = indptr[i], indptr[i + np.uint64(1)]
        for j in range(s, e, 8):
            _prefetch(data, j)
        if e > s:
            _prefetch(data, e - 1)
        for j in range(s, e, 16):
            _prefetch(indices, j)
        _prefetch(y, i)
        _prefetch(a, i)
        _prefetch(qii, i)


def _prefetch_dense_py(X, y, a, qii, order, k):
    pass


def _prefetch_sparse_py(data, indices, indptr, y, a, qii, order, k):
    pass


def _coordinate_update(i, G, a, y, qii, C, pg_max_old, pg_min_old):
    """Projected gradient and new value of ``a_i`` (Hsieh et al. Alg. 1 with the shrinking test of §3.2).
    Returns ``(keep, pg, new_a)``; ``keep = False`` shrinks the coordinate."""
    ai = a[i]
    pg = 0.0
    if ai == 0.0:
        if G > pg_max_old:
            return False, 0.0, ai
        if G < 0.0:
            pg = G
    elif ai == C:
        if G < pg_min_old:
            return False, 0.0, ai
        if G > 0.0:
            pg = G
    else:
        pg = G
    if abs(pg) <= PG_ZERO:
        return True, pg, ai
    q = qii[i]
    new = C if q <= 0.0 else min(max(ai - G / q, 0.0), C)
    return True, pg, new


def _make_epochs(dense_dot, dense_axpy, sparse_dot, sparse_axpy, update, prefetch_dense, prefetch_sparse, jit):
    def epoch_dense(X, y, a, w, qii, C, order, pg_max_old, pg_min_old, keep):
        pg_max, pg_min = -np.inf, np.inf
        for k in range(order.shape[0]):
            prefetch_dense(X, y, a, qii, order, k)
            i = np.uint64(order[k])  # unsigned indices skip numba's negative-index test
            G = y[i] * dense_dot(X, i, w) - 1.0
            ok, pg, new = update(i, G, a, y, qii, C, pg_max_old, pg_min_old)
            keep[k] = ok
            if not ok:
                continue
            pg_max = max(pg_max, pg)
            pg_min = min(pg_min, pg)
            if new != a[i]:
                dense_axpy((new - a[i]) * y[i], X, i, w)
                a[i] = new
        return pg_max, pg_min

    def epoch_sparse(data, indices, indptr, y, a, w, qii, C, order, pg_max_old, pg_min_old, keep):
        pg_max, pg_min = -np.inf, np.inf
        for k in range(order.shape[0]):
            prefetch_sparse(data, indices, indptr, y, a, qii, order, k)
            i = np.uint64(order[k])  # unsigned indices skip numba's negative-index test
            s, e = np.uint64(indptr[i]), np.uint64(indptr[i + np.uint64(1)])
            G = y[i] * sparse_dot(data, indices, s, e, w) - 1.0
            ok, pg, new = update(i, G, a, y, qii, C, pg_max_old, pg_min_old)
            keep[k] = ok
            if not ok:
                continue
            pg_max = max(pg_max, pg)
            pg_min = min(pg_min, pg)
            if new != a[i]:
                sparse_axpy((new - a[i]) * y[i], data, indices, s, e, w)
                a[i] = new
        return pg_max, pg_min

    if jit is None:
        return epoch_dense, epoch_sparse
    return jit(epoch_dense), jit(epoch_sparse)


EPOCHS_PY = _make_epochs(_dense_dot_py, _dense_axpy_py, _sparse_dot_py, _sparse_axpy_py, _coordinate_update,
                         _prefetch_dense_py, _prefetch_sparse_py, None)
_EPOCHS_NB = None


def _llvm_prefetch():
    """``_prefetch(arr, i)``: LLVM's prefetch hint for ``&arr.flat[i]`` (a no-op for the results)."""
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic
    def prefetch(typingctx, arr, idx):
        def codegen(context, builder, signature, args):
            aryty = signature.args[0]
            ary = context.make_array(aryty)(context, builder, args[0])
            data = builder.bitcast(ary.data, ir.PointerType(ir.IntType(8)))
            itemsize = context.get_constant(types.intp, context.get_abi_sizeof(context.get_data_type(aryty.dtype)))
            offset = builder.mul(context.cast(builder, args[1], signature.args[1], types.intp), itemsize)
            ptr = builder.gep(data, [offset])
            i32 = ir.IntType(32)
            fnty = ir.FunctionType(ir.VoidType(), [ir.PointerType(ir.IntType(8)), i32, i32, i32])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
            builder.call(fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
            return context.get_dummy_value()
        return types.void(arr, idx), codegen
    return prefetch


def _numba_epochs():
    """The compiled kernels (built on first use; ``cache=True`` keeps them across processes). If this numba
    cannot lower the prefetch hint, the kernels are compiled without it (same results, slower)."""
    global _EPOCHS_NB, _prefetch
    if _EPOCHS_NB is None:
        nj = _numba.njit(cache=True, nogil=True)
        try:
            _prefetch = _llvm_prefetch()
            pf_sparse = nj(_prefetch_sparse_nb)
            probe, ptr = np.zeros(2), np.zeros(3, np.int32)
            pf_sparse(probe, ptr, ptr, probe, probe, probe, np.zeros(9, np.int64), 0)
        except Exception:  # noqa: BLE001 - a numba/LLVM without this intrinsic
            _prefetch = _numba.njit(_no_prefetch)
            pf_sparse = nj(_prefetch_sparse_py)
        pf_dense = nj(_prefetch_dense_py)
        _EPOCHS_NB = _make_epochs(nj(_dense_dot_nb), nj(_dense_axpy_nb), nj(_sparse_dot_nb), nj(_sparse_axpy_nb),
                                  nj(_coordinate_update), pf_dense, pf_sparse, nj)
    return _EPOCHS_NB


_prefetch = None  # set by _numba_epochs


def numba_available() -> bool:
    return _numba is not None


# the plan ------------------------------------------------------------------------------------------------
def supports_dual_cd(problem):
    if getattr(problem, "kernel", None) is not None:
        return False, "dual coordinate descent keeps the primal w = Σ a_i y_i x_i: linear problems only (no kernel)"
    if getattr(problem, "bias", False):
        return False, ("the box dual 0 <= a <= C has no constraint yᵀa = 0: bias=False only "
                       "(use 'fista' or 'cvxpy' with a bias)")
    return True, ""


@dataclass
class DualCDState:
    t: int
    a: np.ndarray            # dual iterate in [0, C]^n
    w: np.ndarray            # Σ a_i y_i x_i, kept in sync with a
    active: np.ndarray       # indices visited by the next epoch (shrinking)
    pg_max: float = np.inf   # extreme projected gradients of the last epoch (M̄, m̄ of Hsieh et al. §3.2)
    pg_min: float = -np.inf
    pg_range: float = np.inf
    eps_pg: float = PG_EPS0  # projected-gradient range below which the duality gap is computed
    primal: float = np.nan   # P(w) and D(a) at the last certificate check (epoch ``checked``)
    dual: float = np.nan
    checked: int = -1


class DualCoordinateDescent(IterationPlan):
    """Randomized dual coordinate descent on the box dual of the soft-margin SVM without bias (see the module
    docstring). Parameters: ``shrinking`` (default True) and ``engine`` (``"auto"``: numba when installed,
    ``"numba"``, or ``"numpy"``: the same loop in plain Python, slow, for checking).

    ``step`` updates the state's ``a`` and ``w`` in place: late epochs visit only the few coordinates left in
    the active set, and copying the O(n) dual vector every epoch would cost more than the epoch itself. States
    yielded by ``plan.iterate`` therefore share these two arrays; copy them to keep a history."""

    name = "dual-cd"
    default_max_iter = 1000
    default_tol = 1e-6
    log_columns = ("objective", "dual_objective", "duality_gap")

    def __init__(self, form, shrinking: bool = True, engine: str = "auto"):
        super().__init__(form)
        self.shrinking = check_bool(shrinking, "shrinking")
        if engine not in ("auto", "numba", "numpy"):
            raise ProblemError(f"engine must be 'auto', 'numba' or 'numpy'; got {engine!r}")
        if engine == "numba" and _numba is None:
            raise ProblemError("engine='numba' needs the numba package: pip install 'marginkit[fast]'")
        self.engine = "numba" if engine == "auto" and _numba is not None else ("numpy" if engine == "auto" else engine)
        self.C = float(form.C)
        self.y = np.ascontiguousarray(form.y, dtype=np.float64)
        self.n, self.d = form.X.shape
        X = form.X
        if sp.issparse(X):
            X = X.tocsr()  # a no-op for the validated problems (always CSR, canonical)
            if not X.has_canonical_format:
                X = X.copy()
                X.sum_duplicates()
            self.csr = (X.data, X.indices, X.indptr)  # SciPy's own int32/int64 arrays: no copy
            self.X = None
        else:
            self.X = X if X.flags.c_contiguous else np.ascontiguousarray(X)
            self.csr = None
        self.Xop = X
        self.qii = row_norms(X, squared=True)
        dense, sparse = _numba_epochs() if self.engine == "numba" else EPOCHS_PY
        self._epoch = dense if self.csr is None else sparse

    # helpers ---------------------------------------------------------------------------------------------
    def margins(self, w) -> np.ndarray:
        """``y_i x_iᵀw`` (one product with X)."""
        return self.y * np.asarray(self.Xop @ w).ravel()

    def values(self, a, w):
        """``(P(w), D(a))``: primal ``½||w||² + C Σ hinge`` and dual ``1ᵀa − ½||w||²``."""
        half = 0.5 * float(w @ w)
        hinge = float(np.maximum(0.0, 1.0 - self.margins(w)).sum())
        return half + self.C * hinge, float(a.sum()) - half

    def certify(self, st) -> None:
        st.primal, st.dual = self.values(st.a, st.w)
        st.checked = st.t

    def relative_gap(self, st) -> float:
        return (st.primal - st.dual) / max(1.0, st.dual)

    def start_a(self, warm_start):
        if warm_start is None:
            return np.zeros(self.n)
        dual = getattr(warm_start, "dual", None)
        if isinstance(dual, dict) and "a" in dual:
            a = np.array(dual["a"], dtype=float)
        elif dual is not None:
            raise ProblemError("warm_start: this result carries no dual iterate a (run 'dual-cd' or 'cvxpy' first)")
        else:
            a = np.array(warm_start, dtype=float).ravel()
        if a.shape != (self.n,) or not np.all(np.isfinite(a)):
            raise ProblemError(f"warm_start must be a finite dual vector a of length {self.n}; got shape {a.shape}")
        return np.clip(a, 0.0, self.C)

    # hooks -------------------------------------------------------------------------------------------------
    def init(self, rng, warm_start, budget=None):
        self.rng = rng
        a = self.start_a(warm_start)
        w = np.asarray(self.Xop.T @ (a * self.y)).ravel() if a.any() else np.zeros(self.d)
        st = DualCDState(t=0, a=a, w=w, active=np.arange(self.n, dtype=np.int64))
        self.certify(st)
        return st

    def step(self, st):
        full = st.active.shape[0] == self.n
        idx = self.rng.permutation(st.active.shape[0])
        order = st.active[idx]
        keep = np.empty(order.shape[0], dtype=np.bool_)  # the epoch writes every entry
        old_max, old_min = (st.pg_max, st.pg_min) if self.shrinking else (np.inf, -np.inf)
        a, w = st.a, st.w  # updated in place (see the class docstring)
        if self.csr is None:
            pg_max, pg_min = self._epoch(self.X, self.y, a, w, self.qii, self.C, order, old_max, old_min, keep)
        else:
            data, indices, indptr = self.csr
            pg_max, pg_min = self._epoch(data, indices, indptr, self.y, a, w, self.qii, self.C, order,
                                         old_max, old_min, keep)
        pg_max, pg_min = float(pg_max), float(pg_min)
        pg_range = pg_max - pg_min if pg_max >= pg_min else 0.0
        active = st.active
        if not keep.all():  # shrink, keeping the active indices in increasing order (memory order)
            kept = np.empty(keep.shape[0], dtype=np.bool_)
            kept[idx] = keep
            active = st.active[kept]
        nxt = DualCDState(t=st.t + 1, a=a, w=w, active=active,
                          pg_max=pg_max if pg_max > 0 else np.inf, pg_min=pg_min if pg_min < 0 else -np.inf,
                          pg_range=pg_range, eps_pg=st.eps_pg, primal=st.primal, dual=st.dual, checked=st.checked)
        if pg_range <= st.eps_pg:
            if not full:  # Hsieh et al. §3.2: converged on the shrunk set; restore the full set and go on
                nxt.active, nxt.pg_max, nxt.pg_min = np.arange(self.n, dtype=np.int64), np.inf, -np.inf
            else:
                self.certify(nxt)
                if self.relative_gap(nxt) > self.tol:
                    nxt.eps_pg = min(st.eps_pg, pg_range) * PG_EPS_DECAY
        return nxt

    def measure(self, st) -> dict:
        if st.checked != st.t:
            primal, dual = self.values(st.a, st.w)
        else:
            primal, dual = st.primal, st.dual
        return {"objective": primal, "dual_objective": dual, "duality_gap": primal - dual,
                "active": float(st.active.shape[0]), "pg_range": st.pg_range}

    def stop(self, st, budget=None):
        if st.checked == st.t and self.relative_gap(st) <= budget.tol:
            return "optimal"
        return None

    def snapshot(self, st):
        return st.w.copy()

    def solution(self, st, status) -> Solution:
        if st.checked != st.t:
            self.certify(st)
        gap = st.primal - st.dual
        cert = {"primal": st.primal, "dual": st.dual, "duality_gap": gap, "relative_gap": self.relative_gap(st),
                "max_violation": 0.0}
        return Solution(w=st.w.copy(), status=status, certificate=cert, dual={"a": st.a.copy()},
                        info={"engine": self.engine, "shrinking": self.shrinking})
