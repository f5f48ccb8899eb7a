"""The :class:`Report` of :func:`~marginkit.cross_validate`: its rows (one per method plus the reference), the
text table and the convergence plot."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.persist import pack, read_npz, unpack, write_npz
from ..core.result import Result
from ..core.validation import ProblemError


def _bound_cell(row: dict) -> str:
    """``within`` / ``EXCEEDED`` against the method's proven bound (``marginkit.bounds``), ``-`` when none applies."""
    within = row.get("within_bound")
    return "-" if within is None else ("within" if within else "EXCEEDED")


@dataclass
class Report:
    """Rows of ``cross_validate``: one per method plus the reference, with gaps relative to it."""

    problem: object
    reference: object
    rows: list = field(default_factory=list)
    results: dict = field(default_factory=dict)
    choice: str = ""   # what ``solve("auto")`` picks for the problem and why (:mod:`marginkit.engine.choice`)

    def table(self) -> str:
        cols = ["method", "status", "iterations", "time", "objective_gap", "margin_gap", "angle_gap", "tolerance",
                "agrees", "bound", "note"]
        fmt = {"time": "{:.3g}s", "objective_gap": "{:.2e}", "margin_gap": "{:.2e}", "angle_gap": "{:.2e}",
               "tolerance": "{:.0e}"}
        rows = [{**r, "bound": _bound_cell(r)} for r in self.rows]
        cells = [[(fmt.get(c, "{}").format(r[c]) if isinstance(r[c], float) and np.isfinite(r[c])
                   else ("-" if isinstance(r[c], float) else str(r[c]))) for c in cols] for r in rows]
        widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
        line = "  ".join(c.ljust(w) for c, w in zip(cols, widths))
        out = [f"{self.problem!r}; reference: {self.reference.status}, value {self.reference.value:.10g}, "
               f"margin {self.reference.margin:.10g}", line, "-" * len(line)]
        out += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells]
        if self.choice:
            out.append(f'solve("auto") picks {self.choice}')
        return "\n".join(out)

    def plot(self, path=None, ax=None, x: str = "iteration", metric: str | None = None, title: str | None = None):
        """Convergence curves: ``metric`` (default: the problem's agreement metric, e.g. the relative ``margin_gap``)
        of every method's trace against ``x`` (``"iteration"`` or ``"time"``), log–log, in the style of
        scikit-learn's ``*Display`` classes.

        Draws on ``ax`` (a new figure from ``matplotlib.pyplot`` when None, so a notebook shows it inline), writes a
        PNG to ``path`` only when one is given, and returns the Axes. It never changes matplotlib's backend."""
        if x not in ("iteration", "time"):
            raise ProblemError(f"x must be 'iteration' or 'time'; got {x!r}")
        if metric is None:
            metric = self.problem.agreement_metric
        if not isinstance(metric, str):
            raise ProblemError(f"metric must be the name of a trace column; got {metric!r}")
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("Report.plot() needs matplotlib, which is not installed: "
                              "pip install matplotlib") from None
        if ax is None:
            _, ax = plt.subplots(figsize=(8.4, 4.6))
        drawn = 0
        for name, res in self.results.items():
            tr = res.trace
            if tr is None or metric not in tr:
                continue
            t, val = tr[x], np.abs(tr[metric])
            ok = (t > 0) & np.isfinite(val) & (val > 0)
            if ok.any():
                ax.loglog(t[ok], val[ok], label=name, lw=1.6)
                drawn += 1
        ax.set_xlabel({"iteration": "iteration t (coordinate methods: epochs of n updates)",
                       "time": "time (s)"}[x])
        ax.set_ylabel(PLOT_LABELS.get(metric, metric))
        ax.set_title(title or repr(self.problem))
        ax.grid(True, which="both", alpha=0.3)
        if drawn:
            ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
        if path is not None:
            ax.figure.tight_layout()
            ax.figure.savefig(path, dpi=120)
        return ax

    def to_pandas(self):
        """The rows as a ``pandas.DataFrame`` (one row per method, the reference first; pandas is optional)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("Report.to_pandas() needs pandas, which is not installed: pip install pandas") from None
        return pd.DataFrame(self.rows)

    # saving --------------------------------------------------------------------------------------
    def save(self, path) -> str:
        """Write the report to ``path`` (one ``.npz`` file, no pickle): the rows, the reference and every method's
        :class:`~marginkit.Result` (traces included). The problem's data are not saved: a loaded report keeps the
        problem's ``repr`` and agreement metric (enough for :meth:`table` and :meth:`plot`)."""
        arrays: dict = {}
        doc = {"problem": {"repr": repr(self.problem),
                           "agreement_metric": getattr(self.problem, "agreement_metric", "objective_gap")},
               "reference": self.reference._pack(arrays),
               "rows": pack(self.rows, arrays),
               "results": {name: res._pack(arrays) for name, res in self.results.items()}, "choice": self.choice}
        return write_npz(path, "marginkit.Report", doc, arrays)

    @classmethod
    def load(cls, path) -> "Report":
        """The :class:`Report` saved by :meth:`save` (``ProblemError`` naming ``path`` otherwise)."""
        doc, arrays = read_npz(path, "marginkit.Report")
        results = {name: Result._unpack(r, arrays) for name, r in doc["results"].items()}
        ref = results.get("cvxpy") or Result._unpack(doc["reference"], arrays)
        return cls(problem=SavedProblem(**doc["problem"]), reference=ref, rows=unpack(doc["rows"], arrays),
                   results=results, choice=str(doc.get("choice", "")))


PLOT_LABELS = {"margin_gap": "relative margin gap  (γ* − γ(w_t))/γ*", "margin_gap_abs": "margin gap  γ* − γ(w_t)",
               "objective_gap": "relative objective gap", "objective_gap_abs": "objective gap",
               "angle_gap": "angle gap  1 − cos(w_t, w*)", "dist_to_opt": "distance to w*  ||w_t − w*||"}


@dataclass(frozen=True)
class SavedProblem:
    """What a loaded :class:`Report` knows of its problem: the ``repr`` it was saved with and the agreement metric."""

    repr: str
    agreement_metric: str = "objective_gap"

    def __repr__(self) -> str:
        return self.repr
