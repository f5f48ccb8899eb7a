"""diagonal, diagonal-inertial (MaxMargin, SoftMarginSVM) and homotopic on arrays of other libraries (issue 13):
array-api-strict (the proof that no NumPy-only call is left), torch on CPU where installed, and dask on the threaded
scheduler give the same iterates, certificates and statuses as the NumPy run, to 1e-10; ``w`` comes back in the
user's namespace and the user's arrays are untouched. Dask runs are short: every step is a few scheduler round trips."""
import numpy as np
import pytest

import marginkit as mk
from marginkit.api.datasets import sklearn_digits_pair

from array_helpers import libraries, separable  # noqa: E402

xps = pytest.importorskip("array_api_strict")

_data = separable
LIBS = libraries(xps)
IDS = [name for name, _ in LIBS]


def _same(res, ref, p, keys):
    w = p.backend.host(res.w)
    np.testing.assert_allclose(w, ref.w, rtol=1e-10, atol=1e-12 * np.abs(ref.w).max())
    assert res.status == ref.status
    assert res.b == pytest.approx(ref.b, rel=1e-10, abs=1e-12)
    for key in keys:
        assert res.certificate[key] == pytest.approx(ref.certificate[key], rel=1e-10, abs=1e-13)


MARGIN_KEYS = ("margin_lower", "margin_upper", "relative_gap")


@pytest.mark.parametrize("lib,conv", LIBS, ids=IDS)
@pytest.mark.parametrize("method", ["diagonal", "diagonal-inertial"])
def test_diagonal_maxmargin_same_iterates(lib, conv, method):
    X, y = _data()
    ref = mk.MaxMargin(X, y, bias=False).solve(method, max_iter=200, trace=5)
    p = mk.MaxMargin(conv(X), conv(y), bias=False)
    assert method in mk.methods(p)
    res = p.solve(method, max_iter=200, trace=5)
    assert type(res.w).__module__.split(".")[0] == lib
    _same(res, ref, p, MARGIN_KEYS)
    for col in ("margin", "margin_upper", "dual_potential"):
        np.testing.assert_allclose(res.trace[col], ref.trace[col], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(res.dual["u"], ref.dual["u"], rtol=1e-10, atol=1e-13)   # NumPy host copies
    again = p.solve(method, max_iter=5, warm_start=res)      # the dual iterate warm-starts on the device
    _same(again, mk.MaxMargin(X, y, bias=False).solve(method, max_iter=5, warm_start=ref), p, MARGIN_KEYS)


@pytest.mark.parametrize("lib,conv", LIBS, ids=IDS)
def test_soft_margin_diagonal_same_iterates(lib, conv):
    X, y = _data(seed=1)
    ref = mk.SoftMarginSVM(X, y, C=0.5, bias=False).solve("diagonal", max_iter=300, trace=5)
    p = mk.SoftMarginSVM(conv(X), conv(y), C=0.5, bias=False)
    res = p.solve("diagonal", max_iter=300, trace=5)
    _same(res, ref, p, ("primal", "dual", "duality_gap", "relative_gap"))
    assert res.value == pytest.approx(ref.value, rel=1e-10)
    np.testing.assert_allclose(res.trace["duality_gap"], ref.trace["duality_gap"], rtol=1e-9, atol=1e-13)


@pytest.mark.parametrize("lib,conv", LIBS, ids=IDS)
@pytest.mark.parametrize("bias,opts", [(True, {}), (False, {}), (True, {"output": "best", "lambda0": 0.5})],
                         ids=["auto-bias", "auto", "best-bias"])
def test_homotopic_same_iterates(lib, conv, bias, opts):
    X, y = _data(n=120)
    ref = mk.MaxMargin(X, y, bias=bias).solve("homotopic", max_iter=80, trace=5, **opts)
    p = mk.MaxMargin(conv(X), conv(y), bias=bias)
    res = p.solve("homotopic", max_iter=80, trace=5, **opts)
    assert type(res.w).__module__.split(".")[0] == lib
    _same(res, ref, p, MARGIN_KEYS + ("lambda0", "stage"))
    np.testing.assert_allclose(res.trace["margin_upper"], ref.trace["margin_upper"], rtol=1e-10)
    if bias:
        assert res.info["learned_bias"] == pytest.approx(ref.info["learned_bias"], rel=1e-10, abs=1e-13)


def test_real_data_digits_strict_like_numpy():
    X, y = sklearn_digits_pair(0, 1)
    Xs, ys = xps.asarray(X), xps.asarray(y)
    for method, opts in (("diagonal", {}), ("diagonal-inertial", {}), ("homotopic", {})):
        ref = mk.MaxMargin(X, y, bias=False).solve(method, max_iter=30, **opts)
        p = mk.MaxMargin(Xs, ys, bias=False)
        res = p.solve(method, max_iter=30, **opts)
        np.testing.assert_array_equal(res.classes_, ref.classes_)
        _same(res, ref, p, MARGIN_KEYS)
        assert res.certificate["margin_lower"] <= res.certificate["margin_upper"]
    ref = mk.SoftMarginSVM(X, y, C=0.01, bias=False).solve("diagonal", max_iter=150)
    p = mk.SoftMarginSVM(Xs, ys, C=0.01, bias=False)
    _same(p.solve("diagonal", max_iter=150), ref, p, ("primal", "dual", "relative_gap"))
    np.testing.assert_array_equal(np.from_dlpack(Xs), X)         # the user's arrays are untouched
    np.testing.assert_array_equal(np.from_dlpack(ys), y)


def test_dask_quick_diagonal():
    da = pytest.importorskip("dask.array")
    X, y = _data(n=200)
    ref = mk.MaxMargin(X, y, bias=False).solve("diagonal", max_iter=4)
    p = mk.MaxMargin(da.from_array(X, chunks=(100, -1)), y, bias=False)
    _same(p.solve("diagonal", max_iter=4), ref, p, MARGIN_KEYS)


@pytest.mark.slow
def test_dask_same_iterates():
    da = pytest.importorskip("dask.array")
    X, y = _data(n=200)
    Xd = da.from_array(X, chunks=(100, -1))
    for method, opts, iters in (("diagonal", {}, 6), ("diagonal-inertial", {}, 6),
                                ("homotopic", {"lambda0": 0.5}, 6)):
        for bias in ((False, True) if method == "homotopic" else (False,)):
            ref = mk.MaxMargin(X, y, bias=bias).solve(method, max_iter=iters, **opts)
            p = mk.MaxMargin(Xd, y, bias=bias)
            assert p.backend.kind == "dask" and method in mk.methods(p)
            res = p.solve(method, max_iter=iters, **opts)
            _same(res, ref, p, MARGIN_KEYS)
    ref = mk.SoftMarginSVM(X, y, bias=False).solve("diagonal", max_iter=6)
    p = mk.SoftMarginSVM(Xd, y, bias=False)
    res = p.solve("diagonal", max_iter=6)
    np.testing.assert_allclose(res.w, ref.w, rtol=1e-10, atol=1e-12)
    assert res.value == pytest.approx(ref.value, rel=1e-10)


@pytest.mark.slow
def test_dask_homotopic_auto_lambda0():
    da = pytest.importorskip("dask.array")
    X, y = _data(n=200)
    ref = mk.MaxMargin(X, y, bias=True).solve("homotopic", max_iter=10)
    res = mk.MaxMargin(da.from_array(X, chunks=(100, -1)), y, bias=True).solve("homotopic", max_iter=10)
    assert res.certificate["lambda0"] == pytest.approx(ref.certificate["lambda0"], rel=1e-10)
    np.testing.assert_allclose(res.w, ref.w, rtol=1e-10, atol=1e-12)


def test_kernel_and_bias_still_refused_on_device():
    X, y = _data()
    with pytest.raises(mk.ProblemError, match="kernel"):
        mk.MaxMargin(xps.asarray(X), xps.asarray(y), kernel="rbf", bias=False)
    with pytest.raises(mk.ProblemError, match="bias"):
        mk.MaxMargin(xps.asarray(X), xps.asarray(y), bias=True).solve("diagonal")
