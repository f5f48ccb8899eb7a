"""``solve("auto")`` (and ``method=None`` in the estimator and ``path``): the fast certified method for the data.

**The cost model** (seconds, a 2-core laptop-class machine; only the ratio matters).

* Dual coordinate ascent (``dual-cd``, ``dual-cd-bias``; Hsieh et al., ICML 2008) costs one pass over the nonzeros
  per epoch, ``T_cd ≈ E·nnz / 5e8``, and its epochs grow with the conditioning ``κ = max_i C_i ||x_i||²`` (the
  largest diagonal entry of the dual's Hessian against the unit step of a coordinate): ``E ≈ 30 + 10κ``, twice that
  with the exact offset (its multiplier loop). On rows of unit norm at ``C = 1`` that is a few dozen epochs; on raw
  features ``κ`` is in the thousands to millions, and the coordinate methods crawl (20,000 × 100 with gamma column
  scales: no 1e-2 gap in 120 s). Along a path (``warm=True``) the warm starts divide it by 5 (measured: 20 points of
  a 100,000-row path cost 25 times less than 20 cold solves; the interior-point method starts cold).
  Calibration, one BLAS thread, tol 1e-6 (``dual-cd-bias`` against ``ipm``): breast cancer z-scored 0.025 s / 0.005 s,
  digits/16 0.25 s / 0.009 s, 100,000 × 50 Gaussian 0.85 s / 0.96 s.
* The interior-point method (``ipm``; Ferris & Munson 2003) takes a few dozen iterations whatever ``κ``, each one
  Gram product of ``X`` with a diagonal and a ``d × d`` Cholesky factorisation: ``T_ipm ≈ 25·(n·d²/1e10 + d³/3e10)``
  for dense data, ``25·(nnz·d/2e9 + d³/3e10)`` below 30 % nonzeros, plus 6 ms of fixed cost (its Python-level
  iteration: river's phishing, 1,250 × 9, took 4.0 ms in 10 iterations against ``dual-cd-bias``'s 3.5 ms; the
  coordinate methods' fixed cost is about 1 ms) (counted the same way for a NumPy array and a
  CSR matrix, so the same data get the same method). It is offered up to its ``max_columns`` (3000).

``ipm`` is chosen only when its estimate is under half the coordinate method's (:data:`IPM_MARGIN`): on
well-conditioned data the two are close (100,000 × 50 above) and the default must never be slower than the coordinate
method it replaces. ``Result.info["chosen"]`` says which and why. A coordinate run
that ends on its budget (``user_limit``: its certified gap stopped shrinking fast enough) is followed by ``ipm`` where
that method applies (``info["chosen"]["fallback"]``). Other problems take the first of the estimator's preferred
methods that ``methods(problem)`` lists, else the CVXPY reference.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..core.linalg import scaled_row_norms
from .graph import methods

#: the fast certified methods tried first for each (form, bias), in order; a method the problem does not list (a
#: kernel, an offset, sample weights it does not handle) is skipped, then the CVXPY reference is the fallback
PREFERRED = {
    ("SoftMarginSVM", True): ("dual-cd-bias", "fista"),
    ("SoftMarginSVM", False): ("dual-cd", "fista"),
    # dykstra-accelerated certifies 1e-4 in about half the iterations of dual-accelerated (measured on random and
    # digits 0-vs-1 data); it has no kernel form, dual-accelerated has. With an offset the interior-point method
    # (below) or the slow 'homotopic' besides CVXPY.
    ("MaxMargin", False): ("dykstra-accelerated", "dual-accelerated"),
    ("MaxMargin", True): (),
    ("PerturbedSVMDual", True): ("fista",),
}
IPM_MAX_COLUMNS = 3000
IPM_MARGIN = 2.0   # ipm only where its estimate is this many times below the coordinate method's
IPM_FIXED, CD_FIXED = 6e-3, 1e-3   # seconds of fixed cost (Python-level iterations, setup, certificates)
CD_RATE = 5e8   # nonzeros a coordinate epoch reads per second (each read twice: a dot product and an axpy)


def _preferred(problem, listed) -> str:
    for name in PREFERRED.get((problem.form, bool(getattr(problem, "bias", True))), ()):
        if name in listed:
            return name
    return "cvxpy" if "cvxpy" in listed or not listed else listed[0]


SAMPLE_ABOVE, SAMPLE_STEP = 1 << 17, 8   # entries above which the nonzeros are counted on every 8th row


def _nonzeros(X) -> int:
    """The nonzeros of ``X``, counted the same way for a NumPy array and a CSR matrix (the same data get the same
    choice): exactly up to :data:`SAMPLE_ABOVE` entries, else on every :data:`SAMPLE_STEP`-th row and scaled (a
    count over all of a dense ``X`` cost 0.3 ms on MNIST 4 vs 9, 1,000 × 784, whose solve takes 7 ms)."""
    n, d = X.shape
    step = 1 if n * d <= SAMPLE_ABOVE else SAMPLE_STEP
    if sp.issparse(X):
        counted = int(np.diff(sp.csr_matrix(X).indptr)[::step].sum()) if step > 1 else int(X.nnz)
    else:
        counted = int(np.count_nonzero(X[::step]))
    return counted if step == 1 else counted * n // len(range(0, n, step))


def costs(problem, warm: bool = False) -> dict:
    """The cost model's numbers for a linear soft-margin problem: ``kappa``, ``nnz``, and the estimates ``cd`` and
    ``ipm`` in seconds (module docstring)."""
    X = problem.X
    n, d = X.shape
    nnz = _nonzeros(X)
    sq = problem.row_norms_squared() if hasattr(problem, "row_norms_squared") else None   # cached, shared
    if sq is None or not np.all(np.isfinite(sq)):   # squares that overflowed: the scaled norms
        sq = scaled_row_norms(X) ** 2
    C = np.asarray(problem.box, dtype=float) if hasattr(problem, "box") else np.ones(n)
    kappa = float(np.max(C * sq)) if n else 0.0
    bias = bool(getattr(problem, "bias", False))
    cd = CD_FIXED + (30.0 + 10.0 * kappa) * (2.0 if bias else 1.0) * nnz / CD_RATE / (5.0 if warm else 1.0)
    return {"kappa": kappa, "nnz": nnz, "cd": cd, "ipm": ipm_seconds(n, d + int(bias), nnz, d)}


def ipm_seconds(n: int, dd: int, nnz: int, d: int | None = None) -> float:
    """The model's ``T_ipm`` (module docstring) for ``n`` rows with ``nnz`` nonzeros in ``d`` columns (``dd``: with
    the offset's column); also what the restricted interior-point polish of the coordinate plans is charged
    (:mod:`marginkit.plans.raj_bach.polish`)."""
    d = dd if d is None else d
    sparse_like = nnz < 0.3 * n * d   # a sparse Gram product beats the dense one below about 30 % density
    return IPM_FIXED + 25.0 * ((nnz * dd / 2e9) if sparse_like else (n * dd * dd / 1e10)) + 25.0 * dd ** 3 / 3e10


def choose(problem, warm: bool = False) -> tuple[str, str]:
    """``(method, why)``: the method ``"auto"`` means for ``problem`` and the reason, in words (``warm``: for a path
    of warm-started solves)."""
    listed = methods(problem)
    first = _preferred(problem, listed)
    linear = getattr(problem, "kernel", None) is None
    host = isinstance(getattr(problem, "X", None), np.ndarray) or sp.issparse(getattr(problem, "X", None))
    if "ipm" not in listed or not linear or not host or problem.X.shape[1] + 1 > IPM_MAX_COLUMNS:
        return first, f"{first}: the first fast certified method listed for this problem"
    if problem.form == "MaxMargin" and first in ("cvxpy", "homotopic"):
        return "ipm", "ipm: the hard margin with an offset has no faster certified method"
    if problem.form != "SoftMarginSVM" or first not in ("dual-cd", "dual-cd-bias"):
        return first, f"{first}: the first fast certified method listed for this problem"
    c = costs(problem, warm)
    why = (f"kappa = max C_i||x_i||^2 = {c['kappa']:.3g}, {problem.n} x {problem.X.shape[1]}, nnz {c['nnz']}: "
           f"estimated {c['cd']:.3g} s for {first}, {c['ipm']:.3g} s for ipm")
    return ("ipm", "ipm: " + why) if IPM_MARGIN * c["ipm"] < c["cd"] else (first, f"{first}: " + why)


def solve_auto(problem, solve, **options):
    """``solve(problem, choose(problem)[0], **options)``, with ``info["chosen"]``, and ``ipm`` after a coordinate
    run that ended on its budget where ``ipm`` applies."""
    method, why = choose(problem)
    res = solve(problem, method, **options)
    chosen = {"method": method, "why": why}
    if method in ("dual-cd", "dual-cd-bias") and res.status == "user_limit" and \
            res.info.get("stopped_by") is None and "ipm" in methods(problem) and \
            problem.X.shape[1] + 1 <= IPM_MAX_COLUMNS and options.get("callback") is None:
        again = solve(problem, "ipm", **{k: v for k, v in options.items() if k not in ("max_iter", "warm_start")})
        again.info["chosen"] = {"method": "ipm", "why": why, "fallback": f"{method} ended on its budget "
                                f"({res.iterations} iterations, relative gap {res.certificate.get('relative_gap')})"}
        return again
    res.info["chosen"] = chosen
    return res
