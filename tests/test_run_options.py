"""The run options are declared once (RunOptions) and checked when a method is compiled, not when it runs."""
import dataclasses

import numpy as np
import pytest

import marginkit as mk
from marginkit.engine.options import RUN_OPTION_DOCS, RUN_OPTIONS, RunOptions


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 5))
    return mk.MaxMargin(X, np.where(X[:, 0] > 0, 1, -1))


@pytest.mark.parametrize("name, value", [("tol", -1.0), ("max_iter", -2), ("max_iter", 1.5), ("time_limit", 0.0),
                                         ("callback", 3), ("trace", "linear"), ("trace", 0), ("check_every", 0),
                                         ("keep_iterates", "yes"), ("verbose", -1), ("seed", -3)])
def test_a_bad_run_option_is_a_problem_error_at_compile_time_naming_it(problem, name, value):
    with pytest.raises(mk.ProblemError, match=name):
        problem.compile("dual-accelerated", **{name: value})


def test_run_checks_the_options_it_is_given_with_the_same_message(problem):
    plan = problem.compile("dual-accelerated")
    with pytest.raises(mk.ProblemError, match=r"dual-accelerated: tol must be"):
        plan.run(tol=-1.0)
    with pytest.raises(mk.ProblemError, match="unknown run option"):
        plan.run(tolerance=1e-3)


def test_every_run_option_is_declared_with_its_meaning_and_describe_shows_it():
    names = [f.name for f in dataclasses.fields(RunOptions)]
    assert list(RUN_OPTIONS) == names
    assert all(RUN_OPTION_DOCS[n] for n in names)
    d = mk.describe("dual-accelerated")
    assert [o.name for o in d.run_options] == names
    assert [o.meaning for o in d.run_options] == [RUN_OPTION_DOCS[n] for n in names]


def test_the_methods_default_budget_is_used_when_none_is_given(problem):
    plan = problem.compile("dual-accelerated", max_iter=None, tol=None)
    opts = RunOptions().resolved(plan)
    assert opts.max_iter == type(plan).default_max_iter and opts.tol == type(plan).default_tol
    assert plan.run(max_iter=3).iterations == 3


def _classes_with_config():
    """Every plan class a registry card runs (its target and its variants) that declares a ``Config``."""
    from importlib import import_module

    from marginkit.engine.registry import METHODS
    out = {}
    for card in METHODS:
        if card.is_reference:
            continue
        for target in (card.target, *(t for _, t in card.variants)):
            if not isinstance(target, str):
                continue
            module, _, qualname = target.partition(":")
            obj = import_module(module)
            for part in qualname.split("."):
                obj = getattr(obj, part)
            if hasattr(obj, "Config"):
                out[target] = obj.Config
    return out


def test_every_declared_default_is_accepted_by_its_own_constraints():
    """make_config checks the options a user gives; the defaults it does not check must satisfy the declarations."""
    from marginkit.core.params import check_value
    configs = {"RunOptions": RunOptions, **_classes_with_config()}
    assert len(configs) > 10
    for owner, cls in configs.items():
        default = cls()
        for name, kinds in getattr(cls, "constraints", {}).items():
            check_value(owner, name, getattr(default, name), kinds)   # raises ProblemError if a default is refused


def test_a_bad_method_option_is_still_refused_when_others_are_defaults(problem):
    with pytest.raises(mk.ProblemError, match="theta"):
        problem.compile("dual-accelerated", theta=-1.0)
