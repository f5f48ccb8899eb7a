"""Declarative, immutable problem classes (the contract's five problems).

A problem only *describes*: its data (validated once, here, at construction), its objective and its
options. Solving goes through :mod:`marginkit.engine` (``solve`` = find a path in the reduction graph
to the form the method accepts, apply, run, invert) or through the certified CVXPY reference
(:mod:`marginkit.reference`).

Sign conventions of the papers (``y_i x_i`` versus ``-y_i x_i``) are converted inside the plans; the
public API is always in terms of ``X`` (rows ``x_i``) and ``y``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from ..core.backend import NUMPY, backend_of, is_foreign
from ..core.kernels import check_psd_gram, gram
from ..core.validation import (ProblemError, check_foreign_labels, check_foreign_matrix, check_kernel, check_labels,
                               check_real_targets, check_samples, read_only)

if TYPE_CHECKING:   # for the annotations only (``from __future__ import annotations``: never evaluated)
    from collections.abc import Callable

    from numpy.typing import ArrayLike

    from ..core.result import Result

    #: the data a problem accepts (CONTRACT, data conventions): a NumPy array, a ``scipy.sparse`` matrix, an array of
    #: an array-API library or a row-chunked ``dask.array``; anything NumPy converts
    Data = ArrayLike | sp.spmatrix | sp.sparray | Any
    #: ``None``/``"linear"``, ``"rbf"`` or a callable returning the Gram matrix
    Kernel = str | Callable[..., Any] | None


class _Unwired:
    """Stands for the engine until :mod:`marginkit.engine` connects itself (``import marginkit`` does)."""

    def __getattr__(self, name):
        raise RuntimeError("marginkit's engine is not connected: import marginkit (not a submodule alone)")


_ENGINE = _Unwired()


def connect_engine(engine) -> None:
    """Dependency inversion instead of an upward import: the problem classes' ``solve``/``compile``/``reference``/
    ``constants`` (the contract puts them on the problem) call an object with those four functions, which the engine
    layer hands down when it is imported (:mod:`marginkit.engine.solve`). The formulations never import the engine."""
    global _ENGINE
    _ENGINE = engine


class Problem:
    """Base class: immutable after construction; ``solve``, ``compile``, ``reference``, ``constants``."""

    form: str = ""
    is_classification = True
    sense = "min"                        # the objective's sense (the perturbed SVM dual is a maximisation)
    agreement_metric = "objective_gap"   # what ``cross_validate`` compares with the method's tolerance
    _frozen = False

    def _set(self, **attrs) -> None:
        """Set the problem's attributes at construction (the data, the validated options)."""
        for key, value in attrs.items():
            object.__setattr__(self, key, value)

    def _freeze(self):
        self._cache = {}
        self._frozen = True

    def _cached(self, key, compute):
        """``compute()`` once per problem (its cache), then the same object."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def __setattr__(self, key, value):
        if self._frozen and key != "_cache":
            raise AttributeError(f"{type(self).__name__} is immutable; build a new problem instead")
        object.__setattr__(self, key, value)

    def __setstate__(self, state):
        """Unpickling restores the read-only flags of the data and of every cached array (pickle drops them)."""
        self.__dict__.update(state)
        read_only(state)

    # public API -------------------------------------------------------------------------------
    def solve(self, method: str = "cvxpy", **options: Any) -> Result:
        """Solve with ``method`` and return a :class:`~marginkit.Result`.

        ``marginkit.methods(problem)`` lists the methods that apply to this problem. ``options`` are the method's own
        parameters (under the paper's names) and the run options every first-order method shares (``max_iter``,
        ``tol``, ``time_limit``, ``callback``, ``seed``, ``verbose``, ``warm_start``, ...); for ``"cvxpy"`` they are
        ``solver=`` and the solver's settings. ``print(marginkit.describe(method, problem))`` (or ``marginkit list
        --method M`` in a shell) shows every option of ``method`` with its default, accepted values and meaning.
        Unknown or invalid options raise :class:`~marginkit.ProblemError` listing the valid ones.
        """
        return _ENGINE.solve(self, method, **options)

    def compile(self, method: str = "cvxpy", **options: Any) -> Any:
        """``cvxpy.Problem`` for ``"cvxpy"``, otherwise a runnable, steppable iteration plan (``.run(**run_options)
        -> Result``, ``.iterate(n)``). The options are those of :meth:`solve` (see ``marginkit.describe(method)``)."""
        compiled = _ENGINE.compile_method(self, method, **options)
        return getattr(compiled, "cvxpy_problem", compiled)   # the reference's compiled form is the cvxpy.Problem

    def reference(self, solver: str | None = None) -> Result:
        """The certified CVXPY solution (cached per solver)."""
        key = ("reference", solver)
        if key not in self._cache:
            res = _ENGINE.reference(self, solver=solver)
            for name in ("w", "dual_coef", "dual", "certificate", "info"):   # shared by every caller: read-only
                read_only(getattr(res, name, None))
            self._cache[key] = res
        return self._cache[key]

    def constants(self) -> dict[str, Any]:
        """Data-dependent constants used by the papers' bounds, computed through CVXPY."""
        return dict(self._cached("constants", lambda: read_only(_ENGINE.constants(self))))

    def cached_reference(self) -> Result | None:
        """The reference if it was already computed (any solver), else None; never triggers a solve."""
        for key, val in self._cache.items():
            if isinstance(key, tuple) and key[0] == "reference":
                return val
        return None

    # semantics: how a solver's raw Solution becomes a Result, what agreeing with the reference means ---------
    def result_fields(self, sol) -> dict:
        """The :class:`~marginkit.Result` fields of a raw solution, recomputed from its iterate on the user's data
        (never copied from the solver, so a margin or a value cannot claim more than the iterate achieves)."""
        raise NotImplementedError

    def agrees(self, gaps: dict, res, ref, tol: float) -> bool:
        """Whether ``res`` agrees with the certified reference ``ref`` within ``tol`` (``gaps``: the relative
        ``objective_gap``/``margin_gap``/``angle_gap`` of ``res`` against ``ref``). A reference that is infeasible
        is matched by a method that does not claim a separator; otherwise the relative gap of
        ``agreement_metric`` (an objective may undershoot the reference by rounding only, ``10 tol``)."""
        if ref.status == "infeasible":
            return res.status in ("infeasible", "infeasible_inaccurate", "user_limit") and not (
                np.isfinite(res.margin) and res.margin > 0)
        if res.status in ("solver_error", "infeasible", "infeasible_inaccurate", "unbounded"):
            return False
        g = gaps[self.agreement_metric]
        if self.agreement_metric == "objective_gap":
            return bool(np.isfinite(g) and -10 * tol <= g <= tol)
        return bool(np.isfinite(g) and g <= tol)

    @classmethod
    def agreement_label(cls, tol: float) -> str:
        """How the method table (docs/methods.md) states a method's documented agreement."""
        return f"{tol:g}"

    def cached_constants(self) -> dict[str, Any] | None:
        """``constants()`` if they were already computed, else None; never triggers a solve."""
        c = self._cache.get("constants")
        return None if c is None else dict(c)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.X.shape


class _LabelledData(Problem):
    def _set_data(self, X, y, labels="binary"):
        if is_foreign(X):   # torch, CuPy, array-api-strict or dask: kept where it lives (core/backend)
            if labels != "binary":
                raise ProblemError(f"X is a {type(X).__module__}.{type(X).__name__}: {type(self).__name__} with real "
                                   "targets runs on NumPy/SciPy data only so far; convert with np.asarray(X)")
            X = check_foreign_matrix(X, "X")
            y, classes = check_foreign_labels(y, X, "y")
            self._set(backend=backend_of(X))
        else:
            X = check_samples(X, "X")
            if labels == "binary":
                y, classes = check_labels(y, X.shape[0], "y")
            else:
                y, classes = check_real_targets(y, X.shape[0], "y"), None
        self._set(X=X, y=y, classes_=classes)

    backend = NUMPY   # where X lives and how plans compute there (core/backend); set per problem for other libraries

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    @property
    def sparse(self) -> bool:
        return sp.issparse(self.X)

    def to_host(self) -> "_LabelledData":
        """The same problem on NumPy copies of its data (itself when the data are NumPy/SciPy): what the CVXPY
        reference solves when ``X`` lives in another library (``Result.info["host_copy"]`` says so)."""
        return self.backend.host_problem(self, self._host_copy)

    def _host_copy(self) -> "_LabelledData":
        import inspect
        bk = self.backend
        names = [p for p in inspect.signature(type(self).__init__).parameters if p not in ("self", "X", "y")]
        return self._cached("host_problem", lambda: type(self)(
            bk.host(self.X), np.where(bk.host(self.y) > 0, self.classes_[1], self.classes_[0]),
            **{p: getattr(self, p) for p in names}))

    def row_norms(self) -> np.ndarray:
        """``||x_i||`` for every row (cached), where ``X`` lives (read-only where NumPy)."""
        return self._cached("row_norms", lambda: read_only(self.backend.row_norms(self.X)))

    def row_norms_squared(self) -> np.ndarray:
        """``||x_i||²`` for every row of NumPy/SciPy data (cached, read-only): the coordinate plans' curvatures and
        the cost model of ``solve("auto")`` read the same array."""
        from ..core.linalg import row_norms
        return self._cached("row_norms_squared", lambda: read_only(row_norms(self.X, squared=True)))

    def max_row_norm(self) -> float:
        """``R = max_i ||x_i||`` as a Python float (one reduction where ``X`` lives)."""
        return self._cached("max_row_norm", lambda: self.backend.float(self.backend.xp.max(self.row_norms())))

    def gram(self) -> np.ndarray:
        """Kernel Gram matrix on the training data (cached)."""
        return self._cached("gram", lambda: read_only(gram(getattr(self, "kernel", None), getattr(self, "gamma", None),
                                                           self.X)))

    def scores(self, w, b=0.0) -> np.ndarray:
        return self.backend.matvec(self.X, w) + b

    def margin_of(self, w, b=0.0) -> float:
        """Normalised geometric margin ``min_i y_i(x_i^T w + b) / ||w||`` (0 at ``w = 0``)."""
        bk = self.backend
        nw = bk.norm(w)
        if nw == 0.0:
            return 0.0
        return bk.float(bk.xp.min(self.y * self.scores(w, b))) / nw

    def train_scores(self, w=None, coef=None, b=0.0):
        """``(f(x_i) for the training rows, ||w||)`` for a linear ``w`` or kernel coefficients ``coef``."""
        if coef is not None:
            Kc = self.gram() @ coef
            return Kc + b, float(np.sqrt(max(coef @ Kc, 0.0)))
        return self.scores(w, b), self.backend.norm(w)

    def result_fields(self, sol) -> dict:
        """A linear (or kernel) classifier's fields: ``w`` (or ``dual_coef``), ``b``, the normalised margin on the
        training data, and ``value`` from :meth:`_value_fields` of the class."""
        coef = sol.dual_coef if getattr(self, "kernel", None) is not None else None
        if sol.w is None and coef is None:   # no usable point (a solver error): nothing to report but the status
            return {"classes_": self.classes_, "w": None, "b": np.nan, "dual_coef": None, "margin": np.nan,
                    "value": np.nan}
        bk = self.backend
        w = None if coef is not None else bk.result_vector(sol.w)
        b = float(sol.b)
        f, nw = self.train_scores(w=w, coef=coef, b=b)
        y = self.y if self.is_classification else None
        out = {"classes_": self.classes_, "b": b, "w": w, "dual_coef": coef}
        if coef is not None:
            out["_kernel_data"] = (self.X, self.kernel, self.gamma)
        out["margin"] = (bk.float(bk.xp.min(y * f)) / nw if (y is not None and nw > 0)
                         else (0.0 if y is not None else np.nan))
        self._value_fields(out, sol, f, nw)
        return out

    def _value_fields(self, out: dict, sol, f, nw) -> None:
        """Set ``out["value"]`` (and what else the class reports) at the iterate in ``out``."""
        out["value"] = self.objective(out["w"], out["b"])

    def _set_kernel(self, kernel, gamma):
        if kernel not in (None, "linear") and not self.backend.supports_kernel:
            raise ProblemError(f"kernel={kernel!r} runs on NumPy/SciPy data only; X is {self.backend.describe()}: "
                               "convert it with np.asarray(X) or use a linear problem")
        kernel, gamma = check_kernel(kernel, gamma, self.X)
        self._set(kernel=kernel, gamma=gamma)
        if callable(kernel):
            K = gram(kernel, None, self.X)
            check_psd_gram(K, "kernel")
