"""A scikit-learn classifier over every marginkit classification method.

:class:`MarginClassifier` is a thin boundary: ``fit`` validates the data the scikit-learn way
(``validate_data``), encodes the two classes as ``{-1, +1}``, builds the declared problem
(:class:`~marginkit.MaxMargin`, :class:`~marginkit.SoftMarginSVM` or :class:`~marginkit.PerturbedSVMDual`)
and calls ``problem.solve(method, ...)``. No math lives here: the model is read off the returned
:class:`~marginkit.Result`, which is kept whole as ``result_`` (status, certificate, trace).
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from .formulations import MaxMargin, PerturbedSVMDual, SoftMarginSVM

PROBLEMS = ("max-margin", "soft-margin", "perturbed-dual")
# the problem's own default offset when ``bias="auto"``
_AUTO_BIAS = {"max-margin": False, "soft-margin": True, "perturbed-dual": True}
# a multiplier below this fraction of the largest one is not a support vector
SUPPORT_TOL = 1e-6


class MarginClassifier(ClassifierMixin, BaseEstimator):
    """Binary linear (or kernel) margin classifier solved by any marginkit method.

    Parameters
    ----------
    problem : {"soft-margin", "max-margin", "perturbed-dual"}, default="soft-margin"
        The problem fitted: :class:`~marginkit.SoftMarginSVM` (hinge loss, any data),
        :class:`~marginkit.MaxMargin` (hard margin; the training data must be separable) or
        :class:`~marginkit.PerturbedSVMDual` (Hough–Vavasis; linear, always with an offset).
    method : str, default="cvxpy"
        Any name in ``marginkit.methods(problem)``, e.g. ``"cvxpy"``, ``"dual-accelerated"``
        (max-margin, ``bias=False``), ``"fista"`` (soft-margin, perturbed-dual).
    C : float, default=1.0
        Hinge penalty of the soft-margin problem; for ``"perturbed-dual"`` it is the problem's penalty
        ``gamma`` (unless ``method_options`` gives ``gamma``). Not used by ``"max-margin"``.
    bias : "auto" or bool, default="auto"
        Fit an offset ``b``. ``"auto"`` is the problem's own default: no offset for max-margin (the
        homogeneous problem the first-order margin methods solve), an offset for soft-margin; the
        perturbed dual always has one.
    kernel : None, "linear", "rbf" or callable, default=None
        Kernel of the max-margin and soft-margin problems (only the methods that work in the dual
        accept one). With a kernel there is no ``coef_``; predictions use ``dual_coef_``.
    gamma : float, default=None
        Width of the ``"rbf"`` kernel (``1 / n_features`` when None). Not the perturbed dual's ``gamma``.
    max_iter, tol : int, float, default=None
        Budget and certificate tolerance of a first-order method (None: the method's defaults). The
        ``"cvxpy"`` method ignores both; pass solver settings through ``method_options`` instead
        (e.g. ``{"solver": "ECOS"}``).
    random_state : int, RandomState instance or None, default=None
        Seed of the stochastic methods (passed as ``seed``).
    method_options : dict, default=None
        The method's own parameters under the paper's names (e.g. ``{"loss": "logistic"}``) and the
        other run options (``time_limit``, ``warm_start``, ``trace``, ...). For ``"perturbed-dual"``,
        ``gamma`` and ``mu`` here are the problem's parameters. Extra keyword arguments of the
        constructor and of ``set_params`` are merged into this dict, so ``MarginClassifier(loss="logistic")``
        and a grid over ``{"loss": [...]}`` work; ``get_params`` lists them under ``method_options``
        (which keeps ``clone`` exact). A misspelled name is therefore only rejected by ``fit``.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the positive side of ``decision_function``.
    coef_ : ndarray of shape (1, n_features)
        The normal ``w`` (linear problems only; for max-margin scaled so that ``min_i y_i f(x_i) = 1``).
    intercept_ : ndarray of shape (1,)
        The offset ``b`` (0 without bias).
    dual_coef_ : ndarray of shape (1, n_SV)
        ``y_i a_i`` for the support vectors, when the method returns dual multipliers or uses a kernel.
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training data (with ``dual_coef_``).
    n_iter_ : int
        Iterations of the method (interior-point iterations for ``"cvxpy"``).
    result_ : marginkit.Result
        The full result: ``status``, ``certificate``, ``trace``, ``margin``, ``value``, ``time``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str, only when ``X`` has string feature names.

    Notes
    -----
    A budget stop (status ``user_limit``) emits a :class:`~sklearn.exceptions.ConvergenceWarning`.
    For ``problem="max-margin"``, data that cannot be separated raise a ``ValueError``; use
    ``problem="soft-margin"`` for them. Inputs may be ``scipy.sparse`` matrices.
    """

    def __init__(self, problem="soft-margin", method="cvxpy", C=1.0, bias="auto", kernel=None, gamma=None,
                 max_iter=None, tol=None, random_state=None, method_options=None, **extra_options):
        self.problem = problem
        self.method = method
        self.C = C
        self.bias = bias
        self.kernel = kernel
        self.gamma = gamma
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        # ``clone`` rebuilds the estimator from ``get_params()``, which lists ``method_options`` only, so
        # extra keywords are folded into it; without extras the given object is kept as is (clone checks it).
        if extra_options and (method_options is None or isinstance(method_options, dict)):
            method_options = {**(method_options or {}), **extra_options}
        self.method_options = method_options

    def set_params(self, **params):
        """Set parameters; names that are not parameters of the estimator go into ``method_options``
        (the counterpart of the constructor's extra keywords)."""
        names = self._get_param_names()
        extra = {k: params.pop(k) for k in list(params) if k not in names}
        super().set_params(**params)
        if extra:
            options = self.method_options if isinstance(self.method_options, dict) else {}
            self.method_options = {**options, **extra}
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # every marginkit problem is binary
        tags.input_tags.sparse = True
        return tags

    # fitting -------------------------------------------------------------------------------------
    def fit(self, X, y):
        """Build the declared problem on ``(X, y)`` and solve it with ``method``."""
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        check_classification_targets(y)
        y_type = type_of_target(y, input_name="y")
        if y_type != "binary":
            raise ValueError(f"Only binary classification is supported (marginkit's problems are binary); "
                             f"the type of the target is {y_type}")
        classes, y_index = np.unique(y, return_inverse=True)
        if classes.size == 1:
            raise ValueError(f"MarginClassifier needs two classes; y has only one class ({classes[0]!r})")
        self.classes_ = classes
        problem, options = self._build(X, 2.0 * y_index - 1.0)
        result = problem.solve(self.method, **options)
        self._check_result(problem, result, options)
        self._set_model(problem, result)
        return self

    def _build(self, X, y):
        """The declared problem on ``(X, y in {-1, +1})`` and the options for ``problem.solve``."""
        if self.problem not in PROBLEMS:
            raise ValueError(f"problem must be one of {PROBLEMS}; got {self.problem!r}")
        if not (self.bias == "auto" or isinstance(self.bias, (bool, np.bool_))):
            raise ValueError(f"bias must be 'auto', True or False; got {self.bias!r}")
        if self.method_options is not None and not isinstance(self.method_options, dict):
            raise ValueError(f"method_options must be a dict or None; got {self.method_options!r}")
        bias = _AUTO_BIAS[self.problem] if self.bias == "auto" else bool(self.bias)
        options = dict(self.method_options or {})
        if self.problem == "max-margin":
            problem = MaxMargin(X, y, bias=bias, kernel=self.kernel, gamma=self.gamma)
        elif self.problem == "soft-margin":
            problem = SoftMarginSVM(X, y, C=self.C, bias=bias, kernel=self.kernel, gamma=self.gamma)
        else:
            if self.kernel not in (None, "linear") or self.gamma is not None:
                raise ValueError("problem='perturbed-dual' is linear: kernel and gamma do not apply "
                                 "(its penalty is C, or method_options['gamma'])")
            if not bias:
                raise ValueError("problem='perturbed-dual' always fits an offset (its dual has eᵀu = eᵀv); "
                                 "bias must be 'auto' or True")
            problem = PerturbedSVMDual(X, y, gamma=options.pop("gamma", self.C), mu=options.pop("mu", None))
        if self.method != "cvxpy":
            for name, value in (("max_iter", self.max_iter), ("tol", self.tol), ("seed", self._seed())):
                if value is None:
                    continue
                if name in options:
                    raise ValueError(f"{name} is given both as a parameter of MarginClassifier and in "
                                     "method_options; give it once")
                options[name] = value
        return problem, options

    def _seed(self):
        rs = self.random_state
        if rs is None or isinstance(rs, numbers.Integral):
            return rs
        return int(check_random_state(rs).randint(np.iinfo(np.int32).max))

    def _check_result(self, problem, result, options):
        """Turn the statuses a scikit-learn user must hear about into a warning or an error."""
        who = f"MarginClassifier(problem={self.problem!r}, method={self.method!r})"
        if getattr(problem, "kernel", None) is not None:
            how = f"separable with kernel={self.kernel!r};"
        elif getattr(problem, "bias", True):
            how = "linearly separable;"
        else:
            how = "linearly separable through the origin (bias=False); try bias=True with method='cvxpy', or"
        not_separable = (f"{who}: the training data are not {how} use problem='soft-margin', which "
                         "accepts any data")
        if result.status == "infeasible":
            if self.problem == "max-margin":
                raise ValueError(not_separable)
            raise ValueError(f"{who}: the method reported the problem infeasible")
        if result.w is None and result.dual_coef is None:
            raise RuntimeError(f"{who} failed with status {result.status!r}; no classifier was found")
        if result.status == "infeasible_inaccurate":
            if self.problem == "max-margin" and _certified_not_separable(problem):
                raise ValueError(not_separable)
            warnings.warn(f"{who}: no separator with a margin above tol·max||x_i|| exists; the data may still be "
                          "separable with a tinier margin: decrease tol, or use problem='soft-margin'",
                          ConvergenceWarning, stacklevel=3)
            return
        if result.status == "user_limit":
            if self.problem == "max-margin" and not result.margin > 0 and _certified_not_separable(problem):
                raise ValueError(not_separable)
            tol = f"tol={options['tol']:g}" if "tol" in options else "the method's default tol"
            warnings.warn(f"{who} stopped at its budget before its certificate met {tol}: "
                          f"{_budget_reached(result, options)}. Increase max_iter (or tol)",
                          ConvergenceWarning, stacklevel=3)

    def _set_model(self, problem, result):
        for stale in ("coef_", "dual_coef_", "support_"):  # from an earlier fit with other parameters
            self.__dict__.pop(stale, None)
        self.result_ = result
        self.n_iter_ = int(result.iterations)
        self.intercept_ = np.array([float(result.b)])
        if getattr(problem, "kernel", None) is None and result.w is not None:
            self.coef_ = np.asarray(result.w, dtype=np.float64).reshape(1, -1)
        dual = _dual_coef(problem, result)
        if dual is not None:
            scale = float(np.max(np.abs(dual), initial=0.0))
            self.support_ = np.flatnonzero(np.abs(dual) > SUPPORT_TOL * scale)
            self.dual_coef_ = dual[self.support_].reshape(1, -1)

    # prediction ----------------------------------------------------------------------------------
    def decision_function(self, X):
        """Signed score ``f(x) = wᵀx + b`` (kernel: ``Σ_i dual_i k(x_i, x) + b``); positive means ``classes_[1]``."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        if hasattr(self, "coef_"):
            return np.asarray(safe_sparse_dot(X, self.coef_.T)).ravel() + self.intercept_[0]
        return np.asarray(self.result_.decision_function(X), dtype=np.float64).ravel()

    def predict(self, X):
        """The label of ``classes_`` on the side of the hyperplane each row falls on."""
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]


def _certified_not_separable(problem) -> bool:
    """The CVXPY hull certificate (Gordan's alternative), asked only when a budget stop left a
    non-separating iterate: it tells "not separable" apart from "not converged"."""
    from .reference.margin import hull_certificate
    return not hull_certificate(problem)["separable"]


def _budget_reached(result, options) -> str:
    cert = result.certificate or {}
    where = f"{result.iterations} iterations"
    if "time_limit" in options and result.time >= options["time_limit"]:
        where += f", time_limit={options['time_limit']}s reached"
    elif "max_iter" in options:
        where += f", max_iter={options['max_iter']} reached"
    else:
        where += " (the method's default max_iter)"
    for key in ("relative_gap_bound", "gap_bound", "duality_gap"):
        if key in cert and np.isfinite(cert[key]):
            return f"{where}; {key.replace('_', ' ')} {float(cert[key]):.3g}"
    return where


def _dual_coef(problem, result):
    """``y_i a_i`` for every training row: the kernel expansion, or the multipliers ``a`` of a method
    that solved the dual; None for a primal method."""
    if result.dual_coef is not None:
        return np.asarray(result.dual_coef, dtype=np.float64).ravel()
    a = (result.dual or {}).get("a")
    if a is not None and np.shape(a) == (problem.n,):
        return problem.y * np.asarray(a, dtype=np.float64)
    return None

