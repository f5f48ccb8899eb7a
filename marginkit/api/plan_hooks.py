"""``check_plan``'s hook obligations: each hook of a compiled plan called directly, before any run, and its answer
held to the plan protocol (docs/ARCHITECTURE.md, "Adding a method"), so that a hook that raises or returns the wrong
thing is reported under its own name, with what came back and what to change:

* ``init(rng, None, budget)`` returns a finite state;
* ``step(state)`` returns a state of the same structure (the same type, the same fields, arrays of the same rank);
* ``measure(state)`` returns a dict of metric names to numbers, none of them NaN;
* ``stop(state, budget)`` returns None or a status its certificate proves (not ``"user_limit"``: budgets are the
  loop's);
* ``snapshot(state)`` returns None or a 1-D array;
* ``solution(state, status)`` returns a :class:`~marginkit.core.solution.Solution` whose ``w`` is None or 1-D of the
  width of the form the plan runs on, whose ``dual_coef`` is None or 1-D of its number of samples, and whose
  certificate holds numbers (finite where ``stop`` proved the status); then what the result's assembly holds it to on
  the user's problem (:func:`marginkit.engine.assemble.checked_solution`: dual coefficients for a kernel, an offset
  for a free one).

Also here: :func:`diagnose`, which finds the hook that wrote to the state after a run that the trace changed.
"""
from __future__ import annotations

import dataclasses
import numbers

import numpy as np

from ..core.errors import PlanError
from ..core.result import STATUSES, host_copy
from ..core.solution import Solution
from ..engine.assemble import checked_solution
from ..engine.options import make_rng
from ..engine.protocol import PLAN_STATUSES, measure_problem
from ..engine.runloop import Budget

HOOK_STEPS, HOOK_SEED = 6, 0   # the states every hook is called on: init's and the next HOOK_STEPS
DIAGNOSIS_STEPS, DIAGNOSIS_TOL = 300, 1e-6   # after a failure only: states stepped through to find the writing hook


class Broken(Exception):
    """Raised by a check with the observation; ``marginkit.testing`` turns it into a ``PlanContractError``."""


def _num(value) -> float:
    """A number of any library as a Python float."""
    return float(value) if isinstance(value, (numbers.Real, np.number)) else float(host_copy(value))


def _raised(call: str, exc: Exception, change: str) -> Broken:
    return Broken(f"{call} raised {type(exc).__name__}: {exc}. {change}")


def _budget(plan) -> Budget:
    return Budget(HOOK_STEPS, float(plan.default_tol))


def initial_state(plan):
    """``init`` as the run loop calls it (the run's generator of seed :data:`HOOK_SEED`, no warm start)."""
    try:
        return plan.init(make_rng(HOOK_SEED), None, _budget(plan))
    except Exception as exc:  # noqa: BLE001 -- the plan's own code: its failure is the observation
        raise _raised("init(rng, None, budget)", exc, "init must build the starting state from the data, the rng and "
                      "the budget alone (max_iter, tol, time_limit)") from None


def _step(plan, state, t: int):
    """``step(state)`` at iteration ``t + 1``; an exception or no state is reported as ``step``'s."""
    try:
        nxt = plan.step(state)
    except Exception as exc:  # noqa: BLE001
        raise _raised(f"step(state) at iteration {t + 1}", exc, "step must compute the next state from the state "
                      "alone (everything it reads comes from init or the previous step)") from None
    if nxt is None:
        raise Broken(f"step(state) returned None at iteration {t + 1}: it must return the next state (a new state "
                     "object: return it, do not update the old one in place)")
    diff = structure_difference(state, nxt)
    if diff is not None:
        raise Broken(f"step(state) at iteration {t + 1} returned {diff}: step must return a state of the same "
                     "structure as init's (the run loop, the guard, checkpoints and iterate() rely on it)")
    return nxt


def states(plan, k: int = HOOK_STEPS) -> list:
    """The states of ``init`` and ``k`` steps (a step that raises, returns nothing or changes the state's structure
    is reported as ``step``'s)."""
    out = [initial_state(plan)]
    for t in range(k):
        out.append(_step(plan, out[-1], t))
    return out


def check_init(plan) -> None:
    state = initial_state(plan)
    if state is None:
        raise Broken("init(rng, None, budget) returned None: it must return the run's state (a dataclass or "
                     "NamedTuple with the iterate, the random generator and whatever step reads)")
    if not plan.finite(state):
        raise Broken("init(rng, None, budget) returned a state with NaN or inf in its arrays: the run loop refuses "
                     "to start from it (solver_error); start from a finite point (w = 0, uniform weights, ...)")


def _fields(state):
    """``(kind, {name: value})`` of a state: a dataclass's fields, a NamedTuple's or tuple's items, a dict's items."""
    if dataclasses.is_dataclass(state) and not isinstance(state, type):
        return "fields", {f.name: getattr(state, f.name) for f in dataclasses.fields(state)}
    if isinstance(state, tuple):
        return "items", dict(zip(getattr(state, "_fields", range(len(state))), state))
    if isinstance(state, dict):
        return "keys", dict(state)
    return None, {}


def _rank(value):
    shape = getattr(value, "shape", None)
    return None if shape is None or isinstance(value, (numbers.Number, np.generic)) else len(shape)


def structure_difference(before, after) -> str | None:
    """How ``after`` (what ``step`` returned) differs in structure from ``before``, or None."""
    if type(after) is not type(before):
        return f"a {type(after).__name__} where init returned a {type(before).__name__}"
    kind, old = _fields(before)
    _, new = _fields(after)
    if kind is None:
        ra, rb = _rank(before), _rank(after)
        if ra is not None and rb is not None and tuple(before.shape) != tuple(after.shape):
            return f"an array of shape {tuple(after.shape)} where init returned shape {tuple(before.shape)}"
        return None
    if set(old) != set(new):
        return f"{kind} {sorted(map(str, new))} where init's state has {sorted(map(str, old))}"
    for name, value in old.items():
        ra, rb = _rank(value), _rank(new[name])
        if ra is not None and rb is not None and ra != rb:
            return f"{name!r} with {rb} dimension(s) where init's state has {ra}"
    return None


def check_step(plan) -> None:
    states(plan)


def check_measure(plan) -> None:
    for t, state in enumerate(states(plan)):
        try:
            metrics = plan.measure(state)
        except Exception as exc:  # noqa: BLE001
            raise _raised(f"measure(state) at iteration {t}", exc, "measure reads the state and returns its "
                          "metrics") from None
        problem = measure_problem(metrics)
        if problem is not None:
            raise Broken(f"measure(state) at iteration {t} returned {problem}; it must return a dict of metric names "
                         "to numbers (docs/TRACE.md): return {'margin': float(m), ...}")
        nan = sorted(k for k, v in metrics.items() if np.isnan(_num(v)))
        if nan:
            raise Broken(f"measure(state) at iteration {t} returned NaN for {nan}: a metric the plan cannot compute "
                         "yet is left out of the dict (or is inf for an unbounded bound), never NaN")


def check_stop(plan) -> None:
    for t, state in enumerate(states(plan)):
        for tol in (float(plan.default_tol), 0.0):
            try:
                status = plan.stop(state, Budget(HOOK_STEPS, tol))
            except Exception as exc:  # noqa: BLE001
                raise _raised(f"stop(state, budget) at iteration {t} (tol={tol:g})", exc, "stop reads the state and "
                              "the budget and returns a status or None") from None
            if status is not None and (not isinstance(status, str) or status not in PLAN_STATUSES):
                user_limit = isinstance(status, str) and status == "user_limit"
                raise Broken(f"stop(state, budget) at iteration {t} (tol={tol:g}) returned {type(status).__name__} "
                             f"{status!r:.60}; it must return None to go on or a status its certificate proves, one "
                             f"of {', '.join(PLAN_STATUSES)}: " +
                             ("'user_limit' is the loop's status for a budget (max_iter, time_limit, callback): "
                              "return None and let the loop stop the run" if user_limit else
                              "return None (not False) to go on"))


def check_snapshot(plan) -> None:
    for t, state in enumerate(states(plan)):
        try:
            snap = plan.snapshot(state)
        except Exception as exc:  # noqa: BLE001
            raise _raised(f"snapshot(state) at iteration {t}", exc, "snapshot returns the iterate kept with a trace "
                          "record") from None
        if snap is not None and len(getattr(snap, "shape", (0, 0))) != 1:
            raise Broken(f"snapshot(state) at iteration {t} returned {type(snap).__name__} of shape "
                         f"{getattr(snap, 'shape', None)}: it must return None or a 1-D array (the iterate kept with "
                         "each trace record; w.ravel() for a column)")


def _vector_problem(value, name: str, length: int | None, what: str) -> str | None:
    if value is None:
        return None
    shape = getattr(value, "shape", None)
    if shape is None:
        return f"a Solution whose {name} is a {type(value).__name__}, not an array: return a 1-D array of {what}"
    if len(shape) != 1 or (length is not None and shape[0] != length):
        want = f"a 1-D array of length {length}" if length is not None else "a 1-D array"
        return (f"a Solution whose {name} has shape {tuple(shape)}; it must be None or {want} ({what}" +
                ("; w.ravel() for a column)" if len(shape) == 2 and 1 in shape else ")"))
    return None


def solution_problem(sol, form, proved: bool) -> str | None:
    """What is wrong with ``sol`` (returned by ``solution`` for ``form``, the form the plan runs on), or None;
    ``proved``: ``stop`` returned its status, so its certificate's numbers must be finite."""
    if not isinstance(sol, Solution):
        return f"a {type(sol).__name__}: it must return marginkit's Solution (from marginkit.plugin import Solution)"
    width = getattr(form, "d", None)
    n = getattr(form, "n", None)
    for name, length, what in (("w", width, f"the {width} features of {type(form).__name__}"),
                               ("dual_coef", n, f"one coefficient per sample, {n}")):
        problem = _vector_problem(getattr(sol, name, None), name, length if isinstance(length, int) else None, what)
        if problem is not None:
            return problem
    if sol.status not in STATUSES:
        return f"a Solution whose status is {sol.status!r}: it must be one of {', '.join(STATUSES)}"
    b = sol.b
    if b is not None and not (isinstance(b, (numbers.Real, np.number)) or getattr(b, "shape", None) == ()):
        return f"a Solution whose b is {type(b).__name__} {b!r:.40}: it must be None or a number (float(b))"
    cert = sol.certificate
    if cert is None:
        return None
    if not isinstance(cert, dict):
        return (f"a Solution whose certificate is a {type(cert).__name__}: it must be None or a dict of names to "
                "numbers")
    for key, value in cert.items():
        if isinstance(value, (str, bool, np.bool_)) or value is None:
            continue   # a solver's name, a flag
        if not (isinstance(value, (numbers.Real, np.number)) or getattr(value, "shape", None) == ()):
            continue   # arrays (a certificate's witness) are the plan's to document
        if proved and not np.isfinite(_num(value)):
            return (f"a Solution whose certificate[{key!r}] is {_num(value)} with status {sol.status!r}, which "
                    "stop proved: a proved status has a finite certificate (or stop must not return it yet)")
    return None


def check_solution(plan) -> None:
    seq = states(plan)
    calls = [(len(seq) - 1, seq[-1], "user_limit", False)]
    for t, state in enumerate(seq):
        status = plan.stop(state, _budget(plan))
        if status is not None:
            calls.append((t, state, status, True))
            break
    for t, state, status, proved in calls:
        try:
            sol = plan.solution(state, status)
        except Exception as exc:  # noqa: BLE001
            raise _raised(f"solution(state, {status!r}) at iteration {t}", exc, "solution returns the iterate and "
                          "its certificate for any state the run can end on") from None
        problem = solution_problem(sol, plan.form, proved)
        if problem is not None:
            raise Broken(f"solution(state, {status!r}) at iteration {t} returned {problem}")
        try:   # what the result's assembly holds it to on the user's problem (a kernel, an offset, ...)
            checked_solution(plan.origin, plan.chain.invert(sol) if plan.chain is not None else sol, plan.method)
        except PlanError as exc:
            raise Broken(f"solution(state, {status!r}) at iteration {t}: {exc}") from None


def _on_compiled(check):
    """A check of the compiled plan, as an obligation's check of ``check_plan``'s subject."""
    def on_subject(subject):
        return check(subject.compile())
    on_subject.__name__ = on_subject.__qualname__ = check.__name__
    return on_subject


#: hook -> (title, why it matters, check(subject)), in the order ``check_plan`` checks them (as ``hook-<name>``)
HOOKS = {
    "init": ("init(rng, None, budget) returns a finite state",
             "every run, iterate() and every resumed run start from what init returns; a failure there is the plan's "
             "set-up of the run, and is reported as such rather than as a failure of the loop", check_init),
    "step": ("step(state) returns a state of the same structure",
             "the loop, the non-finite guard, checkpoints and iterate() treat every state alike; a step that changes "
             "the state's structure breaks them far from the cause", check_step),
    "measure": ("measure(state) returns a dict of metric names to numbers, none NaN",
                "the trace records measure's dict; anything else fails inside the recorder or puts NaN in the user's "
                "trace and plots", check_measure),
    "stop": ("stop(state, budget) returns None or a status its certificate proves",
             "stop's answer becomes the run's status: False, an unknown string or 'user_limit' (a budget's status, "
             "the loop's to give) would end runs with a status that proves nothing", check_stop),
    "snapshot": ("snapshot(state) returns None or a 1-D array",
                 "trace records keep the snapshot and compare it with the reference's w (angle and distance gaps)",
                 check_snapshot),
    "solution": ("solution(state, status) returns a Solution whose w, dual coefficients and certificate fit the form",
                 "every number of the Result is recomputed from the solution on the user's data: a w of the wrong "
                 "shape, or NaN in a proved certificate, makes a Result no one can trust", check_solution),
}
HOOKS = {hook: (title, why, _on_compiled(check)) for hook, (title, why, check) in HOOKS.items()}


# which hook wrote to the state (after a failure of trace invariance) ----------------------------------------------
def fingerprint(value, depth: int = 0):
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
        return {k: fingerprint(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return tuple(fingerprint(v, depth + 1) for v in value)
    if dataclasses.is_dataclass(value):
        return {f.name: fingerprint(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value)}
    if hasattr(value, "__dict__"):
        return {k: fingerprint(v, depth + 1) for k, v in vars(value).items()}
    return f"id:{id(value)}"


def diagnose(plan) -> str:
    """Which hook wrote to which part of the state: step through the plan and call measure and stop on each state,
    comparing the state before and after (only after a failure: it costs a few hundred steps)."""
    budget = Budget(DIAGNOSIS_STEPS, DIAGNOSIS_TOL)
    try:
        for t, state in enumerate(plan.iterate(DIAGNOSIS_STEPS, seed=0, tol=DIAGNOSIS_TOL)):
            for hook, call in (("measure", lambda st=state: plan.measure(st)),
                               ("stop", lambda st=state: plan.stop(st, budget))):
                before = fingerprint(state)
                call()
                after = fingerprint(state)
                if after != before:
                    where = (sorted(k for k in before if before[k] != after.get(k))
                             if isinstance(before, dict) and isinstance(after, dict) else "the state")
                    return (f"{hook}(state) wrote to {where} at iteration {t}: keep what observation computes out "
                            "of the state (a hook that declares a keyword 'memo' gets the loop's cache)")
    except Exception as exc:  # noqa: BLE001 -- the diagnosis is a hint; the failure above stands on its own
        return f"(no diagnosis: stepping the plan raised {type(exc).__name__}: {exc})"
    return (f"measure() and stop() left the first {DIAGNOSIS_STEPS} states unchanged: look for a value the trace "
            "schedule decides (a cache filled only at recorded iterations, a random draw in measure)")
