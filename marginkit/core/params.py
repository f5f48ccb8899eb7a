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
"""
from __future__ import annotations

import dataclasses
import functools
import numbers
from dataclasses import dataclass

import numpy as np

from .validation import ProblemError


@dataclass(frozen=True)
class Interval:
    """A real (``float``) or integer (``int``) value in ``[left, right]`` (``None`` = unbounded); ``closed`` is
    ``"both"``, ``"left"``, ``"right"`` or ``"neither"``."""

    number: type             # int or float
    left: float | None = None
    right: float | None = None
    closed: str = "both"

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
    """One of the given strings."""

    def __init__(self, *values: str):
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
        self.types, self.name = types, name

    def accepts(self, v) -> bool:
        return isinstance(v, self.types)

    def __str__(self):
        return self.name or "an instance of " + " or ".join(t.__name__ for t in self.types)


class ListOf:
    """A list or tuple whose items are all of type ``item``."""

    def __init__(self, item: type, name: str | None = None):
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


def make_config(config_cls, method: str, options: dict, extra_known: tuple = ()):
    """The frozen config of ``config_cls`` from ``options``: unknown names and every declared constraint are
    checked here, once, with one message format."""
    names = _field_names(config_cls)
    unknown = sorted(set(options) - set(names))
    if unknown:
        known = ", ".join(names) or "none"
        extra = f"; run options: {', '.join(extra_known)}" if extra_known else ""
        raise ProblemError(f"unknown option(s) {unknown} for method {method!r}; its options: {known}{extra}")
    config = config_cls(**options)
    constraints = getattr(config_cls, "constraints", {})
    for name in options:   # a default is the class's own, accepted by its declaration (checked by the test suite)
        if name in constraints:
            check_value(method, name, getattr(config, name), constraints[name])
    validate = getattr(config, "validate", None)
    if validate is not None:   # cross-field rules the declarations cannot say
        validate(method)
    return config
