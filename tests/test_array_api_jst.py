"""The rest of the Ji–Srebro–Telgarsky family on arrays of other libraries (issue 13): ``normalized-gd``, ``gd``,
``batch-perceptron`` (array-api-strict, torch on CPU, dask on the threaded scheduler) and
``dual-accelerated-stochastic`` (array-api-strict, torch) take the same iterates as the NumPy run, to 1e-10, and stop
at the same iteration with ``check_every``; array-api-strict is the proof that no NumPy-only call is left."""
import numpy as np
import pytest

import marginkit as mk
from marginkit.core.backend import ArrayAPIBackend
from marginkit.api.datasets import sklearn_digits_pair

from array_helpers import libraries, separable  # noqa: E402

xps = pytest.importorskip("array_api_strict")

_data = separable
LIBS = libraries(xps)
IDS = [name for name, _ in LIBS]
CASES = [("normalized-gd", {}), ("normalized-gd", {"loss": "logistic", "step": "sqrt"}),
         ("gd", {}), ("gd", {"loss": "logistic", "eta": 2.0}),
         ("batch-perceptron", {}), ("batch-perceptron", {"variant": "unprojected"}),
         ("dual-accelerated-stochastic", {}), ("dual-accelerated-stochastic", {"variant": "theory"})]
CASE_IDS = [m + "".join(f"-{v}" for v in kw.values()) for m, kw in CASES]


def _same(res, ref, w):
    np.testing.assert_allclose(w, ref.w, rtol=1e-10, atol=1e-12)
    assert res.status == ref.status and res.iterations == ref.iterations
    assert abs(res.margin - ref.margin) <= 1e-10 * abs(ref.margin)
    for key in ("margin_upper", "relative_gap"):
        assert res.certificate[key] == pytest.approx(ref.certificate[key], rel=1e-10)
    np.testing.assert_allclose(res.trace["margin"], ref.trace["margin"], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(res.trace["margin_upper"], ref.trace["margin_upper"], rtol=1e-10)


@pytest.mark.parametrize("lib,conv", LIBS, ids=IDS)
@pytest.mark.parametrize("method,options", CASES, ids=CASE_IDS)
def test_same_iterates_as_numpy(lib, conv, method, options):
    X, y = _data()
    ref = mk.MaxMargin(X, y).solve(method, max_iter=80, seed=3, trace=5, **options)
    p = mk.MaxMargin(conv(X), conv(y))
    assert method in mk.methods(p)
    res = p.solve(method, max_iter=80, seed=3, trace=5, **options)
    assert type(res.w).__module__.split(".")[0] == lib           # w comes back in the user's namespace
    _same(res, ref, p.backend.host(res.w))


DASK_CASES = [CASES[1], CASES[2], CASES[4]]   # a dask step costs ~0.1 s of scheduling: one case per plan


@pytest.mark.parametrize("method,options", DASK_CASES, ids=[CASE_IDS[1], CASE_IDS[2], CASE_IDS[4]])
def test_dask_same_iterates(method, options):
    da = pytest.importorskip("dask.array")
    import dask
    X, y = _data(n=200)
    ref = mk.MaxMargin(X, y).solve(method, max_iter=12, trace=3, **options)
    with dask.config.set(scheduler="threads"):
        p = mk.MaxMargin(da.from_array(X, chunks=(50, -1)), y)
        res = p.solve(method, max_iter=12, trace=3, **options)
    assert isinstance(res.w, np.ndarray)
    _same(res, ref, res.w)


def test_dask_stochastic_is_refused_by_name():
    da = pytest.importorskip("dask.array")
    X, y = _data(n=200)
    p = mk.MaxMargin(da.from_array(X, chunks=(50, -1)), y)
    assert "dual-accelerated-stochastic" not in mk.methods(p) and "batch-perceptron" in mk.methods(p)
    with pytest.raises(mk.ProblemError, match="dual-accelerated-stochastic"):
        p.solve("dual-accelerated-stochastic", max_iter=5)


@pytest.fixture(scope="module")
def margin_data():
    """Separable data with a margin, and its max margin from the independent CVXPY reference."""
    rng = np.random.default_rng(1)
    X, u = rng.standard_normal((200, 6)), rng.standard_normal(6)
    X = X[np.abs(X @ u) > 0.3 * np.linalg.norm(u)][:120]
    y = np.sign(X @ u)
    return X, y, mk.MaxMargin(X, y).reference().margin


@pytest.mark.parametrize("lib,conv", LIBS, ids=IDS)
@pytest.mark.parametrize("method", ["normalized-gd", "batch-perceptron", "dual-accelerated-stochastic"])
def test_check_every_stops_at_the_same_iteration(lib, conv, method, margin_data):
    """The run loop calls ``stop`` every ``check_every`` iterations: the device run stops where NumPy stops."""
    X, y, gamma = margin_data
    kw = dict(tol=0.15 if method == "normalized-gd" else 0.05, max_iter=3000, check_every=10, seed=0)
    ref = mk.MaxMargin(X, y).solve(method, **kw)
    res = mk.MaxMargin(conv(X), conv(y)).solve(method, **kw)
    assert ref.status == "optimal" and ref.iterations % 10 == 0     # stopped by a certificate at a check
    assert res.status == ref.status and res.iterations == ref.iterations
    np.testing.assert_allclose(mk.MaxMargin(conv(X), conv(y)).backend.host(res.w), ref.w, rtol=1e-10, atol=1e-12)
    # the certificate brackets the CVXPY reference's margin
    assert res.certificate["margin_lower"] <= gamma * (1 + 1e-8)
    assert res.certificate["margin_upper"] >= gamma * (1 - 1e-8)


@pytest.mark.parametrize("method", ["normalized-gd", "gd", "batch-perceptron"])
def test_real_data_digits_strict_same_as_numpy(method):
    X, y = sklearn_digits_pair(0, 1)
    ref = mk.MaxMargin(X, y).solve(method, max_iter=60)
    res = mk.MaxMargin(xps.asarray(X), xps.asarray(y)).solve(method, max_iter=60)
    np.testing.assert_array_equal(res.classes_, ref.classes_)
    np.testing.assert_allclose(np.from_dlpack(res.w), ref.w, rtol=1e-9, atol=1e-12)
    assert res.certificate["margin_upper"] == pytest.approx(ref.certificate["margin_upper"], rel=1e-9)
    assert res.margin == pytest.approx(ref.margin, rel=1e-9)


@pytest.mark.parametrize("method", ["normalized-gd", "gd", "batch-perceptron", "dual-accelerated-stochastic",
                                    "diagonal", "diagonal-inertial", "homotopic"])
def test_no_synchronisation_inside_step(method, monkeypatch):
    """On an array-API device a step never brings a scalar to the host: ``Backend.float`` (the one place a device
    synchronises) is called by ``stop`` only, i.e. a fixed number of times per check."""
    X, y = _data()
    calls = []
    real = ArrayAPIBackend.float
    monkeypatch.setattr(ArrayAPIBackend, "float", lambda self, a: calls.append(1) or real(self, a))
    p = mk.MaxMargin(xps.asarray(X), xps.asarray(y))
    p.solve(method, max_iter=5, trace=None)                        # the problem's own caches (row norms) filled
    calls.clear()
    p.solve(method, max_iter=40, check_every=40, trace=None, tol=1e-12, seed=0)
    few = len(calls)
    calls.clear()
    p.solve(method, max_iter=80, check_every=80, trace=None, tol=1e-12, seed=0)
    assert len(calls) == few                # twice the steps, the same number of synchronisations


@pytest.mark.parametrize("lib,conv", LIBS, ids=IDS)
def test_warm_start_and_user_arrays_untouched(lib, conv):
    X, y = _data()
    w0 = np.linspace(-1.0, 1.0, X.shape[1])
    Xs, ys = conv(X), conv(y)
    for method in ("batch-perceptron", "dual-accelerated-stochastic", "gd"):
        ref = mk.MaxMargin(X, y).solve(method, max_iter=30, warm_start=w0, seed=2)
        p = mk.MaxMargin(Xs, ys)
        res = p.solve(method, max_iter=30, warm_start=w0, seed=2)
        np.testing.assert_allclose(p.backend.host(res.w), ref.w, rtol=1e-10, atol=1e-12)
        assert res.certificate["margin_upper"] == pytest.approx(ref.certificate["margin_upper"], rel=1e-10)
    host = mk.MaxMargin(Xs, ys).backend.host
    np.testing.assert_array_equal(host(Xs), X)
    np.testing.assert_array_equal(host(ys), y)


@pytest.mark.parametrize("lib,conv", LIBS, ids=IDS)
def test_device_guard_at_the_checks(lib, conv, monkeypatch):
    """A state that becomes non-finite on the device is caught where the stop rule is checked (every
    ``check_every`` iterations, never inside a step): ``solver_error``, and the last checked (finite) iterate."""
    import dataclasses
    from marginkit.plans.jst.dual_acceleration import DualAccelerated
    X, y = _data()
    real = DualAccelerated.step

    def poisoned(self, st):
        nxt = real(self, st)
        return dataclasses.replace(nxt, g=nxt.g * float("nan")) if nxt.t == 13 else nxt
    monkeypatch.setattr(DualAccelerated, "step", poisoned)
    res = mk.MaxMargin(conv(X), conv(y)).solve("dual-accelerated", max_iter=40, check_every=5, tol=1e-12)
    assert res.status == "solver_error" and res.iterations == 10
    assert "between iterations 10 and 15" in res.info["message"]
    assert np.all(np.isfinite(res.to_numpy().w))
    host = mk.MaxMargin(X, y).solve("dual-accelerated", max_iter=10, tol=1e-12)   # NumPy: the guard at every step
    np.testing.assert_allclose(res.to_numpy().w, host.w, rtol=1e-9, atol=1e-12)
