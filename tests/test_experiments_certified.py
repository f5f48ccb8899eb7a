"""experiments/certified_decisions.py runs in quick mode: screening only grows and is sound (the counts are those of the
certificate, within the training set), every test label ends proven and the proven labels are the exact optimum's, and
every certified validation-error interval of the path holds the exact optimum's error where CVXPY computed it."""
import os

import numpy as np

import marginkit as mk

from experiment_helpers import load_experiment as load


def test_certified_decisions_quick_run_screens_certifies_and_brackets_the_exact_error(tmp_path, capsys):
    exp = load("certified_decisions")
    out = exp.main(quick=True, outdir=str(tmp_path))
    assert "proven support vectors" in capsys.readouterr().out
    rows = out["course"]["rows"]
    assert out["course"]["status"] == "optimal" and len(rows) >= 2
    screened = [r["removed"] + r["fixed"] for r in rows]
    assert np.all(np.diff(screened) >= 0) and 0 < screened[-1] <= 1   # samples are screened for good
    assert np.all(np.diff([r["epochs"] for r in rows]) > 0)
    assert rows[-1]["certified"] == 1.0 and rows[-1]["relative_gap"] <= exp.TOL
    # the proven labels at the first check are the exact optimum's
    X, y, X_test, y_test = exp.data(quick=True)
    problem = mk.SoftMarginSVM(X, y, C=exp.C, bias=False)
    first = problem.solve("dual-cd", tol=exp.TOL, seed=0, max_iter=1)
    labels, certain = first.predict(X_test, certified=True)
    exact = problem.reference().predict(X_test)
    assert certain.any() and np.all(labels[certain] == exact[certain])
    points = out["path"]["points"]
    for e in out["path"]["exact"]:
        lo, hi = points[e["index"]]["interval"]
        assert lo - 1e-12 <= e["error"] <= hi + 1e-12, e
    assert all(p["status"] == "optimal" for p in points)
    assert os.path.getsize(out["png"]) > 0
