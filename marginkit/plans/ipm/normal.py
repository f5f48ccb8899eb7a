"""The normal equations of the SVM's interior-point step: the ``d × d`` matrix ``I + Xᵀ D X`` (bordered by the
offset's row and column with a bias), formed where ``X`` lives by the backend's weighted Gram product and factored
by Cholesky on the host.

The derivation is in :mod:`marginkit.plans.ipm.core`; here is only what costs: one pass over ``X`` per interior-point
iteration (``n d²`` flops: :meth:`~marginkit.core.backend.Backend.weighted_gram`, on NumPy the symmetric rank-k update
``dsyrk`` over row blocks, so the temporary is one block of rows, never an ``n × d`` copy; a product in the array
library's namespace on an array-API device; a partial Gram matrix per row chunk summed across the chunks on dask),
and a Cholesky factorisation of ``d`` (or ``d + 1``) rows, on the host whatever the backend (SciPy's ``cho_factor``:
``d`` is small, so one code path factors and solves for every backend, and the regularised retries below behave
the same everywhere). No ``n × n`` matrix is
ever formed (the point of Ferris & Munson 2003, §3: the normal equations of the SVM have the size of the feature
space, whatever ``n``).

Near the end of a run ``D`` spans many orders of magnitude (its entries grow like ``1/μ`` on the free support
vectors and fall like ``μ`` elsewhere), and the matrix can lose its positive definiteness to rounding. A failed
factorisation is retried with a growing multiple of the diagonal added (a primal regularisation in the sense of
Friedlander & Orban, *A primal–dual regularized interior-point method for convex quadratic programs*, Math. Prog.
Comp. 4, 2012): the direction is then inexact, which the certificate absorbs (the status rests on the duality gap,
never on the direction). Only when every retry fails is the step declared impossible (:class:`Breakdown`).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

REGULARIZATIONS = (0.0, 1e-14, 1e-12, 1e-10, 1e-8)   # multiples of the diagonal tried, in order


class Breakdown(Exception):
    """The normal matrix could not be factored, even regularised: no direction at this point."""


class NormalEquations:
    """The factored matrix ``K = [[I + XᵀDX, XᵀD1], [1ᵀDX, 1ᵀD1]]`` (the bordered row and column only with a bias)
    of the data ``X`` and the scaling ``D`` (n-side) of the backend ``bk``, on the host, ready for :meth:`solve` with
    any host right-hand side (the predictor and the corrector share it). ``regularization``:
    the multiple of the diagonal that had to be added (0 when the matrix factored as it is)."""

    def __init__(self, bk, X, D, bias: bool):
        d = X.shape[1]
        K = bk.weighted_gram(X, D, bordered=bias)
        K[np.arange(d), np.arange(d)] += 1.0   # the identity of the w block (not the offset's corner)
        self.bias = bias
        if not np.all(np.isfinite(K)):
            raise Breakdown("the normal matrix is not finite")
        diag = np.abs(np.diag(K)).copy()
        for reg in REGULARIZATIONS:
            try:
                A = K if reg == 0.0 else K + np.diag(reg * diag)
                self.factor = cho_factor(A, lower=False, overwrite_a=reg != 0.0, check_finite=False)
            except (LinAlgError, ValueError):
                continue
            if np.all(np.isfinite(self.factor[0])) and np.all(np.diag(self.factor[0]) > 0):
                self.regularization = reg
                return
        raise Breakdown("the normal matrix is not positive definite in floating point, even regularised")

    def solve(self, rw: np.ndarray, rb: float = 0.0) -> tuple[np.ndarray, float]:
        """``(dw, db)`` solving ``K [dw; db] = [rw; rb]`` (``db = 0`` without a bias)."""
        rhs = np.append(rw, rb) if self.bias else rw
        sol = cho_solve(self.factor, rhs, check_finite=False)
        if not np.all(np.isfinite(sol)):
            raise Breakdown("the Newton direction is not finite")
        return (sol[:-1], float(sol[-1])) if self.bias else (sol, 0.0)
