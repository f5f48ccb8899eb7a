"""Issue 23, item 1 (``dual-cd-bias``): gap-safe screening with the exact offset. A wrong screen is a wrong answer:
over random instances with duplicates, zero rows, ties at margin 1, sample weights, sparse X and extreme scales, no
screened sample contradicts the KKT conditions of the CVXPY optimum (removed: ``y_i(x_iᵀw* + b*) >= 1``, fixed:
``<= 1``). The default run draws a quick sample of the property test; ``-m slow`` draws 2,000 instances."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from screening_cases import kkt_violations, screened, screened_at_warm_start, screened_instance
from svm_helpers import both_engines, pushed_apart, reference_fixture

import marginkit as mk
from marginkit.plans.svm_cd import svm_bias

METHOD = "dual-cd-bias"
numba_only = pytest.mark.skipif(not svm_bias.numba_available(), reason="numba is not installed")


def _screened(problem, steps: int, seed: int, tol: float, **options):
    return screened(problem, METHOD, steps, seed, tol, **options)


_kkt_violations = kkt_violations


def _check_one(seed: int) -> int:
    case = screened_instance(seed, METHOD, True, 40, off_centre=True, zero_weight_from=2)
    if case is None:
        return 0                                            # no exact answer to compare with
    _, y, _, plan, state, (removed, fixed), (bad_removed, bad_fixed) = case
    assert bad_removed.size == 0 and bad_fixed.size == 0, (seed, bad_removed, bad_fixed)
    if state.pending == (0, 0):
        assert np.all(state.a[removed] == 0.0) and np.all(state.a[fixed] == plan.box[fixed])
    assert not np.any(plan.box[np.concatenate([removed, fixed])] == 0.0)   # C_i = 0 is never screened
    assert abs(state.s - float(y @ state.a)) <= 1e-9 * (1.0 + float(plan.box.sum()))   # yᵀa carried honestly
    return removed.size + fixed.size


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.integers(0, 2 ** 31 - 1))
def test_no_screened_sample_violates_the_kkt_conditions_of_the_reference(seed):
    _check_one(seed)


def test_the_quick_sample_screens_something():
    assert sum(_check_one(seed) for seed in range(25)) > 0


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.integers(0, 2 ** 31 - 1))
def test_no_screened_sample_violates_the_kkt_conditions_over_2000_instances(seed):
    _check_one(seed)


def _shifted(n=400, d=5, seed=0, sparse=False, noise=0.03):
    # separated around a shifted plane: b* is far from 0
    X, y, _, _ = pushed_apart(n, d, seed, threshold=0.3, shift=2.0, flip=noise, density=0.7 if sparse else None)
    return (sp.csr_matrix(X) if sparse else X), y


shifted = reference_fixture(_shifted, with_data=True, C=0.5, bias=True)   # (problem, ref, X, y)


def test_results_with_and_without_screening_agree_with_the_reference(shifted):
    problem, ref, X, y = shifted
    on = problem.solve(METHOD, tol=1e-8, seed=0, max_iter=20000)
    off = problem.solve(METHOD, tol=1e-8, seed=0, max_iter=20000, screening=False)
    for res in (on, off):
        assert res.status == "optimal"
        assert abs(res.value - ref.value) <= 1e-6 * abs(ref.value)
        assert abs(res.b - ref.b) <= 1e-2 * (1.0 + abs(ref.b))
    screened = on.certificate["screened"]
    assert set(screened) == {"removed", "fixed"} and screened["removed"] > 0.3 * problem.n
    assert "screened" not in off.certificate
    _, state, (removed, fixed) = _screened(problem, on.iterations, 0, 1e-8)
    assert (removed.size, fixed.size) == (screened["removed"], screened["fixed"])
    Xd = np.asarray(X.todense()) if sp.issparse(X) else X
    bad_removed, bad_fixed = _kkt_violations(Xd, y, ref, removed, fixed)
    assert bad_removed.size == 0 and bad_fixed.size == 0
    trace = on.trace.to_pandas()
    assert trace["screened"].iloc[-1] == screened["removed"] + screened["fixed"]
    assert np.all(np.diff(trace["screened"].to_numpy()) >= 0)


def test_screening_is_an_option_declared_in_the_config():
    X, y = _shifted(n=60)
    problem = mk.SoftMarginSVM(X, y, C=1.0, bias=True)
    with pytest.raises(mk.ProblemError, match="screening"):
        problem.solve(METHOD, screening="yes")
    assert "screening" in str(mk.describe(METHOD))


def test_screened_samples_leave_the_epochs_for_good(shifted):
    problem, *_ = shifted
    plan = problem.compile(METHOD)
    seen = set()
    for state in plan.iterate(40, seed=3, tol=1e-10):
        removed, fixed = plan.screened_sets(state)
        now = set(removed.tolist()) | set(fixed.tolist())
        assert seen <= now                                 # once screened, screened for good
        assert not now & set(state.index[:state.live].tolist())
        assert state.active <= state.live
        seen = now
    assert seen


def test_a_warm_start_screens_at_init():
    X, y = _shifted(n=300, seed=4)
    problem = mk.SoftMarginSVM(X, y, C=0.5, bias=True)
    state, removed, fixed = screened_at_warm_start(problem, METHOD, 1e-7)
    assert removed.size + fixed.size > 0.3 * problem.n and state.pending == (removed.size, fixed.size)


@numba_only
@pytest.mark.parametrize("sparse", [False, True])
def test_numba_and_numpy_screen_the_same_samples_with_the_same_iterates(sparse):
    X, y = _shifted(n=200, d=4, seed=5, sparse=sparse)
    problem = mk.SoftMarginSVM(X, y, C=0.5, bias=True)
    fast, slow = both_engines(problem, METHOD, 8)
    assert fast.certificate["screened"] == slow.certificate["screened"]
    assert sum(fast.certificate["screened"].values()) > 0
    np.testing.assert_allclose(fast.w, slow.w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(fast.dual["a"], slow.dual["a"], rtol=1e-12, atol=1e-14)
