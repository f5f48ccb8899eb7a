"""The solvers of the three benchmarks (``benchmark_utils.solvers``): each ``solvers/<name>.py`` subclasses one of
these with its ``name``, its docstring (benchopt's ``solver_description``) and, where the benchmark needs them, its
``parameters``; it also imports the solver's library inside its ``safe_import_context``, so that benchopt reports the
solver "not installed" where the library is absent (these classes import it only when they build the estimator).

One ``set_objective`` takes the keys of all three objectives: ``X, y, C`` (the community benchmark's, through the
origin, answered with ``beta`` alone) and, where the objective gives them, ``bias`` and ``form`` (``"SoftMarginSVM"``
or ``"MaxMargin"``, answered with ``beta`` and ``intercept``). For the hard margin ``C`` is a soft-margin ``C`` at
which the soft-margin optimum is the hard-margin one (:func:`~certified.equivalent_C`).
"""
from __future__ import annotations

import numpy as np
from benchopt import BaseSolver
from benchopt.stopping_criterion import SingleRunCriterion

from .certified import build, coefficients, fit_quietly


class CertifiedSolver(BaseSolver):
    """What every solver here shares: the objective's keys read once, the answer in the objective's keys, and the
    reason (``refuses``) to skip a problem it does not solve."""

    sampling_strategy = "iteration"
    install_cmd = "conda"

    def skip(self, X, y, C, bias=None, form="SoftMarginSVM"):
        reason = self.refuses(X, y, C, bool(bias), form)
        return reason is not None, reason

    def refuses(self, X, y, C, bias, form):
        """Why this solver does not run on the problem, or None."""
        return None

    def set_objective(self, X, y, C, bias=None, form="SoftMarginSVM"):
        self.X, self.y, self.C, self.form = X, y, C, form
        self.bias, self.with_intercept = bool(bias), bias is not None
        self.prepare()

    def prepare(self):
        """What is built once per problem, outside the timed runs."""

    def answer(self, w, b=None):
        w = np.asarray(w, dtype=float).ravel()
        if not self.with_intercept:
            return dict(beta=w)
        return dict(beta=w, intercept=0.0 if b is None or not self.bias else float(b))


class Marginkit(CertifiedSolver):
    """``max_iter`` iterations of ``problem.solve(method)`` per point of the curve, from scratch, as benchopt's
    iteration sampling asks; a method that does not solve the objective's problem is skipped with the reason."""

    def refuses(self, X, y, C, bias, form):
        import marginkit as mk
        if self.method not in mk.methods(build(form, X, y, C, bias)):
            return f"{self.method!r} does not solve {form}(bias={bias}) (marginkit.methods)"
        return None

    def prepare(self):
        # validated (and copied) once here, outside the timed runs
        self.problem = build(self.form, self.X, self.y, self.C, self.bias)

    def warm_up(self):
        self.run_once(2)   # numba compilation and the problem's one-time setup, not charged to the first point

    def run(self, n_iter):
        # tol 1e-12: a method stops before n_iter only once its own certificate proves that relative gap
        self.result = self.problem.solve(self.method, max_iter=n_iter, tol=1e-12, trace=None, seed=0)

    def get_result(self):
        return self.answer(self.result.w, self.result.b)


class Cvxpy(CertifiedSolver):
    """``problem.solve("cvxpy", solver=...)``, one point per run: the problem is built, compiled and solved inside
    the timed run."""

    sampling_strategy = "run_once"
    stopping_criterion = SingleRunCriterion()   # not the objective's iterative one
    requirements = ["cvxpy"]
    parameters = {"solver": ["CLARABEL", "ECOS", "SCS"]}

    def refuses(self, X, y, C, bias, form):
        import cvxpy
        if self.solver not in cvxpy.installed_solvers():
            return f"CVXPY's {self.solver} is not installed"
        return None

    def run(self, _):
        self.result = build(self.form, self.X, self.y, self.C, self.bias).solve("cvxpy", solver=self.solver)

    def get_result(self):
        return self.answer(self.result.w, self.result.b)


class Library(CertifiedSolver):
    """A scikit-learn style estimator (``estimator()``), refitted from scratch with ``max_iter = n_iter × epoch()``
    for each point; at ``n_iter = 0`` the starting point of these solvers, zero (scikit-learn needs ``max_iter >= 1``,
    and libsvm reads 0 as no limit)."""

    def prepare(self):
        self.clf = self.estimator()

    def estimator(self):
        raise NotImplementedError

    def epoch(self) -> int:
        return 1

    def run(self, n_iter):
        if n_iter == 0:
            self.result = dict(beta=np.zeros(self.X.shape[1]), intercept=0.0)
            return
        self.clf.max_iter = n_iter * self.epoch()
        self.result = coefficients(fit_quietly(self.clf, self.X, self.y))

    def get_result(self):
        return self.answer(self.result["beta"], self.result["intercept"])


class Liblinear(Library):
    """scikit-learn's ``LinearSVC(loss="hinge")``: liblinear's dual coordinate descent; its intercept (``bias``) is
    a constant feature ``intercept_scaling`` whose weight is penalised."""

    requirements = ["scikit-learn"]

    def estimator(self):
        from sklearn.svm import LinearSVC
        # 1: scikit-learn's default; svm_intercept makes it a parameter (so no class attribute here: benchopt sets a
        # parameter only where the class has no such attribute)
        scaling = getattr(self, "intercept_scaling", 1.0)
        return LinearSVC(C=self.C, loss="hinge", dual=True, fit_intercept=self.bias, intercept_scaling=scaling,
                         tol=1e-12)


class Libsvm(Library):
    """scikit-learn's ``SVC(kernel="linear")``: libsvm's SMO on the dual with ``yᵀa = 0``, the exact free intercept;
    ``n`` SMO steps (each moves two multipliers) per epoch, as for the other solvers."""

    requirements = ["scikit-learn"]

    def refuses(self, X, y, C, bias, form):
        return None if bias else "libsvm always fits an intercept: it solves the bias=True problem"

    def estimator(self):
        from sklearn.svm import SVC
        return SVC(kernel="linear", C=self.C, tol=1e-12, cache_size=1000)

    def epoch(self) -> int:
        return self.X.shape[0]


class Skglm(Library):
    """skglm's ``LinearSVC``: it accepts ``fit_intercept=True`` but hands its solver ``fit_intercept=False``. The
    hard margin runs it through the origin only; the SVM with intercept runs it to show the intercept it lacks."""

    requirements = ["pip::skglm"]

    def refuses(self, X, y, C, bias, form):
        if bias and form == "MaxMargin":
            return "skglm's LinearSVC fits no intercept: it solves the bias=False problem"
        return None

    def estimator(self):
        from skglm import LinearSVC
        return LinearSVC(C=self.C, fit_intercept=self.bias, tol=1e-12)

    def warm_up(self):
        self.run_once(2)   # numba compilation


class SnapML(Library):
    """Snap ML's ``SupportVectorMachine`` with ``regularizer = 1/C`` (its objective ``Σ_i loss_i + (λ/2)||w||²`` is
    the SVM's divided by ``C``); its intercept, like liblinear's, is a penalised constant feature, so the hard margin
    runs it through the origin only."""

    requirements = ["pip::snapml"]

    def refuses(self, X, y, C, bias, form):
        return "Snap ML penalises its intercept: run with bias=False" if bias and form == "MaxMargin" else None

    def estimator(self):
        from snapml import SupportVectorMachine
        return SupportVectorMachine(regularizer=1.0 / self.C, fit_intercept=self.bias, tol=1e-12)
