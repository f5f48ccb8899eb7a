"""The backend of a row-chunked ``dask.array`` (dask-glm's pattern): length-n vectors are dask arrays chunked like
``X`` and persisted after each product, length-d vectors are NumPy, and ``X`` itself is never computed."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .array_api import ArrayAPIBackend
from .host import Backend, cached_index


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
        return float(a.compute() if hasattr(a, "compute") else a)

    def host(self, a):
        return None if a is None else np.asarray(a.compute() if hasattr(a, "compute") else a)

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

    def search(self, numpy_code, in_namespace, *vectors):
        # a fixed-length bracket search builds a graph of a few hundred reductions, which dask's scheduler runs two
        # orders of magnitude slower than one gather of the n floats (X stays chunked)
        return numpy_code(*(self.host(v) for v in vectors))

    def masked_sum(self, v, mask):
        return self.float(self.xp.sum(self.xp.where(mask, v, 0.0)))

    def clip(self, x, lo=None, hi=None):
        return self.xp.clip(x, lo, hi)

    def argmax(self, s):
        return int(self.float(self.da.argmax(s)))

    def add_at(self, v, i, value, copy: bool = False):
        return v + value * (self._index_n(v.shape[0]) == i).astype(np.float64)

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

    def _index_n(self, n: int):
        return cached_index(self, n, lambda n: self.da.arange(n, chunks=(self.row_chunks,)).persist())

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
