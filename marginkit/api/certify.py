"""Certify anyone's answer: how far a weight vector, a ``(w, b)`` pair, a marginkit :class:`~marginkit.Result` or
a fitted linear classifier (scikit-learn's ``LinearSVC``, ``SGDClassifier``, ``LogisticRegression``, a
``Pipeline`` ending in one, any object with ``coef_``/``intercept_``) is from the exact optimum of a problem.

The optimum is the problem's cached certified reference (``problem.reference()``). Every bound below is recomputed
here with NumPy from the reference's dual multipliers, made feasible first, so it holds whatever the solver's
accuracy (weak duality), and the status is the one a marginkit method would have earned at ``tol``:

* :class:`~marginkit.MaxMargin`: the answer is rescaled onto the constraint set (the margin is scale-free); the
  certified upper bound on the max margin is ``γ̄ = ||Σ q_i y_i x_i||`` at the reference's multipliers normalised
  into the simplex (with a bias, mass ½ on each class); ``relative_gap = (γ̄ − γ)/γ̄``.
* :class:`~marginkit.SoftMarginSVM`: the answer is taken as is (the objective depends on its scale);
  ``relative_gap = (P(w, b) − D)/D`` with ``D`` the dual value at the reference's multipliers in ``[0, C_i]`` (with
  a bias, rebalanced so that ``Σ a_i y_i = 0``), a lower bound on the optimal value ``P*``; with sample weights the
  box is ``C_i = C·s_i`` and ``P`` the weighted objective.
* :class:`~marginkit.MinNormFeasibility`: ``relative_gap = max(P(w) − D, P_ref − P(w), 0)/D`` (``D``: the
  reference's certified dual value; the second term catches an infeasible answer below the optimum), and
  ``optimal`` also needs ``max_violation <= tol·max|c|`` (``c``: the right-hand sides, 1 for margins).

Kernel problems and the other problem classes are not covered yet (``ProblemError``).
"""
from __future__ import annotations

import time as _time

import numpy as np

from ..core.result import Result
from ..core.validation import ProblemError, check_positive, check_vector, dtype_kind
from ..formulations import MaxMargin, MinNormFeasibility, SoftMarginSVM
from ..formulations.base import Problem

COVERED = (MaxMargin, SoftMarginSVM, MinNormFeasibility)
_USABLE = ("optimal", "optimal_inaccurate")


def certify(problem, answer, tol=1e-6) -> Result:
    """Certify ``answer`` against the exact optimum of ``problem``; returns a :class:`~marginkit.Result` with
    ``method == "certified"``.

    ``answer``: a weight vector ``w``, a pair ``(w, b)``, a marginkit ``Result``, or a fitted binary linear
    classifier with ``coef_``/``intercept_`` (its ``classes_``, if any, must be the problem's labels; the class it
    predicts for a positive score is mapped to the problem's ``+1``). A ``Pipeline`` is certified through its final
    estimator only when every earlier step is ``"passthrough"``. Nothing passed in is modified.

    The certificate holds ``relative_gap`` (certified, see the module's docstring), ``duality_gap`` (the answer's
    objective minus the certified lower bound), ``primal``, ``dual``, ``max_violation``, ``angle_gap`` (``1 − cos``
    to the reference's ``w``), ``margin_gap`` (margin problems: ``(γ_ref − γ)/γ_ref``) or ``objective_gap``
    (``(P − P_ref)/|P_ref|``), and the reference's own ``reference_duality_gap`` and ``solver``. Status:

    * ``optimal`` iff ``relative_gap <= tol`` (and, for MinNormFeasibility, ``max_violation <= tol·max|c|``);
    * ``optimal_inaccurate`` for any other usable point;
    * ``infeasible`` when the reference certifies the constraints inconsistent (non-separable data): no answer can
      be optimal; the answer's margin is still reported;
    * ``solver_error`` when the answer is no point of the problem (a MaxMargin answer that does not separate the
      data, at any scale) or the reference itself failed; ``info["message"]`` says why.

    Example:

    >>> import numpy as np, marginkit as mk
    >>> from marginkit import certify
    >>> X = np.array([[2., 1.], [1., 2.], [-1., -2.], [-2., -1.]])
    >>> P = mk.MaxMargin(X, [1, 1, -1, -1])
    >>> certify(P, [3.0, 3.0]).status                 # the max-margin direction (1, 1), at any scale
    'optimal'
    >>> res = certify(P, [1.0, 0.5])                  # a separator, but not the best one
    >>> res.status, round(res.certificate["relative_gap"], 4), round(res.margin, 4)
    ('optimal_inaccurate', 0.1567, 1.7889)
    """
    t0 = _time.perf_counter()
    _check_problem(problem)
    tol = check_positive(tol, "tol")
    w, b = _parse_answer(problem, answer)
    ref = problem.reference()
    t1 = _time.perf_counter()
    if isinstance(problem, MaxMargin):
        status, cert, info = _max_margin(problem, ref, w, b, tol)
    elif isinstance(problem, SoftMarginSVM):
        status, cert, info = _soft_margin(problem, ref, w, b, tol)
    else:
        status, cert, info = _min_norm(problem, ref, w, tol)
    cert["reference_duality_gap"] = float((ref.certificate or {}).get("duality_gap", np.nan))
    cert["solver"] = str((ref.certificate or {}).get("solver", ref.info.get("solver", "")))
    cert["tol"] = tol
    return _result(problem, w, b, status, cert, info, setup=t1 - t0, solve=_time.perf_counter() - t1)


# ------------------------------------------------------------------------------------------------ inputs
def _check_problem(problem):
    if not isinstance(problem, Problem):
        raise ProblemError(f"problem must be a marginkit problem (MaxMargin, SoftMarginSVM, MinNormFeasibility); "
                           f"got {type(problem).__name__}")
    if not isinstance(problem, COVERED):
        raise ProblemError(f"certify does not cover {type(problem).__name__} yet; it covers MaxMargin, SoftMarginSVM "
                           f"and MinNormFeasibility (linear, no kernel)")
    if getattr(problem, "kernel", None) is not None:
        raise ProblemError(f"certify does not cover kernel problems yet ({type(problem).__name__} with "
                           f"kernel={problem.kernel!r}); it certifies linear answers w, b")


def _parse_answer(problem, answer):
    """``(w, b)`` as new float arrays in the problem's ``±1`` convention."""
    if answer is None:
        raise ProblemError("answer is required: a weight vector w, a pair (w, b), a Result or a fitted linear "
                           "classifier; got None")
    if isinstance(answer, (str, bytes)):
        raise ProblemError(f"answer must be a weight vector w, a pair (w, b), a Result or a fitted linear "
                           f"classifier; got a string {answer!r:.40}")
    if isinstance(answer, Result):
        if answer.w is None:
            what = "kernel dual coefficients" if answer.dual_coef is not None else f"no point (status {answer.status})"
            raise ProblemError(f"answer is a Result holding {what}: certify needs a linear w")
        classes = answer.classes_
        if classes is not None and dtype_kind(np.asarray(classes)) in "iuf" and np.asarray(classes).tolist() == [-1, 1]:
            classes = None   # the ±1 convention itself (e.g. MarginClassifier.result_): w as is, like a plain w
        sign = _class_sign(problem, classes, "answer (a Result)")
        w = _weights(problem, answer.w, "answer's w")
        return sign * w, sign * _offset(problem, answer.b, "answer's b")
    if _is_estimator(answer):
        return _from_estimator(problem, answer)
    if isinstance(answer, (tuple, list)) and len(answer) == 2 and np.ndim(answer[0]) >= 1:
        w = _weights(problem, answer[0], "answer's w (first element of the pair (w, b))")
        return w, _offset(problem, answer[1], "answer's offset b (second element of the pair (w, b))")
    return _weights(problem, answer, "answer (weight vector w)"), 0.0


def _weights(problem, w, name):
    if hasattr(w, "toarray") and not isinstance(w, np.ndarray):
        w = w.toarray()
    return np.array(check_vector(w, name, size=problem.d), dtype=float)   # a private copy: the input is never touched


def _offset(problem, b, name):
    try:
        a = np.asarray(b)
    except (TypeError, ValueError) as exc:
        raise ProblemError(f"{name} must be a real number; {exc}") from None
    if dtype_kind(a) not in "iuf" or a.size != 1:
        raise ProblemError(f"{name} must be a real number; got {b!r:.60}")
    val = float(a.reshape(-1)[0])
    if not np.isfinite(val):
        raise ProblemError(f"{name} must be finite; got {val}")
    if val != 0.0 and not getattr(problem, "bias", False):
        raise ProblemError(f"{name} is {val:g} but {type(problem).__name__} here has no offset (bias=False): "
                           f"certify w alone, or build the problem with bias=True")
    return val


def _is_estimator(obj) -> bool:
    return any(hasattr(obj, attr) for attr in ("coef_", "steps", "fit", "predict", "decision_function"))


def _from_estimator(problem, est):
    label = type(est).__name__
    steps = getattr(est, "steps", None)
    if isinstance(steps, (list, tuple)) and not hasattr(est, "coef_"):   # a Pipeline (duck-typed: no sklearn import)
        try:
            named = [(str(n), s) for n, s in steps]
        except (TypeError, ValueError):
            raise ProblemError(f"answer {label}.steps must be a list of (name, estimator) pairs") from None
        if not named:
            raise ProblemError(f"answer {label} has no steps")
        for name, step in named[:-1]:
            if not (step is None or (isinstance(step, str) and step == "passthrough")):
                raise ProblemError(f"answer is a {label} whose step {name!r} ({type(step).__name__}) transforms the "
                                   f"data: certify needs a classifier on the problem's own X (every step before the "
                                   f"final estimator must be 'passthrough'); certify the final estimator on the "
                                   f"transformed data instead")
        final = named[-1][1]
        if final is None or isinstance(final, str):
            raise ProblemError(f"answer is a {label} without a final classifier (its last step is {final!r})")
        return _from_estimator(problem, final)
    try:
        coef = getattr(est, "coef_")
    except (AttributeError, ValueError, TypeError, NotImplementedError) as exc:
        raise ProblemError(f"answer {label} has no coef_ (it must be a fitted linear classifier): "
                           f"{' '.join(str(exc).split())}") from None
    if hasattr(coef, "toarray") and not isinstance(coef, np.ndarray):   # a sparsified scikit-learn model
        coef = coef.toarray()
    try:
        shape = np.shape(coef)
    except (TypeError, ValueError):
        shape = None
    if shape is None or len(shape) not in (1, 2):
        raise ProblemError(f"answer {label}.coef_ must have shape (1, d) or (d,); got {shape}")
    if len(shape) == 2:
        if shape[0] != 1:
            raise ProblemError(f"answer {label}.coef_ has shape {shape}: a multiclass (one-vs-rest) model; certify "
                               f"takes a binary classifier with coef_ of shape (1, {problem.d})")
        coef = np.asarray(coef)[0]
    w = _weights(problem, coef, f"answer {label}.coef_")
    try:
        intercept = getattr(est, "intercept_", 0.0)
    except (AttributeError, ValueError, TypeError, NotImplementedError):
        intercept = 0.0
    b = _offset(problem, intercept, f"answer {label}.intercept_")
    try:
        classes = getattr(est, "classes_", None)
    except (AttributeError, ValueError, TypeError, NotImplementedError):
        classes = None
    sign = _class_sign(problem, classes, f"answer {label}")
    return sign * w, sign * b


def _class_sign(problem, classes, label) -> float:
    """``+1`` when a positive score means the problem's ``+1`` class (``classes[1]``), ``-1`` when the classes come
    in the other order; ``ProblemError`` when they are not the problem's two labels."""
    if classes is None:
        return 1.0
    try:
        theirs = np.asarray(classes).tolist()
    except (TypeError, ValueError):
        raise ProblemError(f"{label}.classes_ cannot be read as an array of labels") from None
    if not isinstance(theirs, list) or len(theirs) != 2:
        n = len(theirs) if isinstance(theirs, list) else 1
        raise ProblemError(f"{label} has {n} classes {theirs!r:.80}; certify takes a binary classifier")
    if problem.classes_ is None:
        raise ProblemError(f"{label} is a classifier (classes {theirs!r}) but {type(problem).__name__} here has "
                           f"real-valued targets")
    ours = np.asarray(problem.classes_).tolist()
    try:
        same = set(theirs) == set(ours)
    except TypeError:
        same = False
    if not same:
        raise ProblemError(f"{label} was fitted on classes {theirs!r} but the problem's labels are {ours!r}: "
                           f"certify needs a classifier of the problem's own two classes")
    return 1.0 if theirs[1] == ours[1] else -1.0


# ------------------------------------------------------------------------------------------------ bounds
def _multipliers(ref, key):
    dual = ref.dual if isinstance(ref.dual, dict) else {}
    a = dual.get(key)
    return None if a is None else np.array(a, dtype=float)


def _signed_sum(problem, coef) -> np.ndarray:
    """``Σ coef_i x_i`` (dense or sparse X)."""
    return np.asarray(problem.X.T @ coef).ravel()


def _margin_upper_bound(problem, ref) -> float:
    """``γ̄ = ||Σ q_i y_i x_i|| >= γ*`` for ``q`` in the simplex (with a bias: ``Σ q_i y_i = 0``), here the reference's
    multipliers normalised: for any unit ``w`` (and ``b``) ``min_i y_i(x_iᵀw + b) <= Σ q_i y_i(x_iᵀw + b) <= ||Σ q_i
    y_i x_i||``."""
    a = _multipliers(ref, "a")
    if a is None:
        return np.inf
    a = np.clip(a, 0.0, None)
    y = problem.y
    if problem.bias:
        sp, sn = float(a[y > 0].sum()), float(a[y < 0].sum())
        if sp <= 0 or sn <= 0:
            return np.inf
        q = np.where(y > 0, a / (2 * sp), a / (2 * sn))
    else:
        s = float(a.sum())
        if s <= 0:
            return np.inf
        q = a / s
    return float(np.linalg.norm(_signed_sum(problem, q * y)))


def _svm_dual_bound(problem, ref) -> float:
    """``D(a) = Σ a_i − ½||Σ a_i y_i x_i||² <= P*`` at the reference's ``a`` clipped to ``[0, C_i]`` and, with a bias,
    balanced onto ``Σ a_i y_i = 0`` (then weak duality holds exactly): the reference's own ``balance`` and
    ``dual_value``, imported here because the reference layer imports CVXPY."""
    from ..reference.certificates import balance
    from ..reference.svm import dual_value
    a = _multipliers(ref, "a")
    if a is None:
        return -np.inf
    a = np.clip(a, 0.0, problem.box)   # C_i = C·s_i: the weighted problem's box (all C without weights)
    return dual_value(problem, balance(a, problem.y) if problem.bias else a)


def _angle_gap(w, ref) -> float:
    if ref.w is None or np.shape(ref.w) != np.shape(w):
        return np.nan
    nw, ns = float(np.linalg.norm(w)), float(np.linalg.norm(ref.w))
    if nw == 0 or ns == 0:
        return np.nan
    return 1.0 - float(w @ ref.w) / (nw * ns)


def _relative(num, den) -> float:
    """``num/den`` for a certified positive lower bound ``den`` of the optimal value; without one, 0 for a zero
    numerator and ``inf`` otherwise (no relative claim is possible)."""
    num = max(float(num), 0.0)
    if np.isfinite(den) and den > 0:
        return num / den
    return 0.0 if num == 0.0 else np.inf


def _not_certified(ref):
    """The status and message when the reference has no usable optimum, or None."""
    if ref.status == "infeasible":
        return "infeasible", "the reference certifies that no point satisfies the constraints (not separable): " \
                             "no answer can be optimal"
    if ref.status not in _USABLE:
        return "solver_error", f"the reference could not certify the optimum (status {ref.status}): nothing to " \
                               f"certify against"
    return None


def _max_margin(problem, ref, w, b, tol):
    y, f = problem.y, problem.scores(w, b)
    gamma = problem.margin_of(w, b)
    raw_violation = float(max(0.0, np.max(1.0 - y * f)))
    cert = {"margin_lower": gamma, "margin_upper": np.nan, "relative_gap": np.nan, "primal": np.inf,
            "dual": np.nan, "duality_gap": np.nan, "max_violation": raw_violation, "margin_gap": np.nan,
            "angle_gap": _angle_gap(w, ref)}
    stop = _not_certified(ref)
    if stop is not None:
        if ref.status == "infeasible":
            cert["hull_distance"] = float(ref.certificate.get("hull_distance", np.nan))
        return stop[0], cert, {"message": stop[1]}
    upper = _margin_upper_bound(problem, ref)
    cert.update(margin_upper=upper, relative_gap=_relative(upper - gamma, upper),
                dual=0.5 / upper ** 2 if upper > 0 else np.inf,
                margin_gap=(ref.margin - gamma) / ref.margin if ref.margin > 0 else np.nan)
    if not gamma > 0:
        cert["duality_gap"] = np.inf
        return "solver_error", cert, {"message": f"the answer does not separate the data (margin {gamma:.3g} <= 0): "
                                                 f"it is no point of the hard-margin problem at any scale"}
    s = 1.0 / float(np.min(y * f))            # onto the constraint set min_i y_i(x_iᵀw + b) = 1, as result_fields
    primal = 0.5 * (float(np.linalg.norm(w)) * s) ** 2
    cert.update(primal=primal, duality_gap=primal - cert["dual"],
                max_violation=float(max(0.0, np.max(1.0 - s * y * f))))
    return ("optimal" if cert["relative_gap"] <= tol else "optimal_inaccurate"), cert, {}


def _soft_margin(problem, ref, w, b, tol):
    primal = problem.objective(w, b)
    cert = {"relative_gap": np.nan, "primal": primal, "dual": np.nan, "duality_gap": np.nan, "max_violation": 0.0,
            "objective_gap": np.nan, "angle_gap": _angle_gap(w, ref)}
    stop = _not_certified(ref)
    if stop is not None:
        return stop[0], cert, {"message": stop[1]}
    dual = _svm_dual_bound(problem, ref)
    cert.update(dual=dual, duality_gap=primal - dual, relative_gap=_relative(primal - dual, dual),
                objective_gap=(primal - ref.value) / abs(ref.value) if ref.value else np.nan)
    return ("optimal" if cert["relative_gap"] <= tol else "optimal_inaccurate"), cert, {}


def _min_norm(problem, ref, w, tol):
    primal = problem.objective(w)
    viol = problem.max_violation(w)
    scale = 1.0 if problem.constraint == "margin" else float(np.max(np.abs(problem.y))) or 1.0
    cert = {"relative_gap": np.nan, "primal": primal, "dual": np.nan, "duality_gap": np.nan, "max_violation": viol,
            "violation_scale": scale, "objective_gap": np.nan, "angle_gap": _angle_gap(w, ref)}
    if problem.constraint == "margin":
        cert["margin_gap"] = np.nan
    stop = _not_certified(ref)
    if stop is not None:
        return stop[0], cert, {"message": stop[1]}
    rc = ref.certificate or {}
    dual = float(rc.get("dual", -np.inf))
    upper = float(rc.get("primal", ref.value))   # the reference's point: P* up to its own (tiny) violation
    cert.update(dual=dual, duality_gap=primal - dual,
                relative_gap=_relative(max(primal - dual, upper - primal), dual),
                objective_gap=(primal - ref.value) / abs(ref.value) if ref.value else np.nan)
    if problem.constraint == "margin":
        gamma = problem.margin_of(w)
        cert["margin_gap"] = (ref.margin - gamma) / ref.margin if ref.margin > 0 else np.nan
    ok = cert["relative_gap"] <= tol and viol <= tol * scale
    return ("optimal" if ok else "optimal_inaccurate"), cert, {}


def _result(problem, w, b, status, cert, info, setup, solve) -> Result:
    from ..core.solution import Solution
    from ..engine.assemble import build_result
    sol = Solution(w=w, b=b, status=status, iterations=0, time=solve, setup_time=setup, certificate=cert,
                   info=dict(info))
    return build_result(problem, sol, "certified")
