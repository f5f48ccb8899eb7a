"""Issue 38, part 6: the held-out sweep stays clean.

The run options no paper's experiment uses (``tol=0``, ``max_iter=1`` and ``0``, a ``time_limit`` below one
iteration, ``check_every`` above ``max_iter``) and ``solve("auto")``, on every method ``marginkit.methods(problem)``
lists (and ``auto``) and every problem form. Checked: no exception but a ``ProblemError`` naming an option given, and
no status claiming more than its certificate proves (CONTRACT "Statuses"): an ``optimal`` result has
``certificate["relative_gap"] <= tol`` and its margin or objective within ``tol`` of the CVXPY reference's;
``infeasible`` only where the reference finds no separator, ``infeasible_inaccurate`` only where its margin is at
most ``tol·R``; no certified bound on the wrong side of the reference's optimum; no non-finite iterate under a status
other than ``solver_error``; never more iterations than ``max_iter``; a ``time_limit`` shorter than the set-up ends at
iteration 0 with ``user_limit``.

The default run checks a deterministic grid (seeded instances, one case per form x method x options); ``-m slow``
draws ``MARGINKIT_SWEEP_CASES`` (default 1,000) random (form, instance, method, options) cases. Every failure names
the form, the instance (seed, size, scale, ...), the method and the options: ``build(form, **instance).solve(method,
**options)`` reproduces it.
"""
from __future__ import annotations

import functools
import math
import os
import subprocess
import sys
import traceback
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import marginkit as mk
from marginkit import Ball, Box, HalfSpace
from marginkit.core.result import STATUSES
from marginkit.engine.solve import compile_method

# ---------------------------------------------------------------------------------------------------------- instances
FORMS = ("max-margin", "max-margin-noisy", "max-margin-bias", "max-margin-kernel", "min-norm-p2", "min-norm-p1.5",
         "min-norm-p3", "min-norm-interpolation", "svm", "svm-bias", "svm-kernel", "svm-weights", "perturbed",
         "ellipsoids", "ellipsoids-overlapping", "intersection")


@functools.lru_cache(maxsize=256)
def build(form: str, seed: int = 0, n: int = 24, d: int = 4, separable: bool = True, scale: float = 1.0,
          sparse: bool = False):
    """One small seeded instance of ``form`` (cached: its reference is computed once). ``separable=False`` flips some
    labels (margin forms) or moves the ellipsoids together (ellipsoids); ``scale`` multiplies the data (``tol`` is
    relative: the statuses hold at every scale); ``sparse`` gives a linear problem's X as CSR."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    X[0], X[1] = w, -w     # two classes, whatever the draw, still separable through 0
    ys = np.where(X @ w > 0, 1.0, -1.0)
    yn = ys.copy()
    yn[2:][rng.random(n - 2) < 0.15] *= -1.0
    y = ys if separable else yn
    X = X * scale
    if form == "max-margin-bias":
        X[:, 0] += 2.0
    if sparse and "kernel" not in form and form.startswith(("max-margin", "min-norm-p", "svm")):
        X = sp.csr_matrix(X)
    if form == "max-margin":
        return mk.MaxMargin(X, y)
    if form == "max-margin-noisy":
        return mk.MaxMargin(X, yn if not np.array_equal(yn, ys) else np.r_[-ys[:1], ys[1:]])
    if form == "max-margin-bias":
        return mk.MaxMargin(X, y, bias=True)
    if form == "max-margin-kernel":
        return mk.MaxMargin(X, y, kernel="rbf")
    if form.startswith("min-norm-p"):
        return mk.MinNormFeasibility(X, y, p=float(form[len("min-norm-p"):]))
    if form == "min-norm-interpolation":   # fewer equations than unknowns: x_i'w = y_i is solvable
        k = max(3, n // 3)
        return mk.MinNormFeasibility(scale * rng.standard_normal((k, k + d)), rng.standard_normal(k),
                                     constraint="interpolation")
    if form == "svm":
        return mk.SoftMarginSVM(X, yn, bias=False)
    if form == "svm-bias":
        return mk.SoftMarginSVM(X, yn)
    if form == "svm-kernel":
        return mk.SoftMarginSVM(X, yn, kernel="rbf")
    if form == "svm-weights":
        return mk.SoftMarginSVM(X, yn, bias=bool(seed % 2 == 0), sample_weight=rng.uniform(0.1, 3.0, size=n))
    if form == "perturbed":
        return mk.PerturbedSVMDual(X, yn)
    if form.startswith("ellipsoids"):
        shift = 3.0 if separable and form == "ellipsoids" else 0.2
        return mk.EllipsoidSeparation(scale * rng.normal(size=(3, d)) * 0.5, scale * rng.normal(size=(3, d, d)) * 0.25,
                                      scale * (rng.normal(size=(4, d)) * 0.5 + shift * np.eye(d)[0]),
                                      scale * rng.normal(size=(4, d, d)) * 0.25)
    if form == "intersection":
        sets = [HalfSpace(rng.standard_normal(d), 0.3) for _ in range(3)] + [Ball(np.zeros(d), 1.5),
                                                                             Box(-np.ones(d), np.full(d, np.inf))]
        return mk.ProjectionOntoIntersection(3 * rng.standard_normal(d), sets)   # (unscaled: sets of their own)
    raise KeyError(form)


def methods_of(problem) -> list[str]:
    return list(mk.methods(problem)) + ["auto"]


REF_TIME = 60.0   # the reference under a budget: problem.reference() has none, and can hang (see REFERENCE_HANG)


@functools.lru_cache(maxsize=256)
def reference_of(problem):
    """The CVXPY reference of ``problem`` (the same certified solve as ``problem.reference()``, with a time limit)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return problem.solve("cvxpy", time_limit=REF_TIME)


# ----------------------------------------------------------------------------------------------------------- options
TINY_TIME = 1e-6   # below one iteration and below any set-up
GRID_OPTIONS = {
    "tol=0": {"tol": 0, "max_iter": 7},
    "max_iter=1": {"max_iter": 1},
    "max_iter=0": {"max_iter": 0},
    "time_limit=1e-6": {"time_limit": TINY_TIME},
    "check_every>max_iter": {"max_iter": 6, "check_every": 9},
    "check_every>max_iter,tol=0.1": {"max_iter": 40, "check_every": 41, "tol": 0.1},   # checked at 0 and 40 only
    "tol=0,max_iter=1,check_every=3": {"tol": 0, "max_iter": 1, "check_every": 3},
    "tol=1e-3": {"tol": 1e-3, "max_iter": 3000},
}


def repro(form, inst: dict, method, opts) -> str:
    """The call that reproduces a case: ``build(form, **inst).solve(method, **opts)``."""
    args = "".join(f", {k}={v!r}" for k, v in inst.items())
    return f"build({form!r}{args}).solve({method!r}, **{opts!r})"


# ------------------------------------------------------------------------------------------------------------ checks
def _resolved_tol(problem, method, opts, res) -> float:
    """The ``tol`` the run certified against: the one given, else the default of the method that produced ``res``
    (auto's runs use each method's own default)."""
    if opts.get("tol") is not None:
        return float(opts["tol"])
    name = res.method if method == "auto" else method
    compiled = compile_method(problem, name)
    tol = getattr(compiled, "certify_tol", None)   # the reference
    return float(compiled.default_tol if tol is None else tol)


def _ref_slack(ref) -> float:
    """How far the reference itself may be from the exact optimum (its own certified relative gap), plus rounding."""
    g = (ref.certificate or {}).get("relative_gap", 0.0)
    return 1e-9 + (abs(float(g)) if g is not None and np.isfinite(g) else 0.0)   # (a gap below 0 is rounding too)


def _true_gap(problem, res, ref) -> float:
    """The relative gap of ``res`` against the reference's optimum (tests/test_relative_status.py's measure)."""
    if problem.form == "MaxMargin":
        return (ref.margin - res.margin) / ref.margin
    scale = max(abs(ref.value), 1e-12)
    if problem.form == "PerturbedSVMDual":   # a maximisation
        return (ref.value - res.value) / scale
    return (res.value - ref.value) / scale


def _finite_or_none(v) -> bool:
    return v is None or bool(np.all(np.isfinite(np.asarray(v, dtype=float))))


def audit(problem, method, opts, res, ref) -> list[str]:
    """What ``res`` claims beyond its certificate or its options (empty: nothing)."""
    bad = []
    if res.status not in STATUSES:
        return [f"status {res.status!r} is not one of the contract's"]
    cert = res.certificate or {}
    if res.status != "solver_error":
        for what, v in (("w", res.w), ("dual_coef", getattr(res, "dual_coef", None))):
            if not _finite_or_none(v):
                bad.append(f"non-finite {what} under status {res.status!r}")
        if res.b is not None and res.w is not None and not np.isfinite(res.b):
            bad.append(f"non-finite offset b={res.b} under status {res.status!r}")
    max_iter = opts.get("max_iter")
    if max_iter is not None and res.iterations > max_iter:
        bad.append(f"{res.iterations} iterations > max_iter={max_iter}")
    if method == "auto" and "runs" in (res.info.get("chosen") or {}):
        total = sum(r["iterations"] for r in res.info["chosen"]["runs"])
        if total != res.iterations:
            bad.append(f"auto: iterations {res.iterations} != the sum {total} of its runs")
    if opts.get("time_limit") is not None and opts["time_limit"] <= TINY_TIME:
        if res.status != "user_limit" or res.iterations != 0:
            bad.append(f"time_limit={opts['time_limit']}: {res.status} after {res.iterations} iterations (expected "
                       "user_limit at iteration 0)")
    tol = _resolved_tol(problem, method, opts, res)
    gap = cert.get("relative_gap")
    if res.status == "optimal" and gap is not None and not (float(gap) <= tol):
        bad.append(f"optimal with certificate relative_gap={gap!r} > tol={tol!r}")
    bad += _against_reference(problem, res, ref, tol)
    if bad:
        bad += _notes(problem, res)
    return bad


def _notes(problem, res) -> list[str]:
    """What the certificate rests on, where a known cause shows (read by :func:`known_issue`)."""
    notes, cert = [], res.certificate or {}
    a = (res.dual or {}).get("a") if isinstance(res.dual, dict) else None
    if problem.form == "SoftMarginSVM" and problem.bias is True and a is not None:
        a = np.asarray(a, dtype=float)
        off = abs(float(problem.y @ a)) / max(float(np.abs(a).sum()), np.finfo(float).tiny)
        if off > 1e-9:
            notes.append(f"note: its dual point is off y'a = 0 by {off:.2g} of sum |a| (the dual value is no bound)")
    if res.method == "cvxpy" and problem.form not in ("MaxMargin", "PerturbedSVMDual") and "dual" in cert and \
            np.ndim(cert.get("dual")) == 0 and np.ndim(cert.get("primal")) == 0:   # a minimisation: D <= P* <= P
        bound = min(abs(float(cert["primal"])), abs(float(cert["dual"])))
        over = abs(float(cert["primal"]) - float(cert["dual"])) / max(bound, np.finfo(float).tiny)
        if over > float(cert.get("relative_gap", np.inf)) * (1 + 1e-9):
            notes.append(f"note: its relative_gap {cert['relative_gap']:.3g} is {over:.3g} over the certified bound "
                         f"{bound:.3g}" + (" (gap_scale=1.0)" if cert.get("gap_scale") == 1.0 else ""))
    return notes


def _against_reference(problem, res, ref, tol) -> list[str]:
    """The claims of ``res`` checked against the CVXPY reference ``ref`` (when it is conclusive)."""
    bad, form, cert = [], problem.form, res.certificate or {}
    if ref.status == "infeasible":
        if res.status == "optimal":
            bad.append("optimal where the reference proves infeasibility")
        if form == "MaxMargin" and np.isfinite(res.margin) and res.margin > 1e-6 * max(1.0, _radius(problem)):
            bad.append(f"a positive margin {res.margin:.3g} on data the reference proves inseparable")
        return bad
    if ref.status != "optimal":
        return bad   # nothing exact to compare with
    slack = _ref_slack(ref)
    if res.status == "infeasible":
        bad.append("infeasible where the reference finds an optimum")
    if res.status == "infeasible_inaccurate":   # "no separator with margin above tol·R exists"
        if form in ("SoftMarginSVM", "PerturbedSVMDual"):
            bad.append("infeasible_inaccurate on a problem that is always feasible")
        elif _plain_margin(problem) and ref.margin > tol * _radius(problem) * (1 + 1e-6) + 1e-12:
            bad.append(f"infeasible_inaccurate at tol={tol:g}, but the reference separates with margin "
                       f"{ref.margin:.3g} > tol·R = {tol * _radius(problem):.3g}")
    if res.status == "optimal":
        true = _true_gap(problem, res, ref)
        if not (true <= tol + slack):
            bad.append(f"optimal at tol={tol:g} but {true:.3g} from the reference's optimum (relative)")
    if form == "MaxMargin":
        if np.isfinite(res.margin) and res.margin > ref.margin * (1 + 1e-6) + 1e-12:
            bad.append(f"margin {res.margin!r} above the reference's optimum {ref.margin!r}")
        for key in ("margin_upper", "margin_upper_bound"):
            up = cert.get(key)
            if up is not None and np.isfinite(up) and up < ref.margin * (1 - 1e-6) - 1e-12:
                bad.append(f"certificate {key}={up!r} below the reference's margin {ref.margin!r}")
    elif form == "SoftMarginSVM":
        scale = 1e-6 * max(1.0, abs(ref.value))
        if res.value is not None and np.isfinite(res.value) and res.value < ref.value - scale:
            bad.append(f"objective {res.value!r} below the reference's optimum {ref.value!r}")
        low = cert.get("dual")
        if res.method != "cvxpy" and low is not None and np.ndim(low) == 0 and np.isfinite(low) and \
                low > ref.value + scale:
            bad.append(f"certified lower bound dual={low!r} above the reference's optimum {ref.value!r}")
    elif form == "PerturbedSVMDual":   # a maximisation: the value below, the dual bound above
        scale = 1e-6 * max(1.0, abs(ref.value))
        if res.value is not None and np.isfinite(res.value) and res.value > ref.value + scale:
            bad.append(f"objective {res.value!r} above the reference's optimum {ref.value!r}")
        up = cert.get("dual")
        if res.method != "cvxpy" and up is not None and np.ndim(up) == 0 and np.isfinite(up) and \
                up < ref.value - scale:
            bad.append(f"certified upper bound dual={up!r} below the reference's optimum {ref.value!r}")
    elif form == "EllipsoidSeparation" and res.status in ("optimal", "optimal_inaccurate") and res.w is not None:
        if not res.info.get("separates_all", False):
            bad.append(f"{res.status} with a hyperplane that does not separate every ellipsoid")
    return bad


def _plain_margin(problem) -> bool:
    """Whether ``Result.margin`` is the l2 margin of linear data through the origin or with a free offset (where
    ``infeasible_inaccurate``'s bound ``tol·R`` reads directly)."""
    if problem.form == "MaxMargin":
        return getattr(problem, "kernel", None) in (None, "linear")
    return problem.form == "MinNormFeasibility" and problem.p == 2 and problem.constraint == "margin" and \
        getattr(problem, "w0", None) is None


def _radius(problem) -> float:
    try:
        return float(np.max(problem.row_norms()))
    except (AttributeError, TypeError, ValueError):
        return 1.0


def run_case(form, inst: dict, method, opts) -> str | None:
    """``None`` when the case is clean, else what is wrong, with the call that reproduces it."""
    where = repro(form, inst, method, opts)
    problem = build(form, **inst)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = problem.solve(method, **opts)
    except mk.ProblemError as exc:
        if not opts or not any(name in str(exc) for name in opts):
            return f"{where}: ProblemError naming none of the options given: {exc}"
        return None
    except Exception as exc:   # noqa: BLE001 -- the contract: nothing but ProblemError escapes
        tb = traceback.extract_tb(exc.__traceback__)[-1]
        return (f"{where}: raised {type(exc).__name__}: {str(exc)[:300]} (at {tb.filename}:{tb.lineno} in "
                f"{tb.name})")
    try:
        bad = audit(problem, method, opts, res, reference_of(problem))
    except Exception as exc:   # noqa: BLE001 -- a crash in a Result's own fields is a finding too
        tb = traceback.extract_tb(exc.__traceback__)[-1]
        return f"{where}: checking the result raised {type(exc).__name__}: {exc} (at {tb.filename}:{tb.lineno})"
    if bad:
        return f"{where} -> {res.method}: status {res.status!r} after {res.iterations} iterations: " + "; ".join(bad)
    return None


# ------------------------------------------------------------------------------------------------ the grid (default)
# Cases known to fail, with where the fix belongs (strict: they must keep failing until fixed, then be removed here).
ESP_EARLY_STOP = (
    "EllipsoidSeparation, stop='early' (the default of fista and pdhg, and so of auto): test (28) certifies a "
    "separating hyperplane and the plan reports 'optimal' whatever its certificate's relative_gap (here 1.9 to 9.1 "
    "against tol 1e-6 to 0.1; the objective 12% to 8.4x above the reference's). CONTRACT 'Statuses': 'optimal' proves "
    "relative_gap <= tol, and an HV early stop is 'optimal_inaccurate'. Fix in marginkit/plans/hough_vavasis/esp.py, "
    "ESPFista.stop and ESPPdhg.stop (return 'optimal' only when (f - lb)/lb <= tol, else 'optimal_inaccurate'), "
    "or say in the contract that the ESP's 'optimal' is test (28)'s proof of separation")
FISTA_KNAPSACK = (
    "SoftMarginSVM with an offset, fista, data far from unit scale: the knapsack projection leaves y'a != 0 (7.6e-14 "
    "against entries of 6e-13 at X*1e6: _root_warm accepts |h - target| <= WARM_RTOL*(target + C), absolute in C; "
    "3e-5 at X*1e-6, where z ~ 1/L ~ 1e12 and h loses every digit below 1e-4), so g(a) is no lower bound: the duality "
    "gap is negative and 'optimal' is reported at any tol, 0 included, 4.6% above the optimum. Fix in "
    "marginkit/plans/hough_vavasis/svm_dual.py SVMDualFista.values/relative_of (certify with a feasible dual point, "
    "e.g. repaired as raj_bach/svm_bias.repair_equality does, or never from a negative gap) and "
    "marginkit/operators/projections.py _root_warm (a tolerance relative to the entries of the projection)")
REFERENCE_GAP = (
    "The CVXPY reference's relative_gap (marginkit/reference/base.py relative_gap) is |P - D|/max(|P|, |D|, "
    "gap_scale): for a minimisation that is the gap over the primal value, not over the certified bound D, so "
    "'optimal' at tol t proves only t/(1 - t) (MinNormFeasibility p=3, 2 points, tol=0.5: 0.579 above the optimum); "
    "and the certificates of ProjectionOntoIntersection (marginkit/reference/intersection.py, extract) and "
    "EllipsoidSeparation (marginkit/reference/conic.py, EllipsoidSeparationReference.extract: normalised data, but "
    "optima of 0.01) set gap_scale=1.0, an absolute gap wherever the value is below 1: 'optimal' at tol=1e-3 comes "
    "2.2e-3 (relative) above the optimum at the value 0.016, 8e5 at the value 8e-7 (the optimum 0); the ellipsoids "
    "at tol=1e-6, 5.7e-6 above it at the value 0.011. CONTRACT 'Statuses': the gap over a certified bound "
    "on the optimal value, the same at every scale. Fix there: divide by the certified bound (D for a minimisation), "
    "no fixed gap_scale where the data have no fixed normalisation")
REFERENCE_HANG = (
    "MaxMargin(X, y, bias=True).reference() never returns on 4 points x = (2, 0, 0) + 1e-8 noise (build("
    "'max-margin-bias', seed=657091, n=4, d=3, separable=False, scale=1e-8), dense or sparse): Clarabel, ECOS, SCS "
    "and OSQP answer infeasible_inaccurate in 0.1 s, then the fallback runs HiGHS without a time limit and its QP "
    "loops in MatrixBase::mat_vec_seq (solve('cvxpy', solver='HIGHS') alone hangs too; with time_limit=5 the NNLS "
    "hull proof ends it in 0.9 s). Fix in marginkit/reference/base.py (result's fallback loop: the NNLS hull proof "
    "before the last fallbacks, or every fallback under a time limit) or marginkit/reference/solvers.py "
    "(SOLVER_ORDER / budget options: a default iteration or time limit for HiGHS)")
KNOWN = {("ellipsoids", m, o): ESP_EARLY_STOP for m, o in (
    ("fista", "check_every>max_iter"), ("fista", "check_every>max_iter,tol=0.1"), ("fista", "tol=1e-3"),
    ("pdhg", "check_every>max_iter"), ("pdhg", "tol=1e-3"),
    ("auto", "check_every>max_iter"), ("auto", "check_every>max_iter,tol=0.1"), ("auto", "tol=1e-3"))}
_OPTIMAL_CLAIMS = ("optimal with certificate relative_gap", "optimal at tol=")


def known_issue(form: str, failure: str) -> str | None:
    """The known issue a failure of the random sweep is (every complaint of it one that the issue explains, and the
    note that shows its cause), else None."""
    if " -> " not in failure or " iterations: " not in failure:
        return None   # an exception: never known
    method = failure.split(" -> ", 1)[1].split(":", 1)[0]
    said = failure.split(" iterations: ", 1)[1].split("; ")
    notes = [c for c in said if c.startswith("note: ")]
    complaints = [c for c in said if not c.startswith("note: ")]
    if form.startswith("ellipsoids") and method in ("fista", "pdhg") and " status 'optimal' " in failure and \
            all(c.startswith(_OPTIMAL_CLAIMS) for c in complaints):
        return ESP_EARLY_STOP
    if form.startswith("svm") and method == "fista" and any("off y'a = 0" in c for c in notes) and \
            all(c.startswith(_OPTIMAL_CLAIMS + ("certified lower bound dual=",)) for c in complaints):
        return FISTA_KNAPSACK
    if method == "cvxpy" and any("over the certified bound" in c for c in notes) and \
            all(c.startswith("optimal at tol=") for c in complaints):
        return REFERENCE_GAP
    return None


def _grid():
    cases = []
    for form in FORMS:
        for method in methods_of(build(form)):
            for name, opts in GRID_OPTIONS.items():
                reason = KNOWN.get((form, method, name))
                marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                cases.append(pytest.param(form, method, name, marks=marks, id=f"{form}-{method}-{name}"))
    return cases


@pytest.mark.parametrize("form,method,options", _grid())
def test_held_out_options_on_every_method_and_form(form, method, options):
    problem = build(form)
    assert reference_of(problem).status in ("optimal", "infeasible"), (form, reference_of(problem).status)
    failure = run_case(form, {"seed": 0}, method, GRID_OPTIONS[options])
    assert failure is None, failure


def test_the_grid_covers_every_form_method_and_option():
    grid = _grid()
    assert {p.values[0] for p in grid} == set(FORMS)
    assert {p.values[2] for p in grid} == set(GRID_OPTIONS)
    assert all(any(p.values[:2] == (f, m) for p in grid) for f in FORMS for m in methods_of(build(f)))
    # the inseparable cases are what they say
    assert reference_of(build("max-margin-noisy")).status == reference_of(build("ellipsoids-overlapping")).status \
        == "infeasible"


# the random sweep's findings outside the grid, one reproducer each (strict: remove the mark once fixed)
@pytest.mark.parametrize("scale,opts", [
    (1e6, {"tol": 0.0, "check_every": 2, "max_iter": 2000}), (1e6, {}),   # fixed: no certificate from a negative gap
    pytest.param(1e-6, {"max_iter": 1}, marks=pytest.mark.xfail(strict=True, reason=FISTA_KNAPSACK))])
def test_fista_with_an_offset_certifies_with_a_feasible_dual_point_at_every_scale(scale, opts):
    inst = dict(seed=610261, n=4, d=1) if scale > 1 else dict(seed=694629, n=8, d=4)
    failure = run_case("svm-bias", {**inst, "scale": scale}, "fista", opts)
    assert failure is None, failure


@pytest.mark.xfail(strict=True, reason=REFERENCE_GAP)
@pytest.mark.parametrize("case", [("intersection", 784884, 11, 2, True, {"tol": 1e-3}),
                                  ("intersection", 504738, 23, 2, True, {"tol": 1e-3, "max_iter": 17}),
                                  ("min-norm-p3", 896914, 2, 1, False, {"tol": 0.5, "max_iter": 5}),
                                  ("ellipsoids", 39970, 5, 3, False, {"tol": 1e-6, "max_iter": 200})],
                         ids=["intersection-0.016", "intersection-0", "min-norm-p3", "ellipsoids"])
def test_the_reference_certifies_the_gap_over_its_bound(case):
    form, seed, n, d, separable, opts = case
    failure = run_case(form, dict(seed=seed, n=n, d=d, separable=separable), "cvxpy", opts)
    assert failure is None, failure


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason=REFERENCE_HANG)
def test_the_reference_returns_on_a_thin_offset_problem():
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import test_reliability_sweep as T; "
            "print(T.build('max-margin-bias', seed=657091, n=4, d=3, separable=False, scale=1e-8).reference().status)")
    try:
        out = subprocess.run([sys.executable, "-c", code, os.path.dirname(__file__)], capture_output=True, text=True,
                             timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("MaxMargin(bias=True).reference() still running after 30 s")
    assert out.returncode == 0, out.stderr[-500:]


# --------------------------------------------------------------------------------------------- the random sweep (slow)
SWEEP_CASES = int(os.environ.get("MARGINKIT_SWEEP_CASES", "1000"))
SWEEP_SEED = int(os.environ.get("MARGINKIT_SWEEP_SEED", "0"))   # another draw of the same size
BATCH = 50


def draw_options(rng, method: str) -> dict:
    """Random run options, the held-out values weighted up."""
    opts = {}
    tol = rng.choice(np.array([None, 0.0, 0.0, 1e-9, 1e-6, 1e-3, 0.1, 0.5], dtype=object))
    if tol is not None:
        opts["tol"] = float(tol)
    max_iter = rng.choice(np.array([None, 0, 1, 1, 2, 5, 17, 200], dtype=object))
    if max_iter is not None:
        opts["max_iter"] = int(max_iter)
    u = rng.random()
    if u < 0.2:
        opts["time_limit"] = TINY_TIME
    elif u < 0.25:
        opts["time_limit"] = 0.01   # a few iterations, or none: any honest status
    elif u < 0.3 or method in ("cvxpy", "auto"):
        opts["time_limit"] = REF_TIME   # the reference (auto's too, on p > 2) can hang without one: REFERENCE_HANG
    if rng.random() < 0.4:
        opts["check_every"] = int((opts.get("max_iter") or 5) + rng.integers(1, 4)) if rng.random() < 0.7 \
            else int(rng.integers(2, 5))
    if rng.random() < 0.3:
        opts["seed"] = int(rng.integers(0, 1000))
    if opts.get("max_iter") is None and opts.get("time_limit") in (None, REF_TIME):
        opts["max_iter"] = 2000   # keep every case small
    return opts


def draw_case(rng):
    """A random (form, instance, method, options): sizes from 2 points, scales over the contract's [1e-8, 1e8]."""
    form = str(rng.choice(FORMS))
    inst = {"seed": int(rng.integers(0, 10**6)), "n": int(rng.integers(2, 40)), "d": int(rng.integers(1, 7))}
    if form.startswith(("ellipsoids", "intersection")):
        inst["d"] = max(inst["d"], 2)
    if rng.random() < 0.25:
        inst["separable"] = False
    if rng.random() < 0.3:
        inst["scale"] = float(10.0 ** rng.integers(-8, 9))
    if rng.random() < 0.2:
        inst["sparse"] = True
    try:
        method = str(rng.choice(methods_of(build(form, **inst))))
    except mk.ProblemError:   # a draw the constructor refuses (one class left in 2 points): draw again
        return draw_case(rng)
    return form, inst, method, draw_options(rng, method)


@pytest.mark.slow
@pytest.mark.parametrize("batch", range(math.ceil(SWEEP_CASES / BATCH)))
def test_random_held_out_sweep(batch):
    rng = np.random.default_rng([38, 6, SWEEP_SEED, batch])
    count = min(BATCH, SWEEP_CASES - batch * BATCH)
    failures, known = [], []
    for _ in range(count):
        case = draw_case(rng)
        try:
            failure = run_case(*case)
        finally:
            build.cache_clear()   # one instance per case: keep memory flat
            reference_of.cache_clear()
        if failure is not None:
            (known if known_issue(case[0], failure) else failures).append(failure)
    if known:   # reported (pytest -rP), not failed: the grid holds them as strict xfails
        print(f"{len(known)} of {count} cases hit a known issue (KNOWN):\n" + "\n".join(known))
    assert not failures, f"{len(failures)} of {count} cases:\n" + "\n".join(failures)
