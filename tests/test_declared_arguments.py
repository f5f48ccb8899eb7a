"""cross_validate and MarginClassifier check their arguments with declared constraints, in the one message format of
a plan's Config: "<owner>: <name> must be <what>; got <value>"."""
import numpy as np
import pytest

import marginkit as mk
from marginkit.api.crossval import CROSS_VALIDATE_CONSTRAINTS


@pytest.fixture(scope="module")
def problem():
    X = np.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0], [-2.0, -1.0]])
    return mk.MaxMargin(X, np.array([1, 1, -1, -1]))


@pytest.mark.parametrize("name, value", [("methods", 3), ("methods", ["gd", 1]), ("progress", "yes"),
                                         ("method_options", [1]), ("blas_threads", 0), ("bounds", "no")])
def test_cross_validate_rejects_a_bad_argument_naming_it_in_the_declared_format(problem, name, value):
    assert name in CROSS_VALIDATE_CONSTRAINTS
    with pytest.raises(mk.ProblemError, match=rf"^cross_validate: {name} must be .*; got "):
        mk.cross_validate(problem, **{name: value})


@pytest.mark.parametrize("name, value", [("problem", "hard"), ("bias", 1), ("method", 3), ("warm_start", "no"),
                                         ("verbose", -1), ("class_weight", "even")])
def test_the_estimator_rejects_a_bad_parameter_at_fit_naming_it_in_the_declared_format(name, value):
    X = np.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0], [-2.0, -1.0]])
    clf = mk.MarginClassifier(**{name: value})
    with pytest.raises(ValueError, match=rf"^MarginClassifier: {name} must be .*; got "):
        clf.fit(X, np.array([1, 1, -1, -1]))
