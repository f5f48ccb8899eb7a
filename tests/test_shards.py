"""marginkit.datasets.open_shards (issue 13): a directory of svmlight or parquet shards opened lazily as row-chunked
dask arrays, one chunk per file, chunk sizes known; the same values as reading the files eagerly; bad input names
the argument; a problem built on the shards solves like the NumPy one."""
import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

import marginkit as mk
from marginkit.api.datasets import open_shards, sklearn_digits_pair

da = pytest.importorskip("dask.array")


def _split(X, y, parts):
    edges = np.linspace(0, len(y), parts + 1).astype(int)
    return [(X[a:b], y[a:b]) for a, b in zip(edges[:-1], edges[1:])]


def _write_svmlight(tmp_path, X, y, parts=3):
    for k, (Xk, yk) in enumerate(_split(X, y, parts)):
        dump_svmlight_file(Xk, yk, str(tmp_path / f"part-{k:03d}.svm"), zero_based=False)
    return tmp_path


def _write_parquet(tmp_path, X, y, parts=3):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    for k, (Xk, yk) in enumerate(_split(X, y, parts)):
        df = pd.DataFrame(Xk, columns=[f"f{j}" for j in range(X.shape[1])])
        df["label"] = yk
        df.to_parquet(tmp_path / f"part-{k:03d}.parquet", index=False)
    return tmp_path


def test_svmlight_directory_is_lazy_row_chunked_and_exact(tmp_path):
    X, y = sklearn_digits_pair(0, 1)
    _write_svmlight(tmp_path, X, y, parts=3)
    Xd, yd = open_shards(tmp_path, format="svmlight", n_features=X.shape[1])
    assert isinstance(Xd, da.Array) and isinstance(yd, da.Array)
    assert len(Xd.chunks[0]) == 3 and Xd.chunks[1] == (X.shape[1],)
    assert Xd.chunks[0] == yd.chunks[0] and sum(Xd.chunks[0]) == len(y)
    np.testing.assert_allclose(Xd.compute(scheduler="threads"), X, rtol=1e-15, atol=0)
    np.testing.assert_array_equal(yd.compute(scheduler="threads"), y)
    # the width found from the shards (no n_features) is the largest index present
    Xa, _ = open_shards(str(tmp_path / "*.svm"))
    assert Xa.shape[1] == int(np.flatnonzero(np.abs(X).sum(axis=0)).max()) + 1


def test_svmlight_sparse_chunks(tmp_path):
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 9)) * (rng.random((60, 9)) < 0.3)
    y = np.where(rng.random(60) < 0.5, -1.0, 1.0)
    _write_svmlight(tmp_path, X, y, parts=2)
    Xd, _ = open_shards(tmp_path, n_features=9, sparse=True)
    block = Xd.blocks[0].compute(scheduler="threads")
    assert sp.issparse(block)
    np.testing.assert_allclose(block.toarray(), X[:30])


def test_parquet_directory(tmp_path):
    X, y = sklearn_digits_pair(0, 1)
    X = X[:, :20]
    _write_parquet(tmp_path, X, y, parts=4)
    Xd, yd = open_shards(tmp_path, format="parquet", label="label")
    assert Xd.shape == X.shape and len(Xd.chunks[0]) == 4 and not np.isnan(Xd.chunks[0]).any()
    np.testing.assert_allclose(Xd.compute(scheduler="threads"), X)
    np.testing.assert_array_equal(yd.compute(scheduler="threads"), y)


def test_problem_on_shards_matches_numpy(tmp_path):
    import dask
    X, y = sklearn_digits_pair(0, 1)
    _write_svmlight(tmp_path, X, y, parts=3)
    Xd, yd = open_shards(tmp_path, n_features=X.shape[1])
    with dask.config.set(scheduler="threads"):
        res = mk.MaxMargin(Xd, yd, bias=False).solve("dual-accelerated", max_iter=30, trace=None)
    ref = mk.MaxMargin(X, y, bias=False).solve("dual-accelerated", max_iter=30, trace=None)
    np.testing.assert_allclose(np.asarray(res.w), ref.w, rtol=1e-10, atol=1e-12)
    assert res.certificate["relative_gap"] == pytest.approx(ref.certificate["relative_gap"], rel=1e-9)


def test_bad_input_names_the_argument(tmp_path):
    with pytest.raises(mk.ProblemError, match="path_or_glob"):
        open_shards(tmp_path)                                   # empty directory
    with pytest.raises(mk.ProblemError, match="format"):
        open_shards(tmp_path, format="csv")
    with pytest.raises(mk.ProblemError, match="n_features"):
        open_shards(tmp_path, n_features=0)
    rng = np.random.default_rng(1)
    X, y = rng.standard_normal((20, 5)), np.where(rng.random(20) < 0.5, -1.0, 1.0)
    svm = tmp_path / "svm"
    svm.mkdir()
    _write_svmlight(svm, X, y, parts=2)
    with pytest.raises(mk.ProblemError, match="n_features=3"):
        open_shards(svm, n_features=3)
    (svm / "broken.svm").write_text("this is not svmlight\n")
    with pytest.raises(mk.ProblemError, match="path_or_glob.*broken"):
        open_shards(svm)
    pq = tmp_path / "pq"
    pq.mkdir()
    _write_parquet(pq, X, y, parts=2)
    with pytest.raises(mk.ProblemError, match="label 'target'"):
        open_shards(pq, format="parquet", label="target")
    import pandas as pd
    pd.DataFrame({"f0": [1.0], "label": [1.0]}).to_parquet(pq / "part-999.parquet", index=False)
    with pytest.raises(mk.ProblemError, match="path_or_glob.*mixed widths"):
        open_shards(pq, format="parquet")
