"""Declared parameter constraints, checked once (scikit-learn's ``_parameter_constraints`` idea, written small).

A plan's configuration is a frozen dataclass whose fields are the paper's parameters with their defaults; its
class attribute ``constraints`` maps a field name to a list of accepted kinds, any of which may match::

    @dataclass(frozen=True)
    class Config:
        loss: str = "exp"
        theta: float = 1.0
        horizon: int | None = None
        constraints: ClassVar[dict] = {"loss": [Options("exp", "logistic")],
                                       "theta": [Interval(float, 0, 1, closed="right")],
                                       "horizon": [None, Interval(int, 1, None)]}

:func:`make_config` builds the dataclass from user options and raises one :class:`ProblemError` format for every
violation: ``"<method>: <name> must be <what>; got <value>"``; unknown names list the valid ones.

A declaration is checked where it is written: ``Options({"a", "b"})`` (scikit-learn's ``StrOptions`` habit: one set)
would accept no string at all, so every constraint class refuses a malformed declaration when it is built
(:class:`ProblemError` saying how to write it), and :func:`check_declarations` (called by :func:`make_config` at a
class's first compile, and by ``marginkit.testing.check_plan``) refuses a ``constraints`` table that is not a dict of
lists of constraints, and a default that its own declaration rejects (:class:`~.errors.PlanError`).
"""
from __future__ import annotations

import dataclasses
import functools
import numbers
from dataclasses import dataclass

import numpy as np

from .errors import PlanError
from .validation import ProblemError


def _refuse(what: str, got, how: str):
    raise ProblemError(f"{what}: {how}; got {got!r:.80}")


@dataclass(frozen=True)
class Interval:
    """A real (``float``) or integer (``int``) value in ``[left, right]`` (``None`` = unbounded); ``closed`` is
    ``"both"``, ``"left"``, ``"right"`` or ``"neither"``."""

    number: type             # int or float (numbers.Integral and numbers.Real, scikit-learn's spelling, are read so)
    left: float | None = None
    right: float | None = None
    closed: str = "both"

    def __post_init__(self):
        number = {numbers.Integral: int, numbers.Real: float}.get(self.number, self.number)
        if number not in (int, float):
            _refuse("Interval", self.number, "its first argument is the kind of number, int or float "
                    "(Interval(float, 0, 1))")
        object.__setattr__(self, "number", number)
        if self.closed not in ("both", "left", "right", "neither"):
            _refuse("Interval", self.closed, "closed must be 'both', 'left', 'right' or 'neither'")
        for side in ("left", "right"):
            bound = getattr(self, side)
            if bound is not None and (isinstance(bound, bool) or not isinstance(bound, numbers.Real)
                                      or np.isnan(bound)):
                _refuse("Interval", bound, f"{side} must be a number or None (unbounded)")
        if self.left is not None and self.right is not None and (
                self.left > self.right or (self.left == self.right and self.closed != "both")):
            _refuse("Interval", (self.left, self.right, self.closed), "the interval is empty, no value would "
                    "be accepted: make left smaller than right (or equal to it with closed='both')")

    def accepts(self, v) -> bool:
        if isinstance(v, bool):
            return False
        if self.number is int:
            if not isinstance(v, (numbers.Integral, np.integer)):
                return False
        elif not isinstance(v, numbers.Real) or not np.isfinite(float(v)):
            return False
        lo_ok = self.left is None or (v >= self.left if self.closed in ("both", "left") else v > self.left)
        hi_ok = self.right is None or (v <= self.right if self.closed in ("both", "right") else v < self.right)
        return bool(lo_ok and hi_ok)

    def __str__(self):
        what = "an int" if self.number is int else "a finite number"
        lb = "[" if self.closed in ("both", "left") else "("
        rb = "]" if self.closed in ("both", "right") else ")"
        lo = "-inf" if self.left is None else f"{self.left:g}"
        hi = "inf" if self.right is None else f"{self.right:g}"
        return f"{what} in {lb}{lo}, {hi}{rb}"


class Options:
    """One of the given strings, each given as its own argument: ``Options("linear", "uniform")``."""

    def __init__(self, *values: str):
        if len(values) == 1 and isinstance(values[0], (set, frozenset, list, tuple, dict)):
            given = values[0]
            example = ", ".join(repr(v) for v in sorted(given, key=str)) if all(isinstance(v, str) for v in given) \
                else "'linear', 'uniform'"
            _refuse("Options", given, f"pass the strings as separate arguments, Options({example}) (a "
                    f"{type(given).__name__} as one argument is one value, which no string equals)")
        if not values:
            _refuse("Options", values, "declare at least one accepted string, Options('linear', 'uniform')")
        wrong = [v for v in values if not isinstance(v, str)]
        if wrong:
            _refuse("Options", wrong[0], "every accepted value is a string (for numbers use Interval, for True/"
                    "False Boolean(), for None put None beside Options in the list: [None, Options('a', 'b')])")
        self.values = tuple(values)

    def accepts(self, v) -> bool:
        return isinstance(v, str) and v in self.values

    def __str__(self):
        return "one of " + ", ".join(repr(v) for v in self.values)


class Boolean:
    def accepts(self, v) -> bool:
        return isinstance(v, (bool, np.bool_))

    def __str__(self):
        return "a bool"


class IsCallable:
    def accepts(self, v) -> bool:
        return callable(v)

    def __str__(self):
        return "a callable"


class InstanceOf:
    def __init__(self, *types: type, name: str | None = None):
        if not types or not all(isinstance(t, type) for t in types):
            _refuse("InstanceOf", types, "pass the accepted classes as separate arguments, InstanceOf(str, "
                    "os.PathLike)")
        if name is not None and not isinstance(name, str):
            _refuse("InstanceOf", name, "name must be None or the text shown to a user ('a file path')")
        self.types, self.name = types, name

    def accepts(self, v) -> bool:
        return isinstance(v, self.types)

    def __str__(self):
        return self.name or "an instance of " + " or ".join(t.__name__ for t in self.types)


class ListOf:
    """A list or tuple whose items are all of type ``item``."""

    def __init__(self, item: type, name: str | None = None):
        if not isinstance(item, type):
            _refuse("ListOf", item, "item must be the class of the items, ListOf(str)")
        if name is not None and not isinstance(name, str):
            _refuse("ListOf", name, "name must be None or the text shown to a user ('a list of method names')")
        self.item, self.name = item, name

    def accepts(self, v) -> bool:
        return isinstance(v, (list, tuple)) and all(isinstance(x, self.item) for x in v)

    def __str__(self):
        return self.name or f"a list of {self.item.__name__}"


def check_values(owner: str, values: dict, constraints: dict) -> None:
    """Every ``values[name]`` that ``constraints`` declares, checked with :func:`check_value` (one message format for
    a plan's ``Config``, the run options, ``cross_validate`` and the estimator)."""
    for name, kinds in constraints.items():
        if name in values:
            check_value(owner, name, values[name], kinds)


def describe_kinds(kinds) -> str:
    """The accepted values of a declaration, as its messages and :func:`marginkit.describe` say them."""
    return " or ".join("None" if k is None else str(k) for k in kinds or ())


def check_value(method: str, name: str, value, kinds) -> None:
    for k in kinds:
        if (k is None and value is None) or (k is not None and k.accepts(value)):
            return
    raise ProblemError(f"{method}: {name} must be {describe_kinds(kinds)}; got {value!r}")


@functools.cache
def _field_names(config_cls) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(config_cls))


@functools.cache
def field_set(config_cls) -> frozenset:
    """The field names of a ``Config`` class as a set (a plan reads its config fields as attributes)."""
    return frozenset(_field_names(config_cls))


def config_fields(config_cls) -> list[str]:
    return list(_field_names(config_cls))


def declaration_errors(config_cls, kind: str | None = None) -> list[str]:
    """What is wrong with the declarations of ``config_cls`` (a ``Config`` class or the run options), one sentence
    each saying what to change. ``kind``: ``"declaration"`` (``constraints`` not a dict of lists of constraints, a
    name that is not a field), ``"default"`` (a field whose default its own declaration rejects), or None (both).
    Fields without a declaration are not listed (``check_plan``'s ``declared-constraints`` obligation names them)."""
    return [message for k, message in _declaration_errors(config_cls) if kind is None or k == kind]


@functools.cache
def _declaration_errors(config_cls) -> tuple[tuple[str, str], ...]:
    constraints = getattr(config_cls, "constraints", {})
    if not isinstance(constraints, dict):
        return (("declaration", f"Config.constraints must be a dict of field name -> list of accepted kinds; got "
                                f"{type(constraints).__name__}"),)
    errors = []
    fields = {f.name: f for f in dataclasses.fields(config_cls)}
    for name, kinds in constraints.items():
        if name not in fields:
            errors.append(("declaration", f"Config.constraints names {name!r}, which is not a field of Config"))
            continue
        if not isinstance(kinds, (list, tuple)) or not all(k is None or callable(getattr(k, "accepts", None))
                                                           for k in kinds):
            errors.append(("declaration", f"Config.constraints[{name!r}] must be a list of accepted kinds (None, "
                                          f"Interval, Options, Boolean(), IsCallable(), InstanceOf, ListOf), e.g. "
                                          f"[Options('a', 'b')]; got {kinds!r:.80}"))
            continue
        field = fields[name]
        if field.default is not dataclasses.MISSING:
            default = field.default
        elif field.default_factory is not dataclasses.MISSING:
            default = field.default_factory()
        else:
            continue
        if not any((k is None and default is None) or (k is not None and k.accepts(default)) for k in kinds):
            errors.append(("default", f"the default of {name!r}, {default!r:.60}, is not accepted by its own "
                                      f"declaration ({describe_kinds(kinds)}): change the default or the declaration "
                                      "in Config"))
    return tuple(errors)


def check_declarations(config_cls, method: str) -> None:
    """:class:`~.errors.PlanError` naming the first of :func:`declaration_errors` of ``config_cls``: a plan whose own
    defaults break its declarations cannot be compiled with its defaults, and says so at its first compile."""
    errors = _declaration_errors(config_cls)
    if errors:
        raise PlanError(f"{method}: {errors[0][1]}" + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""))


def make_config(config_cls, method: str, options: dict, extra_known: tuple = ()):
    """The frozen config of ``config_cls`` from ``options``: the declarations (:func:`check_declarations`, once per
    class), unknown names and every declared constraint are checked here, with one message format."""
    check_declarations(config_cls, method)
    names = _field_names(config_cls)
    unknown = sorted(set(options) - set(names))
    if unknown:
        known = ", ".join(names) or "none"
        extra = f"; run options: {', '.join(extra_known)}" if extra_known else ""
        raise ProblemError(f"unknown option(s) {unknown} for method {method!r}; its options: {known}{extra}")
    config = config_cls(**options)
    constraints = getattr(config_cls, "constraints", {})
    for name in options:   # a default is the class's own, accepted by its declaration (check_declarations)
        if name in constraints:
            check_value(method, name, getattr(config, name), constraints[name])
    validate = getattr(config, "validate", None)
    if validate is not None:   # cross-field rules the declarations cannot say
        validate(method)
    return config
