"""The NumPy/SciPy backend: :class:`Backend`, the base class of every backend, whose methods are the plain NumPy
meaning of each operation, and its one instance :data:`NUMPY` (see :mod:`marginkit.core.backend`)."""
from __future__ import annotations

import importlib
import math
import types

import numpy as np
import scipy.sparse as sp


GRAM_BLOCK_BYTES = 1 << 22     # the scaled rows of one block of the weighted Gram product: about 4 MiB


class ModulesByName:
    """Pickles (and copies) an object that keeps modules as attributes -- a namespace such as ``numpy``,
    ``array_api_strict`` or ``dask.array`` -- by each module's importable name (a module does not pickle), and drops
    the attributes named in ``_transient`` (caches rebuilt on first use). Problems cache backends and operators, plans
    hold them: with this, every problem, plan and result pickles (issue 38)."""

    _transient: tuple = ()

    def __getstate__(self):
        state = {k: v for k, v in self.__dict__.items() if k not in self._transient}
        modules = {k: v.__name__ for k, v in state.items() if isinstance(v, types.ModuleType)}
        for k in modules:
            del state[k]
        if modules:
            state["_module_names"] = modules
        return state

    def __setstate__(self, state):
        state = dict(state)
        for k, name in state.pop("_module_names", {}).items():
            state[k] = importlib.import_module(name)
        self.__dict__.update(state)


class Backend(ModulesByName):
    """The NumPy/SciPy backend (also the base class: every method here is the NumPy meaning of the operation)."""

    kind = "numpy"          # "numpy", "array-api" or "dask": what method cards declare they run on
    name = "numpy"          # the library, for messages ("numpy", "torch", "array_api_strict", "dask", ...)
    xp = np                 # namespace of the length-n vectors
    xd = np                 # namespace of the length-d vectors
    device = "cpu"
    on_host = True          # the data are NumPy/SciPy: host code may read them directly

    _transient = ("_index_cache",)   # dropped when pickled or copied: rebuilt on first use

    def __reduce_ex__(self, protocol):
        """:data:`NUMPY` pickles (and copies) as a reference to the one instance (``is NUMPY`` holds after a round
        trip); other backends by their state (:class:`ModulesByName`)."""
        if self is NUMPY:
            return "NUMPY"
        return super().__reduce_ex__(protocol)

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

    def search(self, numpy_code, in_namespace, *vectors):
        """A data-dependent search over n-side ``vectors`` (a sort, a root finder that reads the data as it goes):
        ``numpy_code(*vectors)``, NumPy code, where the vectors are NumPy arrays or one gather of each is cheaper than a
        graph of reductions (dask); ``in_namespace(*vectors)``, code in ``xp`` that stays on the device (array API)."""
        return numpy_code(*vectors)

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
        from ..linalg import row_norms   # same layer; linalg does not import this module at import time
        return row_norms(X, squared=True)

    def spectral_norm_sq(self, X) -> float:
        """``||X||²`` (the step size of the gradient methods), as a float."""
        from ..linalg import spectral_norm_sq
        return spectral_norm_sq(X)

    def weighted_gram(self, X, D, bordered: bool = False) -> np.ndarray:
        """``Xᵀ diag(D) X`` (``D >= 0`` on the n-side) as a dense NumPy ``d × d`` matrix on the host, whatever the
        backend: the normal matrix of the interior-point method (:mod:`marginkit.plans.ipm.normal`), factored there.
        ``bordered``: the ``(d + 1) × (d + 1)`` matrix ``[X 1]ᵀ diag(D) [X 1]`` instead (the border ``XᵀD`` and the
        corner ``1ᵀD``), in the same pass over ``X`` where a pass costs a round trip (dask).
        Here: ``Xᵀ D`` and ``Σ D`` are a product and a sum of their own (:meth:`border`); dense ``X`` by ``dsyrk``
        on blocks of rows scaled by ``√D`` into one reused buffer of about :data:`GRAM_BLOCK_BYTES` (a cache-sized
        temporary: scaling the whole of ``X`` at once costs more than the product, in page faults), upper triangle
        and its mirror; CSR ``X`` by one sparse product. Rows with ``D_i = 0`` are skipped."""
        from scipy.linalg.blas import dsyrk
        if bordered:
            return self.border(X, D, self.weighted_gram(X, D))
        n, d = X.shape
        rows_used = np.flatnonzero(D > 0)
        if sp.issparse(X):
            Xu = X[rows_used] if rows_used.shape[0] < n else X
            root = np.sqrt(D[rows_used])
            scaled = sp.csr_matrix((Xu.data * np.repeat(root, np.diff(Xu.indptr)), Xu.indices, Xu.indptr),
                                   shape=Xu.shape)
            return np.asarray((scaled.T @ scaled).toarray(), dtype=np.float64)
        G = np.zeros((d, d), order="F")
        rows = max(1, min(rows_used.shape[0], GRAM_BLOCK_BYTES // (8 * max(d, 1))))
        buffer = np.empty((rows, d))
        dense_run = rows_used.shape[0] == n
        for start in range(0, rows_used.shape[0], rows):
            stop = min(start + rows, rows_used.shape[0])
            block = buffer[:stop - start]
            if dense_run:
                np.multiply(X[start:stop], np.sqrt(D[start:stop])[:, None], out=block)
            else:
                idx = rows_used[start:stop]
                np.multiply(X[idx], np.sqrt(D[idx])[:, None], out=block)
            # dsyrk(a) = a aᵀ with a = blockᵀ (d × rows, Fortran-ordered: the C-ordered block without a copy)
            G = dsyrk(1.0, block.T, beta=1.0, c=G, trans=0, lower=0, overwrite_c=1)
        return np.triu(G) + np.triu(G, 1).T

    def border(self, X, D, G) -> np.ndarray:
        """``G`` (``d × d``) bordered by ``XᵀD`` and ``1ᵀD``, on the host."""
        d = G.shape[0]
        K = np.empty((d + 1, d + 1))
        K[:d, :d] = G
        K[:d, d] = K[d, :d] = np.asarray(self.host(self.rmatvec(X, D)), dtype=np.float64)
        K[d, d] = self.float(self.sum(D))
        return K

    def step_to_boundary(self, *pairs) -> float:
        """``min`` over the pairs ``(v, dv)`` of n-side vectors (``v > 0``) of ``min_{dv_i < 0} −v_i/dv_i``: the
        largest ``τ`` with every ``v + τ dv >= 0`` (``inf`` when no ``dv_i < 0``), as a float. The ratios are those of
        the selected entries, so the number is the same on every backend."""
        return min((_boundary(v, dv) for v, dv in pairs), default=math.inf)

    def take_rows(self, a, index: np.ndarray):
        """The rows ``index`` (a sorted NumPy integer array) of an n-side vector or of the data ``X``, where they
        live (the same chunking for ``X`` and its vectors on dask)."""
        return a[index]

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
        from ..linalg import row_norms
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


def _boundary(v, dv) -> float:
    neg = dv < 0
    return float(np.min(-v[neg] / dv[neg])) if neg.any() else math.inf


def cached_index(bk, n: int, make):
    """``make(n)`` (``0, ..., n−1`` where the n-vectors of ``bk`` live), made once per backend and length."""
    cache = bk.__dict__.setdefault("_index_cache", {})
    if n not in cache:
        cache[n] = make(n)
    return cache[n]


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
