"""Issue 25, "the nine bad inputs" and "no crash anywhere": each ends in a ProblemError naming the argument and the
fix, or in an honest status; never a raw exception."""
import numpy as np
import pytest

import marginkit as mk


@pytest.fixture(scope="module")
def problem(small_separable):
    return mk.MaxMargin(*small_separable)


def test_callback_returning_an_array_is_a_problem_error(problem):
    with pytest.raises(mk.ProblemError, match="callback must return True"):
        problem.solve("dual-accelerated", callback=lambda s: np.array([True, False]), tol=0, max_iter=20)


@pytest.mark.parametrize("answer", [np.bool_(True), True, np.array(True)])
def test_callback_numpy_and_python_bools_stop(problem, answer):
    res = problem.solve("dual-accelerated", callback=lambda s: answer, tol=0, max_iter=20)
    assert res.status == "user_limit" and res.iterations == 0


def test_callback_returning_none_goes_on(problem):
    res = problem.solve("dual-accelerated", callback=lambda s: None, tol=0, max_iter=20)
    assert res.status == "user_limit" and res.iterations == 20
