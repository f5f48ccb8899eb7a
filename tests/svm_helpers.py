"""What the soft-margin tests share (tests/test_svm_coordinate.py, test_svm_bias.py, test_screening*.py): Gaussian
data labelled by a random hyperplane, data pushed apart along a random direction, and a module fixture of the
problem over dense and sparse X with its CVXPY reference. Each file keeps its own sizes and seeds (a
``functools.partial`` of these), so its instances are the ones it always drew."""
import numpy as np
import pytest
import scipy.sparse as sp

import marginkit as mk


def labelled(n, d, seed=0, sparse=False, shift=0.0, noise=0.7, flip=0.0):
    """Gaussian rows (30 % of the entries kept when ``sparse``) labelled by the sign of a random hyperplane at offset
    ``shift`` plus Gaussian noise of scale ``noise``; a fraction ``flip`` of the labels flipped; rows scaled into the
    unit ball. ``(X, y)``, X CSR when ``sparse``."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    if sparse:
        X = np.where(rng.random((n, d)) < 0.3, X, 0.0)
    y = np.where(X @ rng.standard_normal(d) + shift + noise * rng.standard_normal(n) >= 0, 1.0, -1.0)
    if flip:
        y[rng.random(n) < flip] *= -1
    X /= np.linalg.norm(X, axis=1).max()
    return (sp.csr_matrix(X) if sparse else X), y


def pushed_apart(n, d, seed=0, gap=1.0, threshold=0.0, shift=0.0, flip=0.0, density=None):
    """Gaussian rows labelled by the side of the plane ``xᵀu = threshold`` (``u`` a random unit direction), each row
    then pushed ``gap`` along ``y_i u`` and moved by ``shift``; a fraction ``flip`` of the labels flipped after; with
    ``density``, only that fraction of the entries kept. ``(X, y, u, rng)`` (the generator, to draw more of the same
    instance), X dense."""
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    X = rng.standard_normal((n, d))
    y = np.where(X @ u >= threshold, 1.0, -1.0)
    X += (gap * y)[:, None] * u + shift
    if flip:
        y[rng.random(n) < flip] *= -1
    if density is not None:
        X = np.where(rng.random((n, d)) < density, X, 0.0)
    return X, y, u, rng


def reference_fixture(data, with_data=False, **problem):
    """A module fixture over dense and sparse X (``data(sparse=...)`` gives ``(X, y)``): ``SoftMarginSVM(X, y,
    **problem)`` and its CVXPY reference, ``(problem, ref)``, or ``(problem, ref, X, y)`` with ``with_data``. Bind
    it to the fixture's name in the test module (``svm = reference_fixture(...)``)."""
    @pytest.fixture(scope="module", params=["dense", "sparse"])
    def fixture(request):
        X, y = data(sparse=request.param == "sparse")
        svm = mk.SoftMarginSVM(X, y, **problem)
        return (svm, svm.reference(), X, y) if with_data else (svm, svm.reference())
    return fixture


def both_engines(problem, method, max_iter, seed=7):
    """``(fast, slow)``: ``method`` for exactly ``max_iter`` iterations (no tolerance stop) from one seed, compiled
    (numba) and in NumPy, in that order."""
    return tuple(problem.solve(method, seed=seed, max_iter=max_iter, tol=0.0, compiled=compiled)
                 for compiled in (True, False))
