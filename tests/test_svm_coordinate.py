"""Claims of the ``dual-cd`` plan (dual coordinate descent on the soft-margin SVM dual, bias=False)."""
from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp

import marginkit as mk
from marginkit import ProblemError
from marginkit.plans.svm_cd import svm_coordinate

from svm_helpers import both_engines, labelled, reference_fixture

numba_only = pytest.mark.skipif(not svm_coordinate.numba_available(), reason="numba is not installed")


_data = partial(labelled, n=240, d=12)
svm = reference_fixture(_data, C=1.0, bias=False)   # (problem, its CVXPY reference), dense and sparse X


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
@pytest.mark.parametrize("d", [9, 40])
def test_numba_and_numpy_engines_give_identical_iterates_for_a_seed(sparse, d):
    X, y = _data(n=120, d=d, seed=3, sparse=sparse)
    problem = mk.SoftMarginSVM(X, y, C=0.5, bias=False)
    fast, slow = both_engines(problem, "dual-cd", 6)
    assert fast.info["backend"] == "numba" and slow.info["backend"] == "numpy"
    if sparse:   # the same sums in the same order: bit for bit
        np.testing.assert_array_equal(fast.w, slow.w)
        np.testing.assert_array_equal(fast.dual["a"], slow.dual["a"])
    else:   # dense rows: a vectorised loop compiled, BLAS ddot in Python, two orders of the same sum
        np.testing.assert_allclose(fast.w, slow.w, rtol=0, atol=1e-12 * np.abs(slow.w).max())
        np.testing.assert_allclose(fast.dual["a"], slow.dual["a"], rtol=0, atol=1e-12 * 0.5)


def test_numpy_engine_alone_solves_the_problem(svm):
    problem, ref = svm
    res = problem.solve("dual-cd", tol=1e-6, seed=0, compiled=False, max_iter=5000)
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


# per-sample bounds C_i = C·s_i ---------------------------------------------------------------------------------
def _weighted_cvxpy_value(X, y, C, s):
    """``min ½||w||² + Σ C s_i max(0, 1 − y_i x_iᵀw)``, modelled here from scratch (not the package's reference)."""
    import cvxpy as cp
    X = X.toarray() if sp.issparse(X) else X
    w = cp.Variable(X.shape[1])
    hinge = cp.pos(1 - cp.multiply(y, X @ w))
    obj = 0.5 * cp.sum_squares(w) + cp.sum(cp.multiply(C * s, hinge))
    return cp.Problem(cp.Minimize(obj)).solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)


@pytest.mark.parametrize("sparse", [False, True])
def test_per_sample_box_matches_an_independent_cvxpy_model_of_the_weighted_hinge(sparse):
    X, y = _data(n=150, d=8, seed=6, sparse=sparse)
    s = np.random.default_rng(6).uniform(0.0, 3.0, size=150)
    s[:7] = 0.0   # C_i = 0: a_i = 0 for ever, the sample is never visited
    problem = mk.SoftMarginSVM(X, y, C=0.8, bias=False, sample_weight=s)
    assert "dual-cd" in mk.methods(problem)
    res = problem.solve("dual-cd", tol=1e-8, seed=0, max_iter=20000)
    best = _weighted_cvxpy_value(X, y, 0.8, s)
    assert res.status == "optimal" and res.certificate["relative_gap"] <= 1e-8
    assert abs(res.value - best) <= 1e-6 * best
    a = res.dual["a"]
    assert np.all(a >= 0) and np.all(a <= 0.8 * s) and np.all(a[:7] == 0)


def test_per_sample_box_on_real_data_matches_cvxpy():
    from sklearn.datasets import load_breast_cancer
    data = load_breast_cancer()
    X = (data.data - data.data.mean(0)) / data.data.std(0)
    y = np.where(data.target == 1, 1.0, -1.0)
    s = np.where(y > 0, 1.0, 2.5)   # class weights as sample weights
    problem = mk.SoftMarginSVM(X, y, C=0.05, bias=False, sample_weight=s)
    res = problem.solve("dual-cd", tol=1e-8, seed=0, max_iter=50000)
    best = _weighted_cvxpy_value(X, y, 0.05, s)
    assert res.status == "optimal"
    assert abs(res.value - best) <= 1e-6 * best


# scale: X -> c·X with C -> C/c² is the same problem (w -> w/c, a -> a/c², P -> P/c²) -------------------------------
@pytest.mark.parametrize("sparse", [False, True])
def test_scaled_data_give_the_same_iterates_status_and_relative_gap(sparse):
    rng = np.random.default_rng(8)
    X = rng.standard_normal((400, 10)) * rng.uniform(0.1, 10.0, size=10)   # unscaled features
    if sparse:
        X = sp.csr_matrix(np.where(rng.random(X.shape) < 0.4, X, 0.0))
    y = np.where(np.asarray(X @ rng.standard_normal(10)).ravel() + rng.standard_normal(400) > 0, 1.0, -1.0)
    runs = {}
    for c in (1.0, 100.0, 1e-4):
        problem = mk.SoftMarginSVM(c * X, y, C=1.0 / c ** 2, bias=False)
        runs[c] = problem.solve("dual-cd", tol=1e-6, seed=3, max_iter=100000)
    base = runs[1.0]
    assert base.status == "optimal"
    for c, res in runs.items():
        assert res.status == base.status and res.iterations == base.iterations, c
        assert res.certificate["relative_gap"] == pytest.approx(base.certificate["relative_gap"], rel=1e-6, abs=1e-12)
        assert res.value * c ** 2 == pytest.approx(base.value, rel=1e-9)
        np.testing.assert_allclose(res.w * c, base.w, rtol=1e-7, atol=1e-9 * np.abs(base.w).max())
        assert res.info["epochs"] == base.info["epochs"]


def test_one_iteration_is_a_round_of_at_least_n_updates_or_a_check():
    X, y = _data(n=200, d=6, seed=9)
    problem = mk.SoftMarginSVM(X, y, C=1.0, bias=False)
    plan = problem.compile("dual-cd")
    states = list(plan.iterate(3, seed=0, tol=1e-12))
    for before, after in zip(states, states[1:]):
        assert after.visits - before.visits >= 200 or after.checked == after.t
        assert after.epochs > before.epochs
    # the round never touches the arrays of an earlier state
    assert np.all(states[0].a == 0) and np.all(states[0].w == 0)
