"""What the run loop observes, kept apart from what it decides: the trace, the verbose log and the time they take.

The :class:`Recorder` is the loop's one observer. It reads states (through the plan's ``measure`` and ``snapshot``)
and never writes them, and the time it spends is paused out of the reported time. Whether and when it records can
therefore never change a run's iterates or its stop (the contract: ``trace=`` never changes a run's iterates or its
stop; ``marginkit.testing.check_plan`` holds every plan to it).
"""
from __future__ import annotations

import bisect
import math
import sys
import time as _time

import numpy as np

from ..core.result import Trace
from ..core.validation import ProblemError
from .assemble import make_probe


def record_schedule(kind, max_iter: int | None = None):
    """Iterations at which the trace is recorded.

    ``"geometric"`` (default): every iteration up to 10, then about 60 records per decade; the cost of
    recording is then a vanishing fraction of the run. An int ``k`` records every ``k``-th iteration;
    ``None``/``False`` records only the first and last iterate.
    """
    if kind is None or kind is False:
        return _Every(None)
    if kind is True or kind == "geometric":
        return _Geometric()
    if isinstance(kind, (int, np.integer)) and not isinstance(kind, bool) and kind >= 1:
        return _Every(int(kind))
    raise ProblemError(f"trace must be 'geometric', a positive int or None; got {kind!r}")


# the schedules are small objects rather than closures so that a checkpoint can pickle the recorder's position
class _Every:
    """Every ``k``-th iteration (``k=None``: the first only)."""

    __slots__ = ("k",)

    def __init__(self, k: int | None):
        self.k = k

    def __call__(self, t: int) -> bool:
        return t == 0 if self.k is None else t % self.k == 0


class _Geometric:
    """Every iteration up to 10, then about 60 per decade; ``next`` is its position (it is asked in increasing t)."""

    __slots__ = ("next",)
    ratio = 10 ** (1 / 60)

    def __init__(self):
        self.next = 0

    def __call__(self, t: int) -> bool:
        if t >= self.next:
            self.next = max(t + 1, int(math.ceil(t * self.ratio)))
            return True
        return False


_GEOMETRIC: list[int] = []


def on_geometric_schedule(t: int) -> bool:
    """Whether iteration ``t`` is on the geometric schedule of :func:`record_schedule` (a pure function of ``t``:
    a stop rule may check its certificate there, whatever the trace records)."""
    if not _GEOMETRIC or _GEOMETRIC[-1] < t:
        due = record_schedule("geometric")
        _GEOMETRIC.clear()
        _GEOMETRIC.extend(s for s in range(max(2 * t, 64) + 1) if due(s))
    i = bisect.bisect_left(_GEOMETRIC, t)   # the schedule is increasing
    return i < len(_GEOMETRIC) and _GEOMETRIC[i] == t


class _Log:
    def __init__(self, name: str, columns, stream=None):
        self.columns = list(columns)
        self.stream = stream or sys.stdout
        head = f"{'iter':>8} {'time(s)':>9} " + " ".join(f"{c:>13}" for c in self.columns)
        print(f"marginkit: {name}\n{head}\n{'-' * len(head)}", file=self.stream)

    def row(self, t, elapsed, metrics):
        vals = " ".join(f"{metrics.get(c, float('nan')):>13.6e}" for c in self.columns)
        print(f"{t:>8d} {elapsed:>9.3f} {vals}", file=self.stream)

    def end(self, status, t, elapsed):
        print(f"status: {status} after {t} iterations, {elapsed:.3f}s", file=self.stream)


class Recorder:
    """The trace records, the verbose log, and the time they take (``paused``, left out of the reported time).

    Each trace record holds ``iteration``, ``time`` and the plan's ``measure``; the metrics that need the iterate are
    computed as the record is made (:func:`marginkit.engine.assemble.make_probe`): ``test_error`` with a
    ``test_set``, ``angle_gap``/``dist_to_opt`` when the problem's reference is already cached. Iterates are kept only
    with ``keep_iterates``.
    """

    def __init__(self, plan, opts, measure, snapshot):
        self.plan, self.measure, self.snapshot = plan, measure, snapshot
        self.keep = bool(opts.keep_iterates)
        self.due = record_schedule(opts.trace, opts.max_iter)
        self.probe = make_probe(getattr(plan, "origin", plan.form), opts.test_set)
        self.trace = Trace(keep_iterates=self.keep)
        self.log = _Log(plan.method, plan.log_columns) if opts.verbose else None
        self.log_due = record_schedule("geometric") if opts.verbose else None
        self.logged = -1      # the last iteration printed (each row once)
        self.paused = 0.0

    def position(self) -> dict:
        """What a checkpoint keeps of the recorder: the records so far and where its schedules stand."""
        return {"trace": self.trace, "due": self.due, "log_due": self.log_due, "logged": self.logged}

    def restore(self, position: dict) -> None:
        """Continue from a checkpoint's :meth:`position` (a resumed run records what the uninterrupted one would);
        the verbose log keeps this run's schedule when the interrupted run had none."""
        self.trace, self.due, self.logged = position["trace"], position["due"], position["logged"]
        if self.log_due is not None and position["log_due"] is not None:
            self.log_due = position["log_due"]

    def pause(self, seconds: float) -> None:
        """Leave ``seconds`` (spent writing a checkpoint) out of the reported time, as the records' own time is."""
        self.paused += seconds

    def _record(self, t, elapsed, metrics, state):
        snap = self.snapshot(state) if (self.keep or self.probe is not None) else None
        self.trace.record(t, elapsed, metrics if self.probe is None else {**metrics, **self.probe(snap)}, snap)

    def observe(self, t: int, state, now: float, start: float) -> None:
        """Record and/or log iteration ``t`` if the schedules say so (``now``: the loop's clock at this iteration)."""
        rec = self.due(t)
        show = self.log_due is not None and self.log_due(t)
        if not (rec or show):
            return
        metrics = self.measure(state)
        elapsed = now - start - self.paused
        if rec:
            self._record(t, elapsed, metrics, state)
        if show:
            self.log.row(t, elapsed, metrics)
            self.logged = t
        self.paused += _time.perf_counter() - now

    def finish(self, t: int, state, elapsed: float, status) -> Trace:
        """The last iterate's record and log line (once), and the log's closing line."""
        final = None
        if len(self.trace) == 0 or self.trace["iteration"][-1] != t:
            final = self.measure(state)
            self._record(t, elapsed, final, state)
        if self.log is not None:
            if self.logged != t:
                self.log.row(t, elapsed, final if final is not None else self.measure(state))
            self.log.end(status, t, elapsed)
        return self.trace
