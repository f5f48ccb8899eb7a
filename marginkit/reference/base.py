"""Certified CVXPY references: the base class.

Every problem form has a :class:`CvxpyReference` subclass (listed as the ``cvxpy`` cards of the registry). The reference builds a
vectorised CVXPY model (no per-sample Python constraints; the regularisation constant is a
``cp.Parameter``), solves it with the requested solver (ECOS, SCS, Clarabel), and computes its
**own** certificate from the primal and dual solutions with NumPy: primal value, dual value, duality
gap and maximum constraint violation. A status ``optimal`` is downgraded to ``optimal_inaccurate``
when that certificate does not meet :data:`CERTIFY_TOL`.
"""
from __future__ import annotations

import time as _time
import warnings

import cvxpy as cp
import numpy as np

from ..core.validation import ProblemError
from ..engine.assemble import build_result

from ..core.solution import Solution

CERTIFY_TOL = 1e-6
SOLVERS = ("CLARABEL", "ECOS", "SCS")

# tight settings used when the user does not name a solver: the reference is the yardstick
_TIGHT = {"CLARABEL": dict(tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10, max_iter=500)}


def _status(cvx_status: str) -> str:
    if cvx_status in ("optimal", "optimal_inaccurate"):
        return cvx_status
    if cvx_status.startswith("infeasible"):
        return "infeasible"
    if cvx_status.startswith("unbounded"):
        return "unbounded"
    if cvx_status == "user_limit":
        return "user_limit"
    return "solver_error"


class CvxpyReference:
    """Base class: the compiled reference (what ``engine.solve.compile_method(problem, "cvxpy")`` returns, beside
    the compiled plans: ``run() -> Result``, and its ``cvxpy_problem``). Subclasses set ``form`` and implement
    ``build()`` (returns the ``cp.Problem``) and ``extract(status) -> Solution`` (primal/dual values and the
    marginkit certificate)."""

    form = ""
    method = "cvxpy"

    def __init__(self, problem, solver: str | None = None, **solver_options):
        if solver is not None:
            if not isinstance(solver, str) or solver.upper() not in SOLVERS:
                raise ProblemError(f"solver must be one of {SOLVERS}; got {solver!r}")
            solver = solver.upper()
        self.problem = problem
        self.solver = solver
        self.solver_options = solver_options
        self._cvx = None

    @property
    def cvxpy_problem(self) -> cp.Problem:
        if self._cvx is None:
            self._cvx = self.build()
        return self._cvx

    def build(self) -> cp.Problem:
        raise NotImplementedError

    def extract(self, status: str) -> Solution:
        raise NotImplementedError

    def solve_cvxpy(self, prob: cp.Problem) -> str:
        solver = self.solver or "CLARABEL"
        opts = dict(_TIGHT.get(solver, {})) if self.solver is None else {}
        opts.update(self.solver_options)
        try:
            with warnings.catch_warnings():  # inaccuracy is reported through the status, not a warning
                warnings.simplefilter("ignore", UserWarning)
                prob.solve(solver=solver, **opts)
        except cp.error.SolverError:
            if self.solver is None and solver == "CLARABEL":
                # fall back to the solver's defaults rather than fail on tight settings
                try:
                    prob.solve(solver=solver)
                except cp.error.SolverError:
                    return "solver_error"
            else:
                return "solver_error"
        return _status(prob.status)

    def run(self, **options):
        """Solve and return the certified :class:`~marginkit.Result` (the compiled-object protocol)."""
        if options:
            raise ProblemError(f"options {sorted(options)} do not apply to method 'cvxpy'")
        return self.result()

    def result(self):
        t0 = _time.perf_counter()
        prob = self.cvxpy_problem
        compile_start = _time.perf_counter()
        status = self.solve_cvxpy(prob)
        elapsed = _time.perf_counter() - t0
        sol = self.extract(status)
        sol.info.setdefault("solver", self.solver or "CLARABEL")
        stats = prob.solver_stats
        if stats is not None:
            sol.iterations = int(stats.num_iters or 0)
            sol.info["solve_time"] = stats.solve_time
        sol.info["compile_time"] = getattr(prob, "compilation_time", None) or (compile_start - t0)
        # setup: building the model and CVXPY's compilation; the rest of the wall time is the solve
        setup = min(elapsed, (compile_start - t0) + (getattr(prob, "compilation_time", None) or 0.0))
        sol.setup_time, sol.time = setup, elapsed - setup
        cert = sol.certificate
        if cert is not None:
            cert.setdefault("solver", sol.info["solver"])
            if sol.status == "optimal" and not certified(cert):
                sol.status = "optimal_inaccurate"
        return build_result(self.problem, sol, "cvxpy")


def solve_auxiliary(prob: cp.Problem, **clarabel_options) -> str:
    """Solve a helper model (hull distance, λ*, Farkas certificate, δ_A): Clarabel first, then ECOS and SCS if
    it fails numerically; returns the CVXPY status (``solver_error`` if every solver failed)."""
    attempts = [("CLARABEL", clarabel_options), ("CLARABEL", {}), ("ECOS", {}), ("SCS", {"eps": 1e-9})]
    for solver, opts in attempts:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                prob.solve(solver=solver, **opts)
        except cp.error.SolverError:
            continue
        if prob.status in ("optimal", "optimal_inaccurate", "infeasible", "unbounded"):
            return prob.status
    return "solver_error"


def certified(cert: dict, tol: float = CERTIFY_TOL) -> bool:
    scale = max(1.0, abs(cert.get("primal", 0.0)))
    return (abs(cert.get("duality_gap", np.inf)) <= tol * scale
            and cert.get("max_violation", np.inf) <= tol * max(1.0, cert.get("violation_scale", 1.0)))
