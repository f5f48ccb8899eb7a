"""The backend of an array-API library other than NumPy (PyTorch on CPU or GPU, CuPy, ``array-api-strict``), through
``array_api_compat``: every vector stays in the library's namespace and on ``X``'s device."""
from __future__ import annotations

import math

import numpy as np

from .host import Backend, cached_index, is_foreign


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

    zeros_d = zeros_n

    def asarray_d(self, v):
        a = np.asarray(v, dtype=np.float64)
        if not a.flags.writeable:   # a read-only host vector (a problem's box): torch warns on a view of one
            a = a.copy()
        return self.xp.asarray(a, dtype=self.dtype, device=self.device)

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
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            return min(a, b)
        return self.xp.minimum(self._0d(a), self._0d(b))

    def _0d(self, a):
        """A Python number as a 0-d array of the data's dtype and device, a Python bool as a 0-d boolean array there
        (arrays pass through). Made by ``full``, a fill kernel that takes the number as its argument: ``asarray``
        would copy it from host memory, which on CUDA torch synchronises the host with the device (seen on an H100
        with torch's sync debug mode; ``benchmarks/gpu.py --sync-sites``)."""
        if isinstance(a, (bool, np.bool_)):
            return self.xp.full((), bool(a), dtype=self.xp.bool, device=self.device)
        if isinstance(a, (int, float, np.floating, np.integer)):
            return self.xp.full((), float(a), dtype=self.dtype, device=self.device)
        return a

    def scalar(self, a):
        """A Python number as a 0-d array of the data's dtype, where the data live, without a host-to-device copy."""
        return self._0d(a)

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

    def search(self, numpy_code, in_namespace, *vectors):
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
        return v + value * self.xp.astype(self._index_n(v.shape[0]) == i, self.dtype)

    def signed_row(self, Z, i):
        if isinstance(i, int):
            return Z.row(i)
        xp = self.xp
        return xp.take(Z.X, i, axis=0)[0, :] * (Z.coef * xp.take(Z.y, i))

    def rmatmat(self, X, M):
        return self.xp.matrix_transpose(X) @ M

    def weighted_gram(self, X, D, bordered: bool = False) -> np.ndarray:
        # formed where X lives (one product, n d² flops on the device), then copied to the host: d × d is small, and
        # the interior-point method factors it there (scipy's Cholesky, the same code on every backend)
        xp = self.xp
        G = np.asarray(self.host(xp.matrix_transpose(X) @ (xp.expand_dims(D, axis=1) * X)), dtype=np.float64)
        return self.border(X, D, G) if bordered else G

    def step_to_boundary(self, *pairs) -> float:
        xp = self.xp
        limits = []
        for v, dv in pairs:
            neg = dv < 0
            limits.append(xp.min(xp.where(neg, -v / xp.where(neg, dv, -xp.ones_like(dv)), xp.full_like(v, math.inf))))
        return min(self.floats(*limits), default=math.inf)

    def take_rows(self, a, index):
        return self.xp.take(a, self.xp.asarray(index, device=self.device), axis=0)

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

        from ..linalg import largest_eigenvalue
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

    def _index_n(self, n: int):
        return cached_index(self, n, lambda n: self.xp.arange(n, device=self.device))

    def describe(self) -> str:
        return f"{self.name} (array API, device {self.device})"


def _to_numpy(a):
    """Host copy of an array-API array through DLPack (``array_api_strict`` and others that expose it)."""
    try:
        return np.from_dlpack(a).copy()
    except (TypeError, AttributeError, RuntimeError, BufferError):
        return np.asarray(a)
