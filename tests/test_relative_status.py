"""``tol`` is relative and scale-free (CONTRACT "Statuses"; issue 12 items 1-2).

* whenever a first-order method says ``optimal``, the TRUE relative gap against the certified reference is at most
  ``tol`` (and ``certificate["relative_gap"]`` is at most ``tol`` too), at every scale of the data;
* ``infeasible`` is never reported on separable data (a tiny margin gives ``infeasible_inaccurate`` at most);
* the MaxMargin plans are scale-free: ``c·X`` gets the status of ``X``.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import marginkit as mk
from marginkit.core.result import STATUSES

SLACK = 1e-9
# plans whose iteration itself depends on the data's scale (a λ-schedule or step sizes in the user's units): their
# statuses are checked against the reference at every scale, but not compared across scales (issue 12, reported)
NOT_SCALE_FREE = {"homotopic"}


def _instance(rng, n=10, d=3, separable=True):
    X = rng.normal(size=(n, d))
    if separable:
        w = rng.normal(size=d)
        s = X @ w
        keep = np.abs(s) > 0.3 * np.abs(s).max()
        if keep.sum() < 4:
            keep[:] = True
        X, s = X[keep], s[keep]
        y = np.where(s > 0, 1.0, -1.0)
    else:
        y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    if len(np.unique(y)) < 2:
        y[0] = -y[0]
    return X, y


def _true_gap(problem, res, ref) -> float:
    if problem.form == "MaxMargin":
        return (ref.margin - res.margin) / ref.margin
    if problem.form == "PerturbedSVMDual":      # a maximisation
        return (ref.value - res.value) / abs(ref.value)
    return (res.value - ref.value) / abs(ref.value)


def _solve(problem, method, tol, max_iter=1500):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return problem.solve(method, tol=tol, max_iter=max_iter, seed=0)


def _check_optimal_claims(problem, tol):
    ref = problem.reference()
    assert ref.status == "optimal", ref.status
    statuses = {}
    for method in mk.methods(problem):
        if method == "cvxpy":
            continue
        res = _solve(problem, method, tol)
        assert res.status in STATUSES
        assert res.status != "infeasible", (method, problem)
        statuses[method] = res.status
        if res.status == "optimal":
            gap = _true_gap(problem, res, ref)
            assert gap <= tol + SLACK, (method, tol, gap)
            cert = res.certificate or {}
            if "relative_gap" in cert:
                assert cert["relative_gap"] <= tol, (method, tol, cert["relative_gap"])
    return statuses


def _draws(seed, k):
    rng = np.random.default_rng(seed)
    for _ in range(k):
        tol = float(10.0 ** rng.uniform(-6, -1))
        c = float(10.0 ** rng.uniform(-6, 6))
        yield rng, tol, c


@pytest.mark.parametrize("seed", [0, 1])
def test_max_margin_optimal_means_relative_gap_and_is_scale_free(seed):
    for rng, tol, c in _draws(100 + seed, 1):
        X, y = _instance(rng)
        base = _check_optimal_claims(mk.MaxMargin(X, y), tol)
        scaled = _check_optimal_claims(mk.MaxMargin(c * X, y), tol)
        for method, status in base.items():
            if method in NOT_SCALE_FREE:
                continue
            assert scaled[method] == status, (method, c, tol, status, scaled[method])


@pytest.mark.parametrize("bias", [False, True])
def test_soft_margin_optimal_means_relative_gap_at_every_scale(bias):
    for rng, tol, c in _draws(200 + bias, 3):
        X, y = _instance(rng, separable=False)
        _check_optimal_claims(mk.SoftMarginSVM(c * X, y, C=1.0, bias=bias), tol)


def test_min_norm_feasibility_optimal_means_relative_gap_at_every_scale():
    for rng, tol, c in _draws(300, 3):
        X, y = _instance(rng)
        _check_optimal_claims(mk.MinNormFeasibility(c * X, y), tol)


def test_perturbed_svm_dual_optimal_means_relative_gap_at_every_scale():
    for rng, tol, c in _draws(400, 3):
        X, y = _instance(rng, separable=False)
        problem = mk.PerturbedSVMDual(c * X, y)
        ref = problem.reference()
        for stop in ("tol", "early"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = problem.solve("fista", tol=tol, max_iter=3000, stop=stop)
            if res.status == "optimal":
                assert _true_gap(problem, res, ref) <= tol + SLACK, (stop, tol)
                assert res.certificate["relative_gap"] <= tol


# the two reproducers of issue 12 ------------------------------------------------------------------------------
def test_small_objective_is_not_certified_by_an_absolute_gap():
    """``SoftMarginSVM(S·1e3, T, C=1, bias=False)``: the objective is far below 1, so ``tol·max(1, |P|)`` was an
    absolute gap and ``fista`` said ``optimal`` hundreds of times above the optimum."""
    rng = np.random.default_rng(12)
    S, T = _instance(rng, n=20, d=3, separable=False)
    problem = mk.SoftMarginSVM(S * 1e3, T, C=1.0, bias=False)
    ref = problem.reference()
    for method in ("fista", "diagonal", "dual-cd"):
        res = _solve(problem, method, 1e-3, max_iter=20000)
        if res.status == "optimal":
            assert (res.value - ref.value) / ref.value <= 1e-3 + SLACK, method
            assert res.certificate["relative_gap"] <= 1e-3, method
    # the same problem at the unit scale of the objective: the same statement
    small = mk.SoftMarginSVM(S * 1e-3, T, C=1.0, bias=False)
    res = _solve(small, "fista", 1e-3, max_iter=20000)
    if res.status == "optimal":
        ref = small.reference()
        assert (res.value - ref.value) / ref.value <= 1e-3 + SLACK


def test_tiny_margin_separable_data_are_never_reported_infeasible():
    """A 4-point separable set with ``γ* = 0.0042``: at ``tol = 1e-2`` the certified bound reaches ``tol·R`` while
    the iterate does not yet separate; that proves nothing about separability (``infeasible_inaccurate``)."""
    g = 0.0042
    X = np.array([[1.0, g], [-1.0, g], [-0.5, -g], [0.5, -g]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    problem = mk.MaxMargin(X, y)
    ref = problem.reference()
    assert ref.status == "optimal" and ref.margin == pytest.approx(g, rel=1e-4)
    for c in (1.0, 1e-5, 1e5):
        scaled = mk.MaxMargin(c * X, y)
        for method in mk.methods(scaled):
            if method == "cvxpy":
                continue
            res = _solve(scaled, method, 1e-2, max_iter=2000)
            assert res.status != "infeasible", (method, c)
            if res.status == "optimal":
                assert res.margin >= (1 - 1e-2) * g * c * (1 - 1e-6), (method, c)


def test_non_separable_data_keep_a_rounding_level_hull_proof():
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [2.0, 0.5], [0.5, -2.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0, 1.0, -1.0])
    for c in (1e-6, 1.0, 1e6):
        res = mk.MaxMargin(c * X, y).solve("dual-accelerated", max_iter=5000, tol=1e-3)
        assert res.status in ("infeasible", "user_limit")
        if res.status == "infeasible":
            q = res.certificate["hull_weights"]
            assert np.all(q >= 0) and q.sum() == pytest.approx(1.0)
            R = c * np.linalg.norm(X, axis=1).max()
            assert np.linalg.norm((c * X).T @ (q * y)) <= 1e-12 * R * np.sqrt(len(y))


@pytest.mark.parametrize("method", ["diagonal", "diagonal-inertial"])
def test_diagonal_plans_give_the_same_status_and_relative_gap_for_c_times_x(method):
    """Default options (λ0 = R², γ = 1/||Q||): solving ``c·X`` runs through ``u_t/c²``, so status, relative gap,
    iteration count and ``margin/c`` are those of ``X`` for c in [1e-8, 1e8] (optimal and budget stops both)."""
    rng = np.random.default_rng(31)
    X, y = _instance(rng, n=14, d=3)
    for tol, max_iter in ((1e-4, 3000), (1e-9, 40)):
        base = _solve(mk.MaxMargin(X, y), method, tol, max_iter=max_iter)
        assert base.status == ("optimal" if tol == 1e-4 else "user_limit")
        for c in (1e-8, 1e-3, 7.3, 1e8):
            res = _solve(mk.MaxMargin(c * X, y), method, tol, max_iter=max_iter)
            assert res.status == base.status and res.iterations == base.iterations, (c, res.status)
            assert res.certificate["relative_gap"] == pytest.approx(base.certificate["relative_gap"], rel=1e-6,
                                                                    abs=1e-12)
            assert res.margin / c == pytest.approx(base.margin, rel=1e-9)
