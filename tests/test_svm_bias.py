"""Claims of the ``dual-cd-bias`` plan (dual coordinate descent with multiplier steps on the offset, for
``SoftMarginSVM(bias=True)``): agreement with CVXPY, a certificate that bounds the true gap, sample weights,
validation, scale invariance and the two backends."""
from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import marginkit as mk
from marginkit import ProblemError
from marginkit.plans.svm_cd import svm_bias

from svm_helpers import labelled, reference_fixture

METHOD = "dual-cd-bias"
numba_only = pytest.mark.skipif(not svm_bias.numba_available(), reason="numba is not installed")


# Gaussian data whose labels need an offset (shift), a fraction flip of them flipped
_data = partial(labelled, n=200, d=10, shift=0.8, noise=0.5, flip=0.1)
svm = reference_fixture(_data, C=1.0, bias=True)   # (problem, its CVXPY reference), dense and sparse X


def test_dual_cd_bias_is_listed_for_linear_soft_margin_with_bias_only():
    X, y = _data(n=30)
    assert METHOD in mk.methods(mk.SoftMarginSVM(X, y, bias=True))
    assert METHOD in mk.methods(mk.SoftMarginSVM(X, y, bias=True, sample_weight=np.ones(30)))
    assert METHOD not in mk.methods(mk.SoftMarginSVM(X, y, bias=False))
    assert METHOD not in mk.methods(mk.SoftMarginSVM(X, y, bias=True, kernel="rbf"))
    with pytest.raises(ProblemError, match="bias"):
        mk.SoftMarginSVM(X, y, bias=False).solve(METHOD)


def test_dual_cd_bias_matches_the_cvxpy_reference_within_1e_6_relative_objective(svm):
    problem, ref = svm
    res = problem.solve(METHOD, tol=1e-8, seed=0, max_iter=50000)
    assert res.status == "optimal"
    assert abs(res.value - ref.value) <= 1e-6 * abs(ref.value)
    assert abs(res.b - ref.b) <= 1e-2 * (1 + abs(ref.b))


def test_dual_cd_bias_certificate_is_an_upper_bound_on_the_true_gap(svm):
    problem, ref = svm
    for tol in (1e-2, 1e-4):
        res = problem.solve(METHOD, tol=tol, seed=1)
        cert = res.certificate
        assert res.status == "optimal" and cert["relative_gap"] <= tol
        assert cert["dual"] <= ref.value * (1 + 1e-9)           # a lower bound on P*
        assert cert["primal"] == pytest.approx(res.value, rel=1e-10)
        true_gap = res.value - ref.value
        assert true_gap <= cert["duality_gap"] + 1e-9 * abs(ref.value)
        assert true_gap / ref.value <= cert["relative_gap"] + 1e-9
        a = res.dual["a"]
        assert np.all(a >= 0) and np.all(a <= problem.C)
        assert cert["max_violation"] == pytest.approx(abs(float(problem.y @ a)), abs=1e-15)
        assert cert["max_violation"] <= 1e-9 * a.sum()


def test_dual_cd_bias_stopped_early_reports_user_limit_with_a_valid_bound(svm):
    problem, ref = svm
    res = problem.solve(METHOD, tol=1e-12, max_iter=3, seed=0)
    assert res.status == "user_limit"
    assert res.certificate["dual"] <= ref.value * (1 + 1e-9) <= res.certificate["primal"] * (1 + 1e-9)


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(4, 40), d=st.integers(1, 6), seed=st.integers(0, 10 ** 6), sparse=st.booleans(),
       logC=st.floats(-2, 0.5), scale=st.sampled_from([1e-3, 1.0, 1e2]))
def test_dual_cd_bias_property_agrees_with_cvxpy(n, d, seed, sparse, logC, scale):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * scale
    if sparse:
        X = np.where(rng.random((n, d)) < 0.5, X, 0.0)
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    C = 10.0 ** logC / scale ** 2
    problem = mk.SoftMarginSVM(sp.csr_matrix(X) if sparse else X, y, C=C, bias=True)
    ref = problem.reference()
    res = problem.solve(METHOD, tol=1e-9, max_iter=200000, seed=seed % 7)
    assert res.status == "optimal"
    assert abs(res.value - ref.value) <= 1e-6 * abs(ref.value)
    assert res.certificate["dual"] <= ref.value * (1 + 1e-8)


@pytest.mark.parametrize("standardise, C", [(True, 0.1), (False, 1e-6)])
def test_dual_cd_bias_on_breast_cancer_matches_cvxpy(standardise, C):
    from sklearn.datasets import load_breast_cancer
    X, y = load_breast_cancer(return_X_y=True)
    if standardise:
        X = (X - X.mean(0)) / X.std(0)
    problem = mk.SoftMarginSVM(X, y, C=C, bias=True)
    ref = problem.reference()
    res = problem.solve(METHOD, tol=1e-8, max_iter=100000, seed=0)
    assert res.status == "optimal"
    assert abs(res.value - ref.value) <= 1e-6 * abs(ref.value)
    assert np.mean(res.predict(X) == y) == pytest.approx(np.mean(ref.predict(X) == y), abs=0.01)


@pytest.mark.parametrize("sparse", [False, True])
def test_dual_cd_bias_sample_weight_agrees_with_an_independent_cvxpy_model(sparse):
    import cvxpy as cp
    X, y = _data(n=120, d=6, seed=3, sparse=sparse)
    s = np.random.default_rng(4).uniform(0.0, 3.0, size=120)
    s[:10] = 0.0                                    # zero weights: those samples do not count at all
    C = 0.7
    w, b = cp.Variable(6), cp.Variable()
    Xd = X.toarray() if sparse else X
    obj = 0.5 * cp.sum_squares(w) + cp.sum(cp.multiply(C * s, cp.pos(1 - cp.multiply(y, Xd @ w + b))))
    p_star = cp.Problem(cp.Minimize(obj)).solve(solver="CLARABEL")
    problem = mk.SoftMarginSVM(X, y, C=C, bias=True, sample_weight=s)
    res = problem.solve(METHOD, tol=1e-9, max_iter=100000, seed=0)
    assert res.status == "optimal"
    assert abs(res.value - p_star) <= 1e-6 * p_star
    assert res.certificate["dual"] <= p_star * (1 + 1e-8)
    a = res.dual["a"]
    assert np.all(a <= C * s + 1e-15) and np.all(a[:10] == 0.0)


def test_weighted_offset_minimises_the_weighted_hinge():
    rng = np.random.default_rng(5)
    f, y, box = rng.standard_normal(50), np.where(rng.random(50) < 0.4, 1.0, -1.0), rng.uniform(0, 2, 50)
    b = svm_bias.weighted_offset(f, y, box)
    grid = np.linspace(-4, 4, 4001)
    values = [box @ np.maximum(0, 1 - y * (f + t)) for t in grid]
    assert box @ np.maximum(0, 1 - y * (f + b)) <= min(values) + 1e-12


def test_repair_lands_on_the_equality_inside_the_box_with_the_claimed_gain():
    rng = np.random.default_rng(6)
    n, d = 40, 3
    X, y = rng.standard_normal((n, d)), np.where(rng.random(n) < 0.5, 1.0, -1.0)
    box = rng.uniform(0.5, 1.5, n)
    a = rng.uniform(0, 1, n) * box
    w = X.T @ (a * y)
    a2, gain, moved = svm_bias.repair_equality(a, y, box, X @ w)
    assert abs(y @ a2) <= 1e-12 and np.all(a2 >= 0) and np.all(a2 <= box)
    assert moved == pytest.approx(abs(y @ a))

    def D(v):
        u = X.T @ (v * y)
        return v.sum() - 0.5 * u @ u
    R = np.linalg.norm(X, axis=1).max()
    assert D(a2) >= D(a) + gain - 0.5 * (R * moved) ** 2 - 1e-12


@pytest.mark.parametrize("options, match", [({"rho": 0.0}, "rho"), ({"rho": -1.0}, "rho"),
                                            ({"rho": float("nan")}, "rho"), ({"shrinking": "yes"}, "shrinking"),
                                            ({"backend": "gpu"}, "backend"), ({"step": 1.0}, "step"),
                                            ({"tol": -1.0}, "tol"), ({"max_iter": -2}, "max_iter")])
def test_dual_cd_bias_bad_options_are_problem_errors(options, match):
    X, y = _data(n=30)
    with pytest.raises(ProblemError, match=match):
        mk.SoftMarginSVM(X, y).solve(METHOD, **options)


def test_dual_cd_bias_bad_warm_start_is_a_problem_error():
    X, y = _data(n=30)
    problem = mk.SoftMarginSVM(X, y)
    with pytest.raises(ProblemError, match="warm_start"):
        problem.solve(METHOD, warm_start=np.ones(7))
    with pytest.raises(ProblemError, match="warm_start"):
        problem.solve(METHOD, warm_start=np.full(30, np.nan))


@pytest.mark.parametrize("sparse", [False, True])
def test_dual_cd_bias_does_not_modify_its_inputs(sparse):
    X, y = _data(n=80, d=5, sparse=sparse)
    X_before = X.copy()
    y_before = y.copy()
    s = np.linspace(0.5, 2.0, 80)
    s_before = s.copy()
    warm = np.full(80, 0.3)
    problem = mk.SoftMarginSVM(X, y, sample_weight=s)
    first = problem.solve(METHOD, tol=1e-6, warm_start=warm)
    a_before = first.dual["a"].copy()
    problem.solve(METHOD, tol=1e-6, warm_start=first)
    assert np.array_equal(warm, np.full(80, 0.3)) and np.array_equal(first.dual["a"], a_before)
    assert np.array_equal(y, y_before) and np.array_equal(s, s_before)
    if sparse:
        assert (X != X_before).nnz == 0
    else:
        assert np.array_equal(X, X_before)


def test_dual_cd_bias_warm_start_from_its_own_result_certifies_at_once(svm):
    problem, _ = svm
    first = problem.solve(METHOD, tol=1e-7, seed=0)
    again = problem.solve(METHOD, tol=1e-6, warm_start=first, seed=0)
    assert again.status == "optimal" and again.iterations <= 3


@pytest.mark.parametrize("sparse", [False, True])
def test_dual_cd_bias_gives_the_same_status_and_relative_gap_on_scaled_data(sparse):
    X, y = _data(n=300, d=8, seed=7, sparse=sparse)
    out = []
    for c in (1.0, 100.0, 1e-3):
        problem = mk.SoftMarginSVM(X * c, y, C=1.0 / c ** 2, bias=True)
        out.append(problem.solve(METHOD, tol=1e-5, seed=0, max_iter=20000))
    assert {r.status for r in out} == {"optimal"}
    gaps = [r.certificate["relative_gap"] for r in out]
    assert max(gaps) <= 1e-5
    assert max(r.iterations for r in out) <= 2 * min(r.iterations for r in out)
    assert np.allclose([r.b for r in out], out[0].b, atol=1e-3 * (1 + abs(out[0].b)))
    # the same classifier: w scales like 1/c
    assert np.allclose(out[1].w * 100.0, out[0].w, atol=1e-2 * np.abs(out[0].w).max())


@numba_only
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("d", [5, 40])
def test_dual_cd_bias_numba_and_numpy_backends_give_the_same_iterates(sparse, d):
    X, y = _data(n=60, d=d, seed=8, sparse=sparse)
    problem = mk.SoftMarginSVM(X, y, C=0.5)
    fast = problem.solve(METHOD, compiled=True, max_iter=6, tol=0.0, seed=3, trace=None)
    slow = problem.solve(METHOD, compiled=False, max_iter=6, tol=0.0, seed=3, trace=None)
    assert fast.info["backend"] == "numba" and slow.info["backend"] == "numpy"
    np.testing.assert_allclose(fast.w, slow.w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(fast.dual["a"], slow.dual["a"], rtol=1e-12, atol=1e-14)


def test_dual_cd_bias_trace_records_the_gap_and_the_offset(svm):
    problem, _ = svm
    res = problem.solve(METHOD, tol=1e-6, seed=0)
    df = res.trace.to_pandas()
    assert {"objective", "dual_objective", "duality_gap", "offset"} <= set(df.columns)
    assert np.all(np.isfinite(df["duality_gap"])) and df["duality_gap"].iloc[-1] <= df["duality_gap"].iloc[0]
