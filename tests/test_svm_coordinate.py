"""Claims of the ``dual-cd`` plan (dual coordinate descent on the soft-margin SVM dual, bias=False)."""
import numpy as np
import pytest
import scipy.sparse as sp

import marginkit as mk
from marginkit import ProblemError
from marginkit.plans.raj_bach import svm_coordinate

numba_only = pytest.mark.skipif(not svm_coordinate.numba_available(), reason="numba is not installed")


def _data(n=240, d=12, seed=0, sparse=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    if sparse:
        X = np.where(rng.random((n, d)) < 0.3, X, 0.0)
    y = np.where(X @ rng.standard_normal(d) + 0.7 * rng.standard_normal(n) >= 0, 1.0, -1.0)
    X /= np.linalg.norm(X, axis=1).max()
    return (sp.csr_matrix(X) if sparse else X), y


@pytest.fixture(scope="module", params=["dense", "sparse"])
def svm(request):
    X, y = _data(sparse=request.param == "sparse")
    problem = mk.SoftMarginSVM(X, y, C=1.0, bias=False)
    return problem, problem.reference()


def test_dual_cd_is_listed_for_soft_margin_without_bias_only():
    X, y = _data(n=30)
    assert "dual-cd" in mk.methods(mk.SoftMarginSVM(X, y, bias=False))
    assert "dual-cd" not in mk.methods(mk.SoftMarginSVM(X, y, bias=True))
    assert "dual-cd" not in mk.methods(mk.SoftMarginSVM(X, y, bias=False, kernel="rbf"))
    with pytest.raises(ProblemError, match="bias"):
        mk.SoftMarginSVM(X, y, bias=True).solve("dual-cd")


def test_dual_cd_matches_the_cvxpy_reference_within_1e_6_relative_objective(svm):
    problem, ref = svm
    res = problem.solve("dual-cd", tol=1e-8, seed=0, max_iter=20000)
    assert res.status == "optimal"
    assert abs(res.value - ref.value) <= 1e-6 * abs(ref.value)
    assert np.linalg.norm(res.w - ref.w) <= 1e-3 * np.linalg.norm(ref.w)


def test_dual_cd_certificate_brackets_the_optimum(svm):
    problem, ref = svm
    res = problem.solve("dual-cd", tol=1e-4, seed=1)
    cert = res.certificate
    assert res.status == "optimal" and cert["relative_gap"] <= 1e-4
    assert cert["dual"] <= ref.value * (1 + 1e-9) and ref.value <= cert["primal"] * (1 + 1e-9)
    assert cert["primal"] == pytest.approx(res.value, rel=1e-12)
    a = res.dual["a"]
    assert np.all(a >= 0) and np.all(a <= problem.C)


def test_dual_cd_without_shrinking_reaches_the_same_optimum(svm):
    problem, ref = svm
    res = problem.solve("dual-cd", tol=1e-8, seed=2, shrinking=False, max_iter=20000)
    assert res.status == "optimal"
    assert abs(res.value - ref.value) <= 1e-6 * abs(ref.value)


def test_budget_stop_is_user_limit_never_optimal(svm):
    problem, _ = svm
    res = problem.solve("dual-cd", tol=1e-12, max_iter=2)
    assert res.status == "user_limit" and res.iterations == 2


@numba_only
@pytest.mark.parametrize("sparse", [False, True])
def test_numba_and_numpy_engines_give_identical_iterates_for_a_seed(sparse):
    X, y = _data(n=120, d=9, seed=3, sparse=sparse)
    problem = mk.SoftMarginSVM(X, y, C=0.5, bias=False)
    fast = problem.solve("dual-cd", seed=7, max_iter=6, tol=0.0, backend="numba")
    slow = problem.solve("dual-cd", seed=7, max_iter=6, tol=0.0, backend="numpy")
    assert fast.info["backend"] == "numba" and slow.info["backend"] == "numpy"
    np.testing.assert_array_equal(fast.w, slow.w)
    np.testing.assert_array_equal(fast.dual["a"], slow.dual["a"])


def test_numpy_engine_alone_solves_the_problem(svm):
    problem, ref = svm
    res = problem.solve("dual-cd", tol=1e-6, seed=0, backend="numpy", max_iter=5000)
    assert res.status == "optimal"
    assert abs(res.value - ref.value) <= 1e-6 * abs(ref.value)


def test_warm_start_from_a_solution_certifies_at_once(svm):
    problem, _ = svm
    first = problem.solve("dual-cd", tol=1e-7, seed=0, max_iter=20000)
    again = problem.solve("dual-cd", tol=1e-6, seed=0, warm_start=first)
    assert again.status == "optimal" and again.iterations <= 1


def test_a_zero_row_gets_the_upper_bound_and_x_is_never_modified():
    X, y = _data(n=60, d=5, seed=4)
    X[7] = 0.0
    X_before = X.copy()
    problem = mk.SoftMarginSVM(X, y, C=2.0, bias=False)
    res = problem.solve("dual-cd", tol=1e-8, seed=0, max_iter=20000)
    assert res.dual["a"][7] == 2.0
    np.testing.assert_array_equal(X, X_before)
    assert abs(res.value - problem.reference().value) <= 1e-6 * problem.reference().value


def test_sparse_data_stay_sparse_inside_the_plan():
    X, y = _data(n=80, d=10, seed=5, sparse=True)
    plan = mk.SoftMarginSVM(X, y, bias=False).compile("dual-cd")
    assert plan.X is None and plan.csr[0] is plan.form.X.data


def test_bad_engine_and_shrinking_options_name_the_argument():
    X, y = _data(n=30)
    problem = mk.SoftMarginSVM(X, y, bias=False)
    with pytest.raises(ProblemError, match="backend"):
        problem.solve("dual-cd", backend="cuda")
    with pytest.raises(ProblemError, match="shrinking"):
        problem.solve("dual-cd", shrinking="yes")
