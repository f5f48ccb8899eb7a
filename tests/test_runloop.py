"""The one run loop: budgets, callback, verbose log, trace schedule, warm start, stepping."""
import io
import contextlib
import time

import numpy as np
import pytest

import marginkit as mk
from marginkit.core.errors import PlanError
from marginkit.plans.jst.dual_acceleration import NormalizedGD


@pytest.fixture(scope="module")
def problem(small_separable):
    return mk.MaxMargin(*small_separable)


def test_max_iter_is_a_user_limit(problem):
    res = problem.solve("normalized-gd", max_iter=7, tol=0)
    assert res.status == "user_limit" and res.iterations == 7


def test_time_limit_stops_the_run(problem):
    res = problem.solve("dual-accelerated", max_iter=10**9, tol=0, time_limit=0.2)
    assert res.status == "user_limit" and 0.15 < res.time < 5.0


def test_callback_returning_true_stops(problem):
    seen = []

    def cb(state):
        seen.append(state.t)
        return state.t >= 5
    res = problem.solve("dual-accelerated", callback=cb, tol=0)
    assert res.status == "user_limit" and res.iterations == 5 and seen[-1] == 5


def test_geometric_trace_is_short_and_ends_at_last_iterate(problem):
    res = problem.solve("dual-accelerated", max_iter=5000, tol=0)
    it = res.trace["iteration"]
    assert it[0] == 0 and it[-1] == 5000
    assert len(it) < 300  # about 60 records a decade
    assert np.all(np.diff(it) > 0)
    lengths = {len(res.trace[k]) for k in res.trace.keys()}
    assert lengths == {len(it)}


def test_trace_every_k(problem):
    res = problem.solve("normalized-gd", max_iter=50, tol=0, trace=10)
    assert list(res.trace["iteration"]) == [0, 10, 20, 30, 40, 50]


def test_trace_has_reference_gaps_once_reference_is_known(problem):
    problem.reference()
    res = problem.solve("dual-accelerated", max_iter=200)
    for key in ("margin", "margin_gap", "angle_gap", "dist_to_opt", "margin_upper"):
        assert key in res.trace
    assert np.all(res.trace["margin_gap"] >= -1e-9)


def test_verbose_prints_a_table(problem):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        problem.solve("dual-accelerated", max_iter=30, verbose=True)
    out = buf.getvalue()
    assert "iter" in out and "margin" in out and "status:" in out


def test_warm_start_from_a_result_continues_progress(problem):
    first = problem.solve("normalized-gd", max_iter=200, tol=0)
    again = problem.solve("normalized-gd", max_iter=200, tol=0, warm_start=first)
    assert again.margin > first.margin


def test_seed_makes_stochastic_runs_reproducible(problem):
    a = problem.solve("dual-accelerated-stochastic", max_iter=100, seed=3)
    b = problem.solve("dual-accelerated-stochastic", max_iter=100, seed=3)
    c = problem.solve("dual-accelerated-stochastic", max_iter=100, seed=4)
    assert np.array_equal(a.w, b.w) and not np.array_equal(a.w, c.w)


@pytest.mark.parametrize("opts, arg", [({"max_iter": -1}, "max_iter"), ({"tol": -1.0}, "tol"),
                                       ({"time_limit": 0}, "time_limit"), ({"callback": 3}, "callback"),
                                       ({"trace": "sometimes"}, "trace")])
def test_bad_run_options_are_problem_errors(problem, opts, arg):
    with pytest.raises(mk.ProblemError, match=arg):
        problem.solve("dual-accelerated", **opts)


def test_compiled_plan_runs_and_steps(problem):
    plan = problem.compile("dual-accelerated", max_iter=50)
    res = plan.run()
    assert isinstance(res, mk.Result) and res.iterations == 50 or res.status == "optimal"
    states = list(plan.iterate(3))
    assert [s.t for s in states] == [0, 1, 2, 3]


def test_result_predict_returns_user_labels():
    X = np.array([[1.0, 2.0], [-1.0, -1.5], [2.0, 1.0], [-2.0, -0.5]])
    y = np.array(["cat", "dog", "cat", "dog"])
    res = mk.MaxMargin(X, y).solve("dual-accelerated", max_iter=100)
    assert list(res.classes_) == ["cat", "dog"]  # sorted: cat -> -1, dog -> +1
    assert list(res.predict(X)) == list(y)
    assert list(mk.MaxMargin(X, y).reference().predict(X)) == list(y)


def test_test_set_adds_test_error_to_trace_and_info(digits01):
    X, y = digits01
    P = mk.MaxMargin(X[::2], y[::2])
    res = P.solve("dual-accelerated", max_iter=100, test_set=(X[1::2], y[1::2]))
    err = res.trace["test_error"]
    assert len(err) == len(res.trace) and np.all((0 <= err) & (err <= 1))
    assert res.info["test_error"] == pytest.approx(np.mean(res.predict(X[1::2]) != y[1::2]))
    assert err[0] >= 0.4  # w_0 = 0 predicts one class only
    with pytest.raises(mk.ProblemError, match="test_set"):
        P.solve("dual-accelerated", max_iter=5, test_set=(X[:3, :5], y[:3]))


# what the hooks return is checked where it arrives (engine/protocol.py): a PlanError naming the hook ----------------
class _StopsWith(NormalizedGD):
    answer = None

    def stop(self, state, budget):
        return self.answer if state.t >= 2 else None


@pytest.mark.parametrize("answer, says", [
    (False, "return None to go on (not False)"),
    ("user_limit", "the budgets are the loop's"),
    ("done", "'done' is no status"),
])
def test_stop_returning_what_is_no_status_is_a_plan_error_naming_stop(problem, answer, says):
    plan_class = type("StopsWith", (_StopsWith,), {"answer": answer})
    with pytest.raises(PlanError, match=r"StopsWith\.stop\(state, budget\) returned") as failure:
        plan_class.compile(problem, {}).run(max_iter=10, seed=0)
    message = str(failure.value)
    assert "at iteration 2" in message and says in message, message


def test_measure_returning_a_tuple_is_a_plan_error_naming_measure(problem):
    class MeasuresATuple(NormalizedGD):
        def measure(self, state):
            return tuple(super().measure(state).values())
    with pytest.raises(PlanError, match=r"MeasuresATuple\.measure\(state\) returned tuple") as failure:
        MeasuresATuple.compile(problem, {}).run(max_iter=10, seed=0)
    assert "must return a dict of metric names to numbers" in str(failure.value)


def test_a_measure_value_that_is_not_a_number_is_a_plan_error_naming_it(problem):
    class MeasuresAVector(NormalizedGD):
        def measure(self, state):
            return {**super().measure(state), "w": state.w}
    with pytest.raises(PlanError, match=r"returned a dict whose 'w' is ndarray"):
        MeasuresAVector.compile(problem, {}).run(max_iter=10, seed=0)


def test_an_init_that_outlasts_time_limit_ends_the_run_at_iteration_0_and_says_so(problem):
    class SlowInit(NormalizedGD):
        def init(self, rng, warm_start, budget):
            time.sleep(0.3)
            return super().init(rng, warm_start, budget)
    res = SlowInit.compile(problem, {}).run(max_iter=10**6, tol=0, time_limit=0.1)
    assert res.status == "user_limit" and res.iterations == 0
    assert res.info["stopped_by"] == "time_limit"
    assert "init" in res.info["message"] and "time_limit=0.1" in res.info["message"], res.info["message"]
