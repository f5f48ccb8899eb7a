from benchopt import BaseSolver, safe_import_context

with safe_import_context() as import_ctx:
    import marginkit as mk
    from benchmark_utils import marginkit_methods


class Solver(BaseSolver):
    """marginkit's methods for ``MaxMargin``, as its method registry lists them (also those reached through a
    reduction, and any added with ``marginkit.register_method`` or a plugin); a method that does not apply to the
    objective's ``bias`` is skipped with the registry's reason. ``max_iter`` iterations of ``problem.solve`` per point
    of the curve, from scratch, as benchopt's iteration sampling asks."""

    name = "marginkit"
    sampling_strategy = "iteration"
    parameters = {"method": list(dict.fromkeys(marginkit_methods("max-margin", bias=False)
                                               + marginkit_methods("max-margin", bias=True)))}

    def skip(self, X, y, bias, C):
        problem = mk.MaxMargin(X, y, bias=bias)
        if self.method not in mk.methods(problem):
            return True, f"{self.method!r} does not solve MaxMargin(bias={bias}) (marginkit.methods)"
        return False, None

    def set_objective(self, X, y, bias, C):
        # validated (and copied) once here, outside the timed runs
        self.problem = mk.MaxMargin(X, y, bias=bias)

    def warm_up(self):
        self.run_once(2)   # numba compilation and the problem's one-time setup, not charged to the first point

    def run(self, n_iter):
        # tol 1e-12: a method stops before n_iter only once its own certificate proves that relative margin gap
        self.result = self.problem.solve(self.method, max_iter=n_iter, tol=1e-12, trace=None, seed=0)

    def get_result(self):
        b = 0.0 if self.result.b is None else self.result.b
        return dict(beta=self.result.w, intercept=b)
