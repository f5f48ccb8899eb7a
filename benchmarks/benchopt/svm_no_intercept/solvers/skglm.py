from benchopt import BaseSolver, safe_import_context

with safe_import_context() as import_ctx:
    import numpy as np
    from skglm import LinearSVC
    from benchmark_utils import coefficients, fit_quietly


class Solver(BaseSolver):
    """skglm's ``LinearSVC`` (Anderson-accelerated coordinate descent on the dual, working sets; no intercept:
    exactly this problem), ``max_iter`` outer iterations per point."""

    name = "skglm"
    sampling_strategy = "iteration"
    install_cmd = "conda"
    requirements = ["pip::skglm"]

    def set_objective(self, X, y, C):
        self.X, self.y = X, y
        self.clf = LinearSVC(C=C, fit_intercept=False, tol=1e-12)

    def warm_up(self):
        self.run_once(2)   # numba compilation

    def run(self, n_iter):
        if n_iter == 0:
            self.beta = np.zeros(self.X.shape[1])
            return
        self.clf.max_iter = n_iter
        self.beta = coefficients(fit_quietly(self.clf, self.X, self.y))["beta"]

    def get_result(self):
        return dict(beta=self.beta)
