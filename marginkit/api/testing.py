"""The plan contract, for anyone's plan: :func:`check_plan` (scikit-learn's ``check_estimator`` idea).

``check_plan(PlanClass, problem)`` holds a plan class written outside marginkit to the obligations that
``tests/test_contract.py`` holds every plan of the registry to, and raises :class:`PlanContractError` (an
``AssertionError``) on the first one it breaks. Its message says which obligation failed, what was observed, and why
the obligation matters. The obligations, in the order they are checked (:data:`OBLIGATIONS`):

1. ``frozen-config`` -- ``plan.config`` is a frozen dataclass whose fields read as attributes of the plan;
2. ``declared-constraints`` -- every field of ``Config`` declares its accepted values in ``Config.constraints``;
3. ``bad-values-rejected`` -- a value outside a declaration is a ``ProblemError`` naming the option, at compile;
4. ``unknown-option`` -- an option the plan does not have is a ``ProblemError``;
5. ``frozen-plan`` -- the compiled plan cannot be written to;
6. ``loop-never-writes`` -- ``run()`` and ``iterate()`` leave every attribute of the plan as it was;
7. ``iterate-equals-run`` -- ``iterate(k, seed)`` and ``run(max_iter=k, seed)`` go through the same iterates and end
   on the same solution, bit for bit;
8. ``warm-start`` -- a previous ``Result`` is accepted as ``warm_start``;
9. ``finite-and-untouched`` -- no NaN or inf in the answer, a status that says what happened, the user's arrays
   unchanged;
10. ``optimal-is-certified`` -- ``optimal`` only when the CVXPY reference confirms the certified gap (``tol`` is
    relative: the Statuses table of the contract);
11. ``trace-invariance`` -- ``trace=None``, ``trace=1`` and ``trace="geometric"`` give the same iterations, the same
    status and the same final iterate, bit for bit (observation never changes the answer);
12. ``resume`` -- a run interrupted (``KeyboardInterrupt``) with ``checkpoint=PATH`` and continued with
    ``resume=PATH`` ends as the uninterrupted run: the same iterations, status, final iterate and trace iterations.

The plan runs through marginkit's public path (``problem.compile``/``problem.solve``): when ``method`` is not a
method of ``problem`` already, the class is registered for the duration of the check under a temporary name (or
under ``method``) and removed afterwards, so the check sees the plan exactly as a registered method.
"""
from __future__ import annotations

import dataclasses
import itertools
import os
import tempfile
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ..core.params import config_fields
from ..core.result import STATUSES, host_copy
from ..core.validation import ProblemError
from ..engine.graph import methods
from ..engine.plugins import ARRAY_KINDS, MethodCard, registered
from ..engine.runloop import Budget, IterationPlan
from ..formulations.base import Problem

__all__ = ["OBLIGATIONS", "Obligation", "PlanContractError", "check_obligation", "check_plan"]

# the budgets of the runs the obligations make (those of tests/test_contract.py, where the contract was written)
ITERATE_STEPS, ITERATE_SEED = 4, 7
WARM_BUDGET, FINITE_BUDGET = 20, 200
CERTIFIED_BUDGET, CERTIFIED_TOL = 3000, 1e-3
TRACE_BUDGET, TRACE_TOL = 2000, 1e-6
DIAGNOSIS_STEPS = 300   # states stepped through to find which hook writes to the state (after a failure only)
RESUME_BUDGET, RESUME_AT = 30, 11


class PlanContractError(AssertionError):
    """A plan broke an obligation of the plan contract: ``obligation`` (its name), ``observed`` (what happened),
    ``why`` (what the obligation protects). An ``AssertionError``, so that test runners report it as a failure."""

    def __init__(self, subject: str, obligation: Obligation, observed: str):
        self.obligation, self.observed, self.why = obligation.name, observed, obligation.why
        super().__init__(f"{subject} breaks the plan contract, obligation {obligation.name!r} ({obligation.title}).\n"
                         f"  Observed: {observed}\n  Why it matters: {obligation.why}")


@dataclass(frozen=True)
class Obligation:
    """One obligation of the contract: a short ``name``, the ``title`` it promises, ``why`` it matters, and the
    ``check(subject)`` that raises :class:`_Broken` with what it observed when the plan breaks it."""

    name: str
    title: str
    why: str
    check: Callable


class _Broken(Exception):
    """Raised by a check with the observation; :func:`check_obligation` turns it into a :class:`PlanContractError`."""


OBLIGATIONS: dict[str, Obligation] = {}


def _obligation(name: str, title: str, why: str):
    def add(check):
        OBLIGATIONS[name] = Obligation(name, title, why, check)
        return check
    return add


@dataclass
class _Subject:
    plan_class: type
    problem: Problem
    method: str
    arrays: list          # (the user's array, a copy taken before the check)

    def compile(self, **options):
        return self.problem.compile(self.method, **options)

    def solve(self, **options):
        return self.problem.solve(self.method, **options)

    def __str__(self):
        return f"{self.plan_class.__name__} (method {self.method!r} on {type(self.problem).__name__})"


def _same(a, b) -> bool:
    """Bit for bit (NaN equal to NaN), after a host copy."""
    a, b = host_copy(a), host_copy(b)
    if a is None or b is None:
        return a is None and b is None
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


# the obligations --------------------------------------------------------------------------------------------------
@_obligation("frozen-config", "the configuration is a frozen dataclass whose fields read as attributes of the plan",
             "compile checks the options once and the run reads them; a configuration that can change after compile "
             "lets two runs of one compiled plan use different parameters")
def _frozen_config(s: _Subject):
    plan = s.compile()
    config = plan.config
    if not (dataclasses.is_dataclass(config) and config.__dataclass_params__.frozen):
        raise _Broken(f"plan.config is {type(config).__name__}, not a frozen dataclass (declare Config with "
                      "@dataclass(frozen=True))")
    try:
        config.x = 1
    except dataclasses.FrozenInstanceError:
        pass
    else:
        raise _Broken("setting an attribute of plan.config succeeded")
    for name in config_fields(type(config)):
        if callable(getattr(type(plan), name, None)):   # a hook such as ``step`` keeps its name
            continue
        if getattr(plan, name) is not getattr(config, name):
            raise _Broken(f"plan.{name} is not plan.config.{name}: the plan shadows its own parameter")


@_obligation("declared-constraints", "every parameter declares its accepted values in Config.constraints",
             "compile checks every option against its declaration, with one message format; an undeclared parameter "
             "accepts anything and fails deep inside a step, or silently computes something else")
def _declared_constraints(s: _Subject):
    config_cls = type(s.compile().config)
    constraints = getattr(config_cls, "constraints", {})
    names = set(config_fields(config_cls))
    if not set(constraints) <= names:
        raise _Broken(f"Config.constraints names {sorted(set(constraints) - names)}, which are not fields of Config")
    if names != set(constraints):
        raise _Broken(f"the field(s) {sorted(names - set(constraints))} of Config declare no constraint (add them to "
                      "Config.constraints: Interval, Options, Boolean, IsCallable, InstanceOf or None)")


def _must_refuse(call, what: str, error: type, mentions: str, should: str, accepted: str | None = None) -> None:
    """``call()`` must raise ``error`` with ``mentions`` in its message: else the obligation is broken, saying that
    ``what`` was accepted (or ``accepted``) or that its message does not ``should``."""
    try:
        call()
    except error as exc:
        if mentions not in str(exc):
            raise _Broken(f"{what} raised a{'n' if error.__name__[0] in 'AEIOU' else ''} {error.__name__} that does "
                          f"not {should}: {exc}") from None
    else:
        raise _Broken(accepted or f"{what} was accepted")


@_obligation("bad-values-rejected", "a value outside a declaration is a ProblemError naming the option, at compile",
             "a user who passes a wrong value must learn which option is wrong before anything runs, not read a "
             "TypeError from inside the loop")
def _bad_values_rejected(s: _Subject):
    constraints = getattr(type(s.compile().config), "constraints", {})
    for name in constraints:
        _must_refuse(lambda name=name: s.compile(**{name: object()}), f"compile({name}=object())", ProblemError,
                     name, f"name {name!r}")


@_obligation("unknown-option", "an option the plan does not have is a ProblemError listing the valid ones",
             "a misspelled option that is silently ignored is a run with other parameters than the user believes")
def _unknown_option(s: _Subject):
    _must_refuse(lambda: s.compile(no_such_option=1), "compile(no_such_option=1)", ProblemError, "unknown option",
                 "say 'unknown option'")


@_obligation("frozen-plan", "the compiled plan cannot be written to",
             "iterate() and run() must go through the same states for a seed; a plan that keeps run state on itself "
             "gives a second run a different start (keep what changes in the state that init returns)")
def _frozen_plan(s: _Subject):
    plan = s.compile()
    for name, value in (("tol", 0.5), ("form", None)):
        _must_refuse(lambda name=name, value=value: setattr(plan, name, value), f"setting plan.{name}",
                     AttributeError, "frozen", "say 'frozen'",
                     accepted=f"setting plan.{name} after compile succeeded (derive the plan from IterationPlan and "
                              "set attributes in setup() only)")


@_obligation("loop-never-writes", "run() and iterate() leave every attribute of the plan as it was",
             "the plan is shared by every run of the compiled method; a hook that rebinds an attribute makes the "
             "next run start from another plan")
def _loop_never_writes(s: _Subject):
    plan = s.compile()
    before = {k: id(v) for k, v in vars(plan).items()}
    plan.run(max_iter=5, tol=0.0, seed=1)
    list(plan.iterate(3, seed=1))
    after = {k: id(v) for k, v in vars(plan).items()}
    if after != before:
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        raise _Broken(f"the attribute(s) {changed} of the plan were set or rebound by run()/iterate()")


@_obligation("iterate-equals-run", "iterate(k, seed) and run(max_iter=k, seed) go through the same iterates and end "
             "on the same solution", "a notebook that steps through a plan must see the run the user reports; a "
             "difference means that the loop or a hook changes the state in a way iterate() does not")
def _iterate_equals_run(s: _Subject):
    plan, k = s.compile(), ITERATE_STEPS
    # the same tol for both: a plan may steer its iterates by it (dual-cd-bias aims its checks at tol)
    states = list(plan.iterate(k, seed=ITERATE_SEED, tol=0.0))
    sol = plan.run_solution(max_iter=k, tol=0.0, seed=ITERATE_SEED, trace=1, keep_iterates=True)
    if not (sol.iterations == k or sol.status != "user_limit"):
        raise _Broken(f"run(max_iter={k}) stopped at iteration {sol.iterations} with status 'user_limit'")
    snaps = [plan.snapshot(st) for st in states[:sol.iterations + 1]]
    recorded = list(sol.trace.iterates)
    if len(recorded) != len(snaps):
        raise _Broken(f"the run recorded {len(recorded)} iterates with trace=1 over {sol.iterations} iterations, "
                      f"expected {len(snaps)}")
    for t, (a, b) in enumerate(zip(snaps, recorded)):
        if not _same(a, b):
            raise _Broken(f"iterate {t}: snapshot(state) of iterate() differs from the iterate the run recorded")
    last = plan.solution(states[sol.iterations], sol.status)
    if not _same(last.w, sol.w):
        raise _Broken(f"solution(state {sol.iterations} of iterate()).w differs from the run's w")


@_obligation("warm-start", "a previous Result is accepted as warm_start",
             "solve(..., warm_start=result) is how the estimator, paths and resumed runs reuse work; a plan that "
             "raises on it cannot serve them")
def _warm_start(s: _Subject):
    first = s.solve(max_iter=WARM_BUDGET, seed=0)
    again = s.solve(max_iter=WARM_BUDGET, seed=0, warm_start=first)
    if again.status not in STATUSES:
        raise _Broken(f"the warm-started run ended with status {again.status!r}, not one of {STATUSES}")


@_obligation("finite-and-untouched", "no NaN or inf in the answer, a status that says what happened, and the user's "
             "arrays unchanged", "the run loop guards against non-finite iterates and a user's data are never "
             "written to: a plan that breaks either returns numbers no one can trust")
def _finite_and_untouched(s: _Subject):
    res = s.solve(max_iter=FINITE_BUDGET, seed=0)
    if res.status not in STATUSES or res.status == "solver_error":
        raise _Broken(f"solve(max_iter={FINITE_BUDGET}) ended with status {res.status!r}"
                      f" ({res.info.get('message', 'no message')})")
    for name in ("w", "dual_coef"):
        v = getattr(res, name, None)
        if v is not None and not np.all(np.isfinite(host_copy(v))):
            raise _Broken(f"Result.{name} holds NaN or inf")
    if not (np.isfinite(res.value) or res.status == "user_limit"):
        raise _Broken(f"Result.value is {res.value} with status {res.status!r}")
    for i, (a, copy) in enumerate(s.arrays):
        if not _same(a, copy):
            raise _Broken(f"the user's array #{i} (shape {np.shape(copy)}) was modified")


@_obligation("optimal-is-certified", "'optimal' only when the CVXPY reference confirms the certified gap",
             "a status never claims more than its certificate proves: 'optimal' means the relative gap to the exact "
             "optimum is at most tol, and users rely on it without a reference of their own")
def _optimal_is_certified(s: _Subject):
    tol, problem = CERTIFIED_TOL, s.problem
    res = s.solve(max_iter=CERTIFIED_BUDGET, tol=tol, seed=0)
    if res.status != "optimal":
        return
    if not res.certificate:
        raise _Broken("status 'optimal' with no certificate")
    ref = problem.reference()
    if problem.form == "MaxMargin":      # the certified relative margin gap
        if not (ref.margin - res.margin) <= tol * ref.margin * (1 + 1e-6):
            raise _Broken(f"status 'optimal' at tol={tol:g}, but the margin {res.margin:.10g} is "
                          f"{(ref.margin - res.margin) / ref.margin:.3g} below the reference's {ref.margin:.10g}")
    elif problem.form == "EllipsoidSeparation":
        if not res.info.get("separates_all"):
            raise _Broken("status 'optimal', but the hyperplane does not separate every pair of ellipsoids")
    else:                                # relative objective gap within tol (a value below the optimum: rounding)
        sign = -1.0 if problem.sense == "max" else 1.0
        gap = sign * (res.value - ref.value) / max(1.0, abs(ref.value))
        if not -tol <= gap <= tol * (1 + 1e-6):
            raise _Broken(f"status 'optimal' at tol={tol:g}, but the relative objective gap to the reference is "
                          f"{gap:.3g} (value {res.value:.10g}, reference {ref.value:.10g})")


@_obligation("trace-invariance", "trace=None, trace=1 and trace='geometric' give the same iterations, status and "
             "final iterate, bit for bit", "observation never changes the answer: the benchmark times trace=None "
             "while users run the default, and both must be the same run; measure() and stop() only read the state")
def _trace_invariance(s: _Subject):
    plan = s.compile()
    runs = {repr(tr): plan.run(trace=tr, seed=0, max_iter=TRACE_BUDGET, tol=TRACE_TOL)
            for tr in (None, 1, "geometric")}
    (k0, r0), *others = runs.items()
    for k, r in others:
        same = {"iterations": r.iterations == r0.iterations, "status": r.status == r0.status, "w": _same(r.w, r0.w),
                "b": _same(np.asarray(r.b), np.asarray(r0.b)),
                "dual_coef": _same(getattr(r, "dual_coef", None), getattr(r0, "dual_coef", None))}
        diff = [what for what, ok in same.items() if not ok]
        if diff:
            raise _Broken(f"trace={k0} stopped at iteration {r0.iterations} ({r0.status}), trace={k} at "
                          f"{r.iterations} ({r.status}); they differ in {', '.join(diff)}. {_diagnose(plan)}")


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
def _resume(s: _Subject):
    options = {"seed": 0, "max_iter": RESUME_BUDGET, "tol": 0.0, "trace": 1}
    whole = s.solve(**options)
    at = min(RESUME_AT, whole.iterations - 1)   # the callback is asked about every iteration before the last
    with tempfile.TemporaryDirectory(prefix="marginkit-check-plan-") as folder:
        path = os.path.join(folder, "run.ckpt")
        try:   # a run that ends at its first iteration is saved at its end, and resumed from there
            s.solve(checkpoint=path, callback=_Interrupt(at) if at >= 0 else None, **options)
        except KeyboardInterrupt:
            pass
        else:
            if at >= 0:
                raise _Broken(f"a callback raising KeyboardInterrupt at iteration {at} did not interrupt the run")
        try:
            again = s.solve(resume=path)
        except ProblemError as exc:   # the state did not pickle, or the plan is not the one that wrote it
            raise _Broken(f"resuming the checkpoint of iteration {at} failed: {exc} (everything in the state that "
                          "init returns must pickle: arrays, numbers, numpy Generators; no lambdas, locks or open "
                          "files)") from None
    same = {"iterations": again.iterations == whole.iterations, "status": again.status == whole.status,
            "w": _same(again.w, whole.w), "b": _same(np.asarray(again.b), np.asarray(whole.b)),
            "dual_coef": _same(getattr(again, "dual_coef", None), getattr(whole, "dual_coef", None)),
            "trace iterations": _same(again.trace["iteration"], whole.trace["iteration"])}
    diff = [what for what, ok in same.items() if not ok]
    if diff:
        raise _Broken(f"interrupted at iteration {at} and resumed, the run ended at iteration {again.iterations} "
                      f"({again.status}); uninterrupted, at {whole.iterations} ({whole.status}); they differ in "
                      f"{', '.join(diff)}. Keep everything the next step reads in the state that init returns and "
                      "step updates (the random generator, momentum, a schedule's position): a value kept elsewhere "
                      "(on the plan, in a closure or a module global) is not in the checkpoint; the stop rule's own "
                      "memory belongs in memo.rule")


def _fingerprint(value, depth: int = 0):
    """A comparable picture of a state's contents: arrays by their bytes, generators by their state, containers
    field by field (dask arrays by name: they are immutable)."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return repr(value)
    if isinstance(value, np.random.Generator):
        return repr(value.bit_generator.state)
    if hasattr(value, "dask") and hasattr(value, "name"):
        return f"dask:{value.name}"
    if isinstance(value, np.ndarray) or hasattr(value, "__array_namespace__") or hasattr(value, "detach"):
        a = host_copy(value)
        return (a.shape, str(a.dtype), a.tobytes())
    if isinstance(value, np.generic):
        return repr(value)
    if depth > 3:
        return f"id:{id(value)}"
    if isinstance(value, dict):
        return {k: _fingerprint(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return tuple(_fingerprint(v, depth + 1) for v in value)
    if dataclasses.is_dataclass(value):
        return {f.name: _fingerprint(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)}
    if hasattr(value, "__dict__"):
        return {k: _fingerprint(v, depth + 1) for k, v in vars(value).items()}
    return f"id:{id(value)}"


def _diagnose(plan) -> str:
    """Which hook wrote to which part of the state: step through the plan and call measure and stop on each state,
    comparing the state before and after (only after a failure: it costs a few hundred steps)."""
    budget = Budget(DIAGNOSIS_STEPS, TRACE_TOL)
    try:
        for t, state in enumerate(plan.iterate(DIAGNOSIS_STEPS, seed=0, tol=TRACE_TOL)):
            for hook, call in (("measure", lambda st=state: plan.measure(st)),
                               ("stop", lambda st=state: plan.stop(st, budget))):
                before = _fingerprint(state)
                call()
                after = _fingerprint(state)
                if after != before:
                    where = (sorted(k for k in before if before[k] != after.get(k))
                             if isinstance(before, dict) and isinstance(after, dict) else "the state")
                    return (f"{hook}(state) wrote to {where} at iteration {t}: keep what observation computes out "
                            "of the state (a hook that declares a keyword 'memo' gets the loop's cache)")
    except Exception as exc:  # noqa: BLE001 -- the diagnosis is a hint; the failure above stands on its own
        return f"(no diagnosis: stepping the plan raised {type(exc).__name__}: {exc})"
    return (f"measure() and stop() left the first {DIAGNOSIS_STEPS} states unchanged: look for a value the trace "
            "schedule decides (a cache filled only at recorded iterations, a random draw in measure)")


# running them -----------------------------------------------------------------------------------------------------
_counter = itertools.count()


@contextmanager
def _subject(plan_class, problem, method, arrays):
    if not (isinstance(plan_class, type) and issubclass(plan_class, IterationPlan)):
        raise ProblemError(f"PlanClass must be a subclass of marginkit's IterationPlan; got {plan_class!r}")
    if not isinstance(problem, Problem):
        raise ProblemError(f"problem must be a marginkit problem (MaxMargin, SoftMarginSVM, ...); got "
                           f"{type(problem).__name__}")
    if method is not None and not isinstance(method, str):
        raise ProblemError(f"method must be None or a method name; got {method!r}")
    if arrays is None:   # the problem's own arrays: what a plan could write to
        arrays = [v for v in vars(problem).values() if isinstance(v, np.ndarray)]
    elif not isinstance(arrays, (list, tuple)):
        raise ProblemError(f"arrays must be None or a list of the user's arrays; got {type(arrays).__name__}")
    copies = [(a, host_copy(a)) for a in arrays]
    if method is not None and method in methods(problem):
        compiled = type(problem.compile(method))
        if not issubclass(compiled, plan_class):
            raise ProblemError(f"method {method!r} runs {compiled.__name__} on this problem, not "
                               f"{plan_class.__name__}: pass method=None to check {plan_class.__name__} itself")
        yield _Subject(plan_class, problem, method, copies)
        return
    name = method or f"check-plan-{plan_class.__name__.lower()}-{next(_counter)}"
    card = MethodCard(name, problem.form, plan_class, arrays=ARRAY_KINDS, tags=("check_plan",),
                      algorithm=f"{plan_class.__name__}, registered by marginkit.testing.check_plan")
    with registered(card):
        yield _Subject(plan_class, problem, name, copies)


def _run(obligation: Obligation, subject: _Subject) -> None:
    try:
        obligation.check(subject)
    except _Broken as broken:
        raise PlanContractError(str(subject), obligation, str(broken)) from None
    except Exception as exc:   # a plan that raises where an answer is due: that is the failure to report
        raise PlanContractError(str(subject), obligation, f"raised {type(exc).__name__}: {exc}") from exc


def _obligation_named(name) -> Obligation:
    if name not in OBLIGATIONS:
        raise ProblemError(f"obligation must be one of {', '.join(OBLIGATIONS)}; got {name!r}")
    return OBLIGATIONS[name]


def check_obligation(obligation: str, PlanClass, problem, method: str | None = None, *, arrays=None) -> None:
    """Check one obligation (a name of :data:`OBLIGATIONS`) of ``PlanClass`` on ``problem``; see :func:`check_plan`.
    ``tests/test_contract.py`` parametrizes over the registry's cards and the obligations with it."""
    ob = _obligation_named(obligation)
    with _subject(PlanClass, problem, method, arrays) as subject:
        _run(ob, subject)


def check_plan(PlanClass, problem, method: str | None = None, *, arrays=None, skip=()) -> list[str]:
    """Hold ``PlanClass`` to the plan contract on ``problem`` (a small, easy instance of the form the plan runs on);
    raise :class:`PlanContractError` on the first obligation it breaks, saying which, what was observed and why it
    matters. Returns the names of the obligations checked.

    ``method``: check the method of that name (it must compile to ``PlanClass`` on ``problem``), or register
    ``PlanClass`` under that name for the check; None registers it under a temporary name. ``arrays``: the user's
    arrays that no run may modify (default: the problem's own). ``skip``: names of obligations not to check (for
    example ``"optimal-is-certified"``, which solves the CVXPY reference, on a problem too large for it).
    A wrong argument is a ``ProblemError``."""
    if isinstance(skip, str) or not all(isinstance(n, str) for n in skip):
        raise ProblemError(f"skip must be a list of obligation names; got {skip!r}")
    for name in skip:
        _obligation_named(name)
    checked = []
    with _subject(PlanClass, problem, method, arrays) as subject:
        for ob in OBLIGATIONS.values():
            if ob.name not in skip:
                _run(ob, subject)
                checked.append(ob.name)
    return checked
