"""Property-based invariants for every method listed by ``methods()``: random separable and non-separable
instances, dense and sparse. Checked: no status claims more than was achieved, no margin above the
certified one, inputs never modified."""
import numpy as np
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import marginkit as mk

SLACK = 1e-6  # solver precision allowed on top of the certified margin


@st.composite
def instances(draw):
    n = draw(st.integers(4, 24))
    d = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**31 - 1))
    kind = draw(st.sampled_from(["separable", "noisy", "hull"]))
    sparse = draw(st.booleans())
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    y = np.where(X @ w >= 0, 1.0, -1.0)
    if kind == "noisy":
        y[rng.integers(n)] *= -1
    elif kind == "hull":  # a point and its negation with the same label: not separable through 0
        X[1] = -X[0]
        y[1] = y[0]
    if len(np.unique(y)) < 2:
        y[0] = -y[0]
    if sparse:
        X[rng.random(X.shape) < 0.3] = 0.0
        X = sp.csr_matrix(X)
    return X, y


def _check(problem, res, ref):
    assert res.status in mk.core.result.STATUSES
    if ref.status == "infeasible":
        assert res.status != "optimal"
        assert not (np.isfinite(res.margin) and res.margin > SLACK)
    if ref.status in ("optimal", "optimal_inaccurate") and np.isfinite(res.margin):
        assert res.margin <= ref.margin + SLACK * max(1.0, ref.margin)
    if res.status == "optimal" and ref.status == "optimal" and problem.form == "MaxMargin":
        assert res.margin > 0


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_max_margin_methods_never_claim_more_than_certified(inst):
    X, y = inst
    X0 = X.copy()
    y0 = y.copy()
    problem = mk.MaxMargin(X, y)
    ref = problem.reference()
    for method in mk.methods(problem):
        if method == "cvxpy":
            continue
        res = problem.solve(method, max_iter=200, seed=0)
        _check(problem, res, ref)
    assert (X != X0).nnz == 0 if sp.issparse(X) else np.array_equal(X, X0)
    assert np.array_equal(y, y0)


@settings(max_examples=15, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.floats(0.05, 10.0))
def test_soft_margin_methods_never_beat_the_certified_objective(inst, C):
    X, y = inst
    problem = mk.SoftMarginSVM(X, y, C=C, bias=bool(int(C * 100) % 2))
    ref = problem.reference()
    assert ref.status in ("optimal", "optimal_inaccurate")
    for method in mk.methods(problem):
        res = problem.solve(method, **({} if method == "cvxpy" else {"max_iter": 300, "seed": 0}))
        assert res.value >= ref.value - 1e-6 * max(1.0, abs(ref.value)), method
        if res.status == "optimal":  # a certified stop is close to the optimum (default tolerances <= 1e-4)
            assert res.value <= ref.value + 1e-3 * max(1.0, abs(ref.value)), method


@settings(max_examples=10, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.sampled_from([1.5, 2.0]))
def test_min_norm_methods_claim_optimal_only_when_feasible_and_optimal(inst, p):
    X, y = inst
    problem = mk.MinNormFeasibility(X, y, p=p)
    ref = problem.reference()
    for method in mk.methods(problem):
        if method == "cvxpy":
            continue
        res = problem.solve(method, max_iter=50, seed=0)
        assert res.status in mk.core.result.STATUSES
        if ref.status == "infeasible":
            assert res.status != "optimal", method
        if res.status == "optimal":
            assert ref.status in ("optimal", "optimal_inaccurate"), method
            assert res.info["max_violation"] <= 1e-4, method
            assert res.value <= ref.value * (1 + 1e-3) + 1e-9, method
