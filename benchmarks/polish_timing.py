"""Time ``dual-cd`` (or ``dual-cd-bias``) to a certified relative gap with and without its restricted interior-point
polish, on the raw dense instance of the peer rows (Gaussian features times gamma(0.5, 10) column scales, 5 % flipped
labels, C = 1), with ``ipm`` beside them. A script, not a test (the machine is shared; the run without the polish
may take many minutes, so it has a cap and then gives a lower bound):

    python -m benchmarks.polish_timing [--n 100000] [--d 300] [--tol 1e-6] [--cap 900] [--bias]

The results are printed as JSON, one line per run, and recorded in benchmarks/README.md ("The polish").
"""
from __future__ import annotations

import argparse
import json
import time

import marginkit as mk

from .rows_peers import raw_dense


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--d", type=int, default=300)
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--cap", type=float, default=900.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bias", action="store_true")
    args = ap.parse_args(argv)
    X, y = raw_dense(args.n, args.d, seed=args.seed)
    problem = mk.SoftMarginSVM(X, y, C=1.0, bias=args.bias)
    method = "dual-cd-bias" if args.bias else "dual-cd"
    problem.solve(method, tol=1e-2, max_iter=2)   # compile the kernels before any clock
    runs = [(method, {"polish": True}), ("ipm", {}), (method, {"polish": False})]
    for name, opts in runs:
        t0 = time.perf_counter()
        res = problem.solve(name, tol=args.tol, seed=0, max_iter=10 ** 8, time_limit=args.cap, **opts)
        seconds = time.perf_counter() - t0
        print(json.dumps({"n": args.n, "d": args.d, "tol": args.tol, "method": name, **opts,
                          "seconds": round(seconds, 3), "status": res.status,
                          "relative_gap": float(res.certificate["relative_gap"]),
                          "epochs": res.info.get("epochs"), "polished": res.info.get("polished")}), flush=True)


if __name__ == "__main__":
    main()
