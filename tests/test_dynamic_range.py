"""Issue 25, item 1: no false ``infeasible`` at any dynamic range. Rows rescaled by positive factors leave separability
unchanged, so a proof of non-separability is judged relative to the rows it adds (``Σ q_i ||x_i||``), never to
``max ||x_i||``; the reference says ``infeasible`` only with an exact hull point, ``infeasible_inaccurate`` when it can
only bound the margin, and answers separable data at mixed scales through the nearest hull point."""
import numpy as np
import pytest

import marginkit as mk
from marginkit.core.hull import exact_proof, hull_point, min_norm_point, proves_non_separability


def _separable(n=60, d=8, seed=0, gap=0.1):
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    X = rng.standard_normal((n, d))
    y = np.where(X @ u >= 0, 1.0, -1.0)
    return X + np.outer(y * gap, u), y, u


def _mixed(X, seed, low=-8, high=8):
    return X * (10.0 ** np.random.default_rng(100 + seed).uniform(low, high, size=X.shape[0]))[:, None]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("bias", [False, True])
def test_reference_at_mixed_row_scales_is_never_infeasible(seed, bias):
    X, y, u = _separable(seed=seed)
    Xm = _mixed(X, seed)
    assert np.all(y * (Xm @ u) > 0)                       # separable by construction, whatever the row scales
    res = mk.MaxMargin(Xm, y, bias=bias).reference()
    # 16 decades of row norms in one set: the certificate's own float64 evaluation limits what it can prove
    assert res.status in ("optimal", "optimal_inaccurate"), (res.status, res.info.get("message"))
    assert np.all(y * res.decision_function(Xm) > 0)       # the answer separates the data it was given
    if res.status == "optimal":
        assert res.certificate["relative_gap"] <= 1e-6
    X4 = _mixed(X, seed, -3, 3)                            # six decades: certified
    res = mk.MaxMargin(X4, y, bias=bias).reference()
    assert res.status == "optimal" and res.certificate["relative_gap"] <= 1e-6, res.info.get("message")


def test_separable_set_with_margin_1e_9_R_is_solved_not_called_infeasible():
    rng = np.random.default_rng(1)
    u = rng.standard_normal(8)
    u /= np.linalg.norm(u)
    X = rng.standard_normal((60, 8))
    X -= np.outer(X @ u, u)                                # every point on the hyperplane u⊥ ...
    y = np.where(rng.random(60) < 0.5, 1.0, -1.0)
    R = np.linalg.norm(X, axis=1).max()
    X += np.outer(y * 1e-9 * R, u)                         # ... then pushed 1e-9·R to its side
    for bias in (False, True):
        res = mk.MaxMargin(X, y, bias=bias).reference()
        assert res.status == "optimal", (bias, res.status, res.info.get("message"))
        assert 0 < res.margin <= 1.0000001e-9 * R * (1 + 1e-6) or bias
        assert res.margin >= 0.99e-9 * R


@pytest.mark.parametrize("bias", [False, True])
def test_non_separable_data_at_mixed_scales_keep_their_exact_proof(bias):
    X, y, _ = _separable(seed=3, gap=0.0)
    y = y.copy()
    y[:12] *= -1                                           # overlapping classes
    Xm = _mixed(X, 3)
    res = mk.MaxMargin(Xm, y, bias=bias).reference()
    assert res.status == "infeasible"
    q = res.certificate["dual_point"]
    norms = np.linalg.norm(Xm, axis=1)
    assert np.all(q >= 0) and q.sum() == pytest.approx(1.0)
    assert proves_non_separability(float(np.linalg.norm(Xm.T @ (q * y))), float(q @ norms), len(y))


def test_the_proof_is_invariant_to_row_scaling_and_refuses_a_small_margin():
    X, y, _ = _separable(seed=0)
    for Xs in (X, _mixed(X, 0)):
        assert exact_proof(Xs, y, False) is None and exact_proof(Xs, y, True) is None
        q, dist, wnorm = hull_point(Xs, y, False)
        assert dist / wnorm > 1e-3                         # the angular margin, the same at every row scale
    # a single row below the others' scale by 1e12 used to make the hull distance "rounding" relative to R
    Xt = X.copy()
    Xt[0] *= 1e-12
    assert exact_proof(Xt, y, False) is None
    Xd = np.vstack([X, X[:1]])                             # a duplicated point with the opposite label: proof
    yd = np.append(y, -y[0])
    assert exact_proof(Xd, yd, False) is not None and exact_proof(Xd, yd, True) is not None


def test_min_norm_point_is_the_max_margin_dual():
    X, y, _ = _separable(seed=2)
    for Xs in (X, _mixed(X, 2, -4, 4)):
        q = min_norm_point(Xs, y, False)
        v = Xs.T @ (q * y)
        ref = mk.MaxMargin(Xs, y, bias=False).reference()
        assert np.linalg.norm(v) == pytest.approx(ref.margin, rel=1e-5)


@pytest.mark.parametrize("scale", [1e-8, 1e8])
@pytest.mark.parametrize("p", [1.5, 3.0])
def test_min_norm_lp_reference_at_extreme_objective_scales(scale, p):
    X, y, _ = _separable(seed=1)
    res = mk.MinNormFeasibility(X * scale, y, p=p).reference()
    assert res.status == "optimal", res.info.get("message")
    base = mk.MinNormFeasibility(X, y, p=p).reference()
    np.testing.assert_allclose(res.w * scale, base.w, rtol=1e-4, atol=1e-6 * np.abs(base.w).max())


def test_plans_at_mixed_row_scales_never_claim_infeasible():
    X, y, _ = _separable(seed=1)
    P = mk.MaxMargin(_mixed(X, 1), y, bias=False)
    for method in mk.methods(P):
        if method == "cvxpy":
            continue
        res = P.solve(method, max_iter=200)
        assert res.status != "infeasible", method


@pytest.mark.parametrize("scale", [1e-300, 1e-150, 1e150])
def test_gaussian_kernel_at_extreme_scales_is_not_called_infeasible(scale):
    """Distinct points are separable under the Gaussian kernel (strictly positive definite), however close to 1 the
    rounded Gram matrix is; at 1e150 the diagonal is exactly 1 (it was 0 for some rows: the expanded square of a
    distance of 0 rounded to ±1e285)."""
    X, y, _ = _separable(seed=1)
    P = mk.MaxMargin(X * scale, y, bias=False, kernel="rbf")
    assert np.all(np.diag(P.gram()) == 1.0)
    res = P.reference()
    assert res.status != "infeasible", res.info.get("message")
    Xd = np.vstack([X, X[:1]]) * scale                     # the one proof the Gaussian kernel has: a duplicate
    res = mk.MaxMargin(Xd, np.append(y, -y[0]), bias=False, kernel="rbf").reference()
    assert res.status == "infeasible"
