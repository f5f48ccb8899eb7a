"""The solvers a CVXPY reference may use: their order and option tables, the checks of a user's solver and options
(marginkit's run options among them: :func:`time_limit_option`, :func:`budget_option`),
and one solve attempt that never raises and never prints (:func:`run_solver`, :func:`quiet_descriptors`). The
reference's own logic -- scaling, fallback, certificate -- is :mod:`.base`."""
from __future__ import annotations

import os
import sys
import warnings
from contextlib import contextmanager, nullcontext

import cvxpy as cp
import numpy as np

from ..core.validation import ProblemError
from ..engine.options import RUN_OPTIONS, make_rng

SOLVER_ORDER = ("CLARABEL", "ECOS", "SCS", "OSQP", "PIQP", "PROXQP", "QOCO", "MOSEK", "GUROBI", "CPLEX", "COPT",
                "XPRESS", "CVXOPT", "HIGHS")
# solvers for linear or mixed-integer programs only: never a fallback for these QPs and conic programs
_NOT_FALLBACK = {"ECOS_BB", "GLPK", "GLPK_MI", "CBC", "SCIPY", "GLOP", "PDLP", "SCIP", "CUOPT"}
DEFAULT_SOLVER = "CLARABEL"

# tight settings of the attempts marginkit makes itself: the reference is the yardstick
TIGHT = {"CLARABEL": dict(tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10, max_iter=500),
         "ECOS": dict(abstol=1e-10, reltol=1e-10, feastol=1e-10, max_iters=500),
         "SCS": dict(eps_abs=1e-9, eps_rel=1e-9, max_iters=50000),
         "OSQP": dict(eps_abs=1e-9, eps_rel=1e-9, max_iter=100000)}

# the keyword under which each solver takes a wall-clock limit in seconds (ECOS has none)
TIME_LIMIT_KEYWORDS = {"CLARABEL": "time_limit", "SCS": "time_limit_secs", "OSQP": "time_limit"}
# ... an iteration limit (marginkit's ``max_iter``)
ITERATION_KEYWORDS = {"CLARABEL": "max_iter", "ECOS": "max_iters", "SCS": "max_iters", "OSQP": "max_iter"}
# ... and its stopping tolerances (marginkit's ``tol``: each one set to TOL_FRACTION·tol, at least TOL_FLOOR)
TOLERANCE_KEYWORDS = {"CLARABEL": ("tol_gap_abs", "tol_gap_rel", "tol_feas"), "ECOS": ("abstol", "reltol", "feastol"),
                      "SCS": ("eps_abs", "eps_rel"), "OSQP": ("eps_abs", "eps_rel")}
TOL_FRACTION, TOL_FLOOR = 0.1, 1e-15   # ECOS refuses a tolerance of 0; 1e-15 is below every solver's reach


def budget_options(solver: str, max_iter: int | None, tol: float | None) -> dict:
    """``solver``'s own settings for marginkit's ``max_iter`` and ``tol`` (those given), from
    :data:`ITERATION_KEYWORDS` and :data:`TOLERANCE_KEYWORDS`; ``{}`` for a solver without them."""
    out = {}
    if max_iter is not None and solver in ITERATION_KEYWORDS:
        out[ITERATION_KEYWORDS[solver]] = int(max_iter)
    if tol is not None and solver in TOLERANCE_KEYWORDS:
        out.update(dict.fromkeys(TOLERANCE_KEYWORDS[solver], max(TOL_FRACTION * float(tol), TOL_FLOOR)))
    return out

# keywords CVXPY itself takes in ``Problem.solve`` that make sense for a reference
_CVXPY_KEYWORDS = {"verbose", "warm_start", "canon_backend", "ignore_dpp", "enforce_dpp"}
# the documented options of the solvers with a table (CVXPY passes them through to the solver)
_ECOS_OPTIONS = {"feastol", "abstol", "reltol", "feastol_inacc", "abstol_inacc", "reltol_inacc", "max_iters",
                 "nitref"}
_SCS_OPTIONS = {"max_iters", "eps", "eps_abs", "eps_rel", "eps_infeas", "alpha", "time_limit_secs", "normalize",
                "scale", "adaptive_scale", "rho_x", "acceleration_lookback", "acceleration_interval",
                "write_data_filename", "log_csv_filename", "use_indirect", "linear_solver", "use_quad_obj"}


def accepted_options(solver: str) -> set | None:
    """The option names ``solver`` accepts through CVXPY (its own settings and CVXPY's keywords), or None when
    marginkit keeps no table for it (then the solver itself judges its options)."""
    if solver == "CLARABEL":
        import clarabel
        own = {a for a in dir(clarabel.DefaultSettings()) if not a.startswith("_") and a != "default"}
        return own | {"use_quad_obj", "accept_unknown"} | _CVXPY_KEYWORDS
    if solver == "ECOS":
        return _ECOS_OPTIONS | _CVXPY_KEYWORDS
    if solver == "SCS":
        return _SCS_OPTIONS | _CVXPY_KEYWORDS
    return None


def check_solver(solver) -> str | None:
    """``solver`` upper-cased if it is an installed CVXPY solver (None stays None), else a ``ProblemError``."""
    if solver is None:
        return None
    installed = cp.installed_solvers()
    if not isinstance(solver, str) or solver.upper() not in installed:
        raise ProblemError(f"solver must be None or an installed CVXPY solver ({', '.join(installed)}); "
                           f"got {solver!r}")
    return solver.upper()


def check_options(solver: str, options: dict, default: bool = False) -> dict:
    """``options`` if ``solver`` accepts every one of them, else a ``ProblemError`` naming the unknown ones."""
    known = accepted_options(solver)
    if known is None or not options:
        return dict(options)
    unknown = sorted(set(options) - known)
    if unknown:
        hint = " (without solver=, the options are Clarabel's)" if default else ""
        raise ProblemError(f"unknown option(s) {unknown} for the CVXPY reference with solver {solver}{hint}; its "
                           f"options: {', '.join(sorted(known))}")
    return dict(options)


def time_limit_option(solver: str | None, options: dict) -> float | None:
    """The reference's ``time_limit`` (taken out of ``options``), checked: a positive number of seconds, and a named
    solver that can be given one."""
    if "time_limit" not in options:
        return None
    limit = options.pop("time_limit")
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, (int, float, np.integer, np.floating)) or \
            not (np.isfinite(limit) and limit > 0):
        raise ProblemError(f"time_limit must be a positive number of seconds or None; got {limit!r}")
    if solver is not None and solver not in TIME_LIMIT_KEYWORDS:
        raise ProblemError(f"time_limit cannot be passed to solver {solver} (it has no time limit option); the "
                           f"solvers that take one: {', '.join(sorted(TIME_LIMIT_KEYWORDS))}")
    return float(limit)


def budget_option(solver: str | None, options: dict) -> tuple[int | None, float | None]:
    """The reference's ``max_iter`` and ``tol`` (taken out of ``options`` with ``seed``), checked; the other run
    options of the first-order methods are refused by name (module docstring)."""
    max_iter, tol, seed = options.pop("max_iter", None), options.pop("tol", None), options.pop("seed", None)
    if max_iter is not None and (isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or
                                 max_iter < 0):
        raise ProblemError(f"max_iter must be a non-negative int or None; got {max_iter!r}")
    if tol is not None and (isinstance(tol, bool) or not isinstance(tol, (int, float, np.integer, np.floating)) or
                            not (np.isfinite(tol) and tol >= 0)):
        raise ProblemError(f"tol must be a finite number >= 0 or None; got {tol!r}")
    make_rng(seed)   # a seed numpy rejects is a ProblemError naming seed; any other gives the same answer
    for name, table, value in (("max_iter", ITERATION_KEYWORDS, max_iter), ("tol", TOLERANCE_KEYWORDS, tol)):
        if value is not None and solver is not None and solver not in table:
            raise ProblemError(f"{name} cannot be passed to solver {solver} (marginkit knows no such setting of it); "
                               f"the solvers that take one: {', '.join(sorted(table))}")
    refused = sorted(k for k in options if k in RUN_OPTIONS and k not in ("verbose", "warm_start"))
    if "warm_start" in options and not isinstance(options["warm_start"], (bool, np.bool_)):
        refused.append("warm_start")
    if refused:
        raise ProblemError(f"the run option(s) {refused} do not apply to the CVXPY reference (it honours max_iter, "
                           "tol, time_limit and seed, and CVXPY's own verbose and warm_start=True/False)")
    return (None if max_iter is None else int(max_iter)), (None if tol is None else float(tol))


def fallback_solvers() -> list[str]:
    """The installed solvers in the order a reference tries them (Clarabel, ECOS, SCS, then the others)."""
    installed = [s for s in cp.installed_solvers() if s not in _NOT_FALLBACK]
    ordered = [s for s in SOLVER_ORDER if s in installed]
    return ordered + sorted(s for s in installed if s not in ordered)


@contextmanager
def quiet_descriptors(quiet: bool = True):
    """Standard output and error routed to ``os.devnull`` at the file-descriptor level while a solver runs: some
    solvers' C libraries print banners there whatever CVXPY's ``verbose`` says (HiGHS prints "Running HiGHS ..."),
    and a library prints nothing unless asked. With ``quiet=False`` (the user's ``verbose=True``) nothing changes."""
    if not quiet:
        yield
        return
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    saved = [os.dup(1), os.dup(2)]
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, null):
            os.close(fd)


@contextmanager
def quiet_solve(options: dict):
    """What a solve runs inside: warnings ignored (inaccuracy is reported through the status) and the solver's own
    printing silenced unless ``verbose`` (:func:`quiet_descriptors`). Both are process-wide: a solve run in a worker
    thread has its caller hold them around the wait."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with quiet_descriptors(not options.get("verbose", False)):
            yield


def run_solver(prob: cp.Problem, solver: str, options: dict, user_options: bool = False,
               quiet: bool = True) -> tuple[str, str]:
    """Solve ``prob`` once; returns ``(CVXPY status, message)`` and never raises, except a ``ProblemError`` when a
    solver without an option table rejects the user's own options. ``quiet=False``: the caller holds
    :func:`quiet_solve` (a worker thread must not)."""
    try:
        with (quiet_solve(options) if quiet else nullcontext()), np.errstate(all="ignore"):
            prob.solve(solver=solver, **options)
    except TypeError as exc:
        text = str(exc)
        if user_options and any(k in text for k in ("keyword", "setting", "argument", "option")):
            raise ProblemError(f"solver {solver} rejected the options {sorted(options)}: {text}") from None
        return "solver_error", f"{solver}: TypeError: {text}"
    except cp.error.SolverError as exc:
        return "solver_error", f"{solver}: {exc}"
    except Exception as exc:  # noqa: BLE001  (a solver's failure must never take the caller down)
        return "solver_error", f"{solver}: {type(exc).__name__}: {exc}"
    status = prob.status or "solver_error"
    return status, _REASONS.get(status, "returned status {status}").format(solver=solver, status=status)


_REASONS = {"optimal": "",
            "optimal_inaccurate": "{solver} returned an inaccurate solution (status {status})",
            "user_limit": "{solver} stopped on its iteration or time limit (status {status})",
            "infeasible": "{solver} reported the problem infeasible",
            "infeasible_inaccurate": "{solver} reported the problem infeasible (inaccurate)",
            "unbounded": "{solver} reported the problem unbounded",
            "unbounded_inaccurate": "{solver} reported the problem unbounded (inaccurate)"}
