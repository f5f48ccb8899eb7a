"""The report: the machine a run ran on, ``results.json`` (a partial run updates its rows in the recorded
results, every row keeping the date it was measured) and the Markdown table (printed, and written between
``<!-- bench:start -->`` and ``<!-- bench:end -->`` of ``benchmarks/README.md`` by a full run to the default
output). The top README's ``<!-- bench-summary -->`` block is regenerated from ``results.json`` by
``python docs/update_readme.py``.
"""
from __future__ import annotations

import json
import os
import platform
import time

import numpy as np


def machine_info() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        usable = os.cpu_count()
    blas = {}
    try:
        from threadpoolctl import threadpool_info
        for lib in threadpool_info():
            if lib.get("user_api") == "blas":
                blas = {k: lib.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
                break
    except Exception:  # noqa: BLE001 - informative only
        pass
    if not blas:
        try:
            blas = {"name": np.show_config(mode="dicts")["Build Dependencies"]["blas"].get("name")}
        except Exception:  # noqa: BLE001
            blas = {}
    versions = {"python": platform.python_version(), "numpy": np.__version__}
    for mod in ("scipy", "cvxpy", "sklearn", "numba", "clarabel", "ecos", "scs"):
        try:
            versions[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001
            versions[mod] = None
    try:
        load = os.getloadavg()
    except OSError:  # pragma: no cover
        load = None
    return {"cpu": cpu, "cores": os.cpu_count(), "usable_cores": usable, "blas": blas, "versions": versions,
            "platform": platform.platform(), "load_average_at_start": load,
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}


def jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, (np.floating, float)):
        v = float(obj)
        return v if np.isfinite(v) else None
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    return obj


def _fmt_time(v) -> str:
    if v is None:
        return "-"
    return f"{v:.3g}s" if v >= 0.01 else f"{v * 1e3:.3g}ms"


def format_table(results: dict) -> str:
    """Markdown table: one line per row, competitors' times, ratio, target and status; then the notes."""
    m = results["machine"]
    blas = m.get("blas") or {}
    head = (f"Machine: {m['cpu']}, {m['cores']} cores ({m.get('usable_cores')} usable), BLAS "
            f"{blas.get('internal_api', blas.get('name', '?'))} {blas.get('version', '')} "
            f"({blas.get('architecture', '')}; {m.get('blas_threads_used', '?')} BLAS thread(s) per competitor, "
            f"{blas.get('num_threads', '?')} by default); Python "
            f"{m['versions']['python']}, NumPy {m['versions']['numpy']}, CVXPY {m['versions']['cvxpy']}, "
            f"scikit-learn {m['versions']['sklearn']}, numba {m['versions']['numba']}; load average at start "
            f"{', '.join(f'{x:.1f}' for x in (m.get('load_average_at_start') or []))}; {m['date']}"
            f"{'; QUICK sizes' if results.get('quick') else ''}; total {results.get('seconds', 0):.0f}s.")
    if results.get("partial_update"):
        head += (f" Rows re-measured in this run: {', '.join(results['partial_update'])}; the others keep the date "
                 "of their own measurement (`measured` in results.json).")
    lines = [head, "", "| row | size | metric | times (median) | accuracy | ratio | target | status |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results["rows"]:
        ratios = r["details"].get("ratios", {}) if isinstance(r["details"], dict) else {}
        times = "; ".join(f"{k} {_fmt_time(v)}" + (f" ({ratios[k]:.3g})" if k in ratios else "")
                          for k, v in r["times"].items() if "(stopped at s)" not in k and v is not None)
        if not r["times"] and ratios:
            times = "; ".join(f"{k} {v:.3g}" for k, v in ratios.items())
        stopped = "; ".join(f"{k.replace(' (stopped at s)', '')} >{v:.3g}s" for k, v in r["times"].items()
                            if "(stopped at s)" in k)
        times = "; ".join(x for x in (times, stopped) if x) or "-"
        acc = "; ".join(f"{k} {v:.2g}" for k, v in r["accuracy"].items() if v is not None) or "-"
        bound = {"lower": ">", "upper": "<"}.get(r["ratio_bound"], "")
        ratio = "-" if r["ratio"] is None else f"{bound}{r['ratio']:.3g}"
        req = "-" if r["required"] is None else f"{r['comparison']} {r['required']:g}"
        lines.append(f"| {r['name']} | {r['size']} | {r['metric']} | {times} | {acc} | {ratio} | {req} | "
                     f"**{r['status']}** |")
    notes = [f"- **{r['name']}**: {r['note']}" for r in results["rows"] if r["note"]]
    return "\n".join(lines + ([""] + notes if notes else []))


def write_readme_table(path: str, table: str) -> bool:
    """Replace the text between ``<!-- bench:start -->`` and ``<!-- bench:end -->`` in ``path``."""
    if not os.path.exists(path):
        return False
    with open(path) as fh:
        text = fh.read()
    start, end = "<!-- bench:start -->", "<!-- bench:end -->"
    if start not in text or end not in text:
        return False
    pre, rest = text.split(start, 1)
    _, post = rest.split(end, 1)
    with open(path, "w") as fh:
        fh.write(f"{pre}{start}\n{table}\n{end}{post}")
    return True


def write_results(results: dict, output: str, partial: bool) -> dict:
    """Write ``results`` to ``output``; a ``partial`` run (``--only``) updates its rows in the results already
    recorded there (same ``quick`` setting), the others keep theirs. Returns what was written."""
    for row in results["rows"]:
        row.setdefault("measured", results["machine"]["date"])
    if partial and os.path.exists(output):
        with open(output) as fh:
            previous = json.load(fh)
        if previous.get("quick") == results["quick"]:
            fresh = {r["name"]: r for r in results["rows"]}
            merged = [fresh.pop(r["name"], r) for r in previous["rows"]]
            results["partial_update"] = sorted(r["name"] for r in results["rows"])
            results["rows"] = merged + list(fresh.values())
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    with open(output, "w") as fh:
        json.dump(results, fh, indent=1)
    return results
