"""How good is ``solve("auto")``'s choice? On raw and real instances (the peer rows' raw dense and sparse shapes at
three values of C, the held-out raw shapes of ``svm-dense-vs-liblinear``, the real sets that load here, and raw
gamma-scaled shapes from separable to noisy), each with and without the offset, time ``auto``, the coordinate method
and ``ipm`` to the same certified relative gap, one BLAS thread, best of up to 3 runs each, and report ``auto``
over the faster of the two. A script, not a test (the machine is shared):

    python -m benchmarks.auto_choice [--tol 1e-4] [--quick] [--output auto_choice.json]

It prints one line per instance and the count of instances within 1.3× and the worst ratio; ``--output`` writes
the records as JSON. Recorded in benchmarks/README.md ("The choice of `auto`").
"""
from __future__ import annotations

import argparse
import functools
import json
import warnings

import numpy as np

from .measure import wall


def instances(quick: bool) -> list:
    """``(label, X, y, C)``."""
    from sklearn.datasets import load_digits, load_wine

    from .datasets import FULL
    from .rows_peers import raw_counts, raw_dense, real_sets
    from .rows_race import held_out
    out = []
    if not quick:
        out += [(label[:28], X, y, 1.0) for label, X, y in held_out("dense", FULL)[:2]]
        X, y = raw_dense(20000, 100)
        out += [(f"raw dense 20,000 x 100 C={C:g}", X, y, C) for C in (0.01, 1.0, 1000.0)]
        X, y = raw_counts(20000, 1000)
        out += [(f"raw counts 20,000 x 1,000 C={C:g}", X, y, C) for C in (0.01, 1.0, 1000.0)]
    out += [(label[:28], X, y, C) for label, X, y, C in real_sets(quick)]
    Xd, yd = load_digits(return_X_y=True)
    keep = (yd == 3) | (yd == 8)
    out.append(("digits 3 vs 8, raw", Xd[keep], np.where(yd[keep] == 3, 1.0, -1.0), 1.0))
    Xw, yw = load_wine(return_X_y=True)
    out.append(("wine 0 vs rest, raw", Xw, np.where(yw == 0, 1.0, -1.0), 1.0))
    rng = np.random.default_rng(5)
    shapes = ((2000, 5, 0.0), (300, 20, 0.05)) if quick else \
        ((50000, 5, 0.0), (5000, 20, 0.0), (200, 50, 0.05), (2000, 300, 0.05))
    for n, d, flip in shapes:
        X = rng.standard_normal((n, d)) * rng.gamma(0.5, 10.0, size=d)
        y = np.where(X @ rng.standard_normal(d) >= 0, 1.0, -1.0)
        y[rng.random(n) < flip] *= -1
        out.append((f"raw gamma {n:,} x {d} {flip:.0%} flipped", X, y, 1.0))
    return out


def _best(run, repeats: int = 3, long: float = 0.3):
    """The fastest of up to ``repeats`` runs (one when a run takes over ``long`` seconds) and its result."""
    times, res = [], None
    for _ in range(repeats):
        t, res = wall(run)
        times.append(t)
        if t > long:
            break
    return min(times), res


def main(argv=None) -> list:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--quick", action="store_true", help="small instances only (what the tests run)")
    ap.add_argument("--output", default=None)
    args = ap.parse_args(argv)
    from threadpoolctl import threadpool_limits

    import marginkit as mk
    warnings.filterwarnings("ignore")
    records = []
    with threadpool_limits(1):
        for label, X, y, C in instances(args.quick):
            for bias in (False, True):
                make = functools.partial(mk.SoftMarginSVM, X, y, C=C, bias=bias)
                coordinate = "dual-cd-bias" if bias else "dual-cd"
                make().solve(coordinate, tol=1e-2, max_iter=2)   # compiled before any clock
                rec = {"instance": label, "n": X.shape[0], "d": X.shape[1], "C": C, "bias": bias}
                for name in ("auto", coordinate, "ipm"):
                    t, res = _best(lambda: make().solve(name, tol=args.tol, trace=None, seed=0, time_limit=30.0))
                    rec[name.replace("-bias", "")] = {"seconds": t, "status": res.status}
                    if name == "auto":
                        chosen = res.info["chosen"]
                        rec["chosen"], rec["probe"] = chosen["method"], chosen.get("probe")
                best = min(rec["dual-cd"]["seconds"], rec["ipm"]["seconds"])
                rec["ratio"] = rec["auto"]["seconds"] / best
                records.append(rec)
                probe = rec["probe"]
                print(f"{label:30s} bias={int(bias)} auto {rec['auto']['seconds'] * 1e3:8.1f} ms ({rec['chosen']}"
                      f"{', probe %.2f of T_ipm' % (probe['work'] / probe['budget']) if probe else ''})  "
                      f"{coordinate} {rec['dual-cd']['seconds'] * 1e3:8.1f} ms  ipm {rec['ipm']['seconds'] * 1e3:8.1f}"
                      f" ms  auto/best {rec['ratio']:.2f}", flush=True)
    ratios = [r["ratio"] for r in records]
    print(f"{sum(r <= 1.3 for r in ratios)} of {len(ratios)} within 1.3x of the faster method; worst {max(ratios):.2f}")
    if args.output:
        with open(args.output, "w") as fh:
            json.dump(records, fh, indent=1)
    return records


if __name__ == "__main__":
    main()
