"""The reduction graph (CVXPY's reductions made searchable with networkx).

Nodes are problem *forms* (the class names of the problems, plus internal forms such as the SVM dual).
Edges are :class:`Reduction` objects: ``accepts(problem) -> (bool, reason)``, ``apply(problem) ->
(new_problem, inverse_data)`` and ``invert(solution, inverse_data) -> solution``. Methods are attached to
the form they accept, with a ``supports(form) -> (bool, reason)`` check for options such as a bias or a
kernel. ``solve(problem, method)`` = find the path from the problem to the form the method accepts,
apply, run, invert.

Plans register themselves with :func:`register_method`; reductions with :func:`register_reduction`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import networkx as nx

from ._validation import ProblemError

GRAPH = nx.MultiDiGraph()


@dataclass
class MethodSpec:
    """A method attached to a form. ``build(form_problem, **params)`` returns an iteration plan (or, for
    ``cvxpy``, the reference runner). The descriptive fields feed the README's method table."""

    name: str
    form: str
    build: Callable
    supports: Callable = field(default=lambda prob: (True, ""))
    paper: str = ""
    algorithm: str = ""
    converges_to: str = ""
    rate: str = ""
    # documented agreement with the reference: relative margin gap (MaxMargin) or relative objective gap
    # (other forms) that the method reaches at the default comparison budget (``marginkit compare``: 1,000
    # iterations); slow baselines document a loose value on purpose, it is their proven rate at work
    tolerance: float = 1e-4


class Reduction:
    """Map a problem of form ``source`` to one of form ``target`` and a solution back."""

    source: str = ""
    target: str = ""
    methods: tuple | None = None  # if set, only these methods of the target form apply through this edge

    def accepts(self, problem) -> tuple[bool, str]:
        return True, ""

    def apply(self, problem):
        raise NotImplementedError

    def invert(self, solution, inverse_data):
        return solution

    def __repr__(self):
        return f"{type(self).__name__}({self.source} -> {self.target})"


def register_method(name: str, form: str, supports=None, **info):
    """Decorator: attach a plan class (or builder) to ``form`` under the canonical ``name``."""

    def deco(builder):
        spec = MethodSpec(name=name, form=form, build=builder,
                          supports=supports or (lambda prob: (True, "")), **info)
        GRAPH.add_node(form)
        GRAPH.nodes[form].setdefault("methods", {})[name] = spec
        return builder
    return deco


def register_reduction(reduction: Reduction) -> Reduction:
    GRAPH.add_edge(reduction.source, reduction.target, reduction=reduction)
    return reduction


def _load_plans():
    # importing the plan modules registers their methods and reductions
    from . import plans  # noqa: F401
    from . import reference  # noqa: F401


def _walk(problem, max_depth: int = 3):
    """Yield ``(form_problem, chain)`` for every form reachable by accepting reductions (BFS)."""
    _load_plans()
    frontier = [(problem, [])]
    seen = {problem.form}
    yield problem, []
    for _ in range(max_depth):
        nxt = []
        for prob, chain in frontier:
            if prob.form not in GRAPH:
                continue
            for _, target, data in GRAPH.out_edges(prob.form, data=True):
                red = data["reduction"]
                ok, _ = red.accepts(prob)
                if not ok or target in seen:
                    continue
                new_prob, inv = red.apply(prob)
                link = chain + [(red, inv)]
                seen.add(target)
                yield new_prob, link
                nxt.append((new_prob, link))
        frontier = nxt


def _candidates(problem):
    for prob, chain in _walk(problem):
        specs = GRAPH.nodes[prob.form].get("methods", {}) if prob.form in GRAPH else {}
        for spec in specs.values():
            if chain and spec.name == "cvxpy":
                continue  # the reference of a problem is its own, never a reduced one
            if all(red.methods is None or spec.name in red.methods for red, _ in chain):
                yield spec, prob, chain


def methods(problem) -> list[str]:
    """Names of the methods that apply to ``problem`` (directly or through a reduction)."""
    names = []
    for spec, prob, _ in _candidates(problem):
        ok, _ = spec.supports(prob)
        if ok and spec.name not in names:
            names.append(spec.name)
    return sorted(names, key=lambda m: m != "cvxpy")  # the reference first, then graph order


def method_spec(problem, method: str) -> MethodSpec:
    return _resolve(problem, method)[0]


def _resolve(problem, method: str):
    if not isinstance(method, str):
        raise ProblemError(f"method must be a string; got {method!r}")
    reasons = []
    for spec, prob, chain in _candidates(problem):
        if spec.name != method:
            continue
        ok, why = spec.supports(prob)
        if ok:
            return spec, prob, chain
        reasons.append(why)
    if reasons:
        raise ProblemError(f"method {method!r} cannot solve {problem!r}: {'; '.join(reasons)}")
    raise ProblemError(f"method {method!r} does not apply to {type(problem).__name__}; "
                       f"available: {', '.join(methods(problem))}")


def compile_method(problem, method: str, **options):
    """``cvxpy.Problem`` for ``"cvxpy"``, else an iteration plan whose ``run()`` returns a ``Result``."""
    from .runloop import RUN_OPTIONS
    spec, prob, chain = _resolve(problem, method)
    run_opts = {k: v for k, v in options.items() if k in RUN_OPTIONS}
    params = {k: v for k, v in options.items() if k not in RUN_OPTIONS}
    if method == "cvxpy":
        _check_params(spec, {k: v for k, v in params.items() if k != "solver"}, solver_options=True)
        if run_opts:
            raise ProblemError(f"options {sorted(run_opts)} do not apply to method 'cvxpy'")
        return spec.build(prob, **params).cvxpy_problem
    _check_params(spec, params)
    plan = spec.build(prob, **params)
    plan.run_defaults = run_opts
    plan.origin, plan.chain, plan.method = problem, chain, method
    return plan


def _check_params(spec, params, solver_options=False):
    """Unknown method options are a ``ProblemError`` naming them (not a bare ``TypeError``)."""
    import inspect
    if solver_options or not params:
        return  # the reference passes remaining options to the CVXPY solver, which checks them
    sig = inspect.signature(spec.build)
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return
    known = [p for p in list(sig.parameters)[1:]]
    unknown = sorted(set(params) - set(known))
    if unknown:
        from .runloop import RUN_OPTIONS
        raise ProblemError(f"unknown option(s) {unknown} for method {spec.name!r}; its options: "
                           f"{', '.join(known) or 'none'}; run options: {', '.join(RUN_OPTIONS)}")


def solve(problem, method: str = "cvxpy", **options):
    if method == "cvxpy":
        spec, prob, chain = _resolve(problem, method)
        runner = spec.build(prob, **options)
        return runner.result()
    plan = compile_method(problem, method, **options)
    return run_compiled(plan)


def run_compiled(plan, **options):
    """Run a compiled plan and map its solution back through the chain to a ``Result``."""
    from .assemble import build_result, fill_test_error
    sol = plan.run_solution(**options)
    for red, inv in reversed(plan.chain):
        sol = red.invert(sol, inv)
    res = build_result(plan.origin, sol, plan.method)
    test_set = {**plan.run_defaults, **options}.get("test_set")
    if test_set is not None:
        fill_test_error(plan.origin, res, test_set)
    return res


def method_table() -> str:
    """Markdown table of every registered method (paper, algorithm, limit, proven rate, tolerance), for the
    README; ``tests/test_docs.py`` keeps the README in sync with it."""
    _load_plans()
    rows = ["| problem form | method | paper | algorithm | converges to | proven rate | agreement tol. |",
            "|---|---|---|---|---|---|---|"]
    for form in sorted(GRAPH.nodes):
        for name, spec in sorted(GRAPH.nodes[form].get("methods", {}).items()):
            if name == "cvxpy":
                continue
            tol = "separator iff separable" if form == "EllipsoidSeparation" else f"{spec.tolerance:g}"
            rows.append(f"| {form} | `{name}` | {spec.paper} | {spec.algorithm} | {spec.converges_to} | "
                        f"{spec.rate} | {tol} |")
    edges = [f"- `{d['reduction'].source}` → `{d['reduction'].target}`: {type(d['reduction']).__doc__.strip().splitlines()[0]}"
             for _, _, d in GRAPH.edges(data=True)]
    return "\n".join(rows + ([""] + ["Reductions:"] + edges if edges else []))
