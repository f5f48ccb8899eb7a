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

    def matvec(self, X, w):
        return X @ w

    def rmatvec(self, X, q, XT=None):
        return q @ X

    def row(self, X, i: int):
        return X[i, :]

    def row_sq_norms(self, X):
        return self.xp.sum(X * X, axis=1)

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

    def describe(self) -> str:
        kind = "sparse " if self.sparse else ""
        return f"dask ({len(self.row_chunks)} {kind}row chunks)"


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

