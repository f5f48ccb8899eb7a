"""The interior-point method ``ipm`` (marginkit/plans/ipm): certified agreement with the CVXPY reference on random
and real data (bias or not, sample weights, sparse X), the hard margin (separable, and non-separable proven),
badly conditioned raw features in a few dozen iterations, honest statuses, and the inputs it declines."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer

import marginkit as mk
from marginkit.core.result import STATUSES


def labelled(n, d, seed, flip=0.1, raw=False):
    """Gaussian data labelled by a random hyperplane, a fraction ``flip`` of the labels flipped; ``raw``: per-column
    scales drawn from a gamma distribution (shape 0.5: scales over several orders of magnitude)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.sign(X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n))
    y[rng.random(n) < flip] *= -1
    if raw:
        X = X * rng.gamma(0.5, 10.0, size=d)
    return X, y


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X, 2.0 * y - 1.0


def assert_matches_reference(p, res, value_tol=1e-8, w_tol=1e-5):
    ref = p.reference()
    assert res.status == "optimal"
    assert abs(res.value - ref.value) <= value_tol * abs(ref.value)
    # w* is in both gap-safe balls (core/safe.py); where the value leaves w loosely determined, so do they
    balls = np.sqrt(2 * res.certificate["duality_gap"]) + np.sqrt(2 * max(ref.certificate["duality_gap"], 0.0))
    assert np.linalg.norm(res.w - ref.w) <= max(w_tol * max(1.0, np.linalg.norm(ref.w)), balls)
    if np.linalg.norm(res.w - ref.w) <= w_tol * max(1.0, np.linalg.norm(ref.w)):
        assert abs(res.b - ref.b) <= 10 * w_tol * max(1.0, abs(ref.b))
    cert = res.certificate
    # the certificate brackets the optimum: D <= P* <= P (the reference's own rounding allowed)
    assert cert["dual"] <= ref.value * (1 + 1e-9) and cert["primal"] >= ref.value * (1 - 1e-9)


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("scaling", ["raw", "standardised"])
def test_agrees_with_the_reference_on_breast_cancer(cancer, bias, scaling):
    X, y = cancer
    if scaling == "standardised":
        X = (X - X.mean(0)) / X.std(0)
    p = mk.SoftMarginSVM(X, y, C=1.0, bias=bias)
    res = p.solve("ipm", tol=1e-10)
    assert_matches_reference(p, res)
    assert res.iterations < 40


@pytest.mark.parametrize("bias", [True, False])
def test_sample_weights_scale_each_samples_box_zeros_included(cancer, bias):
    X, y = cancer
    X = (X - X.mean(0)) / X.std(0)
    sw = np.random.default_rng(1).uniform(0.0, 3.0, y.shape[0])
    sw[:25] = 0.0   # these samples carry no term: the iteration leaves them out, their multipliers are 0
    p = mk.SoftMarginSVM(X, y, C=0.5, bias=bias, sample_weight=sw)
    res = p.solve("ipm", tol=1e-10)
    assert_matches_reference(p, res)
    assert np.all(res.dual["a"][:25] == 0.0) and np.all(res.dual["a"] <= 0.5 * sw + 1e-15)


@pytest.mark.parametrize("bias", [True, False])
def test_sparse_X_stays_sparse_and_gives_the_dense_answer(bias):
    X = sp.random(300, 40, density=0.1, random_state=0, format="csr")
    y = np.sign(np.random.default_rng(2).standard_normal(300))
    p = mk.SoftMarginSVM(X, y, C=10.0, bias=bias)
    res = p.solve("ipm", tol=1e-10)
    assert_matches_reference(p, res)
    dense = mk.SoftMarginSVM(X.toarray(), y, C=10.0, bias=bias).solve("ipm", tol=1e-10)
    assert dense.iterations == res.iterations
    np.testing.assert_allclose(dense.w, res.w, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("bias", [True, False])
def test_agrees_with_the_reference_on_random_instances(seed, bias):
    X, y = labelled(150 + 50 * seed, 8 + 4 * seed, seed)
    p = mk.SoftMarginSVM(X, y, C=[0.1, 1.0, 100.0][seed], bias=bias)
    assert_matches_reference(p, p.solve("ipm", tol=1e-10))


@pytest.mark.parametrize("bias", [True, False])
def test_raw_features_with_gamma_column_scales_take_a_few_dozen_iterations(bias):
    """Where coordinate ascent crawls (C·max||x_i||² in the thousands), the interior-point method does not care."""
    X, y = labelled(2000, 40, 3, raw=True)
    assert np.max((X ** 2).sum(1)) > 1e3
    p = mk.SoftMarginSVM(X, y, C=1.0, bias=bias)
    res = p.solve("ipm", tol=1e-6)
    assert res.status == "optimal" and res.iterations < 60
    assert res.certificate["relative_gap"] <= 1e-6
    ref = p.reference()
    assert (res.value - ref.value) / ref.value <= 1e-6 * (1 + 1e-6)


@pytest.mark.parametrize("tol", [1e-1, 1e-3, 1e-5])
def test_optimal_is_never_claimed_above_tol_and_the_gap_safe_ball_holds(cancer, tol):
    X, y = cancer
    p = mk.SoftMarginSVM(X, y, C=1.0, bias=True)
    ref = p.reference()
    res = p.solve("ipm", tol=tol)
    cert = res.certificate
    assert res.status == "optimal" and cert["relative_gap"] <= tol
    assert (res.value - ref.value) / ref.value <= tol
    assert cert["dual"] <= ref.value * (1 + 1e-9)
    assert np.linalg.norm(res.w - ref.w) <= np.sqrt(2 * cert["duality_gap"]) + 1e-6 * np.linalg.norm(ref.w)
    # the run stops at the first iterate whose certificate proves tol: one iteration less does not
    if res.iterations > 0:
        fewer = p.solve("ipm", tol=tol, max_iter=res.iterations - 1)
        assert fewer.status == "user_limit" and fewer.certificate["relative_gap"] > tol


def test_the_iterations_and_gaps_do_not_depend_on_the_scale_of_the_data():
    X, y = labelled(300, 10, 4, raw=True)
    runs = [mk.SoftMarginSVM(c * X, y, C=1.0 / c ** 2).solve("ipm", tol=1e-8) for c in (1e-4, 1.0, 1e4)]
    assert len({r.iterations for r in runs}) == 1 and all(r.status == "optimal" for r in runs)
    gaps = [r.certificate["relative_gap"] for r in runs]
    np.testing.assert_allclose(gaps, gaps[1], rtol=1e-3)


def test_tol_zero_ends_honestly_at_the_limit_of_double_precision(cancer):
    X, y = cancer
    res = mk.SoftMarginSVM(X, y, C=1.0).solve("ipm", tol=0.0, max_iter=100)   # tol=0: the whole budget
    assert res.status == "user_limit" and res.iterations == 100 and "complementarity" in res.info["stalled"]
    assert res.certificate["relative_gap"] < 1e-11 and np.all(np.isfinite(res.w))


def separable(n, d, seed, offset=0.0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    y = np.sign(X @ u + offset)
    return X + 0.2 * y[:, None] * u, y


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("scales", [None, [1e-3, 1.0, 10.0, 100.0, 1e4]])
def test_hard_margin_matches_the_reference(bias, scales):
    X, y = separable(200, 5, 0, offset=0.0)
    if scales is not None:
        X = X * np.asarray(scales)
    p = mk.MaxMargin(X, y, bias=bias)
    res = p.solve("ipm", tol=1e-9)
    ref = p.reference()
    assert res.status == "optimal" and ref.status == "optimal"
    assert 0 <= (ref.margin - res.margin) / ref.margin <= 1e-7
    assert abs(res.value - ref.value) <= 1e-6 * ref.value
    assert res.certificate["margin_lower"] <= ref.margin * (1 + 1e-9) <= res.certificate["margin_upper"] * (1 + 1e-8)


@pytest.mark.parametrize("bias", [True, False])
def test_hard_margin_on_non_separable_data_is_infeasible_with_the_hull_proof(bias):
    X, y = separable(200, 5, 1)
    y[:10] *= -1
    p = mk.MaxMargin(X, y, bias=bias)
    res = p.solve("ipm")
    assert res.status == "infeasible"
    q = res.certificate["hull_weights"]
    assert np.all(q >= 0) and abs(q.sum() - 1) < 1e-12
    assert np.linalg.norm(X.T @ (q * y)) <= 1e-9 * np.abs(X).max()
    assert p.reference().status == "infeasible"


def test_data_separable_only_with_an_offset():
    """Points on a positive half-line split at 2.5 (a second, zero column makes XᵀDX singular): the offset separates
    them, no hyperplane through the origin does (the hull proof: q = (0.8, 0.2) on x = 1 and x = 4 cancels)."""
    x = np.concatenate([np.linspace(1.0, 2.0, 20), np.linspace(3.0, 4.0, 20)])
    X, y = np.column_stack([x, np.zeros_like(x)]), np.where(x > 2.5, 1.0, -1.0)
    res = mk.MaxMargin(X, y, bias=True).solve("ipm", tol=1e-8)
    assert res.status == "optimal" and abs(res.margin - 0.5) <= 1e-7
    assert mk.MaxMargin(X, y, bias=False).solve("ipm").status == "infeasible"


def test_too_many_columns_is_declined_at_compile_naming_the_alternatives():
    X, y = labelled(60, 12, 5)
    with pytest.raises(mk.ProblemError, match="dual-cd.*fista"):
        mk.SoftMarginSVM(X, y).compile("ipm", max_columns=12)   # d + 1 = 13 with the bias
    mk.SoftMarginSVM(X, y, bias=False).compile("ipm", max_columns=12)
    with pytest.raises(mk.ProblemError, match="max_columns"):
        mk.SoftMarginSVM(X, y).compile("ipm", max_columns=0)


def test_kernels_and_other_array_libraries_are_refused_with_a_problem_error():
    X, y = labelled(40, 3, 6)
    assert "ipm" not in mk.methods(mk.SoftMarginSVM(X, y, kernel="rbf"))
    with pytest.raises(mk.ProblemError):
        mk.SoftMarginSVM(X, y, kernel="rbf").solve("ipm")
    da = pytest.importorskip("dask.array")
    with pytest.raises(mk.ProblemError, match="ipm"):   # dask data run (tests/test_ipm_backends.py); a wide X not
        mk.SoftMarginSVM(da.from_array(X, chunks=(20, 3)), y).solve("ipm", max_columns=2)


@pytest.mark.parametrize("case", ["duplicates", "opposite duplicates", "zero column and row", "rank one"])
@pytest.mark.parametrize("bias", [True, False])
def test_singular_and_duplicate_data_stay_honest(case, bias):
    X, y = labelled(80, 6, 7)
    if case == "duplicates":
        X, y = np.vstack([X, X]), np.concatenate([y, y])
    elif case == "opposite duplicates":
        X, y = np.vstack([X, X]), np.concatenate([y, -y])
    elif case == "zero column and row":
        X[:, 2] = 0.0
        X[5] = 0.0
    else:
        X = np.outer(np.random.default_rng(8).standard_normal(80), np.ones(6))
    p = mk.SoftMarginSVM(X, y, C=10.0, bias=bias)
    res = p.solve("ipm", tol=1e-8)
    assert res.status in STATUSES and res.status != "solver_error" and np.all(np.isfinite(res.w))
    if res.status == "optimal":
        ref = p.reference()
        assert (res.value - ref.value) / ref.value <= 1e-8 * (1 + 1e-6)


def test_a_warm_start_is_checked_and_the_run_starts_from_its_own_central_point(cancer):
    X, y = cancer
    p = mk.SoftMarginSVM(X, y)
    cold = p.solve("ipm")
    warm = p.solve("ipm", warm_start=cold)
    assert warm.iterations == cold.iterations and np.array_equal(warm.w, cold.w)
    with pytest.raises(mk.ProblemError, match="warm_start"):
        p.solve("ipm", warm_start=np.ones(3))
