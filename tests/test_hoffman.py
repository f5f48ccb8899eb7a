"""The Hoffman constants of ``constants()`` (marginkit/reference/hoffman.py), checked by brute force on tiny instances,
against their definitions (sampled error bounds with distances from independent CVXPY models), and on the toy set
of Apidopoulos, Poggio, Rosasco & Villa, *Iterative regularization in classification via hinge loss diagonal descent*
(2022), §6.1."""
import itertools
import time

import cvxpy as cp
import numpy as np
import pytest

import marginkit as mk
from marginkit.reference.hoffman import (count_blocks, dual_hoffman, dual_system_matrix, lojasiewicz_mu,
                                         separability_hoffman)


def brute_force_tau(Z):
    """(5.3) read literally: every linearly independent set of rows of ``[A; E]`` (``A = [I; −I]``), the supremum
    of ``||c||/||M_Rᵀc||`` over ``c`` with the ``A``-part >= 0 -- attained at the bottom singular vector when it
    has the right signs, else on a face, which is a smaller row set (also enumerated)."""
    n, _ = Z.shape
    M = np.vstack([np.eye(n), -np.eye(n), dual_system_matrix(Z)])
    signed = np.arange(M.shape[0]) < 2 * n
    best = 0.0
    for r in range(1, n + 1):
        for R in itertools.combinations(range(M.shape[0]), r):
            U, s, _ = np.linalg.svd(M[list(R)], full_matrices=False)
            if s[-1] < 1e-10:
                continue
            c, sg = U[:, -1], signed[list(R)]
            if np.all(c[sg] >= -1e-12) or np.all(c[sg] <= 1e-12):
                best = max(best, 1.0 / s[-1])
    return best


def toy_set(extra=12, seed=0):
    """Apidopoulos et al. §6.1 (Fig. 2): support vectors ±(½, 3/2), ±(3/2, ½) (so w* = (½, ½); the paper prints x4
    equal to x3, a typo for −x2) and points with |⟨w*, x⟩| >= 1.2 (the paper gives no generator; this is ours)."""
    X = np.array([[0.5, 1.5], [1.5, 0.5], [-0.5, -1.5], [-1.5, -0.5]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    rng = np.random.default_rng(seed)
    pts = []
    while len(pts) < extra:
        p = rng.uniform(-3, 3, 2)
        if abs(p.sum() / 2) >= 1.2:
            pts.append(p)
    P = np.array(pts)
    return np.vstack([X, P]), np.concatenate([y, np.sign(P.sum(axis=1))])


@pytest.mark.parametrize("seed", range(8))
def test_tau_matches_brute_force_enumeration_of_5_3_on_tiny_2d_instances(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 5))
    Z = rng.standard_normal((n, 2)) * rng.uniform(0.2, 5.0)
    tau = dual_hoffman(Z)
    assert tau["exact"] and tau["value"] == pytest.approx(brute_force_tau(Z), rel=1e-9)


def test_tau_witness_attains_the_supremum_of_5_3():
    rng = np.random.default_rng(5)
    Z = rng.standard_normal((5, 2))
    tau = dual_hoffman(Z)
    w = tau["witness"]
    n = Z.shape[0]
    A = np.vstack([np.eye(n), -np.eye(n)])
    E = dual_system_matrix(Z)
    assert np.all(w["u"] >= 0)
    assert np.linalg.norm(A.T @ w["u"] + E.T @ w["v"]) == pytest.approx(1.0, rel=1e-9)
    assert np.linalg.norm(np.concatenate([w["u"], w["v"]])) == pytest.approx(tau["value"], rel=1e-9)
    rows = np.vstack([A[np.flatnonzero(w["u"] > 0)], E[np.flatnonzero(w["v"] != 0)]])
    assert np.linalg.matrix_rank(rows) == rows.shape[0]          # the rows used are independent


def _dist_to_dual_set(u, E, ebar, lo):
    v = cp.Variable(len(u))
    prob = cp.Problem(cp.Minimize(cp.sum_squares(v - u)), [E @ v == ebar, v >= lo, v <= 0])
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    return float(np.linalg.norm(v.value - u))


def test_tau_bounds_the_distance_to_the_dual_solution_set_at_sampled_points():
    """(A.32): ``dist(u, {Eu = ē} ∩ box) <= τ ||Eu − ē||`` for u in the box, whatever the consistent ``ē``."""
    rng = np.random.default_rng(2)
    Z = rng.standard_normal((4, 2))
    E = dual_system_matrix(Z)
    tau = dual_hoffman(Z)["value"]
    ratios = []
    for _ in range(40):
        lo = -rng.uniform(0.5, 3.0)
        ebar = E @ rng.uniform(lo, 0, 4)
        u = rng.uniform(lo, 0, 4)
        r = float(np.linalg.norm(E @ u - ebar))
        ratios.append(_dist_to_dual_set(u, E, ebar, lo) / r)
    assert max(ratios) <= tau * (1 + 1e-6)


def test_tau_does_not_change_when_samples_are_permuted_or_a_point_and_its_label_are_negated():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((6, 2))
    y = np.sign(rng.standard_normal(6))
    Z = y[:, None] * X
    base = dual_hoffman(Z)["value"]
    perm = rng.permutation(6)
    assert dual_hoffman(Z[perm])["value"] == pytest.approx(base, rel=1e-10)
    flip = np.where(rng.random(6) < 0.5, -1.0, 1.0)      # (x_i, y_i) -> (−x_i, −y_i) leaves z_i unchanged
    assert dual_hoffman((flip * y)[:, None] * (flip[:, None] * X))["value"] == pytest.approx(base, rel=1e-10)


def test_tau_beyond_the_enumeration_budget_is_none_with_a_certified_lower_bound_and_fast():
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((300, 6))
    t0 = time.perf_counter()
    tau = dual_hoffman(Z)
    assert time.perf_counter() - t0 < 5.0
    assert tau["value"] is None and not tau["exact"] and "max_bases" in tau["reason"]
    assert tau["bases"] == count_blocks(300, 6) > tau["max_bases"]
    assert tau["lower_bound"] >= 1.0
    small = dual_hoffman(Z[:8, :2])                       # a sub-basis of the small problem is one of the big one's
    assert small["exact"] and small["value"] >= 1.0


def _dist_to_separability_set(w, Z, b):
    v = cp.Variable(len(w))
    prob = cp.Problem(cp.Minimize(cp.sum_squares(v - w)), [Z @ v >= b])
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    return float(np.linalg.norm(v.value - w))


@pytest.mark.parametrize("scale", [1e-3, 1.0, 1e3])
def test_separability_constant_is_the_norm_of_w_star_and_is_attained(scale):
    rng = np.random.default_rng(11)
    X = rng.standard_normal((8, 2))
    y = np.where(X @ np.array([1.0, -0.5]) > 0, 1.0, -1.0)
    X = X + 0.3 * y[:, None] * np.array([1.0, -0.5])      # a clear margin
    X = X * scale
    Z = y[:, None] * X
    H = mk.MaxMargin(X, y).constants()["hoffman_separability"]
    w = cp.Variable(2)                                   # independent model of w*, on the unscaled data
    cp.Problem(cp.Minimize(cp.sum_squares(w)), [(Z / scale) @ w >= 1]).solve(
        solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    assert H == pytest.approx(np.linalg.norm(w.value) / scale, rel=1e-6)
    # attained at b = 1, w = 0 (residual 1 in the max-norm) and never exceeded at sampled (w, b)
    assert _dist_to_separability_set(np.zeros(2), Z, np.ones(8)) == pytest.approx(H, rel=1e-6)
    for _ in range(25):
        b = rng.standard_normal(8)
        wq = rng.standard_normal(2) * 3 / scale
        res = float(np.max(np.clip(b - Z @ wq, 0, None)))
        if res > 0:
            assert _dist_to_separability_set(wq, Z, b) <= H * res * (1 + 1e-6)


def test_separability_constant_of_non_separable_data_matches_enumeration_and_bounds_the_error():
    rng = np.random.default_rng(4)
    Z = rng.standard_normal((6, 2))
    out = separability_hoffman(Z, None, separable=False)
    brute = 0.0                                          # independent: CVXPY hull distance of every subset
    for r in range(1, 7):
        for J in itertools.combinations(range(6), r):
            q = cp.Variable(r, nonneg=True)
            p = cp.Problem(cp.Minimize(cp.norm(Z[list(J)].T @ q)), [cp.sum(q) == 1])
            p.solve(solver="CLARABEL")
            if p.value > 1e-7:
                brute = max(brute, 1.0 / p.value)
    assert out["exact"] and out["value"] == pytest.approx(brute, rel=1e-5)
    for _ in range(20):
        b = Z @ rng.standard_normal(2) - rng.uniform(0, 1, 6)   # a consistent right-hand side
        wq = rng.standard_normal(2) * 2
        res = float(np.max(np.clip(b - Z @ wq, 0, None)))
        if res > 1e-9:
            assert _dist_to_separability_set(wq, Z, b) <= out["value"] * res * (1 + 1e-5)


def test_toy_set_of_apidopoulos_et_al_gives_its_constants_and_mu_from_5_2():
    X, y = toy_set()
    c = mk.MaxMargin(X, y).constants()
    assert c["hoffman_separability"] == pytest.approx(1 / np.sqrt(2), rel=1e-6)   # ||w*|| with w* = (½, ½)
    assert c["dual_least_norm"] == pytest.approx(0.25, rel=1e-5)                 # u* = −1/8 on the 4 support vectors
    tau = c["hoffman_dual"]
    assert tau["exact"] and tau["value"] == pytest.approx(dual_hoffman(y[:, None] * X)["value"], rel=1e-12)
    opnorm = np.linalg.norm(X, 2)
    M, R = 0.25, 0.5                                  # r_0 = ½||w*||² = ¼ and R = 2||u*||  (A.40)
    mu = 1 / (8 * tau["value"] ** 2 * (9 * M + 6 * np.sqrt(2 * M) * R * opnorm + 2 * R ** 2 * opnorm ** 2 + 2))
    assert c["lojasiewicz_mu"] == pytest.approx(mu, rel=1e-4)
    assert c["linear_rate"] == pytest.approx(1 / (1 + mu / opnorm ** 2), rel=1e-12) and c["linear_rate"] < 1
    assert lojasiewicz_mu(1.0, 0.0, 0.0, 1.0) == pytest.approx(1 / 16)


def test_constants_say_why_when_a_hoffman_constant_is_not_defined():
    X, y = toy_set()
    c = mk.MaxMargin(X, y, bias=True).constants()
    assert c["hoffman_separability"] is None and "offset" in c["hoffman_separability_reason"]
    assert c["hoffman_dual"]["value"] is None and c["lojasiewicz_mu"] is None
    Xn = np.vstack([X, X[:1]])
    yn = np.concatenate([y, -y[:1]])                    # a point with both labels: not separable
    cn = mk.MaxMargin(Xn, yn).constants()
    assert cn["status"] == "infeasible" and cn["lojasiewicz_mu"] is None
    assert cn["hoffman_separability"] is None and "n <= " in cn["hoffman_separability_reason"]
    assert cn["hoffman_dual"]["exact"] and cn["hoffman_dual"]["value"] >= 1.0
