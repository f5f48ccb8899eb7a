"""The ``Result`` of every solve, its ``Trace``, and the margin metrics shared by all methods."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .kernels import gram
from .validation import ProblemError, check_matrix

STATUSES = ("optimal", "optimal_inaccurate", "infeasible", "infeasible_inaccurate", "unbounded", "user_limit",
            "solver_error")


def geometric_margin(scores: np.ndarray, y: np.ndarray, norm_w: float) -> float:
    """``min_i y_i f(x_i) / ||w||`` with ``gamma(0) := 0`` (JST pitfall 6)."""
    if not np.isfinite(norm_w) or norm_w <= 0.0:
        return 0.0
    return float(np.min(y * scores) / norm_w)


class Trace:
    """Per-recorded-iteration metrics as equal-length 1-D arrays (``trace["margin"]`` etc.).

    Recording is done by the run loop on a schedule (see :func:`marginkit.runloop.record_schedule`), so the
    cost of a record never dominates an iteration. Iterates are kept aside (``trace.iterates``) so that
    metrics needing the certified optimum (margin gap, angle gap, distance to ``w*``) can be filled in
    afterwards, once a reference is known.
    """

    def __init__(self):
        self._cols: dict[str, list] = {}
        self._n = 0
        self.iterates: list[np.ndarray] = []

    def record(self, iteration: int, time: float, metrics: dict, iterate=None) -> None:
        row = {"iteration": iteration, "time": time, **metrics}
        for key in row:
            if key not in self._cols:
                self._cols[key] = [np.nan] * self._n
        for key, col in self._cols.items():
            col.append(float(row.get(key, np.nan)))
        self._n += 1
        if iterate is not None:
            self.iterates.append(iterate)

    def set(self, key: str, values) -> None:
        values = np.asarray(values, dtype=float)
        if values.shape != (self._n,):
            raise ValueError(f"trace column {key!r} needs {self._n} values, got {values.shape}")
        self._cols[key] = list(values)

    def __getitem__(self, key: str) -> np.ndarray:
        return np.asarray(self._cols[key], dtype=float)

    def __contains__(self, key) -> bool:
        return key in self._cols

    def keys(self):
        return list(self._cols)

    def __len__(self) -> int:
        return self._n

    def as_dict(self) -> dict[str, np.ndarray]:
        return {k: self[k] for k in self._cols}

    def __repr__(self) -> str:
        return f"Trace({self._n} records: {', '.join(self._cols)})"


@dataclass
class Result:
    """Outcome of ``problem.solve(method=...)``.

    ``status`` uses CVXPY's strings. ``optimal`` is reported only when the requested tolerance was met
    (for first-order methods: by the method's own certificate), ``user_limit`` for a budget stop and
    ``infeasible`` when the data cannot be separated (then ``margin`` is never positive).
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
        d = self._kernel_data[0].shape[1] if self._kernel_data is not None else np.shape(self.w)[0]
        Xc = check_matrix(X, "X")
        if Xc.shape[1] != d:
            raise ProblemError(f"X has {Xc.shape[1]} columns but the classifier was fitted on {d}")
        if self._kernel_data is not None:
            Xtrain, kernel, gamma = self._kernel_data
            return gram(kernel, gamma, Xc, Xtrain) @ self.dual_coef + self.b
        return np.asarray(Xc @ self.w).ravel() + self.b

    def predict(self, X) -> np.ndarray:
        f = self.decision_function(X)
        pos = f > 0
        if self.classes_ is None:
            return np.where(pos, 1.0, -1.0)
        return np.where(pos, self.classes_[1], self.classes_[0])

    def __repr__(self) -> str:
        return (f"Result(method={self.method!r}, status={self.status!r}, value={self.value:.6g}, "
                f"margin={self.margin:.6g}, iterations={self.iterations}, time={self.time:.3g}s)")
