"""experiments/certify_other_solvers.py runs in quick mode: every model of every library it finds is certified on
both versions of the data (finite, nonnegative gaps, agreements in [0, 1]), marginkit's own method is certified
optimal on the z-scored data, libsvm is close there, and skglm's ``LinearSVC`` shows the intercept it never fits."""
import os

import numpy as np

from experiment_helpers import load_experiment as load


def test_certify_page_certifies_every_model_and_shows_skglms_missing_intercept(tmp_path, capsys):
    exp = load("certify_other_solvers")
    out = exp.main(quick=True, outdir=str(tmp_path))
    printed = capsys.readouterr().out
    rows = {(r["data"], r["model"]): r for r in out["rows"]}
    assert {d for d, _ in rows} == {"z-scored", "raw"}
    for r in out["rows"]:
        assert np.isfinite(r["certified_gap"]) and r["certified_gap"] >= 0, r
        assert 0.0 <= r["agreement"] <= 1.0 and r["intercept_error"] >= 0
        assert r["model"] in printed
    own = rows[("z-scored", "marginkit dual-cd-bias (tol 1e-6)")]
    assert own["status"] == "optimal" and own["certified_gap"] <= 1e-6 and own["agreement"] == 1.0
    libsvm = rows[("z-scored", "SVC(kernel='linear') (libsvm)")]
    assert libsvm["certified_gap"] < 1e-3 and libsvm["intercept_error"] < 1e-2
    for data in ("z-scored", "raw"):
        liblinear = rows[(data, "LinearSVC (liblinear), intercept_scaling=1")]
        assert liblinear["status"] in ("optimal", "optimal_inaccurate")
        if (data, "skglm LinearSVC") in rows:
            skglm = rows[(data, "skglm LinearSVC")]
            assert skglm["b"] == 0.0 and skglm["intercept_error"] == abs(skglm["b_star"])
    assert rows[("raw", "LinearSVC (liblinear), intercept_scaling=1")]["b_star"] > 5   # the intercept matters there
    assert os.path.getsize(out["png"]) > 0
