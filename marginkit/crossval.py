"""Cross-validation of the first-order plans against the certified reference (benchopt's idea: the
problem, the methods and the comparison are separate; marginkit supplies the exact optimum)."""
from __future__ import annotations

import numpy as np

from .core.validation import ProblemError
from .engine.graph import method_spec, methods as _methods
from .report import Report

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
