"""The one run loop of every first-order plan (JAXopt's init/update idea).

A plan is a small object with

* ``init(rng, warm_start, budget) -> state`` (the paper's initialisation),
* ``step(state) -> state``                   (one iteration of the paper's pseudo-code box),
* ``measure(state) -> dict``                 (cheap metrics read off the state, for the trace and the log),
* ``stop(state, budget) -> str | None``      (a status such as ``"optimal"`` when the plan's own certificate
                                              meets ``tol``, ``"infeasible"`` when it proves infeasibility),
* ``solution(state, status) -> Solution``   (the iterate and its certificate, in the plan's own form).

Everything else exists here exactly once: the options (:mod:`.options`, declared once and checked at compile time),
the loop (:func:`run_loop`), what it observes (:mod:`.recorder`: trace, log, paused time) and the non-finite guard
(:mod:`.guard`). ``measure`` and ``stop`` only read the state; a plan whose trace and stop test share a costly
certificate declares a keyword ``memo`` in them and gets the loop's :class:`Memo`, the one cache of the run. Hooks'
answers are checked where they arrive (:mod:`.protocol`); ``time_limit`` covers ``setup`` and ``init`` too.
"""
from __future__ import annotations

import functools
import inspect
import time as _time
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ..core.errors import SolverFailure
from ..core.params import Interval, check_value, field_set, make_config
from ..core.solution import Solution
from .assemble import build_result, fill_test_error
from .guard import Guard, all_finite, device_finite
from .checkpoint import SAVED_OPTIONS, Checkpointer, deferred_interrupt, resumed_options
from .checkpoint import load as load_checkpoint
from .predictions import PredictionStop, check_prediction_stop
from .options import RUN_OPTION_DOCS, RUN_OPTIONS, RunOptions, make_rng, run_options
from .protocol import PLAN_STATUSES, checked_measure, stop_error
from .recorder import Recorder, on_geometric_schedule, record_schedule

__all__ = ["Budget", "IterationPlan", "Memo", "memoized", "RUN_OPTIONS", "RUN_OPTION_DOCS", "RunOptions", "make_rng",
           "on_geometric_schedule", "record_schedule", "run_loop"]


@dataclass(frozen=True)
class Budget:
    """What the run loop passes to a plan's ``init`` and ``stop``: the run's budget and requested accuracy (a plan
    never stores it; budget-dependent constants are computed in ``init`` and kept in the state)."""

    max_iter: int
    tol: float
    time_limit: float | None = None


class Memo:
    """The run's one cache, owned by the loop: values computed from the current state (a certificate that the trace
    and the stop test both read is computed once), dropped when the loop steps; and ``rule``, the stop rule's own
    memory across iterations (a check schedule), which is not part of the iterate. A plan reaches it by declaring a
    keyword ``memo`` in ``measure``/``stop``/``solution``; called without it (stepping in a notebook), the plan
    computes directly."""

    __slots__ = ("values", "rule")

    def __init__(self):
        self.values: dict = {}
        self.rule: dict = {}

    def get(self, key, compute):
        """The value of ``key`` for the current state, computed by ``compute()`` at most once."""
        try:
            return self.values[key]
        except KeyError:
            value = self.values[key] = compute()
            return value

    def advance(self) -> None:
        """The loop moved to another state: what was computed from the last one no longer holds."""
        self.values.clear()


def memoized(memo: Memo | None, key, compute):
    """``memo.get(key, compute)``, or ``compute()`` outside a run."""
    return compute() if memo is None else memo.get(key, compute)


@functools.lru_cache(maxsize=512)
def _takes_memo(function) -> bool:
    """Whether a hook's function has a ``memo`` parameter (asked once per function: ``inspect.signature`` costs
    tens of microseconds, several times per run)."""
    try:
        return "memo" in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def _with_memo(hook, memo):
    function = getattr(hook, "__func__", hook)   # a bound method: its function (the same for every plan object)
    try:
        takes = _takes_memo(function)
    except TypeError:   # an unhashable callable
        takes = _takes_memo.__wrapped__(function)
    return functools.partial(hook, memo=memo) if takes else hook


def _callback_stops(callback, state) -> bool:
    """Whether ``callback(state)`` asks the loop to stop; an answer other than True/False/None (an array, say, whose
    truth is ambiguous) is a user's mistake, named as such rather than left to a raw ``ValueError``."""
    answer = callback(state)
    if answer is None or isinstance(answer, (bool, np.bool_)) or \
            (getattr(answer, "shape", None) == () and "bool" in str(getattr(answer, "dtype", ""))):
        return bool(answer)   # a 0-d boolean array of any backend has one truth value
    from ..core.validation import ProblemError
    raise ProblemError(f"callback must return True (stop), False or None (go on); it returned "
                       f"{type(answer).__name__} {answer!r:.60}")


class Clock:
    """The run's wall-clock budget: ``time_limit`` counts from ``begin`` (the plan's compile when the limit was given
    to ``solve``/``compile``, else the start of the run), and the loop never starts an iteration it cannot finish in
    time. It measures what a step, a stop test and a trace record cost (the step by a maximum that decays by half
    per iteration, so one slow step is remembered but noise is not) and stops when the next iteration, the next
    checks and the work after the loop (the last record and the solution's certificate) would overrun the
    deadline: on a loaded machine and at any cost per iteration the run returns within about ``time_limit``."""

    __slots__ = ("deadline", "step", "check", "record", "save")

    def __init__(self, begin: float, time_limit: float | None):
        self.deadline = None if time_limit is None else begin + time_limit
        self.step = self.check = self.record = self.save = 0.0   # save: the last checkpoint's write (one follows)

    def stepped(self, seconds: float) -> None:
        self.step = max(seconds, 0.5 * self.step)

    def spent(self, now: float, check_next: bool) -> bool:
        """Whether the budget is spent at ``now``: another step, its record and checks, then the final record and
        the solution would end past the deadline."""
        if self.deadline is None:
            return False
        return (now + self.step + 2.0 * self.record + self.check * (2.0 if check_next else 1.0) + self.save
                > self.deadline)


def run_loop(plan, opts: RunOptions, begin: float | None = None, resumed: dict | None = None) -> Solution:
    """Run ``plan`` with resolved options until its certificate meets ``tol`` or a budget is exhausted; the
    :class:`~marginkit.core.solution.Solution` in the plan's own form. ``begin``: the ``perf_counter`` time the
    ``time_limit`` counts from (default: now). ``resumed``: a checkpoint's rest point (:func:`.checkpoint.load`) to
    continue from instead of ``init``; with ``opts.checkpoint`` the run is saved as it goes (:mod:`.checkpoint`: at
    the rest point, an iteration observed and checked before the next step; at the end; on Ctrl-C)."""
    max_iter, check_every, time_limit, callback = opts.max_iter, opts.check_every, opts.time_limit, opts.callback
    budget = Budget(max_iter, opts.tol, time_limit)
    memo = Memo()
    stop = _with_memo(plan.stop, memo)
    recorder = Recorder(plan, opts, checked_measure(_with_memo(plan.measure, memo), plan.measure),
                        _with_memo(plan.snapshot, memo))
    saver = None if opts.checkpoint is None else Checkpointer(plan, opts.checkpoint, opts.checkpoint_every)
    predictions = None if opts.stop_when is None else PredictionStop(plan, opts.X_certify)

    start = _time.perf_counter()
    status, t, message, timed_out = None, 0, None, False
    state = None
    try:   # a lost dask cluster (core/backend/dask_rows.py), wherever it shows: the end of the run, with its reason
        if resumed is None:
            clock = Clock(start if begin is None else min(begin, start), time_limit)
            state = plan.init(make_rng(opts.seed), opts.warm_start, budget)
            now = _time.perf_counter()
            clock.stepped(now - start)   # the first estimate of a step: init's products with the data
            if clock.deadline is not None and now > clock.deadline:   # setup and init alone spent the budget
                status, timed_out = "user_limit", True
                message = (f"setup ({getattr(plan, 'setup_time', 0.0):.3g} s) and init ({now - start:.3g} s) took "
                           f"longer than time_limit={time_limit:g} s: the run stopped before its first iteration")
        else:
            start -= resumed["elapsed"]   # the reported time and time_limit count the time before the interruption
            clock = Clock(start if begin is None else min(begin, start), time_limit)
            clock.step, clock.check, clock.record, clock.save = resumed["clock"]
            state, t, memo.rule = resumed["state"], resumed["t"], resumed["rule"]
            recorder.restore(resumed["recorder"])
            end = resumed["finished"]
            if end is not None and end["status"] != "user_limit":   # a proven end stays; a budget is tested again
                status, message = end["status"], end["message"]
        guard = Guard(plan, state)
        guard.t_checked = t
        if not guard.finite(state):
            return Solution(w=None, status="solver_error", time=_time.perf_counter() - start, trace=recorder.trace,
                            info={"message": "the starting point is not finite (check warm_start)"})
        kept = {k: getattr(opts, k) for k in SAVED_OPTIONS
                if k != "seed" or isinstance(opts.seed, (int, np.integer, type(None)))}

        def save(finished=None) -> None:
            point = {"t": t, "state": state, "rule": memo.rule, "recorder": recorder.position(),
                     "elapsed": _time.perf_counter() - start - recorder.paused, "options": kept, "finished": finished,
                     "clock": (clock.step, clock.check, clock.record, clock.save)}
            clock.save = saver.save(point)
            recorder.pause(clock.save)   # writing checkpoints is left out of the reported time, as recording is

        at_rest = resumed is not None   # a resumed run enters at the rest point it was saved at
        with deferred_interrupt(saver):
            while status is None:
                if at_rest:
                    at_rest = False
                else:
                    status = _observe_and_check(t, state, start, check_every, recorder, clock, guard, memo, stop,
                                                budget)
                    if isinstance(status, tuple):   # the guard ended the run
                        state, t, message = status[1:]
                        if state is None:
                            return Solution(w=None, status="solver_error", time=_time.perf_counter() - start,
                                            trace=recorder.trace, info={"message": message})
                        status = "solver_error"
                    if status is None and predictions is not None and predictions.due(t, check_every) and \
                            predictions(state, _with_memo(plan.solution, memo)):
                        status = "user_limit"
                    if status is not None:
                        break
                    if saver is not None and (saver.interrupted or saver.due()):
                        save()
                        if saver.interrupted:   # a deferred Ctrl-C: saved at this rest point
                            raise KeyboardInterrupt
                ts = _time.perf_counter()   # a step's cost counts the callback too
                if t < max_iter and clock.spent(ts, (t + 1) % check_every == 0):
                    status, timed_out = "user_limit", True
                    break
                try:
                    stops = t >= max_iter or (callback is not None and _callback_stops(callback, state))
                except KeyboardInterrupt:   # the callback interrupted the run at a rest point: save it, then re-raise
                    if saver is not None:
                        save()
                    raise
                if stops:
                    status = "user_limit"
                    break
                nxt = plan.step(state)
                memo.advance()
                if not guard.finite(nxt):   # never a non-finite iterate under any status
                    status = "solver_error"
                    message = (f"the iterate became non-finite in iteration {t + 1}: a step size too large for the "
                               f"data, or an overflow; the last finite iterate (iteration {t}) is returned")
                    break
                clock.stepped(_time.perf_counter() - ts)
                state = nxt
                t += 1
        elapsed = _time.perf_counter() - start - recorder.paused
        if saver is not None:
            save({"status": status, "message": message, "timed_out": timed_out})
        trace = recorder.finish(t, state, elapsed, status)
        sol = _with_memo(plan.solution, memo)(state, status)
    except SolverFailure as exc:
        return _lost(exc, t, state, recorder, start)
    sol.iterations, sol.time, sol.trace = t, elapsed, trace
    sol.setup_time = float(getattr(plan, "setup_time", 0.0))
    # which budget ended the run (the clock stops it a predicted iteration early), and what else the run says
    stopped_by = "predictions" if predictions is not None and predictions.fired else "time_limit" if timed_out else None
    extra = {"message": message, "stopped_by": stopped_by, "resumed_at": None if resumed is None else int(resumed["t"]),
             "checkpoint_error": None if saver is None else saver.failed}
    extra = {k: v for k, v in extra.items() if v is not None}
    if extra:
        sol.info = {**sol.info, **extra}
    if saver is not None and saver.interrupted:   # Ctrl-C during the last iteration: saved with its result
        raise KeyboardInterrupt
    return sol


def _lost(exc: SolverFailure, t: int, state, recorder, start: float) -> Solution:
    """The end of a run whose compute resources are lost (:class:`~marginkit.core.errors.SolverFailure`, raised by the
    array backend when the dask cluster lost its scheduler or its workers failed a task): ``solver_error`` with the
    reason in ``info["message"]``, the iterations and trace so far, and ``info["last_iterate"]``, the plan's snapshot
    of its last iterate where that is on this process (a NumPy vector of the form the method ran on). ``w`` is None:
    nothing more is computed, as every field of a result is recomputed on the data, which may be gone."""
    info = {"message": str(exc)}
    try:
        last = None if state is None else recorder.snapshot(state)
    except SolverFailure:   # the snapshot needs the lost cluster
        last = None
    if last is not None:
        info["last_iterate"] = last
    return Solution(w=None, status="solver_error", iterations=t, time=_time.perf_counter() - start - recorder.paused,
                    setup_time=float(getattr(recorder.plan, "setup_time", 0.0)), trace=recorder.trace, info=info)


def _observe_and_check(t, state, start, check_every, recorder, clock, guard, memo, stop, budget):
    """Record iteration ``t`` (if the schedule says so) and test the stop rule (every ``check_every``-th iteration
    and at ``max_iter``): the status, None to go on, or the guard's ``("guard", state, t, message)``."""
    now = _time.perf_counter()
    paused = recorder.paused
    recorder.observe(t, state, now, start)
    if recorder.paused != paused:
        clock.record = recorder.paused - paused
    if not (t % check_every == 0 or t == budget.max_iter):
        return None
    tc = _time.perf_counter()
    failed = guard.at_check(state, t)
    if failed is not None:
        last, t, message = failed
        if last is not None and last is not state:
            memo.advance()
        return "guard", last, t, message
    status = stop(state, budget)
    if status is not None and (not isinstance(status, str) or status not in PLAN_STATUSES):
        raise stop_error(stop, status, t)
    clock.check = _time.perf_counter() - tc
    return status


@dataclass(frozen=True)
class NoParameters:
    """The configuration of a plan without parameters of its own."""


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
        # the run options given at compile time, checked now (``compile(..., tol=-1)`` raises, not ``run()``)
        if run_options(self.method, dict(run_defaults or {})).stop_when is not None:
            check_prediction_stop(self.origin, run_defaults["X_certify"])
        object.__setattr__(self, "run_defaults", MappingProxyType(dict(run_defaults or {})))
        start = _time.perf_counter()
        self.setup()
        object.__setattr__(self, "setup_time", _time.perf_counter() - start)   # reported as Result.setup_time
        object.__setattr__(self, "_frozen", True)

    @classmethod
    def compile(cls, form, options: dict, method: str | None = None, **binding):
        """Check ``options`` against ``Config`` (unknown names, declared constraints) and build the frozen plan."""
        config = make_config(cls.Config, method or cls.name, options, RUN_OPTIONS)
        return cls(form, config, method=method, **binding)

    def __getstate__(self):   # pickle and deepcopy: the read-only view of the run options is kept as a dict
        return {**self.__dict__, "run_defaults": dict(self.run_defaults)}

    def __setstate__(self, state):
        self.__dict__.update(state, run_defaults=MappingProxyType(state["run_defaults"]))

    def __setattr__(self, key, value):
        if self.__dict__.get("_frozen", False):
            raise AttributeError(f"{type(self).__name__} is frozen after compile: {key!r} cannot be set; "
                                 "keep what changes in the state")
        object.__setattr__(self, key, value)

    def __getattr__(self, name):
        config = self.__dict__.get("config")
        if config is not None and name in field_set(type(config)):
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
        return all_finite(state)

    def device_finite(self, state) -> bool:
        """Whether the state's arrays on an array-API device (torch, CuPy, array-api-strict) are finite: the run
        loop calls it only where it checks the stop rule (every ``check_every`` iterations), so a step never
        synchronises a device; a non-finite state there ends the run with ``solver_error`` and the last checked
        iterate. NumPy states answer ``True`` at once (:meth:`finite` already checked them)."""
        if getattr(getattr(self.form, "backend", None), "kind", None) == "numpy":   # no device array to check
            return True
        return device_finite(state)

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
        """Run to a stop and return the :class:`~marginkit.Result` for the user's problem. ``options`` (the run
        options, :class:`~marginkit.engine.options.RunOptions`) override those given at compile time."""
        sol = self.run_solution(**options)
        sol = self.chain.invert(sol) if self.chain is not None else sol
        res = build_result(self.origin, sol, self.method, form=self.form)
        test_set = {**self.run_defaults, **options}.get("test_set")
        if test_set is not None:
            fill_test_error(self.origin, res, test_set)
        return res

    def run_solution(self, **options) -> Solution:
        """Run to a stop; the :class:`~marginkit.core.solution.Solution` in the plan's own form (before the
        reduction chain maps it back to the user's problem)."""
        given, resumed = {**self.run_defaults, **options}, None
        if given.get("resume") is not None:   # checked before anything runs or is written (a refused resume
            run_options(self.method, given)    # leaves every file as it was)
            resumed = load_checkpoint(given["resume"], self)
            given = resumed_options(resumed, given, self.method)
        opts = run_options(self.method, given).resolved(self)
        # a time_limit given with the plan (``solve``/``compile``) covers its setup too: the caller waits for both
        begin = _time.perf_counter() - self.setup_time if "time_limit" not in options else None
        return run_loop(self, opts, begin, resumed)
