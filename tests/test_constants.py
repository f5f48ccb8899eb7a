"""Constants of the papers' bounds that ``constants()`` reports, checked against independent computations."""
import numpy as np

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
