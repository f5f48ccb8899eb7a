"""The GPU row (issue 24, item 5): ``dual-accelerated``, ``fista`` and ``ipm`` on torch CUDA and CuPy data.

Run it by hand on a machine with a GPU (it is not part of ``marginkit bench`` nor of the default tests)::

    python benchmarks/gpu.py                          # 10⁶ × 10³, float32 and float64, every library present
    python benchmarks/gpu.py --quick --cpu            # tiny, torch on the CPU: what the test suite runs
    python benchmarks/gpu.py --rows 200000 --json out.json

For every library (torch on ``cuda``, CuPy; ``--cpu`` adds torch on the CPU), dtype and method it reports:

* **time per iteration** against the device's memory bandwidth: an iteration of these methods reads ``X`` twice
  (``X @ w`` and ``Xᵀ q``; ``ipm`` forms ``XᵀDX``, d times the flops but still two reads), so
  ``2·n·d·itemsize / t_iter`` is the bandwidth the iteration achieves, printed beside the peak the device reports
  when it reports one;
* **the certificate against a CPU run** of the same problem (NumPy, float64, same number of iterations): the
  relative gap each run proves (they differ by rounding, and by the dtype in float32);
* **no host sync inside a step**: torch's sync debug mode set to "error" while ``plan.step`` runs a few times
  (a step that reads a value back to the host raises). The run loop's own checks (the certificate, the stop test)
  do synchronise, once per check.

The device image has torch, CuPy and numba but neither CVXPY nor array-api-compat: carry array-api-compat's wheel
(marginkit imports CVXPY only for references, which this script never asks for). Without a GPU (and without
``--cpu``) it prints ``no GPU: skipped`` and exits 0.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

METHODS = (("MaxMargin", "dual-accelerated"), ("SoftMarginSVM", "fista"), ("SoftMarginSVM", "ipm"))


def _libraries(cpu: bool):
    out = []
    try:
        import torch
        if torch.cuda.is_available():
            out.append(("torch", "cuda"))
        if cpu:
            out.append(("torch", "cpu"))
    except ImportError:
        pass
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() > 0:
            out.append(("cupy", "cuda"))
    except Exception:  # noqa: BLE001  (no CuPy, or no driver)
        pass
    return out


def _data(n: int, d: int, seed: int = 0):
    """Separable through the origin (``y_i x_iᵀw* >= 0.05·||x_i||``-ish), so both problems are well posed."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(d)
    w /= np.linalg.norm(w)
    X = rng.standard_normal((n, d))
    y = np.where(X @ w >= 0, 1.0, -1.0)
    X += 0.5 * y[:, None] * w
    return X, y


def _to(lib: str, device: str, A, dtype: str):
    if lib == "torch":
        import torch
        return torch.as_tensor(A, dtype=getattr(torch, dtype), device=device)
    import cupy
    return cupy.asarray(A, dtype=dtype)


def _bandwidth_peak(lib: str, device: str):
    """The device's peak memory bandwidth in GB/s where it can be read (CUDA attributes), else None."""
    if device != "cuda":
        return None
    try:
        import cupy
        props = cupy.cuda.runtime.getDeviceProperties(0)
        return 2.0 * props["memoryClockRate"] * 1e3 * props["memoryBusWidth"] / 8 / 1e9
    except Exception:  # noqa: BLE001
        return None


def _no_sync_in_steps(lib: str, device: str, plan, steps: int = 3) -> str:
    """'yes' when ``steps`` calls of ``plan.step`` ran under torch's sync debug mode 'error', the error otherwise;
    'not checked' off CUDA torch."""
    if lib != "torch" or device != "cuda":
        return "not checked"
    import torch

    from marginkit.engine.runloop import Budget
    state = plan.init(np.random.default_rng(0), None, Budget(max_iter=100, tol=0.0))
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        for _ in range(steps):
            state = plan.step(state)
        return "yes"
    except RuntimeError as exc:
        return f"no: {str(exc).splitlines()[0][:100]}"
    finally:
        torch.cuda.set_sync_debug_mode("default")


def _problem(form: str, X, y):
    import marginkit as mk
    return mk.MaxMargin(X, y, bias=False) if form == "MaxMargin" else mk.SoftMarginSVM(X, y, C=1.0, bias=False)


def row(lib, device, dtype, form, method, X, y, iters, cpu_gap) -> dict:
    Xd, yd = _to(lib, device, X, dtype), _to(lib, device, y, dtype)
    P = _problem(form, Xd, yd)
    plan = P.compile(method)
    plan.run(max_iter=2, tol=0.0, trace=None)                      # warm-up: kernels, caches, allocations
    t0 = time.perf_counter()
    res = plan.run(max_iter=iters, tol=0.0, trace=None)
    wall = time.perf_counter() - t0
    it = max(int(res.iterations), 1)
    per = wall / it
    itemsize = 4 if dtype == "float32" else 8
    achieved = 2.0 * X.shape[0] * X.shape[1] * itemsize / per / 1e9
    gap = float((res.certificate or {}).get("relative_gap", np.nan))
    return {"library": lib, "device": device, "dtype": dtype, "form": form, "method": method,
            "n": int(X.shape[0]), "d": int(X.shape[1]), "iterations": it, "seconds_per_iteration": per,
            "achieved_GBps": achieved, "peak_GBps": _bandwidth_peak(lib, device), "relative_gap": gap,
            "cpu_relative_gap": cpu_gap, "no_sync_in_step": _no_sync_in_steps(lib, device, plan)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--cols", type=int, default=1_000)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--quick", action="store_true", help="2,000 x 50, 5 iterations")
    ap.add_argument("--cpu", action="store_true", help="also torch on the CPU (what the test suite runs)")
    ap.add_argument("--dtypes", default="float32,float64")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    n, d, iters = (2000, 50, 5) if args.quick else (args.rows, args.cols, args.iters)
    libs = _libraries(args.cpu)
    if not libs:
        print("no GPU: skipped")
        return 0
    X, y = _data(n, d)
    import marginkit as mk
    rows = []
    for form, method in METHODS:
        cpu = _problem(form, X, y).compile(method).run(max_iter=iters, tol=0.0, trace=None)
        cpu_gap = float((cpu.certificate or {}).get("relative_gap", np.nan))
        for lib, device in libs:
            for dtype in args.dtypes.split(","):
                try:
                    r = row(lib, device, dtype, form, method, X, y, iters, cpu_gap)
                except mk.ProblemError as exc:   # a method that declines this data says why
                    r = {"library": lib, "device": device, "dtype": dtype, "form": form, "method": method,
                         "declined": str(exc)}
                rows.append(r)
                if "declined" in r:
                    print(f"{lib:5s} {device:4s} {dtype:7s} {method:17s} declined: {r['declined'][:80]}")
                else:
                    peak = f" of {r['peak_GBps']:.0f}" if r["peak_GBps"] else ""
                    print(f"{lib:5s} {device:4s} {dtype:7s} {method:17s} {r['seconds_per_iteration'] * 1e3:9.2f} ms/it "
                          f"{r['achieved_GBps']:8.1f}{peak} GB/s  gap {r['relative_gap']:.3g} (CPU {cpu_gap:.3g})  "
                          f"no sync in step: {r['no_sync_in_step']}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"n": n, "d": d, "iterations": iters, "rows": rows}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
