"""Apidopoulos, Poggio, Rosasco & Villa §6, Figs. 2–3: diagonal descent on the 2-D toy set (``toy-2d``:
four support vectors, ``w* = (½, ½)``, n = 80).

Setting of the paper: ``λ_t = 4/t`` (here ``schedule="inverse", lambda0=4``, the same values), ``T = 1000``,
Algorithm 1 (``diagonal``) and Algorithm 2 (``diagonal-inertial``) with ``α = 10, 30, 50``; the step
``γ = 1/||Q||`` and ``u_0 = 0`` are not stated (our choice). Fig. 2: the data and the final separating lines,
which overlap. Fig. 3: normalised error ``||w_t/||w_t|| − w*/||w*||||``, margin gap and angle gap against
``t`` (we add ``||w_t − w*||``).

Claims checked (:data:`CLAIMS`, one line each; ``main`` prints them as a PASS/FAIL table and
tests/test_experiments_hinge.py asserts them on the ``--quick`` run; all are read at the paper's T = 1000):

* ``lines_overlap`` (Fig. 2): every run reaches ``w*``, the final separating lines overlap;
* ``alg2_beats_alg1`` (Fig. 3): Algorithm 2 performs as well as or better than Algorithm 1 although its
  worst-case theory is weaker; concretely ``||w_T − w*||`` of Algorithm 2 (α = 10) is at least 100× smaller;
* ``alpha_early_late`` (Fig. 3): ``α`` "decisively" affects Algorithm 2 relative to the stopping time: larger
  ``α`` is slower early (t = 100) and faster late (t = 1000) (our reading of Fig. 3 and of §6.1's remark on α).

Run::

    python experiments/apidopoulos_toy.py [--quick] [--outdir DIR]
"""
from __future__ import annotations

import numpy as np

import _claims  # experiments/_claims.py, beside this script
import _common  # experiments/_common.py, beside this script

import marginkit.catalog as catalog

# The paper's claims checked here, one line each (the rows and their expectations: experiments/_claims.py).
CLAIMS = [
    ("lines_overlap", "every run reaches w*: ||w_t/||w_t|| - w*/||w*|||| <= 1e-2 at t = 1000, the lines overlap",
     "§6, Fig. 2", "holds"),
    ("alg2_beats_alg1", "Algorithm 2 (α = 10) does as well as or better than Algorithm 1: ||w_t - w*|| 100x smaller "
     "at t = 1000",
     "§6, Fig. 3", "holds"),
    ("alpha_early_late", "larger α is slower early and faster late: ||w_t - w*|| increases with α at t = 100, and "
     "α = 30, 50 beat α = 10 at t = 1000", "§6, Fig. 3", "holds"),
]
LATE = 1000   # the paper's T

RUNS = [("Alg. 1", "diagonal", {}), ("Alg. 2, α=10", "diagonal-inertial", {"alpha": 10.0}),
        ("Alg. 2, α=30", "diagonal-inertial", {"alpha": 30.0}),
        ("Alg. 2, α=50", "diagonal-inertial", {"alpha": 50.0})]
COLORS = ["green", "red", "magenta", "blue"]
EARLY = 100


at = _common.last_at   # at(curve, key, t): ``curve[key]`` at iteration ``t`` (the last value if the run stopped before)


def run(quick: bool = False) -> dict:
    """Curves ``{label: {"t", "error", "normalized_error", "margin_gap", "angle_gap", "w"}}``."""
    problem = catalog.load("toy-2d")
    ref = problem.reference()   # cached: the results' traces get margin/angle gaps and ||w_t − w*||
    T = 1000 if quick else 3000
    curves = {}
    for label, res in _common.solve_each(problem, RUNS, schedule="inverse", lambda0=4.0, max_iter=T, tol=0.0, trace=1,
                                         keep_iterates=True):
        tr = res.trace
        angle = tr["angle_gap"]
        curves[label] = {"t": tr["iteration"], "error": tr["dist_to_opt"], "margin_gap": tr["margin_gap_abs"],
                         "angle_gap": angle, "normalized_error": np.sqrt(2 * np.maximum(angle, 0.0)),
                         "w": tr.iterates[-1]}
    return {"X": problem.X, "y": problem.y, "w_star": ref.w, "T": T, "curves": curves}


def check_claims(out: dict) -> dict:
    """``{id: bool}``: whether each claim of :data:`CLAIMS` holds in the output of :func:`run`."""
    curves = out["curves"]
    late = {label: at(c, "error", LATE) for label, c in curves.items()}
    early = [at(curves[f"Alg. 2, α={a}"], "error", EARLY) for a in (10, 30, 50)]
    return {
        "lines_overlap": all(at(c, "normalized_error", LATE) <= 1e-2 for c in curves.values()),
        "alg2_beats_alg1": 100 * late["Alg. 2, α=10"] <= late["Alg. 1"],
        "alpha_early_late": bool(early[0] < early[1] < early[2]
                                 and late["Alg. 2, α=10"] > max(late["Alg. 2, α=30"], late["Alg. 2, α=50"])),
    }


# claims_table(verdicts): :data:`CLAIMS` with their verdicts, as main prints them
claims_table = _claims.table_for(CLAIMS, key_width=22, where_width=12)


def plot(out: dict, path: str) -> None:
    fig, axes = _common.figure(1, 5, figsize=(22, 4))
    X, y = out["X"], out["y"]
    ax = axes[0]
    ax.scatter(X[:, 0], X[:, 1], c=np.where(y > 0, "tab:orange", "tab:cyan"), s=12)
    xs = np.linspace(-3, 3, 2)
    for (label, c), color in zip(out["curves"].items(), COLORS):
        w = c["w"]
        ax.plot(xs, -w[0] * xs / w[1], "--", color=color, label=label)
    ax.set(title="Fig. 2: data and final separators", xlim=(-3, 3), ylim=(-3, 3))
    ax.legend(fontsize=7)
    panels = [("normalized_error", "Fig. 3: ||w/||w|| - w*/||w*|| ||"), ("margin_gap", "Fig. 3: margin gap"),
              ("angle_gap", "Fig. 3: angle gap"), ("error", "||w_t - w*||")]
    for ax, (key, title) in zip(axes[1:], panels):
        for (label, c), color in zip(out["curves"].items(), COLORS):
            t, v = c["t"][1:], np.abs(c[key][1:])
            ax.loglog(t, np.maximum(v, 1e-17), color=color, label=label)
        ax.set(title=title, xlabel="iteration t")
    _common.save(fig, path, dpi=110)


def main(quick: bool = False, outdir: str = ".") -> dict:
    """Run, print the numbers behind Figs. 2–3 and the claims table, write ``apidopoulos_toy.png`` to ``outdir``."""
    out = run(quick)
    T = out["T"]
    print(f"Apidopoulos et al. Figs. 2-3 on toy-2d, lambda_t = 4/t, T = {T}")
    print(f"{'run':14s} {'|w_t-w*| t=100':>15s} {'|w_t-w*| t=1000':>16s} {'|w_T-w*|':>10s} "
          f"{'normalized err T':>17s} {'margin gap T':>13s} {'angle gap T':>12s}")
    for label, c in out["curves"].items():
        print(f"{label:14s} {at(c, 'error', EARLY):15.3e} {at(c, 'error', 1000):16.3e} {c['error'][-1]:10.3e} "
              f"{c['normalized_error'][-1]:17.3e} {c['margin_gap'][-1]:13.3e} {c['angle_gap'][-1]:12.3e}")
    _claims.report(out, check_claims, claims_table)
    return _common.write_figure(out, plot, outdir, "apidopoulos_toy.png", wrote="wrote")


if __name__ == "__main__":
    _common.cli(main, __doc__, "T = 1000 instead of 3000")
