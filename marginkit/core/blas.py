"""One busy BLAS thread pool at a time during an interior-point run on the host.

The pip wheels of NumPy and SciPy each carry their own OpenBLAS (``numpy.libs/libscipy_openblas64_…`` and
``scipy.libs/libscipy_openblas…``), each with a pool of as many threads as cores. After a call, an OpenBLAS worker
keeps spinning for a while before it sleeps. ``ipm`` alternates the two libraries at every iteration: NumPy's for its
length-n products (``X v``, ``Xᵀ u``, dot products), SciPy's for the ``d × d`` Gram product (``dsyrk``) and the
Cholesky factorisation. The spinning workers of one pool then take the cores the other pool's threads need. NumPy's
calls here read memory at its bandwidth, so one thread loses nothing; SciPy's ``dsyrk`` is where the flops are
(the timings with each pool at one or two threads: benchmarks/README.md, "BLAS thread pools during ``ipm``").

:func:`one_numpy_pool` holds NumPy's pool to one thread for the duration of a run when it is a library of its own
(two BLAS libraries loaded, one of them under NumPy's directory), and does nothing where NumPy and SciPy share one
BLAS (a conda MKL or system OpenBLAS), where the limit would slow the Gram product too. The limit is undone when the
run ends, back to what it was (a user's own ``threadpoolctl`` limit included). threadpoolctl (a dependency of
scikit-learn) finds the pools.
"""
from __future__ import annotations

import functools
from contextlib import contextmanager, nullcontext


@functools.cache
def _numpy_pool():
    """The threadpoolctl controller of NumPy's own BLAS when SciPy's is another library, else None (found once per
    process)."""
    try:
        import numpy
        import scipy.linalg  # noqa: F401  (loads SciPy's BLAS, so that it is seen)
        from threadpoolctl import ThreadpoolController
        blas = [c for c in ThreadpoolController().lib_controllers if c.user_api == "blas"]
    except Exception:  # noqa: BLE001 - no threadpoolctl, or a library it cannot read: leave the pools alone
        return None
    where = numpy.__file__.rsplit("numpy", 1)[0] + "numpy"   # numpy/ and the wheel's numpy.libs/
    own = [c for c in blas if c.filepath.startswith(where)]
    return own[0] if len({c.filepath for c in blas}) >= 2 and len(own) == 1 else None


@contextmanager
def _limited(pool):
    before = pool.get_num_threads()
    if before <= 1:
        yield
        return
    pool.set_num_threads(1)
    try:
        yield
    finally:
        pool.set_num_threads(before)


def one_numpy_pool():
    """A context manager: NumPy's BLAS pool at one thread inside, where it is a library of its own (module
    docstring); a null context otherwise."""
    pool = _numpy_pool()
    return nullcontext() if pool is None else _limited(pool)
