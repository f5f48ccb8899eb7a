from benchopt import BaseSolver, safe_import_context

with safe_import_context() as import_ctx:
    import marginkit as mk
    from benchmark_utils import marginkit_methods


class Solver(BaseSolver):
    """marginkit's methods for ``SoftMarginSVM(bias=False)``, as its method registry lists them (a method added with
    ``marginkit.register_method`` or a plugin joins without an edit here); ``max_iter`` iterations of
    ``problem.solve`` per point of the curve, from scratch, as benchopt's iteration sampling asks."""

    name = "marginkit"
    sampling_strategy = "iteration"
    parameters = {"method": marginkit_methods("soft-margin", bias=False)}

    def set_objective(self, X, y, C):
        # validated (and copied) once here, outside the timed runs
        self.problem = mk.SoftMarginSVM(X, y, C=C, bias=False)

    def warm_up(self):
        self.run_once(2)   # numba compilation and the problem's one-time setup, not charged to the first point

    def run(self, n_iter):
        # tol 1e-12: a method stops before n_iter only once its own certificate proves that relative gap
        self.result = self.problem.solve(self.method, max_iter=n_iter, tol=1e-12, trace=None, seed=0)

    def get_result(self):
        return dict(beta=self.result.w)
