"""Construction-time validation: every bad input is a ProblemError naming the argument; inputs are never
modified; problems are immutable."""
import numpy as np
import pytest
import scipy.sparse as sp

import marginkit as mk
from marginkit import ProblemError

X = np.arange(12, dtype=float).reshape(6, 2) - 5.0
Y = np.array([1, -1, 1, -1, 1, -1])


@pytest.mark.parametrize("cls", [mk.MaxMargin, mk.SoftMarginSVM, mk.PerturbedSVMDual, mk.MinNormFeasibility])
@pytest.mark.parametrize("bad_X, word", [
    (np.full((6, 2), np.nan), "NaN"),
    (np.ones(6), "2-D"),
    (np.ones((0, 2)), "empty"),
    (np.array([[np.inf, 1.0]] * 6), "NaN or inf"),
])
def test_bad_X_is_a_problem_error_naming_X(cls, bad_X, word):
    y = Y[: max(len(bad_X), 1)] if bad_X.ndim == 2 and len(bad_X) else Y
    with pytest.raises(ProblemError, match=r"\bX\b") as err:
        cls(bad_X, y)
    assert word in str(err.value)


@pytest.mark.parametrize("cls", [mk.MaxMargin, mk.SoftMarginSVM, mk.PerturbedSVMDual, mk.MinNormFeasibility])
@pytest.mark.parametrize("bad_y, word", [
    (np.ones(6), "single class"),
    (np.array([0, 1, 2, 0, 1, 2]), "3 classes"),
    (np.ones(5), "6 rows"),
    (np.array([1.0, np.nan, 1, -1, 1, -1]), "NaN"),
])
def test_bad_y_is_a_problem_error_naming_y(cls, bad_y, word):
    with pytest.raises(ProblemError, match=r"\by\b") as err:
        cls(X, bad_y)
    assert word in str(err.value)


def test_problem_error_is_a_value_error():
    assert issubclass(ProblemError, ValueError)


@pytest.mark.parametrize("kwargs, name", [({"C": 0.0}, "C"), ({"C": -1.0}, "C"), ({"C": np.nan}, "C"),
                                          ({"bias": "yes"}, "bias"), ({"kernel": "poly"}, "kernel"),
                                          ({"kernel": "rbf", "gamma": -1.0}, "gamma")])
def test_invalid_svm_parameters_name_the_argument(kwargs, name):
    with pytest.raises(ProblemError, match=name):
        mk.SoftMarginSVM(X, Y, **kwargs)


@pytest.mark.parametrize("p", [1.0, 0.5, -2.0])
def test_p_at_most_one_is_rejected(p):
    with pytest.raises(ProblemError, match=r"\bp\b"):
        mk.MinNormFeasibility(X, Y, p=p)


def test_w0_of_wrong_size_is_rejected():
    with pytest.raises(ProblemError, match="w0"):
        mk.MinNormFeasibility(X, Y, w0=np.ones(3))


def test_perturbed_dual_parameters_validated():
    with pytest.raises(ProblemError, match="mu"):
        mk.PerturbedSVMDual(X, Y, mu=0.0)
    P = mk.PerturbedSVMDual(X, Y)
    assert P.gamma == pytest.approx(64 / 6) and P.mu == pytest.approx(6 / 128)


def test_non_psd_user_kernel_is_rejected():
    with pytest.raises(ProblemError, match="positive semidefinite"):
        mk.MaxMargin(X, Y, kernel=lambda A, B: -A @ B.T - 1.0)


def test_labels_of_any_two_values_map_sorted_first_to_minus_one():
    P = mk.MaxMargin(X, np.array(["b", "a", "b", "a", "b", "a"]))
    assert list(P.y) == [1, -1, 1, -1, 1, -1]
    assert list(P.classes_) == ["a", "b"]
    P2 = mk.MaxMargin(X, np.array([3, 7, 3, 7, 3, 7]))
    assert list(P2.y) == [-1, 1, -1, 1, -1, 1]


def test_inputs_are_never_modified_and_problem_is_a_copy():
    Xc, yc = X.copy(), Y.copy()
    P = mk.MaxMargin(Xc, yc)
    P.solve("dual-accelerated", max_iter=5)
    assert np.array_equal(Xc, X) and np.array_equal(yc, Y)
    Xc[0, 0] = 1e6  # the problem holds its own read-only copy
    assert P.X[0, 0] == X[0, 0]
    with pytest.raises(ValueError):
        P.X[0, 0] = 0.0


def test_problems_are_immutable():
    P = mk.SoftMarginSVM(X, Y)
    with pytest.raises(AttributeError, match="immutable"):
        P.C = 5.0


def test_sparse_X_stays_sparse():
    P = mk.MaxMargin(sp.csr_matrix(X), Y)
    assert sp.issparse(P.X)


@pytest.mark.parametrize("kwargs, arg", [
    ({"shapes_c": np.ones((2, 3, 2))}, "shapes_c"),
    ({"centers_d": np.ones((2, 4))}, "centers_d"),
    ({"centers_c": np.full((2, 3), np.nan)}, "centers_c"),
    ({"centers_c": np.ones((0, 3)), "shapes_c": np.ones((0, 3))}, "centers_c"),
])
def test_ellipsoid_bad_input_names_the_argument(kwargs, arg):
    base = dict(centers_c=np.zeros((2, 3)), shapes_c=np.ones((2, 3)), centers_d=np.ones((2, 3)),
                shapes_d=np.ones((2, 3)))
    base.update(kwargs)
    with pytest.raises(ProblemError, match=arg):
        mk.EllipsoidSeparation(**base)
