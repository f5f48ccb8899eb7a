from benchopt import BaseSolver, safe_import_context

with safe_import_context() as import_ctx:
    import numpy as np
    from skglm import LinearSVC
    from benchmark_utils import coefficients, fit_quietly


class Solver(BaseSolver):
    """skglm's ``LinearSVC`` (coordinate descent on the dual, working sets) with the objective's ``C``, at which the
    soft-margin optimum is the hard-margin one; ``max_iter`` outer iterations per point. It fits no intercept (its
    solver gets ``fit_intercept=False``): run with ``bias=False`` only."""

    name = "skglm"
    sampling_strategy = "iteration"
    install_cmd = "conda"
    requirements = ["pip::skglm"]

    def skip(self, X, y, bias, C):
        if bias:
            return True, "skglm's LinearSVC fits no intercept: it solves the bias=False problem"
        return False, None

    def set_objective(self, X, y, bias, C):
        self.X, self.y = X, y
        self.clf = LinearSVC(C=C, fit_intercept=False, tol=1e-12)

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
