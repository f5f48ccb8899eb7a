"""The strongest peers of the SVM rows (issue 24, item 4), each raced only when installed (``pip install -e
".[bench]"``) and otherwise reported with the reason it was skipped:

* **liblinear-multicore** (``liblinear.liblinearutil``, ``-s 3``: the dual coordinate descent of Hsieh et al. for
  the hinge loss), 1 and 2 threads (``-m``), no intercept;
* **Snap ML** (``snapml.SupportVectorMachine``, ``regularizer = 1/C``), 1 and 2 threads, no intercept;
* **skglm** ``LinearSVC`` (it ignores ``fit_intercept``: raced without a bias only);
* **oneDAL** (scikit-learn-intelex ``sklearnex.svm.SVC(kernel="linear")``) and **libsvm** (scikit-learn's
  ``SVC(kernel="linear")``): SMO with the exact, unpenalised bias (raced with a bias only: they always fit one);
* **Clarabel** through CVXPY (``problem.solve("cvxpy", solver="CLARABEL")``, its default 1e-8 accuracy; run by
  :mod:`.cvxpy_solvers`).

A peer's own ``tol`` is not its accuracy. Each peer's ``tol`` (or epoch budget) is tightened through
:data:`SETTINGS` until its answer ``(w, b)`` reaches the row's relative gap by the row's certified yardstick, the
same one every marginkit method is judged by; the time reported is that fit's. Every peer runs in a forked child
process killed at the row's cap (liblinear, libsvm and oneDAL cannot be interrupted), so a stalled peer costs the
cap and proves a lower bound on the ratio.
"""
from __future__ import annotations

import importlib.util
import multiprocessing as mp
import time
import warnings
from dataclasses import dataclass

import numpy as np

from ..measure import Outcome, child, repeats_for

SETTINGS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-8)   # each peer's tol, tightened until the gap is reached
MAX_ITER = 100_000                                       # epochs / SMO passes (the cap stops a stalled peer first)


@dataclass(frozen=True)
class Peer:
    label: str
    module: str          # imported to tell whether the peer is installed
    package: str         # the distribution to pip install
    bias: tuple          # the values of ``bias`` the peer solves exactly (others: skipped with ``why``)
    why: str = ""        # why it is not raced on the other value of ``bias``
    threads: int = 1


_NO_EXACT_BIAS = "no exact bias (a penalised intercept solves another problem)"
PEERS = (
    Peer("liblinear-multicore (1 thread)", "liblinear", "liblinear-multicore", (False,), _NO_EXACT_BIAS, 1),
    Peer("liblinear-multicore (2 threads)", "liblinear", "liblinear-multicore", (False,), _NO_EXACT_BIAS, 2),
    Peer("snapml (1 thread)", "snapml", "snapml", (False,), _NO_EXACT_BIAS, 1),
    Peer("snapml (2 threads)", "snapml", "snapml", (False,), _NO_EXACT_BIAS, 2),
    Peer("skglm:LinearSVC", "skglm", "skglm", (False,), "skglm's LinearSVC ignores fit_intercept"),
    Peer("oneDAL:SVC(linear)", "sklearnex", "scikit-learn-intelex", (True,), "SVC always fits a bias"),
    Peer("libsvm:SVC(linear)", "sklearn", "scikit-learn", (True,), "SVC always fits a bias"),
)


def missing(peer: Peer) -> str | None:
    """Why ``peer`` cannot run here (``None``: it can)."""
    if importlib.util.find_spec(peer.module) is None:
        return f"not installed (pip install {peer.package}, or marginkit[bench])"
    return None


def version(peer: Peer) -> str | None:
    from importlib.metadata import PackageNotFoundError, version as v
    try:
        return v(peer.package)
    except PackageNotFoundError:
        return None


def _fitter(peer: Peer, X, y, C: float):
    """``fit(tol) -> (seconds, w, b)``; the data are converted to the peer's format before any clock starts."""
    label = peer.label
    if label.startswith("liblinear"):
        from liblinear.liblinearutil import parameter, problem, train
        prob = problem(y, X)

        def fit(tol):
            par = parameter(f"-s 3 -c {C!r} -e {tol!r} -q -m {peer.threads}")
            t0 = time.perf_counter()
            model = train(prob, par)
            t = time.perf_counter() - t0
            # liblinear's model ends at the last feature it saw: the trailing all-zero columns get weight 0
            coef = np.array(model.get_decfun()[0], float)[: X.shape[1]]
            w = np.zeros(X.shape[1])
            w[: coef.size] = coef
            # liblinear's w scores its first label: flip it when that label is -1
            return t, (w if model.get_labels()[0] == 1 else -w), 0.0
        return fit
    if label.startswith("snapml"):
        from snapml import SupportVectorMachine

        def fit(tol):
            est = SupportVectorMachine(regularizer=1.0 / C, fit_intercept=False, n_jobs=peer.threads, tol=tol,
                                       max_iter=MAX_ITER)
            return _timed(est, X, y)
        return fit
    if label.startswith("skglm"):
        from skglm import LinearSVC

        def fit(tol):
            return _timed(LinearSVC(C=C, tol=tol, max_iter=MAX_ITER), X, y)
        return fit
    if label.startswith("oneDAL"):
        from sklearnex.svm import SVC

        def fit(tol):
            return _timed(SVC(kernel="linear", C=C, tol=tol, max_iter=-1), X, y)
        return fit
    if label.startswith("libsvm"):
        from sklearn.svm import SVC

        def fit(tol):
            return _timed(SVC(kernel="linear", C=C, tol=tol, cache_size=500, max_iter=-1), X, y)
        return fit
    raise ValueError(label)


def _timed(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        est.fit(X, y)
        t = time.perf_counter() - t0
    coef = np.asarray(est.coef_.toarray() if hasattr(est.coef_, "toarray") else est.coef_, float).ravel()
    b = float(np.ravel(getattr(est, "intercept_", 0.0))[0])
    classes = getattr(est, "classes_", None)
    if classes is not None and len(classes) == 2 and classes[1] != 1:   # coef_ scores classes_[1]
        coef, b = -coef, -b
    return t, coef, b


def _child(conn, peer, X, y, C, gap_of, gap, repeats):
    try:
        fit = _fitter(peer, X, y, C)
        # a few fits on 64 rows first, so that one-time costs (skglm's numba compilation, library start-up) are
        # not charged to the peer, as marginkit's methods are warmed up (solvers/marginkit_methods.py)
        idx = np.concatenate([np.flatnonzero(y == c)[:32] for c in (-1.0, 1.0)])
        _fitter(peer, X[idx], y[idx], C)(SETTINGS[0])
        conn.send(("ready", None))
        for tol in SETTINGS:
            t, w, b = fit(tol)
            reached = float(gap_of(w, b))
            conn.send(("fit", (tol, t, reached)))
            if reached <= gap:
                for _ in range(repeats_for(t, repeats) - 1):   # the setting that reached the gap, timed again
                    conn.send(("again", fit(tol)[0]))
                break
        conn.send(("done", None))
    except BaseException as exc:  # noqa: BLE001 - reported in the row
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def run(peer: Peer, X, y, C: float, bias: bool, gap_of, gap: float, cap: float, repeats: int = 1) -> Outcome:
    """``peer`` on ``(X, y, C)``: its settings tightened until ``gap_of(w, b) <= gap``, in a forked child killed
    when its fits have taken ``cap`` seconds (the outcome is then ``capped``: a lower bound on its time). The
    setting that reaches the gap is fitted :func:`~benchmarks.measure.repeats_for` times in all (the outcome's
    time is their median, as for marginkit's judged method)."""
    o = Outcome(label=peer.label, cap=cap)
    # a peer that solves another problem is named as such whether or not it is installed (the table says why)
    why = peer.why if bias not in peer.bias else missing(peer)
    if why is not None:
        o.status, o.info["note"] = "skipped", why
        return o
    o.info["version"] = version(peer)
    ctx = mp.get_context("fork")   # the child shares X; it runs compiled code only, with the parent's thread limits
    best, spent, deadline = np.inf, 0.0, None
    with child(ctx, _child, peer, X, y, C, gap_of, gap, repeats) as recv:
        try:
            while True:
                wait = 120.0 if deadline is None else max(0.0, deadline - time.perf_counter())
                if not recv.poll(wait):
                    if o.status != "reached":   # (a repeat past the cap keeps the times already taken)
                        o.capped, o.status = True, f"stopped at its cap ({cap:.3g} s)"
                    break
                kind, msg = recv.recv()
                if kind == "ready":
                    deadline = time.perf_counter() + cap
                elif kind == "fit":
                    tol, t, reached = msg
                    spent += t
                    best = min(best, reached)
                    o.info[f"tol {tol:g}"] = {"seconds": round(t, 4), "gap": reached}
                    if reached <= gap:
                        o.times.append(t)
                        o.accuracy, o.status = reached, "reached"
                        o.info["tol"] = tol
                elif kind == "again":
                    o.times.append(msg)
                elif kind == "error":
                    o.status, o.info["error"] = "error", msg
                    break
                else:   # done: the gap reached (and its repeats), or every setting tried
                    if o.status != "reached":
                        o.capped, o.status = True, f"did not reach {gap:g} at its tightest tol"
                    break
        except EOFError:
            o.status, o.info["error"] = "error", "the peer's child process died"
    if not o.times and np.isfinite(best):
        o.accuracy = best
    if o.capped:
        o.cap = max(cap, spent)
    return o
