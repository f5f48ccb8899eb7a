from benchopt import BaseSolver, safe_import_context
from benchopt.stopping_criterion import SingleRunCriterion

with safe_import_context() as import_ctx:
    import cvxpy
    import marginkit as mk


class Solver(BaseSolver):
    """CVXPY on marginkit's formulation of the problem (``problem.solve("cvxpy", solver=...)``), each solver at its
    default accuracy; one point per run (the problem is built, compiled and solved inside the timed run)."""

    name = "cvxpy"
    sampling_strategy = "run_once"
    stopping_criterion = SingleRunCriterion()   # not the objective's iterative one
    install_cmd = "conda"
    requirements = ["cvxpy"]
    parameters = {"solver": ["CLARABEL", "ECOS", "SCS"]}

    def skip(self, X, y, bias, C):
        if self.solver not in cvxpy.installed_solvers():
            return True, f"CVXPY's {self.solver} is not installed"
        return False, None

    def set_objective(self, X, y, bias, C):
        self.X, self.y, self.bias = X, y, bias

    def run(self, _):
        self.result = mk.MaxMargin(self.X, self.y, bias=self.bias).solve("cvxpy", solver=self.solver)

    def get_result(self):
        return dict(beta=self.result.w, intercept=self.result.b if self.bias else 0.0)
