"""The benchopt benchmarks of ``benchmarks/benchopt/`` run (their quick configuration, ``config_quick.yml``) and
report marginkit's certified gap next to benchopt's value: the column exists and is finite, the certificate bounds
every iterate's true relative suboptimality, the CVXPY reference is certified optimal, a converged marginkit method
reaches a tiny certified gap, and skglm's ``LinearSVC``, which fits no intercept, is shown far from the optimum with
one. Skipped where benchopt (the ``benchopt`` extra) is not installed."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("benchopt")
pytest.importorskip("pyarrow")

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ("svm_intercept", "svm_no_intercept", "hard_margin")

# a quick run in a child process (nothing of benchopt is left in the test process: it registers modules and
# pickling rules); its result goes to a temporary folder, none into the benchmark's outputs/. One benchmark per test,
# so that pytest-xdist spreads the three runs over its workers instead of repeating a shared fixture on each.
RUN = """
import sys
from benchopt.cli.main import run
bench, out = sys.argv[1:]
run.main([bench, "--config", f"{bench}/config_quick.yml", "--no-plot", "--no-html", "--no-display", "--no-cache",
          "--output", out], standalone_mode=False)
"""


def quick_run(name, tmp_path):
    """The result table of ``benchopt run benchmarks/benchopt/<name> --config .../config_quick.yml``."""
    from benchopt.results import read_results
    out = tmp_path / f"{name}.parquet"
    proc = subprocess.run([sys.executable, "-c", RUN, f"benchmarks/benchopt/{name}", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, (proc.stdout[-3000:], proc.stderr[-3000:])
    df = read_results(out)
    assert {"marginkit", "cvxpy", "liblinear"} <= {s.partition("[")[0] for s in df["solver_name"]}
    return df


def _final(df):
    """The last point of every (dataset, solver) curve."""
    return df.sort_values("stop_val").groupby(["dataset_name", "solver_name"], as_index=False).last()


def _curve(df, dataset_prefix, solver):
    rows = df[df["dataset_name"].str.startswith(dataset_prefix) & (df["solver_name"] == solver)]
    return rows.sort_values("stop_val")


def assert_certified_gap_reported(df):
    """The column exists at every point, finite and nonnegative, and the CVXPY reference is certified optimal."""
    assert "objective_value" in df and "objective_certified_gap" in df
    gap = df["objective_certified_gap"].to_numpy(dtype=float)
    assert len(gap) > 20 and np.all(np.isfinite(gap)) and np.all(gap >= 0)
    ref = _final(df)
    ref = ref[ref["solver_name"].str.startswith("cvxpy")]
    assert len(ref) == df["dataset_name"].nunique() and np.all(ref["objective_certified_gap"] < 1e-6)


def assert_gap_bounds_true_suboptimality(df, key="value"):
    """At every point the certified gap is at least the true relative gap to the optimum (the CVXPY reference's
    value on that data; benchopt's own suboptimality is measured against the best value any run reached):
    ``(P − P*)/P*`` for the SVM, ``(γ* − γ)/γ*`` for the margin."""
    final = _final(df)
    for dataset, rows in df.groupby("dataset_name"):
        ref = final[(final["dataset_name"] == dataset) & final["solver_name"].str.startswith("cvxpy")]
        best = float(ref[f"objective_{key}"].iloc[0])
        true_gap = (rows[f"objective_{key}"].to_numpy(dtype=float) - best) / best
        if key == "margin":
            true_gap = -true_gap
        assert np.all(true_gap <= rows["objective_certified_gap"].to_numpy(dtype=float) + 1e-8), dataset


def assert_curve_falls(df, solver, final_gap):
    for dataset in df["dataset_name"].unique():
        gap = _curve(df, dataset, solver)["objective_certified_gap"].to_numpy(dtype=float)
        assert gap[-1] < final_gap and gap[-1] < gap[0] / 100, (dataset, solver, gap)


def test_svm_no_intercept_quick_run_reports_the_certified_gap_and_dual_cd_converges(tmp_path):
    df = quick_run("svm_no_intercept", tmp_path)
    assert_certified_gap_reported(df)
    assert_gap_bounds_true_suboptimality(df)
    assert_curve_falls(df, "marginkit[method=dual-cd]", 1e-8)   # stopped on its own certificate (tol 1e-12)


def test_svm_intercept_quick_run_reports_the_certified_gap_and_shows_skglm_without_intercept(tmp_path):
    """Also: skglm's LinearSVC hands its solver ``fit_intercept=False``; on unbalanced classes, where the optimal
    intercept is far from 0, its curve stops far from the free-intercept optimum that libsvm reaches."""
    df = quick_run("svm_intercept", tmp_path)
    assert_certified_gap_reported(df)
    assert_gap_bounds_true_suboptimality(df)
    assert_curve_falls(df, "marginkit[method=dual-cd-bias]", 1e-2)
    libsvm = _curve(df, "simulated", "libsvm")["objective_certified_gap"].to_numpy(dtype=float)
    assert libsvm[-1] < 1e-4
    if "skglm" in set(df["solver_name"]):
        skglm = _curve(df, "simulated", "skglm")["objective_certified_gap"].to_numpy(dtype=float)
        assert skglm.min() > 0.1


def test_hard_margin_quick_run_reports_the_certified_margin_gap(tmp_path):
    df = quick_run("hard_margin", tmp_path)
    assert_certified_gap_reported(df)
    assert_gap_bounds_true_suboptimality(df, key="margin")
    assert np.allclose(df["objective_value"], -df["objective_margin"])
    assert_curve_falls(df, "marginkit[method=dykstra]", 1e-2)
