"""``benchmarks/bias_vs_liblinear.py``: liblinear's penalised intercept is the SVM without an offset on ``[X, 1]``,
and its answers are judged there by the same yardstick as ``marginkit.certify``."""
import sys
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import marginkit as mk

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the benchmark lives in the repository, not the package
from benchmarks.bias_vs_liblinear import penalised, text_like  # noqa: E402
from benchmarks.rows_peers import Gap  # noqa: E402


def test_liblinear_with_an_intercept_is_judged_on_the_penalised_problem_as_certify_judges_it():
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC
    X, y = text_like(300, 40, 0.2, seed=3)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    assert sp.issparse(X) and np.allclose(norms[X.getnnz(axis=1) > 0], 1.0)
    for XX in (X, X.toarray()):
        P = mk.SoftMarginSVM(penalised(XX), y, C=1.0, bias=False)
        last = P.X[:, -1].toarray() if sp.issparse(P.X) else P.X[:, -1]
        assert P.X.shape == (300, 41) and np.all(last == 1.0)
        lower = P.solve("ipm", tol=1e-10).certificate["dual"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            svc = LinearSVC(C=1.0, loss="hinge", fit_intercept=True, intercept_scaling=1.0, tol=1e-3).fit(XX, y)
        wa = np.append(svc.coef_.ravel(), svc.intercept_[0])
        ours = Gap(P, lower)(wa)
        ref = mk.certify(P, wa).certificate["relative_gap"]
        assert ours > 0 and abs(ours - ref) <= 1e-6 * max(1.0, ref)
    # the exact offset's problem is another one: its optimum is not above the penalised one's
    E = mk.SoftMarginSVM(X, y, C=1.0, bias=True)
    assert E.solve("ipm", tol=1e-10).value <= P.solve("ipm", tol=1e-10).value * (1 + 1e-8)
