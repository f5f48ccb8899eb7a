"""Raj & Bach, *Explicit regularization of stochastic gradient methods through duality* (AISTATS 2021): randomized
Dykstra (Alg. 1), its accelerated version (Alg. 2, APCG of Lin, Lu & Xiao 2015 with μ = 0) and stochastic mirror
descent (§2.5) on MinNormFeasibility, checked against the certified CVXPY reference."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import marginkit as mk
from marginkit import MaxMargin, MinNormFeasibility, ProblemError
from marginkit.core.mirror import bregman_lp, grad_conjugate, grad_half_sq_norm, lp_norm
from marginkit.plans.raj_bach.coordinate_ascent import compiled_kernels, epoch_cost_ratio

METHODS = ("dykstra", "dykstra-accelerated", "mirror-descent")
DUAL_METHODS = ("dykstra", "dykstra-accelerated")


def data(n=20, d=40, seed=0):
    """Gaussian rows with a decaying spectrum (as in RB §4, at test size), labels of a random direction
    (separable: n < d)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * np.arange(1, d + 1) ** -0.5
    return X, np.where(X @ rng.standard_normal(d) >= 0, 1.0, -1.0), rng.standard_normal(n)


@pytest.fixture(scope="module", params=[(2.0, "margin"), (2.0, "interpolation"), (1.5, "margin"),
                                        (1.5, "interpolation")], ids=lambda v: f"p={v[0]:g}-{v[1]}")
def case(request):
    p, constraint = request.param
    X, y, t = data(seed=1)
    prob = MinNormFeasibility(X, y if constraint == "margin" else t, p=p, constraint=constraint)
    ref = prob.reference()
    assert ref.status == "optimal"
    return prob, ref


def states(prob, method, epochs, seed=0, **params):
    plan = prob.compile(method, **params)
    return plan, list(plan.iterate(epochs, seed=seed))


def dual_gap(plan, state, psi_star):
    return psi_star - plan.certificate(state)["dual"]


# ---- Prop. 1, Cor. 1, strong duality --------------------------------------------------------------------
@pytest.mark.parametrize("method", METHODS)
def test_bregman_error_of_every_iterate_is_below_the_dual_gap(case, method):
    """Prop. 1 and Cor. 1: (p−1)/2 ||θ(λ) − θ*||_p² <= D_ψ(θ*, θ(λ)) <= ψ(θ*) − D(λ) at every epoch."""
    prob, ref = case
    plan, sts = states(prob, method, 40)
    tol = 1e-7 * max(1.0, ref.value)
    for s in sts[::3]:
        theta, gap = plan.primal_point(s), dual_gap(plan, s, ref.value)
        breg = bregman_lp(ref.w, theta, prob.p)
        assert breg <= gap + tol
        assert 0.5 * (prob.p - 1) * lp_norm(theta - ref.w, prob.p) ** 2 <= gap + tol


def test_interpolation_gap_equals_the_bregman_error(case):
    """Prop. 1 (singletons): ψ(θ*) − D(λ) = D_ψ(θ*, θ(λ)) exactly, for every iterate."""
    prob, ref = case
    if prob.constraint != "interpolation":
        pytest.skip("identity for singleton constraint sets")
    plan, sts = states(prob, "dykstra", 30)
    for s in sts[1::4]:
        breg = bregman_lp(ref.w, plan.primal_point(s), prob.p)
        assert abs(dual_gap(plan, s, ref.value) - breg) <= 1e-7 * max(1.0, ref.value)


def test_margin_gap_is_bregman_error_plus_complementary_slackness(case):
    """Prop. 1 (perceptron): ψ(θ*) − D(λ) = D_ψ(θ*, θ(λ)) + Σ λ_i (y_i x_iᵀθ* − 1)."""
    prob, ref = case
    if prob.constraint != "margin":
        pytest.skip("identity for margin constraints")
    plan, sts = states(prob, "dykstra", 30)
    slack = prob.y * (prob.X @ ref.w) - 1.0
    for s in sts[1::4]:
        rhs = bregman_lp(ref.w, plan.primal_point(s), prob.p) + float(s.lam @ slack)
        assert abs(dual_gap(plan, s, ref.value) - rhs) <= 1e-6 * max(1.0, ref.value)


@pytest.mark.parametrize("method,tol", [("dykstra", 1e-9), ("dykstra-accelerated", 1e-6)])
def test_dual_value_increases_to_the_optimum_from_below(case, method, tol):
    """Strong duality: D(λ_t) <= ψ(θ*) for every t and D(λ_T) -> ψ(θ*); for margins 1ᵀλ_T -> ||θ*||_p²."""
    prob, ref = case
    res = prob.solve(method, tol=tol, max_iter=20000, seed=1)
    assert res.status == "optimal"
    assert np.all(res.trace["dual_objective"] <= ref.value + 1e-8 * max(1.0, ref.value))
    assert ref.value - res.trace["dual_objective"][-1] <= 10 * tol * ref.value
    if prob.constraint == "margin":
        assert res.dual["lambda"].sum() == pytest.approx(lp_norm(ref.w, prob.p) ** 2, rel=1e3 * tol)


# ---- the certificate --------------------------------------------------------------------------------
@pytest.mark.parametrize("method", DUAL_METHODS)
def test_optimal_status_is_backed_by_the_reference(case, method):
    """Status optimal only when the certificate meets tol; the Bregman bound of Prop. 1 is reported."""
    prob, ref = case
    res = prob.solve(method, tol=1e-7, max_iter=20000, seed=2)
    c = res.certificate
    assert res.status == "optimal"
    assert abs(c["duality_gap"]) <= 1e-7 * max(1.0, abs(c["primal"]))
    assert c["max_violation"] <= 1e-7 * c["violation_scale"]
    assert c["bregman_to_reference"] <= c["reference_gap"] + 1e-9 * ref.value
    assert abs(res.value - ref.value) <= 1e-5 * ref.value
    assert lp_norm(res.w - ref.w, prob.p) <= 1e-3 * lp_norm(ref.w, prob.p)


def test_margin_duality_gap_bounds_the_true_gap():
    """For margins the gap is taken at a feasible rescaling of θ(λ): it is >= ψ(θ*) − D(λ) at every epoch."""
    X, y, _ = data(seed=3)
    prob = MinNormFeasibility(X, y, p=1.5)
    ref = prob.reference()
    plan, sts = states(prob, "dykstra-accelerated", 60)
    checked = 0
    for s in sts[1:]:
        c = plan.certificate(s)
        if np.isfinite(c["duality_gap"]):
            checked += 1
            assert c["duality_gap"] >= ref.value - c["dual"] - 1e-8 * ref.value
    assert checked > 30


def test_budget_stop_is_user_limit_not_optimal():
    X, y, _ = data()
    res = MinNormFeasibility(X, y, p=1.5).solve("dykstra", max_iter=3, tol=1e-10)
    assert res.status == "user_limit" and res.iterations == 3


# ---- limits ------------------------------------------------------------------------------------------
def test_interpolation_limit_is_the_pseudo_inverse_solution():
    """RB §2.3: for p = 2 the randomized Kaczmarz limit is X⁺y."""
    X, _, t = data(n=25, d=50, seed=4)
    res = MinNormFeasibility(X, t, constraint="interpolation").solve("dykstra", tol=1e-11, max_iter=50000)
    assert res.status == "optimal"
    w = np.linalg.pinv(X) @ t
    assert np.linalg.norm(res.w - w) <= 1e-6 * np.linalg.norm(w)


def test_margin_limit_is_the_jst_max_margin_direction():
    """For p = 2, θ*/||θ*|| is JST's ū and 1/||θ*||₂ = γ̄ (cross-paper identity)."""
    X, y, _ = data(n=30, d=20, seed=5)
    X = X / np.linalg.norm(X, axis=1).max()
    mm = MaxMargin(X, y)
    gamma_bar = mm.reference().margin
    theta = MinNormFeasibility(X, y).solve("dykstra", tol=1e-10, max_iter=50000).w
    jst = mm.solve("dual-accelerated", max_iter=3000, tol=1e-12).w
    cos = theta @ jst / (np.linalg.norm(theta) * np.linalg.norm(jst))
    assert 1 - cos <= 1e-6
    assert 1 / np.linalg.norm(theta) == pytest.approx(gamma_bar, rel=1e-6)


# ---- RB Lemma 2: RCD == SMD for singletons ------------------------------------------------------------
@pytest.mark.parametrize("p", [2.0, 1.5])
def test_coordinate_ascent_equals_mirror_descent_on_least_squares(p):
    """RB Lemma 2: same indices, step 1/L_i: identical iterates for interpolation."""
    X, _, t = data()
    prob = MinNormFeasibility(X, t, p=p, constraint="interpolation")
    _, a = states(prob, "dykstra", 6, seed=7)
    _, b = states(prob, "mirror-descent", 6, seed=7, step="per-sample")
    for sa, sb in zip(a, b):
        np.testing.assert_allclose(sa.u, sb.u, rtol=0, atol=1e-12)


def test_coordinate_ascent_and_mirror_descent_split_after_a_repeated_index():
    """Margins (beyond Lemma 2's singletons): identical while each index is visited for the first time (same step
    1/L_max), then RCD can decrease λ_i and SMD cannot."""
    X, y, _ = data()
    prob = MinNormFeasibility(X, y)
    rcd, smd = prob.compile("dykstra", step="max"), prob.compile("mirror-descent")
    s_r, s_s = rcd.init(np.random.default_rng(0), None), smd.init(np.random.default_rng(0), None)
    perm = np.random.default_rng(1).permutation(prob.n)
    s_r, s_s = rcd.epoch(s_r, perm), smd.epoch(s_s, perm)
    np.testing.assert_allclose(s_r.u, s_s.u, rtol=0, atol=1e-13)
    for _ in range(3):
        s_r, s_s = rcd.epoch(s_r, perm), smd.epoch(s_s, perm)
    assert np.linalg.norm(s_r.u - s_s.u) > 1e-3


# ---- APCG: RB eq. (8), corrected --------------------------------------------------------------------
@pytest.mark.parametrize("p", [2.0, 1.5])
def test_accelerated_expected_gap_is_below_the_apcg_bound(p):
    """Mean over 10 seeds of ψ(θ*) − D(v_t) <= (2n/(2n+t))² [ψ(θ*) − D(0) + ½ Σ L_i λ*_i²]: RB eq. (8) as
    corrected (as printed, its first term is scaled in n unlike the APCG theorem it rests on, and it bounds α_t, not
    the v-sequence that theorem covers; this is APCG's bound, μ = 0, γ_0 = 1/n, in RB's notation with λ = −α/n)."""
    X, y, _ = data(seed=8)
    prob = MinNormFeasibility(X, y, p=p)
    ref = prob.reference()
    plan = prob.compile("dykstra-accelerated")
    n, epochs = prob.n, (1, 5, 20, 60)
    C = ref.value + 0.5 * float(plan.system.L @ ref.dual["lambda"] ** 2)
    gaps = np.zeros((10, len(epochs)))
    for seed in range(10):
        sts = list(plan.iterate(max(epochs), seed=seed))
        gaps[seed] = [dual_gap(plan, sts[k], ref.value) for k in epochs]
    bound = np.array([(2 * n / (2 * n + k * n)) ** 2 * C for k in epochs])
    mean = gaps.mean(axis=0)
    assert np.all(mean <= bound)
    assert mean[-1] <= mean[-2] / 5  # epochs 20 -> 60: the O(1/t²) bound shrinks 8×, the gap follows


def test_accelerated_gamma_recursion_and_feasible_v():
    """APCG's sequence: γ_0 = 1/n, γ_{t+1}² = (1 − γ_{t+1})γ_t², γ_t <= 2/(t + 2n), and v_t >= 0 (a convex
    combination)."""
    X, y, _ = data()
    prob = MinNormFeasibility(X, y)
    plan = prob.compile("dykstra-accelerated")
    s = plan.init(np.random.default_rng(0), None)
    n = prob.n
    assert s.gamma == 1.0 / n
    idx = np.random.default_rng(3).integers(0, n, size=200)
    for t, i in enumerate(idx):
        g = s.gamma
        s = plan.epoch(s, np.array([i]))
        assert s.gamma ** 2 == pytest.approx((1 - s.gamma) * g ** 2, rel=1e-13)
        assert s.gamma <= 2.0 / (t + 1 + 2 * n)
        v, _ = plan.dual_point(s)
        assert v.min() >= -1e-12 * max(v.max(), 1e-300)


def test_accelerated_output_alpha_is_the_papers_literal_iterate():
    X, y, _ = data()
    prob = MinNormFeasibility(X, y)
    pv, pa = prob.compile("dykstra-accelerated"), prob.compile("dykstra-accelerated", output="alpha")
    sv, sa = list(pv.iterate(5, seed=0))[-1], list(pa.iterate(5, seed=0))[-1]
    np.testing.assert_array_equal(sv.lam, sa.lam)  # same run
    np.testing.assert_allclose(pa.primal_point(sa), grad_conjugate(sa.u, 2.0))
    assert not np.allclose(pv.primal_point(sv), pa.primal_point(sa))


# ---- backends and storage -----------------------------------------------------------------------------
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("p", [2.0, 1.5])
@pytest.mark.parametrize("constraint", ["margin", "interpolation"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_numba_and_numpy_epochs_give_the_same_iterates(method, p, constraint, sparse):
    if compiled_kernels() is None:
        pytest.skip("numba is not installed")
    X, y, t = data(n=15, d=30, seed=9)
    X[np.abs(X) < 0.3] = 0.0
    prob = MinNormFeasibility(sp.csr_matrix(X) if sparse else X, y if constraint == "margin" else t, p=p,
                              constraint=constraint)
    _, a = states(prob, method, 4, seed=3, compiled=True)
    _, b = states(prob, method, 4, seed=3, compiled=False)
    for sa, sb in zip(a, b):
        np.testing.assert_allclose(sa.lam, sb.lam, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(sa.u, sb.u, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("method", DUAL_METHODS)
def test_sparse_data_stay_sparse_and_give_the_dense_solution(method):
    X, y, _ = data(n=20, d=40, seed=10)
    X[np.abs(X) < 0.4] = 0.0
    Xs = sp.csr_matrix(X)
    dense = MinNormFeasibility(X, y, p=1.5).solve(method, max_iter=30, tol=0.0, seed=0)
    plan = MinNormFeasibility(Xs, y, p=1.5).compile(method)
    assert sp.issparse(plan.system.X)
    res = plan.run(max_iter=30, tol=0.0, seed=0)
    np.testing.assert_allclose(res.w, dense.w, rtol=1e-9, atol=1e-12)


def test_epoch_runs_on_its_own_and_costs_are_reported():
    out = epoch_cost_ratio(n=400, d=50, seed=0, repeats=3)
    assert out["ratio"] > 0 and np.isfinite(out["ratio"]) and out["epoch_seconds"] > 0
    assert out["backend"] in ("numba", "numpy")


def test_user_arrays_are_not_modified():
    X, y, _ = data()
    X0, y0 = X.copy(), y.copy()
    w0 = np.ones(X.shape[1])
    prob = MinNormFeasibility(X, y, p=1.5, w0=w0)
    for m in METHODS:
        prob.solve(m, max_iter=5)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(w0, np.ones(X.shape[1]))


# ---- Bregman centre and warm start ---------------------------------------------------------------------
@pytest.mark.parametrize("constraint", ["margin", "interpolation"])
def test_bregman_centre_w0_matches_the_reference(constraint):
    X, y, t = data(seed=11)
    w0 = np.random.default_rng(0).standard_normal(X.shape[1])
    prob = MinNormFeasibility(X, y if constraint == "margin" else t, p=1.5, constraint=constraint, w0=w0)
    ref = prob.reference()
    res = prob.solve("dykstra", tol=1e-8, max_iter=20000)
    assert res.status == "optimal"
    assert res.value == pytest.approx(ref.value, rel=1e-5, abs=1e-8)
    assert res.certificate["bregman_to_reference"] <= res.certificate["reference_gap"] + 1e-9


def test_warm_start_from_the_reference_dual_is_optimal_at_once():
    X, y, _ = data()
    prob = MinNormFeasibility(X, y, p=1.5)
    res = prob.solve("dykstra", warm_start=prob.reference(), tol=1e-6)
    assert res.status == "optimal" and res.iterations <= 1


def test_warm_start_continues_a_previous_run():
    X, y, _ = data()
    prob = MinNormFeasibility(X, y)
    first = prob.solve("dykstra-accelerated", max_iter=20, seed=0)
    assert first.dual["lambda"].min() >= 0  # the returned dual point is in the dual domain
    again = prob.solve("dykstra", warm_start=first, max_iter=1, tol=0.0, seed=0)
    assert again.certificate["dual"] >= first.certificate["dual"] - 1e-12  # ascent from where it stopped


# ---- MaxMargin through the reduction ---------------------------------------------------------------------
def test_max_margin_lists_the_dykstra_methods_through_the_reduction():
    X, y, _ = data()
    names = mk.methods(MaxMargin(X, y))
    assert {"dykstra", "dykstra-accelerated"} <= set(names)
    assert "mirror-descent" not in names  # its limit is some separator, not the max-margin one
    assert "dykstra" not in mk.methods(MaxMargin(X, y, bias=True))
    assert "dykstra" not in mk.methods(MaxMargin(X, y, kernel="rbf"))


@pytest.mark.parametrize("method,tol", [("dykstra", 1e-9), ("dykstra-accelerated", 1e-6)])
def test_max_margin_solved_by_dykstra_has_the_reference_margin(method, tol):
    X, y, _ = data(n=30, d=20, seed=5)
    mm = MaxMargin(X, y)
    res = mm.solve(method, tol=tol, max_iter=20000)
    assert res.status == "optimal"
    assert res.margin == pytest.approx(mm.reference().margin, rel=10 * tol)
    assert np.array_equal(res.predict(X), y)


# ---- infeasible instances ------------------------------------------------------------------------------
def contradictory_equations():
    X, _, t = data(n=12, d=20, seed=12)
    X[1], t[1] = X[0], t[0] + 1.0
    return MinNormFeasibility(X, t, constraint="interpolation")


def non_separable():
    X, y, _ = data(n=12, d=20, seed=12)
    X[1], y[1] = -X[0], y[0]
    return X, y


@pytest.mark.parametrize("method,tol", [("dykstra", 1e-2), ("dykstra-accelerated", 1e-3)])
def test_contradictory_equations_are_reported_infeasible(method, tol):
    prob = contradictory_equations()
    assert prob.reference().status == "infeasible"
    res = prob.solve(method, tol=tol, max_iter=5000, seed=0)
    assert res.status == "infeasible"
    assert res.certificate["distance_lower_bound"] * tol >= prob.compile(method).system.distance_scale


@pytest.mark.parametrize("method", METHODS)
def test_infeasible_instances_are_never_reported_optimal(method):
    for prob in (contradictory_equations(), MinNormFeasibility(*non_separable())):
        res = prob.solve(method, max_iter=300, seed=0)
        assert res.status in ("infeasible", "user_limit")


@pytest.mark.parametrize("method,tol", [("dykstra", 1e-3), ("dykstra-accelerated", 1e-3)])
def test_non_separable_margins_are_infeasible_without_a_positive_margin(method, tol):
    X, y = non_separable()
    assert MinNormFeasibility(X, y).reference().status == "infeasible"
    res = MaxMargin(X, y).solve(method, tol=tol, max_iter=5000, seed=0)
    assert res.status == "infeasible" and res.margin <= 0


def test_zero_row_with_a_margin_constraint_is_infeasible_with_a_farkas_certificate():
    X, y, _ = data()
    X[3] = 0.0
    res = MinNormFeasibility(X, y).solve("dykstra")
    assert res.status == "infeasible" and res.iterations == 0
    lam = res.certificate["farkas_lambda"]
    assert np.allclose(X.T @ (y * lam), 0) and lam.sum() > 0 and lam.min() >= 0


# ---- bad input ------------------------------------------------------------------------------------------
def test_bad_problem_input_raises_problem_error_naming_the_argument():
    X, y, _ = data()
    with pytest.raises(ProblemError, match="w0"):
        MinNormFeasibility(X, y, w0=np.ones(3))
    with pytest.raises(ProblemError, match="p must be > 1"):
        MinNormFeasibility(X, y, p=1.0)


def test_p_above_two_is_not_listed_and_the_reason_is_given():
    X, y, _ = data()
    prob = MinNormFeasibility(X, y, p=3.0)
    assert set(mk.methods(prob)) == {"cvxpy"}
    for m in METHODS:
        with pytest.raises(ProblemError, match="strongly convex"):
            prob.solve(m)


@pytest.mark.parametrize("method,params,match", [
    ("dykstra", {"step": "huge"}, "step"),
    ("dykstra", {"backend": "gpu"}, "backend"),
    ("dykstra-accelerated", {"output": "theta"}, "output"),
    ("mirror-descent", {"loss": "hinge"}, "loss"),
    ("mirror-descent", {"step": -1.0}, "step"),
    ("dykstra", {"warm_start": np.ones(3)}, "warm_start"),
    ("dykstra", {"warm_start": -np.ones(20)}, "warm_start"),
])
def test_bad_method_options_raise_problem_error(method, params, match):
    X, y, _ = data()
    with pytest.raises(ProblemError, match=match):
        MinNormFeasibility(X, y).solve(method, max_iter=1, **params)


def test_perceptron_loss_needs_margin_constraints():
    X, _, t = data()
    with pytest.raises(ProblemError, match="margin"):
        MinNormFeasibility(X, t, constraint="interpolation").solve("mirror-descent", loss="perceptron")


# ---- mirror maps ------------------------------------------------------------------------------------------
vectors = st.lists(st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(vectors, st.sampled_from([1.05, 1.2, 1.5, 2.0]))
def test_mirror_maps_are_inverse_and_satisfy_fenchel_young(v, p):
    """Mirror maps (RB §2): ∇ψ*(∇ψ(θ)) = θ and ⟨θ, ∇ψ(θ)⟩ = ||θ||_p² for ψ = ½||·||_p²."""
    theta = np.array(v)
    g = grad_half_sq_norm(theta, p)
    scale = max(1.0, np.abs(theta).max())
    np.testing.assert_allclose(grad_conjugate(g, p), theta, rtol=1e-9, atol=1e-9 * scale)
    assert float(theta @ g) == pytest.approx(lp_norm(theta, p) ** 2, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("p", [1.1316, 1.5, 2.0])
def test_mirror_gradient_matches_finite_differences(p):
    theta = np.random.default_rng(0).standard_normal(8)
    f = lambda t: 0.5 * lp_norm(t, p) ** 2  # noqa: E731
    h = 1e-6
    fd = np.array([(f(theta + h * e) - f(theta - h * e)) / (2 * h) for e in np.eye(8)])
    np.testing.assert_allclose(grad_half_sq_norm(theta, p), fd, rtol=1e-6, atol=1e-8)


def test_stable_mirror_map_agrees_with_the_naive_formula_and_survives_large_q():
    u = np.random.default_rng(1).standard_normal(10)
    q = 1.1316 / 0.1316
    naive = np.linalg.norm(u, q) ** (2 - q) * np.sign(u) * np.abs(u) ** (q - 1)
    np.testing.assert_allclose(grad_half_sq_norm(u, q), naive, rtol=1e-12)
    big = 1e200 * u  # |u|^(q−1) overflows in the naive formula
    out = grad_half_sq_norm(big, q)
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out / 1e200, grad_half_sq_norm(u, q), rtol=1e-12)


@pytest.mark.parametrize("method", ["dykstra", "dykstra-accelerated"])
def test_returned_point_is_the_certified_feasible_point(method):
    """Found by hypothesis: θ(v) can be over-feasible (min margin > 1); the result must be the rescaled point
    whose objective the certificate reports, so an 'optimal' value is within tol of the optimum."""
    X = np.array([[1.05311575], [1.7764913], [-2.55329184], [-0.13796506]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    P = MinNormFeasibility(X, y, p=1.5)
    res = P.solve(method, max_iter=50, seed=0)
    assert res.value == pytest.approx(res.certificate["primal"], rel=1e-12)
    if res.status == "optimal":
        assert res.value <= P.reference().value * (1 + 1e-5)
