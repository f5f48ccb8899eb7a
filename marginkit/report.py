"""The :class:`Report` of :func:`~marginkit.cross_validate`: its rows (one per method plus the reference), the
text table and the convergence plot."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Report:
    """Rows of ``cross_validate``: one per method plus the reference, with gaps relative to it."""

    problem: object
    reference: object
    rows: list = field(default_factory=list)
    results: dict = field(default_factory=dict)

    def table(self) -> str:
        cols = ["method", "status", "iterations", "time", "objective_gap", "margin_gap", "angle_gap", "tolerance", "agrees"]
        fmt = {"time": "{:.3g}s", "objective_gap": "{:.2e}", "margin_gap": "{:.2e}", "angle_gap": "{:.2e}",
               "tolerance": "{:.0e}"}
        cells = [[(fmt.get(c, "{}").format(r[c]) if isinstance(r[c], float) and np.isfinite(r[c])
                   else ("-" if isinstance(r[c], float) else str(r[c]))) for c in cols] for r in self.rows]
        widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
        line = "  ".join(c.ljust(w) for c, w in zip(cols, widths))
        out = [f"{self.problem!r}; reference: {self.reference.status}, value {self.reference.value:.10g}, "
               f"margin {self.reference.margin:.10g}", line, "-" * len(line)]
        out += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells]
        return "\n".join(out)

    def plot(self, path: str, metric: str | None = None, title: str | None = None) -> str:
        """Convergence curves (metric gap against iteration, log–log) as a PNG."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        if metric is None:
            metric = self.problem.agreement_metric
        fig, ax = plt.subplots(figsize=(8.4, 4.6))
        for name, res in self.results.items():
            tr = res.trace
            if tr is None or metric not in tr:
                continue
            it, val = tr["iteration"], np.abs(tr[metric])
            ok = (it > 0) & np.isfinite(val) & (val > 0)
            if ok.any():
                ax.loglog(it[ok], val[ok], label=name, lw=1.6)
        ax.set_xlabel("iteration t (coordinate methods: epochs of n updates)")
        ax.set_ylabel({"margin_gap": "margin gap  γ* − γ(w_t)", "objective_gap": "relative objective gap"}
                      .get(metric, metric))
        ax.set_title(title or repr(self.problem))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)
        return path
