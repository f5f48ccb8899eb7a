"""Optional competitors of the no-bias SVM rows, raced only when installed (never dependencies): scikit-learn's
``SGDClassifier(loss="hinge")`` and skglm's ``LinearSVC``. Each is fitted to ``min ½||w||² + C Σ hinge_i`` without an
intercept and its answer's relative gap is measured by the caller (``marginkit.certify`` on small instances, the
row's certified yardstick on large ones); a competitor that never reaches the row's gap is reported with the best
gap it reached and its time."""
from __future__ import annotations

import warnings

from ..measure import Outcome, wall

SGD_EPOCHS = (5, 20, 100, 500)       # max_iter tried in order until the gap is reached
SKGLM_TOLS = (1e-2, 1e-3, 1e-4, 1e-5, 1e-6)


def _sgd(X, y, C, epochs):
    from sklearn.linear_model import SGDClassifier
    n = X.shape[0]
    # SGD minimises (alpha/2)||w||² + (1/n) Σ hinge: times C·n it is ½||w||² + C Σ hinge with alpha = 1/(C n)
    return SGDClassifier(loss="hinge", penalty="l2", alpha=1.0 / (C * n), fit_intercept=False, max_iter=epochs,
                         tol=None, random_state=0)


def _skglm(X, y, C, tol):
    from skglm import LinearSVC   # noqa: PLC0415 - optional, imported only when raced
    return LinearSVC(C=C, tol=tol, max_iter=1000)


def race(X, y, C, gap_of, gap: float) -> list[Outcome]:
    """Each installed competitor: its settings tried in order until its answer's gap (``gap_of(w)``) is ``<= gap``;
    the outcome holds the time of that fit, or none (``capped``) with the best gap reached."""
    out = []
    for label, make, settings in (("sklearn:SGDClassifier(hinge)", _sgd, SGD_EPOCHS),
                                  ("skglm:LinearSVC", _skglm, SKGLM_TOLS)):
        o = Outcome(label=label)
        try:
            make(X, y, C, settings[0])
        except ImportError:
            o.status, o.info["note"] = "not installed", "optional competitor, not installed"
            out.append(o)
            continue
        best = float("inf")
        for s in settings:
            est = make(X, y, C, s)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t, _ = wall(lambda: est.fit(X, y))
                reached = float(gap_of(est.coef_.ravel()))
            except Exception as exc:  # noqa: BLE001 - an optional library's failure is reported, not raised
                o.status, o.info["error"] = "error", f"{type(exc).__name__}: {exc}"
                break
            best = min(best, reached)
            o.info[f"setting {s:g}"] = {"seconds": round(t, 4), "gap": reached}
            if reached <= gap:
                o.times.append(t)
                o.accuracy, o.status = reached, "reached"
                break
        else:
            o.accuracy, o.status = best, f"did not reach {gap:g}"
        out.append(o)
    return out
