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
from .solvers import others as other_solvers
from .targets import BY_NAME, NOT_AVAILABLE


def fmt_tol(tol: float) -> str:
    return f"{tol:g}".replace("e-0", "e-")


# ----------------------------------------------------------------------------------------------------------------
# hard margin
# ----------------------------------------------------------------------------------------------------------------
def _hard_margin_row(target, X, y, cfg: Sizes, bias: bool = False) -> Row:
    row = Row.of(target, data.size(X.shape), **({"bias": True} if bias else {}))
    make = ProblemSpec("MaxMargin", (X, y), {"bias": True} if bias else {})
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


def hard_margin_bias(cfg: Sizes) -> list[Row]:
    return [_hard_margin_row(BY_NAME["hard-margin-bias"], *data.hard_margin_shifted(cfg), cfg, bias=True)]


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


# held-out shapes of the no-bias rows: (n, d, density, features, flipped labels, seed); "raw" features have
# per-column scales spread over one decade, "ball" rows are scaled into the unit ball (the package's convention).
# Raw features at d = 300 (two decades of scales) took dual-cd more than 120 s to a 1e-4 gap at C = 1 and
# liblinear's tol search longer still: such instances are kept at d <= 10 000 sparse / d = 10 dense.
HELD_OUT = {
    "dense": {"full": ((10_000, 10, 1.0, "raw", 0.0, 11), (100_000, 10, 1.0, "raw", 0.2, 12),
                       (30_000, 300, 1.0, "ball", 0.1, 13), (10_000, 2_000, 1.0, "ball", 0.05, 14)),
              "quick": ((400, 10, 1.0, "raw", 0.1, 11), (300, 40, 1.0, "ball", 0.0, 12))},
    "sparse": {"full": ((50_000, 10_000, 0.01, "raw", 0.05, 21), (100_000, 1_000, 0.05, "ball", 0.1, 22),
                        (20_000, 500, 0.5, "raw", 0.2, 23), (200_000, 47_000, 0.002, "ball", 0.05, 24)),
               "quick": ((500, 200, 0.05, "raw", 0.1, 21),)},
}
YARD_TOL = 1e-6   # the certified dual value of dual-cd at this tol is the lower bound on P* of a held-out instance


def held_out(kind: str, cfg: Sizes):
    """``[(label, X, y)]``: the held-out instances of the ``kind`` ("dense"/"sparse") row, generated from seeds
    (the last sparse one, rcv1-like 200,000 x 47,000 at 0.2 %, in the full run only)."""
    import scipy.sparse as sp
    from marginkit.api.datasets import scale_rows_to_unit_ball
    out = []
    for n, d, density, features, flip, seed in HELD_OUT[kind]["full" if cfg.high_accuracy else "quick"]:
        rng = np.random.default_rng(seed)
        if density < 1.0:
            nnz = int(round(density * n * d))   # (row, column) drawn with replacement: sp.random would draw
            rows, cols = rng.integers(0, n, nnz), rng.integers(0, d, nnz)   # from all n·d cells (70 GB for rcv1)
            X = sp.csr_matrix((rng.standard_normal(nnz), (rows, cols)), shape=(n, d))
            X.sum_duplicates()
        else:
            X = rng.standard_normal((n, d))
        if features == "raw":
            scales = 10.0 ** rng.uniform(-0.5, 0.5, size=d)
            X = X @ sp.diags(scales) if sp.issparse(X) else X * scales
            X = sp.csr_matrix(X) if sp.issparse(X) else X
        else:
            X = scale_rows_to_unit_ball(X)
        y = np.where(np.asarray(X @ rng.standard_normal(d)).ravel() >= 0, 1.0, -1.0)
        y[rng.random(n) < flip] *= -1.0
        if np.all(y == y[0]):
            y[0] = -y[0]
        label = f"n={n:,} d={d:,} {density:.1%} {features} {flip:.0%} flipped (seed {seed})"
        out.append((label, X, y))
    return out


def _race_liblinear(target, X, y, method, cfg: Sizes, gap: ObjectiveGap | None) -> dict:
    """One instance: liblinear's ``tol`` lowered by decades until it reaches the gap, then it and ``method`` timed
    side by side (interleaved, ``cfg.repeats`` pairs, ``seed`` = repeat); the optional competitors once. Returns the
    instance's record (``ratio`` = liblinear's median time over ours)."""
    import marginkit
    tol = target.tol
    prob = marginkit.SoftMarginSVM(X, y, C=1.0, bias=False)
    make = ProblemSpec("SoftMarginSVM", (X, y), {"C": 1.0, "bias": False})
    if gap is None:
        hi = mk.run_method(make, "dual-cd", mk.YARDSTICK_CAP * cfg.method_cap, tol=YARD_TOL, max_iter=mk.MAX_ITER)[1]
        gap = ObjectiveGap(float(hi.certificate["dual"]), f"dual value of dual-cd at tol {fmt_tol(YARD_TOL)}")
    rec = {"yardstick": gap.how}
    lib, tried = liblinear.search_tol(X, y, prob.objective, gap.value, tol, target.extra["tols"])
    rec["liblinear_tol_search"] = tried
    if not lib.times and "capped_after" not in lib.info:
        rec["note"] = f"liblinear did not reach the gap with tol down to {fmt_tol(target.extra['tols'][-1])}"
        return rec
    if not lib.times:   # the search was capped: ours against the last fit's time, a lower bound on liblinear's
        t, res = mk.run_method(make, method, cfg.method_cap, tol=tol, max_iter=mk.MAX_ITER, seed=0)
        if res.status != "optimal":
            rec["note"] = (f"neither reached the gap: liblinear within {liblinear.SEARCH_CAP:g}s, "
                           f"{method} ({res.status})")
            return rec
        last = lib.info["capped_after"]
        rec.update(ratio=last / t, ratio_bound="lower",
                   times={f"marginkit:{method}": t, "liblinear": None, "liblinear (stopped at s)": last},
                   accuracy={f"marginkit:{method}": gap.result(res)},
                   note=f"liblinear's tol search stopped after {liblinear.SEARCH_CAP:g}s without reaching the gap: "
                        f"the ratio is a lower bound (its last fit, {last:.3g}s, over ours)")
        return rec
    ours = Outcome(label=f"marginkit:{method}")
    for r in range(cfg.repeats):
        t, res = mk.run_method(make, method, cfg.method_cap, tol=tol, max_iter=mk.MAX_ITER, seed=r)
        if res.status != "optimal":
            rec["note"] = f"{method} did not certify {fmt_tol(tol)} within {cfg.method_cap:g}s ({res.status})"
            return rec
        ours.times.append(t)
        ours.accuracy = gap.result(res)
        if r == 0:
            ours_gap = float(res.certificate["relative_gap"])
        if r > 0:
            lib.times.append(liblinear.fit(X, y, lib.info["tol"])[0])
    scaled = ProblemSpec("SoftMarginSVM", (100.0 * X, y), {"C": 1e-4, "bias": False})   # the same problem
    t100, res100 = mk.run_method(scaled, method, cfg.method_cap, tol=tol, max_iter=mk.MAX_ITER, seed=0)
    rec["scale"] = {"time_100X_over_X": t100 / ours.times[0], "status_100X": res100.status,
                    "relative_gap_X": ours_gap, "relative_gap_100X": float(res100.certificate["relative_gap"])}
    small = X.shape[0] * X.shape[1] <= 200_000   # marginkit.certify needs the CVXPY reference: small instances only
    gap_of = ((lambda w: float(marginkit.certify(prob, w, tol=tol).certificate["relative_gap"])) if small
              else (lambda w: gap.value(prob.objective(w))))
    others = other_solvers.race(X, y, 1.0, gap_of, tol)
    rec.update(times=times(ours, lib, others), accuracy=accuracies(ours, lib, others),
               ratio=lib.time / ours.time, liblinear_tol=lib.info["tol"],
               others={o.label: o.status for o in others},
               others_gap_by="marginkit.certify" if small else "the yardstick (certify needs the CVXPY reference)")
    return rec


def _liblinear_row(target, svm_row: Row, title, X, y, win: Outcome | None, gap: ObjectiveGap | None,
                   cfg: Sizes, kind: str) -> Row:
    """The row's own instance and the held-out shapes of :data:`HELD_OUT`, each raced against liblinear; the row
    reports the worst ratio."""
    row = Row.of(target, svm_row.size, bias=False, title=title)
    method = win.method if win is not None else "dual-cd"
    instances = [(f"bench instance ({svm_row.size})", X, y, gap if win is not None else None)]
    instances += [(label, Xh, yh, None) for label, Xh, yh in held_out(kind, cfg)]
    ratios, per = {}, {}
    for label, Xi, yi, g in instances:
        try:
            rec = _race_liblinear(target, Xi, yi, method, cfg, g)
        except Exception as exc:  # noqa: BLE001 - one failing instance is reported, the others still run
            rec = {"note": f"{type(exc).__name__}: {exc}"}
        per[label] = rec
        if "ratio" in rec:
            ratios[label] = rec["ratio"]
    row.details["instances"] = per
    row.details["ratios"] = {k: round(v, 3) for k, v in ratios.items()}
    if not ratios:
        row.note = "no instance raced: " + "; ".join(f"{k}: {v.get('note', '')}" for k, v in per.items())
        return row.judge()
    worst = min(ratios, key=ratios.get)
    row.ratio = ratios[worst]
    row.times, row.accuracy = per[worst]["times"], per[worst]["accuracy"]
    row.ratio_bound = per[worst].get("ratio_bound")   # "lower" when liblinear's search was capped there
    row.details["liblinear_tol"] = per[worst].get("liblinear_tol")
    scale = {k: round(v["scale"]["time_100X_over_X"], 3) for k, v in per.items() if "scale" in v}
    row.details["time_100X_over_X"] = scale   # issue 16's scale target (same problem with C/10^4), per instance
    missing = [k for k, v in per.items() if "ratio" not in v]
    note = f"worst of {len(ratios)} instances: {worst}"
    if missing:
        note += "; not raced: " + "; ".join(f"{k} ({per[k].get('note', '')})" for k in missing)
    row.note = note
    return row.judge()


def _svm_rows(group, title, X, y, cfg: Sizes, kind: str) -> list[Row]:
    mk.warm_numba()
    plain, row_lib, row_bias = (BY_NAME[f"{group}{s}"] for s in ("", "-vs-liblinear", "-bias"))
    row, win, gap = _svm_row(plain, X, y, cfg, False, title)
    rows = [row, _liblinear_row(row_lib, row, title, X, y, win, gap, cfg, kind)]
    rows.append(_svm_row(row_bias, X, y, cfg, True, title)[0])
    return rows


def svm_dense(cfg: Sizes) -> list[Row]:
    X, y = data.svm_dense(cfg)
    return _svm_rows("svm-dense", "dense Gaussian data, rows in the unit ball, ~20 % noisy labels", X, y, cfg, "dense")


def svm_sparse(cfg: Sizes) -> list[Row]:
    X, y = data.svm_sparse(cfg)
    nnz = X.nnz / X.shape[0]
    return _svm_rows("svm-sparse", f"a9a-like sparse binary data ({nnz:.0f} nonzeros per row, CSR)", X, y, cfg,
                     "sparse")


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
