"""Measurement helpers: wall time, the :class:`Outcome` of one competitor on one row, what a race records, the
per-iteration cost of a plan (through the plan protocol of ``marginkit.engine.runloop``) and memory peaks.

How things are timed (the same for every row):

* **Wall time** of the user-facing call, the median of ``repeats`` runs; a run longer than :data:`SLOW_SECONDS`
  is not repeated, and one shorter than :data:`SHORT_SECONDS` is repeated at least :data:`SHORT_REPEATS` times
  (:func:`repeats_for`).
* **Side by side**: competitors run interleaved in one session.
"""
from __future__ import annotations

import math
import time
import tracemalloc
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

SLOW_SECONDS = 20.0          # runs longer than this are not repeated
SHORT_SECONDS = 0.01         # runs shorter than this are repeated at least SHORT_REPEATS times (when repeating)
SHORT_REPEATS = 7


def repeats_for(seconds: float, repeats: int) -> int:
    """How many runs in all of a competitor whose first run took ``seconds``: ``repeats``, at least
    :data:`SHORT_REPEATS` under :data:`SHORT_SECONDS` (when ``repeats > 1``), 1 above :data:`SLOW_SECONDS`. The
    same rule for marginkit's methods and for the peers. Why: on this shared 2-core machine, runs of about 1 ms
    varied by up to 2x between bench runs (phishing: ``solve("auto")`` 0.82 ms in one run, 1.25 ms in the next,
    0.65-0.74 ms in isolation; a 2-thread peer 1.2 ms and 2.3 ms), so three runs did not settle a row judged on
    its worst instance."""
    if seconds > SLOW_SECONDS:
        return 1
    return max(repeats, SHORT_REPEATS) if repeats > 1 and seconds < SHORT_SECONDS else repeats


@contextmanager
def child(ctx, target, *args):
    """``target(send, *args)`` in a daemon child process of the multiprocessing context ``ctx``; yields the receiving
    end of its pipe, and on leaving kills the child if it still runs, waits for it and closes the pipe (the capped
    runs of the CVXPY solvers, libsvm and the peers)."""
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=target, args=(send, *args), daemon=True)
    proc.start()
    send.close()
    try:
        yield recv
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        recv.close()


def wall(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


@dataclass
class Outcome:
    """One competitor on one row: median time over its runs (``None`` if it hit its cap), accuracy reached."""

    label: str
    times: list = field(default_factory=list)
    capped: bool = False
    cap: float | None = None
    accuracy: float | None = None
    status: str = ""
    info: dict = field(default_factory=dict)
    result: object = None

    @property
    def time(self) -> float:
        return math.inf if self.capped or not self.times else float(np.median(self.times))

    @property
    def method(self) -> str:
        """The marginkit method of a ``marginkit:<method>`` label."""
        return self.label.split(":", 1)[1]

    def shown_time(self):
        return None if not np.isfinite(self.time) else round(self.time, 6)


def fastest(outcomes) -> Outcome | None:
    done = [o for o in outcomes if np.isfinite(o.time)]
    return min(done, key=lambda o: o.time) if done else None


def cvxpy_ratio(ours: Outcome, cvx: list[Outcome]):
    """``(ratio, bound)`` of the fastest CVXPY solver's time over ``ours`` (``bound``: ``"lower"`` when every
    solver hit its cap)."""
    best = fastest(cvx)
    if best is not None:
        return best.time / ours.time, None
    caps = [o.cap for o in cvx if o.capped and o.cap]
    if caps:
        return min(caps) / ours.time, "lower"
    return None, None


def times(*groups) -> dict:
    out = {}
    for g in groups:
        for o in (g if isinstance(g, list) else [g]):
            if o is None:
                continue
            out[o.label] = o.shown_time()
            if o.capped:
                out[o.label + " (stopped at s)"] = round(o.cap, 3)
    return out


def accuracies(*groups) -> dict:
    out = {}
    for g in groups:
        for o in (g if isinstance(g, list) else [g]):
            if o is not None and o.accuracy is not None:
                out[o.label] = float(o.accuracy)
    return out


def record_race(row, win, outs, cvx) -> None:
    """Times, accuracies, the ratio of the fastest marginkit method to the fastest CVXPY solver, and errors."""
    row.times, row.accuracy = times(outs, cvx), accuracies(outs, cvx)
    row.ratio, row.ratio_bound = cvxpy_ratio(win, cvx)
    row.details["fastest_marginkit"] = win.label
    row.details["iterations"] = {o.label: o.info.get("iterations") for o in outs}
    errs = {o.label: o.info.get("error") for o in outs + cvx if o.info.get("error")}
    if errs:
        row.details["errors"] = errs


def plan_iteration_cost(plan, X, steps: int, records_over: int = 1000) -> dict:
    """Median seconds of one run-loop iteration (``step`` + ``stop``) and of one trace record (``measure`` +
    ``snapshot``), interleaved with ``X @ w`` and ``X.T @ u`` on the plan's own data; ``ratio_Xw`` and
    ``ratio_both`` are medians of the per-iteration ratios (robust to the load drifting during the row);
    ``records_per_1000`` counts the default (geometric) trace's records over ``records_over`` iterations."""
    from marginkit.engine.runloop import Budget, record_schedule
    budget = Budget(10 ** 9, 0.0)
    if not plan.__dict__.get("_frozen", False):   # as the run loop does for plans not yet frozen
        plan.tol, plan.max_iter = budget.tol, budget.max_iter
    st = plan.init(np.random.default_rng(0), None, budget)
    st = plan.step(st)  # warm-up (caches, numba)
    n, d = X.shape
    rng = np.random.default_rng(1)
    w, u = rng.standard_normal(d), rng.standard_normal(n)
    it, rec, xw, xtu = [], [], [], []
    for _ in range(steps):
        t0 = time.perf_counter()
        st = plan.step(st)
        plan.stop(st, budget)
        t1 = time.perf_counter()
        plan.measure(st)
        plan.snapshot(st)
        t2 = time.perf_counter()
        X @ w
        t3 = time.perf_counter()
        X.T @ u
        t4 = time.perf_counter()
        it.append(t1 - t0)
        rec.append(t2 - t1)
        xw.append(t3 - t2)
        xtu.append(t4 - t3)
    due = record_schedule("geometric", records_over)
    records = sum(1 for t in range(records_over + 1) if due(t))
    it, rec, xw, xtu = (np.array(v) for v in (it, rec, xw, xtu))
    return {"iteration": float(np.median(it)), "record": float(np.median(rec)), "Xw": float(np.median(xw)),
            "XTu": float(np.median(xtu)), "ratio_Xw": float(np.median(it / xw)),
            "ratio_both": float(np.median(it / (xw + xtu))), "record_ratio": float(np.median(rec / it)),
            "records_per_1000": records}


def peak_bytes(fn) -> int:
    """tracemalloc's peak above what was allocated before ``fn()``."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
