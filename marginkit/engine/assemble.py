"""Turn a plan's :class:`~marginkit.runloop.Solution` into the user's :class:`~marginkit.Result`, and the trace's
metrics that compare with the certified reference (the schema: docs/TRACE.md).

Everything reported here is recomputed from the iterate and the user's data (margin, objective value),
never copied from the plan, so a status or a margin can not claim more than the iterate achieves.
"""
from __future__ import annotations

import weakref
from dataclasses import replace

import numpy as np

from ..core.errors import PlanError
from ..core.kernels import gram
from ..core.result import STATUSES, Result
from ..core.solution import Solution
from ..core.validation import ProblemError, check_matrix


def reference_gaps(ref, value=None, margin=None, w=None, sense: str = "min", strict: bool = False) -> dict:
    """The gaps of a point against a certified reference ``ref``: the one definition the trace's columns
    (:func:`fill_reference_metrics`, :func:`make_probe`) and :func:`~marginkit.cross_validate`'s table share.

    ``value`` and ``margin`` are numbers or arrays (one per trace record), ``w`` one vector; each gives:
    ``margin_gap_abs = γ* − γ`` and ``margin_gap = (γ* − γ)/γ*`` (NaN unless ``γ* > 0``);
    ``objective_gap_abs = s(f − f*)`` and ``objective_gap = s(f − f*)/|f*|`` (``s = −1`` when ``sense`` is
    ``"max"``, so a gap is positive before convergence); ``angle_gap = 1 − cos(w, w*)`` and
    ``dist_to_opt = ||w − w*||`` (NaN when ``w`` is not a vector of ``w*``'s shape). A key is present only when its
    input is given and the reference's quantity is finite (``w*`` known for the last two). ``strict`` (the table)
    reads a non-finite ``value`` or ``margin`` and a zero ``w`` as undefined (NaN); without it (the trace) the
    arithmetic is kept (an overflowing objective gives an infinite gap) and a zero iterate counts as orthogonal to
    ``w*`` (angle gap 1), so the first record of a run from ``w_0 = 0`` has a number to plot."""
    out = {}
    if margin is not None and np.isfinite(ref.margin):
        m = np.asarray(margin, float)
        gap = ref.margin - m
        if strict:
            gap = np.where(np.isfinite(m), gap, np.nan)
        out["margin_gap_abs"] = gap
        out["margin_gap"] = gap / ref.margin if ref.margin > 0 else np.full(np.shape(gap), np.nan)
    if value is not None and np.isfinite(ref.value):
        sign = -1.0 if sense == "max" else 1.0
        f = np.asarray(value, float)
        gap = sign * (f - ref.value)
        if strict:
            gap = np.where(np.isfinite(f), gap, np.nan)
        out["objective_gap_abs"] = gap
        out["objective_gap"] = gap / max(abs(ref.value), 1e-300)
    if ref.w is not None and (w is not None or strict):
        out.update(_to_reference(w, np.asarray(ref.w), strict))
    return out


def fill_reference_metrics(trace, ref, sense: str = "min") -> None:
    """Fill the gap columns of ``trace`` against a certified reference ``ref`` (docs/TRACE.md), as
    :func:`reference_gaps` defines them: ``margin_gap``/``margin_gap_abs`` from the ``margin`` column,
    ``objective_gap``/``objective_gap_abs`` from the ``objective`` column (``sense``: of the form the method ran
    on), ``angle_gap`` and ``dist_to_opt`` from the kept iterates, unless the run already recorded them. Nothing is
    filled against a reference that is not certified optimal."""
    if trace is None or len(trace) == 0 or ref is None or ref.status not in ("optimal", "optimal_inaccurate"):
        return
    cols = trace._cols
    gaps = reference_gaps(ref, value=cols.get("objective"), margin=cols.get("margin"), sense=sense)
    for key in ("margin_gap_abs", "margin_gap", "objective_gap_abs", "objective_gap"):
        if key in gaps:
            trace.set(key, gaps[key])
    if "angle_gap" in cols or not trace.keep_iterates or ref.w is None:
        return
    rows = [reference_gaps(ref, w=v) for v in trace._iterates]
    trace.set("angle_gap", [r["angle_gap"] for r in rows])
    trace.set("dist_to_opt", [r["dist_to_opt"] for r in rows])


def _to_reference(v, wstar, strict: bool = False) -> dict:
    """``angle_gap`` and ``dist_to_opt`` of one iterate (NaN when it is not a vector of ``w*``'s shape; a zero
    vector has angle gap 1, or NaN when ``strict``): the vector part of :func:`reference_gaps`."""
    if v is None or np.shape(v) != wstar.shape:
        return {"angle_gap": np.nan, "dist_to_opt": np.nan}
    v = np.asarray(v, float)
    nv, ns = float(np.linalg.norm(v)), float(np.linalg.norm(wstar))
    cos = float(v @ wstar) / (nv * ns) if nv > 0 and ns > 0 else (np.nan if strict else 0.0)
    return {"angle_gap": 1.0 - cos, "dist_to_opt": float(np.linalg.norm(v - wstar))}


def gap_filler(problem, sense: str = "min"):
    """``fill(trace) -> done`` for :meth:`~marginkit.core.result.Trace.defer`: fills the gap columns once
    ``problem``'s reference is cached (it only reads the cache, never starts a solve). The problem is held weakly:
    a trace does not keep the data alive."""
    ref_to = weakref.ref(problem)

    def fill(trace) -> bool:
        prob = ref_to()
        if prob is None:
            return True
        ref = prob.cached_reference()
        if ref is None:
            return False
        fill_reference_metrics(trace, ref, sense)
        return True
    return fill


def make_probe(problem, test_set=None):
    """``probe(snapshot) -> dict`` of the per-record metrics that need the iterate, computed by the run loop as each
    record is made (so the iterates need not be kept): ``angle_gap``/``dist_to_opt`` when the certified reference
    is already cached, ``test_error`` when ``test_set=(X_test, y_test)`` is given (checked here, before the run).
    None when there is nothing to compute."""
    parts = []
    ref = problem.cached_reference()
    if ref is not None and ref.status in ("optimal", "optimal_inaccurate") and ref.w is not None:
        wstar = np.asarray(ref.w, float)
        parts.append(lambda v: _to_reference(v, wstar))
    if test_set is not None:
        parts.append(_test_error_probe(problem, *check_test_set(problem, test_set)))
    if not parts:
        return None
    return lambda v: {k: val for part in parts for k, val in part(v).items()}


def check_test_set(problem, test_set):
    """``(X_test, y_test)`` checked against the problem's data (``ProblemError`` naming ``test_set``)."""
    try:
        Xt, yt = test_set
    except (TypeError, ValueError):
        raise ProblemError("test_set must be a pair (X_test, y_test)") from None
    Xt = check_matrix(Xt, "test_set X")
    yt = np.asarray(yt)
    X = getattr(problem, "X", None)
    if X is None:
        raise ProblemError(f"test_set applies to classification problems, not to {type(problem).__name__}")
    if yt.ndim != 1 or Xt.shape[0] != yt.shape[0] or Xt.shape[1] != X.shape[1]:
        raise ProblemError(f"test_set has shapes {Xt.shape}, {yt.shape}; expected (m, {X.shape[1]}), (m,)")
    return Xt, yt


def _test_error_probe(problem, Xt, yt):
    """Fraction of misclassified test points at one iterate: ``w`` (linear) or kernel coefficients (length n)."""
    classes = getattr(problem, "classes_", None)
    n, d = problem.X.shape
    kernel = getattr(problem, "kernel", None)
    cache = {}

    def error(v) -> dict:
        if v is None:
            return {"test_error": np.nan}
        if np.shape(v) == (d,) and kernel is None:
            f = np.asarray(Xt @ v).ravel()
        elif np.shape(v) == (n,) and kernel is not None:
            if "K" not in cache:
                cache["K"] = gram(kernel, problem.gamma, Xt, problem.X)
            f = cache["K"] @ v
        else:
            return {"test_error": np.nan}
        pred = np.where(f > 0, classes[1], classes[0]) if classes is not None else np.sign(f)
        return {"test_error": float(np.mean(pred != yt))}
    return error


_NO_POINT = ("infeasible", "infeasible_inaccurate", "solver_error")   # statuses whose w is not a classifier
_CLAIMS = ("optimal", "optimal_inaccurate")   # statuses whose certificate is a gap (infeasibility: a hull proof)
_PROOFS = ("relative_gap", "duality_gap")   # the certificate entries that prove an optimal status


def checked_solution(problem, sol, method: str, reference: bool = False):
    """``sol`` as the plan of ``method`` returned it for the user's ``problem``, held to what its form allows before a
    number of the result is computed from it; a :class:`~marginkit.core.errors.PlanError` naming the hook or the card
    field to change when it breaks the protocol (a plugin's plan, most often): not a
    :class:`~marginkit.core.solution.Solution`; ``w`` not a vector of the problem's width; a primal ``w`` without dual
    coefficients for a kernel problem (it solves the linear problem); no offset where the problem asks for a free one;
    a status outside :data:`~marginkit.core.result.STATUSES`; a NaN in the certificate of an optimal status (not for
    the certified ``reference``, whose certificate is marginkit's own). A missing offset of a problem without one is
    0."""
    if not isinstance(sol, Solution):
        raise PlanError(f"method {method!r}: solution(state, status) must return a marginkit Solution; it returned "
                        f"{type(sol).__name__}")
    if sol.status not in STATUSES:
        raise PlanError(f"method {method!r}: the solution's status must be one of {', '.join(STATUSES)}; got "
                        f"{sol.status!r}")
    w = sol.w
    if w is not None:
        shape = tuple(getattr(w, "shape", np.shape(w)))
        width = _width(problem)
        if len(shape) != 1 or (width is not None and shape[0] != width):
            want = "a 1-D vector" + ("" if width is None else f" of length {width}")
            raise PlanError(f"method {method!r}: Solution.w must be {want} (the problem's features); solution() "
                            f"returned shape {shape}")
        if getattr(problem, "kernel", None) is not None and sol.dual_coef is None:
            raise PlanError(f"method {method!r} returned a primal w without dual coefficients for a problem with "
                            f"kernel={problem.kernel!r}: its plan solved the linear problem. A kernel plan returns "
                            "Solution.dual_coef; a plan on the primal w must not name 'kernel' in its card's admits")
    offset = bool(getattr(problem, "bias", False)) and problem.form in ("MaxMargin", "SoftMarginSVM")
    if sol.b is None:
        if offset and (w is not None or sol.dual_coef is not None) and sol.status not in _NO_POINT:
            raise PlanError(f"method {method!r} returned no offset for a problem with bias={problem.bias!r}: return "
                            "Solution(w=..., b=...), or leave 'bias' out of its card's admits (the card then offers "
                            "the method on problems without an offset only)")
        sol = replace(sol, b=0.0)
    if sol.status in _CLAIMS and sol.certificate and not reference:
        bad = sorted(k for k, v in sol.certificate.items()   # the gaps an optimal status rests on
                     if k in _PROOFS and isinstance(v, (float, np.floating)) and np.isnan(v))
        if bad:
            raise PlanError(f"method {method!r} claims {sol.status!r} with NaN in its certificate ({', '.join(bad)}): "
                            "a status is only what its certificate proves; return 'user_limit' from stop() (or a "
                            "finite certificate)")
    return sol


def _width(problem) -> int | None:
    """The length of the problem's weight vector ``w`` (its number of features), None where the form has no ``X``."""
    X = getattr(problem, "X", None)
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) == 2:
        return int(shape[1])
    d = getattr(problem, "d", None)
    return int(d) if isinstance(d, (int, np.integer)) else None


ROUNDING = 1e-6   # relative: how far a point may seem better than a certified optimum by rounding alone
_UNCONSTRAINED = ("SoftMarginSVM", "LogisticRegression")   # forms whose objective no point can bring below the optimum


def contradiction(problem, res, ref) -> str | None:
    """Why ``res`` contradicts the certified reference ``ref`` of ``problem``, or None: a margin above the certified
    maximum margin, or an objective below the certified minimum of a form without constraints, each by more than
    rounding (:data:`ROUNDING`, or ten times the reference's own relative gap). Every number of ``res`` is recomputed
    from its iterate on the user's data, so such a result solved another problem (a kernel or an offset ignored) or
    the reference is wrong: either way neither may be trusted."""
    if ref is None or ref.status != "optimal" or res is ref or (res.w is None and res.dual_coef is None):
        return None
    rel = (ref.certificate or {}).get("relative_gap", 0.0)
    slack = max(ROUNDING, 10.0 * float(rel)) if np.isfinite(rel) else ROUNDING
    if problem.form == "MaxMargin":
        if np.isfinite(res.margin) and np.isfinite(ref.margin) and res.margin > ref.margin * (1.0 + slack):
            return (f"its margin {res.margin:.10g} is above the certified maximum margin {ref.margin:.10g} by "
                    f"{(res.margin - ref.margin) / ref.margin:.3g} (relative)")
    elif problem.form in _UNCONSTRAINED:
        if np.isfinite(res.value) and res.value < ref.value - slack * max(1.0, abs(ref.value)):
            return (f"its objective {res.value:.10g} is below the certified minimum {ref.value:.10g} by "
                    f"{(ref.value - res.value) / max(1.0, abs(ref.value)):.3g} (relative)")
    return None


def build_result(problem, sol, method: str, form=None, reference: bool = False) -> Result:
    """The user's :class:`~marginkit.Result`: every number from ``problem.result_fields`` (recomputed from the iterate,
    after :func:`checked_solution`); the trace's gap columns filled now if the reference is cached, else when the trace
    is read after it is (``form``: the problem the method ran on, whose objective the trace's ``objective`` column
    holds; ``reference``: the certified reference's own, which no cached reference contradicts)."""
    sol = checked_solution(problem, sol, method, reference)
    fields = dict(status=sol.status, iterations=sol.iterations, time=sol.setup_time + sol.time,
                  setup_time=sol.setup_time, solve_time=sol.time, method=method,
                  trace=sol.trace, certificate=sol.certificate, dual=sol.dual, info=dict(sol.info))
    fields.update(problem.result_fields(sol))
    res = Result(**fields)
    res._problem = problem
    if not reference and res.status != "solver_error":
        why = contradiction(problem, res, problem.cached_reference())
        if why is not None:   # better than the certified optimum: a status claims nothing then
            res.info.update(contradiction=why, message=f"method {method!r} contradicts the certified reference: "
                            f"{why}", claimed=res.status)
            res.status = "solver_error"
    if res.trace is not None and len(res.trace):
        fill = gap_filler(problem, getattr(form if form is not None else problem, "sense", "min"))
        if not fill(res.trace):
            res.trace.defer(fill)
    return res


def fill_test_error(problem, res, test_set) -> None:
    """``res.info["test_error"]``: the fraction of misclassified test points of the returned classifier (labels are
    the user's own values). The trace's ``test_error`` column is recorded during the run (:func:`make_probe`)."""
    Xt, yt = check_test_set(problem, test_set)
    res.info["test_error"] = float(np.mean(res.predict(Xt) != yt))
