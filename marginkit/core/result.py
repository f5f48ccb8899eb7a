"""The ``Result`` of every solve, its ``Trace`` (the one trace schema: :data:`TRACE_COLUMNS`, docs/TRACE.md), and the
margin metrics shared by all methods."""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Callable

import numpy as np
import scipy.sparse as sp

from .kernels import gram
from .persist import pack, read_npz, unpack, write_npz
from .backend import backend_of, is_foreign
from .validation import ProblemError, check_foreign_matrix, check_matrix

STATUSES = ("optimal", "optimal_inaccurate", "infeasible", "infeasible_inaccurate", "unbounded", "user_limit",
            "solver_error")


def host_copy(a):
    """A NumPy copy of an array of any library (torch: ``.cpu()``, CuPy: ``.get()``, others through DLPack)."""
    if a is None:
        return None
    if isinstance(a, np.ndarray):
        return a.copy()
    if hasattr(a, "detach"):
        return a.detach().cpu().numpy().copy()
    if hasattr(a, "get") and type(a).__module__.startswith("cupy"):
        return a.get()
    if hasattr(a, "compute"):
        return np.asarray(a.compute())
    try:
        return np.from_dlpack(a).copy()
    except (TypeError, AttributeError, RuntimeError, BufferError):
        return np.array(a)


def geometric_margin(scores: np.ndarray, y: np.ndarray, norm_w: float) -> float:
    """``min_i y_i f(x_i) / ||w||`` with ``gamma(0) := 0`` (as JST §2 define it; the division is guarded)."""
    if not np.isfinite(norm_w) or norm_w <= 0.0:
        return 0.0
    return float(np.min(y * scores) / norm_w)


#: every trace column any method records, and its meaning: one name for one quantity (docs/TRACE.md is this table;
#: tests/test_trace_schema.py holds every method to it). Gaps to the reference: relative under the bare name, absolute
#: with ``_abs``; the certificate's quantities under the certificate's key names.
TRACE_COLUMNS = {
    # always
    "iteration": "the iteration t of the record (coordinate methods: epochs of n updates)",
    "time": "seconds since the run started, the recording itself excluded",
    # margins (classification problems), in the units of the user's data
    "margin": "γ(w_t) = min_i y_i(x_iᵀw_t + b)/||w_t||, the normalised margin of the iterate",
    "margin_upper": "certified upper bound γ̄_t >= γ* (the certificate's margin_upper; formerly dual_bound)",
    "gap_bound": "γ̄_t − γ(w_t), the certified absolute margin gap (the certificate's gap_bound)",
    "norm_w": "||w_t|| of the iterate as the method keeps it (unnormalised)",
    "mistakes": "number of training points with y_i x_iᵀw_t <= 0",
    "offset": "the offset b_t of the iterate (problems with a bias)",
    # objectives of the form the method runs on
    "objective": "the objective of the form the method runs on, at the iterate (its Result.value at the end)",
    "primal_objective": "the primal objective P at the iterate (when the form's objective is the dual)",
    "dual_objective": "the dual objective D, a certified bound on the optimal value (formerly dual)",
    "duality_gap": "P − D (absolute; the certificate's duality_gap)",
    "screened": "dual-cd, dual-cd-bias: samples proven at their bound at the optimum and left out of the epochs so "
                "far (gap-safe screening; certificate['screened'] splits them into removed and fixed)",
    "dual_potential": "the function the diagonal plans minimise over their dual variable u (−D at u = −α)",
    "stage_objective": "homotopic: the objective of the current stage's λ-problem",
    "max_violation": "largest constraint violation of the iterate",
    "equality_violation": "|Σ_i y_i a_i|, the violation of the SVM dual's equality constraint (bias=True)",
    "residual": "ESP: ||b − 𝒜x_t||",
    "gradient_mapping": "FISTA: norm of the gradient mapping at the iterate",
    "distance_bound": "Hough–Vavasis: the certified bound on the distance to the dual optimum",
    "certified_fraction": "Hough–Vavasis: fraction of coordinates certified at their bound",
    "stage": "homotopic: the stage k",
    "lam": "homotopic: the stage's regularisation λ_k",
    "epochs": "coordinate methods: full passes over the data so far (when the iteration counts something else)",
    "active": "dual coordinate descent: size of the active (unshrunk) set",
    "pg_range": ("dual coordinate descent: range of the projected gradient (the shrinking test); smo: its form with "
                 "yᵀa = 0, max over I_up minus min over I_low of y_i − x_iᵀw (Keerthi et al. 2001)"),
    "gap_estimate": ("dual coordinate descent: the running estimate of the duality gap that schedules the exact "
                     "certificate"),
    "visits": ("dual coordinate descent: coordinate updates so far (one compiled round visits max(n, 65,536)); smo: "
               "pair steps so far"),
    "test_error": "fraction of misclassified points of test_set=(X, y) (recorded only with test_set)",
    # against the certified reference (filled once it is known)
    "margin_gap": "(γ* − γ(w_t))/γ*, relative (as in cross_validate's table)",
    "margin_gap_abs": "γ* − γ(w_t)",
    "objective_gap": "(f_t − f*)/|f*| (sign flipped for a maximisation), relative (as in cross_validate's table)",
    "objective_gap_abs": "f_t − f* (sign flipped for a maximisation)",
    "angle_gap": "1 − cos(w_t, w*)",
    "dist_to_opt": ("||w_t − w*|| in the coordinates of the iterate the method keeps (unnormalised for the margin "
                    "plans)"),
}



class Trace:
    """Per-recorded-iteration metrics as equal-length 1-D arrays (``trace["margin"]`` etc.).

    The column names are one schema for every method (docs/TRACE.md): ``iteration`` and ``time`` always; the
    certificate's quantities under the certificate's own key names (``margin``, ``margin_upper``, ``objective``,
    ``dual_objective``, ``duality_gap``, ...); gaps to the certified reference relative under the bare name
    (``margin_gap``, ``objective_gap``, ``angle_gap``, as in :func:`~marginkit.cross_validate`'s table) and absolute
    with ``_abs`` (``margin_gap_abs``, ``objective_gap_abs``), and the distance ``dist_to_opt = ||w_t − w*||``.

    Recording is done by the run loop on a schedule (see :func:`marginkit.engine.runloop.record_schedule`). The
    gap columns are filled when the reference is known: at the end of the run if ``problem.reference()`` was
    already computed, otherwise the first time the trace is read after it has been (the trace asks the problem's
    cache; it never starts a solve). ``angle_gap`` and ``dist_to_opt`` need the iterates: they are computed during
    the run when the reference is known before it, and afterwards only from iterates kept with
    ``solve(..., keep_iterates=True)`` (then in :attr:`iterates`).
    """

    def __init__(self, keep_iterates: bool = False):
        self._cols: dict[str, list] = {}
        self._n = 0
        self.keep_iterates = bool(keep_iterates)
        self._iterates: list = []
        self._pending: Callable[["Trace"], bool] | None = None

    def record(self, iteration: int, time: float, metrics: dict, iterate=None) -> None:
        row = {"iteration": iteration, "time": time, **metrics}
        cols = self._cols
        if row.keys() != cols.keys():   # a new column (NaN before), or one this record lacks (NaN here)
            for key in row:
                if key not in cols:
                    cols[key] = [np.nan] * self._n
            for key, col in cols.items():
                col.append(float(row.get(key, np.nan)))
        else:
            for key, value in row.items():
                cols[key].append(float(value))
        self._n += 1
        if self.keep_iterates:
            self._iterates.append(iterate)

    @property
    def iterates(self) -> list:
        """The iterate of every record (only with ``keep_iterates=True``: they cost one vector per record)."""
        if not self.keep_iterates:
            raise AttributeError("the iterates were not kept: solve(..., keep_iterates=True) keeps one per record")
        return self._iterates

    def defer(self, fill: Callable[["Trace"], bool] | None) -> None:
        """Register ``fill(trace) -> done`` to run when the trace is next read (the gap columns, once the problem's
        reference is cached); it is called again on later reads until it returns True."""
        self._pending = fill

    def _sync(self) -> None:
        fill, self._pending = self._pending, None
        if fill is not None and not fill(self):
            self._pending = fill

    def __getstate__(self):
        """Pickling keeps the columns filled so far; a pending fill (a closure over the problem) is dropped."""
        self._sync()
        return {**self.__dict__, "_pending": None}

    def set(self, key: str, values) -> None:
        values = np.asarray(values, dtype=float)
        if values.shape != (self._n,):
            raise ValueError(f"trace column {key!r} needs {self._n} values, got {values.shape}")
        self._cols[key] = list(values)

    def _column(self, key: str) -> str:
        self._sync()
        return key

    def __getitem__(self, key: str) -> np.ndarray:
        key = self._column(key)
        if key not in self._cols:
            raise KeyError(f"no trace column {key!r}; the columns are {', '.join(self._cols)}"
                           + ("" if key not in GAP_COLUMNS else
                              " (the gaps to the reference appear once problem.reference() has been computed;"
                              " angle_gap/dist_to_opt also need it before the run or keep_iterates=True)"))
        return np.asarray(self._cols[key], dtype=float)

    def __contains__(self, key) -> bool:
        self._sync()
        return key in self._cols

    def keys(self):
        self._sync()
        return list(self._cols)

    def __len__(self) -> int:
        return self._n

    def as_dict(self) -> dict[str, np.ndarray]:
        self._sync()
        return {k: self[k] for k in self._cols}

    def to_pandas(self):
        """The trace as a ``pandas.DataFrame``, one row per record, one column per metric (pandas is optional)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("Trace.to_pandas() needs pandas, which is not installed: pip install pandas") from None
        return pd.DataFrame(self.as_dict())

    def __repr__(self) -> str:
        self._sync()
        return f"Trace({self._n} records: {', '.join(self._cols)})"

    # saving --------------------------------------------------------------------------------------
    def _pack(self, arrays: dict) -> dict:
        its = self._iterates if self.keep_iterates else []
        return {"columns": pack(self.as_dict(), arrays), "keep_iterates": self.keep_iterates,
                "iterates": pack(list(its), arrays)}

    @classmethod
    def _unpack(cls, doc: dict, arrays: dict) -> "Trace":
        tr = cls(keep_iterates=doc["keep_iterates"])
        cols = unpack(doc["columns"], arrays)
        tr._n = len(next(iter(cols.values()))) if cols else 0
        tr._cols = {k: list(np.asarray(v, float)) for k, v in cols.items()}
        tr._iterates = unpack(doc["iterates"], arrays)
        return tr


#: the columns that compare with the certified reference (filled when it is known)
GAP_COLUMNS = ("margin_gap", "margin_gap_abs", "objective_gap", "objective_gap_abs", "angle_gap", "dist_to_opt")


@dataclass
class Result:
    """Outcome of ``problem.solve(method=...)``.

    ``status`` uses CVXPY's strings. ``optimal`` is reported only when the requested tolerance was met
    (for first-order methods: by the method's own certificate), ``user_limit`` for a budget stop and
    ``infeasible`` when the data cannot be separated (then ``margin`` is never positive). ``time`` is
    ``setup_time + solve_time``; ``trace`` follows one schema for every method (docs/TRACE.md). :meth:`save` and
    :meth:`load` keep a result in one ``.npz`` file (no pickle).
    """

    status: str
    w: np.ndarray | None = None
    b: float = 0.0
    value: float = np.nan
    margin: float = np.nan
    iterations: int = 0
    time: float = 0.0          # setup_time + solve_time, for every method (references included)
    method: str = ""
    trace: Trace | None = None
    certificate: dict | None = None
    dual: dict = field(default_factory=dict)
    classes_: np.ndarray | None = None
    info: dict = field(default_factory=dict)
    # kernel problems: f(x) = sum_i dual_coef[i] k(x_i, x) + b
    dual_coef: np.ndarray | None = None
    _kernel_data: Any = None
    _decision: Callable | None = None
    _problem: Any = None       # the problem solved (certified predictions and support sets read its data); not saved
    _scores: Any = None        # (x_iᵀw, ||x_i||) on the training rows, once computed (core/safe.py); not saved
    setup_time: float = 0.0    # a plan's setup (eigenvalue estimates, normalisation), a reference's model + compile
    solve_time: float = 0.0    # the iterations, or the solver's run

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")

    def decision_function(self, X) -> np.ndarray:
        """``f(x) = xᵀw + b`` (or the kernel expansion) on the rows of ``X``; ``ProblemError`` naming ``X`` for a
        wrong width or non-finite data, and when the result holds no classifier."""
        if self._decision is not None:
            return self._decision(X)
        if self.w is None and self._kernel_data is None:
            raise ProblemError(f"no classifier to evaluate: status {self.status}")
        d = self._kernel_data[0].shape[1] if self._kernel_data is not None else int(self.w.shape[0])
        if self._kernel_data is None and is_foreign(X):   # torch, CuPy, array-api-strict, dask: computed there
            Xf = check_foreign_matrix(X, "X")
            if Xf.shape[1] != d:
                raise ProblemError(f"X has {Xf.shape[1]} columns but the classifier was fitted on {d}")
            bk = backend_of(Xf)
            return bk.matvec(Xf, bk.as_d(self.w)) + self.b
        Xc = check_matrix(X, "X")
        if Xc.shape[1] != d:
            raise ProblemError(f"X has {Xc.shape[1]} columns but the classifier was fitted on {d}")
        if self._kernel_data is not None:
            Xtrain, kernel, gamma = self._kernel_data
            return gram(kernel, gamma, Xc, Xtrain) @ self.dual_coef + self.b
        w = self.w if isinstance(self.w, np.ndarray) else host_copy(self.w)   # a w of another library: a host copy
        return np.asarray(Xc @ w).ravel() + self.b

    def to_numpy(self) -> "Result":
        """A copy of this result whose arrays (``w``, ``dual_coef``) are NumPy host copies: a solve on torch, CuPy,
        ``array-api-strict`` or dask data returns ``w`` where the data live (dask: already NumPy)."""
        from dataclasses import replace
        dual = {k: (host_copy(v) if hasattr(v, "shape") and not isinstance(v, np.generic) else v)
                for k, v in (self.dual or {}).items()}
        return replace(self, w=host_copy(self.w), dual_coef=host_copy(self.dual_coef), dual=dual)

    def predict(self, X, certified: bool = False):
        """The labels of the rows of ``X`` (the user's own label values). ``certified=True`` returns ``(labels,
        certain)``: ``certain[i]`` is True only when the label is proven equal to the exact optimum's, by the ball
        ``||w − w*|| <= √(2·gap)`` that the duality gap gives and the interval of the optimal offset it implies
        (:mod:`marginkit.core.safe`; soft-margin SVM results with a duality gap)."""
        if certified:
            return self._certified_predict(X)
        f = self.decision_function(X)
        # the labels where X lives: dask stays lazy, an array-API device keeps numeric labels
        bk = backend_of(f[:, None] if hasattr(f, "chunks") else f.reshape((-1, 1)) if hasattr(f, "reshape") else f)
        c = np.array([-1.0, 1.0]) if self.classes_ is None else np.asarray(self.classes_)
        return bk.label_vector(f > 0, c)

    # what the gap proves (core/safe.py) -------------------------------------------------------------
    def _safe_ball(self) -> tuple[float, tuple[float, float]]:
        """``(r, (b_lo, b_hi))``: the radius of the gap-safe ball and the interval of every optimal offset (kept in
        ``certificate["safe_radius"]``/``["offset_interval"]`` once computed, so a saved result keeps them)."""
        cert = self.certificate or {}
        if "safe_radius" in cert:
            return float(cert["safe_radius"]), tuple(cert["offset_interval"])
        p = self._problem
        if p is None or getattr(p, "form", "") != "SoftMarginSVM":
            raise ProblemError("certified predictions and support sets are proven for SoftMarginSVM results (the "
                               "primal is 1-strongly convex in w); this result is "
                               f"{'a loaded one without them' if p is None else 'of ' + type(p).__name__}")
        if self.w is None and self.dual_coef is None:
            raise ProblemError(f"no classifier to certify: status {self.status}")
        from .safe import gap_radius, offset_interval
        r = gap_radius(cert)
        scores, norms = self._train_scores()
        b_range = offset_interval(scores, norms, p.y, p.box, r) if p.bias else (0.0, 0.0)
        if self.certificate is not None:
            self.certificate["safe_radius"], self.certificate["offset_interval"] = r, list(b_range)
        return r, b_range

    def _train_scores(self):
        """``x_iᵀw`` (without the offset) and ``||x_i||`` (``√k(x_i, x_i)`` with a kernel) on the training rows: one
        product with ``X`` per result (kept with it; the row norms are the problem's own cached ones)."""
        if self._scores is not None:
            return self._scores
        p = self._problem
        if self.dual_coef is not None and p.kernel is not None:
            K = p.gram()
            self._scores = (K @ self.dual_coef, np.sqrt(np.clip(np.diag(K), 0, None)))
        else:
            X = p.X if isinstance(p.X, np.ndarray) or sp.issparse(p.X) else host_copy(p.X)
            self._scores = (np.asarray(X @ self.w).ravel(), np.asarray(host_copy(p.row_norms())))
        return self._scores

    def _certified_predict(self, X):
        f, lo, hi = self._decision_interval(X)
        certain = (lo > 0) | (hi < 0)
        c = np.array([-1.0, 1.0]) if self.classes_ is None else np.asarray(self.classes_)
        return c[(f > 0).astype(int)], certain

    def _decision_interval(self, X):
        """``(f, lo, hi)``: the decision values of this result on ``X`` and intervals proven to hold the exact
        optimum's."""
        r, (b_lo, b_hi) = self._safe_ball()
        f = np.asarray(host_copy(self.decision_function(X)), dtype=float) - self.b
        if self._kernel_data is not None:
            Xtrain, kernel, gamma = self._kernel_data
            Xc = check_matrix(X, "X")
            norms = np.ones(Xc.shape[0]) if kernel == "rbf" else np.sqrt(np.clip(
                [gram(kernel, gamma, Xc[i:i + 1])[0, 0] for i in range(Xc.shape[0])], 0, None))   # √k(x, x)
        else:
            from .linalg import row_norms
            norms = row_norms(check_matrix(X, "X") if not is_foreign(X) else host_copy(X))
        return f + self.b, f - r * norms + b_lo, f + r * norms + b_hi

    def support(self, certified: bool = True):
        """``(support, non_support, undecided)``: indices of the training samples proven to be support vectors of the
        exact optimum (``a*_i = C_i``: margin interval below 1), proven not to be (``a*_i = 0``: interval above 1, or
        a weight of 0), and the rest (:mod:`marginkit.core.safe`; soft-margin SVM results with a duality gap)."""
        if not certified:
            raise ProblemError("support(certified=False) has no meaning here: the support of an iterate is "
                               "result.dual['a'] > 0 where the method keeps a dual; certified=True proves it for w*")
        r, b_range = self._safe_ball()
        from .safe import margin_intervals
        p = self._problem
        scores, norms = self._train_scores()
        m_lo, m_hi = margin_intervals(scores, norms, p.y, r, b_range)
        box = np.asarray(p.box)
        non = (m_lo > 1.0) | (box == 0)
        sv = (m_hi < 1.0) & ~non
        idx = np.arange(p.n)
        return idx[sv], idx[non], idx[~(sv | non)]

    # saving --------------------------------------------------------------------------------------
    def save(self, path) -> str:
        """Write the result to ``path`` (one ``.npz`` file: the arrays, and JSON for the rest; no pickle). Everything
        is kept -- status, ``w``, ``b``, values, timings, certificate, dual, info, the trace's columns (and iterates
        if kept), ``classes_`` and a kernel expansion's training data -- except a callable kernel, which cannot be
        stored without pickle (its ``decision_function`` then raises after loading). Returns ``path``."""
        arrays: dict = {}
        res = self.to_numpy()
        return write_npz(path, "marginkit.Result", res._pack(arrays), arrays)

    @classmethod
    def load(cls, path) -> "Result":
        """The :class:`Result` saved by :meth:`save` at ``path`` (``ProblemError`` naming ``path`` otherwise)."""
        doc, arrays = read_npz(path, "marginkit.Result")
        return cls._unpack(doc, arrays)

    def _pack(self, arrays: dict) -> dict:
        skip = ("trace", "_kernel_data", "_decision", "_problem", "_scores")
        doc = {f.name: pack(getattr(self, f.name), arrays) for f in fields(self) if f.name not in skip}
        doc["trace"] = None if self.trace is None else self.trace._pack(arrays)
        kd = self._kernel_data
        if kd is not None and not callable(kd[1]):
            Xtrain = kd[0]
            if hasattr(Xtrain, "tocsr"):   # scipy.sparse: its three arrays
                Xtrain = Xtrain.tocsr()
                Xtrain = {"csr": (Xtrain.data, Xtrain.indices, Xtrain.indptr), "shape": tuple(Xtrain.shape)}
            doc["_kernel_data"] = pack((Xtrain, kd[1], kd[2]), arrays)
        return doc

    @classmethod
    def _unpack(cls, doc: dict, arrays: dict) -> "Result":
        kw = {k: unpack(v, arrays) for k, v in doc.items() if k not in ("trace", "_kernel_data")}
        kw["trace"] = None if doc.get("trace") is None else Trace._unpack(doc["trace"], arrays)
        if doc.get("_kernel_data") is not None:
            Xtrain, kernel, gamma = unpack(doc["_kernel_data"], arrays)
            if isinstance(Xtrain, dict):
                Xtrain = sp.csr_matrix(Xtrain["csr"], shape=Xtrain["shape"])
            kw["_kernel_data"] = (Xtrain, kernel, gamma)
        return cls(**kw)

    def __repr__(self) -> str:
        return (f"Result(method={self.method!r}, status={self.status!r}, value={self.value:.6g}, "
                f"margin={self.margin:.6g}, iterations={self.iterations}, time={self.time:.3g}s)")
