"""Claims of ``dual-cd``'s restricted interior-point polish (option ``polish``, marginkit/plans/svm_cd/polish.py)."""
import numpy as np
import pytest
import scipy.sparse as sp

import marginkit as mk
from marginkit import ProblemError
from marginkit.plans.svm_cd import polish as polish_module
from marginkit.plans.svm_cd import svm_coordinate

numba_only = pytest.mark.skipif(not svm_coordinate.numba_available(), reason="numba is not installed")


def _raw(n=3000, d=15, seed=3, flip=0.05):
    """Gaussian features times gamma(0.5, 10) column scales (``C·max||x_i||²`` in the thousands), 5 % flipped."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n) >= 0, 1.0, -1.0)
    y[rng.random(n) < flip] *= -1
    return X * rng.gamma(0.5, 10.0, size=d), y


def _with_reference(bias: bool, seed: int):
    """``(problem, its CVXPY reference)`` on :func:`_raw` data; with the offset, moved off the origin."""
    X, y = _raw(seed=seed)
    if bias:
        X = X + 3.0 * np.abs(X).mean(axis=0)   # off the origin: the offset matters
    problem = mk.SoftMarginSVM(X, y, C=1.0, bias=bias)
    return problem, problem.reference()


@pytest.fixture(scope="module")
def raw():
    return _with_reference(False, 3)


@numba_only
def test_polish_certifies_badly_conditioned_data_with_a_hundred_times_fewer_epochs(raw):
    problem, ref = raw
    res = problem.solve("dual-cd", tol=1e-8, seed=0, max_iter=10 ** 6)
    assert res.status == "optimal" and res.info["polished"] >= 1
    assert abs(res.value - ref.value) <= 1e-6 * abs(ref.value)
    plain = problem.solve("dual-cd", tol=1e-4, seed=0, polish=False, max_iter=10 ** 6)
    assert plain.status == "optimal" and plain.info["polished"] == 0
    # the epochs alone need more than 40,000 epochs for 1e-4 (2 million for 1e-8); with the polish about 5,000
    assert 5 * res.info["epochs"] < plain.info["epochs"]


@numba_only
def test_polish_with_screening_matches_the_reference_kkt(raw):
    problem, ref = raw
    res = problem.solve("dual-cd", tol=1e-8, seed=1, screening=True, max_iter=10 ** 6)
    assert res.status == "optimal" and res.info["polished"] >= 1
    a, box = res.dual["a"], problem.box
    assert np.all(a >= 0) and np.all(a <= box)
    screened = res.certificate["screened"]
    assert screened["removed"] > 0 and screened["fixed"] > 0
    margins = problem.y * (problem.X @ ref.w)
    far, short = margins > 1 + 1e-3, margins < 1 - 1e-3   # the reference's non-support vectors and margin violators
    assert np.all(a[far] <= 1e-5 * box[far]) and np.all(a[short] >= box[short] * (1 - 1e-5))


@numba_only
@pytest.mark.parametrize("weighted", [False, True])
def test_polish_on_sparse_counts_and_sample_weights_matches_cvxpy(weighted):
    rng = np.random.default_rng(7)
    X, y = _raw(n=1500, d=12, seed=7)
    X = sp.csr_matrix(np.where(rng.random(X.shape) < 0.4, np.abs(X), 0.0))
    sw = rng.uniform(0.2, 3.0, X.shape[0]) if weighted else None
    problem = mk.SoftMarginSVM(X, y, C=1.0, bias=False, sample_weight=sw)
    ref = problem.reference()
    res = problem.solve("dual-cd", tol=1e-8, seed=0, max_iter=10 ** 6)
    assert res.status == "optimal"
    assert abs(res.value - ref.value) <= 1e-6 * abs(ref.value)
    assert sp.issparse(problem.X)


def test_small_problems_never_polish_and_keep_the_iterates_of_polish_false():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 5))
    y = np.where(X @ rng.standard_normal(5) >= 0, 1.0, -1.0)
    problem = mk.SoftMarginSVM(X / np.linalg.norm(X, axis=1).max(), y, C=1.0, bias=False)
    on = problem.solve("dual-cd", tol=1e-8, seed=4)
    off = problem.solve("dual-cd", tol=1e-8, seed=4, polish=False)
    assert on.info["polished"] == 0 and on.status == off.status == "optimal"
    np.testing.assert_array_equal(on.w, off.w)
    assert on.info["epochs"] == off.info["epochs"]


@numba_only
def test_a_failed_or_worse_restricted_solve_leaves_the_iterate_and_the_run_still_certifies(raw, monkeypatch):
    problem, ref = raw
    calls = []

    def failing(self, rows, tol):
        calls.append(rows.shape[0])
        return None if len(calls) % 2 else np.zeros(rows.shape[0])   # no answer, then a point with D = 0
    monkeypatch.setattr(polish_module.RestrictedPolish, "restricted_solve", failing)
    res = problem.solve("dual-cd", tol=1e-4, seed=0, max_iter=10 ** 6)
    assert calls, "the polish was never tried"
    assert res.info["polished"] == 0
    assert res.status == "optimal" and res.certificate["relative_gap"] <= 1e-4
    assert res.certificate["dual"] <= ref.value * (1 + 1e-9) <= res.certificate["primal"] * (1 + 2e-9)


@pytest.mark.parametrize("bias", [False, True])
def test_the_restricted_problem_with_one_class_is_declined_not_raised(raw, bias):
    problem, _ = raw
    pol = polish_module.RestrictedPolish.__new__(polish_module.RestrictedPolish)
    pol.X, pol.y, pol.box, pol.n, pol.d = problem.X, np.asarray(problem.y), np.asarray(problem.box), *problem.X.shape
    pol.bias = bias
    assert pol.restricted_solve(np.flatnonzero(pol.y > 0)[:20], 1e-6) is None
    both = np.concatenate([np.flatnonzero(pol.y > 0)[:20], np.flatnonzero(pol.y < 0)[:20]])
    a, b = pol.restricted_solve(both, 1e-6)
    assert a.shape == (40,) and np.all((a >= 0) & (a <= pol.box[both])) and (b == 0.0) != bias


@pytest.fixture(scope="module")
def raw_bias():
    return _with_reference(True, 5)


@numba_only
def test_dual_cd_bias_polish_certifies_raw_data_and_matches_the_reference(raw_bias):
    problem, ref = raw_bias
    res = problem.solve("dual-cd-bias", tol=1e-8, seed=0, max_iter=10 ** 6)
    assert res.status == "optimal" and res.info["polished"] >= 1
    assert abs(res.value - ref.value) <= 1e-6 * abs(ref.value)
    assert abs(res.b - ref.b) <= 1e-3 * (1 + abs(ref.b))
    assert res.certificate["max_violation"] <= 1e-8 * problem.box.sum()
    plain = problem.solve("dual-cd-bias", tol=1e-4, seed=0, polish=False, max_iter=200)
    assert plain.info["polished"] == 0 and plain.info["epochs"] > 5 * res.info["epochs"]


@numba_only
def test_dual_cd_bias_keeps_its_iterate_when_the_restricted_solve_fails(raw_bias, monkeypatch):
    problem, ref = raw_bias
    tried = []

    def failing(self, rows, tol):
        tried.append(rows.shape[0])
    monkeypatch.setattr(polish_module.RestrictedPolish, "restricted_solve", failing)
    res = problem.solve("dual-cd-bias", tol=1e-3, seed=0, max_iter=10 ** 6)
    assert tried and res.info["polished"] == 0
    assert res.status == "optimal" and res.certificate["dual"] <= ref.value * (1 + 1e-9)


def test_polish_option_is_validated_and_wide_data_are_never_polished():
    X, y = _raw(n=60, d=4)
    with pytest.raises(ProblemError, match="polish"):
        mk.SoftMarginSVM(X, y, bias=False).solve("dual-cd", polish="yes")
    wide = sp.random(50, polish_module.MAX_COLUMNS + 1, density=0.01, random_state=0, format="csr")
    yw = np.where(np.arange(50) % 2, 1.0, -1.0)
    res = mk.SoftMarginSVM(wide, yw, C=1.0, bias=False).solve("dual-cd", tol=1e-4)
    assert res.info["polished"] == 0
