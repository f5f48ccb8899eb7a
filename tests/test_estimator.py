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


# The sklearn checks fit on data they generate (random labels on uniform data, all-zero rows carrying both labels,
# blobs in three classes fitted one-vs-rest, ...). No hyperplane separates the data of the checks below, and a
# hard-margin fit raises the documented ValueError there by design; the test after the checks proves that each of
# these failures is that error and nothing else.
NOT_SEPARABLE = (
    "check_class_weight_classifiers", "check_classifier_data_not_an_array", "check_classifiers_train",
    "check_dict_unchanged", "check_dont_overwrite_parameters", "check_dtype_object", "check_estimator_sparse_array",
    "check_estimator_sparse_matrix", "check_estimator_sparse_tag", "check_estimators_dtypes",
    "check_estimators_nan_inf", "check_f_contiguous_array_estimator", "check_fit2d_predict1d",
    "check_fit_check_is_fitted", "check_fit_idempotent", "check_fit_score_takes_y",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance", "check_n_features_in", "check_n_features_in_after_fitting",
    "check_non_transformer_estimators_n_iter", "check_positive_only_tag_during_fit", "check_sample_weights_list",
    "check_sample_weights_not_an_array", "check_sample_weights_pandas_series", "check_supervised_y_2d")
NOT_SEPARABLE_REASON = ("hard margin: the check fits on data that cannot be separated, and fit raises ValueError "
                        "(use problem='soft-margin') by design")
# fitting with integer weights and fitting the repeated samples are the same problem; both fits are certified to the
# method's tolerance, not to the check's rtol=1e-7 (test_integer_weights_are_repeated_samples checks the equivalence
# at the certified tolerance)
WEIGHT_EQUIVALENCE = ("check_sample_weight_equivalence_on_dense_data", "check_sample_weight_equivalence_on_sparse_data")
TOLERANCE_REASON = "a first-order method certifies its relative gap to tol, not the check's rtol=1e-7"
# the perturbed dual has one penalty for every sample: weights other than 0 (removal) and one common value raise
PERTURBED_WEIGHTS = ("check_sample_weights_not_overwritten", "check_class_weight_classifiers") + WEIGHT_EQUIVALENCE
NO_OFFSET_REASON = ("bias=False: class_weight={0: 1000, ...} on blobs far from the origin cannot make a hyperplane "
                    "through the origin predict class 0 on 87% of the test set")

CHECKED = [
    MarginClassifier(),                                                   # soft margin, default method (dual-cd-bias)
    MarginClassifier(method="cvxpy"),                                     # the reference
    MarginClassifier(kernel="rbf", method="cvxpy"),                       # soft margin, dual QP
    MarginClassifier(bias=False),                                         # dual-cd (cvxpy when weighted)
    MarginClassifier(problem="max-margin", method="cvxpy"),               # hard margin with an offset
    MarginClassifier(problem="perturbed-dual"),                           # Hough–Vavasis (15), fista
    # the checks fit random labels, where the hinge dual converges slowly: a smaller budget keeps them short
    MarginClassifier(method="fista", max_iter=2000, tol=1e-4),            # FISTA on the SVM dual
]


def _weighted_methods(estimator):
    X = np.random.default_rng(0).standard_normal((6, 2))
    return mk.methods(mk.SoftMarginSVM(X, [1, -1] * 3, bias=estimator.bias, kernel=estimator.kernel,
                                       sample_weight=np.arange(1.0, 7.0)))


def expected_failed_checks(estimator):
    if estimator.problem == "max-margin":
        return {name: NOT_SEPARABLE_REASON for name in NOT_SEPARABLE}
    if estimator.problem == "perturbed-dual":
        return {name: "the perturbed dual has no per-sample penalty: fit raises ValueError by design"
                for name in PERTURBED_WEIGHTS}
    out = {}
    if estimator.method is None or estimator.method != "cvxpy":
        out.update({name: TOLERANCE_REASON for name in WEIGHT_EQUIVALENCE})
        if estimator.method is not None and estimator.method not in _weighted_methods(estimator):
            out.update({name: f"{estimator.method} has no sample weights: fit raises ValueError by design"
                        for name in ("check_sample_weights_list", "check_sample_weights_not_overwritten",
                                     "check_class_weight_classifiers")})
    if not estimator.bias:
        out["check_class_weight_classifiers"] = NO_OFFSET_REASON
    return out


@parametrize_with_checks(CHECKED, expected_failed_checks=expected_failed_checks, xfail_strict=True)
def test_marginclassifier_passes_the_scikit_learn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


def test_max_margin_fails_the_sklearn_checks_only_on_non_separable_data():
    """The expected failures above hide nothing else: each one is the documented not-separable error."""
    est = MarginClassifier(problem="max-margin", method="cvxpy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(est, on_fail=None)
    failed = [r for r in results if r["status"] == "failed"]
    assert {r["check_name"] for r in failed} == set(NOT_SEPARABLE)
    for r in failed:
        exc = r["exception"]
        messages = [str(exc), str(exc.__cause__), str(exc.__context__)]
        assert any("not linearly separable" in m for m in messages), r["check_name"]


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
    est = MarginClassifier(C=0.5, method="cvxpy").fit(X, y)
    svc = SVC(kernel="linear", C=0.5, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(est.coef_, svc.coef_, atol=1e-4)
    np.testing.assert_allclose(est.intercept_, svc.intercept_, atol=1e-4)
    assert np.array_equal(est.predict(X), svc.predict(X))
    assert est.result_.status == "optimal" and est.result_.certificate["duality_gap"] < 1e-6


def test_kernel_soft_margin_agrees_with_sklearn_svc(overlapping):
    X, y = overlapping
    est = MarginClassifier(kernel="rbf", gamma=0.3, method="cvxpy").fit(X, y)
    svc = SVC(kernel="rbf", gamma=0.3, C=1.0, tol=1e-8).fit(X, y)
    assert not hasattr(est, "coef_")
    np.testing.assert_allclose(est.decision_function(X), svc.decision_function(X), atol=1e-3)
    # the support vectors and their dual coefficients alone give the decision function
    K = np.exp(-0.3 * ((X[:, None, :] - X[None, est.support_, :]) ** 2).sum(-1))
    np.testing.assert_allclose(K @ est.dual_coef_.ravel() + est.intercept_, est.decision_function(X), atol=1e-5)
    assert abs(len(est.support_) - len(svc.support_)) <= 2  # up to degenerate points on the margin


def test_attributes_follow_sklearn_conventions(separable):
    X, y = separable
    est = MarginClassifier(problem="max-margin", method="dual-accelerated", bias=False, max_iter=3000,
                           tol=1e-3).fit(X, y)
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
    est = MarginClassifier(problem="max-margin", method="cvxpy").fit(X, y)
    np.testing.assert_allclose(est.dual_coef_ @ X[est.support_], est.coef_, atol=1e-6)
    Xo, yo = overlapping
    soft = MarginClassifier(method="dual-cd-bias", tol=1e-8, max_iter=100000).fit(Xo, yo)   # its multipliers
    np.testing.assert_allclose(soft.dual_coef_ @ Xo[soft.support_], soft.coef_, atol=1e-6)
    k = MarginClassifier(kernel="rbf", method="cvxpy").fit(Xo, yo)
    assert k.dual_coef_.shape == (1, k.support_.size) and np.all(np.abs(k.dual_coef_) <= 1.0 + 1e-9)


def test_soft_margin_methods_agree_with_each_other(overlapping):
    X, y = overlapping
    ref = MarginClassifier(C=0.5, method="cvxpy").fit(X, y)
    fista = MarginClassifier(C=0.5, method="fista").fit(X, y)
    assert fista.result_.status == "optimal"
    np.testing.assert_allclose(fista.coef_, ref.coef_, atol=1e-3)
    np.testing.assert_allclose(fista.intercept_, ref.intercept_, atol=1e-2)
    assert np.mean(fista.predict(X) == ref.predict(X)) >= 0.99


def test_max_margin_methods_agree_with_each_other(separable):
    X, y = separable
    ref = MarginClassifier(problem="max-margin", bias=False, method="cvxpy").fit(X, y)
    da = MarginClassifier(problem="max-margin", method="dual-accelerated", bias=False, max_iter=5000).fit(X, y)
    cos = float(ref.coef_.ravel() @ da.coef_.ravel() / (np.linalg.norm(ref.coef_) * np.linalg.norm(da.coef_)))
    assert 1 - cos < 1e-4
    assert da.result_.margin == pytest.approx(ref.result_.margin, rel=1e-3)


def test_budget_stop_raises_convergence_warning_naming_method_and_budget(separable):
    X, y = separable
    with pytest.warns(ConvergenceWarning, match=r"method='dual-accelerated'.*5 iterations, max_iter=5 reached; "
                                                "relative gap bound"):
        MarginClassifier(problem="max-margin", method="dual-accelerated", bias=False, max_iter=5).fit(X, y)


@pytest.mark.parametrize("method", ["cvxpy", "dual-accelerated"])
def test_max_margin_on_non_separable_data_raises_value_error_suggesting_soft_margin(non_separable, method):
    X, y = non_separable
    with pytest.raises(ValueError, match="not linearly separable.*problem='soft-margin'"):
        MarginClassifier(problem="max-margin", method=method, bias=False).fit(X, y)
    assert MarginClassifier(problem="soft-margin", method="cvxpy").fit(X, y).result_.status == "optimal"


def test_invalid_input_raises_problem_error_naming_the_argument(separable):
    X, y = separable
    with pytest.raises(mk.ProblemError, match="C must be positive"):
        MarginClassifier(C=-1.0).fit(X, y)
    with pytest.raises(mk.ProblemError, match="dual-accelerated"):
        MarginClassifier(method="dual-accelerated").fit(X, y)  # soft margin: not a method of it
    with pytest.raises(ValueError, match="problem must be one of"):
        MarginClassifier(problem="hard").fit(X, y)
    with pytest.raises(ValueError, match="Unknown label type"):
        MarginClassifier().fit(X, np.linspace(0, 1, len(y)))
    for name, value in (("bias", "auto"), ("warm_start", 1), ("verbose", -1), ("class_weight", "even"),
                        ("method", 3)):
        with pytest.raises(ValueError, match=name):
            MarginClassifier(**{name: value}).fit(X, y)
    with pytest.raises(mk.ProblemError, match="unknown.*flavour|flavour"):
        MarginClassifier(flavour=1).fit(X, y)
    with pytest.raises(TypeError, match="coef_"):
        MarginClassifier(coef_=1)


def test_extra_keywords_are_method_options_and_survive_clone(separable):
    X, y = separable
    est = MarginClassifier(problem="max-margin", method="dual-accelerated", bias=False, loss="logistic", max_iter=50)
    assert est.get_params()["loss"] == "logistic" and est.loss == "logistic"
    assert "loss='logistic'" in repr(est)
    twin = clone(est)
    assert twin.get_params() == est.get_params()
    twin.set_params(loss="exp", step_scale="unit")
    assert (twin.loss, twin.step_scale) == ("exp", "unit") and est.loss == "logistic" and not hasattr(est, "step_scale")
    assert clone(twin).get_params() == twin.get_params()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        assert twin.fit(X, y).score(X, y) > 0.9


def test_refit_with_other_parameters_drops_stale_attributes(separable):
    X, y = separable
    est = MarginClassifier(problem="max-margin", bias=False, method="cvxpy").fit(X, y)
    assert hasattr(est, "dual_coef_")
    est.set_params(method="dual-accelerated", max_iter=3000, tol=1e-3).fit(X, y)
    assert not hasattr(est, "dual_coef_") and not hasattr(est, "support_")
    est.set_params(method="cvxpy", kernel="rbf").fit(X, y)
    assert not hasattr(est, "coef_") and hasattr(est, "dual_coef_")


def test_seed_given_twice_is_an_error(separable):
    X, y = separable
    with pytest.raises(ValueError, match="random_state and seed"):
        MarginClassifier(seed=1, random_state=2).fit(X, y)


def test_random_state_makes_the_stochastic_method_reproducible(separable):
    X, y = separable
    est = MarginClassifier(problem="max-margin", method="dual-accelerated-stochastic", bias=False, max_iter=300,
                           random_state=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a, b = clone(est).fit(X, y).coef_, clone(est).fit(X, y).coef_
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("problem,method", [("soft-margin", "cvxpy"), ("max-margin", "dual-accelerated"),
                                            ("soft-margin", None)])
def test_sparse_input_gives_the_dense_model(problem, method):
    Xs = sp.random(60, 30, density=0.2, format="csr", random_state=5, data_rvs=np.random.default_rng(5).standard_normal)
    Xd = Xs.toarray()
    y = np.where(Xd @ np.random.default_rng(6).standard_normal(30) > 0, 1, -1)
    est = MarginClassifier(problem=problem, method=method, bias=problem != "max-margin", max_iter=5000,
                           tol=1e-3)  # cvxpy ignores both
    dense, sparse = clone(est).fit(Xd, y), clone(est).fit(Xs, y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(sparse.decision_function(Xs), dense.decision_function(Xd), rtol=1e-6, atol=1e-8)


def test_fitted_estimator_pickles_with_its_result(separable):
    X, y = separable
    est = MarginClassifier(problem="max-margin", method="dual-accelerated", bias=False, max_iter=3000,
                           tol=1e-3).fit(X, y)
    back = pickle.loads(pickle.dumps(est))
    assert np.array_equal(back.predict(X), est.predict(X)) and back.result_.status == est.result_.status


def test_perturbed_dual_maps_C_to_its_penalty_gamma(overlapping):
    X, y = overlapping
    problem, _ = MarginClassifier(problem="perturbed-dual", C=0.25)._build(X, 2.0 * y - 1.0, None)
    assert isinstance(problem, mk.PerturbedSVMDual) and problem.gamma == 0.25
    est = MarginClassifier(problem="perturbed-dual", C=0.25, gamma=0.5, mu=2.0)
    problem, _ = est._build(X, 2.0 * y - 1.0, None)
    assert (problem.gamma, problem.mu) == (0.5, 2.0)
    assert "gamma" not in est._options("fista", None) and "mu" not in est._options("fista", None)
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
    pipe = make_pipeline(StandardScaler(), MarginClassifier(C=0.1, method="cvxpy")).fit(X, y)
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


# ---- sample weights, class weights -----------------------------------------------------------------
def _weighted_svm_cvxpy(X, y, C, s, bias=True):
    """An independent CVXPY model of min ½||w||² + C Σ s_i max(0, 1 − y_i(x_iᵀw + b)), y in {-1, +1}."""
    import cvxpy as cp
    w = cp.Variable(X.shape[1])
    b = cp.Variable() if bias else 0.0
    hinge = cp.pos(1 - cp.multiply(y, X @ w + b))
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * (s @ hinge)))
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    return prob.value, w.value, (float(b.value) if bias else 0.0)


def _objective(X, y, C, s, w, b):
    return 0.5 * float(w @ w) + C * float(s @ np.maximum(0.0, 1.0 - y * (X @ w + b)))


@pytest.mark.parametrize("data", ["overlapping", "cancer"])
@pytest.mark.parametrize("method", [None, "cvxpy"])
def test_sample_weight_agrees_with_an_independent_cvxpy_model(data, method, request):
    X, y = request.getfixturevalue(data)
    if data == "cancer":
        X = StandardScaler().fit_transform(X)[::3]
        y = y[::3]
    s = np.random.default_rng(5).uniform(0.0, 3.0, len(y))
    s[:7] = 0.0                                              # zero weights: the samples do not count
    s0 = s.copy()
    C = 0.3
    est = MarginClassifier(C=C, method=method, tol=1e-8, max_iter=100000).fit(X, y, sample_weight=s)
    np.testing.assert_array_equal(s, s0)                     # the user's weights are not modified
    ypm = np.where(y == est.classes_[1], 1.0, -1.0)
    value, w, b = _weighted_svm_cvxpy(X, ypm, C, s)
    assert est.result_.status == "optimal"
    mine = _objective(X, ypm, C, s, est.coef_.ravel(), est.intercept_[0])
    assert abs(mine - value) <= 1e-7 * value
    assert est.result_.value == pytest.approx(mine, rel=1e-12)
    np.testing.assert_allclose(est.coef_.ravel(), w, atol=1e-3 * max(1.0, np.abs(w).max()))
    # and the weighted reference is what marginkit certifies against
    cert = mk.certify(mk.SoftMarginSVM(X, y, C=C, sample_weight=s), (w, b))
    assert cert.status == "optimal" and cert.certificate["relative_gap"] <= 1e-6


def test_weighted_reference_is_certified_at_every_scale_and_with_huge_weights(overlapping):
    X, y = overlapping
    s = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    base = mk.SoftMarginSVM(X, y, C=1.0, sample_weight=s).reference()
    for c in (1e-4, 1e4):      # SoftMarginSVM(cX, C/c²) is the problem at X, its objective divided by c²
        ref = mk.SoftMarginSVM(c * X, y, C=1.0 / c ** 2, sample_weight=s).reference()
        assert ref.status == "optimal" and ref.value * c ** 2 == pytest.approx(base.value, rel=1e-6)
    big = mk.SoftMarginSVM(X, y, C=1e9, sample_weight=s).reference()
    assert big.status in ("optimal", "optimal_inaccurate") and np.isfinite(big.value)


def test_integer_weights_are_repeated_samples(overlapping):
    """The scikit-learn check's claim at the certified tolerance: weight k = the sample k times, weight 0 = removed."""
    X, y = overlapping
    sw = np.random.default_rng(3).integers(0, 4, len(y))
    for method in (None, "cvxpy"):
        est = MarginClassifier(C=0.7, method=method, tol=1e-9, max_iter=200000)
        weighted = clone(est).fit(X, y, sample_weight=sw)
        repeated = clone(est).fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
        assert weighted.result_.status == repeated.result_.status == "optimal"
        np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X), atol=1e-3)
        assert weighted.result_.value == pytest.approx(repeated.result_.value, rel=1e-7)


def test_zero_weights_remove_the_samples_of_the_hard_margin(separable):
    X, y = separable
    s = np.ones(len(y))
    s[::4] = 0.0
    est = MarginClassifier(problem="max-margin", method="cvxpy").fit(X, y, sample_weight=s)
    alone = MarginClassifier(problem="max-margin", method="cvxpy").fit(X[s > 0], y[s > 0])
    np.testing.assert_allclose(est.coef_, alone.coef_, rtol=1e-6, atol=1e-9)
    assert np.all(s[est.support_] > 0)       # support_ indexes the rows of the data given to fit
    np.testing.assert_allclose(est.dual_coef_ @ X[est.support_], est.coef_, atol=1e-6)


@pytest.mark.parametrize("method", [None, "cvxpy"])
def test_class_weight_balanced_equals_the_corresponding_sample_weight(method):
    from sklearn.utils.class_weight import compute_sample_weight
    X, y = load_breast_cancer(return_X_y=True)
    X, y = StandardScaler().fit_transform(X)[::4], y[::4]
    est = MarginClassifier(C=0.2, method=method)
    balanced = clone(est).set_params(class_weight="balanced").fit(X, y)
    weighted = clone(est).fit(X, y, sample_weight=compute_sample_weight("balanced", y))
    np.testing.assert_allclose(balanced.coef_, weighted.coef_, rtol=1e-12)
    np.testing.assert_allclose(balanced.class_weight_, len(y) / (2 * np.bincount(y)))
    # a dict multiplies the sample weights
    s = np.random.default_rng(0).uniform(0.5, 1.5, len(y))
    both = clone(est).set_params(class_weight={0: 2.0, 1: 0.5}).fit(X, y, sample_weight=s)
    by_hand = clone(est).fit(X, y, sample_weight=s * np.where(y == 0, 2.0, 0.5))
    np.testing.assert_allclose(both.coef_, by_hand.coef_, rtol=1e-12)
    assert balanced.result_.status == "optimal"


def test_default_method_follows_the_problem():
    from marginkit.api.path import default_method
    from marginkit.engine.choice import choose
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    s = rng.uniform(0.5, 2.0, 40)
    cases = [(dict(), "SoftMarginSVM", ("dual-cd-bias", "fista")),
             (dict(bias=False), "SoftMarginSVM", ("dual-cd", "fista")),
             (dict(kernel="rbf"), "SoftMarginSVM", ("dual-cd-bias", "fista")),
             (dict(problem="max-margin"), "MaxMargin", ()),
             (dict(problem="max-margin", bias=False), "MaxMargin", ("dykstra-accelerated", "dual-accelerated")),
             (dict(problem="max-margin", bias=False, kernel="rbf"), "MaxMargin",
              ("dykstra-accelerated", "dual-accelerated")),
             (dict(problem="perturbed-dual"), "PerturbedSVMDual", ("fista",))]
    for params, form, preferred in cases:
        for weights in (None, s):
            if weights is not None and form != "SoftMarginSVM":
                continue
            est = MarginClassifier(**params, tol=1e-4, max_iter=20000)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                est.fit(X, y, sample_weight=weights)
            problem, _ = est._build(X, y.astype(float), weights)
            listed = mk.methods(problem)
            expected = next((m for m in preferred if m in listed), "cvxpy")
            # issue 24: the cost model may prefer the interior-point method where it applies (linear, few columns),
            # or smo (linear, an offset, few samples, small kappa)
            chosen, why = choose(problem)
            assert chosen == expected or (chosen in ("ipm", "smo") and chosen in listed), (params, why)
            assert est.result_.method == chosen == default_method(problem), (params, weights is not None)


def test_a_method_without_weights_is_named_when_weights_are_given(overlapping):
    X, y = overlapping
    rng = np.random.default_rng(0)
    weighted = mk.SoftMarginSVM(X, y, bias=False, sample_weight=rng.uniform(0.5, 2.0, len(y)))
    missing = [m for m in mk.methods(mk.SoftMarginSVM(X, y, bias=False)) if m not in mk.methods(weighted)]
    if not missing:
        pytest.skip("every soft-margin method handles sample weights")
    with pytest.raises(ValueError, match=f"{missing[0]}.*sample_weight or class_weight"):
        MarginClassifier(bias=False, method=missing[0]).fit(X, y, sample_weight=rng.uniform(0.5, 2.0, len(y)))


def test_sample_weight_shape_and_sign_are_checked(overlapping):
    X, y = overlapping
    with pytest.raises(ValueError, match="sample_weight"):
        MarginClassifier().fit(X, y, sample_weight=np.ones(len(y) + 1))
    with pytest.raises(ValueError, match="(?i)negative"):
        MarginClassifier().fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="zero"):
        MarginClassifier().fit(X, y, sample_weight=np.zeros(len(y)))
    with pytest.raises(ValueError, match="perturbed-dual.*per-sample"):
        MarginClassifier(problem="perturbed-dual").fit(X, y, sample_weight=np.arange(len(y)) % 3 + 1.0)


# ---- one-vs-rest -------------------------------------------------------------------------------------
def _multiclass(name):
    from sklearn.datasets import load_digits, load_iris, load_wine
    X, y = {"iris": load_iris, "wine": load_wine, "digits": load_digits}[name](return_X_y=True)
    if name == "digits":
        keep = (y < 4) & (np.arange(len(y)) % 4 == 0)
        X, y = X[keep], y[keep]
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("name", ["iris", "wine", "digits"])
def test_one_vs_rest_agrees_with_fitting_each_binary_problem_alone(name):
    X, y = _multiclass(name)
    est = MarginClassifier(C=0.5, tol=1e-7, max_iter=100000).fit(X, y)
    k = len(est.classes_)
    assert k >= 3 and isinstance(est.result_, list) and len(est.result_) == k
    assert est.coef_.shape == (k, X.shape[1]) and est.intercept_.shape == (k,)
    assert est.decision_function(X).shape == (len(y), k)
    for j, label in enumerate(est.classes_):
        res = est.result_[j]
        assert res.status == "optimal" and res.certificate["relative_gap"] <= 1e-7
        alone = MarginClassifier(C=0.5, tol=1e-7, max_iter=100000).fit(X, np.where(y == label, "this", "rest"))
        assert list(alone.classes_) == ["rest", "this"]
        np.testing.assert_array_equal(est.coef_[j], alone.coef_[0])      # the same solve, deterministic
        ref = mk.SoftMarginSVM(X, np.where(y == label, 1, -1), C=0.5).reference()
        assert (res.value - ref.value) / ref.value <= 2e-7
        np.testing.assert_allclose(est.coef_[j], ref.w, atol=2e-3 * np.abs(ref.w).max())
    np.testing.assert_array_equal(est.predict(X), est.classes_[np.argmax(est.decision_function(X), axis=1)])
    assert est.score(X, y) > 0.9
    assert est.n_iter_ == max(r.iterations for r in est.result_)
    np.testing.assert_allclose(est.dual_coef_ @ X[est.support_], est.coef_, atol=1e-5)


def test_one_vs_rest_with_a_kernel_and_with_the_hard_margin():
    X, y = _multiclass("iris")
    k = MarginClassifier(kernel="rbf", gamma=0.5, method="cvxpy").fit(X, y)
    assert not hasattr(k, "coef_") and k.dual_coef_.shape == (3, k.support_.size)
    for j, res in enumerate(k.result_):
        np.testing.assert_allclose(k.decision_function(X)[:, j], res.decision_function(X), atol=1e-12)
    assert k.score(X, y) > 0.95
    # the first of iris' one-vs-rest problems is separable, the others are not: the hard margin says so
    with pytest.raises(ValueError, match="not linearly separable"):
        MarginClassifier(problem="max-margin", method="cvxpy").fit(X, y)


# ---- warm_start, verbose -----------------------------------------------------------------------------
def test_warm_start_continues_from_the_previous_result(overlapping):
    X, y = overlapping
    opts = dict(method="fista", tol=1e-7, max_iter=100000)
    est = MarginClassifier(C=1.0, warm_start=True, **opts).fit(X, y)
    cold_iterations, first = est.n_iter_, est.result_
    est.fit(X, y)                                   # the same problem again: it starts at its solution
    assert est.result_.status == "optimal" and est.n_iter_ < 0.2 * cold_iterations
    est.set_params(C=1.1).fit(X, y)
    cold = MarginClassifier(C=1.1, **opts).fit(X, y)
    assert est.result_ is not first and est.result_.status == "optimal"
    assert est.n_iter_ < cold.n_iter_
    assert (est.result_.value - cold.result_.value) / cold.result_.value <= 1e-6
    # another number of samples: the dual warm start does not fit, the fit starts cold
    est.fit(X[:100], y[:100])
    assert est.result_.status == "optimal"
    assert est.n_iter_ == MarginClassifier(C=1.1, **opts).fit(X[:100], y[:100]).n_iter_


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_verbose_prints_the_method_log_and_the_one_vs_rest_progress(capsys):
    X, y = _multiclass("iris")
    MarginClassifier(method="fista", verbose=1, max_iter=50).fit(X, y)
    out = capsys.readouterr().out
    assert out.count("one-vs-rest") == 3 and "fista" in out
    MarginClassifier(method="fista", max_iter=50).fit(X, y)
    assert capsys.readouterr().out == ""
