"""What a row records and how it is judged (benchopt's ``objective.py``): the :class:`Row` record, the judging
rule (:meth:`Row.judge`) and the yardsticks accuracy is measured against.

Row fields (``results.json["rows"]``; ``tests/test_bench.py`` checks them): ``name``, ``problem``, ``size``,
``metric`` (what is timed), ``target`` (in words), ``comparison`` (``">="``: ``ratio`` must be at least
``required``, a speed-up; ``"<="``: at most, a cost), ``required``, ``ratio``, ``ratio_bound`` (``"lower"`` when
``ratio`` is a lower bound because a competitor hit its cap, ``"upper"`` when marginkit hit its own cap, else
``null``), ``status`` (``met``, ``missed``, ``skipped``, ``error``), ``times`` (label -> seconds, ``null`` when
capped), ``accuracy`` (label -> the gap reached), ``note`` (by how much a target is missed, what is missing) and
``details``; a run adds ``measured`` (the date of the run that measured the row).

Accuracy is measured against the certified CVXPY reference (``problem.reference()``) or a high-accuracy run of a
marginkit method whose own certificate bounds the optimum (a duality gap, or the margin's upper bound), never
against a method's own claim alone.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

ROW_FIELDS = ("name", "problem", "size", "metric", "target", "comparison", "required", "ratio", "ratio_bound",
              "status", "times", "accuracy", "note", "details")
STATUSES = ("met", "missed", "skipped", "error")


@dataclass
class Row:
    name: str
    problem: str
    size: str
    metric: str
    target: str
    comparison: str = ">="
    required: float | None = None
    ratio: float | None = None
    ratio_bound: str | None = None
    status: str = "skipped"
    times: dict = field(default_factory=dict)
    accuracy: dict = field(default_factory=dict)
    note: str = ""
    details: dict = field(default_factory=dict)

    @classmethod
    def of(cls, target, size: str, **fields) -> "Row":
        """The row of ``target`` (:class:`~benchmarks.targets.Target`), its words filled from ``fields``."""
        return cls(name=target.name, size=size, comparison=target.comparison, required=target.required,
                   **target.text(**fields))

    def judge(self, extra_note: str = "") -> "Row":
        """Set ``status`` from ``ratio`` and ``required``; a miss says by how much."""
        notes = [extra_note] if extra_note else []
        if self.ratio is None or not np.isfinite(self.ratio):
            self.status = "skipped" if self.status != "error" else "error"
        else:
            ok = self.ratio >= self.required if self.comparison == ">=" else self.ratio <= self.required
            self.status = "met" if ok else "missed"
            if not ok:
                short = (self.required / self.ratio if self.comparison == ">=" else self.ratio / self.required)
                notes.append(f"missed by a factor {short:.2g} ({fmt_ratio(self)} against {self.comparison} "
                             f"{self.required:g})")
        self.note = "; ".join(n for n in [self.note, *notes] if n)
        return self


def fmt_ratio(row: Row) -> str:
    if row.ratio is None or not np.isfinite(row.ratio):
        return "-"
    return {"lower": ">", "upper": "<"}.get(row.ratio_bound, "") + f"{row.ratio:.3g}"


CAPPED_NOTE = "every CVXPY solver was stopped at its cap: the ratio is a lower bound"


# ----------------------------------------------------------------------------------------------------------------
# yardsticks
# ----------------------------------------------------------------------------------------------------------------
def margin_upper_bound(res) -> float | None:
    """A certified upper bound on the max margin from a MaxMargin result's certificate: ``margin_upper`` of the
    margin plans, or ``1/sqrt(2 D)`` from a dual value ``D <= ½||w*||² = 1/(2γ*²)`` (the min-norm form)."""
    cert = res.certificate or {}
    if np.isfinite(cert.get("margin_upper", np.nan)):
        return float(cert["margin_upper"])
    dual = cert.get("dual", np.nan)
    if np.isfinite(dual) and dual > 0:
        return float(1.0 / np.sqrt(2.0 * dual))
    return None


class MarginGap:
    """Relative margin gap ``(γ* − γ) / γ*`` against ``gamma`` (set later when it comes from a high-accuracy run)."""

    def __init__(self, gamma: float | None = None):
        self.gamma = gamma

    def result(self, res):
        return None if self.gamma is None else (self.gamma - float(res.margin)) / self.gamma

    def cvxpy(self, msg):
        if self.gamma is None:
            return None
        return (self.gamma - msg["margin"]) / self.gamma if np.isfinite(msg["margin"]) else None


class ObjectiveGap:
    """Relative objective gap ``(P − p) / |p|`` against a lower bound (or best estimate) ``p`` of the optimum."""

    def __init__(self, p: float | None = None, how: str = ""):
        self.p, self.how = p, how

    def value(self, value: float):
        return None if self.p is None else (float(value) - self.p) / abs(self.p)

    def result(self, res):
        return self.value(res.value)

    def cvxpy(self, msg):
        if self.p is None or not np.isfinite(msg["value"]):
            return None
        return self.value(msg["value"])


class SeparatedFraction:
    """Fraction of the ellipsoids of ``problem`` strictly on their side of the hyperplane ``(w, b)``."""

    def __init__(self, problem):
        self.problem = problem

    def __call__(self, w, b) -> float:
        if w is None or b is None or not np.all(np.isfinite(np.atleast_1d(w))) or not np.isfinite(b):
            return 0.0
        c_ok, d_ok = self.problem.separates(np.asarray(w, float), float(b))
        return float((c_ok.sum() + d_ok.sum()) / (c_ok.size + d_ok.size))

    def result(self, res):
        return self(res.w, res.b)

    def cvxpy(self, msg):
        return self(msg.get("w"), msg.get("b"))
