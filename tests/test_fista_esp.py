"""Ellipsoid separation by FISTA with test (28) (Hough & Vavasis), checked against the CVXPY reference.

Claims of M. Hough, S. A. Vavasis, *Data-dependent complexity of first-order methods for binary classification*
(2025), §2 and App. A (Lemma 2.1, Theorems 2.1–2.4, Lemma A.1, Theorem A.2, the PDHG link of App. A.1, the
normalisation (1)), on small instances (d <= 5, j + l <= 10)."""
import tracemalloc

import cvxpy as cp
import numpy as np
import pytest

import marginkit as mk
from marginkit import EllipsoidSeparation, ProblemError
from marginkit.operators.ellipsoids import esp_operator
from marginkit.reference.conic import hull_distance_R4

from esp_helpers import random_instance


SEPARABLE = [EllipsoidSeparation(*random_instance(s, gap=g, diagonal=diag))
             for s, g, diag in ((0, 2.0, False), (1, 2.5, False), (2, 1.5, True), (3, 0.9, True))]


@pytest.fixture(scope="module")
def separable():
    return [(p, p.constants()) for p in SEPARABLE]


def overlapping():
    cc, ac, _, _ = random_instance(7)
    return EllipsoidSeparation(cc, ac, cc[:2] + 0.01, ac[:2])


def test_recovered_hyperplane_separates_every_ellipsoid_whenever_delta_positive(separable):
    for prob, const in separable:
        assert const["delta"] > 0
        res = prob.solve("fista")
        assert res.status == "optimal"
        hi_c, lo_d = prob.support_values(res.w)
        assert np.all(hi_c + res.b < 0) and np.all(lo_d + res.b > 0)
        assert res.info["separates_all"] and res.margin > 0


def test_separation_cross_checked_by_cvxpy_maximising_over_each_ellipsoid():
    prob = SEPARABLE[1]
    res = prob.solve("fista")
    u = cp.Variable(prob.d)
    for c, A in zip(prob.centers_c, prob.shapes_c):
        top = cp.Problem(cp.Maximize(res.w @ (c + A @ u)), [cp.norm(u) <= 1]).solve(solver="CLARABEL")
        assert top + res.b < 0
    for c, B in zip(prob.centers_d, prob.shapes_d):
        low = cp.Problem(cp.Minimize(res.w @ (c + B @ u)), [cp.norm(u) <= 1]).solve(solver="CLARABEL")
        assert low + res.b > 0


def test_lemma_2_1_support_value_matches_cvxpy_maximum():
    rng = np.random.default_rng(11)
    c, A, w = rng.normal(size=3), rng.normal(size=(3, 3)), rng.normal(size=3)
    u = cp.Variable(3)
    best = cp.Problem(cp.Maximize(w @ (c + A @ u)), [cp.norm(u) <= 1]).solve(solver="CLARABEL")
    assert abs(c @ w + np.linalg.norm(A.T @ w) - best) <= 1e-7


def test_iteration_count_within_theorem_2_4_bound(separable):
    for prob, const in separable:
        res = prob.solve("fista")
        assert res.iterations <= res.info["iteration_bound_v"] <= res.info["iteration_bound"]
        assert res.info["iteration_bound"] <= res.info["iteration_bound_both"]
        assert res.info["iteration_bound"] == const["iteration_bound"]


def test_residual_obeys_its_inverse_k_bound_at_every_step(separable):
    for prob, const in separable[:3]:
        plan = prob.compile("fista")
        vD, L, xbar = const["v_D"], const["L"], const["x_bar_norm"]
        fstar = 0.5 * vD @ vD
        for k, st in enumerate(plan.iterate(300)):
            if k == 0:
                continue
            v = plan.residual(st)
            assert np.linalg.norm(v - vD) <= 2 * np.sqrt(L) * xbar / (k + 1) + 1e-6  # Theorem A.2
            assert plan.op.objective(st.xc, st.xd) - fstar <= 2 * L * xbar ** 2 / (k + 1) ** 2 + 1e-9
            if np.linalg.norm(v - vD) < (vD @ vD) / np.sqrt(18):                   # Theorem 2.2
                assert plan.op.test28(v)[0] == 1


def test_first_iterate_is_the_difference_of_class_sums():
    prob = SEPARABLE[0]
    plan = prob.compile("fista")
    op, L = plan.op, plan.L
    st1 = list(plan.iterate(1))[1]
    expected = np.concatenate([[1 - op.j / L, 1 - op.l / L], (op.dc.sum(0) - op.c.sum(0)) / L])
    assert np.allclose(plan.residual(st1), expected, atol=1e-13)


def test_v_D_is_sandwiched_by_the_hull_distance(separable):
    for prob, const in separable:
        nv, M = const["v_D_norm"], const["delta_normalized"]
        assert nv <= M + 1e-7 and M <= 3 * nv + 1e-7            # Theorem 2.3 and ||v_D|| <= M
        assert abs(const["s_star"] + const["t_star"] - nv ** 2) <= 1e-7   # Lemma A.1
        assert abs(hull_distance_R4(prob) - M) <= 1e-6          # (R3) = (R4)
        assert const["delta"] == pytest.approx(const["alpha"] * M)
        assert const["delta_both"] == pytest.approx(const["delta"] / 2)


def test_reference_v_D_is_feasible_for_the_primal(separable):
    for prob, const in separable:
        op = esp_operator(prob)
        v = const["v_D"]
        cw, rc, dw, rd = op.support(v[2:])
        assert np.all(rc <= -v[0] - cw + 1e-7) and np.all(rd <= dw - v[1] + 1e-7)
        ref = prob.reference()
        assert ref.status == "optimal" and ref.info["separates_all"]


def test_tolerance_stop_converges_to_v_D_and_the_reference_value(separable):
    prob, const = separable[0]
    res = prob.solve("fista", stop="tol", tol=1e-8, max_iter=20000)
    assert np.linalg.norm(res.info["residual"] - const["v_D"]) <= 1e-5
    assert res.value == pytest.approx(prob.reference().value, rel=1e-6)
    assert res.certificate["objective_gap_bound"] >= -1e-12


def test_early_stop_needs_fewer_iterations_than_the_tolerance_stop(separable):
    for prob, _ in separable:
        early, tol = prob.solve("fista"), prob.solve("fista", stop="tol")
        assert early.iterations < tol.iterations


def test_non_separable_instances_never_report_a_separator():
    prob = overlapping()
    ref = prob.reference()
    assert ref.status == "infeasible" and ref.w is None and ref.margin <= 0
    assert ref.certificate["v_D_norm"] <= 1e-6
    for method, opts in (("fista", {}), ("fista", {"stop": "tol"}), ("pdhg", {})):
        res = prob.solve(method, max_iter=400, **opts)
        assert res.status in ("infeasible", "infeasible_inaccurate", "user_limit", "optimal_inaccurate")
        assert res.w is None and res.margin <= 0 and not res.info["separates_all"]
        if res.status == "infeasible":   # only with a checkable point of both hulls
            assert_point_in_both_hulls(prob, res.certificate)
        with pytest.raises(ValueError):
            res.decision_function(np.zeros((1, prob.d)))


def assert_point_in_both_hulls(prob, cert):
    """The certificate's weights combine points that lie in the ellipsoids (checked here by solving
    ``A_i u = p − c_i`` for each point) into the same point on both sides, up to rounding."""
    z = cert["intersection_point"]
    for centers, shapes, weights in ((prob.centers_c, prob.shapes_c, cert["hull_weights_c"]),
                                     (prob.centers_d, prob.shapes_d, cert["hull_weights_d"])):
        assert np.all(weights >= 0) and weights.sum() == pytest.approx(1.0, abs=1e-12)
        d = centers.shape[1]
        pts = []
        for c, S in zip(centers, shapes):
            cols = np.diag(S) if S.ndim == 1 else S
            pts += [c] + [c + cols[:, k] for k in range(d)] + [c - cols[:, k] for k in range(d)]
        pts = np.array(pts)
        assert len(pts) == len(weights)
        for (i, p) in enumerate(pts):
            if weights[i] > 0:
                k = i // (2 * d + 1)
                S = np.diag(shapes[k]) if shapes[k].ndim == 1 else shapes[k]
                u = np.linalg.lstsq(S, p - centers[k], rcond=None)[0]
                assert np.linalg.norm(u) <= 1 + 1e-12 and np.allclose(S @ u, p - centers[k], atol=1e-12)
        assert np.linalg.norm(weights @ pts - z) <= 1e-9 * max(1.0, np.abs(pts).max())


@pytest.mark.parametrize("method", ["fista", "pdhg"])
def test_overlapping_ellipsoids_are_infeasible_with_a_point_of_both_hulls(method):
    prob = overlapping()
    assert prob.reference().status == "infeasible"
    res = prob.solve(method, max_iter=2000, tol=1e-2)
    assert res.status == "infeasible"
    assert_point_in_both_hulls(prob, res.certificate)


@pytest.mark.parametrize("method", ["fista", "pdhg"])
def test_separable_balls_with_a_small_gap_are_never_infeasible_at_a_loose_tol(method):
    """``δ_𝒜 <= tol`` does not exclude separability: ``infeasible_inaccurate``, never ``infeasible``."""
    d = 3
    prob = EllipsoidSeparation(np.zeros((1, d)), np.eye(d)[None], np.array([[2.02, 0.0, 0.0]]), np.eye(d)[None])
    assert prob.reference().status == "optimal"
    for tol in (0.3, 0.1):
        res = prob.solve(method, tol=tol)
        assert res.status == "infeasible_inaccurate" and res.w is None
    assert prob.solve("fista", tol=1e-3).status == "optimal"


def test_non_separable_residual_and_objective_decrease_towards_zero():
    prob = overlapping()
    res = prob.solve("fista", max_iter=400, trace=1)
    r = res.trace["residual"]
    assert r[-1] < 0.05 * r[1]
    assert res.value < 1e-3


def test_scaling_the_data_leaves_iterations_unchanged_and_scales_the_offset():
    cc, ac, cd, ad = random_instance(4, gap=1.0)
    base = EllipsoidSeparation(cc, ac, cd, ad).solve("fista", iteration_bound=False)
    scaled = EllipsoidSeparation(7.5 * cc, 7.5 * ac, 7.5 * cd, 7.5 * ad).solve("fista", iteration_bound=False)
    assert scaled.iterations == base.iterations
    assert np.allclose(scaled.w, base.w, atol=1e-10)
    assert scaled.b == pytest.approx(7.5 * base.b, rel=1e-9)


def test_diagonal_shapes_give_the_same_run_as_their_dense_expansion():
    cc, ac, cd, ad = random_instance(2, gap=1.5, diagonal=True)
    diag = EllipsoidSeparation(cc, ac, cd, ad).solve("fista", stop="tol", iteration_bound=False)
    dense = EllipsoidSeparation(cc, np.array([np.diag(a) for a in ac]), cd,
                                np.array([np.diag(a) for a in ad])).solve("fista", stop="tol", iteration_bound=False)
    assert diag.iterations == dense.iterations
    assert np.allclose(diag.w, dense.w, atol=1e-10) and diag.b == pytest.approx(dense.b, abs=1e-10)


def test_diagonal_shapes_are_never_expanded_to_dense_matrices():
    d = 20000                       # one dense 20000×20000 matrix would need 3.2 GB
    rng = np.random.default_rng(0)
    prob = EllipsoidSeparation(rng.normal(size=(2, d)) * 0.01, rng.uniform(0, .01, (2, d)),
                               rng.normal(size=(2, d)) * 0.01 + 1.0, rng.uniform(0, .01, (2, d)))
    tracemalloc.start()
    res = prob.solve("fista", iteration_bound=False, max_iter=50)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert res.status == "optimal" and res.info["separates_all"]
    assert peak < 50e6


def test_singular_shapes_are_valid():
    rng = np.random.default_rng(5)
    d = 3
    points = np.zeros((2, d, d))                                        # points
    flat = np.array([np.outer(u, u) * 0.3 for u in rng.normal(size=(2, d))])   # rank one (segments)
    prob = EllipsoidSeparation(rng.normal(size=(2, d)) * 0.2, points, rng.normal(size=(2, d)) * 0.2 + 1.0, flat)
    res = prob.solve("fista")
    assert res.status == "optimal" and res.info["separates_all"]
    ref = prob.reference()
    assert ref.status == "optimal" and ref.info["separates_all"]


def test_pdhg_displacement_approaches_v_D_with_the_corrected_sign(separable):
    prob, const = separable[0]
    plan = prob.compile("pdhg")
    *_, st = plan.iterate(3000)
    vD = const["v_D"]
    assert np.linalg.norm(st.disp - vD) < 1e-3 < np.linalg.norm(-st.disp - vD)
    res = prob.solve("pdhg")
    assert res.status == "optimal" and res.info["separates_all"]


def test_warm_start_from_a_separating_run_stops_immediately():
    prob = SEPARABLE[2]
    first = prob.solve("fista", iteration_bound=False)
    again = prob.solve("fista", warm_start=first, iteration_bound=False)
    assert again.iterations == 0 and again.status == "optimal"


def test_user_arrays_are_not_modified():
    cc, ac, cd, ad = random_instance(9, gap=1.0)
    copies = [a.copy() for a in (cc, ac, cd, ad)]
    EllipsoidSeparation(cc, ac, cd, ad).solve("fista", iteration_bound=False)
    assert all(np.array_equal(a, b) for a, b in zip((cc, ac, cd, ad), copies))


@pytest.mark.parametrize("args, word", [
    ((np.zeros((2, 3)), np.zeros((2, 3, 2)), np.ones((1, 3)), np.zeros((1, 3, 3))), "square"),
    ((np.zeros((2, 3)), np.zeros((2, 3, 3)), np.ones((1, 4)), np.zeros((1, 4, 4))), "dimension"),
    ((np.zeros((2, 3)), np.full((2, 3), np.nan), np.ones((1, 3)), np.zeros((1, 3))), "NaN"),
    ((np.zeros((0, 3)), np.zeros((0, 3)), np.ones((1, 3)), np.zeros((1, 3))), "empty"),
    ((np.zeros((2, 3)), np.zeros((2, 3)), np.ones((1, 3)), np.zeros((1, 3, 3))), "both"),
    ((np.zeros((2, 3)), np.zeros((3, 3)), np.ones((1, 3)), np.zeros((1, 3))), "shape"),
])
def test_bad_ellipsoid_data_raise_problem_error(args, word):
    with pytest.raises(ProblemError, match=word):
        EllipsoidSeparation(*args)


def test_bad_options_raise_problem_error():
    prob = SEPARABLE[0]
    with pytest.raises(ProblemError, match="stop"):
        prob.solve("fista", stop="never")
    with pytest.raises(ProblemError, match="warm_start"):
        prob.solve("fista", warm_start=(np.zeros((1, 2)), np.zeros((1, 2))))
    assert set(mk.methods(prob)) >= {"cvxpy", "fista", "pdhg"}
