"""What a method accepts, read off its frozen configuration: ``marginkit.describe("fista")``.

Every first-order plan declares a frozen ``Config`` dataclass (its fields are the paper's parameters, their
defaults the plan's defaults) with ``constraints`` (:mod:`marginkit.core.params`); the run options are declared once
in :mod:`marginkit.engine.options` (:class:`~marginkit.engine.options.RunOptions`); the registry card holds the paper,
the algorithm and the proven rate. :func:`describe` puts the three together, so nothing here is written twice.

**Where the meaning of an option comes from**, first match wins:

1. ``dataclasses.field(metadata={"doc": "..."})`` on the field (the convention of a ``Config``: every field of a
   built-in plan declares one, ``theta: float = field(default=1.0, metadata={"doc": "the step θ_t ≡ θ"})``);
   an inherited field keeps the metadata of its base ``Config``;
2. :data:`SHARED_OPTION_DOCS`, for the few names that mean the same in every plan (``compiled``).

A field with neither has an empty meaning. Nothing here reads source code: the meanings are data of the classes,
so describing a method (and importing a plan) parses nothing.

**Which class is described.** A registry card may name other classes for some data (its ``variants``: on a
row-chunked dask ``X``, ``dual-cd`` runs CoCoA+ and takes ``local_epochs`` and ``aggregation``, not the NumPy plan's
options). ``describe(method, problem)`` describes the class that ``compile`` would build for that problem; without a
problem instance, the card's own class, with a line naming its variants.
"""
from __future__ import annotations

import dataclasses
import inspect
import textwrap
from dataclasses import dataclass
from typing import Any

from ..core.params import describe_kinds
from ..core.validation import ProblemError
from ..engine.registry import MethodCard
from ..engine.options import RUN_OPTION_DOCS, RunOptions
from ..engine.plugins import all_cards, reachable
from ..formulations import FORMS, Problem

__all__ = ["describe", "MethodDescription", "OptionDescription", "RUN_OPTION_DOCS", "SHARED_OPTION_DOCS"]

#: meanings of option names that every plan using them shares (rule 2 of the module docstring)
SHARED_OPTION_DOCS = {
    "compiled": "'auto' (numba when installed), True (numba, required) or False: the same epoch compiled or in "
                "NumPy",
}

_REFERENCE_OPTIONS = (
    ("solver", None, "None or an installed CVXPY solver name",
     "CVXPY solver; None tries Clarabel (tight), then Clarabel's defaults, ECOS and SCS, and keeps the best "
     "certified answer"),
    ("**solver_options", None, "the named solver's own keywords",
     "passed to the solver through CVXPY (checked against the solver's documented settings)"),
)


@dataclass(frozen=True)
class OptionDescription:
    """One option: its name, default, accepted values (the declared constraint) and meaning."""

    name: str
    default: Any
    accepts: str
    meaning: str
    kind: str = "method"     # "method" (the plan's Config), "run" (the run loop's) or "solver" (the reference's)


class _Text:
    """``str()``, ``repr()`` and the notebook display of a description: its :meth:`text`."""

    def __str__(self) -> str:
        return self.text()

    __repr__ = __str__

    def _repr_markdown_(self) -> str:   # Jupyter
        return "```text\n" + self.text() + "\n```"


@dataclass(frozen=True, repr=False)
class MethodDescription(_Text):
    """What :func:`describe` returns for one method on one problem form. ``str()`` (and the notebook display) is
    the text that ``marginkit list --method NAME`` prints."""

    name: str
    form: str
    plan: str
    summary: str
    paper: str
    algorithm: str
    converges_to: str
    rate: str
    tolerance: float
    requires: tuple[str, ...]
    via: tuple[str, ...]
    options: tuple[OptionDescription, ...]
    run_options: tuple[OptionDescription, ...]
    # the card's other classes, ``(key, "module:Class")``, listed when no problem picked one of them
    variants: tuple[tuple[str, str], ...] = ()

    def option(self, name: str) -> OptionDescription:
        """The option called ``name`` (method, solver or run option); ``ProblemError`` listing them otherwise."""
        for opt in self.options + self.run_options:
            if opt.name == name:
                return opt
        known = ", ".join(o.name for o in self.options + self.run_options)
        raise ProblemError(f"method {self.name!r} has no option {name!r}; its options: {known}")

    @property
    def defaults(self) -> dict[str, Any]:
        """``{name: default}`` of the method's own options and the run options."""
        return {o.name: o.default for o in self.options + self.run_options if not o.name.startswith("*")}

    def text(self, width: int = 100) -> str:
        """The description as plain text (what ``print`` shows)."""
        head = f"{self.name} on {self.form}" + (f" (through {' -> '.join(self.via)})" if self.via else "")
        lines = [head, "=" * len(head)]
        if self.summary:
            lines += textwrap.wrap(self.summary, width) + [""]
        for label, value in (("paper", self.paper), ("algorithm", self.algorithm),
                             ("converges to", self.converges_to), ("proven rate", self.rate),
                             ("agreement tol.", f"{self.tolerance:g}"), ("plan", self.plan)):
            if value:
                lines += textwrap.wrap(value, width, initial_indent=f"{label + ':':<16}", subsequent_indent=" " * 16)
        for reason in self.requires:
            lines += textwrap.wrap(reason, width, initial_indent=f"{'requires:':<16}", subsequent_indent=" " * 16)
        for key, target in self.variants:
            what = f"{key} data" if key in ("numpy", "array-api", "dask") else f"{key} problems"
            lines += textwrap.wrap(f"on {what}: {target} (its options: describe the method with such a problem)",
                                   width, initial_indent=f"{'variant:':<16}", subsequent_indent=" " * 16)
        own = [o for o in self.options if o.kind != "run"]
        title = "solver options" if own and own[0].kind == "solver" else "options"
        lines += ["", f"{title}:" if own else f"{title}: none of its own"]
        lines += _option_lines(own, width)
        if self.run_options:
            lines += ["", "run options (every first-order method; constraints checked by the run loop):"]
            for o in self.run_options:
                lines += textwrap.wrap(f"{o.name} = {o.default!r}: {o.meaning}", width, initial_indent="  ",
                                       subsequent_indent=" " * 6)
        return "\n".join(lines)


class MethodDescriptions(_Text, tuple):
    """Several :class:`MethodDescription` (one per problem form a method name exists on); prints them all."""

    def text(self, width: int = 100) -> str:
        return "\n\n".join(d.text(width) for d in self)


def _option_lines(options, width: int) -> list[str]:
    lines = []
    for o in options:
        default = "" if o.name.startswith("*") else f" = {o.default!r}"
        lines.append(f"  {o.name}{default}")
        if o.accepts:
            lines += textwrap.wrap(f"accepts: {o.accepts}", width, initial_indent=" " * 6, subsequent_indent=" " * 8)
        if o.meaning:
            lines += textwrap.wrap(o.meaning, width, initial_indent=" " * 6, subsequent_indent=" " * 6)
    return lines


def config_options(config_cls) -> tuple[OptionDescription, ...]:
    """The options of a plan's ``Config`` dataclass, in declaration order, with defaults, declared constraints and
    meanings."""
    if config_cls is None or not dataclasses.is_dataclass(config_cls):
        return ()
    constraints = getattr(config_cls, "constraints", {}) or {}
    out = []
    for f in dataclasses.fields(config_cls):
        default = (f.default if f.default is not dataclasses.MISSING else
                   None if f.default_factory is dataclasses.MISSING else f.default_factory())
        meaning = f.metadata.get("doc") or SHARED_OPTION_DOCS.get(f.name, "")
        out.append(OptionDescription(f.name, default, describe_kinds(constraints.get(f.name)), meaning))
    return tuple(out)


def run_options(plan_cls) -> tuple[OptionDescription, ...]:
    """The run loop's options (:class:`~marginkit.engine.options.RunOptions`) with this plan's defaults of
    ``max_iter`` and ``tol``."""
    defaults = {"max_iter": getattr(plan_cls, "default_max_iter", None), "tol": getattr(plan_cls, "default_tol", None)}
    kinds = RunOptions.constraints
    return tuple(OptionDescription(f.name, defaults.get(f.name, f.default), describe_kinds(kinds.get(f.name)),
                                   RUN_OPTION_DOCS[f.name], kind="run") for f in dataclasses.fields(RunOptions))


def _summary(cls) -> str:
    """The first paragraph of the class docstring, as one line of plain text."""
    first = (inspect.getdoc(cls) or "").split("\n\n")[0]
    text = " ".join(first.split()).replace("``", "")
    return text[:-2] + "." if text.endswith("::") else text


# finding the cards -------------------------------------------------------------------------------------------
def _form_of(problem) -> str | None:
    if problem is None:
        return None
    if isinstance(problem, Problem) or (isinstance(problem, type) and issubclass(problem, Problem)):
        return problem.form
    if isinstance(problem, str):
        for form, cls in FORMS.items():
            if problem in (form, cls.__name__):
                return form
        raise ProblemError(f"problem must be a marginkit problem, a problem class or a form name "
                           f"({', '.join(sorted(FORMS))}); got {problem!r}")
    raise ProblemError(f"problem must be a marginkit problem, a problem class or a form name; "
                       f"got {type(problem).__name__}")


def _cards_for(method: str, form: str | None) -> list[tuple[MethodCard, tuple[str, ...]]]:
    if form is None:
        return [(c, ()) for c in all_cards() if c.name == method]
    found = []
    for target, path in reachable(form):
        for c in all_cards():   # the registry's and the added ones (register_method, plugins)
            if c.name == method and c.form == target and not (path and c.is_reference):
                found.append((c, ((form,) + path) if path else ()))
        if found:
            break
    return found


def _describe_card(card: MethodCard, via: tuple[str, ...], problem: Problem | None = None) -> MethodDescription:
    """The description of the class ``card`` runs ``problem`` with (the form the method runs on), or of its own
    class without a problem (its variants then listed)."""
    requires = tuple(reason for _, reason in card.requires)
    if card.is_reference:   # its class imports CVXPY: described from the card and the reference's signature
        opts = tuple(OptionDescription(n, d, a, m, kind="solver") for n, d, a, m in _REFERENCE_OPTIONS)
        return MethodDescription(card.name, card.form, card.target, "The certified CVXPY reference of the problem.",
                                 card.paper, card.algorithm, card.converges_to, card.rate, card.tolerance,
                                 requires, via, opts, ())
    cls = card.load(problem)
    variants = tuple((key, _qualified(target)) for key, target in card.variants) if problem is None else ()
    return MethodDescription(card.name, card.form, _qualified(card.target_for(problem)), _summary(cls), card.paper,
                             card.algorithm, card.converges_to, card.rate, card.tolerance, requires, via,
                             config_options(getattr(cls, "Config", None)), run_options(cls), variants=variants)


def _qualified(target) -> str:
    """``"module:Class"`` of a card's target, which a card registered from outside may give as the class itself."""
    return target if isinstance(target, str) else f"{target.__module__}:{target.__qualname__}"


def describe(method: str, problem: Problem | type | str | None = None) -> MethodDescription | MethodDescriptions:
    """The options of ``method``: their defaults, accepted values and meanings, with the method's paper,
    algorithm and proven rate (from its registry card) and the run options every first-order method shares.

    ``problem`` (a problem, a problem class or a form name such as ``"SoftMarginSVM"``) picks the form when the
    name exists on several (``"fista"``, ``"diagonal"``, ``"cvxpy"``, ...); without it, every form's description
    is returned (a :class:`MethodDescriptions`). With a problem instance the method must apply to it (the reason
    is given otherwise), and the options are those it accepts on that problem's data: ``describe("dual-cd",
    problem)`` with a row-chunked dask ``X`` lists CoCoA+'s ``local_epochs`` and ``aggregation`` (the registry
    card's variant), with NumPy data ``shrinking``. ``print(describe("fista", "SoftMarginSVM"))`` shows the text;
    ``marginkit list --method fista`` prints the same.

    Example::

        >>> import marginkit as mk
        >>> d = mk.describe("dual-accelerated")
        >>> d.defaults["theta"], d.defaults["max_iter"]
        (1.0, 1000)
    """
    if not isinstance(method, str):
        raise ProblemError(f"method must be a method name (a string); got {method!r}")
    form = _form_of(problem)
    if isinstance(problem, Problem):
        from ..engine.graph import resolve   # the graph imports networkx: only when a problem instance is given
        card, chain = resolve(problem, method)
        via = tuple([problem.form] + [red.target for red, _ in chain]) if len(chain) else ()
        return _describe_card(card, via, chain.reduced)
    found = _cards_for(method, form)
    if not found:
        names = sorted({c.name for c in all_cards()})
        where = f" on {form}" if form else ""
        raise ProblemError(f"method {method!r} does not exist{where}; methods: {', '.join(names)}")
    if len(found) == 1:
        return _describe_card(*found[0])
    return MethodDescriptions(_describe_card(c, via) for c, via in found)
