"""MarginClassifier on dask data (issue 13): fit on a row-chunked dask array or a dask.dataframe, the model equal to
the NumPy fit of the same method (same iterates, so to 1e-10), predictions as lazy dask arrays, and the cases not
supported on dask yet refused with a ProblemError. The threaded scheduler keeps these tests fast (the cluster runs
are in tests/test_scale_quick.py and the seam's own tests)."""
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import marginkit as mk
from marginkit import MarginClassifier
from marginkit.api.datasets import sklearn_digits_pair

da = pytest.importorskip("dask.array")
pytest.importorskip("dask")
pytestmark = pytest.mark.usefixtures("dask_threads")   # conftest.py: dask's threaded scheduler


def _digits():
    X, y = sklearn_digits_pair(0, 1)
    return X, np.where(y > 0, 7, 3)          # labels that are not ±1


def _random(seed=0, n=300, d=6):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return X, np.where(X @ rng.standard_normal(d) > 0, "yes", "no")


@pytest.mark.parametrize("data", [_digits, _random], ids=["digits", "random"])
@pytest.mark.parametrize("problem,method", [("max-margin", "dual-accelerated"), ("soft-margin", "fista")])
def test_dask_fit_equals_numpy_fit(data, problem, method):
    X, y = data()
    kw = dict(problem=problem, method=method, bias=False, max_iter=12, tol=1e-12)
    Xd = da.from_array(X, chunks=(X.shape[0] // 3 + 1, X.shape[1]))
    X0 = X.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)   # a short budget on purpose: the iterates are compared
        ref = MarginClassifier(**kw).fit(X, y)
        est = MarginClassifier(**kw).fit(Xd, y)              # y in NumPy
    np.testing.assert_array_equal(X, X0)                     # user data untouched
    np.testing.assert_array_equal(est.classes_, ref.classes_)
    np.testing.assert_allclose(est.coef_, ref.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(est.intercept_, ref.intercept_, atol=1e-12)
    assert est.n_iter_ == ref.n_iter_ and est.n_features_in_ == X.shape[1]
    scores = est.decision_function(Xd)
    assert isinstance(scores, da.Array)
    np.testing.assert_allclose(scores.compute(), ref.decision_function(X), rtol=1e-9, atol=1e-9)
    pred = est.predict(Xd)
    assert isinstance(pred, da.Array)
    np.testing.assert_array_equal(pred.compute(), ref.predict(X))
    # a NumPy X still gets NumPy answers from a dask-fitted model
    np.testing.assert_array_equal(est.predict(X), ref.predict(X))


@pytest.mark.parametrize("problem,bias", [("max-margin", False), ("soft-margin", False), ("soft-margin", True)])
def test_default_method_on_dask_is_one_listed_for_dask(problem, bias):
    X, y = _digits()
    Xd = da.from_array(X, chunks=(120, X.shape[1]))
    signs = da.from_array(np.where(y == 7, 1.0, -1.0), chunks=(120,))
    form = mk.SoftMarginSVM(Xd, signs, bias=bias) if problem == "soft-margin" else mk.MaxMargin(Xd, signs, bias=bias)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = MarginClassifier(problem=problem, bias=bias, max_iter=3).fit(Xd, y)
    assert est.result_.method != "cvxpy" and est.result_.method in mk.methods(form)


@pytest.mark.slow
def test_default_method_on_dask_runs_there_and_certifies():
    X, y = _digits()
    Xd = da.from_array(X, chunks=(120, X.shape[1]))
    yd = da.from_array(y, chunks=(120,))
    for problem, bias in (("max-margin", False), ("soft-margin", False), ("soft-margin", True)):
        est = MarginClassifier(problem=problem, bias=bias, max_iter=20000, tol=1e-3).fit(Xd, yd)
        assert est.result_.method != "cvxpy"
        assert est.result_.method in mk.methods(mk.SoftMarginSVM(Xd, da.where(yd == 7, 1.0, -1.0), bias=bias)
                                                if problem == "soft-margin" else
                                                mk.MaxMargin(Xd, da.where(yd == 7, 1.0, -1.0), bias=bias))
        assert est.result_.status == "optimal"
        assert (est.predict(Xd).compute() == y).mean() >= 0.99


def test_dask_dataframe_input():
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, y = _random(1)
    cols = [f"f{j}" for j in range(X.shape[1])]
    ddf = dd.from_pandas(pd.DataFrame(X, columns=cols), npartitions=3)
    ys = dd.from_pandas(pd.Series(y), npartitions=3)
    kw = dict(problem="max-margin", method="dual-accelerated", bias=False, max_iter=10, tol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = MarginClassifier(**kw).fit(ddf, ys)
        ref = MarginClassifier(**kw).fit(X, y)
    np.testing.assert_allclose(est.coef_, ref.coef_, rtol=1e-10, atol=1e-12)
    assert list(est.feature_names_in_) == cols
    np.testing.assert_array_equal(est.predict(ddf).compute(), ref.predict(X))


def test_unsupported_on_dask_named():
    X, y = _random(2)
    Xd = da.from_array(X, chunks=(100, X.shape[1]))
    y3 = np.array(["a", "b", "c"])[np.arange(len(y)) % 3]
    with pytest.raises(mk.ProblemError, match="one-vs-rest on dask"):
        MarginClassifier(problem="soft-margin", bias=False).fit(Xd, y3)
    with pytest.raises(mk.ProblemError, match="sample_weight"):
        MarginClassifier(bias=False).fit(Xd, y, sample_weight=np.ones(len(y)))
    with pytest.raises(mk.ProblemError, match="kernel"):
        MarginClassifier(kernel="rbf").fit(Xd, y)
    with pytest.raises(mk.ProblemError, match="y must be a vector of 300"):
        MarginClassifier(bias=False).fit(Xd, y[:-1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = MarginClassifier(problem="max-margin", method="dual-accelerated", bias=False, max_iter=5).fit(X, y)
    with pytest.raises(ValueError, match="expecting 6 features"):
        est.predict(da.from_array(X[:, :4], chunks=(100, 4)))
