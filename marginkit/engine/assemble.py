"""Turn a plan's :class:`~marginkit.runloop.Solution` into the user's :class:`~marginkit.Result`.

Everything reported here is recomputed from the iterate and the user's data (margin, objective value),
never copied from the plan, so a status or a margin can not claim more than the iterate achieves.
"""
from __future__ import annotations

import numpy as np

from ..core.result import Result


def fill_reference_metrics(problem, trace, ref) -> None:
    """Add ``margin_gap``, ``angle_gap``, ``dist_to_opt`` (and ``objective_gap``) to a trace, against a
    certified reference (used when the reference is known: ``cross_validate`` and the command line)."""
    if trace is None or len(trace) == 0 or ref is None or ref.status not in ("optimal", "optimal_inaccurate"):
        return
    if "margin" in trace and np.isfinite(ref.margin):
        trace.set("margin_gap", ref.margin - trace["margin"])
    if "objective" in trace and np.isfinite(ref.value):
        trace.set("objective_gap", (trace["objective"] - ref.value) / max(1.0, abs(ref.value)))
    its = trace.iterates
    if ref.w is None or len(its) != len(trace) or any(v is None for v in its):
        return
    wstar = np.asarray(ref.w)
    if any(np.shape(v) != wstar.shape for v in its):
        return
    ns = np.linalg.norm(wstar)
    cos = np.array([float(v @ wstar) / (np.linalg.norm(v) * ns) if np.linalg.norm(v) > 0 else 0.0
                    for v in its])
    trace.set("angle_gap", 1.0 - cos)
    trace.set("dist_to_opt", [float(np.linalg.norm(v - wstar)) for v in its])


def build_result(problem, sol, method: str) -> Result:
    fields = dict(status=sol.status, iterations=sol.iterations, time=sol.setup_time + sol.time,
                  setup_time=sol.setup_time, solve_time=sol.time, method=method,
                  trace=sol.trace, certificate=sol.certificate, dual=sol.dual, info=dict(sol.info))
    fields.update(problem.result_fields(sol))
    res = Result(**fields)
    fill_reference_metrics(problem, res.trace, problem.cached_reference())
    return res


def fill_test_error(problem, res, test_set) -> None:
    """``trace["test_error"]`` (fraction of misclassified test points at each recorded iterate) and
    ``res.info["test_error"]`` for the returned classifier. Labels are the user's own values."""
    from ..core.validation import ProblemError, check_matrix
    try:
        Xt, yt = test_set
    except (TypeError, ValueError):
        raise ProblemError("test_set must be a pair (X_test, y_test)") from None
    Xt = check_matrix(Xt, "test_set X")
    yt = np.asarray(yt)
    if Xt.shape[0] != yt.shape[0] or Xt.shape[1] != problem.X.shape[1]:
        raise ProblemError(f"test_set has shapes {Xt.shape}, {yt.shape}; expected (m, {problem.X.shape[1]}), (m,)")
    res.info["test_error"] = float(np.mean(res.predict(Xt) != yt))
    tr = res.trace
    if tr is None or len(tr.iterates) != len(tr) or any(v is None for v in tr.iterates):
        return
    classes = problem.classes_
    errs = []
    for v in tr.iterates:
        if np.shape(v) == (problem.X.shape[1],):
            f = np.asarray(Xt @ v).ravel()
        elif np.shape(v) == (problem.X.shape[0],) and getattr(problem, "kernel", None) is not None:
            from ..core.kernels import gram
            f = gram(problem.kernel, problem.gamma, Xt, problem.X) @ v
        else:
            return
        pred = np.where(f > 0, classes[1], classes[0]) if classes is not None else np.sign(f)
        errs.append(float(np.mean(pred != yt)))
    tr.set("test_error", errs)
