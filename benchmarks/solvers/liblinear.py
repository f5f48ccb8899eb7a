"""liblinear as a competitor: scikit-learn's ``LinearSVC`` (liblinear's dual coordinate descent, hinge loss, no
intercept), timed through ``LinearSVC(...).fit``; its ``tol`` is lowered by decades until it reaches the row's
relative objective gap."""
from __future__ import annotations

import numpy as np

from ..measure import Outcome, wall

MAX_EPOCHS = 20_000


def fit(X, y, tol):
    """``(seconds, fitted LinearSVC)`` with C = 1, hinge loss, ``fit_intercept=False``."""
    import warnings
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC
    # max_iter bounds one fit (liblinear cannot be interrupted): a fit stopped there is judged by the gap it reached
    svc = LinearSVC(C=1.0, loss="hinge", fit_intercept=False, dual=True, tol=tol, max_iter=MAX_EPOCHS, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        t, _ = wall(lambda: svc.fit(X, y))
    return t, svc


SEARCH_CAP = 240.0   # seconds of liblinear fits per instance; beyond it the search stops (a lower-bound ratio)


def search_tol(X, y, objective, gap_of, gap: float, tols, cap: float = SEARCH_CAP) -> tuple[Outcome, dict]:
    """The first ``tol`` of ``tols`` whose fit reaches ``gap`` (``gap_of(objective(coef))``): the outcome (its time
    and accuracy, ``info["tol"]``; no time if none does) and every fit tried. Once the fits tried have taken ``cap``
    seconds no tighter ``tol`` is tried (``info["capped_after"]``: the last fit's seconds, a lower bound on the time
    of a fit that reaches the gap, since a tighter ``tol`` only adds epochs)."""
    lib = Outcome(label="liblinear")
    tried = {}
    spent = 0.0
    for k, tol in enumerate(tols):
        t, svc = fit(X, y, tol)
        spent += t
        reached = gap_of(objective(svc.coef_.ravel()))
        tried[f"{tol:g}"] = {"seconds": round(t, 4), "gap": reached, "epochs": int(np.max(svc.n_iter_))}
        if reached <= gap:
            lib.times.append(t)
            lib.accuracy, lib.info["tol"] = reached, tol
            break
        if spent > cap and k + 1 < len(tols):
            lib.info["capped_after"] = t
            break
    return lib, tried
