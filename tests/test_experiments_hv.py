"""The Hough & Vavasis experiments run in quick mode and show the qualitative claims of *Data-dependent complexity of
first-order methods for binary classification* (2025), §4.1–4.2 and §5: every claim of each script's ``CLAIMS``
holds, and the numbers behind them are also asserted here."""
import os

import numpy as np
import pytest

from experiment_helpers import load_experiment as load, assert_claims


def test_mnist_esp_early_stop_needs_far_fewer_iterations_than_the_tolerance_stop(tmp_path, capsys):
    exp = load("hough_vavasis_esp_mnist")
    out = exp.main(quick=True, outdir=str(tmp_path))
    printed = capsys.readouterr().out
    assert_claims(exp, out, printed)
    rows = out["balanced"] + out["unbalanced"]
    for r in rows:
        assert r["early_status"] == "optimal" and r["early_separates"] and r["early_margin"] > 0
        assert r["early_iterations"] <= 30                       # paper: 1–24
        assert r["tol_iterations"] >= 20 * r["early_iterations"]  # paper: 60–900× fewer
        assert r["tol_separates"]
    assert all(r["cvxpy_status"] == "optimal" for r in rows if r["cvxpy_status"] != "-")
    assert os.path.getsize(out["png"]) > 0
    assert "Table 1" in printed


def test_2d_iterations_fall_as_the_ellipses_move_apart(tmp_path, capsys):
    exp = load("hough_vavasis_2d")
    out = exp.main(quick=True, outdir=str(tmp_path))
    assert_claims(exp, out, capsys.readouterr().out)
    for s in out["seeds"].values():
        sep, its = s["separable"], s["iterations"]
        assert not np.any(s["reported_separator"] & ~sep)       # never a separator below the threshold
        assert np.all(np.isfinite(its[sep]))                    # a separator within 100 iterations above it
        assert sep[-1] and not sep[0]
        found = its[sep]
        third = max(1, found.size // 3)
        assert found[:third].mean() > found[-third:].mean()    # fewer iterations far from the threshold
        assert found[-1] == 1
    assert os.path.getsize(out["png"]) > 0


def test_svm_early_stopped_fista_is_as_accurate_as_the_converged_svm(tmp_path, capsys):
    exp = load("hough_vavasis_svm")
    out = exp.main(quick=True, outdir=str(tmp_path))
    assert_claims(exp, out, capsys.readouterr().out)
    rows = {r["dataset"]: r for r in out["rows"]}
    bc = rows["breast cancer"]
    assert bc["fista_accuracy"] == pytest.approx(0.986, abs=0.005)              # paper's Table 2
    for r in rows.values():
        assert abs(r["fista_accuracy"] - r["converged_accuracy"]) <= 0.01      # HV §4.2: no accuracy lost
        assert r["fista_iterations"] < r["converged_iterations"]
        assert r["separates_certified"] and r["certified_fraction"] > 0.3
        assert abs(r["fista_accuracy"] - r["libsvm_accuracy"]) <= 0.05
    curve = out["curves"]["breast cancer"]
    assert curve["gradient_mapping"][-1] < curve["gradient_mapping"][1]
    assert os.path.getsize(out["png"]) > 0
