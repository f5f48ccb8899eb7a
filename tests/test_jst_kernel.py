"""The Ji–Srebro–Telgarsky plans in kernel form (Ji, Srebro & Telgarsky, ICML 2021, §4 and Fig. 3):
``dual-accelerated``, ``dual-accelerated-stochastic`` and ``batch-perceptron`` on ``MaxMargin(kernel=...)``, checked
against the CVXPY kernel reference (the dual QP with the Gram matrix) on random and real data, against the linear
plans (a linear kernel gives the same iterates), and against JST's Theorem 3.1 in the feature space."""
import numpy as np
import pytest

import marginkit as mk
from marginkit import datasets as ds
from marginkit.engine.registry import METHODS

KERNEL_METHODS = ("dual-accelerated", "dual-accelerated-stochastic", "batch-perceptron")
CARD_TOL = {c.name: c.tolerance for c in METHODS}


def linear_kernel(A, B):
    return np.asarray(A @ B.T)


def xor_data(n=60, seed=0):
    """Gaussian XOR in the plane with a gap around both axes: separable with an RBF kernel, not through the origin
    by any line."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    X = X + 0.15 * np.sign(X)
    return X, np.sign(X[:, 0] * X[:, 1])


@pytest.fixture(scope="module")
def xor():
    X, y = xor_data()
    P = mk.MaxMargin(X, y, kernel="rbf", gamma=1.0)
    return P, P.reference()


@pytest.fixture(scope="module")
def mnist35():
    X, y = ds.mnist_pair(3, 5, per_class=75)
    P = mk.MaxMargin(X, y, kernel="rbf", gamma=3.0)
    return P, P.reference()


@pytest.fixture(scope="module")
def digits35():
    X, y = ds.sklearn_digits_pair(3, 5)
    P = mk.MaxMargin(X[:150], y[:150], kernel="rbf", gamma=1.0)
    return P, P.reference()


def rel_gap(ref, res):
    return (ref.margin - res.margin) / ref.margin


def test_kernel_problems_list_the_dual_form_jst_plans_and_still_refuse_a_bias(xor):
    P, _ = xor
    assert set(KERNEL_METHODS) <= set(mk.methods(P))
    assert not {"normalized-gd", "gd"} & set(mk.methods(P))   # these work on w only
    Pb = mk.MaxMargin(P.X, P.y, kernel="rbf", gamma=1.0, bias=True)
    with pytest.raises(mk.ProblemError, match="bias"):
        Pb.solve("dual-accelerated")


@pytest.mark.parametrize("method", KERNEL_METHODS)
def test_a_linear_kernel_gives_the_iterates_of_the_linear_plan(small_separable, method):
    """The kernel plan's scores ``s = Zw`` and certificate equal the linear plan's at every step, and its
    predictor ``Σ coef_i x_i`` equals ``w`` (same seed for Algorithm 2)."""
    X, y = small_separable
    X = 3.0 * X   # R = 3: the row scaling is applied the same way in both forms
    lin, ker = mk.MaxMargin(X, y).compile(method), mk.MaxMargin(X, y, kernel=linear_kernel).compile(method)
    assert ker.R == pytest.approx(lin.R, rel=1e-12)
    for a, b in zip(lin.iterate(300, seed=4), ker.iterate(300, seed=4)):
        np.testing.assert_allclose(b.s, a.s, rtol=1e-9, atol=1e-9 * (1 + np.abs(a.s).max()))
        np.testing.assert_allclose(X.T @ ker.snapshot(b), a.w, rtol=1e-9, atol=1e-9 * (1 + np.abs(a.w).max()))
        assert ker.margin(b) == pytest.approx(lin.margin(a), rel=1e-8, abs=1e-12)
        assert b.dual_bound == pytest.approx(a.dual_bound, rel=1e-8)


@pytest.mark.parametrize("method", ["dual-accelerated", "dual-accelerated-stochastic"])
@pytest.mark.parametrize("data", ["xor", "mnist35", "digits35"])
def test_kernel_plans_agree_with_the_cvxpy_kernel_reference_within_the_card_tolerance(method, data, request):
    """At the default budget (1,000 iterations) the relative margin gap meets the card's documented tolerance, and
    the certified interval contains the reference's max margin (random and real data)."""
    P, ref = request.getfixturevalue(data)
    assert ref.status == "optimal"
    res = P.solve(method, seed=0)
    assert res.w is None and res.dual_coef is not None
    assert 0 <= rel_gap(ref, res) <= CARD_TOL[method]
    cert = res.certificate
    assert cert["margin_lower"] <= ref.margin * (1 + 1e-9) <= cert["margin_upper"] * (1 + 2e-9)
    assert cert["relative_gap"] >= rel_gap(ref, res) - 1e-9          # the certified gap never undersells
    assert mk.cross_validate(P, methods=[method], seed=0).rows[-1]["agrees"]


def test_decision_function_uses_the_kernel_expansion(xor):
    """``f(x) = Σ_i coef_i k(x_i, x)``: its training margin is the reported margin, it separates the training set,
    and it classifies fresh XOR points like the reference."""
    P, ref = xor
    res = P.solve("dual-accelerated")
    f = res.decision_function(P.X)
    K = P.gram()
    nw = np.sqrt(res.dual_coef @ K @ res.dual_coef)
    assert np.min(P.y * f) / nw == pytest.approx(res.margin, rel=1e-10)
    assert np.all(res.predict(P.X) == P.y)
    Xt, _ = xor_data(200, seed=7)
    agree = np.mean(np.sign(res.decision_function(Xt)) == np.sign(ref.decision_function(Xt)))
    assert agree >= 0.98


@pytest.fixture(scope="module")
def alg1_kernel_run(xor):
    P, ref = xor
    plan = P.compile("dual-accelerated")
    assert plan.R == pytest.approx(1.0)   # RBF: k(x, x) = 1, so the feature-space rows already have norm 1
    return P, ref, plan, list(plan.iterate(1500))


def test_theorem_3_1_margin_bound_holds_in_the_feature_space(alg1_kernel_run):
    """JST Thm 3.1(1): γ(w_t) >= γ̄ − 4(1+ln n)(1+2 ln(t+1))/(γ̄(t+1)²) at every iterate, with γ̄ the kernel
    reference's margin."""
    P, ref, plan, states = alg1_kernel_run
    n, gbar = P.n, ref.margin
    for t in range(1, len(states)):
        bound = gbar - 4 * (1 + np.log(n)) * (1 + 2 * np.log(t + 1)) / (gbar * (t + 1) ** 2)
        assert plan.margin(states[t]) >= bound - 1e-9


def test_theorem_3_1_certificate_interval_and_dual_rate_hold_in_the_feature_space(alg1_kernel_run):
    """JST Thm 3.1(2) and the dual rate of its proof, with ``||g_t||² = c·h``:
    4||g_t||²/t² − 8 ln n/(t+1)² <= γ̄² <= 4||g_t||²/t², and
    ½||Zᵀμ_t||² − γ̄²/2 <= 4 ln n/(t+1)² with Zᵀμ_t = 2g_t/t."""
    P, ref, plan, states = alg1_kernel_run
    n, g2 = P.n, ref.margin ** 2
    for t in range(1, len(states) - 1):
        st = states[t + 1]   # holds the g computed in iteration t
        gg = float(st.c @ st.h)
        up = 4 * gg / t ** 2
        assert up - 8 * np.log(n) / (t + 1) ** 2 - 1e-9 <= g2 <= up * (1 + 1e-9)
        assert 0.5 * up - g2 / 2 <= 4 * np.log(n) / (t + 1) ** 2 + 1e-12


def test_norm_growth_and_direction_in_the_feature_space(alg1_kernel_run):
    """The norm growth of the proof of JST Thm 3.1: γ̄ t(t+3)/4 <= ||w_t|| <= t(t+3)/4 with ||w||² = aᵀQa; convergence in
    direction: the direction approaches the reference's
    (cosine in the RKHS, ⟨f, f*⟩ = coefᵀK coef*)."""
    P, ref, plan, states = alg1_kernel_run
    for t in (1, 10, 100, 1000, len(states) - 1):
        nw = plan.norm_w(states[t])
        assert ref.margin * t * (t + 3) / 4 * (1 - 1e-9) <= nw <= t * (t + 3) / 4 * (1 + 1e-9)
    K, c, cs = P.gram(), plan.snapshot(states[-1]), ref.dual_coef
    assert c @ K @ cs / np.sqrt((c @ K @ c) * (cs @ K @ cs)) > 0.9999


def test_stochastic_theory_variant_norm_bounds_of_theorem_4_1_in_the_feature_space(xor):
    P, ref = xor
    T = 2000
    plan = P.compile("dual-accelerated-stochastic", variant="theory")
    last = list(plan.iterate(T, seed=2))[-1]
    root = np.sqrt(T * np.log(P.n))
    assert ref.margin * root * (1 - 1e-9) <= plan.norm_w(last) <= root * (1 + 1e-9)


def test_optimal_only_when_the_certified_gap_meets_tol(xor):
    P, ref = xor
    res = P.solve("dual-accelerated", tol=1e-4, max_iter=100000)
    assert res.status == "optimal"
    assert rel_gap(ref, res) <= 1e-4
    assert res.certificate["relative_gap"] <= 1e-4
    assert P.solve("dual-accelerated", tol=1e-4, max_iter=20).status == "user_limit"


@pytest.mark.parametrize("method", ["dual-accelerated-stochastic", "batch-perceptron"])
def test_row_plans_evaluate_one_kernel_row_per_step_and_match_the_cached_gram_path(method):
    """Algorithm 2 and the batch perceptron touch n kernel values per step (JST §4): with no Gram matrix cached,
    each step calls the kernel on one row against the n training rows and nothing of size n² is formed; the
    iterates equal those read from the cached Gram matrix."""
    X, y = xor_data(50, seed=3)
    calls = []

    def counting_rbf(A, B):
        calls.append(A.shape[0] * B.shape[0])
        sq = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2 * A @ B.T
        return np.exp(-np.maximum(sq, 0))

    P = mk.MaxMargin(X, y, kernel=counting_rbf)
    calls.clear()
    plan = P.compile(method)
    assert plan.kop.rows.K is None and sum(calls) == len(y)          # the diagonal only: n evaluations
    calls.clear()
    on_demand = list(plan.iterate(100, seed=1))
    assert calls == [len(y)] * 100
    P.gram()                                                          # now cached: rows are read from it
    cached_plan = P.compile(method)
    assert cached_plan.kop.rows.K is not None
    for a, b in zip(on_demand, cached_plan.iterate(100, seed=1)):
        np.testing.assert_allclose(a.s, b.s, rtol=1e-10, atol=1e-10)


def test_rbf_rows_on_demand_equal_the_gram_matrix_for_dense_and_sparse_data():
    import scipy.sparse as sp
    from marginkit.core.kernels import GramRows, gram
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 6)) * (rng.random((30, 6)) < 0.4)
    K = gram("rbf", 0.7, X)
    for data in (X, sp.csr_matrix(X)):
        rows = GramRows("rbf", 0.7, data)
        np.testing.assert_allclose(np.array([rows.row(i) for i in range(30)]), K, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(rows.diagonal(), np.diag(K))


def test_run_and_iterate_agree_and_a_kernel_result_warm_starts(xor):
    P, ref = xor
    plan = P.compile("dual-accelerated-stochastic")
    last = list(plan.iterate(200, seed=5))[-1]
    res = plan.run(max_iter=200, seed=5, tol=0)   # the result is rescaled onto the constraints (canonical scale)
    coef = plan.snapshot(last)
    np.testing.assert_allclose(res.dual_coef, coef * (res.dual_coef @ coef) / (coef @ coef), rtol=1e-10)
    for method in KERNEL_METHODS:
        first = P.solve(method, max_iter=100, tol=0, seed=0)
        warm = P.compile(method)
        st = warm.kernel_start(first)
        np.testing.assert_allclose(st.s, -warm.kop.matvec(st.a), rtol=1e-10, atol=1e-12)
        assert warm.margin(st) == pytest.approx(first.margin, rel=1e-9)
        more = P.solve(method, warm_start=first, max_iter=100, tol=0, seed=0)
        assert np.isfinite(more.margin) and more.margin > 0
    with pytest.raises(mk.ProblemError, match="warm_start"):
        P.solve("dual-accelerated", warm_start=mk.MaxMargin(P.X, P.y).solve("dual-accelerated", max_iter=5))


def test_kernel_traces_have_the_linear_traces_columns(small_separable):
    P = mk.MaxMargin(*xor_data(), kernel="rbf", gamma=1.0)   # neither problem has a cached reference
    lin = mk.MaxMargin(*small_separable)
    for method in KERNEL_METHODS:
        a = P.solve(method, max_iter=20, seed=0).trace
        b = lin.solve(method, max_iter=20, seed=0).trace
        assert set(a.to_pandas().columns) == set(b.to_pandas().columns), method


def test_non_separable_linear_kernel_never_claims_a_separator(non_separable):
    """JST Thm 3.1(2), non-separable part, through the kernel form: 4||g_t||²/t² <= 8 ln n/(t+1)², and no margin > 0."""
    X, y = non_separable
    P = mk.MaxMargin(X, y, kernel=linear_kernel)
    plan = P.compile("dual-accelerated")
    states = list(plan.iterate(300))
    n = len(y)
    for t in range(1, 299):
        st = states[t + 1]
        assert 4 * float(st.c @ st.h) / t ** 2 <= 8 * np.log(n) / (t + 1) ** 2 + 1e-12
    for method in KERNEL_METHODS:
        res = P.solve(method, max_iter=300, seed=0)
        assert res.status in ("infeasible_inaccurate", "user_limit") and not res.margin > 0


def test_kernel_runs_leave_the_users_arrays_untouched():
    X, y = xor_data(40, seed=5)
    X0, y0 = X.copy(), y.copy()
    P = mk.MaxMargin(X, y, kernel="rbf", gamma=2.0)
    for method in KERNEL_METHODS:
        res = P.solve(method, max_iter=50, seed=0)
        assert res.status in ("optimal", "user_limit") and np.all(np.isfinite(res.dual_coef))
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    assert X.flags.writeable and y.flags.writeable
