"""``time_limit`` is kept by every method, plan or reference, at any cost per iteration (issue 25, item 2).

The bound asserted is the issue's: a run stops within ``max(5 %, 0.5 s)`` of ``time_limit``, plus, for a plan, one
iteration (the loop predicts from measured costs, it cannot know a first step's cost before it runs), and for the
reference, one iteration of the interior-point solver (it checks its clock between its own iterations). The margins
are generous (the machine running the tests is shared and noisy) but each would fail without the fix they cover.
"""
import time
from dataclasses import dataclass

import numpy as np
import pytest

import marginkit as mk
from marginkit.core.solution import Solution
from marginkit.engine.options import run_options
from marginkit.engine.runloop import IterationPlan, run_loop
from marginkit.reference.base import TIME_LIMIT_KEYWORDS


def slack(limit: float) -> float:
    return max(0.05 * limit, 0.5)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5))
    y = np.where(X[:, 0] > 0, 1, -1)
    X[:, 0] += 0.5 * y
    return X, y


def _problems(X, y):
    return [mk.MaxMargin(X, y), mk.MaxMargin(X, y, bias=True), mk.SoftMarginSVM(X, y),
            mk.SoftMarginSVM(X, y, bias=False), mk.MinNormFeasibility(X, y, p=1.5)]


def test_every_plan_stops_at_its_limit(data):
    """A run that would go on forever (``tol=0``, no iteration budget) returns within the limit and its slack."""
    limit, checked = 0.25, 0
    for problem in _problems(*data):
        for method in mk.methods(problem):
            if method == "cvxpy":
                continue
            problem.solve(method, max_iter=2, tol=0)   # first use: the family's import and any JIT compile
            walls = []
            for _ in range(2):   # a second try only when the first overran: a loaded machine can pause a process
                t0 = time.perf_counter()
                res = problem.solve(method, max_iter=10**9, tol=0, time_limit=limit)
                walls.append(time.perf_counter() - t0)
                if walls[-1] < limit + slack(limit):
                    break
            assert min(walls) < limit + slack(limit), (type(problem).__name__, method, walls)
            assert res.status in ("user_limit", "optimal", "optimal_inaccurate"), (method, res.status)
            checked += 1
    assert checked >= 15


def test_slow_iterations_are_not_started_late(data):
    """A 0.9 s iteration (here the callback's) and a 1 s limit: the loop predicts the next iteration's cost and
    stops at 0.9 s (checking the clock only after each iteration ends at 1.8 s)."""
    problem = mk.MaxMargin(*data)
    t0 = time.perf_counter()
    res = problem.solve("dual-accelerated", max_iter=10**9, tol=0, time_limit=1.0,
                        callback=lambda state: time.sleep(0.9))
    wall = time.perf_counter() - t0
    assert res.status == "user_limit" and res.iterations == 1
    assert wall < 1.0 + slack(1.0)


@dataclass(frozen=True)
class _Costs:
    setup: float = 0.0
    step: float = 0.0
    record: float = 0.0


class _SlowPlan(IterationPlan):
    """A plan whose setup, step and trace record cost what ``Config`` says (sleeps)."""

    name = "slow"
    Config = _Costs

    def setup(self):
        time.sleep(self.config.setup)

    def init(self, rng, warm_start, budget):
        return {"t": 0, "w": np.zeros(2)}

    def step(self, state):
        time.sleep(self.config.step)
        return {"t": state["t"] + 1, "w": state["w"] + 1.0}

    def measure(self, state):
        time.sleep(self.config.record)
        return {"t": float(state["t"])}

    def solution(self, state, status):
        return Solution(w=state["w"], status=status)


def _run(plan, **options):
    t0 = time.perf_counter()
    sol = run_loop(plan, run_options("slow", {"max_iter": 10**9, "tol": 0.0, **options}).resolved(plan))
    return sol, time.perf_counter() - t0


def test_slow_trace_records_are_predicted(data):
    """Every record costs 0.8 s (``trace=1``): after the first, another step and its record do not fit in 1 s, so
    none is started (checking the clock only after each iteration ends at 1.65 s)."""
    plan = _SlowPlan(mk.MaxMargin(*data), _Costs(step=0.05, record=0.8))
    sol, wall = _run(plan, time_limit=1.0, trace=1)
    assert sol.status == "user_limit" and sol.iterations == 0
    assert wall < 1.0 + slack(1.0)


def test_a_step_longer_than_the_limit_is_not_started(data):
    """A 0.6 s step: the second, which would end at 1.2 s, is not started under a 1 s limit."""
    plan = _SlowPlan(mk.MaxMargin(*data), _Costs(step=0.6))
    sol, wall = _run(plan, time_limit=1.0)
    assert sol.status == "user_limit" and sol.iterations == 1
    assert wall < 1.0 + slack(1.0)


def test_a_limit_given_with_the_plan_covers_its_setup(data):
    """``compile(..., time_limit=1)`` then ``run()``: the 0.7 s setup is part of the second the caller waits for;
    ``run(time_limit=1)`` on a compiled plan counts from the run."""
    t0 = time.perf_counter()
    plan = _SlowPlan(mk.MaxMargin(*data), _Costs(setup=0.7, step=0.1), run_defaults={"time_limit": 1.0})
    sol = plan.run_solution()
    wall = time.perf_counter() - t0
    assert sol.status == "user_limit" and wall < 1.0 + slack(1.0)
    assert sol.iterations <= 4   # about 0.3 s were left for 0.1 s steps, not 1 s
    sol = plan.run_solution(time_limit=0.5)
    assert sol.status == "user_limit" and sol.iterations >= 3


@pytest.fixture(scope="module")
def slow_reference():
    """A soft-margin SVM whose Clarabel solve takes a few seconds (about 0.1-0.3 s per interior-point iteration)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 150))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=2000) > 0, 1, -1)
    return mk.SoftMarginSVM(X, y, C=1.0)


def test_reference_keeps_its_limit(slow_reference):
    slow_reference.solve("cvxpy", solver="CLARABEL", max_iter=1)   # first use: CVXPY's import
    t0 = time.perf_counter()
    res = slow_reference.solve("cvxpy", time_limit=0.6)
    wall = time.perf_counter() - t0
    assert wall < 0.6 + slack(0.6) + 0.6, (wall, res.info["attempts"])
    assert res.status in ("user_limit", "optimal", "optimal_inaccurate")
    tried = {a["solver"].split()[0] for a in res.info["attempts"]}
    assert tried <= set(TIME_LIMIT_KEYWORDS)   # ECOS cannot be stopped: not a fallback under a limit


def test_reference_budget_spent_ends_the_fallback(data):
    """A budget spent before a solver could run: ``user_limit`` with the reason, no exception, no further attempt."""
    res = mk.MaxMargin(*data).solve("cvxpy", time_limit=1e-9)
    assert res.status == "user_limit" and res.w is None
    assert "time_limit" in res.info["message"]


@pytest.mark.parametrize("solver, value, word", [("ECOS", 1.0, "ECOS"), (None, -1.0, "time_limit"),
                                                 (None, "soon", "time_limit"), (None, float("nan"), "time_limit")])
def test_reference_time_limit_is_checked(data, solver, value, word):
    with pytest.raises(mk.ProblemError, match="time_limit") as err:
        mk.MaxMargin(*data).solve("cvxpy", solver=solver, time_limit=value)
    assert word in str(err.value)


def test_reference_time_limit_reaches_scs(data):
    """SCS takes the limit under its own keyword (``time_limit_secs``)."""
    res = mk.MaxMargin(*data).solve("cvxpy", solver="SCS", time_limit=30.0)
    assert res.status in ("optimal", "optimal_inaccurate")


def test_reference_whose_solver_setup_overruns_returns_on_time(capfd):
    """Clarabel reads its clock between iterations, not while it factors the model: a 20,000 x 100 hard margin overran
    a 1.3 s solver limit by 0.8 s. The reference waits for its solver in a worker thread and returns at the deadline,
    and what it silenced while the solver ran is restored, whether the solver returned or was left running."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20000, 100))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(20000) > 0, 1.0, -1.0)
    problem = mk.MaxMargin(X, y, bias=True)
    problem.solve("cvxpy", solver="CLARABEL", max_iter=1)   # first use: CVXPY's import
    t0 = time.perf_counter()
    res = problem.solve("cvxpy", time_limit=1.0)
    wall = time.perf_counter() - t0
    assert wall < 1.0 + slack(1.0) + 0.5, (wall, res.info["attempts"])   # + 0.5 s: a loaded 2-core CI machine
    assert res.status in ("user_limit", "optimal", "optimal_inaccurate")
    if res.status == "user_limit":
        assert res.info["stopped_by"] == "time_limit"
    capfd.readouterr()
    print("still heard")
    assert "still heard" in capfd.readouterr().out
