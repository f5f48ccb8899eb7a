"""Claims of Ji, Srebro & Telgarsky, *Fast margin maximization via dual acceleration* (ICML 2021), against CVXPY:
Algorithm 1 and its dual form (§3.2, eq. (3.2), Lemma 3.2), Theorem 3.1 (1) and (2), Lemma 3.1, Proposition 3.2,
the norm bounds of Lemma C.7, Theorem 4.1 (Algorithm 2), the logistic loss of §5.1 and the ordering of Fig. 1."""
import numpy as np
import pytest

import marginkit as mk
from marginkit.plans.jst.dual_acceleration import logistic_potential_grad
from marginkit.plans.common.margin import softmax

T = 2000


@pytest.fixture(scope="module")
def run_alg1(small_separable):
    """Iterates of Algorithm 1 (w_t, g_t) stepped through the compiled plan, and the reference."""
    X, y = small_separable
    P = mk.MaxMargin(X, y)
    plan = P.compile("dual-accelerated")
    states = list(plan.iterate(T))
    ref = P.reference()
    return X, y, P, plan, states, ref


def _margin(X, y, w):
    return np.min(y * (X @ w)) / np.linalg.norm(w)


def test_alg1_margin_bound_of_theorem_3_1_holds_at_every_iterate(run_alg1):
    X, y, P, plan, states, ref = run_alg1
    n, gbar = len(y), ref.margin
    for t in range(1, T + 1):
        bound = gbar - 4 * (1 + np.log(n)) * (1 + 2 * np.log(t + 1)) / (gbar * (t + 1) ** 2)
        assert _margin(X, y, states[t].w) >= bound - 1e-9


def test_alg1_certificate_interval_of_theorem_3_1_2_holds(run_alg1):
    """4||g_t||²/t² − 8 ln n/(t+1)² <= γ̄² <= 4||g_t||²/t² (g_t computed in iteration t)."""
    X, y, P, plan, states, ref = run_alg1
    n, g2 = len(y), ref.margin ** 2
    R = plan.R
    for t in range(1, T):
        gt = states[t + 1].g * R  # the g computed in iteration t, in raw-data units
        up = 4 * (gt @ gt) / t ** 2
        assert up - 8 * np.log(n) * R ** 2 / (t + 1) ** 2 - 1e-9 <= g2 <= up + 1e-9


def test_alg1_norm_grows_quadratically(run_alg1):
    """γ̄ t(t+3)/4 <= ||w_t|| <= t(t+3)/4 on data with max ||x_i|| = 1."""
    X, y, P, plan, states, ref = run_alg1
    assert plan.R == pytest.approx(1.0)
    for t in (1, 10, 100, 1000, T):
        nw = np.linalg.norm(states[t].w)
        assert ref.margin * t * (t + 3) / 4 - 1e-9 <= nw <= t * (t + 3) / 4 + 1e-9


def test_alg1_primal_momentum_form_equals_dual_mirror_descent_form(small_separable):
    """The dual form (JST §3.2, eq. (3.2)) with λ_t = 2/(t+2), θ_t = 1 produces the same w_t as the momentum form
    (their Lemma 3.2)."""
    X, y = small_separable
    Z = -(y[:, None] * X)
    plan = mk.MaxMargin(X, y).compile("dual-accelerated")
    states = list(plan.iterate(200))
    n = len(y)
    q = np.full(n, 1.0 / n)
    mu, w, s = q.copy(), np.zeros(X.shape[1]), np.zeros(n)
    for t in range(200):
        lam = 2.0 / (t + 2)
        nu = (1 - lam) * mu + lam * q
        step = Z.T @ nu / lam
        w = w - step
        s = Z @ w
        q = softmax(s)
        mu = (1 - lam) * mu + lam * q
        assert np.allclose(w, states[t + 1].w, rtol=1e-10, atol=1e-10)
        if t + 1 >= 1 and t + 1 < 200:
            g_next = states[t + 2].g
            assert np.allclose(Z.T @ mu, 2 * g_next / (t + 1), rtol=1e-9, atol=1e-12)


def test_alg1_accelerated_dual_rate_lemma_3_1(small_separable):
    X, y = small_separable
    plan = mk.MaxMargin(X, y).compile("dual-accelerated")
    states = list(plan.iterate(500))
    gbar = mk.MaxMargin(X, y).reference().margin
    n = len(y)
    for t in range(1, 499):
        v = 2 * states[t + 1].g / t  # Z^T mu_t
        assert 0.5 * v @ v - gbar ** 2 / 2 <= 4 * np.log(n) / (t + 1) ** 2 + 1e-12


def test_alg1_direction_converges_to_max_margin_direction(run_alg1):
    X, y, P, plan, states, ref = run_alg1
    w = states[-1].w
    assert w @ ref.w / (np.linalg.norm(w) * np.linalg.norm(ref.w)) > 0.9999


def test_alg1_separates_once_prop_3_2_threshold_is_passed(run_alg1):
    X, y, P, plan, states, ref = run_alg1
    t0 = int(np.ceil(4 * np.sqrt(np.log(len(y))) / ref.margin))
    for t in range(t0, min(T, t0 + 200)):
        assert _margin(X, y, states[t].w) >= ref.margin / 4 - 1e-12


def test_dual_accelerated_margin_gap_shrinks_faster_than_baselines(digits01):
    """The ordering of JST's Fig. 1 at t = 1000 and the log–log slope of Algorithm 1 between t = 1000 and 3000."""
    X, y = digits01
    P = mk.MaxMargin(X, y)
    ref = P.reference()
    gap = {m: ref.margin - P.solve(m, max_iter=1000, tol=0).margin for m in ("dual-accelerated", "normalized-gd", "gd")}
    assert gap["dual-accelerated"] < gap["normalized-gd"] / 10
    assert gap["normalized-gd"] < gap["gd"]
    g3000 = ref.margin - P.solve("dual-accelerated", max_iter=3000, tol=0).margin
    assert g3000 > 100 * 1e-9  # stays well above the reference accuracy
    assert np.log(g3000 / gap["dual-accelerated"]) / np.log(3.0) <= -1.5


def test_optimal_status_only_when_certified_gap_meets_tol(small_separable):
    X, y = small_separable
    P = mk.MaxMargin(X, y)
    ref = P.reference()
    res = P.solve("dual-accelerated", tol=1e-3, max_iter=100000)
    assert res.status == "optimal"
    assert (ref.margin - res.margin) / ref.margin <= 1e-3
    assert res.certificate["margin_upper"] >= ref.margin - 1e-9
    assert res.certificate["margin_lower"] <= ref.margin + 1e-9
    short = P.solve("dual-accelerated", tol=1e-3, max_iter=10)
    assert short.status == "user_limit"


@pytest.mark.parametrize("method", ["dual-accelerated", "normalized-gd", "gd", "batch-perceptron",
                                    "dual-accelerated-stochastic"])
def test_no_method_overflows_at_large_iteration_counts(small_separable, method):
    X, y = small_separable
    with np.errstate(over="raise", invalid="raise"):
        res = mk.MaxMargin(X, y).solve(method, max_iter=20000, tol=0, seed=0)
    assert np.all(np.isfinite(res.w)) and np.isfinite(res.margin)


def test_certified_upper_bound_never_below_true_margin(small_separable):
    X, y = small_separable
    P = mk.MaxMargin(X, y)
    ref = P.reference()
    for m in ("dual-accelerated", "normalized-gd", "gd", "batch-perceptron", "dual-accelerated-stochastic"):
        res = P.solve(m, max_iter=300, seed=1)
        assert np.all(res.trace["margin_upper"][1:] >= ref.margin * (1 - 1e-9)), m
        assert np.all(res.trace["margin"] <= ref.margin * (1 + 1e-9)), m


def test_non_separable_data_certificate_collapses_and_no_margin_is_reported(non_separable):
    """Theorem 3.1 (2), non-separable part: 4||g_t||²/t² <= 8 ln n/(t+1)² and the method never claims a separator."""
    X, y = non_separable
    P = mk.MaxMargin(X, y)
    plan = P.compile("dual-accelerated")
    states = list(plan.iterate(400))
    n = len(y)
    for t in range(1, 399):
        g = states[t + 1].g
        assert 4 * g @ g / t ** 2 <= 8 * np.log(n) / (t + 1) ** 2 + 1e-12
    res = P.solve("dual-accelerated", max_iter=400)
    assert res.status in ("infeasible", "user_limit") and not res.margin > 0


def test_stochastic_theory_variant_norm_bounds_thm_4_1(small_separable):
    """Deterministic part of Thm 4.1: γ̄ sqrt(T ln n) <= ||w_T|| <= sqrt(T ln n)."""
    X, y = small_separable
    P = mk.MaxMargin(X, y)
    T_ = 3000
    res = P.compile("dual-accelerated-stochastic", variant="theory")
    states = list(res.iterate(T_, seed=5))
    n = len(y)
    nw = np.linalg.norm(states[-1].w)
    gbar = P.reference().margin
    assert gbar * np.sqrt(T_ * np.log(n)) - 1e-9 <= nw <= np.sqrt(T_ * np.log(n)) + 1e-9


def test_stochastic_momentum_variant_approaches_the_max_margin(small_separable):
    X, y = small_separable
    P = mk.MaxMargin(X, y)
    gaps = [P.reference().margin - P.solve("dual-accelerated-stochastic", max_iter=3000, tol=0, seed=s).margin
            for s in range(5)]
    assert np.median(gaps) < 0.2 * P.reference().margin


def test_logistic_potential_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    xi = rng.standard_normal(7)

    def psi(x):
        S = np.sum(np.logaddexp(0, x))
        return np.log(np.expm1(S))
    h = 1e-6
    fd = np.array([(psi(xi + h * e) - psi(xi - h * e)) / (2 * h) for e in np.eye(7)])
    assert np.allclose(logistic_potential_grad(xi), fd, rtol=1e-5)
    assert logistic_potential_grad(xi).sum() >= 1.0


def test_logistic_alg1_with_theory_step_converges_to_max_margin(small_separable):
    X, y = small_separable
    P = mk.MaxMargin(X, y)
    m1 = P.solve("dual-accelerated", loss="logistic", step_scale="unit", max_iter=3000, tol=0).margin
    assert m1 == pytest.approx(P.reference().margin, rel=1e-2)
    m2 = P.solve("dual-accelerated", loss="logistic", step_scale="theory", max_iter=3000, tol=0).margin
    assert 0 < m2 <= P.reference().margin


def test_invalid_method_parameters_are_problem_errors(small_separable):
    X, y = small_separable
    P = mk.MaxMargin(X, y)
    with pytest.raises(mk.ProblemError, match="loss"):
        P.solve("dual-accelerated", loss="hinge")
    with pytest.raises(mk.ProblemError, match="variant"):
        P.solve("batch-perceptron", variant="fancy")
    with pytest.raises(mk.ProblemError, match="eta"):
        P.solve("gd", eta=-1.0)
