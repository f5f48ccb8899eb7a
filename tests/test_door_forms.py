"""A door that cannot lie (issue 38, part 1): a card admits the narrowest form unless it declares more, a plan's
solution is held to its problem's form before any number is computed from it, and a result better than the certified
optimum is a contradiction everywhere (the run's result, ``cross_validate``)."""
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

import marginkit as mk
from marginkit import plugin
from marginkit.engine.assemble import contradiction
from marginkit.engine.plugins import added_cards
from marginkit.plans.jst.dual_acceleration import NormalizedGD


class PrimalGD(NormalizedGD):
    """marginkit's normalized GD: a plan on the primal w of the linear, homogeneous hard margin only."""

    name = "primal-gd"


class ColumnW(PrimalGD):
    """Returns ``w`` as a (d, 1) column."""

    def solution(self, state, status):
        sol = super().solution(state, status)
        return replace(sol, w=np.asarray(sol.w).reshape(-1, 1))


class NaNCertificate(PrimalGD):
    """Claims 'optimal' at once with a NaN relative gap."""

    def stop(self, state, budget):
        return "optimal"

    def solution(self, state, status):
        sol = super().solution(state, status)
        return replace(sol, certificate={"relative_gap": float("nan")})


def card(target=PrimalGD, name="primal-gd", **fields):
    return mk.MethodCard(name, "MaxMargin", target, algorithm="a test plan", tolerance=0.5, **fields)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((40, 4))
    y = np.sign(X[:, 0] + 0.2 * X[:, 1])
    X[:, 0] += 0.5 * y
    return X, y


def test_a_card_without_admits_is_offered_the_narrowest_form_only(data):
    X, y = data
    with plugin.registered(card()):
        assert "primal-gd" in mk.methods(mk.MaxMargin(X, y))
        for problem, feature in ((mk.MaxMargin(X, y, kernel="rbf"), "kernel"), (mk.MaxMargin(X, y, bias=True), "bias")):
            assert "primal-gd" not in mk.methods(problem)
            with pytest.raises(mk.ProblemError, match=f"admits does not name '{feature}'"):
                problem.solve("primal-gd")


def test_a_primal_plan_that_declares_a_kernel_is_refused_when_it_returns_no_dual_coefficients(data):
    """The measured case: a linear plan on MaxMargin(kernel='rbf') was 'optimal' with the linear margin."""
    X, y = data
    problem = mk.MaxMargin(X, y, kernel="rbf")
    with plugin.registered(card(admits=("kernel",))):
        with pytest.raises(plugin.PlanError, match="without dual coefficients.*kernel='rbf'.*admits"):
            problem.solve("primal-gd", max_iter=30)


def test_a_plan_that_declares_an_offset_must_return_one(data):
    X, y = data
    problem = mk.MaxMargin(X, y, bias=True)
    with plugin.registered(card(admits=("bias",))):
        with pytest.raises(plugin.PlanError, match=r"no offset for a problem with bias=True.*Solution\(w=..., b=...\)"):
            problem.solve("primal-gd", max_iter=30)


def test_a_missing_offset_of_a_problem_without_one_is_zero(data):
    X, y = data
    with plugin.registered(card()):
        res = mk.MaxMargin(X, y).solve("primal-gd", max_iter=30)
    assert res.b == 0.0 and res.w.shape == (4,)


def test_a_column_w_and_a_nan_certificate_are_refused(data):
    X, y = data
    problem = mk.MaxMargin(X, y)
    with plugin.registered(card(ColumnW, "column-w")):
        with pytest.raises(plugin.PlanError, match=r"1-D vector of length 4.*shape \(4, 1\)"):
            problem.solve("column-w", max_iter=5)
    with plugin.registered(card(NaNCertificate, "nan-cert")):
        with pytest.raises(plugin.PlanError, match="claims 'optimal' with NaN in its certificate"):
            problem.solve("nan-cert", max_iter=5)


def test_a_card_states_a_requirement_of_its_own(data):
    X, y = data
    small = lambda p: (p.n <= 30, "the test plan takes at most 30 samples")  # noqa: E731
    with plugin.registered(card(supports=small)):
        assert "primal-gd" not in mk.methods(mk.MaxMargin(X, y))
        assert "primal-gd" in mk.methods(mk.MaxMargin(X[:30], y[:30]))
        with pytest.raises(mk.ProblemError, match="at most 30 samples"):
            mk.MaxMargin(X, y).solve("primal-gd")
    with plugin.registered(card(supports=lambda p: True)):
        with pytest.raises(mk.ProblemError, match=r"card.supports of method 'primal-gd' must return \(True, ''\)"):
            mk.methods(mk.MaxMargin(X, y))


@pytest.mark.parametrize("fields, message", [
    ({"admits": ("kernels",)}, "card.admits of method 'primal-gd' must be a tuple of the features"),
    ({"admits": "kernel"}, "card.admits"),
    ({"supports": "yes"}, "card.supports of method 'primal-gd' must be None or a function"),
    ({"observed_rate": ("power", -1)}, "card.observed_rate of method 'primal-gd'"),
])
def test_card_fields_are_checked_at_registration(fields, message):
    with pytest.raises(mk.ProblemError, match=message):
        mk.register_method(card(**fields))
    assert all(c.name != "primal-gd" for c in added_cards())   # nothing was added


def test_a_result_better_than_the_certified_optimum_is_a_contradiction(data):
    """The run loop's own check and cross_validate's verdict: a margin above the certified maximum (here the cached
    reference of a problem with a smaller margin stands in for a wrong answer) is never 'optimal' or 'agrees'."""
    pytest.importorskip("cvxpy")
    X, y = data
    problem = mk.MaxMargin(X, y)
    true = problem.reference()
    harder = mk.MaxMargin(np.vstack([X, [[0.05, 0, 0, 0]]]), np.append(y, 1.0)).reference()
    assert harder.status == "optimal" and harder.margin < 0.9 * true.margin
    res = problem.solve("ipm", tol=1e-8)
    assert res.status == "optimal" and contradiction(problem, res, true) is None
    why = contradiction(problem, res, harder)
    assert why is not None and "above the certified maximum margin" in why
    problem._cache[("reference", None)] = harder   # the certified optimum the run is held to, as cached
    res = problem.solve("ipm", tol=1e-8)
    assert res.status == "solver_error" and res.info["claimed"] == "optimal"
    assert "contradicts the certified reference" in res.info["message"]
    row = {r["method"]: r for r in mk.cross_validate(problem, methods=["ipm"]).rows}["ipm"]
    assert row["agrees"] is False and row["note"].startswith("contradicts the reference: its margin")


def test_an_objective_below_the_certified_minimum_is_a_contradiction(data):
    pytest.importorskip("cvxpy")
    X, y = data
    y = y.copy()
    y[:6] = -y[:6]   # not separable: the hinge term weighs at the optimum
    problem = mk.SoftMarginSVM(X, y, C=1.0)
    ref = problem.reference()
    res = problem.solve("ipm", tol=1e-8)
    assert contradiction(problem, res, ref) is None
    stricter = mk.SoftMarginSVM(X, y, C=10.0).reference()   # a larger optimum than this problem's
    assert "below the certified minimum" in contradiction(problem, res, stricter)


def test_the_door_module_exports_what_a_plan_author_uses():
    for name in ("IterationPlan", "MarginPlan", "MethodCard", "Options", "Interval", "Solution", "STATUSES", "Budget",
                 "FEATURES", "CHECKS", "Backend", "register_method", "check_plan", "PlanError", "parse_warm_start"):
        assert name in plugin.__all__ and getattr(plugin, name) is not None
    assert {"optimal", "user_limit", "solver_error"} <= set(plugin.STATUSES)
    assert set(plugin.FEATURES) == {"kernel", "bias", "weights"}
    assert plugin.Solution(w=None).b is None


def test_python_dash_m_marginkit_cli_runs_the_command_line():
    out = subprocess.run([sys.executable, "-m", "marginkit.cli", "list"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "mnist-0-vs-1" in out.stdout and "methods:" in out.stdout
    out = subprocess.run([sys.executable, "-m", "marginkit.cli", "solve"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr
