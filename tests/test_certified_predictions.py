"""Issue 23, item 3: certificates that decide. The duality gap of a soft-margin SVM result bounds ``||w − w*||`` by
``√(2·gap)`` (1-strong convexity), which proves labels of the exact optimum, its support vectors and its offset's
interval. Every claim is checked against the certified CVXPY reference."""
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.preprocessing import StandardScaler

import marginkit as mk
from marginkit.core.safe import offset_interval


def _data(seed=0, n=300, d=10):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y, rng.standard_normal((400, d))


def _check(P, res, ref, Xt):
    labels, certain = res.predict(Xt, certified=True)
    assert labels.shape == certain.shape == (Xt.shape[0],) and certain.dtype == bool
    np.testing.assert_array_equal(labels, res.predict(Xt))
    assert np.all(labels[certain] == ref.predict(Xt)[certain])          # no certain label is wrong
    sv, non, und = res.support(certified=True)
    assert len(sv) + len(non) + len(und) == P.n and not set(sv) & set(non)
    m = P.y * ref.decision_function(P.X)
    assert np.all(m[sv] <= 1 + 1e-6) and np.all(m[non] >= 1 - 1e-6)   # KKT of the exact optimum
    b_lo, b_hi = res.certificate["offset_interval"]
    assert b_lo - 1e-6 <= ref.b <= b_hi + 1e-6
    return certain.mean(), len(und)


@pytest.mark.parametrize("bias,method", [(False, "dual-cd"), (False, "fista"), (True, "dual-cd-bias"),
                                         (True, "fista")])
def test_certified_labels_support_and_offset_hold_for_the_exact_optimum(bias, method):
    X, y, Xt = _data()
    P = mk.SoftMarginSVM(X, y, C=1.0, bias=bias)
    ref = P.reference()
    fractions = []
    for tol in (1e-2, 1e-4, 1e-8):
        res = P.solve(method, tol=tol)
        frac, undecided = _check(P, res, ref, Xt)
        fractions.append(frac)
    assert fractions[-1] >= 0.99 and fractions[0] <= fractions[-1]     # a smaller gap proves more
    assert undecided < 0.1 * P.n


def test_real_data_and_sample_weights():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    y = np.where(y == 1, 1.0, -1.0)
    w = np.random.default_rng(1).uniform(0.2, 2.0, size=len(y))
    P = mk.SoftMarginSVM(X, y, C=0.5, bias=True, sample_weight=w)
    ref = P.reference()
    res = P.solve("dual-cd-bias", tol=1e-5)
    frac, _ = _check(P, res, ref, X)
    assert frac > 0.9


def test_kernel_results_certify_with_the_feature_space_ball():
    X, y, Xt = _data(n=120, d=4)
    P = mk.SoftMarginSVM(X, y, C=1.0, bias=False, kernel="rbf")
    ref = P.reference()
    method = next(m for m in mk.methods(P) if m != "cvxpy")
    res = P.solve(method, tol=1e-6)
    labels, certain = res.predict(Xt, certified=True)
    assert certain.mean() > 0.5 and np.all(labels[certain] == ref.predict(Xt)[certain])


def test_offset_interval_is_the_optimal_offsets_at_radius_zero():
    X, y, _ = _data(seed=3)
    P = mk.SoftMarginSVM(X, y, C=1.0, bias=True)
    ref = P.reference()
    s = X @ ref.w
    lo, hi = offset_interval(s, np.linalg.norm(X, axis=1), y, P.box, 0.0)
    assert lo - 1e-8 <= ref.b <= hi + 1e-8 and hi - lo < 1e-3   # the reference's w* is exact to about 1e-9
    assert offset_interval(s, np.ones(len(y)), y, P.box, np.inf) == (-np.inf, np.inf)


def test_saved_results_keep_what_was_proven_and_others_refuse(tmp_path):
    X, y, Xt = _data()
    P = mk.SoftMarginSVM(X, y, C=1.0, bias=True)
    res = P.solve("dual-cd-bias", tol=1e-6)
    before = res.predict(Xt, certified=True)
    back = mk.Result.load(res.save(tmp_path / "r.npz"))
    after = back.predict(Xt, certified=True)
    np.testing.assert_array_equal(before[1], after[1])
    with pytest.raises(mk.ProblemError, match="SoftMarginSVM"):
        mk.Result.load(P.solve("dual-cd-bias", tol=1e-6).save(tmp_path / "s.npz")).support()
    with pytest.raises(mk.ProblemError, match="SoftMarginSVM"):
        mk.MaxMargin(X[y * X[:, 0] > 0.3], y[y * X[:, 0] > 0.3]).reference().predict(Xt, certified=True)


def test_estimator_one_vs_rest_certified_labels_are_the_exact_ones():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    exact = mk.MarginClassifier(problem="soft-margin", method="cvxpy").fit(X, y)
    approx = mk.MarginClassifier(problem="soft-margin", method="fista", tol=1e-4).fit(X, y)
    labels, certain = approx.predict(X, certified=True)
    np.testing.assert_array_equal(labels, approx.predict(X))
    assert certain.mean() > 0.5
    assert np.all(labels[certain] == exact.predict(X)[certain])
    yb = np.where(y == 0, "setosa", "other")
    approx = mk.MarginClassifier(problem="soft-margin", method="fista", tol=1e-6).fit(X, yb)
    labels, certain = approx.predict(X, certified=True)
    assert set(labels) <= {"setosa", "other"} and certain.mean() > 0.9


# --- issue 23, item 4: a certified validation error along C ------------------------------------------------------
def _split():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    idx = np.random.default_rng(0).permutation(len(y))
    return X[idx[:300]], y[idx[:300]], X[idx[300:]], y[idx[300:]]


@pytest.mark.parametrize("bias", [False, True])
def test_validation_intervals_hold_the_exact_error_on_and_between_grid_points(bias):
    X, y, Xv, yv = _split()
    grid = np.logspace(-2, 0, 30)
    results = mk.path(mk.SoftMarginSVM(X, y, bias=bias), C=grid, tol=1e-8, validation=(Xv, yv))
    summary = results[0].info["validation_summary"]
    for C, res in list(zip(grid, results))[::6]:
        exact = np.mean(mk.SoftMarginSVM(X, y, C=C, bias=bias).reference().predict(Xv) != yv)
        lo, hi = res.info["validation_error_interval"]
        assert res.certificate["validation_error"] == [lo, hi]             # the contract's key
        assert lo - 1e-12 <= exact <= hi + 1e-12 and lo <= res.info["validation_error"] <= hi
    # no C of the range, between grid points included, does better than the lower bound
    for C in np.random.default_rng(1).uniform(0.01, 1.0, size=4):
        exact = np.mean(mk.SoftMarginSVM(X, y, C=C, bias=bias).reference().predict(Xv) != yv)
        assert exact >= summary["lower_bound"] - 1e-12
    assert summary["best_upper"] - summary["lower_bound"] == pytest.approx(summary["epsilon"])
    assert summary["C_range"] == [pytest.approx(0.01), pytest.approx(1.0)]
    assert summary["lower_bound"] > 0 or bias   # 30 points suffice without an offset (the offset's interval widens)


def test_validation_set_is_checked():
    X, y, Xv, yv = _split()
    with pytest.raises(mk.ProblemError, match="test_set"):
        mk.path(mk.SoftMarginSVM(X, y), C=[0.1, 1.0], validation=(Xv[:, :3], yv))


# --- issue 23, item 3: stop once every prediction on a set is certified --------------------------------------------
def test_stop_when_predictions_stops_early_with_every_label_proven():
    X, y, Xt = _data(n=2000, d=20)
    P = mk.SoftMarginSVM(X, y, bias=True)
    full = P.solve("fista", tol=1e-10, max_iter=100_000)
    res = P.solve("fista", tol=1e-10, max_iter=100_000, stop_when="predictions", X_certify=Xt[:200])
    assert res.status == "user_limit" and res.info["stopped_by"] == "predictions"
    assert res.iterations < full.iterations
    labels, certain = res.predict(Xt[:200], certified=True)
    assert certain.all() and np.all(labels == P.reference().predict(Xt[:200]))
    again = P.solve("fista", tol=1e-10, max_iter=100_000, stop_when="predictions", X_certify=Xt[:200], trace=None)
    assert again.iterations == res.iterations and np.array_equal(again.w, res.w)   # the trace changes nothing


@pytest.mark.parametrize("options, word", [({"stop_when": "predictions"}, "X_certify"),
                                           ({"X_certify": np.zeros((2, 10))}, "stop_when"),
                                           ({"stop_when": "labels", "X_certify": np.zeros((2, 10))}, "stop_when"),
                                           ({"stop_when": "predictions", "X_certify": np.zeros((2, 3))}, "X_certify")])
def test_stop_when_is_checked_at_compile(options, word):
    X, y, _ = _data()
    with pytest.raises(mk.ProblemError, match=word):
        mk.SoftMarginSVM(X, y).compile("fista", **options)
    with pytest.raises(mk.ProblemError, match="SoftMarginSVM"):
        mk.MaxMargin(X[y * X[:, 0] > 0.3], y[y * X[:, 0] > 0.3]).compile(
            "gd", stop_when="predictions", X_certify=np.zeros((2, 10)))
