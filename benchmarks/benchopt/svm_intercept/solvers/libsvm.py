from benchopt import BaseSolver, safe_import_context

with safe_import_context() as import_ctx:
    import numpy as np
    from sklearn.svm import SVC
    from benchmark_utils import coefficients, fit_quietly


class Solver(BaseSolver):
    """scikit-learn's ``SVC(kernel="linear")`` (libsvm's SMO on the dual with ``yᵀa = 0``: the free intercept of
    this problem), ``n_iter × n`` SMO steps per point."""

    name = "libsvm"
    sampling_strategy = "iteration"
    install_cmd = "conda"
    requirements = ["scikit-learn"]

    def set_objective(self, X, y, C):
        self.X, self.y = X, y
        self.clf = SVC(kernel="linear", C=C, tol=1e-12, cache_size=1000)

    def run(self, n_iter):
        if n_iter == 0:   # max_iter=0 would mean no limit in libsvm (-1): the starting point instead, zero
            self.result = dict(beta=np.zeros(self.X.shape[1]), intercept=0.0)
            return
        # n_iter passes of n SMO steps (each step moves two multipliers): epochs, as for the other solvers
        self.clf.max_iter = n_iter * self.X.shape[0]
        self.result = coefficients(fit_quietly(self.clf, self.X, self.y))

    def get_result(self):
        return self.result
