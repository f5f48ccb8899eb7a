"""A library prints nothing unless asked: no solver banner, no numba message, no line from marginkit, on standard
output or error at the file-descriptor level (where C libraries write), unless ``verbose`` asks for it."""
import numpy as np
import pytest

import marginkit as mk


@pytest.fixture(scope="module")
def data():
    X = np.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0], [-2.0, -1.0], [0.5, 0.2]])
    return X, np.array([1, 1, -1, -1, 1])


def test_a_solver_that_prints_a_banner_is_silenced(data, capfd):
    cp = pytest.importorskip("cvxpy")
    if "HIGHS" not in cp.installed_solvers():
        pytest.skip("HiGHS (which prints a banner whatever verbose says) is not installed")
    res = mk.MaxMargin(*data).reference(solver="HIGHS")
    out, err = capfd.readouterr()
    assert res.status == "optimal" and out == "" and err == ""


def test_verbose_still_shows_the_solver_log(data, capfd):
    mk.MaxMargin(*data).solve("cvxpy", solver="CLARABEL", verbose=True)
    assert "Clarabel" in capfd.readouterr().out


def test_cross_validation_of_every_catalog_problem_and_the_estimator_print_nothing(data, capfd):
    from marginkit import catalog
    capfd.readouterr()
    for name in catalog.names():
        mk.cross_validate(catalog.load(name, quick=True), max_iter=20)
    mk.MarginClassifier(problem="max-margin", bias=False).fit(*data)
    mk.MarginClassifier().fit(*data)
    out, err = capfd.readouterr()
    assert out == "" and err == ""
