"""Raj & Bach (AISTATS 2021) §4, Figs. 1 and 2: training and test mistakes against iterations.

ℓ2 setting (Fig. 1, p = 2): accelerated coordinate ascent (Alg. 2, ``dykstra-accelerated``), randomized
coordinate ascent (Alg. 1, ``dykstra``), the classical perceptron and primal SGD on the squared hinge with
the constant step ``1/L_max`` (Vaswani et al. 2018; ``mirror-descent`` with p = 2). Sparse setting (Fig. 2,
p = 1 + 1/ln d): Alg. 2, Alg. 1 and stochastic mirror descent on the squared hinge with the mirror map
``½||·||_p²``. Data: the seeded catalog entries ``rb-l2`` / ``rb-sparse`` (problems/raj_bach_data.py), with
1000 test pairs from the same generator.

All methods share the seed, hence the index sequence. One run-loop iteration is one epoch of n sampled
indices; the x-axis counts sampled indices (Raj & Bach do not state their x-axis in §4). A point is a
mistake when ``y xᵀθ <= 0`` (θ = 0 at the start makes every point a mistake).

Claims checked in each setting (:data:`CLAIMS`, one line each; ``main`` prints them as a PASS/FAIL table and
tests/test_experiments_rb.py asserts them on the ``--quick`` run, all of them on the full run behind ``slow``):
``acc_fewest_train`` and ``acc_far_below_primal`` (Figs. 1a, 2a: Alg. 2 clearly best on training mistakes, with
large gains over the primal methods), ``acc_fewest_test`` (Figs. 1b, 2b: accelerated also best on test; full size
only: at the quick size the ℓ2 setting's test mistakes end within a few points of each other).

Run::

    python experiments/raj_bach.py --setting l2 [--quick] [--outdir DIR]
"""
from __future__ import annotations

import sys

import numpy as np

import _claims  # experiments/_claims.py, beside this script
import _common  # experiments/_common.py, beside this script

from marginkit import MinNormFeasibility
from marginkit.catalog.raj_bach_data import SETTINGS, generate, sizes

# The paper's claims checked here, one line each (the rows and their expectations: experiments/_claims.py).
CLAIMS = [
    ("acc_fewest_train", "accelerated coordinate ascent makes the fewest training mistakes: over the second half "
     "of the run (mean) and at the end (ties allowed)", "§4, Figs. 1a, 2a", "holds"),
    ("acc_far_below_primal", "... with large gains over the primal methods (perceptron, SGD / SMD): at most half "
     "their mean training mistakes over the second half", "§4, Figs. 1a, 2a", "holds"),
    ("acc_fewest_test", "accelerated coordinate ascent also makes the fewest test mistakes at the end (ties allowed)",
     "§4, Figs. 1b, 2b", "full size only: at n = 200 the ℓ2 setting's test mistakes end within a few points"),
]
ACCELERATED = "accelerated coordinate ascent (Alg. 2)"
METHODS = {
    "l2": [(ACCELERATED, "dykstra-accelerated", {}),
           ("randomized coordinate ascent (Alg. 1)", "dykstra", {}),
           ("perceptron", "mirror-descent", {"loss": "perceptron"}),
           ("primal SGD, squared hinge", "mirror-descent", {})],
    "sparse": [(ACCELERATED, "dykstra-accelerated", {}),
               ("randomized coordinate ascent (Alg. 1)", "dykstra", {}),
               ("SMD, squared hinge", "mirror-descent", {})],
}
EPOCHS = {False: 30, True: 15}  # 30 epochs = 30,000 sampled indices at the paper's size


def run(setting: str = "l2", quick: bool = False, seed: int = 0) -> dict:
    """Curves ``{label: {"steps", "train", "test", "time"}}`` and the problem's sizes."""
    n, d = sizes(quick)
    X, y, X_test, y_test, p = generate(setting, n=n, d=d, n_test=n, seed=seed)
    problem = MinNormFeasibility(X, y, p=p, constraint="margin")
    curves = {}
    for label, method, params in METHODS[setting]:
        res = problem.solve(method, max_iter=EPOCHS[quick], tol=0.0, seed=seed, trace=1, keep_iterates=True,
                            **params)
        test = [int(np.count_nonzero(y_test * (X_test @ th) <= 0)) for th in res.trace.iterates]
        curves[label] = {"steps": res.trace["iteration"] * n, "train": res.trace["mistakes"],
                         "test": np.asarray(test, float), "time": res.time, "method": method}
    return {"setting": setting, "n": n, "d": d, "p": p, "curves": curves}


def check_claims(out: dict) -> dict:
    """``{id: bool}``: whether each claim of :data:`CLAIMS` holds in the output of :func:`run` (one setting)."""
    curves = out["curves"]
    late = {label: c["train"][len(c["train"]) // 2:].mean() for label, c in curves.items()}
    acc = late.pop(ACCELERATED)
    primal = [v for label, v in late.items() if "coordinate ascent" not in label]   # perceptron, SGD / SMD
    final_train = {label: c["train"][-1] for label, c in curves.items()}
    final_test = {label: c["test"][-1] for label, c in curves.items()}
    return {
        "acc_fewest_train": bool(all(acc < v for v in late.values())
                                 and final_train[ACCELERATED] <= min(final_train.values())),
        "acc_far_below_primal": all(acc <= 0.5 * v for v in primal),
        "acc_fewest_test": bool(final_test[ACCELERATED] <= min(final_test.values())),
    }


# claims_table(verdicts): :data:`CLAIMS` with their verdicts, as main prints them
claims_table = _claims.table_for(CLAIMS, key_width=20, where_width=16)


def plot(out: dict, path: str) -> None:
    fig, axes = _common.figure(1, 2, figsize=(11, 4))
    for label, c in out["curves"].items():
        for ax, key in zip(axes, ("train", "test")):
            ax.plot(c["steps"], c[key], label=label, lw=2 if label == ACCELERATED else 1.2)
    for ax, what in zip(axes, ("training", "test")):
        ax.set_yscale("symlog", linthresh=1.0)
        ax.set_xlabel("iterations (sampled indices)")
        ax.set_ylabel(f"number of {what} mistakes")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    _common.save(fig, path, dpi=110,
                 title=f"Raj & Bach §4, {out['setting']} setting: n={out['n']}, d={out['d']}, p={out['p']:.4g}")


def main(setting: str = "l2", quick: bool = False, outdir: str = ".") -> dict:
    """Run one setting, print the mistakes at a few budgets and the claims table, write
    ``raj_bach_<setting>.png`` to ``outdir``."""
    if setting not in SETTINGS:
        raise ValueError(f"setting must be one of {SETTINGS}; got {setting!r}")
    out = run(setting, quick=quick)
    _common.write_figure(out, plot, outdir, f"raj_bach_{setting}.png", wrote=None)
    first = next(iter(out["curves"].values()))
    checkpoints = [k for k in (1, 3, 10, len(first["steps"]) - 1) if k < len(first["steps"])]
    print(f"Raj & Bach §4, {setting} setting (n={out['n']}, d={out['d']}, p={out['p']:.4g}): "
          "training / test mistakes")
    print(f"{'method':40s}" + "".join(f"{int(first['steps'][k]):>14d}" for k in checkpoints) + f"{'time(s)':>9s}")
    for label, c in out["curves"].items():
        cells = "".join(f"{int(c['train'][k]):>7d}/{int(c['test'][k]):<6d}" for k in checkpoints)
        print(f"{label:40s}{cells}{c['time']:>9.2f}")
    _claims.report(out, check_claims, claims_table)
    print(f"figure: {out['png']}")
    return out


if __name__ == "__main__":
    args = _common.parser(__doc__, "reduced size (n=200, d=400, 15 epochs)",
                          setting=dict(choices=SETTINGS + ("both",), default="both")).parse_args()
    for s in (SETTINGS if args.setting == "both" else (args.setting,)):
        main(s, quick=args.quick, outdir=args.outdir)
    sys.exit(0)
