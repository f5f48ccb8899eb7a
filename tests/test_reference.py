"""The CVXPY reference: certified optimum, marginkit's own certificate, honest infeasibility."""
import numpy as np
import pytest
import scipy.sparse as sp

import marginkit as mk


@pytest.mark.parametrize("solver", [None, "ECOS", "SCS", "CLARABEL"])
def test_max_margin_reference_certificate_closes_the_duality_gap(small_separable, solver):
    X, y = small_separable
    res = mk.MaxMargin(X, y).reference(solver=solver)
    cert = res.certificate
    assert res.status in ("optimal", "optimal_inaccurate")
    assert {"primal", "dual", "duality_gap", "max_violation", "solver"} <= set(cert)
    tol = 1e-3 if solver == "SCS" else 1e-6
    assert abs(cert["duality_gap"]) <= tol * cert["primal"]
    assert res.value == pytest.approx(cert["primal"], rel=1e-6)


def test_max_margin_is_inverse_norm_of_hard_margin_solution(small_separable):
    X, y = small_separable
    res = mk.MaxMargin(X, y).reference()
    assert res.margin == pytest.approx(1 / np.linalg.norm(res.w), rel=1e-7)
    assert np.min(y * (X @ res.w)) == pytest.approx(1.0, abs=1e-7)


def test_reference_matches_jst_dual_form(small_separable):
    """min_{q in simplex} ||Z^T q|| equals the max margin (Ji, Srebro & Telgarsky, App. A)."""
    import cvxpy as cp
    X, y = small_separable
    q = cp.Variable(len(y), nonneg=True)
    cp.Problem(cp.Minimize(cp.norm((y[:, None] * X).T @ q)), [cp.sum(q) == 1]).solve(solver="CLARABEL")
    assert np.linalg.norm((y[:, None] * X).T @ q.value) == pytest.approx(
        mk.MaxMargin(X, y).reference().margin, rel=1e-6)


def test_non_separable_max_margin_is_infeasible_with_hull_certificate(non_separable):
    X, y = non_separable
    res = mk.MaxMargin(X, y).reference()
    assert res.status == "infeasible"
    assert not res.margin > 0
    q = res.certificate["dual_point"]
    assert q.min() >= 0 and q.sum() == pytest.approx(1.0)
    assert np.linalg.norm((y[:, None] * X).T @ q) <= 1e-6
    assert mk.MaxMargin(X, y).constants()["margin"] == 0.0


def test_constants_give_margin_support_vectors_and_lambda_star():
    """Toy set: w* = (1/2, 1/2), four support vectors, λ*_A = 8: the largest λ with ``w_λ = w*`` in the soft-margin
    problem (4.8) of Apidopoulos et al., whose KKT conditions at ``w*`` need ``λ a ∈ [0, 1]^n`` with ``Zᵀa = w*``;
    the least ``||a||_∞`` is 1/8."""
    from marginkit import datasets as ds
    X, y = ds.toy_four_support_vectors()
    c = mk.MaxMargin(X, y).constants()
    assert c["margin"] == pytest.approx(np.sqrt(2), rel=1e-7)
    assert sorted(c["support_vectors"]) == [0, 1, 2, 3]
    assert c["lambda_star"] == pytest.approx(8.0, rel=1e-5)


def test_bias_reference_on_breast_cancer_has_tiny_certified_margin():
    from marginkit import datasets as ds
    X, y = ds.breast_cancer()
    res = mk.MaxMargin(X, y, bias=True).reference()
    assert res.status == "optimal"
    assert 1e-3 < res.margin < 2e-3
    assert mk.MaxMargin(X, y).reference().status == "infeasible"


def test_soft_margin_reference_dual_certificate(digits01):
    X, y = digits01
    for bias in (True, False):
        res = mk.SoftMarginSVM(X, y, C=0.1, bias=bias).reference()
        assert res.status == "optimal"
        assert abs(res.certificate["duality_gap"]) <= 1e-6 * res.value


def test_soft_margin_sparse_equals_dense(digits01):
    X, y = digits01
    a = mk.SoftMarginSVM(X, y, C=0.1).reference()
    b = mk.SoftMarginSVM(sp.csr_matrix(X), y, C=0.1).reference()
    assert a.value == pytest.approx(b.value, rel=1e-8)


def test_soft_margin_kernel_linear_equals_primal(small_separable):
    X, y = small_separable
    a = mk.SoftMarginSVM(X, y, C=0.5).reference()
    b = mk.SoftMarginSVM(X, y, C=0.5, kernel=lambda A, B: A @ B.T).reference()
    assert b.value == pytest.approx(a.value, rel=1e-6)
    assert np.allclose(b.decision_function(X), a.decision_function(X), atol=1e-5)


def test_kernel_max_margin_with_linear_kernel_matches_primal(small_separable):
    X, y = small_separable
    a = mk.MaxMargin(X, y).reference()
    b = mk.MaxMargin(X, y, kernel=lambda A, B: A @ B.T).reference()
    assert b.margin == pytest.approx(a.margin, rel=1e-5)


def test_min_norm_interpolation_p2_is_pseudo_inverse():
    rng = np.random.default_rng(3)
    X, t = rng.standard_normal((10, 25)), rng.standard_normal(10)
    res = mk.MinNormFeasibility(X, t, constraint="interpolation").reference()
    assert np.allclose(res.w, np.linalg.pinv(X) @ t, atol=1e-7)
    assert abs(res.certificate["duality_gap"]) < 1e-7


def test_min_norm_lp_dual_certificate():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((12, 30))
    y = np.sign(rng.standard_normal(12))
    res = mk.MinNormFeasibility(X, y, p=1.5).reference()
    assert res.status == "optimal"
    assert abs(res.certificate["duality_gap"]) <= 1e-6 * res.value


def test_contradictory_interpolation_is_infeasible_with_farkas_certificate():
    X = np.array([[1.0, 0.0], [1.0, 0.0]])
    res = mk.MinNormFeasibility(X, np.array([1.0, 2.0]), constraint="interpolation").reference()
    assert res.status == "infeasible"
    assert res.certificate["farkas_residual"] < 1e-6


def test_reference_is_cached():
    X = np.array([[1.0, 2.0], [-1.0, -1.5], [2.0, 1.0]])
    P = mk.MaxMargin(X, np.array([1, -1, 1]))
    assert P.reference() is P.reference()


def test_unknown_solver_is_rejected():
    with pytest.raises(mk.ProblemError, match="solver"):
        mk.MaxMargin(np.eye(2), np.array([1, -1])).reference(solver="GUROBI")


def test_compile_cvxpy_returns_a_cvxpy_problem(small_separable):
    import cvxpy as cp
    X, y = small_separable
    prob = mk.MaxMargin(X, y).compile("cvxpy")
    assert isinstance(prob, cp.Problem)
    assert len(prob.constraints) == 1  # vectorised: one constraint object for all samples
