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
from pathlib import Path

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


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_the_configuration_is_a_frozen_dataclass(card, instances):
    check("frozen-config", card, instances)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_the_plan_is_frozen_after_compile(card, instances):
    check("frozen-plan", card, instances)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_declared_constraints_reject_bad_values_with_a_problem_error_naming_the_option(card, instances):
    check("bad-values-rejected", card, instances)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_every_parameter_declares_its_constraints(card, instances):
    check("declared-constraints", card, instances)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_every_default_is_accepted_by_its_own_declaration(card, instances):
    check("declared-defaults", card, instances)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_an_unknown_option_is_a_problem_error_listing_the_valid_ones(card, instances):
    check("unknown-option", card, instances)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_init_returns_a_finite_state(card, instances):
    check("hook-init", card, instances)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_step_returns_a_state_of_the_same_structure(card, instances):
    check("hook-step", card, instances)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_measure_returns_a_dict_of_numbers(card, instances):
    check("hook-measure", card, instances)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_stop_returns_none_or_a_status_its_certificate_proves(card, instances):
    check("hook-stop", card, instances)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_snapshot_returns_none_or_a_vector(card, instances):
    check("hook-snapshot", card, instances)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_solution_returns_a_solution_that_fits_the_form(card, instances):
    check("hook-solution", card, instances)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_the_run_loop_never_writes_to_the_plan(card, instances):
    check("loop-never-writes", card, instances)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_iterate_and_run_go_through_the_same_iterates_for_a_seed(card, instances):
    check("iterate-equals-run", card, instances)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_a_warm_start_from_a_result_is_accepted(card, instances):
    check("warm-start", card, instances)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_no_nan_on_an_easy_instance_and_the_users_arrays_are_untouched(card, instances):
    _, arrays, copies = check("finite-and-untouched", card, instances)
    for a, c in zip(arrays, copies):   # also against the copies taken before any test of the module ran
        np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_a_time_limit_is_kept_setup_and_init_included(card, instances):
    check("time-limit", card, instances)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_optimal_only_with_a_certificate_that_the_reference_confirms(card, instances):
    check("optimal-is-certified", card, instances)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_the_trace_never_changes_the_iterations_the_status_or_the_final_iterate(card, instances):
    """Issue 22 item 4: ``trace=None``, ``1`` and ``"geometric"`` give the same run, bit for bit."""
    check("trace-invariance", card, instances)


@pytest.mark.parametrize("card", CARDS, ids=IDS)
def test_an_interrupted_run_resumed_from_its_checkpoint_is_the_uninterrupted_run(card, instances):
    """Issue 25 item 7: ``checkpoint=`` then ``resume=`` gives the uninterrupted run, bit for bit."""
    check("resume", card, instances)


def test_every_obligation_of_marginkit_testing_has_a_test_here():
    """A new obligation of ``marginkit.testing`` gets its parametrized test above (read from this file's source)."""
    source = Path(__file__).read_text(encoding="utf-8")
    assert {name for name in OBLIGATIONS if f'check("{name}"' in source} == set(OBLIGATIONS)
