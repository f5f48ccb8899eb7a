import numpy as np
import pytest

from marginkit import datasets as ds


@pytest.fixture(scope="session")
def small_separable():
    """n=60, d=8 Gaussian data through the origin, rows in the unit ball (the ``||x_i|| <= 1`` of Ji, Srebro &
    Telgarsky §2)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 8))
    X /= np.linalg.norm(X, axis=1).max()
    w = rng.standard_normal(8)
    return X, np.sign(X @ w)


@pytest.fixture(scope="session")
def digits01():
    return ds.sklearn_digits_pair(0, 1)


@pytest.fixture(scope="session")
def non_separable():
    """A point and its negation with the same label: 0 is in the hull of {y_i x_i}."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 5))
    X /= np.linalg.norm(X, axis=1).max()
    y = np.sign(X @ rng.standard_normal(5))
    X = np.vstack([X, X[:1], -X[:1]])
    y = np.concatenate([y, [1.0, 1.0]])
    return X, y


@pytest.fixture
def dask_threads():
    """dask's threaded scheduler for the test (``pytestmark = pytest.mark.usefixtures("dask_threads")``): the
    single-process dask tests stay fast; the cluster runs are in tests/test_dask_cluster.py."""
    dask = pytest.importorskip("dask")
    with dask.config.set(scheduler="threads"):
        yield
