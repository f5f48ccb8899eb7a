"""CVXPY's solvers as competitors: ``problem.solve("cvxpy", solver=S)`` at the solver's default accuracy
(compilation included), in a child process with a time cap (the machine-sized problems take minutes to compile
and factorise). Solvers run in the order of the row's list; once one has finished, the others are capped at its
time (they cannot be the fastest). The children get the BLAS thread limit of the run (:func:`set_threads`).
"""
from __future__ import annotations

import math
import multiprocessing as mp

import numpy as np

from ..measure import Outcome, SLOW_SECONDS, child, wall

_CTX = None
_THREADS = None  # BLAS threads of every competitor (set by the runner; None: the libraries' defaults)
BUILD_SECONDS = 120.0   # a child may take at least this long to build the problem before its clock starts


def set_threads(threads: int | None) -> None:
    global _THREADS
    _THREADS = threads


def _context():
    """A forkserver context: children start from a clean process (forking this one after CVXPY's solvers have
    started their thread pools can deadlock Clarabel), with marginkit and CVXPY preloaded so they start fast."""
    global _CTX
    if _CTX is None:
        try:
            _CTX = mp.get_context("forkserver")
            _CTX.set_forkserver_preload([__name__, "marginkit.reference", "marginkit.plans"])
        except ValueError:  # pragma: no cover - no forkserver on this platform
            _CTX = mp.get_context("spawn")
    return _CTX


def _child(conn, spec, solver, solver_options, threads):
    from threadpoolctl import threadpool_limits
    try:
        with threadpool_limits(threads):
            conn.send(payload(spec, solver, solver_options, ready=conn))
    except BaseException as exc:  # noqa: BLE001 - reported in the row
        conn.send({"error": f"{type(exc).__name__}: {exc}"})
    finally:
        conn.close()


def run_child(spec, solver: str, cap: float, **solver_options) -> dict:
    """``problem.solve("cvxpy", solver=...)`` in a child process, killed after ``cap`` seconds of solving (the
    problem is built in the child before its clock starts)."""
    with child(_context(), _child, spec, solver, solver_options, _THREADS) as recv:
        try:
            if not recv.poll(max(BUILD_SECONDS, cap)):
                return {"capped": True, "cap": cap}
            first = recv.recv()
            if isinstance(first, dict):
                return first
            if not recv.poll(cap):
                return {"capped": True, "cap": cap}
            return recv.recv()
        except EOFError:
            return {"error": "the CVXPY child process died (out of memory?)"}


def payload(make_problem, solver, solver_options, ready=None) -> dict:
    import warnings
    prob = make_problem()
    if ready is not None:
        ready.send("built")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, res = wall(lambda: prob.solve("cvxpy", solver=solver, **solver_options))
    return {"time": t, "status": res.status, "w": res.w, "b": float(res.b) if res.b is not None else 0.0,
            "value": float(res.value), "margin": float(res.margin) if res.margin is not None else np.nan,
            "compile_time": res.info.get("compile_time"), "solve_time": res.info.get("solve_time")}


def race(make_problem, accuracy_of, repeats: int, cap: float, solvers) -> list[Outcome]:
    """Each solver at its default accuracy; later solvers are capped at the fastest time so far (x 1.05 + 1 s)."""
    out = []
    best = math.inf
    for solver in solvers:
        this_cap = min(cap, best * 1.05 + 1.0)
        o = Outcome(label=f"cvxpy:{solver}", cap=this_cap)
        for r in range(repeats):
            msg = run_child(make_problem, solver, this_cap)
            if "error" in msg:
                o.status, o.info["error"] = "error", msg["error"]
                break
            if msg.get("capped"):
                o.capped = True
                o.status = "stopped"
                break
            o.times.append(msg["time"])
            o.status = msg["status"]
            o.info.update(compile_time=msg.get("compile_time"), solve_time=msg.get("solve_time"))
            if r == 0:
                o.accuracy, o.result = accuracy_of(msg), msg
            if msg["time"] > SLOW_SECONDS:
                break
        if not o.capped and o.times:
            best = min(best, o.time)
        out.append(o)
    return out
