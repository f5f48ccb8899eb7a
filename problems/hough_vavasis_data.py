"""Catalog entries of Hough & Vavasis: MNIST and 2-D ellipsoids, the perturbed SVM on breast cancer, an a9a-sized
sparse SVM (M. Hough, S. A. Vavasis, *Data-dependent complexity of first-order methods for binary classification*,
2025: §4.1, Tables 1 and 3 and Figure 3; §4.2, Table 2)."""
from marginkit import EllipsoidSeparation, PerturbedSVMDual, SoftMarginSVM
from marginkit import datasets as ds

from . import instance

HV = "Hough & Vavasis"


@instance("esp-mnist-0-vs-1", "EllipsoidSeparation",
          "MNIST 0 (C) vs 1 (D) ellipsoids, diagonal shapes eps + (1 - |2x - 1|)/2: N=125 per class, d=784 "
          "(quick: N=10)", source=f"{HV} §4.1, Table 1")
def esp_mnist_0_vs_1(quick=False):
    n = 10 if quick else 125
    return EllipsoidSeparation(*ds.mnist_ellipsoids(n, n, seed=0))


@instance("esp-2d", "EllipsoidSeparation", "two 2-D ellipses 0.1 QQ^T + 1e-3 I centred at (-0.5, 0) and (0.5, 0)",
          source=f"{HV} §4.1, Figure 3")
def esp_2d(quick=False):
    return EllipsoidSeparation(*ds.ellipses_2d(0.5, seed=0))


@instance("perturbed-svm-breast-cancer", "PerturbedSVMDual",
          "standardised breast cancer (n=569, d=30), perturbed SVM dual with gamma=64/n, mu=n/128",
          source=f"{HV} Table 2 (FISTA accuracy 0.986)")
def perturbed_svm_breast_cancer(quick=False):
    return PerturbedSVMDual(*ds.breast_cancer())


@instance("svm-a9a-like", "SoftMarginSVM",
          "synthetic a9a-sized sparse binary problem (n=22696, d=123, 14 one-hot groups), C=1 with a bias "
          "(quick: n=2000)", source=f"{HV} Table 2 (a9a row), synthetic stand-in")
def svm_a9a_like(quick=False):
    return SoftMarginSVM(*ds.a9a_like(n=2000 if quick else 22696), C=1.0, bias=True)


@instance("perturbed-svm-a9a-like", "PerturbedSVMDual",
          "the a9a-sized synthetic sparse problem, perturbed SVM dual with gamma=64/n, mu=n/128 (quick: n=2000)",
          source=f"{HV} Table 2 (a9a row), synthetic stand-in")
def perturbed_svm_a9a_like(quick=False):
    return PerturbedSVMDual(*ds.a9a_like(n=2000 if quick else 22696))
