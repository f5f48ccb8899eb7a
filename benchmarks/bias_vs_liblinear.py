"""The exact offset against liblinear's penalised intercept (issue 24, item 3): ``python -m
benchmarks.bias_vs_liblinear [--quick] [--json FILE]``.

marginkit's ``SoftMarginSVM(bias=True)`` has a free offset ``b``. liblinear's ``LinearSVC(loss="hinge",
fit_intercept=True)`` solves another problem: its intercept is the weight of a constant feature
(``intercept_scaling=1``), penalised with ``w``,

    min ½(‖w‖² + b²) + C Σ_i max(0, 1 − y_i(x_iᵀw + b)),

which is ``SoftMarginSVM(bias=False)`` on ``[X, 1]``. Each answer is judged on its own problem by the same kind of
yardstick: its relative gap ``(P − L)/L`` to ``L``, the certified lower bound (the certificate's ``dual``) of a
marginkit run of that problem at 1e-8. liblinear's ``tol`` is lowered by decades until its answer reaches 1e-4;
marginkit's default (``solve("auto")``, which picks ``dual-cd-bias`` or ``ipm``) and ``dual-cd-bias`` stop on their
own certificates at 1e-4. Each is timed as in the peer rows (``benchmarks.measure.repeats_for``: medians of 3
runs, of 7 under 10 ms), on a fresh problem each run, one BLAS thread.

Instances: the held-out dense shapes of ``svm-dense-vs-liblinear`` (``benchmarks/rows_race.HELD_OUT``) and the
issue's text-like shape (150,000 × 40,000 at 0.1 %, rows of unit norm, labels of a random direction, 5 % flipped),
all at C = 1.
"""
from __future__ import annotations

import argparse
import json
import warnings

import numpy as np
import scipy.sparse as sp

from .datasets import FULL, QUICK, ProblemSpec
from .measure import repeats_for, wall
from .rows_peers import Gap
from .rows_race import held_out
from .solvers.marginkit_methods import MAX_ITER, run_method

TOL = 1e-4
YARD_TOL = 1e-8
TOLS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-8)
CAP = 240.0   # seconds of liblinear fits per instance


def text_like(n, d, density, seed=0):
    """Sparse rows of unit norm (``density`` of the entries), labels of a random direction, 5 % flipped."""
    rng = np.random.default_rng(seed)
    nnz = int(round(density * n * d))
    X = sp.csr_matrix((rng.random(nnz), (rng.integers(0, n, nnz), rng.integers(0, d, nnz))), shape=(n, d))
    X.sum_duplicates()
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = sp.csr_matrix(sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ X)   # an empty row stays empty
    y = np.where(np.asarray(X @ rng.standard_normal(d)).ravel() >= 0, 1.0, -1.0)
    y[rng.random(n) < 0.05] *= -1.0
    return X, y


def instances(quick: bool):
    cfg = QUICK if quick else FULL
    out = list(held_out("dense", cfg))
    shape = (2_000, 500, 0.01) if quick else (150_000, 40_000, 0.001)
    out.append((f"text-like {shape[0]:,} x {shape[1]:,} at {shape[2]:.1%}", *text_like(*shape)))
    return out


def penalised(X):
    """``[X, 1]``: liblinear's problem with ``fit_intercept=True`` is the SVM without an offset on it."""
    ones = np.ones((X.shape[0], 1))
    return sp.hstack([X, sp.csr_matrix(ones)], format="csr") if sp.issparse(X) else np.hstack([X, ones])


def _timed(run, first):
    """Median seconds of ``run()`` over :func:`repeats_for` runs, ``first`` (seconds) being the first."""
    times = [first] + [run() for _ in range(repeats_for(first, 3) - 1)]
    return float(np.median(times)), len(times)


def ours(spec, gap_of, method):
    """``method`` on a fresh problem of ``spec`` each run (the peer rows' ``run_method``), judged by ``gap_of``."""
    t, res = run_method(spec, method, CAP, tol=TOL, max_iter=MAX_ITER)
    seconds, runs = _timed(lambda: run_method(spec, method, CAP, tol=TOL, max_iter=MAX_ITER)[0], t)
    return {"seconds": seconds, "runs": runs, "gap": gap_of(res.w, res.b), "status": res.status,
            "method": res.method}


def liblinear(X, y, gap_of):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    def fit(tol):
        svc = LinearSVC(C=1.0, loss="hinge", fit_intercept=True, intercept_scaling=1.0, dual=True, tol=tol,
                        max_iter=20_000, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            t, _ = wall(lambda: svc.fit(X, y))
        return t, svc
    tried, spent = {}, 0.0
    for tol in TOLS:
        t, svc = fit(tol)
        spent += t
        gap = gap_of(np.append(svc.coef_.ravel(), svc.intercept_[0]))
        tried[f"{tol:g}"] = {"seconds": round(t, 4), "gap": gap}
        if gap <= TOL:
            seconds, runs = _timed(lambda: fit(tol)[0], t)
            return {"seconds": seconds, "runs": runs, "gap": gap, "tol": tol, "tried": tried}
        if spent > CAP:
            break
    return {"seconds": None, "capped_after": spent, "tried": tried}


def main(argv=None):
    import marginkit
    from threadpoolctl import threadpool_limits
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    out = []
    with threadpool_limits(1):
        marginkit.SoftMarginSVM(*text_like(200, 50, 0.1), C=1.0).solve("dual-cd-bias", max_iter=2)   # compile
        for label, X, y in instances(args.quick):
            spec = ProblemSpec("SoftMarginSVM", (X, y), {"C": 1.0, "bias": True})
            exact, penal = spec(), marginkit.SoftMarginSVM(penalised(X), y, C=1.0, bias=False)
            gap_b, gap_p = (Gap(p, float(p.solve("auto", tol=YARD_TOL, seed=0, trace=None).certificate["dual"]))
                            for p in (exact, penal))
            rec = {"instance": label, "n": X.shape[0], "d": X.shape[1], "auto": ours(spec, gap_b, "auto"),
                   "dual-cd-bias": ours(spec, gap_b, "dual-cd-bias"), "liblinear": liblinear(X, y, gap_p)}
            lib = rec["liblinear"]["seconds"]
            rec["ratio"] = None if lib is None else lib / rec["auto"]["seconds"]
            out.append(rec)
            a, c = rec["auto"], rec["dual-cd-bias"]
            lib_text = (f"{lib * 1e3:9.2f} ms (tol {rec['liblinear']['tol']:g}, gap {rec['liblinear']['gap']:.1e})"
                        if lib is not None else f"> {rec['liblinear']['capped_after']:.0f} s")
            print(f"{label[:44]:44s} auto {a['seconds'] * 1e3:9.2f} ms ({a['method']}, gap {a['gap']:.1e})  "
                  f"dual-cd-bias {c['seconds'] * 1e3:9.2f} ms  liblinear (penalised intercept) {lib_text}  "
                  f"ratio {rec['ratio'] if rec['ratio'] is None else round(rec['ratio'], 2)}", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"tol": TOL, "quick": args.quick, "rows": out}, fh, indent=1, default=float)
    return out


if __name__ == "__main__":
    main()
