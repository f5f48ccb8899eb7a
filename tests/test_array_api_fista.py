"""SoftMarginSVM ``fista`` where the data live (issue 13): array-api-strict proves that the plan uses the array API
only, torch (CPU) where installed, dask on the threaded scheduler. The same iterates, offset, status and certificate
as the NumPy run to 1e-10, with and without a bias and with sample weights; the optimum agrees with the CVXPY
reference (which solves a host copy)."""
import numpy as np
import pytest

import marginkit as mk
from marginkit.api.datasets import sklearn_digits_pair

from array_helpers import libraries  # noqa: E402

xps = pytest.importorskip("array_api_strict")


def _data(seed=0, n=120, d=6):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.sign(X @ rng.standard_normal(d) + 0.4 * rng.standard_normal(n))   # not separable: a real soft margin
    return X, y, rng.uniform(0.2, 2.0, n)


LIBS = libraries(xps)
CASES = [(True, False), (True, True), (False, False), (False, True)]


def _same(res, ref, host_w):
    np.testing.assert_allclose(host_w, ref.w, rtol=1e-10, atol=1e-12)
    assert res.b == pytest.approx(ref.b, rel=1e-10, abs=1e-12)
    assert res.status == ref.status and res.iterations == ref.iterations
    for key in ("primal", "dual", "relative_gap"):
        assert res.certificate[key] == pytest.approx(ref.certificate[key], rel=1e-10)
    np.testing.assert_allclose(res.trace["duality_gap"], ref.trace["duality_gap"], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("lib,conv", LIBS, ids=[name for name, _ in LIBS])
@pytest.mark.parametrize("bias,weighted", CASES, ids=[f"bias={b}-weights={w}" for b, w in CASES])
def test_same_iterates_as_numpy(lib, conv, bias, weighted):
    X, y, s = _data()
    kw = dict(C=0.8, bias=bias, sample_weight=s if weighted else None)
    run = dict(max_iter=40, trace=8, restart="gradient" if weighted and not bias else "function")
    ref = mk.SoftMarginSVM(X, y, **kw).solve("fista", **run)
    p = mk.SoftMarginSVM(conv(X), conv(y), **kw)
    assert p.backend.kind == "array-api" and "fista" in mk.methods(p)
    res = p.solve("fista", **run)
    assert type(res.w).__module__.split(".")[0] == lib            # w in the user's namespace
    _same(res, ref, p.backend.host(res.w))
    np.testing.assert_allclose(p.backend.host(res.dual["a"]), ref.dual["a"], rtol=1e-10, atol=1e-12)


def test_converges_to_the_reference_on_torch_or_strict():
    X, y, s = _data(seed=3, n=60, d=4)
    lib, conv = LIBS[-1]
    p = mk.SoftMarginSVM(conv(X), conv(y), C=0.5, sample_weight=s)
    res = p.solve("fista", tol=1e-7, max_iter=4000, check_every=20)
    ref = p.reference()                                            # a host copy, and says so
    assert "host_copy" in ref.info and ref.status == "optimal"
    assert res.status == "optimal" and res.certificate["relative_gap"] <= 1e-7
    assert res.value == pytest.approx(ref.value, rel=1e-6)
    assert res.value >= ref.value * (1 - 1e-8)                     # the primal value is an upper bound
    np.testing.assert_allclose(p.backend.host(res.w), ref.w, atol=1e-3 * np.linalg.norm(ref.w))
    host = mk.SoftMarginSVM(X, y, C=0.5, sample_weight=s).solve("fista", tol=1e-7, max_iter=4000, check_every=20)
    assert res.iterations == host.iterations


def test_real_data_digits_strict_like_numpy():
    X, y = sklearn_digits_pair(3, 8)
    X, y = X[:120], y[:120]
    ref = mk.SoftMarginSVM(X, y, C=0.01).solve("fista", max_iter=15, trace=5)
    p = mk.SoftMarginSVM(xps.asarray(X), xps.asarray(y), C=0.01)
    res = p.solve("fista", max_iter=15, trace=5)
    np.testing.assert_array_equal(res.classes_, ref.classes_)
    _same(res, ref, p.backend.host(res.w))


def test_dask_same_iterates():
    da = pytest.importorskip("dask.array")
    X, y, s = _data(n=100)
    for bias, weights in ((True, s), (False, None)):
        ref = mk.SoftMarginSVM(X, y, C=0.8, bias=bias, sample_weight=weights).solve("fista", max_iter=12, trace=4)
        p = mk.SoftMarginSVM(da.from_array(X, chunks=(50, -1)), y, C=0.8, bias=bias, sample_weight=weights)
        assert p.backend.kind == "dask"
        res = p.solve("fista", max_iter=12, trace=4)
        _same(res, ref, res.w)


def test_user_arrays_untouched_and_bad_options():
    X, y, s = _data()
    Xs, ys = xps.asarray(X), xps.asarray(y)
    p = mk.SoftMarginSVM(Xs, ys, sample_weight=s)
    p.solve("fista", max_iter=5)
    np.testing.assert_array_equal(np.from_dlpack(Xs), X)
    np.testing.assert_array_equal(np.from_dlpack(ys), y)
    with pytest.raises(mk.ProblemError, match="mu > 0"):
        p.solve("fista", stop="early")


@pytest.mark.parametrize("lib,conv", LIBS, ids=[name for name, _ in LIBS])
def test_perturbed_dual_same_iterates_and_reference(lib, conv):
    X, y, _ = _data(n=100)
    ref = mk.PerturbedSVMDual(X, y).solve("fista", max_iter=80, trace=10)        # the paper's early stop
    p = mk.PerturbedSVMDual(conv(X), conv(y))
    res = p.solve("fista", max_iter=80, trace=10)
    _same(res, ref, p.backend.host(res.w))
    assert res.info["certified_fraction"] == ref.info["certified_fraction"] > 0
    np.testing.assert_array_equal(res.info["certified"], ref.info["certified"])
    assert res.value == pytest.approx(ref.value, rel=1e-10)
    assert res.info["primal_value"] == pytest.approx(ref.info["primal_value"], rel=1e-10)
    if lib != LIBS[-1][0]:   # the run to the optimum on the fastest library only
        return
    exact = p.solve("fista", stop="tol", tol=1e-9, max_iter=3000, check_every=10)
    cvx = p.reference()
    assert exact.status == "optimal" and "host_copy" in cvx.info
    assert exact.value == pytest.approx(cvx.value, rel=1e-6)


def test_perturbed_dual_dask():
    da = pytest.importorskip("dask.array")
    X, y, _ = _data(n=90)
    ref = mk.PerturbedSVMDual(X, y).solve("fista", max_iter=12, trace=4, stop="tol")
    res = mk.PerturbedSVMDual(da.from_array(X, chunks=(45, -1)), y).solve("fista", max_iter=12, trace=4, stop="tol")
    _same(res, ref, res.w)
