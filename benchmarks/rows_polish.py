"""The polish rows: ``dual-cd`` and ``dual-cd-bias`` with their restricted interior-point polish (option ``polish``,
:mod:`marginkit.plans.svm_cd.polish`) against ``polish=False``, each to a certified relative gap of 1e-6; the ratio
is the worse of the two methods.

* ``polish-raw``: raw dense features, Gaussian times gamma(0.5, 10) column scales, 5 % flipped labels
  (:func:`benchmarks.rows_peers.raw_dense`), C = 1: ``C·max||x_i||²`` in the thousands, the epochs crawl;
* ``polish-few-sv``: ``separated`` of ``benchmarks/screening_timing.py`` (5 % support vectors): the epochs identify
  the support vectors early, then rotate slowly among the free ones;
* ``polish-none``: ``overlapping`` (every sample a support vector, the epochs converge fast): the polish must stay
  out of the way (its rule sees the gap falling fast), ratio with over without.

A run without the polish that reaches the row's cap (``extra["cap"]``) counts at the cap: the ratio is then a lower
bound. The runs alternate (off, on, off, on, ...), medians reported.
"""
from __future__ import annotations

import statistics

from .datasets import Sizes, size
from .measure import wall
from .objective import Row
from .rows_peers import raw_dense
from .screening_timing import overlapping, separated
from .targets import BY_NAME

METHODS = ("dual-cd", "dual-cd-bias")


def _solve(problem, method, polish, tol, cap):
    return wall(lambda: problem.solve(method, tol=tol, seed=0, max_iter=10 ** 7, time_limit=cap, polish=polish))


def _row(target, X, y, cfg: Sizes) -> Row:
    import marginkit
    cap = target.extra["cap"] if cfg.high_accuracy else 5.0
    row = Row.of(target, size(X.shape))
    ratios, capped = {}, {}
    for method in METHODS:
        problem = marginkit.SoftMarginSVM(X, y, C=1.0, bias=method.endswith("bias"))
        problem.solve(method, tol=1e-2, seed=0, max_iter=3)   # compile the kernels before any clock
        t = {False: [], True: []}
        res = {}
        for _ in range(cfg.repeats):
            for polish in (False, True):
                if polish is False and t[False] and t[False][-1] >= cap:   # once capped, not again
                    continue
                s, r = _solve(problem, method, polish, target.tol, cap)
                t[polish].append(s if r.status == "optimal" else max(s, cap))
                res[polish] = r
        med = {k: statistics.median(v) for k, v in t.items()}
        capped[method] = res[False].status != "optimal"
        ratios[method] = med[True] / med[False] if target.comparison == "<=" else med[False] / med[True]
        for k, r in res.items():
            label = f"{method} polish={k}"
            row.times[label] = med[k]
            row.accuracy[label] = float(r.certificate["relative_gap"])
            row.details.setdefault("runs", {})[label] = [round(x, 4) for x in t[k]]
            row.details.setdefault("statuses", {})[label] = r.status
            row.details.setdefault("epochs", {})[label] = r.info.get("epochs")
            row.details.setdefault("polished", {})[label] = r.info.get("polished")
    worst = min(ratios, key=ratios.get) if target.comparison == ">=" else max(ratios, key=ratios.get)
    row.ratio = ratios[worst]
    row.ratio_bound = "lower" if capped[worst] and target.comparison == ">=" else None
    row.details["ratios"] = ratios
    stopped = [m for m, c in capped.items() if c]
    return row.judge(f"worst: {worst}" + (f"; polish=False stopped at its {cap:g} s cap for {', '.join(stopped)}"
                                          if stopped else ""))


def polish_rows(cfg: Sizes) -> list[Row]:
    n = cfg.screening_n
    raw_n, raw_d = (20000, 100) if cfg.high_accuracy else (600, 20)
    return [_row(BY_NAME["polish-raw"], *raw_dense(raw_n, raw_d, seed=1), cfg),
            _row(BY_NAME["polish-few-sv"], *separated(n, 50), cfg),
            _row(BY_NAME["polish-none"], *overlapping(n, 50), cfg)]

