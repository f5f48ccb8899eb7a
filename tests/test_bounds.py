"""Predicted against observed (marginkit.bounds): every proven bound evaluated with the certified constants holds on
small instances where the constants are exact, a violated hypothesis gives ``within=None`` (never a false True),
and the bounds are tight enough somewhere that a wrong constant breaks them."""
from contextlib import nullcontext

import numpy as np
import pytest

import marginkit as mk
from marginkit import bounds
from test_fista_esp import SEPARABLE, overlapping


@pytest.fixture(scope="module")
def mm():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((12, 3))
    y = np.where(X @ np.array([1.0, 0.5, -0.3]) > 0, 1.0, -1.0)
    p = mk.MaxMargin(X, y)
    c = p.constants()
    assert c["hoffman_dual"]["exact"] and c["margin"] > 0
    return p, c


@pytest.fixture(scope="module")
def interp():
    rng = np.random.default_rng(3)
    p = mk.MinNormFeasibility(rng.standard_normal((8, 20)), rng.standard_normal(8), constraint="interpolation")
    p.reference()
    return p


def assert_within(c):
    assert c["within"] is True, c
    assert c["reason"] is None and c["bound"] is not None and c["observed"] is not None
    assert c["observed"] <= c["bound"] + c["slack"]


@pytest.mark.parametrize("budget", [1, 10, 100, 1000])
def test_ji_srebro_telgarsky_theorem_3_1_margin_gap_holds_at_every_budget(mm, budget):
    p, c = mm
    res = p.solve("dual-accelerated", max_iter=budget, tol=1e-14)
    out = bounds.check(p, res)
    assert_within(out)
    assert out["theorem"].startswith("Ji, Srebro & Telgarsky") and out["t"] == budget
    assert out["observed"] == pytest.approx(c["margin"] - res.margin)


def test_theorem_3_1_also_holds_with_a_kernel(mm):
    p, _ = mm
    pk = mk.MaxMargin(p.X, p.y, kernel="rbf", gamma=0.5)
    for budget in (10, 300):
        assert_within(bounds.check(pk, pk.solve("dual-accelerated", max_iter=budget, tol=1e-14)))


@pytest.mark.parametrize("method", ["diagonal", "diagonal-inertial"])
def test_apidopoulos_theorems_5_1_and_5_2_hold_with_lambda0_below_lambda_star(mm, method):
    p, c = mm
    lam0 = 0.9 * c["lambda_star"]
    for budget in (5, 50, 500):
        res = p.solve(method, max_iter=budget, tol=1e-14, lambda0=lam0)
        out = bounds.check(p, res, lambda0=lam0)
        assert len(out["checks"]) == 2                      # ||w_t − w*|| and r_t
        for chk in out["checks"]:
            assert_within(chk)
        # the distance is measured on the dual iterate, not on the rescaled result.w
        a = res.dual["a"]
        w = p.X.T @ (a * p.y)
        assert out["observed"] == pytest.approx(np.linalg.norm(w - c["w"]))


def test_theorem_5_1_uses_the_exact_hoffman_constant_and_is_nearly_flat(mm):
    p, c = mm
    lam0 = 0.9 * c["lambda_star"]
    out = bounds.check(p, p.solve("diagonal", max_iter=50, lambda0=lam0), lambda0=lam0)
    assert 0 < out["mu"] <= c["lojasiewicz_mu"] * (1 + 1e-9)   # u* inside the box is at least the least-norm one
    assert 1 - 1e-6 < out["rate"] < 1
    assert out["bound"] == pytest.approx(c["norm_w"] * out["rate"] ** 25)


def test_raj_bach_eq_8_holds_in_the_mean_over_seeds(interp):
    for budget in (2, 5, 20):
        outs = [bounds.check(interp, interp.solve("dykstra-accelerated", max_iter=budget, tol=1e-14, seed=s,
                                                  compiled=False), compiled=False) for s in range(6)]
        assert all(o["kind"] == "expectation" and o["reason"] is None for o in outs)
        bound = outs[0]["bound"]
        assert all(o["bound"] == bound for o in outs)       # the bound does not depend on the seed
        assert np.mean([o["observed"] for o in outs]) <= bound


def test_raj_bach_bound_on_max_margin_through_the_reduction(mm):
    p, c = mm
    outs = [bounds.check(p, p.solve("dykstra-accelerated", max_iter=100, tol=1e-14, seed=s, compiled=False,
                                    screening=False), compiled=False) for s in range(5)]
    obs = np.array([o["observed"] for o in outs])
    assert np.mean(obs) <= outs[0]["bound"]
    assert outs[0]["t"] == 100 * p.n                        # coordinate steps, not epochs
    # tight: with half the constant, some realisation is above it (the comparison can fail)
    n, psi = p.n, 0.5 * c["norm_w"] ** 2
    halved = [0.5 * o["bound"] for o in outs]
    assert any(o > h for o, h in zip(obs, halved))
    # the bound is (2n/(2n+t))² (ψ(θ*) + ½ΣL_iλ*_i²) with ψ(θ*) = ½||w*||² and a non-negative second term
    assert outs[0]["bound"] >= bounds.rb_accelerated(100 * n, n, psi, 0.0)


@pytest.mark.parametrize("budget", [1, 3, 10, 5000])
def test_hough_vavasis_theorems_a2_and_2_4_hold(budget):
    p = SEPARABLE[1]
    c = p.constants()
    res = p.solve("fista", max_iter=budget)
    out = bounds.check(p, res)
    residual, objective, iters = out["checks"]
    assert_within(residual)
    assert_within(objective)
    assert residual["observed"] == pytest.approx(np.linalg.norm(res.info["residual"] - c["v_D"]))
    if res.status == "optimal":          # test (28) fired: Theorem 2.4's count applies
        assert_within(iters)
        assert iters["bound"] == c["iteration_bound"]
    else:
        assert iters["within"] is None and iters["bound"] == c["iteration_bound"]


def test_theorem_a2_holds_on_ellipsoids_that_cannot_be_separated():
    p = overlapping()
    res = p.solve("fista", max_iter=40)
    out = bounds.check(p, res)
    assert_within(out["checks"][0])
    assert_within(out["checks"][1])
    assert out["checks"][2]["within"] is None and "separable" in out["checks"][2]["reason"]
    rec = bounds.per_record(p, res)
    assert all(w for w in rec["within"] if w is not None) and len(rec["iteration"]) > 5


def test_per_record_bounds_hold_at_every_record_and_a_quarter_of_the_constant_breaks_them():
    p = SEPARABLE[0]
    p.constants()
    res = p.solve("fista", stop="tol", max_iter=200, tol=1e-12)
    rec = bounds.per_record(p, res, stop="tol")
    ok = [w for w in rec["within"] if w is not None]
    assert len(ok) > 10 and all(ok)
    ratio = np.nanmax(rec["observed"] / rec["bound"])
    assert 0.25 < ratio <= 1.0           # so f(x_k) − f* <= L||x̄||²/(2(k+1)²) would be violated


def test_per_record_margin_gap_of_dual_acceleration(mm):
    p, c = mm
    res = p.solve("dual-accelerated", max_iter=500, tol=1e-14)
    rec = bounds.per_record(p, res)
    assert all(w for w in rec["within"] if w is not None)
    assert np.allclose(rec["observed"], c["margin"] - res.trace["margin"])


def test_per_record_distance_needs_the_reference_before_the_run(mm):
    p, c = mm
    lam0 = 0.9 * c["lambda_star"]
    res = p.solve("diagonal-inertial", max_iter=200, lambda0=lam0)   # reference cached: dist_to_opt recorded
    rec = bounds.per_record(p, res, lambda0=lam0)
    assert all(w for w in rec["within"] if w is not None)
    assert np.nanmax(rec["observed"] / rec["bound"]) > 0.05


def test_a_wrong_constant_breaks_the_inequality(mm):
    p, c = mm
    # Theorem A.2's residual bound is within a factor ~4 of the observed residual at its tightest iterate: the bound
    # with ||𝒜|| divided by 5 is violated
    q = SEPARABLE[1]
    cq = q.constants()
    obs, bnd = [], []
    for k in (1, 2, 3, 5, 8):
        obs.append(np.linalg.norm(q.solve("fista", max_iter=k).info["residual"] - cq["v_D"]))
        bnd.append(bounds.hv_residual(k, cq["opnorm_A"], cq["x_bar_norm"]))
    assert all(o <= b for o, b in zip(obs, bnd))
    assert any(o > b / 5 for o, b in zip(obs, bnd))
    # Theorem 5.2's energy bound: ten times smaller E_1 fails early in the run
    lam0 = 0.9 * c["lambda_star"]
    out = bounds.check(p, p.solve("diagonal-inertial", max_iter=10, lambda0=lam0), lambda0=lam0)
    assert out["observed"] <= out["bound"] and out["observed"] > out["bound"] / 10


def test_a_violated_hypothesis_gives_none_not_a_false_true(mm):
    p, c = mm
    cases = [
        ("diagonal", {}),                                   # default λ0 = R² > λ*: Remark 5.3, no bound
        ("diagonal", {"lambda0": 2 * c["lambda_star"]}),
        ("diagonal-inertial", {"lambda0": 0.5 * c["lambda_star"], "alpha": 2.0}),
        ("dual-accelerated", {"theta": 0.5}),
        ("dual-accelerated", {"loss": "logistic"}),
        ("dual-accelerated", {"warm_start": np.ones(3)}),
        ("dykstra-accelerated", {"output": "alpha", "compiled": False}),
        ("gd", {}), ("normalized-gd", {}), ("homotopic", {}), ("cvxpy", {}),
    ]
    for method, opts in cases:
        with pytest.warns(UserWarning) if opts.get("alpha") == 2.0 else nullcontext():
            res = p.solve(method, **({"max_iter": 20, **opts} if method != "cvxpy" else {}))
        out = bounds.check(p, res, **opts)
        assert out["within"] is None and out["reason"], (method, opts, out)
        assert bounds.bound_columns(p, res, **opts)["within_bound"] is None


def test_non_separable_data_have_no_margin_bound():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((10, 3))
    y = np.sign(X[:, 0])
    X = np.vstack([X, X[:1], -X[:1]])
    y = np.concatenate([y, [1.0, 1.0]])
    p = mk.MaxMargin(X, y)
    out = bounds.check(p, p.solve("dual-accelerated", max_iter=50))
    assert out["within"] is None and "separable" in out["reason"]


def test_bound_columns_for_a_comparison_row(mm):
    p, c = mm
    res = p.solve("dual-accelerated", max_iter=100)
    cols = bounds.bound_columns(p, res)
    assert set(cols) == {"bound", "within_bound"} and cols["within_bound"] is True
    assert cols["bound"] == pytest.approx(bounds.jst_margin_gap(100, p.n, c["R"], c["margin"]))


def test_bad_input_is_a_problem_error(mm):
    p, _ = mm
    with pytest.raises(mk.ProblemError, match="Result"):
        bounds.check(p, {"w": np.zeros(3)})
    with pytest.raises(mk.ProblemError, match="problem"):
        bounds.check("mnist", p.solve("gd", max_iter=3))
    res = mk.SoftMarginSVM(p.X, p.y, bias=False).solve("fista", max_iter=5)
    with pytest.raises(mk.ProblemError):
        bounds.check(p, res)       # 'fista' does not apply to a MaxMargin problem


def test_bounds_is_exported_lazily():
    assert "bounds" in dir(mk) and mk.bounds is bounds

