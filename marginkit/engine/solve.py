"""``solve`` and ``compile``: a problem and a method name in, a :class:`~marginkit.Result` (or a compiled plan, or the
``cvxpy.Problem``) out. The one place that turns a registry card into a running object.

``compile(problem, method)`` resolves the card and the reduction chain (:mod:`.graph`), imports the card's class
(the family's module is loaded here, on first use), checks the method's options and builds the plan on the reduced
problem; ``solve`` runs it and maps the solution back through the chain. ``reference`` and ``constants`` do the same
for the CVXPY reference of the problem's own form.
"""
from __future__ import annotations

import time as _time
from typing import TYPE_CHECKING, Any

from ..core.validation import ProblemError
from ..formulations.base import connect_engine
from .graph import resolve
from .registry import chooser_card, reference_card
from .runloop import RUN_OPTIONS

if TYPE_CHECKING:
    from ..core.result import Result
    from ..formulations.base import Problem


def _split_options(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    run_opts = {k: v for k, v in options.items() if k in RUN_OPTIONS}
    params = {k: v for k, v in options.items() if k not in RUN_OPTIONS}
    return run_opts, params


def compile_method(problem: Problem, method: str, **options: Any) -> Any:
    """The compiled object of ``method`` on ``problem``, whatever the method: a chooser's plan (``auto``), a frozen
    iteration plan, or the compiled reference (its ``cvxpy_problem`` is what ``problem.compile("cvxpy")`` returns, as
    the contract says). Every one has ``run() -> Result``; the card says which class builds it."""
    begin = _time.perf_counter()   # a time_limit counts from here: loading CVXPY the first time is part of it
    chooser = chooser_card(method) if isinstance(method, str) else None
    if chooser is not None:
        return chooser.load().compile(problem, options, method=method)
    card, chain = resolve(problem, method)
    run_opts, params = _split_options(options)
    cls = card.load(chain.reduced)   # the card's variant for the data/form the method runs on, else its target
    extra = {"begin": begin} if card.is_reference else {}
    return cls.compile(chain.reduced, params, method=method, origin=problem, chain=chain, run_defaults=run_opts,
                       **extra)


def solve(problem: Problem, method: str = "cvxpy", **options: Any) -> Result:
    """Solve ``problem`` with ``method`` and return the :class:`~marginkit.Result` for the user's problem;
    ``"auto"``: the fast certified method for the data (:mod:`.choice`), named in ``Result.info["chosen"]``."""
    return compile_method(problem, method, **options).run()


def reference(problem: Problem, solver: str | None = None) -> Result:
    """The certified CVXPY solution of ``problem`` (its own form, never a reduced one)."""
    return _noted(reference_card(problem.form).load()(_host(problem), solver=solver).result(), problem)


def _host(problem):
    """The problem on NumPy data: CVXPY runs on the host (a copy of data that live in another library)."""
    to_host = getattr(problem, "to_host", None)
    return problem if to_host is None else to_host()


def _noted(res, problem):
    backend = getattr(problem, "backend", None)
    if backend is not None and not backend.on_host:
        res.info["host_copy"] = (f"the CVXPY reference ran on a NumPy copy of X ({backend.describe()}); its w is a "
                                 "NumPy array")
    return res


def constants(problem: Problem) -> dict[str, Any]:
    """The data-dependent constants of the papers' bounds, computed by the problem's CVXPY reference class."""
    try:
        cls = reference_card(problem.form).load()
    except ProblemError:
        cls = None
    if cls is None or not hasattr(cls, "constants"):
        raise ProblemError(f"constants() are not available for {type(problem).__name__}")
    return cls.constants(_host(problem))


def _connect():
    import sys
    connect_engine(sys.modules[__name__])


_connect()   # the problem classes' solve/compile/reference/constants now reach this module
