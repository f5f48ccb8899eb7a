"""Cross-validation of the first-order plans against the certified reference (benchopt's idea: the
problem, the methods and the comparison are separate; marginkit supplies the exact optimum).

**Budgets.** Each method runs with its registry card's ``budget`` (``MethodCard.budget``: the documented cap at
which its ``tolerance`` is stated; the plan's own default when the card has none) unless the caller passes
``max_iter``. **Verdicts.** A row's ``note`` says whether the method agrees with the reference and, when it does
not, what its proven rate (``MethodCard.rate_law``) predicts at this budget:

* ``consistent with O(...): ~N iterations to <tol>``: the gap at the end of the run is within :data:`SLACK` of
  the rate's bound fitted on the run's earlier records (the empirical constant ``gap(t)/r(t)`` has not grown),
  and ``N`` extrapolates that bound to the documented tolerance: the method is slow by its theory, not wrong;
* ``slower than its proven O(...)``: the empirical constant grew by more than :data:`SLACK` -- a disagreement
  the rate does not explain;
* ``disagrees``: no proven rate to compare with, or a status (``solver_error``, ``infeasible``) that no budget
  explains.
"""
from __future__ import annotations

import math
from contextlib import nullcontext
from fractions import Fraction

import numpy as np

from ..core.params import Boolean, InstanceOf, Interval, IsCallable, ListOf, check_values
from ..core.validation import ProblemError
from ..engine.assemble import contradiction, reference_gaps
from ..engine.choice import describe_choice as auto_choice
from ..engine.graph import method_spec, methods as _methods
from .bounds import bound_columns
from .report import Report

GAP_METRICS = ("margin_gap", "objective_gap")
SLACK = 3.0     # how much the empirical rate constant gap(t)/r(t) may grow over the last decade of a run


def _relative_gaps(problem, res, ref) -> dict:
    """The row's relative gaps: :func:`~marginkit.engine.assemble.reference_gaps` (the trace's definition), strict
    (an undefined value, margin or direction is NaN), on the user's problem; all NaN against a reference that is
    not certified optimal."""
    out = {"objective_gap": np.nan, "margin_gap": np.nan, "angle_gap": np.nan}
    if ref.status not in ("optimal", "optimal_inaccurate"):
        return out
    gaps = reference_gaps(ref, value=res.value, margin=res.margin, w=res.w, sense=problem.sense, strict=True)
    return {key: float(gaps.get(key, np.nan)) for key in out}


# rates as data ------------------------------------------------------------------------------------------------
def rate_label(law: tuple) -> str:
    """``("power", 2)`` -> ``O(1/t^2)``, ``("power", 1/6)`` -> ``O(t^-1/6)``, ``("log", 1)`` -> ``O(1/log t)``."""
    if not law:
        return ""
    kind = law[0]
    if kind == "linear":
        return "a linear rate"
    p = Fraction(float(law[1])).limit_denominator(24)
    if kind == "log":
        return "O(1/log t)" if p == 1 else f"O(1/log^{p} t)"
    if p == 1:
        return "O(1/t)"
    if p == Fraction(1, 2):
        return "O(1/√t)"
    return f"O(1/t^{p})" if p.denominator == 1 else f"O(t^-{p})"


def rate_bound(law: tuple, t: np.ndarray) -> np.ndarray:
    """The shape ``r(t)`` of the proven bound ``gap(t) <= C r(t)`` (``t >= 2``); None for a linear rate."""
    t = np.asarray(t, dtype=float)
    if law[0] == "power":
        return t ** (-float(law[1]))
    if law[0] == "log":
        return np.log(t) ** (-float(law[1]))
    return None


def iterations_to(law: tuple, t_end: float, gap: float, tol: float, history=None) -> float:
    """Iterations the rate predicts to bring ``gap`` (at ``t_end``) down to ``tol``, the bound's constant fitted
    through the last point; for a linear rate, the factor per iteration is measured from ``history = (t0, g0)``
    (inf when it did not shrink)."""
    if gap <= tol:
        return float(t_end)
    if law[0] == "power":
        return t_end * (gap / tol) ** (1.0 / float(law[1]))
    if law[0] == "log":   # C / log^p t: log t_tol = log t_end (gap/tol)^(1/p)
        return math.exp(min(700.0, math.log(t_end) * (gap / tol) ** (1.0 / float(law[1]))))
    if history is None:
        return math.inf
    t0, g0 = history
    if not (t_end > t0 and 0 < gap < g0):
        return math.inf
    per_step = math.log(gap / g0) / (t_end - t0)
    return t_end + math.log(tol / gap) / per_step


def _gap_history(res, metric: str):
    """``(iteration, gap)`` of the agreement metric from the trace (any constant multiple of the relative gap
    serves: only ratios are used), or None."""
    tr = getattr(res, "trace", None)
    try:
        if tr is None or metric not in tr:
            return None
        it, g = tr["iteration"], tr[metric]
    except (KeyError, AttributeError):
        return None
    ok = np.isfinite(g) & (it >= 2)
    return (it[ok], g[ok]) if ok.any() else None


def verdict(law: tuple, res, metric: str, gap: float, tol: float, agrees: bool,
            observed: bool = False) -> tuple[str, float]:
    """``(note, predicted iterations to tol)`` for one row (see the module docstring); ``observed``: ``law`` is the
    card's ``observed_rate``, seen in experiments but not proven, and the note says so."""
    if agrees:
        return "agrees", float(res.iterations)
    if res.status in ("solver_error", "infeasible", "infeasible_inaccurate", "unbounded") or not np.isfinite(gap):
        return f"disagrees ({res.status})", math.nan
    if not law:
        return "disagrees (no proven rate to compare)", math.nan
    label, t_end = ("observed " if observed else "") + rate_label(law), float(max(res.iterations, 2))
    hist = _gap_history(res, metric)
    consistent, earlier = True, None
    if hist is not None:
        it, g = hist
        last = g[-1]
        window = (it >= t_end / 100) & (it <= t_end / 10)
        if window.any() and last > 0:
            if law[0] == "linear":
                earlier = (float(it[window][-1]), float(g[window][-1]))
            else:
                r = rate_bound(law, np.concatenate([it[window], [it[-1]]]))
                constant = np.max(g[window] / r[:-1])
                consistent = bool(last / r[-1] <= SLACK * constant) if constant > 0 else True
    if law[0] == "linear" and earlier is None:
        return f"disagrees (no decay measured for {label})", math.nan
    n_tol = iterations_to(law, t_end, gap, tol, earlier)
    if not consistent:
        return f"slower than its {'' if observed else 'proven '}{label}", n_tol
    if not math.isfinite(n_tol):
        return f"disagrees (no decay at {label})", n_tol
    return f"consistent with {label}: ~{n_tol:.0e} it. to {tol:g}", n_tol


def _blas_limit(threads):
    """``threadpoolctl``'s limit on BLAS/OpenMP threads for the run (scikit-learn's dependency, so present)."""
    if threads is None:
        return nullcontext()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:   # pragma: no cover - threadpoolctl ships with scikit-learn
        return nullcontext()
    return threadpool_limits(limits=int(threads))


#: the declared arguments of :func:`cross_validate` (:mod:`marginkit.core.params`, the format of a plan's ``Config``)
CROSS_VALIDATE_CONSTRAINTS = {
    "methods": [None, InstanceOf(str, name="a method name"), ListOf(str, name="a list of method names")],
    "progress": [None, IsCallable()],
    "method_options": [None, InstanceOf(dict, name="a dict of method -> options")],
    "blas_threads": [None, Interval(int, 1, None)],
    "bounds": [Boolean()],
}


def cross_validate(problem, methods=None, method_options: dict | None = None, solver: str | None = None,
                   progress=None, blas_threads: int | None = 1, bounds: bool = True, **options) -> Report:
    """Run each method (default: every method listed for ``problem``) and the certified reference on the
    same problem. ``options`` (e.g. ``max_iter``, ``seed``) go to every first-order method;
    ``method_options={"diagonal": {...}}`` to one. Without ``max_iter`` each method runs with its card's
    documented budget (:class:`~marginkit.engine.registry.MethodCard` ``budget``). ``progress(done, total, row)``,
    if given, is called as each row finishes (the command line prints it, so a long comparison is never silent).
    ``blas_threads`` caps the BLAS threads during the run (1 by default: the products are small, and threads of
    several methods' BLAS calls only compete on a shared machine; ``None`` leaves them alone).

    Each row has ``method``, ``status``, ``iterations``, ``budget``, ``time``, the relative ``objective_gap``,
    ``margin_gap``, ``angle_gap``, the documented ``tolerance``, ``agrees``, the proven ``rate``, the iterations it
    predicts to reach the tolerance (``predicted_iterations``) and the ``note`` (module docstring). With ``bounds``
    (default) each row also has the method's proven bound evaluated with the certified constants (``bound``) and
    whether the run stayed within it (``within_bound``: True/False, or None when the method has no explicit bound
    or its hypotheses do not hold; :func:`marginkit.bounds.check` says why)."""
    check_values("cross_validate", dict(methods=methods, progress=progress, method_options=method_options,
                                        blas_threads=blas_threads, bounds=bounds), CROSS_VALIDATE_CONSTRAINTS)
    available = _methods(problem)
    if methods is None:
        methods = [m for m in available if not method_spec(problem, m).is_reference]
    elif isinstance(methods, str):
        methods = [methods]          # one method name, not its characters
    for m in methods:
        if m not in available:
            raise ProblemError(f"method {m!r} does not apply to {problem!r}; available: {', '.join(available)}")
    method_options = method_options or {}
    with _blas_limit(blas_threads):
        return _run(problem, methods, method_options, solver, progress, options, bool(bounds))


def _run(problem, methods, method_options, solver, progress, options, with_bounds=True) -> Report:
    ref = problem.reference(solver=solver)
    rep = Report(problem=problem, reference=ref, choice=auto_choice(problem))
    methods = [m for m in methods if not method_spec(problem, m).is_reference]   # its row comes first, once
    rep.rows.append({"method": ref.method, "status": ref.status, "iterations": ref.iterations, "budget": None,
                     "time": ref.time, "objective_gap": 0.0, "margin_gap": 0.0, "angle_gap": 0.0, "tolerance": 1e-6,
                     "agrees": ref.status in ("optimal", "infeasible"), "rate": "", "predicted_iterations": np.nan,
                     "note": "reference", **({"bound": None, "within_bound": None} if with_bounds else {})})
    rep.results[ref.method] = ref
    total = 1 + len(methods)
    if progress is not None:
        progress(1, total, rep.rows[-1])
    metric = problem.agreement_metric
    for m in methods:
        card = method_spec(problem, m)
        opts = {**options, **method_options.get(m, {})}
        if "max_iter" not in opts and card.budget is not None:
            opts["max_iter"] = card.budget
        res = problem.solve(m, **opts)
        gaps = _relative_gaps(problem, res, ref)
        tol = card.tolerance
        why = res.info.get("contradiction") or contradiction(problem, res, ref)
        agrees = problem.agrees(gaps, res, ref, tol) and why is None
        law = card.rate_law or card.observed_rate
        note, predicted = verdict(law, res, metric, gaps.get(metric, np.nan), tol, agrees,
                                  observed=not card.rate_law and bool(card.observed_rate))
        if why is not None:
            note = f"contradicts the reference: {why}"
        rep.rows.append({"method": m, "status": res.status, "iterations": res.iterations,
                         "budget": opts.get("max_iter"), "time": res.time, **gaps, "tolerance": tol,
                         "agrees": agrees, "rate": rate_label(card.rate_law), "predicted_iterations": predicted,
                         "note": note})
        if with_bounds:
            rep.rows[-1].update(bound_columns(problem, res, **opts))
        rep.results[m] = res
        if progress is not None:
            progress(len(rep.rows), total, rep.rows[-1])
    return rep
