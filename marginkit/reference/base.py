"""Certified CVXPY references: the base class.

Every problem form has a :class:`CvxpyReference` subclass (listed as the ``cvxpy`` cards of the registry). The
reference builds a vectorised CVXPY model (no per-sample Python constraints; the regularisation constant is a
``cp.Parameter``), solves it, and computes its **own** certificate from the primal and dual solutions with NumPy:
primal value, dual value, duality gap, maximum constraint violation and the relative gap.

**A reference that cannot break.**

* *Internal scaling.* The solver never sees the user's raw numbers: each subclass's :meth:`~CvxpyReference.scaling`
  picks powers of two (dividing by them is exact in floating point) that bring the data to unit size (data within a
  factor 16 of it are left as they are, :func:`banded`), the model is solved on the scaled data, and
  :meth:`~CvxpyReference.extract` maps the primal and dual solution back to the user's coordinates (the maps are
  derived in each subclass's docstring), where the certificate is computed. ``compile("cvxpy")`` still returns the
  model in the user's coordinates.
* *A relative certificate.* ``optimal`` is kept only when ``relative_gap <= CERTIFY_TOL`` (the duality gap over the
  larger of ``|primal|``, ``|dual|`` (and the form's ``gap_scale`` when its data have a fixed normalisation), or
  the margin gap ``(γ̄ − γ)/γ̄`` for hard-margin problems) and the violation is at most ``CERTIFY_TOL`` times the
  constraints' own scale: the same rule at every scale of the data.
* *Fall back across solvers.* Without a named solver the attempts are Clarabel (tight settings, then its defaults if
  they raise), ECOS, SCS, then the other installed solvers that may suit the problem class (:data:`SOLVER_ORDER`);
  the first certified answer (a certified optimum, or infeasibility certified by marginkit) ends the search, else
  the best point is kept. ``certificate["solver"]`` names the solver reported, ``info["attempts"]`` lists every
  attempt. A named solver is the only one used.
* *A time limit kept.* ``time_limit=`` (seconds, wall clock) is the budget of the whole reference: each attempt gets
  what is left, under the solver's keyword (Clarabel ``time_limit``, SCS ``time_limit_secs``, OSQP ``time_limit``:
  :data:`TIME_LIMIT_KEYWORDS`; a solver reads its clock between its iterations, so it may end one late), and the
  fallback stops once it is spent. A solver that takes no limit (ECOS, several others) is skipped under one as a
  fallback, a :class:`~marginkit.ProblemError` as the named solver. Marginkit's certificate afterwards (and a
  hull-distance proof of infeasibility) is not limited.
* *The run options honoured* (in full: :meth:`~CvxpyReference.budgeted`): ``max_iter`` and ``tol`` reach every
  attempt under the solver's own keywords, ``seed`` is accepted, the first-order methods' other ones are refused.
* *Never an exception.* A solver that raises, stops without a point, or returns non-finite values gives status
  ``solver_error`` (``user_limit`` when it stopped on an iteration or time limit), ``w = None`` and
  ``info["message"]`` with the reason. Unknown options and solvers are a ``ProblemError`` when the reference is
  made (options are checked against the chosen solver's keywords, :func:`.solvers.accepted_options`).
"""
from __future__ import annotations

import math
import threading
import time as _time
from contextlib import nullcontext

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ..core.solution import Solution
from ..core.validation import ProblemError
from ..engine.assemble import build_result
from .solvers import (DEFAULT_SOLVER, ITERATION_KEYWORDS, TIGHT, TIME_LIMIT_KEYWORDS, TOLERANCE_KEYWORDS,
                      budget_option, budget_options, check_options, check_solver, fallback_solvers, quiet_solve,
                      run_solver, time_limit_option)

CERTIFY_TOL = 1e-6
BOUNDED_GRACE = 0.1   # seconds past the deadline a solver's thread is waited for before it is left running
def pow2(x) -> float:
    """The power of two nearest to ``x`` (1.0 for 0, inf or NaN): dividing by it is exact in floating point."""
    x = float(x)
    if not np.isfinite(x) or x <= 0:
        return 1.0
    m, e = math.frexp(x)           # x = m 2^e, m in [0.5, 1)
    return math.ldexp(1.0, e - 1 if m < math.sqrt(0.5) else e)


def data_scale(X) -> float:
    """A power of two ``c`` with ``max_i ||x_i|| / c`` in ``[1/√2, √2)`` (computed without overflow: first by the
    largest entry, then by the row norms of the scaled data)."""
    data = X.data if sp.issparse(X) else np.asarray(X)
    if data.size == 0:
        return 1.0
    c1 = pow2(np.max(np.abs(data)))
    Xs = X / c1
    if sp.issparse(Xs):
        rn = np.sqrt(np.asarray(Xs.multiply(Xs).sum(axis=1)).ravel())
    else:
        rn = np.linalg.norm(Xs, axis=1)
    return c1 * pow2(rn.max())


UNIT_BAND = 16.0   # data whose scale is within a factor 16 of 1 are solved as they are (already well-scaled)


def banded(c: float) -> float:
    """``c``, or 1.0 when ``c`` is within :data:`UNIT_BAND` of 1 (no rescaling of already well-scaled data)."""
    return 1.0 if 1.0 / UNIT_BAND <= c <= UNIT_BAND else c


def _status(cvx_status: str) -> str:
    if cvx_status in ("optimal", "optimal_inaccurate", "user_limit"):
        return cvx_status
    if cvx_status.startswith("infeasible"):
        return "infeasible"
    if cvx_status.startswith("unbounded"):
        return "unbounded"
    return "solver_error"


def value_of(expr):
    """The value of a CVXPY variable or dual as a finite float array, or None (no point, NaN or inf)."""
    v = expr if isinstance(expr, np.ndarray) else getattr(expr, "value", expr)
    if v is None:
        return None
    try:
        v = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        return None
    return v if np.all(np.isfinite(v)) else None


def no_point(status: str, message: str, **fields) -> Solution:
    """A solution without a usable point (``w=None``) and the reason."""
    status = status if status in ("user_limit", "solver_error") else "solver_error"
    return Solution(w=None, b=np.nan, status=status, info={"message": message}, **fields)


def relative_gap(cert: dict) -> float:
    """``|gap| / max(|primal|, |dual|, gap_scale)`` (or the certificate's own ``relative_gap``); inf if unknown."""
    if cert.get("relative_gap") is not None:
        r = float(cert["relative_gap"])
        return r if np.isfinite(r) else np.inf
    gap = cert.get("duality_gap", np.nan)
    scale = max(abs(float(cert.get("primal", np.nan))), abs(float(cert.get("dual", np.nan))),
                float(cert.get("gap_scale", 0.0)))
    if not (np.isfinite(gap) and np.isfinite(scale)):
        return np.inf
    if scale == 0.0:
        return 0.0 if gap == 0.0 else np.inf
    return abs(float(gap)) / scale


def certified(cert: dict | None, tol: float = CERTIFY_TOL) -> bool:
    """Whether the certificate proves ``tol``: relative gap at most ``tol`` and the violations at most ``tol`` times
    their scales (``violation_scale``, default 1: the right-hand side of ``y_i x_iᵀw >= 1``)."""
    if not cert:
        return False
    viol = cert.get("max_violation", np.inf)
    ok = relative_gap(cert) <= tol and np.isfinite(viol) and viol <= tol * cert.get("violation_scale", 1.0)
    if "dual_violation" in cert and "dual_violation_scale" in cert:
        ok = ok and cert["dual_violation"] <= tol * cert["dual_violation_scale"]
    return bool(ok)


_RANK = {"optimal": 0, "infeasible": 0, "optimal_inaccurate": 1, "infeasible_inaccurate": 1, "user_limit": 2,
         "unbounded": 3, "solver_error": 4}


def _rank(sol: Solution) -> tuple:
    has_point = sol.w is not None or sol.dual_coef is not None or sol.status in ("infeasible", "infeasible_inaccurate")
    rel = relative_gap(sol.certificate) if sol.certificate else np.inf
    return (_RANK.get(sol.status, 4) if has_point or sol.status == "solver_error" else 3, rel)


class CvxpyReference:
    """Base class: the compiled reference (what ``engine.solve.compile_method(problem, "cvxpy")`` returns, beside
    the compiled plans: ``run() -> Result``, and its ``cvxpy_problem``). Subclasses set ``form`` and implement
    ``scaling()`` (the internal scale factors, powers of two), ``build(scale) -> (cp.Problem, handles)`` and
    ``extract(status, handles, scale) -> Solution`` (the point and multipliers mapped back to the user's coordinates
    and the marginkit certificate computed on the user's data; ``infeasible`` only with marginkit's own proof)."""

    form = ""
    method = "cvxpy"

    @classmethod
    def compile(cls, form, options: dict, method: str | None = None, origin=None, chain=None, run_defaults=None,
                begin: float | None = None):
        """The compiled reference of the user's problem ``origin`` (its own form, never a reduced one; on a NumPy
        copy of data that live in another library), as the engine compiles a plan: ``options`` are the solver's
        settings, ``run_defaults`` the run options it honours (``max_iter``, ``tol``, ``time_limit``, ...);
        ``begin``: when the caller started (loading CVXPY the first time counts against ``time_limit``)."""
        problem = form if origin is None else origin
        to_host = getattr(problem, "to_host", None)
        ref = cls(problem if to_host is None else to_host(), **{**options, **dict(run_defaults or {})})
        ref.begin, ref.origin = begin, problem
        return ref

    def __init__(self, problem, solver: str | None = None, **solver_options):
        self.solver = check_solver(solver)
        self.time_limit = time_limit_option(self.solver, solver_options)
        self.max_iter, self.tol = budget_option(self.solver, solver_options)
        self.certify_tol = CERTIFY_TOL if self.tol is None else self.tol
        self.solver_options = check_options(self.solver or DEFAULT_SOLVER, solver_options, default=self.solver is None)
        self.problem = problem
        self._user_model = None
        self._models = None
        self._scales = [self.identity_scale()]

    # the models ----------------------------------------------------------------------------------------------
    @property
    def cvxpy_problem(self) -> cp.Problem:
        """The CVXPY model in the user's coordinates (what ``compile("cvxpy")`` returns)."""
        if self._user_model is None:
            self._user_model = self.build(self.identity_scale())
        return self._user_model[0]

    def scaling(self) -> dict:
        """The internal scale factors (powers of two); the identity by default."""
        return self.identity_scale()

    def scalings(self) -> list[dict]:
        """The scaled models to try with each solver, in order (one by default: :meth:`scaling`)."""
        return [self.scaling()]

    def identity_scale(self) -> dict:
        return {}

    def scale_problem(self, scale: dict) -> str | None:
        """A reason not to solve at all (the scaled problem is beyond double precision), or None."""
        bad = [k for k, v in scale.items() if not (np.isfinite(v) and 1e-300 < v < 1e300)]
        return f"the internal scale factors {bad} are beyond double precision" if bad else None

    def build(self, scale: dict):
        raise NotImplementedError

    def extract(self, status: str, handles, scale: dict) -> Solution:
        raise NotImplementedError

    def direct_solutions(self) -> list:
        """``(label, solve)`` pairs tried after the conic solvers when none of them certified the answer: a subclass's
        own exact method for a problem the conic solvers cannot scale (``solve() -> Solution | None``, certified
        afterwards by the same rule). None by default."""
        return []

    def _model_for(self, scale):
        """The model at ``scale`` (the user's own model, what ``compile`` returns, when it is the identity)."""
        key = tuple(sorted(scale.items()))
        if key == tuple(sorted(self.identity_scale().items())):
            self.cvxpy_problem
            return self._user_model
        if self._models is None:
            self._models = {}
        if key not in self._models:
            self._models[key] = self.build(scale)
        return self._models[key]

    # solving -------------------------------------------------------------------------------------------------
    def attempts(self) -> list[tuple[str, dict, bool]]:
        """``(solver, options, options are the user's)`` in the order they are tried (under a ``time_limit``, only
        the solvers that take one)."""
        if self.solver is not None:
            return [(self.solver, {**self.budgeted(self.solver), **self.solver_options}, bool(self.solver_options))]
        out = []
        for s in fallback_solvers():
            if s == DEFAULT_SOLVER:
                out.append((s, {**TIGHT.get(s, {}), **self.budgeted(s), **self.solver_options},
                            bool(self.solver_options)))
            elif all(value is None or s in table for value, table in ((self.time_limit, TIME_LIMIT_KEYWORDS),
                                                                     (self.max_iter, ITERATION_KEYWORDS),
                                                                     (self.tol, TOLERANCE_KEYWORDS))):
                out.append((s, {**TIGHT.get(s, {}), **self.budgeted(s)}, False))
        return out

    def budgeted(self, solver: str) -> dict:
        """``solver``'s settings for the run's ``max_iter`` and ``tol``. ``max_iter`` is every attempt's iteration limit
        under the solver's keyword (Clarabel and OSQP ``max_iter``, ECOS and SCS ``max_iters``:
        :data:`~.solvers.ITERATION_KEYWORDS`); an attempt that stops on it ends the search, ``user_limit`` unless the
        certificate proves ``tol``. ``tol`` is the relative accuracy ``optimal`` needs (``CERTIFY_TOL`` without it);
        the solvers' stopping tolerances are a tenth of it (:func:`~.solvers.budget_options`; ``tol=0``: the rounding
        level, so a solver runs until its iteration limit or no progress, and ``optimal`` needs a gap of exactly 0).
        A solver without those settings is skipped as a fallback when they are given, a ``ProblemError`` as the named
        solver. ``seed`` is accepted (every solver here is deterministic: any seed gives the same answer); the other
        run options of the first-order methods (``callback``, ``trace``, ``checkpoint``, ...) are a ``ProblemError``
        naming them, as is a ``warm_start`` other than CVXPY's own ``True``/``False``."""
        return budget_options(solver, self.max_iter, self.tol)

    def _limited(self, prob, solver: str, opts: dict, deadline: float | None, quiet: bool = True) -> dict | None:
        """``opts`` with the time left before ``deadline`` under ``solver``'s keyword; None when none is left. CVXPY
        compiles the model for ``solver`` first (kept in the model's cache for the solve), so the solver's own clock
        starts with what is really left."""
        if deadline is None:
            return opts
        try:
            with quiet_solve(opts) if quiet else nullcontext():
                prob.get_problem_data(solver)
        except Exception:  # noqa: BLE001  (the solve itself reports a model the solver cannot take)
            pass
        left = deadline - _time.perf_counter()
        return {**opts, TIME_LIMIT_KEYWORDS[solver]: left} if left > 0 else None

    def run(self, **options):
        """Solve and return the certified :class:`~marginkit.Result` (the compiled-object protocol); the options
        are given at compile time."""
        if options:
            raise ProblemError(f"options {sorted(options)} do not apply to run() of method {self.method!r}: give "
                               "them to solve() or compile()")
        res = self.result()
        backend = getattr(getattr(self, "origin", None), "backend", None)
        if backend is not None and not backend.on_host:
            res.info["host_copy"] = (f"the CVXPY reference ran on a NumPy copy of X ({backend.describe()}); its w is "
                                     "a NumPy array")
        return res

    def _extract_safe(self, status, handles, scale, message) -> Solution:
        status = _status(status)
        if status == "solver_error":
            return no_point("solver_error", message)
        try:
            with np.errstate(all="ignore"):
                sol = self.extract(status, handles, scale)
        except Exception as exc:  # noqa: BLE001  (the solver's values were unusable)
            return no_point("solver_error", f"{message + '; ' if message else ''}its solution could not be "
                                            f"read ({type(exc).__name__}: {exc})")
        has_point = sol.w is not None or sol.dual_coef is not None
        if not has_point and sol.status in ("optimal", "user_limit"):
            sol.status = "user_limit" if status == "user_limit" else "solver_error"
        if sol.certificate is not None and has_point:
            ok = certified(sol.certificate, self.certify_tol)
            sol.certificate["relative_gap"] = relative_gap(sol.certificate)
            if sol.status == "optimal" and not ok:
                sol.status = "optimal_inaccurate"
            elif sol.status in ("optimal_inaccurate", "user_limit") and ok:
                sol.status = "optimal"
        if sol.status != "optimal" and message:
            sol.info.setdefault("message", message)
        return sol

    def _bounded(self, prob, solver: str, opts: dict, user_opts: bool, deadline: float | None):
        """``(status, message), abandoned``: the solver's run, back by ``deadline`` whatever it does. A solver reads
        its clock between its own iterations and not during its setup (Clarabel's factorisation of a 20,000 × 100
        model overran a 1.3 s limit by 0.8 s), so under a ``time_limit`` it runs in a worker thread (the solvers
        release the GIL while they compute) and is left to stop at its own limit in the background when it has not
        returned by the deadline; its model is then never read again."""
        if deadline is None:
            return run_solver(prob, solver, opts, user_opts), False
        box: dict = {}

        def work():
            try:
                limited = self._limited(prob, solver, opts, deadline, quiet=False)
                box["out"] = (("user_limit", f"not tried: time_limit={self.time_limit}s spent") if limited is None
                              else run_solver(prob, solver, limited, user_opts, quiet=False))
            except BaseException as exc:  # noqa: BLE001  (handed to the caller's thread below)
                box["error"] = exc

        worker = threading.Thread(target=work, name=f"marginkit-{solver.lower()}", daemon=True)
        with quiet_solve(opts):   # process-wide: held here, so that an abandoned worker cannot keep or undo them
            worker.start()
            worker.join(max(0.0, deadline - _time.perf_counter()) + BOUNDED_GRACE)
        if "error" in box:
            raise box["error"]   # run_solver raises only a ProblemError for the user's own options
        if worker.is_alive():
            self._abandoned = True
            return ("user_limit", f"{solver} had not returned at time_limit={self.time_limit}s (it was left to stop "
                                  f"at its own limit in the background)"), True
        return box["out"], False

    def _attempt(self, prob, handles, scale, solver, opts, user_opts, label, deadline=None):
        t0 = _time.perf_counter()
        (status, message), abandoned = self._bounded(prob, solver, opts, user_opts, deadline)
        if abandoned:
            record = {"solver": label, "cvxpy_status": "user_limit", "status": "user_limit",
                      "relative_gap": np.nan, "message": message, "time": _time.perf_counter() - t0}
            return no_point("user_limit", message), None, record, 0.0
        sol = self._extract_safe(status, handles, scale, message)
        sol.info["solver"] = solver
        stats = prob.solver_stats if status != "solver_error" else None
        hit = self.max_iter is not None and (status == "user_limit" or stats is not None and
                                             int(getattr(stats, "num_iters", 0) or 0) >= self.max_iter)
        if hit and sol.status == "optimal_inaccurate":   # stopped by the iteration limit, not by its own rule
            sol.status = "user_limit"
            sol.info["message"] = f"{solver} stopped on max_iter={self.max_iter}"
        record = {"solver": label, "cvxpy_status": status, "status": sol.status, "max_iter_hit": hit,
                  "relative_gap": relative_gap(sol.certificate) if sol.certificate else np.nan,
                  "message": sol.info.get("message", message), "time": _time.perf_counter() - t0}
        if len(self._scales) > 1:
            record["scale"] = dict(scale)
        return sol, stats, record, float(getattr(prob, "compilation_time", None) or 0.0) if stats else 0.0

    def _direct(self, label: str, solve):
        """One of :meth:`direct_solutions`, certified like a solver's answer; ``(Solution | None, attempt record)``."""
        t0 = _time.perf_counter()
        try:
            with np.errstate(all="ignore"):
                sol = solve()
        except Exception as exc:  # noqa: BLE001  (a failed direct method is one failed attempt)
            sol, message = None, f"{type(exc).__name__}: {exc}"
        else:
            message = None if sol is not None else "no point"
        if sol is not None:
            ok = certified(sol.certificate, self.certify_tol)
            sol.certificate["relative_gap"] = relative_gap(sol.certificate)
            sol.status = "optimal" if ok else "optimal_inaccurate"
            sol.info["solver"] = label
            if not ok:
                sol.info.setdefault("message", f"{label}: the certificate does not reach {self.certify_tol:g}")
        record = {"solver": label, "cvxpy_status": "n/a", "status": sol.status if sol is not None else "solver_error",
                  "relative_gap": relative_gap(sol.certificate) if sol is not None else np.nan,
                  "message": message if sol is None else sol.info.get("message"), "time": _time.perf_counter() - t0}
        return sol, record

    def _spent(self, attempts) -> bool:
        """Whether an attempt stopped on the run's ``max_iter`` (the search ends there, module docstring)."""
        return any(a.get("max_iter_hit", False) for a in attempts)

    def result(self):
        t0 = getattr(self, "begin", None) or _time.perf_counter()   # solve() sets it: the import counts too
        deadline = None if self.time_limit is None else t0 + self.time_limit
        self._scales = self.scalings()
        attempts, best, best_stats, setup = [], None, None, 0.0
        reasons = [self.scale_problem(sc) for sc in self._scales]
        for solver, opts, user_opts in self.attempts():
            done = False
            for scale, reason in zip(self._scales, reasons):
                if reason is not None:
                    continue
                tb = _time.perf_counter()
                try:
                    prob, handles = self._model_for(scale)
                except Exception as exc:  # noqa: BLE001
                    attempts.append({"solver": solver, "cvxpy_status": "solver_error", "status": "solver_error",
                                     "relative_gap": np.nan, "time": 0.0,
                                     "message": f"the model could not be built ({type(exc).__name__}: {exc})"})
                    continue
                setup += _time.perf_counter() - tb
                tries = [(opts, user_opts, solver)]
                if solver == DEFAULT_SOLVER and self.solver is None and opts != self.budgeted(solver):
                    tries.append((self.budgeted(solver), False, solver + " (defaults)"))   # the tight settings raise
                for o, uo, label in tries:
                    if deadline is not None and _time.perf_counter() >= deadline:   # no more attempts
                        attempts.append({"solver": label, "cvxpy_status": "user_limit", "status": "user_limit",
                                         "relative_gap": np.nan, "time": 0.0,
                                         "message": f"not tried: time_limit={self.time_limit}s spent"})
                        break
                    sol, stats, record, ct = self._attempt(prob, handles, scale, solver, o, uo, label, deadline)
                    setup += ct
                    attempts.append(record)
                    if best is None or _rank(sol) < _rank(best):
                        best, best_stats = sol, stats
                    if record["cvxpy_status"] != "solver_error":
                        break
                if best is not None and best.status in ("optimal", "infeasible") or \
                        deadline is not None and _time.perf_counter() >= deadline or self._spent(attempts):
                    done = True
                    break
            if done:
                break
        for label, solve in ([] if self.solver is not None else self.direct_solutions()):   # a named solver alone
            if best is not None and best.status in ("optimal", "infeasible") or \
                    deadline is not None and _time.perf_counter() >= deadline or self._spent(attempts):
                break
            sol, record = self._direct(label, solve)
            attempts.append(record)
            if sol is not None and (best is None or _rank(sol) < _rank(best)):
                best, best_stats = sol, None
        elapsed = _time.perf_counter() - t0
        if best is None:
            best = no_point("solver_error", "not solved: " + "; ".join(r for r in reasons if r))
        sol = best
        if sol.status in ("solver_error", "user_limit") and sol.w is None and sol.dual_coef is None and attempts:
            if any(a["cvxpy_status"] == "user_limit" for a in attempts):
                sol.status = "user_limit"
            tried = "; ".join(_describe(a) for a in attempts)
            sol.info["message"] = f"no solver returned a usable point ({tried})"
        elif len(attempts) > 1 and sol.status not in ("optimal", "infeasible"):
            sol.info.setdefault("message", "no solver certified the answer; the best point is reported")
        if best_stats is not None:
            sol.iterations = int(best_stats.num_iters or 0)
            sol.info["solve_time"] = best_stats.solve_time
        sol.info["attempts"] = attempts
        if sol.status == "user_limit" and deadline is not None and _time.perf_counter() >= deadline:
            sol.info["stopped_by"] = "time_limit"
        elif sol.status == "user_limit" and self._spent(attempts):
            sol.info["stopped_by"] = "max_iter"
        setup = min(elapsed, setup)
        sol.setup_time, sol.time = setup, elapsed - setup
        solver = sol.info.get("solver") or (self.solver or DEFAULT_SOLVER)
        sol.info["solver"] = solver
        if sol.certificate is None:
            sol.certificate = {"primal": np.nan, "dual": np.nan, "duality_gap": np.nan, "max_violation": np.nan,
                               "relative_gap": np.nan}
        sol.certificate["solver"] = solver
        return build_result(self.problem, sol, self.method, reference=True)


def _describe(attempt: dict) -> str:
    text = attempt["message"] or f"status {attempt['status']}"
    name = attempt["solver"].split()[0]
    if text.startswith(name + ": "):
        text = text[len(name) + 2:]
    elif text.startswith(name + " "):
        text = text[len(name) + 1:]
    return f"{attempt['solver']}: {text}"


def solve_auxiliary(prob: cp.Problem, **clarabel_options) -> str:
    """Solve a helper model (hull distance, λ*, Farkas certificate, δ_A): Clarabel first, then Clarabel's defaults,
    ECOS, SCS and the other installed solvers if it fails; returns the CVXPY status (``solver_error`` if every
    solver failed or none returned a finite point). Never raises."""
    attempts = [("CLARABEL", clarabel_options), ("CLARABEL", {})] if clarabel_options else [("CLARABEL", {})]
    attempts += [(s, {"eps": 1e-9} if s == "SCS" else {}) for s in fallback_solvers() if s != "CLARABEL"]
    for solver, opts in attempts:
        status, _ = run_solver(prob, solver, opts)
        if status in ("infeasible", "unbounded"):
            return status
        if status in ("optimal", "optimal_inaccurate") and all(value_of(v) is not None for v in prob.variables()):
            return status
    return "solver_error"
