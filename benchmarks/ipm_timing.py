"""``ipm`` against ``dual-cd-bias`` and CVXPY/Clarabel on badly conditioned raw features (issue 24, item 1).

The instance: a dense 20,000 × 100 Gaussian ``X`` with per-column scales drawn from a gamma distribution (shape 0.5,
scale 10: over four orders of magnitude), labels of a random hyperplane with 10 % flipped, ``SoftMarginSVM(C=1,
bias=True)``. Every answer ``(w, b)`` is judged by one certified yardstick: its relative gap ``(P(w, b) − L)/L``
against the certified lower bound ``L <= P*`` of an ``ipm`` run at ``tol=1e-11`` (its certificate's ``dual``); the
target is 1e-6. Clarabel runs at its default tolerances, tightened until its answer reaches the target. Each solver
runs ``--repeats`` times (median reported), with one BLAS thread (the machine is shared).

    python -m benchmarks.ipm_timing [--n 20000] [--d 100] [--repeats 3] [--cd-limit 120]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from threadpoolctl import threadpool_limits

import marginkit as mk

TARGET = 1e-6


def instance(n: int, d: int, seed: int = 0, flip: float = 0.1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.sign(X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n))
    y[rng.random(n) < flip] *= -1
    return X * rng.gamma(0.5, 10.0, size=d), y


def gap_of(p, w, b, lower: float) -> float:
    f = p.X @ w + b
    primal = 0.5 * float(w @ w) + float(p.box @ np.maximum(0.0, 1.0 - p.y * f))
    return (primal - lower) / lower


def clarabel(p, options):
    import cvxpy as cp
    prob = p.compile("cvxpy")
    start = time.perf_counter()
    prob.solve(solver=cp.CLARABEL, **options)
    elapsed = time.perf_counter() - start
    w = b = None
    for v in prob.variables():
        if v.shape == (p.d,):
            w = np.asarray(v.value).ravel()
        elif v.shape == () or v.size == 1:
            b = float(np.asarray(v.value).ravel()[0])
    return elapsed, w, (0.0 if b is None else b)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--d", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cd-limit", type=float, default=120.0, help="time_limit of each coordinate run (s)")
    ap.add_argument("--no-bias", action="store_true", help="SoftMarginSVM(bias=False), against dual-cd")
    args = ap.parse_args(argv)
    X, y = instance(args.n, args.d)
    p = mk.SoftMarginSVM(X, y, C=1.0, bias=not args.no_bias)
    coordinate = "dual-cd" if args.no_bias else "dual-cd-bias"
    print(f"n={args.n} d={args.d}  C·max||x_i||² = {float(np.max((X ** 2).sum(1))):.3g}")
    with threadpool_limits(1):
        lower = p.solve("ipm", tol=1e-11).certificate["dual"]
        rows = {}
        runs = [p.solve("ipm", tol=TARGET, trace=None) for _ in range(args.repeats)]
        rows["ipm"] = ([r.time for r in runs], gap_of(p, runs[-1].w, runs[-1].b, lower),
                       f"{runs[-1].iterations} iterations, {runs[-1].status}")
        runs = [p.solve(coordinate, tol=TARGET, trace=None, time_limit=args.cd_limit)
                for _ in range(args.repeats)]
        rows[coordinate] = ([r.time for r in runs], gap_of(p, runs[-1].w, runs[-1].b, lower),
                                f"{runs[-1].iterations} epochs, {runs[-1].status}")
        options = {}
        for tight in (None, 1e-9, 1e-11):
            if tight is not None:
                options = {"tol_gap_abs": tight, "tol_gap_rel": tight, "tol_feas": tight}
            got = [clarabel(p, options) for _ in range(args.repeats)]
            gap = gap_of(p, got[-1][1], got[-1][2], lower)
            if gap <= TARGET:
                break
        rows["CVXPY/Clarabel"] = ([g[0] for g in got], gap, f"options {options or 'default'}")
    base = statistics.median(rows["ipm"][0])
    print(f"{'solver':<16} {'median s':>9} {'runs (s)':<28} {'certified gap':>13}  ratio to ipm  note")
    for name, (ts, gap, note) in rows.items():
        med = statistics.median(ts)
        print(f"{name:<16} {med:9.3f} {', '.join(f'{t:.2f}' for t in ts):<28} {gap:13.2e}  {med / base:8.1f}x   {note}")


if __name__ == "__main__":
    main()
