"""A scikit-learn classifier over every marginkit classification method.

:class:`MarginClassifier` is a thin boundary: ``fit`` validates the data the scikit-learn way (``validate_data``),
turns ``sample_weight`` and ``class_weight`` into the per-sample box ``C_i = C·s_i`` of the soft margin, builds one
declared problem per binary task (:class:`~marginkit.MaxMargin`, :class:`~marginkit.SoftMarginSVM` or
:class:`~marginkit.PerturbedSVMDual`; one-vs-rest for three classes or more) and calls ``problem.solve(method, ...)``.
No math lives here: the model is read off the returned :class:`~marginkit.Result` objects, kept whole as ``result_``
(status, certificate, trace).
"""
from __future__ import annotations

import numbers
import warnings
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from ..core.backend import is_dask
from ..core.params import Boolean, InstanceOf, Interval, Options, check_values
from ..core.validation import ProblemError
from ..engine.graph import method_spec, methods
from ..formulations import MaxMargin, PerturbedSVMDual, SoftMarginSVM
from .estimator_dask import block_scores, dask_labels, dask_matrix, is_dask_input, labels_of
from .path import default_method

PROBLEMS = ("max-margin", "soft-margin", "perturbed-dual")
# a multiplier below this fraction of the largest one is not a support vector
SUPPORT_TOL = 1e-6


PROBED = frozenset({"interior-point", "pairwise"})   # card tags of the defaults auto reaches after a probe

class MarginClassifier(ClassifierMixin, BaseEstimator):
    """Linear (or kernel) margin classifier solved by any marginkit method; binary, or one-vs-rest.

    Parameters
    ----------
    problem : {"soft-margin", "max-margin", "perturbed-dual"}, default="soft-margin"
        The problem fitted: :class:`~marginkit.SoftMarginSVM` (hinge loss, any data),
        :class:`~marginkit.MaxMargin` (hard margin; the training data must be separable) or
        :class:`~marginkit.PerturbedSVMDual` (Hough–Vavasis; linear, always with an offset).
    method : str, default=None
        Any name in ``marginkit.methods(problem)``. None picks ``solve("auto")``'s fast certified method for the
        problem actually built (:func:`marginkit.api.path.default_method`; a method that does not handle sample
        weights is never picked for a weighted fit); where the model runs a probe first (``"ipm"`` after a coordinate
        probe, ``"smo"`` before the model's other choice), a fit without a warm start runs ``solve("auto")`` itself
        (:mod:`marginkit.engine.choice`). ``result_.method`` names the method run.
    C : float, default=1.0
        Hinge penalty of the soft-margin problem; for ``"perturbed-dual"`` it is the problem's penalty ``gamma``
        (unless ``gamma=`` is given). Not used by ``"max-margin"``.
    bias : bool, default=True
        Fit an offset ``b`` (the perturbed dual always has one).
    kernel : None, "linear", "rbf" or callable, default=None
        Kernel of the max-margin and soft-margin problems (only the methods that work in the dual accept one;
        ``gamma=`` sets the RBF width). With a kernel there is no ``coef_``; predictions use the dual coefficients.
    class_weight : dict, "balanced" or None, default=None
        Multiplies the ``C`` of every sample of a class (``{label: weight}``; ``"balanced"``:
        ``n_samples / (n_classes · count(label))``, as scikit-learn's ``compute_class_weight``), on top of
        ``sample_weight``. One-vs-rest keeps each sample's weight in every binary problem.
    max_iter, tol : int, float, default=None
        Budget and relative certificate tolerance of a first-order method (None: the method's defaults; see
        ``marginkit.describe(method)``). ``"cvxpy"`` ignores both (its solver settings go in ``**method_options``).
    warm_start : bool, default=False
        Start the next ``fit`` from the previous ``result_`` (same classes, features and method; dual methods also
        need the same number of samples).
    verbose : int, default=0
        Passed to the method (its run log; CVXPY's solver output for ``"cvxpy"``); one line per binary problem when
        fitting one-vs-rest.
    **method_options
        The method's own parameters under the paper's names (``loss="logistic"``), run options (``time_limit``,
        ``trace``, ``seed``; ``random_state`` is read as ``seed``; the seed is 0 unless given, so that a fit is
        reproducible), solver settings of ``"cvxpy"`` (``solver="ECOS"``),
        and the problem's ``gamma`` (RBF width; the perturbed dual's penalty) and ``mu`` (perturbed dual). They are
        estimator parameters like the others (``get_params``, ``set_params``, ``clone``, grid searches); a misspelled
        name is rejected by ``fit``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        ``w`` of each binary problem (linear problems only; for max-margin scaled so that ``min_i y_i f(x_i) = 1``).
    intercept_ : ndarray of shape (1,) or (n_classes,)
    dual_coef_ : ndarray of shape (1, n_SV) or (n_classes, n_SV)
        ``y_i a_i`` of each binary problem on the support vectors, when the method returns dual multipliers or uses a
        kernel (one-vs-rest: the union of the support vectors, zeros where a row is not one of that problem's).
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training data (with ``dual_coef_``).
    class_weight_ : ndarray of shape (n_classes,)
        The weight of each class (ones without ``class_weight``).
    n_iter_ : int
        Iterations of the method (the largest over the binary problems; interior-point iterations for ``"cvxpy"``).
    result_ : marginkit.Result or list of them
        The full result (``status``, ``certificate``, ``trace``, ``margin``, ``value``, ``time``); one-vs-rest: one
        per class, ``result_[k]`` separating ``classes_[k]`` (its ``+1``) from the rest.
    n_features_in_ : int
    feature_names_in_ : ndarray of str, only when ``X`` has string feature names.

    Notes
    -----
    ``sample_weight`` scales each sample's ``C`` (soft margin; ``C_i = C·s_i``). The hard-margin constraints have no
    weight: ``"max-margin"`` and ``"perturbed-dual"`` drop the samples of weight zero and accept no other weights
    than equal ones (the perturbed dual) or ignore them (the hard margin).

    A budget stop (status ``user_limit``) emits a :class:`~sklearn.exceptions.ConvergenceWarning`. For
    ``problem="max-margin"``, data that cannot be separated raise a ``ValueError``; use ``problem="soft-margin"`` for
    them. Inputs may be ``scipy.sparse`` matrices. For a search over ``C`` with warm starts along the grid, see
    :func:`marginkit.path`, whose docstring shows the cross-validation loop.
    """

    def __init__(self, problem="soft-margin", method=None, C=1.0, bias=True, kernel=None, class_weight=None,
                 max_iter=None, tol=None, warm_start=False, verbose=0, **method_options):
        self.problem = problem
        self.method = method
        self.C = C
        self.bias = bias
        self.kernel = kernel
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.tol = tol
        self.warm_start = warm_start
        self.verbose = verbose
        # each extra keyword is a parameter of its own (an attribute listed by get_params), so clone, set_params and
        # grid searches treat it like a named one
        self._option_names = ()
        self._set_options(method_options)

    def _set_options(self, options):
        for name, value in options.items():
            if name.startswith("_") or name.endswith("_") or hasattr(type(self), name):
                raise TypeError(f"MarginClassifier got the keyword {name!r}, which cannot be a method option (it "
                                f"starts or ends with '_', or is an attribute of the estimator)")
            setattr(self, name, value)
        self._option_names = tuple(dict.fromkeys(self._option_names + tuple(options)))

    def get_params(self, deep=True):
        params = super().get_params(deep=deep)
        params.update({name: getattr(self, name) for name in self._option_names})
        return params

    def set_params(self, **params):
        """Set parameters; a name that is not yet a parameter becomes a method option (as in the constructor)."""
        known = set(self.get_params(deep=False))
        new = {k: params.pop(k) for k in list(params) if k not in known and "__" not in k}
        self._set_options(new)
        return super().set_params(**params)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # fitting ---------------------------------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Solve the declared problem on ``(X, y)`` (one-vs-rest for three classes or more) with ``method``.
        ``sample_weight`` scales each sample's ``C`` (see the class's Notes). A dask array or ``dask.dataframe``
        ``X`` is fitted where it lives (see :meth:`_fit_dask`)."""
        if is_dask_input(X):
            return self._fit_dask(X, y, sample_weight)
        previous = self._previous()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        check_classification_targets(y)
        self._check_params()
        classes, y_index = np.unique(y, return_inverse=True)
        if classes.size < 2:
            raise ValueError(f"MarginClassifier needs two classes; y has only one class ({classes[0]!r})")
        weights = self._weights(X, y, classes, y_index, sample_weight)
        tasks = [y_index == 1] if classes.size == 2 else [y_index == k for k in range(classes.size)]
        if previous is not None and not (np.array_equal(previous[0], classes) and len(previous[1]) == len(tasks)):
            previous = None
        fits = []
        for k, positive in enumerate(tasks):
            problem, rows = self._build(X, np.where(positive, 1.0, -1.0), weights)
            method = default_method(problem) if self.method is None else self.method
            self._check_bias(problem, method)
            if weights is not None and self.problem == "soft-margin" and method not in methods(problem):
                raise ValueError(f"method {method!r} does not solve the soft margin with per-sample weights "
                                 f"(sample_weight or class_weight); methods that do: {methods(problem)} "
                                 f"(method=None picks one)")
            warm = None if previous is None else _warm(previous[1][k], method, problem)
            card = method_spec(problem, method)
            options = self._options(method, warm, card.is_reference)
            if self.verbose and len(tasks) > 1:
                print(f"[MarginClassifier] one-vs-rest {k + 1}/{len(tasks)}: {classes[k]!r} against the rest, "
                      f"method {method!r}")
            # the default is one that solve("auto") reaches after a probe (module docstring): run auto itself
            probe = self.method is None and warm is None and problem.form == "SoftMarginSVM" and \
                bool(PROBED & set(card.tags))
            result = problem.solve("auto" if probe else method, **options)
            self._check_result(problem, result.method if probe else method, result, options)
            fits.append((problem, rows, result))
        self.classes_ = classes
        self._set_model(fits, X.shape[0])
        return self

    def _fit_dask(self, X, y, sample_weight):
        """Fit on dask data where it lives; ``method=None`` picks a method ``marginkit.methods(problem)`` lists for it
        (``cvxpy``, a host copy, only if nothing else is). Binary only; no weights, kernel, warm start."""
        import dask.array as da
        X, names = dask_matrix(X)
        y = dask_labels(y, X)
        self._check_params()
        if sample_weight is not None or self.class_weight is not None or self.kernel not in (None, "linear"):
            raise ProblemError("sample_weight, class_weight and kernel are not supported on dask data yet")
        classes = np.unique(np.asarray(da.unique(y).compute()))
        if classes.size != 2:
            raise (ValueError if classes.size < 2 else ProblemError)(
                f"MarginClassifier on dask data needs two classes (one-vs-rest on dask is not supported yet); y has "
                f"{classes.size}: fit the binary problems one by one (y == label) or on NumPy data")
        problem, _ = self._build(X, da.where(y == classes[1], 1.0, -1.0).persist(), None)
        method = self.method or default_method(problem)
        if self.method is None and method_spec(problem, method).is_reference:   # a marginkit method where one applies
            method = next((m for m in methods(problem) if not method_spec(problem, m).is_reference), method)
        options = self._options(method, None, method_spec(problem, method).is_reference)
        result = problem.solve(method, **options)
        self._check_result(problem, method, result, options)
        for stale in ("coef_", "dual_coef_", "support_", "feature_names_in_"):
            self.__dict__.pop(stale, None)
        self.classes_, self.class_weight_, self.n_features_in_ = classes, np.ones(2), int(X.shape[1])
        if names is not None:
            self.feature_names_in_ = names
        self.result_, self.n_iter_, self.intercept_ = result, int(result.iterations), np.array([float(result.b)])
        if result.w is not None:
            self.coef_ = np.asarray(result.w, dtype=np.float64).reshape(1, -1)
        return self

    def _previous(self):
        """``(classes, results)`` of the last fit when ``warm_start`` asks for them, else None."""
        if not self.warm_start or not hasattr(self, "result_"):
            return None
        results = self.result_ if isinstance(self.result_, list) else [self.result_]
        return self.classes_, results

    #: the declared parameters (:mod:`marginkit.core.params`: the format of a plan's ``Config``; a ``ProblemError``
    #: is a ``ValueError``, what scikit-learn's own estimators raise for a bad parameter)
    _declared_constraints: ClassVar[dict] = {
        "problem": [Options(*PROBLEMS)],
        "bias": [Boolean()],
        "method": [None, InstanceOf(str, name="a method name (see marginkit.methods(problem))")],
        "warm_start": [Boolean()],
        "verbose": [Interval(int, 0, None)],
        "class_weight": [None, InstanceOf(dict, name="a dict"), Options("balanced")],
    }

    def _check_params(self):
        check_values("MarginClassifier", {name: getattr(self, name) for name in self._declared_constraints},
                     self._declared_constraints)

    def _weights(self, X, y, classes, y_index, sample_weight):
        """Per-sample weights ``s_i`` (``sample_weight`` times the weight of the sample's class), or None when they
        are all one (then every method of the unweighted problem applies)."""
        self.class_weight_ = compute_class_weight(self.class_weight, classes=classes, y=y)
        s = None
        if sample_weight is not None:
            s = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        if self.class_weight is not None:
            s = self.class_weight_[y_index] * (1.0 if s is None else s)
        if s is None or np.all(s == 1.0):
            return None
        if not np.any(s > 0):
            raise ValueError("sample_weight (times class_weight) is zero for every sample: nothing to fit")
        return s

    def _check_bias(self, problem, method):
        """A method that fits no offset, asked for one by the default ``bias=True``: a message that names ``bias``
        and the fix (the graph's own message names the problem, which the estimator's user never built)."""
        if not self.bias or method in methods(problem):
            return
        import copy
        unbiased = copy.copy(self)
        unbiased.bias = False
        if method in methods(unbiased._build(problem.X, problem.y, None)[0]):
            raise ProblemError(f"MarginClassifier(problem={self.problem!r}, method={method!r}): method {method!r} fits "
                               "a classifier through the origin (no offset), but bias=True (the default) asks for an "
                               "offset; set bias=False, or pick a method that fits an offset (method=None picks one)")

    def _extras(self):
        return {name: getattr(self, name) for name in self._option_names}

    def _build(self, X, y, weights):
        """The declared problem on ``(X, y in {-1, +1})`` and the training rows it holds (None: all)."""
        extras = self._extras()
        rows = None
        if weights is not None and self.problem != "soft-margin":
            keep = weights > 0                      # a zero weight removes the sample; the constraints have no C
            if self.problem == "perturbed-dual" and not np.allclose(weights[keep], weights[keep][0]):
                raise ValueError("problem='perturbed-dual' has no per-sample penalty: sample_weight and class_weight "
                                 "may only remove samples (weight 0) there; use problem='soft-margin'")
            if not keep.all():
                rows = np.flatnonzero(keep)
                X, y = X[rows], y[rows]
        if self.problem == "soft-margin":
            return SoftMarginSVM(X, y, C=self.C, bias=self.bias, kernel=self.kernel, gamma=extras.get("gamma"),
                                 sample_weight=weights), rows
        if self.problem == "max-margin":
            return MaxMargin(X, y, bias=self.bias, kernel=self.kernel, gamma=extras.get("gamma")), rows
        if self.kernel not in (None, "linear"):
            raise ValueError("problem='perturbed-dual' is linear: kernel does not apply (its penalty is C, or gamma=)")
        if not self.bias:
            raise ValueError("problem='perturbed-dual' always fits an offset (its dual has eᵀu = eᵀv); bias must be "
                             "True")
        return PerturbedSVMDual(X, y, gamma=extras.get("gamma", self.C), mu=extras.get("mu")), rows

    def _options(self, method, warm, reference: bool = False):
        """The options of ``problem.solve`` for ``method`` (``reference``: its card is the certified reference's)."""
        options = self._extras()
        for name in ("gamma", "mu"):            # the problem's parameters, not the method's
            options.pop(name, None)
        if "random_state" in options:
            if "seed" in options:
                raise ValueError("random_state and seed are both given; give one")
            options["seed"] = _seed(options.pop("random_state"))
        if reference:                           # the solver's settings; max_iter, tol and warm starts do not apply
            if self.verbose:
                options.setdefault("verbose", True)
            return options
        for name, value in (("max_iter", self.max_iter), ("tol", self.tol)):
            if value is not None:
                options[name] = value
        if self.verbose:
            options["verbose"] = int(self.verbose)
        options.setdefault("seed", 0)         # a fit is reproducible unless a seed (or random_state) says otherwise
        if warm is not None:
            options["warm_start"] = warm
        return options

    def _check_result(self, problem, method, result, options):
        """Turn the statuses a scikit-learn user must hear about into a warning or an error."""
        who = f"MarginClassifier(problem={self.problem!r}, method={method!r})"
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
            message = (result.info or {}).get("message", "")
            raise RuntimeError(f"{who} failed with status {result.status!r}; no classifier was found"
                               + (f" ({message})" if message else ""))
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

    def _set_model(self, fits, n):
        for stale in ("coef_", "dual_coef_", "support_"):  # from an earlier fit with other parameters
            self.__dict__.pop(stale, None)
        results = [r for _, _, r in fits]
        self.result_ = results[0] if len(results) == 1 else results
        self.n_iter_ = max(int(r.iterations) for r in results)
        self.intercept_ = np.array([float(r.b) for r in results])
        linear = all(getattr(p, "kernel", None) is None and r.w is not None for p, _, r in fits)
        if linear:
            self.coef_ = np.vstack([np.asarray(r.w, dtype=np.float64).reshape(1, -1) for r in results])
        duals = [_dual_coef(p, r, rows, n) for p, rows, r in fits]
        if all(d is not None for d in duals):
            support = np.zeros(n, dtype=bool)
            for d in duals:
                support |= np.abs(d) > SUPPORT_TOL * float(np.max(np.abs(d), initial=0.0))
            self.support_ = np.flatnonzero(support)
            self.dual_coef_ = np.vstack([d[self.support_] for d in duals])

    # prediction ------------------------------------------------------------------------------------------------
    def decision_function(self, X):
        """Signed score ``f(x) = wᵀx + b`` (kernel: ``Σ_i dual_i k(x_i, x) + b``); binary: shape ``(n,)``, positive
        means ``classes_[1]``; one-vs-rest: shape ``(n, n_classes)``, one column per class."""
        check_is_fitted(self)
        if is_dask_input(X):
            return self._decision_dask(X)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        if hasattr(self, "coef_"):
            scores = np.asarray(safe_sparse_dot(X, self.coef_.T)) + self.intercept_
        else:
            results = self.result_ if isinstance(self.result_, list) else [self.result_]
            scores = np.column_stack([np.asarray(r.decision_function(X), dtype=np.float64).ravel()
                                      for r in results])
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict(self, X, certified: bool = False):
        """The label of ``classes_``: the side of the hyperplane (binary), the largest score (one-vs-rest).

        ``certified=True`` (soft-margin problems) returns ``(labels, certain)``: ``certain[i]`` is True only when the
        label is proven to be the exact optimum's, from each model's duality gap (:meth:`marginkit.Result.predict`;
        one-vs-rest: the winner's lowest possible score beats every other class's highest)."""
        if certified:
            return self._certified_predict(X)
        scores = self.decision_function(X)
        if is_dask(scores):
            return scores.map_blocks(labels_of, self.classes_, dtype=self.classes_.dtype,
                                     drop_axis=None if scores.ndim == 1 else 1)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def _certified_predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        results = self.result_ if isinstance(self.result_, list) else [self.result_]
        f, lo, hi = (np.column_stack(c) for c in zip(*(r._decision_interval(X) for r in results)))
        if f.shape[1] == 1:
            return self.classes_[(f[:, 0] > 0).astype(int)], (lo[:, 0] > 0) | (hi[:, 0] < 0)
        k = np.argmax(f, axis=1)
        rows = np.arange(f.shape[0])
        others = hi.copy()
        others[rows, k] = -np.inf
        return self.classes_[k], lo[rows, k] > others.max(axis=1)

    def _decision_dask(self, X):
        """Scores of a dask ``X`` as a dask array, block by block (``map_blocks``), never computed here."""
        X, _ = dask_matrix(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but MarginClassifier is expecting {self.n_features_in_} "
                             f"features as input")
        if not hasattr(self, "coef_"):
            raise ProblemError("a kernel model predicts on NumPy data only; compute X first (X.compute())")
        k = self.coef_.shape[0]
        shape = dict(drop_axis=1) if k == 1 else dict(chunks=(X.chunks[0], (k,)))
        return X.map_blocks(block_scores, self.coef_, self.intercept_, dtype=np.float64, **shape)


def _seed(rs):
    if rs is None or isinstance(rs, numbers.Integral):
        return rs
    return int(check_random_state(rs).randint(np.iinfo(np.int32).max))


def _warm(result, method, problem):
    """The previous result of this binary problem as a warm start, when it can serve as one: same method, a point,
    and dual multipliers (if any) of the current length."""
    if method_spec(problem, method).is_reference or result.method != method or \
            (result.w is None and result.dual_coef is None):
        return None
    a = (result.dual or {}).get("a") if isinstance(result.dual, dict) else None
    if a is not None and np.shape(a) != (problem.n,):
        return None
    if result.w is not None and np.shape(result.w) != (problem.d,):
        return None
    return result


def _certified_not_separable(problem) -> bool:
    """The CVXPY hull certificate (Gordan's alternative), asked only when a budget stop left a
    non-separating iterate: it tells "not separable" apart from "not converged"."""
    from ..reference.margin import hull_certificate
    return not hull_certificate(problem)["separable"]


def _budget_reached(result, options) -> str:
    cert = result.certificate or {}
    where = f"{result.iterations} iterations"
    if "time_limit" in options and (result.info.get("stopped_by") == "time_limit"
                                    or result.time >= options["time_limit"]):
        where += f", time_limit={options['time_limit']}s reached"
    elif "max_iter" in options:
        where += f", max_iter={options['max_iter']} reached"
    else:
        where += " (the method's default max_iter)"
    for key in ("relative_gap_bound", "relative_gap", "gap_bound", "duality_gap"):
        if key in cert and np.isfinite(cert[key]):
            return f"{where}; {key.replace('_', ' ')} {float(cert[key]):.3g}"
    return where


def _dual_coef(problem, result, rows, n):
    """``y_i a_i`` for every training row (zeros on the rows the problem dropped): the kernel expansion, or the
    multipliers ``a`` of a method that solved the dual; None for a primal method."""
    if result.dual_coef is not None:
        coef = np.asarray(result.dual_coef, dtype=np.float64).ravel()
    else:
        a = (result.dual or {}).get("a") if isinstance(result.dual, dict) else None
        if a is None or np.shape(a) != (problem.n,):
            return None
        coef = problem.y * np.asarray(a, dtype=np.float64)
    if rows is None:
        return coef
    full = np.zeros(n)
    full[rows] = coef
    return full
