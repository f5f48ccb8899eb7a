"""marginkit.certify measures the SVMs fitted by scikit-learn, skglm and Snap ML against the exact optimum.

The page to read when liblinear says ``ConvergenceWarning: Liblinear failed to converge`` and you wonder whether the
model can be used. Every model below is fitted with its library's defaults (and the parameters that make it solve
the soft-margin SVM ``min ½||w||² + C Σ max(0, 1 − y_i(x_iᵀw + b))`` with ``C = 1``) on scikit-learn's bundled
breast-cancer set (569 × 30), once z-scored and once raw (its features span five decades of scale). Then one line
certifies each::

    problem = marginkit.SoftMarginSVM(X, y, C=1.0, bias=True)   # the problem the model claims to solve
    res = marginkit.certify(problem, fitted_model)               # coef_ and intercept_ are read, nothing refitted
    res.status, res.certificate["relative_gap"], res.b

The models: scikit-learn's ``LinearSVC(loss="hinge")`` (liblinear) with ``intercept_scaling`` 1 (its default) and
100, ``SGDClassifier(loss="hinge", alpha=1/(n·C))`` (its objective is this one divided by ``n·C``),
``SVC(kernel="linear")`` (libsvm), skglm's ``LinearSVC`` (``max_epochs`` capped at 1,000 in the ``--quick`` run),
Snap ML's ``SupportVectorMachine(regularizer=1/C)`` where Snap ML is installed, and marginkit's own ``dual-cd-bias``
at ``tol = 1e-6`` with its default budget. Reference: marginkit's certified CVXPY solution ``(w*, b*)``.

How to read the table:

* **certified gap** ``(P(w, b) − D)/D``, with ``D`` a lower bound on the optimal value proven from the reference's
  dual multipliers: the model's objective is at most that fraction above the optimum (the true gap can only be
  smaller). ``optimal`` means at most ``tol = 1e-6``. At 1e-3 or below the objective is within 0.1 % of the
  optimum, close enough for most uses whatever the warning said; a gap near or above 1 means another classifier than
  the SVM you asked for.
* **intercept error** ``|b − b*|``: against the exact optimum's ``b*``. liblinear has no free intercept: it appends
  a constant feature of value ``intercept_scaling`` and penalises its weight, so ``b`` shrinks toward 0
  (``intercept_scaling=1``) or the dual becomes badly conditioned (a large one) and liblinear stops early. skglm's
  ``LinearSVC`` accepts ``fit_intercept=True`` but hands its solver ``fit_intercept=False``: its ``b`` is always 0,
  and the certificate shows it in one line on the raw data, where ``b*`` is about 8.
* **agreement**: the fraction of training points that the model labels as the exact optimum does. A model can agree
  everywhere with a gap of 1e-3 (labels are robust to a small gap), and a model with a large gap can still agree on
  most points: agreement alone does not say that the optimisation succeeded, the gap does.
* **warned**: whether the fit raised scikit-learn's ``ConvergenceWarning``. The warning says the solver hit
  ``max_iter``, not how far it is: on the z-scored data liblinear warns at a certified gap below 1e-3. Certify the
  model; if the gap is too large, scale the features first (on the raw data every coordinate method slows down,
  marginkit's ``dual-cd-bias`` too: it stops at its iteration budget, and its certificate says so exactly as it says
  so of the others), then raise ``max_iter``; at this size ``problem.reference()`` is itself the exact optimum.

Run::

    python experiments/certify_other_solvers.py [--quick] [--outdir DIR]
"""
from __future__ import annotations

import warnings

import numpy as np

import _common  # experiments/_common.py, beside this script

import marginkit as mk
from marginkit.api.datasets import breast_cancer

C = 1.0
TOL = 1e-6
DATASETS = {"z-scored": True, "raw": False}


def models(n: int, quick: bool) -> dict:
    """``{label: unfitted estimator}``, each set to solve ``½||w||² + C Σ hinge`` with a bias where it can."""
    from sklearn.linear_model import SGDClassifier
    from sklearn.svm import SVC, LinearSVC
    out = {
        "LinearSVC (liblinear), intercept_scaling=1": LinearSVC(C=C, loss="hinge", random_state=0),
        "LinearSVC (liblinear), intercept_scaling=100": LinearSVC(C=C, loss="hinge", intercept_scaling=100.0,
                                                                 random_state=0),
        "SGDClassifier(hinge), alpha=1/(nC)": SGDClassifier(loss="hinge", alpha=1.0 / (n * C), random_state=0),
        "SVC(kernel='linear') (libsvm)": SVC(kernel="linear", C=C),
    }
    try:
        import skglm
        out["skglm LinearSVC"] = skglm.LinearSVC(C=C, fit_intercept=True, **({"max_epochs": 1000} if quick else {}))
    except ImportError:
        pass
    try:
        from snapml import SupportVectorMachine
        out["Snap ML SupportVectorMachine"] = SupportVectorMachine(regularizer=1.0 / C, fit_intercept=True)
    except ImportError:
        pass
    return out


def _fit(model, X, y) -> bool:
    """Fit ``model``; whether it raised scikit-learn's ConvergenceWarning (kept out of the output: it is a column)."""
    from sklearn.exceptions import ConvergenceWarning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y)
    return any(issubclass(w.category, ConvergenceWarning) for w in caught)


def _row(data, label, problem, ref, answer, warned) -> dict:
    res = mk.certify(problem, answer, tol=TOL)
    X = problem.X
    return {"data": data, "model": label, "warned": warned, "status": res.status,
            "certified_gap": float(res.certificate["relative_gap"]), "b": float(res.b),
            "b_star": float(ref.b), "intercept_error": abs(float(res.b) - float(ref.b)),
            "agreement": float(np.mean(res.predict(X) == ref.predict(X)))}


def run(quick: bool = False) -> dict:
    rows = []
    for data, standardize in DATASETS.items():
        X, y = breast_cancer(standardize=standardize)
        problem = mk.SoftMarginSVM(X, y, C=C, bias=True)
        ref = problem.reference()
        for label, model in models(len(y), quick).items():
            warned = _fit(model, X, y)
            rows.append(_row(data, label, problem, ref, model, warned))
        own = problem.solve("dual-cd-bias", tol=TOL, seed=0)
        rows.append(_row(data, "marginkit dual-cd-bias (tol 1e-6)", problem, ref, own, False))
    return {"rows": rows, "quick": quick}


def table(rows) -> str:
    head = (f"{'data':8s} {'model':46s} {'warned':>6s} {'status':>18s} {'certified gap':>13s} {'b':>10s} "
            f"{'b*':>8s} {'|b - b*|':>9s} {'agreement':>9s}")
    lines = [f"marginkit.certify against SoftMarginSVM(X, y, C={C:g}, bias=True) on breast cancer (569 x 30)", head,
             "-" * len(head)]
    for r in rows:
        lines.append(f"{r['data']:8s} {r['model']:46s} {'yes' if r['warned'] else 'no':>6s} {r['status']:>18s} "
                     f"{r['certified_gap']:13.3g} {r['b']:10.4g} {r['b_star']:8.4g} {r['intercept_error']:9.3g} "
                     f"{r['agreement']:9.4f}")
    return "\n".join(lines)


def plot(out: dict, path: str) -> None:
    names = list(dict.fromkeys(r["model"] for r in out["rows"]))
    fig, panels = _common.panel_row(list(DATASETS), 7.0, 0.55 * len(names) + 1.6, sharey=True)
    for ax, data in panels:
        rows = {r["model"]: r for r in out["rows"] if r["data"] == data}
        gaps = [max(rows[m]["certified_gap"], 1e-16) if m in rows else np.nan for m in names]
        ypos = np.arange(len(names))
        ax.barh(ypos, gaps, color=["tab:green" if g <= TOL else "tab:orange" if g <= 1e-2 else "tab:red"
                                   for g in gaps])
        ax.set_xscale("log")
        ax.axvline(TOL, color="k", ls="--", lw=0.8)
        ax.set_xlim(1e-16, 1e9)
        for yy, m in zip(ypos, names):
            if m in rows:
                r = rows[m]
                ax.text(1e-15, yy, f"gap {r['certified_gap']:.2g}, |b-b*| {r['intercept_error']:.2g}, "
                                   f"agree {100 * r['agreement']:.1f}%" + (", warned" if r["warned"] else ""),
                        va="center", fontsize=7.5)
        ax.set_yticks(ypos, names, fontsize=8)
        ax.set_xlabel("certified relative gap (P(w,b) - D)/D (dashed: tol 1e-6)")
        ax.set_title(f"breast cancer, {data} (b* = {next(iter(rows.values()))['b_star']:.3g})")
    panels[0][0].invert_yaxis()   # once: the panels share the y axis
    size = "--quick run: skglm's max_epochs capped at 1,000" if out["quick"] else "full run"
    _common.save(fig, path, dpi=110,
                 title=f"marginkit.certify on other libraries' SVMs, C = 1, free intercept ({size})")


def main(quick: bool = False, outdir: str = ".") -> dict:
    """Fit, certify and print the table; write ``certify_other_solvers.png`` to ``outdir``."""
    out = run(quick=quick)
    print(table(out["rows"]))
    return _common.write_figure(out, plot, outdir, "certify_other_solvers.png")


if __name__ == "__main__":
    _common.cli(main, __doc__, "skglm's max_epochs capped at 1,000 (seconds, not a minute, on the raw data)")
