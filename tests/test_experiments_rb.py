"""Raj & Bach §4 (Figs. 1 and 2) at the reduced size: the accelerated method is clearly best on training
mistakes (every claim of the script's ``CLAIMS``; the test-mistake claim at full size), and the catalog entries
build the same training problem."""
import os

import numpy as np
import pytest

from marginkit.catalog import load

from experiment_helpers import QUICK_AND_FULL, assert_claims, load_experiment as experiment


@QUICK_AND_FULL
@pytest.mark.parametrize("setting", ["l2", "sparse"])
def test_accelerated_coordinate_ascent_makes_the_fewest_training_mistakes(setting, quick, tmp_path, capsys):
    rb = experiment("raj_bach")
    out = rb.main(setting, quick=quick, outdir=str(tmp_path))
    assert os.path.getsize(out["png"]) > 0
    printed = capsys.readouterr().out
    assert "training / test mistakes" in printed
    assert_claims(rb, out, printed, full=not quick)
    curves = out["curves"]
    late = {label: c["train"][len(c["train"]) // 2:].mean() for label, c in curves.items()}
    acc = late.pop(rb.ACCELERATED)
    assert all(acc < other for other in late.values())
    primal = [v for label, v in late.items() if "coordinate ascent" not in label]  # perceptron, SGD / SMD
    assert all(acc <= 0.5 * v for v in primal)
    final = {label: c["train"][-1] for label, c in curves.items()}
    assert final[rb.ACCELERATED] <= min(final.values())
    for c in curves.values():
        assert c["train"][0] == out["n"]  # θ = 0 misclassifies every point
        assert len(c["test"]) == len(c["steps"]) == rb.EPOCHS[quick] + 1


@pytest.mark.parametrize("name,setting", [("rb-l2", "l2"), ("rb-sparse", "sparse")])
def test_catalog_entries_are_the_experiments_training_problems(name, setting):
    from marginkit.catalog.raj_bach_data import generate, sizes, sparse_p
    prob = load(name, quick=True)
    n, d = sizes(True)
    X, y, X_test, y_test, p = generate(setting, n=n, d=d, n_test=n, seed=0)
    assert prob.shape == (n, d) and prob.constraint == "margin"
    np.testing.assert_array_equal(prob.X, X)
    np.testing.assert_array_equal(prob.y, y)
    assert prob.p == (2.0 if setting == "l2" else sparse_p(d))
    assert X_test.shape == (n, d) and set(np.unique(y_test)) == {-1.0, 1.0}
