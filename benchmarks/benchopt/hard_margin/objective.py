"""Hard-margin (max-margin) linear separation of separable data, against its certified optimum.

    max_{w, b}  γ(w, b) = min_i y_i(x_iᵀw + b) / ||w||,   equivalently   min ½||w||²  s.t.  y_i(x_iᵀw + b) >= 1

marginkit's ``MaxMargin(X, y, bias)``. benchopt minimises ``value = −γ(w, b)``: the margin is scale-free, so every
iterate has a value (methods that grow ``||w||`` without bound, such as gradient descent on the exponential loss,
converge in margin, not in ``w``) and suboptimality is the margin gap ``γ* − γ``. ``½||w||²`` at the iterate is
no measure: it is only meaningful once the iterate is rescaled onto the constraints, and infinite while it does not
separate the data.
"""
from benchopt import BaseObjective, safe_import_context
from benchopt.stopping_criterion import SufficientProgressCriterion

with safe_import_context() as import_ctx:
    import numpy as np
    from benchmark_utils import certified_problem, equivalent_C, margin_metrics


class Objective(BaseObjective):
    name = "Hard margin"
    min_benchopt_version = "1.6"
    # the primal value of a dual method (and of liblinear, libsvm, skglm) is not monotone in the first iterations:
    # benchopt's default patience (3) stopped such curves after a few points, far from the optimum
    stopping_criterion = SufficientProgressCriterion(patience=7, strategy="iteration")
    requirements = []   # marginkit itself: pip install -e ".[benchopt]" from the repository

    # bias=False: through the origin, the papers' homogeneous setting; bias=True: with a free offset
    parameters = {"bias": [False, True]}

    def skip(self, X, y):
        status = certified_problem("max-margin", X, y, bias=self.bias).reference().status
        if status == "infeasible":
            return True, f"the data are not separable with bias={self.bias} (certified by the CVXPY reference)"
        return False, None

    def set_data(self, X, y):
        self.X, self.y = X, y
        self.problem = certified_problem("max-margin", X, y, bias=self.bias)

    def get_objective(self):
        # C: a soft-margin C whose optimum is this hard-margin optimum, for the soft-margin libraries
        return dict(X=self.X, y=self.y, bias=self.bias, C=equivalent_C(self.problem))

    def evaluate_result(self, beta, intercept=0.0):
        return margin_metrics(self.problem, beta, intercept)

    def get_one_result(self):
        return dict(beta=np.zeros(self.X.shape[1]), intercept=0.0)
