"""Constants of the papers' bounds that ``constants()`` reports, checked against independent computations."""
import numpy as np
import pytest

import marginkit as mk


def test_condition_is_the_max_margin_of_the_normalised_rows_by_brute_force_in_2d():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((30, 2))
    y = np.where(X @ np.array([1.0, 0.4]) > 0, 1.0, -1.0)
    A = y[:, None] * X / np.linalg.norm(X, axis=1)[:, None]
    theta = np.linspace(0, 2 * np.pi, 400_001)
    step = theta[1] - theta[0]
    brute = float(np.max(np.min(A @ np.vstack([np.cos(theta), np.sin(theta)]), axis=0)))
    assert brute > 0
    # the grid value is a lower bound; min_i a_iᵀw(θ) is 1-Lipschitz in θ, so the maximum is within step/2 of it
    cond = mk.MaxMargin(X, y).constants()["condition"]
    assert brute - 1e-9 <= cond <= brute + step / 2 + 1e-9


def test_condition_does_not_change_when_rows_are_rescaled():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 5))
    y = np.sign(X[:, 0])
    s = rng.uniform(0.1, 10.0, size=40)
    c1 = mk.MaxMargin(X, y).constants()["condition"]
    c2 = mk.MaxMargin(X * s[:, None], y).constants()["condition"]
    assert c1 > 0 and abs(c1 - c2) <= 1e-7 * c1


def test_condition_is_zero_on_data_that_cannot_be_separated():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((20, 3))
    y = np.sign(X[:, 0])
    X = np.vstack([X, X[:1], -X[:1]])          # a point and its negation with the same label
    y = np.concatenate([y, [1.0, 1.0]])
    assert mk.MaxMargin(X, y).constants()["condition"] == 0.0


# Freund–Grigas–Mazumder's degree of non-separability ----------------------------------------------------------------
def _not_separable(seed, n=14, d=2, noise=0.9):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.sign(X[:, 0] + noise * rng.standard_normal(n))
    y[y == 0] = 1.0
    return X, y


def _brute_force_2d(X, y, grid=400_001):
    """min over a grid of unit directions of (1/n) Σ [y_i x_iᵀβ]⁻, and the Lipschitz slack of the grid (the
    function is (mean ||x_i||)-Lipschitz in the angle)."""
    Z = y[:, None] * X
    theta = np.linspace(0, 2 * np.pi, grid)
    vals = np.maximum(-(Z @ np.vstack([np.cos(theta), np.sin(theta)])), 0).mean(axis=0)
    return float(vals.min()), float(np.linalg.norm(Z, axis=1).mean() * (theta[1] - theta[0]) / 2)


def test_degree_of_nonseparability_matches_brute_force_in_2d():
    for seed in range(4):
        X, y = _not_separable(seed)
        c = mk.MaxMargin(X, y).constants()
        assert c["margin"] == 0.0 and c["degree_separability"] == 0.0
        info = c["degree_nonseparability_info"]
        assert info["exact"] and c["degree_nonseparability"] > 0
        brute, slack = _brute_force_2d(X, y)
        assert brute - slack - 1e-12 <= c["degree_nonseparability"] <= brute + 1e-12
        beta = info["witness"]                    # the witness attains the value
        assert np.linalg.norm(beta) == pytest.approx(1.0)
        assert np.maximum(-(y * (X @ beta)), 0).mean() == pytest.approx(c["degree_nonseparability"], rel=1e-12)


def test_degree_of_nonseparability_is_below_every_sampled_direction_in_3d():
    from marginkit.reference.margin import degree_nonseparability
    X, y = _not_separable(5, n=18, d=3)
    Z = y[:, None] * X
    exact = degree_nonseparability(Z)["value"]
    B = np.random.default_rng(0).standard_normal((3, 200_000))
    B /= np.linalg.norm(B, axis=0)
    sampled = np.maximum(-(Z @ B), 0).mean(axis=0).min()
    assert exact <= sampled + 1e-12 and sampled - exact < 2e-3
    capped = degree_nonseparability(Z, max_subsets=5)   # beyond the cap: a certified upper bound only
    assert capped["value"] is None and not capped["exact"] and capped["upper_bound"] >= exact - 1e-12


def test_degree_of_nonseparability_invariances():
    from marginkit.reference.margin import degree_nonseparability
    X, y = _not_separable(2, n=12, d=3)
    base = degree_nonseparability(y[:, None] * X)["value"]
    rng = np.random.default_rng(1)
    Q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    perm = rng.permutation(12)
    flip = np.where(rng.random(12) < 0.5, -1.0, 1.0)
    variants = {
        "scaled by 7 (the value scales)": (7.0 * X, y, 7.0),
        "rotated": (X @ Q, y, 1.0),
        "rows permuted": (X[perm], y[perm], 1.0),
        "(x_i, y_i) -> (-x_i, -y_i)": (flip[:, None] * X, flip * y, 1.0),
        "every row twice (an average)": (np.vstack([X, X]), np.concatenate([y, y]), 1.0),
    }
    for name, (Xv, yv, factor) in variants.items():
        val = degree_nonseparability(yv[:, None] * Xv)["value"]
        assert val == pytest.approx(factor * base, rel=1e-9), name


def test_degrees_on_separable_and_weakly_separable_data():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((20, 3))
    y = np.sign(X @ np.array([1.0, -0.5, 0.2]))
    c = mk.MaxMargin(X, y).constants()
    assert c["degree_nonseparability"] == 0.0 and c["degree_separability"] == c["margin"] > 0
    # rows that do not span R^d are weakly separable (a direction orthogonal to all of them), whatever the labels
    Xw = np.column_stack([rng.standard_normal(10), rng.standard_normal(10), np.zeros(10)])
    yw = np.where(rng.random(10) < 0.5, -1.0, 1.0)
    cw = mk.MaxMargin(Xw, yw).constants()
    assert cw["degree_nonseparability"] == pytest.approx(0.0, abs=1e-15)


def test_degrees_are_none_with_a_bias_or_a_kernel():
    X, y = _not_separable(0)
    for p in (mk.MaxMargin(X, y, bias=True), mk.MaxMargin(X, y, kernel="rbf", gamma=1.0)):
        c = p.constants()
        assert c["degree_nonseparability"] is None and c["degree_nonseparability_info"]["reason"]
