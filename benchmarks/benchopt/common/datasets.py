"""The data sets that more than one benchmark reads (``benchmark_utils.datasets``), all offline: each
``datasets/<name>.py`` subclasses one with its ``name``, its docstring and, where it differs, its ``parameters``."""
from __future__ import annotations

from benchopt import BaseDataset

from marginkit.api.datasets import a9a_like, breast_cancer


class BreastCancer(BaseDataset):
    """scikit-learn's bundled breast-cancer set (569 × 30, malignant −1 / benign +1), z-scored or raw."""

    parameters = {"standardize": [True, False]}

    def get_data(self):
        X, y = breast_cancer(standardize=self.standardize)
        return dict(X=X, y=y)


class A9aLike(BaseDataset):
    """``marginkit.datasets.a9a_like``: a sparse (CSR) stand-in for LIBSVM's a9a."""

    parameters = {"n_samples": [5000], "random_state": [0]}

    def get_data(self):
        X, y = a9a_like(n=self.n_samples, seed=self.random_state)
        return dict(X=X, y=y)
