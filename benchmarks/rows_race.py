"""The race rows: marginkit's fastest method against the fastest CVXPY solver (hard margin, soft-margin SVM,
ellipsoid separation) and against liblinear. Each function takes its targets from :mod:`~benchmarks.targets` and
its data from :mod:`~benchmarks.datasets`, and returns :class:`~benchmarks.objective.Row` records.
"""
from __future__ import annotations

import numpy as np

from . import datasets as data
from .datasets import ProblemSpec, Sizes
from .measure import Outcome, accuracies, cvxpy_ratio, fastest, record_race, times
from .objective import CAPPED_NOTE, MarginGap, ObjectiveGap, Row, SeparatedFraction, margin_upper_bound
from .solvers import cvxpy_solvers, liblinear
from .solvers import marginkit_methods as mk
from .targets import BY_NAME, NOT_AVAILABLE


def fmt_tol(tol: float) -> str:
    return f"{tol:g}".replace("e-0", "e-")


# ----------------------------------------------------------------------------------------------------------------
# hard margin
# ----------------------------------------------------------------------------------------------------------------
def _hard_margin_row(target, X, y, cfg: Sizes) -> Row:
    row = Row.of(target, data.size(X.shape))
    make = ProblemSpec("MaxMargin", (X, y))
    probe = make()
    avail, missing = mk.available(probe, mk.pool(target.competitors))
    if missing:
        row.details["not_available"] = {m: NOT_AVAILABLE for m in missing}
    if not avail:
        row.note = f"no fast MaxMargin method registered ({NOT_AVAILABLE})"
        return row
    # the yardstick: the certified max margin (reference) or a certified upper bound from a high-accuracy run
    yard, gap, how = target.yardstick_for(cfg), MarginGap(), ""
    if yard.kind == "reference-margin":
        ref = probe.reference()
        gap.gamma, how = float(ref.margin), f"certified CVXPY reference ({ref.status})"
    outs = mk.race(make, avail, target.tol, gap.result, cfg.method_cap, cfg.repeats)
    win = fastest(outs)
    if win is None:
        row.times, row.note = times(outs), "no marginkit method certified the gap within its time limit"
        row.details["errors"] = {o.label: o.info for o in outs if o.info}
        return row.judge()
    if gap.gamma is None:   # margin-upper-bound
        hi = mk.high_accuracy(make, win.method, cfg, yard.tol)
        gap.gamma = margin_upper_bound(hi)
        if gap.gamma is None:
            raise RuntimeError(f"{win.method} returned no certified bound on the max margin: {hi.certificate}")
        how = (f"certified upper bound on the max margin from {win.method} at tol {fmt_tol(yard.tol)} ({hi.status}, "
               f"margin {hi.margin:.10g} <= max margin <= {gap.gamma:.10g}): gaps are upper bounds")
        for o in outs:
            o.accuracy = gap.result(o.result) if o.result is not None else None
    row.details["yardstick"] = how
    row.details["max_margin"] = gap.gamma
    cvx = cvxpy_solvers.race(make, gap.cvxpy, cfg.repeats, target.competitor_cap(cfg, win.time),
                             target.competitors.cvxpy)
    record_race(row, win, outs, cvx)
    return row.judge(CAPPED_NOTE if row.ratio_bound else "")


def hard_margin_synthetic(cfg: Sizes) -> list[Row]:
    return [_hard_margin_row(BY_NAME["hard-margin-synthetic"], *data.hard_margin_synthetic(cfg), cfg)]


def hard_margin_mnist(cfg: Sizes) -> list[Row]:
    return [_hard_margin_row(BY_NAME["hard-margin-mnist"], *data.hard_margin_mnist(cfg), cfg)]


# ----------------------------------------------------------------------------------------------------------------
# soft-margin SVM, and against liblinear
# ----------------------------------------------------------------------------------------------------------------
def _svm_yardstick(target, cfg, probe, make, avail) -> ObjectiveGap:
    """A certified lower bound on P* (the dual value of the reference or of a high-accuracy run); ``p=None`` for
    ``best-found`` (set once every competitor has run)."""
    yard = target.yardstick_for(cfg)
    if yard.kind == "reference-dual":
        ref = probe.reference()
        p = float(ref.certificate["dual"]) if ref.certificate else float(ref.value)
        return ObjectiveGap(p, f"dual value of the certified CVXPY reference ({ref.status})")
    if yard.kind == "high-accuracy-dual" and yard.method in avail:
        hi = mk.high_accuracy(make, yard.method, cfg, yard.tol)
        return ObjectiveGap(float(hi.certificate["dual"]), f"dual value of {yard.method} at tol {fmt_tol(yard.tol)} "
                                                           f"({hi.status}, duality gap "
                                                           f"{hi.certificate['duality_gap']:.2e})")
    return ObjectiveGap()


def _best_found(gap: ObjectiveGap, outs, cvx) -> None:
    found = {o.label: float(o.result.value) for o in outs if o.result is not None}
    found.update({o.label: o.result["value"] for o in cvx if isinstance(o.result, dict)
                  and o.result.get("status") == "optimal" and np.isfinite(o.result["value"])})
    best = min(found, key=found.get)
    gap.p, gap.how = found[best], f"best objective value found by any run ({best})"
    for o in outs:
        o.accuracy = gap.result(o.result) if o.result is not None else None
    for o in cvx:
        o.accuracy = gap.cvxpy(o.result) if isinstance(o.result, dict) else None


def _svm_row(target, X, y, cfg: Sizes, bias: bool, title: str):
    """The race row of one SoftMarginSVM(C=1, bias); also returns the winner and the yardstick (for liblinear)."""
    make = ProblemSpec("SoftMarginSVM", (X, y), {"C": 1.0, "bias": bias})
    probe = make()
    row = Row.of(target, data.size(X.shape), bias=bias, title=title)
    avail, missing = mk.available(probe, mk.pool(target.competitors))
    if missing:
        row.details["not_available"] = {m: NOT_AVAILABLE for m in missing}
    if not avail:
        row.note = f"no first-order SoftMarginSVM method for bias={bias} ({NOT_AVAILABLE})"
        return row, None, None
    gap = _svm_yardstick(target, cfg, probe, make, avail)
    outs = mk.race(make, avail, target.tol, gap.result, cfg.method_cap, cfg.repeats)
    win = fastest(outs)
    if win is None:  # report how far off: CVXPY's time against marginkit's time limit (an upper bound)
        cvx = cvxpy_solvers.race(make, gap.cvxpy, 1, cfg.method_cap, target.competitors.cvxpy)
        best = fastest(cvx)
        row.times, row.accuracy = times(outs, cvx), accuracies(outs, cvx)
        if best is not None:
            row.ratio, row.ratio_bound = best.time / cfg.method_cap, "upper"
        row.details["status"] = {o.label: o.status for o in outs}
        return row.judge(f"no marginkit SVM method certified the gap within {cfg.method_cap:g}s"), None, None
    cvx = cvxpy_solvers.race(make, gap.cvxpy, cfg.repeats, target.competitor_cap(cfg, win.time),
                             target.competitors.cvxpy)
    if gap.p is None:
        _best_found(gap, outs, cvx)
    row.details["yardstick"], row.details["optimal_value_estimate"] = gap.how, gap.p
    record_race(row, win, outs, cvx)
    return row.judge(CAPPED_NOTE if row.ratio_bound else ""), win, gap


def _liblinear_row(target, svm_row: Row, title, X, y, win: Outcome | None, gap: ObjectiveGap | None,
                   cfg: Sizes) -> Row:
    """liblinear's ``tol`` lowered by decades until it reaches the gap, then timed side by side with the
    fastest marginkit method of the SVM row (interleaved)."""
    import marginkit
    row = Row.of(target, svm_row.size, bias=False, title=title)
    if win is None:
        row.note = svm_row.note or "no marginkit SVM method certified the gap"
        return row
    tols = target.extra["tols"]
    prob = marginkit.SoftMarginSVM(X, y, C=1.0, bias=False)
    lib, tried = liblinear.search_tol(X, y, prob.objective, gap.value, target.tol, tols)
    row.details["liblinear_tol_search"] = tried
    if not lib.times:
        row.note = f"liblinear did not reach the gap with tol down to {fmt_tol(tols[-1])}"
        row.times = times(win)
        return row.judge()
    ours = Outcome(label=win.label, accuracy=win.accuracy)
    make = ProblemSpec("SoftMarginSVM", (X, y), {"C": 1.0, "bias": False})
    for _ in range(cfg.repeats):  # side by side, interleaved
        t, _r = mk.run_method(make, win.method, cfg.method_cap, tol=target.tol, max_iter=mk.MAX_ITER)
        ours.times.append(t)
        if len(lib.times) < cfg.repeats:
            lib.times.append(liblinear.fit(X, y, lib.info["tol"])[0])
    row.times, row.accuracy = times(ours, lib), accuracies(ours, lib)
    row.details["liblinear_tol"] = lib.info["tol"]
    row.ratio = lib.time / ours.time
    return row.judge()


def _svm_rows(group, title, X, y, cfg: Sizes) -> list[Row]:
    mk.warm_numba()
    plain, row_lib, row_bias = (BY_NAME[f"{group}{s}"] for s in ("", "-vs-liblinear", "-bias"))
    row, win, gap = _svm_row(plain, X, y, cfg, False, title)
    rows = [row, _liblinear_row(row_lib, row, title, X, y, win, gap, cfg)]
    rows.append(_svm_row(row_bias, X, y, cfg, True, title)[0])
    return rows


def svm_dense(cfg: Sizes) -> list[Row]:
    X, y = data.svm_dense(cfg)
    return _svm_rows("svm-dense", "dense Gaussian data, rows in the unit ball, ~20 % noisy labels", X, y, cfg)


def svm_sparse(cfg: Sizes) -> list[Row]:
    X, y = data.svm_sparse(cfg)
    nnz = X.nnz / X.shape[0]
    return _svm_rows("svm-sparse", f"a9a-like sparse binary data ({nnz:.0f} nonzeros per row, CSR)", X, y, cfg)


# ----------------------------------------------------------------------------------------------------------------
# early stopping on ellipsoids
# ----------------------------------------------------------------------------------------------------------------
def esp_early_stop(cfg: Sizes) -> list[Row]:
    import marginkit
    t_tol, t_cvx = BY_NAME["esp-early-vs-tol"], BY_NAME["esp-early-vs-cvxpy"]
    k = cfg.esp_per_class
    ellipsoids = data.esp_ellipsoids(cfg)
    make = ProblemSpec("EllipsoidSeparation", ellipsoids)
    size = f"{k} + {k} ellipsoids, d=784 (diagonal shapes)"
    vs_tol, vs_cvx = Row.of(t_tol, size), Row.of(t_cvx, size)
    probe = make()
    (method,) = t_tol.competitors.methods
    if method not in marginkit.methods(probe):
        vs_tol.note = vs_cvx.note = f"'{method}' on EllipsoidSeparation: {NOT_AVAILABLE}"
        return [vs_tol, vs_cvx]
    separated = SeparatedFraction(probe)
    ProblemSpec("EllipsoidSeparation", tuple(a[:2] for a in ellipsoids))().solve(method, max_iter=3)  # warm-up
    early = Outcome(label=f"marginkit:{method}(stop=early)")
    for _ in range(cfg.repeats):
        t, res = mk.run_method(make, method, cfg.method_cap, stop="early", max_iter=10 ** 6, iteration_bound=False)
        early.times.append(t)
        early.status, early.info["iterations"] = res.status, res.iterations
        early.accuracy = separated.result(res)
    cap_tol = t_tol.competitor_cap(cfg, early.time)
    tol_o = Outcome(label=f"marginkit:{method}(stop=tol, tol={fmt_tol(t_tol.tol)})", cap=cap_tol)
    t, res = mk.run_method(make, method, cap_tol, stop="tol", tol=t_tol.tol, max_iter=10 ** 8, iteration_bound=False)
    tol_o.status, tol_o.info["iterations"] = res.status, res.iterations
    tol_o.accuracy = separated.result(res)
    if res.status == "user_limit":
        tol_o.capped = True
    else:
        tol_o.times.append(t)
    vs_tol.times, vs_tol.accuracy = times(early, tol_o), accuracies(early, tol_o)
    vs_tol.details["iterations"] = {o.label: o.info.get("iterations") for o in (early, tol_o)}
    vs_tol.details["status"] = {o.label: o.status for o in (early, tol_o)}
    vs_tol.details["accuracy_is"] = "fraction of ellipsoids strictly on their side of the returned hyperplane"
    if tol_o.capped:
        vs_tol.ratio, vs_tol.ratio_bound = cap_tol / early.time, "lower"
    else:
        vs_tol.ratio = tol_o.time / early.time
    vs_tol.judge("the tolerance run was stopped at its cap: the ratio is a lower bound" if tol_o.capped else "")

    cvx = cvxpy_solvers.race(make, separated.cvxpy, cfg.repeats, t_cvx.competitor_cap(cfg, early.time),
                             t_cvx.competitors.cvxpy)
    vs_cvx.times, vs_cvx.accuracy = times(early, cvx), accuracies(early, cvx)
    vs_cvx.details["accuracy_is"] = vs_tol.details["accuracy_is"]
    vs_cvx.details["status"] = {o.label: o.status for o in [early] + cvx}
    vs_cvx.ratio, vs_cvx.ratio_bound = cvxpy_ratio(early, cvx)
    errs = {o.label: o.info.get("error") for o in cvx if o.info.get("error")}
    if errs:
        vs_cvx.details["errors"] = errs
    vs_cvx.judge(CAPPED_NOTE if vs_cvx.ratio_bound else "")
    return [vs_tol, vs_cvx]
