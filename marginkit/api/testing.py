"""The plan contract, for anyone's plan: :func:`check_plan` (scikit-learn's ``check_estimator`` idea).

``check_plan(PlanClass, problem)`` holds a plan class written outside marginkit to the obligations that
``tests/test_contract.py`` holds every plan of the registry to, and raises :class:`PlanContractError` (an
``AssertionError``) on the first one it breaks. Its message says which obligation failed, what was observed (what
came back, or the exception) and what to change, and why the obligation matters. The obligations, in the order they
are checked (:data:`OBLIGATIONS`; each one in full: :func:`check_plan`), are of five kinds:

* the options: every ``Config`` field declares its accepted values and its default is one of them, the config and
  the compiled plan are frozen, a bad value or an unknown option is a ``ProblemError`` (``declared-constraints``,
  ``declared-defaults``, ``frozen-config``, ``bad-values-rejected``, ``unknown-option``, ``frozen-plan``);
* the hooks, each called directly: ``init``, ``step``, ``measure``, ``stop``, ``snapshot`` and ``solution`` return
  what the run loop expects (``hook-init`` ... ``hook-solution``);
* the loop: ``run()`` and ``iterate()`` never write to the plan and go through the same iterates bit for bit, a
  previous ``Result`` is accepted as ``warm_start`` (``loop-never-writes``, ``iterate-equals-run``, ``warm-start``);
* the answers: finite and the user's arrays untouched over the whole default budget, the ``time_limit`` kept, and
  ``optimal`` only where the CVXPY reference confirms the certified gap (``finite-and-untouched``, ``time-limit``,
  ``optimal-is-certified``);
* observation and interruption change nothing: the same run under every ``trace``, and a run resumed from its
  checkpoint ends as the uninterrupted one (``trace-invariance``, ``resume``).

The hook obligations (:mod:`.plan_hooks`) call each hook on a compiled plan before anything runs it, so that a hook
that raises or returns the wrong thing is reported under its own name. The variants (:mod:`.plan_variants`) are the
user's problem in every data kind (``arrays``: SciPy CSR, ``array_api_strict``, row-chunked dask) and form
(``admits``: an offset, a kernel, sample weights) the method's card admits; a failure names the variant.

The plan runs through marginkit's public path (``problem.compile``/``problem.solve``): when ``method`` is not a
method of ``problem`` already, the class is registered for the duration of the check under ``card`` (or a card that
admits what ``problem`` uses, and NumPy/SciPy data; named ``method`` or a temporary name) and removed afterwards, so
the check sees the plan exactly as a registered method.
"""
from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from ..core.params import config_fields, declaration_errors
from ..core.result import host_copy
from ..core.errors import PlanError
from ..core.validation import ProblemError
from ..engine.graph import methods, resolve
from ..engine.plugins import MethodCard, all_cards, registered
from ..engine.registry import FEATURES
from ..engine.runloop import IterationPlan
from ..formulations.base import Problem
from . import plan_hooks, plan_runs
from .plan_hooks import Broken as _Broken
from .plan_variants import Variant, variants

__all__ = ["OBLIGATIONS", "Obligation", "PlanContractError", "check_obligation", "check_plan"]


class PlanContractError(AssertionError):
    """A plan broke an obligation of the plan contract: ``obligation`` (its name), ``observed`` (what happened and what
    to change), ``why`` (what the obligation protects). An ``AssertionError``, so that test runners report it as a
    failure."""

    def __init__(self, subject: str, obligation: Obligation, observed: str):
        self.obligation, self.observed, self.why = obligation.name, observed, obligation.why
        super().__init__(f"{subject} breaks the plan contract, obligation {obligation.name!r} ({obligation.title}).\n"
                         f"  Observed: {observed}\n  Why it matters: {obligation.why}")


@dataclass(frozen=True)
class Obligation:
    """One obligation of the contract: a short ``name``, the ``title`` it promises, ``why`` it matters, and the
    ``check(subject)`` that raises ``Broken`` with what it observed when the plan breaks it."""

    name: str
    title: str
    why: str
    check: Callable


OBLIGATIONS: dict[str, Obligation] = {}


def _obligation(name: str, title: str, why: str):
    def add(check):
        OBLIGATIONS[name] = Obligation(name, title, why, check)
        return check
    return add


@dataclass
class _Subject:
    plan_class: type
    problem: Problem
    method: str
    arrays: list          # (the user's array, a copy taken before the check)
    card: MethodCard
    _variants: list | None = None

    def compile(self, **options):
        try:
            return self.problem.compile(self.method, **options)
        except ProblemError:   # a refused option or declaration: the obligation that compiles judges it
            raise
        except Exception as exc:  # noqa: BLE001 -- the plan's own code failed while it was built
            raise _Broken(f"compiling the plan raised {type(exc).__name__}: {exc} (in setup(), which computes the "
                          "plan's constants from self.form and the config; nothing else runs at compile)") from exc

    def solve(self, **options):
        return self.problem.solve(self.method, **options)

    @property
    def plan_type(self) -> type:
        """The class that runs ``problem`` (the card's variant for its data or form), without compiling it."""
        card, chain = resolve(self.problem, self.method)
        return card.load(chain.reduced)

    def variants(self) -> list[Variant]:
        if self._variants is None:
            self._variants = variants(self.problem, self.card, self.method)
        return self._variants

    def on(self, variant: Variant, run: Callable):
        """``run(problem)`` on a variant, an exception of the plan reported with the variant's name; None where the
        plan refuses the variant at compile with a ``ProblemError`` that says why (the user reads that message)."""
        try:
            with variant.context():
                return run(variant.problem)
        except _Broken:
            raise
        except Exception as exc:  # noqa: BLE001 -- the plan's failure on this variant is the observation
            if not variant.as_given and type(exc) is ProblemError and self._refused(variant):
                return None
            raise _Broken(f"on {variant.label}: the run raised {type(exc).__name__}: {exc}" +
                          ("" if variant.as_given else _variant_hint(variant))) from exc

    def _refused(self, variant: Variant) -> bool:
        """Whether compiling the method on ``variant`` is refused with a ``ProblemError`` (a deliberate refusal that
        names its reason, not a failure of the run)."""
        try:
            with variant.context():
                variant.problem.compile(self.method)
        except PlanError:
            return False
        except ProblemError:
            return True
        return False

    def _of(self, plan_class: type) -> _Subject:
        """Itself, once the method is known to run ``plan_class`` (or a subclass) on the problem."""
        runs = self.plan_type
        if not issubclass(runs, plan_class):
            raise ProblemError(f"method {self.method!r} runs {runs.__name__} on this problem, not "
                               f"{plan_class.__name__}: pass method=None to check {plan_class.__name__} itself")
        return self

    def __str__(self):
        return f"{self.plan_class.__name__} (method {self.method!r} on {type(self.problem).__name__})"


def _variant_hint(variant: Variant) -> str:
    if variant.feature is None:
        return (". The card's arrays admit this data: make the plan compute through self.form.backend (bk.matvec, "
                "bk.rmatvec, bk.xp, ...: they serve every kind of data), or leave the kind out of the card's arrays")
    return (f". The card admits {variant.feature!r}, problems with {FEATURES[variant.feature][1]}: make the plan "
            f"solve them, or leave {variant.feature!r} out of the card's admits (the method is then not offered there)")


# the obligations: the declarations -------------------------------------------------------------------------------
def _config_class(s: _Subject) -> type:
    config_cls = getattr(s.plan_type, "Config", None)
    if not (isinstance(config_cls, type) and dataclasses.is_dataclass(config_cls)):
        raise _Broken(f"{s.plan_type.__name__}.Config is {config_cls!r:.60}, not a dataclass: declare it as "
                      "@dataclass(frozen=True) class Config with one field per parameter")
    return config_cls


@_obligation("declared-constraints", "every parameter declares its accepted values in Config.constraints",
             "compile checks every option against its declaration, with one message format; an undeclared parameter "
             "accepts anything and fails deep inside a step, or silently computes something else")
def _declared_constraints(s: _Subject):
    config_cls = _config_class(s)
    malformed = declaration_errors(config_cls, "declaration")
    if malformed:
        raise _Broken("; ".join(malformed))
    names, declared = set(config_fields(config_cls)), set(getattr(config_cls, "constraints", {}))
    if names != declared:
        raise _Broken(f"the field(s) {sorted(names - declared)} of Config declare no constraint (add them to "
                      "Config.constraints: Interval, Options, Boolean, IsCallable, InstanceOf, ListOf or None)")


@_obligation("declared-defaults", "every parameter's default is accepted by its own declaration",
             "a plan compiled with its defaults runs with values its declaration refuses: the user cannot pass the "
             "default back explicitly, and the declaration documents values the plan never uses")
def _declared_defaults(s: _Subject):
    wrong = declaration_errors(_config_class(s), "default")
    if wrong:
        raise _Broken("; ".join(wrong))


@_obligation("frozen-config", "the configuration is a frozen dataclass whose fields read as attributes of the plan",
             "compile checks the options once and the run reads them; a configuration that can change after compile "
             "lets two runs of one compiled plan use different parameters")
def _frozen_config(s: _Subject):
    plan = s.compile()
    config = plan.config
    if not (dataclasses.is_dataclass(config) and config.__dataclass_params__.frozen):
        raise _Broken(f"plan.config is {type(config).__name__}, not a frozen dataclass (declare Config with "
                      "@dataclass(frozen=True))")
    try:
        config.x = 1
    except dataclasses.FrozenInstanceError:
        pass
    else:
        raise _Broken("setting an attribute of plan.config succeeded (declare Config with @dataclass(frozen=True))")
    for name in config_fields(type(config)):
        if callable(getattr(type(plan), name, None)):   # a hook such as ``step`` keeps its name
            continue
        if getattr(plan, name) is not getattr(config, name):
            raise _Broken(f"plan.{name} is not plan.config.{name}: the plan shadows its own parameter (do not set "
                          f"self.{name} in setup: read the parameter as self.{name}, from the config)")


def _must_refuse(call, what: str, error: type, mentions: str, should: str, accepted: str) -> None:
    """``call()`` must raise ``error`` with ``mentions`` in its message: else the obligation is broken, saying that
    ``accepted`` or that its message does not ``should``."""
    try:
        call()
    except error as exc:
        if mentions not in str(exc):
            raise _Broken(f"{what} raised a{'n' if error.__name__[0] in 'AEIOU' else ''} {error.__name__} that does "
                          f"not {should}: {exc}") from None
    else:
        raise _Broken(accepted)


@_obligation("bad-values-rejected", "a value outside a declaration is a ProblemError naming the option, at compile",
             "a user who passes a wrong value must learn which option is wrong before anything runs, not read a "
             "TypeError from inside the loop")
def _bad_values_rejected(s: _Subject):
    constraints = getattr(type(s.compile().config), "constraints", {})
    for name in constraints:
        _must_refuse(lambda name=name: s.compile(**{name: object()}), f"compile({name}=object())", ProblemError,
                     name, f"name {name!r}", f"compile({name}=object()) was accepted: declare the values {name!r} "
                     "accepts in Config.constraints (a constraint that accepts anything declares nothing)")


@_obligation("unknown-option", "an option the plan does not have is a ProblemError listing the valid ones",
             "a misspelled option that is silently ignored is a run with other parameters than the user believes")
def _unknown_option(s: _Subject):
    _must_refuse(lambda: s.compile(no_such_option=1), "compile(no_such_option=1)", ProblemError, "unknown option",
                 "say 'unknown option'", "compile(no_such_option=1) was accepted: build the plan with "
                 "IterationPlan.compile (make_config checks the names), not by reading options yourself")


@_obligation("frozen-plan", "the compiled plan cannot be written to",
             "iterate() and run() must go through the same states for a seed; a plan that keeps run state on itself "
             "gives a second run a different start (keep what changes in the state that init returns)")
def _frozen_plan(s: _Subject):
    plan = s.compile()
    for name, value in (("tol", 0.5), ("form", None)):
        _must_refuse(lambda name=name, value=value: setattr(plan, name, value), f"setting plan.{name}",
                     AttributeError, "frozen", "say 'frozen'",
                     f"setting plan.{name} after compile succeeded (derive the plan from IterationPlan, do not "
                     "override __setattr__, and set attributes in setup() only)")


# the hooks, one by one, before anything runs them; then the runs ------------------------------------------------
for _name, (_title, _why, _check) in {**{f"hook-{hook}": entry for hook, entry in plan_hooks.HOOKS.items()},
                                      **plan_runs.RUNS}.items():
    _obligation(_name, _title, _why)(_check)


# running them -----------------------------------------------------------------------------------------------------
_counter = itertools.count()


def _narrowest_card(name: str, plan_class: type, problem) -> MethodCard:
    """The card ``check_plan`` registers a plan under when none is given: it admits what ``problem`` uses (its kind
    of data beside NumPy/SciPy, its kernel, offset or weights) and nothing more."""
    kind = getattr(getattr(problem, "backend", None), "kind", "numpy")
    admits = tuple(feature for feature, (uses, _) in FEATURES.items() if uses(problem))
    return MethodCard(name, problem.form, plan_class, arrays=("numpy",) if kind == "numpy" else ("numpy", kind),
                      admits=admits, tags=("check_plan",),
                      algorithm=f"{plan_class.__name__}, registered by marginkit.testing.check_plan")


@contextmanager
def _subject(plan_class, problem, method, arrays, card=None):
    if not (isinstance(plan_class, type) and issubclass(plan_class, IterationPlan)):
        raise ProblemError(f"PlanClass must be a subclass of marginkit's IterationPlan; got {plan_class!r}")
    if not isinstance(problem, Problem):
        raise ProblemError(f"problem must be a marginkit problem (MaxMargin, SoftMarginSVM, ...); got "
                           f"{type(problem).__name__}")
    if method is not None and not isinstance(method, str):
        raise ProblemError(f"method must be None or a method name; got {method!r}")
    if card is not None:
        if not isinstance(card, MethodCard):
            raise ProblemError(f"card must be None or the plan's MethodCard; got {type(card).__name__}")
        if method is not None and method != card.name:
            raise ProblemError(f"method {method!r} and card.name {card.name!r} differ: pass one of them")
        method = card.name
    if arrays is None:   # the problem's own arrays: what a plan could write to
        arrays = [v for v in vars(problem).values() if isinstance(v, np.ndarray)]
    elif not isinstance(arrays, (list, tuple)):
        raise ProblemError(f"arrays must be None or a list of the user's arrays; got {type(arrays).__name__}")
    copies = [(a, host_copy(a)) for a in arrays]
    if method is not None and method in methods(problem) and (card is None or card in all_cards()):
        found = resolve(problem, method)[0]
        yield _Subject(plan_class, problem, method, copies, found)._of(plan_class)
        return
    if card is None:
        card = _narrowest_card(method or f"check-plan-{plan_class.__name__.lower()}-{next(_counter)}", plan_class,
                               problem)
    with registered(card):
        if card.name not in methods(problem):
            _, why = card.accepts(problem)
            raise ProblemError(f"card {card.name!r} ({card.form}) does not offer the method on {problem!r}: "
                               f"{why or 'the problem is not of its form'}; pass a problem the card admits")
        yield _Subject(plan_class, problem, card.name, copies, card)._of(plan_class)


def _run(obligation: Obligation, subject: _Subject) -> None:
    try:
        obligation.check(subject)
    except _Broken as broken:
        raise PlanContractError(str(subject), obligation, str(broken)) from None
    except Exception as exc:   # a plan that raises where an answer is due: that is the failure to report
        raise PlanContractError(str(subject), obligation, f"raised {type(exc).__name__}: {exc} (the traceback of "
                                "this error's __cause__ shows where in the plan)") from exc


def _obligation_named(name) -> Obligation:
    if name not in OBLIGATIONS:
        raise ProblemError(f"obligation must be one of {', '.join(OBLIGATIONS)}; got {name!r}")
    return OBLIGATIONS[name]


def check_obligation(obligation: str, PlanClass, problem, method: str | None = None, *, card=None,
                     arrays=None) -> None:
    """Check one obligation (a name of :data:`OBLIGATIONS`) of ``PlanClass`` on ``problem``; see :func:`check_plan`.
    ``tests/test_contract.py`` parametrizes over the registry's cards and the obligations with it."""
    ob = _obligation_named(obligation)
    with _subject(PlanClass, problem, method, arrays, card) as subject:
        _run(ob, subject)


def check_plan(PlanClass, problem, method: str | None = None, *, card=None, arrays=None, skip=()) -> list[str]:
    """Hold ``PlanClass`` to the plan contract on ``problem`` (a small, easy instance of the form the plan runs on)
    and on every variant of it that the method's card admits; raise :class:`PlanContractError` on the first
    obligation it breaks, saying which, what was observed, what to change and why it matters. Returns the names of
    the obligations checked.

    ``method``: check the method of that name (it must compile to ``PlanClass`` on ``problem``), or register
    ``PlanClass`` under that name for the check. ``card``: the plan's ``MethodCard`` (registered for the check unless
    it is already): its ``arrays`` and ``admits`` decide the variants. Without either, ``PlanClass`` is registered
    under a temporary name with a card that admits what ``problem`` uses and NumPy/SciPy data. ``arrays``: the user's
    arrays that no run may modify (default: the problem's own). ``skip``: names of obligations not to check (for
    example ``"optimal-is-certified"``, which solves the CVXPY reference, on a problem too large for it).
    A wrong argument is a ``ProblemError``.

    The obligations, in the order they are checked (:data:`OBLIGATIONS`):

    1. ``declared-constraints`` -- every field of ``Config`` declares its accepted values in ``Config.constraints``,
       as a list of well-formed constraints;
    2. ``declared-defaults`` -- every field's default is accepted by its own declaration;
    3. ``frozen-config`` -- ``plan.config`` is a frozen dataclass whose fields read as attributes of the plan;
    4. ``bad-values-rejected`` -- a value outside a declaration is a ``ProblemError`` naming the option, at compile;
    5. ``unknown-option`` -- an option the plan does not have is a ``ProblemError``;
    6. ``frozen-plan`` -- the compiled plan cannot be written to;
    7. ``hook-init`` -- ``init(rng, None, budget)``, called directly, returns a finite state;
    8. ``hook-step`` -- ``step(state)`` returns a state of the same structure (type, fields, ranks of its arrays);
    9. ``hook-measure`` -- ``measure(state)`` returns a dict of metric names to numbers, none NaN;
    10. ``hook-stop`` -- ``stop(state, budget)`` returns None or a status its certificate proves (``"user_limit"`` is
        the loop's);
    11. ``hook-snapshot`` -- ``snapshot(state)`` returns None or a 1-D array;
    12. ``hook-solution`` -- ``solution(state, status)`` returns a ``Solution`` whose ``w`` is None or 1-D of the
        width of the form the plan runs on (``dual_coef``: of its number of samples) and whose certificate holds
        numbers, finite where ``stop`` proved the status;
    13. ``loop-never-writes`` -- ``run()`` and ``iterate()`` leave every attribute of the plan as it was;
    14. ``iterate-equals-run`` -- ``iterate(k, seed)`` and ``run(max_iter=k, seed)`` go through the same iterates and
        end on the same solution, bit for bit;
    15. ``warm-start`` -- a previous ``Result`` is accepted as ``warm_start``;
    16. ``finite-and-untouched`` -- over the plan's whole default budget (``tol=0``; at most 20,000 iterations or
        5 s), and on every variant of the problem the card admits: no NaN or inf in the answer, no
        ``solver_error``, the user's arrays unchanged;
    17. ``time-limit`` -- ``solve(time_limit=0.2)`` returns within the limit, 20 % and 0.5 s, ``setup`` and ``init``
        included;
    18. ``optimal-is-certified`` -- ``optimal`` only when the CVXPY reference confirms the certified gap (``tol`` is
        relative: the Statuses table of the contract), on the problem and on every variant small enough for CVXPY;
        a margin or objective better than the certified optimum by more than rounding is a contradiction (the plan
        solved another problem);
    19. ``trace-invariance`` -- ``trace=None``, ``trace=1`` and ``trace="geometric"`` give the same iterations, the
        same status and the same final iterate, bit for bit (observation never changes the answer);
    20. ``resume`` -- a run interrupted (``KeyboardInterrupt``) with ``checkpoint=PATH`` and continued with
        ``resume=PATH`` ends as the uninterrupted run: the same iterations, status, final iterate and trace
        iterations."""
    if isinstance(skip, str) or not all(isinstance(n, str) for n in skip):
        raise ProblemError(f"skip must be a list of obligation names; got {skip!r}")
    for name in skip:
        _obligation_named(name)
    checked = []
    with _subject(PlanClass, problem, method, arrays, card) as subject:
        for ob in OBLIGATIONS.values():
            if ob.name not in skip:
                _run(ob, subject)
                checked.append(ob.name)
    return checked
