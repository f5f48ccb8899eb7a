"""``marginkit.MarginClassifier`` is a scikit-learn classifier over every classification method."""
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import check_estimator, parametrize_with_checks

import marginkit as mk
from marginkit import MarginClassifier


# The sklearn checks fit on data they generate (random labels on uniform data, all-zero rows carrying both
# labels, ...). No hyperplane through the origin separates the data of the 26 checks below, and a hard-margin
# fit raises the documented ValueError there by design; the test after the checks proves that each of these
# failures is that error and nothing else.
NOT_SEPARABLE_THROUGH_ORIGIN = (
    "check_classifier_data_not_an_array", "check_classifiers_train", "check_dict_unchanged",
    "check_dont_overwrite_parameters", "check_dtype_object", "check_estimator_sparse_array",
    "check_estimator_sparse_matrix", "check_estimator_sparse_tag", "check_estimators_dtypes",
    "check_estimators_fit_returns_self", "check_estimators_nan_inf", "check_estimators_overwrite_params",
    "check_estimators_pickle", "check_f_contiguous_array_estimator", "check_fit2d_1feature",
    "check_fit2d_predict1d", "check_fit_check_is_fitted", "check_fit_idempotent", "check_fit_score_takes_y",
    "check_methods_sample_order_invariance", "check_methods_subset_invariance", "check_n_features_in",
    "check_n_features_in_after_fitting", "check_pipeline_consistency", "check_readonly_memmap_input",
    "check_supervised_y_2d")
# with an RBF kernel only the sparse checks' data (duplicate all-zero rows with both labels) are not separable
NOT_SEPARABLE_WITH_RBF = ("check_estimator_sparse_array", "check_estimator_sparse_matrix",
                          "check_estimator_sparse_tag")
REASON = ("hard margin: the check fits on data that cannot be separated, and fit raises ValueError "
          "(use problem='soft-margin') by design")

CHECKED = [
    MarginClassifier(),                                                   # soft margin, cvxpy
    MarginClassifier(kernel="rbf"),                                       # soft margin, cvxpy, dual QP
    MarginClassifier(problem="max-margin", method="dual-accelerated"),    # JST Algorithm 1
    MarginClassifier(problem="max-margin", kernel="rbf"),                 # hard margin, cvxpy, dual QP
    MarginClassifier(problem="perturbed-dual"),                           # Hough–Vavasis (15), cvxpy
    # the checks fit random labels, where the hinge dual converges slowly: a smaller budget keeps them short
    MarginClassifier(method="fista", max_iter=2000, tol=1e-4),            # FISTA on the SVM dual
]


def expected_failed_checks(estimator):
    if estimator.problem != "max-margin":
        return {}
    names = NOT_SEPARABLE_WITH_RBF if estimator.kernel == "rbf" else NOT_SEPARABLE_THROUGH_ORIGIN
    return {name: REASON for name in names}


@parametrize_with_checks(CHECKED, expected_failed_checks=expected_failed_checks, xfail_strict=True)
def test_marginclassifier_passes_the_scikit_learn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


def test_max_margin_fails_the_sklearn_checks_only_on_non_separable_data():
    """The expected failures above hide nothing else: each one is the documented not-separable error."""
    est = MarginClassifier(problem="max-margin", method="dual-accelerated")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(est, on_fail=None)
    failed = [r for r in results if r["status"] == "failed"]
    assert {r["check_name"] for r in failed} == set(NOT_SEPARABLE_THROUGH_ORIGIN)
    for r in failed:
        exc = r["exception"]
        messages = [str(exc), str(exc.__cause__), str(exc.__context__)]
        assert any("not linearly separable through the origin" in m for m in messages), r["check_name"]


# ----------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def separable():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((80, 5))
    y = np.where(X @ rng.standard_normal(5) > 0, "spam", "ham")
    return X, y


@pytest.fixture(scope="module")
def overlapping():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((120, 4))
    y = (X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.8 * rng.standard_normal(120) + 0.3 > 0).astype(int)
    return X, y


@pytest.fixture(scope="module")
def cancer():
    return load_breast_cancer(return_X_y=True)


def test_soft_margin_cvxpy_agrees_with_sklearn_svc(overlapping):
    X, y = overlapping
    est = MarginClassifier(C=0.5).fit(X, y)
    svc = SVC(kernel="linear", C=0.5, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(est.coef_, svc.coef_, atol=1e-4)
    np.testing.assert_allclose(est.intercept_, svc.intercept_, atol=1e-4)
    assert np.array_equal(est.predict(X), svc.predict(X))
    assert est.result_.status == "optimal" and est.result_.certificate["duality_gap"] < 1e-6


def test_kernel_soft_margin_agrees_with_sklearn_svc(overlapping):
    X, y = overlapping
    est = MarginClassifier(kernel="rbf", gamma=0.3).fit(X, y)
    svc = SVC(kernel="rbf", gamma=0.3, C=1.0, tol=1e-8).fit(X, y)
    assert not hasattr(est, "coef_")
    np.testing.assert_allclose(est.decision_function(X), svc.decision_function(X), atol=1e-3)
    # the support vectors and their dual coefficients alone give the decision function
    K = np.exp(-0.3 * ((X[:, None, :] - X[None, est.support_, :]) ** 2).sum(-1))
    np.testing.assert_allclose(K @ est.dual_coef_.ravel() + est.intercept_, est.decision_function(X), atol=1e-5)
    assert abs(len(est.support_) - len(svc.support_)) <= 2  # up to degenerate points on the margin


def test_attributes_follow_sklearn_conventions(separable):
    X, y = separable
    est = MarginClassifier(problem="max-margin", method="dual-accelerated", max_iter=3000, tol=1e-3).fit(X, y)
    assert est.result_.status == "optimal"
    assert list(est.classes_) == ["ham", "spam"]
    assert est.coef_.shape == (1, 5) and est.intercept_.shape == (1,)
    assert est.n_features_in_ == 5 and est.n_iter_ == est.result_.iterations >= 1
    assert isinstance(est.result_, mk.Result) and "margin" in est.result_.trace.keys()
    assert est.result_.certificate["margin_upper"] >= est.result_.margin
    f = est.decision_function(X)
    assert np.array_equal(est.predict(X), np.where(f > 0, "spam", "ham"))
    assert est.score(X, y) == 1.0
    assert np.min(np.where(y == "spam", 1, -1) * f) == pytest.approx(1.0)  # canonical hard-margin scaling
    assert not hasattr(est, "dual_coef_")  # a primal method


def test_dual_methods_expose_dual_coef_and_support(separable, overlapping):
    X, y = separable
    est = MarginClassifier(problem="max-margin").fit(X, y)
    np.testing.assert_allclose(est.dual_coef_ @ X[est.support_], est.coef_, atol=1e-6)
    Xo, yo = overlapping
    k = MarginClassifier(kernel="rbf").fit(Xo, yo)
    assert k.dual_coef_.shape == (1, k.support_.size) and np.all(np.abs(k.dual_coef_) <= 1.0 + 1e-9)


def test_soft_margin_methods_agree_with_each_other(overlapping):
    X, y = overlapping
    ref = MarginClassifier(C=0.5).fit(X, y)
    fista = MarginClassifier(C=0.5, method="fista").fit(X, y)
    assert fista.result_.status == "optimal"
    np.testing.assert_allclose(fista.coef_, ref.coef_, atol=1e-3)
    np.testing.assert_allclose(fista.intercept_, ref.intercept_, atol=1e-2)
    assert np.mean(fista.predict(X) == ref.predict(X)) >= 0.99


def test_max_margin_methods_agree_with_each_other(separable):
    X, y = separable
    ref = MarginClassifier(problem="max-margin").fit(X, y)
    da = MarginClassifier(problem="max-margin", method="dual-accelerated", max_iter=5000).fit(X, y)
    cos = float(ref.coef_.ravel() @ da.coef_.ravel() / (np.linalg.norm(ref.coef_) * np.linalg.norm(da.coef_)))
    assert 1 - cos < 1e-4
    assert da.result_.margin == pytest.approx(ref.result_.margin, rel=1e-3)


def test_budget_stop_raises_convergence_warning_naming_method_and_budget(separable):
    X, y = separable
    with pytest.warns(ConvergenceWarning, match=r"method='dual-accelerated'.*5 iterations, max_iter=5 reached; "
                                                "relative gap bound"):
        MarginClassifier(problem="max-margin", method="dual-accelerated", max_iter=5).fit(X, y)


@pytest.mark.parametrize("method", ["cvxpy", "dual-accelerated"])
def test_max_margin_on_non_separable_data_raises_value_error_suggesting_soft_margin(non_separable, method):
    X, y = non_separable
    with pytest.raises(ValueError, match="not linearly separable.*problem='soft-margin'"):
        MarginClassifier(problem="max-margin", method=method).fit(X, y)
    assert MarginClassifier(problem="soft-margin").fit(X, y).result_.status == "optimal"


def test_invalid_input_raises_problem_error_naming_the_argument(separable):
    X, y = separable
    with pytest.raises(mk.ProblemError, match="C must be positive"):
        MarginClassifier(C=-1.0).fit(X, y)
    with pytest.raises(mk.ProblemError, match="dual-accelerated"):
        MarginClassifier(method="dual-accelerated").fit(X, y)  # soft margin: not a method of it
    with pytest.raises(ValueError, match="problem must be one of"):
        MarginClassifier(problem="hard").fit(X, y)
    with pytest.raises(ValueError, match="Only binary classification"):
        MarginClassifier().fit(X, np.arange(len(y)) % 3)


def test_extra_keywords_are_method_options_and_survive_clone(separable):
    X, y = separable
    est = MarginClassifier(problem="max-margin", method="dual-accelerated", loss="logistic", max_iter=50)
    assert est.get_params()["method_options"] == {"loss": "logistic"}
    twin = clone(est)
    assert twin.get_params() == est.get_params()
    twin.set_params(loss="exp", step_scale="unit")
    assert twin.method_options == {"loss": "exp", "step_scale": "unit"} and est.method_options == {"loss": "logistic"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        assert twin.fit(X, y).score(X, y) > 0.9


def test_refit_with_other_parameters_drops_stale_attributes(separable):
    X, y = separable
    est = MarginClassifier(problem="max-margin").fit(X, y)
    assert hasattr(est, "dual_coef_")
    est.set_params(method="dual-accelerated", max_iter=3000, tol=1e-3).fit(X, y)
    assert not hasattr(est, "dual_coef_") and not hasattr(est, "support_")
    est.set_params(method="cvxpy", kernel="rbf").fit(X, y)
    assert not hasattr(est, "coef_") and hasattr(est, "dual_coef_")


def test_max_iter_given_twice_is_an_error(separable):
    X, y = separable
    with pytest.raises(ValueError, match="max_iter is given both"):
        MarginClassifier(problem="max-margin", method="dual-accelerated", max_iter=5,
                         method_options={"max_iter": 6}).fit(X, y)


def test_random_state_makes_the_stochastic_method_reproducible(separable):
    X, y = separable
    est = MarginClassifier(problem="max-margin", method="dual-accelerated-stochastic", max_iter=300,
                           random_state=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a, b = clone(est).fit(X, y).coef_, clone(est).fit(X, y).coef_
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("problem,method", [("soft-margin", "cvxpy"), ("max-margin", "dual-accelerated")])
def test_sparse_input_gives_the_dense_model(problem, method):
    Xs = sp.random(60, 30, density=0.2, format="csr", random_state=5, data_rvs=np.random.default_rng(5).standard_normal)
    Xd = Xs.toarray()
    y = np.where(Xd @ np.random.default_rng(6).standard_normal(30) > 0, 1, -1)
    est = MarginClassifier(problem=problem, method=method, max_iter=5000, tol=1e-3)  # cvxpy ignores both
    dense, sparse = clone(est).fit(Xd, y), clone(est).fit(Xs, y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(sparse.decision_function(Xs), dense.decision_function(Xd), rtol=1e-6, atol=1e-8)


def test_fitted_estimator_pickles_with_its_result(separable):
    X, y = separable
    est = MarginClassifier(problem="max-margin", method="dual-accelerated", max_iter=3000, tol=1e-3).fit(X, y)
    back = pickle.loads(pickle.dumps(est))
    assert np.array_equal(back.predict(X), est.predict(X)) and back.result_.status == est.result_.status


def test_perturbed_dual_maps_C_to_its_penalty_gamma(overlapping):
    X, y = overlapping
    problem, _ = MarginClassifier(problem="perturbed-dual", C=0.25)._build(X, 2.0 * y - 1.0)
    assert isinstance(problem, mk.PerturbedSVMDual) and problem.gamma == 0.25
    problem, options = MarginClassifier(problem="perturbed-dual", C=0.25,
                                        method_options={"gamma": 0.5, "mu": 2.0})._build(X, 2.0 * y - 1.0)
    assert (problem.gamma, problem.mu) == (0.5, 2.0) and "gamma" not in options
    with pytest.raises(ValueError, match="always fits an offset"):
        MarginClassifier(problem="perturbed-dual", bias=False).fit(X, y)
    with pytest.raises(ValueError, match="is linear"):
        MarginClassifier(problem="perturbed-dual", kernel="rbf").fit(X, y)


def test_perturbed_dual_classifies_like_its_result(overlapping):
    X, y = overlapping
    for method in ("cvxpy", "fista"):
        est = MarginClassifier(problem="perturbed-dual", method=method).fit(X, y)
        np.testing.assert_allclose(est.decision_function(X), est.result_.decision_function(X), atol=1e-12)
        assert est.score(X, y) > 0.8, method


# ---- scikit-learn tooling --------------------------------------------------------------------------
def test_works_in_a_pipeline_with_standard_scaler(cancer):
    X, y = cancer
    pipe = make_pipeline(StandardScaler(), MarginClassifier(C=0.1)).fit(X, y)
    assert pipe.score(X, y) > 0.97
    assert pipe[-1].result_.status == "optimal"


def test_cross_val_score(cancer):
    X, y = cancer
    scores = cross_val_score(make_pipeline(StandardScaler(), MarginClassifier(C=0.1)), X, y, cv=3)
    assert scores.shape == (3,) and scores.min() > 0.93


def test_grid_search_over_C_and_method_on_breast_cancer(cancer):
    X, y = cancer
    pipe = make_pipeline(StandardScaler(), MarginClassifier(tol=1e-4))  # fista's tol; cvxpy ignores it
    soft_methods = ["cvxpy", "fista"]
    grid = [{"marginclassifier__problem": ["soft-margin"], "marginclassifier__method": soft_methods,
             "marginclassifier__C": [0.01, 0.1]},
            # standardised breast cancer is separable with an offset (margin ~1e-3), not through the origin
            {"marginclassifier__problem": ["max-margin"], "marginclassifier__method": ["cvxpy"],
             "marginclassifier__bias": [True]}]
    search = GridSearchCV(pipe, grid, cv=3, error_score="raise").fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    assert len(scores) == 2 * len(soft_methods) + 1 and np.all(np.isfinite(scores))
    assert search.best_score_ > 0.95
    assert search.best_params_["marginclassifier__problem"] == "soft-margin"  # the hard margin overfits
