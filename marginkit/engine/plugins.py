"""The door for methods from outside the package: :func:`register_method` and the entry-point group
``marginkit.methods``.

The registry (:mod:`.registry`) is the table of the methods marginkit ships; this module keeps the cards added to
it at run time, and everything that lists or resolves methods (:mod:`.graph`: ``methods()``, ``solve``,
``compile``, ``cross_validate``, ``marginkit compare``, ``MarginClassifier``) reads the two together through
:func:`all_cards`. A card is checked when it is added, so that a mistake is reported where it is made and not at
the first solve: a ``(name, form)`` that already exists (or a name the form already reaches through a reduction), a
form marginkit does not have, a card that declares nothing it supports (no array kind), a requirement that is not a
predicate of :data:`~marginkit.engine.registry.CHECKS`, a feature in ``admits`` that is not one of
:data:`~marginkit.engine.registry.FEATURES`, a ``supports`` that is not callable, or a target that is not a plan class
is a :class:`~marginkit.ProblemError` naming the problem.

**The narrowest form by default.** A card offers its method only on problems without a kernel, an offset or sample
weights unless its ``admits`` names them (``admits=("bias",)``: the plan returns the offset ``Solution.b``;
``"kernel"``: the dual coefficients ``Solution.dual_coef``; ``"weights"``: it scales each sample's ``C``), and only
on NumPy/SciPy data unless its ``arrays`` names more; ``supports(problem) -> (ok, reason)`` states any other
requirement of its own.

**Entry points.** An installed package declares, in its ``pyproject.toml``::

    [project.entry-points."marginkit.methods"]
    my-method = "my_package.plans:CARD"

where ``CARD`` is a :class:`~marginkit.engine.registry.MethodCard`, a list or tuple of cards, or a callable returning
one of these. The group is read once, lazily, the first time methods are listed or resolved (never by
``import marginkit``); an entry point that fails to load or gives an invalid card is skipped with a
:class:`PluginWarning` that names it, and the other methods stay available.

A plan author imports what a plan needs from here: :class:`IterationPlan` (the base class and its hooks,
docs/ARCHITECTURE.md "Adding a method"), :class:`Solution`, the parameter constraints (:class:`Interval`,
:class:`Options`, :class:`Boolean`, :class:`IsCallable`, :class:`InstanceOf`), :func:`parse_warm_start` (a
``Result`` or a vector given as ``warm_start``, checked), :class:`MethodCard`, and :func:`register_method`;
:func:`marginkit.testing.check_plan` then holds the plan to the contract of marginkit's own.
"""
from __future__ import annotations

import math
import warnings
from contextlib import contextmanager
from importlib import metadata

from ..core.params import Boolean, InstanceOf, Interval, IsCallable, Options
from ..core.solution import Solution
from ..core.validation import ProblemError
from ..core.warmstart import parse_warm_start
from ..formulations import FORMS
from .registry import CHECKS, FEATURES, METHODS, REDUCTIONS, VARIANT_KEYS, MethodCard, Theorem
from .runloop import Budget, IterationPlan

__all__ = ["ENTRY_POINT_GROUP", "Boolean", "Budget", "InstanceOf", "Interval", "IsCallable", "IterationPlan",
           "MethodCard", "Options", "PluginWarning", "Solution", "Theorem", "added_cards", "all_cards", "generation",
           "parse_warm_start", "register_method", "registered", "unregister_method"]

ENTRY_POINT_GROUP = "marginkit.methods"
ARRAY_KINDS = ("numpy", "array-api", "dask")
RATE_LAWS = {"power": 2, "log": 2, "linear": 1}   # the kinds crossval's verdict understands, with their tuple length


class PluginWarning(UserWarning):
    """An entry point of the group ``marginkit.methods`` could not be loaded or gave an invalid card: its methods are
    left out, everything else works."""


_ADDED: dict[tuple[str, str], MethodCard] = {}   # (name, form) -> card, in the order they were added
_STATE = {"generation": 0, "entry_points": "unread"}   # "unread", "reading", "read"


def generation() -> int:
    """A counter that changes whenever the added cards change (the reduction graph is rebuilt on a new value)."""
    _load_entry_points()
    return _STATE["generation"]


def added_cards() -> tuple[MethodCard, ...]:
    """The cards added by :func:`register_method` and the entry points, in the order they were added."""
    _load_entry_points()
    return tuple(_ADDED.values())


def all_cards() -> tuple[MethodCard, ...]:
    """The registry's cards, then the added ones: every method marginkit can list and resolve."""
    return METHODS + added_cards()


def _where(card: MethodCard) -> str:
    return "marginkit's registry" if card in METHODS else "register_method (or an installed plugin)"


def reachable(form: str, card: MethodCard | None = None) -> list[tuple[str, tuple[str, ...]]]:
    """``(form, path)`` for ``form`` and every form reachable from it through the reduction table, breadth first;
    with ``card``, only through reductions that let its method through. Reductions are few and cheap to build; their
    module is part of the engine."""
    out, frontier, seen = [(form, ())], [(form, ())], {form}
    while frontier:
        nxt = []
        for source, path in frontier:
            for r in REDUCTIONS:
                if r.source != source or r.target in seen:
                    continue
                if card is None or r.load().lets_through(card):
                    seen.add(r.target)
                    nxt.append((r.target, path + (r.target,)))
        out += nxt
        frontier = nxt
    return out


def _reached_through_reductions(name: str, form: str) -> str | None:
    """The form through which ``form`` already reaches a method called ``name`` (a reduction that lets it through),
    or None."""
    return next((c.form for c in all_cards() if c.name == name and c.form != form
                 and any(target == c.form for target, _ in reachable(form, c)[1:])), None)


def _check_card(card) -> None:
    """Every rule of the module docstring; a ``ProblemError`` naming the card, the field and what is wrong."""
    if not isinstance(card, MethodCard):
        raise ProblemError(f"card must be a marginkit MethodCard (from marginkit import MethodCard); got "
                           f"{type(card).__name__} {card!r:.80}")
    name, form = card.name, card.form
    if not isinstance(name, str) or not name.strip() or name != name.strip() or "," in name:
        raise ProblemError(f"card.name must be a non-empty method name without spaces at its ends or commas (the "
                           f"command line splits --methods on them); got {name!r}")
    if any(c.is_reference and c.name == name for c in METHODS):
        raise ProblemError(f"card.name {name!r} is the certified reference of every form and cannot be registered")
    if form not in FORMS:
        raise ProblemError(f"card.form of method {name!r} must be one of {', '.join(FORMS)}; got {form!r}")
    target = card.target
    if isinstance(target, str):
        module, sep, qualname = target.partition(":")
        if not (module and sep and qualname):
            raise ProblemError(f"card.target of method {name!r} must be a plan class or 'module:Class'; got {target!r}")
    elif not (isinstance(target, type) and issubclass(target, IterationPlan)):
        raise ProblemError(f"card.target of method {name!r} must be a subclass of marginkit's IterationPlan (or "
                           f"'module:Class' naming one); got {target!r}")
    variants = getattr(card, "variants", ())
    if not isinstance(variants, tuple) or not all(
            isinstance(v, tuple) and len(v) == 2 and v[0] in VARIANT_KEYS
            and (isinstance(v[1], str) and ":" in v[1] or isinstance(v[1], type) and issubclass(v[1], IterationPlan))
            for v in variants):
        raise ProblemError(f"card.variants of method {name!r} must be a tuple of (key, plan class or 'module:Class') "
                           f"pairs with a key of {', '.join(VARIANT_KEYS)}; got {variants!r}")
    arrays = card.arrays
    if not isinstance(arrays, tuple) or not arrays or not set(arrays) <= set(ARRAY_KINDS):
        raise ProblemError(f"card.arrays of method {name!r} must be a non-empty tuple of {ARRAY_KINDS} (where the "
                           f"method computes); got {arrays!r}: a card that supports no data is no method")
    requires = card.requires
    if not isinstance(requires, tuple) or not all(isinstance(r, tuple) and len(r) == 2 for r in requires):
        raise ProblemError(f"card.requires of method {name!r} must be a tuple of (predicate, reason) pairs; got "
                           f"{requires!r}")
    for predicate, reason in requires:
        if predicate not in CHECKS:
            raise ProblemError(f"card.requires of method {name!r}: unknown predicate {predicate!r}; the predicates: "
                               f"{', '.join(CHECKS)}")
        if not isinstance(reason, str) or not reason:
            raise ProblemError(f"card.requires of method {name!r}: the reason for {predicate!r} must be the text a "
                               f"user sees when the problem does not meet it; got {reason!r}")
    admits = getattr(card, "admits", ())
    if not isinstance(admits, tuple) or not set(admits) <= set(FEATURES):
        raise ProblemError(f"card.admits of method {name!r} must be a tuple of the features it solves beyond the "
                           f"narrowest form, from {', '.join(map(repr, FEATURES))}; got {admits!r}")
    supports = getattr(card, "supports", None)
    if supports is not None and not callable(supports):
        raise ProblemError(f"card.supports of method {name!r} must be None or a function problem -> (ok, reason); "
                           f"got {supports!r:.80}")
    tol = card.tolerance
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not math.isfinite(tol) or tol < 0:
        raise ProblemError(f"card.tolerance of method {name!r} must be a finite number >= 0; got {tol!r}")
    budget = card.budget
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int) or budget < 1):
        raise ProblemError(f"card.budget of method {name!r} must be None or a positive int; got {budget!r}")
    for field_name in ("rate_law", "observed_rate"):
        law = getattr(card, field_name, ())
        if law != () and not (isinstance(law, tuple) and law and law[0] in RATE_LAWS and
                              len(law) == RATE_LAWS[law[0]] and all(isinstance(p, (int, float)) and p > 0
                                                                    for p in law[1:])):
            raise ProblemError(f"card.{field_name} of method {name!r} must be (), ('power', p), ('log', p) or "
                               f"('linear',) with p > 0; got {law!r}")
    theorem = getattr(card, "theorem", None)
    if theorem is not None and not isinstance(theorem, Theorem):
        raise ProblemError(f"card.theorem of method {name!r} must be None or a Theorem (the bound marginkit.bounds "
                           f"evaluates); got {theorem!r}")
    if not isinstance(card.tags, tuple) or not all(isinstance(t, str) for t in card.tags):
        raise ProblemError(f"card.tags of method {name!r} must be a tuple of strings; got {card.tags!r}")
    for other in all_cards():
        if (other.name, other.form) == (name, form):
            raise ProblemError(f"method {name!r} already exists for {form} (in {_where(other)}): choose another name, "
                               f"or unregister_method({name!r}, {form!r}) first")
    through = _reached_through_reductions(name, form)
    if through is not None:
        raise ProblemError(f"method {name!r} already solves {form} through the reduction to {through}: choose "
                           "another name")


def register_method(card: MethodCard) -> MethodCard:
    """Add ``card`` to the methods marginkit lists and resolves: ``methods()``, ``solve``, ``compile``,
    ``cross_validate``, ``marginkit compare`` (for a plugin installed through the entry-point group
    ``marginkit.methods``) and ``MarginClassifier(method=...)``. ``card.target`` is the plan class itself or
    ``"module:Class"`` (imported at the first compile). Returns the card. A card that exists, or that is not valid
    (see the module docstring), is a ``ProblemError`` naming what is wrong; nothing is added then."""
    _load_entry_points()
    _check_card(card)
    _ADDED[(card.name, card.form)] = card
    _STATE["generation"] += 1
    return card


def unregister_method(name: str, form: str | None = None) -> tuple[MethodCard, ...]:
    """Remove the added method ``name`` (on ``form`` only, when given) and return the cards removed. The registry's
    own methods cannot be removed; a name that was not added is a ``ProblemError``."""
    _load_entry_points()
    gone = [key for key in _ADDED if key[0] == name and (form is None or key[1] == form)]
    if not gone:
        builtin = any(c.name == name and (form is None or c.form == form) for c in METHODS)
        why = "it is one of marginkit's own methods" if builtin else "no such method was added"
        raise ProblemError(f"cannot unregister method {name!r}{'' if form is None else f' on {form}'}: {why}")
    removed = tuple(_ADDED.pop(key) for key in gone)
    _STATE["generation"] += 1
    return removed


@contextmanager
def registered(card: MethodCard):
    """``with registered(card): ...``: the method exists inside the block and is removed after it (tests,
    notebooks, :func:`marginkit.testing.check_plan`)."""
    register_method(card)
    try:
        yield card
    finally:
        _ADDED.pop((card.name, card.form), None)
        _STATE["generation"] += 1


def _cards_of(value, where: str) -> list[MethodCard]:
    if callable(value) and not isinstance(value, (MethodCard, type)):
        value = value()
    if isinstance(value, MethodCard):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(c, MethodCard) for c in value):
        return list(value)
    raise ProblemError(f"{where} must give a MethodCard, a list of them, or a callable returning either; got "
                       f"{type(value).__name__}")


def _load_entry_points() -> None:
    """Read the group ``marginkit.methods`` once. The state is set first, so that a plugin which lists methods while
    it is imported sees the registry, not a recursion."""
    if _STATE["entry_points"] != "unread":
        return
    _STATE["entry_points"] = "reading"
    try:
        points = metadata.entry_points(group=ENTRY_POINT_GROUP)
    except Exception as exc:  # noqa: BLE001 -- broken metadata: the registry's own methods still work
        warnings.warn(f"marginkit: the entry points of group {ENTRY_POINT_GROUP!r} could not be read ({exc!r}); "
                      "no plugin method is available", PluginWarning, stacklevel=3)
        points = ()
    for ep in points:
        where = f"entry point {ep.name!r} ({ep.value}) of group {ENTRY_POINT_GROUP!r}"
        try:
            for card in _cards_of(ep.load(), where):
                _check_card(card)
                _ADDED[(card.name, card.form)] = card
        except Exception as exc:  # noqa: BLE001 -- someone else's code: a plugin never breaks marginkit
            warnings.warn(f"marginkit: {where} was skipped: {type(exc).__name__}: {exc}", PluginWarning, stacklevel=3)
    _STATE["generation"] += 1
    _STATE["entry_points"] = "read"
