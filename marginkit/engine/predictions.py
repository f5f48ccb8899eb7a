"""``stop_when="predictions"``: the run stops once every prediction on ``X_certify`` is proven to be the exact
optimum's (the duality gap's ball around the iterate, :meth:`marginkit.Result.predict` with ``certified=True``)."""
from __future__ import annotations

import numpy as np

from ..core.validation import ProblemError, check_matrix
from .assemble import build_result
from .recorder import on_geometric_schedule


class PredictionStop:
    """``stop_when="predictions"``: whether every prediction on ``X_certify`` is proven to be the exact optimum's at
    the current iterate (:meth:`marginkit.Result.predict` with ``certified=True``: the duality gap's ball). Asked at
    checks on the geometric schedule (a function of ``t`` only, so neither the trace nor a resume changes the stop),
    with the certificate the stop rule has just computed (the loop's memo)."""

    def __init__(self, plan, X_certify):
        self.plan, self.fired = plan, False
        self.X = check_prediction_stop(plan.origin, X_certify)

    def due(self, t: int, check_every: int) -> bool:
        return t % check_every == 0 and on_geometric_schedule(t)

    def __call__(self, state, solution) -> bool:
        """Whether it fires at ``state``; ``solution``: the plan's hook, with the loop's memo where it takes one."""
        plan = self.plan
        sol = solution(state, "user_limit")
        sol = plan.chain.invert(sol) if plan.chain is not None else sol
        res = build_result(plan.origin, sol, plan.method, form=plan.form)
        if res.w is None and res.dual_coef is None:
            return False
        _, lo, hi = res._decision_interval(self.X)
        self.fired = bool(np.all((lo > 0) | (hi < 0)))
        return self.fired


def check_prediction_stop(problem, X_certify):
    """``X_certify`` checked for ``problem`` (``ProblemError`` naming it): a soft-margin SVM's points of its width."""
    if getattr(problem, "form", "") != "SoftMarginSVM":
        raise ProblemError("stop_when='predictions' is proven for SoftMarginSVM problems (the duality gap bounds "
                           f"||w - w*||); got {type(problem).__name__}")
    X = check_matrix(X_certify, "X_certify")
    if X.shape[1] != problem.X.shape[1]:
        raise ProblemError(f"X_certify has {X.shape[1]} columns; the problem's X has {problem.X.shape[1]}")
    return X
