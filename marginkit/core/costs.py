"""The terms of the cost model that the engine's choice and the plans share, in seconds of a model.

``solve("auto")`` (:mod:`marginkit.engine.choice`) weighs the interior-point method against the coordinate methods
with these estimates, and the coordinate plans charge their own work in the same units: the restricted
interior-point polish of ``dual-cd``/``dual-cd-bias`` is charged :func:`ipm_seconds` and decides by
:func:`work_to_tol`, ``smo`` counts its pair steps at :data:`SMO_STEP` and its certificates at :data:`CD_RATE`, so
that the probe of ``solve("auto")`` reads a plan's work (``state.total_work``) on the model's clock. Only ratios
matter; the values and their calibration are in docs/design/auto-choice.md.

The interior-point method (Ferris & Munson, *Interior-point methods for massive support vector machines*, SIAM J.
Optim. 13(3), 2003) takes a dozen to a few dozen iterations whatever the conditioning (the model counts
``IPM_ITERATIONS``), each a Gram product of ``X`` with a diagonal, a ``d × d`` Cholesky factorisation and about thirty
length-n vector operations::

    T_ipm ≈ IPM_FIXED + IPM_ITERATIONS·(IPM_PER_ITERATION + n·IPM_PER_SAMPLE + Gram + d³/2e11)
    Gram  = n·d²/6e10 + n·d/5e8          (dense: blocks of rows scaled by √D, then dsyrk)
          = 3e-9·nnz²/n + 7e-9·d²         (below 30 % nonzeros: one sparse product and its dense d × d copy)

A linearly converging certified gap (``g0`` after work ``w0``, ``g1`` after ``w1``) reaches ``tol`` after
``(w1 − w0)·log(g1/tol)/log(g0/g1)`` more work (:func:`work_to_tol`).
"""
from __future__ import annotations

import math

import numpy as np

IPM_FIXED, IPM_ITERATIONS, IPM_PER_ITERATION = 1e-3, 20, 2e-4   # ipm's setup, iterations, Python work per iteration
IPM_PER_SAMPLE = 1.0 / 9e6   # seconds per sample and iteration: ipm's length-n vector operations
CD_RATE = 5e8   # nonzeros per second of a product with X in smo's work model (svm_smo: a certificate is two)
SMO_FIXED, SMO_STEPS, SMO_STEP = 2e-4, 1.0, 6e-9   # seconds of setup; pair steps per sample; seconds per sample a
#                        step reads (its selection and the update of n scores)


def ipm_seconds(n: int, dd: int, nnz: int, d: int | None = None) -> float:
    """The model's ``T_ipm`` (module docstring) for ``n`` rows with ``nnz`` nonzeros in ``d`` columns (``dd``: with
    the offset's column); also what the restricted interior-point polish of the coordinate plans is charged
    (:mod:`marginkit.plans.svm_cd.polish`)."""
    d = dd if d is None else d
    if nnz < 0.3 * n * d:   # a sparse Gram product beats the dense one below about 30 % density
        gram = 3e-9 * nnz * nnz / max(n, 1) + 7e-9 * dd * dd
    else:
        gram = n * dd * dd / 6e10 + n * dd / 5e8
    iteration = IPM_PER_ITERATION + n * IPM_PER_SAMPLE + gram + dd ** 3 / 2e11
    return IPM_FIXED + IPM_ITERATIONS * iteration


def work_to_tol(w0: float, g0: float, w1: float, g1: float, tol: float) -> float:
    """The work still needed to bring the relative gap from ``g1`` down to ``tol`` at the rate of two certificate
    checks (gap ``g0`` after work ``w0``, ``g1`` after ``w1``; linear convergence, ``0 < g1 < g0``, ``g1 > tol``):
    ``(w1 − w0)·log(g1/tol)/log(g0/g1)``; infinite for ``tol <= 0`` (a positive gap never reaches 0). The polish of
    the coordinate plans and the probe of ``solve("auto")`` both decide by it."""
    if not tol > 0.0:
        return math.inf
    return (w1 - w0) * np.log(g1 / tol) / np.log(g0 / g1)
