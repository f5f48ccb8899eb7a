from benchopt import BaseSolver, safe_import_context

with safe_import_context() as import_ctx:
    import numpy as np
    from skglm import LinearSVC
    from benchmark_utils import coefficients, fit_quietly


class Solver(BaseSolver):
    """skglm's ``LinearSVC`` (Anderson-accelerated coordinate descent on the dual, working sets), ``max_iter`` outer
    iterations per point. It accepts ``fit_intercept=True`` but hands its solver ``fit_intercept=False``, so its
    ``intercept_`` is 0 and its curve stops at the certified gap of the best model through the origin."""

    name = "skglm"
    sampling_strategy = "iteration"
    install_cmd = "conda"
    requirements = ["pip::skglm"]

    def set_objective(self, X, y, C):
        self.X, self.y = X, y
        self.clf = LinearSVC(C=C, fit_intercept=True, tol=1e-12)

    def warm_up(self):
        self.run_once(2)   # numba compilation

    def run(self, n_iter):
        if n_iter == 0:
            self.result = dict(beta=np.zeros(self.X.shape[1]), intercept=0.0)
            return
        self.clf.max_iter = n_iter
        self.result = coefficients(fit_quietly(self.clf, self.X, self.y))

    def get_result(self):
        return self.result
