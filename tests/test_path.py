"""``marginkit.path``: the soft-margin problem along a grid of C, warm-started, every point certified."""
import time

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.preprocessing import StandardScaler

import marginkit as mk
from marginkit.api.path import default_method

GRID20 = np.logspace(-3, 2, 20)


@pytest.fixture(scope="module")
def iris_pair():
    """versicolor against virginica: overlapping classes, a real data set (standardised)."""
    X, y = load_iris(return_X_y=True)
    keep = y > 0
    return StandardScaler().fit_transform(X[keep]), np.where(y[keep] == 2, "virginica", "versicolor")


@pytest.fixture(scope="module")
def gaussian():
    rng = np.random.default_rng(11)
    X = rng.standard_normal((90, 6))
    y = np.where(X @ rng.standard_normal(6) + 0.8 * rng.standard_normal(90) > 0.2, 1, -1)
    return X, y


def _shuffled(grid, seed=0):
    return np.random.default_rng(seed).permutation(grid)


def _agrees_with_reference(problem, res, C, tol):
    ref = mk.SoftMarginSVM(problem.X, problem.y, C=C, bias=problem.bias,
                           sample_weight=problem.sample_weight).reference()
    assert ref.status == "optimal"
    # certified: (P - D)/D <= tol with D <= P*, so the objective is within tol of the optimum (relative)
    gap = (res.value - ref.value) / ref.value
    assert -1e-9 <= gap <= 1.01 * tol, (C, gap)


@pytest.mark.parametrize("data,method", [("iris_pair", None), ("gaussian", "fista")])
def test_path_over_20_values_of_C_is_certified_at_every_point_and_agrees_with_the_reference(data, method, request):
    X, y = request.getfixturevalue(data)
    problem = mk.SoftMarginSVM(X, y)
    grid = _shuffled(GRID20)
    results = mk.path(problem, C=grid, method=method, tol=1e-6, max_iter=50000, seed=0)
    assert {r.method for r in results} == {method or default_method(problem, warm=True)}   # what path runs
    assert len(results) == 20
    for C, res in zip(grid, results):
        assert res.info["C"] == C                       # the user's order
        assert res.status == "optimal", (C, res.status, res.certificate)
        assert res.certificate["relative_gap"] <= 1e-6
        _agrees_with_reference(problem, res, C, 1e-6)
    assert list(results[0].classes_) == sorted(set(y))


def test_default_method_path_is_certified_with_sample_weights(gaussian):
    X, y = gaussian
    s = np.random.default_rng(2).uniform(0.0, 2.0, len(y))
    problem = mk.SoftMarginSVM(X, y, sample_weight=s)
    grid = np.logspace(-2, 1, 6)
    results = mk.path(problem, C=grid, tol=1e-6, max_iter=50000, seed=0)
    assert {r.method for r in results} == {default_method(problem, warm=True)}
    for C, res in zip(grid, results):
        if res.method != "cvxpy":                       # a first-order method proves its own gap
            assert res.status == "optimal", (C, res.status)
        _agrees_with_reference(problem, res, C, 1e-6)


@pytest.mark.parametrize("data,method,factor", [("cancer", "dual-cd-bias", 0.8), ("gaussian", "fista", 1.0)])
def test_warm_started_path_needs_fewer_iterations_than_cold_solves(data, method, factor, request):
    """The quick variant of the timing in test_path_is_faster_than_cold_solves (slow): iteration counts."""
    if data == "cancer":
        X, y = load_breast_cancer(return_X_y=True)
        X = StandardScaler().fit_transform(X)
    else:
        X, y = request.getfixturevalue(data)
    problem = mk.SoftMarginSVM(X, y)
    method = method or default_method(problem)
    grid = np.logspace(-2, 2, 8)
    opts = dict(tol=1e-6, max_iter=50000, seed=0)
    if method.startswith("dual-cd"):   # the claim is the warm starts' (the polish shortens cold and warm runs alike)
        opts["polish"] = False
    warm = mk.path(problem, C=grid, method=method, **opts)
    cold = [mk.SoftMarginSVM(X, y, C=c).solve(method, **opts) for c in grid]
    assert all(r.status == "optimal" for r in warm + cold)
    assert sum(r.iterations for r in warm) < factor * sum(r.iterations for r in cold)


def test_rescaled_dual_warm_start_is_feasible_for_the_next_C(gaussian):
    """a·C/C_prev stays in the box [0, C] and on yᵀa = 0 (with a bias), unlike the unscaled a at a smaller C."""
    from marginkit.api.path import rescaled
    X, y = gaussian
    res = mk.SoftMarginSVM(X, y, C=2.0).reference()
    start = rescaled(res, 0.25)
    a = start.dual["a"]
    assert np.all(a >= 0) and np.all(a <= 0.5 * (1 + 1e-12))
    assert abs(float(np.where(y > 0, 1.0, -1.0) @ a)) <= 1e-8 * a.sum()
    np.testing.assert_allclose(start.w, 0.25 * res.w)


def test_cvxpy_path_solves_each_point(iris_pair):
    X, y = iris_pair
    grid = [10.0, 0.1, 1.0]
    results = mk.path(mk.SoftMarginSVM(X, y), C=grid, method="cvxpy")
    assert [r.info["C"] for r in results] == grid
    for C, r in zip(grid, results):
        assert r.status == "optimal" and r.method == "cvxpy"
        assert r.value == pytest.approx(mk.SoftMarginSVM(X, y, C=C).reference().value, rel=1e-9)


def test_duplicate_values_and_inputs_untouched(gaussian):
    X, y = gaussian
    X0, grid = X.copy(), np.array([1.0, 0.5, 1.0])
    results = mk.path(mk.SoftMarginSVM(X, y), C=grid, method="fista", tol=1e-6, max_iter=50000)
    np.testing.assert_array_equal(grid, [1.0, 0.5, 1.0])
    np.testing.assert_array_equal(X, X0)
    assert results[0].value == pytest.approx(results[2].value, rel=2e-6)


@pytest.mark.parametrize("grid,match", [
    ([], "at least one"), ([[0.1, 1.0]], "1-D"), (np.ones((2, 2)), "1-D"), ([1.0, np.nan], "NaN"),
    ([1.0, np.inf], "NaN or inf"), ([0.0, 1.0], "positive"), ([-1.0], "positive"), ("abc", "C must"),
    (None, "C must"), ([1.0, "x"], "C must"), (3.0, "1-D"),
])
def test_bad_grid_raises_problem_error_naming_C(gaussian, grid, match):
    X, y = gaussian
    with pytest.raises(mk.ProblemError, match=match) as info:
        mk.path(mk.SoftMarginSVM(X, y), C=grid)
    assert "C" in str(info.value)


def test_path_needs_a_soft_margin_problem(gaussian):
    X, y = gaussian
    with pytest.raises(mk.ProblemError, match="SoftMarginSVM.*MaxMargin.*no C"):
        mk.path(mk.MaxMargin(X, y), C=[1.0])
    with pytest.raises(mk.ProblemError, match="dual-accelerated"):
        mk.path(mk.SoftMarginSVM(X, y), C=[1.0], method="dual-accelerated")


def test_path_is_exported():
    assert "path" in dir(mk) and callable(mk.path)
    import marginkit.api.path  # noqa: F401  (importing the module keeps the function on the package)
    assert callable(mk.path) and mk.path.__module__ == "marginkit.api.path"


def test_cross_validation_with_the_path_picks_the_C_of_grid_search(iris_pair):
    """The recipe of path's docstring: one warm-started path per fold scores like GridSearchCV's cold fits."""
    X, y = iris_pair
    grid = np.logspace(-2, 1, 4)
    folds = list(StratifiedKFold(3).split(X, y))
    scores = np.zeros(len(grid))
    for train, test in folds:
        for j, res in enumerate(mk.path(mk.SoftMarginSVM(X[train], y[train]), C=grid, method="cvxpy")):
            scores[j] += np.mean(res.predict(X[test]) == y[test]) / len(folds)
    search = GridSearchCV(mk.MarginClassifier(method="cvxpy"), {"C": grid}, cv=folds).fit(X, y)
    np.testing.assert_allclose(scores, search.cv_results_["mean_test_score"], atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("method,top", [(None, 2.0), ("fista", 0.0)])
def test_path_is_faster_than_cold_solves(method, top, capsys):
    """20 values of C on standardised breast cancer (569 x 30): the warm-started path against 20 cold solves, side by
    side in one run, the fastest of three each (prints the ratio; the assertion only asks that the path is faster).
    FISTA's grid stops at C = 1: beyond it neither the path nor the cold solves reach tol = 1e-6 in 1e5 iterations."""
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    problem = mk.SoftMarginSVM(X, y)
    grid = np.logspace(-3, top, 20)
    method = method or default_method(problem)
    opts = dict(tol=1e-6, max_iter=100000, seed=0)
    mk.SoftMarginSVM(X, y, C=1.0).solve(method, max_iter=5)        # one-time loading outside the clocks
    paths, colds = [], []
    for _ in range(3):                  # interleaved, the fastest of three: the machine is shared
        t0 = time.perf_counter()
        warm = mk.path(problem, C=grid, method=method, **opts)
        paths.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        cold = [mk.SoftMarginSVM(X, y, C=c).solve(method, **opts) for c in grid]
        colds.append(time.perf_counter() - t0)
    t_path, t_cold = min(paths), min(colds)
    with capsys.disabled():
        print(f"\n{method}: path {t_path:.2f} s ({sum(r.iterations for r in warm)} it), 20 cold solves {t_cold:.2f} s "
              f"({sum(r.iterations for r in cold)} it), ratio {t_path / t_cold:.2f}; optimal "
              f"{sum(r.status == 'optimal' for r in warm)}/20 on the path, "
              f"{sum(r.status == 'optimal' for r in cold)}/20 cold")
    assert all(r.status == "optimal" for r in warm)
    assert t_path < t_cold
