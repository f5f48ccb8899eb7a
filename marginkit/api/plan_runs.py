"""``check_plan``'s obligations that run the plan (the hooks are called one by one first, :mod:`.plan_hooks`): the
loop never writes to the plan, ``iterate()`` is ``run()``, a warm start is accepted, the answer is finite over the
plan's default budget on every variant its card admits (:mod:`.plan_variants`), ``time_limit`` holds, ``optimal`` is
confirmed by the CVXPY reference (and never contradicted: better than the optimum), the trace changes nothing, and a
resumed run is the uninterrupted one. :data:`RUNS` maps each name to its title, why it matters and its check;
:mod:`marginkit.testing` registers them, in this order, after the declarations and the hooks.

A check takes the subject of ``check_plan`` (``compile``/``solve`` of its method on its problem, ``variants()``,
``on(variant, run)``, ``arrays``) and raises :class:`~.plan_hooks.Broken` with what it observed and what to change.
"""
from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable

import numpy as np

from ..core.result import STATUSES, host_copy
from ..core.validation import ProblemError
from .plan_hooks import Broken, diagnose

# the budgets of the runs the obligations make (those of tests/test_contract.py, where the contract was written)
ITERATE_STEPS, ITERATE_SEED = 4, 7
WARM_BUDGET, FINITE_BUDGET = 20, 200
FINITE_CAP, FINITE_SECONDS = 20_000, 5.0   # the finiteness run: the plan's default budget, within these caps
VARIANT_SECONDS = 0.5                      # each run on a variant (its data paths, not its speed, are the point)
CERTIFIED_BUDGET, CERTIFIED_TOL = 3000, 1e-3
ROUNDING = 1e-6                            # how far a certified answer may seem better than the reference
TRACE_BUDGET, TRACE_TOL = 2000, 1e-6
RESUME_BUDGET, RESUME_AT = 30, 11
TIME_LIMIT, TIME_SLACK, TIME_SLACK_S = 0.2, 0.2, 0.5   # solve(time_limit=0.2) returns within 0.2·1.2 + 0.5 s
TIME_BUDGET = 1_000_000                    # iterations enough for the clock to stop any run first

RUNS: dict[str, tuple[str, str, Callable]] = {}   # name -> (title, why it matters, check(subject)), in order


def _obligation(name: str, title: str, why: str):
    def add(check):
        RUNS[name] = (title, why, check)
        return check
    return add


def _same(a, b) -> bool:
    """Bit for bit (NaN equal to NaN), after a host copy."""
    a, b = host_copy(a), host_copy(b)
    if a is None or b is None:
        return a is None and b is None
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def no_solver_error(res, what: str, where: str = "") -> None:
    if res.status == "solver_error":
        raise Broken(f"{where}{what} ended with status 'solver_error': {res.info.get('message', 'no message')}. A "
                     "plan that keeps its iterate finite and its certificate consistent never ends so on an easy "
                     "instance: fix the step (its size, an overflow) or what the message names")


@_obligation("loop-never-writes", "run() and iterate() leave every attribute of the plan as it was",
             "the plan is shared by every run of the compiled method; a hook that rebinds an attribute makes the "
             "next run start from another plan")
def _loop_never_writes(s):
    plan = s.compile()
    before = {k: id(v) for k, v in vars(plan).items()}
    plan.run(max_iter=5, tol=0.0, seed=1)
    list(plan.iterate(3, seed=1))
    after = {k: id(v) for k, v in vars(plan).items()}
    if after != before:
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        raise Broken(f"the attribute(s) {changed} of the plan were set or rebound by run()/iterate() (keep what "
                     "changes during a run in the state that init returns and step updates)")


@_obligation("iterate-equals-run", "iterate(k, seed) and run(max_iter=k, seed) go through the same iterates and end "
             "on the same solution", "a notebook that steps through a plan must see the run the user reports; a "
             "difference means that the loop or a hook changes the state in a way iterate() does not")
def _iterate_equals_run(s):
    plan, k = s.compile(), ITERATE_STEPS
    # the same tol for both: a plan may steer its iterates by it (dual-cd-bias aims its checks at tol)
    states = list(plan.iterate(k, seed=ITERATE_SEED, tol=0.0))
    sol = plan.run_solution(max_iter=k, tol=0.0, seed=ITERATE_SEED, trace=1, keep_iterates=True)
    if not (sol.iterations == k or sol.status != "user_limit"):
        raise Broken(f"run(max_iter={k}) stopped at iteration {sol.iterations} with status 'user_limit'")
    snaps = [plan.snapshot(st) for st in states[:sol.iterations + 1]]
    recorded = list(sol.trace.iterates)
    if len(recorded) != len(snaps):
        raise Broken(f"the run recorded {len(recorded)} iterates with trace=1 over {sol.iterations} iterations, "
                     f"expected {len(snaps)}")
    random = ("draw random numbers from the rng that init puts in the state (never np.random or a generator made "
              "in a hook)")
    for t, (a, b) in enumerate(zip(snaps, recorded)):
        if not _same(a, b):
            raise Broken(f"iterate {t}: snapshot(state) of iterate() differs from the iterate the run recorded: "
                         f"{random}")
    last = plan.solution(states[sol.iterations], sol.status)
    if not _same(last.w, sol.w):
        raise Broken(f"solution(state {sol.iterations} of iterate()).w differs from the run's w: {random}")


@_obligation("warm-start", "a previous Result is accepted as warm_start",
             "solve(..., warm_start=result) is how the estimator, paths and resumed runs reuse work; a plan that "
             "raises on it cannot serve them")
def _warm_start(s):
    first = s.solve(max_iter=WARM_BUDGET, seed=0)
    try:
        again = s.solve(max_iter=WARM_BUDGET, seed=0, warm_start=first)
    except Exception as exc:  # noqa: BLE001
        raise Broken(f"solve(warm_start=result) raised {type(exc).__name__}: {exc} (read warm_start in init with "
                     "parse_warm_start(warm_start, d): it accepts a Result, a vector or None)") from exc
    if again.status not in STATUSES:
        raise Broken(f"the warm-started run ended with status {again.status!r}, not one of {STATUSES}")
    no_solver_error(again, f"solve(max_iter={WARM_BUDGET}, warm_start=result)")


@_obligation("finite-and-untouched", "over its default budget and on every variant its card admits, no NaN or inf "
             "in the answer, no solver_error, and the user's arrays unchanged", "the run loop guards against "
             "non-finite iterates and a user's data are never written to: a plan that breaks either returns numbers "
             "no one can trust, on data (sparse, on a device, chunked) or a form (offset, kernel, weights) its card "
             "offers it")
def _finite_and_untouched(s):
    budget = min(max(FINITE_BUDGET, int(s.compile().default_max_iter)), FINITE_CAP)
    for v in s.variants():
        iters, limit = (budget, FINITE_SECONDS) if v.as_given else (FINITE_BUDGET, VARIANT_SECONDS)
        res = s.on(v, lambda p: p.solve(s.method, max_iter=iters, tol=0.0, seed=0, time_limit=limit))
        if res is None:   # the plan refuses this variant at compile, saying why
            continue
        where = "" if v.as_given else f"on {v.label}: "
        if res.status not in STATUSES:
            raise Broken(f"{where}solve ended with status {res.status!r}, not one of {STATUSES}")
        no_solver_error(res, f"solve(max_iter={iters}, tol=0) (iteration {res.iterations})", where)
        for name in ("w", "dual_coef"):
            value = getattr(res, name, None)
            if value is not None and not np.all(np.isfinite(host_copy(value))):
                raise Broken(f"{where}Result.{name} holds NaN or inf")
        if not (np.isfinite(res.value) or res.status == "user_limit"):
            raise Broken(f"{where}Result.value is {res.value} with status {res.status!r}")
    for i, (a, copy) in enumerate(s.arrays):
        if not _same(a, copy):
            raise Broken(f"the user's array #{i} (shape {np.shape(copy)}) was modified: copy before writing "
                         "(self.bk.xp.asarray(a, copy=True)) and keep the copies in the state")


@_obligation("time-limit", f"solve(time_limit={TIME_LIMIT:g}) returns within the limit, {TIME_SLACK:.0%} and "
             f"{TIME_SLACK_S:g} s, set-up and init included", "time_limit is the user's promise to the rest of their "
             "program (a benchmark, a service, a grid search); it covers the plan's setup and init, which only the "
             "plan can keep short or bounded")
def _time_limit(s):
    s.solve(max_iter=1, seed=0)   # compilation by numba, imports: once per process, not the plan's time
    allowed = TIME_LIMIT * (1.0 + TIME_SLACK) + TIME_SLACK_S
    start = time.perf_counter()
    res = s.solve(time_limit=TIME_LIMIT, max_iter=TIME_BUDGET, tol=0.0, seed=0)
    wall = time.perf_counter() - start
    if wall > allowed:
        raise Broken(f"solve(time_limit={TIME_LIMIT:g}, tol=0) returned after {wall:.3g} s (allowed {allowed:.3g} s): "
                     f"setup took {res.setup_time:.3g} s, the run {res.solve_time:.3g} s over {res.iterations} "
                     f"iteration(s) ({res.info.get('message', 'no message')}). Keep setup and init to a few products "
                     "with the data, bound any longer preparation by budget.time_limit (init receives it), and keep "
                     "one step short: the loop stops only between steps")
    no_solver_error(res, f"solve(time_limit={TIME_LIMIT:g})")


_UNCONSTRAINED = ("SoftMarginSVM", "LogisticRegression")   # no point has an objective below their optimum


def _against_reference(form: str, sense: str, res, ref, tol: float) -> str | None:
    """Why an ``optimal`` ``res`` is not confirmed by the certified reference ``ref``, on either side, or None."""
    if ref.status in ("infeasible", "infeasible_inaccurate"):
        return f"status 'optimal', but the reference proves the problem {ref.status}"
    if ref.status not in ("optimal", "optimal_inaccurate"):
        return None
    rel = (ref.certificate or {}).get("relative_gap")
    slack = max(ROUNDING, 10.0 * float(rel)) if isinstance(rel, (int, float)) and np.isfinite(rel) else ROUNDING
    other = ("a margin no separator of this problem reaches, so the plan solved another problem (a kernel, an offset "
             "or sample weights ignored?) or its w is not the one its certificate is about")
    if form == "MaxMargin":   # the certified relative margin gap
        below = (ref.margin - res.margin) / ref.margin
        if not below <= tol * (1 + 1e-6):
            return (f"status 'optimal' at tol={tol:g}, but the margin {res.margin:.10g} is {below:.3g} below the "
                    f"reference's {ref.margin:.10g}: stop returned 'optimal' before the plan's certificate proved tol "
                    "(compare the certified relative gap with budget.tol)")
        if -below > slack:
            return (f"status 'optimal', but the margin {res.margin:.10g} is {-below:.3g} ABOVE the certified maximum "
                    f"margin {ref.margin:.10g}: {other}")
        return None
    if form == "EllipsoidSeparation":
        return None if res.info.get("separates_all") else \
            "status 'optimal', but the hyperplane does not separate every pair of ellipsoids"
    sign = -1.0 if sense == "max" else 1.0
    gap = sign * (res.value - ref.value) / max(1.0, abs(ref.value))
    if not gap <= tol * (1 + 1e-6):
        return (f"status 'optimal' at tol={tol:g}, but the relative objective gap to the reference is {gap:.3g} "
                f"(value {res.value:.10g}, reference {ref.value:.10g}): stop returned 'optimal' before the plan's "
                "certificate proved tol")
    floor = -slack if form in _UNCONSTRAINED else -tol   # a constrained form: an iterate may be infeasible within tol
    if gap < floor:
        side = "ABOVE the certified maximum" if sense == "max" else "BELOW the certified minimum"
        return (f"status 'optimal', but the objective {res.value:.10g} is {-gap:.3g} (relative) {side} "
                f"{ref.value:.10g}: " + other.replace("a margin no separator", "an objective no point"))
    return None


@_obligation("optimal-is-certified", "'optimal' only when the CVXPY reference confirms the certified gap, on the "
             "problem and every variant its card admits", "a status never claims more than its certificate proves: "
             "'optimal' means the relative gap to the exact optimum is at most tol, and users rely on it without a "
             "reference of their own; an answer better than the optimum means the plan solved another problem")
def _optimal_is_certified(s):
    tol = CERTIFIED_TOL
    for v in s.variants():
        if not (v.as_given or v.certifiable()):
            continue
        options = {"max_iter": CERTIFIED_BUDGET, "tol": tol, "seed": 0}
        if not v.as_given:
            options["time_limit"] = VARIANT_SECONDS
        res = s.on(v, lambda p: p.solve(s.method, **options))
        if res is None:
            continue
        where = "" if v.as_given else f"on {v.label}: "
        no_solver_error(res, f"solve(max_iter={CERTIFIED_BUDGET}, tol={tol:g})", where)
        if res.status != "optimal":
            continue
        if not res.certificate:
            raise Broken(f"{where}status 'optimal' with no certificate: return the bound that proves it in "
                         "Solution.certificate (relative_gap at least)")
        ref = v.reference.reference()
        why = _against_reference(v.reference.form, getattr(v.reference, "sense", "min"), res, ref, tol)
        if why is not None:
            raise Broken(where + why)


@_obligation("trace-invariance", "trace=None, trace=1 and trace='geometric' give the same iterations, status and "
             "final iterate, bit for bit", "observation never changes the answer: the benchmark times trace=None "
             "while users run the default, and both must be the same run; measure() and stop() only read the state")
def _trace_invariance(s):
    plan = s.compile()
    runs = {repr(tr): plan.run(trace=tr, seed=0, max_iter=TRACE_BUDGET, tol=TRACE_TOL)
            for tr in (None, 1, "geometric")}
    (k0, r0), *others = runs.items()
    no_solver_error(r0, f"run(max_iter={TRACE_BUDGET}, tol={TRACE_TOL:g})")
    for k, r in others:
        same = {"iterations": r.iterations == r0.iterations, "status": r.status == r0.status, "w": _same(r.w, r0.w),
                "b": _same(np.asarray(r.b), np.asarray(r0.b)),
                "dual_coef": _same(getattr(r, "dual_coef", None), getattr(r0, "dual_coef", None))}
        diff = [what for what, ok in same.items() if not ok]
        if diff:
            raise Broken(f"trace={k0} stopped at iteration {r0.iterations} ({r0.status}), trace={k} at "
                         f"{r.iterations} ({r.status}); they differ in {', '.join(diff)}. "
                         f"{diagnose(plan)}")


class _Interrupt:
    """A callback that raises ``KeyboardInterrupt`` when asked about iteration ``at`` (a Ctrl-C, at a known place)."""

    def __init__(self, at: int):
        self.at, self.calls = at, 0

    def __call__(self, state):
        if self.calls == self.at:
            raise KeyboardInterrupt
        self.calls += 1


@_obligation("resume", "a run interrupted with checkpoint=PATH and continued with resume=PATH ends as the "
             "uninterrupted run, bit for bit", "a long run killed or interrupted is continued from its checkpoint; "
             "the continued run must be the run the user started (the same iterates, random stream and stop), or "
             "every resumed result is a different experiment")
def _resume(s):
    options = {"seed": 0, "max_iter": RESUME_BUDGET, "tol": 0.0, "trace": 1}
    whole = s.solve(**options)
    no_solver_error(whole, f"solve(max_iter={RESUME_BUDGET}, tol=0)")
    at = min(RESUME_AT, whole.iterations - 1)   # the callback is asked about every iteration before the last
    with tempfile.TemporaryDirectory(prefix="marginkit-check-plan-") as folder:
        path = os.path.join(folder, "run.ckpt")
        try:   # a run that ends at its first iteration is saved at its end, and resumed from there
            s.solve(checkpoint=path, callback=_Interrupt(at) if at >= 0 else None, **options)
        except KeyboardInterrupt:
            pass
        else:
            if at >= 0:
                raise Broken(f"a callback raising KeyboardInterrupt at iteration {at} did not interrupt the run")
        try:
            again = s.solve(resume=path)
        except ProblemError as exc:   # the state did not pickle, or the plan is not the one that wrote it
            raise Broken(f"resuming the checkpoint of iteration {at} failed: {exc} (everything in the state that "
                         "init returns must pickle: arrays, numbers, numpy Generators; no lambdas, locks or open "
                         "files)") from None
    same = {"iterations": again.iterations == whole.iterations, "status": again.status == whole.status,
            "w": _same(again.w, whole.w), "b": _same(np.asarray(again.b), np.asarray(whole.b)),
            "dual_coef": _same(getattr(again, "dual_coef", None), getattr(whole, "dual_coef", None)),
            "trace iterations": _same(again.trace["iteration"], whole.trace["iteration"])}
    diff = [what for what, ok in same.items() if not ok]
    if diff:
        raise Broken(f"interrupted at iteration {at} and resumed, the run ended at iteration {again.iterations} "
                     f"({again.status}); uninterrupted, at {whole.iterations} ({whole.status}); they differ in "
                     f"{', '.join(diff)}. Keep everything the next step reads in the state that init returns and "
                     "step updates (the random generator, momentum, a schedule's position): a value kept elsewhere "
                     "(on the plan, in a closure or a module global) is not in the checkpoint; the stop rule's own "
                     "memory belongs in memo.rule")
