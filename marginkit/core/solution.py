"""A plan's or a reference's raw output, in the coordinates of the form it ran on."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .result import Trace


@dataclass
class Solution:
    """A plan's output in the coordinates of the form it ran on (mapped back by the reductions)."""

    w: np.ndarray | None
    b: float | None = None       # the offset; None: the plan computes none (0 for a problem without an offset)
    status: str = "user_limit"
    iterations: int = 0
    time: float = 0.0            # the solve (the run loop, or the solver)
    setup_time: float = 0.0      # what came before it (a plan's setup, a reference's model and CVXPY compile)
    certificate: dict | None = None
    dual: dict = field(default_factory=dict)
    trace: Trace | None = None
    info: dict = field(default_factory=dict)
    dual_coef: np.ndarray | None = None
