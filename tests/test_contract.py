"""The plan contract suite (scikit-learn's ``parametrize_with_checks`` idea): one parametrized test per obligation,
run over EVERY first-order method in the registry. A new family is tested by adding its cards to the registry.

What every plan owes: a frozen configuration whose declared constraints reject bad values with ``ProblemError``;
unknown options rejected; a plan nothing writes to (the run loop included); ``iterate()`` and ``run()`` going
through the same iterates for a seed; a warm start accepted; no NaN on an easy instance; ``optimal`` only with a
certificate that holds against the CVXPY reference; the user's arrays untouched.
"""
import dataclasses

import numpy as np
import pytest

import marginkit as mk
from marginkit import datasets as ds
from marginkit.core.params import config_fields
from marginkit.core.result import STATUSES
from marginkit.engine.registry import METHODS

CARDS = [c for c in METHODS if not c.is_reference]
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


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_the_configuration_is_a_frozen_dataclass(card, instances):
    problem = instances(card)[0]
    plan = problem.compile(card.name)
    assert dataclasses.is_dataclass(plan.config) and plan.config.__dataclass_params__.frozen
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(plan.config, "x", 1)
    for name in config_fields(type(plan.config)):
        if not callable(getattr(type(plan), name, None)):           # a hook such as ``step`` keeps its name
            assert getattr(plan, name) is getattr(plan.config, name)   # config fields read as attributes


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_the_plan_is_frozen_after_compile(card, instances):
    plan = instances(card)[0].compile(card.name)
    with pytest.raises(AttributeError, match="frozen"):
        plan.tol = 0.5
    with pytest.raises(AttributeError, match="frozen"):
        plan.form = None


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_declared_constraints_reject_bad_values_with_a_problem_error_naming_the_option(card, instances):
    problem = instances(card)[0]
    config_cls = type(problem.compile(card.name).config)
    constraints = getattr(config_cls, "constraints", {})
    assert set(constraints) <= set(config_fields(config_cls)), "a constraint names no field"
    for name in constraints:
        with pytest.raises(mk.ProblemError, match=name):
            problem.compile(card.name, **{name: object()})


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_every_parameter_declares_its_constraints(card, instances):
    config_cls = type(instances(card)[0].compile(card.name).config)
    assert set(config_fields(config_cls)) == set(getattr(config_cls, "constraints", {}))


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_an_unknown_option_is_a_problem_error_listing_the_valid_ones(card, instances):
    with pytest.raises(mk.ProblemError, match="unknown option"):
        instances(card)[0].compile(card.name, no_such_option=1)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_the_run_loop_never_writes_to_the_plan(card, instances):
    plan = instances(card)[0].compile(card.name)
    before = {k: id(v) for k, v in vars(plan).items()}
    plan.run(max_iter=5, tol=0.0, seed=1)
    list(plan.iterate(3, seed=1))
    assert {k: id(v) for k, v in vars(plan).items()} == before


def _as_array(x):
    return None if x is None else np.asarray(x, float)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_iterate_and_run_go_through_the_same_iterates_for_a_seed(card, instances):
    plan = instances(card)[0].compile(card.name)
    k = 4
    states = list(plan.iterate(k, seed=7))
    sol = plan.run_solution(max_iter=k, tol=0.0, seed=7, trace=1, keep_iterates=True)
    assert sol.iterations == k or sol.status != "user_limit"
    snaps = [_as_array(plan.snapshot(s)) for s in states[:sol.iterations + 1]]
    recorded = [_as_array(v) for v in sol.trace.iterates]
    assert len(recorded) == len(snaps)
    for a, b in zip(snaps, recorded):
        if a is None:
            assert b is None
        else:
            np.testing.assert_array_equal(a, b)
    last = plan.solution(states[sol.iterations], sol.status)
    if last.w is None:
        assert sol.w is None
    else:
        np.testing.assert_array_equal(np.asarray(last.w), np.asarray(sol.w))


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_a_warm_start_from_a_result_is_accepted(card, instances):
    problem = instances(card)[0]
    first = problem.solve(card.name, max_iter=20, seed=0)
    again = problem.solve(card.name, max_iter=20, seed=0, warm_start=first)
    assert again.status in STATUSES


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_no_nan_on_an_easy_instance_and_the_users_arrays_are_untouched(card, instances):
    problem, arrays, copies = instances(card)
    res = problem.solve(card.name, max_iter=200, seed=0)
    assert res.status in STATUSES and res.status != "solver_error"
    for v in (res.w, res.dual_coef):
        if v is not None:
            assert np.all(np.isfinite(v))
    assert np.isfinite(res.value) or res.status == "user_limit"
    for a, c in zip(arrays, copies):
        np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_optimal_only_with_a_certificate_that_the_reference_confirms(card, instances):
    problem = instances(card)[0]
    tol = 1e-3
    res = problem.solve(card.name, max_iter=3000, tol=tol, seed=0)
    if res.status != "optimal":
        return
    assert res.certificate, "an optimal status needs a certificate"
    ref = problem.reference()
    if problem.form == "MaxMargin":      # the certified relative margin gap
        assert (ref.margin - res.margin) <= tol * ref.margin * (1 + 1e-6)
    elif problem.form == "EllipsoidSeparation":
        assert res.info["separates_all"]
    else:                                # relative objective gap within tol (a value below the optimum: rounding)
        sign = -1.0 if problem.sense == "max" else 1.0
        gap = sign * (res.value - ref.value) / max(1.0, abs(ref.value))
        assert -tol <= gap <= tol * (1 + 1e-6)
