"""ProjectionOntoIntersection: Raj & Bach's general case (x_i = I, Y_i = K_i), where randomized dual coordinate
ascent is Dykstra's algorithm (Raj & Bach, *Explicit regularization of stochastic gradient methods through duality*,
AISTATS 2021: eq. (2) with ``k = d``, ``x_i = I``, §2; Algorithm 1 of §2.2 is then Dykstra's algorithm with a random
order, the link to block coordinate ascent that their §1.1 recalls), against the certified CVXPY reference."""
import numpy as np
import pytest

import marginkit as mk
from marginkit import Ball, Box, HalfSpace, Hyperplane, ProblemError, ProjectionOntoIntersection
from marginkit.formulations.intersection import dual_value


def instance(seed=2, d=6):
    """3 half-spaces, a ball and a one-sided box (our instance); seed 2 has a non-degenerate active set."""
    rng = np.random.default_rng(seed)
    x0 = 3 * rng.standard_normal(d)
    sets = [HalfSpace(rng.standard_normal(d), 0.3) for _ in range(3)]
    sets += [Ball(np.zeros(d), 1.5), Box(-np.ones(d), np.full(d, np.inf))]
    return x0, sets


@pytest.fixture(scope="module")
def euclidean():
    x0, sets = instance()
    prob = ProjectionOntoIntersection(x0, sets)
    ref = prob.reference()
    assert ref.status == "optimal"
    return prob, ref


def alternating_projections(x0, sets, sweeps):
    th = x0.copy()
    for _ in range(sweeps):
        for K in sets:
            th = K.project(th)
    return th


def cyclic_dykstra(x0, sets, sweeps):
    """Boyle & Dykstra (1986), cyclic order, written out independently of the plan."""
    th, incr = x0.copy(), [np.zeros_like(x0) for _ in sets]
    for _ in range(sweeps):
        for k, K in enumerate(sets):
            new = K.project(th + incr[k])
            incr[k] = th + incr[k] - new
            th = new
    return th


def test_dykstra_is_the_euclidean_projection_and_alternating_projections_is_not(euclidean):
    """Raj & Bach §2.2 with ``x_i = I``: random-order Dykstra = CVXPY's projection = cyclic Dykstra; plain
    alternating projections converge to a feasible point that is not the projection."""
    prob, ref = euclidean
    res = prob.solve("dykstra", tol=1e-12, max_iter=20000, seed=0)
    assert res.status == "optimal"
    assert np.linalg.norm(res.w - ref.w) <= 1e-6
    assert np.linalg.norm(cyclic_dykstra(prob.point, prob.sets, 5000) - res.w) <= 1e-6
    alt = alternating_projections(prob.point, prob.sets, 5000)
    assert prob.max_violation(alt) <= 1e-9
    assert np.linalg.norm(alt - ref.w) > 1e-2


@pytest.mark.parametrize("method,tol,agree", [("dykstra", 1e-10, 1e-6), ("dykstra-accelerated", 1e-7, 1e-3)])
def test_dual_methods_meet_their_certificate_on_sets(euclidean, method, tol, agree):
    prob, ref = euclidean
    res = prob.solve(method, tol=tol, max_iter=20000, seed=1)
    c = res.certificate
    assert res.status == "optimal"
    assert abs(c["duality_gap"]) <= tol * max(1.0, c["primal"]) and c["max_violation"] <= tol * c["violation_scale"]
    assert c["bregman_to_reference"] <= c["reference_gap"] + 1e-10
    assert np.linalg.norm(res.w - ref.w) <= agree * np.linalg.norm(ref.w)


def test_dual_value_stays_below_the_projection_distance(euclidean):
    """Strong duality on sets: D(λ_t) <= ½||θ* − point||² at every epoch; Prop. 1 at every epoch."""
    prob, ref = euclidean
    plan = prob.compile("dykstra")
    for s in list(plan.iterate(60, seed=3))[::5]:
        D = plan.certificate(s)["dual"]
        assert D <= ref.value + 1e-9
        assert 0.5 * np.linalg.norm(plan.primal_point(s) - ref.w) ** 2 <= ref.value - D + 1e-9


def test_bregman_projection_for_p_below_two_matches_the_reference():
    x0, sets = instance(seed=4)
    prob = ProjectionOntoIntersection(x0, sets, p=1.5)
    ref = prob.reference()
    assert ref.status == "optimal"
    res = prob.solve("dykstra", tol=1e-9, max_iter=20000)
    assert res.status == "optimal"
    assert res.value == pytest.approx(ref.value, rel=1e-7)
    assert np.linalg.norm(res.w - ref.w) <= 1e-4 * np.linalg.norm(ref.w)


def test_hyperplanes_and_boxes_with_free_coordinates():
    rng = np.random.default_rng(5)
    d = 8
    lo, hi = np.full(d, -np.inf), np.full(d, 2.0)
    lo[:3] = -0.5
    sets = [Hyperplane(rng.standard_normal(d), 1.0), Hyperplane(rng.standard_normal(d), -0.5), Box(lo, hi)]
    prob = ProjectionOntoIntersection(4 * rng.standard_normal(d), sets)
    ref = prob.reference()
    res = prob.solve("dykstra", tol=1e-10, max_iter=20000)
    assert ref.status == "optimal" and res.status == "optimal"
    assert np.linalg.norm(res.w - ref.w) <= 1e-6


def test_reference_multipliers_reproduce_the_projection(euclidean):
    """The CVXPY duals read back per set satisfy θ* = point + Σ λ_K (signs and scalings of each set; Clarabel's
    duals are accurate to ~1e-5 here) and D(λ*) = ψ(θ*)."""
    prob, ref = euclidean
    lams = ref.dual["lambda"]
    np.testing.assert_allclose(prob.point + lams.sum(axis=0), ref.w, atol=1e-4)
    assert dual_value(prob, lams) == pytest.approx(ref.value, rel=1e-7)


def test_support_functions_are_suprema_over_the_set():
    rng = np.random.default_rng(6)
    d = 5
    w = rng.standard_normal(d)
    ball = Ball(np.ones(d), 2.0)
    z = ball.center + 2.0 * w / np.linalg.norm(w)
    assert ball.support(w) == pytest.approx(z @ w)
    box = Box(-np.ones(d), np.arange(1.0, d + 1))
    assert box.support(w) == pytest.approx(np.where(w > 0, box.hi, box.lo) @ w)
    assert Box(np.zeros(d), np.inf).support(np.ones(d)) == np.inf
    h = HalfSpace(np.ones(d), 3.0)
    assert h.support(2 * np.ones(d)) == pytest.approx(6.0)
    assert h.support(-np.ones(d)) == np.inf and h.support(w) == np.inf
    assert Hyperplane(np.ones(d), 3.0).support(-np.ones(d)) == pytest.approx(-3.0)
    for K in (ball, box):  # no point of the set exceeds σ_K(w)
        pts = [K.project(10 * rng.standard_normal(d)) for _ in range(200)]
        assert max(p @ w for p in pts) <= K.support(w) + 1e-12


def assert_farkas(sets, cert):
    """``Σμ_i = 0`` (to rounding) and ``−Σσ_{K_i}(−μ_i) > 0``, recomputed here from the sets' definitions: no θ is
    in every set (or, for the LP route, ``Σc_r a_r = 0`` and ``Σc_r b_r < 0`` over the polyhedral rows)."""
    mu = np.asarray(cert["farkas_lambda"])
    if "farkas_rows" in cert:
        A = cert["farkas_rows"]
        assert np.linalg.norm(A.T @ mu) <= 1e-12 * np.abs(mu).sum() * np.linalg.norm(A, axis=1).max()
        assert cert["farkas_value"] > 0
        return
    assert np.linalg.norm(mu.sum(axis=0)) <= 1e-12 * np.abs(mu).sum()
    value = 0.0
    for K, m in zip(sets, mu):
        if isinstance(K, Ball):
            value -= K.center @ (-m) + K.radius * np.linalg.norm(m)
        elif isinstance(K, Box):
            value -= np.where(-m > 0, K.hi, K.lo) @ (-m)
        else:
            t = (K.a @ (-m)) / (K.a @ K.a)
            assert np.allclose(-m, t * K.a, atol=1e-12 * np.abs(m).max()) and (isinstance(K, Hyperplane) or t >= 0)
            value -= t * K.b
    assert value > 0 and value == pytest.approx(cert["farkas_value"], rel=1e-9)


@pytest.mark.parametrize("method,tol", [("dykstra", 1e-2), ("dykstra-accelerated", 1e-3), ("mirror-descent", 1e-2)])
@pytest.mark.parametrize("case", ["balls", "halfspaces", "hyperplane-box"])
def test_disjoint_sets_are_reported_infeasible_with_a_farkas_certificate(method, tol, case):
    d = 4
    sets = {"balls": [Ball(np.zeros(d), 1.0), Ball(np.full(d, 3.0), 1.0)],
            "halfspaces": [HalfSpace(np.ones(d), 0.0), HalfSpace(-np.ones(d), -1.0)],
            "hyperplane-box": [Hyperplane(np.ones(d), 10.0), Box(-np.ones(d), np.ones(d))]}[case]
    prob = ProjectionOntoIntersection(np.zeros(d), sets)
    assert prob.reference().status == "infeasible"
    res = prob.solve(method, tol=tol, max_iter=5000, seed=0)
    assert res.status == "infeasible"
    assert_farkas(sets, res.certificate)
    if case == "balls":
        assert prob.solve(method, max_iter=200, seed=0).status == "user_limit"  # default tol: never optimal


@pytest.mark.parametrize("method", ["dykstra", "dykstra-accelerated", "mirror-descent"])
def test_a_far_intersection_is_infeasible_inaccurate_never_infeasible(method):
    """Two half-spaces through a thin wedge: each is at distance ~1 from the point, their intersection at ~100.
    At a loose tol the distance test fires (the intersection is far relative to the sets), but no Farkas
    certificate exists: the run says ``infeasible_inaccurate``, as the contract defines it."""
    eps = 0.01
    sets = [HalfSpace(np.array([-1.0, -eps]), -1.0), HalfSpace(np.array([1.0, -eps]), -1.0)]
    prob = ProjectionOntoIntersection(np.zeros(2), sets)
    assert prob.reference().status == "optimal"
    for tol in (0.5, 0.1):
        assert prob.solve(method, tol=tol, max_iter=5000, seed=0).status == "infeasible_inaccurate"


def test_methods_are_listed_for_p_up_to_two_only():
    x0, sets = instance()
    assert {"cvxpy", "dykstra", "dykstra-accelerated", "mirror-descent"} <= set(mk.methods(
        ProjectionOntoIntersection(x0, sets)))
    prob = ProjectionOntoIntersection(x0, sets, p=2.5)
    assert mk.methods(prob) == ["cvxpy"]
    with pytest.raises(ProblemError, match="p > 2"):
        prob.solve("dykstra")
    with pytest.raises(ProblemError, match="numba"):
        ProjectionOntoIntersection(x0, sets).solve("dykstra", compiled=True)


@pytest.mark.parametrize("build,match", [
    (lambda: HalfSpace(np.zeros(3), 1.0), "a must be a nonzero"),
    (lambda: HalfSpace([1.0, np.nan], 1.0), "a contains NaN"),
    (lambda: Hyperplane([1.0, 2.0], np.inf), "b must be a finite"),
    (lambda: Ball([0.0, 0.0], -1.0), "radius"),
    (lambda: Ball([], 1.0), "center"),
    (lambda: Box([0.0, 1.0], [1.0, 0.0]), r"lo\[1\]"),
    (lambda: Box([0.0, 0.0], [1.0, 1.0, 1.0]), "same length"),
    (lambda: Box(0.0, 1.0), "both scalars"),
    (lambda: Box([np.inf], [np.inf]), "box would be empty"),
    (lambda: ProjectionOntoIntersection([0.0, np.inf], [Ball([0, 0], 1)]), "point contains NaN or inf"),
    (lambda: ProjectionOntoIntersection([0.0, 0.0], []), "sets is empty"),
    (lambda: ProjectionOntoIntersection([0.0, 0.0], Ball([0, 0], 1)), "sets must be a list"),
    (lambda: ProjectionOntoIntersection([0.0, 0.0], [Ball([0, 0], 1), "box"]), r"sets\[1\]"),
    (lambda: ProjectionOntoIntersection([0.0, 0.0], [Ball([0, 0, 0], 1)]), r"sets\[0\] has dimension 3"),
    (lambda: ProjectionOntoIntersection([0.0, 0.0], [Ball([0, 0], 1)], p=1.0), "p must be > 1"),
])
def test_bad_input_raises_problem_error_naming_the_argument(build, match):
    with pytest.raises(ProblemError, match=match):
        build()


def test_sets_and_problems_are_immutable_and_copy_the_input():
    a = np.array([1.0, 2.0])
    h = HalfSpace(a, 1.0)
    a[0] = 5.0
    assert h.a[0] == 1.0
    with pytest.raises(AttributeError):
        h.b = 2.0
    prob = ProjectionOntoIntersection([0.0, 0.0], [h])
    with pytest.raises(AttributeError):
        prob.p = 1.5
