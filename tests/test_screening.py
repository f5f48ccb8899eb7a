"""Issue 23, items 1-2: gap-safe screening in ``dual-cd`` and along ``marginkit.path``. A wrong screen is a wrong
answer: over random instances with duplicates, zero rows, ties at margin 1, sample weights, sparse X and extreme
scales, no screened sample contradicts the KKT conditions of the CVXPY optimum (removed: ``y_i x_iᵀw* >= 1``, fixed:
``<= 1``), and the results with and without screening agree with the reference. The default run draws a quick sample
of the property test; ``-m slow`` draws the issue's 2,000 instances."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from screening_cases import kkt_violations, screened, screened_at_warm_start, screened_instance
from svm_helpers import both_engines, pushed_apart, reference_fixture

import marginkit as mk
from marginkit.plans.svm_cd import svm_coordinate

numba_only = pytest.mark.skipif(not svm_coordinate.numba_available(), reason="numba is not installed")


def _screened(problem, steps: int, seed: int, tol: float, **options):
    return screened(problem, "dual-cd", steps, seed, tol, **options)


_kkt_violations = kkt_violations


def _check_one(seed: int) -> None:
    case = screened_instance(seed, "dual-cd", False, 60)
    if case is None:
        return                                              # no exact answer to compare with
    problem, y, weights, _, state, (removed, fixed), (bad_removed, bad_fixed) = case
    assert bad_removed.size == 0 and bad_fixed.size == 0, (seed, bad_removed, bad_fixed)
    assert np.all(state.a[removed] == 0.0) or state.pending != (0, 0)
    box = problem.C * (np.ones(y.size) if weights is None else weights)
    assert not np.any(box[np.concatenate([removed, fixed])] == 0.0)   # C_i = 0 is never screened (never visited)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.integers(0, 2 ** 31 - 1))
def test_no_screened_sample_violates_the_kkt_conditions_of_the_reference(seed):
    _check_one(seed)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.integers(0, 2 ** 31 - 1))
def test_no_screened_sample_violates_the_kkt_conditions_over_2000_instances(seed):
    _check_one(seed)


def _separated(n=400, d=5, seed=0, sparse=False, noise=0.02):
    X, y, _, _ = pushed_apart(n, d, seed, flip=noise, density=0.6 if sparse else None)
    return (sp.csr_matrix(X) if sparse else X), y


separated = reference_fixture(_separated, with_data=True, C=0.5, bias=False)   # (problem, ref, X, y)


def test_results_with_and_without_screening_agree_with_the_reference(separated):
    problem, ref, X, y = separated
    on = problem.solve("dual-cd", tol=1e-8, seed=0, max_iter=20000)
    off = problem.solve("dual-cd", tol=1e-8, seed=0, max_iter=20000, screening=False)
    for res in (on, off):
        assert res.status == "optimal"
        assert abs(res.value - ref.value) <= 1e-6 * abs(ref.value)
        assert np.linalg.norm(res.w - ref.w) <= 1e-3 * np.linalg.norm(ref.w)
    screened = on.certificate["screened"]
    assert set(screened) == {"removed", "fixed"}
    assert screened["removed"] > 0.5 * problem.n          # most samples are far from the margin here
    assert screened["fixed"] > 0                           # the flipped labels are margin errors
    assert "screened" not in off.certificate
    # the reported counts are the screened sets, and each respects the reference's KKT conditions
    _, state, (removed, fixed) = _screened(problem, on.iterations, 0, 1e-8)
    assert (removed.size, fixed.size) == (screened["removed"], screened["fixed"])
    bad_removed, bad_fixed = _kkt_violations(np.asarray(X.todense()) if sp.issparse(X) else X, y, ref, removed, fixed)
    assert bad_removed.size == 0 and bad_fixed.size == 0


def test_screening_is_an_option_declared_in_the_config():
    X, y = _separated(n=60)
    problem = mk.SoftMarginSVM(X, y, C=1.0, bias=False)
    with pytest.raises(mk.ProblemError, match="screening"):
        problem.solve("dual-cd", screening="yes")
    assert "screening" in str(mk.describe("dual-cd"))


def test_screened_samples_leave_the_epochs_for_good_and_shrinking_never_brings_them_back(separated):
    problem, *_ = separated
    plan = problem.compile("dual-cd")
    seen = set()
    for state in plan.iterate(60, seed=3, tol=1e-9):
        removed, fixed = plan.screened_sets(state)
        now = set(removed.tolist()) | set(fixed.tolist())
        assert seen <= now                                 # once screened, screened for good
        assert not now & set(state.index[:state.live].tolist())
        assert state.active <= state.live
        if state.pending == (0, 0):
            assert np.all(state.a[removed] == 0.0) and np.all(state.a[fixed] == plan.box[fixed])
        seen = now
    assert seen


def test_a_warm_start_screens_at_init():
    X, y = _separated(n=300, seed=4)
    problem = mk.SoftMarginSVM(X, y, C=0.5, bias=False)
    state, removed, fixed = screened_at_warm_start(problem, "dual-cd", 1e-6)
    assert removed.size + fixed.size > 0.5 * problem.n and state.pending == (removed.size, fixed.size)


@numba_only
@pytest.mark.parametrize("sparse", [False, True])
def test_numba_and_numpy_screen_the_same_samples_with_the_same_iterates(sparse):
    X, y = _separated(n=200, d=4, seed=5, sparse=sparse)
    problem = mk.SoftMarginSVM(X, y, C=0.5, bias=False)
    fast, slow = both_engines(problem, "dual-cd", 30)
    assert fast.certificate["screened"] == slow.certificate["screened"]
    assert sum(fast.certificate["screened"].values()) > 0
    if sparse:   # the same sums in the same order
        np.testing.assert_array_equal(fast.w, slow.w)
        np.testing.assert_array_equal(fast.dual["a"], slow.dual["a"])
    else:   # a dense row's dot: a vectorised loop compiled, BLAS ddot in Python (numba_rows._long_dot)
        np.testing.assert_allclose(fast.w, slow.w, rtol=0, atol=1e-12 * np.abs(slow.w).max())
        np.testing.assert_allclose(fast.dual["a"], slow.dual["a"], rtol=0, atol=1e-12)


# item 2: sequential screening along the path ---------------------------------------------------------------------
@pytest.mark.parametrize("sparse", [False, True])
def test_the_sequential_rule_proves_only_what_the_next_optimum_satisfies(sparse):
    from marginkit.api.path import sequential_screen
    X, y = _separated(n=300, d=4, seed=6, sparse=sparse, noise=0.05)
    weights = np.random.default_rng(6).uniform(0.2, 2.0, size=y.size)
    problem = mk.SoftMarginSVM(X, y, C=1.0, bias=False, sample_weight=weights)
    Xd = np.asarray(X.todense()) if sp.issparse(X) else X
    grid = np.logspace(-2, 1, 8)
    proven = 0
    for c0, c1 in zip(grid[:-1], grid[1:]):
        previous = mk.SoftMarginSVM(X, y, C=c0, bias=False, sample_weight=weights).solve("dual-cd", tol=1e-6, seed=0)
        removed, fixed = sequential_screen(problem, previous, c0, c1)
        ref = mk.SoftMarginSVM(X, y, C=c1, bias=False, sample_weight=weights).reference()
        bad_removed, bad_fixed = _kkt_violations(Xd, y, ref, removed, fixed)
        assert bad_removed.size == 0 and bad_fixed.size == 0, (c1, bad_removed, bad_fixed)
        proven += removed.size + fixed.size
    assert proven > 0


def test_path_with_sequential_screening_is_certified_and_agrees_with_the_path_without():
    X, y = _separated(n=400, d=5, seed=7, noise=0.05)
    problem = mk.SoftMarginSVM(X, y, bias=False)
    grid = np.logspace(-2, 1, 6)
    on = mk.path(problem, C=grid, method="dual-cd", tol=1e-8, seed=0, max_iter=20000)
    off = mk.path(problem, C=grid, method="dual-cd", tol=1e-8, seed=0, max_iter=20000, screening=False)
    assert all(r.status == "optimal" and r.certificate["relative_gap"] <= 1e-8 for r in on + off)
    assert all(sum(r.certificate["screened"].values()) > 0 for r in on[1:])
    for c, a, b in zip(grid, on, off):
        assert a.value == pytest.approx(b.value, rel=2e-8)
        assert np.linalg.norm(a.w - b.w) <= 1e-3 * np.linalg.norm(b.w)
        assert a.info["C"] == c
    ref = mk.SoftMarginSVM(X, y, C=float(grid[-1]), bias=False).reference()
    assert abs(on[-1].value - ref.value) <= 1e-6 * abs(ref.value)
