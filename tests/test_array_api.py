"""Problems on arrays of other libraries (issue 13): array-api-strict proves that no NumPy-only call slipped into a
plan that declares ``arrays=("numpy", "array-api", ...)``; torch (CPU) where installed; dask arrays on the threaded
scheduler (the cluster tests are in tests/test_dask_cluster.py). Same iterates as the NumPy run, to 1e-10."""
import numpy as np
import pytest

import marginkit as mk
from marginkit.api.datasets import sklearn_digits_pair

from array_helpers import libraries, separable  # noqa: E402

xps = pytest.importorskip("array_api_strict")

_data = separable
LIBS = libraries(xps)


@pytest.mark.parametrize("lib,conv", LIBS, ids=[name for name, _ in LIBS])
@pytest.mark.parametrize("loss", ["exp", "logistic"])
def test_dual_accelerated_same_iterates(lib, conv, loss):
    X, y = _data()
    ref = mk.MaxMargin(X, y).solve("dual-accelerated", max_iter=150, loss=loss, trace=5)
    p = mk.MaxMargin(conv(X), conv(y))
    assert p.backend.kind == "array-api" and p.backend.name == lib
    res = p.solve("dual-accelerated", max_iter=150, loss=loss, trace=5)
    assert type(res.w).__module__.split(".")[0] == lib           # w comes back in the user's namespace
    w = p.backend.host(res.w)
    np.testing.assert_allclose(w, ref.w, rtol=1e-10, atol=1e-12)
    assert res.status == ref.status
    assert abs(res.margin - ref.margin) <= 1e-10 * abs(ref.margin)
    for key in ("margin_upper", "relative_gap"):
        assert res.certificate[key] == pytest.approx(ref.certificate[key], rel=1e-10)
    np.testing.assert_allclose(res.trace["margin"], ref.trace["margin"], rtol=1e-10, atol=1e-14)


def test_real_data_digits_strict_certifies_like_numpy():
    X, y = sklearn_digits_pair(0, 1)
    ref = mk.MaxMargin(X, y).solve("dual-accelerated", max_iter=400, tol=1e-3)
    res = mk.MaxMargin(xps.asarray(X), xps.asarray(y)).solve("dual-accelerated", max_iter=400, tol=1e-3)
    np.testing.assert_array_equal(res.classes_, ref.classes_)
    assert res.status == ref.status
    assert res.certificate["relative_gap"] == pytest.approx(ref.certificate["relative_gap"], rel=1e-9)


def test_only_supporting_methods_listed_and_reference_on_host():
    X, y = _data()
    p = mk.MaxMargin(xps.asarray(X), xps.asarray(y))
    names = mk.methods(p)
    assert "cvxpy" in names and "dual-accelerated" in names
    assert "dykstra-accelerated" not in names
    with pytest.raises(mk.ProblemError, match="runs on NumPy/SciPy"):
        p.solve("dykstra-accelerated")
    ref = p.reference()
    assert ref.status == "optimal" and "host_copy" in ref.info
    assert ref.margin == pytest.approx(mk.MaxMargin(X, y).reference().margin, rel=1e-9)


def test_bad_inputs_name_the_argument():
    X, y = _data()
    with pytest.raises(mk.ProblemError, match="y is a numpy"):
        mk.MaxMargin(xps.asarray(X), y)                       # mixed namespaces
    bad = X.copy()
    bad[3, 2] = np.nan
    with pytest.raises(mk.ProblemError, match="X contains NaN"):
        mk.MaxMargin(xps.asarray(bad), xps.asarray(y))
    with pytest.raises(mk.ProblemError, match="X must be 2-D"):
        mk.MaxMargin(xps.asarray(X[:, 0]), xps.asarray(y))
    with pytest.raises(mk.ProblemError, match="classes"):
        mk.MaxMargin(xps.asarray(X), xps.asarray(np.arange(X.shape[0]) % 3))
    with pytest.raises(mk.ProblemError, match="kernel"):
        mk.MaxMargin(xps.asarray(X), xps.asarray(y), kernel="rbf")
    Xi = xps.asarray(np.round(X * 10).astype(np.int64))       # integers become float64 where they live
    p = mk.MaxMargin(Xi, xps.asarray(y))
    assert p.X.dtype == xps.float64


def test_user_arrays_untouched():
    X, y = _data()
    Xs, ys = xps.asarray(X), xps.asarray(y)
    mk.MaxMargin(Xs, ys).solve("dual-accelerated", max_iter=20)
    np.testing.assert_array_equal(np.from_dlpack(Xs), X)
    np.testing.assert_array_equal(np.from_dlpack(ys), y)


def test_dask_same_iterates_and_bad_chunks():
    da = pytest.importorskip("dask.array")
    X, y = _data(n=400)
    ref = mk.MaxMargin(X, y).solve("dual-accelerated", max_iter=60)
    p = mk.MaxMargin(da.from_array(X, chunks=(100, -1)), y)
    assert p.backend.kind == "dask"
    res = p.solve("dual-accelerated", max_iter=60)
    np.testing.assert_allclose(res.w, ref.w, rtol=1e-10, atol=1e-12)
    assert res.certificate["relative_gap"] == pytest.approx(ref.certificate["relative_gap"], rel=1e-9)
    with pytest.raises(mk.ProblemError, match="rechunk"):
        mk.MaxMargin(da.from_array(X, chunks=(100, 4)), y)
    Xd = da.from_array(X, chunks=(100, -1))
    with pytest.raises(mk.ProblemError, match="compute_chunk_sizes"):
        mk.MaxMargin(Xd[Xd[:, 0] > -100], y)


@pytest.mark.parametrize("lib,conv", LIBS, ids=[name for name, _ in LIBS])
def test_result_to_numpy_predict_and_save_where_the_data_live(lib, conv, tmp_path):
    X, y = _data()
    labels = np.where(y > 0, 3, 7)
    res = mk.MaxMargin(conv(X), conv(labels)).solve("dual-accelerated", max_iter=80)
    host = res.to_numpy()
    assert isinstance(host.w, np.ndarray) and type(res.w).__module__.split(".")[0] == lib
    expected = mk.MaxMargin(X, labels).solve("dual-accelerated", max_iter=80).predict(X)
    np.testing.assert_array_equal(res.predict(X), expected)                      # NumPy rows: NumPy labels
    on_device = res.predict(conv(X))                                              # the library's rows: its labels
    assert type(on_device).__module__.split(".")[0] == lib
    np.testing.assert_array_equal(mk.core.backend.backend_of(conv(X)).host(on_device), expected)
    loaded = mk.Result.load(res.save(tmp_path / "r.npz"))
    np.testing.assert_allclose(loaded.w, host.w, rtol=0, atol=0)


def test_dask_predict_stays_lazy():
    da = pytest.importorskip("dask.array")
    X, y = _data(n=200)
    Xd = da.from_array(X, chunks=(50, -1))
    res = mk.MaxMargin(Xd, y).solve("dual-accelerated", max_iter=50)
    pred = res.predict(Xd)
    assert hasattr(pred, "compute")
    np.testing.assert_array_equal(pred.compute(), res.predict(X))


def test_docs_show_where_each_method_runs():
    from pathlib import Path

    from marginkit.engine.graph import arrays_table
    page = (Path(__file__).resolve().parents[1] / "docs" / "devices.md").read_text(encoding="utf-8")
    assert arrays_table() in page, "run `python docs/update_readme.py`"


def test_dask_labels_are_mapped_on_the_workers():
    da = pytest.importorskip("dask.array")
    X, y = _data(n=200)
    Xd = da.from_array(X, chunks=(50, -1))
    labels = np.where(y > 0, 7, 3)
    p = mk.MaxMargin(Xd, da.from_array(labels, chunks=40))     # other chunks than X: rechunked like X's rows
    assert hasattr(p.y, "chunks") and p.y.chunks == Xd.chunks[:1]
    np.testing.assert_array_equal(p.y.compute(), np.where(labels == 7, 1.0, -1.0))
    np.testing.assert_array_equal(p.classes_, [3, 7])
    strings = mk.MaxMargin(Xd, da.from_array(np.where(y > 0, "b", "a"), chunks=50))   # strings: mapped on the host
    np.testing.assert_array_equal(strings.y.compute(), y)
    bad = y.copy()
    bad[5] = np.nan
    with pytest.raises(mk.ProblemError, match="y contains NaN"):
        mk.MaxMargin(Xd, da.from_array(bad, chunks=50))
    with pytest.raises(mk.ProblemError, match="three|3 classes"):
        mk.MaxMargin(Xd, da.from_array(np.arange(200) % 3, chunks=50))
