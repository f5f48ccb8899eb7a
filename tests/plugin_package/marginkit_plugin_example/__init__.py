"""A marginkit method from outside marginkit: multiplicative weights (entropic mirror descent) on the nearest-point
dual of the homogeneous hard margin, ``min over the simplex of ½||Zᵀa||²`` with ``Z = diag(y) X``.

For every ``a`` in the simplex, ``u = Zᵀa`` certifies ``γ* <= ||u||`` (weak duality of the hard margin), and the
margin of ``u`` itself, ``min_i z_iᵀu / ||u||``, is achieved: the plan stops with ``optimal`` when the relative gap
between the two is at most ``tol``. The step is the mirror-descent step of Nemirovski & Yudin with the entropy on the
simplex (Beck & Teboulle, "Mirror descent and nonlinear projected subgradient methods for convex optimization",
Oper. Res. Lett. 31, 2003): ``log a ← log a − (η/R²) Z u``, ``R = max ||x_i||``; ``R²`` bounds the Lipschitz constant of
the gradient ``Z u`` from the l1 to the l-infinity norm, so the dual objective falls as ``O(R² ln n / t)``.
"""
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from marginkit.core.warmstart import parse_warm_start
from marginkit.engine.plugins import Interval, IterationPlan, MethodCard, Solution


@dataclass
class HedgeState:
    t: int
    logits: np.ndarray   # log a, up to a constant
    u: np.ndarray        # Zᵀa
    s: np.ndarray        # Z u: the margins of u, unnormalised


class Hedge(IterationPlan):
    """Multiplicative weights on the hard-margin dual, with the certified margin interval ``[γ(u), ||u||]``."""

    name = "example-hedge"
    default_max_iter = 2000
    default_tol = 1e-3
    log_columns = ("margin", "margin_upper", "gap_bound")

    @dataclass(frozen=True)
    class Config:
        eta: float = field(default=1.0, metadata={"doc": "the step, in units of 1/R²"})   # marginkit.describe
        constraints: ClassVar[dict] = {"eta": [Interval(float, 0, None, closed="neither")]}

    def setup(self):
        X, y = np.asarray(self.form.X, dtype=float), np.asarray(self.form.y, dtype=float)
        self.Z = X * y[:, None]
        self.R2 = max(float((self.Z * self.Z).sum(axis=1).max()), np.finfo(float).tiny)

    def state_of(self, t, logits):
        a = np.exp(logits - logits.max())
        u = self.Z.T @ (a / a.sum())
        return HedgeState(t=t, logits=logits, u=u, s=self.Z @ u)

    def init(self, rng, warm_start, budget):
        w = parse_warm_start(warm_start, self.Z.shape[1])
        if w is None or not np.any(w):
            return self.state_of(0, np.zeros(self.Z.shape[0]))
        return self.state_of(0, -(self.Z @ w) / (np.sqrt(self.R2) * np.linalg.norm(w)))   # hard examples first

    def step(self, state):
        return self.state_of(state.t + 1, state.logits - (self.eta / self.R2) * state.s)

    def bounds(self, state):
        upper = float(np.linalg.norm(state.u))
        return (float(state.s.min()) / upper if upper > 0 else 0.0), upper

    def measure(self, state):
        lower, upper = self.bounds(state)
        return {"margin": lower, "margin_upper": upper, "gap_bound": upper - lower}

    def stop(self, state, budget):
        lower, upper = self.bounds(state)
        return "optimal" if upper > 0 and upper - lower <= budget.tol * upper else None

    def snapshot(self, state):
        return state.u.copy()

    def solution(self, state, status):
        lower, upper = self.bounds(state)
        rel = (upper - lower) / upper if upper > 0 else np.inf
        return Solution(w=state.u.copy(), status=status, certificate={
            "margin_lower": lower, "margin_upper": upper, "gap_bound": upper - lower, "relative_gap": rel})


CARD = MethodCard("example-hedge", "MaxMargin", "marginkit_plugin_example:Hedge",
                  paper="Beck & Teboulle (2003), entropic mirror descent",
                  algorithm="multiplicative weights on the nearest-point dual of the hard margin",
                  converges_to="max-margin direction", rate="dual objective O(R² ln n / t)",
                  tolerance=0.05, budget=2000, tags=("plugin",),
                  requires=(("no_kernel", "the plan works on the primal vector u = Zᵀa (no kernel)"),
                            ("no_bias", "the nearest-point dual of the homogeneous hard margin (bias=False)")))
