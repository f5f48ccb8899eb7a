"""The plan contract suite (scikit-learn's ``parametrize_with_checks`` idea): one parametrized test per obligation,
run over EVERY first-order method marginkit lists: the registry's, and those added by ``register_method`` or an
installed plugin. A new family is tested by adding its cards to the registry.

What every plan owes: a frozen configuration whose declared constraints (defaults included) reject bad values with
``ProblemError``; unknown options rejected; hooks that each return what the protocol says (called one by one); a plan
nothing writes to (the run loop included); ``iterate()`` and ``run()`` going through the same iterates for a seed; a
warm start accepted; no NaN over the plan's default budget, on the instance and on every variant its card admits
(sparse, array API, dask, offset, kernel, weights); ``time_limit`` kept; ``optimal`` only with a certificate that
holds against the CVXPY reference, and never better than it; the user's arrays untouched; the same run whatever the
trace records; a resumed run equal to the uninterrupted one. The checks themselves are :mod:`marginkit.testing`
(``check_plan`` holds someone else's plan to the same obligations); each test here runs one of them on one card.
"""

import numpy as np
import pytest

import marginkit as mk
from marginkit import datasets as ds
from marginkit.engine.plugins import all_cards
from marginkit.testing import OBLIGATIONS, check_obligation

CARDS = [c for c in all_cards() if not c.is_reference]
IDS = [f"{c.form}:{c.name}" for c in CARDS]


def _wants(card, check):
    return any(name == check for name, _ in card.requires)


def _margin_data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 6))
    X /= np.linalg.norm(X, axis=1).max()
    w = rng.standard_normal(6)
    y = np.sign(X @ w)
    X = X + 0.15 * y[:, None] * w / np.linalg.norm(w)   # a clear margin: easy for every method
    return X, y


def make_instance(card):
    """An easy instance of the card's form that meets its requirements, and the user's arrays (to check later)."""
    X, y = _margin_data()
    if card.form == "MaxMargin":
        return mk.MaxMargin(X, y), (X, y)
    if card.form == "MinNormFeasibility":
        return mk.MinNormFeasibility(X, y, p=1.5), (X, y)
    if card.form == "SoftMarginSVM":
        return mk.SoftMarginSVM(X, y, C=1.0, bias=not _wants(card, "no_bias")), (X, y)
    if card.form == "PerturbedSVMDual":
        return mk.PerturbedSVMDual(X, y), (X, y)
    if card.form == "EllipsoidSeparation":
        arrays = ds.ellipses_2d(1.0, seed=0)
        return mk.EllipsoidSeparation(*arrays), tuple(arrays)
    if card.form == "ProjectionOntoIntersection":
        point = np.array([2.0, -1.0, 0.5])
        sets = [mk.HalfSpace([1.0, 1.0, 0.0], 0.5), mk.Ball(np.zeros(3), 1.5), mk.Box(-np.ones(3), np.ones(3))]
        return mk.ProjectionOntoIntersection(point, sets), (point,)
    raise AssertionError(f"no test instance for the form {card.form}: add one here")


@pytest.fixture(scope="module")
def instances():
    cache = {}

    def get(card):
        key = (card.form, card.requires)
        if key not in cache:
            problem, arrays = make_instance(card)
            cache[key] = (problem, arrays, [np.array(a, copy=True) for a in arrays])
        return cache[key]
    return get


def test_every_form_of_the_registry_has_a_test_instance():
    for card in CARDS:
        problem, _ = make_instance(card)
        assert problem.form == card.form or card.name in mk.methods(problem)


def check(obligation: str, card, instances):
    """Run one obligation of :mod:`marginkit.testing` on the card's plan class, as it compiles on the card's test
    instance; a broken obligation fails with ``PlanContractError`` (which, what, why)."""
    problem, arrays, copies = instances(card)
    plan_class = type(problem.compile(card.name))
    check_obligation(obligation, plan_class, problem, card.name, arrays=list(arrays))
    return problem, arrays, copies


@pytest.mark.parametrize("obligation", list(OBLIGATIONS))
@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_every_plan_keeps_every_obligation_of_the_contract(card, obligation, instances):
    """Each obligation of :data:`marginkit.testing.OBLIGATIONS` (what it promises: its ``title``) on each card's plan
    class; a new obligation is checked here on every card without a line of its own. The user's arrays are also
    compared with the copies taken before any test of the module ran."""
    _, arrays, copies = check(obligation, card, instances)
    if obligation == "finite-and-untouched":
        for a, c in zip(arrays, copies):
            np.testing.assert_array_equal(a, c)
