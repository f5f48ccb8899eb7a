"""The scale row of issue 13: a synthetic problem larger than the single-process path is meant for, on dask workers.

Run it by hand (it is not part of ``marginkit bench`` nor of the default tests)::

    python benchmarks/scale.py                        # full size, 1 and 2 local worker processes
    python benchmarks/scale.py --quick                # 2·10⁵ × 20, seconds
    python benchmarks/scale.py --rows 20000000 --cols 50 --workers 1,2 --memory-limit 10GB
    python benchmarks/scale.py --scheduler tcp://host:8786      # an existing cluster (its workers, as they are)
    python benchmarks/scale.py --gpu                  # the GPU row only (prints "no GPU: skipped" without one)

The data (:func:`synthetic`) are generated chunk by chunk ON THE WORKERS from a seed (``da.map_blocks`` with the
block's index as part of the seed) and persisted there; the driver never holds ``X``. They are separable through the
origin by construction (every row has ``y_i x_iᵀw* >= shift``), so ``MaxMargin(bias=False)`` and
``SoftMarginSVM(bias=False)`` are both well posed.

For every worker count it reports: the time to read ``X`` twice (two ``X.sum()`` passes: the bandwidth limit of one
iteration, which needs ``X @ w`` and ``Xᵀq``), then for ``dual-accelerated`` on MaxMargin and ``fista`` on
SoftMarginSVM(bias=False) to a certified relative gap ``--tol`` (1e-3): the wall time, iterations, seconds per
iteration, that cost over the two-pass read time, the driver's peak Python allocation during the solve
(``tracemalloc``) and the driver's peak resident size (``resource.getrusage``). A method not registered for dask
data is reported "not available" (the registry decides: ``marginkit.methods(problem)``).

The projection to 8–64 workers is a model, printed with its inputs: the measured per-iteration time at 1 and 2
workers is split into a part that divides by the worker count and a fixed part (scheduler round trips),
``T(K) = a/K + b``, and the communication the driver handles per iteration is added: every worker sends its
``Xᵀq`` block sum (``d`` float64) and receives ``w`` (``d`` float64), i.e. ``2·d·8`` bytes per worker plus a few
scalars, at ``--network-gbps`` (10 Gbit/s by default).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time
import tracemalloc

import numpy as np

QUICK = dict(rows=200_000, cols=20, chunk_rows=50_000)
# the SVM's C as a multiple of 1/n (λ = 1/(nC) = 0.1 in the mean-hinge scaling): fista certifies 1e-3 in about 80
# iterations on this generator at every n (77 at n = 10⁵ on NumPy); C = 1 (a hard margin in all but name) needs more
# than 3,000
SVM_C_TIMES_N = 10.0
FULL = dict(rows=20_000_000, cols=50, chunk_rows=500_000)


def _block(d, seed, shift, sigma, block_info=None):
    """One row block of X, generated where it is computed: Gaussian noise orthogonal to ``w*`` plus
    ``y_i (shift + sigma |g_i|) w*`` along it, with ``y_i = ±1`` (so ``y_i x_iᵀw* >= shift``)."""
    info = block_info[None]
    i = info["chunk-location"][0]
    m = info["chunk-shape"][0]
    wstar = _wstar(d, seed)
    rng = np.random.default_rng([seed, i])
    G = sigma * rng.standard_normal((m, d))
    along = G @ wstar
    G -= np.outer(along, wstar)
    y = np.where(rng.random(m) < 0.5, -1.0, 1.0)
    G += np.outer(y * (shift + np.abs(along)), wstar)
    return G


def _wstar(d, seed):
    w = np.random.default_rng([seed, 2**31]).standard_normal(d)
    return w / np.linalg.norm(w)


def synthetic(n, d, chunk_rows, seed=0, shift=1.0, sigma=0.2):
    """``(X, y)`` as persisted dask arrays (``X`` row-chunked, ``chunk_rows`` rows a block), computed on the
    workers of the current dask client; ``y = sign(X w*)`` is computed there too."""
    import dask
    import dask.array as da
    chunks = [chunk_rows] * (n // chunk_rows) + ([n % chunk_rows] if n % chunk_rows else [])
    X = da.map_blocks(_block, d, seed, shift, sigma, dtype=np.float64, chunks=(tuple(chunks), (d,)),
                      meta=np.empty((0, 0)))
    y = da.sign(X @ _wstar(d, seed))
    X, y = dask.persist(X, y)
    return X, y


def read_twice(X) -> float:
    """Seconds for two full passes over ``X`` (two ``X.sum()``): what one iteration must at least read."""
    t = time.perf_counter()
    X.sum().compute()
    X.sum().compute()
    return time.perf_counter() - t


def timed_solve(problem, method, tol, max_iter):
    """Solve with the driver's allocations traced; a dict of the row's numbers (or ``available: False``)."""
    import marginkit as mk
    if method not in mk.methods(problem):
        return {"method": method, "available": False}
    tracemalloc.start()
    t = time.perf_counter()
    res = problem.solve(method, tol=tol, max_iter=max_iter, trace=None)
    wall = time.perf_counter() - t
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    cert = res.certificate or {}
    gap = cert.get("relative_gap", cert.get("relative_gap_bound", float("nan")))
    return {"method": method, "available": True, "status": res.status, "iterations": int(res.iterations),
            "wall_s": wall, "per_iter_s": wall / max(int(res.iterations), 1), "relative_gap": float(gap),
            "driver_traced_peak_mb": peak / 2**20}


def rss_mb() -> float:
    """The driver's peak resident size so far (MB; ru_maxrss is KiB on Linux, bytes on macOS)."""
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r / 2**20 if sys.platform == "darwin" else r / 2**10


def run_on_client(client, n, d, chunk_rows, tol, max_iter, seed=0):
    import marginkit as mk
    workers = len(client.scheduler_info()["workers"])
    t = time.perf_counter()
    X, y = synthetic(n, d, chunk_rows, seed=seed)
    from distributed import wait
    wait([X, y])
    gen = time.perf_counter() - t
    read2 = read_twice(X)
    rows = []
    for form, method in ((mk.MaxMargin(X, y, bias=False), "dual-accelerated"),
                         (mk.SoftMarginSVM(X, y, C=SVM_C_TIMES_N / n, bias=False), "fista")):
        row = timed_solve(form, method, tol, max_iter)
        row.update(problem=type(form).__name__ + "(bias=False)", workers=workers,
                   read_twice_s=read2, generate_s=gen)
        if row["available"]:
            row["per_iter_over_read_twice"] = row["per_iter_s"] / read2
        row["driver_rss_peak_mb"] = rss_mb()
        rows.append(row)
    del X, y
    return rows


def run_local(k, n, d, chunk_rows, tol, max_iter, memory_limit):
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=k, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0", memory_limit=memory_limit) as cluster, Client(cluster) as client:
        return run_on_client(client, n, d, chunk_rows, tol, max_iter)


def projection(rows, d, network_gbps, counts=(8, 16, 32, 64)):
    """``T(K) = a/K + b + K·(2·d·8 + 64)/bandwidth`` from the measured 1- and 2-worker per-iteration times."""
    by = {r["workers"]: r["per_iter_s"] for r in rows if r.get("available")}
    if 1 not in by or 2 not in by:
        return None
    t1, t2 = by[1], by[2]
    a = max(2.0 * (t1 - t2), 0.0)
    b = max(t1 - a, 0.0)
    bytes_per_worker = 2 * d * 8 + 64          # Xᵀq block sum in, w out, and a few scalars (max, sums, norms)
    bw = network_gbps * 1e9 / 8
    out = {"a_s": a, "b_s": b, "bytes_per_worker_per_iter": bytes_per_worker, "network_gbps": network_gbps,
           "projected_per_iter_s": {K: a / K + b + K * bytes_per_worker / bw for K in counts}}
    return out


def gpu_row(n=200_000, d=50, tol=1e-3, max_iter=2000):
    """dual-accelerated and fista on a CUDA torch array (or CuPy) against NumPy; skipped without a GPU."""
    import marginkit as mk
    to_device = None
    try:
        import torch
        if torch.cuda.is_available():
            def to_device(a):
                return torch.asarray(a, device="cuda")
    except ImportError:
        pass
    if to_device is None:
        try:
            import cupy
            if cupy.cuda.runtime.getDeviceCount() > 0:
                to_device = cupy.asarray
        except Exception:    # noqa: BLE001 -- no CuPy, no driver, no device: all mean "no GPU"
            to_device = None
    if to_device is None:
        return {"gpu": "no GPU: skipped"}
    rng = np.random.default_rng(0)
    wstar = _wstar(d, 0)
    G = 0.2 * rng.standard_normal((n, d))
    along = G @ wstar
    G -= np.outer(along, wstar)
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    X = G + np.outer(y * (1.0 + np.abs(along)), wstar)
    rows = []
    for make, method in ((lambda A, b: mk.MaxMargin(A, b, bias=False), "dual-accelerated"),
                         (lambda A, b: mk.SoftMarginSVM(A, b, C=SVM_C_TIMES_N / len(b), bias=False), "fista")):
        for where, conv in (("numpy", np.asarray), ("gpu", to_device)):
            row = timed_solve(make(conv(X), conv(y)), method, tol, max_iter)
            row["where"] = where
            rows.append(row)
    return {"gpu": rows}


def machine() -> str:
    import multiprocessing
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (f"{platform.processor() or platform.machine()}, {multiprocessing.cpu_count()} cores, {mem:.0f} GiB RAM, "
            f"Python {platform.python_version()}, NumPy {np.__version__}, load average at start "
            f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}")


def fmt_row(r) -> str:
    head = f"{r['problem']:<28} {r['method']:<17} workers={r['workers']}"
    if not r["available"]:
        return head + "  not available (not registered for dask data yet)"
    return (head + f"  {r['status']:<10} it={r['iterations']:<5} wall={r['wall_s']:.2f}s "
            f"per-iter={r['per_iter_s'] * 1e3:.1f}ms read-X-twice={r['read_twice_s'] * 1e3:.1f}ms "
            f"ratio={r['per_iter_over_read_twice']:.2f} gap={r['relative_gap']:.2g} "
            f"driver-traced-peak={r['driver_traced_peak_mb']:.1f}MB driver-rss={r['driver_rss_peak_mb']:.0f}MB")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="2·10⁵ × 20 (seconds)")
    ap.add_argument("--rows", type=int)
    ap.add_argument("--cols", type=int)
    ap.add_argument("--chunk-rows", type=int)
    ap.add_argument("--workers", default="1,2", help="local worker processes, comma separated (default 1,2)")
    ap.add_argument("--scheduler", help="address of an existing scheduler (then --workers is ignored)")
    ap.add_argument("--memory-limit", default="auto", help="per local worker, e.g. 10GB")
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--max-iter", type=int, default=2000)
    ap.add_argument("--network-gbps", type=float, default=10.0)
    ap.add_argument("--gpu", action="store_true", help="the GPU row only")
    ap.add_argument("--json", help="write the numbers to this file")
    args = ap.parse_args(argv)
    if args.gpu:
        out = gpu_row()
        if isinstance(out["gpu"], str):
            print(out["gpu"])
        else:
            for r in out["gpu"]:
                print(r)
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(out, fh, indent=1)
        return 0
    size = dict(QUICK if args.quick else FULL)
    for key in ("rows", "cols", "chunk_rows"):
        if getattr(args, key) is not None:
            size[key] = getattr(args, key)
    n, d, ch = size["rows"], size["cols"], size["chunk_rows"]
    print(f"machine: {machine()}")
    print(f"X: {n:,} x {d} float64 = {n * d * 8 / 2**30:.2f} GiB in {-(-n // ch)} chunks of {ch:,} rows; "
          f"tol {args.tol:g}, max_iter {args.max_iter}")
    rows = []
    if args.scheduler:
        from distributed import Client
        with Client(args.scheduler) as client:
            rows += run_on_client(client, n, d, ch, args.tol, args.max_iter)
    else:
        for k in (int(s) for s in args.workers.split(",") if s.strip()):
            rows += run_local(k, n, d, ch, args.tol, args.max_iter, args.memory_limit)
    for r in rows:
        print(fmt_row(r))
    proj = {}
    for method in ("dual-accelerated", "fista"):
        p = projection([r for r in rows if r["method"] == method], d, args.network_gbps)
        if p is None:
            continue
        proj[method] = p
        print(f"model for {method}: T(K) = a/K + b + K*{p['bytes_per_worker_per_iter']}B/({args.network_gbps:g} "
              f"Gbit/s), a = {p['a_s'] * 1e3:.2f}ms (divides by K), b = {p['b_s'] * 1e3:.2f}ms (round trips)")
        print("  projected per iteration: " + ", ".join(f"{K} workers {t * 1e3:.2f}ms"
                                                       for K, t in p["projected_per_iter_s"].items()))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": machine(), "size": size, "rows": rows, "projection": proj}, fh, indent=1,
                      default=str)
    return 0 if all(r["status"] == "optimal" for r in rows if r["available"]) else 1


if __name__ == "__main__":
    sys.exit(main())
