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

The classes live one per module: :mod:`.host` (:class:`Backend`, :data:`NUMPY`), :mod:`.array_api`
(:class:`ArrayAPIBackend`) and :mod:`.dask_rows` (:class:`DaskBackend`); this module chooses among them. Together
they are the one place (with the engine's choice of a method's variant) that asks where arrays live.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .array_api import ArrayAPIBackend
from .dask_rows import DaskBackend
from .host import NUMPY, Backend, ModulesByName, is_dask, is_foreign

__all__ = ["NUMPY", "ArrayAPIBackend", "Backend", "DaskBackend", "ModulesByName", "backend_of", "is_dask", "is_foreign"]


def backend_of(X) -> Backend:
    """The backend of validated data ``X`` (NumPy/SciPy, dask, or another array-API library)."""
    if isinstance(X, np.ndarray) or sp.issparse(X):
        return NUMPY
    if is_dask(X):
        return DaskBackend(X)
    return ArrayAPIBackend(X)
