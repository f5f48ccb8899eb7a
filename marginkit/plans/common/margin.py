"""What every first-order plan for ``MaxMargin`` shares: the data operator, the certified margin bounds,
the stop rule and the solution.

**Certificate.** For any ``q`` in the simplex, weak duality gives ``γ̄ <= ||Σ_i q_i y_i x_i||``
(dual of the hard-margin problem, dual-acceleration-and-dykstra.md A1). The margin of the iterate is a
lower bound. So every plan keeps

* ``margin = min_i y_i x_iᵀw / ||w||``                  (achieved, lower bound on γ̄)
* ``dual_bound = min over seen q of ||Σ q_i y_i x_i||``  (certified upper bound on γ̄)

and reports ``optimal`` only when ``dual_bound − margin <= tol · dual_bound``: the status never claims
more than the certificate proves. ``infeasible`` is reported when ``dual_bound <= tol · R`` while the
iterate does not separate (the data are not separable to that tolerance; Gordan's alternative).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.linalg import SignedData
from ...core.warmstart import parse_warm_start
from ...engine.runloop import IterationPlan
from ...core.solution import Solution


@dataclass
class MarginState:
    t: int
    w: np.ndarray          # primal iterate (scaled-data coordinates; same direction as for the raw data)
    s: np.ndarray          # Z w with JST's Z = -diag(y) X / R, so y_i x_i^T w = -R s_i
    dual_bound: float      # best certified upper bound on γ̄ seen so far (raw data units)


class MarginPlan(IterationPlan):
    """Base for the JST-family plans. Works on ``Z = -diag(y)X/R`` with ``R = max_i ||x_i||`` so that
    ``||z_i|| <= 1`` (the step sizes of the paper need it, JST pitfall 2); margins are reported in the
    units of the user's data."""

    default_max_iter = 1000
    default_tol = 1e-4
    log_columns = ("margin", "dual_bound", "gap_bound")

    def setup(self):
        form = self.form
        R = float(form.row_norms().max())
        self.R = R if R > 0.0 else 1.0
        self.Z = SignedData(form.X, form.y, sign=-1.0, scale=self.R)
        self.n, self.d = form.X.shape

    def start_w(self, warm_start):
        w0 = parse_warm_start(warm_start, self.d)
        return np.zeros(self.d) if w0 is None else w0

    # certified quantities --------------------------------------------------------------------
    def margin(self, state) -> float:
        nw = float(np.linalg.norm(state.w))
        return 0.0 if nw == 0.0 else float(-self.R * np.max(state.s) / nw)

    def bound_from_weights(self, v_norm: float, mass: float) -> float:
        """Upper bound ``R ||Zᵀa|| / ||a||_1`` for non-negative weights ``a`` (raw units)."""
        return self.R * v_norm / mass if mass > 0 else np.inf

    def measure(self, state) -> dict:
        m = self.margin(state)
        return {"margin": m, "dual_bound": state.dual_bound, "gap_bound": state.dual_bound - m,
                "norm_w": float(np.linalg.norm(state.w))}

    def stop(self, state, budget):
        m = self.margin(state)
        ub = state.dual_bound
        if np.isfinite(ub) and m > 0 and ub - m <= budget.tol * ub:
            return "optimal"
        if ub <= budget.tol * self.R and m <= 0:
            return "infeasible"
        return None

    def snapshot(self, state):
        return state.w.copy()

    def solution(self, state, status) -> Solution:
        m = self.margin(state)
        cert = {"margin_lower": m, "margin_upper": state.dual_bound,
                "gap_bound": state.dual_bound - m, "relative_gap_bound": (state.dual_bound - m) / state.dual_bound
                if np.isfinite(state.dual_bound) and state.dual_bound > 0 else np.inf}
        return Solution(w=state.w.copy(), status=status, certificate=cert)


def softmax(s: np.ndarray) -> np.ndarray:
    """Stable ``softmax(s)`` (subtract the max; never exponentiate a stored q, JST pitfall 4)."""
    e = np.exp(s - s.max())
    return e / e.sum()


def logsumexp(s: np.ndarray) -> float:
    m = float(s.max())
    return m + float(np.log(np.exp(s - m).sum()))
