"""``smo``: pair steps with second-order selection on the cached Gram matrix (soft margin with an offset, small n).
It must agree with the CVXPY reference, give the same steps compiled or not, for a NumPy array and a CSR matrix of
the same data and at every scale of the data, refuse what it does not solve by naming what does, and be what
``solve("auto")`` runs on small well-conditioned problems."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_iris, load_wine

import marginkit as mk
from marginkit.engine import choice
from marginkit.plans.svm_cd import svm_smo


def _random(n, d, seed, flip=0.1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.3 > 0, 1.0, -1.0)
    y[rng.random(n) < flip] *= -1.0
    return X, y


def _zscored(X):
    return (X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1.0)


def _real():
    Xi, yi = load_iris(return_X_y=True)
    Xb, yb = load_breast_cancer(return_X_y=True)
    Xw, yw = load_wine(return_X_y=True)
    return [("iris setosa", Xi, np.where(yi == 0, 1.0, -1.0)),
            ("breast cancer z-scored", _zscored(Xb), np.where(yb == 1, 1.0, -1.0)),
            ("wine 0 z-scored", _zscored(Xw), np.where(yw == 0, 1.0, -1.0))]


@pytest.mark.parametrize("name, X, y", _real(), ids=lambda v: v if isinstance(v, str) else "")
def test_smo_agrees_with_the_cvxpy_reference_on_real_data(name, X, y):
    P = mk.SoftMarginSVM(X, y, C=1.0)
    res = P.solve("smo", tol=1e-9)
    ref = P.reference()
    assert res.status == "optimal" and res.certificate["relative_gap"] <= 1e-9
    assert res.value == pytest.approx(ref.value, rel=1e-8)
    assert res.certificate["dual"] <= ref.value * (1 + 1e-9) and ref.value <= res.certificate["primal"] * (1 + 1e-9)
    assert res.b == pytest.approx(ref.b, abs=1e-4 * (1 + abs(ref.b)))


@pytest.mark.parametrize("seed", range(6))
def test_smo_agrees_with_the_reference_on_random_data_with_weights_sparse_rows_and_duplicates(seed):
    rng = np.random.default_rng(100 + seed)
    X, y = _random(60 + 20 * seed, 2 + seed, seed)
    X[:5] = X[5:10]                                  # duplicated rows (a_ij = 0 for a pair of them)
    y[:5] = y[5:10]
    X[10] = 0.0                                      # a zero row
    weights = rng.uniform(0.0, 2.0, X.shape[0]) if seed % 2 else None
    if weights is not None:
        weights[:3] = 0.0                            # C_i = 0: a_i = 0 for ever
    data = sp.csr_matrix(X) if seed % 3 == 2 else X
    C = [0.1, 1.0, 10.0][seed % 3]
    P = mk.SoftMarginSVM(data, y, C=C, sample_weight=weights)
    res = P.solve("smo", tol=1e-9, max_iter=5000)
    ref = P.solve("ipm", tol=1e-12)
    assert res.status == "optimal"
    assert res.value == pytest.approx(ref.value, rel=1e-8)
    a = res.dual["a"]
    box = C * (np.ones_like(y) if weights is None else weights)
    assert np.all(a >= 0) and np.all(a <= box) and abs(float(y @ a)) <= 1e-9 * max(1.0, float(a.sum()))


def test_compiled_and_python_rounds_take_the_same_steps():
    X, y = _random(80, 5, 7)
    P = mk.SoftMarginSVM(X, y, C=1.0)
    fast = P.solve("smo", tol=1e-8)
    slow = P.solve("smo", tol=1e-8, compiled=False)
    assert fast.info["compiled"] is True or not svm_smo.__dict__.get("numba_available", True)
    assert fast.info["steps"] == slow.info["steps"] and fast.iterations == slow.iterations
    np.testing.assert_array_equal(fast.dual["a"], slow.dual["a"])


def test_dense_and_csr_copies_and_every_scale_take_the_same_steps():
    X, y = _random(120, 8, 3)
    base = mk.SoftMarginSVM(X, y, C=1.0).solve("smo", tol=1e-8)
    csr = mk.SoftMarginSVM(sp.csr_matrix(X), y, C=1.0).solve("smo", tol=1e-8)
    assert csr.info["steps"] == base.info["steps"]
    np.testing.assert_array_equal(csr.dual["a"], base.dual["a"])
    for c in (2.0 ** -10, 2.0 ** 10):                # exact scalings: the same steps to the last bit
        scaled = mk.SoftMarginSVM(c * X, y, C=1.0 / c ** 2).solve("smo", tol=1e-8)
        assert scaled.iterations == base.iterations and scaled.status == "optimal"
        np.testing.assert_allclose(scaled.w * c, base.w, rtol=1e-6, atol=1e-9)
        assert scaled.b == pytest.approx(base.b, rel=1e-6, abs=1e-9)


def test_a_warm_start_from_a_nearby_C_needs_fewer_steps():
    X, y = _random(300, 6, 11)
    P = mk.SoftMarginSVM(X, y, C=1.0)
    cold = P.solve("smo", tol=1e-8)
    near = mk.SoftMarginSVM(X, y, C=1.1).solve("smo", tol=1e-8)
    warm = P.solve("smo", tol=1e-8, warm_start=near)
    assert warm.status == "optimal" and warm.info["steps"] < cold.info["steps"]
    assert warm.value == pytest.approx(cold.value, rel=1e-7)


def test_what_smo_does_not_solve_is_refused_naming_what_does():
    X, y = _random(50, 3, 0)
    with pytest.raises(mk.ProblemError, match="dual-cd"):
        mk.SoftMarginSVM(X, y, bias=False).solve("smo")
    with pytest.raises(mk.ProblemError, match="kernel"):
        mk.SoftMarginSVM(X, y, kernel="rbf").solve("smo")
    big_X, big_y = _random(svm_smo.MAX_SAMPLES + 1, 2, 1)
    big = mk.SoftMarginSVM(big_X, big_y)
    assert "smo" not in mk.methods(big) and "smo" in mk.methods(mk.SoftMarginSVM(X, y))
    with pytest.raises(mk.ProblemError, match="dual-cd-bias"):
        big.solve("smo")
    with pytest.raises(mk.ProblemError, match="compiled"):
        mk.SoftMarginSVM(X, y).solve("smo", compiled="maybe")


def test_auto_runs_smo_on_small_well_conditioned_data_and_not_on_raw_features():
    X, y = load_iris(return_X_y=True)
    P = mk.SoftMarginSVM(X, np.where(y == 0, 1.0, -1.0), C=1.0)
    res = P.solve("auto", tol=1e-6)
    assert choice.choose(P)[0] == "smo" and res.method == "smo" and res.status == "optimal"
    assert res.info["chosen"]["probe"]["outcome"] == "optimal: kept"
    assert res.value == pytest.approx(P.reference().value, rel=1e-5)
    Xw, yw = load_wine(return_X_y=True)             # raw: kappa = C max||x_i||^2 ~ 3e6, the steps would crawl
    raw = mk.SoftMarginSVM(Xw, np.where(yw == 0, 1.0, -1.0), C=1.0)
    assert choice.costs(raw)["kappa"] > choice.SMO_KAPPA and choice.choose(raw)[0] != "smo"
    assert choice.choose(mk.SoftMarginSVM(X, np.where(y == 0, 1.0, -1.0), C=1.0), warm=True)[0] != "smo"


def test_auto_hands_over_when_the_smo_probe_stalls(monkeypatch):
    """A probe that cannot certify within the model's time of the other method gives way to it."""
    X, y = _random(400, 4, 5, flip=0.3)
    P = mk.SoftMarginSVM(X, y, C=1.0)
    assert choice.choose(P)[0] == "smo"
    # smo's own budget, one round, cannot certify 1e-6: it ends on it (a user's max_iter=1 would bound both runs)
    monkeypatch.setattr(svm_smo.PairwiseSMO, "default_max_iter", 1)
    res = P.solve("auto", tol=1e-6)
    assert res.info["chosen"]["probe"]["method"] == "smo" and res.method != "smo" and res.status == "optimal"
