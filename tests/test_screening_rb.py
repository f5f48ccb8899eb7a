"""Issue 23, item 1: gap-safe screening of inactive margin constraints in the Raj–Bach dual coordinate plans
(``dykstra``, ``dykstra-accelerated``) on ``MinNormFeasibility`` (margins, p = 2 and 1.5) and ``MaxMargin(bias=False)``.
A wrong screen is a wrong answer: over random separable instances with duplicates, ties, extreme row scales and a
reference point ``w0``, no screened constraint is active at the CVXPY optimum (``a_iᵀθ* >= 1`` and ``λ*_i = 0`` to
the reference's accuracy); without screening the iterates are those of the epochs alone, bit for bit; with it the
statuses and solutions agree with the reference. The default run draws a quick sample of the property test;
``-m slow`` draws 2,000 instances."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import marginkit as mk
from marginkit.engine.runloop import make_rng
from marginkit.plans.raj_bach.coordinate_ascent import compiled_kernels
from marginkit.plans.raj_bach.epochs import RCD

from svm_helpers import both_engines, pushed_apart

PLANS = ("dykstra", "dykstra-accelerated")
numba_only = pytest.mark.skipif(compiled_kernels() is None, reason="numba is not installed")


def _instance(seed: int):
    """A random separable instance: ``(problem, rows a_i = y_i x_i (dense), p)``."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(4, 50)), int(rng.integers(1, 7))
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    X = rng.standard_normal((n, d))
    y = np.where(X @ u >= 0, 1.0, -1.0)
    X += (rng.uniform(0.05, 2.0) * y)[:, None] * u             # separable with a margin gap of random width
    y[:2] = (1.0, -1.0)
    X[:2] = np.outer(y[:2], u) * rng.uniform(0.5, 2.0)
    if rng.random() < 0.3:                                      # duplicates (same label: still separable)
        k = int(rng.integers(1, 4))
        X[-k:], y[-k:] = X[:k], y[:k]
    if rng.random() < 0.2:                                      # ties: rows on lattice points
        X = np.round(4 * X) / 4
        X[np.linalg.norm(X, axis=1) == 0.0] = u / 4
        y = np.where(X @ u > 0, 1.0, np.where(X @ u < 0, -1.0, y))
        X[(X @ u) * y <= 0] = np.outer(y[(X @ u) * y <= 0], u)   # keep every row strictly on its side
    if rng.random() < 0.3:                                      # extreme row scales
        X *= 10.0 ** rng.uniform(-2, 2, size=n)[:, None]
    X *= 10.0 ** rng.uniform(-3, 3)
    Xs = sp.csr_matrix(X) if rng.random() < 0.25 else X
    kind = rng.random()
    if kind < 0.3:
        problem = mk.MaxMargin(Xs, y, bias=False)
        p = 2.0
    else:
        p = 2.0 if rng.random() < 0.6 else 1.5
        w0 = None
        if rng.random() < 0.2:                                  # a reference point θ0 (Bregman objective)
            w0 = rng.standard_normal(d) * 0.3 / np.max(np.linalg.norm(X, axis=1))
        problem = mk.MinNormFeasibility(Xs, y, p=p, w0=w0)
    return problem, y[:, None] * X, p


def _screened(problem, method: str, steps: int, seed: int, **options):
    plan = problem.compile(method, **options)
    state = None
    for state in plan.iterate(steps, seed=seed):
        pass
    return plan, state, plan.screened_sets(state)[0]


def _violations(rows, ref, removed) -> np.ndarray:
    """Screened constraints active at the reference optimum beyond its accuracy: ``a_iᵀθ* < 1`` or ``λ*_i > 0``."""
    w = np.asarray(ref.w, float)
    margins = rows @ w
    slack = 1e-6 * (1.0 + np.linalg.norm(rows, axis=1) * np.linalg.norm(w))
    lam = ref.dual.get("lambda") if isinstance(ref.dual, dict) else None
    bad = margins[removed] < 1.0 - slack[removed]
    if lam is not None and np.size(lam) == rows.shape[0]:
        lam = np.asarray(lam, float)
        bad |= lam[removed] > 1e-5 * max(float(lam.max()), 1e-300)
    return removed[bad]


def _check_one(seed: int) -> None:
    problem, rows, _ = _instance(seed)
    ref = problem.reference()
    if ref.status != "optimal":
        return                                                  # no exact answer to compare with
    rng = np.random.default_rng(seed + 1)
    for method in PLANS:
        _, state, removed = _screened(problem, method, int(rng.integers(1, 150)), seed)
        bad = _violations(rows, ref, removed)
        assert bad.size == 0, (seed, method, bad)
        assert state.screened == removed.size


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.integers(0, 2 ** 31 - 1))
def test_no_screened_constraint_is_active_at_the_reference_optimum(seed):
    _check_one(seed)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.integers(0, 2 ** 31 - 1))
def test_no_screened_constraint_is_active_over_2000_instances(seed):
    _check_one(seed)


def _separated(n=2000, d=20, seed=0, gap=2.0, sparse=False):
    """Separable data with most points far from the margin (``gap``: how far the classes are pushed apart)."""
    X, y, u, _ = pushed_apart(n, d, seed, gap=gap, density=0.7 if sparse else None)
    if sparse:
        X[np.linalg.norm(X, axis=1) == 0.0] = 0.0
        X += (gap * y)[:, None] * u * (np.abs(X @ u) < gap)[:, None]
    return (sp.csr_matrix(X) if sparse else X), y


@pytest.fixture(scope="module")
def wide():
    X, y = _separated()
    problem = mk.MinNormFeasibility(X, y)
    return problem, problem.reference(), X, y


@pytest.mark.parametrize("method", PLANS)
def test_screening_off_gives_the_epochs_own_iterates_bit_for_bit(method):
    """``screening=False``: the states are those of the epochs alone, with ``n`` indices per epoch drawn from the run's
    generator; with screening the states are the same until the first screen is applied."""
    X, y = _separated(n=300, d=5, seed=1)
    problem = mk.MinNormFeasibility(X, y)
    plan = problem.compile(method, screening=False)
    off = list(plan.iterate(25, seed=4))
    sys_, n = plan.system, problem.n
    rng = make_rng(4)
    lam, u = np.zeros(n), plan.u0.copy()
    if method == "dykstra":
        for s in off[1:]:
            sys_.epoch(RCD, plan.step_sizes, rng.integers(0, n, size=n), lam, u, plan.q, plan.resolved_backend)
            np.testing.assert_array_equal(s.lam, lam)
            np.testing.assert_array_equal(s.u, u)
    else:
        ehat, ue, scal = np.zeros(n), np.zeros_like(u), np.array([1.0 / n, 1.0])
        for s in off[1:]:
            sys_.apcg_epoch(plan.Linv, rng.integers(0, n, size=n), lam, ehat, u, ue, scal, plan.q,
                            plan.resolved_backend)
            for a, b in ((s.lam, lam), (s.u, u), (s.e_hat, ehat), (s.u_e, ue)):
                np.testing.assert_array_equal(a, b)
    assert all(s.cert is None and s.live is None and s.screened == 0 for s in off)
    on = list(problem.compile(method).iterate(25, seed=4))
    first = next(k for k, s in enumerate(on) if s.pending is not None)   # the first screen, applied by step first+1
    for a, b in zip(on[:first + 1], off[:first + 1]):
        np.testing.assert_array_equal(a.lam, b.lam)
        np.testing.assert_array_equal(a.u, b.u)
    assert on[-1].live is not None and on[-1].live.size < n


@pytest.mark.parametrize("method", PLANS)
def test_screening_reaches_the_same_status_and_solution(wide, method):
    problem, ref, X, y = wide
    on = problem.solve(method, tol=1e-7, seed=0, max_iter=20000)
    off = problem.solve(method, tol=1e-7, seed=0, max_iter=20000, screening=False)
    for res in (on, off):
        assert res.status == "optimal"
        assert abs(res.value - ref.value) <= 1e-6 * ref.value
        assert np.linalg.norm(res.w - ref.w) <= 1e-3 * np.linalg.norm(ref.w)
        assert res.certificate["relative_gap"] <= 1e-7
    screened = on.certificate["screened"]
    assert set(screened) == {"removed", "fixed"} and screened["fixed"] == 0
    assert screened["removed"] > 0.5 * problem.n                # most points are far from the margin here
    assert "screened" not in off.certificate
    # the reported count is the screened set, and none of it is active at the reference
    plan, state, removed = _screened(problem, method, on.iterations, 0)
    assert removed.size == screened["removed"]
    assert _violations(y[:, None] * X, ref, removed).size == 0
    trace = on.trace.to_pandas()
    assert trace["screened"].iloc[-1] == screened["removed"]
    assert np.all(np.diff(trace["screened"].to_numpy()) >= 0)
    assert "screened" not in off.trace.to_pandas()


def test_max_margin_without_bias_screens_through_its_reduction():
    X, y = _separated(n=2000, d=20, seed=2)
    problem = mk.MaxMargin(X, y, bias=False)
    ref = problem.reference()
    res = problem.solve("dykstra", tol=1e-7, seed=1, max_iter=20000)
    assert res.status == "optimal" and res.certificate["screened"]["removed"] > 1000
    assert abs(res.value - ref.value) <= 1e-6 * ref.value


@pytest.mark.parametrize("p", [2.0, 1.5])
def test_sparse_data_and_p_below_2_screen_safely(p):
    X, y = _separated(n=600, d=8, seed=3, sparse=True)
    problem = mk.MinNormFeasibility(X, y, p=p)
    ref = problem.reference()
    assert ref.status == "optimal"
    rows = y[:, None] * X.toarray()
    for method in PLANS:
        res = problem.solve(method, tol=1e-7, seed=0, max_iter=20000)
        assert res.status == "optimal" and res.certificate["screened"]["removed"] > 0
        assert abs(res.value - ref.value) <= 1e-5 * ref.value
        _, _, removed = _screened(problem, method, res.iterations, 0)
        assert removed.size == res.certificate["screened"]["removed"]
        assert _violations(rows, ref, removed).size == 0


def test_screening_is_an_option_of_the_dual_plans_only_and_proven_for_margins_only():
    X, y = _separated(n=80, d=4, seed=5)
    problem = mk.MinNormFeasibility(X, y)
    with pytest.raises(mk.ProblemError, match="screening"):
        problem.solve("dykstra", screening="yes")
    with pytest.raises(mk.ProblemError, match="screening"):
        problem.solve("mirror-descent", screening=True)       # its iterates do not converge to θ*: no rule
    for method in PLANS:
        assert "screening" in str(mk.describe(method))
    rng = np.random.default_rng(5)
    interp = mk.MinNormFeasibility(rng.standard_normal((20, 40)), rng.standard_normal(20), constraint="interpolation")
    for method in PLANS:
        res = interp.solve(method, tol=1e-6, seed=0)
        assert res.status == "optimal" and "screened" not in res.certificate   # equality constraints: none
        plan = interp.compile(method)
        assert not plan.use_screening


def test_screened_constraints_leave_the_epochs_for_good():
    X, y = _separated(n=500, d=6, seed=6)
    problem = mk.MinNormFeasibility(X, y)
    for method in PLANS:
        plan = problem.compile(method)
        seen = np.zeros(0, dtype=int)
        for state in plan.iterate(80, seed=2):
            removed = plan.screened_sets(state)[0]
            assert np.isin(seen, removed).all()                 # once screened, screened for good
            applied = np.setdiff1d(removed, [] if state.pending is None else state.pending)
            if state.live is not None:
                assert not np.isin(applied, state.live).any()   # pending ones leave at the next step
                assert state.live.size + applied.size == problem.n
            assert np.all(state.lam[applied] == 0.0)
            seen = removed
        assert seen.size > 0


def test_a_warm_start_screens_at_init():
    X, y = _separated(n=500, d=6, seed=7)
    problem = mk.MinNormFeasibility(X, y)
    res = problem.solve("dykstra", tol=1e-6, seed=0)
    plan = problem.compile("dykstra")
    state = next(plan.iterate(0, warm_start=res))
    assert state.pending is not None and state.pending.size > 0.5 * problem.n


@numba_only
@pytest.mark.parametrize("method", PLANS)
@pytest.mark.parametrize("sparse", [False, True])
def test_numba_and_numpy_screen_the_same_constraints_with_the_same_iterates(method, sparse):
    X, y = _separated(n=200, d=4, seed=8, sparse=sparse)
    problem = mk.MinNormFeasibility(X, y)
    fast, slow = both_engines(problem, method, 30)
    assert fast.certificate["screened"] == slow.certificate["screened"]
    assert fast.certificate["screened"]["removed"] > 0
    np.testing.assert_allclose(fast.w, slow.w, rtol=1e-12, atol=0)


def test_the_accelerated_rate_check_says_it_does_not_cover_a_screened_run():
    X, y = _separated(n=400, d=5, seed=9)
    problem = mk.MaxMargin(X, y, bias=False)
    res = problem.solve("dykstra-accelerated", tol=1e-6, seed=0)
    assert res.certificate["screened"]["removed"] > 0
    out = mk.bounds.check(problem, res)
    assert out["bound"] is None and "screening" in out["reason"]
    plain = problem.solve("dykstra-accelerated", tol=1e-6, seed=0, screening=False)
    assert mk.bounds.check(problem, plain)["reason"] is None
