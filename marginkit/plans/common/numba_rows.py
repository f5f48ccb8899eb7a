"""Row access for the compiled coordinate epochs (numba, a dependency imported on first use): the one numba module
of marginkit.

A coordinate epoch visits the rows of ``X`` in random order and, for each, reads the row twice (a dot product and an
axpy). Its users: the epochs of ``dykstra``/``dykstra-accelerated``/``mirror-descent``
(:mod:`marginkit.plans.raj_bach.epochs_numba`) and of ``dual-cd`` (:mod:`marginkit.plans.svm_cd.svm_coordinate`).

**The compiled option.** Every plan with a compiled epoch has the option ``compiled``: ``"auto"`` (numba when it is
installed), ``True`` (numba, required) or ``False`` (the same epoch in NumPy). :data:`COMPILED` is its declared
constraint and :func:`resolve_compiled` the one place it is resolved. The word "backend" names where the arrays live
(:mod:`marginkit.core.backend`) and nothing else.

**numba is a dependency, imported lazily.** ``pip install marginkit`` installs numba; nothing here imports it at
import time: :func:`available`, :func:`njit` and :func:`jit_rows` do, on their first call, so ``import marginkit``
and a plan compiled with ``compiled=False`` never load it. On a platform without numba, :func:`njit` returns the
function unchanged (the fallback, much slower: benchmarks/README.md, "Compiled row access") and ``compiled="auto"``
warns once per process (:class:`PerformanceWarning`, ``marginkit.PerformanceWarning``).

**Twins.** Each row operation below is a plain Python function, its NumPy body (what runs without numba), with a
compiled twin (:func:`compiled_as`) that :func:`jit_rows` registers with ``numba.extending.overload``: compiled code
calling ``dense_dot(...)`` runs the twin, Python code the NumPy body. Twins are inlined into their callers
(``inline="always"``, numba's IR inlining): a call that passes arrays passes every field of each (about 7 words per
array) and cost more than the update itself (benchmarks/README.md, "Compiled row access"). Inlined, a twin's
``if X is None`` is not pruned any more, so twins never test ``None``; the caller (an ``@njit`` function whose
argument it is) does. Both bodies do the same floating-point
operations in the same order (sequential sums, which ``np.cumsum`` reproduces), so an epoch written with these
functions gives the same iterates run as Python or compiled, bit for bit, with one exception: the dot product with
a dense row (:func:`dense_dot`) is a vectorised sum in both, BLAS ``ddot`` in Python and a loop compiled with
reassociation allowed (:func:`_long_dot`), so the two sum in different orders and agree to rounding only. Dense
rows are the rows ``X[i]`` of a C-ordered matrix, CSR rows the slices ``data[indptr[i]:indptr[i+1]]``. numba's
cache is keyed on the caller's file: after editing a compiled body here, remove the callers' ``__pycache__/*.nbi``.

**Memory access.** In random order every row is a cache miss, so an epoch is bound by memory latency: row and
column indices are cast to unsigned inside the loops (numba then drops its negative-index test), and rows
about to be visited are requested ahead with :func:`prefetch` (LLVM's prefetch hint; a no-op when this numba/LLVM
cannot emit it, and in Python).
"""
from __future__ import annotations

import importlib
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.linalg import blas as _blas

from ...core.params import Boolean, Options
from ...core.validation import ProblemError

COMPILED = [Options("auto"), Boolean()]   # the declared constraint of every ``compiled`` option
ONE = np.uint64(1)      # ``indptr[i + ONE]`` keeps an unsigned row index unsigned
LINE = 8                # float64 entries per 64-byte cache line: one prefetch hint per line
INDEX_LINE = 16         # int32 entries per cache line
PREFETCH_AHEAD = 4      # rows whose memory is requested this many updates ahead of use
HEAD = 64               # entries of a long dense row requested ahead (8 cache lines)

_NUMBA = None  # whether numba imports (decided on the first call of :func:`available`)
_WARNED = False  # whether the fallback warning was given in this process


class PerformanceWarning(UserWarning):
    """A marginkit method runs on a slow path: numba is missing and a compiled epoch falls back to NumPy. Given
    once per process; silence it with ``warnings.filterwarnings("ignore", category=marginkit.PerformanceWarning)``
    or pass ``compiled=False`` explicitly."""


def available() -> bool:
    """Whether numba is installed (imports it on the first call)."""
    global _NUMBA
    if _NUMBA is None:
        try:
            importlib.import_module("numba")
            _NUMBA = True
        except ImportError:
            _NUMBA = False
    return _NUMBA


def resolve_compiled(compiled, method: str, unsupported: str | None = None) -> str:
    """``"numba"`` or ``"numpy"``: how a plan runs its epochs. ``"auto"`` is numba when it is installed and the plan
    can use it on this problem (``unsupported`` is None; else it says why not, for ``compiled=True``'s error);
    ``False`` returns at once, without importing numba."""
    required = not isinstance(compiled, str) and bool(compiled)   # True or numpy.True_; "auto" is a str
    if not isinstance(compiled, str) and not required:
        return "numpy"
    if unsupported is not None:
        if required:
            raise ProblemError(f"{method}: compiled=True (numba) {unsupported}")
        return "numpy"
    if available():
        return "numba"
    if required:
        raise ProblemError(f"{method}: compiled=True needs numba (pip install numba)")
    _warn_fallback(method)
    return "numpy"


def row_storage(X) -> tuple:
    """``(dense, csr, X)``: the rows of ``X`` as the compiled epochs read them, either ``dense`` (C-ordered; ``csr``
    None) or ``csr = (data, indices, indptr)`` (SciPy's own arrays of a canonical CSR matrix: no copy for a validated
    problem's, which is always CSR and canonical; ``dense`` None), and ``X`` for products (that CSR matrix, or the
    dense ``X`` as given)."""
    if sp.issparse(X):
        X = X.tocsr()
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        return None, (X.data, X.indices, X.indptr), X
    return (X if X.flags.c_contiguous else np.ascontiguousarray(X)), None, X


def kernel_rows(dense, csr) -> tuple:
    """``(X, data, indices, indptr)`` as one compiled function takes either storage of :func:`row_storage` (the
    CSR arrays empty and unused for dense rows; ``X`` None for CSR)."""
    return (dense, np.empty(0), np.empty(0, np.int32), np.zeros(1, np.int32)) if csr is None else (None, *csr)


def compiled_info(resolved: str) -> dict:
    """What a plan's ``Result.info`` says of its epochs: ``compiled`` (whether numba ran them) and, as before the
    option was renamed, ``backend`` (``"numba"`` or ``"numpy"``), which results already stored and read."""
    return {"backend": resolved, "compiled": resolved == "numba"}


def _warn_fallback(method: str) -> None:
    """The once-per-process warning of ``compiled="auto"`` without numba."""
    global _WARNED
    if _WARNED:
        return
    _WARNED = True
    warnings.warn(f"{method}: numba is not installed, so its compiled epochs run in NumPy (14-35x slower); "
                  "pip install numba, or pass compiled=False to choose the NumPy path explicitly "
                  "(this warning is shown once per process)", PerformanceWarning, stacklevel=4)


class compiled_once:   # noqa: N801 - used as a function: compiled_round = compiled_once(dcd_round)
    """A getter of ``fn`` compiled by :func:`njit`: ``getter()`` builds it on its first call and keeps it (numba's
    cache keeps the machine code across processes); a plan calls it in ``setup`` when it runs compiled. It pickles
    as a reference to ``fn`` (dask ships it to its workers)."""

    def __init__(self, fn):
        self.fn, self.compiled = fn, None
        self.__doc__ = f":func:`{fn.__name__}` compiled (built on first use)."

    def __call__(self):
        if self.compiled is None:
            self.compiled = njit()(self.fn)
        return self.compiled

    def of(self, resolved: str):
        """The function a plan runs for :func:`resolve_compiled`'s answer: compiled for ``"numba"``, else itself."""
        return self() if resolved == "numba" else self.fn

    def __reduce__(self):
        return compiled_once, (self.fn,)


def njit(**options):
    """The decorator of every compiled epoch: ``numba.njit(cache=True, nogil=True, **options)`` with the row twins
    registered; the identity when numba is not installed."""
    if not available():
        return lambda fn: fn
    import numba
    jit_rows()
    return numba.njit(cache=True, nogil=True, **options)


# twins -----------------------------------------------------------------------------------------------------
_TWINS: list = []        # (python function, compiled body), registered by jit_rows
_REGISTERED: set = set()


def compiled_as(body):
    """Decorator: compiled code calling the decorated Python function runs ``body`` instead."""
    def mark(fn):
        _TWINS.append((fn, body))
        return fn
    return mark


def jitable(fn):
    """Decorator: the function runs as itself in compiled code (numba's ``register_jitable``, registered lazily)."""
    return compiled_as(fn)(fn)


def _typer(body):
    return lambda *args, **kwargs: body


def jit_rows() -> None:
    """Register every twin not yet registered with numba (imports numba; called by :func:`njit`)."""
    from numba.extending import overload
    global _LONG_DOT
    if _LONG_DOT is None:
        import numba
        _LONG_DOT = numba.njit(fastmath={"reassoc"}, cache=True, nogil=True)(_long_dot)
    if prefetch not in _REGISTERED:
        overload(prefetch, strict=False)(_typer(_prefetch_body()))
        _REGISTERED.add(prefetch)
    for fn, body in _TWINS:
        if fn not in _REGISTERED:
            overload(fn, strict=False, inline="always")(_typer(body))
            _REGISTERED.add(fn)


# the prefetch hint ------------------------------------------------------------------------------------------
def prefetch(arr, k) -> None:
    """Read hint for the cache line of ``arr.flat[k]`` (a C-contiguous array): nothing in Python, LLVM's
    ``llvm.prefetch`` in compiled code."""


def _prefetch_body():
    """The compiled body of :func:`prefetch`: the intrinsic if this numba/LLVM can emit it, else a no-op."""
    import numba
    from llvmlite import binding, ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic
    name = "llvm.prefetch.p0" if binding.llvm_version_info[0] >= 15 else "llvm.prefetch.p0i8"

    @intrinsic
    def hint(typingctx, arr, idx):
        def codegen(context, builder, signature, args):
            aryty = signature.args[0]
            ary = context.make_array(aryty)(context, builder, args[0])
            i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
            itemsize = context.get_constant(types.intp, context.get_abi_sizeof(context.get_data_type(aryty.dtype)))
            offset = builder.mul(context.cast(builder, args[1], signature.args[1], types.intp), itemsize)
            ptr = builder.gep(builder.bitcast(ary.data, i8p), [offset])
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                                name)
            # read access, high temporal locality, data cache
            builder.call(fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
            return context.get_dummy_value()
        return types.void(arr, idx), codegen

    try:
        numba.njit(lambda a: hint(a, 0))(np.zeros(1))
    except Exception:  # noqa: BLE001 - any lowering failure: no prefetch (same results, slower)
        return lambda arr, k: None
    return lambda arr, k: hint(arr, k)


def _prefetch_dense_row_compiled(X, i):
    base = np.int64(i) * X.shape[1]
    for j in range(0, X.shape[1], LINE):
        prefetch(X, base + j)
    if X.shape[1] > 0:   # the row's last line (a row need not start on a line)
        prefetch(X, base + X.shape[1] - 1)


@compiled_as(_prefetch_dense_row_compiled)
def prefetch_dense_row(X, i) -> None:
    """Request every cache line of row ``i`` of the C-ordered ``X`` (nothing in Python)."""


def _prefetch_dense_head_compiled(X, i):
    d = X.shape[1]
    base = np.int64(i) * d
    for j in range(0, min(d, HEAD), LINE):
        prefetch(X, base + j)
    if 0 < d <= HEAD:
        prefetch(X, base + d - 1)


@compiled_as(_prefetch_dense_head_compiled)
def prefetch_dense_head(X, i) -> None:
    """Request the first ``HEAD`` entries of row ``i`` of the C-ordered ``X`` (the whole row if it is that short;
    nothing in Python): for a long row, the start of the row and of its page, the hardware prefetcher follows the
    rest once the row is read. Measured at n = 20,000, d = 500 in random order: 10 % less per epoch than no request
    and than requesting the whole next row."""


def _prefetch_csr_row_compiled(data, indices, indptr, i):
    s, e = indptr[i], indptr[i + ONE]
    for j in range(s, e, LINE):
        prefetch(data, j)
    if e > s:
        prefetch(data, e - 1)
    for j in range(s, e, INDEX_LINE):
        prefetch(indices, j)


@compiled_as(_prefetch_csr_row_compiled)
def prefetch_csr_row(data, indices, indptr, i) -> None:
    """Request the cache lines of the values and column indices of CSR row ``i`` (nothing in Python)."""


# dot and axpy with one row ------------------------------------------------------------------------------------
def _dense_dot_compiled(X, i, w):
    return _LONG_DOT(X[i], w)


def _long_dot(row, w):
    """``rowᵀw`` as a loop that numba compiles with reassociation allowed (``fastmath={"reassoc"}``, this function
    only: the round that calls it keeps IEEE order), so LLVM vectorises it with several partial sums, as BLAS
    ``ddot`` does. Measured in random row order at n = 20,000, d = 500 (one thread): an epoch of ``dual-cd`` 6.1 ms
    with ``ddot`` (its call and checks cost more than the sum) against 3.95 ms, one ``X @ w`` 2.3 ms; ``dual-cd`` to
    1e-4 on the bench's 50,000 x 100 instance 55 -> 39 ms, on MNIST 4 vs 9 (784 features) 6.5 -> 5.5 ms. A plain
    loop (IEEE order, one sum) is 2x slower than ``ddot``; inlined into the round the flag is lost, hence a
    separate compiled function (:func:`jit_rows` builds it). It also replaced a sequential loop that the rounds
    used for rows of at most 32 entries (where a call to ``ddot`` cost more than the sum, and its mere presence in a
    round made the loop 3x slower): as fast or faster at every length measured (d = 3 to 30; phishing, 1,250 x 9,
    to 1e-4: 0.68 -> 0.62 ms; raw breast cancer: 106 -> 83 ms), so every dense row goes through here."""
    s = 0.0
    for j in range(row.shape[0]):
        s += row[j] * w[j]
    return s


_LONG_DOT = None   # _long_dot compiled, set by jit_rows before any round that calls it is compiled


@compiled_as(_dense_dot_compiled)
def dense_dot(X, i, w):
    """``x_iᵀw`` for row ``i`` of the C-ordered ``X`` (BLAS ``ddot``; compiled: :func:`_long_dot`)."""
    return _blas.ddot(X[i], w)


def _dense_axpy_compiled(c, X, i, w):
    xi = X[i]
    for k in range(xi.shape[0]):
        w[k] += c * xi[k]


@compiled_as(_dense_axpy_compiled)
def dense_axpy(c, X, i, w) -> None:
    """``w += c x_i`` in place."""
    w += c * X[i]


def _sparse_dot_compiled(data, indices, start, end, w):
    s = 0.0
    for k in range(start, end):
        s += data[k] * w[np.uint64(indices[k])]
    return s


@compiled_as(_sparse_dot_compiled)
def sparse_dot(data, indices, start, end, w):
    """``x_iᵀw`` for the CSR row stored in ``data[start:end]``, summed in storage order."""
    if end == start:
        return 0.0
    return float(np.cumsum(data[start:end] * w[indices[start:end]])[-1])


def _sparse_axpy_compiled(c, data, indices, start, end, w):
    for k in range(start, end):
        w[np.uint64(indices[k])] += c * data[k]


@compiled_as(_sparse_axpy_compiled)
def sparse_axpy(c, data, indices, start, end, w) -> None:
    """``w += c x_i`` in place for the CSR row stored in ``data[start:end]`` (canonical: no repeated column)."""
    w[indices[start:end]] += c * data[start:end]
