"""The reduction graph, built from the registry's tables with networkx.

Nodes are problem forms (the class names of the problems, plus internal forms such as the perturbed primal); a
node's ``methods`` attribute maps a method name to its :class:`~marginkit.engine.registry.MethodCard`. Edges carry
a :class:`~marginkit.engine.reductions.Reduction`. ``resolve(problem, method)`` walks the graph from the problem's
form breadth first and returns the card and the :class:`~marginkit.engine.reductions.Chain` to the form the method
runs on. No plan module is imported here: listing methods reads cards only.
"""
from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from ..core.validation import ProblemError
from ..formulations import FORMS, Problem
from .plugins import all_cards, generation
from .reductions import Chain
from .registry import METHODS, REDUCTIONS, MethodCard


def reduction_graph():
    """The graph, built on first use (networkx is imported then, not by ``import marginkit``) and again when a
    method is registered or unregistered (:mod:`.plugins`); its nodes hold the registry's cards and the added ones."""
    return _build_graph(generation())


@lru_cache(maxsize=1)
def _build_graph(_generation: int):
    import networkx as nx
    graph = nx.MultiDiGraph()
    for c in all_cards():
        graph.add_node(c.form)
        graph.nodes[c.form].setdefault("methods", {})[c.name] = c
    for r in REDUCTIONS:
        graph.add_edge(r.source, r.target, reduction=r.load())
    return graph


def __getattr__(name):
    if name == "GRAPH":
        return reduction_graph()
    raise AttributeError(name)


def _check_problem(problem: Any) -> None:
    if not isinstance(problem, Problem):
        raise ProblemError(f"problem must be a marginkit problem (MaxMargin, SoftMarginSVM, ...); got "
                           f"{type(problem).__name__} {problem!r:.60}")


def _walk(problem: Problem, max_depth: int = 3) -> Iterator[Chain]:
    """Yield a :class:`Chain` for every form reachable from ``problem`` by accepting reductions (BFS)."""
    _check_problem(problem)
    GRAPH = reduction_graph()
    start = Chain(problem, problem)
    frontier, seen = [start], {problem.form}
    yield start
    backend = getattr(problem, "backend", None)
    foreign = backend is not None and not backend.on_host
    for _ in range(max_depth):
        nxt = []
        for chain in frontier:
            form = chain.reduced.form
            if form not in GRAPH:
                continue
            for _, target, data in GRAPH.out_edges(form, data=True):
                red = data["reduction"]
                if foreign and backend.kind not in getattr(red, "keeps_data", ()):
                    continue   # the other reductions build NumPy problems: data elsewhere stays in its own form
                ok, _ = red.accepts(chain.reduced)
                if not ok or target in seen:
                    continue
                link = chain.extend(red)
                seen.add(target)
                yield link
                nxt.append(link)
        frontier = nxt


def _candidates(problem: Problem) -> Iterator[tuple[MethodCard, Chain]]:
    GRAPH = reduction_graph()
    for chain in _walk(problem):
        form = chain.reduced.form
        specs = GRAPH.nodes[form].get("methods", {}) if form in GRAPH else {}
        for card in specs.values():
            if len(chain) and card.is_reference:
                continue  # the reference of a problem is its own, never a reduced one
            if chain.allows(card):
                yield card, chain


def methods(problem: Problem) -> list[str]:
    """Names of the methods that apply to ``problem`` (directly or through a reduction), the reference first."""
    found: dict[str, MethodCard] = {}
    for card, chain in _candidates(problem):
        ok, _ = card.accepts(chain.reduced)
        if ok and card.name not in found:
            found[card.name] = card
    return sorted(found, key=lambda m: not found[m].is_reference)


def resolve(problem: Problem, method: str) -> tuple[MethodCard, Chain]:
    """The card of ``method`` and the chain from ``problem`` to its form; ``ProblemError`` with the reason if none."""
    if not isinstance(method, str):
        raise ProblemError(f"method must be a string; got {method!r}")
    reasons = []
    for card, chain in _candidates(problem):
        if card.name != method:
            continue
        ok, why = card.accepts(chain.reduced)
        if ok:
            return card, chain
        reasons.append(why)
    if reasons:
        raise ProblemError(f"method {method!r} cannot solve {problem!r}: {'; '.join(reasons)}")
    backend = getattr(problem, "backend", None)
    if backend is not None and not backend.on_host and any(c.name == method for c in all_cards()):
        raise ProblemError(f"method {method!r} runs on NumPy/SciPy data only (it solves {type(problem).__name__} "
                           f"through a reduction); X is {backend.describe()}: convert it with np.asarray(X), or use "
                           f"one of {', '.join(methods(problem))}")
    raise ProblemError(f"method {method!r} does not apply to {type(problem).__name__}; "
                       f"available: {', '.join(methods(problem))}")


def method_spec(problem: Problem, method: str) -> MethodCard:
    """The card of ``method`` as it applies to ``problem``."""
    return resolve(problem, method)[0]


def method_table() -> str:
    """Markdown table of every method (paper, algorithm, limit, proven rate, tolerance), for the methods page of the
    documentation; ``tests/test_reductions.py`` keeps the page in sync with it."""
    GRAPH = reduction_graph()
    rows = ["| problem form | method | paper | algorithm | converges to | proven rate | agreement tol. |",
            "|---|---|---|---|---|---|---|"]
    for form in sorted(GRAPH.nodes):
        for name, card in sorted(GRAPH.nodes[form].get("methods", {}).items()):
            if card.is_reference or card not in METHODS:   # the page lists marginkit's own methods, no plugin
                continue
            tol = FORMS[form].agreement_label(card.tolerance)
            rows.append(f"| {form} | `{name}` | {card.paper} | {card.algorithm} | {card.converges_to} | "
                        f"{card.rate} | {tol} |")
    edges = [f"- `{d['reduction'].source}` → `{d['reduction'].target}`: "
             f"{type(d['reduction']).__doc__.strip().splitlines()[0]}" for _, _, d in GRAPH.edges(data=True)]
    return "\n".join(rows + ([""] + ["Reductions:"] + edges if edges else []))


def arrays_table() -> str:
    """Markdown table of where each method computes (its card's ``arrays``): NumPy/SciPy, an array-API library
    (torch, CuPy, array-api-strict: on the data's device) or a row-chunked dask array; for the documentation."""
    names = {"numpy": "NumPy / SciPy", "array-api": "array API (torch, CuPy, …)", "dask": "dask"}
    rows = ["| problem form | method | " + " | ".join(names.values()) + " |", "|---|---|" + "---|" * len(names)]
    for card in sorted(METHODS, key=lambda c: (c.form, not c.is_reference, c.name)):
        cells = []
        for kind in names:
            ok = kind in card.arrays
            cells.append(("host copy" if card.is_reference and kind != "numpy" else "yes") if ok else "–")
        rows.append(f"| {card.form} | `{card.name}` | " + " | ".join(cells) + " |")
    return "\n".join(rows)
