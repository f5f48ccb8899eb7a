"""The run options of every first-order plan, declared once.

:class:`RunOptions` is a frozen dataclass in the shape of a plan's ``Config`` (:mod:`marginkit.core.params`): each
field carries its default, its accepted values (``constraints``) and its meaning (``metadata["doc"]``, read by
:func:`marginkit.describe` and by ``help()``). The options are checked when a method is compiled, with the message
format of a plan's own parameters (``"<method>: tol must be a finite number in [0, inf); got -1.0"``), and again
when :meth:`~marginkit.engine.runloop.IterationPlan.run` is given new ones. ``max_iter=None``/``tol=None`` mean the
method's own default (``default_max_iter``/``default_tol`` of the plan class, the one place each is stated).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from typing import Any, Callable, ClassVar

import numpy as np

from ..core.params import Boolean, InstanceOf, Interval, IsCallable, Options, make_config
from ..core.validation import ProblemError


def _doc(text: str, default=None):
    return field(default=default, metadata={"doc": text})


_PATH = InstanceOf(str, os.PathLike, name="a file path (str or os.PathLike)")


@dataclass(frozen=True)
class RunOptions:
    """The options the run loop understands (the contract's "common options of first-order methods")."""

    max_iter: int | None = _doc("iteration budget (None: the method's default); status 'user_limit' when it is spent")
    tol: float | None = _doc("relative accuracy the plan's certificate must prove for status 'optimal' (None: the "
                             "method's default; see the Statuses table)")
    time_limit: float | None = _doc("wall-clock budget in seconds (None: no limit); status 'user_limit' when spent")
    callback: Callable[[Any], bool] | None = _doc("callable(state) -> bool, called every iteration; True stops the "
                                                  "run ('user_limit')")
    seed: Any = _doc("seed of the run's random generator (numpy.random.default_rng)")
    verbose: bool | int = _doc("print a log line on a geometric schedule of iterations", False)
    warm_start: Any = _doc("start from a previous Result, a weight vector w, or the plan's own state")
    trace: Any = _doc("which iterations the trace records: 'geometric' (about 60 per decade), every k-th (int), or "
                      "None (the first and the last); it never changes the iterates or the stop", "geometric")
    check_every: int = _doc("test the stopping rule every k-th iteration (the certificate may cost a product with X)",
                            1)
    test_set: Any = _doc("(X_test, y_test): add a test_error column to the trace, recorded at each trace record")
    keep_iterates: bool = _doc("keep every recorded iterate in the trace (memory: one vector per record)", False)
    checkpoint: str | os.PathLike | None = _doc(
        "file the run's state is saved to as it goes (atomically: a temporary file in the same folder, then a rename), "
        "at most every checkpoint_every seconds, at the end, and on Ctrl-C; solve(..., resume=PATH) continues it. "
        "A checkpoint is read like a pickle: resume only files from a trusted source")
    checkpoint_every: float = _doc("seconds between two checkpoints during a run (0: at every iteration)", 60.0)
    resume: str | os.PathLike | None = _doc(
        "a checkpoint file (checkpoint=) of this problem, method and options: the run continues from it with the same "
        "iteration count, trace, schedules and random stream, bit for bit the uninterrupted run; options not given "
        "are the checkpoint's")
    stop_when: str | None = _doc(
        "'predictions': also stop (status 'user_limit', info['stopped_by'] = 'predictions') as soon as every "
        "prediction on X_certify is proven to be the exact optimum's (soft-margin SVM: the duality gap's ball, "
        "marginkit.core.safe), checked with the certificate on a geometric schedule of iterations")
    X_certify: Any = _doc("the points whose predictions stop_when='predictions' waits for")

    constraints: ClassVar[dict] = {
        "max_iter": [None, Interval(int, 0, None)],
        "tol": [None, Interval(float, 0, None)],
        "time_limit": [None, Interval(float, 0, None, closed="neither")],
        "callback": [None, IsCallable()],
        "verbose": [Boolean(), Interval(int, 0, None)],
        "trace": [None, Boolean(), Options("geometric"), Interval(int, 1, None)],
        "check_every": [Interval(int, 1, None)],
        "keep_iterates": [Boolean()],
        "checkpoint": [None, _PATH],
        "checkpoint_every": [Interval(float, 0, None)],
        "resume": [None, _PATH],
        "stop_when": [None, Options("predictions")],
    }

    def validate(self, method: str) -> None:
        if not (self.seed is None or (isinstance(self.seed, (int, np.integer)) and self.seed >= 0)):
            make_rng(self.seed)   # a seed numpy rejects is a ProblemError naming ``seed``, at compile time
        if (self.stop_when is None) != (self.X_certify is None):
            raise ProblemError(f"{method}: stop_when='predictions' and X_certify go together (the points whose "
                               f"predictions must be certified before the run stops); got stop_when="
                               f"{self.stop_when!r} with{'out' if self.X_certify is None else ''} X_certify")
        if self.checkpoint is not None:
            folder = os.path.dirname(os.path.abspath(self.checkpoint))
            if os.path.isdir(self.checkpoint) or not os.path.isdir(folder):
                raise ProblemError(f"{method}: checkpoint must be a file path in an existing folder; got "
                                   f"{os.fspath(self.checkpoint)!r}" + ("" if os.path.isdir(folder) else
                                                                       f" (no folder {folder!r})"))
        if self.resume is not None and not os.path.isfile(self.resume):
            raise ProblemError(f"{method}: resume must be an existing checkpoint file; {os.fspath(self.resume)!r} "
                               "does not exist (checkpoint=PATH writes one)")

    def resolved(self, plan) -> RunOptions:
        """These options with ``max_iter``/``tol`` of ``None`` replaced by the plan's defaults."""
        return replace(self, max_iter=int(plan.default_max_iter if self.max_iter is None else self.max_iter),
                       tol=float(plan.default_tol if self.tol is None else self.tol))


#: the names of the run options, in declaration order
RUN_OPTIONS: tuple[str, ...] = tuple(f.name for f in fields(RunOptions))
#: what each run option means (from the declaration)
RUN_OPTION_DOCS: dict[str, str] = {f.name: f.metadata["doc"] for f in fields(RunOptions)}


def run_options(method: str, options: dict) -> RunOptions:
    """``options`` checked against :class:`RunOptions` (unknown names, declared constraints) for ``method``."""
    unknown = sorted(set(options) - set(RUN_OPTIONS))
    if unknown:
        raise ProblemError(f"unknown run option(s) {unknown} for method {method!r}; the run options: "
                           f"{', '.join(RUN_OPTIONS)}")
    return make_config(RunOptions, method, dict(options))


def make_rng(seed):
    """``numpy.random.default_rng(seed)``; what it rejects (a negative or fractional seed, a string) is a
    ``ProblemError`` naming ``seed``."""
    try:
        return np.random.default_rng(seed)
    except (TypeError, ValueError) as exc:
        raise ProblemError("seed must be None, a non-negative int, a SeedSequence or a Generator; "
                           f"got {seed!r} ({exc})") from None
