"""What a method card is: :class:`MethodCard` (one method on one problem form), :class:`Theorem` (its proven bound),
:class:`ReductionCard`, and the vocabularies a card's fields draw on: :data:`CHECKS` (the predicates of ``requires``),
:data:`FEATURES` (what ``admits`` may name) and :data:`VARIANT_KEYS` (the keys of ``variants``). The table of
marginkit's own cards is :mod:`.registry`; cards added at run time, :mod:`.plugins`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module

import numpy as np

from ..core.validation import ProblemError

GRAM_MAX_SAMPLES = 4000   # smo (plans/svm_cd/svm_smo.py) forms the n × n Gram matrix up to this n (122 MiB)

# predicates a card may require of the problem in the form it runs on; a card pairs each with its own reason
CHECKS = {
    "no_kernel": lambda p: getattr(p, "kernel", None) is None,
    "no_bias": lambda p: not getattr(p, "bias", False),
    "bias": lambda p: bool(getattr(p, "bias", False)),
    "p_at_most_2": lambda p: getattr(p, "p", 2.0) <= 2.0,
    "unweighted": lambda p: getattr(p, "sample_weight", None) is None,
    "gram_fits": lambda p: getattr(p, "n", 0) <= GRAM_MAX_SAMPLES,
}


# the features of a problem beyond the narrowest form of its class, each with the predicate that says whether a problem
# uses it and what a plan must do to handle it; a card handles those it names in ``admits`` and no other: the default,
# ``admits=()``, is the narrowest form (no kernel, no offset, no sample weights), so that a plan registered without
# saying more is never offered a problem it would silently solve as another one
FEATURES = {
    "kernel": (lambda p: getattr(p, "kernel", None) is not None,
               "a kernel (kernel=...): the plan returns the dual coefficients, Solution.dual_coef"),
    "bias": (lambda p: bool(getattr(p, "bias", False)),
             "an offset (bias=True): the plan returns the offset, Solution.b"),
    "weights": (lambda p: getattr(p, "sample_weight", None) is not None,
                "sample weights (sample_weight=...): the plan scales each sample's C"),
}


def _array_kind(problem) -> str:
    backend = getattr(problem, "backend", None)
    return "numpy" if backend is None else backend.kind


# what a variant's key asks of the problem in the form the method runs on: where its arrays live (the kinds of
# core/backend), or its shape ("kernel": a kernel problem, for a class that works on the dual weights)
VARIANT_KEYS = {
    "numpy": lambda p: _array_kind(p) == "numpy",
    "array-api": lambda p: _array_kind(p) == "array-api",
    "dask": lambda p: _array_kind(p) == "dask",
    "kernel": lambda p: getattr(p, "kernel", None) is not None,
}


@dataclass(frozen=True)
class Theorem:
    """A method's proven bound, as :mod:`marginkit.bounds` evaluates it: ``label`` (paper and number, the
    ``theorem`` shown by ``bounds.check`` and the tables), ``check`` and ``records`` (``"module:function"``, imported
    on first use: the checks of one run, and the bound at every trace record) and ``constants`` (the certified
    quantities the bound is evaluated with: entries of ``problem.constants()`` or of the reference)."""

    label: str
    check: str
    records: str
    constants: tuple = ()

    def load(self, which: str = "check"):
        """The function named by ``check`` (or ``records``)."""
        module, _, name = getattr(self, which).partition(":")
        return getattr(import_module(module), name)


@dataclass(frozen=True)
class MethodCard:
    """One method on one form. ``target`` is ``"module:Class"``; the class is imported by :meth:`load`."""

    name: str
    form: str
    target: str
    paper: str = ""
    algorithm: str = ""
    converges_to: str = ""
    rate: str = ""
    # documented agreement with the reference: relative margin gap (MaxMargin) or relative objective gap
    # (other forms) that the method reaches at the default comparison budget (``marginkit compare``: 1,000
    # iterations); slow baselines document a loose value on purpose, it is their proven rate at work
    tolerance: float = 1e-4
    # the comparison budget (``cross_validate``'s ``max_iter`` unless the caller gives one; None: the plan's own
    # default): the documented cap at which ``tolerance`` is stated
    budget: int | None = None
    # the proven rate of the agreement metric as data, for ``cross_validate``'s verdict on a method that does not
    # agree at its budget: ("power", p) for O(t^-p), ("log", p) for O(1/log^p t), ("linear",), or () (none proven)
    rate_law: tuple = ()
    # a rate seen in experiments but not proven, in rate_law's format: cross_validate's verdict uses it where rate_law
    # is empty and says "observed" (never "proven") in the note
    observed_rate: tuple = ()
    requires: tuple = ()
    tags: tuple = field(default=())
    # where the method computes (core/backend): "numpy" (NumPy/SciPy), "array-api" (torch, CuPy,
    # array-api-strict: vectors stay on X's device), "dask" (a row-chunked dask.array: n-vectors stay on the workers)
    arrays: tuple = ("numpy",)
    # the classes that run instead of ``target`` on some problems: ``(key, "module:Class")`` pairs with a key of
    # VARIANT_KEYS, tried in order, the first that holds for the problem wins (``target_for``); e.g. ("dask", the
    # CoCoA+ class): one method name, one card, and the class that fits the data
    variants: tuple = ()
    # the proven bound with explicit constants that ``marginkit.bounds`` checks a run against (a Theorem), or None
    theorem: Theorem | None = None
    # the features of FEATURES the method handles beyond the narrowest form ("kernel", "bias", "weights"); a problem
    # that uses another is not offered to it
    admits: tuple = ()
    # a requirement of the card's own: ``supports(problem) -> (ok, reason)``, asked after ``arrays``, ``requires``
    # and ``admits`` hold (a plugin states what no predicate of CHECKS says); None: no more requirements
    supports: object = None
    # solve("auto")'s order among the methods a problem lists where its cost model does not decide: 1 first, then 2,
    # ...; 0: never its first choice (engine/choice.py knows the rest of a method by its tags: "interior-point",
    # "svm-coordinate", "pairwise", "dykstra" with or without "accelerated")
    preference: int = 0

    @property
    def is_reference(self) -> bool:
        """Whether this is a problem's certified reference (its card's ``"reference"`` tag): listed first, the
        yardstick of ``cross_validate``, given the solver's own options."""
        return "reference" in self.tags

    def accepts(self, problem) -> tuple[bool, str]:
        """``(True, "")`` or ``(False, reason)`` for the first requirement ``problem`` (in the form the method runs on)
        does not meet: where its arrays live (``arrays``), the predicates of ``requires``, the features of
        :data:`FEATURES` it uses that ``admits`` does not name, then the card's own ``supports``."""
        backend = getattr(problem, "backend", None)
        if backend is not None and backend.kind not in self.arrays:
            where = {"numpy": "NumPy/SciPy", "array-api": "array-API (torch, CuPy, array-api-strict)",
                     "dask": "dask"}
            return False, (f"{self.name!r} runs on {', '.join(where[a] for a in self.arrays)} data only so far; X is "
                           f"{backend.describe()}: convert it (np.asarray(X), or X.compute() for dask) or use a "
                           f"method listed by marginkit.methods(problem)")
        for check, reason in self.requires:
            if not CHECKS[check](problem):
                return False, reason
        for feature, (uses, what) in FEATURES.items():
            if feature not in self.admits and uses(problem):
                return False, (f"{self.name!r} does not declare that it solves problems with {what} (its card's "
                               f"admits does not name {feature!r}; a plan that does adds it to MethodCard.admits, "
                               "and states any further need in requires or supports)")
        if self.supports is not None:
            return _own_requirement(self, problem)
        return True, ""

    def target_for(self, problem=None) -> str:
        """The ``"module:Class"`` that runs ``problem`` (in the form the method runs on): the first variant whose key
        holds for it, else ``target`` (also without a problem)."""
        unknown = [key for key, _ in self.variants if key not in VARIANT_KEYS]
        if unknown:
            raise ProblemError(f"method {self.name!r}: variant key(s) {unknown} unknown; valid keys: "
                               f"{', '.join(VARIANT_KEYS)}")
        if problem is not None:
            for key, target in self.variants:
                if VARIANT_KEYS[key](problem):
                    return target
        return self.target

    def load(self, problem=None):
        """The plan (or reference) class that runs ``problem`` (:meth:`target_for`; ``target`` without one); its
        module is imported here, on first use."""
        target = self.target_for(problem)
        if not isinstance(target, str):   # the plan class itself, given to register_method (engine/plugins.py)
            return target
        module, _, qualname = target.partition(":")
        obj = import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
        return obj


def _own_requirement(card: MethodCard, problem) -> tuple[bool, str]:
    """``card.supports(problem)``, checked: a pair ``(ok, reason)``; anything else, or an exception inside it, is a
    ``ProblemError`` naming the card's field."""
    try:
        answer = card.supports(problem)
    except Exception as exc:  # noqa: BLE001 -- someone else's code: named, never a raw traceback from deep inside
        raise ProblemError(f"card.supports of method {card.name!r} raised {type(exc).__name__}: {exc}") from exc
    if not (isinstance(answer, tuple) and len(answer) == 2 and isinstance(answer[0], (bool, np.bool_))
            and isinstance(answer[1], str) and (answer[0] or answer[1])):
        raise ProblemError(f"card.supports of method {card.name!r} must return (True, '') or (False, reason), reason a "
                           f"non-empty string; it returned {answer!r:.80}")
    return bool(answer[0]), answer[1]


@dataclass(frozen=True)
class ReductionCard:
    source: str
    target: str
    reduction: str  # "module:Class"

    def load(self):
        module, _, name = self.reduction.partition(":")
        return getattr(import_module(module), name)()
