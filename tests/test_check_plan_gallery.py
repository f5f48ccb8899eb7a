"""A gallery of broken plans (issue 38): each breaks the plan protocol the way an outside plan does, and
``marginkit.testing.check_plan`` must stop at the obligation that names the broken hook or promise (not at the first
obligation that happens to run the plan), with a message that says what came back and what to change. One plan keeps
every obligation, on the problem as given and on the variants its card admits.

Every broken plan derives from :class:`Hedge` (multiplicative weights on the hard-margin dual, as the plugin example
of ``tests/plugin_package``, written so that it runs on dense and CSR data) and changes one thing.
"""
import time
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import pytest
import scipy.sparse as sp

import marginkit as mk
from marginkit.core.params import InstanceOf, Interval, Options, field_set
from marginkit.core.solution import Solution
from marginkit.core.warmstart import parse_warm_start
from marginkit.engine.runloop import IterationPlan
from marginkit.testing import OBLIGATIONS, PlanContractError, check_obligation, check_plan


@dataclass
class HedgeState:
    t: int
    logits: np.ndarray   # log a, up to a constant
    u: np.ndarray        # Zᵀa
    s: np.ndarray        # Z u: the margins of u, unnormalised


class Hedge(IterationPlan):
    """Multiplicative weights on the simplex for ``min ½||Zᵀa||²`` (Beck & Teboulle 2003); for every ``a``,
    ``u = Zᵀa`` certifies ``γ* <= ||u||`` and achieves the margin ``min_i z_iᵀu / ||u||``."""

    name = "gallery-hedge"
    default_max_iter = 1000
    default_tol = 1e-3

    @dataclass(frozen=True)
    class Config:
        eta: float = 1.0   # the step, in units of 1/R²
        constraints: ClassVar[dict] = {"eta": [Interval(float, 0, None, closed="neither")]}

    def setup(self):
        X, y = self.form.X, np.asarray(self.form.y, dtype=float)
        self.Z = X.multiply(y[:, None]).tocsr() if sp.issparse(X) else X * y[:, None]
        self.R2 = max(self.form.max_row_norm() ** 2, np.finfo(float).tiny)

    def state_of(self, t, logits):
        a = np.exp(logits - logits.max())
        u = self.Z.T @ (a / a.sum())
        return HedgeState(t=t, logits=logits, u=u, s=self.Z @ u)

    def init(self, rng, warm_start, budget):
        w = parse_warm_start(warm_start, self.Z.shape[1])
        if w is None or not np.any(w):
            return self.state_of(0, np.zeros(self.Z.shape[0]))
        return self.state_of(0, -(self.Z @ w) / (np.sqrt(self.R2) * np.linalg.norm(w)))

    def step(self, state):
        return self.state_of(state.t + 1, state.logits - (self.eta / self.R2) * state.s)

    def bounds(self, state):
        upper = float(np.linalg.norm(state.u))
        return (float(state.s.min()) / upper if upper > 0 else 0.0), upper

    def measure(self, state):
        lower, upper = self.bounds(state)
        return {"margin": lower, "margin_upper": upper}

    def stop(self, state, budget):
        lower, upper = self.bounds(state)
        return "optimal" if upper > 0 and upper - lower <= budget.tol * upper else None

    def snapshot(self, state):
        return np.array(state.u, dtype=float)

    def solution(self, state, status):
        lower, upper = self.bounds(state)
        return Solution(w=np.array(state.u, dtype=float), status=status, certificate={
            "margin_lower": lower, "margin_upper": upper,
            "relative_gap": (upper - lower) / upper if upper > 0 else np.inf})


def _data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 5))
    y = np.sign(X[:, 0])
    X[:, 0] += 0.4 * y
    return X, y


@pytest.fixture
def problem():
    """A fresh problem for each plan: no reference cached from another test's run."""
    return mk.MaxMargin(*_data())


def test_a_plan_that_keeps_the_protocol_passes_every_obligation_on_every_variant(problem):
    assert check_plan(Hedge, problem) == list(OBLIGATIONS)
    card = mk.MethodCard("gallery-hedge", "MaxMargin", Hedge)   # NumPy/SciPy data, the narrowest form
    assert check_plan(Hedge, problem, card=card, skip=["time-limit"]) == \
        [name for name in OBLIGATIONS if name != "time-limit"]
    assert "gallery-hedge" not in mk.methods(problem)   # registered for the check only


def test_options_given_a_set_is_refused_where_it_is_declared():
    """scikit-learn's ``StrOptions({...})`` habit: one set is one value, which no string equals; the declaration
    itself is refused, before any plan exists."""
    with pytest.raises(mk.ProblemError, match=r"pass the strings as separate arguments, Options\('linear', "
                                              r"'uniform'\)"):
        class Config:   # noqa: F841 -- the declaration is the test
            constraints: ClassVar[dict] = {"weights": [Options({"linear", "uniform"})]}


# the gallery: one broken plan per obligation --------------------------------------------------------------------
class DefaultOutsideItsDeclaration(Hedge):
    @dataclass(frozen=True)
    class Config:
        eta: float = 1.0
        weights: str = "linear"
        constraints: ClassVar[dict] = {"eta": [Interval(float, 0, None, closed="neither")],
                                       "weights": [Options("uniform", "distance")]}


class DeclarationNotAList(Hedge):
    @dataclass(frozen=True)
    class Config:
        eta: float = 1.0
        constraints: ClassVar[dict] = {"eta": Interval(float, 0, None, closed="neither")}


class MutableConfig(Hedge):
    @dataclass
    class Config:
        eta: float = 1.0
        constraints: ClassVar[dict] = {"eta": [Interval(float, 0, None, closed="neither")]}


class AcceptsAnything(Hedge):
    @dataclass(frozen=True)
    class Config:
        eta: float = 1.0
        constraints: ClassVar[dict] = {"eta": [InstanceOf(object)]}


class DropsUnknownOptions(Hedge):
    @classmethod
    def compile(cls, form, options, method=None, **binding):
        known = {k: v for k, v in options.items() if k in field_set(cls.Config)}
        return super().compile(form, known, method, **binding)


class Writable(Hedge):
    def __setattr__(self, key, value):
        object.__setattr__(self, key, value)


class TypoInABackendCall(Hedge):
    def init(self, rng, warm_start, budget):
        self.form.backend.matvecc(self.form.X, np.zeros(self.Z.shape[1]))
        return super().init(rng, warm_start, budget)


class StepReturnsAPair(Hedge):
    def step(self, state):
        return super().step(state), {"step": self.eta / self.R2}


class MeasureReturnsATuple(Hedge):
    def measure(self, state):
        return tuple(super().measure(state).values())


class StopReturnsFalse(Hedge):
    def stop(self, state, budget):
        return super().stop(state, budget) or False


class StopsItselfAtABudget(Hedge):
    def stop(self, state, budget):
        return "user_limit" if state.t >= 3 else super().stop(state, budget)


class SnapshotIsAColumn(Hedge):
    def snapshot(self, state):
        return np.array(state.u, dtype=float)[:, None]


class WrongLengthW(Hedge):
    def solution(self, state, status):
        sol = super().solution(state, status)
        return Solution(w=sol.w[:-1], status=status, certificate=sol.certificate)


class ColumnW(Hedge):
    def solution(self, state, status):
        sol = super().solution(state, status)
        return Solution(w=sol.w[:, None], status=status, certificate=sol.certificate)


class CountsRunsOnThePlan(Hedge):
    def init(self, rng, warm_start, budget):
        object.__setattr__(self, "runs", getattr(self, "runs", 0) + 1)   # around the frozen plan
        return super().init(rng, warm_start, budget)


class StepsFromTheGlobalGenerator(Hedge):
    def init(self, rng, warm_start, budget):
        return self.state_of(0, np.random.default_rng().standard_normal(self.Z.shape[0]))


class RaisesOnAWarmStart(Hedge):
    def init(self, rng, warm_start, budget):
        if warm_start is not None:
            raise TypeError("no warm start here")
        return super().init(rng, warm_start, budget)


class NonFiniteAt663(Hedge):
    """Finite for 662 iterations, then NaN: within the default budget (1,000), beyond the 200 iterations the
    finiteness obligation used to run."""

    def step(self, state):
        nxt = super().step(state)
        return nxt if nxt.t < 663 else HedgeState(nxt.t, nxt.logits * np.nan, nxt.u * np.nan, nxt.s * np.nan)


class InitOutlastsTheTimeLimit(Hedge):
    def init(self, rng, warm_start, budget):
        time.sleep(min(1.0, budget.max_iter * 1e-6))   # stands for a precomputation over the whole budget
        return super().init(rng, warm_start, budget)


class AlwaysOptimal(Hedge):
    def stop(self, state, budget):
        return "optimal" if state.t >= 2 else None


class SolvesWithAnOffset(Hedge):
    """Claims the optimum of the problem with an offset on a problem without one: its margin is above the certified
    maximum (the point of the problem with bias=True, stored before the check)."""

    with_offset: ClassVar[tuple] = ()

    def stop(self, state, budget):
        return "optimal" if state.t >= 1 else None

    def solution(self, state, status):
        w, b = self.with_offset
        return Solution(w=np.array(w), b=b, status=status, certificate={"relative_gap": 0.0})


@dataclass
class ForgetfulState(HedgeState):
    momentum: np.ndarray = field(default_factory=lambda: np.zeros(1))

    def __getstate__(self):   # a checkpoint loses the momentum
        return {**self.__dict__, "momentum": np.zeros_like(self.momentum)}


class MomentumOutsideTheCheckpoint(Hedge):
    def init(self, rng, warm_start, budget):
        st = super().init(rng, warm_start, budget)
        return ForgetfulState(st.t, st.logits, st.u, st.s, np.zeros_like(st.logits))

    def step(self, state):
        momentum = 0.5 * state.momentum - (self.eta / self.R2) * state.s
        st = self.state_of(state.t + 1, state.logits + momentum)
        return ForgetfulState(st.t, st.logits, st.u, st.s, momentum)


@dataclass
class CountingState(HedgeState):
    seen: list = field(default_factory=list)


class MeasureCountsInTheState(Hedge):
    """measure writes to the state; the step reads it after iteration 10 (past the four steps of
    iterate-equals-run): the trace changes the run."""

    def init(self, rng, warm_start, budget):
        st = super().init(rng, warm_start, budget)
        return CountingState(st.t, st.logits, st.u, st.s, [])

    def step(self, state):
        scale = 1.0 + 0.01 * len(state.seen) if state.t > 10 else 1.0
        st = self.state_of(state.t + 1, state.logits - scale * (self.eta / self.R2) * state.s)
        return CountingState(st.t, st.logits, st.u, st.s, state.seen)

    def measure(self, state):
        state.seen.append(state.t)
        return super().measure(state)


GALLERY = [
    # (plan, obligation, what the message says was observed, what it says to change)
    (DeclarationNotAList, "declared-constraints", "Config.constraints['eta'] must be a list of accepted kinds",
     "[Options('a', 'b')]"),
    (DefaultOutsideItsDeclaration, "declared-defaults", "the default of 'weights', 'linear', is not accepted",
     "change the default or the declaration"),
    (MutableConfig, "frozen-config", "not a frozen dataclass", "@dataclass(frozen=True)"),
    (AcceptsAnything, "bad-values-rejected", "compile(eta=object()) was accepted", "declare the values 'eta'"),
    (DropsUnknownOptions, "unknown-option", "compile(no_such_option=1) was accepted", "IterationPlan.compile"),
    (Writable, "frozen-plan", "setting plan.tol after compile succeeded", "set attributes in setup() only"),
    (TypoInABackendCall, "hook-init", "init(rng, None, budget) raised AttributeError", "init must build"),
    (StepReturnsAPair, "hook-step", "returned a tuple where init returned a HedgeState",
     "must return a state of the same structure"),
    (MeasureReturnsATuple, "hook-measure", "measure(state) at iteration 0 returned tuple",
     "must return a dict of metric names to numbers"),
    (StopReturnsFalse, "hook-stop", "returned bool False", "return None (not False) to go on"),
    (StopsItselfAtABudget, "hook-stop", "at iteration 3 (tol=0.001) returned str 'user_limit'",
     "return None and let the loop stop the run"),
    (SnapshotIsAColumn, "hook-snapshot", "of shape (5, 1)", "w.ravel() for a column"),
    (WrongLengthW, "hook-solution", "a Solution whose w has shape (4,)", "1-D array of length 5"),
    (ColumnW, "hook-solution", "a Solution whose w has shape (5, 1)", "w.ravel() for a column"),
    (CountsRunsOnThePlan, "loop-never-writes", "['runs'] of the plan were set or rebound",
     "keep what changes during a run in the state"),
    (StepsFromTheGlobalGenerator, "iterate-equals-run", "differs from the iterate the run recorded",
     "draw random numbers from the rng that init puts in the state"),
    (RaisesOnAWarmStart, "warm-start", "raised TypeError: no warm start here", "parse_warm_start"),
    (NonFiniteAt663, "finite-and-untouched", "non-finite in iteration 663", "fix the step"),
    (InitOutlastsTheTimeLimit, "time-limit", "solve(time_limit=0.2, tol=0) returned after",
     "bound any longer preparation by budget.time_limit"),
    (AlwaysOptimal, "optimal-is-certified", "below the reference's",
     "stop returned 'optimal' before the plan's certificate proved tol"),
    (MeasureCountsInTheState, "trace-invariance", "measure(state) wrote to ['seen']",
     "keep what observation computes out of the state"),
    (MomentumOutsideTheCheckpoint, "resume", "they differ in", "Keep everything the next step reads in the state"),
]


@pytest.mark.parametrize("plan_class, obligation, observed, change", GALLERY,
                         ids=[f"{plan.__name__}-{ob}" for plan, ob, _, _ in GALLERY])
def test_check_plan_stops_at_the_obligation_the_plan_breaks_and_says_what_to_change(problem, plan_class, obligation,
                                                                                    observed, change):
    with pytest.raises(PlanContractError) as failure:
        check_plan(plan_class, problem)
    err = failure.value
    text = str(err)
    assert err.obligation == obligation, text
    assert observed in err.observed, text
    assert change in err.observed, text
    assert f"obligation {obligation!r}" in text and "Why it matters: " + OBLIGATIONS[obligation].why in text
    assert not [m for m in mk.methods(problem) if m.startswith("check-plan")]   # the temporary card is gone


def test_an_optimum_better_than_the_certified_one_is_a_contradiction_named_with_its_side():
    """A plan that solved the problem with an offset, on a problem without one, claims a margin above the certified
    maximum: the contradiction is caught with the side it is on (or, where the result's assembly refuses an offset
    the problem does not have, under the solution hook)."""
    X, y = _data()
    X[:, 0] += 0.3   # the classes meet at x_0 = 0.3: an offset doubles the margin
    best = mk.MaxMargin(X, y, bias=True).reference()
    assert best.margin > 2 * mk.MaxMargin(X, y).reference().margin   # the offset helps: the point of the test
    plan_class = type("SolvesWithAnOffset", (SolvesWithAnOffset,), {"with_offset": (best.w, float(best.b))})
    fresh = mk.MaxMargin(X, y)   # its reference is not cached: check_plan's own check must see the contradiction
    with pytest.raises(PlanContractError) as failure:
        check_plan(plan_class, fresh)
    err = failure.value
    if err.obligation == "hook-solution":
        assert "offset" in err.observed, str(err)
    else:
        assert err.obligation == "optimal-is-certified", str(err)
        assert "ABOVE the certified maximum margin" in err.observed and "solved another problem" in err.observed


def test_a_linear_plan_registered_for_kernel_problems_is_caught_on_the_kernel_variant(problem):
    """The card says ``admits=("kernel",)``, the plan computes the linear w: check_plan builds the kernel variant
    of the user's problem, and the run there is refused (by the result's assembly: no dual coefficients) or
    contradicted by the reference, the variant named either way."""
    card = mk.MethodCard("gallery-linear-on-kernel", "MaxMargin", Hedge, admits=("kernel",))
    with pytest.raises(PlanContractError) as failure:
        check_plan(Hedge, problem, card=card, skip=["time-limit"])
    err = failure.value
    assert err.obligation in ("finite-and-untouched", "optimal-is-certified"), str(err)
    assert "on the problem with kernel='rbf'" in err.observed, str(err)
    assert "dual coefficients" in err.observed or "ABOVE" in err.observed, str(err)


def test_a_plan_that_cannot_read_sparse_data_is_caught_on_the_csr_variant(problem):
    """A card that computes on NumPy data covers SciPy's sparse matrices too: the CSR variant is run."""
    class DenseOnly(Hedge):
        def setup(self):
            X = np.asarray(self.form.X, dtype=float)   # a TypeError for a CSR matrix
            self.Z = X * np.asarray(self.form.y, dtype=float)[:, None]
            self.R2 = float((self.Z * self.Z).sum(axis=1).max())
    with pytest.raises(PlanContractError) as failure:
        check_obligation("finite-and-untouched", DenseOnly, problem)
    assert "on the same data as a SciPy CSR matrix" in failure.value.observed
    assert "make the plan compute through self.form.backend" in failure.value.observed
