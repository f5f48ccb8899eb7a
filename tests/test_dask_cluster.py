"""The same code on a real cluster object (issue 13, item 3): a ``distributed.LocalCluster`` of 2 worker processes on
loopback. Batch plans give the single-process NumPy iterates (to 1e-10); CoCoA+ (``dual-cd`` on dask) is within its
certificate of the NumPy ``dual-cd`` solution, and gives the iterates of the threaded-scheduler run (the rounds depend
on the seed and the chunking only, not on where the blocks run)."""
import numpy as np
import pytest
import scipy.sparse as sp

import marginkit as mk
from marginkit.api.datasets import sklearn_digits_pair

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None)
    c = distributed.Client(cluster)
    c.run(_warm_up)   # load the compiled round once per worker process (numba's cache), outside the timed tests
    try:
        yield c
    finally:
        c.close()
        cluster.close()


def _warm_up():
    from marginkit.plans.common.coordinate_round import compiled_round
    compiled_round()


def _data(seed=0, n=400, d=20):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


def test_dual_accelerated_on_the_cluster_same_iterates(client):
    X, y = _data(n=300, d=10)
    y = np.where(X @ np.arange(1.0, 11.0) > 0, 1.0, -1.0)
    ref = mk.MaxMargin(X, y).solve("dual-accelerated", max_iter=10)
    Xd = da.from_array(X, chunks=(75, -1)).persist()   # the blocks live on the workers
    distributed.wait(Xd)
    assert sum(len(keys) for keys in client.has_what().values()) >= 4   # the 4 blocks are held by the workers
    res = mk.MaxMargin(Xd, y).solve("dual-accelerated", max_iter=10)
    np.testing.assert_allclose(res.w, ref.w, rtol=1e-10, atol=1e-12)
    assert res.certificate["relative_gap"] == pytest.approx(ref.certificate["relative_gap"], rel=1e-9)


def test_cocoa_on_the_cluster_within_its_certificate(client):
    X, y = _data()
    C, tol = 0.002, 1e-5
    ref = mk.SoftMarginSVM(X, y, C=C, bias=False).solve("dual-cd", tol=1e-12, seed=0)
    Xd = da.from_array(X, chunks=(100, -1)).persist()
    res = mk.SoftMarginSVM(Xd, y, C=C, bias=False).solve("dual-cd", tol=tol, seed=3, max_iter=300)
    assert res.status == "optimal" and res.certificate["relative_gap"] <= tol
    a = np.asarray(res.dual["a"].compute())
    P = 0.5 * res.w @ res.w + C * np.maximum(0.0, 1.0 - y * (X @ res.w)).sum()
    wa = X.T @ (a * y)
    assert res.certificate["primal"] == pytest.approx(P, rel=1e-10)
    assert res.certificate["dual"] == pytest.approx(a.sum() - 0.5 * wa @ wa, rel=1e-10)
    gap = res.certificate["duality_gap"]
    assert res.value - ref.value <= gap * (1 + 1e-9)
    assert np.linalg.norm(res.w - ref.w) <= np.sqrt(2 * gap) * (1 + 1e-9)
    with dask.config.set(scheduler="threads"):   # the same rounds in one process
        local = mk.SoftMarginSVM(da.from_array(X, chunks=(100, -1)), y, C=C, bias=False).solve(
            "dual-cd", tol=tol, seed=3, max_iter=300)
    assert local.iterations == res.iterations
    np.testing.assert_allclose(local.w, res.w, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("tol", [1e-3, pytest.param(1e-6, marks=pytest.mark.slow)])
def test_cocoa_on_the_cluster_digits_sparse_chunks(client, tol):
    X, y = sklearn_digits_pair(3, 8)
    C = 0.05
    ref = mk.SoftMarginSVM(X, y, C=C, bias=False).solve("dual-cd", tol=1e-12, seed=0)
    Xs = da.from_array(X, chunks=(180, -1)).map_blocks(sp.csr_matrix).persist()
    res = mk.SoftMarginSVM(Xs, y, C=C, bias=False).solve("dual-cd", tol=tol, seed=0, max_iter=2000)
    assert res.status == "optimal" and res.certificate["relative_gap"] <= tol
    gap = res.certificate["duality_gap"]
    assert res.value - ref.value <= gap * (1 + 1e-9)
    assert np.linalg.norm(res.w - ref.w) <= np.sqrt(2 * gap) * (1 + 1e-9)


def test_cocoa_dykstra_on_the_cluster_within_its_certificate(client):
    """``dykstra`` on MaxMargin(bias=False) over the cluster: CoCoA+ with RB Alg. 1 on each row chunk
    (plans/raj_bach/cocoa_margin.py), within its certificate of the NumPy ``dykstra`` answer."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((90, 600))
    y = np.where(rng.random(90) < 0.5, 1.0, -1.0)
    ref = mk.MaxMargin(X, y, bias=False).solve("dykstra", tol=1e-10, seed=0, max_iter=5000)
    Xd = da.from_array(X, chunks=(30, -1)).persist()
    p = mk.MaxMargin(Xd, y, bias=False)   # a ProblemError here fails the test too: dask rows are a supported backend
    # the regression this guards: MaxMargin on dask rows must reach MinNormFeasibility and its CoCoA+ dykstra (a
    # failure, not a skip: the cluster run is the only test of that route)
    methods = mk.methods(p)
    assert "dykstra" in methods, ("MaxMargin(bias=False) on a dask array no longer reaches MinNormFeasibility's "
                                  f"'dykstra' (CoCoA+, plans/raj_bach/cocoa_margin.py); marginkit.methods lists "
                                  f"{methods}")
    res = p.solve("dykstra", tol=1e-3, seed=0, max_iter=150, local_epochs=5)
    assert res.status == "optimal" and res.certificate["relative_gap"] <= 1e-3
    gap = res.certificate["duality_gap"]
    assert 0.5 * res.w @ res.w - 0.5 * ref.w @ ref.w <= gap * (1 + 1e-9)
    assert np.linalg.norm(res.w - ref.w) <= np.sqrt(2 * gap) * (1 + 1e-9)


def test_the_same_cell_on_numpy_strict_torch_and_the_cluster(client):
    """Issue 13's "done when": one cell solves MaxMargin and SoftMarginSVM on NumPy, array-api-strict, torch (CPU, when
    installed) and a LocalCluster-backed dask array, with identical certificates."""
    xps = pytest.importorskip("array_api_strict")
    X, y = _data(n=240, d=12)
    ys = np.where(X @ np.arange(1.0, 13.0) > 0, 1.0, -1.0)       # separable labels for MaxMargin
    libraries = {"numpy": lambda a: a, "array_api_strict": xps.asarray,
                 "dask": lambda a: da.from_array(a, chunks=(60, -1)).persist() if a.ndim == 2 else a}
    try:
        import torch
        libraries["torch"] = torch.asarray
    except ImportError:
        pass
    certs = {}
    for name, conv in libraries.items():
        hm = mk.MaxMargin(conv(X), conv(ys)).solve("dual-accelerated", max_iter=15)
        sm = mk.SoftMarginSVM(conv(X), conv(y), C=0.1).solve("fista", max_iter=15)
        certs[name] = (hm.certificate["relative_gap"], hm.margin, sm.certificate["relative_gap"], sm.value, sm.b)
    for name, got in certs.items():
        np.testing.assert_allclose(got, certs["numpy"], rtol=1e-9, err_msg=name)
