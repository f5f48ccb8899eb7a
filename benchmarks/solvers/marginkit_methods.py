"""marginkit's methods as competitors: chosen from the registry by tag (:func:`pool`), timed through the
user-facing call ``problem.solve(method, tol=..., trace=None, seed=0)`` on a fresh problem (its setup, such as row
norms or a spectral norm, included; the problem's own validation copy of ``X`` made before the clock starts), and
raced (:func:`race`): each stops on its own certificate (``status == "optimal"`` at ``tol``), never on a comparison
with the reference.
"""
from __future__ import annotations

import math

import numpy as np

from ..datasets import subset
from ..measure import Outcome, fastest, repeats_for, wall

MAX_ITER = 10 ** 7          # a race stops on the certificate or the time cap, not on iterations
YARDSTICK_CAP = 3.0         # a high-accuracy yardstick run may take this many method caps


def cards(form=None, tag=None) -> list:
    """Every method card marginkit can resolve -- its registry's and those added by ``register_method`` or an
    installed plugin (entry-point group ``marginkit.methods``) -- of ``form`` and carrying ``tag``: a researcher's
    own method enters the benchmark like marginkit's."""
    from marginkit.engine.plugins import all_cards
    return [c for c in all_cards() if (form is None or c.form == form) and (tag is None or tag in c.tags)]


def _excluded(name: str, tags) -> bool:
    return any(t in c.tags for c in cards() if c.name == name for t in tags)


def pool(spec, problem=None) -> list[str]:
    """The methods of :class:`~benchmarks.targets.Competitors` ``spec``, ``spec.lead`` first, then registry order."""
    if spec.methods:
        names = list(spec.methods)
    elif spec.per_problem:
        import marginkit
        names = list(marginkit.methods(problem))
    else:
        names = list(dict.fromkeys(c.name for form in spec.forms or (None,) for c in cards(form, spec.tag)))
    names = [m for m in names if not _excluded(m, spec.exclude_tags)]
    return [m for m in spec.lead if m in names] + [m for m in names if m not in spec.lead]


def available(problem, names) -> tuple[list, list]:
    """``(names that apply to problem, names that do not)`` (``marginkit.methods``)."""
    import marginkit
    have = set(marginkit.methods(problem)) | {"auto"}   # "auto" (solve's cost model) applies to every problem
    return [m for m in names if m in have], [m for m in names if m not in have]


def run_method(make_problem, method, cap, **opts) -> tuple[float, object]:
    """Wall time of ``problem.solve(method, ...)`` on a fresh problem (built before the clock starts)."""
    prob = make_problem()
    opts = {"trace": None, "seed": 0, "time_limit": cap, **opts}
    return wall(lambda: prob.solve(method, **opts))


def high_accuracy(make_problem, method, cfg, tol):
    """A yardstick run: ``method`` at ``tol``, allowed :data:`YARDSTICK_CAP` method caps."""
    return run_method(make_problem, method, YARDSTICK_CAP * cfg.method_cap, tol=tol, max_iter=MAX_ITER)[1]


def warm_up(make_problem, names) -> None:
    """Run every method a few iterations on a 64-row subset first, so that one-time costs (imports, numba
    compilation or cache loading, LAPACK/BLAS start-up) are not charged to the first method raced."""
    small = subset(make_problem)()
    for m in names:
        try:
            small.solve(m, max_iter=3, trace=None)
        except Exception:  # noqa: BLE001 - a failing method is reported by the race itself
            pass


def warm_numba() -> None:
    """Compile the numba kernels before any clock starts (liblinear is compiled code too)."""
    import scipy.sparse as sp
    import marginkit
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 3))
    y = np.sign(X[:, 0] + 0.1)
    for XX in (X, sp.csr_matrix(X)):
        prob = marginkit.SoftMarginSVM(XX, y, bias=False)
        if "dual-cd" in marginkit.methods(prob):
            prob.solve("dual-cd", max_iter=2)


def race(make_problem, names, tol, accuracy_of, cap, repeats, judged: bool = False, **opts) -> list[Outcome]:
    """Each method once with the certificate stop at ``tol`` (later ones capped at 1.5x the best time so far plus
    2 s: they cannot be the fastest), then the fastest repeated ``repeats`` times in all (every method warmed up
    first); with ``judged``, the first method too (the one a row judges against its peers)."""
    warm_up(make_problem, names)
    out, best = [], math.inf
    for m in names:
        this_cap = min(cap, 1.5 * best + 2.0)
        o = Outcome(label=f"marginkit:{m}", cap=this_cap)
        try:
            t, res = run_method(make_problem, m, this_cap, tol=tol, max_iter=MAX_ITER, **opts)
        except Exception as exc:  # noqa: BLE001 - another engineer's plan may be incomplete
            o.status, o.info["error"] = "error", f"{type(exc).__name__}: {exc}"
            out.append(o)
            continue
        o.status, o.result = res.status, res
        o.accuracy = accuracy_of(res)
        o.info.update(iterations=res.iterations)
        if res.status == "optimal":
            o.times.append(t)
            best = min(best, t)
        else:
            o.capped = True
            o.info["note"] = f"status {res.status} after {t:.3g}s"
        out.append(o)
    win = fastest(out)
    again = [] if win is None else [win]
    if judged and out and out[0].times and out[0] is not win:
        again.append(out[0])
    for o in again:
        for _ in range(repeats_for(o.time, repeats) - 1):
            t, _res = run_method(make_problem, o.method, cap, tol=tol, max_iter=MAX_ITER, **opts)
            o.times.append(t)
    return out
