"""The interior-point method ``ipm`` on data of other libraries (marginkit/plans/ipm over core/backend): the same
iterates, iteration counts, statuses and certificates (to rounding) on array-api-strict, torch (CPU, where installed)
and dask (threaded scheduler, dense and scipy.sparse row chunks) as on NumPy; the weighted Gram product of every
backend against the NumPy one; the card lists the method and its options on dask; a wide X is declined on dask
without computing anything."""
import numpy as np
import pytest
import scipy.sparse as sp

import marginkit as mk
from marginkit.core.backend import NUMPY, backend_of

from array_helpers import libraries  # noqa: E402

xps = pytest.importorskip("array_api_strict")
da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

LIBS = libraries(xps)


def raw_data(seed=0, n=90, d=5):
    """Noisy labels of a random hyperplane, raw columns (gamma scales): the badly conditioned case ipm is for."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * rng.gamma(0.5, 10.0, size=d)
    y = np.sign(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) * np.abs(X).mean())
    y[:2] = [1.0, -1.0]
    return X, y


def weights(n, seed=1):
    w = np.random.default_rng(seed).random(n)
    w[::9] = 0.0   # samples without a term: the iteration runs on the others
    return w


# (form, keyword arguments): the soft margin with and without the offset, with weights (zeros included), and the
# hard margin with and without the offset
CASES = {
    "soft-bias": ("SoftMarginSVM", dict(C=2.0, bias=True)),
    "soft-weighted": ("SoftMarginSVM", dict(C=2.0, bias=False, sample_weight="w")),
    "soft-weighted-bias": ("SoftMarginSVM", dict(C=0.5, bias=True, sample_weight="w")),
    "hard-bias": ("MaxMargin", dict(bias=True)),
    "hard": ("MaxMargin", dict(bias=False)),
}


def problem(case, X, y):
    form, kw = CASES[case]
    kw = dict(kw)
    if kw.get("sample_weight") == "w":
        kw["sample_weight"] = weights(X.shape[0])
    if form == "MaxMargin":
        rng = np.random.default_rng(3)
        Xh = rng.standard_normal((X.shape[0], X.shape[1]))
        yh = np.sign(Xh @ rng.standard_normal(X.shape[1]))
        return lambda conv: mk.MaxMargin(conv(Xh), conv(yh), **kw)
    return lambda conv: mk.SoftMarginSVM(conv(X), conv(y), **kw)


def assert_same_run(res, ref, bk):
    assert res.status == ref.status == "optimal"
    assert res.iterations == ref.iterations
    w = np.asarray(bk.host(res.w))
    scale = max(1.0, np.linalg.norm(ref.w))
    np.testing.assert_allclose(w, ref.w, rtol=0, atol=1e-9 * scale)
    assert abs(res.b - ref.b) <= 1e-9 * max(1.0, abs(ref.b))
    for key in ("primal", "dual", "margin_lower", "margin_upper"):
        if key in ref.certificate:
            assert res.certificate[key] == pytest.approx(ref.certificate[key], rel=1e-9, abs=1e-12)
    assert abs(res.certificate["relative_gap"] - ref.certificate["relative_gap"]) <= 1e-8
    np.testing.assert_allclose(np.asarray(bk.host(res.dual["a"])), ref.dual["a"], rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("lib,conv", LIBS, ids=[name for name, _ in LIBS])
def test_array_api_same_run_as_numpy(lib, conv, case):
    X, y = raw_data()
    make = problem(case, X, y)
    ref = make(np.asarray).solve("ipm", tol=1e-8)
    p = make(conv)
    assert p.backend.kind == "array-api" and p.backend.name == lib
    res = p.solve("ipm", tol=1e-8)
    assert type(res.w).__module__.split(".")[0] == lib   # w comes back in the user's namespace
    assert_same_run(res, ref, p.backend)


def chunked(sparse=False):
    def conv(a):
        a = np.asarray(a)
        out = da.from_array(a, chunks=(40,) + a.shape[1:])
        return out.map_blocks(sp.csr_matrix) if sparse and a.ndim == 2 else out
    return conv


@pytest.mark.parametrize("case", ["soft-weighted-bias", "soft-weighted", "hard-bias"])
def test_dask_same_run_as_numpy(case):
    X, y = raw_data()
    make = problem(case, X, y)
    ref = make(np.asarray).solve("ipm", tol=1e-8)
    with dask.config.set(scheduler="threads"):
        p = make(chunked())
        assert p.backend.kind == "dask"
        res = p.solve("ipm", tol=1e-8)
    assert isinstance(res.w, np.ndarray)   # the d-side of dask is NumPy
    assert_same_run(res, ref, p.backend)


def test_dask_sparse_chunks_same_run_as_numpy():
    X, y = raw_data(seed=4)
    ref = mk.SoftMarginSVM(sp.csr_matrix(X), y, C=1.0, bias=True).solve("ipm", tol=1e-8)
    with dask.config.set(scheduler="threads"):
        p = mk.SoftMarginSVM(chunked(sparse=True)(X), chunked()(y), C=1.0, bias=True)
        assert p.backend.sparse
        res = p.solve("ipm", tol=1e-8)
    assert_same_run(res, ref, p.backend)


@pytest.mark.parametrize("bordered", [False, True])
def test_weighted_gram_of_every_backend_matches_numpy(bordered):
    rng = np.random.default_rng(5)
    X, D = rng.standard_normal((70, 4)), rng.random(70)
    D[3] = 0.0
    ref = NUMPY.weighted_gram(X, D, bordered=bordered)
    A = np.hstack([X, np.ones((70, 1))]) if bordered else X
    np.testing.assert_allclose(ref, A.T @ (D[:, None] * A), rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(NUMPY.weighted_gram(sp.csr_matrix(X), D, bordered=bordered), ref, atol=1e-12)
    datas = [(conv(X), conv(D)) for _, conv in LIBS]
    with dask.config.set(scheduler="threads"):
        for Xd in (chunked()(X), chunked(sparse=True)(X)):
            datas.append((Xd, chunked()(D)))
        for Xb, Db in datas:
            G = backend_of(Xb).weighted_gram(Xb, Db, bordered=bordered)
            assert isinstance(G, np.ndarray) and G.shape == ref.shape   # the d × d system is on the host
            np.testing.assert_allclose(G, ref, rtol=1e-12, atol=1e-12)


def test_dask_card_lists_ipm_and_its_options():
    X, y = raw_data()
    p = mk.SoftMarginSVM(chunked()(X), chunked()(y), C=1.0)
    assert "ipm" in mk.methods(p)
    text = str(mk.describe("ipm", p))
    assert "marginkit.plans.ipm.svm:SoftMarginIPM" in text and "max_columns = 3000" in text
    h = mk.MaxMargin(chunked()(X), chunked()(y), bias=False)
    assert "ipm" in mk.methods(h)
    assert "marginkit.plans.ipm.margin:MaxMarginIPM" in str(mk.describe("ipm", h))


def test_wide_dask_data_declined_naming_the_alternatives():
    rng = np.random.default_rng(6)
    X = da.from_array(rng.standard_normal((20, 12)), chunks=(10, 12))
    y = da.from_array(np.sign(rng.standard_normal(20)), chunks=10)
    with pytest.raises(mk.ProblemError, match="max_columns = 8.*dual-cd"):
        mk.SoftMarginSVM(X, y, C=1.0, bias=True).solve("ipm", max_columns=8)
