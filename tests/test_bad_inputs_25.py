"""Issue 25, "the nine bad inputs" and "no crash anywhere": each ends in a ProblemError naming the argument and the
fix, or in an honest status; never a raw exception."""
import numpy as np
import pytest

import marginkit as mk


@pytest.fixture(scope="module")
def problem(small_separable):
    return mk.MaxMargin(*small_separable)


def test_callback_returning_an_array_is_a_problem_error(problem):
    with pytest.raises(mk.ProblemError, match="callback must return True"):
        problem.solve("dual-accelerated", callback=lambda s: np.array([True, False]), tol=0, max_iter=20)


@pytest.mark.parametrize("answer", [np.bool_(True), True, np.array(True)])
def test_callback_numpy_and_python_bools_stop(problem, answer):
    res = problem.solve("dual-accelerated", callback=lambda s: answer, tol=0, max_iter=20)
    assert res.status == "user_limit" and res.iterations == 0


def test_callback_returning_none_goes_on(problem):
    res = problem.solve("dual-accelerated", callback=lambda s: None, tol=0, max_iter=20)
    assert res.status == "user_limit" and res.iterations == 20


def _generators():
    from marginkit import datasets as ds
    from marginkit.catalog import hinge_data, raj_bach_data
    return {
        "separable n=0": (lambda: ds.separable_synthetic(n=0), "n"),
        "separable d=0": (lambda: ds.separable_synthetic(d=0), "d"),
        "separable density=2": (lambda: ds.separable_synthetic(sparse_density=2.0), "sparse_density"),
        "noisy fraction=2": (lambda: ds.noisy_labels(np.ones(10), 2), "fraction"),
        "toy n=0": (lambda: ds.toy_four_support_vectors(n=0), "n"),
        "toy slack=10 (would never end)": (lambda: ds.toy_four_support_vectors(n=10, slack=10.0), "slack"),
        "a9a rate=2": (lambda: ds.a9a_like(n=10, positive_rate=2.0), "positive_rate"),
        "svm model nu=2": (lambda: ds.svm_data_model(nu=2.0), "nu"),
        "svm model d=0": (lambda: ds.svm_data_model(d=0), "d"),
        "digits a=b": (lambda: ds.sklearn_digits_pair(3, 3), "a and b"),
        "mnist ellipsoids n_c=0": (lambda: ds.mnist_ellipsoids(0, 3), "n_c"),
        "clouds flip=2": (lambda: hinge_data.gaussian_clouds(n=20, flip=2.0), "flip"),
        "clouds n=0": (lambda: hinge_data.gaussian_clouds(n=0), "n"),
        "rb d=0 (would never end)": (lambda: raj_bach_data.generate(n=10, d=0, n_test=5), "d"),
        "rb setting": (lambda: raj_bach_data.generate(setting="l3"), "setting"),
        "ellipses omega<0": (lambda: ds.ellipses_2d(1.0, omega=-1.0), "omega"),
        "ellipses eps=0": (lambda: ds.ellipses_2d(1.0, eps=0.0), "eps"),
        "stretched factor<0": (lambda: hinge_data.stretched_toy(-20.0), "factor"),
    }


@pytest.mark.parametrize("case", sorted(_generators()))
def test_catalog_generators_name_the_bad_argument(case):
    make, name = _generators()[case]
    with pytest.raises(mk.ProblemError, match=f"{name} must be"):
        make()


def test_catalog_generators_still_accept_their_defaults():
    from marginkit import datasets as ds
    from marginkit.catalog import hinge_data
    X, y = ds.separable_synthetic(n=30, d=4)
    assert X.shape == (30, 4) and set(np.unique(y)) <= {-1.0, 1.0}
    assert ds.noisy_labels(np.ones(10), 1.0).sum() == -10
    assert hinge_data.gaussian_clouds(n=20, flip=0.5)[0].shape == (10, 2)


def test_estimator_names_bias_and_the_fix():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 3))
    y = np.sign(X[:, 0])
    with pytest.raises(mk.ProblemError, match=r"bias=True \(the default\).*set bias=False"):
        mk.MarginClassifier(problem="max-margin", method="dual-accelerated").fit(X, y)
    clf = mk.MarginClassifier(problem="max-margin", method="dual-accelerated", bias=False, max_iter=50).fit(X, y)
    assert clf.score(X, y) > 0.9


@pytest.mark.parametrize("make, method", [
    (lambda X, y: mk.MaxMargin(X, y), "diagonal"), (lambda X, y: mk.MaxMargin(X, y), "diagonal-inertial"),
    (lambda X, y: mk.MaxMargin(X, y), "homotopic"), (lambda X, y: mk.SoftMarginSVM(X, y), "fista"),
    (lambda X, y: mk.PerturbedSVMDual(X, y), "fista"), (lambda X, y: mk.PerturbedSVMDual(X, y), "constants")])
def test_data_near_1e300_is_named_not_a_raw_linalg_error(small_separable, make, method):
    X, y = small_separable
    P = make(X * 1e300, y)
    with pytest.raises(mk.ProblemError, match="X: the scale of the data.*beyond double precision"):
        P.constants() if method == "constants" else P.solve(method, max_iter=5)


def test_a_gd_step_whose_first_update_overflows_is_refused_at_compile(problem):
    with pytest.raises(mk.ProblemError, match=r"gd: eta must be .*; got 1e\+300"):
        problem.compile("gd", eta=1e300)
    # the largest accepted step compiles and ends in an honest status (here the second step overflows: solver_error)
    assert problem.solve("gd", eta=1e150, max_iter=2).status in ("user_limit", "optimal", "solver_error")


def test_a_diagonal_schedule_that_goes_negative_is_refused_at_compile(problem):
    for method in ("diagonal", "diagonal-inertial"):
        with pytest.raises(mk.ProblemError, match="schedule must give finite lambda_t > 0"):
            problem.compile(method, schedule=lambda t: 1.0 if t < 3 else -1.0)


@pytest.mark.parametrize("scale", [1e-300, 1e300])
@pytest.mark.parametrize("method", ["dykstra", "dykstra-accelerated", "mirror-descent"])
def test_rows_whose_squares_leave_double_precision_are_named_not_certified_infeasible(small_separable, scale, method):
    """At 1e-300 the squared row norms underflow to 0 and the rows looked like zero rows, which no θ can meet: the
    Raj–Bach plans said 'infeasible' on separable data. They now refuse the data, naming X and the fix."""
    X, y = small_separable
    problem = mk.MinNormFeasibility(X * scale, y)
    with pytest.raises(mk.ProblemError, match=r"X: row \d+ has norm .* rescale X"):
        problem.solve(method, max_iter=20)
    if method != "mirror-descent":   # and through MaxMargin's reduction
        with pytest.raises(mk.ProblemError, match=r"X: row \d+ has norm"):
            mk.MaxMargin(X * scale, y).solve(method, max_iter=20)
