"""The screening rows (issue 23, item 5): ``dual-cd`` with gap-safe screening (``screening=True``) against
``screening=False``, each to a certified relative gap of 1e-6, and ``marginkit.path`` over 20 values of C against
20 cold solves.

* ``screening-few-sv``: ``separated`` of ``benchmarks/screening_timing.py`` (classes pushed apart, 2 % flipped
  labels, C = 1): few support vectors, most samples provably at ``α*ᵢ = 0``; the ratio is the time without over
  the time with screening.
* ``screening-none``: ``overlapping`` (labels independent of the features, C = 1): every sample is a support
  vector, nothing can be screened; the ratio is the time with over the time without (the cost of the checks).
* ``path-vs-cold``: ``separated`` with 5 % flipped labels, 20 values of C in [1e-3, 10] (log-spaced), each point
  to the certified 1e-6; the ratio is 20 cold ``dual-cd`` solves over one ``path`` call (sequential screening from
  the previous point, then dynamic screening), and every point must be ``optimal``.

The runs alternate (off, on, off, on, ...) so that the machine's load drifts on both alike; the medians are
reported. Each run records ``certificate["screened"]`` (removed and fixed) and the trace's ``screened`` column
against the epochs (``details["screened_by_epoch"]``).
"""
from __future__ import annotations

import statistics

import numpy as np

from .datasets import Sizes, size
from .measure import wall
from .objective import Row
from .screening_timing import overlapping, separated
from .targets import BY_NAME

TOL = 1e-6


def _solve(problem, screening, cap):
    return wall(lambda: problem.solve("dual-cd", tol=TOL, seed=0, max_iter=10 ** 7, time_limit=cap,
                                      screening=screening))


def _fractions(res, n) -> dict:
    s = res.certificate.get("screened") or {}
    return {"removed": s.get("removed", 0) / n, "fixed": s.get("fixed", 0) / n}


def _by_epoch(res, n) -> list:
    """``[epochs, fraction screened]`` at each trace record."""
    tr = res.trace
    if tr is None or "screened" not in tr.keys():
        return []
    return [[float(e), float(s) / n] for e, s in zip(tr["epochs"], tr["screened"])]


def _pair(target, X, y, cfg):
    import marginkit
    n = X.shape[0]
    problem = marginkit.SoftMarginSVM(X, y, C=1.0, bias=False)
    problem.solve("dual-cd", tol=1e-2, seed=0)   # compile the kernels before any clock
    t = {False: [], True: []}
    res = {}
    for _ in range(cfg.repeats):
        for screening in (False, True):
            s, r = _solve(problem, screening, cfg.method_cap * 5)
            t[screening].append(s if r.status == "optimal" else np.inf)
            res[screening] = r
    med = {k: statistics.median(v) for k, v in t.items()}
    a = res[False].dual["a"]
    row = Row.of(target, size(X.shape))
    row.times = {"dual-cd screening=False": med[False], "dual-cd screening=True": med[True]}
    row.accuracy = {f"dual-cd screening={k}": float(r.certificate["relative_gap"]) for k, r in res.items()}
    row.details.update(runs={str(k): [round(x, 4) for x in v] for k, v in t.items()},
                       support_vectors=float(np.count_nonzero(a > 0) / n),
                       screened=_fractions(res[True], n),
                       epochs={str(k): r.info.get("epochs") for k, r in res.items()},
                       screened_by_epoch=_by_epoch(res[True], n),
                       statuses={str(k): r.status for k, r in res.items()})
    return row, med


def screening_rows(cfg: Sizes) -> list[Row]:
    n = cfg.screening_n
    out = []
    row, med = _pair(BY_NAME["screening-few-sv"], *separated(n, 50), cfg)
    row.ratio = med[False] / med[True]
    out.append(row.judge(f"support vectors {row.details['support_vectors']:.1%}; screened "
                         f"{row.details['screened']['removed']:.1%} removed, "
                         f"{row.details['screened']['fixed']:.1%} fixed"))
    row, med = _pair(BY_NAME["screening-none"], *overlapping(n, 50), cfg)
    row.ratio = med[True] / med[False]
    out.append(row.judge(f"support vectors {row.details['support_vectors']:.1%}; screened "
                         f"{row.details['screened']['removed'] + row.details['screened']['fixed']:.1%}"))
    out.append(path_row(cfg))
    return out


def path_row(cfg: Sizes) -> Row:
    import marginkit
    target = BY_NAME["path-vs-cold"]
    X, y = separated(cfg.path_n, 50, noise=0.05)
    grid = np.logspace(-3, 1, target.extra["points"])
    problem = marginkit.SoftMarginSVM(X, y, bias=False)
    problem.solve("dual-cd", tol=1e-2, seed=0)
    opts = dict(method="dual-cd", tol=TOL, seed=0, max_iter=10 ** 7)
    tp, path = wall(lambda: marginkit.path(problem, C=grid, **opts))
    tc, cold = wall(lambda: [marginkit.SoftMarginSVM(X, y, C=c, bias=False).solve("dual-cd", tol=TOL, seed=0,
                                                                                  max_iter=10 ** 7) for c in grid])
    row = Row.of(target, size(X.shape) + f", {grid.size} values of C")
    row.times = {"marginkit.path": tp, "20 cold dual-cd solves": tc}
    row.accuracy = {"marginkit.path (worst point)": max(float(r.certificate["relative_gap"]) for r in path),
                    "cold (worst point)": max(float(r.certificate["relative_gap"]) for r in cold)}
    statuses = sorted({r.status for r in path})
    row.details.update(statuses=statuses, cold_statuses=sorted({r.status for r in cold}),
                       screened_per_point=[_fractions(r, X.shape[0]) for r in path])
    row.ratio = tc / tp if statuses == ["optimal"] else None
    return row.judge("" if statuses == ["optimal"] else f"a path point was not certified: {statuses}")
