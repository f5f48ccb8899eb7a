"""Issue 24, item 2: ``solve("auto")`` (and ``method=None``) picks the fast certified method by a written cost model
and says which and why; a coordinate run that ends on its budget is followed by the interior-point method."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer

import marginkit as mk
from marginkit.engine.choice import choose, costs


def _unit_sparse(n, d, density, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=seed, data_rvs=rng.standard_normal)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ X
    y = np.where(X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return sp.csr_matrix(X), y


def test_raw_features_go_to_the_interior_point_method():
    X, y = load_breast_cancer(return_X_y=True)      # raw: kappa = C max||x_i||^2 ~ 2.5e7
    P = mk.SoftMarginSVM(X, y, C=1.0)
    res = P.solve("auto")
    assert res.info["chosen"]["method"] == "ipm" and "kappa" in res.info["chosen"]["why"]
    assert res.status == "optimal"
    ref = P.reference()
    assert res.value == pytest.approx(ref.value, rel=1e-6)


def test_well_conditioned_sparse_data_go_to_coordinate_descent_and_fall_back_on_budget():
    X, y = _unit_sparse(30_000, 200, 0.01)
    P = mk.SoftMarginSVM(X, y, C=1.0, bias=False)
    c = costs(P)
    assert c["kappa"] == pytest.approx(1.0) and c["cd"] < c["ipm"]
    assert choose(P)[0] == "dual-cd"
    res = P.solve("auto", max_iter=1)                # one epoch cannot certify: the fallback runs
    assert res.method == "ipm" and "fallback" in res.info["chosen"] and res.status == "optimal"


def test_wide_data_and_kernels_keep_the_first_listed_method():
    X, y = _unit_sparse(200, 4000, 0.002)
    assert choose(mk.SoftMarginSVM(X, y, bias=False))[0] == "dual-cd"   # ipm declines above 3000 columns
    Xd = np.random.default_rng(1).standard_normal((50, 3))
    yd = np.where(Xd[:, 0] > 0, 1.0, -1.0)
    method, why = choose(mk.SoftMarginSVM(Xd, yd, kernel="rbf"))
    assert method != "ipm" and method in mk.methods(mk.SoftMarginSVM(Xd, yd, kernel="rbf"))


def test_hard_margin_with_an_offset_is_certified_by_ipm():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((80, 4))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    X[:, 0] += 0.5 * y + 3.0                          # separable only with an offset
    res = mk.MaxMargin(X, y, bias=True).solve("auto")
    assert res.info["chosen"]["method"] == "ipm" and res.status == "optimal"
    assert res.margin == pytest.approx(mk.MaxMargin(X, y, bias=True).reference().margin, rel=1e-3)


def test_dense_and_sparse_copies_get_the_same_method():
    X, y = _unit_sparse(3000, 50, 0.05, seed=3)
    assert choose(mk.SoftMarginSVM(X, y))[0] == choose(mk.SoftMarginSVM(X.toarray(), y))[0]
