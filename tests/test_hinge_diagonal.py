"""Claims of Apidopoulos, Poggio, Rosasco & Villa, *Iterative regularization in classification via hinge loss diagonal
descent* (2022), for the plans ``diagonal`` and ``diagonal-inertial``: Algorithms 1–2 of §4.1, Lemmas 5.1–5.3,
Theorems 5.1–5.2 and the Lyapunov energy (A.63) of §5, checked against the CVXPY reference.

On the toy set of §6.1 (Figs. 2–3) the dual iterates never reach the lower bound of the box ``[−1/λ_t, 0]`` (with
``γ = 1/||Q||`` every schedule gives the same iterates there), so the schedule-dependent claims use a small-margin
synthetic set (``small``) where a slow schedule keeps the lower bound ``−1/λ_t`` active."""
import cvxpy as cp
import numpy as np
import pytest

import marginkit.catalog as catalog
from marginkit import MaxMargin, ProblemError, SoftMarginSVM, methods
from marginkit import datasets as ds
from marginkit.plans.diagonal.diagonal import Geometric, InverseLog

REF_TOL = 1e-9  # accuracy of D* = −½||w*||² from the tight Clarabel reference, relative to |D*|


def states(problem, method, steps, **params):
    plan = problem.compile(method, **params)
    return plan, list(plan.iterate(steps))


def min_inf_dual(problem, wstar):
    """The dual solution ``u*`` of smallest ``||u*||_∞`` (the LP behind ``lambda_star``: the KKT conditions of the
    soft-margin problem (4.8) at ``w*`` need ``λ a ∈ [0, 1]^n``; the proofs of §5 need only ``λ_0||u*||_∞ <= 1``)."""
    Z = problem.y[:, None] * problem.X
    act = np.flatnonzero(Z @ wstar <= 1 + 1e-6)
    a, t = cp.Variable(len(act), nonneg=True), cp.Variable()
    cp.Problem(cp.Minimize(t), [Z[act].T @ a == wstar, a <= t]).solve(solver="CLARABEL")
    u = np.zeros(problem.n)
    u[act] = -np.clip(a.value, 0, None)
    return u


class Case:
    def __init__(self, problem):
        self.p = problem
        self.ref = problem.reference()
        self.lambda_star = problem.constants()["lambda_star"]
        self.wstar = self.ref.w
        self.Dstar = -0.5 * float(self.wstar @ self.wstar)
        self.ustar = min_inf_dual(problem, self.wstar)

    def r(self, st):
        """``r_t = D_t(u_t) − D*`` (``u_t`` lies in the box, where ``D_t = ½||Zᵀu||² + 1ᵀu``)."""
        return 0.5 * float(st.w @ st.w) + float(st.u.sum()) - self.Dstar


@pytest.fixture(scope="module")
def toy():
    return Case(catalog.load("toy-2d"))


@pytest.fixture(scope="module")
def small():
    return Case(MaxMargin(*ds.separable_synthetic(n=40, d=8, margin=0.05, seed=3)))


@pytest.mark.parametrize("method", ["diagonal", "diagonal-inertial"])
def test_plans_reproduce_the_papers_pseudocode_with_an_explicit_Q(small, method):
    """AP Algorithms 1–2 transcribed with ``Q = ZZᵀ`` and the paper's indices (Alg. 2: ``u_0 = u_1 = 0``,
    update ``t = 1, 2, ...`` with ``t/(t+α)`` and ``λ_t = λ0/t``; Alg. 1: ``λ_t = λ0/(t+1)``, our shift)."""
    Z = small.p.y[:, None] * small.p.X
    Q, lam0, alpha = Z @ Z.T, 10 * small.lambda_star, 5.0
    plan, sts = states(small.p, method, 300, lambda0=lam0, **({"alpha": alpha} if method != "diagonal" else {}))
    gamma, u_prev, u = plan.gamma, np.zeros(small.p.n), np.zeros(small.p.n)
    for t in range(1, 301):
        if method == "diagonal":
            z, lam = u, lam0 / t
        else:
            z, lam = u + t / (t + alpha) * (u - u_prev), lam0 / t
        u_prev, u = u, np.clip(z - gamma * (Q @ z + 1), -1 / lam, 0)
        np.testing.assert_allclose(sts[t].u, u, rtol=1e-9, atol=1e-12)


SCHEDULES = [("inverse", 10.0), ("inverse-log", 10.0), ("inverse-sqrt", 10.0), ("inverse-square", 10.0),
             ("geometric", 10.0), ("user", None)]


@pytest.mark.parametrize("name,factor", SCHEDULES)
def test_dual_gap_is_non_increasing_for_every_schedule(small, name, factor):
    if name == "user":
        params = {"schedule": lambda t: 10 * small.lambda_star / (1 + np.log1p(t))}
    else:
        params = {"schedule": name, "lambda0": factor * small.lambda_star}
    plan, sts = states(small.p, "diagonal", 1500, **params)
    r = np.array([small.r(st) for st in sts])
    assert np.all(np.diff(r) <= REF_TOL * abs(small.Dstar))
    assert r[-1] < 0.5 * r[0]


def test_slow_schedule_makes_the_box_bind_on_the_small_margin_set(small):
    plan, sts = states(small.p, "diagonal", 500, schedule="inverse-log", lambda0=10 * small.lambda_star)
    at_bound = [np.any(np.isclose(st.u, -plan.schedule.inv_lam(st.t - 1), rtol=1e-12)) for st in sts[1:]]
    assert np.mean(at_bound) > 0.5


@pytest.mark.parametrize("method", ["diagonal", "diagonal-inertial"])
def test_primal_error_is_bounded_by_the_dual_gap(small, method):
    plan, sts = states(small.p, method, 1500, schedule="inverse-log", lambda0=10 * small.lambda_star)
    for st in sts:
        err = 0.5 * float((st.w - small.wstar) @ (st.w - small.wstar))
        assert err <= small.r(st) + REF_TOL * abs(small.Dstar)


@pytest.mark.parametrize("case_name", ["toy", "small"])
@pytest.mark.parametrize("alpha", [3.0, 10.0, 30.0])
def test_inertial_lyapunov_energy_is_non_increasing(request, case_name, alpha):
    case = request.getfixturevalue(case_name)
    plan, sts = states(case.p, "diagonal-inertial", 1500, alpha=alpha, lambda0=case.lambda_star)
    assert plan.schedule.lam(0) * np.max(-case.ustar) <= 1 + 1e-6   # the theorem's condition λ(0)||u*||_∞ <= 1
    nu, E = alpha - 1.0, []
    for st in sts:   # E_t of (A.63); update t here is the paper's t + 1, so k = t + α
        k = st.t + alpha
        v = nu * (st.u_prev - case.ustar) + k * (st.u - st.u_prev)
        E.append(k ** 2 * case.r(st) + float(v @ v) / (2 * plan.gamma))
    E, k = np.array(E), np.arange(len(E)) + alpha
    assert np.all(np.diff(E) <= k[1:] ** 2 * REF_TOL * abs(case.Dstar))
    errors = np.array([np.linalg.norm(st.w - case.wstar) for st in sts])
    assert np.all(errors <= np.sqrt(2 * E[0]) / k + 1e-9)


def test_algorithm1_is_fejer_monotone_when_lambda0_is_below_lambda_star(small):
    plan, sts = states(small.p, "diagonal", 1000, lambda0=small.lambda_star)
    dist = np.array([np.linalg.norm(st.u - small.ustar) for st in sts])
    assert np.all(np.diff(dist) <= 1e-9 * dist[0])


def test_iterates_stay_in_the_widening_box_and_w_is_minus_Zt_u(small):
    plan, sts = states(small.p, "diagonal-inertial", 300, schedule="inverse-log", lambda0=10 * small.lambda_star)
    X, y = small.p.X, small.p.y
    for st in sts[1:]:
        assert np.all(st.u <= 0) and np.all(st.u >= -plan.schedule.inv_lam(st.t - 1))
        np.testing.assert_allclose(st.w, -X.T @ (y * st.u), rtol=1e-12, atol=1e-12)


def test_algorithm1_converges_linearly_on_the_toy_set(toy):
    plan, sts = states(toy.p, "diagonal", 3000, lambda0=4.0)
    r = np.array([toy.r(st) for st in sts])
    assert np.linalg.norm(sts[-1].w - toy.wstar) <= 1e-5
    assert r[2000] / r[1000] <= (r[1000] / r[0]) ** 0.5


def test_inertial_beats_algorithm1_by_100x_on_the_toy_set_at_T1000(toy):
    _, s1 = states(toy.p, "diagonal", 1000, lambda0=4.0)
    _, s2 = states(toy.p, "diagonal-inertial", 1000, lambda0=4.0, alpha=10.0)
    assert 100 * np.linalg.norm(s2[-1].w - toy.wstar) <= np.linalg.norm(s1[-1].w - toy.wstar)


def test_constant_lambda_below_lambda_star_is_exact(small):
    _, sts = states(small.p, "diagonal", 20000, schedule="constant", lambda0=0.5 * small.lambda_star)
    assert np.linalg.norm(sts[-1].w - small.wstar) <= 1e-7 * np.linalg.norm(small.wstar)


def test_constant_lambda_above_lambda_star_leaves_a_permanent_error_floor(small):
    lam = 2.0 * small.lambda_star
    w_lam = SoftMarginSVM(small.p.X, small.p.y, C=1.0 / lam, bias=False).reference().w
    floor = np.linalg.norm(w_lam - small.wstar)
    _, sts = states(small.p, "diagonal", 20000, schedule="constant", lambda0=lam)
    assert floor > 0.1 * np.linalg.norm(small.wstar)                  # w_λ ≠ w* for λ > λ*
    assert np.linalg.norm(sts[-1].w - w_lam) <= 1e-3 * floor           # converged, to w_λ
    for st in (sts[10000], sts[-1]):                                    # and the error does not shrink
        assert np.linalg.norm(st.w - small.wstar) >= 0.99 * floor


@pytest.mark.parametrize("method", ["diagonal", "diagonal-inertial"])
def test_kernel_version_equals_linear_version_with_a_linear_kernel(toy, method):
    X, y = toy.p.X, toy.p.y
    pk = MaxMargin(X, y, kernel=lambda A, B: A @ B.T)
    _, sl = states(toy.p, method, 200, schedule="inverse-log", lambda0=50.0)
    _, sk = states(pk, method, 200, schedule="inverse-log", lambda0=50.0)
    for a, b in zip(sl, sk):
        np.testing.assert_allclose(a.u, b.u, rtol=1e-9, atol=1e-12)
    rl = toy.p.solve(method, lambda0=4.0, max_iter=200, tol=0.0)
    rk = pk.solve(method, lambda0=4.0, max_iter=200, tol=0.0)
    np.testing.assert_allclose(rk.decision_function(X), rl.decision_function(X), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kernel", [None, "rbf"])
@pytest.mark.parametrize("C", [0.1, 10.0])
def test_diagonal_solves_the_soft_margin_svm_without_bias(kernel, C):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.sign(X[:, 0] + 0.5 * rng.normal(size=60))
    svm = SoftMarginSVM(X, y, C=C, bias=False, kernel=kernel, gamma=1.0 if kernel else None)
    ref, res = svm.reference(), svm.solve("diagonal", max_iter=50000)
    assert res.status == "optimal"
    assert res.certificate["relative_gap"] <= 1e-6
    assert abs(res.value - ref.value) <= 1e-5 * max(1.0, abs(ref.value))


@pytest.mark.parametrize("method", ["diagonal", "diagonal-inertial"])
def test_sparse_data_give_the_same_iterates_as_dense(method):
    X, y = ds.separable_synthetic(n=60, d=30, margin=0.05, seed=2, sparse_density=0.3)
    sparse = MaxMargin(X, y).solve(method, max_iter=300, tol=0.0)
    dense = MaxMargin(X.toarray(), y).solve(method, max_iter=300, tol=0.0)
    np.testing.assert_allclose(sparse.dual["u"], dense.dual["u"], rtol=1e-10, atol=1e-12)


def test_warm_start_resumes_a_fixed_lambda_run():
    X, y = ds.separable_synthetic(n=30, d=5, margin=0.05, seed=1)
    svm = SoftMarginSVM(X, y, C=5.0, bias=False)
    first = svm.solve("diagonal", max_iter=100, tol=0.0)
    resumed = svm.solve("diagonal", max_iter=100, tol=0.0, warm_start=first)
    straight = svm.solve("diagonal", max_iter=200, tol=0.0)
    np.testing.assert_allclose(resumed.dual["u"], straight.dual["u"], rtol=1e-12, atol=1e-14)


CATALOG_RUNS = [("diagonal", "toy-2d"), ("diagonal", "synthetic-separable"), ("diagonal", "mnist-0-vs-1"),
                ("diagonal-inertial", "toy-2d"), ("diagonal-inertial", "toy-2d-stretched"),
                ("diagonal-inertial", "synthetic-separable"), ("diagonal-inertial", "mnist-3-vs-5"),
                ("diagonal-inertial", "gauss-kernel-noise-10")]


@pytest.mark.parametrize("method,name", CATALOG_RUNS)
def test_methods_agree_with_the_reference_on_catalog_problems_within_their_tolerance(method, name):
    from marginkit.engine.graph import method_spec
    p = catalog.load(name, quick=True)
    ref = p.reference()
    res = p.solve(method, max_iter=50000)
    tol = method_spec(p, method).tolerance
    assert res.status == "optimal"
    assert res.certificate["margin_lower"] <= ref.margin * (1 + 1e-6)
    assert ref.margin <= res.certificate["margin_upper"] * (1 + 1e-6)
    assert abs(res.margin - ref.margin) <= tol * ref.margin
    assert abs(res.value - ref.value) <= 2 * tol * ref.value


def test_alpha_below_three_warns_that_the_theorem_does_not_cover_it(toy):
    with pytest.warns(UserWarning, match="alpha"):
        res = toy.p.solve("diagonal-inertial", alpha=2.0, lambda0=4.0)
    assert res.status == "optimal"


@pytest.mark.parametrize("schedule", [lambda t: 1.0 + t, lambda t: 1.0 if t != 300 else 2.0, lambda t: -1.0,
                                      lambda t: float("nan")])
def test_bad_user_schedule_is_rejected(toy, schedule):
    with pytest.raises(ProblemError, match="schedule|lambda"):
        toy.p.compile("diagonal", schedule=schedule)


@pytest.mark.parametrize("options,argument", [({"alpha": 0.0}, "alpha"), ({"step": 1.0}, "step"),
                                              ({"schedule": "fast"}, "schedule"), ({"lambda0": -1.0}, "lambda0"),
                                              ({"schedule": InverseLog(2.0), "lambda0": 1.0}, "lambda0")])
def test_bad_options_raise_problem_error_naming_the_argument(toy, options, argument):
    with pytest.raises(ProblemError, match=argument):
        toy.p.compile("diagonal-inertial", **options)


def test_geometric_schedule_box_becomes_infinite_without_overflow(toy):
    sched = Geometric(8.0)
    assert sched.lam(5000) == 0.0 and sched.inv_lam(5000) == np.inf
    res = toy.p.solve("diagonal", schedule=sched, max_iter=2000, tol=0.0)
    assert np.all(np.isfinite(res.w)) and res.status == "user_limit"


def test_non_psd_user_kernel_is_rejected_at_construction(toy):
    with pytest.raises(ProblemError, match="kernel"):
        MaxMargin(toy.p.X, toy.p.y, kernel=lambda A, B: -(A @ B.T))


@pytest.mark.parametrize("method", ["diagonal", "diagonal-inertial"])
def test_non_separable_data_never_report_optimal_with_a_positive_margin(method):
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [2.0, 0.5], [0.5, -2.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0, 1.0, -1.0])
    p = MaxMargin(X, y)
    assert p.reference().status == "infeasible"
    res = p.solve(method, max_iter=20000)
    assert res.status in ("infeasible", "user_limit")
    assert res.margin <= 0


def test_diagonal_is_not_listed_with_a_bias(toy):
    p = MaxMargin(toy.p.X, toy.p.y, bias=True)
    assert "diagonal" not in methods(p) and "diagonal-inertial" not in methods(p)
    with pytest.raises(ProblemError, match="bias"):
        SoftMarginSVM(toy.p.X, toy.p.y, bias=True).solve("diagonal")
