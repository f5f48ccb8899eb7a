"""CoCoA+ (``dual-cd`` on a row-chunked dask X; marginkit/plans/svm_cd/cocoa.py over plans/common/cocoa.py) on the
threaded scheduler.

CoCoA+ does not follow the single-process iterates: it is checked against its certificate. The primal is 1-strongly
convex, so ``½||w − w*||² <= P(w) − P* <= P(w) − D(a)`` bounds its distance to the NumPy ``dual-cd`` / CVXPY solution;
the certificate itself is recomputed here from a host copy of ``a`` (never trusted as reported). The cluster runs are
in tests/test_dask_cluster.py."""
import numpy as np
import pytest
import scipy.sparse as sp

import marginkit as mk
from marginkit.api.datasets import sklearn_digits_pair

pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
pytestmark = pytest.mark.usefixtures("dask_threads")   # conftest.py: dask's threaded scheduler


def _data(seed=0, n=400, d=20, sparsity=None):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    if sparsity is not None:
        X[rng.random((n, d)) < sparsity] = 0.0
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


def _independent_certificate(X, y, box, res):
    """``(P(w), D(a), w(a))`` from host copies: the reported certificate must be these values."""
    a = np.asarray(res.dual["a"].compute())
    assert np.all(a >= 0.0) and np.all(a <= box * (1 + 1e-12))
    wa = X.T @ (a * y)
    P = 0.5 * res.w @ res.w + box @ np.maximum(0.0, 1.0 - y * (X @ res.w))
    return P, a.sum() - 0.5 * wa @ wa, wa


def _within_certificate(res, w_star, P_star):
    gap = res.certificate["duality_gap"]
    assert gap >= 0
    assert res.value - P_star <= gap * (1 + 1e-9) + 1e-12
    assert np.linalg.norm(res.w - w_star) <= np.sqrt(2 * gap) * (1 + 1e-9) + 1e-12


@pytest.mark.parametrize("aggregation", ["add", "average"])
def test_cocoa_certifies_and_agrees_with_numpy_dual_cd(aggregation):
    X, y = _data()
    C = 0.002
    ref = mk.SoftMarginSVM(X, y, C=C, bias=False).solve("dual-cd", tol=1e-12, seed=0)
    assert ref.status == "optimal"
    p = mk.SoftMarginSVM(da.from_array(X, chunks=(100, -1)), y, C=C, bias=False)
    res = p.solve("dual-cd", tol=1e-5, seed=1, aggregation=aggregation, max_iter=400)
    assert res.status == "optimal" and res.certificate["relative_gap"] <= 1e-5
    assert res.info["cocoa"]["blocks"] == 4
    assert res.info["cocoa"]["sigma"] == (4.0 if aggregation == "add" else 1.0)
    assert isinstance(res.w, np.ndarray) and hasattr(res.dual["a"], "chunks")
    assert res.dual["a"].chunks == ((100,) * 4,)
    P, D, wa = _independent_certificate(X, y, np.full(len(y), C), res)
    assert res.certificate["primal"] == pytest.approx(P, rel=1e-10)
    assert res.certificate["dual"] == pytest.approx(D, rel=1e-10)
    np.testing.assert_allclose(res.w, wa, rtol=1e-10, atol=1e-13)   # w = Σ a_i y_i x_i, not a drifted copy
    _within_certificate(res, ref.w, ref.value)
    dual = np.asarray(res.trace["dual_objective"])   # the safe σ' makes every round an ascent step of D
    assert len(dual) > 3 and np.all(np.diff(dual) >= -1e-12 * abs(dual[-1]))


def test_against_cvxpy_reference_with_sample_weight():
    X, y = _data(seed=1, n=240, d=10)
    s = np.random.default_rng(5).uniform(0.0, 2.0, len(y))
    s[:7] = 0.0   # C_i = 0: a_i stays 0
    p = mk.SoftMarginSVM(da.from_array(X, chunks=(80, -1)), y, C=0.005, bias=False, sample_weight=s)
    res = p.solve("dual-cd", tol=1e-6, seed=0, max_iter=600)
    assert res.status == "optimal"
    ref = p.reference()
    assert ref.info.get("host_copy")
    P, D, _ = _independent_certificate(X, y, 0.005 * s, res)
    assert res.certificate["primal"] == pytest.approx(P, rel=1e-10)
    assert np.all(res.dual["a"].compute()[:7] == 0.0)
    assert res.value == pytest.approx(ref.value, rel=1e-4)
    gap = res.certificate["duality_gap"]   # CVXPY's own accuracy (~1e-8 relative) on top of the certificate
    assert np.linalg.norm(res.w - ref.w) <= np.sqrt(2 * gap) + 1e-4 * np.linalg.norm(ref.w)


def test_sparse_chunks_and_real_data_digits():
    X, y = sklearn_digits_pair(3, 8)
    C = 0.05
    ref = mk.SoftMarginSVM(X, y, C=C, bias=False).solve("dual-cd", tol=1e-12, seed=0)
    Xd = da.from_array(X, chunks=(180, -1))
    for data in (Xd, Xd.map_blocks(sp.csr_matrix)):
        p = mk.SoftMarginSVM(data, y, C=C, bias=False)
        res = p.solve("dual-cd", tol=1e-5, seed=0, max_iter=500)
        assert res.status == "optimal", res.certificate
        _within_certificate(res, ref.w, ref.value)
        P, D, _ = _independent_certificate(X, y, np.full(len(y), C), res)
        assert res.certificate["dual"] == pytest.approx(D, rel=1e-10)


def test_dual_accelerated_on_sparse_chunks_same_iterates():
    X, y = _data(seed=2, n=300, d=12, sparsity=0.6)
    y = np.sign(X @ np.random.default_rng(9).standard_normal(12))
    y[y == 0] = 1.0
    ref = mk.MaxMargin(X, y).solve("dual-accelerated", max_iter=20)
    Xs = da.from_array(X, chunks=(75, -1)).map_blocks(sp.csr_matrix)
    p = mk.MaxMargin(Xs, y)
    assert p.backend.kind == "dask" and "sparse" in p.backend.describe()
    res = p.solve("dual-accelerated", max_iter=20)
    np.testing.assert_allclose(res.w, ref.w, rtol=1e-10, atol=1e-12)
    assert res.certificate["relative_gap"] == pytest.approx(ref.certificate["relative_gap"], rel=1e-9)
    bk = p.backend   # the backend's products on sparse chunks, block by block
    w = np.random.default_rng(0).standard_normal(12)
    np.testing.assert_allclose(bk.host(bk.matvec(Xs, w)), X @ w, rtol=1e-12, atol=1e-12)
    q = np.random.default_rng(1).standard_normal(300)
    np.testing.assert_allclose(bk.rmatvec(Xs, bk.asarray_n(q)), X.T @ q, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(bk.host(bk.row_sq_norms(Xs)), (X * X).sum(1), rtol=1e-12)
    np.testing.assert_allclose(bk.row(Xs, 7), X[7])
    assert bk.norm(bk.asarray_n(q)) == pytest.approx(np.linalg.norm(q), rel=1e-12)


def test_python_round_gives_the_numba_iterates_and_warm_start():
    X, y = _data(seed=4, n=160, d=8)
    p = mk.SoftMarginSVM(da.from_array(X, chunks=(80, -1)), y, C=0.05, bias=False)
    a = p.solve("dual-cd", max_iter=3, seed=2, compiled=True)
    b = p.solve("dual-cd", max_iter=3, seed=2, compiled=False)
    np.testing.assert_allclose(a.w, b.w, rtol=1e-12, atol=1e-14)
    assert a.status == "user_limit" and a.certificate["relative_gap"] > 1e-6   # never claims more than proven
    first = p.solve("dual-cd", max_iter=40, seed=0, tol=1e-7)
    again = p.solve("dual-cd", warm_start=first, seed=0, tol=max(first.certificate["relative_gap"], 1e-7) * 1.0001)
    assert again.status == "optimal" and again.iterations == 0
    host = p.solve("dual-cd", warm_start=first.dual["a"].compute(), seed=0, max_iter=0)
    assert host.certificate["dual"] == pytest.approx(first.certificate["dual"], rel=1e-10)


def test_bad_input():
    X, y = _data(n=100, d=5)
    Xd = da.from_array(X, chunks=(50, -1))
    p = mk.SoftMarginSVM(Xd, y, C=1.0, bias=False)
    with pytest.raises(mk.ProblemError, match="local_epochs"):
        p.solve("dual-cd", local_epochs=0)
    with pytest.raises(mk.ProblemError, match="aggregation"):
        p.solve("dual-cd", aggregation="sum")
    with pytest.raises(mk.ProblemError, match="aggregation"):   # not an option of the single-process plan
        mk.SoftMarginSVM(X, y, C=1.0, bias=False).solve("dual-cd", aggregation="add")
    with pytest.raises(mk.ProblemError, match="bias"):
        mk.SoftMarginSVM(Xd, y, C=1.0).solve("dual-cd")
    with pytest.raises(mk.ProblemError, match="warm_start"):
        p.solve("dual-cd", warm_start=np.ones(7))
    strict = pytest.importorskip("array_api_strict")
    with pytest.raises(mk.ProblemError, match="map_blocks"):
        mk.SoftMarginSVM(Xd.map_blocks(strict.asarray, meta=strict.asarray(np.empty((0, 0)))), y, bias=False)
    Xc, yc = X.copy(), y.copy()
    p.solve("dual-cd", max_iter=3)
    np.testing.assert_array_equal(Xc, X)
    np.testing.assert_array_equal(yc, y)
    assert "dual-cd" in [m if isinstance(m, str) else m.name for m in mk.methods(p)]
