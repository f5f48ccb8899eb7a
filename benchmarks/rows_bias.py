"""The exact-bias rows: ``dual-cd-bias`` on ``SoftMarginSVM(bias=True)`` over several instances (dense and sparse,
unit-ball rows and raw features, seeds, shapes, 0-20 % flipped labels), against

* the fastest CVXPY solver (Clarabel, ECOS at their default accuracy, in capped child processes),
* scikit-learn's ``SVC(kernel="linear")`` (libsvm, the exact-bias anchor; its ``tol`` lowered until its answer
  reaches the row's gap, in a capped child process),
* itself on ``100·X`` with ``C/10⁴`` (the same problem: ``w/100``, the same ``b``, the dual ``a/10⁴``).

Every row reports the worst ratio over its instances (``details["instances"]`` holds each one). The accuracy of
every answer is its relative gap ``(P(w, b) − L)/L`` against the certified lower bound ``L`` on ``P*`` of a
high-accuracy ``dual-cd-bias`` run (its certificate's ``dual``, tol 1e-8), so a reported gap is an upper bound on
the true one (``marginkit.certify`` measures the same thing against the CVXPY reference; ``--quick`` cross-checks
the two).
"""
from __future__ import annotations

import math
import time

import numpy as np
import scipy.sparse as sp

from . import datasets as data
from .datasets import ProblemSpec, Sizes
from .measure import Outcome, accuracies, child, times
from .objective import Row
from .solvers import cvxpy_solvers
from .solvers import marginkit_methods as mk
from .targets import BY_NAME

METHOD = "dual-cd-bias"
HIGH_TOL = 1e-8                 # the yardstick run
SCALE = 100.0                   # the scale row: c·X with C/c²
SVC_TOLS = (1e-3, 1e-4, 1e-5)   # libsvm's tol, lowered until its answer reaches the row's gap


# ----------------------------------------------------------------------------------------------------------------
# instances
# ----------------------------------------------------------------------------------------------------------------
def _flip(y, fraction, seed):
    y = y.copy()
    y[np.random.default_rng(seed + 1000).random(y.size) < fraction] *= -1
    return y


def dense_unit(n, d, seed, flip):
    """The bench's dense data (Gaussian, logistic labels, rows in the unit ball) plus ``flip`` flipped labels."""
    X, y = data.svm_dense_data(n, d, seed)
    return X, _flip(y, flip, seed)


def dense_raw(n, d, seed, flip):
    """Raw Gaussian features, column scales in [0.5, 2] and nonzero means (not scaled: ||x_i||² ~ 2d), labels of
    a shifted direction (an offset is needed) plus ``flip`` flipped labels."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * rng.uniform(0.5, 2.0, d) + rng.uniform(-1.0, 1.0, d)
    z = (X - X.mean(0)) @ rng.standard_normal(d) / np.sqrt(d)
    y = np.where(z + 0.5 + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, _flip(y, flip, seed)


def a9a(n, seed, flip):
    """a9a-like binary features (14 ones per row: ||x_i||² = 14, raw, CSR)."""
    from marginkit import datasets as ds
    X, y = ds.a9a_like(n=n, seed=seed)
    return X, _flip(y, flip, seed)


def sparse_unit(n, d, density, seed, flip):
    """Random CSR data (Gaussian values at ``density``), rows in the unit ball, labels of a shifted direction."""
    from marginkit.api.datasets import scale_rows_to_unit_ball
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=seed, data_rvs=rng.standard_normal)
    s = np.asarray(X @ rng.standard_normal(d)).ravel()
    y = np.where(s - np.quantile(s, 0.6) + 0.3 * s.std() * rng.standard_normal(n) > 0, 1.0, -1.0)
    return scale_rows_to_unit_ball(X), _flip(y, flip, seed)


def instances(cfg: Sizes) -> list:
    """``(label, X, y, C)`` of the rows: full size, or tiny at ``--quick``."""
    if not cfg.high_accuracy:   # --quick
        return [("dense unit-ball, 10 % flipped", *dense_unit(300, 10, 0, 0.1), 1.0),
                ("sparse a9a-like (raw)", *a9a(300, 0, 0.0), 1.0)]
    return [("dense unit-ball, seed 0, 0 % flipped", *dense_unit(20000, 100, 0, 0.0), 1.0),
            ("dense unit-ball, seed 1, 20 % flipped", *dense_unit(50000, 20, 1, 0.2), 1.0),
            ("dense raw features, seed 2, 10 % flipped", *dense_raw(20000, 100, 2, 0.1), 0.01),
            ("sparse a9a-like (raw, ||x||² = 14), seed 0", *a9a(22696, 0, 0.0), 1.0),
            ("sparse a9a-like (raw), seed 3, 10 % flipped", *a9a(30000, 3, 0.1), 1.0),
            ("sparse 1 % density unit-ball, seed 4, 5 % flipped", *sparse_unit(50000, 2000, 0.01, 4, 0.05), 1.0)]


# ----------------------------------------------------------------------------------------------------------------
# libsvm in a capped child process
# ----------------------------------------------------------------------------------------------------------------
def _svc_child(conn, X, y, C, tol):
    import warnings
    from sklearn.svm import SVC
    try:
        svc = SVC(kernel="linear", C=C, tol=tol, cache_size=1000)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            svc.fit(X, y)
            t = time.perf_counter() - t0
        conn.send({"time": t, "w": np.asarray(svc.coef_.todense() if sp.issparse(svc.coef_) else svc.coef_).ravel(),
                   "b": float(svc.intercept_[0]), "classes": svc.classes_})
    except BaseException as exc:  # noqa: BLE001 - reported in the row
        conn.send({"error": f"{type(exc).__name__}: {exc}"})
    finally:
        conn.close()


def svc_fit(X, y, C, tol, cap) -> dict:
    """``SVC(kernel="linear", C, tol).fit`` in a child process killed after ``cap`` seconds."""
    with child(cvxpy_solvers._context(), _svc_child, X, y, C, tol) as recv:
        try:
            if not recv.poll(cap + 30.0):   # the data are pickled to the child before its clock starts
                return {"capped": True}
            return recv.recv()
        except EOFError:
            return {"error": "the SVC child process died"}


# ----------------------------------------------------------------------------------------------------------------
# the rows
# ----------------------------------------------------------------------------------------------------------------
def _gap(problem, lower, w, b) -> float:
    return (problem.objective(np.asarray(w, float), float(b)) - lower) / lower


def _ours(make, cap, repeats, tol, label=f"marginkit:{METHOD}") -> Outcome:
    o = Outcome(label=label, cap=cap)
    for _ in range(repeats):
        t, res = mk.run_method(make, METHOD, cap, tol=tol, max_iter=mk.MAX_ITER)
        o.status, o.result = res.status, res
        o.info["iterations"] = res.iterations
        if res.status != "optimal":
            o.capped = True
            break
        o.times.append(t)
        if t > 20.0:
            break
    return o


def _svc(problem, X, y, C, lower, tol, cap, tols=SVC_TOLS) -> Outcome:
    """libsvm's time to the gap: the first ``tol`` of :data:`SVC_TOLS` whose answer reaches it; when none does
    (or the fit is stopped), ``cap`` holds a lower bound on that time (the slowest fit tried, or the cap)."""
    o = Outcome(label="sklearn:SVC(linear)")
    tried = {}
    for svc_tol in tols:
        msg = svc_fit(X, y, C, svc_tol, cap)
        if "error" in msg or msg.get("capped"):
            tried[f"{svc_tol:g}"] = msg.get("error", f"stopped at {cap:g}s")
            if msg.get("capped"):
                o.cap = cap
            break
        assert list(msg["classes"]) == [-1.0, 1.0]
        gap = _gap(problem, lower, msg["w"], msg["b"])
        tried[f"{svc_tol:g}"] = {"seconds": round(msg["time"], 4), "gap": gap}
        o.accuracy = gap
        if gap <= tol:
            o.times.append(msg["time"])
            o.info["tol"] = svc_tol
            break
        o.cap = max(o.cap or 0.0, msg["time"])
    o.info["tried"] = tried
    if not o.times:
        o.capped = o.cap is not None
    return o


def svm_bias(cfg: Sizes) -> list[Row]:
    import marginkit
    t_cvx, t_svc, t_scale = (BY_NAME[n] for n in ("svm-bias-vs-cvxpy", "svm-bias-vs-libsvm", "svm-bias-scale"))
    tol = t_cvx.tol
    rows = {t.name: Row.of(t, "") for t in (t_cvx, t_svc, t_scale)}
    mk.warm_numba()
    # --quick keeps the row working in seconds: one CVXPY solver and one libsvm tol (each is a child process)
    solvers = t_cvx.competitors.cvxpy if cfg.high_accuracy else t_cvx.competitors.cvxpy[:1]
    svc_tols = SVC_TOLS if cfg.high_accuracy else SVC_TOLS[:1]
    per = []
    for label, X, y, C in instances(cfg):
        make = ProblemSpec("SoftMarginSVM", (X, y), {"C": C, "bias": True})
        probe = make()
        if METHOD not in marginkit.methods(probe):
            for r in rows.values():
                r.note = f"'{METHOD}' is not registered"
            return list(rows.values())
        mk.warm_up(make, [METHOD])
        hi = mk.high_accuracy(make, METHOD, cfg, HIGH_TOL)
        lower = float(hi.certificate["dual"])
        ours = _ours(make, cfg.method_cap, cfg.repeats, tol)
        scaled = _ours(ProblemSpec("SoftMarginSVM", (X * SCALE, y), {"C": C / SCALE ** 2, "bias": True}),
                       cfg.method_cap, cfg.repeats, tol, label=f"marginkit:{METHOD} on {SCALE:g}·X")
        for o in (ours, scaled):
            if o.result is not None:
                o.accuracy = o.result.certificate["relative_gap"]
        entry = {"instance": label, "size": data.size(X.shape), "C": C, "yardstick": f"{METHOD} at tol {HIGH_TOL:g} "
                 f"({hi.status}, lower bound {lower:.10g})", "ours": ours.shown_time(), "status": ours.status,
                 "iterations": ours.info.get("iterations"), "scaled": scaled.shown_time(),
                 "scaled_status": scaled.status}
        if not np.isfinite(ours.time):
            entry["note"] = f"{METHOD} did not certify {tol:g} within {cfg.method_cap:g}s"
            per.append(entry)
            continue
        cvx = cvxpy_solvers.race(make, lambda msg: _gap(probe, lower, msg["w"], msg["b"])
                                 if np.all(np.isfinite(msg["w"])) else None, cfg.repeats,
                                 t_cvx.competitor_cap(cfg, ours.time), solvers)
        best = min((o for o in cvx if np.isfinite(o.time)), key=lambda o: o.time, default=None)
        if best is not None:
            entry["cvxpy"], entry["cvxpy_ratio"], entry["cvxpy_bound"] = best.label, best.time / ours.time, None
        else:
            caps = [o.cap for o in cvx if o.capped and o.cap]
            entry["cvxpy"], entry["cvxpy_ratio"], entry["cvxpy_bound"] = "capped", (min(caps) / ours.time
                                                                                    if caps else None), "lower"
        svc = _svc(probe, X, y, C, lower, tol, t_svc.competitor_cap(cfg, ours.time), svc_tols)
        entry["svc"] = svc.info.get("tried")
        if np.isfinite(svc.time) or svc.cap:
            entry["svc_ratio"] = (svc.time if np.isfinite(svc.time) else svc.cap) / ours.time
            entry["svc_bound"] = None if np.isfinite(svc.time) else "lower"
        entry["scale_ratio"] = scaled.time / ours.time if np.isfinite(scaled.time) else math.inf
        entry["times"] = times(ours, scaled, cvx, svc)
        entry["accuracy"] = accuracies(ours, scaled, cvx, svc)
        if not cfg.high_accuracy:   # --quick: certify() against the CVXPY reference gives the same gap (or less)
            cert = marginkit.certify(probe, ours.result)
            entry["certify_relative_gap"] = float(cert.certificate["relative_gap"])
        per.append(entry)
    return _judge(rows, per)


def _worst(per, key, cmp):
    done = [e for e in per if e.get(key) is not None and np.isfinite(e[key])]
    if not done:
        return None
    return (min if cmp == ">=" else max)(done, key=lambda e: e[key])


def _judge(rows, per) -> list[Row]:
    for name, key, bound_key in (("svm-bias-vs-cvxpy", "cvxpy_ratio", "cvxpy_bound"),
                                 ("svm-bias-vs-libsvm", "svc_ratio", "svc_bound"),
                                 ("svm-bias-scale", "scale_ratio", None)):
        row = rows[name]
        row.details["instances"] = per
        failed = [e["instance"] for e in per if "note" in e]
        row.size = f"{len(per)} instances: " + "; ".join(f"{e['instance']} ({e['size']})" for e in per)
        worst = _worst(per, key, row.comparison)
        if failed:
            row.note = f"{METHOD} did not certify the gap on: {', '.join(failed)}"
            row.ratio, row.status = None, "missed"
            continue
        if worst is None:
            row.judge()
            continue
        row.ratio = float(worst[key])
        row.ratio_bound = worst.get(bound_key) if bound_key else None
        row.times, row.accuracy = worst["times"], worst["accuracy"]
        row.details["ratios"] = {e["instance"]: e[key] for e in per}
        row.judge(f"worst instance: {worst['instance']}")
    return list(rows.values())
