"""What the run loop accepts from a plan's hooks, checked where each answer arrives (a plan from outside marginkit
learns which hook broke the protocol, with what, at the step where it happened).

* ``stop(state, budget)`` returns None (go on) or a status its own certificate proves, one of
  :data:`PLAN_STATUSES`: every status of :data:`marginkit.core.result.STATUSES` but ``"user_limit"``, which is the
  loop's to decide (``max_iter``, ``time_limit``, a callback). One tuple membership test per check.
* ``measure(state)`` returns a dict of metric names to numbers (checked where the loop calls it: at trace records
  and log lines, never per step).

A broken answer is a :class:`~marginkit.core.errors.PlanError` (a ``ProblemError``) naming the hook, what it must
return and what came back. ``marginkit.testing.check_plan`` holds a plan to the same rules hook by hook.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..core.errors import PlanError
from ..core.result import STATUSES

__all__ = ["PLAN_STATUSES", "checked_measure", "hook_name", "measure_problem", "stop_error"]

#: what ``stop`` may return besides None: a status the plan's certificate proves ("user_limit" is the loop's)
PLAN_STATUSES: tuple[str, ...] = tuple(s for s in STATUSES if s != "user_limit")


def hook_name(hook) -> str:
    """``Class.hook`` for a bound method (also inside the ``functools.partial`` that passes the loop's memo)."""
    function = getattr(hook, "func", hook)
    owner = getattr(function, "__self__", None)
    name = getattr(function, "__name__", "hook")
    return f"{type(owner).__name__}.{name}" if owner is not None else name


def stop_error(hook, status, t: int) -> PlanError:
    """The :class:`PlanError` for ``stop`` returning ``status`` (not None, not one of :data:`PLAN_STATUSES`) at
    iteration ``t``."""
    if isinstance(status, str) and status == "user_limit":
        change = ("'user_limit' means that a budget stopped the run, and the budgets are the loop's: return None and "
                  "let max_iter, time_limit or a callback stop it (read budget.max_iter in init if the plan needs it)")
    elif isinstance(status, (bool, np.bool_)):
        change = "return None to go on (not False) and a status string to stop"
    elif isinstance(status, str):
        change = f"{status!r} is no status: return one of the statuses of the contract"
    else:
        change = "return None or a status string"
    return PlanError(f"{hook_name(hook)}(state, budget) returned {type(status).__name__} {status!r:.60} at iteration "
                     f"{t}; it must return None (go on) or a status that the plan's certificate proves, one of "
                     f"{', '.join(map(repr, PLAN_STATUSES))}: {change}")


def _is_number(v) -> bool:
    if isinstance(v, (numbers.Real, np.number, np.bool_)):
        return True
    dtype = getattr(v, "dtype", None)   # a 0-d array of any library (a device scalar)
    return getattr(v, "shape", None) == () and dtype is not None and "str" not in str(dtype) \
        and "object" not in str(dtype)


def measure_problem(metrics) -> str | None:
    """None when ``metrics`` is a dict of metric names (strings) to numbers; else what is wrong with it."""
    if not isinstance(metrics, dict):
        return f"{type(metrics).__name__} {metrics!r:.80}"
    for key, value in metrics.items():
        if not isinstance(key, str):
            return f"a dict with the key {key!r:.40} (a {type(key).__name__}; metric names are strings)"
        if not _is_number(value):
            return f"a dict whose {key!r} is {type(value).__name__} {value!r:.60}"
    return None


def checked_measure(measure, plan_hook):
    """``measure`` (the plan's hook, with the loop's memo where it takes one) with its answer checked at every
    call: :class:`PlanError` naming ``plan_hook`` when it is not a dict of numbers."""
    def checked(state):
        metrics = measure(state)
        problem = measure_problem(metrics)
        if problem is not None:
            raise PlanError(f"{hook_name(plan_hook)}(state) returned {problem}; it must return a dict of metric "
                            "names to numbers (the trace's columns, docs/TRACE.md): return {'margin': m, ...}, with "
                            "float(...) around a value that is an array or a container")
        return metrics
    return checked
