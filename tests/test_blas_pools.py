"""``core.blas.one_numpy_pool``: during an interior-point run NumPy's own BLAS pool is held to one thread where
SciPy's is another library (two spinning OpenBLAS pools made every iteration 2-3 times slower), and given back."""
import numpy as np
import pytest
from threadpoolctl import ThreadpoolController, threadpool_limits

import marginkit as mk
from marginkit.core import blas


def _pool_or_skip():
    pool = blas._numpy_pool()
    if pool is None:
        pytest.skip("NumPy and SciPy share one BLAS here: nothing to hold")
    return pool


def test_numpys_pool_is_held_inside_and_restored_after():
    pool = _pool_or_skip()
    with threadpool_limits(2, user_api="blas"):
        before = pool.get_num_threads()
        if before < 2:
            pytest.skip("NumPy's OpenBLAS was started with one thread here")
        scipy_pools = [c for c in ThreadpoolController().lib_controllers
                       if c.user_api == "blas" and "scipy" in c.filepath and c.filepath != pool.filepath]
        scipy_before = [c.get_num_threads() for c in scipy_pools]
        with blas.one_numpy_pool():
            assert pool.get_num_threads() == 1
            assert [c.get_num_threads() for c in scipy_pools] == scipy_before   # SciPy's keeps its threads
        assert pool.get_num_threads() == before


def test_the_interior_point_run_holds_it_and_gives_it_back():
    pool = _pool_or_skip()
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 8)) * rng.gamma(0.5, 10.0, size=8)
    y = np.where(X @ rng.standard_normal(8) >= 0, 1.0, -1.0)
    seen = []
    with threadpool_limits(2, user_api="blas"):
        before = pool.get_num_threads()
        if before < 2:
            pytest.skip("NumPy's OpenBLAS was started with one thread here")
        res = mk.SoftMarginSVM(X, y, C=1.0).solve("ipm", callback=lambda st: seen.append(pool.get_num_threads()))
        assert pool.get_num_threads() == before
    assert res.status == "optimal" and seen and set(seen) == {1}


def test_a_user_limit_of_one_is_left_alone():
    pool = _pool_or_skip()
    with threadpool_limits(1, user_api="blas"):
        with blas.one_numpy_pool():
            assert pool.get_num_threads() == 1
        assert pool.get_num_threads() == 1
