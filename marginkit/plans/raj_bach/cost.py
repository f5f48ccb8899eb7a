"""The cost of one coordinate epoch against one mat-vec (``marginkit bench``, ``benchmarks/``): an epoch reads each
row of X twice, in random order, so it should cost a few products with X, compiled or not."""
from __future__ import annotations

import time as _time

import numpy as np


def epoch_cost_ratio(n: int = 20000, d: int = 500, seed: int = 0, method: str = "dykstra", p: float = 2.0,
                     repeats: int = 5, compiled: bool | str = "auto") -> dict:
    """Median time of one epoch (``n`` coordinate updates) of ``method`` over the median time of one
    mat-vec ``X @ w`` with the same dense Gaussian ``X`` (n × d), in this process, ``repeats`` times each,
    after one warm-up epoch (numba compilation); ``compiled`` is the plan's option (``"auto"``, True, False).

    Epochs alternate with single-threaded mat-vecs while BLAS is limited to one thread (``threadpoolctl``,
    shipped with scikit-learn): idle OpenBLAS workers busy-wait after a threaded call and would take a core
    from the sequential epoch. The mat-vecs with NumPy's default threads are timed afterwards, in a block.
    ``ratio`` compares with the default-threaded mat-vec, ``ratio_single_thread`` with the single-threaded one.
    """
    from ...formulations import MinNormFeasibility
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) >= 0, 1.0, -1.0)
    plan = MinNormFeasibility(X, y, p=p).compile(method, compiled=compiled)
    w = rng.standard_normal(d)
    Xp = plan.form.X
    try:
        from threadpoolctl import threadpool_limits
        single = threadpool_limits(limits=1, user_api="blas")
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        single = None

    def timed(fn):
        t0 = _time.perf_counter()
        fn()
        return _time.perf_counter() - t0

    try:
        state = plan.step(plan.init(np.random.default_rng(seed), None))
        t_epoch, t_mv1 = [], []
        for _ in range(repeats):
            t_epoch.append(timed(lambda: plan.step(state)))
            t_mv1.append(timed(lambda: Xp @ w))
    finally:
        if single is not None:
            single.restore_original_limits()
    t_mv = [timed(lambda: Xp @ w) for _ in range(repeats + 1)][1:]
    e, m, m1 = float(np.median(t_epoch)), float(np.median(t_mv)), float(np.median(t_mv1))
    return {"ratio": e / m, "ratio_single_thread": e / m1 if single is not None else np.nan, "epoch_seconds": e,
            "matvec_seconds": m, "matvec_single_thread_seconds": m1 if single is not None else np.nan,
            "backend": plan.resolved_backend, "compiled": plan.resolved_backend == "numba", "method": method, "n": n,
            "d": d, "p": p}
