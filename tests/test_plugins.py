"""The door for outside methods (issue 22 item 6): ``register_method`` adds a method to every place that lists or
runs methods, refuses a card that exists or declares nothing it supports, and ``unregister_method`` takes it back;
the entry-point group ``marginkit.methods`` is read once, lazily, and a broken plugin is skipped with a warning that
names it; ``marginkit.testing.check_plan`` passes a plan that keeps the contract and, for a plan that breaks an
obligation, fails on that obligation with a message that says what was observed and why it matters."""
from dataclasses import dataclass, replace
from importlib import metadata
from typing import ClassVar

import numpy as np
import pytest

import marginkit as mk
from marginkit.engine import plugins
from marginkit.engine.plugins import PluginWarning, registered
from marginkit.plans.jst.dual_acceleration import MarginState, NormalizedGD
from marginkit.testing import OBLIGATIONS, PlanContractError, check_obligation, check_plan


class RenamedGD(NormalizedGD):
    """A plan that keeps the contract: marginkit's normalized GD under another name, as an outside package's."""

    name = "outside-gd"


CARD = mk.MethodCard("outside-gd", "MaxMargin", RenamedGD, paper="a test", algorithm="normalized GD, renamed",
                     tolerance=0.5, requires=(("no_kernel", "primal w"), ("no_bias", "homogeneous")))


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 5))
    y = np.sign(X[:, 0])
    X[:, 0] += 0.4 * y
    return mk.MaxMargin(X, y)


@pytest.fixture
def outside():
    with registered(CARD) as card:
        yield card


def test_a_registered_method_is_listed_solved_compiled_and_cross_validated(problem, outside):
    assert "outside-gd" in mk.methods(problem)
    assert mk.methods(problem).index("outside-gd") < mk.methods(problem).index("dykstra")   # own form first
    res = problem.solve("outside-gd", max_iter=50, seed=0)
    twin = problem.solve("normalized-gd", max_iter=50, seed=0)
    assert res.method == "outside-gd" and res.iterations == 50
    np.testing.assert_array_equal(res.w, twin.w)
    assert isinstance(problem.compile("outside-gd"), RenamedGD)
    rows = {r["method"]: r for r in mk.cross_validate(problem, methods=["outside-gd"], max_iter=100).rows}
    assert set(rows) == {"cvxpy", "outside-gd"} and rows["outside-gd"]["iterations"] == 100


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")   # 200 steps: the budget is the point
def test_a_registered_method_fits_in_the_estimator(problem, outside):
    clf = mk.MarginClassifier(problem="max-margin", method="outside-gd", bias=False, max_iter=200)
    clf.fit(problem.X, problem.y)
    assert clf.result_.method == "outside-gd" and clf.score(problem.X, problem.y) == 1.0


def test_describe_and_the_command_line_list_a_registered_method_with_its_options(problem, outside, capsys):
    for d in (mk.describe("outside-gd"), mk.describe("outside-gd", problem), mk.describe("outside-gd", "MaxMargin")):
        assert d.name == "outside-gd" and d.plan.endswith(":RenamedGD") and {"loss", "step"} <= set(d.defaults)
    from marginkit.api.cli import main
    assert main(["list", "--method", "outside-gd"]) == 0
    assert "outside-gd on MaxMargin" in capsys.readouterr().out


def test_unregistering_removes_the_method_everywhere(problem):
    mk.register_method(CARD)
    assert "outside-gd" in mk.methods(problem)
    assert mk.unregister_method("outside-gd") == (CARD,)
    assert "outside-gd" not in mk.methods(problem)
    with pytest.raises(mk.ProblemError, match="does not apply"):
        problem.solve("outside-gd")


def test_the_context_manager_removes_the_method_even_when_the_block_raises(problem):
    with pytest.raises(RuntimeError, match="inside the block"), registered(CARD):
        assert "outside-gd" in mk.methods(problem)
        raise RuntimeError("inside the block")
    assert "outside-gd" not in mk.methods(problem)


def test_a_string_target_is_imported_at_the_first_compile_only(problem):
    card = replace(CARD, name="outside-string", target="marginkit.plans.jst.dual_acceleration:NormalizedGD")
    with registered(card):
        assert type(problem.compile("outside-string")) is NormalizedGD


@pytest.mark.parametrize("card, message", [
    (replace(CARD, name="normalized-gd"), "already exists for MaxMargin"),
    (replace(CARD, name="dykstra"), "already solves MaxMargin through the reduction to MinNormFeasibility"),
    (replace(CARD, name="cvxpy"), "certified reference"),
    (replace(CARD, form="Hyperplanes"), "card.form of method 'outside-gd' must be one of MaxMargin"),
    (replace(CARD, arrays=()), "supports no data"),
    (replace(CARD, arrays=("gpu",)), "card.arrays"),
    (replace(CARD, requires=(("no_such_predicate", "why"),)), "unknown predicate 'no_such_predicate'"),
    (replace(CARD, requires=(("no_bias", ""),)), "the reason for 'no_bias'"),
    (replace(CARD, target=int), "card.target of method 'outside-gd' must be a subclass of marginkit's IterationPlan"),
    (replace(CARD, target="no_colon"), "'module:Class'"),
    (replace(CARD, tolerance=float("nan")), "card.tolerance"),
    (replace(CARD, budget=0), "card.budget"),
    (replace(CARD, rate_law=("fast",)), "card.rate_law"),
    (replace(CARD, name=" spaced "), "card.name"),
    (replace(CARD, theorem="Jaggi 2013"), "card.theorem"),
    ("outside-gd", "card must be a marginkit MethodCard"),
], ids=["exists", "reached-by-reduction", "reference", "form", "no-arrays", "unknown-array-kind", "predicate",
        "reason", "target-class", "target-string", "tolerance", "budget", "rate-law", "name", "theorem", "not-a-card"])
def test_a_card_that_exists_or_declares_nothing_valid_is_a_problem_error_naming_the_problem(problem, card, message):
    before = mk.methods(problem)
    with pytest.raises(mk.ProblemError, match=message.replace("(", r"\(").replace(")", r"\)")):
        mk.register_method(card)
    assert mk.methods(problem) == before


def test_registering_twice_and_unregistering_what_was_not_added_are_problem_errors(outside):
    with pytest.raises(mk.ProblemError, match="already exists"):
        mk.register_method(CARD)
    with pytest.raises(mk.ProblemError, match="one of marginkit's own methods"):
        mk.unregister_method("gd")
    with pytest.raises(mk.ProblemError, match="no such method was added"):
        mk.unregister_method("never-added")


# entry points --------------------------------------------------------------------------------------------------
@pytest.fixture
def fake_entry_points(monkeypatch, tmp_path):
    """The group ``marginkit.methods`` as a set of installed packages would declare it, read afresh."""
    (tmp_path / "fake_marginkit_plugin.py").write_text(
        "import marginkit as mk\n"
        "from marginkit.plans.jst.dual_acceleration import NormalizedGD\n"
        "ONE = mk.MethodCard('ep-one', 'MaxMargin', NormalizedGD)\n"
        "MANY = [mk.MethodCard('ep-two', 'MaxMargin', NormalizedGD),\n"
        "        mk.MethodCard('ep-three', 'MaxMargin', NormalizedGD)]\n"
        "def make():\n    return mk.MethodCard('ep-four', 'MaxMargin', NormalizedGD)\n"
        "NOT_A_CARD = 42\n"
        "DUPLICATE = mk.MethodCard('gd', 'MaxMargin', NormalizedGD)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    points = [metadata.EntryPoint(name, value, plugins.ENTRY_POINT_GROUP) for name, value in [
        ("one", "fake_marginkit_plugin:ONE"), ("many", "fake_marginkit_plugin:MANY"),
        ("factory", "fake_marginkit_plugin:make"), ("missing", "no_such_plugin_module:CARD"),
        ("wrong", "fake_marginkit_plugin:NOT_A_CARD"), ("duplicate", "fake_marginkit_plugin:DUPLICATE")]]
    calls = []

    def entry_points(group):
        calls.append(group)
        return [ep for ep in points if ep.group == group]
    monkeypatch.setattr(plugins.metadata, "entry_points", entry_points)
    monkeypatch.setitem(plugins._STATE, "entry_points", "unread")
    saved = dict(plugins._ADDED)
    yield calls
    plugins._ADDED.clear()
    plugins._ADDED.update(saved)
    plugins._STATE["generation"] += 1


def test_entry_points_are_read_once_on_first_use_and_a_broken_one_is_skipped_naming_it(problem, fake_entry_points):
    with pytest.warns(PluginWarning) as caught:
        listed = mk.methods(problem)
    assert {"ep-one", "ep-two", "ep-three", "ep-four"} <= set(listed)
    messages = " ".join(str(w.message) for w in caught)
    for name, why in [("missing", "ModuleNotFoundError"), ("wrong", "must give a MethodCard"),
                      ("duplicate", "already exists")]:
        assert f"entry point {name!r}" in messages and why in messages
    assert len(caught) == 3
    mk.methods(problem)
    problem.solve("ep-four", max_iter=3)
    assert fake_entry_points == [plugins.ENTRY_POINT_GROUP]   # read once


def test_an_entry_point_method_is_unregistered_like_any_other(problem, fake_entry_points):
    with pytest.warns(PluginWarning):
        mk.methods(problem)
    mk.unregister_method("ep-one", "MaxMargin")
    assert "ep-one" not in mk.methods(problem)


# check_plan ------------------------------------------------------------------------------------------------------
def test_check_plan_passes_a_plan_that_keeps_the_contract_and_leaves_nothing_registered(problem):
    before = mk.methods(problem)
    assert check_plan(RenamedGD, problem) == list(OBLIGATIONS)
    assert mk.methods(problem) == before
    assert check_plan(NormalizedGD, problem, method="normalized-gd", skip=["optimal-is-certified"]) == \
        [name for name in OBLIGATIONS if name != "optimal-is-certified"]


class MutableConfig(RenamedGD):
    @dataclass
    class Config:
        loss: str = "exp"
        step: str = "constant"
        constraints: ClassVar[dict] = {}


class Undeclared(RenamedGD):
    @dataclass(frozen=True)
    class Config:
        loss: str = "exp"
        step: str = "constant"
        constraints: ClassVar[dict] = {}


class StepsFromTheGlobalGenerator(RenamedGD):
    def init(self, rng, warm_start, budget):
        w = np.random.default_rng().standard_normal(self.d)   # not the run's rng: no two runs alike
        return MarginState(t=0, w=w, s=self.Z.matvec(w), dual_bound=np.inf)


class MeasureWritesToTheState(RenamedGD):
    def measure(self, state):
        state.w *= 1.0 + 1e-9   # observation that moves the iterate (a little): the trace changes the run
        return super().measure(state)


class AlwaysOptimal(RenamedGD):
    def stop(self, state, budget):
        return "optimal" if state.t >= 2 else None


class Diverges(RenamedGD):
    def step(self, state):
        nxt = super().step(state)
        return MarginState(t=nxt.t, w=nxt.w * np.inf, s=nxt.s, dual_bound=nxt.dual_bound)


class RaisesOnAWarmStart(RenamedGD):
    def init(self, rng, warm_start, budget):
        if warm_start is not None:
            raise TypeError("no warm start here")
        return super().init(rng, warm_start, budget)


@pytest.mark.parametrize("plan_class, obligation, observed", [
    (MutableConfig, "frozen-config", "not a frozen dataclass"),
    (Undeclared, "declared-constraints", "declare no constraint"),
    (StepsFromTheGlobalGenerator, "iterate-equals-run", "differs from the iterate the run recorded"),
    (RaisesOnAWarmStart, "warm-start", "raised TypeError: no warm start here"),
    (Diverges, "finite-and-untouched", "status 'solver_error'"),
    (AlwaysOptimal, "optimal-is-certified", "below the reference's"),
    (MeasureWritesToTheState, "trace-invariance", "measure(state) wrote to ['w']"),
], ids=lambda v: v if isinstance(v, str) and " " not in v else None)
def test_a_broken_obligation_fails_there_saying_what_was_observed_and_why_it_matters(problem, plan_class, obligation,
                                                                                     observed):
    with pytest.raises(PlanContractError) as failure:
        check_obligation(obligation, plan_class, problem)
    err = failure.value
    assert isinstance(err, AssertionError) and err.obligation == obligation
    text = str(err)
    assert observed in text, text
    assert f"obligation {obligation!r}" in text and "Why it matters: " + OBLIGATIONS[obligation].why in text
    assert plan_class.__name__ in text
    assert not [m for m in mk.methods(problem) if m.startswith("check-plan")]   # the temporary card is gone


def test_check_plan_stops_at_the_first_obligation_broken():
    """A measure that moves the iterate breaks iterate-equals-run (trace=1 measures every state) before the
    trace-invariance obligation is reached; check_plan reports the first."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 4))
    y = np.sign(X[:, 1])
    with pytest.raises(PlanContractError) as failure:
        check_plan(MeasureWritesToTheState, mk.MaxMargin(X, y))
    assert failure.value.obligation == "iterate-equals-run"
    assert failure.value.why == OBLIGATIONS["iterate-equals-run"].why


def test_check_plan_rejects_what_is_not_a_plan_a_problem_or_an_obligation(problem):
    with pytest.raises(mk.ProblemError, match="PlanClass must be a subclass"):
        check_plan(object, problem)
    with pytest.raises(mk.ProblemError, match="problem must be a marginkit problem"):
        check_plan(RenamedGD, "MaxMargin")
    with pytest.raises(mk.ProblemError, match="obligation must be one of"):
        check_plan(RenamedGD, problem, skip=["frozen"])
    with pytest.raises(mk.ProblemError, match="obligation must be one of"):
        check_obligation("frozen", RenamedGD, problem)
    with pytest.raises(mk.ProblemError, match="runs NormalizedGD on this problem, not RenamedGD"):
        check_plan(RenamedGD, problem, method="normalized-gd")


def test_a_registered_method_enters_the_benchmark_by_its_tags(problem):
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmarks.solvers.marginkit_methods import pool
    from benchmarks.targets import Competitors
    spec = Competitors(forms=("MaxMargin",), tag="outside-tag")
    assert pool(spec) == []
    with registered(replace(CARD, tags=("outside-tag",))):
        assert pool(spec) == ["outside-gd"]
        assert "outside-gd" in pool(Competitors(per_problem=True), problem)
    assert pool(spec) == []
