"""A reference that cannot break: internal scaling (the same certified answer at every scale of the data), solver
fallback, no exception when no solver returns a point, every CVXPY option checked."""
import cvxpy as cp
import numpy as np
import pytest

import marginkit as mk
import marginkit.reference.base as base

SCALES = [1e-8, 1e-4, 1.0, 1e4, 1e8]


@pytest.fixture(scope="module")
def separable():
    rng = np.random.default_rng(0)
    S = rng.standard_normal((40, 5))
    return S, np.sign(S @ rng.standard_normal(5))


@pytest.fixture(scope="module")
def overlapping(separable):
    S, T = separable
    T = T.copy()
    T[:6] *= -1
    return S, T


def _svm_certificate_holds(P, res):
    """The certificate recomputed here from the result alone, on the user's data: ``a ∈ [0, C]``, ``yᵀa = 0`` up to
    rounding, weak duality, and a relative gap below 1e-6."""
    a = np.asarray(res.dual["a"])
    assert a.min() >= 0 and a.max() <= P.C
    v = P.X.T @ (a * P.y)
    dual = a.sum() - 0.5 * v @ v
    primal = P.objective(res.w, res.b)
    assert primal == pytest.approx(res.value, rel=1e-12)
    if P.bias:
        assert abs(P.y @ a) <= 1e-9 * max(a.sum(), 1e-300)
    assert -1e-9 <= (primal - dual) / primal <= 1e-6


# ---------------------------------------------------------------------------------------------------------------
# 1. the same certified answer at every scale


def test_max_margin_scale_sweep(separable):
    S, T = separable
    base_ref = mk.MaxMargin(S, T).reference()
    for c in SCALES:
        res = mk.MaxMargin(c * S, T).reference()
        assert res.status == "optimal", (c, res.info)
        assert res.margin == pytest.approx(c * base_ref.margin, rel=1e-6)
        assert res.value == pytest.approx(base_ref.value / c ** 2, rel=1e-6)
        assert res.certificate["relative_gap"] <= 1e-6
        assert res.certificate["max_violation"] <= 1e-6
        assert np.allclose(res.w * c, base_ref.w, rtol=1e-5, atol=1e-6 * np.abs(base_ref.w).max())


@pytest.mark.parametrize("c", [1e-8, 1e8])
def test_max_margin_with_bias_and_kernel_at_extreme_scales(separable, c):
    S, T = separable
    ref = mk.MaxMargin(S, T, bias=True).reference()
    res = mk.MaxMargin(c * S, T, bias=True).reference()
    assert res.status == "optimal"
    assert res.margin == pytest.approx(c * ref.margin, rel=1e-6)
    kern = mk.MaxMargin(c * S, T, kernel=lambda A, B: A @ B.T).reference()
    assert kern.status == "optimal"
    assert kern.margin == pytest.approx(c * mk.MaxMargin(S, T).reference().margin, rel=1e-5)


def test_non_separable_is_infeasible_at_every_scale(overlapping):
    S, T = overlapping
    for c in SCALES:
        res = mk.MaxMargin(c * S, T).reference()
        assert res.status == "infeasible"
        assert res.certificate["hull_distance_relative"] <= 1e-6


def _independent_svm_value(X, y, C):
    """An independent CVXPY model of the SVM (on well-scaled data)."""
    w, b, xi = cp.Variable(X.shape[1]), cp.Variable(), cp.Variable(len(y), nonneg=True)
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * cp.sum(xi)), [cp.multiply(y, X @ w + b) >= 1 - xi])
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    return prob.value


@pytest.mark.parametrize("data", ["separable", "overlapping"])
def test_soft_margin_scale_sweep(data, request):
    """``SoftMarginSVM(c·X, C)`` is ``SoftMarginSVM(X, c²C)`` with its objective divided by c²: the reference stays
    ``optimal`` with a certificate that holds on the user's data at every scale, and its value matches an
    independent model on the equivalent well-scaled data (at extreme c², the two limits: ``2C·min(n₊, n₋)`` when
    c²C → 0, the hard margin with offset when c²C → ∞ on separable data)."""
    S, T = request.getfixturevalue(data)
    for c in SCALES:
        for bias in (True, False):
            P = mk.SoftMarginSVM(c * S, T, C=1.0, bias=bias)
            res = P.reference()
            assert res.status == "optimal", (c, bias, res.info)
            _svm_certificate_holds(P, res)
        value = mk.SoftMarginSVM(c * S, T, C=1.0).reference().value * c ** 2
        if 1e-4 <= c <= 1e2:
            assert value == pytest.approx(_independent_svm_value(S, T, c * c), rel=1e-6)
        elif c < 1e-4:
            assert value / c ** 2 == pytest.approx(2 * min((T > 0).sum(), (T < 0).sum()), rel=1e-6)
        elif data == "separable":
            assert value == pytest.approx(mk.MaxMargin(S, T, bias=True).reference().value, rel=1e-6)


@pytest.mark.parametrize("p", [2.0, 1.5, 3.0])
def test_min_norm_scale_sweep(separable, p):
    S, T = separable
    ref = mk.MinNormFeasibility(S, T, p=p).reference()
    for c in SCALES:
        res = mk.MinNormFeasibility(c * S, T, p=p).reference()
        assert res.status == "optimal", (c, res.info)
        assert res.value == pytest.approx(ref.value / c ** 2, rel=1e-6)
        assert np.allclose(res.w * c, ref.w, rtol=1e-4, atol=1e-5 * np.abs(ref.w).max())


def test_min_norm_interpolation_scale_sweep():
    rng = np.random.default_rng(3)
    X, t = rng.standard_normal((10, 25)), rng.standard_normal(10)
    w = np.linalg.pinv(X) @ t
    for c in SCALES:
        res = mk.MinNormFeasibility(c * X, c * t, constraint="interpolation").reference()   # same w at every c
        assert res.status == "optimal"
        assert np.allclose(res.w, w, rtol=1e-6, atol=1e-8)
    infeasible = mk.MinNormFeasibility(np.array([[1e-8, 0.0], [1e-8, 0.0]]), np.array([1e-8, 2e-8]),
                                       constraint="interpolation").reference()
    assert infeasible.status == "infeasible"
    assert infeasible.certificate["farkas_relative_residual"] <= 1e-6


def test_relative_certificate_is_scale_invariant():
    cert = {"primal": 2.0, "dual": 2.0 - 1e-7, "duality_gap": 1e-7, "max_violation": 1e-7}
    for c in (1e-20, 1.0, 1e20):
        scaled = {**cert, "primal": cert["primal"] * c, "dual": cert["dual"] * c, "duality_gap": 1e-7 * c}
        assert base.certified(scaled)
        assert not base.certified({**scaled, "duality_gap": 1e-5 * c})


# ---------------------------------------------------------------------------------------------------------------
# 2. no crash when no solver returns a point


def _no_point(res):
    assert res.status in ("solver_error", "user_limit")
    assert isinstance(res.info["message"], str) and res.info["message"]
    assert res.w is None and np.isnan(res.value) and np.isnan(res.margin)
    with pytest.raises(mk.ProblemError):
        res.predict(np.zeros((1, 5)))
    repr(res)


def test_ecos_stopped_after_one_iteration_is_a_status(separable):
    S, T = separable
    res = mk.MaxMargin(S, T).solve("cvxpy", solver="ECOS", max_iters=1)
    assert res.status == "user_limit"
    assert [a["solver"] for a in res.info["attempts"]] == ["ECOS"]     # a named solver is the only one used
    assert res.certificate["solver"] == "ECOS"


def test_data_beyond_double_precision_is_a_status(separable):
    S, T = separable
    P = mk.SoftMarginSVM(S * 1e200, T)
    res = P.reference()
    _no_point(res)
    assert "double precision" in res.info["message"]
    consts = P.constants()
    assert consts["status"] == "solver_error" and "message" in consts


def test_min_norm_p11_references_never_raise():
    for seed in range(12):
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((int(rng.integers(5, 30)), int(rng.integers(2, 20))))
        y = np.where(rng.standard_normal(len(X)) > 0, 1.0, -1.0)
        y[:2] = (1.0, -1.0)
        res = mk.MinNormFeasibility(X, y, p=1.1).reference()
        assert res.status in ("optimal", "infeasible")


@pytest.mark.parametrize("failure", ["raise", "no-values"])
def test_every_solver_failing_gives_solver_error_never_an_exception(separable, monkeypatch, failure):
    """Forced: every solver raises deep inside (a NumPy error), or claims optimality without any value."""
    S, T = separable
    original = base.run_solver

    def broken(prob, solver, options, user_options=False):
        if failure == "raise":
            return original(_Raising(), solver, options, user_options)
        for v in prob.variables():
            v.value = None
        return "optimal", ""
    monkeypatch.setattr(base, "run_solver", broken)
    # the hard margin's own exact method (the nearest hull point) would rescue it: the conic solvers alone here
    from marginkit.reference.margin import MaxMarginReference
    monkeypatch.setattr(MaxMarginReference, "direct_solutions", lambda self: [])
    for P in (mk.MinNormFeasibility(S, T, p=1.1), mk.MaxMargin(S, T), mk.SoftMarginSVM(S, T),
              mk.MaxMargin(S, T, kernel="rbf")):
        res = P.reference()
        res_fields = res.w if getattr(P, "kernel", None) is None else res.dual_coef
        assert res.status == "solver_error" and res_fields is None
        assert res.info["message"] and len(res.info["attempts"]) >= 3
        consts = P.constants()
        assert consts["status"] == "solver_error" and consts["message"]
    rep = mk.cross_validate(mk.MaxMargin(S, T), methods=["normalized-gd"], max_iter=20)
    assert rep.rows[0]["status"] == "solver_error" and not rep.rows[0]["agrees"]


class _Raising:
    def solve(self, **kwargs):
        raise ValueError("operands could not be broadcast together")


# ---------------------------------------------------------------------------------------------------------------
# 3. fallback across installed solvers


def test_max_iter_is_the_solvers_iteration_limit_and_a_budget_stop(separable):
    """``max_iter`` (a run option, as for every method) maps to the solver's own limit: the solve ends there with
    ``user_limit``, and no other solver is tried behind the user's budget."""
    S, T = separable
    res = mk.MaxMargin(S, T).solve("cvxpy", max_iter=1)
    assert [a["solver"] for a in res.info["attempts"]] == ["CLARABEL"]
    assert res.status == "user_limit" and res.iterations == 1 and res.info["stopped_by"] == "max_iter"
    ecos = mk.MaxMargin(S, T).solve("cvxpy", solver="ECOS", max_iter=5)   # ECOS's max_iters
    assert ecos.status == "user_limit" and ecos.iterations == 5


def test_fallback_when_the_first_solver_raises(separable, monkeypatch):
    S, T = separable
    original = base.run_solver

    def clarabel_breaks(prob, solver, options, user_options=False):
        if solver == "CLARABEL":
            return "solver_error", "CLARABEL: forced numerical failure"
        return original(prob, solver, options, user_options)
    monkeypatch.setattr(base, "run_solver", clarabel_breaks)
    res = mk.SoftMarginSVM(S, T).reference()
    assert res.status == "optimal" and res.certificate["solver"] == "ECOS"
    assert [a["solver"] for a in res.info["attempts"]] == ["CLARABEL", "CLARABEL (defaults)", "ECOS"]


def test_named_solver_is_the_only_one(separable):
    S, T = separable
    res = mk.MaxMargin(S, T).solve("cvxpy", solver="CLARABEL", max_iter=1)
    assert res.status == "user_limit" and len(res.info["attempts"]) == 1
    assert "limit" in res.info["message"]


def test_fallback_order_prefers_clarabel_ecos_scs():
    order = base.fallback_solvers()
    assert order[:3] == ["CLARABEL", "ECOS", "SCS"]
    assert "ECOS_BB" not in order and "SCIPY" not in order


# ---------------------------------------------------------------------------------------------------------------
# 4. every option checked


def test_unknown_options_are_problem_errors(separable):
    S, T = separable
    P = mk.MaxMargin(S, T)
    with pytest.raises(mk.ProblemError, match="bogus_option"):
        P.solve("cvxpy", bogus_option=1)
    with pytest.raises(mk.ProblemError, match="bogus_option"):
        P.compile("cvxpy", bogus_option=1)
    with pytest.raises(mk.ProblemError, match="max_iters"):
        P.solve("cvxpy", max_iters=5)                         # without solver=, the options are Clarabel's
    with pytest.raises(mk.ProblemError, match="solver"):
        P.solve("cvxpy", solver="NOT_A_SOLVER")
    with pytest.raises(mk.ProblemError, match="solver"):
        P.reference(solver=3)
    assert P.solve("cvxpy", solver="SCS", eps_abs=1e-8, eps_rel=1e-8).status in ("optimal", "optimal_inaccurate")
    assert P.solve("cvxpy", solver="ecos", abstol=1e-9, verbose=False).status == "optimal"


def _perturbed_certificate_holds(P, res):
    """Weak duality recomputed here from the result alone: ``a ∈ Ω`` (box and ``yᵀa = 0`` to rounding), ``g(a)``
    of (15) and ``f(w, t)`` of (20) in plain NumPy, ``0 <= (f − g)/g <= 1e-6``."""
    a = np.asarray(res.dual["a"])
    assert a.min() >= 0 and a.max() <= P.gamma and abs(P.y @ a) <= 1e-12 * P.gamma * P.n
    v = P.X.T @ (a * P.y)
    g = -0.5 * v @ v + a.sum() - 0.5 * P.mu * a @ a
    theta = P.y * (P.X @ res.w + res.b)
    r = np.maximum(0.0, 1.0 - theta)
    knee = P.mu * P.gamma
    f = 0.5 * res.w @ res.w + np.where(r <= knee, r * r / (2 * P.mu), P.gamma * r - 0.5 * P.mu * P.gamma ** 2).sum()
    assert res.value == pytest.approx(g, rel=1e-9)
    assert -1e-9 <= (f - g) / g <= 1e-6
    return g


def test_perturbed_svm_dual_reference_is_certified_at_every_scale(overlapping):
    """(15) with fixed γ, μ is a different problem at each scale; at 1e8 its curvature ||X||² dwarfs μ and the
    dual model alone was left at a relative gap of 0.9 (issue 12): the reference then solves the scaled primal (20)
    and polishes it. Values match an independent CVXPY model at moderate scales and converge as c grows."""
    S, T = overlapping
    values = {}
    for c in SCALES:
        P = mk.PerturbedSVMDual(c * S, T)
        res = P.reference()
        assert res.status == "optimal", (c, res.info.get("attempts"))
        values[c] = _perturbed_certificate_holds(P, res)
    for c in (1e-4, 1.0):
        a = cp.Variable(len(T))
        Z = T[:, None] * (c * S)
        prob = cp.Problem(cp.Maximize(-0.5 * cp.sum_squares(Z.T @ a) + cp.sum(a) - 0.5 * (len(T) / 128)
                                      * cp.sum_squares(a)), [a >= 0, a <= 64 / len(T), T @ a == 0])
        prob.solve(solver="CLARABEL")
        assert values[c] == pytest.approx(prob.value, rel=1e-6)
    assert values[1e8] == pytest.approx(values[1e4], rel=1e-6)
