"""FISTA on the perturbed SVM dual (15) and on the soft-margin dual (12) (Hough & Vavasis), against CVXPY.

Claims of M. Hough, S. A. Vavasis, *Data-dependent complexity of first-order methods for binary classification*
(2025), §3–§4.2 and App. B (the projection onto Ω of (13)–(14), the KKT conditions (17), Theorems 3.1–3.5, the offset
(27), Table 2), on small instances (n <= 300, d <= 10)."""
import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

import marginkit as mk
from marginkit import PerturbedSVMDual, ProblemError, SoftMarginSVM
from marginkit.api.datasets import load_libsvm, svm_data_model
from marginkit.operators.projections import PROJECTIONS, project_svm_dual
from marginkit.reference.conic import data_model_constants
from marginkit.formulations import PerturbedSVMPrimal
from marginkit.operators.hinge import best_offset, smoothed_hinge, smoothed_hinge_grad


def noisy_data(n=160, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 0.7 * rng.normal(size=n) + 0.3 > 0, 1.0, -1.0)
    return X, y


@pytest.fixture(scope="module")
def perturbed():
    X, y = noisy_data()
    prob = PerturbedSVMDual(X, y)
    return prob, prob.constants()


@pytest.fixture(scope="module")
def model_instance():
    X, y, Jc, Jd = svm_data_model(n=300, d=5, rho=0.05, nu=0.02, seed=1)
    prob = PerturbedSVMDual(X, y)
    return prob, prob.constants(), Jc, Jd


# --- projection onto Ω ((13)–(14)) --------------------------------------------------------------------

@pytest.mark.parametrize("seed, case", list(enumerate(["random", "one_positive", "all_above", "all_below", "ties"])))
def test_projection_variants_equal_the_cvxpy_projection(seed, case):
    rng = np.random.default_rng(seed)
    n, gamma = 25, 0.7
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[:2] = (1.0, -1.0)
    z = rng.normal(size=n) * 2
    if case == "one_positive":
        y[:] = -1.0
        y[0] = 1.0
    elif case == "all_above":
        z = np.full(n, gamma + 1.0)
    elif case == "all_below":
        z = -np.abs(z) - 1.0
    elif case == "ties":
        z = np.round(z)
    a = cp.Variable(n)
    best = cp.Problem(cp.Minimize(cp.sum_squares(a - z)), [a >= 0, a <= gamma, y @ a == 0]).solve(
        solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    for method in PROJECTIONS:
        p = project_svm_dual(z, y, gamma, method=method)
        assert abs(y @ p) <= 1e-12 and p.min() >= 0 and p.max() <= gamma
        assert np.sum((p - z) ** 2) <= best + 1e-9            # no feasible point is closer (unique minimiser)
        assert np.max(np.abs(p - a.value)) <= 1e-5             # Clarabel's own accuracy is ~1e-6 here


def test_projection_variants_agree_on_large_inputs_with_many_ties():
    rng = np.random.default_rng(3)
    y = np.where(rng.random(5000) < 0.3, 1.0, -1.0)
    z = np.round(rng.normal(size=5000), 1)
    out = [project_svm_dual(z, y, 0.05, method=m) for m in PROJECTIONS]
    assert max(np.max(np.abs(o - out[0])) for o in out) <= 1e-12


# --- the perturbed dual (15) and primal (20) ------------------------------------------------------------

def test_perturbed_primal_and_dual_optimal_values_coincide_in_cvxpy(perturbed):
    prob, _ = perturbed
    dual, primal = prob.reference(), prob.primal().reference()
    assert dual.status == "optimal" and primal.status == "optimal"
    assert dual.value == pytest.approx(primal.value, rel=1e-7)
    assert np.allclose(dual.w, primal.w, atol=1e-5)       # w* = Cᵀu* − Dᵀv* (KKT (17))
    assert abs(np.sum(dual.dual["u"]) - np.sum(dual.dual["v"])) <= 1e-9


def test_perturbed_fista_reaches_the_cvxpy_optimum(perturbed):
    prob, const = perturbed
    res = prob.solve("fista", stop="tol", tol=1e-12)
    assert res.status == "optimal"
    assert res.value == pytest.approx(const["g_star"], rel=1e-8)                  # optimum of (15)
    # ||r − r*|| <= D_k (Thm 3.2) and ||r_cvx − r*|| <= sqrt(2 gap_cvx / μ) (μ-strong concavity)
    ref_radius = np.sqrt(2 * max(prob.reference().certificate["duality_gap"], 0.0) / prob.mu)
    distance = np.linalg.norm(res.dual["a"] - const["r_star"])
    assert distance <= res.certificate["distance_bound"] + ref_radius and distance <= 1e-4
    assert res.info["primal_value"] == pytest.approx(prob.primal().reference().value, rel=1e-7)


def test_perturbed_primal_solved_through_its_dual_matches_cvxpy(perturbed):
    prob, _ = perturbed
    primal = prob.primal()
    res = primal.solve("fista", stop="tol", tol=1e-9)
    assert res.status == "optimal" and res.method == "fista"
    assert res.value == pytest.approx(primal.reference().value, rel=1e-7)
    assert res.certificate["primal"] >= res.certificate["dual"] - 1e-12   # the sides swapped by the reduction


def test_optimal_dual_is_minus_the_derivative_of_psi_at_the_optimal_margins(perturbed):
    prob, const = perturbed
    theta = prob.y * prob.scores(const["w_star"], const["t_star"])
    assert np.max(np.abs(const["r_star"] + smoothed_hinge_grad(theta, prob.gamma, prob.mu))) <= 1e-4  # Thm 3.3


def test_distance_bound_of_theorem_3_2_holds_at_every_iterate(perturbed):
    prob, const = perturbed
    plan = prob.compile("fista")
    for st in list(plan.iterate(150))[1:]:
        assert np.linalg.norm(st.r - const["r_star"]) <= st.dist_bound + 1e-7


def test_certified_points_satisfy_the_certificate_inequality_at_the_optimum(model_instance):
    prob, const, _, _ = model_instance
    plan = prob.compile("fista")
    previous = np.zeros(prob.n, bool)
    for st in list(plan.iterate(120))[1:]:
        T = st.certified
        assert np.all(T >= previous)                                                  # T never shrinks
        assert np.all(np.abs(st.r[T] - const["r_star"][T]) <= st.dist_bound + 1e-7)
        assert np.all(const["r_star"][T] < prob.gamma)                               # Thm 3.2: properly classified
        previous = T


def test_guarded_early_stop_certifies_most_properly_classified_points(model_instance):
    prob, const, Jc, Jd = model_instance
    res = prob.solve("fista")
    assert res.iterations > 2                   # unguarded, the stall rule would stop at 2 with T empty
    assert res.status in ("optimal", "optimal_inaccurate")
    assert (res.status == "optimal") == (res.certificate["relative_gap"] <= 1e-6)
    T = res.info["certified"]
    assert T.size >= 0.9 * const["properly_classified"].size                           # §4.2's early stop
    assert np.isin(np.concatenate([Jc, Jd]), T).mean() >= 0.9
    assert res.info["separates_certified"]


def test_unguarded_stall_rule_would_stop_with_nothing_certified(model_instance):
    prob, _, _, _ = model_instance
    plan = prob.compile("fista")
    states = list(plan.iterate(3))
    assert not states[2].certified.any()       # §4.2's rule as printed: nothing certified at 2


def test_breast_cancer_accuracy_matches_the_paper():
    X, y = mk.datasets.breast_cancer()
    res = PerturbedSVMDual(X, y).solve("fista")
    assert np.mean(res.predict(X) == y) == pytest.approx(0.986, abs=0.005)           # Table 2 (paper: 0.986)


def test_condition_number_obeys_theorem_3_1(perturbed, model_instance):
    for prob, const in (perturbed, model_instance[:2]):
        assert const["kappa"] <= const["kappa_bound"] * (1 + 1e-9)
    prob, const = model_instance[:2]
    assert const["kappa"] <= 513                                                      # R <= 2 in the model


def test_offset_minimises_the_perturbed_primal_over_t(perturbed):
    prob, const = perturbed
    f = prob.scores(const["w_star"])
    t = best_offset(f, prob.y, prob.gamma, prob.mu)
    grid = t + np.linspace(-1, 1, 401)
    F = [smoothed_hinge(prob.y * (f + s), prob.gamma, prob.mu).sum() for s in grid]
    assert smoothed_hinge(prob.y * (f + t), prob.gamma, prob.mu).sum() <= min(F) + 1e-12
    assert abs(prob.y @ smoothed_hinge_grad(prob.y * (f + t), prob.gamma, prob.mu)) <= 1e-9   # F'(t) = 0


def test_smoothed_hinge_equals_the_scalar_problem_18():
    gamma, mu = 0.4, 1.5
    for theta in (-2.0, 0.0, 0.3, 0.6, 0.95, 1.0, 1.7):
        s, z = cp.Variable(nonneg=True), cp.Variable()
        val = cp.Problem(cp.Minimize(gamma * s + cp.square(z) / (2 * mu)), [s + z >= 1 - theta]).solve()
        assert smoothed_hinge(theta, gamma, mu) == pytest.approx(val, abs=1e-7)


def test_appendix_b1_dual_has_two_solutions_and_the_perturbed_dual_one():
    X = np.array([1, 1, 1, -1, -1, -1, 1], float)[:, None]
    y = np.array([1, 1, 1, 1, -1, -1, -1], float)
    gamma = 1.0
    svm = SoftMarginSVM(X, y, C=gamma)
    assert svm.reference().value == pytest.approx(4 * gamma + 0.5, abs=1e-6)
    v = np.array([gamma / 2 + 0.25, gamma / 2 + 0.25, gamma])
    for u in (np.array([gamma / 3 + 1 / 6] * 3 + [gamma]), np.array([gamma, 0.25, 0.25, gamma])):
        a = np.concatenate([u, v])
        w = X.T @ (y * a)
        assert abs(u.sum() - v.sum()) <= 1e-12 and a.min() >= 0 and a.max() <= gamma
        assert a.sum() - 0.5 * w @ w == pytest.approx(4 * gamma + 0.5, abs=1e-12)     # both optimal for (12)
    res = svm.solve("fista")
    assert res.value == pytest.approx(4.5, rel=1e-6)
    pert = PerturbedSVMDual(X, y, gamma=gamma, mu=0.1)
    sol = pert.solve("fista", stop="tol", tol=1e-10)
    u, vv = sol.dual["u"], sol.dual["v"]
    assert np.allclose(u, [0.4898, 0.4898, 0.4898, 1.0], atol=1e-4)
    assert np.allclose(vv, [0.7347, 0.7347, 1.0], atol=1e-4)
    assert np.allclose(sol.dual["a"], pert.reference().dual["a"], atol=1e-6)
    early = pert.solve("fista")
    assert set(early.info["certified"]) == {0, 1, 2, 4, 5}   # the well-classified points c1..c3, d1, d2


# --- the soft-margin SVM dual (12) ----------------------------------------------------------------------

@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("sparse", [False, True])
def test_soft_margin_fista_matches_cvxpy_objective(bias, sparse):
    X, y = noisy_data(n=120, d=6, seed=2)
    prob = SoftMarginSVM(sp.csr_matrix(X) if sparse else X, y, C=1.0, bias=bias)
    ref = prob.reference()
    res = prob.solve("fista")
    assert res.status == "optimal"
    assert res.certificate["duality_gap"] <= 1e-6 * max(1.0, res.certificate["primal"])
    assert abs(res.value - ref.value) <= 1e-6 * abs(ref.value)
    assert np.linalg.norm(res.w - ref.w) <= 1e-2 * np.linalg.norm(ref.w)


def test_soft_margin_fista_with_a_kernel_matches_cvxpy():
    X, y = noisy_data(n=80, d=3, seed=4)
    prob = SoftMarginSVM(X, y, C=0.5, kernel="rbf", gamma=0.5)
    res = prob.solve("fista")
    assert res.status == "optimal" and res.dual_coef is not None
    assert res.value == pytest.approx(prob.reference().value, rel=1e-6)


def test_soft_margin_perturbation_is_never_reported_optimal_for_the_svm():
    X, y = noisy_data(n=80, d=4, seed=5)
    prob = SoftMarginSVM(X, y, C=1.0)
    res = prob.solve("fista", mu=1.0, max_iter=400)
    assert res.status != "optimal"
    assert res.value >= prob.reference().value - 1e-9


def test_sparse_X_stays_sparse(monkeypatch):
    X, y = noisy_data(n=100, d=8, seed=6)
    Xs = sp.csr_matrix(X)
    prob_sparse, prob_pert = SoftMarginSVM(Xs, y), PerturbedSVMDual(Xs, y)

    for cls in (sp.csr_matrix, sp.csc_matrix):
        for name in ("toarray", "todense"):
            original = getattr(cls, name)

            def guarded(self, *args, _original=original, **kwargs):
                if self.shape in (X.shape, X.T.shape):   # small Gram matrices may be dense, X may not
                    raise AssertionError("a first-order method densified X")
                return _original(self, *args, **kwargs)
            monkeypatch.setattr(cls, name, guarded)
    assert prob_sparse.solve("fista", max_iter=50).iterations >= 1
    assert prob_pert.solve("fista", max_iter=50).iterations >= 1


def test_user_arrays_are_not_modified():
    X, y = noisy_data(n=60, d=4, seed=7)
    Xc, yc = X.copy(), y.copy()
    PerturbedSVMDual(X, y).solve("fista")
    SoftMarginSVM(X, y).solve("fista")
    assert np.array_equal(X, Xc) and np.array_equal(y, yc)


def test_bad_options_raise_problem_error():
    X, y = noisy_data(n=40, d=3, seed=8)
    svm, pert = SoftMarginSVM(X, y), PerturbedSVMDual(X, y)
    with pytest.raises(ProblemError, match="projection"):
        pert.solve("fista", projection="magic")
    with pytest.raises(ProblemError, match="mu > 0"):
        svm.solve("fista", stop="early")
    with pytest.raises(ProblemError, match="mu"):
        pert.solve("fista", mu=1.0)
    with pytest.raises(ProblemError, match="mu"):
        svm.solve("fista", mu=-1.0)
    with pytest.raises(ProblemError, match="gamma"):
        PerturbedSVMDual(X, y, gamma=0.0)
    with pytest.raises(ProblemError):
        PerturbedSVMPrimal(X, y[:10])


def test_data_model_constants_match_their_formulas():
    """The constants of the data model of Hough & Vavasis §3.3–3.6 (ξ of Lemma 3.4, K of Corollary 3.1, K̄ of (25),
    Δ of (26), Δ_0 of §3.5.1) at σ1 = σ2 = 1, n = 1000, against their formulas evaluated independently."""
    c = data_model_constants(1.0, 1.0, 0.0, 0.0, 1000)
    assert c["K"] == pytest.approx(0.0234, abs=1e-4) and c["Kbar_min"] == pytest.approx(0.5017, abs=1e-4)
    assert c["Delta26_sup"] == pytest.approx(9.3e-4, rel=0.01) and c["Delta0"] == pytest.approx(0.0610, abs=1e-4)
    c = data_model_constants(1.0, 1.0, 0.03, 0.002, 1000)
    assert c["xi"] == pytest.approx(0.335, abs=1e-3) and c["K"] == pytest.approx(0.156, abs=1e-3)
    assert not data_model_constants(1.0, 1.0, 0.1, 0.0, 1000)["valid"]                 # K̄_min >= 1: vacuous


def test_libsvm_loader_reads_a_small_file(tmp_path):
    path = tmp_path / "tiny.svm"
    path.write_text("+1 1:0.5 3:2\n-1 2:1.5\n+1 1:1 2:-1 3:0.25\n")
    X, y = load_libsvm(str(path))
    assert sp.issparse(X) and X.shape == (3, 3)
    assert np.array_equal(X.toarray(), [[0.5, 0, 2], [0, 1.5, 0], [1, -1, 0.25]])
    assert np.array_equal(y, [1, -1, 1])
    assert load_libsvm(str(path), n_features=5)[0].shape == (3, 5)
    with pytest.raises(ProblemError, match="does not exist"):
        load_libsvm(str(tmp_path / "missing.svm"))


# --- per-sample bounds C_i = C·s_i (sample_weight) ----------------------------------------------------------------

@pytest.mark.parametrize("equality", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_projection_with_a_bound_per_coordinate_equals_the_cvxpy_projection(seed, equality):
    from marginkit.plans.hough_vavasis.svm_dual import weighted_projection
    rng = np.random.default_rng(seed)
    n = 30
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[:2] = (1.0, -1.0)
    ub = rng.uniform(0.0, 2.0, size=n)
    ub[2:5] = 0.0
    z = rng.normal(size=n) * 2
    a = cp.Variable(n)
    cons = [a >= 0, a <= ub] + ([y @ a == 0] if equality else [])
    cp.Problem(cp.Minimize(cp.sum_squares(a - z)), cons).solve(solver="CLARABEL", tol_gap_abs=1e-12,
                                                                 tol_gap_rel=1e-12, tol_feas=1e-12)
    got, _ = weighted_projection(z, y, ub, equality)
    np.testing.assert_allclose(got, a.value, atol=1e-7)
    assert np.all(got >= 0) and np.all(got <= ub)
    if equality:
        assert abs(y @ got) <= 1e-10 * (1 + ub.sum())


def test_weighted_offset_minimises_the_weighted_hinge_over_a_fine_grid():
    from marginkit.plans.hough_vavasis.svm_dual import weighted_best_offset
    rng = np.random.default_rng(5)
    n = 40
    y = np.where(rng.random(n) < 0.4, 1.0, -1.0)
    scores = rng.normal(size=n)
    ub = rng.uniform(0.0, 3.0, size=n)
    F = lambda t: float(ub @ np.maximum(0.0, 1.0 - y * (scores + t)))  # noqa: E731
    b = weighted_best_offset(scores, y, ub)
    grid = np.linspace(-5, 5, 20001)
    assert F(b) <= min(F(t) for t in grid) + 1e-12


@pytest.mark.parametrize("bias", [True, False])
def test_fista_with_sample_weights_matches_an_independent_cvxpy_model(bias):
    X, y = noisy_data(n=120, d=5, seed=3)
    s = np.random.default_rng(3).uniform(0.0, 2.0, size=120)
    s[:4] = 0.0
    prob = SoftMarginSVM(X, y, C=0.6, bias=bias, sample_weight=s)
    assert "fista" in mk.methods(prob)
    w, b = cp.Variable(5), cp.Variable()
    hinge = cp.pos(1 - cp.multiply(y, X @ w + (b if bias else 0.0)))
    best = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + cp.sum(cp.multiply(0.6 * s, hinge)))).solve(
        solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    res = prob.solve("fista", tol=1e-8, max_iter=50000)
    assert res.status == "optimal"
    assert abs(res.value - best) <= 1e-6 * best
    a = res.dual["a"]
    assert np.all(a >= -1e-12) and np.all(a <= 0.6 * s + 1e-12)
    if bias:
        assert abs(y @ a) <= 1e-8 * (1 + a.sum())


@pytest.mark.parametrize("bias", [True, False])
def test_fista_on_scaled_data_gives_the_same_iterations_status_and_relative_gap(bias):
    """``c·X`` with ``C/c²`` is the same problem (``w -> w/c``, ``a -> a/c²``, ``P -> P/c²``): the step ``1/L`` is
    taken from the data (``L = ||X||²``), so the iterates are the same up to rounding."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(150, 6)) * rng.uniform(0.1, 10.0, size=6)
    y = np.where(X @ rng.normal(size=6) + rng.normal(size=150) > 0, 1.0, -1.0)
    runs = {c: SoftMarginSVM(c * X, y, C=1.0 / c ** 2, bias=bias).solve("fista", tol=1e-4, max_iter=50000)
            for c in (1.0, 100.0, 1e-3)}
    base = runs[1.0]
    assert base.status == "optimal"
    for c, res in runs.items():
        assert res.status == base.status, c
        assert abs(res.iterations - base.iterations) <= max(2, 0.01 * base.iterations), c
        assert res.value * c ** 2 == pytest.approx(base.value, rel=1e-6)
        assert res.certificate["relative_gap"] <= 1e-4
