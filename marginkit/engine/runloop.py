"""The one run loop of every first-order plan (JAXopt's init/update idea).

A plan is a small object with

* ``init(rng, warm_start) -> state``       (the paper's initialisation),
* ``step(state) -> state``                  (one iteration of the paper's pseudo-code box),
* ``measure(state) -> dict``                (cheap metrics read off the state, for the trace and the log),
* ``stop(state) -> str | None``             (a status such as ``"optimal"`` when the plan's own certificate
                                             meets ``tol``, ``"infeasible"`` when it proves infeasibility),
* ``solution(state, status) -> Solution``  (the iterate and its certificate, in the plan's own form).

Everything else -- ``max_iter``, ``tol``, ``time_limit``, the user's ``callback``, ``seed``, ``verbose``
output, trace recording -- exists here exactly once.
"""
from __future__ import annotations

import math
import sys
import time as _time
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any, Callable

import array_api_compat as aac
import numpy as np

from ..core.params import Boolean, Interval, IsCallable, check_value
from ..core.result import Trace
from ..core.solution import Solution
from ..core.validation import ProblemError
from .assemble import build_result, fill_test_error, make_probe

@dataclass(frozen=True)
class Budget:
    """What the run loop passes to a plan's ``init`` and ``stop``: the run's budget and requested accuracy (a plan
    never stores it; budget-dependent constants are computed in ``init`` and kept in the state)."""

    max_iter: int
    tol: float
    time_limit: float | None = None


RUN_OPTIONS = ("max_iter", "tol", "time_limit", "callback", "seed", "verbose", "warm_start", "trace",
               "check_every", "test_set", "keep_iterates")


def record_schedule(kind, max_iter: int):
    """Iterations at which the trace is recorded.

    ``"geometric"`` (default): every iteration up to 10, then about 60 records per decade; the cost of
    recording is then a vanishing fraction of the run. An int ``k`` records every ``k``-th iteration;
    ``None``/``False`` records only the first and last iterate.
    """
    if kind is None or kind is False:
        return lambda t: t == 0
    if kind is True or kind == "geometric":
        ratio = 10 ** (1 / 60)
        state = {"next": 0}

        def due(t):
            if t >= state["next"]:
                state["next"] = max(t + 1, int(math.ceil(t * ratio)))
                return True
            return False
        return due
    if isinstance(kind, (int, np.integer)) and not isinstance(kind, bool) and kind >= 1:
        k = int(kind)
        return lambda t: t % k == 0
    raise ProblemError(f"trace must be 'geometric', a positive int or None; got {kind!r}")


# the run options, declared like a plan's parameters (one message format, NumPy scalars accepted)
RUN_CONSTRAINTS = {
    "max_iter": [Interval(int, 0, None)],
    "tol": [Interval(float, 0, None)],
    "time_limit": [None, Interval(float, 0, None, closed="neither")],
    "callback": [None, IsCallable()],
    "verbose": [Boolean(), Interval(int, 0, None)],
    "check_every": [Interval(int, 1, None)],
    "keep_iterates": [Boolean()],
}


def _check_run_options(options: dict):
    for name, kinds in RUN_CONSTRAINTS.items():
        if name in options:
            check_value("run", name, options[name], kinds)


def make_rng(seed):
    """``numpy.random.default_rng(seed)``; what it rejects (a negative or fractional seed, a string) is a
    ``ProblemError`` naming ``seed``."""
    try:
        return np.random.default_rng(seed)
    except (TypeError, ValueError) as exc:
        raise ProblemError(f"seed must be None, a non-negative int, a SeedSequence or a Generator; got {seed!r} ({exc})") from None


def _all_finite(value, depth: int = 0) -> bool:
    """True when no float array in ``value`` (a state: dataclass, NamedTuple, tuple of arrays) is NaN or inf."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind != "f" or bool(np.isfinite(value).all())
    if depth > 2 or value is None or isinstance(value, (str, bytes, int, float, np.generic)):
        return True
    if isinstance(value, tuple):
        items = value
    elif hasattr(value, "__dataclass_fields__"):
        items = [getattr(value, f) for f in value.__dataclass_fields__]
    else:
        return True
    return all(_all_finite(v, depth + 1) for v in items)


def _device_arrays(value, depth: int = 0) -> list:
    """The floating-point arrays of ``value`` (a state) that live in an array-API library other than NumPy (torch,
    CuPy, array-api-strict) and have at least one axis: their finiteness costs a device synchronisation, so the run
    loop checks them only when it checks the stop rule. Dask arrays are left out (a check would be a scheduler round
    trip per call; the dask plans keep their d-vectors in NumPy, which :func:`_all_finite` checks), and so are 0-d
    arrays (scalars such as a bound, which may legitimately be inf)."""
    if isinstance(value, (np.ndarray, np.generic)) or value is None or isinstance(value, (str, bytes, int, float)):
        return []
    if aac.is_array_api_obj(value):   # torch tensors have no ``__array_namespace__`` of their own
        # dask: a check would be a scheduler round trip; 0-d arrays are scalars such as a bound, which may be inf
        return [] if aac.is_dask_array(value) or value.ndim == 0 else [value]
    if depth > 2:
        return []
    if isinstance(value, tuple):
        items = value
    elif hasattr(value, "__dataclass_fields__"):
        items = [getattr(value, f) for f in value.__dataclass_fields__]
    else:
        return []
    return [a for v in items for a in _device_arrays(v, depth + 1)]


def _device_finite(state) -> bool:
    """True when no device array of ``state`` holds NaN or inf (one boolean per array reaches the host)."""
    for a in _device_arrays(state):
        xp = aac.array_namespace(a)
        if xp.isdtype(a.dtype, "real floating") and not bool(xp.all(xp.isfinite(a))):
            return False
    return True


class _Log:
    def __init__(self, name: str, columns, stream=None):
        self.columns = list(columns)
        self.stream = stream or sys.stdout
        head = f"{'iter':>8} {'time(s)':>9} " + " ".join(f"{c:>13}" for c in self.columns)
        print(f"marginkit: {name}", file=self.stream)
        print(head, file=self.stream)
        print("-" * len(head), file=self.stream)

    def row(self, t, elapsed, metrics):
        vals = " ".join(f"{metrics.get(c, float('nan')):>13.6e}" for c in self.columns)
        print(f"{t:>8d} {elapsed:>9.3f} {vals}", file=self.stream)

    def end(self, status, t, elapsed):
        print(f"status: {status} after {t} iterations, {elapsed:.3f}s", file=self.stream)


def run(plan, max_iter: int | None = None, tol: float | None = None, time_limit: float | None = None,
        callback: Callable[[Any], bool] | None = None, seed=None, verbose: bool = False,
        warm_start=None, trace="geometric", check_every: int = 1, test_set=None,
        keep_iterates: bool = False) -> Solution:
    """Run ``plan`` until its certificate meets ``tol`` or a budget is exhausted.

    Each trace record holds ``iteration``, ``time`` and the plan's ``measure``; the metrics that need the iterate are
    computed as the record is made, outside the timed part (:func:`marginkit.engine.assemble.make_probe`):
    ``test_error`` when ``test_set=(X_test, y_test)`` is given, ``angle_gap``/``dist_to_opt`` when the problem's
    reference is already cached. The iterates themselves are kept only with ``keep_iterates=True``.
    """
    max_iter = plan.default_max_iter if max_iter is None else max_iter
    tol = plan.default_tol if tol is None else tol
    _check_run_options(dict(max_iter=max_iter, tol=tol, time_limit=time_limit, callback=callback, verbose=verbose,
                            check_every=check_every, keep_iterates=keep_iterates))
    budget = Budget(int(max_iter), float(tol), time_limit)
    rng = make_rng(seed)
    due = record_schedule(trace, max_iter)
    probe = make_probe(getattr(plan, "origin", plan.form), test_set)
    tr = Trace(keep_iterates=bool(keep_iterates))
    log = _Log(plan.name, plan.log_columns) if verbose else None
    log_due = record_schedule("geometric", max_iter) if verbose else None
    logged = -1   # the last iteration printed (each row once)

    def record(t, elapsed, metrics):
        snap = plan.snapshot(state) if (keep_iterates or probe is not None) else None
        tr.record(t, elapsed, metrics if probe is None else {**metrics, **probe(snap)}, snap)

    start = _time.perf_counter()
    paused = 0.0  # time spent recording is excluded from the reported time
    state = plan.init(rng, warm_start, budget)
    status, t, message = None, 0, None
    checked, t_checked = state, 0
    if not plan.finite(state):
        return Solution(w=None, status="solver_error", time=_time.perf_counter() - start, trace=tr,
                        info={"message": "the starting point is not finite (check warm_start)"})
    while True:
        now = _time.perf_counter()
        rec = due(t)
        show = log_due is not None and log_due(t)
        if rec or show:
            metrics = plan.measure(state)
            if rec:
                record(t, now - start - paused, metrics)
            if show:
                log.row(t, now - start - paused, metrics)
                logged = t
            paused += _time.perf_counter() - now
        if t % check_every == 0 or t == max_iter:
            if not plan.device_finite(state):   # the guard for device arrays, at the stop's synchronisation only
                if checked is state or not plan.device_finite(checked):
                    return Solution(w=None, status="solver_error", time=_time.perf_counter() - start, trace=tr,
                                    info={"message": f"the iterate became non-finite by iteration {t} (the plan "
                                                     "updates its state in place: no finite iterate to return)"})
                message = (f"the iterate became non-finite between iterations {t_checked} and {t}: a step size too "
                           f"large for the data, or an overflow; the iterate of iteration {t_checked} (the last "
                           "checked finite) is returned")
                state, t, status = checked, t_checked, "solver_error"
                break
            checked, t_checked = state, t
            status = plan.stop(state, budget)
        if status is not None:
            break
        if t >= max_iter:
            status = "user_limit"
            break
        if time_limit is not None and now - start > time_limit:
            status = "user_limit"
            break
        if callback is not None and callback(state):
            status = "user_limit"
            break
        nxt = plan.step(state)
        if not plan.finite(nxt):   # the guard: never a non-finite iterate under any status
            status = "solver_error"
            message = (f"the iterate became non-finite in iteration {t + 1}: a step size too large for the data, "
                       f"or an overflow; the last finite iterate (iteration {t}) is returned")
            break
        state = nxt
        t += 1
    elapsed = _time.perf_counter() - start - paused
    final = None
    if len(tr) == 0 or tr["iteration"][-1] != t:
        final = plan.measure(state)
        record(t, elapsed, final)
    if log is not None:
        if logged != t:
            log.row(t, elapsed, final if final is not None else plan.measure(state))
        log.end(status, t, elapsed)
    sol = plan.solution(state, status)
    sol.iterations, sol.time, sol.trace = t, elapsed, tr
    sol.setup_time = float(getattr(plan, "setup_time", 0.0))
    if message is not None:
        sol.info = {**sol.info, "message": message}
    return sol


@dataclass(frozen=True)
class NoParameters:
    """The configuration of a plan without parameters of its own."""


_DOC_HOOK = None


def set_doc_hook(hook) -> None:
    """Dependency inversion for ``help()``: the api layer (:mod:`marginkit.describe`) hands down ``hook(cls) -> str``,
    the plan's docstring with its options appended; it is applied to every plan class, already defined or later."""
    global _DOC_HOOK
    _DOC_HOOK = hook
    todo = list(IterationPlan.__subclasses__())
    while todo:
        cls = todo.pop()
        _document(cls)
        todo.extend(cls.__subclasses__())


def _document(cls) -> None:
    if _DOC_HOOK is None or "Config" not in cls.__dict__ or cls.__dict__.get("_documented", False):
        return
    try:
        cls.__doc__ = _DOC_HOOK(cls)
    except (OSError, TypeError, ValueError):   # no source to read (a frozen build): keep the docstring as written
        return
    cls._documented = True


class IterationPlan:
    """Base class of the first-order plans: a frozen, compiled plan.

    A subclass declares ``Config``, a frozen dataclass whose fields are the paper's parameters with their defaults
    and whose ``constraints`` declare the accepted values (:mod:`marginkit.core.params`, checked once, by
    :meth:`compile`), and implements the hooks:

    * ``setup()``                                (compile time: constants of the data and the config, set on ``self``),
    * ``init(rng, warm_start, budget) -> state`` (the paper's initialisation; the random generator, caches and
                                                  budget-dependent constants go into the state),
    * ``step(state) -> state``, ``measure(state) -> dict``, ``stop(state, budget) -> status | None``,
      ``snapshot(state)``, ``solution(state, status) -> Solution``.

    After ``setup`` the plan is frozen: nothing, the run loop included, writes to it, so ``iterate()`` and ``run()``
    give the same iterates for the same seed. Config fields read as attributes (``plan.theta``).
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _document(cls)          # help(PlanClass) lists its options (set_doc_hook)


    name = "plan"
    default_max_iter = 1000
    default_tol = 1e-6
    log_columns: tuple = ()
    Config = NoParameters

    def __init__(self, form, config=None, *, origin=None, chain=None, method=None, run_defaults=None):
        object.__setattr__(self, "form", form)
        object.__setattr__(self, "config", self.Config() if config is None else config)
        object.__setattr__(self, "origin", form if origin is None else origin)
        object.__setattr__(self, "chain", chain)
        object.__setattr__(self, "method", method or self.name)
        object.__setattr__(self, "run_defaults", MappingProxyType(dict(run_defaults or {})))
        start = _time.perf_counter()
        self.setup()
        object.__setattr__(self, "setup_time", _time.perf_counter() - start)   # reported as Result.setup_time
        object.__setattr__(self, "_frozen", True)

    @classmethod
    def compile(cls, form, options: dict, method: str | None = None, **binding):
        """Check ``options`` against ``Config`` (unknown names, declared constraints) and build the frozen plan."""
        from ..core.params import make_config
        config = make_config(cls.Config, method or cls.name, options, RUN_OPTIONS)
        return cls(form, config, method=method, **binding)

    def __setattr__(self, key, value):
        if self.__dict__.get("_frozen", False):
            raise AttributeError(f"{type(self).__name__} is frozen after compile: {key!r} cannot be set; "
                                 "keep what changes in the state")
        object.__setattr__(self, key, value)

    def __getattr__(self, name):
        config = self.__dict__.get("config")
        if config is not None and name in {f.name for f in fields(config)}:
            return getattr(config, name)
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    # hooks ---------------------------------------------------------------------------------------
    def setup(self):
        """Compile-time constants of the data and the config (the only place a plan sets attributes)."""

    def init(self, rng, warm_start, budget):
        raise NotImplementedError

    def step(self, state):
        raise NotImplementedError

    def measure(self, state) -> dict:
        return {}

    def stop(self, state, budget):
        return None

    def snapshot(self, state):
        """The iterate kept with each trace record (for gap metrics computed after the run)."""
        return None

    def finite(self, state) -> bool:
        """Whether every floating-point array the state holds is finite (the run loop's guard, checked after every
        step). It reads the stored arrays only, one pass over memory: no product with the data, no certificate
        (``snapshot`` may compute those, so it is not used here)."""
        return _all_finite(state)

    def device_finite(self, state) -> bool:
        """Whether the state's arrays on an array-API device (torch, CuPy, array-api-strict) are finite: the run
        loop calls it only where it checks the stop rule (every ``check_every`` iterations), so a step never
        synchronises a device; a non-finite state there ends the run with ``solver_error`` and the last checked
        iterate. NumPy states answer ``True`` at once (:meth:`finite` already checked them)."""
        return _device_finite(state)

    def solution(self, state, status) -> Solution:
        raise NotImplementedError

    # notebook-friendly stepping ------------------------------------------------------------------
    def iterate(self, n_steps: int, seed=None, warm_start=None, tol=None):
        """Yield ``n_steps + 1`` states, starting with the initial one (for stepping in a notebook). The states are
        the ones ``run(seed=seed, max_iter=n_steps)`` goes through."""
        check_value("iterate", "n_steps", n_steps, [Interval(int, 0, None)])
        budget = Budget(int(n_steps), float(self.default_tol if tol is None else tol))
        state = self.init(make_rng(seed), warm_start, budget)
        yield state
        for _ in range(n_steps):
            state = self.step(state)
            yield state

    def run(self, **options):
        """Run to a stop and return the :class:`~marginkit.Result` for the user's problem."""
        return run_compiled(self, **options)

    def run_solution(self, **options) -> Solution:
        opts = {**self.run_defaults, **options}
        unknown = set(opts) - set(RUN_OPTIONS)
        if unknown:
            raise ProblemError(f"unknown run option(s) {sorted(unknown)} for method {self.name!r}")
        return run(self, **opts)


def run_compiled(plan, **options):
    """Run a compiled plan and map its solution back through the chain to a ``Result``."""
    sol = plan.run_solution(**options)
    sol = plan.chain.invert(sol) if plan.chain is not None else sol
    res = build_result(plan.origin, sol, plan.method, form=plan.form)
    test_set = {**plan.run_defaults, **options}.get("test_set")
    if test_set is not None:
        fill_test_error(plan.origin, res, test_set)
    return res
