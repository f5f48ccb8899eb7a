"""Raj & Bach §4: the synthetic ℓ2 and sparse perceptron data (RB Figs. 1 and 2), as seeded catalog entries.

Generator (RB §4, our resolution of the paper's ambiguities in brackets): ``Σ = diag(σ_1..σ_d)`` with
``σ_i = i^{-3/2}`` (ℓ2 setting) or ``1/i`` (sparse setting); ``θ_true ~ N(0, I_d)`` [the law is not stated],
kept on 50 uniformly chosen coordinates in the sparse setting; ``x ~ N(0, Σ)``, ``s = xᵀθ_true + b`` with
``b = 0.005``, ``y = sign(s)``; pairs with ``|s| <= 0.1`` are discarded [the paper writes ``s <= 0.1``, which
would delete every negative example]; draws continue until ``n`` training and ``n_test`` test pairs survive.
``p = 2`` or ``p = 1 + 1/ln d`` [natural log, as in Duchi et al. 2010]. The problem is the ℓp
perceptron ``MinNormFeasibility(X, y, p, "margin")`` (RB eq. 11), separable through the origin when n < d.
"""
from __future__ import annotations

import numpy as np

from marginkit import MinNormFeasibility
from marginkit.core.params import Interval, Options, check_values

from . import instance

SETTINGS = ("l2", "sparse")
B, FILTER, SPARSE_SUPPORT = 0.005, 0.1, 50


def sparse_p(d: int) -> float:
    """``p = 1 + 1/ln d`` of the sparse perceptron (RB §4, after Duchi et al.)."""
    return 1.0 + 1.0 / np.log(d)


def generate(setting: str = "l2", n: int = 1000, d: int = 2000, n_test: int = 1000, seed: int = 0):
    """``(X, y, X_test, y_test, p)`` of RB §4 (see the module docstring)."""
    check_values("generate", {"setting": setting, "n": n, "d": d, "n_test": n_test},
                 {"setting": [Options(*SETTINGS)], "n": [Interval(int, 1, None)],
                  "d": [Interval(int, 2 if setting == "sparse" else 1, None)], "n_test": [Interval(int, 0, None)]})
    rng = np.random.default_rng(seed)
    i = np.arange(1, d + 1, dtype=float)
    sd = np.sqrt(i ** -1.5 if setting == "l2" else 1.0 / i)
    theta = rng.standard_normal(d)
    if setting == "sparse":
        keep = rng.choice(d, size=min(SPARSE_SUPPORT, d), replace=False)
        mask = np.zeros(d, dtype=bool)
        mask[keep] = True
        theta[~mask] = 0.0
    need, rows, labels = n + n_test, [], []
    while sum(len(r) for r in rows) < need:
        x = rng.standard_normal((2 * need, d)) * sd
        s = x @ theta + B
        ok = np.abs(s) > FILTER
        rows.append(x[ok])
        labels.append(np.sign(s[ok]))
    X, y = np.vstack(rows)[:need], np.concatenate(labels)[:need]
    p = 2.0 if setting == "l2" else sparse_p(d)
    return X[:n], y[:n], X[n:], y[n:], p


def sizes(quick: bool):
    """``(n, d)``: the paper's 1000 × 2000, or 200 × 400 for the test suite (the same ratio d = 2n)."""
    return (200, 400) if quick else (1000, 2000)


@instance("rb-l2", "MinNormFeasibility", "Raj & Bach §4 ℓ2 perceptron data (n=1000, d=2000, σ_i = i^-1.5, p=2), seed 0",
          source="Raj & Bach Fig. 1")
def rb_l2(quick=False):
    n, d = sizes(quick)
    X, y, _, _, p = generate("l2", n=n, d=d, n_test=n, seed=0)
    return MinNormFeasibility(X, y, p=p, constraint="margin")


@instance("rb-sparse", "MinNormFeasibility", "Raj & Bach §4 sparse perceptron data (n=1000, d=2000, σ_i = 1/i, "
          "50-sparse θ, p = 1 + 1/ln d), seed 0", source="Raj & Bach Fig. 2")
def rb_sparse(quick=False):
    n, d = sizes(quick)
    X, y, _, _, p = generate("sparse", n=n, d=d, n_test=n, seed=0)
    return MinNormFeasibility(X, y, p=p, constraint="margin")
