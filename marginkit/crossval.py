"""Cross-validation of the first-order plans against the certified reference (benchopt's idea: the
problem, the methods and the comparison are separate; marginkit supplies the exact optimum)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .core.validation import ProblemError
from .engine.graph import method_spec, methods as _methods

GAP_METRICS = ("margin_gap", "objective_gap")


def _relative_gaps(problem, res, ref) -> dict:
    out = {"objective_gap": np.nan, "margin_gap": np.nan, "angle_gap": np.nan}
    if ref.status not in ("optimal", "optimal_inaccurate"):
        return out
    if np.isfinite(ref.value) and np.isfinite(res.value):
        sign = -1.0 if problem.sense == "max" else 1.0
        out["objective_gap"] = sign * (res.value - ref.value) / max(abs(ref.value), 1e-300)
    if np.isfinite(ref.margin) and ref.margin > 0 and np.isfinite(res.margin):
        out["margin_gap"] = (ref.margin - res.margin) / ref.margin
    if res.w is not None and ref.w is not None and np.shape(res.w) == np.shape(ref.w):
        nw, ns = np.linalg.norm(res.w), np.linalg.norm(ref.w)
        if nw > 0 and ns > 0:
            out["angle_gap"] = 1.0 - float(res.w @ ref.w) / (nw * ns)
    return out


@dataclass
class Report:
    """Rows of ``cross_validate``: one per method plus the reference, with gaps relative to it."""

    problem: object
    reference: object
    rows: list = field(default_factory=list)
    results: dict = field(default_factory=dict)

    def table(self) -> str:
        cols = ["method", "status", "iterations", "time", "objective_gap", "margin_gap", "angle_gap", "tolerance", "agrees"]
        fmt = {"time": "{:.3g}s", "objective_gap": "{:.2e}", "margin_gap": "{:.2e}", "angle_gap": "{:.2e}",
               "tolerance": "{:.0e}"}
        cells = [[(fmt.get(c, "{}").format(r[c]) if isinstance(r[c], float) and np.isfinite(r[c])
                   else ("-" if isinstance(r[c], float) else str(r[c]))) for c in cols] for r in self.rows]
        widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
        line = "  ".join(c.ljust(w) for c, w in zip(cols, widths))
        out = [f"{self.problem!r}; reference: {self.reference.status}, value {self.reference.value:.10g}, "
               f"margin {self.reference.margin:.10g}", line, "-" * len(line)]
        out += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells]
        return "\n".join(out)

    def plot(self, path: str, metric: str | None = None, title: str | None = None) -> str:
        """Convergence curves (metric gap against iteration, log–log) as a PNG."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        if metric is None:
            metric = self.problem.agreement_metric
        fig, ax = plt.subplots(figsize=(8.4, 4.6))
        for name, res in self.results.items():
            tr = res.trace
            if tr is None or metric not in tr:
                continue
            it, val = tr["iteration"], np.abs(tr[metric])
            ok = (it > 0) & np.isfinite(val) & (val > 0)
            if ok.any():
                ax.loglog(it[ok], val[ok], label=name, lw=1.6)
        ax.set_xlabel("iteration t (coordinate methods: epochs of n updates)")
        ax.set_ylabel({"margin_gap": "margin gap  γ* − γ(w_t)", "objective_gap": "relative objective gap"}
                      .get(metric, metric))
        ax.set_title(title or repr(self.problem))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)
        return path


def cross_validate(problem, methods=None, method_options: dict | None = None, solver: str | None = None,
                   progress=None, **options) -> Report:
    """Run each method (default: every method listed for ``problem``) and the certified reference on the
    same problem. ``options`` (e.g. ``max_iter``, ``seed``) go to every first-order method;
    ``method_options={"diagonal": {...}}`` to one. ``progress(done, total, row)``, if given, is called as each row
    finishes (the command line prints it, so a long comparison is never silent)."""
    available = _methods(problem)
    if methods is None:
        methods = [m for m in available if m != "cvxpy"]
    elif isinstance(methods, str):
        methods = [methods]          # one method name, not its characters
    elif not isinstance(methods, (list, tuple)) or not all(isinstance(m, str) for m in methods):
        raise ProblemError(f"methods must be None, a method name or a list of names; got {methods!r}")
    if progress is not None and not callable(progress):
        raise ProblemError(f"progress must be None or callable(done, total, row); got {progress!r}")
    if method_options is not None and not isinstance(method_options, dict):
        raise ProblemError(f"method_options must be a dict of method -> options; got {method_options!r}")
    for m in methods:
        if m not in available:
            raise ProblemError(f"method {m!r} does not apply to {problem!r}; available: {', '.join(available)}")
    method_options = method_options or {}
    ref = problem.reference(solver=solver)
    rep = Report(problem=problem, reference=ref)
    rep.rows.append({"method": "cvxpy", "status": ref.status, "iterations": ref.iterations, "time": ref.time,
                     "objective_gap": 0.0, "margin_gap": 0.0, "angle_gap": 0.0, "tolerance": 1e-6,
                     "agrees": ref.status in ("optimal", "infeasible")})
    rep.results["cvxpy"] = ref
    total = 1 + sum(m != "cvxpy" for m in methods)
    if progress is not None:
        progress(1, total, rep.rows[-1])
    for m in methods:
        if m == "cvxpy":
            continue
        res = problem.solve(m, **{**options, **method_options.get(m, {})})
        gaps = _relative_gaps(problem, res, ref)
        tol = method_spec(problem, m).tolerance
        rep.rows.append({"method": m, "status": res.status, "iterations": res.iterations, "time": res.time,
                         **gaps, "tolerance": tol, "agrees": problem.agrees(gaps, res, ref, tol)})
        rep.results[m] = res
        if progress is not None:
            progress(len(rep.rows), total, rep.rows[-1])
    return rep
