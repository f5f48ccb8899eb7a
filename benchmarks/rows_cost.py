"""The cost rows: time per iteration of every batch plan and per epoch of every coordinate plan against the
mat-vecs they cannot avoid, the trace's overhead, memory peaks, and the CVXPY reference's compile time. Targets from
:mod:`~benchmarks.targets`, data from :mod:`~benchmarks.datasets`; plans are driven through the plan protocol
(``init``/``step``/``stop``/``measure``/``snapshot``) of ``problem.compile(method)``.
"""
from __future__ import annotations

import numpy as np

from . import datasets as data
from .datasets import ProblemSpec, Sizes
from .measure import peak_bytes, plan_iteration_cost, wall
from .objective import Row
from .solvers import marginkit_methods as mk
from .targets import BY_NAME, NOT_AVAILABLE


def _worst(row: Row, ratios: dict, digits: int) -> None:
    worst = max(ratios, key=ratios.get)
    row.ratio = ratios[worst]
    row.details["ratios"] = {k: round(v, digits) for k, v in ratios.items()}
    row.note = f"worst: {worst}"


def iteration_cost(cfg: Sizes) -> list[Row]:
    t_cost, t_trace = BY_NAME["iteration-cost"], BY_NAME["trace-overhead"]
    n, d = cfg.iteration
    X, y = data.iteration(cfg)
    size = data.size((n, d))
    cost, trace = Row.of(t_cost, size), Row.of(t_trace, size)
    only_xw = t_cost.extra["only_Xw"]
    few, many = t_cost.extra["steps"]
    steps = few if n * d >= t_cost.extra["large"] else many
    per, per_trace, notes = {}, {}, []
    for form_name in t_cost.extra["problems"]:
        prob = data.problem(form_name, X, y)
        for m in mk.pool(t_cost.competitors, prob):
            label = f"{m} [{form_name}]"
            try:
                plan = prob.compile(m)
                c = plan_iteration_cost(plan, prob.X, steps, t_trace.extra["iterations"])
            except Exception as exc:  # noqa: BLE001
                notes.append(f"{label}: {type(exc).__name__}: {exc}")
                continue
            per[label] = c["ratio_Xw"] if m in only_xw else c["ratio_both"]
            per_trace[label] = c["records_per_1000"] * c["record_ratio"] / t_trace.extra["iterations"]
            cost.times[label] = round(c["iteration"], 6)
            cost.details[label] = {"iteration": c["iteration"], "Xw": c["Xw"], "XTu": c["XTu"],
                                   "unavoidable": "X @ w" if m in only_xw else "X @ w + X.T @ u",
                                   "ratio": per[label]}
            trace.details[label] = {"record_seconds": c["record"], "records_per_1000_iterations": c["records_per_1000"],
                                    "overhead": per_trace[label],
                                    "overhead_if_every_iteration_recorded": c["record_ratio"]}
            trace.times[label] = round(c["record"], 6)
        del prob
    if notes:
        cost.details["errors"] = notes
    if per:
        _worst(cost, per, 3)
        _worst(trace, per_trace, 4)
    return [cost.judge(), trace.judge()]


def coordinate_epoch(cfg: Sizes) -> list[Row]:
    import marginkit
    target = BY_NAME["coordinate-epoch"]
    n, d = cfg.coordinate
    X, y = data.coordinate(cfg)
    mk.warm_numba()
    row = Row.of(target, data.size((n, d)))
    coordinate = mk.pool(target.competitors)
    ratios = {}
    for form_name in target.extra["problems"]:
        prob = data.problem(form_name, X, y)
        have = set(marginkit.methods(prob))
        for m in coordinate:
            if m not in have:
                continue
            label = f"{m} [{form_name}]"
            try:
                plan = prob.compile(m, **target.extra["options"].get(m, {}))
                c = plan_iteration_cost(plan, prob.X, target.extra["steps"])
            except Exception as exc:  # noqa: BLE001
                row.details[label] = f"{type(exc).__name__}: {exc}"
                continue
            ratios[label] = c["ratio_Xw"]
            row.times[label] = round(c["iteration"], 6)
            row.details[label] = {"epoch": c["iteration"], "Xw": c["Xw"], "ratio": ratios[label]}
            row.times["X @ w"] = round(c["Xw"], 6)
    missing = [m for m in coordinate if not any(k.startswith(m + " ") for k in ratios)]
    if missing:
        row.details["not_available"] = {m: NOT_AVAILABLE for m in missing}
    if ratios:
        _worst(row, ratios, 3)
        row.note += f"; not available yet: {', '.join(missing)}" if missing else ""
    else:
        row.note = f"no coordinate plan registered ({NOT_AVAILABLE})"
    return [row.judge()]


def _solver_call(problem, method, iterations):
    def call():
        problem.solve(method, max_iter=iterations, seed=0)
    return call


def memory(cfg: Sizes) -> list[Row]:
    n, d = cfg.memory
    unit = 8 * (n + d)
    rows = []
    for kind in ("dense", "sparse"):
        target = BY_NAME[f"memory-{kind}"]
        X, y, input_bytes = data.memory(cfg, kind)
        row = Row.of(target, data.size((n, d)), kind=kind, unit_mib=unit / 2 ** 20, input_vectors=input_bytes / unit,
                     density=f" (density {cfg.memory_density:g}, CSR)" if kind == "sparse" else "")
        row.details["input_vectors"] = input_bytes / unit
        peaks = {}
        mk.warm_numba()
        for form_name in target.extra["problems"]:
            prob = data.problem(form_name, X, y)
            for m in mk.pool(target.competitors, prob):
                label = f"{m} [{form_name}]"
                try:
                    peak = peak_bytes(_solver_call(data.problem(form_name, X, y), m, target.extra["iterations"]))
                except Exception as exc:  # noqa: BLE001
                    row.details[label] = f"{type(exc).__name__}: {exc}"
                    continue
                peaks[label] = peak / unit
                row.details[label] = {"peak_MiB": round(peak / 2 ** 20, 2), "vectors": round(peak / unit, 2)}
            del prob
        if peaks:
            _worst(row, peaks, 2)
        rows.append(row.judge())
    return rows


# ----------------------------------------------------------------------------------------------------------------
# the CVXPY reference itself
# ----------------------------------------------------------------------------------------------------------------
def _solve_cvxpy(prob, solver: str, options: dict) -> str:
    """``prob.solve`` with the reference's settings, falling back to the solver's defaults as the reference does."""
    import warnings
    import cvxpy as cp
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        try:
            prob.solve(solver=solver, **options)
        except cp.error.SolverError:
            prob.solve(solver=solver)
    return prob.status


def reference_compile(cfg: Sizes) -> list[Row]:
    import marginkit
    target = BY_NAME["reference-compile"]
    X, y = data.reference(cfg)
    row = Row.of(target, data.size(cfg.reference))
    svm = marginkit.SoftMarginSVM(X, y, C=1.0, bias=True)
    prob = svm.compile("cvxpy")          # the reference's cvxpy.Problem, C a cp.Parameter
    params = [p.name() for p in prob.parameters()]
    c_params = [p for p in prob.parameters() if p.size == 1 and float(np.ravel(p.value)[0]) == svm.C]
    solver, options = target.extra["solver"], target.extra["options"]
    t_first, _ = wall(lambda: _solve_cvxpy(prob, solver, options))
    compile_first = float(prob.compilation_time or 0.0)
    solve_first = float(prob.solver_stats.solve_time or (t_first - compile_first))
    sweep = {}
    for C in target.extra["new_C"]:  # the point is that a new value does not recompile
        for p in c_params:
            p.value = C
        t, status = wall(lambda: _solve_cvxpy(prob, solver, options))
        sweep[f"C={C:g}"] = {"seconds": round(t, 4), "compile": float(prob.compilation_time or 0.0), "status": status}
    row.times = {"compile (first)": round(compile_first, 4), "solve (first)": round(solve_first, 4),
                 "total (first)": round(t_first, 4), **{f"re-solve {k}": v["seconds"] for k, v in sweep.items()},
                 **{f"re-compile {k}": round(v["compile"], 4) for k, v in sweep.items()}}
    row.details.update(parameters=params, dpp=bool(prob.is_dpp()), sweep=sweep)
    row.ratio = compile_first / solve_first if solve_first > 0 else None
    notes = []
    if not params:
        notes.append("the model has no cp.Parameter")
    recompile = max(v["compile"] for v in sweep.values())
    row.details["recompile_fraction_of_first_compile"] = recompile / compile_first if compile_first else None
    limit = target.extra["recompile_fraction"]
    if compile_first and recompile > limit * compile_first:
        notes.append(f"a new C recompiled ({recompile:.3g}s against {compile_first:.3g}s)")
    row.judge()
    if notes:
        row.status = "missed"
        row.note = "; ".join([row.note] + notes if row.note else notes)
    # the other references with a regularisation constant: is it a Parameter?
    row.details["parametrised_references"] = _reference_parameters(target.extra["parametrised"])
    return [row]


def _reference_parameters(forms) -> dict:
    from marginkit.engine.registry import cards
    rng = np.random.default_rng(0)
    X = rng.standard_normal((12, 3))
    y = np.sign(X[:, 0] + 0.1)
    out = {}
    for form in forms:
        if not cards(form, tag="reference"):
            out[form] = NOT_AVAILABLE
            continue
        try:
            prob = ProblemSpec(form, (X, y))().compile("cvxpy")
            out[form] = [p.name() for p in prob.parameters()] or "no cp.Parameter"
        except Exception as exc:  # noqa: BLE001
            out[form] = f"{type(exc).__name__}: {exc}"
    return out
