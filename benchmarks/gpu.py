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
  do synchronise, once per check. ``ipm`` synchronises by design: its ``d × d`` normal matrix is factored on the
  host, and its step lengths are host scalars;
* **time to a certified tolerance** for ``ipm`` (soft margin, with and without the offset, float64): the whole
  ``solve`` to a relative gap of 1e-6 on each GPU library beside NumPy on the host's cores, with the iterations and
  the gap each run proves (NumPy without the offset only: the host's run is the slowest part of the script).

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


def _sync_sites(plan, steps: int = 3) -> list[str]:
    """The lines of marginkit at which ``steps`` calls of ``plan.step`` synchronised the host with a CUDA device:
    torch's sync debug mode "warn" raises a warning at each synchronising call, and the innermost marginkit frame of
    the Python stack at that moment names the line (``file:line function``, counted)."""
    import collections
    import os
    import traceback
    import warnings

    import torch

    from marginkit.engine.runloop import Budget
    state = plan.init(np.random.default_rng(0), None, Budget(max_iter=100, tol=0.0))
    torch.cuda.synchronize()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sites = collections.Counter()

    def hook(message, category, filename, lineno, file=None, line=None):
        if "called a synchronizing" not in str(message):   # not the mode's own "prototype feature" notice
            return
        frames = [f for f in traceback.extract_stack()
                  if os.sep + "marginkit" + os.sep in f.filename and "benchmarks" not in f.filename]
        if not frames:
            sites[f"{filename}:{lineno}"] += 1
            return
        # the innermost marginkit line and, when that is a backend helper, the plan's line that called it
        names = [frames[-1]] + [f for f in reversed(frames) if os.sep + "backend" + os.sep not in f.filename][:1]
        sites[" <- ".join(dict.fromkeys(f"{os.path.relpath(f.filename, root)}:{f.lineno} {f.name}"
                                        for f in names))] += 1

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = hook
        torch.cuda.set_sync_debug_mode("warn")
        try:
            for _ in range(steps):
                state = plan.step(state)
            torch.cuda.synchronize()
        finally:
            torch.cuda.set_sync_debug_mode("default")
    return [f"{site} x{count}" for site, count in sites.items()]


def _no_sync_in_steps(lib: str, device: str, plan, steps: int = 3) -> str:
    """'yes' when ``steps`` calls of ``plan.step`` never synchronised with the device, else 'no: ' and the lines that
    did (:func:`_sync_sites`); 'not checked' off CUDA torch."""
    if lib != "torch" or device != "cuda":
        return "not checked"
    sites = _sync_sites(plan, steps)
    return "yes" if not sites else "no: " + "; ".join(sites)


SYNC_CASES = (("MaxMargin", False), ("MaxMargin", True), ("SoftMarginSVM", False), ("SoftMarginSVM", True),
              ("PerturbedSVMDual", None))


def sync_report(n: int = 100_000, d: int = 200) -> list[dict]:
    """Every method that runs on torch CUDA data, for every problem it solves: the lines where its step synchronised
    (float64, three steps after ``init``)."""
    import marginkit as mk
    X, y = _data(n, d)
    Xd, yd = _to("torch", "cuda", X, "float64"), _to("torch", "cuda", y, "float64")
    out = []
    for form, bias in SYNC_CASES:
        kw = {} if bias is None else {"bias": bias}
        if form == "SoftMarginSVM":
            kw["C"] = 1.0
        P = getattr(mk, form)(Xd, yd, **kw)
        for method in mk.methods(P):
            if method == "cvxpy":
                continue
            try:
                sites = _sync_sites(P.compile(method))
            except Exception as exc:  # noqa: BLE001  (reported, not hidden: the report is the point)
                sites = [f"error: {type(exc).__name__}: {str(exc)[:120]}"]
            out.append({"form": form, "bias": bias, "method": method, "sync_sites": sites})
            print(f"{form:16s} bias={bias!s:5s} {method:28s} " + ("no sync" if not sites else "; ".join(sites)))
    return out


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


def to_tolerance(lib, device, X, y, bias: bool, tol: float = 1e-6) -> dict:
    """One ``ipm`` solve to ``tol`` (float64), timed whole: the data's transfer excluded, the problem's checks in."""
    import marginkit as mk
    if lib == "numpy":
        Xd, yd = X, y
    else:
        Xd, yd = _to(lib, device, X, "float64"), _to(lib, device, y, "float64")
        mk.SoftMarginSVM(Xd[:1000], yd[:1000], C=1.0, bias=bias).solve("ipm", max_iter=3, trace=None)   # warm-up
    t0 = time.perf_counter()
    res = mk.SoftMarginSVM(Xd, yd, C=1.0, bias=bias).solve("ipm", tol=tol, max_iter=100, trace=None)
    wall = time.perf_counter() - t0
    return {"library": lib, "device": device, "bias": bias, "tol": tol, "seconds": wall,
            "iterations": int(res.iterations), "status": str(res.status),
            "relative_gap": float((res.certificate or {}).get("relative_gap", np.nan))}


def versions() -> dict:
    out = {"numpy": np.__version__}
    for name in ("torch", "cupy"):
        try:
            out[name] = __import__(name).__version__
        except ImportError:
            pass
    try:
        import torch
        if torch.cuda.is_available():
            out["device_name"] = torch.cuda.get_device_name(0)
    except ImportError:
        pass
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--cols", type=int, default=1_000)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--quick", action="store_true", help="2,000 x 50, 5 iterations")
    ap.add_argument("--cpu", action="store_true", help="also torch on the CPU (what the test suite runs)")
    ap.add_argument("--dtypes", default="float32,float64")
    ap.add_argument("--json", default=None)
    ap.add_argument("--no-tolerance", action="store_true", help="skip the ipm time-to-1e-6 rows")
    ap.add_argument("--no-host", action="store_true", help="skip the NumPy runs on the host (the yardstick)")
    ap.add_argument("--sync-sites", action="store_true",
                    help="only list, for every method on torch CUDA, the lines where a step synchronises")
    args = ap.parse_args(argv)
    n, d, iters = (2000, 50, 5) if args.quick else (args.rows, args.cols, args.iters)
    libs = _libraries(args.cpu)
    if not libs:
        print("no GPU: skipped")
        return 0
    if args.sync_sites:
        if ("torch", "cuda") not in libs:
            print("no CUDA torch: skipped")
            return 0
        report = sync_report()
        if args.json:
            with open(args.json, "w") as fh:
                json.dump({"versions": versions(), "sync": report}, fh, indent=1)
        return 0
    X, y = _data(n, d)
    import marginkit as mk
    rows, tol_rows = [], []

    def dump():   # after every row: a run stopped at its time limit still leaves what it measured
        if args.json:
            with open(args.json, "w") as fh:
                json.dump({"n": n, "d": d, "iterations": iters, "versions": versions(), "rows": rows,
                           "to_tolerance": tol_rows}, fh, indent=1)

    # the devices first, the host's NumPy runs (the slowest, and only the yardstick) last
    for form, method in METHODS:
        for lib, device in libs:
            for dtype in args.dtypes.split(","):
                try:
                    r = row(lib, device, dtype, form, method, X, y, iters, None)
                except mk.ProblemError as exc:   # a method that declines this data says why
                    r = {"library": lib, "device": device, "dtype": dtype, "form": form, "method": method,
                         "declined": str(exc)}
                rows.append(r)
                if "declined" in r:
                    print(f"{lib:5s} {device:4s} {dtype:7s} {method:17s} declined: {r['declined'][:80]}")
                else:
                    peak = f" of {r['peak_GBps']:.0f}" if r["peak_GBps"] else ""
                    print(f"{lib:5s} {device:4s} {dtype:7s} {method:17s} {r['seconds_per_iteration'] * 1e3:9.2f} ms/it "
                          f"{r['achieved_GBps']:8.1f}{peak} GB/s  gap {r['relative_gap']:.3g}  "
                          f"no sync in step: {r['no_sync_in_step']}")
                dump()
    libs_tol = [] if args.no_tolerance else libs
    for bias in (False, True):
        for lib, device in libs_tol:
            r = to_tolerance(lib, device, X, y, bias)
            tol_rows.append(r)
            print(f"ipm to 1e-6, bias={bias!s:5s} {lib:5s} {device:4s} {r['seconds']:8.2f} s  "
                  f"{r['iterations']:3d} iterations  {r['status']}  gap {r['relative_gap']:.3g}")
            dump()
    # the same iterations on the host (NumPy, float64): the certificate to compare
    for form, method in () if args.no_host else METHODS:
        t0 = time.perf_counter()
        cpu = _problem(form, X, y).compile(method).run(max_iter=iters, tol=0.0, trace=None)
        per = (time.perf_counter() - t0) / max(int(cpu.iterations), 1)
        cpu_gap = float((cpu.certificate or {}).get("relative_gap", np.nan))
        for r in rows:
            if r["method"] == method:
                r["cpu_relative_gap"], r["cpu_seconds_per_iteration"] = cpu_gap, per
        print(f"numpy cpu  float64 {method:17s} {per * 1e3:9.2f} ms/it (problem set-up included)  gap {cpu_gap:.3g}")
        dump()
    if libs_tol and not args.no_host:
        r = to_tolerance("numpy", "cpu", X, y, False)
        tol_rows.append(r)
        print(f"ipm to 1e-6, bias=False numpy cpu  {r['seconds']:8.2f} s  {r['iterations']:3d} iterations  "
              f"{r['status']}  gap {r['relative_gap']:.3g}")
        dump()
    return 0


if __name__ == "__main__":
    sys.exit(main())
