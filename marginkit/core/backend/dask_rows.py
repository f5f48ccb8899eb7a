"""The backend of a row-chunked ``dask.array`` (dask-glm's pattern): length-n vectors are dask arrays chunked like
``X`` and persisted after each product, length-d vectors are NumPy, and ``X`` itself is never computed."""
from __future__ import annotations

import sys
import weakref
from contextlib import contextmanager

import numpy as np
import scipy.sparse as sp

from ..errors import SolverFailure
from .array_api import ArrayAPIBackend
from .host import Backend, _boundary, cached_index


class DaskBackend(Backend):
    """A row-chunked ``dask.array``: n-side dask (chunked like ``X``, persisted), d-side NumPy.

    ``xp`` is ``array_api_compat.dask.array`` (dask with the array-API signatures, e.g. ``clip(x, min=...)``);
    ``da`` is ``dask.array`` itself. Chunks may be dense NumPy or ``scipy.sparse`` matrices
    (``X.map_blocks(sp.csr_matrix)``): the products are then taken block by block (``X_k @ w``, ``X_kᵀ q_k``, then a
    sum of K d-vectors), never densified; dense chunks keep dask's own ``X @ w`` and ``X.T @ q``.

    Every computation goes through :meth:`compute` or :meth:`persist` (:meth:`persist_all`), which watch the
    ``distributed`` client the data live on: a lost cluster is a :class:`~marginkit.core.errors.SolverFailure`
    (:meth:`cluster`), never a raw distributed exception and never a wait on a client that has lost its scheduler."""

    kind = "dask"
    name = "dask"
    on_host = False
    xd = np
    _transient = ("_index_cache", "_client")   # the watched client (a weak reference) is found again on first use

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
        self._client = None
        self._watched()   # the client the problem's data are persisted on (its labels are, at construction)

    def __setstate__(self, state):
        """Unpickled (or copied) without the watched client: the default client is looked up again on first use."""
        super().__setstate__(state)
        self._client = None

    # the cluster's faults (issue 25) ----------------------------------------------------------------------------
    def _watched(self):
        """The ``distributed`` client this data computes on: the default client when first seen (weakly held: a
        problem does not keep a client open), or None (no client: dask's local schedulers, which lose nothing)."""
        client = None if self._client is None else self._client()
        if client is None and "distributed" in sys.modules:   # no program without distributed has a client
            from distributed import default_client
            try:
                client = default_client()
            except ValueError:   # no client open
                return None
            self._client = weakref.ref(client)
        return client

    def lost(self) -> str | None:
        """Why the cluster cannot compute for this data now, or None: its client has lost the scheduler
        (reconnecting, or closed once its reconnect window ran out). The data persisted there are gone then; a
        computation given to a reconnecting client would wait for the whole window before failing."""
        client = self._watched()
        if client is None or client.status == "running":
            return None
        return (f"the dask client lost its scheduler (client status {client.status!r}): the data persisted on the "
                f"cluster are gone; solve again on a running cluster")

    @contextmanager
    def cluster(self):
        """Around a computation on the cluster: its faults as :class:`~marginkit.core.errors.SolverFailure` with the
        reason. Raised at once when the client is already lost (:meth:`lost`); distributed's own failures (a future
        cancelled, a connection closed, a task whose workers kept dying) always; an ``OSError``, ``TimeoutError`` or
        ``ValueError`` (dask's local scheduler missing the keys of a closed client) only when the client is lost,
        else re-raised as it is (a bug or bad data is never hidden as a fault of the cluster)."""
        reason = self.lost()
        if reason is not None:
            raise SolverFailure(reason)
        try:
            yield
        except _cluster_errors() as exc:
            raise SolverFailure(f"{self.lost() or 'the dask cluster failed'} ({_first_line(exc)})") from exc
        except (OSError, TimeoutError, ValueError) as exc:
            reason = self.lost()
            if reason is None:
                raise
            raise SolverFailure(f"{reason} ({_first_line(exc)})") from exc

    def compute(self, *values) -> tuple:
        """``dask.compute(*values)`` (one graph for all of them), watched by :meth:`cluster`."""
        import dask
        with self.cluster():
            return dask.compute(*values)

    def persist(self, a):
        if not hasattr(a, "persist"):
            return a
        with self.cluster():
            return a.persist()

    def persist_all(self, *arrays) -> tuple:
        import dask
        with self.cluster():
            return dask.persist(*arrays)

    def replicate(self, a) -> None:
        """Copies of ``a``'s persisted blocks on two workers (``Client.replicate``), where a cluster of two or more
        workers computes: losing one worker then loses no block of ``a``. For an iterate that every round rebuilds from
        the last (CoCoA+'s dual weights) this bounds what a lost worker costs to one round; without copies dask
        recomputes the lost blocks from their whole lineage, every round so far, inside one round (measured: +8.9 s
        for a worker lost at round 40 of 0.3 s rounds), which no time limit can see coming. Costs one copy of the
        blocks per round between workers (``8n`` bytes); ``a`` never comes to the driver."""
        client = self._watched()
        if client is None or not hasattr(a, "dask"):
            return
        with self.cluster():
            if len(client.scheduler_info().get("workers", {})) < 2:
                return
            from distributed import futures_of
            futures = futures_of(a)
            if futures:
                client.replicate(futures, n=2)

    # ----------------------------------------------------------------------------------------------------------------
    def float(self, a) -> float:
        return float(self.compute(a)[0] if hasattr(a, "compute") else a)

    def host(self, a):
        return None if a is None else np.asarray(self.compute(a)[0] if hasattr(a, "compute") else a)

    def zeros_n(self, n: int):
        return self.persist(self.da.zeros(n, chunks=(self.row_chunks,)))

    def asarray_n(self, v, like=None):
        return self.persist(self.da.from_array(np.asarray(v, dtype=np.float64), chunks=(self.row_chunks,)))

    def norm(self, v) -> float:
        """``||v||`` as a float; an n-side (dask) ``v`` is reduced where it lives (one scalar to the driver)."""
        if hasattr(v, "compute"):
            return self.float(self.da.sqrt(self.da.sum(v * v)))
        return float(np.linalg.norm(v))

    lazy_norm = norm

    def lazy_sum(self, v):
        return self.float(v.sum())

    def vdot(self, a, b):
        return self.da.sum(a * b) if hasattr(a, "compute") or hasattr(b, "compute") else a @ b

    lazy = float

    def floats(self, *values) -> list:
        return [float(v) for v in self.compute(*values)]   # one graph for all of them

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
        return np.asarray(self.compute(X.T @ M)[0])

    def weighted_gram(self, X, D, bordered: bool = False) -> np.ndarray:
        # one pass over X: a partial d × d Gram matrix per row chunk (dense or scipy.sparse), summed across the chunks,
        # and only that sum comes to the driver (the interior-point method factors it there)
        if not hasattr(D, "chunks"):
            D = self.da.from_array(np.asarray(D, dtype=np.float64), chunks=(X.chunks[0],))
        elif D.chunks[0] != X.chunks[0]:
            D = D.rechunk((X.chunks[0],))
        size = X.shape[1] + int(bordered)
        parts = self.da.blockwise(_block_gram, "kij", X, "kj", D, "k", bordered, None, dtype=np.float64,
                                  new_axes={"i": size}, adjust_chunks={"k": 1, "j": size - X.shape[1]},
                                  concatenate=True, meta=np.empty((0, 0, 0)))
        return np.asarray(self.compute(parts.sum(axis=0))[0], dtype=np.float64)

    def step_to_boundary(self, *pairs) -> float:
        # one NumPy minimum per row chunk and pair (a graph of a few tasks per chunk), one compute for all pairs
        limits = [self.da.map_blocks(_block_boundary, v, dv, chunks=((1,) * v.numblocks[0],), dtype=np.float64).min()
                  for v, dv in pairs]
        return min((float(t) for t in self.compute(*limits)), default=np.inf)

    def take_rows(self, a, index):
        out = a[index]
        # dask keeps the chunk boundaries of a row selection, so X's rows and its vectors' stay aligned
        return self.persist(out) if out.ndim == 1 else out

    def _sparse(self, X) -> bool:
        return sp.issparse(getattr(X, "_meta", None))

    def matvec(self, X, w):
        w = np.asarray(w, dtype=np.float64)
        if self._sparse(X):   # per-block products (dask's matmul does not take scipy.sparse chunks)
            return self.persist(X.map_blocks(_block_matvec, w, drop_axis=1, dtype=np.float64, meta=np.empty(0)))
        return self.persist(X @ w)

    def rmatvec(self, X, q, XT=None):
        if self._sparse(X):   # K d-vectors X_kᵀ q_k, summed: one (K, d) array reduced on the workers
            if not hasattr(q, "chunks"):
                q = self.da.from_array(np.asarray(q, dtype=np.float64), chunks=(X.chunks[0],))
            elif q.chunks[0] != X.chunks[0]:
                q = q.rechunk((X.chunks[0],))
            parts = self.da.blockwise(_block_rmatvec, "ij", X, "ij", q, "i", dtype=np.float64,
                                      adjust_chunks={"i": 1}, meta=np.empty((0, 0)))
            return np.asarray(self.compute(parts.sum(axis=0))[0], dtype=np.float64).ravel()
        return np.asarray(self.compute(X.T @ q)[0]).ravel()

    def row(self, X, i: int):
        r = self.compute(X[i:i + 1])[0]
        return r.toarray().ravel() if sp.issparse(r) else np.asarray(r, dtype=float).ravel()

    def row_sq_norms(self, X):
        if self._sparse(X):
            return self.persist(X.map_blocks(_block_sq_norms, drop_axis=1, dtype=np.float64, meta=np.empty(0)))
        return self.persist((X * X).sum(axis=1))

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
        return cached_index(self, n, lambda n: self.persist(self.da.arange(n, chunks=(self.row_chunks,))))

    def describe(self) -> str:
        kind = "sparse " if self.sparse else ""
        return f"dask ({len(self.row_chunks)} {kind}row chunks)"


def _cluster_errors() -> tuple:
    """distributed's exceptions that are a fault of the cluster whatever the computation: a future cancelled (its
    client lost the scheduler), a connection closed, a task that killed ``allowed-failures`` workers. Empty while
    distributed is not imported (no client can exist then)."""
    if "distributed" not in sys.modules:
        return ()
    from distributed import KilledWorker
    from distributed.client import FutureCancelledError
    from distributed.comm import CommClosedError
    return FutureCancelledError, CommClosedError, KilledWorker


def _first_line(exc) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


# block functions of the dask backend (module level: they pickle by reference to a distributed worker)
def _block_matvec(b, w):
    return np.asarray(b @ w, dtype=np.float64).ravel()


def _block_rmatvec(b, q):
    return np.asarray(b.T @ q, dtype=np.float64).reshape(1, -1)


def _block_boundary(v, dv):
    return np.full(1, _boundary(v, dv))


def _block_gram(b, D, bordered):
    if bordered:   # [X_k 1]: the border X_kᵀD_k and the corner 1ᵀD_k in the same product
        b = sp.hstack([b, np.ones((b.shape[0], 1))], format="csr") if sp.issparse(b) else \
            np.hstack([np.asarray(b, dtype=np.float64), np.ones((b.shape[0], 1))])
    if sp.issparse(b):
        scaled = sp.csr_matrix(b).multiply(np.sqrt(D)[:, None]).tocsr()
        G = (scaled.T @ scaled).toarray()
    else:
        b = np.asarray(b, dtype=np.float64)
        G = b.T @ (D[:, None] * b)
    return np.asarray(G, dtype=np.float64)[None, :, :]


def _block_sq_norms(b):
    if sp.issparse(b):
        return np.asarray(b.multiply(b).sum(axis=1), dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64)
    return np.einsum("ij,ij->i", b, b)
