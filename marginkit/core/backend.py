"""Where a problem's arrays live, and the few operations a plan needs to compute there (issue 13's operator seam).

A problem keeps the user's ``X`` in the user's array library; its :class:`Backend` (``problem.backend``) is chosen
once, from ``X``, at construction:

* :data:`NUMPY` -- NumPy arrays and ``scipy.sparse`` matrices (everything that was supported before; the plans'
  NumPy code runs unchanged, the backend's functions are then plain NumPy calls);
* :class:`ArrayAPIBackend` -- any other array-API library (PyTorch on CPU or GPU, CuPy, ``array-api-strict``), through
  ``array_api_compat.array_namespace``: every length-n and length-d vector stays in that namespace and on ``X``'s
  device, only the scalars of the stop tests and of the trace come to the host (:meth:`Backend.float`);
* :class:`DaskBackend` -- a row-chunked ``dask.array``: length-n vectors are dask arrays chunked like ``X`` (persisted
  after each product, so the task graph never grows across iterations), length-d vectors are NumPy (they are small),
  and ``X.T @ q`` is computed to NumPy -- the pattern of dask-glm's algorithms. ``X`` itself is never computed.

So a plan writes its vector algebra with ``bk.xp`` for the n-side and ``bk.xd`` for the d-side (the same namespace
except on dask) and its products as :meth:`Backend.matvec` / :meth:`Backend.rmatvec`. ``array_api_compat`` and dask
are imported only when such an array is passed.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp


class Backend:
    """The NumPy/SciPy backend (also the base class: every method here is the NumPy meaning of the operation)."""

    kind = "numpy"          # "numpy", "array-api" or "dask": what method cards declare they run on
    name = "numpy"          # the library, for messages ("numpy", "torch", "array_api_strict", "dask", ...)
    xp = np                 # namespace of the length-n vectors
    xd = np                 # namespace of the length-d vectors
    device = "cpu"
    on_host = True          # the data are NumPy/SciPy: host code may read them directly

    # scalars and host copies -------------------------------------------------------------------------------
    def float(self, a) -> float:
        """A 0-d array (or a Python number) as a Python float: the one place a device is synchronised."""
        return float(a)

    def host(self, a):
        """A NumPy copy of an array of this backend (``None`` stays ``None``)."""
        return None if a is None else np.asarray(a)

    # vectors -------------------------------------------------------------------------------------------------
    def zeros_n(self, n: int):
        return np.zeros(n)

    def zeros_d(self, d: int):
        return np.zeros(d)

    def asarray_d(self, v):
        """A host vector (a warm start, a NumPy constant) placed on the d-side."""
        return np.asarray(v, dtype=np.float64)

    def asarray_n(self, v, like=None):
        """A host vector of length n placed on the n-side (chunked like ``like`` on dask)."""
        return np.asarray(v, dtype=np.float64)

    def persist(self, a):
        """Materialise a length-n vector where it lives (dask: ``persist``; elsewhere a no-op)."""
        return a

    def norm(self, v) -> float:
        return float(np.linalg.norm(v))

    def vdot(self, a, b):
        """``aᵀb`` as a 0-d array of the backend (no synchronisation)."""
        return a @ b

    # scalars that may stay on the device: a Python float on NumPy and dask, a 0-d array on an array-API device,
    # turned into a float by :meth:`float` only where a stop test or a trace record needs it -----------------------
    def lazy_norm(self, v):
        return float(np.linalg.norm(v))

    def lazy_sum(self, v):
        return float(v.sum())

    def minimum(self, a, b):
        return min(a, b)

    def lazy(self, a):
        """A scalar result (a 0-d array or a number) as such a scalar: a float here and on dask, the 0-d array itself
        on an array-API device."""
        return float(a)

    def floats(self, *values) -> list:
        """Several scalars (0-d arrays or numbers) as Python floats, with one synchronisation of a device."""
        return [float(a) for a in values]

    def sum(self, a, axis=None):
        """``Σ a`` (over ``axis``) where ``a`` lives: the array's own method here and on dask (``np.sum``'s dispatch
        costs as much as the sum of the small arrays of a step), ``xp.sum`` on an array-API device."""
        return a.sum(axis=axis)

    def where(self, cond, a, b):
        """``a`` if the scalar condition ``cond`` holds, else ``b``: a choice made here, where ``cond`` is a host
        boolean; an ``xp.where`` on an array-API device, where ``cond`` may be a 0-d array (no synchronisation)."""
        return a if cond else b

    def copy(self, a):
        """A copy of an array of this backend that the caller may keep (a dask array, immutable, is itself)."""
        return a.copy()

    def search(self, on_host, in_namespace, *vectors):
        """A data-dependent search over n-side ``vectors`` (a sort, a root finder that reads the data as it goes):
        ``on_host(*vectors)``, NumPy code, where the vectors are NumPy arrays or one gather of each is cheaper than a
        graph of reductions (dask); ``in_namespace(*vectors)``, code in ``xp`` that stays on the device (array API)."""
        return on_host(*vectors)

    # what one step needs beyond vector algebra (issue 22): NumPy keeps its in-place writes and host scalars; an
    # array-API device keeps indices and scalars on the device; dask computes its few scalars -------------------------
    def maximum(self, a, b):
        return max(a, b)

    def sqrt(self, a):
        """``√a`` of a scalar of :meth:`lazy`."""
        return math.sqrt(a)

    def ratio(self, num, den):
        """``num/den`` when ``den > 0``, else ``inf`` (a weak-duality bound ``||Zᵀa||/Σa`` of a zero mass)."""
        return num / den if den > 0 else math.inf

    def masked_sum(self, v, mask):
        """``Σ_{mask} v_i`` as a scalar of :meth:`lazy` (NumPy sums the selected entries, in their order)."""
        return float(v[mask].sum())

    def as_float(self, cond):
        """A boolean vector as 0.0/1.0 in the data's floating dtype."""
        return cond.astype(np.float64)

    def clip(self, x, lo=None, hi=None):
        """``min(max(x, lo), hi)`` elementwise (``None``: no bound)."""
        return np.maximum(lo, x) if hi is None else np.clip(x, lo, hi)

    def argmax(self, s):
        """The index of the largest ``s_i`` (the lowest on ties, as ``np.argmax``): a Python int here and on dask, a
        shape-(1,) integer array on an array-API device (no synchronisation), for :meth:`add_at` and
        :meth:`signed_row`."""
        return int(np.argmax(s))

    def add_at(self, v, i, value, copy: bool = False):
        """``v + value·e_i`` for an index of :meth:`argmax`: ``v[i] += value`` in place here (on a copy with
        ``copy=True``, for a ``v`` the caller does not own); elsewhere ``+ value·e_i`` (no index assignment), the same
        floating-point operations."""
        if copy:
            v = v.copy()
        v[i] += value
        return v

    def signed_row(self, Z, i):
        """Row ``z_i`` (d-side) of a :class:`~marginkit.core.linalg.SignedData` for an index of :meth:`argmax`."""
        return Z.row(i)

    def rmatmat(self, X, M):
        """``Xᵀ M`` (d-side, shape ``(d, k)``) for ``k`` n-side columns ``M`` (shape ``(n, k)``)."""
        return np.asarray(X.T @ M)

    def persist_all(self, *arrays) -> tuple:
        """:meth:`persist` of several n-side vectors at once (one round trip on dask)."""
        return arrays

    def finite_sum(self, parts) -> bool:
        """Whether the sum of every entry of ``parts`` (vectors of this backend, scalars) is finite: NaN or inf iff
        an entry is, or the sum overflows; one scalar, a cheap per-step guard for a state of many arrays. An array-API
        device answers ``True`` unread: a step never synchronises, and the run loop checks device states where it
        checks the stop rule."""
        return math.isfinite(self.float(sum(p.sum() if hasattr(p, "sum") else p for p in parts)))

    # products with the data ----------------------------------------------------------------------------------
    def matvec(self, X, w):
        """``X @ w`` (length n) for ``w`` on the d-side."""
        return np.asarray(X @ w).ravel()

    def rmatvec(self, X, q, XT=None):
        """``Xᵀ q`` (length d, on the d-side) for ``q`` on the n-side; ``XT`` a cached transpose view."""
        return np.asarray((X.T if XT is None else XT) @ q).ravel()

    def row(self, X, i: int):
        """Row ``i`` of ``X`` as a d-side vector."""
        r = X[i]
        return r.toarray().ravel() if sp.issparse(r) else np.asarray(r, dtype=float)

    def row_sq_norms(self, X):
        """``||x_i||²`` for every row (n-side)."""
        from .linalg import row_norms   # same layer; linalg does not import this module at import time
        return row_norms(X, squared=True)

    def spectral_norm_sq(self, X) -> float:
        """``||X||²`` (the step size of the gradient methods), as a float."""
        from .linalg import spectral_norm_sq
        return spectral_norm_sq(X)

    def stack_rmatvec(self, S, w):
        """``S_kᵀ w`` for every matrix of a stack ``S``, as a (k, d) array: ``S`` of shape (k, d, d), or (k, d) for
        diagonal matrices given by their diagonals."""
        return S * w if S.ndim == 2 else np.einsum("kij,i->kj", S, w)

    def stack_matvec_sum(self, S, P):
        """``Σ_k S_k p_k`` for a stack ``S`` as in :meth:`stack_rmatvec` and the rows ``p_k`` of ``P`` (k, d)."""
        return np.einsum("kj,kj->j" if S.ndim == 2 else "kij,kj->i", S, P)

    # what the problem classes and results need (issue 22: they ask the backend, never which backend it is); each
    # NumPy meaning is the NumPy code they ran before, bit for bit -------------------------------------------------
    supports_kernel = True               # a kernel Gram matrix of X can be formed (core/kernels.py is NumPy/SciPy)
    supports_coordinate_methods = True   # per-row updates run here (NumPy in place; dask per chunk, as CoCoA+)

    def host_problem(self, problem, copy):
        """The problem on NumPy/SciPy data: ``problem`` itself here; elsewhere ``copy()``, its copy on the host."""
        return problem

    def row_norms(self, X):
        """``||x_i||`` for every row of the data, on the n-side (:func:`~marginkit.core.linalg.row_norms` here)."""
        from .linalg import row_norms
        return row_norms(X)

    def as_d(self, v):
        """``v`` on the d-side: a host vector (a NumPy array, a list) placed there, an array already there as it is
        (here ``np.asarray(v, float64)``)."""
        return self.asarray_d(v)

    def result_vector(self, v):
        """A solution's d-vector as a :class:`~marginkit.Result` carries it: a float NumPy array here; elsewhere the
        array itself, where the data live (the user's namespace; on dask already NumPy)."""
        return np.asarray(v, float)

    def constant_n(self, v, value=None):
        """The host n-vector ``v`` on the n-side (``v`` itself here, when it is float64); ``value``, when every entry
        of ``v`` equals it, lets dask make the vector on the workers instead of sending it there."""
        return self.asarray_n(v)

    def sq_norm(self, v) -> float:
        """``||v||²`` of a d-vector as a float (``vᵀv`` here; elsewhere the square of :meth:`norm`)."""
        return float(np.dot(v, v))

    def scaled_sq_norm(self, v, s: float) -> float:
        """``s·vᵀv`` as a float (``(s v)ᵀv`` here; elsewhere ``s`` times :meth:`vdot`)."""
        return float((s * v) @ v)

    def hinge_sum(self, c, h) -> float:
        """``Σ_i c_i max(0, h_i)`` of two n-side vectors, as a float."""
        return float(c @ np.maximum(0.0, h))

    def stack_rmatvec_norms(self, S, w):
        """``||S_kᵀ w||`` for every matrix of a stack (:meth:`stack_rmatvec`): a k-vector where ``S`` lives."""
        return np.linalg.norm(self.stack_rmatvec(S, w), axis=1)

    def label_vector(self, pos, classes):
        """``classes[1]`` where the boolean vector ``pos`` holds, else ``classes[0]`` (``classes``: a NumPy array of
        the two labels), where ``pos`` lives when the labels can live there."""
        return np.where(pos, classes[1], classes[0])

    def describe(self) -> str:
        return "NumPy/SciPy"


NUMPY = Backend()


class ArrayAPIBackend(Backend):
    """An array-API library other than NumPy (``xp = array_api_compat.array_namespace(X)``), on ``X``'s device."""

    kind = "array-api"
    on_host = False

    def __init__(self, X):
        import array_api_compat as aac
        self.xp = self.xd = aac.array_namespace(X)
        self.device = aac.device(X)
        module = type(X).__module__.split(".")[0]
        self.name = module
        self.dtype = X.dtype
        self._aac = aac

    def float(self, a) -> float:
        return float(a)

    def host(self, a):
        if a is None:
            return None
        aac = self._aac
        if aac.is_torch_array(a):
            return a.detach().cpu().numpy()
        if aac.is_cupy_array(a):
            return a.get()
        return _to_numpy(a)

    def zeros_n(self, n: int):
        return self.xp.zeros(n, dtype=self.dtype, device=self.device)

    def zeros_d(self, d: int):
        return self.xp.zeros(d, dtype=self.dtype, device=self.device)

    def asarray_d(self, v):
        return self.xp.asarray(np.asarray(v, dtype=np.float64), dtype=self.dtype, device=self.device)

    def asarray_n(self, v, like=None):
        return self.asarray_d(v)

    def norm(self, v) -> float:
        return float(self.xp.linalg.vector_norm(v))

    def vdot(self, a, b):
        return self.xp.sum(a * b)

    def lazy_norm(self, v):
        return self.xp.linalg.vector_norm(v)

    def lazy_sum(self, v):
        return self.xp.sum(v)

    def minimum(self, a, b):
        xp = self.xp
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            return min(a, b)
        a = a if not isinstance(a, (int, float)) else xp.asarray(a, dtype=self.dtype, device=self.device)
        b = b if not isinstance(b, (int, float)) else xp.asarray(b, dtype=self.dtype, device=self.device)
        return xp.minimum(a, b)

    def _0d(self, a):
        """A Python number as a 0-d array of the data's dtype and device, a Python bool as a 0-d boolean array there
        (arrays pass through)."""
        if isinstance(a, bool):
            return self.xp.asarray(a, device=self.device)
        return self.xp.asarray(a, dtype=self.dtype, device=self.device) if isinstance(a, (int, float)) else a

    def lazy(self, a):
        return a

    def floats(self, *values) -> list:
        return [float(v) for v in self.host(self.xp.stack([self._0d(v) for v in values]))]

    def sum(self, a, axis=None):
        return self.xp.sum(a, axis=axis)

    def where(self, cond, a, b):
        if isinstance(cond, (bool, np.bool_)):   # decided on the host already (e.g. a test on an iteration counter)
            return a if cond else b
        return self.xp.where(cond, self._0d(a), self._0d(b))

    def copy(self, a):
        return self.xp.asarray(a, copy=True)

    def search(self, on_host, in_namespace, *vectors):
        return in_namespace(*vectors)

    def maximum(self, a, b):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            return max(a, b)
        return self.xp.maximum(self._0d(a), self._0d(b))

    def sqrt(self, a):
        return math.sqrt(a) if isinstance(a, (int, float)) else self.xp.sqrt(a)

    def ratio(self, num, den):
        if isinstance(den, (int, float)):
            return super().ratio(num, den)
        ok = den > 0   # a 0-d array: both sides are computed, so the denominator is made safe first
        return self.xp.where(ok, num / self.xp.where(ok, den, 1.0), math.inf)

    def masked_sum(self, v, mask):
        return self.xp.sum(self.xp.where(mask, v, 0.0))

    def as_float(self, cond):
        return self.xp.astype(cond, self.dtype)

    def clip(self, x, lo=None, hi=None):
        return self.xp.clip(x, min=lo, max=hi)

    def argmax(self, s):
        return self.xp.reshape(self.xp.argmax(s), (1,))

    def add_at(self, v, i, value, copy: bool = False):
        return v + value * self.xp.astype(_index_n(self, v.shape[0]) == i, self.dtype)

    def signed_row(self, Z, i):
        if isinstance(i, int):
            return Z.row(i)
        xp = self.xp
        return xp.take(Z.X, i, axis=0)[0, :] * (Z.coef * xp.take(Z.y, i))

    def rmatmat(self, X, M):
        return self.xp.matrix_transpose(X) @ M

    def finite_sum(self, parts) -> bool:
        return True

    def matvec(self, X, w):
        return X @ w

    def rmatvec(self, X, q, XT=None):
        return q @ X

    def row(self, X, i: int):
        return X[i, :]

    def row_sq_norms(self, X):
        return self.xp.sum(X * X, axis=1)

    def spectral_norm_sq(self, X) -> float:
        """The eigenvalue of the small Gram matrix (``XᵀX`` or ``XXᵀ``, formed where X lives and copied to the host:
        the NumPy number up to rounding) below 500 columns or rows, else Lanczos on host vectors through
        :meth:`matvec` and :meth:`rmatvec` (inflated by 1e-5: the step stays safe)."""
        import scipy.sparse.linalg as spla

        from .linalg import largest_eigenvalue
        n, d = X.shape
        if d <= 500 or n <= 500:
            G = self.host(X.T @ X if d <= 500 else X @ X.T)
            return largest_eigenvalue(G, G.shape[0], dense=lambda: G, exact_below=G.shape[0])

        def gram(v):
            return self.host(self.rmatvec(X, self.matvec(X, self.asarray_d(np.ravel(v)))))
        op = spla.LinearOperator((d, d), dtype=float, matvec=gram)
        return largest_eigenvalue(op, d, tol=1e-6, inflation=1e-5, seed=0)

    def stack_rmatvec(self, S, w):
        return S * w if S.ndim == 2 else w @ S

    def stack_matvec_sum(self, S, P):
        xp = self.xp
        if S.ndim == 2:
            return xp.sum(S * P, axis=0)
        return xp.sum((S @ xp.reshape(P, (P.shape[0], P.shape[1], 1)))[:, :, 0], axis=0)

    supports_kernel = False
    supports_coordinate_methods = False   # one row per update: a kernel launch each on a device (not provided)

    def host_problem(self, problem, copy):
        return copy()

    def row_norms(self, X):
        return self.persist(self.xp.sqrt(self.row_sq_norms(X)))

    def as_d(self, v):
        return v if is_foreign(v) else self.asarray_d(v)

    def result_vector(self, v):
        return v

    def sq_norm(self, v) -> float:
        return self.norm(v) ** 2

    def scaled_sq_norm(self, v, s: float) -> float:
        return s * self.float(self.vdot(v, v))

    def hinge_sum(self, c, h) -> float:
        xp = self.xp
        return self.float(xp.sum(c * xp.where(h > 0, h, xp.zeros_like(h))))

    def stack_rmatvec_norms(self, S, w):
        return self.xp.linalg.vector_norm(self.stack_rmatvec(S, w), axis=1)

    def label_vector(self, pos, classes):
        if classes.dtype.kind in "biuf":   # numeric labels stay on the device; others come to the host
            return self.xp.where(pos, self.asarray_d(classes[1:]), self.asarray_d(classes[:1]))
        return np.where(self.host(pos), classes[1], classes[0])

    def describe(self) -> str:
        return f"{self.name} (array API, device {self.device})"


def _to_numpy(a):
    """Host copy of an array-API array through DLPack (``array_api_strict`` and others that expose it)."""
    try:
        return np.from_dlpack(a).copy()
    except (TypeError, AttributeError, RuntimeError, BufferError):
        return np.asarray(a)


class DaskBackend(Backend):
    """A row-chunked ``dask.array``: n-side dask (chunked like ``X``, persisted), d-side NumPy.

    ``xp`` is ``array_api_compat.dask.array`` (dask with the array-API signatures, e.g. ``clip(x, min=...)``);
    ``da`` is ``dask.array`` itself. Chunks may be dense NumPy or ``scipy.sparse`` matrices
    (``X.map_blocks(sp.csr_matrix)``): the products are then taken block by block (``X_k @ w``, ``X_kᵀ q_k``, then a
    sum of K d-vectors), never densified; dense chunks keep dask's own ``X @ w`` and ``X.T @ q``."""

    kind = "dask"
    name = "dask"
    on_host = False
    xd = np

    def __init__(self, X):
        import dask.array as da
        try:
            import array_api_compat.dask.array as xp
        except ImportError:   # pragma: no cover - array-api-compat is a dependency
            xp = da
        self.da = da
        self.xp = xp
        self.row_chunks = X.chunks[0]
        self.sparse = sp.issparse(getattr(X, "_meta", None))

    def float(self, a) -> float:
        if hasattr(a, "compute"):
            a = a.compute()
        return float(a)

    def host(self, a):
        if a is None:
            return None
        return np.asarray(a.compute() if hasattr(a, "compute") else a)

    def zeros_n(self, n: int):
        return self.da.zeros(n, chunks=(self.row_chunks,)).persist()

    def asarray_n(self, v, like=None):
        return self.da.from_array(np.asarray(v, dtype=np.float64), chunks=(self.row_chunks,)).persist()

    def persist(self, a):
        return a.persist() if hasattr(a, "persist") else a

    def norm(self, v) -> float:
        """``||v||`` as a float; an n-side (dask) ``v`` is reduced where it lives (one scalar to the driver)."""
        if hasattr(v, "compute"):
            return float(self.da.sqrt(self.da.sum(v * v)).compute())
        return float(np.linalg.norm(v))

    lazy_norm = norm

    def lazy_sum(self, v):
        return self.float(v.sum())

    def vdot(self, a, b):
        return self.da.sum(a * b) if hasattr(a, "compute") or hasattr(b, "compute") else a @ b

    lazy = float

    def floats(self, *values) -> list:
        import dask
        return [float(v) for v in dask.compute(*values)]   # one graph for all of them

    def copy(self, a):
        return a

    def search(self, on_host, in_namespace, *vectors):
        # a fixed-length bracket search builds a graph of a few hundred reductions, which dask's scheduler runs two
        # orders of magnitude slower than one gather of the n floats (X stays chunked)
        return on_host(*(self.host(v) for v in vectors))

    def masked_sum(self, v, mask):
        return self.float(self.xp.sum(self.xp.where(mask, v, 0.0)))

    def clip(self, x, lo=None, hi=None):
        return self.xp.clip(x, lo, hi)

    def argmax(self, s):
        return int(self.float(self.da.argmax(s)))

    def add_at(self, v, i, value, copy: bool = False):
        return v + value * (_index_n(self, v.shape[0]) == i).astype(np.float64)

    def rmatmat(self, X, M):
        return np.asarray((X.T @ M).compute())

    def persist_all(self, *arrays) -> tuple:
        import dask
        return dask.persist(*arrays)

    def _sparse(self, X) -> bool:
        return sp.issparse(getattr(X, "_meta", None))

    def matvec(self, X, w):
        w = np.asarray(w, dtype=np.float64)
        if self._sparse(X):   # per-block products (dask's matmul does not take scipy.sparse chunks)
            return X.map_blocks(_block_matvec, w, drop_axis=1, dtype=np.float64, meta=np.empty(0)).persist()
        return (X @ w).persist()

    def rmatvec(self, X, q, XT=None):
        if self._sparse(X):   # K d-vectors X_kᵀ q_k, summed: one (K, d) array reduced on the workers
            if not hasattr(q, "chunks"):
                q = self.da.from_array(np.asarray(q, dtype=np.float64), chunks=(X.chunks[0],))
            elif q.chunks[0] != X.chunks[0]:
                q = q.rechunk((X.chunks[0],))
            parts = self.da.blockwise(_block_rmatvec, "ij", X, "ij", q, "i", dtype=np.float64,
                                      adjust_chunks={"i": 1}, meta=np.empty((0, 0)))
            return np.asarray(parts.sum(axis=0).compute(), dtype=np.float64).ravel()
        return np.asarray((X.T @ q).compute()).ravel()

    def row(self, X, i: int):
        r = X[i:i + 1].compute()
        return r.toarray().ravel() if sp.issparse(r) else np.asarray(r, dtype=float).ravel()

    def row_sq_norms(self, X):
        if self._sparse(X):
            return X.map_blocks(_block_sq_norms, drop_axis=1, dtype=np.float64, meta=np.empty(0)).persist()
        return (X * X).sum(axis=1).persist()

    spectral_norm_sq = ArrayAPIBackend.spectral_norm_sq

    supports_kernel = False
    host_problem = ArrayAPIBackend.host_problem
    row_norms = ArrayAPIBackend.row_norms
    result_vector = ArrayAPIBackend.result_vector
    sq_norm = ArrayAPIBackend.sq_norm
    scaled_sq_norm = ArrayAPIBackend.scaled_sq_norm
    hinge_sum = ArrayAPIBackend.hinge_sum

    def as_d(self, v):
        return v   # the d-side is NumPy: a host vector is there already (the products convert a list)

    def constant_n(self, v, value=None):
        if value is None:
            return self.asarray_n(v)
        return self.persist(self.da.full(v.shape[0], value, chunks=(self.row_chunks,)))

    def label_vector(self, pos, classes):
        return self.xp.where(pos, classes[1], classes[0])   # lazy, like pos

    def describe(self) -> str:
        kind = "sparse " if self.sparse else ""
        return f"dask ({len(self.row_chunks)} {kind}row chunks)"


def _index_n(bk, n: int):
    """``0, ..., n−1`` where the n-vectors of ``bk`` live (an array-API device or dask), made once per backend."""
    cache = bk.__dict__.setdefault("_index_n", {})
    if n not in cache:
        cache[n] = (bk.xp.arange(n, device=bk.device) if isinstance(bk, ArrayAPIBackend)
                    else bk.da.arange(n, chunks=(bk.row_chunks,)).persist())
    return cache[n]


# block functions of the dask backend (module level: they pickle by reference to a distributed worker)
def _block_matvec(b, w):
    return np.asarray(b @ w, dtype=np.float64).ravel()


def _block_rmatvec(b, q):
    return np.asarray(b.T @ q, dtype=np.float64).reshape(1, -1)


def _block_sq_norms(b):
    if sp.issparse(b):
        return np.asarray(b.multiply(b).sum(axis=1), dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64)
    return np.einsum("ij,ij->i", b, b)


def is_dask(X) -> bool:
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "chunks")


def is_foreign(X) -> bool:
    """``X`` is neither NumPy/SciPy nor a plain sequence: an array-API array of another library or a dask array."""
    if isinstance(X, np.ndarray) or sp.issparse(X) or isinstance(X, (list, tuple)):
        return False
    if is_dask(X):
        return True
    mod = type(X).__module__.split(".")[0]
    if mod in ("numpy", "builtins", "pandas", "scipy"):
        return False
    return hasattr(X, "__array_namespace__") or mod in ("torch", "cupy", "jax")


def backend_of(X) -> Backend:
    """The backend of validated data ``X`` (NumPy/SciPy, dask, or another array-API library)."""
    if isinstance(X, np.ndarray) or sp.issparse(X):
        return NUMPY
    if is_dask(X):
        return DaskBackend(X)
    return ArrayAPIBackend(X)

